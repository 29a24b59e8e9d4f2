/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The safe-device tests' shared part (security_*test.c): programs, processes,
 * trace sessions and the sec fixture (the node's mode recorded before any test).
 */
#ifndef SECURITY_UTIL_H
#define SECURITY_UTIL_H

/* Each test file uses some of these static functions: marked unused for the others. */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <liburing.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kmod_test.h"
#include "../host/vnef_build.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define SB		VNEF_MEM_SBUF
#define PS		VNEF_MEM_PSUM
#define F32		VNEF_DT_FP32
#define W32		0xffffffffu
#define NOBODY		65534
/* Rings of a traced core: the four engines, the DMA worker, the CC-core (uapi 4). */
#define TRACE_RINGS	6
#define TEST_GID	4242	/* the node's group while unprivileged children use it */
#define SEC_NS		1000000000ull
#define ONE_SECOND	SEC_NS	/* the bound for "at once" */
#define PARAMS		"/sys/module/vneuron/parameters/"
#define CGROOT		"/sys/fs/cgroup"
#define MIB		(1ull << 20)

/* The node as the module made it, before any test changed it (test 3 chowns it). */
static struct stat node0;
static int node0_err = -1;
static pid_t main_pid;

__attribute__((constructor)) static void record_node(void)
{
	main_pid = getpid();
	node0_err = stat(VN_DEV, &node0) ? errno : 0;
}

__attribute__((unused))
static void node_restore(void)
{
	if (node0_err)
		return;
	if (chown(VN_DEV, node0.st_uid, node0.st_gid) || chmod(VN_DEV, node0.st_mode & 07777))
		fprintf(stderr, "# could not restore %s: %s\n", VN_DEV, strerror(errno));
}

/* Whatever happened in the tests (a timeout kills their process), the node is put back. */
__attribute__((destructor)) static void restore_node_at_exit(void)
{
	if (getpid() == main_pid)
		node_restore();
}

/* ---- programs ---- */

__attribute__((unused))
static uint8_t *vb_done(struct vb *b, uint64_t *size)
{
	uint8_t *img = vb_finish(b, size);

	vb_free(b);
	return img;
}

/* One VectorE MEMSET of a small SBUF tile: the cheapest execution there is. */
__attribute__((unused))
static uint8_t *tiny_image(uint64_t *size)
{
	struct vnef_instr *in;
	float v = 1.0f;
	struct vb b;

	vb_init(&b);
	in = vb_op(&b, VNEURON_ENGINE_VECTOR, VNEF_OP_MEMSET);
	in->dst = vb_ap2(SB, F32, 0, 1, 0, 16);
	memcpy(&in->imm[0], &v, 4);
	return vb_done(&b, size);
}

/* n ScalarE tanh over 128 x 16384 fp32: host time grows with n (seconds in the guest). */
__attribute__((unused))
static uint8_t *long_image(uint64_t *size, uint32_t n)
{
	struct vnef_instr *in;
	float one = 1.0f;
	struct vb b;
	uint32_t i;

	vb_init(&b);
	for (i = 0; i < n; i++) {
		in = vb_op(&b, VNEURON_ENGINE_SCALAR, VNEF_OP_ACTIVATE);
		in->op = VNEF_ACT_TANH;
		memcpy(&in->imm[0], &one, 4);
		in->src0 = vb_ap2(SB, F32, 0, 128, 0, 16384);
		in->dst = vb_ap2(SB, F32, 0, 128, 65536, 16384);
	}
	return vb_done(&b, size);
}

/* A scratch tensor of bytes (bound to 0: the core provides it) and one NOP. */
__attribute__((unused))
static uint8_t *scratch_image(uint64_t bytes, uint64_t *size)
{
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "scratch", VNEF_TENSOR_SCRATCH, F32, bytes / 4, 0, NULL);
	vb_op(&b, VNEURON_ENGINE_VECTOR, VNEF_OP_NOP);
	return vb_done(&b, size);
}

/* A constant tensor of bytes zeros and one NOP: a large image that is still valid. */
__attribute__((unused))
static uint8_t *big_image(uint64_t bytes, uint64_t *size)
{
	void *zeros = calloc(1, bytes);
	struct vb b;

	if (!zeros)
		return NULL;
	vb_init(&b);
	vb_tensor(&b, "k", VNEF_TENSOR_CONST, F32, bytes / 4, 0, zeros);
	free(zeros);
	vb_op(&b, VNEURON_ENGINE_VECTOR, VNEF_OP_NOP);
	return vb_done(&b, size);
}

/*
 * All of SBUF and PSUM from two input tensors ("sbuf", "psum", one partition per row),
 * or (dump) to two output tensors: DMA queue 0 for SBUF, queue 1 for PSUM.
 */
#define SB_BYTES	((uint64_t)VNEF_PARTITIONS * VNEF_SBUF_PART_BYTES)
#define PS_BYTES	((uint64_t)VNEF_PARTITIONS * VNEF_PSUM_PART_BYTES)

__attribute__((unused))
static uint8_t *onchip_image(bool fill, uint64_t *size)
{
	uint32_t kind = fill ? VNEF_TENSOR_INPUT : VNEF_TENSOR_OUTPUT, i;
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "sbuf", kind, F32, VNEF_PARTITIONS, VNEF_SBUF_PART_BYTES / 4, NULL);
	vb_tensor(&b, "psum", kind, F32, VNEF_PARTITIONS, VNEF_PSUM_PART_BYTES / 4, NULL);
	for (i = 0; i < 2; i++) {
		uint32_t pb = i ? VNEF_PSUM_PART_BYTES : VNEF_SBUF_PART_BYTES;
		struct vnef_dma_desc *d = vb_dma(&b, i);
		struct vnef_dma_ep hbm = vb_hbm(i, 0, pb, 0);
		struct vnef_dma_ep chip = vb_chip(i ? PS : SB, 0, 0, 1, 0, 0, 0);

		d->chunk_bytes = pb;
		d->count[0] = VNEF_PARTITIONS;
		d->count[1] = 1;
		d->src = fill ? hbm : chip;
		d->dst = fill ? chip : hbm;
	}
	return vb_done(&b, size);
}

/* ---- processes ---- */

__attribute__((unused))
static int wait_exit(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

__attribute__((unused))
static int say(int fd)
{
	return write(fd, "x", 1) == 1 ? 0 : -1;
}

/* 0 once the other side said something, -1 if it went away first. */
__attribute__((unused))
static int hear(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

/* Memory both sides of a fork see: the children's results. */
__attribute__((unused))
static void *shared(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, n);
	return p;
}

/* Become nobody, able to open the node only through its group (TEST_GID). */
__attribute__((unused))
static int drop_privileges(void)
{
	gid_t g = TEST_GID;

	if (setgroups(1, &g) || setgid(NOBODY) || setuid(NOBODY))
		return -errno;
	return 0;
}

/* The effective and permitted capabilities of this process, ORed; ~0 if unknown. */
__attribute__((unused))
static unsigned long long caps_now(void)
{
	unsigned long long eff = ~0ull, prm = ~0ull, v;
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return ~0ull;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			eff = v;
		if (sscanf(line, "CapPrm: %llx", &v) == 1)
			prm = v;
	}
	fclose(f);
	return eff | prm;
}

#define CAP_BIT_SYS_ADMIN	(1ull << 21)
#define CAP_BIT_PERFMON		(1ull << 38)

/* EXEC_START and OK EXEC_END records of ring 0 so far. */
__attribute__((unused))
static void ring0_tally(const struct vn_ring0 *r, unsigned int *starts, unsigned int *ends_ok)
{
	size_t i, n = vn_ring0_count(r);

	*starts = 0;
	*ends_ok = 0;
	for (i = 0; i < n; i++) {
		if (r->rec[i].kind == VNEURON_TRACE_EXEC_START)
			++*starts;
		if (r->rec[i].kind == VNEURON_TRACE_EXEC_END && r->rec[i].opcode == VNEURON_EXEC_OK)
			++*ends_ok;
	}
}

/* Records published (or dropped) on all rings of a session so far, or -1. */
__attribute__((unused))
static long long all_records(int fd, const struct vneuron_trace_start *s)
{
	long long n = 0;
	uint32_t i;

	for (i = 0; i < s->nr_rings; i++) {
		off_t off = (off_t)(s->mmap_offset + i * s->ring_stride + s->consumer_len);
		const struct vneuron_trace_ctrl *c;

		c = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, off);
		if (c == MAP_FAILED)
			return -1;
		n += __atomic_load_n(&c->producer_pos, __ATOMIC_ACQUIRE) /
		     VNEURON_TRACE_RECORD_SIZE + c->dropped;
		munmap((void *)c, PAGE);
	}
	return n;
}

__attribute__((unused))
static int trace_start(int fd, uint32_t core, uint64_t ring, struct vneuron_trace_start *out)
{
	struct vneuron_trace_start s = { .core = core, .ring_size = ring };
	int ret = vn_ioctl(fd, VNEURON_IOCTL_TRACE_START, &s);

	if (out)
		*out = s;
	return ret;
}

__attribute__((unused))
static int trace_stop(int fd, uint32_t core)
{
	struct vneuron_trace_stop s = { .core = core };

	return vn_ioctl(fd, VNEURON_IOCTL_TRACE_STOP, &s);
}

__attribute__((unused))
static int reset_core(int fd, uint32_t core)
{
	struct vneuron_reset r = { .core = core };

	return vn_ioctl(fd, VNEURON_IOCTL_RESET, &r);
}

/* execs, programs, mem_objects and open_files all 0, and (owners) no core owned. */
__attribute__((unused))
static bool module_idle(unsigned int cores, bool owners)
{
	static const char *const names[] = { "execs", "programs", "mem_objects", "open_files" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (vn_counter(names[i]) != 0)
			return false;
	for (i = 0; owners && i < cores; i++)
		if (vn_owner_pid(i) != 0)
			return false;
	return true;
}

/* Polls module_idle() until deadline (absolute, ns): whether it got there in time. */
__attribute__((unused))
static bool idle_by(unsigned int cores, uint64_t deadline)
{
	for (;;) {
		if (module_idle(cores, true))
			return true;
		if (vn_now_ns() > deadline)
			return false;
		usleep(5000);
	}
}

FIXTURE(sec) {
	struct vneuron_info info;
	uint8_t *tiny;
	uint64_t tiny_size;
};

FIXTURE_SETUP(sec)
{
	int fd = vn_open();

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", VN_DEV, strerror(errno));
	memset(&self->info, 0, sizeof(self->info));
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_GET_INFO, &self->info));
	close(fd);
	/* A module without them (limits_in_get_info fails): the documented defaults. */
	if (!(self->info.caps & VNEURON_CAP_LIMITS))
		self->info.limits = (struct vneuron_limits){
			.max_programs = 256, .max_execs = 1024,
			.max_program_bytes = 256 * MIB, .max_exec_bytes = 1024 * MIB,
			.max_trace_bytes = 1536 * MIB,
		};
	self->tiny = tiny_image(&self->tiny_size);
	ASSERT_NE(NULL, self->tiny);
}

FIXTURE_TEARDOWN(sec)
{
	free(self->tiny);
}

#endif /* SECURITY_UTIL_H */
