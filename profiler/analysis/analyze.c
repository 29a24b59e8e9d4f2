// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The analysis (docs/profiler.md, "Analysis and advice"): the critical path, the class
 * of the execution, of each scope and range, then every rule of the table (rules.c) in
 * turn, each finding ranked by the time its fix saves on the critical path: replayed on
 * the device model when the fix is mechanical (replay.c), else estimated.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "rule.h"

static const char *const class_names[] = {
	[VNP_CLASS_NONE] = "idle",
	[VNP_CLASS_COMPUTE] = "compute-bound",
	[VNP_CLASS_MEMORY] = "memory-bound",
	[VNP_CLASS_COMMUNICATION] = "communication-bound",
	[VNP_CLASS_OVERHEAD] = "overhead-bound",
	[VNP_CLASS_DMA_QUEUE] = "dma-queue-bound",
	[VNP_CLASS_LATENCY] = "latency-bound",
};

const char *vnp_class_name(enum vnp_class c)
{
	return c <= VNP_CLASS_LATENCY ? class_names[c] : "?";
}

#define cat vnp_cat

static int cmp_finding(const void *x, const void *y)
{
	const struct vnp_finding *a = x, *b = y;

	if (a->saved_ps != b->saved_ps)
		return a->saved_ps > b->saved_ps ? -1 : 1;
	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	return (int)a->rule - (int)b->rule;
}

/* "critical path: TensorE 80%, DMA q0 15%" for the class's why. */
static void cp_text(const struct vnp_critpath *cp, char *buf, size_t len)
{
	unsigned int s, k, shown = 0, used[VNEF_STREAMS] = { 0 };
	char n1[32];

	if (!cp->len_ps)
		return;
	vnp_cat(buf, len, "; critical path:");
	for (k = 0; k < 3; k++) {
		unsigned int best = VNEF_STREAMS;

		for (s = 0; s < VNEF_STREAMS; s++)
			if (!used[s] && cp->stream_ps[s] &&
			    (best == VNEF_STREAMS || cp->stream_ps[s] > cp->stream_ps[best]))
				best = s;
		if (best == VNEF_STREAMS)
			break;
		used[best] = 1;
		vnp_cat(buf, len, "%s %s %.0f%%", shown++ ? "," : "",
			vnp_stream_name(best, n1, sizeof(n1)),
			vnp_pct(cp->stream_ps[best], cp->len_ps));
		/* a collective's time on a path is partly its wait for another rank */
		if (best == VNEF_STREAM_CC && cp->cc_wait_ps)
			vnp_cat(buf, len, " (%.0f%% waiting for the last rank)",
				vnp_pct(cp->cc_wait_ps, cp->len_ps));
	}
}

int vnp_analyze_opts(const struct vnp_timeline *tl, const struct vnp_metrics *m,
		     struct vnp_analysis *a, unsigned int flags)
{
	struct vnp_rctx c = { .tl = tl, .m = m, .a = a, .nexec = m->nexec ? m->nexec : 1 };
	uint32_t i;
	int ret;

	memset(a, 0, sizeof(*a));
	c.cp = &a->cp;
	ret = vnp_critpath_compute(tl, &a->cp);
	if (ret)
		return ret;
	vnp_classify_whole(tl, m, &a->cp, &a->whole);
	cp_text(&a->cp, a->whole.why, sizeof(a->whole.why));
	if (a->whole.cls == VNP_CLASS_LATENCY && m->gap_hi > m->gap_lo) {
		char t1[32], t2[32], t3[32];

		cat(a->whole.why, sizeof(a->whole.why), "; longest idle stretch %s to %s (%s)",
		    vnp_fmt_time(m->gap_lo - m->t0, t1, sizeof(t1)),
		    vnp_fmt_time(m->gap_hi - m->t0, t2, sizeof(t2)),
		    vnp_fmt_time(m->gap_hi - m->gap_lo, t3, sizeof(t3)));
	}
	a->scope = calloc(m->nscopes + 1, sizeof(*a->scope));
	if (!a->scope) {
		vnp_analysis_free(a);
		return -ENOMEM;
	}
	for (i = 0; i <= m->nscopes; i++)
		vnp_classify_group(tl, m, &m->scope[i], &a->scope[i]);
	a->range = calloc(m->nranges + 1, sizeof(*a->range));
	if (!a->range) {
		vnp_analysis_free(a);
		return -ENOMEM;
	}
	for (i = 0; i <= m->nranges; i++)
		vnp_classify_group(tl, m, &m->range[i].self, &a->range[i]);
	a->range_scope = calloc(m->nrs ? m->nrs : 1, sizeof(*a->range_scope));
	if (!a->range_scope) {
		vnp_analysis_free(a);
		return -ENOMEM;
	}
	for (i = 0; i < m->nrs; i++)
		vnp_classify_group(tl, m, &m->rs[i].g, &a->range_scope[i]);
	if (!m->total_ps)
		return 0;
	/*
	 * a program that cannot be replayed (no image, refused) gets estimates; so does one
	 * with collectives: a replay runs one rank alone, whose collectives cost nothing
	 */
	if (!(flags & VNP_ANALYZE_NO_REPLAY) && tl->prog && tl->prog->owner && !m->ncoll &&
	    !tl->prog->ncc) {
		ret = vnp_replay_open(&c.r, tl->prog, &tl->model);
		if (ret == -ENOMEM)
			goto out;
		if (ret)
			c.r = NULL;
	}
	/* every rule of the table, in its order */
	for (i = 0, ret = 0; i < VNP_RULE_COUNT && !ret; i++)
		ret = vnp_rules[i]->run(&c);
	if (a->folded[0])
		cat(a->whole.why, sizeof(a->whole.why), "; waits it explains: %s", a->folded);
out:
	vnp_replay_close(c.r);
	if (ret) {
		vnp_analysis_free(a);
		return ret;
	}
	for (i = 0; i < a->n; i++)
		a->f[i].impact = a->cp.len_ps ? a->f[i].saved_ps / (double)a->cp.len_ps : 0;
	if (a->n > 1)
		qsort(a->f, a->n, sizeof(*a->f), cmp_finding);
	vnp_verdict(&c);
	return 0;
}

int vnp_analyze(const struct vnp_timeline *tl, const struct vnp_metrics *m,
		struct vnp_analysis *a)
{
	return vnp_analyze_opts(tl, m, a, 0);
}

void vnp_analysis_free(struct vnp_analysis *a)
{
	free(a->scope);
	free(a->range);
	free(a->range_scope);
	free(a->f);
	vnp_critpath_free(&a->cp);
	a->scope = NULL;
	a->range = NULL;
	a->range_scope = NULL;
	a->f = NULL;
	a->n = 0;
}
