/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Classification by the saturated resource and advice rules (docs/profiler.md lists every rule,
 * its threshold and the evidence it prints). A rule fires only on evidence measured in
 * the profile, and its text names the instructions or time ranges it is about.
 */
#ifndef VNP_ANALYZE_H
#define VNP_ANALYZE_H

#include "../model/critpath.h"
#include "../model/metrics.h"
#include "rules.h"

enum vnp_class {
	VNP_CLASS_NONE = 0,		/* nothing ran */
	VNP_CLASS_COMPUTE,		/* an engine is saturated by its work */
	VNP_CLASS_MEMORY,		/* HBM bandwidth */
	VNP_CLASS_COMMUNICATION,
	VNP_CLASS_OVERHEAD,		/* the saturated unit spends its time on fixed costs */
	VNP_CLASS_DMA_QUEUE,		/* a DMA queue, far below HBM's bandwidth */
	VNP_CLASS_LATENCY,		/* no unit saturated: dependencies and idle gaps */
};

/* The rules (rules.h): VNP_RULE_ENGINES_NO_OVERLAP, ..., in the order they run. */
#define VNP_RULE_ENUM(e, n)	VNP_RULE_##e,
enum vnp_rule {
	VNP_RULES(VNP_RULE_ENUM)
	VNP_RULE_COUNT,
};
#undef VNP_RULE_ENUM

/* Thresholds (docs/profiler.md). */
#define VNP_OVERLAP_FRAC	0.01	/* "never overlap": overlap <= 1% of the smaller */
#define VNP_SMALL_DMA_FRAC	0.25	/* descriptor fixed costs over 25% of DMA time */
#define VNP_REPEAT_LOADS	2	/* HBM bytes read more than twice per execution */
#define VNP_TENSOR_IDLE_FRAC	0.25	/* TensorE idle while others busy, of total_time */
#define VNP_TRANSPOSE_FRAC	0.10	/* transpose flops over 10% of TensorE flops */
#define VNP_SEM_WAIT_FRAC	0.10	/* an engine waits over 10% of total_time */
#define VNP_SATURATED_FRAC	0.50	/* a unit busier than this can bound the time */
#define VNP_FIXED_FRAC		0.60	/* overhead: fixed costs 1.5x the work or more */
#define VNP_QUEUE_BUSY_FRAC	0.50	/* dma-queue-bound: a queue busier than this */
#define VNP_CP_FRAC		0.10	/* a unit matters if it is 10% of the critical path */
#define VNP_COMM_FRAC		0.50	/* communication-bound: transfers over 50% of the path */
#define VNP_CC_WAIT_FRAC	0.10	/* straggler-rank: waits for the last over 10% ... */
#define VNP_CC_STRAGGLER_SHARE	0.50	/* ... of core_time, half of them for one rank */
#define VNP_CC_SMALL_COUNT	4	/* small-collectives: 4 or more of an op an execution */
#define VNP_CC_FIXED_FRAC	0.50	/* ... spending half their transfer on link latency */
#define VNP_INTER_FRAC		0.50	/* inter-node-bound: inter-node collectives hold half
					 * of the collective time ... */
#define VNP_INTER_MIN_FRAC	0.10	/* ... and collectives 10% of core_time */
#define VNP_LAUNCH_GAP_FRAC	0.25	/* host-overhead: cores idle between executions over
					 * 25% of the host time the application held them */

/* vnp_classification.unit besides stream ids (engine 0..3, VNEF_STREAM_DMA(q), CC) */
#define VNP_BOUND_HBM		0xfffeu

struct vnp_classification {
	enum vnp_class cls;
	uint32_t unit;			/* the saturated unit, VNP_BOUND_HBM or VNP_NONE */
	double pct;			/* its utilisation */
	char label[96];			/* "compute-bound (ScalarE 90% busy)" */
	char why[768];
};

/*
 * What bounds the program after a finding's fix: the replayed program analysed again
 * (its class, the busiest unit on its critical path, its own first finding).
 */
struct vnp_after {
	enum vnp_class cls;		/* VNP_CLASS_NONE: not analysed again */
	uint32_t unit;			/* busiest stream on its critical path, or VNP_NONE */
	int has_rule;			/* rule: its first finding's */
	enum vnp_rule rule;
	char fix[160];			/* the fix: "merging 129 descriptors into 2" */
	char label[96];			/* its class label */
	char text[512];			/* "compute-bound (...); on its critical path ..." */
};

struct vnp_finding {
	enum vnp_rule rule;
	double impact;			/* saved_ps / critical path: the ranking */
	double saved_ps;		/* time saved on the critical path (all executions) */
	double share;			/* the problem's share of total_time (tie-break) */
	uint32_t unit;			/* the stream it is about (semaphore-wait: the root
					 * behind the waits), or VNP_NONE */
	int replayed;			/* before/after come from a replay */
	uint64_t before_ps, after_ps;	/* one execution, modeled */
	char gain[256];			/* "...: 112.4 us -> 9.1 us, replayed" or estimate */
	char title[192];
	char evidence[2048];
	char advice[768];
	struct vnp_after then;		/* replayed: what bounds the fixed program */
};

struct vnp_analysis {
	struct vnp_classification whole;
	struct vnp_classification *scope;	/* m->nscopes + 1 (last: no scope) */
	struct vnp_classification *range;	/* m->nranges + 1 (last: no range), self */
	struct vnp_classification *range_scope;	/* m->nrs: each range's scopes */
	struct vnp_finding *f;
	unsigned int n;
	struct vnp_critpath cp;
	char folded[512];		/* waits explained by the bound unit */
	char next[768];			/* what bounds the time next: after the first
					 * finding's replayed fix, or the unit no
					 * finding is about; "" if none */
};

/* Flags of vnp_analyze_opts(). */
#define VNP_ANALYZE_NO_REPLAY	0x1u	/* estimates only, never run the program */

/* vnp_analyze_opts(tl, m, a, 0): replays where the profile's program image is known. */
int vnp_analyze(const struct vnp_timeline *tl, const struct vnp_metrics *m,
		struct vnp_analysis *a);
int vnp_analyze_opts(const struct vnp_timeline *tl, const struct vnp_metrics *m,
		     struct vnp_analysis *a, unsigned int flags);
void vnp_analysis_free(struct vnp_analysis *a);

const char *vnp_class_name(enum vnp_class c);	/* "compute-bound" ... */
const char *vnp_rule_id(enum vnp_rule r);	/* "engines-no-overlap" ... */

#endif /* VNP_ANALYZE_H */
