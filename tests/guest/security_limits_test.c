// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron.ko in the guest, attacked from outside (the safe-device issue): a process
 * that dies with work queued, a close with io_uring commands in flight, a tracer killed
 * while it waits, and the per-file limits. Runs as root; the unprivileged cases drop to
 * nobody in forked children.
 */
#include "security_util.h"

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
