/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Metrics of a timeline (docs/metrics.md defines every one): computed in one merged pass
 * over the events in start order plus one pass per track, with memory proportional to
 * the number of scopes, lines and series bins, never to the number of events.
 */
#ifndef VNP_METRICS_H
#define VNP_METRICS_H

#include "execstats.h"
#include "timeline.h"

/*
 * The units whose busy time the sweep follows: the four engines, all DMA queues
 * together, and the collective engine (busy from a rank's arrival at a collective to
 * its completion).
 */
#define VNP_UNIT_DMA	VNEF_ENGINES
#define VNP_UNIT_CC	(VNEF_ENGINES + 1)
#define VNP_UNITS	(VNEF_ENGINES + 2)
#define VNP_TOP_WAITS	8
#define VNP_DEFAULT_BINS 200

struct vnp_unit {
	uint64_t active_ps;		/* union of busy intervals */
	uint64_t instr_ps;		/* sum of durations */
	uint64_t count;
	uint64_t first, last;		/* first start, last end (count > 0) */
	uint64_t flops;
	uint64_t bytes;
	uint64_t wait_ps;		/* semaphore waits before its entries */
	uint64_t waits;
	uint64_t fixed_ps;		/* fixed per-entry costs inside the durations */
	uint64_t op_count[VNEF_OP_COUNT];
	uint64_t op_ps[VNEF_OP_COUNT];
};

/* Totals of a scope or a source line. */
struct vnp_group {
	uint64_t count;
	uint64_t instr_ps;		/* sum of durations */
	uint64_t active_ps;		/* union of its events' intervals */
	uint64_t first, last;
	uint64_t flops;			/* TensorE (MULTIPLY_MOVING + TRANSPOSE) */
	uint64_t transpose_flops;
	uint64_t eng_flops[VNEF_ENGINES];	/* per engine (TensorE's: flops) */
	uint64_t hbm_read, hbm_write;
	uint64_t dma_bytes, dma_count;
	uint64_t cc_count, cc_wait_ps;	/* collective events, their waits for the last */
	uint64_t unit_ps[VNP_UNITS];	/* sum of durations per unit (CC: transfers) */
	uint64_t fixed_ps[VNP_UNITS];	/* fixed per-entry costs per unit */
	uint64_t queue_ps[VNEF_DMA_QUEUES];	/* sum of durations per DMA queue */
	/*
	 * Sum over executions of (last end - first start) within each one: the time the
	 * group is in progress, never counting the time between two executions.
	 */
	uint64_t span_ps;
	uint64_t cur_end;		/* sweep state */
	uint64_t ex_first[VNP_MAX_CORES], ex_last[VNP_MAX_CORES];
	uint32_t ex_seq[VNP_MAX_CORES];
	uint64_t ex_open;		/* bit per core: a span in progress */
};

/*
 * An application range's share (docs/capture.md, "Application ranges"): the events of
 * the executions launched while it was the innermost range (self) or open at all (all:
 * rolled up), their executions' modeled time (device_ps) and the launch gaps before
 * the executions it is the innermost range of.
 */
struct vnp_range_stat {
	struct vnp_group self, all;
	uint64_t execs, all_execs;
	uint64_t device_ps, all_device_ps;
	uint64_t gap_ns, gaps;
};

/*
 * A range's device work by layer ("layer fc1 of range train step"): the events of the
 * executions a range was the innermost of, in one layer of the program. Layers are the
 * debug table's scope paths and every prefix of them ("mlp", "mlp/fc1",
 * "mlp/fc1/matmul"): an event counts in each layer its scope path lies in. Only the
 * (range, layer) pairs that occur are kept.
 */
struct vnp_range_layer {
	uint32_t range;			/* index of m->range (nranges: no range) */
	uint32_t layer;			/* index of m->layer (nlayers: no scope) */
	struct vnp_group g;
};

/* A layer: a scope path or a prefix of one. */
struct vnp_layer {
	char *name;			/* "mlp/fc1" (owned) */
	uint32_t parent;		/* the layer one level up, VNP_NONE at the top */
	uint32_t depth;			/* 1 at the top */
};

struct vnp_wait {
	size_t ev;			/* event index (vnp_tl_ev()) */
	uint64_t wait_ps;
	uint32_t signaller;		/* stream, or VNP_NONE */
};

/*
 * One collective: the CC events of the members of one group at one entry of the CC
 * stream in one round of executions (the i-th execution of every core). Members agree
 * on the last to arrive and on the completion, so (round, pc, last rank) names it.
 * Times on the timeline (ps).
 */
struct vnp_coll {
	uint64_t first_arrival, last_arrival, end;
	uint64_t size;			/* nccl-tests' size in bytes (docs/metrics.md) */
	uint64_t wait_ps;		/* the members' waits for the last, summed */
	uint32_t pc, round;
	uint16_t op;			/* enum vnef_cc_opcode */
	uint16_t members;		/* ranks in the group */
	uint16_t last_rank;		/* the member that arrived last */
	uint16_t seen;			/* members whose records are in the profile */
	size_t ev_last;			/* the member event that starts last */
};

/* A collective event's collective (vnp_metrics.cc_of, sorted by ev). */
struct vnp_cc_member {
	size_t ev;
	uint32_t coll;
};

/* Collectives per opcode: counted once per collective, not per member. */
struct vnp_cc_op {
	uint64_t count;
	uint64_t bytes;			/* sum of sizes */
	uint64_t time_ps;		/* sum of transfer times (completion - last arrival) */
	double bus_bytes;		/* sum of size x the op's bus factor */
	uint64_t wait_ps;		/* the members' waits for the last, summed */
};

/* What a rank did at collectives. */
struct vnp_cc_rank {
	uint64_t count;			/* collectives it took part in */
	uint64_t last;			/* collectives where it arrived last, and late */
	uint64_t caused_ps;		/* the others' waits for it there */
	uint64_t waited_ps;		/* its own waits for others */
	uint64_t late_ps;		/* its lateness there (last - first arrival), summed */
	uint32_t core;			/* a core slot it ran on */
};

/*
 * A multi-node profile's figures (docs/metrics.md, "Nodes"), per node id: sums over
 * single records, so a streaming pass computes them as well as the timeline. A
 * collective is inter-node when its group (the instruction's replica group around the
 * rank, or the whole communicator) holds a rank outside the rank's own node.
 */
#define VNP_MAX_NODES		VNEF_CC_MAX_RANKS
/* straggler-node (docs/profiler.md): its ranks caused half the waits at inter-node
 * collectives, and those waits are 5% of core_time */
#define VNP_NODE_LAST_SHARE	0.50
#define VNP_NODE_WAIT_FRAC	0.05

struct vnp_node_fig {
	uint32_t cores;			/* core slots (workers) of the node in the profile */
	uint64_t busy_ps;		/* its engines' instruction time, summed (engine-time) */
	uint64_t cc_ps;			/* its ranks' collectives, arrival to completion */
	uint64_t cc_wait_ps;		/* ... of which waiting for the last member */
	uint64_t inter_ps;		/* ... in inter-node collectives */
	uint64_t last;			/* waits of other nodes' ranks for a rank of it */
	uint64_t caused_ps;		/* ... their time */
	uint64_t api_first_ns;		/* its first API call, on rank 0's host clock (0: none) */
	uint64_t api_last_ns;		/* the end of its last one */
	int64_t clock_offset_ns;	/* its host clock minus rank 0's (the node section) */
	uint64_t api_error_ns;		/* the error bound of its clock offset */
};

struct vnp_nodes {
	unsigned int nr_nodes;		/* tl->nr_nodes: 0 for a single-node profile */
	unsigned int seen;		/* nodes with a core in the profile */
	struct vnp_node_fig node[VNP_MAX_NODES];
	uint64_t inter_ps, intra_ps;	/* collective time (core-time) in inter/intra-node groups */
	uint64_t inter_xfer_ps, intra_xfer_ps;	/* ... of which moving data */
	uint64_t inter_events, intra_events;
	uint64_t inter_waits;		/* inter-node collective events that waited */
};

/* One collective record for the node figures. */
struct vnp_node_cc {
	unsigned int node, first, ranks;	/* the rank's node and its ranks */
	unsigned int op, pc, rank, members, last;
	uint64_t start, end, wait;
};

struct vnp_metrics {
	uint64_t t0, t1, total_ps;
	/*
	 * total_ps x cores: busy times below are summed over cores (core-time), so their
	 * percentages are of core_ps; with one core it is total_ps.
	 */
	uint64_t core_ps;
	uint64_t event_count, instr_count, dma_count;
	uint64_t nexec;
	double peak_flops;		/* TensorE peak (bf16) x cores */
	/*
	 * Each engine's peak x cores (flop/s; VectorE, ScalarE, GpSimdE one element a lane
	 * a cycle, as the model charges them) and its ridge point against HBM (flop/B).
	 */
	double eng_peak[VNEF_ENGINES], eng_ridge[VNEF_ENGINES];
	double hbm_bw;			/* bytes/s x cores */

	struct vnp_unit unit[VNP_UNITS];
	struct vnp_unit queue[VNEF_DMA_QUEUES];

	uint64_t hw_flops;		/* TensorE flops, transposes included */
	uint64_t transpose_flops;
	uint64_t transpose_count;
	uint64_t other_flops;		/* Vector/Scalar/GpSimd flops (not in hfu) */
	uint64_t hbm_read, hbm_write;
	uint64_t dma_bytes;
	uint64_t mem_read[4], mem_write[4];	/* by enum vnef_mem; 0 = unknown */

	/*
	 * ai: every engine's flops (TensorE's transposes left out) per HBM byte; ridge:
	 * TensorE's. mfu < 0: no model flops given.
	 */
	double hfu, mfu, ai, ridge, mbu;
	double dma_active_pct, avg_dma_bytes;

	/* the sweep */
	uint64_t busy_ps;		/* union of everything */
	uint64_t compute_ps;		/* union of the four engines */
	uint64_t overlap_ps[VNP_UNITS][VNP_UNITS];
	uint64_t dma_compute_ps;	/* DMA and some engine busy */
	uint64_t tensor_idle_ps;	/* TensorE idle while another engine is busy */
	uint64_t tidle_lo, tidle_hi;	/* the longest such range */
	uint64_t gap_lo, gap_hi;	/* the longest range with nothing busy */
	uint64_t first_compute;		/* for "loaded before compute" */
	uint64_t dma_in_count, dma_in_before_compute;

	/*
	 * Collectives (docs/metrics.md, "Collectives"): core-time sums over the ranks'
	 * CC events, then the collectives themselves.
	 */
	uint64_t cc_events;
	uint64_t cc_xfer_ps;		/* completion - last arrival, summed over ranks */
	uint64_t cc_wait_ps;		/* last arrival - own arrival, summed over ranks */
	uint64_t cc_overlap_ps;		/* transfers while some engine of the core computes */
	uint64_t core_compute_ps[VNP_MAX_CORES];	/* union of the engines per core */
	struct vnp_coll *coll;		/* by (round, pc, last rank) */
	uint32_t ncoll;
	struct vnp_cc_member *cc_of;	/* cc_events of them, by ev */
	struct vnp_cc_op cc_op[VNEF_CC_OP_COUNT];
	struct vnp_cc_rank cc_rank[VNEF_CC_MAX_RANKS];
	unsigned int cc_nranks;		/* highest rank seen + 1 */
	struct vnp_nodes nodes;		/* multi-node figures (nodes.c) */

	/* semaphore waits: [waiter stream][signaller stream, VNEF_STREAMS = unknown] */
	uint64_t wait_ps[VNEF_STREAMS][VNEF_STREAMS + 1];
	uint64_t wait_n[VNEF_STREAMS][VNEF_STREAMS + 1];
	struct vnp_wait top_wait[VNP_TOP_WAITS];
	unsigned int ntop_wait;

	/* DMA series: nbins bins of bin_ps from t0 */
	unsigned int nbins;
	uint64_t bin_ps;
	double *tput;			/* bytes/s in each bin */
	double *pending;		/* average descriptors in flight in each bin */
	/*
	 * Their peaks and averages over the bins: the figures the text summary prints
	 * and the web viewer labels its counters with (summary-json "series"), so both
	 * say the same at the same bin size (docs/metrics.md, "DMA series").
	 */
	double tput_peak, tput_avg, pending_peak, pending_avg;

	struct vnp_exec_stats xs;	/* the executions compared */

	struct vnp_group *scope;	/* prog->nscopes, plus one for "no scope" at [n] */
	uint32_t nscopes;
	struct vnp_group *line;		/* prog->nlines, plus one for "no line" */
	uint32_t nlines;
	struct vnp_range_stat *range;	/* by range name id, plus one for "no range" at [n] */
	uint32_t nranges;		/* range names (tl->rg.nnames) */
	/* with executions attributed to ranges: layers, every (range, layer) pair that occurs */
	struct vnp_layer *layer;
	uint32_t nlayers;
	uint32_t *scope_layers;		/* scope s's layers: lay_ids[scope_layers[s] .. [s + 1]) */
	uint32_t *lay_ids;
	struct vnp_range_layer *rs;
	uint32_t nrs, rs_cap;
	uint32_t *rs_slot;		/* hash of (range, layer): index + 1, 0 empty */
	uint32_t rs_slots;		/* a power of two, at most half full */
	uint32_t rs_last;		/* the pair of the last event (most come in runs) */
	uint64_t gap_ns, held_ns;	/* launch gaps and host time held, all cores */
};

/* The pair (range, layer)'s index in m->rs, VNP_NONE if it did not occur. */
uint32_t vnp_range_layer(const struct vnp_metrics *m, uint32_t range, uint32_t layer);

/* nbins 0: VNP_DEFAULT_BINS. 0 or -ENOMEM. */
int vnp_metrics_compute(const struct vnp_timeline *tl, unsigned int nbins,
			struct vnp_metrics *m);
void vnp_metrics_free(struct vnp_metrics *m);

/* part as a percentage of whole (0 of nothing). */
static inline double vnp_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/*
 * The part of an event's duration that is a fixed per-entry cost of the model (docs/
 * metrics.md): the static cycles of a VectorE/ScalarE/GpSimdE instruction, the columns
 * TensorE charges below its 64-column minimum, a descriptor's fixed overhead.
 */
uint64_t vnp_ev_fixed(const struct vnp_timeline *tl, const struct vnp_ev *e);

/* The wait before event i on its track (0 if it waited on no semaphore). */
uint64_t vnp_ev_wait(const struct vnp_timeline *tl, size_t i);

/*
 * nccl-tests' bus factor of a collective of n ranks: all-reduce 2(n-1)/n; all-gather,
 * reduce-scatter, all-to-all (n-1)/n; permute 1; 0 for a NOP.
 */
double vnp_cc_bus_factor(unsigned int op, unsigned int n);
/* nccl-tests' size of a collective from one rank's input bytes (all-gather: n x). */
uint64_t vnp_cc_size(unsigned int op, unsigned int n, uint64_t in_bytes);
/* The collective of a CC event (an index into m->coll), or VNP_NONE. */
uint32_t vnp_cc_coll_of(const struct vnp_metrics *m, size_t ev);
/*
 * nodes.c: whether the group of collective pc around rank (members: the communicator's
 * size for a whole-communicator one) holds a rank outside [first, first + ranks).
 */
int vnp_cc_spans_nodes(const struct vnp_prog *prog, uint32_t pc, unsigned int rank,
		       unsigned int members, unsigned int first, unsigned int ranks);
/* Whether collective event e's group holds a rank of another node. */
int vnp_cc_inter_node(const struct vnp_timeline *tl, const struct vnp_ev *e);
/* Adds one collective record / one core's API call span to n. */
void vnp_nodes_cc(struct vnp_nodes *n, const struct vnp_prog *prog, const uint16_t *rank_node,
		  const struct vnp_node_cc *c);
void vnp_nodes_api(struct vnp_nodes *n, unsigned int node, uint64_t first_ns,
		   uint64_t last_ns, int64_t offset_ns, uint64_t error_ns);
/* m->nodes from the timeline (called by vnp_metrics_compute()). */
void vnp_nodes_compute(const struct vnp_timeline *tl, struct vnp_metrics *m);
/* The straggler node by the thresholds above, or -1. */
int vnp_nodes_straggler(const struct vnp_nodes *n, uint64_t core_ps);
/* algbw and busbw of one collective in bytes/s (0 if it took no time). */
double vnp_coll_algbw(const struct vnp_coll *c);
double vnp_coll_busbw(const struct vnp_coll *c);

#endif /* VNP_METRICS_H */
