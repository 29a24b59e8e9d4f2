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

/* The event before event i of e's track in its execution, or SIZE_MAX. */
static size_t prev_on_track(const struct vnp_timeline *tl, size_t i, const struct vnp_ev *e)
{
	if (i > tl->track_off[vnp_ev_track(e)] && vnp_tl_ev_exec(tl, i - 1) == e->exec)
		return i - 1;
	return SIZE_MAX;
}

size_t vnp_ev_signaller(const struct vnp_timeline *tl, size_t i)
{
	const struct vnp_shape *sh = vnp_tl_shape(tl, i);
	uint64_t start = vnp_tl_start(tl, i);
	uint32_t s = VNP_NONE, exec;
	size_t lo, hi, t;

	if (sh->sem_wait == VNEURON_TRACE_NO_SEM || sh->sem_wait >= VNEF_MAX_SEMS)
		return SIZE_MAX;
	if (tl->prog)
		s = tl->prog->sem_writer[sh->sem_wait];
	if (s == VNP_NONE)
		s = tl->sig_stream[sh->sem_wait];
	if (s >= VNEF_STREAMS)
		return SIZE_MAX;
	t = (size_t)sh->core * VNEF_STREAMS + s;
	exec = vnp_tl_ev_exec(tl, i);
	/* a stream's events do not overlap: ends grow with starts; first end >= start */
	lo = tl->track_off[t];
	hi = tl->track_off[t + 1];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (vnp_tl_end(tl, mid) < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < tl->track_off[t + 1] && vnp_tl_end(tl, lo) == start; lo++)
		if (vnp_tl_ev_exec(tl, lo) == exec)
			return lo;
	return SIZE_MAX;
}

/* What event i waited for: the entry that ended last among its dependencies, or SIZE_MAX. */
static size_t dep(const struct vnp_timeline *tl, size_t i, int *hop)
{
	struct vnp_ev e = vnp_tl_ev(tl, i);
	size_t p = prev_on_track(tl, i, &e), s;
	uint64_t from = p != SIZE_MAX ? vnp_tl_end(tl, p) : vnp_tl_exec_start(tl, e.core, e.exec);

	*hop = 0;
	if (e.start > from) {
		s = vnp_ev_signaller(tl, i);
		if (s != SIZE_MAX) {
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

uint32_t vnp_wait_root(const struct vnp_timeline *tl, size_t i, uint64_t *busy_ps)
{
	uint64_t t[VNEF_STREAMS] = { 0 };
	size_t x = vnp_ev_signaller(tl, i);
	uint32_t s, best = VNP_NONE;
	int hop = 0;

	size_t steps = 0;

	*busy_ps = 0;
	/* a damaged profile's zero-length entries could wait on each other: bound the walk */
	for (; x != SIZE_MAX && steps++ < tl->n; x = dep(tl, x, &hop)) {
		struct vnp_ev e = vnp_tl_ev(tl, x);

		t[e.stream] += busy_of(&e);
	}
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
	/*
	 * the event that ends last in each execution (executions are sorted by key; a
	 * track's events come in runs of one execution: searched once a run)
	 */
	for (t = 0; t < VNP_TRACKS; t++) {
		uint64_t prev = UINT64_MAX;
		size_t lo = nx;

		for (i = tl->track_off[t]; i < tl->track_off[t + 1]; i++) {
			uint64_t key = (uint64_t)vnp_tl_shape(tl, i)->core << 32 |
				       vnp_tl_ev_exec(tl, i);

			if (key != prev)
				lo = VNP_LOWER_BOUND(tl->execs, nx, key, key);
			prev = key;

			if (lo == nx || tl->execs[lo].key != key)
				continue;
			if (last[lo] == SIZE_MAX || vnp_tl_end(tl, last[lo]) < vnp_tl_end(tl, i))
				last[lo] = i;
		}
	}
	for (i = 0; i < nx; i++) {
		struct vnp_ev ev, *e = &ev;
		size_t first = n, a, b, idx;
		int hop = 0;

		if (last[i] == SIZE_MAX)
			continue;
		ev = vnp_tl_ev(tl, last[i]);
		cp->len_ps += e->end - vnp_tl_exec_start(tl, e->core, e->exec);
		if (e->end - vnp_tl_exec_start(tl, e->core, e->exec) > cp->max_ps) {
			cp->max_ps = e->end - vnp_tl_exec_start(tl, e->core, e->exec);
			cp->max_core = e->core;
		}
		for (idx = last[i]; idx != SIZE_MAX; idx = dep(tl, idx, &hop)) {
			ev = vnp_tl_ev(tl, idx);
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
