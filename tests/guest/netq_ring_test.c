// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The network queue as a mapped ring in the guest (NETQ_RING_SETUP, NETQ_DOORBELL;
 * docs/uapi.md, "Ranks on other nodes"): every bad argument, an all-reduce served by
 * hand through it (exact, the modeled time the same as through the ioctls, poll()
 * woken), hostile ring contents refused, and an unmap or close with a request out
 * breaking the communicator. Partial completions through the ring (2 local ranks, 4
 * remote on 2 nodes): node A's ranks posted, node B's never, the time limit names
 * exactly node B's; every bad partial refused; partials then the final completion
 * exact, the modeled time that of one whole completion; the registration destroyed
 * with ranks posted breaking the communicator.
 */
#include "netq_util.h"

/* NETQ_RING_SETUP, NETQ_DOORBELL and the ring's mmap: every bad argument. */
TEST_F(netq, ring_errors)
{
	struct vneuron_netq_ring_setup rs;
	struct vneuron_netq_doorbell d;
	struct vneuron_netq_wait w;
	uint32_t reg, reg2, plain, rank_h, stage;
	uint8_t id[ID_BYTES];
	uint64_t arr[2] = { 0, 0 };
	int fd2 = vn_open();
	void *m;

	if (!(self->info.caps & VNEURON_CAP_NETQ_RING))
		SKIP(return, "the module has no network queue ring");
	ASSERT_LE(6, self->info.uapi_version);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, comm_create(self->fd, 2, id, &reg));
	ASSERT_EQ(0, comm_nodes(self->fd, reg, 0, two_nodes, two_devs, 2));
	ASSERT_EQ(0, netq_comm(self->fd, self->fd, &reg2, &rank_h));
	ASSERT_EQ(0, comm_create(self->fd, 2, id, &plain));
	stage = vn_alloc(self->fd, 2 * PAGE, NULL);
	ASSERT_LT(0, (int)stage);
	rs = (struct vneuron_netq_ring_setup){ .handle = reg, .entries = 4, .stage = stage,
					       .stage_size = PAGE, .flags = 1 };
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_RING_SETUP, &rs));
	EXPECT_EQ(-EINVAL, ring_setup(self->fd, reg, 0, stage, 0, PAGE, &rs));
	EXPECT_EQ(-EINVAL, ring_setup(self->fd, reg, 1, stage, 0, PAGE, &rs));
	EXPECT_EQ(-EINVAL, ring_setup(self->fd, reg, 3, stage, 0, PAGE, &rs));
	EXPECT_EQ(-EINVAL, ring_setup(self->fd, reg, VNEURON_NETQ_RING_MAX_ENTRIES * 2, stage, 0,
				      PAGE, &rs));
	EXPECT_EQ(-EINVAL, ring_setup(self->fd, reg, 4, stage, ~0ull, 2, &rs));
	EXPECT_EQ(-EINVAL, ring_setup(self->fd, reg, 4, stage, PAGE, PAGE + 1, &rs));
	EXPECT_EQ(-ENOENT, ring_setup(self->fd, reg, 4, 9999, 0, PAGE, &rs));
	EXPECT_EQ(-ENOENT, ring_setup(self->fd, 0, 4, stage, 0, PAGE, &rs));
	EXPECT_EQ(-ENOENT, ring_setup(self->fd, 9999, 4, stage, 0, PAGE, &rs));
	/* the registration and the stage must be the caller's own */
	EXPECT_EQ(-ENOENT, ring_setup(fd2, reg, 4, stage, 0, PAGE, &rs));
	EXPECT_EQ(-EINVAL, ring_setup(self->fd, plain, 4, stage, 0, PAGE, &rs));
	EXPECT_EQ(-EINVAL, ring_setup(self->fd, rank_h, 4, stage, 0, PAGE, &rs));
	/* a registration without a ring: no doorbell */
	EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, 0, 0, 0, 0));
	ASSERT_EQ(0, ring_setup(self->fd, reg, 4, stage, 0, PAGE, &rs));
	EXPECT_LE(VNEURON_MMAP_NETQ_BASE, rs.mmap_offset);
	EXPECT_EQ(PAGE, rs.req_offset);
	EXPECT_EQ(PAGE + 4 * sizeof(struct vneuron_netq_req), rs.cpl_offset);
	EXPECT_LE(rs.cpl_offset + 4 * sizeof(struct vneuron_netq_cpl), rs.mmap_len);
	EXPECT_EQ(-EBUSY, ring_setup(self->fd, reg, 4, stage, 0, PAGE, &rs));
	/* served by its ring: the ioctls of uapi 5 are refused */
	EXPECT_EQ(-EBUSY, netq_wait(self->fd, reg, stage, PAGE, MS, arr, &w));
	EXPECT_EQ(-EBUSY, netq_complete(self->fd, reg, 1, stage, 0, arr));
	EXPECT_EQ(-EBUSY, netq_fail(self->fd, reg, EIO, 1, 0));
	/* the doorbell */
	d = (struct vneuron_netq_doorbell){ .handle = reg, .flags = 2 };
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_DOORBELL, &d));
	d = (struct vneuron_netq_doorbell){ .handle = reg, .pad = 1 };
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_DOORBELL, &d));
	EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, 0, stage, 0, 0));
	EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, 0, 0, 0, PAGE));
	EXPECT_EQ(-ENOENT, doorbell(self->fd, 0, 0, 0, 0, 0));
	EXPECT_EQ(-ENOENT, doorbell(fd2, reg, 0, 0, 0, 0));
	EXPECT_EQ(-EINVAL, doorbell(self->fd, plain, 0, 0, 0, 0));
	EXPECT_EQ(-EINVAL, doorbell(self->fd, rank_h, 0, 0, 0, 0));
	EXPECT_EQ(-ENOENT, doorbell(self->fd, reg, VNEURON_NETQ_DOORBELL_STAGE, 9999, 0, PAGE));
	EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, VNEURON_NETQ_DOORBELL_STAGE, stage, PAGE,
				    PAGE + 1));
	EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, VNEURON_NETQ_DOORBELL_STAGE, stage, ~0ull, 2));
	EXPECT_EQ(0, doorbell(self->fd, reg, VNEURON_NETQ_DOORBELL_STAGE, stage, 0, 2 * PAGE));
	EXPECT_EQ(0, doorbell(self->fd, reg, 0, 0, 0, 0));
	/* its mmap: shared, from its start, not longer, not executable, this file's */
	m = mmap(NULL, rs.mmap_len, PROT_READ, MAP_PRIVATE, self->fd, rs.mmap_offset);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, rs.mmap_len + PAGE, PROT_READ, MAP_SHARED, self->fd, rs.mmap_offset);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd, rs.mmap_offset + PAGE);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, self->fd, rs.mmap_offset);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd2, rs.mmap_offset);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd,
		 rs.mmap_offset + (1ull << 20));
	EXPECT_EQ(MAP_FAILED, m);
	/* a NETQ_WAIT request out: no ring now */
	{
		struct rank0 *r = calloc(1, sizeof(*r));
		uint32_t st2 = vn_alloc(self->fd, 2 * COUNT * 4, NULL);

		ASSERT_NE(NULL, r);
		ASSERT_EQ(0, rank0_submit(r, self->fd, 60 * SEC));
		ASSERT_EQ(0, netq_wait(self->fd, reg2, st2, 2 * COUNT * 4, 10 * SEC, arr, &w));
		ASSERT_NE(0, w.id);
		EXPECT_EQ(-EBUSY, ring_setup(self->fd, reg2, 4, stage, 0, PAGE, &rs));
		ASSERT_EQ(0, netq_fail(self->fd, reg2, EIO, 1, 0));
		ASSERT_EQ(0, rank0_wait(r));
		rank0_release(r);
		free(r);
	}
	close(fd2);
}

/*
 * The proxy by hand through the ring, against the ioctls: run 0 serves rank 0's
 * all-reduce with NETQ_WAIT/NETQ_COMPLETE, run 1 through a ring (a stage too small
 * first: a request of id 0, a larger stage at the doorbell, the request again; poll()
 * woken; hostile completions refused and left in place): both exact, the same modeled
 * end.
 */
TEST_F_TIMEOUT(netq, ring_allreduce_served, 180)
{
	const uint64_t need = 2 * COUNT * 4;
	struct vneuron_netq_req rq;
	struct vneuron_netq_cpl cp, *slot;
	struct vneuron_netq_wait w;
	struct vneuron_comm_info in;
	struct pollfd pfd;
	uint64_t arr[2], rarr[2] = { 0, 123456 }, model[2];
	uint32_t reg, rank_h, stage, small, tail;
	float x1[COUNT], got[COUNT];
	struct rank0 *r = calloc(1, sizeof(*r));
	struct ring q;
	int run, i, bad;

	if (!(self->info.caps & VNEURON_CAP_NETQ_RING))
		SKIP(return, "the module has no network queue ring");
	ASSERT_NE(NULL, r);
	remote_input(x1);
	for (run = 0; run < 2; run++) {
		int rfd = vn_open();

		ASSERT_LE(0, rfd);
		ASSERT_EQ(0, netq_comm(self->fd, rfd, &reg, &rank_h));
		stage = vn_alloc(self->fd, need, NULL);
		small = vn_alloc(self->fd, 16, NULL);
		ASSERT_LT(0, (int)stage);
		ASSERT_LT(0, (int)small);
		memset(r, 0, sizeof(*r));
		if (run == 0) {
			ASSERT_EQ(0, rank0_submit(r, rfd, 30 * SEC));
			ASSERT_EQ(0, netq_wait(self->fd, reg, stage, need, 10 * SEC, arr, &w));
			ASSERT_NE(0, w.id);
			ASSERT_EQ(0, vn_rw(self->fd, 1, stage, COUNT * 4, x1, sizeof(x1)));
			ASSERT_EQ(0, netq_complete(self->fd, reg, w.id, stage, 0, rarr));
		} else {
			ASSERT_EQ(0, ring_open(&q, self->fd, reg, small, 16));
			pfd = (struct pollfd){ .fd = self->fd, .events = POLLIN };
			EXPECT_EQ(0, poll(&pfd, 1, 0));
			ASSERT_EQ(0, rank0_submit(r, rfd, 30 * SEC));
			/* the stage too small: told the size, nothing taken */
			ASSERT_EQ(0, ring_next(&q, 10000, &rq));
			EXPECT_EQ(0, rq.id);
			EXPECT_EQ(need, rq.stage_need);
			EXPECT_EQ(0, poll(&pfd, 1, 0));
			ASSERT_EQ(0, doorbell(self->fd, reg, VNEURON_NETQ_DOORBELL_STAGE, stage, 0,
					      need));
			/* poll() wakes for the request posted again */
			EXPECT_EQ(1, poll(&pfd, 1, 10000));
			EXPECT_TRUE(pfd.revents & POLLIN);
			ASSERT_EQ(0, ring_next(&q, 10000, &rq));
			ASSERT_NE(0, rq.id);
			EXPECT_EQ(0, rq.op);
			EXPECT_EQ(0, rq.reduce);
			EXPECT_EQ(VNEF_DT_FP32, rq.dtype);
			EXPECT_EQ(COUNT, rq.count);
			EXPECT_EQ(COUNT * 4, rq.rank_bytes);
			EXPECT_EQ(need, rq.stage_need);
			EXPECT_EQ(1, rq.local);
			EXPECT_EQ(2, rq.nranks);
			EXPECT_EQ(arr[0], rq.arrive_ps[0]);	/* as NETQ_WAIT gave it */
			EXPECT_EQ(0, rq.arrive_ps[1]);
			EXPECT_EQ(0, poll(&pfd, 1, 0));
			/* no new stage while a request is out */
			EXPECT_EQ(-EBUSY, doorbell(self->fd, reg, VNEURON_NETQ_DOORBELL_STAGE,
						   stage, 0, need));
			ASSERT_EQ(0, vn_rw(self->fd, 0, stage, 0, got, sizeof(got)));
			EXPECT_EQ(0, memcmp(got, r->in, sizeof(got)));
			ASSERT_EQ(0, vn_rw(self->fd, 1, stage, COUNT * 4, x1, sizeof(x1)));
			/* hostile completions: refused, left unconsumed */
			tail = q.ctl->cpl_tail;
			cp = (struct vneuron_netq_cpl){ .id = rq.id + 1 };
			memcpy(cp.arrive_ps, rarr, sizeof(rarr));
			EXPECT_EQ(-ENOENT, ring_complete(&q, &cp));
			EXPECT_EQ(tail, q.ctl->cpl_tail);
			slot = ring_cpl(&q, tail);
			slot->id = rq.id;
			slot->arrive_ps[1] = VNEURON_NETQ_MAX_PS + 1;
			EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, 0, 0, 0, 0));
			slot->arrive_ps[1] = 123456;
			slot->pad[2] = 1;
			EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, 0, 0, 0, 0));
			slot->pad[2] = 0;
			slot->failed_rank = 1;
			EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, 0, 0, 0, 0));
			slot->failed_rank = 0;
			slot->error = ENOMEM;
			EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, 0, 0, 0, 0));
			slot->error = EIO;
			slot->failed_rank = 7;
			EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, 0, 0, 0, 0));
			slot->error = 0;
			slot->failed_rank = 0;
			q.ctl->cpl_head = tail + 1000;		/* garbage head */
			EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, 0, 0, 0, 0));
			q.ctl->cpl_tail = 777;			/* the kernel's copy is its own */
			q.ctl->req_head = 999;
			__atomic_store_n(&q.ctl->cpl_head, tail + 1, __ATOMIC_RELEASE);
			ASSERT_EQ(0, doorbell(self->fd, reg, 0, 0, 0, 0));
			EXPECT_EQ(tail + 1, q.ctl->cpl_tail);
			/* consumed: ringing again does nothing */
			EXPECT_EQ(0, doorbell(self->fd, reg, 0, 0, 0, 0));
		}
		ASSERT_EQ(0, rank0_wait(r));
		EXPECT_EQ(VNEURON_EXEC_OK, r->w.status) TH_LOG("run %d reason %u", run, r->w.reason);
		for (i = 0, bad = 0; i < COUNT; i++)
			bad += r->out[i] != r->in[i] + x1[i];
		EXPECT_EQ(0, bad);
		model[run] = r->w.model_ps;
		ASSERT_EQ(0, comm_info(self->fd, reg, &in));
		EXPECT_EQ(0, in.broken);
		EXPECT_EQ(1, in.collectives);
		rank0_release(r);
		close(rfd);		/* its core is free for the next run's file */
		if (run == 1)
			munmap(q.map, q.s.mmap_len);
	}
	EXPECT_EQ(model[0], model[1]);
	EXPECT_LT(123456, model[0]);
	free(r);
}

/*
 * Hostile ring contents before a request: a garbage req_tail leaves no room to post,
 * the communicator breaks (EINVAL) and the rank ends ABORTED CC_PEER at once.
 */
TEST_F_TIMEOUT(netq, ring_garbage_tail_breaks, 120)
{
	struct vneuron_comm_info in;
	uint32_t reg, rank_h, stage;
	struct rank0 *r = calloc(1, sizeof(*r));
	struct ring q;
	uint64_t t0;

	if (!(self->info.caps & VNEURON_CAP_NETQ_RING))
		SKIP(return, "the module has no network queue ring");
	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, netq_comm(self->fd, self->fd, &reg, &rank_h));
	stage = vn_alloc(self->fd, 2 * COUNT * 4, NULL);
	ASSERT_EQ(0, ring_open(&q, self->fd, reg, stage, 2 * COUNT * 4));
	q.ctl->req_tail = 0x80000000u;
	t0 = vn_now_ns();
	ASSERT_EQ(0, rank0_submit(r, self->fd, 60 * SEC));
	ASSERT_EQ(0, rank0_wait(r));
	EXPECT_EQ(VNEURON_EXEC_ABORTED, r->w.status);
	EXPECT_EQ(VNEURON_REASON_CC_PEER, r->w.reason);
	EXPECT_GT(t0 + 30 * SEC, vn_now_ns());
	ASSERT_EQ(0, comm_info(self->fd, rank_h, &in));
	EXPECT_EQ(1, in.broken);
	EXPECT_EQ(EINVAL, in.failure);
	EXPECT_EQ(1, in.failed_rank);
	rank0_release(r);
	munmap(q.map, q.s.mmap_len);
	free(r);
}

/*
 * A request out through the ring, then the proxy unmaps its ring, or closes its file
 * and then unmaps (the mapping holds the file open until then): the rank ends ABORTED
 * CC_PEER at once, the remote rank named.
 */
TEST_F_TIMEOUT(netq, ring_unmap_close_breaks, 120)
{
	struct vneuron_netq_req rq;
	struct vneuron_comm_info in;
	uint32_t reg, rank_h, stage;
	struct rank0 *r = calloc(1, sizeof(*r));
	struct ring q;
	int how;

	if (!(self->info.caps & VNEURON_CAP_NETQ_RING))
		SKIP(return, "the module has no network queue ring");
	ASSERT_NE(NULL, r);
	for (how = 0; how < 2; how++) {
		int pfd = vn_open(), rfd = vn_open();
		uint64_t t0 = vn_now_ns();

		ASSERT_LE(0, pfd);
		ASSERT_LE(0, rfd);
		ASSERT_EQ(0, netq_comm(pfd, rfd, &reg, &rank_h));
		stage = vn_alloc(pfd, 2 * COUNT * 4, NULL);
		ASSERT_EQ(0, ring_open(&q, pfd, reg, stage, 2 * COUNT * 4));
		memset(r, 0, sizeof(*r));
		ASSERT_EQ(0, rank0_submit(r, rfd, 60 * SEC));
		ASSERT_EQ(0, ring_next(&q, 10000, &rq));
		ASSERT_NE(0, rq.id);
		if (how == 0) {
			munmap(q.map, q.s.mmap_len);
		} else {
			close(pfd);
			pfd = -1;
			/* the pages stay the proxy's; the kernel does not look at them unrung */
			q.ctl->cpl_head = 5;
			munmap(q.map, q.s.mmap_len);
		}
		ASSERT_EQ(0, rank0_wait(r));
		EXPECT_EQ(VNEURON_EXEC_ABORTED, r->w.status);
		EXPECT_EQ(VNEURON_REASON_CC_PEER, r->w.reason);
		EXPECT_GT(t0 + 30 * SEC, vn_now_ns());
		ASSERT_EQ(0, comm_info(rfd, rank_h, &in));
		EXPECT_EQ(1, in.broken);
		EXPECT_EQ(1, in.failed_rank);
		EXPECT_EQ(EPIPE, in.failure);
		rank0_release(r);
		if (pfd >= 0)
			close(pfd);
		close(rfd);
	}
	free(r);
}

/* ---- partial completions: 2 local ranks and 4 remote, nodes A (2, 3) and B (4, 5) ---- */

#define P_RANKS		6
#define P_NODE_A	0x0cull
#define P_NODE_B	0x30ull

static const uint64_t p_arr[P_RANKS] = { 0, 0, 111111, 222222, 333333, 444444 };

/* Remote rank k's input, as its node would send it. */
static void p_input(float *x, unsigned int k)
{
	int i;

	for (i = 0; i < COUNT; i++)
		x[i] = (float)((7919 * k + i * 104729) % 1000) * 0.001f + 2e-7f * (float)k;
}

/*
 * Ranks 0 and 1 on cores 0 and 1 of rfd, the others on nodes 1 and 2, served by a ring
 * of pfd's registration *reg over a stage of every rank's input; both local ranks
 * submitted with time limit limit_ns, the request read into *rq.
 */
static int p_setup(int pfd, int rfd, uint64_t limit_ns, struct rank0 *r, struct ring *q,
		   uint32_t *reg, uint32_t *rank_h, uint32_t *stage,
		   struct vneuron_netq_req *rq)
{
	const uint32_t nodes[P_RANKS] = { 0, 0, 1, 1, 2, 2 }, devs[P_RANKS] = { 0 };
	uint8_t id[ID_BYTES];
	int ret, i;

	ret = comm_create(pfd, P_RANKS, id, reg);
	if (!ret)
		ret = comm_nodes(pfd, *reg, 0, nodes, devs, P_RANKS);
	if (!ret)
		ret = comm_join(rfd, id, 0, 0, rank_h);
	if (!ret)
		ret = comm_join(rfd, id, 1, 1, NULL);
	if (ret)
		return ret;
	ret = vn_alloc(pfd, P_RANKS * COUNT * 4, NULL);
	if (ret < 0)
		return ret;
	*stage = ret;
	ret = ring_open(q, pfd, *reg, *stage, P_RANKS * COUNT * 4);
	for (i = 0; i < 2 && !ret; i++)
		ret = rank_submit(&r[i], rfd, i, limit_ns, 0, 0);
	if (!ret)
		ret = ring_next(q, 10000, rq);
	return ret;
}

/* The remote ranks in mask: their inputs written into the stage. */
static int p_write(int pfd, uint32_t stage, uint64_t mask)
{
	float x[COUNT];
	unsigned int k;
	int ret = 0;

	for (k = 0; k < P_RANKS && !ret; k++) {
		if (!(mask & (1ull << k)))
			continue;
		p_input(x, k);
		ret = vn_rw(pfd, 1, stage, (uint64_t)k * COUNT * 4, x, sizeof(x));
	}
	return ret;
}

/*
 * Node A's ranks posted by a partial completion, node B never: at their time limit both
 * local ranks end TIMEOUT CC_MISSING naming exactly node B's ranks (a whole completion
 * only would leave all four missing); a late final completion finds it broken.
 */
TEST_F_TIMEOUT(netq, ring_partial_names_missing, 120)
{
	struct vneuron_netq_cpl cp = { 0 };
	struct vneuron_netq_req rq;
	struct vneuron_comm_info in;
	uint32_t reg, rank_h, stage, tail;
	struct rank0 *r = calloc(2, sizeof(*r));
	struct ring q;
	int rfd = vn_open(), i;

	if (!(self->info.caps & VNEURON_CAP_NETQ_RING))
		SKIP(return, "the module has no network queue ring");
	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_NE(NULL, r);
	ASSERT_LE(0, rfd);
	ASSERT_EQ(0, p_setup(self->fd, rfd, 5 * SEC, r, &q, &reg, &rank_h, &stage, &rq));
	ASSERT_NE(0, rq.id);
	EXPECT_EQ(3, rq.local);
	EXPECT_EQ(P_RANKS, rq.nranks);
	ASSERT_EQ(0, p_write(self->fd, stage, P_NODE_A));
	tail = q.ctl->cpl_tail;
	cp.id = rq.id;
	cp.ranks = P_NODE_A;
	memcpy(cp.arrive_ps, p_arr, sizeof(p_arr));
	ASSERT_EQ(0, ring_complete(&q, &cp));
	EXPECT_EQ(tail + 1, q.ctl->cpl_tail);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rank0_wait(&r[i]));
		EXPECT_EQ(VNEURON_EXEC_TIMEOUT, r[i].w.status);
		EXPECT_EQ(VNEURON_REASON_CC_MISSING, r[i].w.reason);
		rank0_release(&r[i]);
	}
	ASSERT_EQ(0, comm_info(rfd, rank_h, &in));
	EXPECT_EQ(1, in.broken);
	EXPECT_EQ(ETIMEDOUT, in.failure);
	EXPECT_EQ(P_NODE_B, in.missing);
	/* node B's inputs too late: broken, the completion consumed */
	cp.ranks = 0;
	EXPECT_EQ(-EPIPE, ring_complete(&q, &cp));
	EXPECT_EQ(tail + 2, q.ctl->cpl_tail);
	munmap(q.map, q.s.mmap_len);
	close(rfd);
	free(r);
}

/*
 * The same all-reduce completed whole, then node by node: every bad partial refused
 * and left unconsumed (a local rank, a rank past nranks, an arrival too late, ranks
 * with an error, a rank posted twice); node A's partial, then the final completion
 * posting node B's: exact against the rank-order sum, the same modeled time as whole.
 */
TEST_F_TIMEOUT(netq, ring_partial_served, 180)
{
	struct vneuron_netq_cpl cp, *slot;
	struct vneuron_netq_req rq;
	struct vneuron_comm_info in;
	uint32_t reg, rank_h, stage, tail;
	struct rank0 *r = calloc(2, sizeof(*r));
	float x[P_RANKS][COUNT], want;
	uint64_t model[2];
	struct ring q;
	int run, i, k, bad;

	if (!(self->info.caps & VNEURON_CAP_NETQ_RING))
		SKIP(return, "the module has no network queue ring");
	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_NE(NULL, r);
	for (k = 2; k < P_RANKS; k++)
		p_input(x[k], k);
	for (run = 0; run < 2; run++) {
		int rfd = vn_open();

		ASSERT_LE(0, rfd);
		memset(r, 0, 2 * sizeof(*r));
		ASSERT_EQ(0, p_setup(self->fd, rfd, 30 * SEC, r, &q, &reg, &rank_h, &stage,
				     &rq));
		ASSERT_NE(0, rq.id);
		cp = (struct vneuron_netq_cpl){ .id = rq.id };
		memcpy(cp.arrive_ps, p_arr, sizeof(p_arr));
		tail = q.ctl->cpl_tail;
		if (run == 0) {
			ASSERT_EQ(0, p_write(self->fd, stage, P_NODE_A | P_NODE_B));
			ASSERT_EQ(0, ring_complete(&q, &cp));
		} else {
			ASSERT_EQ(0, p_write(self->fd, stage, P_NODE_A));
			cp.ranks = 0x1;			/* a local rank */
			EXPECT_EQ(-EINVAL, ring_complete(&q, &cp));
			EXPECT_EQ(tail, q.ctl->cpl_tail);
			slot = ring_cpl(&q, tail);
			slot->ranks = P_NODE_A | 1ull << P_RANKS;	/* past nranks */
			EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, 0, 0, 0, 0));
			slot->ranks = 1ull << 63;
			EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, 0, 0, 0, 0));
			slot->ranks = P_NODE_A;
			slot->arrive_ps[3] = VNEURON_NETQ_MAX_PS + 1;
			EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, 0, 0, 0, 0));
			slot->arrive_ps[3] = p_arr[3];
			slot->error = EIO;
			EXPECT_EQ(-EINVAL, doorbell(self->fd, reg, 0, 0, 0, 0));
			slot->error = 0;
			EXPECT_EQ(tail, q.ctl->cpl_tail);
			/* an arrival past the limit outside the mask is not looked at */
			slot->arrive_ps[5] = ~0ull;
			ASSERT_EQ(0, doorbell(self->fd, reg, 0, 0, 0, 0));
			EXPECT_EQ(tail + 1, q.ctl->cpl_tail);
			ASSERT_EQ(0, comm_info(self->fd, reg, &in));
			EXPECT_EQ(0, in.broken);
			EXPECT_EQ(0, in.collectives);
			/* node B's inputs come later; a rank of node A again is refused */
			ASSERT_EQ(0, p_write(self->fd, stage, P_NODE_B));
			cp.ranks = 0x4 | P_NODE_B;
			EXPECT_EQ(-EINVAL, ring_complete(&q, &cp));
			EXPECT_EQ(tail + 1, q.ctl->cpl_tail);
			ring_cpl(&q, tail + 1)->ranks = 0;	/* the rest: node B's */
			ASSERT_EQ(0, doorbell(self->fd, reg, 0, 0, 0, 0));
			EXPECT_EQ(tail + 2, q.ctl->cpl_tail);
			/* completed: a further partial is of no request */
			cp.ranks = P_NODE_B;
			EXPECT_EQ(-ENOENT, ring_complete(&q, &cp));
		}
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, rank0_wait(&r[i]));
			EXPECT_EQ(VNEURON_EXEC_OK, r[i].w.status)
				TH_LOG("run %d rank %d reason %u", run, i, r[i].w.reason);
		}
		for (i = 0, bad = 0; i < COUNT; i++) {
			want = r[0].in[i] + r[1].in[i];
			for (k = 2; k < P_RANKS; k++)
				want += x[k][i];
			bad += r[0].out[i] != want || r[1].out[i] != want;
		}
		EXPECT_EQ(0, bad);
		model[run] = r[0].w.model_ps;
		ASSERT_EQ(0, comm_info(self->fd, reg, &in));
		EXPECT_EQ(0, in.broken);
		EXPECT_EQ(1, in.collectives);
		for (i = 0; i < 2; i++)
			rank0_release(&r[i]);
		close(rfd);
		munmap(q.map, q.s.mmap_len);
	}
	EXPECT_EQ(model[0], model[1]);
	EXPECT_LT(p_arr[5], model[0]);
	free(r);
}

/*
 * Ranks posted by a partial completion point into the stage: the registration destroyed
 * (its ring still mapped) breaks the communicator at once, before the stage goes (the
 * ranks end ABORTED CC_PEER), and the stage freed then is no longer read.
 */
TEST_F_TIMEOUT(netq, ring_partial_destroy_breaks, 120)
{
	struct vneuron_netq_cpl cp = { 0 };
	struct vneuron_comm_destroy d = { 0 };
	struct vneuron_netq_req rq;
	struct vneuron_comm_info in;
	uint32_t reg, rank_h, stage;
	struct rank0 *r = calloc(2, sizeof(*r));
	struct ring q;
	int pfd = vn_open(), rfd = vn_open(), i;

	if (!(self->info.caps & VNEURON_CAP_NETQ_RING))
		SKIP(return, "the module has no network queue ring");
	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_NE(NULL, r);
	ASSERT_LE(0, pfd);
	ASSERT_LE(0, rfd);
	ASSERT_EQ(0, p_setup(pfd, rfd, 60 * SEC, r, &q, &reg, &rank_h, &stage, &rq));
	ASSERT_EQ(0, p_write(pfd, stage, P_NODE_A));
	cp.id = rq.id;
	cp.ranks = P_NODE_A;
	memcpy(cp.arrive_ps, p_arr, sizeof(p_arr));
	ASSERT_EQ(0, ring_complete(&q, &cp));
	d.handle = reg;
	ASSERT_EQ(0, vn_ioctl(pfd, VNEURON_IOCTL_COMM_DESTROY, &d));
	EXPECT_EQ(0, vn_free(pfd, stage));
	cp.ranks = 0;
	EXPECT_EQ(-ENOENT, ring_complete(&q, &cp));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rank0_wait(&r[i]));
		EXPECT_EQ(VNEURON_EXEC_ABORTED, r[i].w.status);
		EXPECT_EQ(VNEURON_REASON_CC_PEER, r[i].w.reason);
		rank0_release(&r[i]);
	}
	ASSERT_EQ(0, comm_info(rfd, rank_h, &in));
	EXPECT_EQ(1, in.broken);
	EXPECT_EQ(EPIPE, in.failure);
	munmap(q.map, q.s.mmap_len);
	close(pfd);
	close(rfd);
	free(r);
}

TEST_HARNESS_MAIN
