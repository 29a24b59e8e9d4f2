// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * After a replayed fix (docs/profiler.md, "Replay"): the changed program the replay ran
 * is analysed again, as the original was but without replays, and what bounds it then
 * (its class, the busiest unit on its critical path, its own first finding) goes with
 * the finding, so that advice never ends at a dead end.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "replay.h"
#include "rule.h"

#define cat vnp_cat

/* f->then from the second analysis a of the replayed program (metrics m). */
static void describe(struct vnp_after *t, const struct vnp_metrics *m,
		     const struct vnp_analysis *a)
{
	char u[128], t1[32];

	t->cls = a->whole.cls;
	snprintf(t->label, sizeof(t->label), "%s", a->whole.label);
	snprintf(t->text, sizeof(t->text), "%s", a->whole.label);
	t->unit = vnp_top_stream(&a->cp, ~0u);
	if (t->unit != VNP_NONE) {
		vnp_unit_text(m, &a->cp, t->unit, u, sizeof(u));
		cat(t->text, sizeof(t->text), "; on its critical path %s", u);
	}
	t->has_rule = a->n > 0;
	if (a->n && a->f[0].saved_ps < 1000) {
		/* a symptom saves nothing (under a nanosecond): its gain names the work to shorten */
		t->rule = a->f[0].rule;
		cat(t->text, sizeof(t->text), "; its first finding: %s, %s",
		    vnp_rule_id(a->f[0].rule), a->f[0].gain);
	} else if (a->n) {
		t->rule = a->f[0].rule;
		cat(t->text, sizeof(t->text), "; its first finding: %s (%s), about %s less "
		    "(estimated)", vnp_rule_id(a->f[0].rule), a->f[0].title,
		    vnp_fmt_time((uint64_t)a->f[0].saved_ps, t1, sizeof(t1)));
	} else {
		cat(t->text, sizeof(t->text), "; no rule finds a fix for it");
	}
}

int vnp_analyze_after(struct vnp_rctx *c, struct vnp_finding *f, const char *fix)
{
	const struct vneuron_trace_record *rec;
	const void *img;
	struct vnp_prog prog;
	struct vnp_timeline tl;
	struct vnp_metrics m;
	struct vnp_analysis a;
	size_t size, n;
	uint64_t ps;
	char err[128];
	int ret;

	memset(&f->then, 0, sizeof(f->then));
	f->then.unit = VNP_NONE;
	/* only the run this finding's gain came from */
	if (!c->r || vnp_replay_last(c->r, &img, &size, &rec, &n, &ps) || ps != f->after_ps)
		return 0;
	memset(&m, 0, sizeof(m));
	memset(&a, 0, sizeof(a));
	ret = vnp_prog_load(&prog, img, size, err, sizeof(err));
	if (ret)
		return ret == -ENOMEM ? ret : 0;
	vnp_tl_init(&tl, &c->tl->model, &prog);
	ret = vnp_tl_add(&tl, 0, rec, n);
	if (!ret)
		ret = vnp_tl_finish(&tl);
	if (!ret)
		ret = vnp_metrics_compute(&tl, 0, &m);
	if (!ret)
		ret = vnp_analyze_opts(&tl, &m, &a, VNP_ANALYZE_NO_REPLAY);
	if (!ret) {
		snprintf(f->then.fix, sizeof(f->then.fix), "%s", fix ? fix : "");
		describe(&f->then, &m, &a);
		vnp_analysis_free(&a);
	}
	vnp_metrics_free(&m);
	vnp_tl_free(&tl);
	vnp_prog_free(&prog);
	/* a second analysis that cannot be made leaves the finding as it was */
	return ret == -ENOMEM ? ret : 0;
}
