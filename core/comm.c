// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Communicators (core/vn_comm.h): the rendezvous of the ranks at each collective, the
 * data movement by the last to arrive, and the modeled cost of the algorithms.
 */
#include "vn_comm.h"
#include "vn_model.h"
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

void vn_cc_links_of(const struct vneuron_model *m, struct vn_cc_link *intra,
		    struct vn_cc_link *inter)
{
	const struct vneuron_model_gen *g = vn_model_gen(m);

	*intra = (struct vn_cc_link){ .bytes_per_s = g->cc_intra_bw,
				      .latency_ps = (u64)g->cc_intra_latency_ns * 1000 };
	*inter = (struct vn_cc_link){ .bytes_per_s = g->cc_inter_bw,
				      .latency_ps = (u64)g->cc_inter_latency_ns * 1000 };
}

/*
 * Between nodes: AWS publishes 800 Gbps of EFA for trn1.32xlarge, 100 GB/s for the node's
 * 16 devices, shared by every hop leaving the node; the 10 us per hop is an assumption
 * (an RDMA round through two NICs and a switch), not a published figure.
 */
const struct vn_cc_link vn_cc_inter_node = {
	.bytes_per_s = 100000000000ULL,
	.latency_ps = 10000000ULL,		/* 10 us */
};

/*
 * One group's rendezvous, in use from its first member's arrival to its completion. A
 * slot is found by its group (lowest member, size, stride): groups of successive
 * collectives may share a lowest member while both are in flight (a rank that finished
 * {1,3} may reach {0,1} while 0 still meets 2).
 */
struct vn_cc_slot {
	bool used;
	bool moving;			/* its data moves, the lock dropped: members stay */
	u32 base, size, stride;
	u32 arrived;
	u64 latest_ps;
	u32 last;
	/* while moving: the work, in parts the waiting members take (move_part()) */
	const u32 *mem;			/* the members, on the completing rank's stack */
	u32 g, parts, next, done;
};

/* What a member's collective gave, kept per rank: slots are reused at once. */
struct vn_cc_outcome {
	int result;
	u64 done_ps, latest_ps;
	u32 last;
};

struct vn_comm {
	int refs;			/* atomic through the lock */
	u32 n;
	u32 device[VN_COMM_MAX_RANKS];
	u32 node[VN_COMM_MAX_RANKS];
	u64 remote;			/* bit per rank: posted by a proxy */
	struct vn_cc_link intra, inter, net;
	struct vn_lock *lock;		/* everything below */
	struct vn_cond *cond;
	bool broken;
	bool held;			/* a proxy reads the local inputs: nobody leaves */
	bool delivered;			/* the proxy writes the local outputs (no move) */
	void (*notify)(void *arg);	/* every local rank arrived (a proxy's ring) */
	void *notify_arg;
	u32 failed_rank;
	int failure;
	u64 fail_missing;
	u64 collectives;
	u64 parts_helped;		/* parts of moves a waiting member took */
	bool here[VN_COMM_MAX_RANKS];	/* arrived, its group not complete */
	const struct vn_cc_args *args[VN_COMM_MAX_RANKS];
	u64 arrive_ps[VN_COMM_MAX_RANKS];
	u64 deadline_ns[VN_COMM_MAX_RANKS];	/* of a waiting local rank, 0: none */
	struct vn_cc_outcome outcome[VN_COMM_MAX_RANKS];
	struct vn_cc_slot slot[VN_COMM_MAX_RANKS];	/* at most one group per rank in flight */
};

int vn_comm_create(const struct vn_comm_params *p, struct vn_comm **out)
{
	struct vn_comm *cm;
	u32 i;

	*out = NULL;
	if (!p->nranks || p->nranks > VN_COMM_MAX_RANKS ||
	    !p->intra.bytes_per_s || !p->inter.bytes_per_s)
		return -EINVAL;
	cm = vn_zalloc(sizeof(*cm));
	if (!cm)
		return -ENOMEM;
	cm->refs = 1;
	cm->n = p->nranks;
	cm->failed_rank = ~0u;
	for (i = 0; i < cm->n; i++) {
		cm->device[i] = p->device ? p->device[i] : 0;
		cm->node[i] = p->node ? p->node[i] : 0;
	}
	cm->intra = p->intra;
	cm->inter = p->inter;
	cm->net = p->net.bytes_per_s ? p->net : vn_cc_inter_node;
	cm->lock = vn_lock_create("vn_comm");
	cm->cond = vn_cond_create("vn_comm");
	if (!cm->lock || !cm->cond) {
		if (cm->cond)
			vn_cond_destroy(cm->cond);
		if (cm->lock)
			vn_lock_destroy(cm->lock);
		vn_free(cm);
		return -ENOMEM;
	}
	*out = cm;
	return 0;
}

void vn_comm_get(struct vn_comm *cm)
{
	vn_lock_take(cm->lock);
	cm->refs++;
	vn_lock_drop(cm->lock);
}

void vn_comm_put(struct vn_comm *cm)
{
	int left;

	vn_lock_take(cm->lock);
	left = --cm->refs;
	vn_lock_drop(cm->lock);
	if (left)
		return;
	vn_cond_destroy(cm->cond);
	vn_lock_destroy(cm->lock);
	vn_free(cm);
}

u32 vn_comm_size(const struct vn_comm *cm)
{
	return cm->n;
}

int vn_comm_set_device(struct vn_comm *cm, u32 rank, u32 device)
{
	if (rank >= cm->n)
		return -EINVAL;
	vn_lock_take(cm->lock);
	cm->device[rank] = device;
	vn_lock_drop(cm->lock);
	return 0;
}

int vn_comm_set_node(struct vn_comm *cm, u32 rank, u32 node)
{
	if (rank >= cm->n)
		return -EINVAL;
	vn_lock_take(cm->lock);
	cm->node[rank] = node;
	vn_lock_drop(cm->lock);
	return 0;
}

int vn_comm_set_remote(struct vn_comm *cm, u32 rank)
{
	if (rank >= cm->n)
		return -EINVAL;
	vn_lock_take(cm->lock);
	cm->remote |= 1ULL << rank;
	vn_lock_drop(cm->lock);
	return 0;
}

static bool is_remote(const struct vn_comm *cm, u32 rank)
{
	return cm->remote & (1ULL << rank);
}

void vn_comm_state(struct vn_comm *cm, struct vn_comm_state *st)
{
	vn_lock_take(cm->lock);
	st->broken = cm->broken;
	st->collectives = cm->collectives;
	st->parts_helped = cm->parts_helped;
	st->missing = cm->fail_missing;
	st->failed_rank = cm->failed_rank;
	st->failure = cm->failure;
	vn_lock_drop(cm->lock);
}

u32 vn_cc_group(u32 n, u32 rank, u32 group_size, u32 group_stride, u32 *members, u32 *index)
{
	u32 g = group_size, s = group_stride, span, base, k;

	if (!g) {
		g = n;
		s = 1;
	}
	if (!g || !s || rank >= n || g > VN_COMM_MAX_RANKS || s > VN_COMM_MAX_RANKS)
		return 0;
	span = g * s;
	if (span > n || n % span)
		return 0;
	base = rank % s + rank / span * span;
	for (k = 0; k < g; k++)
		members[k] = base + k * s;
	*index = (rank - base) / s;
	return g;
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
	if (cm->node[a] != cm->node[b])
		return &cm->net;
	return cm->device[a] == cm->device[b] ? &cm->intra : &cm->inter;
}

/* One link carrying bytes at 1 / share of its bandwidth: its latency plus the bytes, in ps. */
static u64 link_ps(const struct vn_cc_link *l, u64 bytes, u32 share)
{
	u64 per_us = l->bytes_per_s / 1000000 / share;	/* bytes per microsecond */

	if (!per_us)
		per_us = 1;
	/* bytes * 1e6 / per_us: bytes are below 2^44, so the product fits. */
	return l->latency_ps + bytes * 1000000 / per_us;
}

/*
 * One step over members m[0..g): member i sends chunk bytes to member i + shift, every
 * pair at once, and the slowest hop decides. The hops leaving one node for others share
 * its network link.
 */
static u64 step_ps(const struct vn_comm *cm, const u32 *m, u32 g, u32 shift, u64 chunk)
{
	u64 worst = 0, t;
	u32 i, j, a, share;

	for (i = 0; i < g; i++) {
		a = m[i];
		share = 1;
		if (cm->node[a] != cm->node[m[(i + shift) % g]]) {
			share = 0;
			for (j = 0; j < g; j++)
				if (cm->node[m[j]] == cm->node[a] &&
				    cm->node[m[(j + shift) % g]] != cm->node[a])
					share++;
		}
		t = link_ps(hop(cm, a, m[(i + shift) % g]), chunk, share);
		if (t > worst)
			worst = t;
	}
	return worst;
}

/* The modeled time of a collective among the members m[0..g). */
static u64 group_cost_ps(const struct vn_comm *cm, const u32 *m, u32 g, u32 op, u32 dtype,
			 u64 count, u32 shift)
{
	u64 n = g, bytes = count * dtype_bytes(dtype), part = (bytes + n - 1) / n;

	if (n == 1)
		return 0;
	switch (op) {
	case VN_CC_ALL_REDUCE:		/* reduce-scatter then all-gather of bytes / n */
		return 2 * (n - 1) * step_ps(cm, m, g, 1, part);
	case VN_CC_ALL_GATHER:		/* n - 1 steps of one rank's bytes */
		return (n - 1) * step_ps(cm, m, g, 1, bytes);
	case VN_CC_REDUCE_SCATTER:	/* count is the chunk: n - 1 steps of it */
	case VN_CC_ALL_TO_ALL:		/* n - 1 steps, each rank's chunk for one peer */
		return (n - 1) * step_ps(cm, m, g, 1, bytes);
	case VN_CC_PERMUTE:		/* every pair at once: the slowest link */
		if (!(shift % g))
			return 0;
		return step_ps(cm, m, g, shift % g, bytes);
	default:
		return 0;
	}
}

u64 vn_cc_cost_ps(const struct vn_comm *cm, u32 op, u32 dtype, u64 count)
{
	u32 m[VN_COMM_MAX_RANKS], i;

	for (i = 0; i < cm->n; i++)
		m[i] = i;
	return group_cost_ps(cm, m, cm->n, op, dtype, count, 1);
}

/* ---- the collective ---- */

static bool overlap(const void *a, u64 alen, const void *b, u64 blen)
{
	const u8 *x = a, *y = b;

	return x && y && alen && blen && x < y + blen && y < x + alen;
}

/* Every member agrees, every buffer is given, no member writes where another reads or writes. */
static bool args_ok(const struct vn_comm *cm, const u32 *m, u32 g)
{
	const struct vn_cc_args *a0 = cm->args[m[0]];
	u64 inb = vn_cc_in_bytes(a0->op, g, a0->dtype, a0->count);
	u64 outb = vn_cc_out_bytes(a0->op, g, a0->dtype, a0->count);
	u32 i, j;

	if (a0->op >= VN_CC_OPS || a0->reduce >= VN_CC_REDUCES || !dtype_bytes(a0->dtype) ||
	    !a0->count || !inb || !outb || inb > (1ULL << 40) || outb > (1ULL << 40) ||
	    (a0->op == VN_CC_PERMUTE && a0->shift >= g && !(a0->group_size == 0 &&
							   a0->shift < VN_COMM_MAX_RANKS)))
		return false;
	for (i = 0; i < g; i++) {
		const struct vn_cc_args *a = cm->args[m[i]];

		if (a->op != a0->op || a->reduce != a0->reduce || a->dtype != a0->dtype ||
		    a->count != a0->count || a->group_size != a0->group_size ||
		    a->group_stride != a0->group_stride || a->shift != a0->shift ||
		    !a->in || (!a->out && !is_remote(cm, m[i])))
			return false;
		for (j = 0; j < g; j++) {
			const struct vn_cc_args *b = cm->args[m[j]];

			/* A rank's own in may be its out only for an all-reduce (elementwise). */
			if (overlap(a->out, outb, b->in, inb) &&
			    !(j == i && a->op == VN_CC_ALL_REDUCE && a->out == b->in))
				return false;
			if (j != i && overlap(a->out, outb, b->out, outb))
				return false;
		}
	}
	return true;
}

/*
 * The data of a collective moves in parts that the members waiting for it take, the
 * last to arrive first (help()): ranges of elements (all-reduce, reduce-scatter), one
 * member's chunks (all-gather, all-to-all) or one copy (permute). Every output element
 * is computed by one part as the whole would compute it (the ranks' values in rank
 * order), so the results are the same bits however the parts are shared.
 */
#define VN_CC_PART_MIN	(256u << 10)	/* bytes: smaller collectives move in one part */

/* Element ranges per reduction: about four parts per member, none below the minimum. */
static u32 reduce_ranges(u64 count, u32 esize, u32 g)
{
	u64 r = count * esize / VN_CC_PART_MIN;

	return (u32)max_t(u64, 1, min_t(u64, r, 4 * g));
}

static u32 move_parts(const struct vn_comm *cm, const u32 *m, u32 g)
{
	const struct vn_cc_args *a0 = cm->args[m[0]];
	u32 esize = dtype_bytes(a0->dtype);

	switch (a0->op) {
	case VN_CC_ALL_REDUCE:
		return reduce_ranges(a0->count, esize, g);
	case VN_CC_REDUCE_SCATTER:
		return g * reduce_ranges(a0->count, esize, g);
	default:
		return g;
	}
}

/* Elements [lo, hi) of range i of n over count. */
static void range_of(u64 count, u32 n, u32 i, u64 *lo, u64 *hi)
{
	*lo = count / n * i + min_t(u64, i, count % n);
	*hi = *lo + count / n + (i < count % n);
}

/* Elements [lo, hi) of every member's reduction into the outs given (not NULL). */
static void reduce_range(const struct vn_comm *cm, const u32 *m, u32 g, void *const *out,
			 u32 nout, u64 in_first, u64 lo, u64 hi)
{
	const struct vn_cc_args *a0 = cm->args[m[0]];
	u32 esize = dtype_bytes(a0->dtype), r, o;
	const void *in[VN_COMM_MAX_RANKS];
	void *outs[VN_COMM_MAX_RANKS];

	for (r = 0; r < g; r++)
		in[r] = cm->args[m[r]]->in;
	for (o = 0; o < nout; o++)
		outs[o] = (u8 *)out[o] + lo * esize;
	if (nout)
		vn_cc_reduce(a0->reduce, a0->dtype, outs, nout, in, g, in_first + lo, hi - lo);
}

/* Moves part i of move_parts(). */
static void move_part(const struct vn_comm *cm, const u32 *m, u32 g, u32 i)
{
	const struct vn_cc_args *a0 = cm->args[m[0]];
	u64 chunk = a0->count * dtype_bytes(a0->dtype), lo, hi;
	const struct vn_cc_args *ar = cm->args[m[i % g]];
	void *outs[VN_COMM_MAX_RANKS];
	u32 r, j, nout = 0, n;

	switch (a0->op) {
	case VN_CC_ALL_REDUCE:
		/* A remote rank's out may be NULL: its own node writes it. */
		for (r = 0; r < g; r++)
			if (cm->args[m[r]]->out)
				outs[nout++] = cm->args[m[r]]->out;
		range_of(a0->count, move_parts(cm, m, g), i, &lo, &hi);
		reduce_range(cm, m, g, outs, nout, 0, lo, hi);
		break;
	case VN_CC_REDUCE_SCATTER:
		/* range i / g of member j's chunk */
		n = move_parts(cm, m, g) / g;
		j = i / n;
		outs[0] = cm->args[m[j]]->out;
		range_of(a0->count, n, i % n, &lo, &hi);
		reduce_range(cm, m, g, outs, outs[0] ? 1 : 0, (u64)j * a0->count, lo, hi);
		break;
	case VN_CC_ALL_GATHER:
		for (j = 0; ar->out && j < g; j++)
			memcpy((u8 *)ar->out + j * chunk, cm->args[m[j]]->in, chunk);
		break;
	case VN_CC_ALL_TO_ALL:
		for (j = 0; ar->out && j < g; j++)
			memcpy((u8 *)ar->out + j * chunk,
			       (const u8 *)cm->args[m[j]]->in + i * chunk, chunk);
		break;
	case VN_CC_PERMUTE:
		/* member i's in to member i + shift */
		if (cm->args[m[(i + a0->shift) % g]]->out)
			memcpy(cm->args[m[(i + a0->shift) % g]]->out, ar->in, chunk);
		break;
	}
	vn_cond_resched();
}

/*
 * Under the lock: takes parts of sl's move until none is left, the lock dropped while
 * each moves; the last part done wakes the members.
 */
static void help(struct vn_comm *cm, struct vn_cc_slot *sl, bool waiter)
{
	u32 part;

	while (sl->next < sl->parts) {
		part = sl->next++;
		vn_lock_drop(cm->lock);
		move_part(cm, sl->mem, sl->g, part);
		vn_lock_take(cm->lock);
		cm->parts_helped += waiter;
		if (++sl->done == sl->parts)
			vn_cond_broadcast(cm->cond);
	}
}

/*
 * Called with the lock held by the last member to arrive; drops it while the data moves
 * (gigabytes take seconds: COMM_INFO and the others' wake-ups must not wait on the lock
 * meanwhile), the waiting members moving parts of it too (help()). The members' waits
 * hold on while the slot is moving, so no buffer is let go under the copy.
 */
static void complete(struct vn_comm *cm, struct vn_cc_slot *sl, const u32 *m, u32 g)
{
	const struct vn_cc_args *a0 = cm->args[m[0]];
	struct vn_cc_outcome o = { .latest_ps = sl->latest_ps, .last = sl->last };
	u32 i;

	if (args_ok(cm, m, g)) {
		sl->moving = true;
		sl->mem = m;
		sl->g = g;
		/* a proxy wrote the local outputs itself (vn_comm_proxy_deliver()) */
		sl->parts = cm->delivered ? 0 : move_parts(cm, m, g);
		cm->delivered = false;
		sl->next = 0;
		sl->done = 0;
		/* the members waiting take parts too */
		vn_cond_broadcast(cm->cond);
		help(cm, sl, false);
		while (sl->done < sl->parts)
			vn_cond_wait_worker(cm->cond, cm->lock, vn_time_ns() + 1000000);
		sl->moving = false;
		o.result = 0;
		o.done_ps = sl->latest_ps + group_cost_ps(cm, m, g, a0->op, a0->dtype,
							  a0->count, a0->shift);
		cm->collectives++;
	} else {
		o.result = -EINVAL;
		o.done_ps = sl->latest_ps;
		/* Nothing moved; the communicator is of no further use. */
		cm->broken = true;
		cm->failed_rank = m[0];
		cm->failure = -EINVAL;
	}
	for (i = 0; i < g; i++) {
		cm->outcome[m[i]] = o;
		cm->here[m[i]] = false;
		cm->args[m[i]] = NULL;
	}
	*sl = (struct vn_cc_slot){ .used = false };
	vn_cond_broadcast(cm->cond);
}

/* The slot of a group, or a free one for it; NULL if none (cannot happen: <= n groups). */
/* Under the lock: rank's outcome of its completed collective into res; its result. */
static int take_outcome(const struct vn_comm *cm, u32 rank, struct vn_cc_result *res)
{
	const struct vn_cc_outcome *o = &cm->outcome[rank];

	res->done_ps = o->done_ps;
	res->latest_ps = o->latest_ps;
	res->last = o->last;
	return o->result;
}

static struct vn_cc_slot *find_slot(struct vn_comm *cm, u32 base, u32 size, u32 stride)
{
	struct vn_cc_slot *free_sl = NULL;
	u32 i;

	for (i = 0; i < cm->n; i++) {
		struct vn_cc_slot *sl = &cm->slot[i];

		if (sl->used && sl->base == base && sl->size == size && sl->stride == stride)
			return sl;
		if (!sl->used && !free_sl)
			free_sl = sl;
	}
	if (free_sl)
		*free_sl = (struct vn_cc_slot){ .used = true, .base = base, .size = size,
						.stride = stride };
	return free_sl;
}

static u64 missing_mask(const struct vn_comm *cm, const u32 *m, u32 g)
{
	u64 mask = 0;
	u32 i;

	for (i = 0; i < g; i++)
		if (!cm->here[m[i]] && m[i] < 64)
			mask |= 1ULL << m[i];
	return mask;
}

static void fail(struct vn_comm *cm, u32 rank, int err)
{
	if (!cm->broken) {
		cm->broken = true;
		cm->failed_rank = rank;
		cm->failure = err;
	}
	vn_cond_broadcast(cm->cond);
}

static bool locals_here(const struct vn_comm *cm);

/*
 * Under the lock: rank arrives at its group (members into m[], their number into *g).
 * 0 once counted (the group completed if *done), or -EPIPE, -EINVAL.
 */
static int arrive(struct vn_comm *cm, u32 rank, const struct vn_cc_args *a, u64 arrive_ps,
		  u32 *m, u32 *g, bool *done, struct vn_cc_slot **slp)
{
	struct vn_cc_slot *sl;
	u32 idx;

	*done = false;
	*slp = NULL;
	if (cm->broken || cm->here[rank])
		return cm->broken ? -EPIPE : -EINVAL;
	*g = vn_cc_group(cm->n, rank, a->group_size, a->group_stride, m, &idx);
	sl = *g ? find_slot(cm, m[0], a->group_size, a->group_stride) : NULL;
	if (!sl) {
		fail(cm, rank, -EINVAL);
		return -EINVAL;
	}
	if (!sl->arrived || arrive_ps > sl->latest_ps ||
	    (arrive_ps == sl->latest_ps && rank < sl->last)) {
		sl->latest_ps = arrive_ps;
		sl->last = rank;
	}
	cm->here[rank] = true;
	cm->args[rank] = a;
	cm->arrive_ps[rank] = arrive_ps;
	*slp = sl;
	if (cm->notify && !is_remote(cm, rank) && locals_here(cm))
		cm->notify(cm->notify_arg);
	if (++sl->arrived == *g) {
		complete(cm, sl, m, *g);
		*done = true;
	}
	return 0;
}

int vn_comm_collective(struct vn_comm *cm, u32 rank, const struct vn_cc_args *a, u64 arrive_ps,
		       u64 deadline_ns, const int *abort, struct vn_cc_result *res)
{
	u32 m[VN_COMM_MAX_RANKS], g = 1;
	struct vn_cc_slot *sl;
	u64 now, until;
	bool done;
	int ret = 0;

	*res = (struct vn_cc_result){ .done_ps = arrive_ps, .latest_ps = arrive_ps,
				      .last = rank, .members = 1 };
	if (rank >= cm->n || !a)
		return -EINVAL;
	vn_lock_take(cm->lock);
	cm->deadline_ns[rank] = deadline_ns;
	ret = arrive(cm, rank, a, arrive_ps, m, &g, &done, &sl);
	if (ret)
		goto out;
	res->members = g;
	if (!done) {
		while (cm->here[rank]) {
			/*
			 * Its slot stays until here[rank] clears; a moving one is waited out, and
			 * so is a proxy reading its input (vn_comm_proxy_hold()).
			 */
			if (sl->moving && sl->next < sl->parts) {
				help(cm, sl, true);
				continue;
			}
			if (sl->moving || cm->held) {
				vn_cond_wait_worker(cm->cond, cm->lock, vn_time_ns() + 1000000);
				continue;
			}
			if (cm->broken)
				break;
			now = vn_time_ns();
			if (deadline_ns && now >= deadline_ns) {
				res->missing = missing_mask(cm, m, g);
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
			if (!cm->broken && ret == -ETIMEDOUT)
				cm->fail_missing = res->missing;
			fail(cm, rank, ret);
			goto out;
		}
		if (cm->here[rank]) {
			/* Broken while waiting: a timeout names the missing for everyone. */
			ret = cm->failure == -ETIMEDOUT ? -ETIMEDOUT : -EPIPE;
			res->missing = cm->fail_missing;
			goto out;
		}
	}
	ret = take_outcome(cm, rank, res);
out:
	vn_lock_drop(cm->lock);
	return ret;
}

void vn_comm_leave(struct vn_comm *cm, u32 rank)
{
	vn_comm_break(cm, rank, -EPIPE);
}

void vn_comm_break(struct vn_comm *cm, u32 rank, int err)
{
	vn_comm_break_missing(cm, rank, err, 0);
}

void vn_comm_break_missing(struct vn_comm *cm, u32 rank, int err, u64 missing)
{
	vn_lock_take(cm->lock);
	if (!cm->broken && err == -ETIMEDOUT)
		cm->fail_missing = missing;
	fail(cm, rank, err);
	vn_lock_drop(cm->lock);
}

/* ---- the proxy of remote ranks ---- */

int vn_comm_arrive(struct vn_comm *cm, u32 rank, const struct vn_cc_args *a, u64 arrive_ps,
		   struct vn_cc_result *res)
{
	u32 m[VN_COMM_MAX_RANKS], g = 1;
	struct vn_cc_slot *sl;
	bool done;
	int ret;

	*res = (struct vn_cc_result){ .done_ps = arrive_ps, .latest_ps = arrive_ps,
				      .last = rank, .members = 1 };
	if (rank >= cm->n || !a || !is_remote(cm, rank))
		return -EINVAL;
	vn_lock_take(cm->lock);
	ret = arrive(cm, rank, a, arrive_ps, m, &g, &done, &sl);
	if (!ret && done) {
		res->members = g;
		ret = take_outcome(cm, rank, res);
	}
	vn_lock_drop(cm->lock);
	return ret;
}

/* Under the lock: every rank of this node waits at a collective. */
static bool locals_here(const struct vn_comm *cm)
{
	u32 r;

	for (r = 0; r < cm->n; r++)
		if (!is_remote(cm, r) && !cm->here[r])
			return false;
	return true;
}

static int proxy_wait(struct vn_comm *cm, u64 deadline_ns, const int *abort,
		      struct vn_cc_pending *p, bool hold)
{
	u64 all = cm->n == 64 ? ~0ULL : (1ULL << cm->n) - 1, now, until;
	int ret = 0;
	u32 r;

	/* Held, a group of locals only could complete and let its ranks go. */
	if ((cm->remote & all) == all || (hold && !(cm->remote & all)))
		return -EINVAL;
	vn_lock_take(cm->lock);
	while (!cm->broken && !locals_here(cm)) {
		now = vn_time_ns();
		if (deadline_ns && now >= deadline_ns) {
			ret = -ETIMEDOUT;
			goto out;
		}
		if ((abort && vn_load_acquire(abort)) || vn_fatal_signal_pending()) {
			ret = -EINTR;
			goto out;
		}
		until = now + 1000000;
		if (deadline_ns && deadline_ns < until)
			until = deadline_ns;
		vn_cond_wait_worker(cm->cond, cm->lock, until);
	}
	if (cm->broken) {
		ret = -EPIPE;
		goto out;
	}
	for (r = 0; hold && r < cm->n; r++) {
		/* Each group must hold a remote rank, or it could complete while held. */
		if (!is_remote(cm, r) && cm->args[r]->group_size) {
			ret = -EINVAL;
			goto out;
		}
	}
	cm->held = hold;
	for (r = 0; r < cm->n; r++) {
		p->args[r] = is_remote(cm, r) ? NULL : cm->args[r];
		p->arrive_ps[r] = is_remote(cm, r) ? 0 : cm->arrive_ps[r];
	}
out:
	vn_lock_drop(cm->lock);
	return ret;
}

int vn_comm_proxy_wait(struct vn_comm *cm, u64 deadline_ns, const int *abort,
		       struct vn_cc_pending *p)
{
	return proxy_wait(cm, deadline_ns, abort, p, false);
}

int vn_comm_proxy_hold(struct vn_comm *cm, u64 deadline_ns, const int *abort,
		       struct vn_cc_pending *p)
{
	return proxy_wait(cm, deadline_ns, abort, p, true);
}

void vn_comm_set_proxy_notify(struct vn_comm *cm, void (*fn)(void *arg), void *arg)
{
	vn_lock_take(cm->lock);
	cm->notify = fn;
	cm->notify_arg = arg;
	if (fn && !cm->broken && locals_here(cm))
		fn(arg);
	vn_lock_drop(cm->lock);
}

int vn_comm_proxy_deliver(struct vn_comm *cm, u64 *deadline_ns)
{
	const struct vn_cc_args *a, *b;
	u64 bytes = 0;
	u32 r, j;
	int ret = 0;

	*deadline_ns = 0;
	vn_lock_take(cm->lock);
	if (cm->broken || !locals_here(cm)) {
		ret = -EPIPE;
		goto out;
	}
	for (r = 0; r < cm->n && !ret; r++) {
		if (is_remote(cm, r))
			continue;
		a = cm->args[r];
		bytes = vn_cc_out_bytes(a->op, cm->n, a->dtype, a->count);
		if (a->op != VN_CC_ALL_REDUCE || a->group_size || !a->in || !a->out || !bytes)
			ret = -EINVAL;
		/* as args_ok(): an out on nobody's data but its own rank's in */
		for (j = 0; j < cm->n && !ret; j++) {
			b = cm->args[j];
			if (is_remote(cm, j) || j == r)
				continue;
			if (overlap(a->out, bytes, b->in, bytes) ||
			    overlap(a->out, bytes, b->out, bytes))
				ret = -EINVAL;
		}
		if (cm->deadline_ns[r] && (!*deadline_ns || cm->deadline_ns[r] < *deadline_ns))
			*deadline_ns = cm->deadline_ns[r];
	}
	if (!ret) {
		cm->held = true;
		cm->delivered = true;
	}
out:
	vn_lock_drop(cm->lock);
	return ret;
}

void vn_comm_proxy_release(struct vn_comm *cm)
{
	vn_lock_take(cm->lock);
	cm->held = false;
	cm->delivered = false;
	vn_cond_broadcast(cm->cond);
	vn_lock_drop(cm->lock);
}
