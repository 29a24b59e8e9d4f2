// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Per-execution statistics: spreads and outliers (execstats.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "execstats.h"

static int cmp_u64(const void *a, const void *b)
{
	return vnp_cmp(*(const uint64_t *)a, *(const uint64_t *)b);
}

/* The median of n sorted values (the mean of the middle two for an even n). */
static uint64_t median(const uint64_t *v, size_t n)
{
	if (n % 2)
		return v[n / 2];
	return v[n / 2 - 1] + (v[n / 2] - v[n / 2 - 1]) / 2;
}

/* min, median, max and MAD of v (n > 0), using tmp (n values). */
static void spread(const uint64_t *v, size_t n, uint64_t *tmp, struct vnp_spread *s)
{
	size_t i;

	memcpy(tmp, v, n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), cmp_u64);
	s->min = tmp[0];
	s->max = tmp[n - 1];
	s->median = median(tmp, n);
	for (i = 0; i < n; i++)
		tmp[i] = v[i] > s->median ? v[i] - s->median : s->median - v[i];
	qsort(tmp, n, sizeof(*tmp), cmp_u64);
	s->mad = median(tmp, n);
}

int vnp_xs_outlier(const struct vnp_spread *s, uint64_t n, uint64_t v)
{
	uint64_t d = v > s->median ? v - s->median : s->median - v;
	uint64_t lim = s->median / 10;

	if (n < VNP_XS_MIN_EXECS)
		return 0;
	/* 3 x MAD, saturated: a MAD that large leaves nothing out */
	if (s->mad > UINT64_MAX / 3)
		return 0;
	if (3 * s->mad > lim)
		lim = 3 * s->mad;
	return d > lim;
}

const char *vnp_xs_name(unsigned int m)
{
	return m == VNP_XS_TOTAL ? "total" : vnp_engine_name(m - 1);
}

/* Each execution's figures: val[m * n + i] for execution i (tl->execs order). */
static void figures(const struct vnp_timeline *tl, uint64_t *val, size_t n)
{
	unsigned int core, e;
	size_t i, x;

	for (i = 0; i < n; i++)
		val[VNP_XS_TOTAL * n + i] = tl->execs[i].hi > tl->execs[i].lo ?
					    tl->execs[i].hi - tl->execs[i].lo : 0;
	for (core = 0; core < tl->ncores && core < VNP_MAX_CORES; core++) {
		for (e = 0; e < VNEF_ENGINES; e++) {
			unsigned int t = core * VNEF_STREAMS + e;
			uint64_t cur = 0;

			/* the union of the track's events: one engine runs one at a time */
			for (i = tl->track_off[t]; i < tl->track_off[t + 1]; i++) {
				const struct vnp_ev ev_copy = vnp_tl_ev(tl, i), *ev = &ev_copy;
				uint64_t from = ev->start > cur ? ev->start : cur;

				x = vnp_tl_exec_index(tl, core, ev->exec);
				if (ev->end > from && x != SIZE_MAX)
					val[(1 + e) * n + x] += ev->end - from;
				if (ev->end > cur)
					cur = ev->end;
			}
		}
	}
}

int vnp_exec_stats(const struct vnp_timeline *tl, struct vnp_exec_stats *xs)
{
	size_t n = tl->nexec, i;
	uint64_t *val, *tmp;
	unsigned int m;
	uint32_t which;

	memset(xs, 0, sizeof(*xs));
	if (!n)
		return 0;
	if (n > SIZE_MAX / sizeof(*val) / (VNP_XS_METRICS + 1))
		return -ENOMEM;
	val = calloc(n * VNP_XS_METRICS, sizeof(*val));
	tmp = malloc(n * sizeof(*tmp));
	if (!val || !tmp)
		goto oom;
	figures(tl, val, n);
	xs->n = n;
	for (m = 0; m < VNP_XS_METRICS; m++)
		spread(val + m * n, n, tmp, &xs->s[m]);
	for (i = 0; i < n; i++) {
		struct vnp_xs_outlier *o;

		for (m = 0, which = 0; m < VNP_XS_METRICS; m++)
			if (vnp_xs_outlier(&xs->s[m], n, val[m * n + i]))
				which |= 1u << m;
		if (!which)
			continue;
		o = realloc(xs->out, (xs->nout + 1) * sizeof(*o));
		if (!o)
			goto oom;
		xs->out = o;
		o += xs->nout++;
		o->core = (uint32_t)(tl->execs[i].key >> 32);
		o->exec = (uint32_t)tl->execs[i].key;
		o->which = which;
		for (m = 0; m < VNP_XS_METRICS; m++)
			o->value[m] = val[m * n + i];
	}
	free(val);
	free(tmp);
	return 0;
oom:
	free(val);
	free(tmp);
	vnp_exec_stats_free(xs);
	return -ENOMEM;
}

void vnp_exec_stats_free(struct vnp_exec_stats *xs)
{
	free(xs->out);
	memset(xs, 0, sizeof(*xs));
}
