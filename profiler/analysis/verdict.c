// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * One verdict (docs/profiler.md, "One verdict"): after the rules ran and their findings
 * were ranked, the class and the findings are made to agree. A semaphore wait is a
 * symptom: it joins the finding about the unit behind it, or, when no finding is about
 * that unit, says that this unit bounds the time next. The class names what the first
 * finding fixes, or its why says why they differ; and when the busiest unit on the
 * critical path has no finding, the analysis says that it bounds the time next.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"

#define cat vnp_cat

#define ENGINES_MASK	((1u << VNEF_ENGINES) - 1)
#define QUEUES_MASK	(((1u << VNEF_DMA_QUEUES) - 1) << VNEF_ENGINES)
#define CC_MASK		(1u << VNEF_STREAM_CC)
#define BIT(s)		(1u << (s))

/* The streams a finding is about (bit s: stream s); 0 for a symptom. */
static uint32_t about(const struct vnp_finding *f)
{
	switch (f->rule) {
	case VNP_RULE_DMA_QUEUE_BOUND:
	case VNP_RULE_SMALL_DMA:
	case VNP_RULE_REPEATED_LOAD:
		return QUEUES_MASK;
	case VNP_RULE_DMA_NO_OVERLAP:
		return QUEUES_MASK | ENGINES_MASK;
	case VNP_RULE_ENGINES_NO_OVERLAP:
	case VNP_RULE_TENSOR_IDLE:
		return ENGINES_MASK;
	case VNP_RULE_TRANSPOSE_FLOPS:
		return BIT(VNEURON_ENGINE_TENSOR);
	case VNP_RULE_INSTR_OVERHEAD:
		return f->unit < VNEF_ENGINES ? BIT(f->unit) : ENGINES_MASK;
	case VNP_RULE_SEM_WAIT:
		return 0;
	default:		/* collectives, nodes, the host's launches */
		return CC_MASK;
	}
}

/* The first finding about stream s, other than f; NULL if none. */
static struct vnp_finding *finding_about(struct vnp_analysis *a, uint32_t s,
					 const struct vnp_finding *f)
{
	unsigned int i;

	if (s >= VNEF_STREAMS)
		return NULL;
	for (i = 0; i < a->n; i++)
		if (&a->f[i] != f && (about(&a->f[i]) & BIT(s)))
			return &a->f[i];
	return NULL;
}

/* "VectorE, 38% busy, 60% of the critical path" of stream s. */
void vnp_unit_text(const struct vnp_metrics *m, const struct vnp_critpath *cp, uint32_t s,
		   char *buf, size_t len)
{
	uint64_t busy = s < VNEF_ENGINES ? m->unit[s].active_ps :
			s < VNEF_STREAM_CC ? m->queue[s - VNEF_ENGINES].active_ps : 0;
	char n1[32];

	snprintf(buf, len, "%s", vnp_stream_name(s, n1, sizeof(n1)));
	if (s < VNEF_STREAM_CC)
		cat(buf, len, ", %.0f%% busy", vnp_pct(busy, m->core_ps));
	if (cp->len_ps)
		cat(buf, len, ", %.0f%% of the critical path", vnp_pct(cp->stream_ps[s], cp->len_ps));
}

/*
 * Each semaphore-wait finding joins the finding about its root (its title into that
 * finding's evidence). One whose root has no finding stays if the root is on the
 * critical path (VNP_CP_FRAC), its gain naming the root's own work as what to shorten
 * next instead of a finding that is not there; else it goes.
 */
static void fold_symptoms(struct vnp_rctx *c)
{
	struct vnp_analysis *a = c->a;
	unsigned int i = 0, j;
	char u[128], n1[32];

	while (i < a->n) {
		struct vnp_finding *s = &a->f[i], *g;

		if (s->rule != VNP_RULE_SEM_WAIT) {
			i++;
			continue;
		}
		g = finding_about(a, s->unit, s);
		if (!g && s->unit < VNEF_STREAMS && (double)c->cp->stream_ps[s->unit] >=
		    VNP_CP_FRAC * (double)c->cp->len_ps) {
			vnp_unit_text(c->m, c->cp, s->unit, u, sizeof(u));
			snprintf(s->gain, sizeof(s->gain), "none of its own: a symptom of %s's "
				 "work, which no other finding is about (%s): shorten it next",
				 vnp_stream_name(s->unit, n1, sizeof(n1)), u);
			i++;
			continue;
		}
		/* a root off the critical path (under VNP_CP_FRAC) costs it nothing */
		if (g)
			cat(g->evidence, sizeof(g->evidence), " Waits it causes: %s.", s->title);
		for (j = i; j + 1 < a->n; j++)
			a->f[j] = a->f[j + 1];
		a->n--;
	}
}

/* The class the first finding's fix is about, and whether it applies at all. */
static enum vnp_class rule_class(enum vnp_rule r)
{
	switch (r) {
	case VNP_RULE_DMA_QUEUE_BOUND:
		return VNP_CLASS_DMA_QUEUE;
	case VNP_RULE_SMALL_DMA:
	case VNP_RULE_INSTR_OVERHEAD:
		return VNP_CLASS_OVERHEAD;
	case VNP_RULE_TRANSPOSE_FLOPS:
		return VNP_CLASS_COMPUTE;
	case VNP_RULE_REPEATED_LOAD:
		return VNP_CLASS_MEMORY;
	case VNP_RULE_DMA_NO_OVERLAP:
	case VNP_RULE_ENGINES_NO_OVERLAP:
	case VNP_RULE_TENSOR_IDLE:
		return VNP_CLASS_LATENCY;
	case VNP_RULE_SEM_WAIT:
		return VNP_CLASS_NONE;
	default:
		return VNP_CLASS_COMMUNICATION;
	}
}

/*
 * "; latency-bound now; with merging 129 descriptors into 2 it would be compute-bound
 * (VectorE 90% busy)": what the replayed first fix turns the class into, when the class
 * and the first finding differ.
 */
static void would_be(struct vnp_classification *w, enum vnp_class now,
		     const struct vnp_finding *f)
{
	if (f->then.cls == VNP_CLASS_NONE)
		return;
	cat(w->why, sizeof(w->why), "; %s now; with %s it would be %s", vnp_class_name(now),
	    f->then.fix, f->then.label);
}

/*
 * A latency-bound profile whose first finding is dma-queue-bound: no queue is busy over
 * half the time, but the queues together are most of the critical path, each at a
 * fraction of HBM's bandwidth. That is what the class names.
 */
static void reclass_queues(struct vnp_rctx *c, const struct vnp_finding *f)
{
	const struct vnp_metrics *m = c->m;
	struct vnp_classification *w = &c->a->whole;
	uint64_t cpq = c->cp->unit_ps[VNP_UNIT_DMA];
	unsigned int q, bq = 0;
	const char *cpt;
	char tail[256];

	for (q = 1; q < VNEF_DMA_QUEUES; q++)
		if (m->queue[q].active_ps > m->queue[bq].active_ps)
			bq = q;
	cpt = strstr(w->why, "; critical path:");
	snprintf(tail, sizeof(tail), "%s", cpt ? cpt : "");
	w->cls = VNP_CLASS_DMA_QUEUE;
	w->unit = f->unit < VNEF_STREAMS ? f->unit : VNEF_STREAM_DMA(bq);
	w->pct = vnp_pct(m->queue[bq].active_ps, m->core_ps);
	snprintf(w->label, sizeof(w->label), "DMA-queue-bound (the DMA queues are %.0f%% of the "
		 "critical path, HBM %.0f%% used)", vnp_pct(cpq, c->cp->len_ps), 100 * m->mbu);
	snprintf(w->why, sizeof(w->why), "no single queue is busy over %.0f%% of the time "
		 "(the busiest, DMA q%u, %.1f%%), but the DMA queues carry %.1f%% of the "
		 "critical path one after another, each at a fraction of HBM's bandwidth (HBM "
		 "is used %.1f%%): more queues shorten it (the first finding)%s",
		 100 * VNP_SATURATED_FRAC, bq, w->pct, vnp_pct(cpq, c->cp->len_ps), 100 * m->mbu,
		 tail);
	would_be(w, VNP_CLASS_DMA_QUEUE, f);
}

/* The stream of mask with the most critical-path time, VNP_NONE if none. */
uint32_t vnp_top_stream(const struct vnp_critpath *cp, uint32_t mask)
{
	uint32_t s, best = VNP_NONE;

	for (s = 0; s < VNEF_STREAMS; s++)
		if ((mask & BIT(s)) && cp->stream_ps[s] &&
		    (best == VNP_NONE || cp->stream_ps[s] > cp->stream_ps[best]))
			best = s;
	return best;
}

/* The class and the first finding: the same, re-classed, or why they differ. */
static void agree(struct vnp_rctx *c)
{
	struct vnp_analysis *a = c->a;
	const struct vnp_finding *f = a->n ? &a->f[0] : NULL;
	enum vnp_class fc;
	uint32_t ab, s;
	char u[128], n1[32];

	if (!f || f->saved_ps <= 0)
		return;
	fc = rule_class(f->rule);
	if (fc == VNP_CLASS_NONE || fc == a->whole.cls)
		return;
	if (fc == VNP_CLASS_DMA_QUEUE && a->whole.cls == VNP_CLASS_LATENCY) {
		reclass_queues(c, f);
		return;
	}
	ab = about(f);
	/* the bound unit is what the first finding is about: they agree */
	if (a->whole.cls != VNP_CLASS_LATENCY && a->whole.unit < VNEF_STREAMS &&
	    (ab & BIT(a->whole.unit)))
		return;
	s = f->unit < VNEF_STREAMS ? f->unit : vnp_top_stream(c->cp, ab);
	if (s == VNP_NONE)
		snprintf(u, sizeof(u), "%s", vnp_rule_id(f->rule));
	else
		vnp_unit_text(c->m, c->cp, s, u, sizeof(u));
	if (a->whole.cls == VNP_CLASS_LATENCY)
		cat(a->whole.why, sizeof(a->whole.why), "; the first finding (%s) is about %s: "
		    "no unit is saturated, so its fix shortens the critical path%s",
		    vnp_rule_id(f->rule), u, f->then.cls == VNP_CLASS_NONE ?
		    " and the class stays" : "");
	else
		cat(a->whole.why, sizeof(a->whole.why), "; the first finding (%s) is about %s, "
		    "not %s: its fix saves more on the critical path than any about the bound "
		    "unit", vnp_rule_id(f->rule), u, a->whole.unit == VNP_BOUND_HBM ? "HBM" :
		    a->whole.unit < VNEF_STREAMS ? vnp_stream_name(a->whole.unit, n1, sizeof(n1)) :
		    "the bound unit");
	would_be(&a->whole, a->whole.cls, f);
}

/*
 * What bounds the time next, said in a->next so that advice never ends at a dead end:
 * when the first finding was replayed, the replayed program's second analysis (what its
 * fix leaves); else the busiest stream on this profile's critical path, when it has no
 * finding (or only a symptom).
 */
static void next_bound(struct vnp_rctx *c)
{
	struct vnp_analysis *a = c->a;
	unsigned int s, best = VNEF_STREAMS, i;
	char u[128];

	if (a->n && a->f[0].then.cls != VNP_CLASS_NONE) {
		snprintf(a->next, sizeof(a->next), "with %s (the first finding, replayed): %s",
			 a->f[0].then.fix, a->f[0].then.text);
		return;
	}

	for (s = 0; s < VNEF_STREAMS; s++)
		if (c->cp->stream_ps[s] &&
		    (best == VNEF_STREAMS || c->cp->stream_ps[s] > c->cp->stream_ps[best]))
			best = s;
	if (best == VNEF_STREAMS || finding_about(a, best, NULL))
		return;
	/* the bound unit's symptoms were folded into the class's why */
	if (a->whole.cls != VNP_CLASS_LATENCY && a->whole.unit == best)
		return;
	for (i = 0; i < a->n; i++)
		if (a->f[i].rule == VNP_RULE_SEM_WAIT && a->f[i].unit == best)
			return;		/* its symptom's gain says so */
	vnp_unit_text(c->m, c->cp, best, u, sizeof(u));
	snprintf(a->next, sizeof(a->next), "%s: no rule finds a fix for its own work, so it "
		 "bounds the time next", u);
}

void vnp_verdict(struct vnp_rctx *c)
{
	fold_symptoms(c);
	agree(c);
	next_bound(c);
}
