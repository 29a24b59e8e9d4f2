// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * EXEC through io_uring (IORING_OP_URING_CMD, VNEURON_URING_CMD_EXEC) in the guest:
 * single and batched executions through libneurondev's nd_uring_* checked against exp();
 * errored, timed-out and reset executions complete with their status; every refused
 * command (raw SQEs: unknown op, flags, pads, handles, another file's program, bad
 * pointers); closing the ring and the device with commands in flight, and SIGKILL, leave
 * the module's counters at zero (vmtest fails on any kernel warning). Behaviour only.
 */
#include <errno.h>
#include <liburing.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vnprog.h"
#include "vn_program.h"
#include "kmod_test.h"
#include "exec_util.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define ROWS	128
#define COLS	512
#define N	(ROWS * COLS)

static int exp_image(void **img, size_t *size)
{
	struct nd_builder *b;

	if (nd_builder_new("exp", &b))
		return -1;
	if (nd_kernel_exp(b, ROWS, COLS, 0)) {
		nd_builder_free(b);
		return -1;
	}
	return finish(b, img, size);
}

/* Many large ScalarE instructions: long enough to hit a short time limit. */

/* VectorE and ScalarE wait on each other: a deadlock only execution finds. */

/* Cancelled or timed-out executions end on the workers: wait for that, boundedly. */
static int wait_drained_ms(int ms)
{
	int i;

	for (i = 0; i < ms / 10 && !counters_drained(); i++)
		usleep(10000);
	return counters_drained();
}

static int wait_drained(void)
{
	return wait_drained_ms(30000);
}

/*
 * Executions whose time limit is far away: only a cancel ends them soon. Closing the
 * device file or exiting cancels the closing process's executions, so their commands
 * complete and io_uring's teardown does not wait (bounded generously here: the debug
 * kernel under emulation is slow; security_test holds the one-second bound).
 */
#define IN_FLIGHT_LIMIT_NS	(60ull * 1000000000ull)
#define CANCELLED_WITHIN_MS	10000

static int load(int fd, const void *img, size_t size, uint32_t *handle)
{
	struct vneuron_program_load a = { .image_ptr = (uintptr_t)img, .image_size = size };
	int ret = vn_ioctl(fd, VNEURON_IOCTL_PROGRAM_LOAD, &a);

	*handle = a.handle;
	return ret;
}

/* One raw URING_CMD SQE; the test owns the SQE's contents. */
static struct io_uring_sqe *raw_sqe(struct io_uring *ring, int fd, uint32_t op,
				    const struct vneuron_uring_cmd *uc, uint64_t user_data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		return NULL;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = op;
	sqe->user_data = user_data;
	memcpy(sqe->cmd, uc, sizeof(*uc));
	return sqe;
}

/* Submit one SQE already filled and return its CQE's res. */
static int raw_result(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	int res;

	if (io_uring_submit(ring) != 1 || io_uring_wait_cqe(ring, &cqe))
		return -9999;
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

static int raw_exec(struct io_uring *ring, int fd, uint32_t op, struct vneuron_exec *e,
		    struct vneuron_wait *w)
{
	struct vneuron_uring_cmd uc = {
		.exec_ptr = (uintptr_t)e,
		.status_ptr = (uintptr_t)w,
	};

	if (!raw_sqe(ring, fd, op, &uc, 7))
		return -9998;
	return raw_result(ring);
}

TEST(info_has_uring_cap)
{
	struct vneuron_info info = { 0 };
	int fd = vn_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_GET_INFO, &info));
	EXPECT_TRUE(info.caps & VNEURON_CAP_URING_CMD);
	close(fd);
}

/* Batches of 1 and 8 through nd_uring: every output is exp() of its own input. */
TEST(exp_single_and_batched)
{
	enum { B = 8 };
	struct nd_mem *in[B], *out[B];
	struct nd_uring_exec ex[B];
	struct nd_uring_done done[B];
	struct nd_bind binds[B][2];
	struct nd_program *p;
	struct nd_uring *r;
	struct nd_device *d;
	unsigned int seen = 0;
	float *x = malloc(N * 4), *y = malloc(N * 4);
	uint64_t seed;
	size_t size, i;
	int k, got, bad = 0;
	void *img;

	ASSERT_TRUE(x && y);
	ASSERT_EQ(0, exp_image(&img, &size));
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	ASSERT_EQ(0, nd_program_load(d, img, size, &p, NULL));
	ASSERT_EQ(0, nd_uring_open(d, 16, &r));
	for (k = 0; k < B; k++) {
		seed = k + 1;
		for (i = 0; i < N; i++)
			x[i] = 3.0f * rnd(&seed);
		ASSERT_EQ(0, nd_mem_alloc(d, N * 4, &in[k]));
		ASSERT_EQ(0, nd_mem_alloc(d, N * 4, &out[k]));
		ASSERT_EQ(0, nd_mem_write(in[k], 0, x, N * 4));
		binds[k][0] = (struct nd_bind){ "in", in[k] };
		binds[k][1] = (struct nd_bind){ "out", out[k] };
		ex[k] = (struct nd_uring_exec){ .prog = p, .core = k & 1, .binds = binds[k],
						.count = 2, .user_data = 100 + k };
	}
	/* one alone, then the other seven in one submission */
	ASSERT_EQ(1, nd_uring_submit_exec(r, ex, 1));
	ASSERT_EQ(1, nd_uring_reap(r, done, B, 1));
	EXPECT_EQ(100, done[0].user_data);
	EXPECT_EQ(0, done[0].ret);
	EXPECT_TRUE(done[0].has_result);
	EXPECT_EQ(VNEURON_EXEC_OK, done[0].res.result);
	EXPECT_LT(0, done[0].res.model_ps);
	ASSERT_EQ(B - 1, nd_uring_submit_exec(r, ex + 1, B - 1));
	EXPECT_EQ(B - 1, nd_uring_inflight(r));
	for (got = 0; got < B - 1;) {
		k = nd_uring_reap(r, done, B, 1);
		ASSERT_LT(0, k);
		while (k--) {
			EXPECT_EQ(0, done[k].ret);
			EXPECT_EQ(VNEURON_EXEC_OK, done[k].res.result);
			ASSERT_TRUE(done[k].user_data >= 101 && done[k].user_data < 100 + B);
			EXPECT_FALSE(seen & (1u << (done[k].user_data - 100)));
			seen |= 1u << (done[k].user_data - 100);
			got++;
		}
	}
	EXPECT_EQ(0, nd_uring_inflight(r));
	for (k = 0; k < B; k++) {
		seed = k + 1;
		for (i = 0; i < N; i++)
			x[i] = 3.0f * rnd(&seed);
		ASSERT_EQ(0, nd_mem_read(out[k], 0, y, N * 4));
		for (i = 0; i < N; i++) {
			double ref = exp((double)x[i]);

			if (fabs(y[i] - ref) > 4e-7 * ref && bad++ < 5)
				TH_LOG("exec %d: y[%zu] = %g, ref %g", k, i, y[i], ref);
		}
		nd_mem_free(in[k]);
		nd_mem_free(out[k]);
	}
	EXPECT_EQ(0, bad);
	/* completions through io_uring never make the file readable for WAIT */
	{
		struct pollfd pf = { .fd = nd_device_fd(d), .events = POLLIN };

		EXPECT_EQ(0, poll(&pf, 1, 0));
	}
	nd_uring_close(r);
	nd_program_unload(p);
	nd_close(d);
	free(img);
	free(x);
	free(y);
}

/* 64 in one submission, more than the ring holds: the rest after reaping. */
TEST(batch_64_on_depth_32)
{
	enum { B = 64 };
	struct nd_uring_exec ex[B];
	struct nd_uring_done done[B];
	struct nd_builder *b;
	struct nd_program *p;
	struct nd_uring *r;
	struct nd_device *d;
	int n = 0, got = 0, k;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("empty", &b));
	ASSERT_EQ(0, nd_memset(b, ND_VECTOR, nd_whole(nd_sbuf(b, "t", ND_FP32, 1, 1)), 0.0f));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	ASSERT_EQ(0, nd_program_load(d, img, size, &p, NULL));
	ASSERT_EQ(0, nd_uring_open(d, 32, &r));
	for (k = 0; k < B; k++)
		ex[k] = (struct nd_uring_exec){ .prog = p, .user_data = k };
	while (got < B) {
		if (n < B) {
			k = nd_uring_submit_exec(r, ex + n, B - n);
			ASSERT_LE(0, k);
			n += k;
		}
		k = nd_uring_reap(r, done, B, 1);
		ASSERT_LT(0, k);
		while (k--) {
			EXPECT_EQ(0, done[k].ret);
			got++;
		}
	}
	EXPECT_EQ(B, n);
	nd_uring_close(r);
	nd_program_unload(p);
	nd_close(d);
	free(img);
	EXPECT_TRUE(wait_drained());
}

TEST(deadlock_time_limit_and_reset_complete)
{
	struct vneuron_reset rs = { .core = 1 };
	struct nd_uring_exec ex[2];
	struct nd_uring_done done[2];
	struct nd_program *pd, *pl;
	struct nd_uring *r;
	struct nd_device *d;
	void *img, *limg;
	size_t size, lsize;
	int k;

	ASSERT_EQ(0, deadlock_image(&img, &size));
	ASSERT_EQ(0, long_image(&limg, &lsize));
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	ASSERT_EQ(0, nd_program_load(d, img, size, &pd, NULL));
	ASSERT_EQ(0, nd_program_load(d, limg, lsize, &pl, NULL));
	ASSERT_EQ(0, nd_uring_open(d, 4, &r));

	ex[0] = (struct nd_uring_exec){ .prog = pd, .user_data = 1 };
	ASSERT_EQ(1, nd_uring_submit_exec(r, ex, 1));
	ASSERT_EQ(1, nd_uring_reap(r, done, 2, 1));
	EXPECT_EQ(-ETIMEDOUT, done[0].ret);
	EXPECT_EQ(VNEURON_EXEC_TIMEOUT, done[0].res.result);
	EXPECT_EQ(VNEURON_REASON_DEADLOCK, done[0].res.reason);
	EXPECT_TRUE(done[0].res.stream == ND_VECTOR || done[0].res.stream == ND_SCALAR);

	ex[0] = (struct nd_uring_exec){ .prog = pl, .limit_ns = 50000000ull, .user_data = 2 };
	ASSERT_EQ(1, nd_uring_submit_exec(r, ex, 1));
	ASSERT_EQ(1, nd_uring_reap(r, done, 2, 1));
	EXPECT_EQ(-ETIMEDOUT, done[0].ret);
	EXPECT_EQ(VNEURON_REASON_TIME_LIMIT, done[0].res.reason);

	/* RESET ends the running and the queued one: both complete ABORTED */
	ex[0] = (struct nd_uring_exec){ .prog = pl, .core = 1, .user_data = 3 };
	ex[1] = (struct nd_uring_exec){ .prog = pl, .core = 1, .user_data = 4 };
	ASSERT_EQ(2, nd_uring_submit_exec(r, ex, 2));
	ASSERT_EQ(0, vn_ioctl(nd_device_fd(d), VNEURON_IOCTL_RESET, &rs));
	ASSERT_EQ(2, nd_uring_reap(r, done, 2, 2));
	for (k = 0; k < 2; k++) {
		EXPECT_EQ(-ECANCELED, done[k].ret);
		EXPECT_EQ(VNEURON_EXEC_ABORTED, done[k].res.result);
		EXPECT_EQ(VNEURON_REASON_RESET, done[k].res.reason);
	}
	nd_uring_close(r);
	nd_program_unload(pd);
	nd_program_unload(pl);
	nd_close(d);
	free(img);
	free(limg);
	EXPECT_TRUE(wait_drained());
}

FIXTURE(raw) {
	int fd, fd2;
	uint32_t prog, prog2, mem;
	void *img;
	struct io_uring ring;
};

FIXTURE_SETUP(raw)
{
	size_t size;

	ASSERT_EQ(0, exp_image(&self->img, &size));
	self->fd = vn_open();
	self->fd2 = vn_open();
	ASSERT_LE(0, self->fd);
	ASSERT_LE(0, self->fd2);
	ASSERT_EQ(0, load(self->fd, self->img, size, &self->prog));
	/* fd2's second program: a handle fd does not have */
	ASSERT_EQ(0, load(self->fd2, self->img, size, &self->prog2));
	ASSERT_EQ(0, load(self->fd2, self->img, size, &self->prog2));
	ASSERT_NE(self->prog, self->prog2);
	self->mem = vn_alloc(self->fd, N * 4, NULL);
	ASSERT_LT(0, (int)self->mem);
	ASSERT_EQ(0, io_uring_queue_init(8, &self->ring, 0));
}

FIXTURE_TEARDOWN(raw)
{
	io_uring_queue_exit(&self->ring);
	close(self->fd);
	close(self->fd2);
	free(self->img);
}

TEST_F(raw, ok_with_and_without_status)
{
	uint32_t h[2] = { self->mem, self->mem };
	struct vneuron_exec e = { .program = self->prog, .mem_handles_ptr = (uintptr_t)h,
				  .mem_count = 2 };
	struct vneuron_wait w;

	memset(&w, 0xa5, sizeof(w));
	ASSERT_EQ(0, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &e, &w));
	EXPECT_EQ(0, w.exec_id);
	EXPECT_EQ(0, w.timeout_ns);
	EXPECT_EQ(0, w.flags);
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	EXPECT_EQ(VNEURON_REASON_NONE, w.reason);
	EXPECT_EQ(0, w.core);
	EXPECT_LT(0, w.seq);
	EXPECT_LT(0, w.model_ps);
	EXPECT_EQ(0, e.exec_id);	/* nothing is written back into the arguments */
	ASSERT_EQ(0, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &e, NULL));
	/* the id space of WAIT is untouched */
	{
		struct vneuron_wait wt = { .exec_id = 1 };

		EXPECT_EQ(-ENOENT, vn_ioctl(self->fd, VNEURON_IOCTL_WAIT, &wt));
	}
}

TEST_F(raw, refused_commands)
{
	uint32_t h[2] = { self->mem, self->mem };
	struct vneuron_exec good = { .program = self->prog, .mem_handles_ptr = (uintptr_t)h,
				     .mem_count = 2 };
	struct vneuron_exec e;
	struct vneuron_wait w;
	struct vneuron_uring_cmd uc;
	struct io_uring_sqe *sqe;

	/* unknown op, and EXEC's number with another size */
	e = good;
	EXPECT_EQ(-ENOTTY, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC + 1, &e, &w));
	EXPECT_EQ(-ENOTTY, raw_exec(&self->ring, self->fd,
				    _IOW(VNEURON_IOCTL_BASE, 0x40, struct vneuron_exec), &e, &w));
	EXPECT_EQ(-ENOTTY, raw_exec(&self->ring, self->fd, VNEURON_IOCTL_EXEC, &e, &w));
	/* flags, exec_id, core, limit, counts */
	e = good;
	e.flags = 2;	/* unknown (bit 0 is VNEURON_EXEC_LNC2) */
	EXPECT_EQ(-EINVAL, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &e, &w));
	e = good;
	e.exec_id = 5;
	EXPECT_EQ(-EINVAL, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &e, &w));
	e = good;
	e.core = 1000;
	EXPECT_EQ(-EINVAL, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &e, &w));
	e = good;
	e.time_limit_ns = ~0ull;
	EXPECT_EQ(-EINVAL, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &e, &w));
	e = good;
	e.mem_count = 1;
	EXPECT_EQ(-EINVAL, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &e, &w));
	/* handles: no such program, no such buffer, another file's program */
	e = good;
	e.program = 999;
	EXPECT_EQ(-ENOENT, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &e, &w));
	h[1] = 999;
	e = good;
	EXPECT_EQ(-ENOENT, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &e, &w));
	h[1] = self->mem;
	e = good;
	e.program = self->prog2;
	EXPECT_EQ(-ENOENT, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &e, &w));
	/* on fd2, fd's program number is fd2's first program, but the buffer is fd's */
	e = good;
	EXPECT_EQ(-ENOENT, raw_exec(&self->ring, self->fd2, VNEURON_URING_CMD_EXEC, &e, &w));
	/* pointers */
	e = good;
	e.mem_handles_ptr = 16;
	EXPECT_EQ(-EFAULT, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &e, &w));
	EXPECT_EQ(-EFAULT, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC,
				    (struct vneuron_exec *)16, &w));
	/* the status cannot be written: the execution ran, the CQE says EFAULT */
	e = good;
	EXPECT_EQ(-EFAULT, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &e,
				    (struct vneuron_wait *)16));
	/* uring_cmd_flags */
	e = good;
	uc = (struct vneuron_uring_cmd){ .exec_ptr = (uintptr_t)&e };
	sqe = raw_sqe(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &uc, 1);
	ASSERT_NE(NULL, sqe);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	{
		int res = raw_result(&self->ring);

		/* io_uring itself may refuse it first, having no registered buffers */
		EXPECT_TRUE(res == -EINVAL || res == -EFAULT);
	}
	sqe = raw_sqe(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &uc, 1);
	ASSERT_NE(NULL, sqe);
	sqe->uring_cmd_flags = 1u << 7;
	EXPECT_EQ(-EINVAL, raw_result(&self->ring));
	/* nothing refused was left behind: the program and buffer still run */
	e = good;
	EXPECT_EQ(0, raw_exec(&self->ring, self->fd, VNEURON_URING_CMD_EXEC, &e, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	EXPECT_EQ(0, vn_counter_settled("execs", 0));
}

/* A 128-byte SQE: 80 bytes of command, the 64 after ours reserved. */
TEST_F(raw, sqe128_pad)
{
	uint32_t h[2] = { self->mem, self->mem };
	struct vneuron_exec e = { .program = self->prog, .mem_handles_ptr = (uintptr_t)h,
				  .mem_count = 2 };
	struct vneuron_uring_cmd uc = { .exec_ptr = (uintptr_t)&e };
	struct io_uring ring;
	struct io_uring_sqe *sqe;

	ASSERT_EQ(0, io_uring_queue_init(4, &ring, IORING_SETUP_SQE128));
	sqe = io_uring_get_sqe(&ring);
	ASSERT_NE(NULL, sqe);
	memset(sqe, 0, 128);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = self->fd;
	sqe->cmd_op = VNEURON_URING_CMD_EXEC;
	memcpy(sqe->cmd, &uc, sizeof(uc));
	EXPECT_EQ(0, raw_result(&ring));
	sqe = io_uring_get_sqe(&ring);
	ASSERT_NE(NULL, sqe);
	memset(sqe, 0, 128);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = self->fd;
	sqe->cmd_op = VNEURON_URING_CMD_EXEC;
	memcpy(sqe->cmd, &uc, sizeof(uc));
	sqe->cmd[79] = 1;
	EXPECT_EQ(-EINVAL, raw_result(&ring));
	io_uring_queue_exit(&ring);
}

/* Completions are CQEs, never polled for: an IOPOLL ring is refused. */
TEST_F(raw, iopoll_ring_refused)
{
	uint32_t h[2] = { self->mem, self->mem };
	struct vneuron_exec e = { .program = self->prog, .mem_handles_ptr = (uintptr_t)h,
				  .mem_count = 2 };
	struct vneuron_wait w;
	struct io_uring ring;

	ASSERT_EQ(0, io_uring_queue_init(4, &ring, IORING_SETUP_IOPOLL));
	EXPECT_EQ(-EOPNOTSUPP, raw_exec(&ring, self->fd, VNEURON_URING_CMD_EXEC, &e, &w));
	io_uring_queue_exit(&ring);
	EXPECT_EQ(0, vn_counter_settled("execs", 0));
}

/* Status memory the module may still write after the ring and file are gone. */
static struct vneuron_wait late_status[4];

TEST(close_ring_and_file_in_flight)
{
	struct vneuron_exec e[4];
	struct io_uring ring;
	uint32_t prog;
	size_t size;
	void *img;
	int fd, k;

	ASSERT_EQ(0, long_image(&img, &size));
	fd = vn_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, load(fd, img, size, &prog));
	ASSERT_EQ(0, io_uring_queue_init(8, &ring, 0));
	for (k = 0; k < 4; k++) {
		struct vneuron_uring_cmd uc = {
			.exec_ptr = (uintptr_t)&e[k],
			.status_ptr = (uintptr_t)&late_status[k],
		};

		e[k] = (struct vneuron_exec){ .program = prog, .core = k & 1,
					      .time_limit_ns = IN_FLIGHT_LIMIT_NS };
		ASSERT_NE(NULL, raw_sqe(&ring, fd, VNEURON_URING_CMD_EXEC, &uc, k));
	}
	ASSERT_EQ(4, io_uring_submit(&ring));
	EXPECT_EQ(4, vn_counter("execs"));
	io_uring_queue_exit(&ring);
	close(fd);
	EXPECT_TRUE(wait_drained_ms(CANCELLED_WITHIN_MS));
	free(img);
}

TEST(sigkill_in_flight)
{
	int pfd[2], status;
	size_t size;
	void *img;
	pid_t pid;
	char c;

	ASSERT_EQ(0, long_image(&img, &size));
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct nd_uring_exec ex[4];
		struct nd_program *p;
		struct nd_uring *r;
		struct nd_device *d;
		struct nd_mem *m;
		int k;

		close(pfd[0]);
		if (nd_open(0, &d, NULL) || nd_mem_alloc(d, 1 << 20, &m) ||
		    nd_program_load(d, img, size, &p, NULL) || nd_uring_open(d, 8, &r))
			_exit(1);
		for (k = 0; k < 4; k++)
			ex[k] = (struct nd_uring_exec){ .prog = p, .core = k & 1,
							.limit_ns = IN_FLIGHT_LIMIT_NS };
		if (nd_uring_submit_exec(r, ex, 4) != 4)
			_exit(1);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	ASSERT_EQ(1, read(pfd[0], &c, 1));
	close(pfd[0]);
	EXPECT_EQ(4, vn_counter("execs"));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_TRUE(wait_drained_ms(CANCELLED_WITHIN_MS));
	free(img);
}

TEST_HARNESS_MAIN
