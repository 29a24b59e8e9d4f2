// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Critical paths (docs/metrics.md). In the model an entry starts at the later of its
 * stream's previous end and the time its semaphore value was reached, which is the end
 * of the signalling entry; so the entry an event waited for is found exactly by its end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "critpath.h"
#include "metrics.h"
#include "../util/sorted.h"

static const struct vnp_ev *prev_on_track(const struct vnp_timeline *tl,
					  const struct vnp_ev *e)
{
	size_t i = (size_t)(e - tl->ev);

	if (i > tl->track_off[vnp_ev_track(e)] && e[-1].exec == e->exec)
		return e - 1;
	return NULL;
}

const struct vnp_ev *vnp_ev_signaller(const struct vnp_timeline *tl, const struct vnp_ev *e)
{
	uint32_t s = VNP_NONE;
	size_t lo, hi, t;

	if (e->sem_wait == VNEURON_TRACE_NO_SEM || e->sem_wait >= VNEF_MAX_SEMS)
		return NULL;
	if (tl->prog)
		s = tl->prog->sem_writer[e->sem_wait];
	if (s == VNP_NONE)
		s = tl->sig_stream[e->sem_wait];
	if (s >= VNEF_STREAMS)
		return NULL;
	t = (size_t)e->core * VNEF_STREAMS + s;
	/* a stream's events do not overlap: ends grow with starts; first end >= e->start */
	lo = tl->track_off[t];
	hi = tl->track_off[t + 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->ev[mid].end < e->start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < tl->track_off[t + 1] && tl->ev[lo].end == e->start; lo++)
		if (tl->ev[lo].exec == e->exec)
			return &tl->ev[lo];
	return NULL;
}

/* What e waited for: the entry that ended last among its dependencies, or NULL at the start. */
static const struct vnp_ev *dep(const struct vnp_timeline *tl, const struct vnp_ev *e,
				int *hop)
{
	const struct vnp_ev *p = prev_on_track(tl, e), *s;
	uint64_t from = p ? p->end : vnp_tl_exec_start(tl, e->core, e->exec);

	*hop = 0;
	if (e->start > from) {
		s = vnp_ev_signaller(tl, e);
		if (s) {
			*hop = 1;
			return s;
		}
	}
	return p;
}

static unsigned int unit_of(const struct vnp_ev *e)
{
	if (vnp_ev_is_cc(e))
		return VNP_UNIT_CC;
	return e->stream < VNEF_ENGINES ? e->stream : VNP_UNIT_DMA;
}

/* The time an event kept its unit busy: a collective's wait for the others is not. */
static uint64_t busy_of(const struct vnp_ev *e)
{
	return vnp_ev_is_cc(e) ? vnp_cc_xfer(e) : e->end - e->start;
}

uint32_t vnp_wait_root(const struct vnp_timeline *tl, const struct vnp_ev *e,
		       uint64_t *busy_ps)
{
	uint64_t t[VNEF_STREAMS] = { 0 };
	const struct vnp_ev *x = vnp_ev_signaller(tl, e);
	uint32_t s, best = VNP_NONE;
	int hop = 0;

	size_t steps = 0;

	*busy_ps = 0;
	/* a damaged profile's zero-length entries could wait on each other: bound the walk */
	for (; x && steps++ < tl->n; x = dep(tl, x, &hop))
		t[x->stream] += busy_of(x);
	for (s = 0; s < VNEF_STREAMS; s++)
		if (t[s] > *busy_ps) {
			*busy_ps = t[s];
			best = s;
		}
	return best;
}

int vnp_critpath_compute(const struct vnp_timeline *tl, struct vnp_critpath *cp)
{
	size_t *last = NULL, i, n = 0, cap = 0;
	uint64_t nx = tl->nexec;
	unsigned int t;

	memset(cp, 0, sizeof(*cp));
	if (!tl->n || !nx)
		return 0;
	cp->on = calloc(tl->n, 1);
	last = malloc(nx * sizeof(*last));
	if (!cp->on || !last)
		goto nomem;
	for (i = 0; i < nx; i++)
		last[i] = SIZE_MAX;
	/* the event that ends last in each execution (executions are sorted by key) */
	for (t = 0; t < VNP_TRACKS; t++) {
		for (i = tl->track_off[t]; i < tl->track_off[t + 1]; i++) {
			const struct vnp_ev *e = &tl->ev[i];
			uint64_t key = (uint64_t)e->core << 32 | e->exec;
			size_t lo = VNP_LOWER_BOUND(tl->execs, nx, key, key);

			if (lo == nx || tl->execs[lo].key != key)
				continue;
			if (last[lo] == SIZE_MAX || tl->ev[last[lo]].end < e->end)
				last[lo] = i;
		}
	}
	for (i = 0; i < nx; i++) {
		const struct vnp_ev *e;
		size_t first = n, a, b;
		int hop = 0;

		if (last[i] == SIZE_MAX)
			continue;
		e = &tl->ev[last[i]];
		cp->len_ps += e->end - vnp_tl_exec_start(tl, e->core, e->exec);
		if (e->end - vnp_tl_exec_start(tl, e->core, e->exec) > cp->max_ps) {
			cp->max_ps = e->end - vnp_tl_exec_start(tl, e->core, e->exec);
			cp->max_core = e->core;
		}
		for (; e; e = dep(tl, e, &hop)) {
			size_t idx = (size_t)(e - tl->ev);

			if (cp->on[idx])
				break;	/* cannot happen in a consistent profile; never loop */
			cp->on[idx] = 1;
			if (n == cap) {
				size_t *q = realloc(cp->ev, (cap ? cap * 2 : 256) * sizeof(*q));

				if (!q)
					goto nomem;
				cp->ev = q;
				cap = cap ? cap * 2 : 256;
			}
			cp->ev[n++] = idx;
			cp->unit_ps[unit_of(e)] += busy_of(e);
			cp->stream_ps[e->stream] += e->end - e->start;
			if (vnp_ev_is_cc(e)) {
				cp->cc_wait_ps += vnp_cc_wait(e);
				cp->cc_wait_rank[vnp_cc_last(e) % VNEF_CC_MAX_RANKS] +=
					vnp_cc_wait(e);
			} else {
				cp->fixed_ps[unit_of(e)] += vnp_ev_fixed(tl, e);
			}
			cp->sem_hops += (uint64_t)hop;
		}
		/* walked backwards: put this execution's part in time order */
		for (a = first, b = n; a + 1 < b; a++, b--) {
			size_t x = cp->ev[a];

			cp->ev[a] = cp->ev[b - 1];
			cp->ev[b - 1] = x;
		}
	}
	cp->nev = n;
	free(last);
	return 0;
nomem:
	free(last);
	vnp_critpath_free(cp);
	return -ENOMEM;
}

void vnp_critpath_free(struct vnp_critpath *cp)
{
	free(cp->on);
	free(cp->ev);
	memset(cp, 0, sizeof(*cp));
}
