// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * host-overhead (docs/profiler.md): the application held its cores but left them idle
 * between executions (launch gaps: host time from one execution's end to the next's
 * start, from the EXEC_END and EXEC_START records' host clock), and the application
 * ranges whose executions waited for the host longest.
 */
#include <errno.h>
#include <stdio.h>

#include "rule.h"

static int rule_host_overhead(struct vnp_rctx *c)
{
	const struct vnp_metrics *m = c->m;
	const struct vnp_timeline *tl = c->tl;
	uint32_t top[3] = { VNP_NONE, VNP_NONE, VNP_NONE };
	char t1[32], t2[32];
	struct vnp_finding *f;
	unsigned int k, i, j;
	uint64_t gaps, held, n;

	if (!m->held_ns || (double)m->gap_ns <= VNP_LAUNCH_GAP_FRAC * (double)m->held_ns)
		return 0;
	f = vnp_add(c, VNP_RULE_HOST_OVERHEAD, (double)m->gap_ns * 1000.0,
		    (double)m->gap_ns / (double)m->held_ns);
	if (!f)
		return -ENOMEM;
	snprintf(f->title, sizeof(f->title), "overhead-bound on the host: cores idle between "
		 "executions %.0f%% of the time the application held them",
		 vnp_pct(m->gap_ns, m->held_ns));
	for (k = 0; k < tl->ncores; k++) {
		gaps = vnp_tl_launch_gaps(tl, k, &held, &n);
		if (!n)
			continue;
		vnp_cat(f->evidence, sizeof(f->evidence), "core %u: %llu gaps, %s of %s held; ",
			k, (unsigned long long)n,
			vnp_fmt_time(gaps * 1000, t1, sizeof(t1)),
			vnp_fmt_time(held * 1000, t2, sizeof(t2)));
	}
	/* the innermost ranges of the executions that waited longest for their launch */
	for (i = 0; i <= m->nranges; i++) {
		if (!m->range[i].gap_ns)
			continue;
		for (j = 0; j < 3; j++)
			if (top[j] == VNP_NONE || m->range[i].gap_ns > m->range[top[j]].gap_ns) {
				for (k = 2; k > j; k--)
					top[k] = top[k - 1];
				top[j] = i;
				break;
			}
	}
	for (j = 0; j < 3 && top[j] != VNP_NONE; j++)
		vnp_cat(f->evidence, sizeof(f->evidence), "%s%s%s%s: %s before %llu executions",
			j ? "; " : "gaps before the executions of ",
			top[j] < m->nranges ? "range \"" : "",
			top[j] < m->nranges ? vnp_range_name(tl, top[j]) : "no range",
			top[j] < m->nranges ? "\"" : "",
			vnp_fmt_time(m->range[top[j]].gap_ns * 1000, t1, sizeof(t1)),
			(unsigned long long)m->range[top[j]].gaps);
	snprintf(f->advice, sizeof(f->advice), "the device waits for the host: submit the "
		 "next execution before waiting for the last (several in flight, nd_ring or "
		 "io_uring submission), and move host-side work out of the loop or overlap it "
		 "with execution");
	snprintf(f->gain, sizeof(f->gain), "estimate: up to %s of host time between "
		 "executions (host clock, not modeled time)",
		 vnp_fmt_time(m->gap_ns * 1000, t1, sizeof(t1)));
	return 0;
}

VNP_RULE_DEF(host_overhead, HOST_OVERHEAD, "host-overhead", rule_host_overhead,
	     "the cores' launch gaps and the host time the application held them (the "
	     "API log), the ranges whose executions waited longest",
	     VNP_THR(VNP_LAUNCH_GAP_FRAC));
