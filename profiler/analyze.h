/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Classification on the roofline and advice rules (docs/profiler.md lists every rule,
 * its threshold and the evidence it prints). A rule fires only on evidence measured in
 * the profile, and its text names the instructions or time ranges it is about.
 */
#ifndef VNP_ANALYZE_H
#define VNP_ANALYZE_H

#include "metrics.h"

enum vnp_class {
	VNP_CLASS_NONE = 0,		/* nothing ran */
	VNP_CLASS_COMPUTE,
	VNP_CLASS_MEMORY,
	VNP_CLASS_COMMUNICATION,
	VNP_CLASS_OVERHEAD,
};

enum vnp_rule {
	VNP_RULE_ENGINES_NO_OVERLAP = 0,
	VNP_RULE_DMA_NO_OVERLAP,
	VNP_RULE_SMALL_DMA,
	VNP_RULE_REPEATED_LOAD,
	VNP_RULE_TENSOR_IDLE,
	VNP_RULE_TRANSPOSE_FLOPS,
	VNP_RULE_SEM_WAIT,
	VNP_RULE_COUNT,
};

/* Thresholds (docs/profiler.md). */
#define VNP_OVERLAP_FRAC	0.01	/* "never overlap": overlap <= 1% of the smaller */
#define VNP_SMALL_DMA_BYTES	32768	/* average DMA transfer below 32 KiB */
#define VNP_REPEAT_LOADS	2	/* same HBM range read more than twice per execution */
#define VNP_TENSOR_IDLE_FRAC	0.25	/* TensorE idle while others busy, of total_time */
#define VNP_TRANSPOSE_FRAC	0.10	/* transpose flops over 10% of TensorE flops */
#define VNP_SEM_WAIT_FRAC	0.10	/* an engine waits over 10% of total_time */
#define VNP_OVERHEAD_BUSY_FRAC	0.50	/* overhead-bound: busy under 50% of the time */
#define VNP_COMM_FRAC		0.50	/* communication-bound: CC over 50% of the time */

struct vnp_classification {
	enum vnp_class cls;
	char why[384];
};

struct vnp_finding {
	enum vnp_rule rule;
	double impact;			/* fraction of total_time at stake, for ordering */
	char title[192];
	char evidence[2048];
	char advice[512];
};

struct vnp_analysis {
	struct vnp_classification whole;
	struct vnp_classification *scope;	/* m->nscopes + 1 (last: no scope) */
	struct vnp_finding *f;
	unsigned int n;
};

int vnp_analyze(const struct vnp_timeline *tl, const struct vnp_metrics *m,
		struct vnp_analysis *a);
void vnp_analysis_free(struct vnp_analysis *a);

const char *vnp_class_name(enum vnp_class c);	/* "compute-bound" ... */
const char *vnp_rule_id(enum vnp_rule r);	/* "engines-no-overlap" ... */

#endif /* VNP_ANALYZE_H */
