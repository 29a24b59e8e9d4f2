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
 * second mpirun; and nothing left in the module after.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/wait.h>

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

static int comm_create(int fd, uint32_t nranks, uint8_t *id, uint32_t *handle)
{
	struct vneuron_comm_create a = { .nranks = nranks };
	int ret = vn_ioctl(fd, VNEURON_IOCTL_COMM_CREATE, &a);

	memcpy(id, a.id, ID_BYTES);
	*handle = a.handle;
	return ret;
}

static int comm_join(int fd, const uint8_t *id, uint32_t rank, uint32_t core, uint32_t *handle)
{
	struct vneuron_comm_join j = { .rank = rank, .core = core };
	int ret;

	memcpy(j.id, id, ID_BYTES);
	ret = vn_ioctl(fd, VNEURON_IOCTL_COMM_JOIN, &j);
	if (handle)
		*handle = j.handle;
	return ret;
}

static int comm_nodes(int fd, uint32_t handle, uint32_t node, const uint32_t *nodes,
		      const uint32_t *devs, uint32_t nranks)
{
	struct vneuron_comm_nodes a = {
		.handle = handle, .node = node, .nodes = (uintptr_t)nodes,
		.devices = (uintptr_t)devs, .nranks = nranks,
	};

	return vn_ioctl(fd, VNEURON_IOCTL_COMM_NODES, &a);
}

static int comm_info(int fd, uint32_t handle, struct vneuron_comm_info *out)
{
	out->handle = handle;
	out->flags = 0;
	return vn_ioctl(fd, VNEURON_IOCTL_COMM_INFO, out);
}

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

/* Two nodes as MPI processes on /dev/vneuron0 and /dev/vneuron1: every collective. */
TEST_F_TIMEOUT(netq, mpirun_two_nodes, 700)
{
	char exe[PATH_MAX], top[PATH_MAX], bin[2 * PATH_MAX], host[64];
	char models[2][2048];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int fails[2], st, run;

	if (self->info.device_count < 2)
		SKIP(return, "needs two devices (devices=2): a node each");
	if (access("/usr/bin/mpirun", X_OK))
		SKIP(return, "no mpirun (make setup installs openmpi-bin)");
	ASSERT_LT(0, len);
	exe[len] = '\0';
	/* .../build/rel/guest/netq_test: the tree is four levels up */
	snprintf(top, sizeof(top), "%s", dirname(dirname(dirname(dirname(exe)))));
	snprintf(bin, sizeof(bin), "%s/build/san/mpi/test_mpi_netq", top);
	if (access(bin, X_OK))
		SKIP(return, "build/san/mpi/test_mpi_netq is not built (needs mpicc)");
	/* The bare test guest: Open MPI needs a host name and a loopback interface. */
	if (!gethostname(host, sizeof(host)) && !strcmp(host, "(none)")) {
		ASSERT_EQ(0, sethostname("vneuron-guest", 13));
		ASSERT_EQ(0, system("ip link set lo up"));
	}
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
	char exe[PATH_MAX], top[PATH_MAX], cmd[2 * PATH_MAX + 64], line[512], host[64];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int fails = 0, oks = 0, st;
	FILE *p;

	if (self->info.device_count < 2)
		SKIP(return, "needs two devices (devices=2): a node each");
	if (access("/usr/bin/mpirun", X_OK))
		SKIP(return, "no mpirun (make setup installs openmpi-bin)");
	ASSERT_LT(0, len);
	exe[len] = '\0';
	snprintf(top, sizeof(top), "%s", dirname(dirname(dirname(dirname(exe)))));
	snprintf(cmd, sizeof(cmd), "%s/build/libexec/vneuron/vneuron-profile-mpi", top);
	if (access(cmd, X_OK))
		SKIP(return, "vneuron-profile-mpi is not built (needs mpicc)");
	if (!gethostname(host, sizeof(host)) && !strcmp(host, "(none)")) {
		ASSERT_EQ(0, sethostname("vneuron-guest", 13));
		ASSERT_EQ(0, system("ip link set lo up"));
	}
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
