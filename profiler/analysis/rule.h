/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What a rule is and what it works with: its entry of the table (struct vnp_rule_def,
 * rules.h lists them), the context every rule runs in, and the helpers for findings
 * (finding.c) and for their text (classify.c). Not installed.
 */
#ifndef VNP_RULE_H
#define VNP_RULE_H

#include "analyze.h"
#include "rules.h"

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

/* What every rule works from (analyze.c runs them, in the table's order). */
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
 * from its estimate. 1 if the model says the fix does not help: drop the finding; -1 if
 * the second analysis of a replayed fix ran out of memory.
 */
int vnp_gain(struct vnp_rctx *c, struct vnp_finding *f, int ret, uint64_t after, const char *what);
void vnp_drop_last(struct vnp_analysis *a);
/* vnp_gain(), and the finding dropped if its fix does not help. 0 or -ENOMEM. */
/*
 * One verdict (verdict.c), after the findings are ranked: symptoms fold into their
 * cause, the class agrees with the first finding (or says why not), and a->next names
 * the unit that bounds the time next when no finding is about it.
 */
void vnp_verdict(struct vnp_rctx *c);
int vnp_settle(struct vnp_rctx *c, struct vnp_finding *f, int ret, uint64_t after,
	       const char *what);
/*
 * After a replayed fix (finding.c): the changed program the replay ran, analysed again
 * without replays, into f->then. 0 (also when it cannot be: f->then.cls stays NONE) or
 * -ENOMEM.
 */
int vnp_analyze_after(struct vnp_rctx *c, struct vnp_finding *f, const char *fix);
/* "VectorE, 38% busy, 60% of the critical path" of stream s (verdict.c). */
void vnp_unit_text(const struct vnp_metrics *m, const struct vnp_critpath *cp, uint32_t s,
		   char *buf, size_t len);
/* The stream of mask with the most critical-path time, VNP_NONE if none (verdict.c). */
uint32_t vnp_top_stream(const struct vnp_critpath *cp, uint32_t mask);

/* vnp_where() predicate: events of the stream *arg (unsigned int). */
int vnp_pred_stream(const struct vnp_timeline *tl, const struct vnp_ev *e, const void *arg);

/* A threshold of a rule: its constant (analyze.h) and value. */
struct vnp_threshold {
	const char *name;
	double value;
};

/*
 * A rule: its finding's id and name ("dma-queue-bound"), what it reads (metrics,
 * critical path, program: said in its evidence), its thresholds (up to one with a NULL
 * name), where docs/profiler.md describes it, and the rule itself: 0 (a finding added
 * with vnp_add(), or none) or -ENOMEM.
 */
struct vnp_rule_def {
	enum vnp_rule id;
	const char *name;
	const char *reads;
	const struct vnp_threshold *thresholds;
	const char *doc;
	int (*run)(struct vnp_rctx *c);
};

/* Where the rules are described. */
#define VNP_RULES_DOC	"docs/profiler.md, \"Analysis and advice\""

/*
 * A rule's entry, in its file: VNP_RULE_DEF(name in rules.h, its ENUM, its id, its
 * function, what it reads, VNP_THR(constant) for each threshold).
 */
#define VNP_THR(c)	{ #c, c },
#define VNP_RULE_DEF(n, e, id_, run_, reads_, ...)				\
	const struct vnp_rule_def vnp_rule_##n = {				\
		.id = VNP_RULE_##e, .name = id_, .reads = reads_,		\
		.thresholds = (const struct vnp_threshold[]){ __VA_ARGS__ { NULL, 0 } }, \
		.doc = VNP_RULES_DOC, .run = run_ }

/* Each rule's entry, defined in its file (rules.h). */
#define VNP_RULE_DECLARE(e, n)	extern const struct vnp_rule_def vnp_rule_##n;
VNP_RULES(VNP_RULE_DECLARE)
#undef VNP_RULE_DECLARE

/* The table (rules.c): every rule, by id. */
extern const struct vnp_rule_def *const vnp_rules[VNP_RULE_COUNT];

#endif /* VNP_RULE_H */
