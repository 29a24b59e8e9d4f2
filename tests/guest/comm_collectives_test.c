// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Collectives in the guest (docs/uapi.md, "Communicators"): every collective on two
 * cores of /dev/vneuron0 and across /dev/vneuron0 and /dev/vneuron1 (with devices=2)
 * against a C reference; a rank that never arrives, a rank killed while the others
 * wait, mismatched collectives, ranks in separate processes with the id passed through
 * a pipe, and libneurondev's messages for them.
 */
#include "comm_cc.h"

/* ---- ranks of one process, each an (fd, core) ---- */

struct rk {
	int fd;
	uint32_t core;
	uint32_t prog;
	uint32_t h[2];			/* in, out: the program's tensors in order */
	uint64_t exec;
	int submit_ret;
	struct vneuron_wait w;
	void *in, *out;
	uint64_t in_bytes, out_bytes;
};

/* Ranks 0 and 1 of a new communicator on cores 0 and 1 of fd, in r[0..1]; rank 0's handle. */
static int two_core_comm(int fd, struct rk *r, uint32_t *h0)
{
	uint8_t id[ID_BYTES];
	int ret;

	ret = comm_create(fd, 2, id, NULL);
	if (!ret)
		ret = comm_join(fd, id, 0, 0, h0);
	if (!ret)
		ret = comm_join(fd, id, 1, 1, NULL);
	r[0] = (struct rk){ .fd = fd, .core = 0 };
	r[1] = (struct rk){ .fd = fd, .core = 1 };
	return ret;
}

/*
 * Load the op on the n ranks r[] of a communicator of nranks, fill each input (from its
 * index in r[]), EXEC. 0 or the first -errno.
 */
static int submit(struct rk *r, uint32_t n, uint32_t nranks, const struct cc_op *o,
		  uint64_t limit_ns)
{
	uint32_t m[MAX_RANKS], idx, g = members(o, nranks, 0, m, &idx), i;
	size_t size;
	void *img;
	int ret;

	if (!g || cc_image(o, g, &img, &size))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		r[i].in_bytes = in_elems(o, g) * dt_bytes(o->dt);
		r[i].out_bytes = out_elems(o, g) * dt_bytes(o->dt);
		r[i].in = malloc(r[i].in_bytes);
		r[i].out = calloc(1, r[i].out_bytes);
		if (!r[i].in || !r[i].out) {
			free(img);
			return -ENOMEM;
		}
		fill(r[i].in, o->dt, in_elems(o, g), i + 1);
		ret = vn_prog_load(r[i].fd, img, size, &r[i].prog, NULL);
		if (ret)
			break;
		ret = vn_alloc(r[i].fd, r[i].in_bytes, NULL);
		if (ret < 0)
			break;
		r[i].h[0] = ret;
		ret = vn_alloc(r[i].fd, r[i].out_bytes, NULL);
		if (ret < 0)
			break;
		r[i].h[1] = ret;
		ret = vn_rw(r[i].fd, 1, r[i].h[0], 0, r[i].in, r[i].in_bytes);
		if (ret)
			break;
		ret = vn_exec_on(r[i].fd, r[i].prog, r[i].core, r[i].h, 2, limit_ns, &r[i].exec);
		r[i].submit_ret = ret;
		if (ret)
			break;
	}
	free(img);
	return ret;
}

/* WAIT for every submitted rank (deadline: within_ns from now); read the outputs. */
static int wait_all(struct rk *r, uint32_t n, uint64_t within_ns)
{
	uint64_t deadline = vn_now_ns() + within_ns;
	int ret = 0, e;
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (!r[i].exec)
			continue;
		e = vn_wait_for(r[i].fd, r[i].exec, deadline, &r[i].w);
		if (!e && r[i].w.status == VNEURON_EXEC_OK)
			e = vn_rw(r[i].fd, 0, r[i].h[1], 0, r[i].out, r[i].out_bytes);
		if (e && !ret)
			ret = e;
		r[i].exec = 0;
	}
	return ret;
}

static void release(struct rk *r, uint32_t n)
{
	struct vneuron_program_unload u = { 0 };
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (r[i].h[0])
			vn_free(r[i].fd, r[i].h[0]);
		if (r[i].h[1])
			vn_free(r[i].fd, r[i].h[1]);
		if (r[i].prog) {
			u.handle = r[i].prog;
			vn_ioctl(r[i].fd, VNEURON_IOCTL_PROGRAM_UNLOAD, &u);
		}
		free(r[i].in);
		free(r[i].out);
		r[i].in = r[i].out = NULL;
		r[i].h[0] = r[i].h[1] = r[i].prog = 0;
	}
}

/* Every rank's out against the reference: the number of ranks that differ. */
static uint32_t check_ranks(struct __test_metadata *_metadata, struct rk *r, uint32_t n,
			    const struct cc_op *o)
{
	void *in[MAX_RANKS];
	uint32_t i, bad = 0;

	for (i = 0; i < n; i++)
		in[i] = r[i].in;
	for (i = 0; i < n; i++) {
		void *want = calloc(1, r[i].out_bytes);

		if (!want)
			return n;
		reference(o, n, i, in, want);
		if (memcmp(want, r[i].out, r[i].out_bytes)) {
			uint64_t e, ne = r[i].out_bytes / dt_bytes(o->dt);

			for (e = 0; e < ne; e++)
				if (get(want, o->dt, e) != get(r[i].out, o->dt, e))
					break;
			TH_LOG("op %u rank %u element %llu: want %.9g, got %.9g", o->opcode, i,
			       (unsigned long long)e, get(want, o->dt, e), get(r[i].out, o->dt, e));
			bad++;
		}
		free(want);
	}
	return bad;
}

/* Run op on the ranks to its end and check every output; returns the worst model_ps. */
static uint64_t run_checked(struct __test_metadata *_metadata, struct rk *r, uint32_t n,
			    const struct cc_op *o)
{
	uint64_t model = 0;
	uint32_t i;
	int ret;

	ret = submit(r, n, n, o, 0);
	EXPECT_EQ(0, ret) TH_LOG("submit of op %u: %s", o->opcode, strerror(-ret));
	ret = wait_all(r, n, 120 * SEC);
	EXPECT_EQ(0, ret) TH_LOG("wait of op %u: %s", o->opcode, strerror(-ret));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(VNEURON_EXEC_OK, r[i].w.status)
			TH_LOG("op %u rank %u: status %u reason %u stream %u pc %u", o->opcode, i,
			       r[i].w.status, r[i].w.reason, r[i].w.stream, r[i].w.pc);
		if (r[i].w.model_ps > model)
			model = r[i].w.model_ps;
	}
	if (!ret)
		EXPECT_EQ(0, check_ranks(_metadata, r, n, o));
	release(r, n);
	return model;
}

/* Every opcode, reductions both ways, bf16, replica groups when n allows them. */
static void every_collective(struct __test_metadata *_metadata, struct rk *r, uint32_t n)
{
	const struct cc_op ops[] = {
		{ VNEF_CC_ALL_REDUCE, ND_FP32, 1000, ND_ADD, 0, 0, 0 },
		{ VNEF_CC_ALL_REDUCE, ND_FP32, 257, ND_MAX, 0, 0, 0 },
		{ VNEF_CC_ALL_REDUCE, ND_BF16, 300, ND_ADD, 0, 0, 0 },
		{ VNEF_CC_ALL_GATHER, ND_FP32, 129, ND_ADD, 0, 0, 0 },
		{ VNEF_CC_ALL_GATHER, ND_BF16, 64, ND_ADD, 0, 0, 0 },
		{ VNEF_CC_REDUCE_SCATTER, ND_FP32, 100, ND_ADD, 0, 0, 0 },
		{ VNEF_CC_REDUCE_SCATTER, ND_FP32, 33, ND_MAX, 0, 0, 0 },
		{ VNEF_CC_ALL_TO_ALL, ND_FP32, 77, ND_ADD, 0, 0, 0 },
		{ VNEF_CC_PERMUTE, ND_FP32, 500, ND_ADD, 0, 0, 1 },
		{ VNEF_CC_PERMUTE, ND_FP32, 10, ND_ADD, 0, 0, 0 },
		/* groups: {0,1} {2,3} and {0,2} {1,3} on 4 ranks; {0} {1} on 2 */
		{ VNEF_CC_ALL_REDUCE, ND_FP32, 200, ND_ADD, 2, 1, 0 },
		{ VNEF_CC_ALL_GATHER, ND_FP32, 50, ND_ADD, 2, 2, 0 },
		{ VNEF_CC_REDUCE_SCATTER, ND_FP32, 40, ND_ADD, 2, 2, 0 },
		{ VNEF_CC_PERMUTE, ND_FP32, 60, ND_ADD, 2, 1, 1 },
		{ VNEF_CC_ALL_REDUCE, ND_FP32, 90, ND_ADD, 1, 1, 0 },
		/* 16 MiB and a tail: parts of 1 MiB or more stream their sums (core/comm_fp.c) */
		{ VNEF_CC_ALL_REDUCE, ND_FP32, (16 << 20) / 4 + 5, ND_ADD, 0, 0, 0 },
	};
	uint32_t k, idx, m[MAX_RANKS];

	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		if (!members(&ops[k], n, 0, m, &idx))
			continue;	/* the group does not fit n */
		run_checked(_metadata, r, n, &ops[k]);
	}
}

TEST_F_TIMEOUT(comm, collectives_two_cores, 600)
{
	struct vneuron_comm_info in;
	struct rk r[2];
	uint32_t h0;

	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	memset(r, 0, sizeof(r));
	ASSERT_EQ(0, two_core_comm(self->fd, r, &h0));
	every_collective(_metadata, r, 2);
	ASSERT_EQ(0, comm_info(self->fd, h0, &in));
	EXPECT_EQ(0, in.broken);
	EXPECT_LT(10, in.collectives);
	EXPECT_LT(0, vn_sysfs("core0/stats/collectives/total"));
	EXPECT_LT(0, vn_sysfs("core0/stats/collective_bytes/total"));
}

/* Ranks on two devices: the results, and the slower inter-device link in the model. */
TEST_F_TIMEOUT(comm, collectives_two_devices, 900)
{
	const struct cc_op ar = { VNEF_CC_ALL_REDUCE, ND_FP32, 4096, ND_ADD, 0, 0, 0 };
	uint64_t intra, inter;
	uint8_t id[ID_BYTES];
	struct rk r[4];
	int fd1;

	if (!have_device(1))
		SKIP(return, "needs /dev/vneuron1 (tools/vmtest -p devices=2)");
	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	fd1 = open_dev(1, O_RDWR);
	ASSERT_LE(0, fd1);

	/* two ranks on one device, then on two: the same op costs more across devices */
	memset(r, 0, sizeof(r));
	ASSERT_EQ(0, two_core_comm(self->fd, r, NULL));
	intra = run_checked(_metadata, r, 2, &ar);
	close(self->fd);
	self->fd = vn_open();
	ASSERT_LE(0, self->fd);

	memset(r, 0, sizeof(r));
	ASSERT_EQ(0, comm_create(self->fd, 2, id, NULL));
	ASSERT_EQ(0, comm_join(self->fd, id, 0, 0, NULL));
	ASSERT_EQ(0, comm_join(fd1, id, 1, 0, NULL));
	r[0] = (struct rk){ .fd = self->fd, .core = 0 };
	r[1] = (struct rk){ .fd = fd1, .core = 0 };
	inter = run_checked(_metadata, r, 2, &ar);
	EXPECT_LT(intra, inter) TH_LOG("intra %llu ps, inter %llu ps",
				       (unsigned long long)intra, (unsigned long long)inter);
	close(self->fd);
	close(fd1);

	/* four ranks, two per device: every op and the replica groups */
	self->fd = vn_open();
	fd1 = open_dev(1, O_RDWR);
	ASSERT_LE(0, self->fd);
	ASSERT_LE(0, fd1);
	memset(r, 0, sizeof(r));
	ASSERT_EQ(0, comm_create(fd1, 4, id, NULL));
	ASSERT_EQ(0, comm_join(self->fd, id, 0, 0, NULL));
	ASSERT_EQ(0, comm_join(self->fd, id, 1, 1, NULL));
	ASSERT_EQ(0, comm_join(fd1, id, 2, 0, NULL));
	ASSERT_EQ(0, comm_join(fd1, id, 3, 1, NULL));
	r[0] = (struct rk){ .fd = self->fd, .core = 0 };
	r[1] = (struct rk){ .fd = self->fd, .core = 1 };
	r[2] = (struct rk){ .fd = fd1, .core = 0 };
	r[3] = (struct rk){ .fd = fd1, .core = 1 };
	every_collective(_metadata, r, 4);
	close(fd1);
}

/* A rank that never arrives: TIMEOUT CC_MISSING at its time limit, and who was missing. */
TEST_F_TIMEOUT(comm, missing_rank, 120)
{
	const struct cc_op o = { VNEF_CC_ALL_REDUCE, ND_FP32, 64, ND_ADD, 0, 0, 0 };
	struct vneuron_comm_info in;
	uint8_t id[ID_BYTES];
	struct rk r[2];
	uint32_t h0;

	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	memset(r, 0, sizeof(r));
	ASSERT_EQ(0, comm_create(self->fd, 3, id, NULL));
	ASSERT_EQ(0, comm_join(self->fd, id, 0, 0, &h0));
	ASSERT_EQ(0, comm_join(self->fd, id, 2, 1, NULL));
	/* ranks 0 runs; rank 2 joined but never runs; rank 1 never joined */
	r[0] = (struct rk){ .fd = self->fd, .core = 0 };
	ASSERT_EQ(0, submit(r, 1, 3, &o, SEC));
	ASSERT_EQ(0, wait_all(r, 1, 60 * SEC));
	EXPECT_EQ(VNEURON_EXEC_TIMEOUT, r[0].w.status);
	EXPECT_EQ(VNEURON_REASON_CC_MISSING, r[0].w.reason);
	EXPECT_EQ(VNEURON_STREAM_CC, r[0].w.stream);
	EXPECT_EQ(0, r[0].w.pc);
	ASSERT_EQ(0, comm_info(self->fd, h0, &in));
	EXPECT_EQ(1, in.broken);
	EXPECT_EQ(0, in.failed_rank);
	EXPECT_EQ(ETIMEDOUT, in.failure);
	EXPECT_EQ(6, in.missing);
	release(r, 1);
}

/* A rank's process killed while the others wait: they end ABORTED CC_PEER at once. */
TEST_F_TIMEOUT(comm, killed_rank, 180)
{
	const struct cc_op o = { VNEF_CC_ALL_REDUCE, ND_FP32, 64, ND_ADD, 0, 0, 0 };
	struct vneuron_comm_info in;
	uint8_t id[ID_BYTES];
	int to_child[2], to_parent[2], status;
	uint64_t t_kill, t_end;
	struct rk r[1];
	uint32_t h0;
	char c = 0;
	pid_t pid;

	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	/* three ranks: 2 never comes, so both others block at the collective */
	ASSERT_EQ(0, comm_create(self->fd, 3, id, NULL));
	ASSERT_EQ(0, comm_join(self->fd, id, 0, 0, &h0));
	ASSERT_EQ(0, pipe(to_child));
	ASSERT_EQ(0, pipe(to_parent));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint8_t cid[ID_BYTES];
		struct rk cr[1];
		int fd = vn_open();

		close(self->fd);
		if (fd < 0 || read(to_child[0], cid, ID_BYTES) != ID_BYTES ||
		    comm_join(fd, cid, 1, 1, NULL))
			_exit(1);
		memset(cr, 0, sizeof(cr));
		cr[0] = (struct rk){ .fd = fd, .core = 1 };
		if (submit(cr, 1, 3, &o, 120 * SEC))
			_exit(2);
		if (write(to_parent[1], "x", 1) != 1)
			_exit(3);
		pause();
		_exit(4);
	}
	ASSERT_EQ(ID_BYTES, write(to_child[1], id, ID_BYTES));
	ASSERT_EQ(1, read(to_parent[0], &c, 1));
	memset(r, 0, sizeof(r));
	r[0] = (struct rk){ .fd = self->fd, .core = 0 };
	ASSERT_EQ(0, submit(r, 1, 3, &o, 120 * SEC));
	usleep(500 * 1000);
	t_kill = vn_now_ns();
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, wait_all(r, 1, 60 * SEC));
	t_end = vn_now_ns();
	EXPECT_EQ(VNEURON_EXEC_ABORTED, r[0].w.status);
	EXPECT_EQ(VNEURON_REASON_CC_PEER, r[0].w.reason);
	EXPECT_EQ(VNEURON_STREAM_CC, r[0].w.stream);
	/* promptly: far below the 120 s limit (a TCG guest is slow; seconds at most) */
	EXPECT_GT(20 * SEC, t_end - t_kill) TH_LOG("ended %.1f s after the kill",
						  (t_end - t_kill) / 1e9);
	ASSERT_EQ(0, comm_info(self->fd, h0, &in));
	EXPECT_EQ(1, in.broken);
	EXPECT_EQ(1, in.failed_rank);
	/* its execution was cancelled while it waited (EINTR), or its file left first */
	EXPECT_TRUE(in.failure == EINTR || in.failure == EPIPE) TH_LOG("failure %u", in.failure);
	TH_LOG("rank 0 ended %.2f s after rank 1's process was killed", (t_end - t_kill) / 1e9);
	release(r, 1);
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
}

/* Ranks that disagree: both end ERROR CC_MISMATCH, nothing moved. */
TEST_F_TIMEOUT(comm, mismatch, 120)
{
	const struct cc_op a = { VNEF_CC_ALL_REDUCE, ND_FP32, 64, ND_ADD, 0, 0, 0 };
	const struct cc_op b = { VNEF_CC_ALL_REDUCE, ND_FP32, 32, ND_ADD, 0, 0, 0 };
	struct vneuron_comm_info in;
	struct rk r[2];
	uint32_t h0;
	int i;

	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	memset(r, 0, sizeof(r));
	ASSERT_EQ(0, two_core_comm(self->fd, r, &h0));
	ASSERT_EQ(0, submit(&r[0], 1, 2, &a, 60 * SEC));
	ASSERT_EQ(0, submit(&r[1], 1, 2, &b, 60 * SEC));
	ASSERT_EQ(0, wait_all(r, 2, 90 * SEC));
	for (i = 0; i < 2; i++) {
		uint8_t zero[256] = { 0 };

		EXPECT_EQ(VNEURON_EXEC_ERROR, r[i].w.status) TH_LOG("rank %d", i);
		EXPECT_EQ(VNEURON_REASON_CC_MISMATCH, r[i].w.reason);
		EXPECT_EQ(VNEURON_STREAM_CC, r[i].w.stream);
		/* nothing moved: the outputs are still the zeroed buffers */
		ASSERT_EQ(0, vn_rw(self->fd, 0, r[i].h[1], 0, r[i].out, r[i].out_bytes));
		EXPECT_EQ(0, memcmp(r[i].out, zero, r[i].out_bytes));
	}
	ASSERT_EQ(0, comm_info(self->fd, h0, &in));
	EXPECT_EQ(1, in.broken);
	EXPECT_EQ(EINVAL, in.failure);
	release(r, 2);
}

/* One process per rank, the id through a pipe as text (libneurondev). */
TEST_F_TIMEOUT(comm, ranks_in_processes, 300)
{
	const struct cc_op o = { VNEF_CC_ALL_REDUCE, ND_FP32, 512, ND_ADD, 0, 0, 0 };
	unsigned int n = 2, i, ok = 0;
	struct nd_device *dev;
	struct nd_error err;
	char text[ND_COMM_ID_STRLEN + 1];
	nd_comm_id cid;
	int p[MAX_RANKS][2], status;
	pid_t pids[MAX_RANKS];

	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_EQ(0, nd_open(0, &dev, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, nd_comm_create(dev, n, &cid)) TH_LOG("%s", nd_device_error(dev));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, pipe(p[i]));
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i]) {
			/* the rank: its own device handle, the id from the pipe */
			struct nd_device *d;
			struct nd_comm *c;
			struct nd_program *prog;
			struct nd_mem *mi, *mo;
			struct nd_run_result res;
			char line[64] = { 0 };
			float *in[MAX_RANKS], *out, *want;
			size_t size, bytes = o.count * 4;
			nd_comm_id rid;
			unsigned int k;
			void *img;

			if (read(p[i][0], line, sizeof(line) - 1) <= 0 || nd_comm_id_parse(line, &rid))
				_exit(10);
			if (nd_open(0, &d, NULL) || nd_comm_join(d, &rid, i, i, &c))
				_exit(11);
			if (cc_image(&o, n, &img, &size) ||
			    nd_program_load(d, img, size, &prog, NULL))
				_exit(12);
			for (k = 0; k < n; k++) {
				in[k] = malloc(bytes);
				if (!in[k])
					_exit(13);
				fill(in[k], o.dt, o.count, k + 1);
			}
			out = calloc(1, bytes);
			want = calloc(1, bytes);
			if (!out || !want || nd_mem_alloc(d, bytes, &mi) ||
			    nd_mem_alloc(d, bytes, &mo) || nd_mem_write(mi, 0, in[i], bytes))
				_exit(14);
			{
				struct nd_bind b[] = { { "in", mi }, { "out", mo } };

				if (nd_run(prog, i, b, 2, 0, &res)) {
					fprintf(stderr, "# rank %u: %s\n", i, nd_device_error(d));
					_exit(15);
				}
			}
			if (nd_mem_read(mo, 0, out, bytes))
				_exit(16);
			reference(&o, n, i, (void *const *)in, want);
			if (memcmp(out, want, bytes))
				_exit(17);
			nd_comm_destroy(c);
			nd_close(d);
			_exit(0);
		}
		close(p[i][0]);
	}
	nd_comm_id_format(&cid, text);
	EXPECT_EQ(32, strlen(text));
	strcat(text, "\n");
	for (i = 0; i < n; i++) {
		ASSERT_EQ((ssize_t)strlen(text), write(p[i][1], text, strlen(text)));
		close(p[i][1]);
	}
	for (i = 0; i < n; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("rank %u: status %#x", i, status);
		ok += WIFEXITED(status) && !WEXITSTATUS(status);
	}
	EXPECT_EQ(n, ok);
	/* the registration is still there until the creator unregisters */
	EXPECT_EQ(0, nd_comm_unregister(dev, &cid));
	EXPECT_EQ(-ENOENT, nd_comm_unregister(dev, &cid));
	nd_close(dev);
}

/* The library: ids as text, its messages for refusals and for failed collectives. */
TEST_F_TIMEOUT(comm, library, 120)
{
	const struct cc_op o = { VNEF_CC_ALL_REDUCE, ND_FP32, 64, ND_ADD, 0, 0, 0 };
	struct nd_comm *c0, *c1, *c2;
	struct nd_comm_info ci;
	struct nd_run_result res;
	struct nd_program *prog;
	struct nd_mem *mi, *mo;
	struct nd_device *dev;
	struct nd_error err;
	char text[ND_COMM_ID_STRLEN], msg[512];
	long long base = vn_counter("comms");
	nd_comm_id id, back, bad;
	size_t size;
	void *img;
	int ret;

	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_EQ(0, nd_open(0, &dev, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, nd_comm_create(dev, 3, &id));
	ASSERT_NE(NULL, nd_comm_id_format(&id, text));
	ASSERT_EQ(0, nd_comm_id_parse(text, &back));
	EXPECT_EQ(0, memcmp(&id, &back, sizeof(id)));
	snprintf(msg, sizeof(msg), "  %s\n", text);
	EXPECT_EQ(0, nd_comm_id_parse(msg, &back));
	EXPECT_EQ(-EINVAL, nd_comm_id_parse(text + 1, &back));
	snprintf(msg, sizeof(msg), "%s0", text);
	EXPECT_EQ(-EINVAL, nd_comm_id_parse(msg, &back));
	snprintf(msg, sizeof(msg), "%s x", text);
	EXPECT_EQ(-EINVAL, nd_comm_id_parse(msg, &back));
	msg[0] = 'g';
	EXPECT_EQ(-EINVAL, nd_comm_id_parse(msg, &back));
	EXPECT_EQ(-EINVAL, nd_comm_id_parse("", &back));
	EXPECT_EQ(-EINVAL, nd_comm_create(dev, 0, &back));

	bad = id;
	bad.bytes[7] ^= 0x10;
	EXPECT_EQ(-ENOENT, nd_comm_join(dev, &bad, 0, 0, &c0));
	EXPECT_NE(NULL, strstr(nd_device_error(dev), "no communicator has this id"));
	/* the message never carries the id */
	nd_comm_id_format(&bad, text);
	EXPECT_EQ(NULL, strstr(nd_device_error(dev), text));
	EXPECT_EQ(-EINVAL, nd_comm_join(dev, &id, 0, self->info.core_count, &c0));

	ASSERT_EQ(0, nd_comm_join(dev, &id, 0, 0, &c0)) TH_LOG("%s", nd_device_error(dev));
	EXPECT_EQ(-EEXIST, nd_comm_join(dev, &id, 0, 1, &c1));
	EXPECT_NE(NULL, strstr(nd_device_error(dev), "rank 0"));
	ASSERT_EQ(0, nd_comm_join(dev, &id, 1, 1, &c1));
	EXPECT_EQ(0, nd_comm_rank(c0));
	EXPECT_EQ(1, nd_comm_rank(c1));
	EXPECT_EQ(3, nd_comm_size(c1));
	EXPECT_EQ(1, nd_comm_core(c1));
	EXPECT_EQ(dev, nd_comm_device(c1));
	ASSERT_EQ(0, nd_comm_info(c0, &ci));
	EXPECT_EQ(2, ci.joined);

	/* rank 0 runs, rank 1 never does, rank 2 never joined: rank 0 reports them */
	ASSERT_EQ(0, cc_image(&o, 3, &img, &size));
	ASSERT_EQ(0, nd_program_load(dev, img, size, &prog, NULL));
	free(img);
	ASSERT_EQ(0, nd_mem_alloc(dev, o.count * 4, &mi));
	ASSERT_EQ(0, nd_mem_alloc(dev, o.count * 4, &mo));
	{
		struct nd_bind b[] = { { "in", mi }, { "out", mo } };

		ret = nd_run(prog, 0, b, 2, SEC, &res);
		EXPECT_EQ(-ETIMEDOUT, ret);
		EXPECT_EQ(VNEURON_EXEC_TIMEOUT, res.result);
		EXPECT_EQ(VNEURON_REASON_CC_MISSING, res.reason);
		TH_LOG("rank 0: %s", nd_device_error(dev));
		EXPECT_NE(NULL, strstr(nd_device_error(dev),
				       "collective 0 (ALL_REDUCE) on the CC-core: ranks 1, 2 never arrived"));
		EXPECT_STREQ("CC-core", nd_stream_name(VNEURON_STREAM_CC));
		EXPECT_STREQ("cc-missing", nd_exec_reason_id(VNEURON_REASON_CC_MISSING));

		/* rank 1 comes late: the communicator is broken, it ends at once */
		ret = nd_run(prog, 1, b, 2, 60 * SEC, &res);
		EXPECT_EQ(-ECANCELED, ret);
		EXPECT_EQ(VNEURON_EXEC_ABORTED, res.result);
		EXPECT_EQ(VNEURON_REASON_CC_PEER, res.reason);
		TH_LOG("rank 1: %s", nd_device_error(dev));
		EXPECT_NE(NULL, strstr(nd_device_error(dev),
				       "rank 0 gave up at its time limit: ranks 1, 2 never arrived"));
		nd_comm_describe(c1, prog, &res, msg, sizeof(msg));
		EXPECT_NE(NULL, strstr(msg, "collective 0 (ALL_REDUCE) on the CC-core: aborted"));
	}
	ASSERT_EQ(0, nd_comm_info(c1, &ci));
	EXPECT_EQ(1, ci.broken);
	EXPECT_EQ(0, ci.failed_rank);
	EXPECT_EQ(ETIMEDOUT, ci.failure);
	EXPECT_EQ(6, ci.missing);

	EXPECT_EQ(0, nd_comm_destroy(c1));
	EXPECT_EQ(0, nd_comm_destroy(NULL));
	/* core 1 is free for another rank now */
	ASSERT_EQ(0, nd_comm_join(dev, &id, 2, 1, &c2));
	nd_program_unload(prog);
	nd_close(dev);		/* frees c0, c2, the buffers and the registration */
	EXPECT_EQ(base, vn_counter("comms"));
}

TEST_HARNESS_MAIN
