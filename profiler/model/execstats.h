/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Per-execution statistics (docs/metrics.md, "Executions"): across the executions of a
 * profile, the spread of each one's total time and of each engine's active time, and the
 * executions that stand out.
 */
#ifndef VNP_EXECSTATS_H
#define VNP_EXECSTATS_H

#include <stdint.h>

#include "timeline.h"

/* The figures compared: 0 the total time, 1 + e the active time of engine e. */
#define VNP_XS_TOTAL		0
#define VNP_XS_METRICS		(1 + VNEF_ENGINES)
/* Outliers only among at least this many executions. */
#define VNP_XS_MIN_EXECS	3

struct vnp_spread {
	uint64_t min, median, max;
	uint64_t mad;			/* median absolute deviation from the median */
};

/* An execution one of whose figures is an outlier (vnp_xs_outlier()). */
struct vnp_xs_outlier {
	uint32_t core;			/* core slot */
	uint32_t exec;			/* exec_seq */
	uint32_t which;			/* bit m: figure m is an outlier */
	uint64_t value[VNP_XS_METRICS];	/* ps */
};

struct vnp_exec_stats {
	uint64_t n;			/* executions: (core, exec_seq) */
	struct vnp_spread s[VNP_XS_METRICS];
	struct vnp_xs_outlier *out;	/* in (core, exec) order */
	uint32_t nout;
};

/* After vnp_tl_finish(). 0 or -ENOMEM. */
int vnp_exec_stats(const struct vnp_timeline *tl, struct vnp_exec_stats *xs);
void vnp_exec_stats_free(struct vnp_exec_stats *xs);
/*
 * The rule: among at least VNP_XS_MIN_EXECS executions, a figure further from the
 * median than 3 x MAD and than a tenth of the median.
 */
int vnp_xs_outlier(const struct vnp_spread *s, uint64_t n, uint64_t v);
/* "total", "TensorE", ... */
const char *vnp_xs_name(unsigned int m);

#endif /* VNP_EXECSTATS_H */
