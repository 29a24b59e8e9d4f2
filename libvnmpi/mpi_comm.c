// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host communicators across MPI processes (vnmpi.h): the proxy of the remote ranks.
 *
 * Per collective, every process sends every other, point to point and nonblocking, a
 * header of u64 (whether its local ranks agree, op, reduce, dtype, group size and stride,
 * shift, count, then its local ranks' arrival times); once a peer's header is in (so the
 * peer stands at this collective and will take them), its local ranks' inputs, from a
 * staging buffer of every rank's input in rank order into which it receives the peer's.
 * A peer whose inputs are in is posted at once (vn_comm_arrive()), so at a time limit the
 * ranks still missing are exactly those of the nodes that never came. Nothing blocks:
 * the proxy tests its requests, and between tests looks at the stop flag, the
 * communicator (a local rank's timeout or failure breaks it) and the break messages of
 * the other nodes.
 *
 * The local side is a host communicator (core/vn_comm.h, called directly) or a device's
 * network queue (nd_mpi_comm_new_dev(): the kernel copies the local ranks' inputs into
 * the stage, a device buffer mapped here, and posts the request to the queue's mapped
 * ring, whose partial completions post each peer's ranks as its inputs come, the last
 * one completing; on a module before uapi 6, NETQ_WAIT and NETQ_COMPLETE post every
 * remote rank at once, once all peers' inputs are in, so that a local time limit names
 * every remote rank there); the lc_*()
 * functions are the one place the two differ, the
 * MPI exchange is the same code. An all-reduce of host nodes goes as a reduce-scatter +
 * all-gather instead (rsag.c: each node reduces its slice in rank order), moving what
 * MPI_Allreduce moves; other collectives, and nodes on the module, send every input to
 * every node (tools/bench/mpi_allreduce.c measures the all-reduce against MPI's).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mpi_int.h"
#include "vn_os.h"
#include "vneuron_program.h"

static MPI_Request *brk_recv(struct nd_mpi_comm *c)
{
	return &c->req[(size_t)c->nproc * R_PER_PEER];
}

static MPI_Request *brk_send(struct nd_mpi_comm *c, int q)
{
	return &c->req[(size_t)c->nproc * R_PER_PEER + 1 + q];
}

static size_t nreq(const struct nd_mpi_comm *c)
{
	return (size_t)c->nproc * (R_PER_PEER + 1) + 1;
}

/* ---- the local side: a host communicator or a device's network queue ---- */

void vnmpi_lc_break(struct nd_mpi_comm *c, u32 rank, int err, u64 missing)
{
	if (c->ring)
		nd_netq_ring_fail(c->ring, -err, rank, err == -ETIMEDOUT ? missing : 0);
	else if (c->dev)
		nd_netq_fail(c->dev, &c->id, -err, rank, err == -ETIMEDOUT ? missing : 0);
	else
		vn_comm_break_missing(c->cm, rank, err, missing);
}

static void lc_state(struct nd_mpi_comm *c, struct vn_comm_state *st)
{
	struct nd_comm_info in;

	if (!c->dev) {
		vn_comm_state(c->cm, st);
		return;
	}
	memset(st, 0, sizeof(*st));
	if (nd_comm_reg_info(c->dev, &c->id, &in)) {
		/* Its state unknown: broken, as far as the proxy can tell. */
		st->broken = true;
		st->failure = -EIO;
		st->failed_rank = c->first;
		return;
	}
	st->broken = in.broken;
	st->failed_rank = in.failed_rank;
	st->failure = -in.failure;
	st->missing = in.missing;
	st->collectives = in.collectives;
}

/* The device's stage holds at least bytes: 0 or -ENOMEM. */
static int dev_stage(struct nd_mpi_comm *c, uint64_t bytes)
{
	void *map;

	if (c->dstage && bytes <= c->stage_cap)
		return 0;
	nd_mem_free(c->dstage);
	c->dstage = NULL;
	c->stage = NULL;
	c->stage_cap = 0;
	if (bytes > SIZE_MAX || nd_mem_alloc(c->dev, bytes, &c->dstage))
		return -ENOMEM;
	if (nd_mem_map(c->dstage, &map)) {
		nd_mem_free(c->dstage);
		c->dstage = NULL;
		return -ENOMEM;
	}
	c->stage = map;
	c->stage_cap = (size_t)bytes;
	return 0;
}

/*
 * Until the local ranks all stand at a collective (or IDLE_POLL_NS passed: -ETIMEDOUT):
 * their arguments and arrivals into p. -EPIPE, -EINTR (stopped), -ENOMEM, -EIO.
 */
static int lc_wait(struct nd_mpi_comm *c, struct vn_cc_pending *p)
{
	struct nd_netq_req rq;
	unsigned int r;
	int ret;

	if (!c->dev) {
		/* Held: a rank's time limit cannot free its input while it is staged. */
		ret = vn_comm_proxy_hold(c->cm, vn_time_ns() + IDLE_POLL_NS, &c->stop, p);
		if (ret == -EINVAL)	/* a group's collective: refused, nothing staged */
			return vn_comm_proxy_wait(c->cm, vn_time_ns() + IDLE_POLL_NS, &c->stop, p);
		c->held = !ret;
		return ret;
	}
	if (!c->dstage && dev_stage(c, 4096))
		return -ENOMEM;
	while (c->ring) {
		struct vn_comm_state st;

		if (__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE))
			return -EINTR;
		ret = nd_netq_ring_next(c->ring, vn_time_ns() + IDLE_POLL_NS, c->arr, &rq);
		if (ret == -ETIMEDOUT) {
			/* A broken communicator posts nothing more: the ring cannot say it. */
			lc_state(c, &st);
			return st.broken ? -EPIPE : -ETIMEDOUT;
		}
		if (ret)
			return -EIO;
		if (rq.id)
			goto taken;
		/* The stage is too small: a larger one, and the request comes again. */
		if (dev_stage(c, rq.stage_need))
			return -ENOMEM;
		if (nd_netq_ring_stage(c->ring, c->dstage, c->stage_cap))
			return -EIO;
	}
	for (;;) {
		if (__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE))
			return -EINTR;
		ret = nd_netq_wait(c->dev, &c->id, c->dstage, c->stage_cap,
				   vn_time_ns() + IDLE_POLL_NS, c->arr, &rq);
		if (ret == -ETIMEDOUT || ret == -EPIPE || ret == -EINTR)
			return ret;
		if (ret)
			return -EIO;
		if (rq.id)
			break;
		/* The stage is too small: a larger one, and the request again. */
		if (dev_stage(c, rq.stage_need))
			return -ENOMEM;
	}
taken:
	c->nq_req = rq.id;
	c->peers_in = 0;
	memset(p, 0, sizeof(*p));
	for (r = 0; r < c->n; r++) {
		if (!(rq.local >> r & 1))
			continue;
		c->la[r] = (struct vn_cc_args){
			.op = rq.op, .reduce = rq.reduce, .dtype = rq.dtype, .shift = rq.shift,
			.count = rq.count, .in = c->stage + (size_t)r * rq.rank_bytes,
		};
		p->args[r] = &c->la[r];
		p->arrive_ps[r] = c->arr[r];
	}
	return 0;
}

/* The host's local ranks go on once their inputs are staged (lc_wait()). */
static void lc_unhold(struct nd_mpi_comm *c)
{
	if (c->held) {
		c->held = 0;
		vn_comm_proxy_release(c->cm);
	}
}

/* Every local rank brings the same collective of the whole communicator. */
static int locals_agree(const struct nd_mpi_comm *c, const struct vn_cc_pending *p)
{
	const struct vn_cc_args *a0 = p->args[c->first], *a;
	unsigned int i;

	if (a0->group_size)
		return 0;
	for (i = 1; i < c->nlocal; i++) {
		a = p->args[c->first + i];
		if (a->op != a0->op || a->reduce != a0->reduce || a->dtype != a0->dtype ||
		    a->count != a0->count || a->group_size != a0->group_size ||
		    a->group_stride != a0->group_stride || a->shift != a0->shift)
			return 0;
	}
	return 1;
}

/*
 * The bytes of one rank's input under header h, 0 if h says its node sends none (its
 * ranks disagree, or the sizes are of no use): sender and receiver decide alike.
 */
static size_t rank_bytes(const struct nd_mpi_comm *c, const uint64_t *h)
{
	uint64_t inb;

	if (!h[H_OK] || h[H_OP] > UINT32_MAX || h[H_DTYPE] > UINT32_MAX)
		return 0;
	inb = vn_cc_in_bytes((u32)h[H_OP], c->n, (u32)h[H_DTYPE], h[H_COUNT]);
	if (!inb || inb > INT_MAX || inb > SIZE_MAX / c->n)
		return 0;
	return (size_t)inb;
}

/* Both headers describe the same collective. */
static int same_collective(const uint64_t *a, const uint64_t *b)
{
	return a[H_OK] && b[H_OK] && !memcmp(a + H_OP, b + H_OP, (H_WORDS - H_OP) * sizeof(*a));
}

static void pause_a_little(unsigned int *idle)
{
	struct timespec ts = { 0, 50000 };

	if (++*idle < 100)
		sched_yield();
	else
		nanosleep(&ts, NULL);
}

/* Tells the other nodes that this communicator broke (once; nothing waited for). */
static void tell(struct nd_mpi_comm *c, u32 rank, int err, u64 missing)
{
	int q;

	if (c->told)
		return;
	c->told = 1;
	c->brk_out[B_RANK] = rank;
	c->brk_out[B_ERR] = (uint64_t)-err;
	c->brk_out[B_MISSING] = missing;
	for (q = 0; q < c->nproc; q++)
		if (q != c->me)
			MPI_Isend(c->brk_out, B_WORDS, MPI_UINT64_T, q, TAG_BREAK, c->mc,
				  brk_send(c, q));
}

/* Another node's break message: this node breaks as it did. -EPIPE. */
static int heard_break(struct nd_mpi_comm *c)
{
	u64 rank = c->brk_in[B_RANK], missing = c->brk_in[B_MISSING];
	int err = -(int)(c->brk_in[B_ERR] & 0xffff);

	if (rank >= c->n)
		rank = 0;
	if (err != -ETIMEDOUT && err != -EINVAL && err != -EIO && err != -EINTR)
		err = -EPIPE;
	if (c->n < 64)
		missing &= (1ull << c->n) - 1;
	/* This node's own ranks were the late ones: for them, a peer gave up. */
	if (err == -ETIMEDOUT && (missing >> c->first) & ((1ull << c->nlocal) - 1))
		err = -EPIPE;
	vnmpi_lc_break(c, (u32)rank, err, missing);
	return -EPIPE;
}

/* The communicator broke here (a local rank's timeout or failure): the others are told. */
int vnmpi_broke_here(struct nd_mpi_comm *c)
{
	struct vn_comm_state st;

	lc_state(c, &st);
	if (!st.broken)
		return 0;
	tell(c, st.failed_rank, st.failure, st.missing);
	return -EPIPE;
}

/* An MPI call about peer q (-1: unknown) failed: it is named, the others told. -EIO. */
int vnmpi_mpi_failed(struct nd_mpi_comm *c, int q)
{
	u32 rank = q >= 0 ? (u32)q * c->nlocal : (c->first ? 0 : c->nlocal);

	vnmpi_lc_break(c, rank, -EIO, 0);
	tell(c, rank, -EPIPE, 0);
	return -EIO;
}

/* A peer's header came: its inputs are received, ours sent. 0 or -errno. */
static int header_in(struct nd_mpi_comm *c, int q, size_t inb)
{
	const uint64_t *h = c->hdr + (size_t)q * hwords(c), *mine = c->hdr + (size_t)c->me * hwords(c);
	MPI_Request *r = &c->req[(size_t)q * R_PER_PEER];
	size_t qb = rank_bytes(c, h);
	void *into;

	if (qb) {
		if (MPI_Type_contiguous((int)qb, MPI_BYTE, &c->qtype[q]) != MPI_SUCCESS ||
		    MPI_Type_commit(&c->qtype[q]) != MPI_SUCCESS)
			return vnmpi_mpi_failed(c, q);
		if (same_collective(h, mine)) {
			into = c->stage + (size_t)q * c->nlocal * inb;
		} else {
			/* Taken and dropped, so that the peer's send completes. */
			free(c->drain[q]);
			c->drain[q] = malloc(qb * c->nlocal);
			if (!c->drain[q])
				return -ENOMEM;
			into = c->drain[q];
		}
		if (MPI_Irecv(into, (int)c->nlocal, c->qtype[q], q, TAG_DATA, c->mc,
			      &r[R_DATA_IN]) != MPI_SUCCESS)
			return vnmpi_mpi_failed(c, q);
	}
	if (inb && MPI_Isend(c->stage + (size_t)c->first * inb, (int)c->nlocal,
			     c->qtype[c->me], q, TAG_DATA, c->mc, &r[R_DATA_OUT]) != MPI_SUCCESS)
		return vnmpi_mpi_failed(c, q);
	return 0;
}

/* What posting remote ranks to the device gave: 0, -EPIPE or -EIO. */
static int dev_posted(struct nd_mpi_comm *c, int ret)
{
	/* Broken meanwhile (a local rank's time limit): the other nodes are told. */
	if (ret == -EPIPE)
		vnmpi_broke_here(c);
	return ret == -EPIPE || !ret ? ret : -EIO;
}

/* A peer's inputs came: its ranks arrive (the last arrival completes the collective). */
int vnmpi_data_in(struct nd_mpi_comm *c, int q, size_t inb)
{
	const uint64_t *h = c->hdr + (size_t)q * hwords(c);
	unsigned int i, r;
	int ret;

	if (!same_collective(h, c->hdr + (size_t)c->me * hwords(c)))
		return 0;
	if (c->dev) {
		uint64_t mask = 0;

		for (i = 0; i < c->nlocal; i++) {
			r = (unsigned int)q * c->nlocal + i;
			c->arr[r] = h[H_WORDS + i];
			mask |= 1ull << r;
		}
		/* The ring takes the peer's ranks now; the ioctls every remote rank at once. */
		if (++c->peers_in < (unsigned int)c->nproc - 1)
			return c->ring ? dev_posted(c, nd_netq_ring_post(c->ring, c->nq_req, mask,
									  c->arr)) : 0;
		ret = c->ring ? nd_netq_ring_complete(c->ring, c->nq_req, c->arr) :
				nd_netq_complete(c->dev, &c->id, c->nq_req, c->dstage, c->arr);
		return dev_posted(c, ret);
	}
	return vnmpi_post(c, q, inb, 0, c->nlocal);
}

int vnmpi_post(struct nd_mpi_comm *c, int q, size_t inb, unsigned int from, unsigned int to)
{
	const uint64_t *h = c->hdr + (size_t)q * hwords(c);
	struct vn_cc_result res;
	unsigned int i, r;
	int ret;

	for (i = from; i < to; i++) {
		r = (unsigned int)q * c->nlocal + i;
		c->ra[r] = (struct vn_cc_args){
			.op = (u32)h[H_OP], .reduce = (u32)h[H_REDUCE], .dtype = (u32)h[H_DTYPE],
			.group_size = (u32)h[H_GSIZE], .group_stride = (u32)h[H_GSTRIDE],
			.shift = (u32)h[H_SHIFT], .count = h[H_COUNT],
			.in = c->stage + (size_t)r * inb, .out = NULL,
		};
		ret = vn_comm_arrive(c->cm, r, &c->ra[r], h[H_WORDS + i], &res);
		if (ret)
			return ret == -EPIPE ? -EPIPE : ret;
	}
	return 0;
}

/*
 * One collective: headers out and in, inputs out and in, peers posted as their inputs
 * come, until every request completed, the communicator broke, a break message came or
 * the proxy is stopped. 0 or -errno.
 */
static int proxy_one(struct nd_mpi_comm *c, const struct vn_cc_pending *p)
{
	const struct vn_cc_args *a0 = p->args[c->first];
	size_t hw = hwords(c), inb, k, nr = (size_t)c->nproc * R_PER_PEER;
	uint64_t *mine = c->hdr + (size_t)c->me * hw;
	int q, flag, active, receiving, stopped, same, ret = 0, bad = -1;
	unsigned int i, idle = 0;
	u64 sends_until = 0;
	MPI_Status st;

	mine[H_OK] = locals_agree(c, p);
	mine[H_OP] = a0->op;
	mine[H_REDUCE] = a0->reduce;
	mine[H_DTYPE] = a0->dtype;
	mine[H_GSIZE] = a0->group_size;
	mine[H_GSTRIDE] = a0->group_stride;
	mine[H_SHIFT] = a0->shift;
	mine[H_COUNT] = a0->count;
	/* host nodes reduce-scatter an all-reduce; a node of another kind disagrees */
	mine[H_ALGO] = !c->dev;
	for (i = 0; i < c->nlocal; i++)
		mine[H_WORDS + i] = p->arrive_ps[c->first + i];
	inb = rank_bytes(c, mine);
	memset(&c->rs, 0, sizeof(c->rs));
	c->rs.on = vnmpi_rsag_wanted(c, mine, inb);
	if (inb && (size_t)c->n * inb > c->stage_cap && !c->dev) {
		free(c->stage);
		c->stage = malloc((size_t)c->n * inb);
		c->stage_cap = c->stage ? (size_t)c->n * inb : 0;
		if (!c->stage) {
			lc_unhold(c);
			return -ENOMEM;
		}
	}
	/*
	 * A device's queue copied them there already; a reduce-scatter reads them where
	 * they are (rsag.c), once every node came.
	 */
	for (i = 0; inb && !c->dev && !c->rs.on && i < c->nlocal; i++)
		memcpy(c->stage + (size_t)(c->first + i) * inb, p->args[c->first + i]->in, inb);
	lc_unhold(c);
	if (inb && (MPI_Type_contiguous((int)inb, MPI_BYTE, &c->qtype[c->me]) != MPI_SUCCESS ||
		    MPI_Type_commit(&c->qtype[c->me]) != MPI_SUCCESS)) {
		ret = vnmpi_mpi_failed(c, -1);
		goto out;
	}
	for (q = 0; q < c->nproc; q++) {
		if (q == c->me)
			continue;
		if (MPI_Irecv(c->hdr + (size_t)q * hw, (int)hw, MPI_UINT64_T, q, TAG_HDR, c->mc,
			      &c->req[(size_t)q * R_PER_PEER + R_HDR_IN]) != MPI_SUCCESS ||
		    MPI_Isend(mine, (int)hw, MPI_UINT64_T, q, TAG_HDR, c->mc,
			      &c->req[(size_t)q * R_PER_PEER + R_HDR_OUT]) != MPI_SUCCESS) {
			ret = vnmpi_mpi_failed(c, q);
			goto out;
		}
	}
	for (;;) {
		active = 0;
		receiving = 0;
		for (k = 0; k < nr && !ret; k++) {
			if (c->req[k] == MPI_REQUEST_NULL)
				continue;
			q = (int)(k / R_PER_PEER);
			if (MPI_Test(&c->req[k], &flag, &st) != MPI_SUCCESS) {
				ret = vnmpi_mpi_failed(c, q);
				break;
			}
			if (!flag) {
				active = 1;
				if (k % R_PER_PEER == R_HDR_IN || k % R_PER_PEER == R_DATA_IN ||
				    k % R_PER_PEER == R_AG_IN)
					receiving = 1;
				continue;
			}
			idle = 0;
			same = same_collective(c->hdr + (size_t)q * hw, mine);
			if (k % R_PER_PEER == R_HDR_IN) {
				if (!same && bad < 0)
					bad = q;
				/* a reduce-scatter's slices go once every header is in */
				if (c->rs.on && same)
					ret = vnmpi_rsag_header(c, q, inb);
				else
					ret = header_in(c, q, inb);
				active = 1;
			} else if (c->rs.on && same) {
				ret = vnmpi_rsag_done(c, q, (int)(k % R_PER_PEER), inb);
				active = 1;
			} else if (k % R_PER_PEER == R_DATA_IN) {
				ret = vnmpi_data_in(c, q, inb);
			}
		}
		if (!ret && c->rs.on)
			ret = vnmpi_rsag_step(c, p, inb, &active);
		if (ret)
			break;
		if (MPI_Test(brk_recv(c), &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
			ret = vnmpi_mpi_failed(c, -1);
			break;
		}
		if (flag) {
			ret = heard_break(c);
			break;
		}
		ret = vnmpi_broke_here(c);
		if (ret || !active)
			break;
		/*
		 * Stopped inside a collective: this node leaves it, unless everything it
		 * receives is in (the collective is done here) and only its sends are out:
		 * slower nodes still need them, so they go on for a while.
		 */
		stopped = __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE);
		if (stopped && !receiving && !sends_until)
			sends_until = vn_time_ns() + SENDS_AFTER_STOP_NS;
		if (stopped && (receiving || vn_time_ns() >= sends_until)) {
			vnmpi_lc_break(c, c->first, -EPIPE, 0);
			ret = vnmpi_broke_here(c);
			break;
		}
		pause_a_little(&idle);
	}
	if (!ret && bad >= 0) {
		/* Every node sees a header unlike its own: every one breaks. */
		vnmpi_lc_break(c, (u32)bad * c->nlocal, -EINVAL, 0);
		ret = -EINVAL;
	}
	/* the reduce-scatter's outputs are written: the remote ranks complete it */
	if (!ret && c->rs.started)
		ret = vnmpi_rsag_finish(c, inb);
out:
	for (q = 0; q < c->nproc; q++)
		if (c->qtype[q] != MPI_DATATYPE_NULL)
			MPI_Type_free(&c->qtype[q]);
	vnmpi_rsag_free_types(c);
	if (!ret)
		__atomic_add_fetch(&c->collectives, 1, __ATOMIC_RELAXED);
	return ret;
}

/*
 * The proxy's last act: its receives cancelled, every request completed within
 * CLEANUP_NS; any left (a peer that never takes a send) is freed and given up to MPI,
 * and the buffers it may still use are kept.
 */
static void take_back(struct nd_mpi_comm *c)
{
	u64 until = vn_time_ns() + CLEANUP_NS;
	unsigned int idle = 0;
	int flag, left;
	size_t k;

	for (k = 0; k < nreq(c); k++) {
		/* receives: the header and input ones, and the break receive */
		if (c->req[k] != MPI_REQUEST_NULL &&
		    (k == (size_t)c->nproc * R_PER_PEER ||
		     (k < (size_t)c->nproc * R_PER_PEER &&
		      (k % R_PER_PEER == R_HDR_IN || k % R_PER_PEER == R_DATA_IN ||
		       k % R_PER_PEER == R_AG_IN))))
			MPI_Cancel(&c->req[k]);
	}
	do {
		left = 0;
		for (k = 0; k < nreq(c); k++) {
			if (c->req[k] == MPI_REQUEST_NULL)
				continue;
			if (MPI_Test(&c->req[k], &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS || flag)
				c->req[k] = MPI_REQUEST_NULL;
			else
				left = 1;
		}
		if (left)
			pause_a_little(&idle);
	} while (left && vn_time_ns() < until);
	for (k = 0; k < nreq(c); k++) {
		if (c->req[k] != MPI_REQUEST_NULL) {
			MPI_Request_free(&c->req[k]);
			c->abandoned = 1;
		}
	}
}

static void *proxy_main(void *arg)
{
	struct nd_mpi_comm *c = arg;
	struct vn_cc_pending p;
	int flag, ret;

	for (;;) {
		ret = lc_wait(c, &p);
		if (ret == -ETIMEDOUT) {
			/* Between collectives: another node may have broken it. */
			ret = 0;
			if (MPI_Test(brk_recv(c), &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
				ret = vnmpi_mpi_failed(c, -1);
			else if (flag)
				ret = heard_break(c);
			if (ret)
				break;
			continue;
		}
		if (ret == -EINTR) {
			ret = 0;
			break;
		}
		if (ret == -EPIPE) {
			/* A local rank failed or timed out before this node's ranks all came. */
			vnmpi_broke_here(c);
			ret = -EPIPE;
			break;
		}
		/*
		 * A break sent while this node was away is heard before the collective: its
		 * peers' inputs may be waiting here from before they gave up.
		 */
		if (!ret) {
			if (MPI_Test(brk_recv(c), &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS)
				ret = vnmpi_mpi_failed(c, -1);
			else if (flag)
				ret = heard_break(c);
		}
		if (!ret)
			ret = proxy_one(c, &p);
		lc_unhold(c);
		if (ret)
			break;
	}
	if (ret) {
		/* The local ranks' waits end (-EPIPE); the first remote rank is named. */
		vnmpi_lc_break(c, c->first ? 0 : c->nlocal, ret, 0);
		c->err = ret;
	}
	take_back(c);
	return NULL;
}

/*
 * Frees c. Buffers that abandoned requests may still use (take_back()) are given up to
 * MPI: c and its buffers are then left allocated.
 */
static void release(struct nd_mpi_comm *c)
{
	int q;

	if (c->hc)
		nd_host_comm_free(c->hc);
	if (c->dev)
		nd_comm_unregister(c->dev, &c->id);
	nd_netq_ring_close(c->ring);
	c->ring = NULL;
	MPI_Comm_free(&c->mc);
	if (c->abandoned)
		return;
	if (c->dev) {
		nd_mem_free(c->dstage);
		c->stage = NULL;
	}
	for (q = 0; c->drain && q < c->nproc; q++)
		free(c->drain[q]);
	free(c->drain);
	free(c->hdr);
	free(c->stage);
	free(c->qtype);
	free(c->stype);
	free(c->req);
	free(c);
}

/*
 * Both kinds of communicator: c set up over mc with nlocal ranks per process, every
 * rank's device gathered into *dev_all (the caller frees it). Collective. 0 or -errno;
 * on failure c is released.
 */
static int comm_setup(MPI_Comm mc, unsigned int nlocal, const uint32_t *device,
		      struct nd_mpi_comm **cp, uint32_t **dev_all)
{
	struct nd_mpi_comm *c;
	unsigned int r, mine = nlocal, lo, hi;
	int level, ret = -EIO;

	*cp = NULL;
	*dev_all = NULL;
	if (MPI_Query_thread(&level) != MPI_SUCCESS)
		return -EIO;
	if (level < MPI_THREAD_MULTIPLE)
		return -EPROTONOSUPPORT;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (MPI_Comm_dup(mc, &c->mc) != MPI_SUCCESS) {
		free(c);
		return -EIO;
	}
	MPI_Comm_set_errhandler(c->mc, MPI_ERRORS_RETURN);
	if (MPI_Comm_size(c->mc, &c->nproc) != MPI_SUCCESS ||
	    MPI_Comm_rank(c->mc, &c->me) != MPI_SUCCESS)
		goto fail;
	/* Every process must bring the same nlocal: agree on it first, all together. */
	if (MPI_Allreduce(&mine, &lo, 1, MPI_UNSIGNED, MPI_MIN, c->mc) != MPI_SUCCESS ||
	    MPI_Allreduce(&mine, &hi, 1, MPI_UNSIGNED, MPI_MAX, c->mc) != MPI_SUCCESS)
		goto fail;
	ret = -EINVAL;
	if (lo != hi || !nlocal || (uint64_t)nlocal * c->nproc > VN_COMM_MAX_RANKS)
		goto fail;
	c->nlocal = nlocal;
	c->n = nlocal * c->nproc;
	c->first = nlocal * c->me;
	ret = -ENOMEM;
	c->hdr = calloc((size_t)c->nproc, hwords(c) * sizeof(*c->hdr));
	c->drain = calloc((size_t)c->nproc, sizeof(*c->drain));
	c->qtype = malloc((size_t)c->nproc * sizeof(*c->qtype));
	c->stype = malloc((size_t)c->nproc * sizeof(*c->stype));
	c->req = malloc(nreq(c) * sizeof(*c->req));
	*dev_all = calloc(c->n, sizeof(**dev_all));
	if (!c->hdr || !c->drain || !c->qtype || !c->stype || !c->req || !*dev_all)
		goto fail;
	for (r = 0; r < nreq(c); r++)
		c->req[r] = MPI_REQUEST_NULL;
	for (r = 0; r < (unsigned int)c->nproc; r++) {
		c->qtype[r] = MPI_DATATYPE_NULL;
		c->stype[r] = MPI_DATATYPE_NULL;
	}
	/* Every process holds every rank's device, so the cost is the same everywhere. */
	for (r = 0; r < nlocal; r++)
		(*dev_all)[c->first + r] = device ? device[r] : 0;
	ret = -EIO;
	if (MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, *dev_all, (int)nlocal,
			  MPI_UINT32_T, c->mc) != MPI_SUCCESS)
		goto fail;
	*cp = c;
	return 0;
fail:
	free(*dev_all);
	*dev_all = NULL;
	release(c);
	return ret;
}

/* The proxy starts (with more than one process). 0, or -errno with c released. */
static int comm_start(struct nd_mpi_comm *c)
{
	int ret;

	if (c->nproc > 1) {
		if (MPI_Irecv(c->brk_in, B_WORDS, MPI_UINT64_T, MPI_ANY_SOURCE, TAG_BREAK, c->mc,
			      brk_recv(c)) != MPI_SUCCESS) {
			release(c);
			return -EIO;
		}
		ret = -pthread_create(&c->proxy, NULL, proxy_main, c);
		if (ret) {
			MPI_Cancel(brk_recv(c));
			MPI_Wait(brk_recv(c), MPI_STATUS_IGNORE);
			release(c);
			return ret;
		}
	}
	return 0;
}

int nd_mpi_comm_new(MPI_Comm mc, unsigned int nlocal, const uint32_t *device,
		    struct nd_mpi_comm **cp)
{
	struct nd_mpi_comm *c;
	uint32_t *dev_all;
	unsigned int r;
	int ret;

	*cp = NULL;
	ret = comm_setup(mc, nlocal, device, &c, &dev_all);
	if (ret)
		return ret;
	ret = nd_host_comm_new(c->n, dev_all, &c->hc);
	free(dev_all);
	if (ret) {
		release(c);
		return ret;
	}
	c->cm = nd_host_comm_core(c->hc);
	for (r = 0; r < c->n; r++) {
		vn_comm_set_node(c->cm, r, r / nlocal);
		if (r / nlocal != (unsigned int)c->me)
			vn_comm_set_remote(c->cm, r);
	}
	ret = comm_start(c);
	if (!ret)
		*cp = c;
	return ret;
}

int nd_mpi_comm_new_dev(MPI_Comm mc, struct nd_device *dev, unsigned int nlocal,
			const uint32_t *device, nd_comm_id *id, struct nd_mpi_comm **cp)
{
	uint32_t nodes[VN_COMM_MAX_RANKS];
	struct nd_mpi_comm *c;
	uint32_t *dev_all;
	unsigned int r;
	int ret, agree;

	*cp = NULL;
	if (id)
		memset(id, 0, sizeof(*id));
	ret = comm_setup(mc, nlocal, device, &c, &dev_all);
	if (ret)
		return ret;
	ret = -EINVAL;
	if (!dev || !id || c->nproc < 2)
		goto fail;
	c->dev = dev;
	for (r = 0; r < c->n; r++)
		nodes[r] = r / nlocal;
	ret = nd_comm_create(dev, c->n, &c->id);
	if (!ret) {
		ret = nd_comm_set_nodes(dev, &c->id, (unsigned int)c->me, nodes, dev_all, c->n);
		/* The queue as a mapped ring where the module has it (uapi 6). */
		if (!ret)
			ret = dev_stage(c, 4096);
		if (!ret) {
			ret = nd_netq_ring_open(dev, &c->id, c->dstage, c->stage_cap, &c->ring);
			if (ret == -EOPNOTSUPP)
				ret = 0;
		}
		if (ret)
			nd_comm_unregister(dev, &c->id);
	}
	/* Every process fails alike, or none does. */
	agree = ret;
	if (MPI_Allreduce(&ret, &agree, 1, MPI_INT, MPI_MIN, c->mc) != MPI_SUCCESS)
		agree = -EIO;
	if (agree && !ret)
		nd_comm_unregister(dev, &c->id);
	ret = ret ? ret : agree;
	if (ret)
		goto fail;
	free(dev_all);
	ret = comm_start(c);
	if (!ret) {
		*id = c->id;
		*cp = c;
	}
	return ret;
fail:
	free(dev_all);
	nd_netq_ring_close(c->ring);
	c->ring = NULL;
	nd_mem_free(c->dstage);
	c->dstage = NULL;
	c->stage = NULL;
	c->dev = NULL;
	release(c);
	return ret;
}
struct nd_host_comm *nd_mpi_comm_host(struct nd_mpi_comm *c)
{
	return c->hc;
}

unsigned int nd_mpi_comm_first(const struct nd_mpi_comm *c)
{
	return c->first;
}

unsigned int nd_mpi_comm_node(const struct nd_mpi_comm *c)
{
	return (unsigned int)c->me;
}

unsigned int nd_mpi_comm_nodes(const struct nd_mpi_comm *c)
{
	return (unsigned int)c->nproc;
}

uint64_t nd_mpi_comm_collectives(const struct nd_mpi_comm *c)
{
	return __atomic_load_n(&c->collectives, __ATOMIC_RELAXED);
}

int nd_mpi_comm_free(struct nd_mpi_comm *c)
{
	struct timespec until;
	int err;

	if (!c)
		return 0;
	if (c->nproc > 1) {
		__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += FREE_WAIT_S;
		if (pthread_timedjoin_np(c->proxy, NULL, &until)) {
			/*
			 * Stuck inside MPI (a library that cannot recover from a dead
			 * peer): the proxy and c are abandoned, c's local ranks broken.
			 */
			vnmpi_lc_break(c, c->first, -ETIMEDOUT, 0);
			pthread_detach(c->proxy);
			return -ETIMEDOUT;
		}
	}
	err = c->err;
	release(c);
	return err;
}
