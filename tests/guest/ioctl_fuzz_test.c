// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A bounded, seeded fuzzer of /dev/vneuronN from several processes at once, about half
 * of them unprivileged, as two different users at once (uids 65534 and FZ_UID2, with
 * the device node's group: their shares of the module's resources meet): random
 * sequences of
 * every ioctl of uapi/vneuron.h and uapi/vneuron_trace.h with valid and boundary
 * arguments, valid programs and ones mutated by tests/fuzz/vnef_mutator.h, other struct
 * sizes and bad pointers, read-only and several opens, mmap/munmap of buffers and trace
 * rings, EXEC through io_uring, fork, close, and SIGKILL of random workers (which are
 * replaced). Whatever the calls, it asserts:
 *   - every call returns 0 or a documented errno, and a read-only file refuses all but
 *     GET_INFO with EBADF;
 *   - no process dies of anything but a SIGKILL we sent;
 *   - no execution ends with a device FAULT (the validator accepted what the executor
 *     refused), and the kernel's validator agrees with the host build's on every image;
 *   - once every process is gone the module's counters drain to 0 and no core has an
 *     owner.
 * The guest bench (tools/vmtest) fails the run on any kernel warning.
 *   VN_FUZZ_SECONDS (45), VN_FUZZ_PROCS (4), VN_FUZZ_SEED (printed; replays the run's
 *   choices, though not the kernel's timing).
 *
 * One file, over 1,000 lines: one fuzzer whose workers, oracle and call table must agree
 * on every ioctl's documented errnos; they are kept side by side.
 */
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
	/* A read-only file may only query (docs/uapi.md, security model). */
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

/* ---- operations ---- */

static void op_open(struct fz_worker *w)
{
	unsigned int i, dev = fz_below(w, fz_ndev);
	char path[64];
	int fd, flags = fz_one_in(w, 8) ? O_RDONLY : O_RDWR;

	for (i = 0; i < FZ_FILES && w->f[i].fd >= 0; i++)
		;
	if (i == FZ_FILES)
		return;
	snprintf(path, sizeof(path), "/dev/vneuron%u", fz_one_in(w, 64) ? 9 : dev);
	fd = open(path, flags | (fz_one_in(w, 2) ? O_CLOEXEC : 0));
	fz_note(w, FZ_OPEN, fd < 0 ? -errno : 0);
	if (fd < 0)
		return;
	fz_forget_file(&w->f[i]);
	w->f[i].fd = fd;
	w->f[i].dev = dev;
	w->f[i].rw = flags == O_RDWR;
}

static void op_close(struct fz_worker *w, struct fz_file *f)
{
	fz_note(w, FZ_CLOSE, close(f->fd) ? -errno : 0);
	fz_forget_file(f);
}

static void op_get_info(struct fz_worker *w, struct fz_file *f)
{
	struct vneuron_info info;
	unsigned int size = sizeof(info);
	int ret;

	memset(&info, 0, sizeof(info));
	if (fz_one_in(w, 16))
		info.flags = (uint32_t)fz_edge(w, 4);
	if (fz_one_in(w, 4))
		size = offsetof(struct vneuron_info, limits);	/* a version-1 caller */
	ret = fz_ioctl(w, f, FZ_GET_INFO,
		       (VNEURON_IOCTL_GET_INFO & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		       ((unsigned long)size << _IOC_SIZESHIFT), &info, size);
	if (!ret && (info.core_count != fz_cores[f->dev] || info.device_index != f->dev))
		fz_bad(w, FZ_GET_INFO, 0, "GET_INFO: %u cores, device %u", info.core_count,
		       info.device_index);
}

static uint64_t fz_alloc_size(struct fz_worker *w)
{
	switch (fz_below(w, 8)) {
	case 0: return fz_edge(w, 8);
	case 1: return fz_one_in(w, 16) ? fz_hbm_bytes : fz_hbm_bytes + 1;
	case 2: return 4096 * (1 + fz_below(w, 64));
	default: return 1 + fz_below(w, 65536);
	}
}

/* MEM_ALLOC of size bytes, kept in f's table if there is room: its handle or 0. */
static uint32_t fz_alloc(struct fz_worker *w, struct fz_file *f, uint64_t size)
{
	struct vneuron_mem_alloc a = { .size = size };
	struct vneuron_mem_free fr = { 0 };

	if (fz_one_in(w, 32))
		a.flags = (uint32_t)fz_edge(w, 4);
	if (fz_ioctl(w, f, FZ_MEM_ALLOC, VNEURON_IOCTL_MEM_ALLOC, &a, sizeof(a)) || !a.handle)
		return 0;
	if (f->nmem < FZ_MEMS) {
		f->mem[f->nmem++] = (struct fz_mem){ a.handle, a.size, a.mmap_offset };
		return a.handle;
	}
	fr.handle = a.handle;
	fz_ioctl(w, f, FZ_MEM_FREE, VNEURON_IOCTL_MEM_FREE, &fr, sizeof(fr));
	return 0;
}

static void op_mem_free(struct fz_worker *w, struct fz_file *f)
{
	struct vneuron_mem_free a = { .handle = fz_handle(w, f) };

	if (fz_one_in(w, 32))
		a.flags = 1;
	if (!fz_ioctl(w, f, FZ_MEM_FREE, VNEURON_IOCTL_MEM_FREE, &a, sizeof(a)))
		fz_mem_drop(f, a.handle);
}

static void op_mem_rw(struct fz_worker *w, struct fz_file *f, bool write)
{
	struct fz_mem *m = fz_mem(w, f);
	struct vneuron_mem_rw a = { .handle = fz_handle(w, f) };
	uint64_t room = m ? m->size : 4096;

	if (m && !fz_one_in(w, 8))
		a.handle = m->handle;
	a.offset = fz_below(w, (uint32_t)(room < FZ_BUF ? room : FZ_BUF));
	a.size = 1 + fz_below(w, FZ_BUF - 1);
	if (a.offset + a.size > room && !fz_one_in(w, 8))
		a.size = room > a.offset ? room - a.offset : 1;
	if (a.size > FZ_BUF)
		a.size = FZ_BUF;
	a.user_ptr = (uintptr_t)w->buf;
	switch (fz_below(w, 16)) {
	case 0: a.size = 0; break;
	case 1: a.offset = fz_edge(w, 8); break;
	case 2: a.user_ptr = (uintptr_t)fz_bad_ptr(w, !write); break;
	case 3: a.flags = (uint32_t)fz_edge(w, 4); break;
	case 4:	/* a device mapping as the user memory */
		if (w->nmap) {
			struct fz_map *mp = &w->map[fz_below(w, w->nmap)];

			if (write || mp->writable) {
				a.user_ptr = (uintptr_t)mp->p;
				a.size = mp->len < a.size ? mp->len : a.size;
			}
		}
		break;
	case 5: a.size = fz_edge(w, 8); a.user_ptr = (uintptr_t)fz_bad_ptr(w, true); break;
	}
	if (!write && a.user_ptr == (uintptr_t)w->buf && a.size > FZ_BUF)
		a.size = FZ_BUF;
	fz_ioctl(w, f, write ? FZ_MEM_WRITE : FZ_MEM_READ,
		 write ? VNEURON_IOCTL_MEM_WRITE : VNEURON_IOCTL_MEM_READ, &a, sizeof(a));
}

static void op_reset(struct fz_worker *w, struct fz_file *f)
{
	struct vneuron_reset a = { .core = fz_core(w, f) };

	if (fz_one_in(w, 16))
		a.flags = (uint32_t)fz_edge(w, 4);
	fz_ioctl(w, f, FZ_RESET, VNEURON_IOCTL_RESET, &a, sizeof(a));
}

/* The tensors of an image as the tensor table says (the kernel's count comes back). */
static void fz_prog_info(struct fz_prog *p, const uint8_t *img, size_t size)
{
	struct vnm_img im;
	struct vnef_tensor t;
	uint32_t i;

	memset(p->kind, 0, sizeof(p->kind));
	memset(p->size, 0, sizeof(p->size));
	if (!vnm_parse(&im, (uint8_t *)img, size) || im.ten < 0)
		return;
	for (i = 0; i < FZ_TENS && i < im.sec[im.ten].n; i++) {
		memcpy(&t, vnm_entry(&im, (uint32_t)im.ten, i), sizeof(t));
		p->kind[i] = (uint8_t)t.kind;
		p->size[i] = t.size;
	}
}

static void op_exec(struct fz_worker *w, struct fz_file *f);

static void op_program_load(struct fz_worker *w, struct fz_file *f)
{
	const typeof(fz_imgs[0]) *src = &fz_imgs[fz_below(w, fz_nimg)];
	struct vneuron_program_load a = { 0 };
	struct vn_prog_error e;
	bool mutated = fz_one_in(w, 2), exact = true;
	size_t size = src->size;
	unsigned int k, n;
	int ret, host;

	memcpy(w->img, src->img, size);
	if (mutated) {
		n = fz_one_in(w, 4) ? 2 + fz_below(w, 2) : 1;
		for (k = 0; k < n; k++)
			size = vnm_mutate(w->img, size, FZ_IMG_MAX, vnm_rand(&w->r), NULL);
		fz_add(&sh->loads_mutated, 1);
	}
	a.image_ptr = (uintptr_t)w->img;
	a.image_size = size;
	switch (fz_below(w, 24)) {
	case 0: a.image_size = 0; exact = false; break;
	case 1: a.image_size = VNEF_MAX_IMAGE_BYTES + 1ull; exact = false; break;
	case 2: a.image_ptr = (uintptr_t)fz_bad_ptr(w, false); exact = false; break;
	case 3: a.flags = (uint32_t)fz_edge(w, 4); exact = false; break;
	case 4: a.image_size = size + 8 * fz_below(w, 4); exact = a.image_size == size; break;
	}
	/* keep room for a program: the file's limit is 256 */
	if (f->nprog == FZ_PROGS) {
		struct vneuron_program_unload u = { .handle = f->prog[0].handle };

		fz_ioctl(w, f, FZ_PROGRAM_UNLOAD, VNEURON_IOCTL_PROGRAM_UNLOAD, &u, sizeof(u));
		fz_blob_put(f->prog[0].blob);
		f->prog[0] = f->prog[--f->nprog];
	}
	ret = fz_ioctl(w, f, FZ_PROGRAM_LOAD, VNEURON_IOCTL_PROGRAM_LOAD, &a, sizeof(a));
	if (mutated && !ret)
		fz_add(&sh->loads_mutated_ok, 1);
	/* the kernel's validator is core/program.c, as is the host build's: same verdict */
	if (exact && !w->altered && (!ret || ret == -EINVAL) && f->rw) {
		host = vn_program_check(w->img, size, &e);
		if (!ret != !host || (ret && a.check && a.check != e.check))
			fz_bad(w, FZ_PROGRAM_LOAD, -ret,
			       "kernel %d (check %u) vs host %d (check %u: %.24s)", ret, a.check,
			       host, host ? e.check : 0, host ? e.msg : "");
	}
	if (ret || !a.handle || f->nprog == FZ_PROGS)
		return;
	f->prog[f->nprog] = (struct fz_prog){ .handle = a.handle, .ntens = a.tensor_count,
					      .mutated = mutated };
	fz_prog_info(&f->prog[f->nprog], w->img, size);
	f->prog[f->nprog].blob = fz_blob_new(w->img, size);
	f->nprog++;
	/* run what the validator just took from the mutator, often at once */
	if (mutated && fz_one_in(w, 2)) {
		w->want = (int)f->nprog - 1;
		op_exec(w, f);
	}
}

static void op_program_unload(struct fz_worker *w, struct fz_file *f)
{
	struct vneuron_program_unload a = { .handle = (uint32_t)fz_edge(w, 4) };
	unsigned int i = f->nprog ? fz_below(w, f->nprog) : 0;

	if (f->nprog && !fz_one_in(w, 8))
		a.handle = f->prog[i].handle;
	if (fz_one_in(w, 32))
		a.flags = 1;
	if (!fz_ioctl(w, f, FZ_PROGRAM_UNLOAD, VNEURON_IOCTL_PROGRAM_UNLOAD, &a, sizeof(a)) &&
	    f->nprog && a.handle == f->prog[i].handle) {
		fz_blob_put(f->prog[i].blob);
		f->prog[i] = f->prog[--f->nprog];
	}
}

/* A buffer of this file of at least size bytes, made if needed: its handle or 0. */
static uint32_t fz_buffer(struct fz_worker *w, struct fz_file *f, uint64_t size)
{
	unsigned int i, k = f->nmem ? fz_below(w, f->nmem) : 0;

	for (i = 0; i < f->nmem; i++)
		if (f->mem[(k + i) % f->nmem].size >= size)
			return f->mem[(k + i) % f->nmem].handle;
	return size <= (4u << 20) ? fz_alloc(w, f, size) : 0;
}

/*
 * An EXEC's arguments: mostly right, sometimes one thing wrong. *scratch: what the core
 * would allocate for it (held from submission to completion), which we keep small: the
 * guest's memory is not what this test is about.
 */
static const struct fz_prog *fz_exec_args(struct fz_worker *w, struct fz_file *f,
					  struct vneuron_exec *e, uint32_t *h, uint64_t *scratch)
{
	static const uint64_t limits[] = {
		0, 1, 1000, 1000000, 10000000, 100000000, 100000000, 1000000000, 1000000000,
		600000000000ull,
	};
	const struct fz_prog *p = f->nprog ? &f->prog[fz_below(w, f->nprog)] : NULL;
	uint32_t i, n;

	/* the mutated programs the validator took are the interesting ones to run */
	for (i = 0; i < f->nprog && fz_one_in(w, 2); i++)
		if (f->prog[i].mutated)
			p = &f->prog[i];
	if (w->want >= 0 && (unsigned int)w->want < f->nprog)
		p = &f->prog[w->want];
	w->want = -1;
	n = p ? p->ntens : fz_below(w, 4);

	memset(e, 0, sizeof(*e));
	e->program = p && !fz_one_in(w, 16) ? p->handle : (uint32_t)fz_edge(w, 4);
	e->core = fz_core(w, f);
	e->time_limit_ns = fz_one_in(w, 32) ? fz_edge(w, 8) : VNM_PICK(&w->r, limits);
	for (i = 0; i < n && i < FZ_TENS; i++) {
		h[i] = 0;
		if (!p)
			continue;
		switch (p->kind[i]) {
		case VNEF_TENSOR_CONST:
			break;
		case VNEF_TENSOR_SCRATCH:
			if (fz_one_in(w, 2))
				h[i] = fz_buffer(w, f, p->size[i]);
			break;
		default:
			h[i] = fz_buffer(w, f, p->size[i]);
			break;
		}
		if (fz_one_in(w, 64))
			h[i] = fz_handle(w, f);
	}
	/* larger, but within the file's limit: a wrong buffer instead (a refusal) */
	*scratch = 0;
	for (i = 0; p && i < n && i < FZ_TENS; i++)
		if (p->kind[i] == VNEF_TENSOR_SCRATCH && !h[i])
			*scratch += (p->size[i] + 63) & ~63ull;
	if (*scratch > FZ_SCRATCH && *scratch <= fz_max_exec_bytes) {
		for (i = 0; i < n && i < FZ_TENS; i++)
			if (p->kind[i] == VNEF_TENSOR_SCRATCH && !h[i])
				h[i] = fz_handle(w, f);
		*scratch = 0;
	}
	e->mem_count = n;
	e->mem_handles_ptr = (uintptr_t)h;
	switch (fz_below(w, 24)) {
	case 0: e->mem_count = n + 1; break;
	case 1: e->mem_count = (uint32_t)fz_edge(w, 4); break;
	case 2: e->mem_handles_ptr = (uintptr_t)fz_bad_ptr(w, false); break;
	case 3: e->flags = (uint32_t)fz_edge(w, 4); break;
	case 4: e->exec_id = fz_edge(w, 8); break;
	}
	if (e->mem_count > FZ_TENS && e->mem_handles_ptr == (uintptr_t)h)
		e->mem_handles_ptr = (uintptr_t)fz_none;
	return p;
}

static void fz_scratch_seen(uint64_t bytes)
{
	uint64_t old = __atomic_load_n(&sh->scratch_max, __ATOMIC_RELAXED);

	while (bytes > old && !__atomic_compare_exchange_n(&sh->scratch_max, &old, bytes, false,
							   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void op_exec(struct fz_worker *w, struct fz_file *f)
{
	uint32_t h[FZ_TENS];
	struct vneuron_exec e;
	const struct fz_prog *p;
	uint64_t scratch;

	/* unreaped executions hold their scratch: no more than we can reap */
	if (f->nexec == FZ_EXECS)
		return;
	p = fz_exec_args(w, f, &e, h, &scratch);
	if (fz_ioctl(w, f, FZ_EXEC, VNEURON_IOCTL_EXEC, &e, sizeof(e)) || !e.exec_id)
		return;
	fz_scratch_seen(scratch);
	if (e.core < FZ_CORES)
		f->owns[e.core] = true;
	if (p && p->mutated)
		fz_add(&sh->execs_mutated, 1);
	f->exec[f->nexec++] = (struct fz_exec){ e.exec_id, e.time_limit_ns,
						fz_blob_get(p ? p->blob : NULL) };
}

static void op_wait(struct fz_worker *w, struct fz_file *f)
{
	struct vneuron_wait a = { .exec_id = fz_edge(w, 8) };
	unsigned int i = f->nexec ? fz_below(w, f->nexec) : 0;
	struct fz_exec *x = f->nexec && !fz_one_in(w, 8) ? &f->exec[i] : NULL;

	if (x)
		a.exec_id = x->id;
	switch (fz_below(w, 8)) {
	case 0: a.timeout_ns = 0; break;
	case 1: a.timeout_ns = fz_edge(w, 8); break;
	default: a.timeout_ns = fz_now() + 1000000ull * fz_below(w, 50); break;
	}
	/* without a deadline only what is sure to end soon */
	if (a.timeout_ns == VNEURON_WAIT_FOREVER &&
	    (!x || f->nexec > 1 || !x->limit_ns || x->limit_ns > 1000000000ull))
		a.timeout_ns = fz_now() + 10000000ull;
	if (fz_one_in(w, 32))
		a.flags = 1;
	if (fz_ioctl(w, f, FZ_WAIT, VNEURON_IOCTL_WAIT, &a, sizeof(a)))
		return;
	fz_status(w, FZ_WAIT, &a, x ? x->blob : NULL);
	if (x && a.exec_id == x->id) {
		fz_blob_put(x->blob);
		*x = f->exec[--f->nexec];
	}
}

static void fz_map_add(struct fz_worker *w, uint8_t *p, size_t len, bool writable,
		       bool may_write)
{
	if (w->nmap == FZ_MAPS) {
		munmap(w->map[0].p, w->map[0].len);
		w->map[0] = w->map[--w->nmap];
	}
	w->map[w->nmap++] = (struct fz_map){ p, len, writable, may_write };
}

static void op_trace_start(struct fz_worker *w, struct fz_file *f)
{
	/*
	 * Up to 16 MiB rings (80 MiB a session): sessions of 256 MiB rings on two cores
	 * would take the whole 2 GiB guest and bring the global OOM killer on the workers
	 * (security_test runs them in a memory cgroup instead). 2^29 is past the maximum.
	 */
	static const uint64_t sizes[] = {
		4096, 4096, 8192, 16384, 65536, 1 << 20, 0, 4095, 6000, 1ull << 24, 1ull << 29,
	};
	struct vneuron_trace_start a = { 0 };
	const struct vneuron_trace_ctrl *ctrl;
	uint8_t *cons, *ring;
	uint32_t i;
	int prot;

	a.core = fz_core(w, f);
	a.mode = fz_one_in(w, 16) ? 2 : fz_below(w, 2);
	a.ring_size = VNM_PICK(&w->r, sizes);
	switch (fz_below(w, 6)) {
	case 0: a.watermark = 64 * fz_below(w, 8); break;
	case 1: a.watermark = (uint32_t)fz_edge(w, 4); break;
	default: a.watermark = 0; break;
	}
	if (fz_one_in(w, 32))
		a.flags = 1;
	if (fz_one_in(w, 32))
		a.pad = 1;
	if (fz_ioctl(w, f, FZ_TRACE_START, VNEURON_IOCTL_TRACE_START, &a, sizeof(a)))
		return;
	if (a.core < FZ_CORES)
		f->tracing[a.core] = true;
	/* map ring i and look at it; the consumer position is ours to write, any value */
	i = fz_below(w, a.nr_rings + 1);
	cons = mmap(NULL, a.consumer_len, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
		    a.mmap_offset + i * a.ring_stride);
	fz_note(w, FZ_MMAP, cons == MAP_FAILED ? -errno : 0);
	if (cons != MAP_FAILED) {
		if (i >= a.nr_rings)
			fz_bad(w, FZ_MMAP, 0, "ring %u of %u mapped", i, a.nr_rings);
		((struct vneuron_trace_consumer *)cons)->consumer_pos = fz_edge(w, 8);
		fz_map_add(w, cons, a.consumer_len, true, true);
	}
	prot = PROT_READ | (fz_one_in(w, 8) ? PROT_WRITE : 0);
	ring = mmap(NULL, a.ring_len, prot, MAP_SHARED, f->fd,
		    a.mmap_offset + i * a.ring_stride + a.consumer_len);
	fz_note(w, FZ_MMAP, ring == MAP_FAILED ? -errno : 0);
	if (ring == MAP_FAILED)
		return;
	if (i >= a.nr_rings || (prot & PROT_WRITE))
		fz_bad(w, FZ_MMAP, 0, "ring %u of %u mapped with prot %#x", i, a.nr_rings, prot);
	ctrl = (const void *)ring;
	if (ctrl->magic != VNEURON_TRACE_CTRL_MAGIC || ctrl->data_size != a.ring_size ||
	    ctrl->data_offset + a.ring_size > a.ring_len) {
		fz_bad(w, FZ_MMAP, 0, "ring control page: magic %#x data %llu at %llu",
		       ctrl->magic, (unsigned long long)ctrl->data_size,
		       (unsigned long long)ctrl->data_offset);
	} else {
		w->buf[0] = ring[ctrl->data_offset + fz_below(w, (uint32_t)a.ring_size)];
	}
	if (!fz_one_in(w, 4))
		munmap(ring, a.ring_len);
	else
		fz_map_add(w, ring, a.ring_len, false, false);
}

static void op_trace_stop(struct fz_worker *w, struct fz_file *f)
{
	struct vneuron_trace_stop a = { .core = fz_core(w, f) };
	uint32_t c;

	for (c = 0; c < FZ_CORES; c++)
		if (f->tracing[c] && fz_one_in(w, 2))
			a.core = c;
	if (fz_one_in(w, 32))
		a.flags = 1;
	if (!fz_ioctl(w, f, FZ_TRACE_STOP, VNEURON_IOCTL_TRACE_STOP, &a, sizeof(a)) &&
	    a.core < FZ_CORES)
		f->tracing[a.core] = false;
}

/* mmap of a buffer: mostly right, sometimes past its end, private, executable, foreign. */
static void op_mmap(struct fz_worker *w, struct fz_file *f)
{
	struct fz_mem *m = fz_mem(w, f);
	uint64_t pages = m ? (m->size + PAGE - 1) / PAGE : 1, first = fz_below(w, pages);
	uint64_t len = PAGE * (1 + fz_below(w, (uint32_t)(pages - first)));
	uint64_t off = m ? m->mmap_off + first * PAGE : PAGE * fz_below(w, 1024);
	int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED;
	uint8_t *p;

	switch (fz_below(w, 16)) {
	case 0: len += PAGE; break;
	case 1: flags = MAP_PRIVATE; break;
	case 2: prot |= PROT_EXEC; break;
	case 3: prot = PROT_READ; break;
	case 4: off = (uint64_t)(1 + fz_below(w, 64)) << 32; break;
	case 5: off = VNEURON_MMAP_TRACE_BASE + PAGE * fz_below(w, 4096); break;
	}
	p = mmap(NULL, len, prot, flags, f->fd, off);
	fz_note(w, FZ_MMAP, p == MAP_FAILED ? -errno : 0);
	if (p == MAP_FAILED)
		return;
	if (!f->rw || (prot & PROT_EXEC) || flags == MAP_PRIVATE)
		fz_bad(w, FZ_MMAP, 0, "mmap allowed: rw %d prot %#x flags %#x", f->rw, prot,
		       flags);
	/* the pages come in on first touch */
	w->buf[1] = p[fz_below(w, (uint32_t)len)];
	if (prot & PROT_WRITE)
		p[fz_below(w, (uint32_t)len)] = (uint8_t)w->step;
	fz_map_add(w, p, len, prot & PROT_WRITE, true);
}

/* A map may never become executable, nor a ring's read-only part writable. */
static void op_mprotect(struct fz_worker *w)
{
	struct fz_map *m;
	int prot, ret;

	if (!w->nmap)
		return;
	m = &w->map[fz_below(w, w->nmap)];
	prot = fz_one_in(w, 2) ? PROT_READ | PROT_EXEC : PROT_READ | PROT_WRITE;
	ret = mprotect(m->p, m->len, prot) ? -errno : 0;
	fz_note(w, FZ_MPROTECT, ret);
	if (!ret && ((prot & PROT_EXEC) || !m->may_write))
		fz_bad(w, FZ_MPROTECT, 0, "mprotect(%#x) allowed (may write %d)", prot,
		       m->may_write);
	if (!ret)
		m->writable = prot & PROT_WRITE;
}

static void op_munmap(struct fz_worker *w)
{
	unsigned int i;

	if (!w->nmap)
		return;
	i = fz_below(w, w->nmap);
	fz_note(w, FZ_MUNMAP, munmap(w->map[i].p, w->map[i].len) ? -errno : 0);
	w->map[i] = w->map[--w->nmap];
}

/* io_uring: CQEs that have arrived (or, with wait, one within 100 ms). */
static void fz_reap_cqes(struct fz_worker *w, bool wait)
{
	struct __kernel_timespec ts = { .tv_nsec = 100000000 };
	struct io_uring_cqe *cqe;
	struct fz_slot *s;
	int ret;

	while (w->inflight) {
		ret = wait ? io_uring_wait_cqe_timeout(&w->ring, &cqe, &ts) :
			     io_uring_peek_cqe(&w->ring, &cqe);
		if (ret)
			return;
		wait = false;
		if (cqe->user_data >= FZ_SLOTS || !w->slot[cqe->user_data].busy) {
			fz_bad(w, FZ_URING_CQE, 0, "CQE for no command: %llu",
			       (unsigned long long)cqe->user_data);
			io_uring_cqe_seen(&w->ring, cqe);
			continue;
		}
		s = &w->slot[cqe->user_data];
		/* a CQE's res: 0 or the execution's end (-EIO, -ETIMEDOUT, -ECANCELED) */
		ret = cqe->res;
		io_uring_cqe_seen(&w->ring, cqe);
		if (ret == -EIO || ret == -ECANCELED)
			fz_add(&sh->ops[FZ_URING_CQE], 1);
		else
			fz_note(w, FZ_URING_CQE, ret);
		if (s->has_status && (!ret || ret == -EIO || ret == -ETIMEDOUT))
			fz_status(w, FZ_URING_CQE, &s->w, s->blob);
		fz_blob_put(s->blob);
		s->busy = false;
		w->inflight--;
	}
}

static void op_uring_exec(struct fz_worker *w, struct fz_file *f)
{
	struct io_uring_sqe *sqe;
	struct vneuron_uring_cmd uc;
	const struct fz_prog *p;
	struct fz_slot *s = NULL;
	uint64_t scratch;
	unsigned int i;
	int ret;

	if (!w->ring_on) {
		ret = io_uring_queue_init(2 * FZ_SLOTS, &w->ring, 0);
		fz_note(w, FZ_URING_EXEC, ret);
		w->ring_on = !ret;
		return;
	}
	fz_reap_cqes(w, w->inflight == FZ_SLOTS);
	for (i = 0; i < FZ_SLOTS && !s; i++)
		if (!w->slot[i].busy)
			s = &w->slot[i];
	if (!s)
		return;
	p = fz_exec_args(w, f, &s->e, s->h, &scratch);
	memset(&s->w, 0, sizeof(s->w));
	uc.exec_ptr = (uintptr_t)&s->e;
	uc.status_ptr = (uintptr_t)&s->w;
	s->has_status = true;
	switch (fz_below(w, 16)) {
	case 0: uc.status_ptr = 0; s->has_status = false; break;
	case 1: uc.status_ptr = (uintptr_t)fz_bad_ptr(w, true); s->has_status = false; break;
	case 2: uc.exec_ptr = (uintptr_t)fz_bad_ptr(w, false); break;
	}
	sqe = io_uring_get_sqe(&w->ring);
	if (!sqe)
		return;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = f->fd;
	sqe->cmd_op = fz_one_in(w, 24) ? _IOW(VNEURON_IOCTL_BASE, 0x41, struct vneuron_uring_cmd) :
					 VNEURON_URING_CMD_EXEC;
	sqe->user_data = (uint64_t)(s - w->slot);
	if (fz_one_in(w, 8))
		sqe->flags |= IOSQE_ASYNC;
	memcpy(sqe->cmd, &uc, sizeof(uc));
	s->busy = true;
	s->blob = fz_blob_get(p ? p->blob : NULL);
	w->inflight++;
	ret = io_uring_submit(&w->ring);
	fz_note(w, FZ_URING_EXEC, ret < 0 ? ret : 0);
	fz_reap_cqes(w, false);
}

/* Commands the module does not have: ENOTTY, whatever the file. */
static void op_bad_ioctl(struct fz_worker *w, struct fz_file *f)
{
	static const unsigned long known[] = {
		VNEURON_IOCTL_GET_INFO, VNEURON_IOCTL_MEM_ALLOC, VNEURON_IOCTL_MEM_FREE,
		VNEURON_IOCTL_MEM_WRITE, VNEURON_IOCTL_MEM_READ, VNEURON_IOCTL_RESET,
		VNEURON_IOCTL_PROGRAM_LOAD, VNEURON_IOCTL_PROGRAM_UNLOAD, VNEURON_IOCTL_EXEC,
		VNEURON_IOCTL_WAIT, VNEURON_IOCTL_TRACE_START, VNEURON_IOCTL_TRACE_STOP,
		VNEURON_IOCTL_COMM_CREATE, VNEURON_IOCTL_COMM_JOIN, VNEURON_IOCTL_COMM_INFO,
		VNEURON_IOCTL_COMM_DESTROY, VNEURON_IOCTL_COMM_NODES, VNEURON_IOCTL_NETQ_WAIT,
		VNEURON_IOCTL_NETQ_COMPLETE, VNEURON_IOCTL_NETQ_RING_SETUP,
		VNEURON_IOCTL_NETQ_DOORBELL,
	};
	unsigned long cmd = VNM_PICK(&w->r, known), sizeless, k;
	bool exists = false;
	size_t i;
	int ret;

	switch (fz_below(w, 3)) {
	case 0:	/* another direction */
		cmd ^= (unsigned long)(1 + fz_below(w, 3)) << _IOC_DIRSHIFT;
		break;
	case 1:	/* another number */
		cmd = _IOC(fz_below(w, 4), VNEURON_IOCTL_BASE, fz_below(w, 256), fz_below(w, 1024));
		break;
	default:	/* another type */
		cmd = (cmd & ~((unsigned long)_IOC_TYPEMASK << _IOC_TYPESHIFT)) |
		      ((unsigned long)('v' + fz_below(w, 4)) << _IOC_TYPESHIFT);
		break;
	}
	sizeless = cmd & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT);
	for (i = 0; i < VNM_N(known); i++) {
		k = known[i] & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT);
		exists |= k == sizeless;
	}
	if (exists)
		return;
	memset(w->arg, 0, sizeof(w->arg));
	ret = vn_ioctl(f->fd, cmd, w->arg);
	fz_note(w, FZ_BAD_IOCTL, ret);
	if (ret != -ENOTTY)
		fz_bad(w, FZ_BAD_IOCTL, -ret, "ioctl %#lx: %d, not ENOTTY", cmd, ret);
}

/*
 * The network queue (docs/uapi.md, "Ranks on other nodes"): a communicator with ranks on
 * another node, then COMM_NODES, NETQ_WAIT (a short wait: nobody stands at a
 * collective) and NETQ_COMPLETE with random arguments, handles and pointers; sometimes
 * a ring (NETQ_RING_SETUP), mapped, filled with garbage and rung (NETQ_DOORBELL); the
 * registration kept or destroyed (a kept one breaks at close).
 */
/* A ring on registration reg (or a random handle): set up, mapped, scribbled on, rung. */
static void op_netq_ring(struct fz_worker *w, struct fz_file *f, uint32_t reg, uint32_t stage)
{
	struct vneuron_netq_ring_setup rs = {
		.handle = fz_one_in(w, 8) ? fz_below(w, 4) : reg,
		.entries = fz_one_in(w, 4) ? (uint32_t)fz_edge(w, 4) : 2u << fz_below(w, 6),
		.stage = stage,
		.stage_offset = fz_one_in(w, 4) ? fz_edge(w, 8) : fz_below(w, 8192),
		.stage_size = fz_one_in(w, 4) ? fz_edge(w, 8) : fz_below(w, 8192),
		.flags = fz_one_in(w, 32),
	};
	struct vneuron_netq_doorbell db = { .handle = rs.handle };
	uint32_t *m, i, words;
	int ret;

	ret = fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_NETQ_RING_SETUP, &rs, sizeof(rs));
	fz_note(w, FZ_NETQ, ret);
	if (ret)
		return;
	m = mmap(NULL, rs.mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
		 (off_t)rs.mmap_offset);
	if (m == MAP_FAILED) {
		fz_bad(w, FZ_NETQ, errno, "mmap of a ring just set up: %d", -errno);
		return;
	}
	/* Garbage in every index and some descriptor words: the kernel checks them all. */
	words = (uint32_t)(rs.mmap_len / sizeof(*m));
	for (i = 0; i < 64; i++)
		m[fz_below(w, words)] = (uint32_t)fz_edge(w, 4);
	if (fz_one_in(w, 2))
		m[32] = (uint32_t)fz_below(w, 4);	/* cpl_head a little ahead */
	if (fz_one_in(w, 4)) {
		db.flags = VNEURON_NETQ_DOORBELL_STAGE;
		db.stage = stage;
		db.stage_size = fz_below(w, 8192);
	}
	fz_note(w, FZ_NETQ,
		fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_NETQ_DOORBELL, &db, sizeof(db)));
	/* Its last unmapping breaks the communicator; the file's close frees the rest. */
	munmap(m, rs.mmap_len);
}

static void op_netq(struct fz_worker *w, struct fz_file *f)
{
	static const uint32_t errs[] = { 0, EIO, ETIMEDOUT, EPIPE, EINVAL, EINTR, ENOMEM, 9999 };
	uint32_t nodes[4], devs[4] = { 0 }, n = 1 + fz_below(w, 4), i, stage;
	struct vneuron_comm_create cc = { .nranks = n };
	struct vneuron_comm_destroy d = { 0 };
	struct vneuron_netq_complete nc;
	struct vneuron_comm_nodes nd;
	struct vneuron_netq_wait nw;
	uint64_t arr[4] = { 0 };
	int ret;

	ret = fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_COMM_CREATE, &cc, sizeof(cc));
	fz_note(w, FZ_NETQ, ret);
	if (ret)
		return;
	for (i = 0; i < n; i++)
		nodes[i] = fz_below(w, 3);
	nd = (struct vneuron_comm_nodes){
		.handle = fz_one_in(w, 8) ? fz_below(w, 4) : cc.handle, .node = fz_below(w, 2),
		.nodes = (uintptr_t)(fz_one_in(w, 16) ? fz_bad_ptr(w, false) : nodes),
		.devices = (uintptr_t)devs, .nranks = fz_one_in(w, 8) ? fz_below(w, 70) : n,
		.flags = fz_one_in(w, 16),
	};
	fz_note(w, FZ_NETQ, fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_COMM_NODES, &nd, sizeof(nd)));
	stage = f->nmem && !fz_one_in(w, 8) ? f->mem[fz_below(w, f->nmem)].handle :
					      fz_below(w, 8);
	nw = (struct vneuron_netq_wait){
		.handle = fz_one_in(w, 8) ? fz_below(w, 4) : cc.handle,
		.timeout_ns = fz_one_in(w, 16) ? 0 : vn_now_ns() + fz_below(w, 2000000),
		.stage = stage,
		.stage_offset = fz_one_in(w, 4) ? fz_edge(w, 8) : fz_below(w, 8192),
		.stage_size = fz_one_in(w, 4) ? fz_edge(w, 8) : fz_below(w, 8192),
		.arrivals = (uintptr_t)(fz_one_in(w, 8) ? fz_bad_ptr(w, true) : arr),
		.pad = fz_one_in(w, 32),
	};
	fz_note(w, FZ_NETQ, fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_NETQ_WAIT, &nw, sizeof(nw)));
	for (i = 0; i < n; i++)
		arr[i] = fz_one_in(w, 4) ? fz_edge(w, 8) : fz_below(w, 1000000);
	nc = (struct vneuron_netq_complete){
		.handle = fz_one_in(w, 8) ? fz_below(w, 4) : cc.handle,
		.id = fz_below(w, 4), .stage = stage,
		.stage_offset = fz_one_in(w, 4) ? fz_edge(w, 8) : fz_below(w, 8192),
		.arrivals = (uintptr_t)(fz_one_in(w, 8) ? fz_bad_ptr(w, false) : arr),
		.error = errs[fz_below(w, VNM_N(errs))], .failed_rank = fz_below(w, 6),
		.missing = fz_one_in(w, 2) ? 0 : fz_edge(w, 8) & 0xf,
	};
	fz_note(w, FZ_NETQ,
		fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_NETQ_COMPLETE, &nc, sizeof(nc)));
	if (fz_one_in(w, 2))
		op_netq_ring(w, f, cc.handle, stage);
	if (fz_one_in(w, 4))
		return;
	d.handle = cc.handle;
	fz_note(w, FZ_NETQ, fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_COMM_DESTROY, &d, sizeof(d)));
}

static void op_poll(struct fz_worker *w, struct fz_file *f)
{
	struct pollfd p = { .fd = f->fd, .events = POLLIN };
	int ret = poll(&p, 1, fz_below(w, 5));

	fz_note(w, FZ_POLL, ret < 0 ? -errno : 0);
}

/*
 * A file that lives for one execution: open, load, EXEC, close at once. Its release
 * cancels the execution and drops the core, whose executor then goes, racing the
 * workers that were about to start it.
 */
static void op_burst(struct fz_worker *w)
{
	struct fz_file *f;
	unsigned int i;

	fz_add(&sh->ops[FZ_BURST], 1);
	for (i = 0; i < FZ_FILES && w->f[i].fd >= 0; i++)
		;
	if (i == FZ_FILES) {
		f = fz_file(w);
		if (f)
			op_close(w, f);
	}
	for (i = 0; i < FZ_FILES && w->f[i].fd >= 0; i++)
		;
	op_open(w);		/* into slot i, the first free one */
	if (i == FZ_FILES || w->f[i].fd < 0)
		return;
	f = &w->f[i];
	op_program_load(w, f);
	if (f->nprog) {
		w->want = 0;
		op_exec(w, f);
		if (f->nexec)
			fz_add(&sh->ok[FZ_BURST], 1);
	}
	if (fz_one_in(w, 4))
		usleep(fz_below(w, 2000));
	op_close(w, f);
}

static void fz_step(struct fz_worker *w);

/* A child with the worker's files (the same open files) for a while. */
static void op_fork(struct fz_worker *w)
{
	unsigned int i, n;
	pid_t pid, me;
	int st;

	for (i = 0; i < FZ_KIDS; i++) {
		if (w->kid[i] > 0 && waitpid(w->kid[i], &st, WNOHANG) == w->kid[i]) {
			if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
				fz_bad(w, FZ_FORK, 0, "child %d died of signal %d", w->kid[i],
				       WTERMSIG(st));
			else if (WIFEXITED(st) && WEXITSTATUS(st))
				fz_bad(w, FZ_FORK, 0, "child %d exited %d", w->kid[i],
				       WEXITSTATUS(st));
			w->kid[i] = 0;
		}
	}
	for (i = 0; i < FZ_KIDS && w->kid[i] > 0; i++)
		;
	if (i == FZ_KIDS) {
		i = fz_below(w, FZ_KIDS);
		fz_pid_note(sh->killed, &sh->nkilled, FZ_NKILLED, w->kid[i]);
		kill(w->kid[i], SIGKILL);
		return;
	}
	me = getpid();
	pid = fork();
	fz_note(w, FZ_FORK, pid < 0 ? -errno : 0);
	if (pid < 0)
		return;
	if (pid) {
		fz_add(&sh->children, 1);
		w->kid[i] = pid;
		return;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != me)
		_exit(0);	/* the worker went before the signal was set */
	w->child = true;
	w->ring_on = false;	/* the ring's memory is the parent's too: not ours */
	w->inflight = 0;
	memset(w->kid, 0, sizeof(w->kid));
	w->seed = vnm_rand(&w->r);
	n = 5 + fz_below(w, 40);
	for (i = 0; i < n && !__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE); i++)
		fz_step(w);
	_exit(0);
}

/* One random operation. */
static void fz_step(struct fz_worker *w)
{
	struct fz_file *f = fz_file(w);
	unsigned int c = fz_below(w, 100);

	w->step++;
	if (!f || c < 4) {
		op_open(w);
		return;
	}
	if (c < 7)
		op_close(w, f);
	else if (c < 10)
		op_get_info(w, f);
	else if (c < 18)
		fz_alloc(w, f, fz_alloc_size(w));
	else if (c < 22)
		op_mem_free(w, f);
	else if (c < 26)
		op_mem_rw(w, f, true);
	else if (c < 30)
		op_mem_rw(w, f, false);
	else if (c < 33)
		op_reset(w, f);
	else if (c < 43)
		op_program_load(w, f);
	else if (c < 46)
		op_program_unload(w, f);
	else if (c < 58 && !f->nprog && !fz_one_in(w, 4))
		op_program_load(w, f);	/* what an EXEC needs, mostly first */
	else if (c < 58)
		op_exec(w, f);
	else if (c < 68 && !f->nexec && !fz_one_in(w, 4))
		op_exec(w, f);
	else if (c < 68)
		op_wait(w, f);
	else if (c < 71)
		op_trace_start(w, f);
	else if (c < 74)
		op_trace_stop(w, f);
	else if (c < 80)
		op_mmap(w, f);
	else if (c < 82)
		op_mprotect(w);
	else if (c < 85)
		op_munmap(w);
	else if (c < 92 && !w->child)
		op_uring_exec(w, f);
	else if (c < 94)
		op_bad_ioctl(w, f);
	else if (c < 95)
		op_netq(w, f);
	else if (c < 96)
		op_poll(w, f);
	else if (c < 97)
		op_burst(w);
	else if (!w->child)
		op_fork(w);
}

/* A worker: its own identity (uid 0: root), then random operations until told to stop. */
static int fz_worker_main(uint64_t seed, uid_t uid)
{
	static struct fz_worker wk;
	struct fz_worker *w = &wk;
	gid_t g = FZ_GID;
	uint64_t steps;
	unsigned int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(w, 0, sizeof(*w));
	w->seed = seed;
	w->r.s = seed;
	w->want = -1;
	for (i = 0; i < FZ_FILES; i++)
		w->f[i].fd = -1;
	if (uid) {
		if (setgroups(1, &g) || setgid(uid) || setuid(uid) || getuid() != uid)
			return 3;
		/* a dumpable one may be traced by the others of its uid */
		prctl(PR_SET_DUMPABLE, fz_one_in(w, 2) ? 1 : 0);
	}
	steps = 200 + fz_below(w, 4000);
	while (w->step < steps && !__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE))
		fz_step(w);
	if (w->ring_on && !fz_one_in(w, 4))
		fz_reap_cqes(w, true);
	/* exit closes what is left, mostly; sometimes close first */
	if (fz_one_in(w, 2))
		for (i = 0; i < FZ_FILES; i++)
			if (w->f[i].fd >= 0)
				close(w->f[i].fd);
	return 0;
}

/* ---- the test ---- */

static void fz_add_image(struct vb *b)
{
	uint64_t size;
	uint8_t *img = vb_finish(b, &size);

	vb_free(b);
	if (fz_nimg < FZ_IMAGES && img && size <= FZ_IMG_MAX) {
		fz_imgs[fz_nimg].img = img;
		fz_imgs[fz_nimg].size = size;
		fz_nimg++;
	} else {
		free(img);
	}
}

/* A few programs of each shape: no tensors, DMA through buffers, scratch, long, deadlock. */
static void fz_build_images(void)
{
	struct vnef_instr *in;
	struct vnef_dma_desc *d;
	struct vb b;
	int i;

	vb_init(&b);
	in = vb_op(&b, 1, VNEF_OP_MEMSET);
	in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 1, 0, 1);
	fz_add_image(&b);

	vb_init(&b);
	vb_tensor(&b, "x", VNEF_TENSOR_INPUT, VNEF_DT_FP32, 4, 8, NULL);
	vb_tensor(&b, "y", VNEF_TENSOR_OUTPUT, VNEF_DT_FP32, 4, 8, NULL);
	d = vb_load(&b, 0, 0, 0, 32, 4, 32, VNEF_MEM_SBUF, 0, 0);
	d->signal_mask = 1;
	in = vb_op(&b, 2, VNEF_OP_ACTIVATE);
	in->op = VNEF_ACT_EXP;
	in->imm[0] = 0x3f800000;
	VB_WAIT(in, 0, 1);
	in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 4, 0, 8);
	in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 4, 64, 8);
	in->signal_mask = 2;
	d = vb_store(&b, 1, 1, 0, 32, 4, 32, VNEF_MEM_SBUF, 0, 64);
	VB_WAIT(d, 1, 1);
	fz_add_image(&b);

	vb_init(&b);
	vb_tensor(&b, "in", VNEF_TENSOR_INPUT, VNEF_DT_BF16, 64, 64, NULL);
	vb_tensor(&b, "s", VNEF_TENSOR_SCRATCH, VNEF_DT_BF16, 64, 64, NULL);
	vb_tensor(&b, "out", VNEF_TENSOR_OUTPUT, VNEF_DT_BF16, 64, 64, NULL);
	d = vb_load(&b, 0, 0, 0, 128, 64, 128, VNEF_MEM_SBUF, 0, 0);
	d->signal_mask = 1;
	d = vb_store(&b, 1, 1, 0, 128, 64, 128, VNEF_MEM_SBUF, 0, 0);
	VB_WAIT(d, 0, 1);
	d->signal_mask = 2;
	d = vb_load(&b, 2, 1, 0, 128, 64, 128, VNEF_MEM_PSUM, 0, 0);
	VB_WAIT(d, 1, 1);
	d->signal_mask = 4;
	d = vb_store(&b, 3, 2, 0, 128, 64, 128, VNEF_MEM_PSUM, 0, 0);
	VB_WAIT(d, 2, 1);
	fz_add_image(&b);

	/* long enough to be running when a close, a reset or a kill comes */
	vb_init(&b);
	for (i = 0; i < 16; i++) {
		in = vb_op(&b, 2, VNEF_OP_ACTIVATE);
		in->op = VNEF_ACT_TANH;
		in->imm[0] = 0x3f800000;
		in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, i & 1 ? 0 : 8192, 2048);
		in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, i & 1 ? 8192 : 0, 2048);
	}
	fz_add_image(&b);

	/* VectorE and ScalarE wait on each other: a deadlock only execution finds */
	vb_init(&b);
	in = vb_op(&b, 1, VNEF_OP_NOP);
	VB_WAIT(in, 1, 1);
	in->signal_mask = 1;
	in = vb_op(&b, 2, VNEF_OP_NOP);
	VB_WAIT(in, 0, 1);
	in->signal_mask = 2;
	fz_add_image(&b);
}

/* The fuzzers' seed corpus, next to this binary's tree (build/rel/guest/..). */
static void fz_load_corpus(void)
{
	char exe[PATH_MAX], dir[PATH_MAX + 64], path[2 * PATH_MAX];
	struct dirent *de;
	ssize_t n;
	DIR *dp;
	FILE *fp;
	char *s;
	int k;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = 0;
	for (k = 0; k < 4 && (s = strrchr(exe, '/')); k++)
		*s = 0;
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/exec", exe);
	dp = opendir(dir);
	if (!dp)
		return;
	while ((de = readdir(dp)) && fz_nimg < FZ_IMAGES) {
		if (!strstr(de->d_name, ".vnef"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fp = fopen(path, "rb");
		if (!fp)
			continue;
		fz_imgs[fz_nimg].img = malloc(FZ_IMG_MAX);
		n = fz_imgs[fz_nimg].img ? (ssize_t)fread(fz_imgs[fz_nimg].img, 1, FZ_IMG_MAX, fp) : 0;
		fclose(fp);
		if (n > 0 && !vn_program_check(fz_imgs[fz_nimg].img, n, NULL))
			fz_imgs[fz_nimg++].size = n;
		else
			free(fz_imgs[fz_nimg].img);
	}
	closedir(dp);
}

static bool fz_drained(void)
{
	static const char *const names[] = {
		"mem_objects", "mem_bytes", "open_files", "programs", "execs", "comms", "users",
	};
	unsigned int i;

	for (i = 0; i < VNM_N(names); i++)
		if (vn_counter(names[i]) != 0)
			return false;
	return true;
}

/*
 * How a process of ours ended: normally, or by a SIGKILL we sent. A worker's SIGKILL is
 * on the list; a worker's child (reparented to us) is SIGKILLed only by its worker, by
 * its parent-death signal when the worker goes, or at the end.
 */
static bool fz_ended_well(pid_t p, int st, bool worker)
{
	if (WIFEXITED(st))
		return !WEXITSTATUS(st);
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL &&
	       (!worker || fz_pid_in(sh->killed, &sh->nkilled, FZ_NKILLED, p));
}

/* Whether the kernel log says the OOM killer took this process. */
static bool fz_oom_killed(pid_t p)
{
	char rec[1024], pat[48];
	bool found = false;
	ssize_t n;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return false;
	snprintf(pat, sizeof(pat), "Killed process %d ", (int)p);
	/* a record per read; EPIPE: some were overwritten, go on */
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = 0;
		found |= strstr(rec, pat) != NULL;
	}
	close(fd);
	return found;
}

/* A process reaped: its worker slot freed; false (and a line in the log) if it ended badly. */
static bool fz_reaped(pid_t p, int st, pid_t *pid, uint64_t procs)
{
	bool worker = false;
	uint64_t i;

	for (i = 0; i < procs; i++) {
		if (pid[i] == p) {
			pid[i] = 0;
			worker = true;
		}
	}
	if (fz_ended_well(p, st, worker))
		return true;
	printf("# %s %d ended abnormally: %s %d%s\n", worker ? "worker" : "child", p,
	       WIFSIGNALED(st) ? "signal" : "exit status",
	       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
	       WIFSIGNALED(st) && fz_oom_killed(p) ? " (the OOM killer)" : "");
	return false;
}

static pid_t fz_spawn(uint64_t seed, uid_t uid)
{
	pid_t pid = fork();

	if (!pid)
		_exit(fz_worker_main(seed, uid));
	return pid;
}

/* A seed per worker from the run's: the run replays from its seed alone. */
static uint64_t fz_mix(uint64_t seed, uint64_t n)
{
	struct vnm_rng r = { seed ^ (n * 0xd1342543de82ef95ull) };

	return vnm_rand(&r);
}

FIXTURE(fz)
{
	struct stat node[2];
	bool have[2];
};

/* The nodes' group gets the unprivileged workers in (mode 0660, as the module makes). */
FIXTURE_SETUP(fz)
{
	char path[32];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/dev/vneuron%u", i);
		self->have[i] = !stat(path, &self->node[i]);
		if (!self->have[i])
			continue;
		ASSERT_EQ(0, chown(path, 0, FZ_GID));
		ASSERT_EQ(0, chmod(path, 0660));
	}
	ASSERT_TRUE(self->have[0]);
}

FIXTURE_TEARDOWN(fz)
{
	char path[32];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!self->have[i])
			continue;
		snprintf(path, sizeof(path), "/dev/vneuron%u", i);
		if (chown(path, self->node[i].st_uid, self->node[i].st_gid) ||
		    chmod(path, self->node[i].st_mode & 07777))
			TH_LOG("could not restore %s", path);
	}
}

TEST_F_TIMEOUT(fz, processes, FZ_TIMEOUT)
{
	uint64_t seconds = fz_env("VN_FUZZ_SECONDS", 45);
	uint64_t procs = fz_env("VN_FUZZ_PROCS", 4);
	uint64_t seed = fz_env("VN_FUZZ_SEED", fz_now() ^ ((uint64_t)getpid() << 32));
	uint64_t end, spawned = 0, kills = 0, iter = 0, i;
	pid_t pid[FZ_MAX_PROCS] = { 0 };
	struct vneuron_info info;
	unsigned int d, c, abnormal = 0, stragglers = 0;
	char line[2048], path[96];
	bool late = false;
	size_t len;
	int fd, st;
	pid_t p;

	if (seconds > FZ_TIMEOUT - FZ_STOP_S - 120)
		seconds = FZ_TIMEOUT - FZ_STOP_S - 120;
	if (procs < 1 || procs > FZ_MAX_PROCS)
		procs = 4;
	printf("# seed %llu (replay with VN_FUZZ_SEED=%llu), %llu s, %llu processes\n",
	       (unsigned long long)seed, (unsigned long long)seed, (unsigned long long)seconds,
	       (unsigned long long)procs);
	fflush(stdout);

	/* the devices and the images, made once for all */
	for (d = 0; d < 2; d++) {
		snprintf(path, sizeof(path), "/dev/vneuron%u", d);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			break;
		memset(&info, 0, sizeof(info));
		ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_GET_INFO, &info));
		close(fd);
		fz_cores[d] = info.core_count;
		fz_hbm_bytes = info.hbm_bytes;
		fz_max_exec_bytes = info.limits.max_exec_bytes;
		fz_ndev = d + 1;
	}
	ASSERT_LT(0, fz_ndev);
	fz_build_images();
	fz_load_corpus();
	ASSERT_LT(4, fz_nimg);
	fz_none = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fz_ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, fz_none);
	ASSERT_NE(MAP_FAILED, fz_ro);
	ASSERT_NE(MAP_FAILED, sh);
	/* orphans of a killed worker come back to us, to be reaped and judged */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));

	end = fz_now() + seconds * 1000000000ull;
	while (fz_now() < end) {
		for (i = 0; i < procs; i++) {
			if (pid[i] > 0)
				continue;
			/* even slots root, odd ones unprivileged: nobody and FZ_UID2 in turn */
			pid[i] = fz_spawn(fz_mix(seed, spawned++),
					  !(i & 1) ? 0 : i & 2 ? FZ_UID2 : FZ_UID);
			ASSERT_LT(0, pid[i]);
		}
		iter++;
		usleep(50000 + 1000 * (fz_mix(seed, 2 * iter) % 250));
		if (fz_mix(seed, 2 * iter + 1) % 4 == 0) {
			i = fz_mix(seed, iter + 0x5555) % procs;
			if (pid[i] > 0) {
				fz_pid_note(sh->killed, &sh->nkilled, FZ_NKILLED, pid[i]);
				kill(pid[i], SIGKILL);
				kills++;
			}
		}
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			abnormal += !fz_reaped(p, st, pid, procs);
	}

	/* stop: every worker ends by itself, or is killed after FZ_STOP_S */
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	end = fz_now() + FZ_STOP_S * 1000000000ull;
	while ((p = waitpid(-1, &st, WNOHANG)) >= 0) {	/* until nobody is left */
		if (p) {
			abnormal += !fz_reaped(p, st, pid, procs);
			continue;
		}
		if (!late && fz_now() >= end) {
			late = true;
			for (i = 0; i < procs; i++) {
				if (pid[i] <= 0)
					continue;
				stragglers++;
				fz_pid_note(sh->killed, &sh->nkilled, FZ_NKILLED, pid[i]);
				kill(pid[i], SIGKILL);
			}
		}
		usleep(20000);
	}
	if (stragglers)
		TH_LOG("%u workers did not stop within %d s and were killed", stragglers,
		       FZ_STOP_S);

	/* what was done */
	len = snprintf(line, sizeof(line), "# ops:");
	for (i = 0; i < FZ_OP_NR && len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %s=%llu", fz_op_name[i],
				(unsigned long long)sh->ops[i]);
	printf("%s\n", line);
	len = snprintf(line, sizeof(line), "# ok:");
	for (i = 0; i < FZ_OP_NR && len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %s=%llu", fz_op_name[i],
				(unsigned long long)sh->ok[i]);
	printf("%s\n", line);
	for (i = 0; i < FZ_OP_NR; i++) {
		unsigned int e, k, best[3] = { 0 };

		for (e = 1; e < 64; e++) {
			for (k = 0; k < 3 && sh->errs[i][e] <= sh->errs[i][best[k]]; k++)
				;
			if (k < 3) {
				memmove(&best[k + 1], &best[k], (2 - k) * sizeof(best[0]));
				best[k] = e;
			}
		}
		if (!sh->errs[i][best[0]])
			continue;
		len = snprintf(line, sizeof(line), "# %s failed:", fz_op_name[i]);
		for (k = 0; k < 3 && sh->errs[i][best[k]]; k++)
			len += snprintf(line + len, sizeof(line) - len, " %s %llu",
					strerrorname_np(best[k]) ?: "?",
					(unsigned long long)sh->errs[i][best[k]]);
		printf("%s\n", line);
	}
	printf("# processes %llu (SIGKILLs sent %llu), children %llu; executions ended OK %llu "
	       "ERROR %llu TIMEOUT %llu ABORTED %llu FAULT %llu; mutated images loaded "
	       "%llu of %llu, executed %llu; largest core scratch %llu KiB\n",
	       (unsigned long long)spawned,
	       (unsigned long long)kills, (unsigned long long)sh->children,
	       (unsigned long long)sh->status[0], (unsigned long long)sh->status[1],
	       (unsigned long long)sh->status[2], (unsigned long long)sh->status[3],
	       (unsigned long long)sh->status[4], (unsigned long long)sh->loads_mutated_ok,
	       (unsigned long long)sh->loads_mutated, (unsigned long long)sh->execs_mutated,
	       (unsigned long long)(sh->scratch_max >> 10));
	for (i = 0; i < sh->nbad && i < FZ_NBAD; i++)
		TH_LOG("%s (uid %u, worker seed %llu, step %llu): errno %d: %s",
		       fz_op_name[sh->bad[i].op], sh->bad[i].uid,
		       (unsigned long long)sh->bad[i].seed, (unsigned long long)sh->bad[i].step,
		       sh->bad[i].err, sh->bad[i].what);
	fflush(stdout);
	EXPECT_EQ(0, abnormal);
	EXPECT_EQ(0, sh->nbad);

	/* everything gone: the module's counters drain, no core has an owner */
	for (i = 0; i < FZ_DRAIN_S * 50 && !fz_drained(); i++)
		usleep(20000);
	EXPECT_EQ(0, vn_counter("mem_objects"));
	EXPECT_EQ(0, vn_counter("mem_bytes"));
	EXPECT_EQ(0, vn_counter("open_files"));
	EXPECT_EQ(0, vn_counter("programs"));
	EXPECT_EQ(0, vn_counter("execs"));
	EXPECT_EQ(0, vn_counter("users")) TH_LOG("a user's charges outlived everything");
	for (d = 0; d < fz_ndev; d++) {
		for (c = 0; c < fz_cores[d]; c++) {
			long long owner = -1;
			FILE *fp;

			snprintf(path, sizeof(path), "/sys/class/vneuron/vneuron%u/core%u/owner_pid",
				 d, c);
			fp = fopen(path, "r");
			if (fp) {
				if (fscanf(fp, "%lld", &owner) != 1)
					owner = -1;
				fclose(fp);
			}
			EXPECT_EQ(0, owner) TH_LOG("%s", path);
		}
	}
}

TEST_HARNESS_MAIN
