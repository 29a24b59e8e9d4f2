/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ioctl_fuzz_test.c's state: limits, the shared tallies, the workers' tables, and
 * the helpers every operation uses (the documented-errno oracle, random choices, the
 * per-file tables). Included once, by ioctl_fuzz_test.c.
 */
#ifndef IOCTL_FUZZ_H
#define IOCTL_FUZZ_H

#include <dirent.h>
#include <grp.h>
#include <liburing.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "kmod_test.h"
#include "vneuron_trace.h"
#include "vn_program.h"
#include "../host/vnef_build.h"
#include "../fuzz/vnef_mutator.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#define FZ_UID		65534		/* nobody */
#define FZ_UID2		4300		/* a second unprivileged user */
#define FZ_GID		53279		/* the device nodes' group while the test runs */
#define FZ_MAX_PROCS	16
#define FZ_FILES	4		/* open files per process */
#define FZ_MEMS		24
#define FZ_PROGS	16
#define FZ_EXECS	32
#define FZ_TENS		32		/* tensors per program we bind properly */
#define FZ_MAPS		8		/* a map keeps its file, and so its cores, alive */
#define FZ_SLOTS	8		/* io_uring commands in flight */
#define FZ_KIDS		2
#define FZ_CORES	8
#define FZ_IMAGES	32
#define FZ_IMG_MAX	(64u << 10)
#define FZ_BUF		(64u << 10)
#define FZ_TIMEOUT	900		/* the test's; VN_FUZZ_SECONDS is clamped below it */
#define FZ_STOP_S	60		/* workers get this long to stop when asked */
#define FZ_DRAIN_S	5
#define FZ_SCRATCH	(4ull << 20)	/* core-provided scratch per execution, at most */

enum fz_op {
	FZ_GET_INFO, FZ_MEM_ALLOC, FZ_MEM_FREE, FZ_MEM_WRITE, FZ_MEM_READ, FZ_RESET,
	FZ_PROGRAM_LOAD, FZ_PROGRAM_UNLOAD, FZ_EXEC, FZ_WAIT, FZ_TRACE_START, FZ_TRACE_STOP,
	FZ_URING_EXEC, FZ_URING_CQE, FZ_BAD_IOCTL, FZ_MMAP, FZ_MPROTECT, FZ_MUNMAP, FZ_OPEN,
	FZ_CLOSE, FZ_POLL, FZ_FORK, FZ_BURST, FZ_NETQ, FZ_OP_NR,
};

static const char *const fz_op_name[FZ_OP_NR] = {
	"GET_INFO", "MEM_ALLOC", "MEM_FREE", "MEM_WRITE", "MEM_READ", "RESET", "PROGRAM_LOAD",
	"PROGRAM_UNLOAD", "EXEC", "WAIT", "TRACE_START", "TRACE_STOP", "URING_EXEC",
	"uring_cqe", "other_ioctl", "mmap", "mprotect", "munmap", "open", "close", "poll",
	"fork", "burst", "netq",
};

/* What went wrong, as the workers report it to the parent. */
struct fz_bad {
	uint32_t op;
	int32_t err;
	uint32_t uid;
	uint32_t pad;
	uint64_t seed;
	uint64_t step;
	char what[64];
};

#define FZ_NBAD		32
#define FZ_NKILLED	16384

/* Shared by every process of the run (MAP_SHARED, made before the first fork). */
struct fz_shared {
	uint64_t ops[FZ_OP_NR];		/* calls made */
	uint64_t ok[FZ_OP_NR];		/* of them, returned 0 */
	uint64_t status[5];		/* WAIT and CQE statuses seen */
	uint64_t errs[FZ_OP_NR][64];	/* errno of the failed calls, by errno below 64 */
	uint64_t loads_mutated, loads_mutated_ok, execs_mutated;
	uint64_t scratch_max;		/* the largest core-provided scratch accepted */
	uint64_t nbad;
	struct fz_bad bad[FZ_NBAD];
	uint64_t nkilled;		/* pids the parent or a worker SIGKILLed */
	int32_t killed[FZ_NKILLED];
	uint64_t children;		/* forked by the workers */
	int stop;
	int fault_dumped;
};

static struct fz_shared *sh;

/* Images every process starts from: built here and the fuzzers' seed corpus. */
static struct {
	uint8_t *img;
	size_t size;
} fz_imgs[FZ_IMAGES];
static unsigned int fz_nimg;

static unsigned int fz_ndev;			/* /dev/vneuron0, and 1 if present */
static uint32_t fz_cores[2];
static uint64_t fz_hbm_bytes;
static uint64_t fz_max_exec_bytes;		/* a file's limit (GET_INFO) */
static uint8_t *fz_none;			/* a PROT_NONE page: EFAULT */
static uint8_t *fz_ro;				/* a read-only page */

/* An image shared by a program and the executions of it: for a FAULT's report. */
struct fz_blob {
	int refs;
	size_t size;
	uint8_t data[];
};

struct fz_mem {
	uint32_t handle;
	uint64_t size;
	uint64_t mmap_off;
};

struct fz_prog {
	uint32_t handle;
	uint32_t ntens;
	uint8_t kind[FZ_TENS];
	uint64_t size[FZ_TENS];
	struct fz_blob *blob;
	bool mutated;
};

struct fz_exec {
	uint64_t id;
	uint64_t limit_ns;
	struct fz_blob *blob;
};

struct fz_file {
	int fd;			/* -1: slot free */
	unsigned int dev;
	bool rw;
	struct fz_mem mem[FZ_MEMS];
	unsigned int nmem;
	struct fz_prog prog[FZ_PROGS];
	unsigned int nprog;
	struct fz_exec exec[FZ_EXECS];
	unsigned int nexec;
	bool owns[FZ_CORES];	/* an EXEC of this file ran there: the core is ours */
	bool tracing[FZ_CORES];
};

struct fz_map {
	uint8_t *p;
	size_t len;
	bool writable;		/* mapped with PROT_WRITE now */
	bool may_write;		/* may become writable (not a ring's read-only part) */
};

struct fz_slot {
	bool busy;
	bool has_status;
	struct vneuron_exec e;
	struct vneuron_wait w;
	uint32_t h[FZ_TENS];
	struct fz_blob *blob;
};

struct fz_worker {
	struct vnm_rng r;
	uint64_t seed;
	uint64_t step;
	bool child;		/* a worker's own child: no io_uring, no fork */
	struct fz_file f[FZ_FILES];
	struct fz_map map[FZ_MAPS];
	unsigned int nmap;
	struct io_uring ring;
	bool ring_on;
	struct fz_slot slot[FZ_SLOTS];
	unsigned int inflight;
	pid_t kid[FZ_KIDS];
	uint8_t img[FZ_IMG_MAX];
	uint8_t buf[FZ_BUF];
	uint8_t arg[1024];	/* an ioctl struct with room for a longer size */
	bool altered;		/* the last fz_ioctl() changed the size or the pointer */
	int want;		/* a program for the next EXEC to run, or -1 */
};

/* ---- small helpers ---- */

static uint64_t fz_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t fz_env(const char *name, uint64_t def)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : def;
}

static void fz_add(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

static void fz_pid_note(int32_t *list, uint64_t *n, uint64_t max, pid_t pid)
{
	uint64_t i = __atomic_fetch_add(n, 1, __ATOMIC_RELAXED);

	if (i < max)
		__atomic_store_n(&list[i], pid, __ATOMIC_RELEASE);
}

static bool fz_pid_in(const int32_t *list, const uint64_t *n, uint64_t max, pid_t pid)
{
	uint64_t i, k = __atomic_load_n(n, __ATOMIC_ACQUIRE);

	for (i = 0; i < k && i < max; i++)
		if (__atomic_load_n(&list[i], __ATOMIC_ACQUIRE) == pid)
			return true;
	return false;
}

static void fz_bad(struct fz_worker *w, enum fz_op op, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void fz_bad(struct fz_worker *w, enum fz_op op, int err, const char *fmt, ...)
{
	uint64_t i = __atomic_fetch_add(&sh->nbad, 1, __ATOMIC_RELAXED);
	struct fz_bad *b;
	va_list ap;

	if (i >= FZ_NBAD)
		return;
	b = &sh->bad[i];
	b->op = op;
	b->err = err;
	b->uid = getuid();
	b->seed = w->seed;
	b->step = w->step;
	va_start(ap, fmt);
	vsnprintf(b->what, sizeof(b->what), fmt, ap);
	va_end(ap);
}

/* The errnos docs/uapi.md gives for the ioctls, mmap and the CQEs. */
static bool fz_documented(int err)
{
	switch (err) {
	case EFAULT: case EINVAL: case ENOENT: case EBADF: case EBUSY: case EPERM:
	case ENOSPC: case EAGAIN: case ENOMEM: case E2BIG: case ETIMEDOUT: case EINTR:
	case ENOTTY: case EACCES: case ENOTCONN: case EEXIST: case EPIPE:
	case EDQUOT:		/* a user's share of a shared resource */
	case ECANCELED:		/* TRACE_STOP of a session taken over */
	case EOPNOTSUPP:	/* EXEC's VNEURON_EXEC_LNC2 on a model without logical cores */
		return true;
	default:
		return false;
	}
}

/* Count a call; ret is 0 or -errno. */
static void fz_note(struct fz_worker *w, enum fz_op op, int ret)
{
	fz_add(&sh->ops[op], 1);
	if (ret < 0 && ret > -64)
		fz_add(&sh->errs[op][-ret], 1);
	if (!ret)
		fz_add(&sh->ok[op], 1);
	else if (ret > 0 || !fz_documented(-ret))
		fz_bad(w, op, -ret, "undocumented result %d", ret);
}

static struct fz_blob *fz_blob_new(const uint8_t *img, size_t size)
{
	struct fz_blob *b = malloc(sizeof(*b) + size);

	if (!b)
		return NULL;
	b->refs = 1;
	b->size = size;
	memcpy(b->data, img, size);
	return b;
}

static struct fz_blob *fz_blob_get(struct fz_blob *b)
{
	if (b)
		b->refs++;
	return b;
}

static void fz_blob_put(struct fz_blob *b)
{
	if (b && !--b->refs)
		free(b);
}

/* A device FAULT: the validator accepted this image. Its bytes go to the log once. */
static void fz_fault(struct fz_worker *w, enum fz_op op, const struct vneuron_wait *st,
		     const struct fz_blob *b)
{
	size_t i;

	fz_bad(w, op, 0, "device FAULT: reason %u stream %u pc %u", st->reason, st->stream,
	       st->pc);
	if (!b || __atomic_exchange_n(&sh->fault_dumped, 1, __ATOMIC_ACQ_REL))
		return;
	fprintf(stderr, "# FAULT image, %zu bytes (hex):\n", b->size);
	for (i = 0; i < b->size; i++)
		fprintf(stderr, "%s%02x%s", i % 64 ? "" : "# ", b->data[i],
			i % 64 == 63 || i + 1 == b->size ? "\n" : "");
}

static void fz_status(struct fz_worker *w, enum fz_op op, const struct vneuron_wait *st,
		      const struct fz_blob *b)
{
	if (st->status > VNEURON_EXEC_FAULT || st->reason > VNEURON_REASON_FAULT_STATE) {
		fz_bad(w, op, 0, "status %u reason %u out of range", st->status, st->reason);
		return;
	}
	fz_add(&sh->status[st->status], 1);
	if (st->status == VNEURON_EXEC_FAULT)
		fz_fault(w, op, st, b);
}

/* ---- random choices ---- */

static uint32_t fz_below(struct fz_worker *w, uint32_t n)
{
	return vnm_below(&w->r, n);
}

static bool fz_one_in(struct fz_worker *w, uint32_t n)
{
	return vnm_one_in(&w->r, n);
}

/* A boundary value of a field of this width (the mutator's lists). */
static uint64_t fz_edge(struct fz_worker *w, unsigned int width)
{
	return vnm_width_value(&w->r, vnm_wmax(width));
}

static struct fz_file *fz_file(struct fz_worker *w)
{
	unsigned int i, k = fz_below(w, FZ_FILES);

	for (i = 0; i < FZ_FILES; i++) {
		struct fz_file *f = &w->f[(k + i) % FZ_FILES];

		if (f->fd >= 0)
			return f;
	}
	return NULL;
}

static uint32_t fz_core(struct fz_worker *w, const struct fz_file *f)
{
	uint32_t n = fz_cores[f->dev], c;

	/* a core belongs to one file: mostly the one this file has */
	for (c = 0; c < n && c < FZ_CORES; c++)
		if (f->owns[c] && !fz_one_in(w, 4))
			return c;
	if (fz_one_in(w, 16))
		return (uint32_t)fz_edge(w, 4);
	return fz_one_in(w, 16) ? n : fz_below(w, n);
}

/* A pointer the kernel cannot copy from (or, for output, to). */
static void *fz_bad_ptr(struct fz_worker *w, bool for_output)
{
	switch (fz_below(w, 4)) {
	case 0: return NULL;
	case 1: return fz_none;
	case 2: return for_output ? (void *)fz_ro : (void *)fz_none;
	default: return (void *)(uintptr_t)0xffff800000001000ull;	/* kernel space */
	}
}

/*
 * An ioctl on f: mostly with the struct's own size, sometimes smaller, larger with a
 * zero or a garbage tail, or a pointer that faults. The output lands in arg.
 */
static int fz_ioctl(struct fz_worker *w, struct fz_file *f, enum fz_op op, unsigned long cmd,
		    void *arg, unsigned int size)
{
	unsigned long c = cmd;
	unsigned int usize = size;
	void *p = arg;
	bool copy = false;
	int ret;

	w->altered = true;
	switch (fz_below(w, 40)) {
	case 0:
		usize = fz_below(w, size);
		break;
	case 1:
	case 2:
		usize = size + 8 * (1 + fz_below(w, 64));
		memset(w->arg, 0, sizeof(w->arg));
		memcpy(w->arg, arg, size);
		if (fz_one_in(w, 2))
			w->arg[size + fz_below(w, usize - size)] = 0x5a;	/* E2BIG */
		p = w->arg;
		copy = true;
		break;
	case 3:
		p = fz_bad_ptr(w, true);
		break;
	default:
		w->altered = false;
		break;
	}
	if (usize != size)
		c = (cmd & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		    ((unsigned long)usize << _IOC_SIZESHIFT);
	ret = vn_ioctl(f->fd, c, p);
	if (copy)
		memcpy(arg, w->arg, size);
	fz_note(w, op, ret);
	/* A read-only file may only query (docs/security.md). */
	if (!f->rw && op != FZ_GET_INFO && ret != -EBADF)
		fz_bad(w, op, -ret, "read-only file: %d, not EBADF", ret);
	return ret;
}

/* ---- the per-file tables ---- */

static void fz_forget_file(struct fz_file *f)
{
	unsigned int i;

	for (i = 0; i < f->nprog; i++)
		fz_blob_put(f->prog[i].blob);
	for (i = 0; i < f->nexec; i++)
		fz_blob_put(f->exec[i].blob);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

static struct fz_mem *fz_mem(struct fz_worker *w, struct fz_file *f)
{
	return f->nmem ? &f->mem[fz_below(w, f->nmem)] : NULL;
}

static void fz_mem_drop(struct fz_file *f, uint32_t handle)
{
	unsigned int i;

	for (i = 0; i < f->nmem; i++) {
		if (f->mem[i].handle == handle) {
			f->mem[i] = f->mem[--f->nmem];
			return;
		}
	}
}

/* A handle: mostly one of this file's, else a boundary or another file's number. */
static uint32_t fz_handle(struct fz_worker *w, struct fz_file *f)
{
	struct fz_mem *m = fz_mem(w, f);

	if (m && !fz_one_in(w, 8))
		return m->handle;
	return fz_one_in(w, 2) ? 1 + fz_below(w, 64) : (uint32_t)fz_edge(w, 4);
}

#endif /* IOCTL_FUZZ_H */
