// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What every rule does with a finding (rule.h): add it with its saving, give it its gain
 * (replayed or estimated), or drop it when the model says its fix does not help.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "rule.h"
#include "../util/num.h"

struct vnp_finding *vnp_add(struct vnp_rctx *c, enum vnp_rule r, double saved, double share)
{
	struct vnp_analysis *a = c->a;
	struct vnp_finding *f = realloc(a->f, (a->n + 1) * sizeof(*f));

	if (!f)
		return NULL;
	a->f = f;
	f = &a->f[a->n++];
	memset(f, 0, sizeof(*f));
	f->rule = r;
	f->unit = VNP_NONE;
	f->saved_ps = saved > 0 ? saved : 0;
	f->share = share;
	return f;
}

/*
 * Fills a finding's gain from a replay (ret 0: after_ps; -ENOTSUP: why not in what) or
 * its estimate. Returns 1 if the model says the fix does not help: drop the finding.
 */
int vnp_gain(struct vnp_rctx *c, struct vnp_finding *f, int ret, uint64_t after,
	     const char *what)
{
	char t1[32], t2[32];

	if (!ret && c->r) {
		uint64_t base = vnp_replay_base(c->r);

		if (after >= base)
			return 1;
		f->replayed = 1;
		f->before_ps = base;
		f->after_ps = after;
		f->saved_ps = (double)(base - after) * (double)c->nexec;
		snprintf(f->gain, sizeof(f->gain), "%s: %s -> %s, replayed", what,
			 vnp_fmt_time(base, t1, sizeof(t1)), vnp_fmt_time(after, t2, sizeof(t2)));
		return vnp_analyze_after(c, f, what) ? -1 : 0;
	}
	snprintf(f->gain, sizeof(f->gain), "estimate: about %s less on the critical path "
		 "per execution%s%s%s", vnp_fmt_time(vnp_u64_sat(f->saved_ps / (double)c->nexec),
						     t1, sizeof(t1)),
		 what && *what ? " (not replayed: " : "", what && *what ? what : "",
		 what && *what ? ")" : "");
	return 0;
}

int vnp_settle(struct vnp_rctx *c, struct vnp_finding *f, int ret, uint64_t after,
	       const char *what)
{
	int r = vnp_gain(c, f, ret, after, what);

	if (r < 0)
		return -ENOMEM;
	if (r)
		vnp_drop_last(c->a);
	return 0;
}

void vnp_drop_last(struct vnp_analysis *a)
{
	a->n--;
}

int vnp_pred_stream(const struct vnp_timeline *tl, const struct vnp_ev *e, const void *arg)
{
	return e->stream == *(const unsigned int *)arg;
}
