/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Shared between analyze.c (rules) and classify.c (classes, where text); not installed. */
#ifndef VNP_ANALYZE_PRIV_H
#define VNP_ANALYZE_PRIV_H

#include "analyze.h"

/* Appends to a fixed buffer, truncating. */
void vnp_cat(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/*
 * Classifies the whole profile (core-time, and its critical path for collectives) and
 * each scope (its spans per execution).
 */
void vnp_classify_whole(const struct vnp_timeline *tl, const struct vnp_metrics *m,
			const struct vnp_critpath *cp, struct vnp_classification *c);
void vnp_classify_group(const struct vnp_timeline *tl, const struct vnp_metrics *m,
			const struct vnp_group *g, struct vnp_classification *c);

/* Whether event e is one a finding is about. */
typedef int (*vnp_ev_pred)(const struct vnp_timeline *tl, const struct vnp_ev *e,
			   const void *arg);

/*
 * Where the matching events come from, grouped by scope and file so that unrolled code
 * reads as one range: "kernel.c:12-75 in layer/load (64 descriptors); ...", at most
 * three groups, the largest first. "" when the program has no debug table.
 */
void vnp_where(const struct vnp_timeline *tl, vnp_ev_pred pred, const void *arg,
	       char *buf, size_t len);

/* What every rule works from (analyze.c runs them). */
struct vnp_rctx {
	const struct vnp_timeline *tl;
	const struct vnp_metrics *m;
	struct vnp_analysis *a;
	const struct vnp_critpath *cp;
	struct vnp_replay *r;		/* NULL: estimates only */
	uint64_t nexec;
};

/* A new finding: its saving on the critical path and its share of the time. */
struct vnp_finding *vnp_add(struct vnp_rctx *c, enum vnp_rule r, double saved, double share);
/*
 * Fills a finding's gain from a replay (ret 0: after; -ENOTSUP: why not, in what) or
 * from its estimate. 1 if the model says the fix does not help: drop the finding.
 */
int vnp_gain(struct vnp_rctx *c, struct vnp_finding *f, int ret, uint64_t after, const char *what);
void vnp_drop_last(struct vnp_analysis *a);
/* vnp_where() predicate: events of the stream *arg (unsigned int). */
int vnp_pred_stream(const struct vnp_timeline *tl, const struct vnp_ev *e, const void *arg);

int vnp_rule_repeated(struct vnp_rctx *c);
int vnp_rule_transpose(struct vnp_rctx *c);
/* rules_cc.c: the collectives' rules (docs/profiler.md) */
int vnp_rule_cc_straggler(struct vnp_rctx *c);
int vnp_rule_cc_no_overlap(struct vnp_rctx *c);
int vnp_rule_cc_small(struct vnp_rctx *c);
int vnp_rule_cc_shard(struct vnp_rctx *c);
/* rules_node.c: the multi-node rules (docs/profiler.md) */
int vnp_rule_node_straggler(struct vnp_rctx *c);
int vnp_rule_inter_node(struct vnp_rctx *c);
/* rules_host.c: host-overhead (launch gaps between executions) */
int vnp_rule_host_overhead(struct vnp_rctx *c);
/* "pc 3 exec 0 (k.c:12 [grad/ar])" of a collective, into buf */
const char *vnp_coll_name(const struct vnp_timeline *tl, const struct vnp_coll *x, char *buf,
			  size_t len);

#endif /* VNP_ANALYZE_PRIV_H */
