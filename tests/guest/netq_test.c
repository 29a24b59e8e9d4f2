// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The network queue in the guest (docs/uapi.md, "Ranks on other nodes"): COMM_NODES,
 * NETQ_WAIT and NETQ_COMPLETE and every error they give; a test that plays the proxy of
 * a remote rank by hand (its input written into the stage, the all-reduce exact against
 * the rank-order sum, the modeled time the same on rerun); a proxy that closes breaks
 * the communicator; one that never serves lets the rank end TIMEOUT CC_MISSING at its
 * time limit; a relayed failure; and two "nodes" of MPI processes, each on its own
 * /dev/vneuronN, running every collective through libvnmpi's device proxy
 * (tests/host/mpi/test_mpi_netq.c under mpirun): exact, and the same modeled times on a
 * second mpirun; and nothing left in the module after. The same queue as a mapped ring
 * (NETQ_RING_SETUP, NETQ_DOORBELL): every bad argument, an all-reduce served by hand
 * through it (exact, the modeled time the same as through the ioctls, poll() woken),
 * hostile ring contents refused, and an unmap or close with a request out breaking the
 * communicator. Partial completions through the ring (2 local ranks, 4 remote on 2
 * nodes): node A's ranks posted, node B's never, the time limit names exactly node B's;
 * every bad partial refused; partials then the final completion exact, the modeled
 * time that of one whole completion; the registration destroyed with ranks posted
 * breaking the communicator.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "comm_util.h"
#include "kmod_test.h"
#include "neurondev.h"
#include "vnprog.h"
#include "../cc_program.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define SEC		1000000000ull
#define MS		1000000ull
#define ID_BYTES	VNEURON_COMM_ID_BYTES
#define COUNT		1000		/* elements of the all-reduce */

static const uint32_t two_nodes[2] = { 0, 1 }, two_devs[2] = { 0, 0 };

/* Rank 0 local (core 0 of rfd), rank 1 on node 1 served by pfd's registration *reg. */
static int netq_comm(int pfd, int rfd, uint32_t *reg, uint32_t *rank_h)
{
	uint8_t id[ID_BYTES];
	int ret = comm_create(pfd, 2, id, reg);

	if (!ret)
		ret = comm_nodes(pfd, *reg, 0, two_nodes, two_devs, 2);
	if (!ret)
		ret = comm_join(rfd, id, 0, 0, rank_h);
	return ret;
}

static int netq_wait(int fd, uint32_t reg, uint32_t stage, uint64_t size, uint64_t within_ns,
		     uint64_t *arrivals, struct vneuron_netq_wait *out)
{
	*out = (struct vneuron_netq_wait){
		.handle = reg, .timeout_ns = vn_now_ns() + within_ns, .stage = stage,
		.stage_size = size, .arrivals = (uintptr_t)arrivals,
	};
	return vn_ioctl(fd, VNEURON_IOCTL_NETQ_WAIT, out);
}

static int netq_complete(int fd, uint32_t reg, uint64_t id, uint32_t stage, uint64_t offset,
			 const uint64_t *arrivals)
{
	struct vneuron_netq_complete c = {
		.handle = reg, .id = id, .stage = stage, .stage_offset = offset,
		.arrivals = (uintptr_t)arrivals,
	};

	return vn_ioctl(fd, VNEURON_IOCTL_NETQ_COMPLETE, &c);
}

static int netq_fail(int fd, uint32_t reg, uint32_t error, uint32_t rank, uint64_t missing)
{
	struct vneuron_netq_complete c = {
		.handle = reg, .error = error, .failed_rank = rank, .missing = missing,
	};

	return vn_ioctl(fd, VNEURON_IOCTL_NETQ_COMPLETE, &c);
}

/* An fp32 all-reduce of COUNT elements from tensor "in" to "out" (groups: 0, every rank). */
static int allreduce_image(void **img, size_t *size, uint16_t gsize, uint16_t gstride)
{
	struct nd_cc cc = { .opcode = VNEF_CC_ALL_REDUCE, .count = COUNT, .reduce = ND_ADD,
			    .group_size = gsize, .group_stride = gstride };

	return cc_program(&cc, COUNT, COUNT, img, size);
}

/* Rank 0's execution: its program, buffers, input and exec id. */
struct rank0 {
	int fd;
	uint32_t prog, h[2];
	uint64_t exec;
	float in[COUNT], out[COUNT];
	struct vneuron_wait w;
};

static int rank_submit(struct rank0 *r, int fd, uint32_t core, uint64_t limit_ns,
		       uint16_t gsize, uint16_t gstride)
{
	size_t size;
	void *img;
	int ret, i;

	r->fd = fd;
	for (i = 0; i < COUNT; i++)
		r->in[i] = (float)((i * 104729) % 1000) * 0.001f + 1e-7f;
	if (allreduce_image(&img, &size, gsize, gstride))
		return -EINVAL;
	ret = vn_prog_load(fd, img, size, &r->prog, NULL);
	free(img);
	if (ret)
		return ret;
	ret = vn_alloc(fd, sizeof(r->in), NULL);
	if (ret < 0)
		return ret;
	r->h[0] = ret;
	ret = vn_alloc(fd, sizeof(r->out), NULL);
	if (ret < 0)
		return ret;
	r->h[1] = ret;
	ret = vn_rw(fd, 1, r->h[0], 0, r->in, sizeof(r->in));
	if (!ret)
		ret = vn_exec_on(fd, r->prog, core, r->h, 2, limit_ns, &r->exec);
	return ret;
}

static int rank0_submit(struct rank0 *r, int fd, uint64_t limit_ns)
{
	return rank_submit(r, fd, 0, limit_ns, 0, 0);
}

static int rank0_wait(struct rank0 *r)
{
	int ret = vn_wait_for(r->fd, r->exec, vn_now_ns() + 60 * SEC, &r->w);

	if (!ret && r->w.status == VNEURON_EXEC_OK)
		ret = vn_rw(r->fd, 0, r->h[1], 0, r->out, sizeof(r->out));
	return ret;
}

static void rank0_release(struct rank0 *r)
{
	struct vneuron_program_unload u = { .handle = r->prog };

	vn_free(r->fd, r->h[0]);
	vn_free(r->fd, r->h[1]);
	vn_ioctl(r->fd, VNEURON_IOCTL_PROGRAM_UNLOAD, &u);
}

/* Rank 1's input, as the other node would send it. */
static void remote_input(float *x)
{
	int i;

	for (i = 0; i < COUNT; i++)
		x[i] = (float)((7919 + i * 104729) % 1000) * 0.001f + 2e-7f;
}


/* ---- the ring, as a proxy sees it ---- */

struct ring {
	int fd;
	uint32_t reg;
	struct vneuron_netq_ring_setup s;
	uint8_t *map;
	struct vneuron_netq_ctrl *ctl;
};

static int ring_setup(int fd, uint32_t reg, uint32_t entries, uint32_t stage, uint64_t off,
		      uint64_t size, struct vneuron_netq_ring_setup *out)
{
	*out = (struct vneuron_netq_ring_setup){
		.handle = reg, .entries = entries, .stage = stage, .stage_offset = off,
		.stage_size = size,
	};
	return vn_ioctl(fd, VNEURON_IOCTL_NETQ_RING_SETUP, out);
}

static int doorbell(int fd, uint32_t reg, uint32_t flags, uint32_t stage, uint64_t off,
		    uint64_t size)
{
	struct vneuron_netq_doorbell d = {
		.handle = reg, .flags = flags, .stage = stage, .stage_offset = off,
		.stage_size = size,
	};

	return vn_ioctl(fd, VNEURON_IOCTL_NETQ_DOORBELL, &d);
}

/* A ring of 4 entries on registration reg of fd, mapped. */
static int ring_open(struct ring *q, int fd, uint32_t reg, uint32_t stage, uint64_t size)
{
	void *m;
	int ret;

	q->fd = fd;
	q->reg = reg;
	ret = ring_setup(fd, reg, 4, stage, 0, size, &q->s);
	if (ret)
		return ret;
	m = mmap(NULL, q->s.mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, q->s.mmap_offset);
	if (m == MAP_FAILED)
		return -errno;
	q->map = m;
	q->ctl = m;
	return 0;
}

static struct vneuron_netq_cpl *ring_cpl(struct ring *q, uint32_t i)
{
	return (struct vneuron_netq_cpl *)(q->map + q->s.cpl_offset) + (i & (q->s.entries - 1));
}

/* The next request, waited for with poll() (-ETIMEDOUT), consumed. */
static int ring_next(struct ring *q, int timeout_ms, struct vneuron_netq_req *out)
{
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN };
	uint32_t tail = q->ctl->req_tail, head;

	if (poll(&pfd, 1, timeout_ms) < 0)
		return -errno;
	head = __atomic_load_n(&q->ctl->req_head, __ATOMIC_ACQUIRE);
	if (head == tail)
		return -ETIMEDOUT;
	memcpy(out, (struct vneuron_netq_req *)(q->map + q->s.req_offset) +
	       (tail & (q->s.entries - 1)), sizeof(*out));
	__atomic_store_n(&q->ctl->req_tail, tail + 1, __ATOMIC_RELEASE);
	return 0;
}

/* c as the next completion, then the doorbell. */
static int ring_complete(struct ring *q, const struct vneuron_netq_cpl *c)
{
	uint32_t head = q->ctl->cpl_head;

	memcpy(ring_cpl(q, head), c, sizeof(*c));
	__atomic_store_n(&q->ctl->cpl_head, head + 1, __ATOMIC_RELEASE);
	return doorbell(q->fd, q->reg, 0, 0, 0, 0);
}

FIXTURE(netq)
{
	int fd;
	struct vneuron_info info;
};

FIXTURE_SETUP(netq)
{
	self->fd = vn_open();
	ASSERT_LE(0, self->fd) TH_LOG("%s: %s", VN_DEV, strerror(errno));
	ASSERT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_GET_INFO, &self->info));
	if (!(self->info.caps & VNEURON_CAP_NETQ))
		SKIP(return, "the module has no network queue");
	ASSERT_LE(5, self->info.uapi_version);
}

FIXTURE_TEARDOWN(netq)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* COMM_NODES: every bad argument, and JOIN of a remote rank. */
TEST_F(netq, nodes_errors)
{
	const uint32_t all_local[2] = { 0, 0 }, all_remote[2] = { 1, 1 };
	struct vneuron_comm_nodes a;
	uint32_t reg, reg2, rank_h;
	uint8_t id[ID_BYTES], id2[ID_BYTES];
	int fd2 = vn_open();

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, comm_create(self->fd, 2, id, &reg));
	ASSERT_EQ(0, comm_create(self->fd, 2, id2, &reg2));
	a = (struct vneuron_comm_nodes){ .handle = reg, .nodes = (uintptr_t)two_nodes,
					 .devices = (uintptr_t)two_devs, .nranks = 2, .flags = 1 };
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_COMM_NODES, &a));
	EXPECT_EQ(-EINVAL, comm_nodes(self->fd, reg, 0, two_nodes, two_devs, 3));
	EXPECT_EQ(-EINVAL, comm_nodes(self->fd, reg, 0, two_nodes, two_devs, 0));
	EXPECT_EQ(-EINVAL, comm_nodes(self->fd, reg, 0, two_nodes, two_devs, 65));
	EXPECT_EQ(-EINVAL, comm_nodes(self->fd, reg, 0, all_local, two_devs, 2));
	EXPECT_EQ(-EINVAL, comm_nodes(self->fd, reg, 0, all_remote, two_devs, 2));
	EXPECT_EQ(-EFAULT, comm_nodes(self->fd, reg, 0, (const uint32_t *)8, two_devs, 2));
	EXPECT_EQ(-EFAULT, comm_nodes(self->fd, reg, 0, two_nodes, (const uint32_t *)8, 2));
	EXPECT_EQ(-ENOENT, comm_nodes(self->fd, 0, 0, two_nodes, two_devs, 2));
	EXPECT_EQ(-ENOENT, comm_nodes(self->fd, 9999, 0, two_nodes, two_devs, 2));
	/* another file's handle number is not this file's */
	EXPECT_EQ(-ENOENT, comm_nodes(fd2, reg, 0, two_nodes, two_devs, 2));
	/* after a rank joined: too late */
	ASSERT_EQ(0, comm_join(self->fd, id2, 0, 0, &rank_h));
	EXPECT_EQ(-EBUSY, comm_nodes(self->fd, reg2, 0, two_nodes, two_devs, 2));
	/* a rank's handle is not a registration */
	EXPECT_EQ(-EINVAL, comm_nodes(self->fd, rank_h, 0, two_nodes, two_devs, 2));
	ASSERT_EQ(0, comm_nodes(self->fd, reg, 0, two_nodes, two_devs, 2));
	EXPECT_EQ(-EBUSY, comm_nodes(self->fd, reg, 0, two_nodes, two_devs, 2));
	/* rank 1 is remote: it cannot join here; rank 0 can */
	EXPECT_EQ(-EINVAL, comm_join(fd2, id, 1, 0, NULL));
	if (self->info.core_count > 1)
		EXPECT_EQ(0, comm_join(self->fd, id, 0, 1, NULL));
	close(fd2);
}

/* NETQ_WAIT: every bad argument, and ETIMEDOUT with nobody at a collective. */
TEST_F(netq, wait_errors)
{
	struct vneuron_netq_wait w;
	uint32_t reg, plain, rank_h, stage;
	uint8_t id[ID_BYTES];
	uint64_t arr[2], t0;
	int fd2 = vn_open();

	ASSERT_LE(0, fd2);
	/* fd2 holds no handle: any number is another file's */
	ASSERT_EQ(0, netq_comm(self->fd, self->fd, &reg, &rank_h));
	ASSERT_EQ(0, comm_create(self->fd, 2, id, &plain));
	stage = vn_alloc(self->fd, 2 * PAGE, NULL);
	ASSERT_LT(0, (int)stage);
	w = (struct vneuron_netq_wait){ .handle = reg, .timeout_ns = vn_now_ns() + MS,
					.stage = stage, .stage_size = PAGE,
					.arrivals = (uintptr_t)arr, .flags = 1 };
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_WAIT, &w));
	w.flags = 0;
	w.pad = 1;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_WAIT, &w));
	w.pad = 0;
	w.timeout_ns = 0;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_WAIT, &w));
	w.timeout_ns = vn_now_ns() + MS;
	w.stage_offset = ~0ull;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_WAIT, &w));
	w.stage_offset = PAGE;
	w.stage_size = PAGE + 1;		/* one byte past the buffer */
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_WAIT, &w));
	EXPECT_EQ(-ENOENT, netq_wait(self->fd, reg, 9999, PAGE, MS, arr, &w));
	/* the stage and the registration must be the caller's own */
	EXPECT_EQ(-ENOENT, netq_wait(fd2, reg, stage, PAGE, MS, arr, &w));
	EXPECT_EQ(-ENOENT, netq_wait(self->fd, 0, stage, PAGE, MS, arr, &w));
	EXPECT_EQ(-EINVAL, netq_wait(self->fd, plain, stage, PAGE, MS, arr, &w));
	EXPECT_EQ(-EINVAL, netq_wait(self->fd, rank_h, stage, PAGE, MS, arr, &w));
	t0 = vn_now_ns();
	EXPECT_EQ(-ETIMEDOUT, netq_wait(self->fd, reg, stage, PAGE, 50 * MS, arr, &w));
	EXPECT_LE(t0 + 50 * MS, vn_now_ns());
	close(fd2);
}

/* NETQ_COMPLETE: every bad argument without a request out. */
TEST_F(netq, complete_errors)
{
	struct vneuron_netq_complete c;
	uint32_t reg, rank_h, stage;
	uint64_t arr[2] = { 0, 0 };
	int fd2 = vn_open();

	ASSERT_LE(0, fd2);
	/* fd2 holds no handle: any number is another file's */
	ASSERT_EQ(0, netq_comm(self->fd, self->fd, &reg, &rank_h));
	stage = vn_alloc(self->fd, PAGE, NULL);
	ASSERT_LT(0, (int)stage);
	c = (struct vneuron_netq_complete){ .handle = reg, .id = 1, .stage = stage,
					    .arrivals = (uintptr_t)arr, .flags = 1 };
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_COMPLETE, &c));
	c.flags = 0;
	c.pad = 1;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_COMPLETE, &c));
	c.pad = 0;
	c.failed_rank = 1;			/* only with an error */
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_COMPLETE, &c));
	c.failed_rank = 0;
	c.missing = 2;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_COMPLETE, &c));
	/* no request was ever issued */
	EXPECT_EQ(-ENOENT, netq_complete(self->fd, reg, 1, stage, 0, arr));
	EXPECT_EQ(-ENOENT, netq_complete(self->fd, reg, 0, stage, 0, arr));
	EXPECT_EQ(-EFAULT, netq_complete(self->fd, reg, 1, stage, 0, (const uint64_t *)8));
	arr[1] = VNEURON_NETQ_MAX_PS + 1;
	EXPECT_EQ(-EINVAL, netq_complete(self->fd, reg, 1, stage, 0, arr));
	arr[1] = 0;
	EXPECT_EQ(-ENOENT, netq_complete(fd2, reg, 1, stage, 0, arr));
	EXPECT_EQ(-EINVAL, netq_complete(self->fd, rank_h, 1, stage, 0, arr));
	/* failures: the errno, the rank and the missing ranks checked */
	EXPECT_EQ(-EINVAL, netq_fail(self->fd, reg, 9999, 1, 0));
	EXPECT_EQ(-EINVAL, netq_fail(self->fd, reg, ENOMEM, 1, 0));
	EXPECT_EQ(-EINVAL, netq_fail(self->fd, reg, EIO, 2, 0));
	EXPECT_EQ(-EINVAL, netq_fail(self->fd, reg, ETIMEDOUT, 1, 4));
	EXPECT_EQ(-EINVAL, netq_fail(self->fd, reg, EIO, 1, 2));
	close(fd2);
}

/*
 * The proxy by hand: rank 0 runs an all-reduce, NETQ_WAIT gives its input in the stage,
 * rank 1's input goes in beside it, NETQ_COMPLETE: the output is the rank-order sum,
 * the modeled end the same on a second run; bad completions on the way are refused.
 */
TEST_F_TIMEOUT(netq, allreduce_served, 120)
{
	struct vneuron_netq_wait w;
	struct vneuron_comm_info in;
	uint32_t reg, rank_h, stage, small, other;
	uint64_t arr[2], rarr[2] = { 0, 123456 }, model[2];
	float x1[COUNT], got[COUNT];
	struct rank0 *r = calloc(1, sizeof(*r));
	int fd2 = vn_open(), run, i, bad;

	ASSERT_NE(NULL, r);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, netq_comm(self->fd, fd2, &reg, &rank_h));
	stage = vn_alloc(self->fd, 2 * COUNT * 4, NULL);
	small = vn_alloc(self->fd, 16, NULL);
	/* a buffer of fd2 whose number is no buffer of self->fd */
	do
		other = vn_alloc(fd2, 2 * COUNT * 4, NULL);
	while ((int)other > 0 && other <= small);
	ASSERT_LT(0, (int)stage);
	ASSERT_LT(0, (int)small);
	ASSERT_LT(0, (int)other);
	remote_input(x1);
	for (run = 0; run < 2; run++) {
		memset(r, 0, sizeof(*r));
		ASSERT_EQ(0, rank0_submit(r, fd2, 30 * SEC));
		/* a stage too small: told the size, nothing taken */
		ASSERT_EQ(0, netq_wait(self->fd, reg, small, 16, 10 * SEC, arr, &w));
		EXPECT_EQ(0, w.id);
		EXPECT_EQ(2 * COUNT * 4, w.stage_need);
		ASSERT_EQ(0, netq_wait(self->fd, reg, stage, 2 * COUNT * 4, 10 * SEC, arr, &w));
		ASSERT_NE(0, w.id);
		EXPECT_EQ(0, w.op);
		EXPECT_EQ(0, w.reduce);
		EXPECT_EQ(VNEF_DT_FP32, w.dtype);
		EXPECT_EQ(COUNT, w.count);
		EXPECT_EQ(COUNT * 4, w.rank_bytes);
		EXPECT_EQ(1, w.local);
		EXPECT_EQ(0, arr[1]);
		/* one request at a time */
		{
			struct vneuron_netq_wait w2;

			EXPECT_EQ(-EBUSY, netq_wait(self->fd, reg, stage, 2 * COUNT * 4, MS,
						    arr, &w2));
		}
		ASSERT_EQ(0, vn_rw(self->fd, 0, stage, 0, got, sizeof(got)));
		EXPECT_EQ(0, memcmp(got, r->in, sizeof(got)));
		ASSERT_EQ(0, vn_rw(self->fd, 1, stage, COUNT * 4, x1, sizeof(x1)));
		/* wrong id, another file's stage, past the end, an arrival too late */
		EXPECT_EQ(-ENOENT, netq_complete(self->fd, reg, w.id + 1, stage, 0, rarr));
		EXPECT_EQ(-ENOENT, netq_complete(self->fd, reg, w.id, other, 0, rarr));
		EXPECT_EQ(-EINVAL, netq_complete(self->fd, reg, w.id, small, 0, rarr));
		EXPECT_EQ(-EINVAL, netq_complete(self->fd, reg, w.id, stage, 4, rarr));
		EXPECT_EQ(-EINVAL, netq_complete(self->fd, reg, w.id, stage, ~0ull, rarr));
		rarr[1] = ~0ull;
		EXPECT_EQ(-EINVAL, netq_complete(self->fd, reg, w.id, stage, 0, rarr));
		rarr[1] = 123456;
		ASSERT_EQ(0, netq_complete(self->fd, reg, w.id, stage, 0, rarr));
		/* completed: a second completion is of no request */
		EXPECT_EQ(-ENOENT, netq_complete(self->fd, reg, w.id, stage, 0, rarr));
		ASSERT_EQ(0, rank0_wait(r));
		EXPECT_EQ(VNEURON_EXEC_OK, r->w.status) TH_LOG("reason %u", r->w.reason);
		for (i = 0, bad = 0; i < COUNT; i++)
			bad += r->out[i] != r->in[i] + x1[i];
		EXPECT_EQ(0, bad);
		model[run] = r->w.model_ps;
		rank0_release(r);
	}
	EXPECT_EQ(model[0], model[1]);
	EXPECT_LT(123456, model[0]);
	ASSERT_EQ(0, comm_info(self->fd, reg, &in));
	EXPECT_EQ(0, in.broken);
	EXPECT_EQ(2, in.collectives);
	close(fd2);
	free(r);
}

/* A proxy that closes, idle or with a request out: the rank ends ABORTED CC_PEER at once. */
TEST_F_TIMEOUT(netq, proxy_close_breaks, 120)
{
	struct vneuron_netq_wait w;
	struct vneuron_comm_info in;
	uint32_t reg, rank_h, stage;
	uint64_t arr[2], t0;
	struct rank0 *r = calloc(1, sizeof(*r));
	int pfd, with_request;

	ASSERT_NE(NULL, r);
	for (with_request = 0; with_request < 2; with_request++) {
		int rfd = vn_open();

		pfd = vn_open();
		ASSERT_LE(0, pfd);
		ASSERT_LE(0, rfd);
		ASSERT_EQ(0, netq_comm(pfd, rfd, &reg, &rank_h));
		stage = vn_alloc(pfd, 2 * COUNT * 4, NULL);
		memset(r, 0, sizeof(*r));
		t0 = vn_now_ns();
		ASSERT_EQ(0, rank0_submit(r, rfd, 60 * SEC));
		if (with_request)
			ASSERT_EQ(0, netq_wait(pfd, reg, stage, 2 * COUNT * 4, 10 * SEC, arr, &w));
		close(pfd);
		ASSERT_EQ(0, rank0_wait(r));
		EXPECT_EQ(VNEURON_EXEC_ABORTED, r->w.status);
		EXPECT_EQ(VNEURON_REASON_CC_PEER, r->w.reason);
		EXPECT_GT(t0 + 30 * SEC, vn_now_ns());
		ASSERT_EQ(0, comm_info(rfd, rank_h, &in));
		EXPECT_EQ(1, in.broken);
		EXPECT_EQ(1, in.failed_rank);
		EXPECT_EQ(EPIPE, in.failure);
		rank0_release(r);
		close(rfd);
	}
	free(r);
}

/* A proxy that never serves: TIMEOUT CC_MISSING at the time limit, the remote rank named. */
TEST_F_TIMEOUT(netq, never_served, 120)
{
	struct vneuron_comm_info in;
	uint32_t reg, rank_h;
	struct rank0 *r = calloc(1, sizeof(*r));

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, netq_comm(self->fd, self->fd, &reg, &rank_h));
	ASSERT_EQ(0, rank0_submit(r, self->fd, SEC));
	ASSERT_EQ(0, rank0_wait(r));
	EXPECT_EQ(VNEURON_EXEC_TIMEOUT, r->w.status);
	EXPECT_EQ(VNEURON_REASON_CC_MISSING, r->w.reason);
	ASSERT_EQ(0, comm_info(self->fd, rank_h, &in));
	EXPECT_EQ(1, in.broken);
	EXPECT_EQ(ETIMEDOUT, in.failure);
	EXPECT_EQ(2, in.missing);
	rank0_release(r);
	free(r);
}

/* Another node's timeout relayed by the proxy: the rank ends TIMEOUT CC_MISSING at once. */
TEST_F_TIMEOUT(netq, failure_relayed, 120)
{
	struct vneuron_netq_wait w;
	struct vneuron_comm_info in;
	uint32_t reg, rank_h, stage;
	uint64_t arr[2], rarr[2] = { 0, 0 };
	struct rank0 *r = calloc(1, sizeof(*r));

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, netq_comm(self->fd, self->fd, &reg, &rank_h));
	stage = vn_alloc(self->fd, 2 * COUNT * 4, NULL);
	ASSERT_EQ(0, rank0_submit(r, self->fd, 60 * SEC));
	ASSERT_EQ(0, netq_wait(self->fd, reg, stage, 2 * COUNT * 4, 10 * SEC, arr, &w));
	ASSERT_EQ(0, netq_fail(self->fd, reg, ETIMEDOUT, 1, 2));
	ASSERT_EQ(0, rank0_wait(r));
	EXPECT_EQ(VNEURON_EXEC_TIMEOUT, r->w.status);
	EXPECT_EQ(VNEURON_REASON_CC_MISSING, r->w.reason);
	ASSERT_EQ(0, comm_info(self->fd, rank_h, &in));
	EXPECT_EQ(ETIMEDOUT, in.failure);
	EXPECT_EQ(2, in.missing);
	/* broken: the pending request cannot complete, nothing moves */
	EXPECT_EQ(-EPIPE, netq_complete(self->fd, reg, w.id, stage, 0, rarr));
	EXPECT_EQ(-EPIPE, netq_wait(self->fd, reg, stage, 2 * COUNT * 4, MS, arr, &w));
	rank0_release(r);
	free(r);
}

/*
 * A collective of a group (group_size 2, stride 2 on 4 ranks: {0, 2}, {1, 3}) with
 * ranks 0 and 1 local: the queue cannot hold the local ranks (a group of local ranks
 * only could complete under the hold), so NETQ_WAIT breaks the communicator, EINVAL.
 */
TEST_F_TIMEOUT(netq, group_collective_breaks, 120)
{
	const uint32_t nodes[4] = { 0, 0, 1, 1 }, devs[4] = { 0 };
	struct vneuron_netq_wait w;
	struct vneuron_comm_info in;
	uint32_t reg, rank_h, stage;
	uint8_t id[ID_BYTES];
	uint64_t arr[4];
	struct rank0 *r = calloc(2, sizeof(*r));
	int i;

	ASSERT_NE(NULL, r);
	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_EQ(0, comm_create(self->fd, 4, id, &reg));
	ASSERT_EQ(0, comm_nodes(self->fd, reg, 0, nodes, devs, 4));
	ASSERT_EQ(0, comm_join(self->fd, id, 0, 0, &rank_h));
	ASSERT_EQ(0, comm_join(self->fd, id, 1, 1, NULL));
	stage = vn_alloc(self->fd, 4 * COUNT * 4, NULL);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, rank_submit(&r[i], self->fd, i, 60 * SEC, 2, 2));
	EXPECT_EQ(-EPIPE, netq_wait(self->fd, reg, stage, 4 * COUNT * 4, 10 * SEC, arr, &w));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rank0_wait(&r[i]));
		EXPECT_EQ(VNEURON_EXEC_ABORTED, r[i].w.status);
		EXPECT_EQ(VNEURON_REASON_CC_PEER, r[i].w.reason);
		rank0_release(&r[i]);
	}
	ASSERT_EQ(0, comm_info(self->fd, rank_h, &in));
	EXPECT_EQ(1, in.broken);
	EXPECT_EQ(EINVAL, in.failure);
	EXPECT_EQ(0, in.failed_rank);
	free(r);
}

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

/*
 * One mpirun of test_mpi_netq on 2 processes: its exit status; its output's TAP failures
 * and modeled times into *fails and models.
 */
static int mpirun_netq(const char *top, char *models, size_t cap, int *fails)
{
	char cmd[2 * PATH_MAX], line[512];
	size_t used = 0;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd),
		 "cd /tmp && ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 OMPI_MCA_btl=self,vader "
		 "timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 "
		 "%s/build/san/mpi/test_mpi_netq 2>&1", top);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	*fails = 0;
	models[0] = '\0';
	while (fgets(line, sizeof(line), p)) {
		fprintf(stderr, "#   %s", line);
		if (!strncmp(line, "not ok", 6))
			(*fails)++;
		if (strstr(line, " modeled ") && used + strlen(line) < cap) {
			strcpy(models + used, line);
			used += strlen(line);
		}
	}
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * The preamble of the mpirun tests: two devices (a node each), mpirun, the tree's top
 * into top (.../build/rel/guest/netq_test: four levels up), and in the bare test guest
 * the host name and loopback interface Open MPI needs. 0; 1 with *why, to skip; -1.
 */
static int mpirun_ready(const struct vneuron_info *info, char *top, size_t cap,
			const char **why)
{
	char exe[PATH_MAX], host[64];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	*why = NULL;
	if (info->device_count < 2)
		*why = "needs two devices (devices=2): a node each";
	else if (access("/usr/bin/mpirun", X_OK))
		*why = "no mpirun (make setup installs openmpi-bin)";
	if (*why)
		return 1;
	if (len <= 0)
		return -1;
	exe[len] = '\0';
	snprintf(top, cap, "%s", dirname(dirname(dirname(dirname(exe)))));
	if (!gethostname(host, sizeof(host)) && !strcmp(host, "(none)") &&
	    (sethostname("vneuron-guest", 13) || system("ip link set lo up")))
		return -1;
	return 0;
}

/* Two nodes as MPI processes on /dev/vneuron0 and /dev/vneuron1: every collective. */
TEST_F_TIMEOUT(netq, mpirun_two_nodes, 700)
{
	char top[PATH_MAX], bin[2 * PATH_MAX];
	char models[2][2048];
	const char *why;
	int fails[2], st, run;

	st = mpirun_ready(&self->info, top, sizeof(top), &why);
	if (st == 1)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, st);
	snprintf(bin, sizeof(bin), "%s/build/san/mpi/test_mpi_netq", top);
	if (access(bin, X_OK))
		SKIP(return, "build/san/mpi/test_mpi_netq is not built (needs mpicc)");
	for (run = 0; run < 2; run++) {
		st = mpirun_netq(top, models[run], sizeof(models[run]), &fails[run]);
		EXPECT_EQ(0, st);
		EXPECT_EQ(0, fails[run]);
	}
	EXPECT_NE(0, models[0][0]);
	EXPECT_STREQ(models[0], models[1]);
}

/*
 * vneuron-profile capture under mpirun on the module, two nodes on /dev/vneuron0 and
 * /dev/vneuron1 (tests/guest/mpi_capture.sh: its TAP, each `not ok` a failure).
 */
TEST_F_TIMEOUT(netq, mpirun_capture, 900)
{
	char top[PATH_MAX], cmd[2 * PATH_MAX + 64], line[512];
	int fails = 0, oks = 0, st;
	const char *why;
	FILE *p;

	st = mpirun_ready(&self->info, top, sizeof(top), &why);
	if (st == 1)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, st);
	snprintf(cmd, sizeof(cmd), "%s/build/libexec/vneuron/vneuron-profile-mpi", top);
	if (access(cmd, X_OK))
		SKIP(return, "vneuron-profile-mpi is not built (needs mpicc)");
	snprintf(cmd, sizeof(cmd), "%s/tests/guest/mpi_capture.sh 2>&1", top);
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	while (fgets(line, sizeof(line), p)) {
		fprintf(stderr, "#   %s", line);
		if (!strncmp(line, "not ok", 6))
			fails++;
		else if (!strncmp(line, "ok ", 3))
			oks++;
	}
	st = pclose(p);
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	EXPECT_EQ(0, fails);
	EXPECT_EQ(8, oks);
}

/* After everything: no communicator and no buffer of these tests left in the module. */
TEST_F(netq, zz_drained)
{
	EXPECT_EQ(0, vn_counter("comms"));
}

TEST_HARNESS_MAIN
