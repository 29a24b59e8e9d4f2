// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The attacker's questions of issue 25, each made as an attack in the guest, with the
 * refusal or the fault it must get (docs/uapi.md, "Security model", "The attacker's
 * questions"); on the debug kernel KASAN, lockdep and kmemleak watch every one.
 *
 *  1. collectives: a rank (another user, trusted with the id) whose collective disagrees
 *     with its peer's in count, opcode, dtype, reduction, shift or group geometry, or
 *     whose group outgrows its own tensors, or that works in place, on one device or
 *     two: the peer's buffers outside its tensors, and its output, stay untouched;
 *  2. the network queue's ring: a completion naming a stage past its buffer, an unmap
 *     racing doorbells, a close with ranks posted partially, two proxies on one ring;
 *  3. a file closed while its network queue's work item runs, or while the proxy holds
 *     its rank at a collective;
 *  4. pooled executions reused by another user (per core) or another process (per file):
 *     nothing of the previous one's left;
 *  5. telemetry: a cancelled execution of a released owner, a socket opened by root and
 *     handed to nobody, uninitialised bytes in any reply;
 *  6. a communicator's id: in no reply, event, file of /proc, sysfs or debugfs, or the
 *     kernel log, and no id one bit off is accepted.
 *
 * One file, over 1,000 lines: the questions of one audit, each attack beside the helpers
 * it shares with the others.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <dirent.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "comm_util.h"
#include "party.h"
#include "vneuron_genl.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define UID_A		4201		/* the attacker */
#define UID_B		4202		/* its victim */
#define NOBODY		65534
#define SEC		1000000000ull
#define MS		1000000ull
#define ID_BYTES	VNEURON_COMM_ID_BYTES
#define COUNT		1024		/* elements of the collectives */
#define CANARY		(64 << 10)	/* bytes of a buffer no collective names */
#define OUT_FILL	0x5a
#define CANARY_FILL	0xc3

/* ---- helpers ---- */

static bool all_bytes(const void *p, size_t n, uint8_t v)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

static bool drained(void)
{
	static const char *const names[] = {
		"mem_objects", "open_files", "programs", "execs", "comms", "users",
	};
	unsigned int i, tries;

	for (tries = 0; tries < 500; tries++) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (vn_counter(names[i]) != 0)
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return true;
		usleep(10000);
	}
	return false;
}

/* ---- 1. collectives ---- */

struct cc_spec {
	uint32_t opcode;
	enum nd_dtype dt;
	uint64_t count;
	enum nd_alu reduce;
	uint16_t gsize, gstride;
	uint32_t shift;
	uint64_t nin, nout;		/* elements of its tensors */
	bool inplace;			/* one output tensor "x" is both */
};

static uint32_t dt_bytes(enum nd_dtype dt)
{
	return dt == ND_BF16 ? 2 : 4;
}

static int cc_spec_image(const struct cc_spec *s, void **img, size_t *size)
{
	struct nd_cc cc = {
		.opcode = s->opcode, .count = s->count, .reduce = s->reduce,
		.group_size = s->gsize, .group_stride = s->gstride, .shift = s->shift,
	};
	struct nd_builder *b;
	int ret;

	if (nd_builder_new("attack", &b))
		return -1;
	if (s->inplace) {
		cc.src = nd_output(b, "x", s->dt, 1, &s->nout);
		cc.dst = cc.src;
	} else {
		cc.src = nd_input(b, "in", s->dt, 1, &s->nin);
		cc.dst = nd_output(b, "out", s->dt, 1, &s->nout);
	}
	nd_collective(b, &cc);
	ret = nd_builder_finish(b, img, size);
	if (ret)
		fprintf(stderr, "# builder: %s\n", nd_builder_error(b));
	nd_builder_free(b);
	return ret;
}

/* What a rank saw, in shared memory. */
struct rank_res {
	int err;			/* -errno of a step, 0 if it ran */
	int step;
	uint32_t status, reason, stream;
	bool out_untouched;		/* its output is still all OUT_FILL */
	bool canary_ok;			/* its other buffer still all CANARY_FILL */
	float x[COUNT];			/* the first elements of its output */
};

/* One rank, in a child: as uid, on device dev, core core. */
static void rank_child(const uint8_t *id, uid_t uid, int dev, uint32_t rank, uint32_t core,
		       const struct cc_spec *s, struct rank_res *r)
{
	uint64_t inb = s->nin * dt_bytes(s->dt), outb = s->nout * dt_bytes(s->dt), i, eid;
	uint8_t *in = malloc(inb + 1), *out = malloc(outb), *can = malloc(CANARY);
	uint32_t prog, h[2], hc;
	struct vneuron_wait w;
	size_t size;
	void *img;
	int fd, ret;

#define STEP(n, expr) do { r->step = (n); ret = (expr); if (ret < 0) { r->err = ret; _exit(0); } } while (0)
	if (!in || !out || !can)
		_exit(1);
	STEP(1, uid ? party_drop(uid) : 0);
	fd = open_dev(dev, O_RDWR);
	STEP(2, fd < 0 ? -errno : 0);
	STEP(3, cc_spec_image(s, &img, &size) ? -EINVAL : 0);
	STEP(4, comm_join(fd, id, rank, core, NULL));
	STEP(5, vn_prog_load(fd, img, size, &prog, NULL));
	for (i = 0; i < inb; i++)
		in[i] = (uint8_t)(rank * 16 + (i % 7));
	if (s->dt == ND_FP32)
		for (i = 0; i < s->nin; i++)
			((float *)in)[i] = (float)(rank + 1) + (float)(i % 13);
	memset(out, OUT_FILL, outb);
	memset(can, CANARY_FILL, CANARY);
	if (s->inplace) {
		for (i = 0; i < s->nout; i++)
			((float *)out)[i] = (float)(rank + 1) + (float)(i % 13);
		STEP(6, vn_alloc(fd, outb, NULL));
		h[0] = ret;
		STEP(7, vn_rw(fd, 1, h[0], 0, out, outb));
	} else {
		STEP(6, vn_alloc(fd, inb, NULL));
		h[0] = ret;
		STEP(7, vn_alloc(fd, outb, NULL));
		h[1] = ret;
		STEP(8, vn_rw(fd, 1, h[0], 0, in, inb));
		STEP(9, vn_rw(fd, 1, h[1], 0, out, outb));
	}
	STEP(10, vn_alloc(fd, CANARY, NULL));
	hc = ret;
	STEP(11, vn_rw(fd, 1, hc, 0, can, CANARY));
	STEP(12, vn_exec_on(fd, prog, core, h, s->inplace ? 1 : 2, 20 * SEC, &eid));
	STEP(13, vn_wait_for(fd, eid, VNEURON_WAIT_FOREVER, &w));
	r->status = w.status;
	r->reason = w.reason;
	r->stream = w.stream;
	STEP(14, vn_rw(fd, 0, s->inplace ? h[0] : h[1], 0, out, outb));
	STEP(15, vn_rw(fd, 0, hc, 0, can, CANARY));
	r->out_untouched = all_bytes(out, outb, OUT_FILL);
	r->canary_ok = all_bytes(can, CANARY, CANARY_FILL);
	if (s->dt == ND_FP32)
		memcpy(r->x, out, (s->nout < COUNT ? s->nout : COUNT) * 4);
	r->step = 0;
	close(fd);
	_exit(0);
#undef STEP
}

/*
 * A communicator of two ranks: rank 0 the attacker (UID_A) running a on core 1 of
 * device dev_a, rank 1 the victim (UID_B) running v on core 0 of device dev_v. (The
 * attacker's faults stay off core 0, whose fault count telemetry_tools_test expects 0.)
 */
static int run_pair(const struct cc_spec *a, int dev_a, const struct cc_spec *v, int dev_v,
		    struct rank_res *res)
{
	uint8_t *id = shared(ID_BYTES);
	int fd = open_dev(0, O_RDWR), ret;
	pid_t pa, pv;

	if (!id || fd < 0)
		return -ENOMEM;
	ret = comm_create(fd, 2, id, NULL);
	if (ret)
		return ret;
	memset(res, 0, 2 * sizeof(*res));
	pa = fork();
	if (!pa)
		rank_child(id, UID_A, dev_a, 0, 1, a, &res[0]);
	pv = fork();
	if (!pv)
		rank_child(id, UID_B, dev_v, 1, 0, v, &res[1]);
	ret = wait_exit(pa) | wait_exit(pv);
	close(fd);
	munmap(id, ID_BYTES);
	return ret ? -ECHILD : 0;
}

FIXTURE(atk)
{
	struct vneuron_info info;
	struct node_was nodes;
	bool nodes_set;
};

FIXTURE_SETUP(atk)
{
	int fd = vn_open();

	self->nodes_set = false;
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", VN_DEV, strerror(errno));
	memset(&self->info, 0, sizeof(self->info));
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_GET_INFO, &self->info));
	close(fd);
	if (!(self->info.caps & VNEURON_CAP_COLLECTIVES) || self->info.core_count < 2)
		SKIP(return, "needs collectives and two cores");
	ASSERT_EQ(0, nodes_for_group(&self->nodes));
	self->nodes_set = true;
}

FIXTURE_TEARDOWN(atk)
{
	if (self->nodes_set)
		nodes_restore(&self->nodes);
}

/* The victim's honest all-reduce, and what the attacker runs against it. */
#define AR(cnt)		{ VNEF_CC_ALL_REDUCE, ND_FP32, (cnt), ND_ADD, 0, 0, 0, (cnt), (cnt), false }

static const struct {
	const char *what;
	struct cc_spec a, v;
	bool a_alone;			/* the attacker's group is itself alone: it runs */
} mismatches[] = {
	{ "a larger count", AR(64 * COUNT), AR(COUNT), false },
	{ "another opcode (all-gather into the victim's all-reduce)",
	  { VNEF_CC_ALL_GATHER, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, 2 * COUNT, false },
	  AR(COUNT), false },
	{ "another dtype",
	  { VNEF_CC_ALL_REDUCE, ND_BF16, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, false },
	  AR(COUNT), false },
	{ "another reduction",
	  { VNEF_CC_ALL_REDUCE, ND_FP32, COUNT, ND_MAX, 0, 0, 0, COUNT, COUNT, false },
	  AR(COUNT), false },
	{ "another permute shift",
	  { VNEF_CC_PERMUTE, ND_FP32, COUNT, ND_ADD, 0, 0, 1, COUNT, COUNT, false },
	  { VNEF_CC_PERMUTE, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, false }, false },
	{ "a permute shift past the communicator (the same one modulo 2)",
	  { VNEF_CC_PERMUTE, ND_FP32, COUNT, ND_ADD, 0, 0, 63, COUNT, COUNT, false },
	  { VNEF_CC_PERMUTE, ND_FP32, COUNT, ND_ADD, 0, 0, 1, COUNT, COUNT, false }, false },
	{ "a group that does not fit the communicator",
	  { VNEF_CC_ALL_REDUCE, ND_FP32, COUNT, ND_ADD, 2, 2, 0, COUNT, COUNT, false },
	  AR(COUNT), false },
	{ "another group geometry (the attacker in a group of its own)",
	  { VNEF_CC_ALL_REDUCE, ND_FP32, COUNT, ND_ADD, 1, 1, 0, COUNT, COUNT, false },
	  AR(COUNT), true },
};

static void expect_untouched(struct __test_metadata *_metadata, const char *what,
			     const struct rank_res *r, bool out_too, bool a_alone)
{
	EXPECT_EQ(0, r[1].err) TH_LOG("%s: the victim's step %d: %s", what, r[1].step,
				      strerror(-r[1].err));
	EXPECT_NE(VNEURON_EXEC_OK, r[1].status) TH_LOG("%s: the victim's collective ran", what);
	if (out_too)
		EXPECT_TRUE(r[1].out_untouched) TH_LOG("%s: the victim's output was written",
						       what);
	EXPECT_TRUE(r[1].canary_ok) TH_LOG("%s: the victim's other buffer changed", what);
	EXPECT_TRUE(a_alone || r[0].err || r[0].status != VNEURON_EXEC_OK)
		TH_LOG("%s: the attacker's collective ran", what);
	EXPECT_TRUE(r[0].err || r[0].canary_ok) TH_LOG("%s", what);
}

/*
 * Question 1: a rank disagreeing with its peer's collective (count, opcode, dtype,
 * reduction, shift, group geometry) moves nothing: ERROR CC_MISMATCH, or ABORTED
 * CC_PEER once the communicator broke; the peer's output and other buffers untouched.
 */
TEST_F_TIMEOUT(atk, cc_mismatch_moves_nothing, 600)
{
	struct rank_res *r = shared(2 * sizeof(*r));
	unsigned int k;

	ASSERT_NE(NULL, r);
	for (k = 0; k < sizeof(mismatches) / sizeof(mismatches[0]); k++) {
		ASSERT_EQ(0, run_pair(&mismatches[k].a, 0, &mismatches[k].v, 0, r))
			TH_LOG("%s", mismatches[k].what);
		expect_untouched(_metadata, mismatches[k].what, r, true, mismatches[k].a_alone);
		EXPECT_TRUE(r[1].status == VNEURON_EXEC_ERROR ||
			    r[1].status == VNEURON_EXEC_ABORTED)
			TH_LOG("%s: status %u reason %u", mismatches[k].what, r[1].status,
			       r[1].reason);
		if (r[1].status == VNEURON_EXEC_ERROR)
			EXPECT_EQ(VNEURON_REASON_CC_MISMATCH, r[1].reason);
	}
	EXPECT_TRUE(drained());
}

/*
 * Question 1, group geometry and counts: a collective of every rank whose output (or
 * input) holds one rank's share but not the group's faults on that rank (FAULT_HBM on
 * the CC stream), before any byte moves; the peer, whose tensors fit, is not written.
 */
TEST_F_TIMEOUT(atk, cc_group_outgrows_tensors, 300)
{
	struct rank_res *r = shared(2 * sizeof(*r));
	const struct cc_spec small[] = {
		{ VNEF_CC_ALL_GATHER, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, false },
		{ VNEF_CC_REDUCE_SCATTER, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, false },
		{ VNEF_CC_ALL_TO_ALL, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, false },
	};
	const struct cc_spec fits[] = {
		{ VNEF_CC_ALL_GATHER, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, 2 * COUNT, false },
		{ VNEF_CC_REDUCE_SCATTER, ND_FP32, COUNT, ND_ADD, 0, 0, 0, 2 * COUNT, COUNT, false },
		{ VNEF_CC_ALL_TO_ALL, ND_FP32, COUNT, ND_ADD, 0, 0, 0, 2 * COUNT, 2 * COUNT, false },
	};
	unsigned int k;

	ASSERT_NE(NULL, r);
	for (k = 0; k < 3; k++) {
		ASSERT_EQ(0, run_pair(&small[k], 0, &fits[k], 0, r));
		EXPECT_EQ(0, r[0].err) TH_LOG("op %u: step %d %s", small[k].opcode, r[0].step,
					      strerror(-r[0].err));
		EXPECT_EQ(VNEURON_EXEC_FAULT, r[0].status) TH_LOG("op %u", small[k].opcode);
		EXPECT_EQ(VNEURON_REASON_FAULT_HBM, r[0].reason);
		EXPECT_EQ(VNEURON_STREAM_CC, r[0].stream);
		EXPECT_TRUE(r[0].out_untouched) TH_LOG("op %u: the faulting rank's output",
						       small[k].opcode);
		expect_untouched(_metadata, "a group outgrowing its tensors", r, true, false);
	}
	EXPECT_TRUE(drained());
}

/* Question 1, in place: an all-reduce on one tensor is exact and writes nothing else. */
TEST_F_TIMEOUT(atk, cc_in_place, 300)
{
	struct rank_res *r = shared(2 * sizeof(*r));
	const struct cc_spec s = {
		VNEF_CC_ALL_REDUCE, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, true,
	};
	unsigned int i, bad = 0;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, run_pair(&s, 0, &s, 0, r));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, r[i].err) TH_LOG("rank %u step %d", i, r[i].step);
		EXPECT_EQ(VNEURON_EXEC_OK, r[i].status) TH_LOG("rank %u reason %u", i, r[i].reason);
		EXPECT_TRUE(r[i].canary_ok);
	}
	for (i = 0; i < COUNT; i++)
		bad += r[0].x[i] != 3.0f + 2.0f * (float)(i % 13) || r[1].x[i] != r[0].x[i];
	EXPECT_EQ(0, bad);
	EXPECT_TRUE(drained());
}

/* Question 1, ranks on two devices: the same refusals across /dev/vneuron0 and 1. */
TEST_F_TIMEOUT(atk, cc_two_devices, 600)
{
	struct rank_res *r = shared(2 * sizeof(*r));
	const struct cc_spec s = {
		VNEF_CC_ALL_REDUCE, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, true,
	};
	unsigned int k;

	ASSERT_NE(NULL, r);
	if (!have_device(1))
		SKIP(return, "needs /dev/vneuron1 (devices=2)");
	for (k = 0; k < 3; k++) {
		ASSERT_EQ(0, run_pair(&mismatches[k].a, 0, &mismatches[k].v, 1, r));
		expect_untouched(_metadata, mismatches[k].what, r, true, false);
	}
	ASSERT_EQ(0, run_pair(&s, 0, &s, 1, r));
	EXPECT_EQ(VNEURON_EXEC_OK, r[0].status);
	EXPECT_EQ(VNEURON_EXEC_OK, r[1].status);
	EXPECT_EQ(3.0f, r[1].x[0]);
	EXPECT_TRUE(r[1].canary_ok);
	EXPECT_TRUE(drained());
}

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

/* ---- 4. pooled executions ---- */

#define PART		128
#define FREE		256

/* dirty: "in" -> SBUF -> core-provided scratch "s"; peek: scratch "s" -> SBUF -> "out". */
static int pool_image(bool dirty, void **img, size_t *size)
{
	uint64_t shape[2] = { PART, FREE };
	struct nd_tensor *io, *s;
	struct nd_builder *b;
	struct nd_tile *t;
	int ret;

	if (nd_builder_new(dirty ? "dirty" : "peek", &b))
		return -1;
	io = dirty ? nd_input(b, "in", ND_FP32, 2, shape) : nd_output(b, "out", ND_FP32, 2, shape);
	s = nd_scratch(b, "s", ND_FP32, 2, shape);
	t = nd_sbuf(b, "t", ND_FP32, PART, FREE);
	if (dirty) {
		nd_load(b, 0, nd_whole(t), nd_hbm_rows(io, 0, 0));
		nd_store(b, 1, nd_hbm_rows(s, 0, 0), nd_whole(t));
	} else {
		nd_load(b, 0, nd_whole(t), nd_hbm_rows(s, 0, 0));
		nd_store(b, 1, nd_hbm_rows(io, 0, 0), nd_whole(t));
	}
	ret = nd_builder_finish(b, img, size);
	if (ret)
		fprintf(stderr, "# builder: %s\n", nd_builder_error(b));
	nd_builder_free(b);
	return ret;
}

/* n dirty executions on core of fd (spares for the pools). 0 or -errno. */
static int run_dirty(int fd, uint32_t core, int n)
{
	float *in = malloc(PART * FREE * 4);
	uint32_t prog, h[2] = { 0, 0 };
	struct vneuron_wait w;
	size_t size;
	void *img;
	int ret, i;

	if (!in || pool_image(true, &img, &size))
		return -ENOMEM;
	for (i = 0; i < PART * FREE; i++)
		in[i] = 1.0f + (float)i;
	ret = vn_prog_load(fd, img, size, &prog, NULL);
	free(img);
	if (!ret)
		ret = vn_alloc(fd, PART * FREE * 4, NULL);
	if (ret >= 0) {
		h[0] = ret;
		ret = vn_rw(fd, 1, h[0], 0, in, PART * FREE * 4);
	}
	for (i = 0; i < n && !ret; i++) {
		ret = vn_run_on(fd, prog, core, h, 2, &w);
		if (!ret && w.status != VNEURON_EXEC_OK)
			ret = -EIO;
	}
	free(in);
	return ret;
}

/* A peek on core of fd: 1 if its output (a copy of fresh scratch) is all zero. */
static int run_peek(int fd, uint32_t core)
{
	float *out = malloc(PART * FREE * 4);
	uint32_t prog, h[2] = { 0, 0 };
	struct vneuron_wait w;
	size_t size;
	void *img;
	int ret;

	if (!out || pool_image(false, &img, &size))
		return -ENOMEM;
	ret = vn_prog_load(fd, img, size, &prog, NULL);
	free(img);
	if (!ret)
		ret = vn_alloc(fd, PART * FREE * 4, NULL);
	if (ret >= 0) {
		h[0] = ret;
		memset(out, 0xee, PART * FREE * 4);
		ret = vn_rw(fd, 1, h[0], 0, out, PART * FREE * 4);
	}
	if (!ret)
		ret = vn_run_on(fd, prog, core, h, 2, &w);
	if (!ret && w.status != VNEURON_EXEC_OK)
		ret = -EIO;
	if (!ret)
		ret = vn_rw(fd, 0, h[0], 0, out, PART * FREE * 4);
	if (!ret)
		ret = all_bytes(out, PART * FREE * 4, 0);
	free(out);
	return ret;
}

/*
 * Question 4: the core's pool of spare executions (kept alive across owners here by
 * root's trace session on the core) and a file's own spares: user A fills them with
 * executions (66: more than a pool keeps) that leave data in their scratch and semaphore
 * tables; user B then claims the core and reads its fresh scratch: zero; and a
 * root-opened file's spares reused by the nobody it was handed to: zero too.
 */
TEST_F_TIMEOUT(atk, pooled_executions_keep_nothing, 600)
{
	struct vneuron_trace_start ts = { .core = 0, .ring_size = 4096 };
	int tfd = vn_open(), fd, *res = shared(sizeof(int) * 4);
	pid_t p;

	ASSERT_NE(NULL, res);
	ASSERT_LE(0, tfd);
	ASSERT_EQ(0, vn_ioctl(tfd, VNEURON_IOCTL_TRACE_START, &ts));
	p = fork();
	ASSERT_LE(0, p);
	if (!p) {
		fd = -1;
		res[0] = party_drop(UID_A);
		if (!res[0]) {
			fd = vn_open();
			res[0] = fd < 0 ? -errno : run_dirty(fd, 0, 66);
		}
		_exit(0);
	}
	ASSERT_EQ(0, wait_exit(p));
	EXPECT_EQ(0, res[0]) TH_LOG("user A: %s", strerror(-res[0]));
	p = fork();
	ASSERT_LE(0, p);
	if (!p) {
		res[1] = party_drop(UID_B);
		if (!res[1]) {
			fd = vn_open();
			res[1] = fd < 0 ? -errno : run_peek(fd, 0);
		}
		_exit(0);
	}
	ASSERT_EQ(0, wait_exit(p));
	EXPECT_EQ(1, res[1]) TH_LOG("user B saw user A's scratch (%d)", res[1]);

	/* A file's spares: root's, then the nobody it hands the file to. */
	fd = vn_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, run_dirty(fd, 1, 66));
	p = fork();
	ASSERT_LE(0, p);
	if (!p) {
		res[2] = party_drop(NOBODY);
		if (!res[2])
			res[2] = run_peek(fd, 1);
		_exit(0);
	}
	ASSERT_EQ(0, wait_exit(p));
	EXPECT_EQ(1, res[2]) TH_LOG("nobody saw root's scratch (%d)", res[2]);
	close(fd);
	close(tfd);
	EXPECT_TRUE(drained());
}

/* ---- 5. telemetry ---- */

/* A long program: 24 ScalarE tanh over 128 x 4096 (a second or so under TCG). */
static int long_program(void **img, size_t *size)
{
	struct nd_builder *b;
	struct nd_tile *t0, *t1;
	int i, ret;

	if (nd_builder_new("long", &b))
		return -1;
	t0 = nd_sbuf(b, "t0", ND_FP32, 128, 4096);
	t1 = nd_sbuf(b, "t1", ND_FP32, 128, 4096);
	nd_memset(b, ND_VECTOR, nd_whole(t0), 0.5f);
	for (i = 0; i < 24; i++)
		nd_activate(b, nd_whole(i & 1 ? t0 : t1), nd_whole(i & 1 ? t1 : t0),
			    ND_ACT_TANH, 1.0f, 0.0f);
	ret = nd_builder_finish(b, img, size);
	nd_builder_free(b);
	return ret;
}

/*
 * Question 5 (a bug found here): user A closes its file while its execution runs; the
 * execution, cancelled, ends after A released the core. Its EXEC_END used to go to every
 * subscriber as an event about no process; now only a privileged monitor gets it, and
 * user C's subscription sees nothing of A.
 */
TEST_F_TIMEOUT(atk, genl_released_owner_stays_hidden, 300)
{
	struct party *c = calloc(1, sizeof(*c)), *root = calloc(1, sizeof(*root));
	int round, seen;
	size_t size;
	void *img;

	ASSERT_TRUE(c && root);
	ASSERT_EQ(0, long_program(&img, &size));
	ASSERT_EQ(0, party_start(c, 4203, 0, 0));
	ASSERT_EQ(0, party_start(root, 0, 0, 0));
	ASSERT_EQ(0, party_call(c, P_TEL_OPEN, 0, 0));
	ASSERT_EQ(0, party_call(c, P_SUBSCRIBE, 0, 0));
	ASSERT_EQ(0, party_call(root, P_TEL_OPEN, 0, 0));
	ASSERT_EQ(0, party_call(root, P_SUBSCRIBE, 0, 0));
	for (round = 0; round < 3; round++) {
		pid_t a = fork();

		ASSERT_LE(0, a);
		if (!a) {
			uint32_t prog;
			uint64_t id;
			int fd;

			if (party_drop(UID_A))
				_exit(1);
			fd = vn_open();
			if (fd < 0 || vn_prog_load(fd, img, size, &prog, NULL) ||
			    vn_exec_on(fd, prog, 0, NULL, 0, 0, &id))
				_exit(2);
			usleep(round * 20000);
			close(fd);	/* the execution is cancelled, and ends after */
			_exit(0);
		}
		EXPECT_EQ(0, wait_exit(a));
	}
	seen = party_call(c, P_TEL_EVENTS, 0, 3000);
	EXPECT_EQ(0, seen) TH_LOG("user C received %d events about user A", seen);
	EXPECT_LT(0, party_call(root, P_TEL_EVENTS, 0, 100)) TH_LOG("root's monitor saw none");
	party_end(c);
	party_end(root);
	free(img);
	EXPECT_TRUE(drained());
}

/*
 * Question 5: a telemetry socket opened by root and handed to nobody: its subscription
 * is nobody's (no events about root's processes: the socket's opener and the subscriber
 * must both be the owner's user), and its dumps show root's core as hidden.
 */
TEST_F_TIMEOUT(atk, genl_handed_socket, 300)
{
	struct party *n = calloc(1, sizeof(*n));
	int fd = vn_open(), i;
	struct vneuron_wait w;
	uint32_t prog;
	size_t size;
	void *img;

	ASSERT_NE(NULL, n);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, party_tiny(&img, &size));
	ASSERT_EQ(0, vn_prog_load(fd, img, size, &prog, NULL));
	free(img);
	ASSERT_EQ(0, party_start(n, NOBODY, 0, 1));
	ASSERT_EQ(0, party_call(n, P_SUBSCRIBE, 0, 0));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, vn_run_on(fd, prog, 0, NULL, 0, &w));
	EXPECT_EQ(0, party_call(n, P_TEL_EVENTS, 0, 2000));
	EXPECT_EQ(1, party_call(n, P_TEL_HIDDEN, 0, 0)) TH_LOG("root's core shown to nobody");
	party_end(n);
	close(fd);
	EXPECT_TRUE(drained());
}

/* ---- raw generic netlink, for the bytes themselves ---- */

struct raw {
	int fd;
	uint16_t family;
	uint32_t seq;
};

static int raw_open(struct raw *r)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nl_sock *s = nl_socket_alloc();
	int fam;

	if (!s || genl_connect(s))
		return -EIO;
	fam = genl_ctrl_resolve(s, VNEURON_GENL_NAME);
	nl_socket_free(s);
	if (fam < 0)
		return -ENOENT;
	r->family = (uint16_t)fam;
	r->seq = 1;
	r->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (r->fd < 0 || bind(r->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	return 0;
}

static int raw_send(struct raw *r, uint8_t cmd, uint16_t flags)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
	} req = {
		.n = { .nlmsg_len = sizeof(req), .nlmsg_type = r->family,
		       .nlmsg_flags = NLM_F_REQUEST | flags, .nlmsg_seq = r->seq++ },
		.g = { .cmd = cmd, .version = VNEURON_GENL_VERSION },
	};

	return send(r->fd, &req, sizeof(req), 0) == sizeof(req) ? 0 : -errno;
}

/* What an attribute list holds: the top level, leaves, or nests (the shares'). */
enum { AT_TOP, AT_LEAVES, AT_NESTS };

/* Attributes from a to end: every padding byte zero, nests too. false on the first not. */
static bool attrs_clean(const uint8_t *a, const uint8_t *end, int kind, char *why, size_t n)
{
	while (a + NLA_HDRLEN <= end) {
		const struct nlattr *h = (const void *)a;
		size_t len = h->nla_len, al = NLA_ALIGN(len);
		unsigned int type = h->nla_type & NLA_TYPE_MASK;
		int sub = -1;

		if (len < NLA_HDRLEN || a + len > end) {
			snprintf(why, n, "an attribute of length %zu", len);
			return false;
		}
		if (a + al <= end && !all_bytes(a + len, al - len, 0)) {
			snprintf(why, n, "padding after attribute %u", type);
			return false;
		}
		if (type == VNEURON_A_PAD && kind != AT_NESTS && len != NLA_HDRLEN) {
			snprintf(why, n, "a PAD attribute with a payload");
			return false;
		}
		if (kind == AT_TOP && type == VNEURON_A_STREAM_BUSY)
			sub = AT_LEAVES;
		else if (kind == AT_TOP && type == VNEURON_A_SHARES)
			sub = AT_NESTS;
		else if (kind == AT_NESTS)
			sub = AT_LEAVES;
		if (sub >= 0 && !attrs_clean(a + NLA_HDRLEN, a + len, sub, why, n))
			return false;
		a += al;
	}
	if (a != end) {
		snprintf(why, n, "%td bytes after the last attribute", end - a);
		return false;
	}
	return true;
}

/* Read messages until DONE (dump) or for ms: each checked; the count, or -1 at the first bad. */
static int raw_check(struct raw *r, int ms, bool dump, uint64_t *seen, char *why, size_t wn)
{
	static uint8_t buf[1 << 16];
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	int count = 0;

	for (;;) {
		ssize_t got;
		uint8_t *m;

		if (!dump && poll(&p, 1, ms) <= 0)
			return count;
		got = recv(r->fd, buf, sizeof(buf), 0);
		if (got < 0)
			return count;
		for (m = buf; m + NLMSG_HDRLEN <= buf + got;) {
			struct nlmsghdr *h = (void *)m;
			struct genlmsghdr *g = NLMSG_DATA(h);

			if (h->nlmsg_len < NLMSG_HDRLEN || m + h->nlmsg_len > buf + got) {
				snprintf(why, wn, "a message of length %u", h->nlmsg_len);
				return -1;
			}
			if (h->nlmsg_type == NLMSG_DONE)
				return count;
			if (h->nlmsg_type == NLMSG_ERROR) {
				snprintf(why, wn, "an error %d", *(int *)NLMSG_DATA(h));
				return -1;
			}
			if (g->reserved) {
				snprintf(why, wn, "genlmsghdr.reserved %u", g->reserved);
				return -1;
			}
			if (!attrs_clean((uint8_t *)g + GENL_HDRLEN, m + h->nlmsg_len, AT_TOP, why, wn))
				return -1;
			if (seen)
				*seen += h->nlmsg_len;
			count++;
			m += NLMSG_ALIGN(h->nlmsg_len);
		}
	}
}

/*
 * Question 5: no uninitialised byte in any reply: the device and core dumps and every
 * kind of event (claims, executions, a reset, a trace session) are walked attribute by
 * attribute, nests included; every padding byte and reserved field is zero.
 */
TEST_F_TIMEOUT(atk, genl_replies_fully_initialised, 300)
{
	struct vneuron_trace_start ts = { .core = 1, .ring_size = 4096 };
	struct vneuron_trace_stop tp = { .core = 1 };
	struct vneuron_reset rs = { .core = 1 };
	struct raw d, e;
	char why[128] = "";
	struct vneuron_wait w;
	uint32_t prog;
	size_t size;
	void *img;
	int fd, n, i;

	ASSERT_EQ(0, raw_open(&d));
	ASSERT_EQ(0, raw_open(&e));
	ASSERT_EQ(0, raw_send(&e, VNEURON_CMD_SUBSCRIBE, 0));
	fd = vn_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, party_tiny(&img, &size));
	ASSERT_EQ(0, vn_prog_load(fd, img, size, &prog, NULL));
	free(img);
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_TRACE_START, &ts));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, vn_run_on(fd, prog, 1, NULL, 0, &w));
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_TRACE_STOP, &tp));
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_RESET, &rs));

	ASSERT_EQ(0, raw_send(&d, VNEURON_CMD_GET_DEVICE, NLM_F_DUMP));
	n = raw_check(&d, 0, true, NULL, why, sizeof(why));
	EXPECT_LT(0, n) TH_LOG("GET_DEVICE: %s", why);
	ASSERT_EQ(0, raw_send(&d, VNEURON_CMD_GET_CORE, NLM_F_DUMP));
	n = raw_check(&d, 0, true, NULL, why, sizeof(why));
	EXPECT_LT(0, n) TH_LOG("GET_CORE: %s", why);
	close(fd);		/* a release event too */
	n = raw_check(&e, 1500, false, NULL, why, sizeof(why));
	EXPECT_LT(8, n) TH_LOG("events: %s (%d)", why, n);
	close(d.fd);
	close(e.fd);
	EXPECT_TRUE(drained());
}

/* ---- 6. the communicator's id ---- */

static bool contains(const uint8_t *hay, size_t n, const uint8_t *needle, size_t k)
{
	size_t i;

	for (i = 0; i + k <= n; i++)
		if (!memcmp(hay + i, needle, k))
			return true;
	return false;
}

/* The id found in the file at path, as bytes or in hex: 1, 0 not, -1 unreadable. */
static int file_has(const char *path, const uint8_t *id, const char *hex)
{
	static uint8_t buf[1 << 20];
	ssize_t n, total = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (total < (ssize_t)sizeof(buf) &&
	       (n = read(fd, buf + total, sizeof(buf) - total)) > 0)
		total += n;
	close(fd);
	return contains(buf, total, id, ID_BYTES) ||
	       contains(buf, total, (const uint8_t *)hex, 2 * ID_BYTES) ||
	       contains(buf, total, (const uint8_t *)hex + 8, 16);
}

/* Every file below dir (depth-limited), the count of those holding the id. */
static int tree_has(const char *dir, const uint8_t *id, const char *hex, int depth)
{
	char path[512];
	struct dirent *e;
	int found = 0;
	DIR *d;

	if (depth > 6 || !(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			found += tree_has(path, id, hex, depth + 1);
		else if (S_ISREG(st.st_mode) && file_has(path, id, hex) == 1) {
			fprintf(stderr, "# the id is in %s\n", path);
			found++;
		}
	}
	closedir(d);
	return found;
}

/*
 * Question 6: the id is in no reply (COMM_INFO of every handle), no telemetry message
 * (a privileged subscriber's, across create, join, a collective and destroy), no file
 * of sysfs, debugfs or the creator's /proc, and not in the kernel log; only the whole
 * id joins: every id one bit off is -ENOENT. (Its comparison is crypto_memneq(), whose
 * time does not depend on where ids differ: that is the code's, not a test's.)
 */
TEST_F_TIMEOUT(atk, comm_id_never_shown, 600)
{
	struct vneuron_comm_info ci;
	uint8_t id[ID_BYTES], bad[ID_BYTES];
	char hex[2 * ID_BYTES + 1], path[64];
	uint32_t reg, h0, h1, i, bit;
	struct raw e;
	static uint8_t msgs[1 << 20];
	size_t mlen = 0;
	int fd = vn_open(), n;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, raw_open(&e));
	ASSERT_EQ(0, raw_send(&e, VNEURON_CMD_SUBSCRIBE, 0));
	ASSERT_EQ(0, comm_create(fd, 2, id, &reg));
	for (i = 0; i < ID_BYTES; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	for (i = 0; i < 8 * ID_BYTES; i++) {
		memcpy(bad, id, ID_BYTES);
		bad[i / 8] ^= (uint8_t)(1u << (i % 8));
		bit = 0;
		EXPECT_EQ(-ENOENT, comm_join(fd, bad, 0, 0, &bit)) TH_LOG("bit %u", i);
	}
	ASSERT_EQ(0, comm_join(fd, id, 0, 0, &h0));
	ASSERT_EQ(0, comm_join(fd, id, 1, 1, &h1));
	{
		uint32_t hs[3] = { reg, h0, h1 };

		for (i = 0; i < 3; i++) {
			memset(&ci, 0, sizeof(ci));
			ci.handle = hs[i];
			ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_COMM_INFO, &ci));
			EXPECT_FALSE(contains((uint8_t *)&ci, sizeof(ci), id, 8) ||
				     contains((uint8_t *)&ci, sizeof(ci), id + 8, 8))
				TH_LOG("COMM_INFO of handle %u", hs[i]);
		}
	}
	EXPECT_EQ(0, tree_has("/sys/class/vneuron", id, hex, 0));
	EXPECT_EQ(0, tree_has("/sys/module/vneuron", id, hex, 0));
	EXPECT_EQ(0, tree_has("/sys/kernel/debug/vneuron", id, hex, 0));
	/* The files of /proc/PID itself (its subfolders are its threads and fds again). */
	snprintf(path, sizeof(path), "/proc/%d", getpid());
	EXPECT_EQ(0, tree_has(path, id, hex, 6));
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", getpid(), fd);
	EXPECT_NE(1, file_has(path, id, hex));
	{
		struct vneuron_comm_destroy d = { .handle = h1 };

		EXPECT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_COMM_DESTROY, &d));
	}
	close(fd);
	/* Every event a privileged monitor got meanwhile, byte for byte. */
	for (;;) {
		struct pollfd p = { .fd = e.fd, .events = POLLIN };
		ssize_t got;

		if (poll(&p, 1, 1000) <= 0 || mlen >= sizeof(msgs))
			break;
		got = recv(e.fd, msgs + mlen, sizeof(msgs) - mlen, 0);
		if (got <= 0)
			break;
		mlen += got;
	}
	EXPECT_LT(0, mlen);
	EXPECT_FALSE(contains(msgs, mlen, id, 8) || contains(msgs, mlen, id + 8, 8));
	n = file_has("/dev/kmsg", id, hex);
	EXPECT_NE(1, n) TH_LOG("the id is in the kernel log");
	close(e.fd);
	EXPECT_TRUE(drained());
}

TEST(zz_drained)
{
	EXPECT_TRUE(drained());
}

TEST_HARNESS_MAIN
