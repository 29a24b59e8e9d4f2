// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * semaphore-wait (docs/profiler.md, "Analysis and advice"): engines and queues that wait
 * on semaphores over a tenth of the time, each longest wait followed back to the unit
 * that was busy behind it; waits behind the unit the class names are folded into the
 * class's why instead.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"

#define cat vnp_cat

/* " at file.c:12 [a/b]" of an event (its line and scope, as far as known), or "" */
static const char *ev_where(const struct vnp_timeline *tl, const struct vnp_ev *e,
			    char *buf, size_t len)
{
	const struct vnp_loc *l = vnp_ev_loc(tl, e);
	char src[256];

	buf[0] = 0;
	if (l && l->line != VNP_NONE)
		snprintf(buf, len, " at %s", vnp_prog_line(tl->prog, l->line, src, sizeof(src)));
	if (l && l->scope != VNP_NONE)
		cat(buf, len, " [%s]", vnp_prog_scope(tl->prog, l->scope));
	return buf;
}

/* Whether the unit behind a wait is the one the class says bounds the time. */
static int is_bound(const struct vnp_classification *cl, uint32_t root)
{
	if (root == VNP_NONE)
		return 0;
	if (cl->unit == VNP_BOUND_HBM)
		return root >= VNEF_ENGINES;
	return cl->cls != VNP_CLASS_LATENCY && root == cl->unit;
}

/*
 * Waits per engine, and for the DMA queues together. A waiter counts when its total wait
 * (for DMA: the most waiting queue's) exceeds VNP_SEM_WAIT_FRAC of total_time. Its
 * longest wait is followed back to the unit that was busy behind it: if that is the
 * unit the class names, the wait is a symptom of it and is folded into the class.
 */
static int sem_finding(struct vnp_rctx *c, unsigned int w0, unsigned int w1)
{
	const struct vnp_timeline *tl = c->tl;
	const struct vnp_metrics *m = c->m;
	uint64_t tot = 0, worst = 0, root_ps = 0, lw = 0;
	unsigned int w, s, i, wq = w0;
	size_t n;
	uint32_t root = VNP_NONE;
	char n1[32], n2[32], t1[32], t2[32], t3[32], where[160], who[32], rw[512];
	struct vnp_ev longest_copy, *longest = NULL;
	size_t longest_i = SIZE_MAX;
	struct vnp_finding *f;

	for (w = w0; w < w1; w++) {
		uint64_t qt = 0;

		for (s = 0; s <= VNEF_STREAMS; s++)
			qt += m->wait_ps[w][s];
		tot += qt;
		if (qt > worst) {
			worst = qt;
			wq = w;
		}
	}
	if ((double)worst <= VNP_SEM_WAIT_FRAC * (double)m->core_ps)
		return 0;
	for (i = 0; i < m->ntop_wait && !longest; i++) {
		const struct vnp_ev e_copy = vnp_tl_ev(tl, m->top_wait[i].ev), *e = &e_copy;

		if (e->stream >= w0 && e->stream < w1) {
			longest_i = m->top_wait[i].ev;
			longest_copy = *e;
			longest = &longest_copy;
			lw = m->top_wait[i].wait_ps;
		}
	}
	/* not among the profile's longest waits: look along the waiter's own tracks */
	for (w = w0; w < w1 && !longest; w++) {
		unsigned int k;

		for (k = 0; k < tl->ncores; k++) {
			unsigned int t = k * VNEF_STREAMS + w;
			size_t x;

			for (x = tl->track_off[t]; x < tl->track_off[t + 1]; x++) {
				uint64_t wt = vnp_ev_wait(tl, x);

				if (wt > lw) {
					lw = wt;
					longest_i = x;
				}
			}
		}
	}
	if (longest_i != SIZE_MAX) {
		longest_copy = vnp_tl_ev(tl, longest_i);
		longest = &longest_copy;
		root = vnp_wait_root(tl, longest_i, &root_ps);
	}
	if (w1 - w0 > 1)
		snprintf(who, sizeof(who), "DMA queues (most: %s)",
			 vnp_stream_name(wq, n1, sizeof(n1)));
	else
		vnp_stream_name(w0, who, sizeof(who));
	if (is_bound(&c->a->whole, root)) {
		cat(c->a->folded, sizeof(c->a->folded), "%s%s waits %.1f%% of the time, behind "
		    "%s, the bound unit", c->a->folded[0] ? "; " : "", who,
		    vnp_pct(worst, m->core_ps), vnp_stream_name(root, n2, sizeof(n2)));
		return 0;
	}
	/* waits behind one root are one finding: the others join the first */
	for (i = 0; i < c->a->n; i++) {
		f = &c->a->f[i];
		if (f->rule != VNP_RULE_SEM_WAIT || f->unit != root)
			continue;
		cat(f->evidence, sizeof(f->evidence), " %s waits %.1f%% of the time behind it "
		    "too (%s in all).", who, vnp_pct(worst, m->core_ps),
		    vnp_fmt_time(tot, t1, sizeof(t1)));
		/* "... leads to DMA q0 (also VectorE 59.2%, ScalarE 77.2%)" */
		n = strlen(f->title);
		if (n && f->title[n - 1] == ')' && strstr(f->title, " (also ")) {
			f->title[n - 1] = 0;
			cat(f->title, sizeof(f->title), ", %s %.1f%%)", who, vnp_pct(worst, m->core_ps));
		} else {
			cat(f->title, sizeof(f->title), " (also %s %.1f%%)", who,
			    vnp_pct(worst, m->core_ps));
		}
		if ((double)worst / (double)m->core_ps > f->share)
			f->share = (double)worst / (double)m->core_ps;
		return 0;
	}
	/* a symptom: what it saves is its root's, so it ranks after the root's finding */
	f = vnp_add(c, VNP_RULE_SEM_WAIT, 0, (double)worst / (double)m->core_ps);
	if (!f)
		return -ENOMEM;
	f->unit = root;
	snprintf(f->title, sizeof(f->title), "%s wait%s on semaphores %.1f%% of the time; "
		 "the chain behind the waits leads to %s", who, w1 - w0 > 1 ? "" : "s",
		 vnp_pct(worst, m->core_ps),
		 root != VNP_NONE ? vnp_stream_name(root, n2, sizeof(n2)) : "an unknown unit");
	cat(f->evidence, sizeof(f->evidence), "waited %s in total (> %.0f%% of total_time):",
	    vnp_fmt_time(tot, t1, sizeof(t1)), 100 * VNP_SEM_WAIT_FRAC);
	for (s = 0; s <= VNEF_STREAMS; s++) {
		uint64_t sum = 0;

		for (w = w0; w < w1; w++)
			sum += m->wait_ps[w][s];
		if (sum)
			cat(f->evidence, sizeof(f->evidence), " %s for %s;",
			    vnp_fmt_time(sum, t1, sizeof(t1)),
			    s < VNEF_STREAMS ? vnp_stream_name(s, n2, sizeof(n2)) : "?");
	}
	if (longest)
		cat(f->evidence, sizeof(f->evidence),
		    " the longest: %s %s %s %u%s waited %s from %s on semaphore %u, behind %s "
		    "of work on %s.", vnp_stream_name(longest->stream, n1, sizeof(n1)),
		    vnp_opcode_name(longest->opcode),
		    longest->opcode == VNP_OP_DMA ? "desc" : "pc", longest->pc,
		    ev_where(tl, longest, where, sizeof(where)),
		    vnp_fmt_time(lw, t1, sizeof(t1)),
		    vnp_fmt_time(longest->start - lw - m->t0, t2, sizeof(t2)), longest->sem_wait,
		    vnp_fmt_time(root_ps, t3, sizeof(t3)),
		    root != VNP_NONE ? vnp_stream_name(root, n2, sizeof(n2)) : "?");
	rw[0] = 0;
	if (root != VNP_NONE)
		vnp_where(tl, vnp_pred_stream, &root, rw, sizeof(rw));
	snprintf(f->advice, sizeof(f->advice),
		 "The waits are a symptom: shorten what %s does before it signals%s%s%s (a "
		 "smaller first tile, work split over more engines or queues), or give the "
		 "waiter independent work (another tile) and more buffers so it need not wait.",
		 root != VNP_NONE ? vnp_stream_name(root, n2, sizeof(n2)) : "the producer",
		 *rw ? " (" : "", rw, *rw ? ")" : "");
	snprintf(f->gain, sizeof(f->gain), "none of its own: a symptom, its saving is in the "
		 "finding about %s", root != VNP_NONE ? vnp_stream_name(root, n2, sizeof(n2)) :
		 "its producer");
	return 0;
}

static int rule_sem_wait(struct vnp_rctx *c)
{
	unsigned int e;
	int ret = 0;

	for (e = 0; e < VNEF_ENGINES && !ret; e++)
		ret = sem_finding(c, e, e + 1);
	return ret ?: sem_finding(c, VNEF_ENGINES, VNEF_STREAM_CC) ?:
	       sem_finding(c, VNEF_STREAM_CC, VNEF_STREAM_CC + 1);
}

VNP_RULE_DEF(semaphore_wait, SEM_WAIT, "semaphore-wait", rule_sem_wait,
	     "semaphore waits per waiter and signaller, the longest wait's root behind "
	     "it on the critical path, the class's bound unit",
	     VNP_THR(VNP_SEM_WAIT_FRAC));
