// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron.ko in the guest, attacked from outside: images whose strides wrap, a read-only
 * descriptor, an unprivileged second process, another owner's leftovers on chip, a small
 * memory cgroup, a process that dies with work queued, a tracer killed while it waits,
 * the per-file limits and the node's mode. Each test asserts the refusal (the bench
 * checks the guest's log for warnings). Runs as root; the unprivileged cases drop to
 * nobody in forked children.
 *
 * One file, over 1,000 lines: one test per finding of the safe-device issue, sharing the
 * unprivileged-child and memory-cgroup fixtures and one guest boot.
 */
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

static uint8_t *vb_done(struct vb *b, uint64_t *size)
{
	uint8_t *img = vb_finish(b, size);

	vb_free(b);
	return img;
}

/* One VectorE MEMSET of a small SBUF tile: the cheapest execution there is. */
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
static uint8_t *scratch_image(uint64_t bytes, uint64_t *size)
{
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "scratch", VNEF_TENSOR_SCRATCH, F32, bytes / 4, 0, NULL);
	vb_op(&b, VNEURON_ENGINE_VECTOR, VNEF_OP_NOP);
	return vb_done(&b, size);
}

/* A constant tensor of bytes zeros and one NOP: a large image that is still valid. */
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

static int wait_exit(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

static int say(int fd)
{
	return write(fd, "x", 1) == 1 ? 0 : -1;
}

/* 0 once the other side said something, -1 if it went away first. */
static int hear(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

/* Memory both sides of a fork see: the children's results. */
static void *shared(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, n);
	return p;
}

/* Become nobody, able to open the node only through its group (TEST_GID). */
static int drop_privileges(void)
{
	gid_t g = TEST_GID;

	if (setgroups(1, &g) || setgid(NOBODY) || setuid(NOBODY))
		return -errno;
	return 0;
}

/* The effective and permitted capabilities of this process, ORed; ~0 if unknown. */
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

static int trace_start(int fd, uint32_t core, uint64_t ring, struct vneuron_trace_start *out)
{
	struct vneuron_trace_start s = { .core = core, .ring_size = ring };
	int ret = vn_ioctl(fd, VNEURON_IOCTL_TRACE_START, &s);

	if (out)
		*out = s;
	return ret;
}

static int trace_stop(int fd, uint32_t core)
{
	struct vneuron_trace_stop s = { .core = core };

	return vn_ioctl(fd, VNEURON_IOCTL_TRACE_STOP, &s);
}

static int reset_core(int fd, uint32_t core)
{
	struct vneuron_reset r = { .core = core };

	return vn_ioctl(fd, VNEURON_IOCTL_RESET, &r);
}

/* execs, programs, mem_objects and open_files all 0, and (owners) no core owned. */
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

/*
 * 9. The node: a char device, mode 0660 as the module's devnode callback made it on this
 * load (recorded before any test changed it), never accessible to others.
 */
TEST_F(sec, node_mode)
{
	struct stat st;

	ASSERT_EQ(0, node0_err) TH_LOG("stat %s: %s", VN_DEV, strerror(node0_err));
	EXPECT_TRUE(S_ISCHR(node0.st_mode));
	EXPECT_EQ(0660, node0.st_mode & 07777) TH_LOG("mode %o", node0.st_mode & 07777);
	EXPECT_EQ(0, node0.st_mode & 0007);
	/* And so it still is (test 3 puts it back). */
	ASSERT_EQ(0, stat(VN_DEV, &st));
	EXPECT_EQ(0, st.st_mode & 0007);
}

/* ---- 1. wrapping strides ---- */

struct dma_case {
	const char *what;
	uint32_t chunk, count0, count1;
	struct vnef_dma_ep src, dst;
};

/* Tensors in (input) and out (output), [128 x 64] fp32, and one descriptor. */
static uint8_t *dma_case_image(const struct dma_case *c, uint64_t *size)
{
	struct vnef_dma_desc *d;
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "in", VNEF_TENSOR_INPUT, F32, 128, 64, NULL);
	vb_tensor(&b, "out", VNEF_TENSOR_OUTPUT, F32, 128, 64, NULL);
	d = vb_dma(&b, 0);
	d->chunk_bytes = c->chunk;
	d->count[0] = c->count0;
	d->count[1] = c->count1;
	d->src = c->src;
	d->dst = c->dst;
	return vb_done(&b, size);
}

struct ap_case {
	const char *what;
	struct vnef_ap dst, src0;
};

/* A VectorE COPY src0 -> dst. */
static uint8_t *ap_case_image(const struct ap_case *c, uint64_t *size)
{
	struct vnef_instr *in;
	struct vb b;

	vb_init(&b);
	in = vb_op(&b, VNEURON_ENGINE_VECTOR, VNEF_OP_COPY);
	in->dst = c->dst;
	in->src0 = c->src0;
	return vb_done(&b, size);
}

#define B63		(1ull << 63)
#define HBM_IN		vb_hbm(0, 0, 0, 0)
#define HBM_OUT		vb_hbm(1, 0, 0, 0)
/* count0 = 2^32 - 1, count1 = 4 (or swapped): partition + 2^64 - 1 wraps to partition - 1. */
#define WRAP_PARTS(mem, part)	vb_chip(mem, part, 0, W32, 0, W32, 0)

/* The load must fail with -EINVAL naming check; nothing may stay loaded. */
static int refused_as(int fd, const uint8_t *img, uint64_t size, uint32_t check, char *why,
		      size_t n)
{
	struct vneuron_program_load pl;
	int ret = vn_prog_load(fd, img, size, NULL, &pl);

	snprintf(why, n, "ret %d check %u (%s)", ret, pl.check, pl.msg);
	return ret == -EINVAL && pl.check == check && pl.handle == 0;
}

TEST_F_TIMEOUT(sec, wrapping_strides_refused, 120)
{
	const struct dma_case good_dma = {
		"base", 256, 128, 1, vb_hbm(0, 0, 256, 0), vb_chip(SB, 0, 0, 1, 0, 0, 0),
	};
	/*
	 * On-chip endpoints whose last partition, partition + (count0 - 1) *
	 * part_stride[0] + (count1 - 1) * part_stride[1], wraps 64 bits to one below 128:
	 * their chunks would land anywhere in the kernel's address space.
	 */
	const struct dma_case part_wraps[] = {
		{ "SBUF dst, count0", 1, W32, 4, HBM_IN, WRAP_PARTS(SB, 1) },
		{ "SBUF dst, count1", 1, 4, W32, HBM_IN, WRAP_PARTS(SB, 1) },
		{ "SBUF dst to 127", 1, W32, 4, HBM_IN, WRAP_PARTS(SB, 128) },
		{ "PSUM dst, count0", 1, W32, 4, HBM_IN, WRAP_PARTS(PS, 1) },
		{ "PSUM dst, count1", 1, 4, W32, HBM_IN, WRAP_PARTS(PS, 64) },
		{ "SBUF src, count0", 1, W32, 4, WRAP_PARTS(SB, 1), HBM_OUT },
		{ "SBUF src, count1", 1, 4, W32, WRAP_PARTS(SB, 100), HBM_OUT },
		{ "PSUM src, count0", 1, W32, 4, WRAP_PARTS(PS, 1), HBM_OUT },
		{ "PSUM src, count1", 1, 4, W32, WRAP_PARTS(PS, 2), HBM_OUT },
	};
	/* Byte strides, offsets and chunk ends that wrap 64 bits, in HBM and on chip. */
	const struct dma_case byte_wraps[] = {
		{ "HBM src stride0 * count", 4, 3, 1,
		  vb_hbm(0, 0, B63, 0), vb_chip(SB, 0, 0, 1, 0, 0, 0) },
		{ "HBM src stride1 * count", 4, 1, 3,
		  vb_hbm(0, 0, 0, B63), vb_chip(SB, 0, 0, 0, 0, 1, 0) },
		{ "HBM dst stride sum", 4, 2, 2,
		  vb_chip(SB, 0, 0, 0, 4, 0, 8), vb_hbm(1, 0, B63, B63) },
		{ "HBM src offset + span", 64, 2, 1,
		  vb_hbm(0, ~0ull - 100, 64, 0), vb_chip(SB, 0, 0, 1, 0, 0, 0) },
		{ "HBM dst offset + chunk", 16, 1, 1,
		  vb_chip(SB, 0, 0, 0, 0, 0, 0), vb_hbm(1, ~0ull - 7, 0, 0) },
		{ "SBUF dst stride sum", 4, 2, 2,
		  vb_hbm(0, 0, 4, 8), vb_chip(SB, 0, 0, 0, B63, 0, B63) },
		{ "SBUF src offset + chunk", 8, 1, 1,
		  vb_chip(SB, 0, ~0ull - 3, 0, 0, 0, 0), HBM_OUT },
		{ "PSUM src stride0 * count", 4, 5, 1,
		  vb_chip(PS, 0, 0, 0, 1ull << 62, 0, 0), vb_hbm(1, 0, 4, 0) },
		{ "PSUM dst offset + stride", 4, 2, 1,
		  vb_hbm(0, 0, 4, 0), vb_chip(PS, 0, B63, 0, B63, 0, 0) },
	};
	/* Operands whose index sums or byte ends wrap 32 bits (as a u32 engine would). */
	const struct ap_case ap_wraps[] = {
		{ "dst stride sum = 2^32",
		  vb_ap(SB, F32, 0, 1, 0, 2, 0x80000000u, 2, 0x80000000u),
		  vb_ap2(SB, F32, 0, 1, 4096, 4) },
		{ "dst index * 4 = 2^32",
		  vb_ap(SB, F32, 0, 1, 0, 2, 0x40000000u, 1, 0), vb_ap2(SB, F32, 0, 1, 4096, 2) },
		{ "dst offset + 4 = 2^32",
		  vb_ap(SB, F32, 0, 1, 0xfffffffcu, 1, 1, 1, 0), vb_ap2(SB, F32, 0, 1, 4096, 1) },
		{ "src0 PSUM stride sum = 2^32",
		  vb_ap2(SB, F32, 0, 1, 0, 4), vb_ap(PS, F32, 0, 1, 0, 2, 1, 2, W32) },
		{ "src0 stride1 * 3 = 2^32 + 2",
		  vb_ap2(SB, F32, 0, 1, 0, 4), vb_ap(SB, F32, 0, 1, 0, 1, 0, 4, 0x55555556u) },
		{ "src0 stride 2^32 - 1 over 98304",
		  vb_ap(SB, VNEF_DT_BF16, 0, 1, 0, 98304, 1, 1, 0),
		  vb_ap(SB, F32, 0, 1, 0, 98304, W32, 1, 0) },
		{ "dst partitions wrap 16 bits",
		  vb_ap2(SB, F32, 0xffff, 2, 0, 16), vb_ap2(SB, F32, 0, 2, 4096, 16) },
	};
	const struct ap_case good_ap = {
		"base", vb_ap2(SB, F32, 0, 1, 0, 16), vb_ap2(SB, F32, 0, 1, 4096, 16),
	};
	long long progs0 = vn_counter("programs");
	uint32_t h[2], prog, i;
	struct vneuron_wait w;
	uint64_t size;
	uint8_t *img;
	char why[160];
	int fd = vn_open();

	ASSERT_LE(0, fd);
	for (i = 0; i < ARRAY_SIZE(part_wraps); i++) {
		img = dma_case_image(&part_wraps[i], &size);
		EXPECT_TRUE(refused_as(fd, img, size, VNEF_CHK_DMA, why, sizeof(why)))
			TH_LOG("partition wrap, %s: %s", part_wraps[i].what, why);
		free(img);
	}
	for (i = 0; i < ARRAY_SIZE(byte_wraps); i++) {
		img = dma_case_image(&byte_wraps[i], &size);
		EXPECT_TRUE(refused_as(fd, img, size, VNEF_CHK_DMA, why, sizeof(why)))
			TH_LOG("byte wrap, %s: %s", byte_wraps[i].what, why);
		free(img);
	}
	for (i = 0; i < ARRAY_SIZE(ap_wraps); i++) {
		img = ap_case_image(&ap_wraps[i], &size);
		EXPECT_TRUE(refused_as(fd, img, size, VNEF_CHK_OPERAND, why, sizeof(why)))
			TH_LOG("operand, %s: %s", ap_wraps[i].what, why);
		free(img);
	}
	EXPECT_EQ(progs0, vn_counter("programs"));

	/* The same programs with sane fields load and run: the device is fine. */
	img = dma_case_image(&good_dma, &size);
	ASSERT_EQ(0, vn_prog_load(fd, img, size, &prog, NULL));
	free(img);
	ASSERT_LT(0, (int)(h[0] = vn_alloc(fd, 128 * 64 * 4, NULL)));
	ASSERT_LT(0, (int)(h[1] = vn_alloc(fd, 128 * 64 * 4, NULL)));
	ASSERT_EQ(0, vn_run_on(fd, prog, 0, h, 2, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	img = ap_case_image(&good_ap, &size);
	ASSERT_EQ(0, vn_prog_load(fd, img, size, &prog, NULL));
	free(img);
	ASSERT_EQ(0, vn_run_on(fd, prog, 0, NULL, 0, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	close(fd);
}

/* ---- 2. read-only descriptor ---- */

static int uring_exec_res(struct io_uring *ring, int fd, struct vneuron_exec *e,
			  struct vneuron_wait *w)
{
	struct vneuron_uring_cmd uc = { .exec_ptr = (uintptr_t)e, .status_ptr = (uintptr_t)w };
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int res;

	if (!sqe)
		return -9998;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = VNEURON_URING_CMD_EXEC;
	memcpy(sqe->cmd, &uc, sizeof(uc));
	if (io_uring_submit(ring) != 1 || io_uring_wait_cqe(ring, &cqe))
		return -9999;
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

TEST_F_TIMEOUT(sec, read_only_descriptor, 120)
{
	struct vneuron_mem_alloc a, ma = { .size = PAGE };
	struct vneuron_trace_start ts;
	struct vneuron_info info;
	struct vneuron_exec e;
	struct vneuron_wait w;
	struct io_uring ring;
	long long objs, progs, execs, files;
	uint64_t offs[6];
	uint32_t prog;
	char buf[64];
	unsigned int i;
	int wr = vn_open(), ro = open(VN_DEV, O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, wr);
	ASSERT_LE(0, ro) TH_LOG("open O_RDONLY: %s", strerror(errno));
	/* The writable file of the same process has a program, a buffer and a session. */
	ASSERT_EQ(0, vn_prog_load(wr, self->tiny, self->tiny_size, &prog, NULL));
	ASSERT_LT(0, vn_alloc(wr, PAGE, &a));
	ASSERT_EQ(0, trace_start(wr, 0, 1 << 16, &ts));
	objs = vn_counter("mem_objects");
	progs = vn_counter("programs");
	execs = vn_counter("execs");
	files = vn_counter("open_files");

	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, vn_ioctl(ro, VNEURON_IOCTL_GET_INFO, &info));
	EXPECT_EQ((__u32)VNEURON_UAPI_VERSION, info.uapi_version);
	EXPECT_EQ(self->info.core_count, info.core_count);

	EXPECT_EQ(-EBADF, vn_ioctl(ro, VNEURON_IOCTL_MEM_ALLOC, &ma));
	EXPECT_EQ(0U, ma.handle);
	EXPECT_EQ(-EBADF, vn_free(ro, a.handle));
	EXPECT_EQ(-EBADF, vn_rw(ro, 1, a.handle, 0, buf, 8));
	EXPECT_EQ(-EBADF, vn_rw(ro, 0, a.handle, 0, buf, 8));
	EXPECT_EQ(-EBADF, reset_core(ro, 0));
	EXPECT_EQ(-EBADF, vn_prog_load(ro, self->tiny, self->tiny_size, NULL, NULL));
	{
		struct vneuron_program_unload u = { .handle = prog };

		EXPECT_EQ(-EBADF, vn_ioctl(ro, VNEURON_IOCTL_PROGRAM_UNLOAD, &u));
	}
	EXPECT_EQ(-EBADF, vn_exec_on(ro, prog, 0, NULL, 0, 0, NULL));
	EXPECT_EQ(-EBADF, vn_wait_for(ro, 1, 0, NULL));
	EXPECT_EQ(-EBADF, trace_start(ro, 1 % self->info.core_count, 1 << 16, NULL));
	EXPECT_EQ(-EBADF, trace_stop(ro, 0));

	/* No mapping at all: its own offsets, another file's buffer and ring offsets. */
	offs[0] = 0;
	offs[1] = 1ull << 32;			/* a first buffer's window */
	offs[2] = a.mmap_offset;		/* the writable file's buffer */
	offs[3] = VNEURON_MMAP_TRACE_BASE;
	offs[4] = ts.mmap_offset;		/* the writable file's rings */
	offs[5] = ts.mmap_offset + ts.consumer_len;
	for (i = 0; i < 6; i++) {
		void *p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, ro, (off_t)offs[i]);

		EXPECT_EQ(MAP_FAILED, p) TH_LOG("offset %#llx mapped", (unsigned long long)offs[i]);
		EXPECT_EQ(EACCES, errno) TH_LOG("offset %#llx: %s", (unsigned long long)offs[i],
						strerror(errno));
		if (p != MAP_FAILED)
			munmap(p, PAGE);
	}

	/* io_uring: the same EXEC completes on the writable file and is refused on this. */
	ASSERT_EQ(0, io_uring_queue_init(4, &ring, 0));
	e = (struct vneuron_exec){ .program = prog };
	EXPECT_EQ(-EBADF, uring_exec_res(&ring, ro, &e, &w));
	e = (struct vneuron_exec){ .program = prog };
	EXPECT_EQ(0, uring_exec_res(&ring, wr, &e, &w));
	io_uring_queue_exit(&ring);

	/* Nothing was made through the read-only file. */
	EXPECT_EQ(objs, vn_counter("mem_objects"));
	EXPECT_EQ(progs, vn_counter("programs"));
	EXPECT_EQ(execs, vn_counter("execs"));
	EXPECT_EQ(files, vn_counter("open_files"));
	close(ro);
	close(wr);
}

/* ---- 3. two processes, one unprivileged ---- */

struct owners {
	unsigned long long caps;
	int drop, open, load, exec0, reset0, trace0, run1, run1b;
	long long owner0;
	uint32_t st1, st1b;
	/* same user */
	int u1_drop, u1_run, u1_run2, u2_drop, u2_load, u2_trace_nodump, u2_trace, u2_map;
	int u2_exec, u2_reset, u2_run, u2_stop;
	uint32_t u1_st, u1_st2, u2_st;
	unsigned int u2_starts, u2_ends;
	long long u2_owner_seen, u2_owner_after, u2_owner_mine;
	pid_t u1_pid, u2_pid;
	/* a spy's session on a free core */
	int s_drop, s_trace, s_run;
	long long s_seen_root;
	uint32_t s_st;
	unsigned int s_starts, s_ends;
};

/* Open the node to TEST_GID only, as a deployment's group would. */
static int node_for_group(void)
{
	if (chown(VN_DEV, 0, TEST_GID) || chmod(VN_DEV, 0660))
		return -errno;
	return 0;
}

TEST_F_TIMEOUT(sec, unprivileged_second_process, 180)
{
	struct owners *r = shared(sizeof(*r));
	struct vneuron_trace_start ts;
	struct vneuron_wait w;
	struct vn_ring0 ring;
	unsigned int starts, ends;
	int p2c[2], c2p[2], fd;
	uint32_t prog;
	pid_t pid;

	ASSERT_NE(NULL, r);
	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_EQ(0, node0_err);
	ASSERT_EQ(0, node_for_group());

	/* root claims core 0 */
	fd = vn_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vn_prog_load(fd, self->tiny, self->tiny_size, &prog, NULL));
	ASSERT_EQ(0, vn_run_on(fd, prog, 0, NULL, 0, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	EXPECT_EQ(getpid(), vn_owner_pid(0));

	ASSERT_EQ(0, pipe(p2c));
	ASSERT_EQ(0, pipe(c2p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint32_t cprog;
		int cfd;

		close(p2c[1]);
		close(c2p[0]);
		close(fd);
		r->drop = drop_privileges();
		r->caps = caps_now();
		cfd = open(VN_DEV, O_RDWR | O_CLOEXEC);
		r->open = cfd < 0 ? -errno : 0;
		if (r->drop || cfd < 0)
			_exit(1);
		r->load = vn_prog_load(cfd, self->tiny, self->tiny_size, &cprog, NULL);
		r->exec0 = vn_exec_on(cfd, cprog, 0, NULL, 0, 0, NULL);
		r->reset0 = reset_core(cfd, 0);
		r->trace0 = trace_start(cfd, 0, 1 << 16, NULL);
		r->owner0 = vn_owner_pid(0);
		r->run1 = vn_run_on(cfd, cprog, 1, NULL, 0, &w);
		r->st1 = w.status;
		if (say(c2p[1]) || hear(p2c[0]))
			_exit(2);
		/* root is tracing core 1 now */
		r->run1b = vn_run_on(cfd, cprog, 1, NULL, 0, &w);
		r->st1b = w.status;
		if (say(c2p[1]) || hear(p2c[0]))
			_exit(3);
		_exit(0);
	}
	close(p2c[0]);
	close(c2p[1]);
	ASSERT_EQ(0, hear(c2p[0])) TH_LOG("child: drop %d open %d", r->drop, r->open);
	EXPECT_EQ(0, r->drop);
	EXPECT_EQ(0ull, r->caps & (CAP_BIT_SYS_ADMIN | CAP_BIT_PERFMON));
	EXPECT_EQ(0ull, r->caps);
	EXPECT_EQ(0, r->open);
	EXPECT_EQ(0, r->load);
	EXPECT_EQ(-EBUSY, r->exec0);
	EXPECT_EQ(-EPERM, r->reset0);
	EXPECT_EQ(-EPERM, r->trace0);
	EXPECT_EQ(getpid(), r->owner0);
	EXPECT_EQ(0, r->run1);
	EXPECT_EQ(VNEURON_EXEC_OK, r->st1);

	/* the child owns core 1: root may not run there, but may reset and trace it */
	EXPECT_EQ(pid, vn_owner_pid(1));
	EXPECT_EQ(-EBUSY, vn_exec_on(fd, prog, 1, NULL, 0, 0, NULL));
	EXPECT_EQ(0, reset_core(fd, 1));
	ASSERT_EQ(0, trace_start(fd, 1, 1 << 16, &ts));
	ASSERT_EQ(0, vn_ring0_map(fd, &ts, &ring));
	ASSERT_EQ(0, say(p2c[1]));
	ASSERT_EQ(0, hear(c2p[0]));
	EXPECT_EQ(0, r->run1b);
	EXPECT_EQ(VNEURON_EXEC_OK, r->st1b);
	ring0_tally(&ring, &starts, &ends);
	EXPECT_EQ(1u, starts);		/* the child's execution, seen by CAP_PERFMON */
	EXPECT_EQ(1u, ends);
	ASSERT_EQ(0, say(p2c[1]));
	EXPECT_EQ(0, wait_exit(pid));
	close(p2c[1]);
	close(c2p[0]);

	/* its file is gone: core 1 is free, and root's EXEC there works */
	EXPECT_EQ(0, vn_owner_pid(1));
	ASSERT_EQ(0, vn_run_on(fd, prog, 1, NULL, 0, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	EXPECT_EQ(getpid(), vn_owner_pid(1));
	vn_ring0_unmap(&ring);
	EXPECT_EQ(0, trace_stop(fd, 1));
	close(fd);
	EXPECT_EQ(0, vn_owner_pid(0));
	EXPECT_EQ(0, vn_owner_pid(1));

	/*
	 * An unprivileged session started on a free core before root claims it: root's
	 * executions there run untraced (not one record on any ring); the session itself
	 * works, as its own execution shows once the core is free again.
	 */
	{
		int a[2], b[2];	/* spy -> root, root -> spy */
		pid_t spy;

		ASSERT_EQ(0, pipe(a));
		ASSERT_EQ(0, pipe(b));
		spy = fork();
		ASSERT_LE(0, spy);
		if (!spy) {
			struct vn_ring0 rs;
			uint32_t sp;
			int sf;

			close(a[0]);
			close(b[1]);
			r->s_drop = drop_privileges();
			sf = open(VN_DEV, O_RDWR | O_CLOEXEC);
			if (r->s_drop || sf < 0 ||
			    vn_prog_load(sf, self->tiny, self->tiny_size, &sp, NULL))
				_exit(1);
			r->s_trace = trace_start(sf, 0, 1 << 16, &ts);
			if (r->s_trace || vn_ring0_map(sf, &ts, &rs))
				_exit(2);
			if (say(a[1]) || hear(b[0]))
				_exit(3);
			r->s_seen_root = all_records(sf, &ts);
			if (say(a[1]) || hear(b[0]))
				_exit(4);
			r->s_run = vn_run_on(sf, sp, 0, NULL, 0, &w);
			r->s_st = w.status;
			ring0_tally(&rs, &r->s_starts, &r->s_ends);
			_exit(0);
		}
		close(a[1]);
		close(b[0]);
		ASSERT_EQ(0, hear(a[0])) TH_LOG("spy: drop %d trace %d", r->s_drop, r->s_trace);
		fd = vn_open();
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, vn_prog_load(fd, self->tiny, self->tiny_size, &prog, NULL));
		ASSERT_EQ(0, vn_run_on(fd, prog, 0, NULL, 0, &w));
		EXPECT_EQ(VNEURON_EXEC_OK, w.status);
		ASSERT_EQ(0, vn_run_on(fd, prog, 0, NULL, 0, &w));
		ASSERT_EQ(0, say(b[1]));
		ASSERT_EQ(0, hear(a[0]));
		close(fd);
		ASSERT_EQ(0, say(b[1]));
		EXPECT_EQ(0, wait_exit(spy));
		close(a[0]);
		close(b[1]);
		EXPECT_EQ(0, r->s_trace);
		EXPECT_EQ(0, r->s_seen_root) TH_LOG("root's executions reached nobody's rings");
		EXPECT_EQ(0, r->s_run);
		EXPECT_EQ(VNEURON_EXEC_OK, r->s_st);
		EXPECT_EQ(1u, r->s_starts);
		EXPECT_EQ(1u, r->s_ends);
	}

	/*
	 * Same user: u2 may trace u1's core once u1 is dumpable (not before: a process that
	 * changed its ids is not), sees its executions, but may neither run there nor reset
	 * it. When u1 closes its file, u2's EXEC claims the core.
	 */
	{
		int a[2], b[2];	/* u1 -> u2, u2 -> u1 */
		pid_t u1, u2;

		ASSERT_EQ(0, pipe(a));
		ASSERT_EQ(0, pipe(b));
		u1 = fork();
		ASSERT_LE(0, u1);
		if (!u1) {
			uint32_t p1;
			int f1;

			close(a[0]);
			close(b[1]);
			r->u1_drop = drop_privileges();
			prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
			f1 = open(VN_DEV, O_RDWR | O_CLOEXEC);
			if (r->u1_drop || f1 < 0 ||
			    vn_prog_load(f1, self->tiny, self->tiny_size, &p1, NULL))
				_exit(1);
			r->u1_pid = getpid();
			r->u1_run = vn_run_on(f1, p1, 0, NULL, 0, &w);
			r->u1_st = w.status;
			if (say(a[1]) || hear(b[0]))
				_exit(2);
			prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
			if (say(a[1]) || hear(b[0]))
				_exit(3);
			r->u1_run2 = vn_run_on(f1, p1, 0, NULL, 0, &w);
			r->u1_st2 = w.status;
			if (say(a[1]) || hear(b[0]))
				_exit(4);
			close(f1);
			if (say(a[1]) || hear(b[0]))
				_exit(5);
			_exit(0);
		}
		u2 = fork();
		ASSERT_LE(0, u2);
		if (!u2) {
			struct vn_ring0 r2;
			uint32_t p2;
			int f2;

			close(a[1]);
			close(b[0]);
			r->u2_drop = drop_privileges();
			f2 = open(VN_DEV, O_RDWR | O_CLOEXEC);
			if (r->u2_drop || f2 < 0)
				_exit(1);
			r->u2_load = vn_prog_load(f2, self->tiny, self->tiny_size, &p2, NULL);
			r->u2_pid = getpid();
			if (hear(a[0]))
				_exit(2);
			r->u2_owner_seen = vn_owner_pid(0);
			r->u2_trace_nodump = trace_start(f2, 0, 1 << 16, NULL);
			if (say(b[1]) || hear(a[0]))
				_exit(3);
			r->u2_trace = trace_start(f2, 0, 1 << 16, &ts);
			r->u2_map = r->u2_trace ? -1 : vn_ring0_map(f2, &ts, &r2);
			if (say(b[1]) || hear(a[0]))
				_exit(4);
			if (!r->u2_map)
				ring0_tally(&r2, &r->u2_starts, &r->u2_ends);
			r->u2_exec = vn_exec_on(f2, p2, 0, NULL, 0, 0, NULL);
			r->u2_reset = reset_core(f2, 0);
			if (say(b[1]) || hear(a[0]))
				_exit(5);
			r->u2_owner_after = vn_owner_pid(0);
			r->u2_run = vn_run_on(f2, p2, 0, NULL, 0, &w);
			r->u2_st = w.status;
			r->u2_owner_mine = vn_owner_pid(0);
			r->u2_stop = trace_stop(f2, 0);
			if (say(b[1]))
				_exit(6);
			_exit(0);
		}
		close(a[0]);
		close(a[1]);
		close(b[0]);
		close(b[1]);
		EXPECT_EQ(0, wait_exit(u1));
		EXPECT_EQ(0, wait_exit(u2));
		EXPECT_EQ(0, r->u1_drop);
		EXPECT_EQ(0, r->u2_drop);
		EXPECT_EQ(0, r->u2_load);
		EXPECT_EQ(0, r->u1_run);
		EXPECT_EQ(VNEURON_EXEC_OK, r->u1_st);
		EXPECT_EQ(r->u1_pid, r->u2_owner_seen);
		EXPECT_EQ(-EPERM, r->u2_trace_nodump);
		EXPECT_EQ(0, r->u2_trace);
		EXPECT_EQ(0, r->u2_map);
		EXPECT_EQ(0, r->u1_run2);
		EXPECT_EQ(VNEURON_EXEC_OK, r->u1_st2);
		EXPECT_EQ(1u, r->u2_starts);	/* u1's second execution reached u2's rings */
		EXPECT_EQ(1u, r->u2_ends);
		EXPECT_EQ(-EBUSY, r->u2_exec);
		EXPECT_EQ(-EPERM, r->u2_reset);
		EXPECT_EQ(0, r->u2_owner_after);
		EXPECT_EQ(0, r->u2_run);
		EXPECT_EQ(VNEURON_EXEC_OK, r->u2_st);
		EXPECT_EQ(r->u2_pid, r->u2_owner_mine);
		EXPECT_EQ(0, r->u2_stop);
	}
	node_restore();
	EXPECT_EQ(0, vn_owner_pid(0));
}

/* ---- 4. SBUF and PSUM zeroed for the next owner ---- */

struct onchip {
	int a_setup, a_fill, a_dump, a_same;
	int b_setup, b_dump, b_zero, b_fill, b_before_same, b_reset, b_after, b_after_zero;
	uint32_t a_st[2], b_st[4];
};

/* Every byte non-zero, and no two neighbours alike. */
static void pattern(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(1 + (i * 7 + (i >> 12)) % 255);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

struct chip_file {
	int fd;
	uint32_t fill, dump;
	uint32_t in[2], out[2];
};

/* A file with both programs and in (pattern) and out (0xff) buffers. */
static int chip_file_open(struct chip_file *c, const uint8_t *fill, uint64_t fsize,
			  const uint8_t *dump, uint64_t dsize, uint8_t *pat, uint8_t *junk)
{
	int h, i;

	c->fd = vn_open();
	if (c->fd < 0)
		return -1;
	if (vn_prog_load(c->fd, fill, fsize, &c->fill, NULL) ||
	    vn_prog_load(c->fd, dump, dsize, &c->dump, NULL))
		return -2;
	for (i = 0; i < 2; i++) {
		uint64_t n = i ? PS_BYTES : SB_BYTES;

		h = vn_alloc(c->fd, n, NULL);
		if (h <= 0)
			return -3;
		c->in[i] = h;
		h = vn_alloc(c->fd, n, NULL);
		if (h <= 0)
			return -3;
		c->out[i] = h;
		if (vn_rw(c->fd, 1, c->in[i], 0, i ? pat + SB_BYTES : pat, n) ||
		    vn_rw(c->fd, 1, c->out[i], 0, junk, n))
			return -4;
	}
	return 0;
}

/* Run dump on core, read both outputs into got (SB_BYTES + PS_BYTES). */
static int chip_dump(struct chip_file *c, uint32_t core, uint8_t *got, uint32_t *status)
{
	struct vneuron_wait w = { 0 };
	int ret = vn_run_on(c->fd, c->dump, core, c->out, 2, &w);

	*status = w.status;
	if (ret)
		return ret;
	if (vn_rw(c->fd, 0, c->out[0], 0, got, SB_BYTES) ||
	    vn_rw(c->fd, 0, c->out[1], 0, got + SB_BYTES, PS_BYTES))
		return -5;
	return 0;
}

TEST_F_TIMEOUT(sec, onchip_zeroed_for_next_owner, 600)
{
	size_t n = SB_BYTES + PS_BYTES;
	uint8_t *pat = malloc(n), *junk = malloc(n), *got = malloc(n);
	uint64_t fsize, dsize;
	uint8_t *fill = onchip_image(true, &fsize), *dump = onchip_image(false, &dsize);
	struct onchip *r = shared(sizeof(*r));
	struct vneuron_wait w;
	int held;

	ASSERT_TRUE(pat && junk && got && fill && dump && r);
	pattern(pat, n);
	memset(junk, 0xff, n);
	/*
	 * Twice: with the core's executor kept alive between the owners by a third file's
	 * trace session (the on-chip memory itself passes from A to B), and without.
	 */
	for (held = 1; held >= 0; held--) {
		struct chip_file c;
		int tfd = -1;
		pid_t pid;

		memset(r, 0, sizeof(*r));
		if (held) {
			tfd = vn_open();
			ASSERT_LE(0, tfd);
			ASSERT_EQ(0, trace_start(tfd, 0, 1 << 16, NULL));
		}
		/* A: fills SBUF and PSUM, sees them kept across its own executions, exits */
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			if (tfd >= 0)
				close(tfd);
			r->a_setup = chip_file_open(&c, fill, fsize, dump, dsize, pat, junk);
			if (r->a_setup)
				_exit(1);
			r->a_fill = vn_run_on(c.fd, c.fill, 0, c.in, 2, &w);
			r->a_st[0] = w.status;
			r->a_dump = chip_dump(&c, 0, got, &r->a_st[1]);
			r->a_same = !r->a_dump && !memcmp(got, pat, n);
			_exit(0);
		}
		EXPECT_EQ(0, wait_exit(pid));
		EXPECT_EQ(0, r->a_setup);
		EXPECT_EQ(0, r->a_fill);
		EXPECT_EQ(VNEURON_EXEC_OK, r->a_st[0]);
		EXPECT_EQ(0, r->a_dump);
		EXPECT_EQ(VNEURON_EXEC_OK, r->a_st[1]);
		EXPECT_TRUE(r->a_same) TH_LOG("held %d: A's second execution lost its data", held);
		EXPECT_EQ(0, vn_owner_pid(0));

		/* B: a new file reads all of SBUF and PSUM first; then, itself, across RESET */
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			if (tfd >= 0)
				close(tfd);
			r->b_setup = chip_file_open(&c, fill, fsize, dump, dsize, pat, junk);
			if (r->b_setup)
				_exit(1);
			r->b_dump = chip_dump(&c, 0, got, &r->b_st[0]);
			r->b_zero = !r->b_dump && all_zero(got, n);
			r->b_fill = vn_run_on(c.fd, c.fill, 0, c.in, 2, NULL);
			r->b_before_same = !chip_dump(&c, 0, got, &r->b_st[1]) &&
					   !memcmp(got, pat, n);
			r->b_reset = reset_core(c.fd, 0);
			r->b_after = chip_dump(&c, 0, got, &r->b_st[2]);
			r->b_after_zero = !r->b_after && all_zero(got, n);
			_exit(0);
		}
		EXPECT_EQ(0, wait_exit(pid));
		EXPECT_EQ(0, r->b_setup);
		EXPECT_EQ(0, r->b_dump);
		EXPECT_EQ(VNEURON_EXEC_OK, r->b_st[0]);
		EXPECT_TRUE(r->b_zero) TH_LOG("held %d: B read A's SBUF/PSUM", held);
		EXPECT_EQ(0, r->b_fill);
		EXPECT_TRUE(r->b_before_same);
		EXPECT_EQ(0, r->b_reset);
		EXPECT_EQ(0, r->b_after);
		EXPECT_EQ(VNEURON_EXEC_OK, r->b_st[2]);
		EXPECT_TRUE(r->b_after_zero) TH_LOG("held %d: RESET left SBUF/PSUM data", held);
		if (tfd >= 0) {
			EXPECT_EQ(0, trace_stop(tfd, 0));
			close(tfd);
		}
	}
	free(pat);
	free(junk);
	free(got);
	free(fill);
	free(dump);
}

/* ---- 5. memory cgroup ---- */

#define CG_MAX		(64 * MIB)
#define BIG_IMAGE	(48 * MIB)
#define ALLOC_STEP	(24 * MIB)
#define SCRATCH_STEP	(24 * MIB)
#define NLOADS		5	/* 5 x 48 MiB: below max_program_bytes (256 MiB) */
#define NALLOCS		10	/* 240 MiB: below the device budget (256 MiB) */
#define NSCRATCH	16	/* 384 MiB: below max_exec_bytes (1 GiB) */

struct memcg_res {
	int in_cg;
	int load[NLOADS], alloc[NALLOCS], scratch[NSCRATCH];
	int long_load, scratch_load, long_exec;
	int trace[4];
};

static const uint64_t trace_rings[4] = { 256 * MIB, 64 * MIB, 16 * MIB, 1 * MIB };

/* The first non-zero result, its index in *at; 0 if none. */
static int first_err(const int *v, int n, int *at)
{
	int i;

	for (i = 0; i < n; i++) {
		if (v[i]) {
			*at = i;
			return v[i];
		}
	}
	*at = n;
	return 0;
}

/* A value of memory.events, or -1. */
static long long cg_event(const char *cg, const char *key)
{
	char path[256], k[64];
	long long v, ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.events", cg);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", k, &v) == 2)
		if (!strcmp(k, key))
			ret = v;
	fclose(f);
	return ret;
}

/*
 * The cgroup's usage back near zero (up to 30 s): what the previous case freed from
 * workers (executors, cancelled executions) is uncharged before the next case. Plain
 * system calls into a stack buffer: no new memory of this process.
 */
static void settle(const char *cg)
{
	char path[256], buf[32];
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/memory.current", cg);
	for (i = 0; i < 3000; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return;
		buf[n] = '\0';
		if (strtoull(buf, NULL, 10) <= 8 * MIB)
			return;
		usleep(10000);
	}
}

static void memcg_child(const char *cg, struct memcg_res *r, const uint8_t *big,
			uint64_t big_size, const uint8_t *lng, uint64_t long_size,
			const uint8_t *scr, uint64_t scr_size, uint32_t cores)
{
	char path[256], pid[32], stack[64 << 10];
	uint32_t lp, sp, zero[1] = { 0 };
	int fd, i;

	/* Touch what this process will write before it moves: those pages stay outside. */
	memset(stack, 1, sizeof(stack));
	__asm__ volatile("" : : "r"(stack) : "memory");
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	r->in_cg = vn_write_file(path, pid);
	if (r->in_cg)
		_exit(1);

	/* program images, charged while loaded */
	fd = vn_open();
	if (fd < 0)
		_exit(2);
	for (i = 0; i < NLOADS; i++) {
		r->load[i] = vn_prog_load(fd, big, big_size, NULL, NULL);
		if (r->load[i])
			break;
	}
	close(fd);

	/* buffers */
	settle(cg);
	fd = vn_open();
	if (fd < 0)
		_exit(3);
	for (i = 0; i < NALLOCS; i++) {
		int h = vn_alloc(fd, ALLOC_STEP, NULL);

		r->alloc[i] = h < 0 ? h : 0;
		if (r->alloc[i])
			break;
	}
	close(fd);

	/* core-provided scratch of executions queued behind a long one */
	settle(cg);
	fd = vn_open();
	if (fd < 0)
		_exit(4);
	r->long_load = vn_prog_load(fd, lng, long_size, &lp, NULL);
	r->scratch_load = vn_prog_load(fd, scr, scr_size, &sp, NULL);
	r->long_exec = vn_exec_on(fd, lp, 0, NULL, 0, 600 * SEC_NS, NULL);
	for (i = 0; i < NSCRATCH; i++) {
		r->scratch[i] = vn_exec_on(fd, sp, 0, zero, 1, 600 * SEC_NS, NULL);
		if (r->scratch[i])
			break;
	}
	close(fd);	/* cancels them all */

	/* trace rings */
	settle(cg);
	fd = vn_open();
	if (fd < 0)
		_exit(5);
	for (i = 0; i < 4; i++) {
		r->trace[i] = trace_start(fd, cores > 1 ? 1 : 0, trace_rings[i], NULL);
		if (!r->trace[i])
			trace_stop(fd, cores > 1 ? 1 : 0);
	}
	close(fd);
	_exit(0);
}

TEST_F_TIMEOUT(sec, memory_cgroup_enomem_not_oom, 600)
{
	uint64_t big_size, long_size, scr_size;
	uint8_t *big = big_image(BIG_IMAGE, &big_size);
	uint8_t *lng = long_image(&long_size, 4000);
	uint8_t *scr = scratch_image(SCRATCH_STEP, &scr_size);
	struct memcg_res *r = shared(sizeof(*r));
	char cg[128], path[256], ctl[256] = "";
	bool mounted = false;
	const struct vneuron_limits *l = &self->info.limits;
	int err, at, status;
	FILE *f;
	pid_t pid;

	ASSERT_TRUE(big && lng && scr && r);
	if (access(CGROOT "/cgroup.controllers", F_OK)) {
		ASSERT_EQ(0, mount("none", CGROOT, "cgroup2", 0, NULL))
			TH_LOG("mount cgroup2: %s", strerror(errno));
		mounted = true;
	}
	f = fopen(CGROOT "/cgroup.controllers", "r");
	ASSERT_NE(NULL, f);
	if (!fgets(ctl, sizeof(ctl), f))
		ctl[0] = '\0';
	fclose(f);
	if (!strstr(ctl, "memory"))
		SKIP(goto out, "no memory controller in this kernel");
	ASSERT_EQ(0, vn_write_file(CGROOT "/cgroup.subtree_control", "+memory"));
	snprintf(cg, sizeof(cg), CGROOT "/vneuron-security-%d", getpid());
	ASSERT_EQ(0, mkdir(cg, 0755));
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	ASSERT_EQ(0, vn_write_file(path, "64M"));
	snprintf(path, sizeof(path), "%s/memory.swap.max", cg);
	if (!access(path, F_OK))
		ASSERT_EQ(0, vn_write_file(path, "0"));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		memcg_child(cg, r, big, big_size, lng, long_size, scr, scr_size,
			    self->info.core_count);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	/* never OOM-killed: it ended by itself, and the cgroup counted no kill */
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("child killed by signal %d", WTERMSIG(status));
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	EXPECT_EQ(0, cg_event(cg, "oom_kill"));
	EXPECT_LE(1, cg_event(cg, "max"));	/* the limit was reached, and held */
	EXPECT_EQ(0, r->in_cg);

	/* each kind of memory ran into the cgroup's limit: -ENOMEM, before any file limit */
	err = first_err(r->load, NLOADS, &at);
	EXPECT_EQ(-ENOMEM, err) TH_LOG("program load %d of %d x %llu MiB: %d", at, NLOADS,
				       (unsigned long long)(BIG_IMAGE >> 20), err);
	EXPECT_LT(0, at);			/* one 48 MiB image fits in 64 MiB */
	err = first_err(r->alloc, NALLOCS, &at);
	EXPECT_EQ(-ENOMEM, err) TH_LOG("alloc %d of %d x 24 MiB: %d", at, NALLOCS, err);
	EXPECT_GE(CG_MAX, (uint64_t)at * ALLOC_STEP);
	EXPECT_EQ(0, r->long_load);
	EXPECT_EQ(0, r->scratch_load);
	EXPECT_EQ(0, r->long_exec);
	err = first_err(r->scratch, NSCRATCH, &at);
	EXPECT_EQ(-ENOMEM, err) TH_LOG("scratch exec %d of %d x 24 MiB: %d", at, NSCRATCH, err);
	EXPECT_GE(CG_MAX, (uint64_t)at * SCRATCH_STEP);
	/*
	 * The largest rings: the file's limit answers first if one session of them passes
	 * max_trace_bytes (the data of a core's rings of ring_size), else the cgroup.
	 */
	EXPECT_EQ(TRACE_RINGS * trace_rings[0] > l->max_trace_bytes ? -ENOSPC : -ENOMEM,
		  r->trace[0]) TH_LOG("256 MiB rings: %d (max_trace_bytes %llu)", r->trace[0],
				      (unsigned long long)l->max_trace_bytes);
	EXPECT_EQ(-ENOMEM, r->trace[1]) TH_LOG("64 MiB rings: %d", r->trace[1]);
	EXPECT_EQ(-ENOMEM, r->trace[2]) TH_LOG("16 MiB rings: %d", r->trace[2]);
	EXPECT_EQ(0, r->trace[3]) TH_LOG("1 MiB rings: %d", r->trace[3]);
	TH_LOG("memory.events: max %lld oom %lld oom_kill %lld", cg_event(cg, "max"),
	       cg_event(cg, "oom"), cg_event(cg, "oom_kill"));

	/* The parent, outside, still works. */
	{
		struct vneuron_wait w;
		uint32_t prog;
		int fd = vn_open();

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, vn_prog_load(fd, self->tiny, self->tiny_size, &prog, NULL));
		ASSERT_EQ(0, vn_run_on(fd, prog, 0, NULL, 0, &w));
		EXPECT_EQ(VNEURON_EXEC_OK, w.status);
		close(fd);
	}
	EXPECT_EQ(0, rmdir(cg));
out:
	if (mounted)
		umount(CGROOT);
	free(big);
	free(lng);
	free(scr);
}

/* ---- 6. exit and SIGKILL with executions queued ---- */

#define NQ	3	/* of each kind: ioctl EXEC and io_uring EXEC */

/* Child: queue NQ ioctl and NQ io_uring executions on core 0, say so, then die (mode). */
static void queue_and_die(const uint8_t *lng, uint64_t long_size, int ready, int go, bool kill_me)
{
	static struct vneuron_exec e[NQ];
	static struct vneuron_wait st[NQ];
	struct io_uring ring;
	uint32_t prog;
	int fd = vn_open(), k;

	if (fd < 0 || vn_prog_load(fd, lng, long_size, &prog, NULL))
		_exit(1);
	if (vn_alloc(fd, PAGE, NULL) <= 0)
		_exit(1);
	for (k = 0; k < NQ; k++)
		if (vn_exec_on(fd, prog, 0, NULL, 0, 60 * SEC_NS, NULL))
			_exit(2);
	if (io_uring_queue_init(8, &ring, 0))
		_exit(3);
	for (k = 0; k < NQ; k++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct vneuron_uring_cmd uc = {
			.exec_ptr = (uintptr_t)&e[k],
			.status_ptr = (uintptr_t)&st[k],
		};

		e[k] = (struct vneuron_exec){ .program = prog, .time_limit_ns = 60 * SEC_NS };
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_URING_CMD;
		sqe->fd = fd;
		sqe->cmd_op = VNEURON_URING_CMD_EXEC;
		sqe->user_data = k;
		memcpy(sqe->cmd, &uc, sizeof(uc));
	}
	if (io_uring_submit(&ring) != NQ)
		_exit(4);
	if (say(ready))
		_exit(5);
	if (kill_me)
		for (;;)
			pause();
	if (hear(go))
		_exit(6);
	_exit(0);	/* everything still open: the exit closes it */
}

TEST_F_TIMEOUT(sec, exit_and_sigkill_with_work_queued, 300)
{
	uint64_t long_size;
	uint8_t *lng = long_image(&long_size, 4000);
	int mode;

	ASSERT_NE(NULL, lng);
	ASSERT_TRUE(module_idle(self->info.core_count, false))
		TH_LOG("objects of the module are alive before the test");
	for (mode = 0; mode < 2; mode++) {
		int ready[2], go[2];
		uint64_t t0;
		pid_t pid;

		ASSERT_EQ(0, pipe(ready));
		ASSERT_EQ(0, pipe(go));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			close(ready[0]);
			close(go[1]);
			queue_and_die(lng, long_size, ready[1], go[0], mode == 1);
		}
		close(ready[1]);
		close(go[0]);
		ASSERT_EQ(0, hear(ready[0]));
		EXPECT_EQ(2 * NQ, vn_counter("execs"));
		EXPECT_EQ(1, vn_counter("programs"));
		EXPECT_EQ(1, vn_counter("mem_objects"));
		EXPECT_EQ(pid, vn_owner_pid(0));
		if (mode == 1) {
			ASSERT_EQ(0, kill(pid, SIGKILL));
		} else {
			ASSERT_EQ(0, say(go[1]));
		}
		EXPECT_EQ(mode ? 128 + SIGKILL : 0, wait_exit(pid));
		t0 = vn_now_ns();
		EXPECT_TRUE(idle_by(self->info.core_count, t0 + ONE_SECOND))
			TH_LOG("%s: not drained within 1 s of its end: execs %lld programs %lld "
			       "mem_objects %lld open_files %lld owner %lld",
			       mode ? "SIGKILL" : "exit", vn_counter("execs"),
			       vn_counter("programs"), vn_counter("mem_objects"),
			       vn_counter("open_files"), vn_owner_pid(0));
		/* Whatever the outcome, leave nothing running for the next tests. */
		idle_by(self->info.core_count, vn_now_ns() + 120 * SEC_NS);
		close(ready[0]);
		close(go[1]);
	}
	free(lng);
}

/* Closing the device file with io_uring commands in flight: their CQEs come at once. */
TEST_F_TIMEOUT(sec, close_with_uring_in_flight, 300)
{
	enum { N = 4 };
	static struct vneuron_exec e[N];
	static struct vneuron_wait st[N];
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	uint64_t long_size, t0, seen = 0;
	uint8_t *lng = long_image(&long_size, 4000);
	uint32_t prog;
	int fd = vn_open(), k, got = 0, res[N];

	ASSERT_NE(NULL, lng);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vn_prog_load(fd, lng, long_size, &prog, NULL));
	ASSERT_EQ(0, io_uring_queue_init(8, &ring, 0));
	for (k = 0; k < N; k++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct vneuron_uring_cmd uc = {
			.exec_ptr = (uintptr_t)&e[k],
			.status_ptr = (uintptr_t)&st[k],
		};

		ASSERT_NE(NULL, sqe);
		e[k] = (struct vneuron_exec){ .program = prog, .core = k % self->info.core_count,
					      .time_limit_ns = 60 * SEC_NS };
		memset(&st[k], 0xa5, sizeof(st[k]));
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_URING_CMD;
		sqe->fd = fd;
		sqe->cmd_op = VNEURON_URING_CMD_EXEC;
		sqe->user_data = k;
		memcpy(sqe->cmd, &uc, sizeof(uc));
	}
	ASSERT_EQ(N, io_uring_submit(&ring));
	EXPECT_EQ(N, vn_counter("execs"));
	ASSERT_EQ(0, close(fd));
	t0 = vn_now_ns();
	while (got < N) {
		uint64_t now = vn_now_ns(), end = t0 + ONE_SECOND, left = end > now ? end - now : 0;
		struct __kernel_timespec ts = { .tv_sec = left / SEC_NS, .tv_nsec = left % SEC_NS };

		if (io_uring_wait_cqe_timeout(&ring, &cqe, &ts))
			break;
		k = (int)cqe->user_data;
		if (k >= 0 && k < N && !(seen & (1u << k))) {
			seen |= 1u << k;
			res[k] = cqe->res;
			got++;
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	EXPECT_EQ(N, got) TH_LOG("only %d of %d CQEs within 1 s of close()", got, N);
	for (k = 0; k < N; k++) {
		if (!(seen & (1u << k)))
			continue;
		EXPECT_EQ(-ECANCELED, res[k]) TH_LOG("command %d", k);
		EXPECT_EQ(VNEURON_EXEC_ABORTED, st[k].status) TH_LOG("command %d", k);
		EXPECT_EQ(VNEURON_REASON_CANCEL, st[k].reason) TH_LOG("command %d", k);
	}
	if (got < N) {
		/* Let whatever still runs end before the ring goes (their limits are 60 s). */
		for (k = 0; k < 200 && got < N; k++)
			if (!io_uring_wait_cqe(&ring, &cqe)) {
				io_uring_cqe_seen(&ring, cqe);
				got++;
			}
	}
	io_uring_queue_exit(&ring);
	EXPECT_TRUE(idle_by(self->info.core_count, vn_now_ns() + 10 * SEC_NS));
	free(lng);
}

/* ---- 7. TRACE_STOP killed while another's execution runs ---- */

/* Whether pid is blocked in ioctl(cmd) (its /proc/pid/syscall). */
static bool blocked_in_ioctl(pid_t pid, unsigned long cmd)
{
	unsigned long a0, a1;
	char path[64];
	long nr;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fscanf(f, "%ld %lx %lx", &nr, &a0, &a1);
	fclose(f);
	return n == 3 && nr == SYS_ioctl && a1 == cmd;
}

/* Still running: a WAIT whose deadline has passed only checks. */
static bool still_running(int fd, uint64_t id)
{
	return vn_wait_for(fd, id, 1, NULL) == -ETIMEDOUT;
}

TEST_F_TIMEOUT(sec, trace_stop_killable, 600)
{
	struct vneuron_wait w;
	uint64_t size, id, t0, per, n;
	uint32_t cal, prog;
	uint8_t *img;
	int fd = vn_open(), go[2], ready[2], bfd;
	pid_t b;

	ASSERT_LE(0, fd);
	/* How long a tanh takes here: the long execution is to last about 10 s. */
	img = long_image(&size, 8);
	ASSERT_EQ(0, vn_prog_load(fd, img, size, &cal, NULL));
	free(img);
	ASSERT_EQ(0, vn_run_on(fd, cal, 0, NULL, 0, &w));
	ASSERT_EQ(VNEURON_EXEC_OK, w.status);
	per = w.host_ns / 8 ? w.host_ns / 8 : 1;
	n = 10 * SEC_NS / per;
	n = n < 16 ? 16 : n > 60000 ? 60000 : n;
	TH_LOG("one tanh: %llu us; the long execution has %llu",
	       (unsigned long long)per / 1000, (unsigned long long)n);
	img = long_image(&size, (uint32_t)n);
	ASSERT_EQ(0, vn_prog_load(fd, img, size, &prog, NULL));
	free(img);

	/* B traces core 0 from before A's execution starts, then waits in TRACE_STOP */
	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(ready));
	b = fork();
	ASSERT_LE(0, b);
	if (!b) {
		int tfd = vn_open();

		close(go[1]);
		close(ready[0]);
		if (tfd < 0 || trace_start(tfd, 0, 1 << 16, NULL) || say(ready[1]) || hear(go[0]))
			_exit(1);
		trace_stop(tfd, 0);
		_exit(2);	/* not to be reached before the execution's end */
	}
	close(go[0]);
	close(ready[1]);
	ASSERT_EQ(0, hear(ready[0]));
	/* the core is idle: the execution starts now, traced by B */
	ASSERT_EQ(0, vn_exec_on(fd, prog, 0, NULL, 0, 600 * SEC_NS, &id));
	ASSERT_EQ(0, say(go[1]));
	while (!blocked_in_ioctl(b, VNEURON_IOCTL_TRACE_STOP) && still_running(fd, id))
		usleep(1000);
	ASSERT_TRUE(still_running(fd, id)) TH_LOG("the execution ended before B waited in STOP");
	t0 = vn_now_ns();
	ASSERT_EQ(0, kill(b, SIGKILL));
	EXPECT_EQ(128 + SIGKILL, wait_exit(b));
	EXPECT_GE(t0 + ONE_SECOND, vn_now_ns()) TH_LOG("B took %llu ms to die",
		(unsigned long long)(vn_now_ns() - t0) / 1000000);
	EXPECT_TRUE(still_running(fd, id)) TH_LOG("inconclusive: the execution already ended");
	ASSERT_EQ(0, vn_wait_for(fd, id, VNEURON_WAIT_FOREVER, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	close(go[1]);
	close(ready[0]);

	/* Closing the tracer's file (no TRACE_STOP) while its traced execution runs. */
	bfd = vn_open();
	ASSERT_LE(0, bfd);
	ASSERT_EQ(0, trace_start(bfd, 0, 1 << 16, NULL));
	ASSERT_EQ(0, vn_exec_on(fd, prog, 0, NULL, 0, 600 * SEC_NS, &id));
	t0 = vn_now_ns();
	close(bfd);
	EXPECT_GE(t0 + ONE_SECOND, vn_now_ns()) TH_LOG("close() took %llu ms",
		(unsigned long long)(vn_now_ns() - t0) / 1000000);
	EXPECT_TRUE(still_running(fd, id)) TH_LOG("close() waited for the execution's end");
	ASSERT_EQ(0, vn_wait_for(fd, id, VNEURON_WAIT_FOREVER, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	close(fd);
}

/* ---- 8. limits ---- */

static long long param(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	return vn_read_num(path);
}

static unsigned long resize(unsigned long cmd, unsigned int size)
{
	return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), size);
}

/* GET_INFO's limits are the module parameters; a version-1 caller gets none of them. */
TEST_F(sec, limits_in_get_info)
{
	const struct vneuron_limits *l = &self->info.limits;
	size_t v1 = offsetof(struct vneuron_info, limits), i, bad = 0;
	unsigned char raw[sizeof(struct vneuron_info)];
	int fd;

	EXPECT_TRUE(self->info.caps & VNEURON_CAP_LIMITS);
	ASSERT_LE(1, param("max_programs")) TH_LOG("no %smax_programs", PARAMS);
	EXPECT_EQ(param("max_programs"), (long long)l->max_programs);
	EXPECT_EQ(param("max_execs"), (long long)l->max_execs);
	EXPECT_EQ(param("max_program_mb") << 20, (long long)l->max_program_bytes);
	EXPECT_EQ(param("max_exec_mb") << 20, (long long)l->max_exec_bytes);
	EXPECT_EQ(param("max_trace_mb") << 20, (long long)l->max_trace_bytes);

	fd = vn_open();
	ASSERT_LE(0, fd);
	memset(raw, 0xa5, sizeof(raw));
	memset(raw, 0, v1);
	ASSERT_EQ(0, vn_ioctl(fd, resize(VNEURON_IOCTL_GET_INFO, v1), raw));
	EXPECT_EQ((__u32)VNEURON_UAPI_VERSION, ((struct vneuron_info *)raw)->uapi_version);
	for (i = v1; i < sizeof(raw); i++)
		bad += raw[i] != 0xa5;
	EXPECT_EQ(0, bad) TH_LOG("GET_INFO wrote %zu bytes past the version-1 struct", bad);
	EXPECT_EQ(-EINVAL, vn_ioctl(fd, resize(VNEURON_IOCTL_GET_INFO, v1 - 4), raw));
	close(fd);
}

/* More than max_programs programs: -ENOSPC; an unload makes room again. */
TEST_F_TIMEOUT(sec, limit_programs, 300)
{
	uint32_t n = self->info.limits.max_programs, i;
	uint32_t *h = calloc(n + 1, sizeof(*h));
	struct vneuron_program_unload u;
	int fd = vn_open(), ret = 0;

	ASSERT_LE(0, fd);
	ASSERT_NE(NULL, h);
	for (i = 0; i < n; i++) {
		ret = vn_prog_load(fd, self->tiny, self->tiny_size, &h[i], NULL);
		if (ret)
			break;
	}
	EXPECT_EQ(0, ret) TH_LOG("program %u of %u: %d", i, n, ret);
	EXPECT_EQ(-ENOSPC, vn_prog_load(fd, self->tiny, self->tiny_size, NULL, NULL));
	u = (struct vneuron_program_unload){ .handle = h[0] };
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_PROGRAM_UNLOAD, &u));
	EXPECT_EQ(0, vn_prog_load(fd, self->tiny, self->tiny_size, NULL, NULL));
	EXPECT_EQ(-ENOSPC, vn_prog_load(fd, self->tiny, self->tiny_size, NULL, NULL));
	close(fd);
	free(h);
}

/*
 * More than max_execs unreaped executions: -EAGAIN until a WAIT reaps one. Scratch that
 * alone passes max_exec_bytes: -E2BIG; rings past max_trace_bytes: -ENOSPC (both
 * refused before anything is allocated).
 */
TEST_F_TIMEOUT(sec, limit_execs_scratch_rings, 600)
{
	const struct vneuron_limits *l = &self->info.limits;
	uint32_t n = l->max_execs, zero[1] = { 0 }, i;
	uint64_t *id = calloc(n + 1, sizeof(*id)), size, ring;
	uint32_t *prog = calloc(2, sizeof(*prog));
	struct vneuron_wait w;
	uint8_t *img;
	int fd = vn_open(), ret = 0;

	ASSERT_LE(0, fd);
	ASSERT_TRUE(id && prog);
	ASSERT_EQ(0, vn_prog_load(fd, self->tiny, self->tiny_size, &prog[0], NULL));
	for (i = 0; i < n; i++) {
		ret = vn_exec_on(fd, prog[0], 0, NULL, 0, 0, &id[i]);
		if (ret)
			break;
	}
	EXPECT_EQ(0, ret) TH_LOG("execution %u of %u: %d", i, n, ret);
	EXPECT_EQ(-EAGAIN, vn_exec_on(fd, prog[0], 0, NULL, 0, 0, NULL));
	ASSERT_EQ(0, vn_wait_for(fd, id[0], VNEURON_WAIT_FOREVER, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	EXPECT_EQ(0, vn_exec_on(fd, prog[0], 0, NULL, 0, 0, &id[0]));	/* room for one */
	EXPECT_EQ(-EAGAIN, vn_exec_on(fd, prog[0], 0, NULL, 0, 0, NULL));
	ASSERT_EQ(0, vn_wait_for(fd, id[1], VNEURON_WAIT_FOREVER, NULL));

	if (l->max_exec_bytes + 4096 <= VNEF_MAX_TENSOR_BYTES) {
		img = scratch_image(l->max_exec_bytes + 4096, &size);
		ASSERT_EQ(0, vn_prog_load(fd, img, size, &prog[1], NULL));
		free(img);
		EXPECT_EQ(-E2BIG, vn_exec_on(fd, prog[1], 1 % self->info.core_count, zero, 1, 0,
					     NULL));
	}
	/*
	 * the smallest rings whose session (the data of a core's rings of ring_size) passes
	 * the limit; modload.sh runs this test with small limits
	 */
	for (ring = VNEURON_TRACE_MIN_RING; ring <= VNEURON_TRACE_MAX_RING; ring *= 2) {
		if (TRACE_RINGS * ring > l->max_trace_bytes) {
			EXPECT_EQ(-ENOSPC, trace_start(fd, 0, ring, NULL))
				TH_LOG("%llu MiB rings", (unsigned long long)ring >> 20);
			break;
		}
	}
	close(fd);
	free(id);
	free(prog);
}

TEST_HARNESS_MAIN
