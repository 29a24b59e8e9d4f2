// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The timeline's executions on the host clock (docs/profiler.md "One clock"): placed at
 * their EXEC_START host times, their mapping error and the host's slowdown.
 */
#include <errno.h>
#include <stdlib.h>

#include "timeline.h"
#include "timeline_priv.h"

/* An execution after cur on its core: the shift that starts it at cur or later. */
uint64_t vnp_tl_place(struct vnp_exec *x, uint64_t cur)
{
	x->shift = cur > x->lo ? cur - x->lo : 0;
	if (x->hi + x->shift < x->hi)	/* no room left: keep the records' times */
		x->shift = 0;
	return x->hi + x->shift;
}

uint64_t vnp_tl_host_ps(const struct vnp_timeline *tl, uint64_t host_ns)
{
	uint64_t d = host_ns > tl->host_base_ns ? host_ns - tl->host_base_ns : 0;

	return d <= UINT64_MAX / 2000 ? d * 1000 : UINT64_MAX / 2;
}

/*
 * The host clock (docs/profiler.md "One clock"): each execution starts at its
 * EXEC_START's host time, its modeled offsets kept (not scaled: a modeled duration is
 * what the metrics are about, and the host's span also holds the kernel's own work).
 * An execution that would start before the one before it on its core ends (the model
 * took longer than the host did) starts at that end instead, so a core's executions
 * stay in order; the delay counts in its error. Its error: |modeled span - host span
 * between EXEC_START and EXEC_END| + that delay, and at least the 1 ns of host_ns.
 */
static int cmp_u64(const void *a, const void *b)
{
	return vnp_cmp(*(const uint64_t *)a, *(const uint64_t *)b);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of n values (the upper middle one), sorted in place; 0 if n is 0. */
static uint64_t median_u64(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

int vnp_tl_host_layout(struct vnp_timeline *tl)
{
	uint64_t cur = 0, base = UINT64_MAX, *errs, *serrs;
	unsigned int core = VNP_MAX_CORES;
	size_t i, n = 0, nr = 0;
	double *ratio;

	for (i = 0; i < tl->nexec; i++)
		if (tl->execs[i].host_lo && tl->execs[i].host_lo < base)
			base = tl->execs[i].host_lo;
	for (i = 0; i < tl->rg.ncalls; i++)
		if (tl->rg.calls[i].start && tl->rg.calls[i].start < base)
			base = tl->rg.calls[i].start;
	tl->host_base_ns = base == UINT64_MAX ? 0 : base;
	errs = malloc((tl->nexec ? tl->nexec : 1) * 2 * sizeof(*errs));
	ratio = malloc((tl->nexec ? tl->nexec : 1) * sizeof(*ratio));
	if (!errs || !ratio) {
		free(errs);
		free(ratio);
		return -ENOMEM;
	}
	serrs = errs + (tl->nexec ? tl->nexec : 1);
	for (i = 0; i < tl->nexec; i++) {
		struct vnp_exec *x = &tl->execs[i];
		uint64_t at, host_at, start, span = x->hi - x->lo, hspan, err;

		if ((unsigned int)(x->key >> 32) != core) {
			core = (unsigned int)(x->key >> 32);
			cur = 0;
		}
		if (!x->host_lo) {
			x->map_err = UINT64_MAX;
			tl->map_unplaced++;
			cur = vnp_tl_place(x, cur);
			continue;
		}
		host_at = vnp_tl_host_ps(tl, x->host_lo);
		at = host_at > cur ? host_at : cur;
		cur = vnp_tl_place(x, at);
		start = x->lo + x->shift;
		err = start > host_at ? start - host_at : host_at - start;
		serrs[n] = err > 1000 ? err : 1000;
		if (serrs[n] > tl->start_err_max)
			tl->start_err_max = serrs[n];
		hspan = x->host_hi > x->host_lo ? vnp_tl_host_ps(tl, x->host_hi) -
			vnp_tl_host_ps(tl, x->host_lo) : 0;
		if (span && hspan)
			ratio[nr++] = (double)hspan / (double)span;
		err += span > hspan ? span - hspan : hspan - span;
		x->map_err = err > 1000 ? err : 1000;
		if (x->map_err > tl->map_err_max)
			tl->map_err_max = x->map_err;
		errs[n++] = x->map_err;
	}
	tl->map_err_median = median_u64(errs, n);
	tl->start_err_median = median_u64(serrs, n);
	if (nr) {
		qsort(ratio, nr, sizeof(*ratio), cmp_dbl);
		tl->host_slowdown = ratio[nr / 2];
	}
	free(errs);
	free(ratio);
	return 0;
}

