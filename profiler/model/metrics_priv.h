/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The parts of the metrics' pass (metrics.c) in their own files; not installed. */
#ifndef VNP_METRICS_PRIV_H
#define VNP_METRICS_PRIV_H

#include "metrics.h"

static inline uint64_t u64min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t u64max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* group.c: event e into group g (its unit, whether a transpose, HBM bytes, fixed ps) ... */
void vnp_group_add(struct vnp_group *g, const struct vnp_ev *e, unsigned int unit,
		   int transpose, uint64_t hr, uint64_t hw, uint64_t fixed);
/* ... and the group's span in core k's current execution closed. */
void vnp_group_close(struct vnp_group *g, unsigned int k);

/* range_stats.c: event e into the ranges open at its launch and their layers ... */
void vnp_range_add(const struct vnp_timeline *tl, struct vnp_metrics *m,
		   const struct vnp_ev *e, unsigned int unit, int transpose, uint64_t hr,
		   uint64_t hw, uint64_t fixed);
int vnp_rs_add(const struct vnp_timeline *tl, struct vnp_metrics *m, const struct vnp_ev *e,
	       uint32_t scope, unsigned int unit, int transpose, uint64_t hr, uint64_t hw,
	       uint64_t fixed);
/* ... the layers of the program (0 or -ENOMEM), and the ranges' executions. */
int vnp_layers_build(const struct vnp_prog *p, struct vnp_metrics *m);
void vnp_range_execs(const struct vnp_timeline *tl, struct vnp_metrics *m);

/* collectives.c: the collectives of the CC events, per opcode and rank. 0 or -ENOMEM. */
int vnp_collectives_compute(const struct vnp_timeline *tl, struct vnp_metrics *m);

#endif /* VNP_METRICS_PRIV_H */
