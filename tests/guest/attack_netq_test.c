// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The attacker's questions of issue 25 (attack_test.c), 2 and 3: the network queue's
 * ring: a completion naming a stage past its buffer, an unmap racing doorbells, a close
 * with ranks posted partially, two proxies on one ring; a file closed while its network
 * queue's work item runs, or while the proxy holds its rank at a collective.
 */
#include "attack_util.h"

/* ---- 2, 3. the network queue ---- */

static const uint32_t two_nodes[2] = { 0, 1 }, three_nodes[3] = { 0, 1, 2 };
static const uint32_t zero_devs[3];

/* A rank's all-reduce of COUNT fp32 on core 0 of fd: its exec id. */
struct lrank {
	int fd;
	uint32_t prog, h[2];
	uint64_t exec;
	struct vneuron_wait w;
};

static int lrank_submit(struct lrank *l, int fd, uint64_t limit_ns)
{
	const struct cc_spec s = AR(COUNT);
	float in[COUNT];
	size_t size;
	void *img;
	int ret, i;

	l->fd = fd;
	for (i = 0; i < COUNT; i++)
		in[i] = 1.0f + (float)(i % 13);
	if (cc_spec_image(&s, &img, &size))
		return -EINVAL;
	ret = vn_prog_load(fd, img, size, &l->prog, NULL);
	free(img);
	if (ret)
		return ret;
	ret = vn_alloc(fd, sizeof(in), NULL);
	if (ret < 0)
		return ret;
	l->h[0] = ret;
	ret = vn_alloc(fd, sizeof(in), NULL);
	if (ret < 0)
		return ret;
	l->h[1] = ret;
	ret = vn_rw(fd, 1, l->h[0], 0, in, sizeof(in));
	return ret ? ret : vn_exec_on(fd, l->prog, 0, l->h, 2, limit_ns, &l->exec);
}

static int lrank_wait(struct lrank *l)
{
	return vn_wait_for(l->fd, l->exec, vn_now_ns() + 120 * SEC, &l->w);
}

/* A registration of pfd with nranks (rank 0 local, joined on core 0 of rfd). */
static int netq_setup(int pfd, int rfd, uint32_t nranks, uint32_t *reg)
{
	uint8_t id[ID_BYTES];
	int ret = comm_create(pfd, nranks, id, reg);

	if (!ret)
		ret = comm_nodes(pfd, *reg, 0, nranks == 2 ? two_nodes : three_nodes, zero_devs,
				 nranks);
	return ret ? ret : comm_join(rfd, id, 0, 0, NULL);
}

struct ring {
	int fd;
	uint32_t reg;
	struct vneuron_netq_ring_setup s;
	uint8_t *map;
	struct vneuron_netq_ctrl *ctl;
};

static int ring_open(struct ring *q, int fd, uint32_t reg, uint32_t stage, uint64_t size)
{
	void *m;
	int ret;

	q->fd = fd;
	q->reg = reg;
	q->s = (struct vneuron_netq_ring_setup){
		.handle = reg, .entries = 4, .stage = stage, .stage_size = size,
	};
	ret = vn_ioctl(fd, VNEURON_IOCTL_NETQ_RING_SETUP, &q->s);
	if (ret)
		return ret;
	m = mmap(NULL, q->s.mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, q->s.mmap_offset);
	if (m == MAP_FAILED)
		return -errno;
	q->map = m;
	q->ctl = m;
	return 0;
}

static int doorbell(int fd, uint32_t reg)
{
	struct vneuron_netq_doorbell d = { .handle = reg };

	return vn_ioctl(fd, VNEURON_IOCTL_NETQ_DOORBELL, &d);
}

/*
 * A registration of pfd whose rank 0 is core 0 of rfd and rank 1 remote, a stage for
 * both ranks' inputs and a ring of 4 entries over it, mapped: 0 or the first -errno.
 */
static int ring_rig(int pfd, int rfd, uint32_t *reg, int *stage, struct ring *q)
{
	int ret = netq_setup(pfd, rfd, 2, reg);

	if (ret)
		return ret;
	*stage = vn_alloc(pfd, 2 * COUNT * 4, NULL);
	if (*stage < 0)
		return *stage;
	return ring_open(q, pfd, *reg, *stage, 2 * COUNT * 4);
}

/* The next request of the ring (poll()ed for up to ms), consumed; -ETIMEDOUT. */
static int ring_next(struct ring *q, int ms, struct vneuron_netq_req *out)
{
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
	uint64_t end = vn_now_ns() + (uint64_t)ms * MS;
	uint32_t tail = q->ctl->req_tail, head;

	do {
		head = __atomic_load_n(&q->ctl->req_head, __ATOMIC_ACQUIRE);
		if (head != tail)
			break;
		poll(&pfd, 1, 100);
	} while (vn_now_ns() < end);
	if (head == tail)
		return -ETIMEDOUT;
	memcpy(out, (struct vneuron_netq_req *)(q->map + q->s.req_offset) +
	       (tail & (q->s.entries - 1)), sizeof(*out));
	__atomic_store_n(&q->ctl->req_tail, tail + 1, __ATOMIC_RELEASE);
	return 0;
}

/* c into the completion ring at the proxy's cpl_head, published. */
static void ring_put(struct ring *q, const struct vneuron_netq_cpl *c)
{
	uint32_t head = __atomic_load_n(&q->ctl->cpl_head, __ATOMIC_ACQUIRE);

	memcpy((struct vneuron_netq_cpl *)(q->map + q->s.cpl_offset) +
	       (head & (q->s.entries - 1)), c, sizeof(*c));
	__atomic_store_n(&q->ctl->cpl_head, head + 1, __ATOMIC_RELEASE);
}

static void remote_in(float *x, unsigned int rank)
{
	int i;

	for (i = 0; i < COUNT; i++)
		x[i] = (float)(10 * rank) + (float)(i % 13);
}

/*
 * Question 2: a completion naming a stage offset past its stage, or a stage range that
 * overflows: -EINVAL, the request stays and completes right after; the ring's stage
 * (setup, a new stage at the doorbell) checked the same way.
 */
TEST_F_TIMEOUT(atk, netq_stage_past_the_stage, 300)
{
	int pfd = vn_open(), rfd = vn_open(), stage;
	uint64_t arr[2] = { 0, 1000 }, sz = 2 * COUNT * 4;
	struct vneuron_netq_complete c;
	struct vneuron_netq_wait w;
	struct vneuron_netq_ring_setup rs;
	struct vneuron_netq_doorbell d;
	struct lrank l = { 0 };
	float x[COUNT];
	uint32_t reg, reg2;

	ASSERT_LE(0, pfd);
	ASSERT_LE(0, rfd);
	ASSERT_EQ(0, netq_setup(pfd, rfd, 2, &reg));
	stage = vn_alloc(pfd, sz, NULL);
	ASSERT_LT(0, stage);
	ASSERT_EQ(0, lrank_submit(&l, rfd, 60 * SEC));
	w = (struct vneuron_netq_wait){ .handle = reg, .timeout_ns = vn_now_ns() + 30 * SEC,
					.stage = stage, .stage_size = sz,
					.arrivals = (uintptr_t)arr };
	ASSERT_EQ(0, vn_ioctl(pfd, VNEURON_IOCTL_NETQ_WAIT, &w));
	ASSERT_NE(0, w.id);
	remote_in(x, 1);
	ASSERT_EQ(0, vn_rw(pfd, 1, stage, COUNT * 4, x, sizeof(x)));
	arr[0] = 0;
	arr[1] = 1000;
	c = (struct vneuron_netq_complete){ .handle = reg, .id = w.id, .stage = stage,
					    .arrivals = (uintptr_t)arr };
	c.stage_offset = sz;
	EXPECT_EQ(-EINVAL, vn_ioctl(pfd, VNEURON_IOCTL_NETQ_COMPLETE, &c));
	c.stage_offset = 4;
	EXPECT_EQ(-EINVAL, vn_ioctl(pfd, VNEURON_IOCTL_NETQ_COMPLETE, &c));
	c.stage_offset = ~0ull - 8;
	EXPECT_EQ(-EINVAL, vn_ioctl(pfd, VNEURON_IOCTL_NETQ_COMPLETE, &c));
	c.stage_offset = 0;
	EXPECT_EQ(0, vn_ioctl(pfd, VNEURON_IOCTL_NETQ_COMPLETE, &c)) TH_LOG("the request went");
	ASSERT_EQ(0, lrank_wait(&l));
	EXPECT_EQ(VNEURON_EXEC_OK, l.w.status);
	ASSERT_EQ(0, vn_rw(rfd, 0, l.h[1], 0, x, sizeof(x)));
	EXPECT_EQ(1.0f + 10.0f, x[0]);

	/* The ring's stage. */
	ASSERT_EQ(0, comm_create(pfd, 2, NULL, &reg2));
	ASSERT_EQ(0, comm_nodes(pfd, reg2, 0, two_nodes, zero_devs, 2));
	rs = (struct vneuron_netq_ring_setup){ .handle = reg2, .entries = 2, .stage = stage,
					       .stage_offset = sz, .stage_size = 1 };
	EXPECT_EQ(-EINVAL, vn_ioctl(pfd, VNEURON_IOCTL_NETQ_RING_SETUP, &rs));
	rs.stage_offset = ~0ull;
	rs.stage_size = 2;
	EXPECT_EQ(-EINVAL, vn_ioctl(pfd, VNEURON_IOCTL_NETQ_RING_SETUP, &rs));
	rs.stage_offset = 0;
	rs.stage_size = sz;
	ASSERT_EQ(0, vn_ioctl(pfd, VNEURON_IOCTL_NETQ_RING_SETUP, &rs));
	d = (struct vneuron_netq_doorbell){ .handle = reg2, .flags = VNEURON_NETQ_DOORBELL_STAGE,
					    .stage = stage, .stage_offset = 8, .stage_size = sz };
	EXPECT_EQ(-EINVAL, vn_ioctl(pfd, VNEURON_IOCTL_NETQ_DOORBELL, &d));
	d.stage_offset = ~0ull - 1;
	d.stage_size = 4;
	EXPECT_EQ(-EINVAL, vn_ioctl(pfd, VNEURON_IOCTL_NETQ_DOORBELL, &d));
	close(rfd);
	close(pfd);
	EXPECT_TRUE(drained());
}

struct bell_arg {
	int fd;
	uint32_t reg;
	volatile int stop;
	volatile int closed;		/* the file is closed: EBADF is the VFS's answer */
	int bad;			/* an errno the doorbell may not give */
	int rang;
};

static void *bell_thread(void *p)
{
	struct bell_arg *b = p;
	int ret;

	while (!b->stop) {
		ret = doorbell(b->fd, b->reg);
		b->rang++;
		if (ret && ret != -EINVAL && ret != -ENOENT && ret != -EPIPE && ret != -EINTR &&
		    !(ret == -EBADF && b->closed))
			b->bad = ret;
	}
	return NULL;
}

/*
 * Question 2: the ring unmapped, then the file closed, while another thread rings
 * doorbells over garbage completions: the doorbells fail cleanly, the communicator
 * breaks, the local rank ends (not OK), nothing is left.
 */
TEST_F_TIMEOUT(atk, netq_unmap_during_doorbells, 300)
{
	int pfd = vn_open(), rfd = vn_open(), stage;
	struct vneuron_netq_cpl junk;
	struct vneuron_netq_req rq;
	struct bell_arg b = { 0 };
	struct lrank l = { 0 };
	struct ring q;
	pthread_t t;
	int i;

	ASSERT_LE(0, pfd);
	ASSERT_LE(0, rfd);
	ASSERT_EQ(0, ring_rig(pfd, rfd, &b.reg, &stage, &q));
	ASSERT_EQ(0, lrank_submit(&l, rfd, 60 * SEC));
	ASSERT_EQ(0, ring_next(&q, 30000, &rq));
	b.fd = pfd;
	ASSERT_EQ(0, pthread_create(&t, NULL, bell_thread, &b));
	memset(&junk, 0xff, sizeof(junk));
	for (i = 0; i < 50; i++)
		ring_put(&q, &junk);
	usleep(20000);
	munmap(q.map, q.s.mmap_len);
	usleep(20000);
	b.closed = 1;
	close(pfd);
	b.stop = 1;
	pthread_join(t, NULL);
	EXPECT_EQ(0, b.bad) TH_LOG("a doorbell gave %s", strerror(-b.bad));
	EXPECT_LT(0, b.rang);
	ASSERT_EQ(0, lrank_wait(&l));
	EXPECT_NE(VNEURON_EXEC_OK, l.w.status);
	close(rfd);
	EXPECT_TRUE(drained());
}

/*
 * Question 2: the proxy exits (its file closed, its ring unmapped) with one remote rank
 * posted by a partial completion, whose input the core reads only when the collective
 * completes: the communicator breaks first, the local rank ends ABORTED, and nothing
 * reads the freed stage (KASAN on the debug kernel).
 */
TEST_F_TIMEOUT(atk, netq_close_with_partial, 300)
{
	int rfd = vn_open(), ready[2];
	struct lrank l = { 0 };
	uint8_t id_ok;
	pid_t proxy;

	ASSERT_LE(0, rfd);
	ASSERT_EQ(0, pipe(ready));
	proxy = fork();
	ASSERT_LE(0, proxy);
	if (!proxy) {
		struct vneuron_netq_cpl c = { 0 };
		struct vneuron_netq_req rq;
		int pfd = vn_open(), stage;
		float x[COUNT];
		uint32_t reg;
		struct ring q;

		if (pfd < 0 || netq_setup(pfd, rfd, 3, &reg))
			_exit(1);
		stage = vn_alloc(pfd, 3 * COUNT * 4, NULL);
		if (stage <= 0 || ring_open(&q, pfd, reg, stage, 3 * COUNT * 4))
			_exit(2);
		id_ok = 1;
		if (write(ready[1], &id_ok, 1) != 1)
			_exit(3);
		if (ring_next(&q, 30000, &rq) || !rq.id)
			_exit(4);
		remote_in(x, 1);
		if (vn_rw(pfd, 1, stage, COUNT * 4, x, sizeof(x)))
			_exit(5);
		c.id = rq.id;
		c.ranks = 1u << 1;
		c.arrive_ps[1] = 1000;
		ring_put(&q, &c);
		if (doorbell(pfd, reg))
			_exit(6);
		_exit(0);	/* rank 2 never comes: the proxy is gone */
	}
	ASSERT_EQ(1, read(ready[0], &id_ok, 1));
	ASSERT_EQ(0, lrank_submit(&l, rfd, 60 * SEC));
	EXPECT_EQ(0, wait_exit(proxy));
	ASSERT_EQ(0, lrank_wait(&l));
	EXPECT_EQ(VNEURON_EXEC_ABORTED, l.w.status) TH_LOG("status %u reason %u", l.w.status,
							   l.w.reason);
	EXPECT_EQ(VNEURON_REASON_CC_PEER, l.w.reason);
	close(rfd);
	EXPECT_TRUE(drained());
}

/*
 * Question 2: two proxies on one ring (a second process sharing the file maps it too),
 * both completing the one request and ringing at once: it completes once, exactly; the
 * other completion names no pending request (-ENOENT, left unconsumed) or finds the
 * queue done; a second ring on the registration is -EBUSY.
 */
TEST_F_TIMEOUT(atk, netq_two_proxies, 300)
{
	int pfd = vn_open(), rfd = vn_open(), stage, go[2], i;
	struct vneuron_netq_ring_setup again;
	struct vneuron_netq_req rq;
	struct lrank l = { 0 };
	float x[COUNT];
	struct ring q;
	uint32_t reg;
	pid_t other;
	int *res = shared(sizeof(int) * 2);
	char c;

	ASSERT_NE(NULL, res);
	ASSERT_LE(0, pfd);
	ASSERT_LE(0, rfd);
	ASSERT_EQ(0, ring_rig(pfd, rfd, &reg, &stage, &q));
	again = (struct vneuron_netq_ring_setup){ .handle = reg, .entries = 2, .stage = stage,
						  .stage_size = 16 };
	EXPECT_EQ(-EBUSY, vn_ioctl(pfd, VNEURON_IOCTL_NETQ_RING_SETUP, &again));
	remote_in(x, 1);
	ASSERT_EQ(0, vn_rw(pfd, 1, stage, COUNT * 4, x, sizeof(x)));
	ASSERT_EQ(0, lrank_submit(&l, rfd, 60 * SEC));
	ASSERT_EQ(0, ring_next(&q, 30000, &rq));
	ASSERT_EQ(0, pipe(go));
	other = fork();
	ASSERT_LE(0, other);
	if (!other) {
		struct vneuron_netq_cpl cp = { .id = rq.id };
		struct ring q2 = q;
		void *m = mmap(NULL, q.s.mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, pfd,
			       q.s.mmap_offset);

		if (m == MAP_FAILED)
			_exit(1);
		q2.map = m;
		q2.ctl = m;
		cp.arrive_ps[1] = 1000;
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		ring_put(&q2, &cp);
		res[1] = doorbell(pfd, reg);
		_exit(0);
	}
	{
		struct vneuron_netq_cpl cp = { .id = rq.id };

		cp.arrive_ps[1] = 1000;
		ASSERT_EQ(1, write(go[1], "g", 1));
		ring_put(&q, &cp);
		res[0] = doorbell(pfd, reg);
	}
	EXPECT_EQ(0, wait_exit(other));
	for (i = 0; i < 2; i++)
		EXPECT_TRUE(res[i] == 0 || res[i] == -ENOENT) TH_LOG("proxy %d: %d", i, res[i]);
	ASSERT_EQ(0, lrank_wait(&l));
	EXPECT_EQ(VNEURON_EXEC_OK, l.w.status) TH_LOG("reason %u", l.w.reason);
	ASSERT_EQ(0, vn_rw(rfd, 0, l.h[1], 0, x, sizeof(x)));
	for (i = 0; i < COUNT; i++)
		if (x[i] != 1.0f + 10.0f + 2.0f * (float)(i % 13))
			break;
	EXPECT_EQ(COUNT, i) TH_LOG("element %d: %g", i, x[i]);
	munmap(q.map, q.s.mmap_len);
	close(pfd);
	close(rfd);
	EXPECT_TRUE(drained());
}

/*
 * Question 3: the proxy's registration destroyed, or its file closed, while the local
 * rank's arrival has queued the ring's work item: the work finds the ring gone, the rank
 * ends, nothing is left (repeated, to race the two).
 */
TEST_F_TIMEOUT(atk, netq_gone_under_work_item, 600)
{
	int round, rounds = getenv("VN_GUEST_SLOW") ? 6 : 12;

	for (round = 0; round < rounds; round++) {
		int pfd = vn_open(), rfd = vn_open(), stage;
		struct vneuron_comm_destroy d = { 0 };
		struct lrank l = { 0 };
		struct ring q;

		ASSERT_LE(0, pfd);
		ASSERT_LE(0, rfd);
		ASSERT_EQ(0, ring_rig(pfd, rfd, &d.handle, &stage, &q));
		ASSERT_EQ(0, lrank_submit(&l, rfd, 30 * SEC));
		usleep(round * 3000);
		if (round & 1)
			EXPECT_EQ(0, vn_ioctl(pfd, VNEURON_IOCTL_COMM_DESTROY, &d));
		munmap(q.map, q.s.mmap_len);
		close(pfd);
		ASSERT_EQ(0, lrank_wait(&l));
		EXPECT_NE(VNEURON_EXEC_OK, l.w.status);
		close(rfd);
	}
	EXPECT_TRUE(drained());
}

/*
 * Question 3: the rank's file closed (its process exits) while the proxy holds the rank
 * at its collective (NETQ_WAIT handed out the request): the rank's execution is
 * cancelled, the communicator breaks, the proxy's NETQ_COMPLETE is -EPIPE and moves
 * nothing into the rank's freed buffers.
 */
TEST_F_TIMEOUT(atk, netq_rank_closed_while_held, 300)
{
	int pfd = vn_open(), stage, tell[2], done[2];
	uint64_t arr[2] = { 0, 0 };
	struct vneuron_netq_complete c;
	struct vneuron_netq_wait w;
	struct vneuron_comm_info ci = { 0 };
	uint8_t *id = shared(ID_BYTES);
	uint32_t reg;
	pid_t rank;
	char ch;

	ASSERT_LE(0, pfd);
	ASSERT_NE(NULL, id);
	ASSERT_EQ(0, comm_create(pfd, 2, id, &reg));
	ASSERT_EQ(0, comm_nodes(pfd, reg, 0, two_nodes, zero_devs, 2));
	stage = vn_alloc(pfd, 2 * COUNT * 4, NULL);
	ASSERT_LT(0, stage);
	ASSERT_EQ(0, pipe(tell));
	ASSERT_EQ(0, pipe(done));
	rank = fork();
	ASSERT_LE(0, rank);
	if (!rank) {
		struct lrank l = { 0 };
		int rfd = vn_open();

		if (rfd < 0 || comm_join(rfd, id, 0, 0, NULL) || lrank_submit(&l, rfd, 60 * SEC))
			_exit(1);
		if (read(tell[0], &ch, 1) != 1)
			_exit(2);
		_exit(0);	/* close with the collective held */
	}
	w = (struct vneuron_netq_wait){ .handle = reg, .timeout_ns = vn_now_ns() + 30 * SEC,
					.stage = stage, .stage_size = 2 * COUNT * 4,
					.arrivals = (uintptr_t)arr };
	ASSERT_EQ(0, vn_ioctl(pfd, VNEURON_IOCTL_NETQ_WAIT, &w));
	ASSERT_NE(0, w.id);
	ASSERT_EQ(1, write(tell[1], "x", 1));
	EXPECT_EQ(0, wait_exit(rank));
	arr[1] = 1000;
	c = (struct vneuron_netq_complete){ .handle = reg, .id = w.id, .stage = stage,
					    .arrivals = (uintptr_t)arr };
	EXPECT_EQ(-EPIPE, vn_ioctl(pfd, VNEURON_IOCTL_NETQ_COMPLETE, &c));
	ci.handle = reg;
	ASSERT_EQ(0, vn_ioctl(pfd, VNEURON_IOCTL_COMM_INFO, &ci));
	EXPECT_EQ(1, ci.broken);
	close(pfd);
	EXPECT_TRUE(drained());
}

TEST_HARNESS_MAIN
