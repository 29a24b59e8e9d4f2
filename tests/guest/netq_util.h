/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The network queue tests' shared part (netq_*test.c): its ioctls, an all-reduce
 * program and its rank 0, the mapped ring, and the netq fixture.
 */
#ifndef NETQ_UTIL_H
#define NETQ_UTIL_H

/* Each test file uses some of these static functions: marked unused for the others. */

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
__attribute__((unused))
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

__attribute__((unused))
static int netq_wait(int fd, uint32_t reg, uint32_t stage, uint64_t size, uint64_t within_ns,
		     uint64_t *arrivals, struct vneuron_netq_wait *out)
{
	*out = (struct vneuron_netq_wait){
		.handle = reg, .timeout_ns = vn_now_ns() + within_ns, .stage = stage,
		.stage_size = size, .arrivals = (uintptr_t)arrivals,
	};
	return vn_ioctl(fd, VNEURON_IOCTL_NETQ_WAIT, out);
}

__attribute__((unused))
static int netq_complete(int fd, uint32_t reg, uint64_t id, uint32_t stage, uint64_t offset,
			 const uint64_t *arrivals)
{
	struct vneuron_netq_complete c = {
		.handle = reg, .id = id, .stage = stage, .stage_offset = offset,
		.arrivals = (uintptr_t)arrivals,
	};

	return vn_ioctl(fd, VNEURON_IOCTL_NETQ_COMPLETE, &c);
}

__attribute__((unused))
static int netq_fail(int fd, uint32_t reg, uint32_t error, uint32_t rank, uint64_t missing)
{
	struct vneuron_netq_complete c = {
		.handle = reg, .error = error, .failed_rank = rank, .missing = missing,
	};

	return vn_ioctl(fd, VNEURON_IOCTL_NETQ_COMPLETE, &c);
}

/* An fp32 all-reduce of COUNT elements from tensor "in" to "out" (groups: 0, every rank). */
__attribute__((unused))
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

__attribute__((unused))
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

__attribute__((unused))
static int rank0_submit(struct rank0 *r, int fd, uint64_t limit_ns)
{
	return rank_submit(r, fd, 0, limit_ns, 0, 0);
}

__attribute__((unused))
static int rank0_wait(struct rank0 *r)
{
	int ret = vn_wait_for(r->fd, r->exec, vn_now_ns() + 60 * SEC, &r->w);

	if (!ret && r->w.status == VNEURON_EXEC_OK)
		ret = vn_rw(r->fd, 0, r->h[1], 0, r->out, sizeof(r->out));
	return ret;
}

__attribute__((unused))
static void rank0_release(struct rank0 *r)
{
	struct vneuron_program_unload u = { .handle = r->prog };

	vn_free(r->fd, r->h[0]);
	vn_free(r->fd, r->h[1]);
	vn_ioctl(r->fd, VNEURON_IOCTL_PROGRAM_UNLOAD, &u);
}

/* Rank 1's input, as the other node would send it. */
__attribute__((unused))
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

__attribute__((unused))
static int ring_setup(int fd, uint32_t reg, uint32_t entries, uint32_t stage, uint64_t off,
		      uint64_t size, struct vneuron_netq_ring_setup *out)
{
	*out = (struct vneuron_netq_ring_setup){
		.handle = reg, .entries = entries, .stage = stage, .stage_offset = off,
		.stage_size = size,
	};
	return vn_ioctl(fd, VNEURON_IOCTL_NETQ_RING_SETUP, out);
}

__attribute__((unused))
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
__attribute__((unused))
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

__attribute__((unused))
static struct vneuron_netq_cpl *ring_cpl(struct ring *q, uint32_t i)
{
	return (struct vneuron_netq_cpl *)(q->map + q->s.cpl_offset) + (i & (q->s.entries - 1));
}

/* The next request, waited for with poll() (-ETIMEDOUT), consumed. */
__attribute__((unused))
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
__attribute__((unused))
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

#endif /* NETQ_UTIL_H */
