/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Communicators and collectives (docs/isa.md, "Collectives"): the ranks of one
 * communicator meet at each collective, the last to arrive moves the data between their
 * buffers, and every rank's collective completes at the same modeled time: the latest
 * arrival plus the algorithm's cost over the topology. OS-independent: the module's CC
 * engine and the host backend both call it, each rank from its own thread.
 *
 * Data: results are exact and deterministic. A reduction adds the ranks' values in rank
 * order (0, 1, ..., n-1) in fp32 (bf16 inputs are widened, the sum rounded once to
 * bf16), whatever algorithm the cost models; a C loop in that order gives the same bits.
 *
 * Time: ring algorithms over the ranks in rank order. A step moves one chunk across
 * every hop of the ring at once and takes the slowest hop's latency + chunk / bandwidth;
 * a hop is intra-device (both ranks on one device of one node), inter-device (two
 * devices of one node) or inter-node, where the hops of a step leaving one node share
 * its network bandwidth. Step counts and chunks per operation are vn_cc_cost_ps()'s
 * (docs/isa.md gives the formulas).
 *
 * The transport boundary: this file only needs every rank's buffers addressable by the
 * last arriver. Ranks on other nodes are marked remote (vn_comm_set_remote()) and join
 * through a proxy that stages their buffers: it waits for this node's ranks
 * (vn_comm_proxy_wait()), exchanges their inputs and arrival times with the other nodes,
 * then posts the remote ranks' arrivals (vn_comm_arrive()), so the rendezvous, the
 * rank-order arithmetic and the cost stay the same on every node.
 */
#ifndef VN_COMM_H
#define VN_COMM_H

#include "vn_platform.h"

/* Ranks per communicator, at most. */
#define VN_COMM_MAX_RANKS	64

enum vn_cc_op {
	VN_CC_ALL_REDUCE,	/* in [count] -> out [count]: the reduction of every rank's in */
	VN_CC_ALL_GATHER,	/* in [count] -> out [n * count]: rank r's in at r * count */
	VN_CC_REDUCE_SCATTER,	/* in [n * count] -> out [count]: chunk r of the reduction */
	VN_CC_ALL_TO_ALL,	/* in [n * count] -> out [n * count]: out_r[j] = in_j[r] */
	VN_CC_PERMUTE,		/* in [count] -> out [count] of member i + shift (send/recv) */
	VN_CC_OPS,
};

enum vn_cc_reduce {
	VN_CC_SUM,
	VN_CC_MAX,
	VN_CC_REDUCES,
};

/*
 * What one rank brings to a collective. Every member of its group must agree on op,
 * reduce, dtype, count and the group (uapi struct vnef_cc_instr says what they mean).
 */
struct vn_cc_args {
	u32 op;			/* enum vn_cc_op */
	u32 reduce;		/* enum vn_cc_reduce (ALL_REDUCE, REDUCE_SCATTER) */
	u32 dtype;		/* VNEF_DT_FP32 or VNEF_DT_BF16 */
	u32 group_size;		/* members per group; 0: every rank */
	u32 group_stride;	/* rank distance between members (group_size != 0) */
	u32 shift;		/* PERMUTE: member i sends to member (i + shift) mod n */
	u64 count;		/* elements, as in enum vn_cc_op */
	const void *in;		/* this rank's buffers, valid until the collective ends */
	void *out;
};

/* How a collective went on one rank (vn_comm_collective()). */
struct vn_cc_result {
	u64 done_ps;		/* its modeled completion, the same on every member */
	u64 latest_ps;		/* the latest member's arrival: the data moved from then */
	u64 missing;		/* -ETIMEDOUT: members that had not arrived (bit per rank) */
	u32 last;		/* the member that arrived last (the lowest of a tie) */
	u32 members;		/* ranks in its group */
};

/* One link class of the topology. */
struct vn_cc_link {
	u64 bytes_per_s;
	u64 latency_ps;
};

struct vn_comm_params {
	u32 nranks;
	/* device of each rank (equal devices of one node share the intra link), or NULL */
	const u32 *device;
	/* node of each rank (different nodes: the net link), or NULL: all on node 0 */
	const u32 *node;
	struct vn_cc_link intra;
	struct vn_cc_link inter;
	struct vn_cc_link net;		/* per node; bytes_per_s 0: vn_cc_inter_node */
};

struct vn_comm;

/* The links vneuron models (core/comm.c: figures and their sources). */
extern const struct vn_cc_link vn_cc_intra_device;
extern const struct vn_cc_link vn_cc_inter_device;
extern const struct vn_cc_link vn_cc_inter_node;

struct vneuron_model;
/*
 * The intra- and inter-device links of model @m (NULL: trn1's), from its struct
 * vneuron_model_gen figures; trn1's are vn_cc_intra_device and vn_cc_inter_device.
 */
void vn_cc_links_of(const struct vneuron_model *m, struct vn_cc_link *intra,
		    struct vn_cc_link *inter);

/*
 * A communicator of p->nranks (1..VN_COMM_MAX_RANKS) ranks, with one reference.
 * -EINVAL, -ENOMEM.
 */
int vn_comm_create(const struct vn_comm_params *p, struct vn_comm **out);
void vn_comm_get(struct vn_comm *cm);
/* Drops a reference; the last frees it. */
void vn_comm_put(struct vn_comm *cm);
static inline void vn_comm_destroy(struct vn_comm *cm)
{
	if (cm)
		vn_comm_put(cm);
}

u32 vn_comm_size(const struct vn_comm *cm);
/* The device rank is on (before its first collective). -EINVAL for a bad rank. */
int vn_comm_set_device(struct vn_comm *cm, u32 rank, u32 device);
/* The node rank is on (before its first collective). -EINVAL for a bad rank. */
int vn_comm_set_node(struct vn_comm *cm, u32 rank, u32 node);
/*
 * Marks rank as remote: its proxy posts its arrivals (vn_comm_arrive()) and its out may
 * be NULL (nothing written for it). -EINVAL for a bad rank.
 */
int vn_comm_set_remote(struct vn_comm *cm, u32 rank);

/* A communicator's state for its users (COMM_INFO). */
struct vn_comm_state {
	bool broken;		/* a rank failed or left: every later collective ends -EPIPE */
	u64 collectives;	/* completed, counted once per group */
	u64 parts_helped;	/* parts of their data moved by waiting members, not the last */
	u64 missing;		/* at the first -ETIMEDOUT: ranks that had not arrived */
	u32 failed_rank;	/* the rank whose failure broke it, or ~0 */
	int failure;		/* that rank's error (-ETIMEDOUT, -EPIPE, -EINVAL, -EINTR) */
};

void vn_comm_state(struct vn_comm *cm, struct vn_comm_state *st);

/*
 * A rank's group under a (size, stride) spec on n ranks: its members in order into
 * members[] (at least VN_COMM_MAX_RANKS entries), their number returned and the rank's
 * index among them in *index; 0 if the spec does not fit n.
 */
u32 vn_cc_group(u32 n, u32 rank, u32 group_size, u32 group_stride, u32 *members, u32 *index);

/*
 * The rank numbered rank arrives at its next collective at modeled time arrive_ps and
 * waits for the other members of its group. Returns 0 with res filled in and the data
 * moved; -EINVAL if its arguments are bad, its group does not fit, or they disagree
 * with another member's (every member gets -EINVAL, nothing moved); -ETIMEDOUT at
 * deadline_ns (0: none), with the members that had not arrived in res->missing;
 * -EPIPE if a rank left (vn_comm_leave()) or gave up; -EINTR if *abort became non-zero
 * (checked at least every millisecond) or a fatal signal came. Any failure leaves the
 * communicator broken for everyone: later collectives end -EPIPE at once.
 */
int vn_comm_collective(struct vn_comm *cm, u32 rank, const struct vn_cc_args *a, u64 arrive_ps,
		       u64 deadline_ns, const int *abort, struct vn_cc_result *res);

/*
 * The rank numbered rank failed or is gone (its execution ended early, its owner died):
 * the communicator breaks and every wait ends -EPIPE.
 */
void vn_comm_leave(struct vn_comm *cm, u32 rank);
/* As vn_comm_leave() with the error err (a proxy's: -EINVAL, -EIO, -EPIPE). */
void vn_comm_break(struct vn_comm *cm, u32 rank, int err);
/*
 * As vn_comm_break(); for err -ETIMEDOUT (a proxy relaying another node's timeout) the
 * ranks that node found missing: waiting ranks end -ETIMEDOUT naming them, as if their
 * own time limit had come.
 */
void vn_comm_break_missing(struct vn_comm *cm, u32 rank, int err, u64 missing);

/* What the ranks of this node brought to their collective (vn_comm_proxy_wait()). */
struct vn_cc_pending {
	const struct vn_cc_args *args[VN_COMM_MAX_RANKS];	/* NULL for remote ranks */
	u64 arrive_ps[VN_COMM_MAX_RANKS];
};

/*
 * The proxy of the remote ranks waits until every rank not marked remote is waiting at
 * a collective, and copies their arguments (valid until the collective completes) and
 * arrivals into p. 0; -EPIPE if the communicator broke; -EINTR if *abort became
 * non-zero (checked at least every millisecond); -ETIMEDOUT at deadline_ns (0: none);
 * -EINVAL if every rank is remote.
 */
int vn_comm_proxy_wait(struct vn_comm *cm, u64 deadline_ns, const int *abort,
		       struct vn_cc_pending *p);

/*
 * As vn_comm_proxy_wait(), and on 0 the local ranks stay at their collective (their
 * arguments and buffers valid: neither a time limit, a break nor an abort lets them go)
 * until vn_comm_proxy_release(), so that a proxy may read their inputs; call it at once
 * after, without sleeping on anything else. -EINVAL also if a local rank's collective is
 * not of every rank (group_size != 0: its group could complete without the proxy).
 */
int vn_comm_proxy_hold(struct vn_comm *cm, u64 deadline_ns, const int *abort,
		       struct vn_cc_pending *p);
void vn_comm_proxy_release(struct vn_comm *cm);

/*
 * For a proxy that computes the all-reduce of a collective of every rank itself (a
 * reduce-scatter and all-gather across nodes, libvnmpi): holds the local ranks again at
 * the collective they wait at (taken with vn_comm_proxy_hold() and released since, so
 * that their time limits could end them while other nodes had not come), and marks
 * their outputs delivered: the proxy writes them, and the collective completes when its
 * remote ranks are posted (vn_comm_arrive()) without moving any data. The earliest of
 * the local ranks' time limits into *deadline_ns (0: none): the proxy gives up by then,
 * as they would have (vn_comm_break_missing()). Release with vn_comm_proxy_release().
 * 0; -EPIPE if the communicator broke or a local rank is no longer at the collective;
 * -EINVAL (nothing held) if it is not an all-reduce of every rank whose local outputs
 * are given and do not overlap another local rank's input or output.
 */
int vn_comm_proxy_deliver(struct vn_comm *cm, u64 *deadline_ns);
/*
 * fn(arg) is called, under the communicator's lock (it must not sleep or call back),
 * each time the last rank of this node arrives at a collective, and at once if they
 * all wait now: a proxy that is not waiting in vn_comm_proxy_wait() learns that a
 * request is ready. NULL stops it; once this returns, fn runs no more.
 */
void vn_comm_set_proxy_notify(struct vn_comm *cm, void (*fn)(void *arg), void *arg);

/*
 * The remote rank numbered rank arrives at arrive_ps with a (valid until its group
 * completes): as vn_comm_collective() without waiting. 0, or the collective's result
 * when this arrival completed the group (res filled in then); -EINVAL, -EPIPE.
 */
int vn_comm_arrive(struct vn_comm *cm, u32 rank, const struct vn_cc_args *a, u64 arrive_ps,
		   struct vn_cc_result *res);

/* The modeled time of op moving count elements of dtype among all of cm's ranks. */
u64 vn_cc_cost_ps(const struct vn_comm *cm, u32 op, u32 dtype, u64 count);

/* Bytes an op reads from one rank's in and writes to its out (0 if they overflow). */
u64 vn_cc_in_bytes(u32 op, u32 nranks, u32 dtype, u64 count);
u64 vn_cc_out_bytes(u32 op, u32 nranks, u32 dtype, u64 count);

/*
 * core/comm_fp.c: for e < count, every out[o][e] = in[0][in_first + e] (+ or max)
 * in[1][in_first + e] ... in rank order, in fp32. Each block of every rank is read before
 * any output of it is written, so an out may be its own rank's in. FPU inside, bounded.
 */
void vn_cc_reduce(u32 reduce, u32 dtype, void *const *out, u32 nout, const void *const *in,
		  u32 n, u64 in_first, u64 count);

#endif /* VN_COMM_H */
