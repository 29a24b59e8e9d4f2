// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Communicators (core/vn_comm.h): the rendezvous of the ranks at each collective, the
 * data movement by the last to arrive, and the modeled cost of the algorithms.
 */
#include "vn_comm.h"
#include "vn_os.h"
#include "vneuron_program.h"

/*
 * The links. AWS publishes per-device figures for trn1 (820 GiB/s of HBM, 1 TB/s of
 * DMA, NeuronLink-v2 between devices) but no per-link bandwidth or latency, so these are
 * assumptions, kept in one place (docs/isa.md says so): two cores of a device exchange
 * through the device's DMA at half of its 1 TB/s each way; devices through one
 * NeuronLink-v2 port, taken as 192 GB/s, with a few microseconds per hop as NCCL-class
 * interconnects show.
 */
const struct vn_cc_link vn_cc_intra_device = {
	.bytes_per_s = 500000000000ULL,
	.latency_ps = 1000000ULL,		/* 1 us */
};

const struct vn_cc_link vn_cc_inter_device = {
	.bytes_per_s = 192000000000ULL,
	.latency_ps = 2000000ULL,		/* 2 us */
};

struct vn_comm {
	u32 n;
	u32 device[VN_COMM_MAX_RANKS];
	struct vn_cc_link intra, inter;
	struct vn_lock *lock;		/* everything below */
	struct vn_cond *cond;
	bool broken;
	/* the collective being gathered */
	u64 round;			/* collectives completed so far */
	u32 arrived;
	bool here[VN_COMM_MAX_RANKS];
	const struct vn_cc_args *args[VN_COMM_MAX_RANKS];
	u64 latest_ps;
	/* the last one completed */
	int result;
	u64 done_ps;
};

int vn_comm_create(const struct vn_comm_params *p, struct vn_comm **out)
{
	struct vn_comm *cm;
	u32 i;

	*out = NULL;
	if (!p->nranks || p->nranks > VN_COMM_MAX_RANKS || !p->device ||
	    !p->intra.bytes_per_s || !p->inter.bytes_per_s)
		return -EINVAL;
	cm = vn_zalloc(sizeof(*cm));
	if (!cm)
		return -ENOMEM;
	cm->n = p->nranks;
	for (i = 0; i < cm->n; i++)
		cm->device[i] = p->device[i];
	cm->intra = p->intra;
	cm->inter = p->inter;
	cm->lock = vn_lock_create("vn_comm");
	cm->cond = vn_cond_create("vn_comm");
	if (!cm->lock || !cm->cond) {
		vn_comm_destroy(cm);
		return -ENOMEM;
	}
	*out = cm;
	return 0;
}

void vn_comm_destroy(struct vn_comm *cm)
{
	if (!cm)
		return;
	if (cm->cond)
		vn_cond_destroy(cm->cond);
	if (cm->lock)
		vn_lock_destroy(cm->lock);
	vn_free(cm);
}

/* ---- cost ---- */

static u32 dtype_bytes(u32 dtype)
{
	return dtype == VNEF_DT_FP32 ? 4 : dtype == VNEF_DT_BF16 ? 2 : 0;
}

u64 vn_cc_in_bytes(u32 op, u32 nranks, u32 dtype, u64 count)
{
	u64 elems = count, bytes;

	if (op == VN_CC_REDUCE_SCATTER || op == VN_CC_ALL_TO_ALL) {
		if (check_mul_overflow(count, (u64)nranks, &elems))
			return 0;
	}
	if (check_mul_overflow(elems, (u64)dtype_bytes(dtype), &bytes))
		return 0;
	return bytes;
}

u64 vn_cc_out_bytes(u32 op, u32 nranks, u32 dtype, u64 count)
{
	u64 elems = count, bytes;

	if (op == VN_CC_ALL_GATHER || op == VN_CC_ALL_TO_ALL) {
		if (check_mul_overflow(count, (u64)nranks, &elems))
			return 0;
	}
	if (check_mul_overflow(elems, (u64)dtype_bytes(dtype), &bytes))
		return 0;
	return bytes;
}

static const struct vn_cc_link *hop(const struct vn_comm *cm, u32 a, u32 b)
{
	return cm->device[a] == cm->device[b] ? &cm->intra : &cm->inter;
}

/* One link carrying bytes: its latency plus the bytes at its bandwidth, in ps. */
static u64 link_ps(const struct vn_cc_link *l, u64 bytes)
{
	u64 per_us = l->bytes_per_s / 1000000;	/* bytes per microsecond */

	if (!per_us)
		per_us = 1;
	/* bytes * 1e6 / per_us: bytes are below 2^44, so the product fits. */
	return l->latency_ps + bytes * 1000000 / per_us;
}

/* A ring step: every hop carries chunk bytes at once; the slowest decides. */
static u64 ring_step_ps(const struct vn_comm *cm, u64 chunk)
{
	u64 worst = 0, t;
	u32 r;

	for (r = 0; r < cm->n; r++) {
		t = link_ps(hop(cm, r, (r + 1) % cm->n), chunk);
		if (t > worst)
			worst = t;
	}
	return worst;
}

u64 vn_cc_cost_ps(const struct vn_comm *cm, u32 op, u32 dtype, u64 count)
{
	u64 n = cm->n, bytes = count * dtype_bytes(dtype);
	u64 part = (bytes + n - 1) / n;

	if (n == 1)
		return 0;
	switch (op) {
	case VN_CC_ALL_REDUCE:		/* reduce-scatter then all-gather of bytes / n */
		return 2 * (n - 1) * ring_step_ps(cm, part);
	case VN_CC_ALL_GATHER:		/* n - 1 steps of one rank's bytes */
		return (n - 1) * ring_step_ps(cm, bytes);
	case VN_CC_REDUCE_SCATTER:	/* count is the chunk: n - 1 steps of it */
	case VN_CC_ALL_TO_ALL:		/* n - 1 steps, each rank's chunk for one peer */
		return (n - 1) * ring_step_ps(cm, bytes);
	case VN_CC_PERMUTE:		/* every pair at once: the slowest link */
		return ring_step_ps(cm, bytes);
	default:
		return 0;
	}
}

/* ---- the collective ---- */

static bool overlap(const void *a, u64 alen, const void *b, u64 blen)
{
	const u8 *x = a, *y = b;

	return alen && blen && x < y + blen && y < x + alen;
}

/* Every rank agrees, every buffer is given, no rank writes where another reads or writes. */
static bool args_ok(const struct vn_comm *cm)
{
	const struct vn_cc_args *a0 = cm->args[0];
	u64 inb = vn_cc_in_bytes(a0->op, cm->n, a0->dtype, a0->count);
	u64 outb = vn_cc_out_bytes(a0->op, cm->n, a0->dtype, a0->count);
	bool recv[VN_COMM_MAX_RANKS] = { false };
	u32 r, s;

	if (a0->op >= VN_CC_OPS || a0->reduce >= VN_CC_REDUCES || !dtype_bytes(a0->dtype) ||
	    !a0->count || !inb || !outb || inb > (1ULL << 40) || outb > (1ULL << 40))
		return false;
	for (r = 0; r < cm->n; r++) {
		const struct vn_cc_args *a = cm->args[r];

		if (a->op != a0->op || a->reduce != a0->reduce || a->dtype != a0->dtype ||
		    a->count != a0->count || !a->in || !a->out)
			return false;
		if (a->op == VN_CC_PERMUTE) {
			if (a->peer >= cm->n || recv[a->peer])
				return false;
			recv[a->peer] = true;
		}
		for (s = 0; s < cm->n; s++) {
			const struct vn_cc_args *b = cm->args[s];

			/* A rank's own in may be its out only for an all-reduce (elementwise). */
			if (overlap(a->out, outb, b->in, inb) &&
			    !(s == r && a->op == VN_CC_ALL_REDUCE && a->out == b->in))
				return false;
			if (s != r && overlap(a->out, outb, b->out, outb))
				return false;
		}
	}
	return true;
}

/* The last arrival moves the data of every rank. */
static void move(struct vn_comm *cm)
{
	const struct vn_cc_args *a0 = cm->args[0];
	u64 chunk = a0->count * dtype_bytes(a0->dtype);
	const void *in[VN_COMM_MAX_RANKS];
	void *out[VN_COMM_MAX_RANKS];
	u32 r, j;

	for (r = 0; r < cm->n; r++) {
		in[r] = cm->args[r]->in;
		out[r] = cm->args[r]->out;
	}
	switch (a0->op) {
	case VN_CC_ALL_REDUCE:
		vn_cc_reduce(a0->reduce, a0->dtype, out, cm->n, in, cm->n, 0, a0->count);
		break;
	case VN_CC_REDUCE_SCATTER:
		for (j = 0; j < cm->n; j++)
			vn_cc_reduce(a0->reduce, a0->dtype, &out[j], 1, in, cm->n,
				     (u64)j * a0->count, a0->count);
		break;
	case VN_CC_ALL_GATHER:
		for (r = 0; r < cm->n; r++) {
			for (j = 0; j < cm->n; j++)
				memcpy((u8 *)out[r] + j * chunk, in[j], chunk);
			vn_cond_resched();
		}
		break;
	case VN_CC_ALL_TO_ALL:
		for (r = 0; r < cm->n; r++) {
			for (j = 0; j < cm->n; j++)
				memcpy((u8 *)out[r] + j * chunk, (const u8 *)in[j] + r * chunk,
				       chunk);
			vn_cond_resched();
		}
		break;
	case VN_CC_PERMUTE:
		for (r = 0; r < cm->n; r++) {
			memcpy(out[cm->args[r]->peer], in[r], chunk);
			vn_cond_resched();
		}
		break;
	}
}

static void complete(struct vn_comm *cm)
{
	const struct vn_cc_args *a0 = cm->args[0];
	u32 r;

	if (args_ok(cm)) {
		move(cm);
		cm->result = 0;
		cm->done_ps = cm->latest_ps + vn_cc_cost_ps(cm, a0->op, a0->dtype, a0->count);
	} else {
		cm->result = -EINVAL;
		cm->done_ps = cm->latest_ps;
	}
	cm->round++;
	cm->arrived = 0;
	cm->latest_ps = 0;
	for (r = 0; r < cm->n; r++) {
		cm->here[r] = false;
		cm->args[r] = NULL;
	}
	vn_cond_broadcast(cm->cond);
}

static u64 missing_mask(const struct vn_comm *cm)
{
	u64 m = 0;
	u32 r;

	for (r = 0; r < cm->n && r < 64; r++)
		if (!cm->here[r])
			m |= 1ULL << r;
	return m;
}

int vn_comm_collective(struct vn_comm *cm, u32 rank, const struct vn_cc_args *a, u64 arrive_ps,
		       u64 deadline_ns, const int *abort, u64 *done_ps, u64 *missing)
{
	u64 round, now, until;
	int ret = 0;

	*done_ps = arrive_ps;
	*missing = 0;
	if (rank >= cm->n || !a)
		return -EINVAL;
	vn_lock_take(cm->lock);
	if (cm->broken || cm->here[rank]) {
		ret = cm->broken ? -EPIPE : -EINVAL;
		goto out;
	}
	round = cm->round;
	cm->here[rank] = true;
	cm->args[rank] = a;
	if (arrive_ps > cm->latest_ps)
		cm->latest_ps = arrive_ps;
	if (++cm->arrived == cm->n) {
		complete(cm);
	} else {
		while (cm->round == round && !cm->broken) {
			now = vn_time_ns();
			if (deadline_ns && now >= deadline_ns) {
				*missing = missing_mask(cm);
				ret = -ETIMEDOUT;
				break;
			}
			if ((abort && vn_load_acquire(abort)) || vn_fatal_signal_pending()) {
				ret = -EINTR;
				break;
			}
			/* Wake at least every millisecond to look at abort. */
			until = now + 1000000;
			if (deadline_ns && deadline_ns < until)
				until = deadline_ns;
			vn_cond_wait_worker(cm->cond, cm->lock, until);
		}
		if (ret) {
			/* This rank gives up: nobody can complete this collective any more. */
			cm->broken = true;
			vn_cond_broadcast(cm->cond);
			goto out;
		}
		if (cm->round == round) {
			ret = -EPIPE;
			goto out;
		}
	}
	ret = cm->result;
	*done_ps = cm->done_ps;
out:
	vn_lock_drop(cm->lock);
	return ret;
}

void vn_comm_leave(struct vn_comm *cm, u32 rank)
{
	vn_lock_take(cm->lock);
	cm->broken = true;
	vn_cond_broadcast(cm->cond);
	vn_lock_drop(cm->lock);
}
