// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Application ranges by layer (docs/capture.md, "Device time by layer"): the ranges
 * sorted by device time, each range's (range, layer) pairs as a tree.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"

/* Ranges by device time, the most first; ties by id. */
static const struct vnp_range_stat *sort_ranges;

static int cmp_range(const void *x, const void *y)
{
	const struct vnp_range_stat *a = &sort_ranges[*(const uint32_t *)x];
	const struct vnp_range_stat *b = &sort_ranges[*(const uint32_t *)y];

	return a->device_ps != b->device_ps ? (a->device_ps > b->device_ps ? -1 : 1) :
	       vnp_cmp(*(const uint32_t *)x, *(const uint32_t *)y);
}

/* Range ids 0..nranges (nranges: no range) with executions, by device time: their count. */
uint32_t vnp_ranges_sorted(const struct vnp_metrics *m, uint32_t *ix)
{
	uint32_t i, n = 0;

	for (i = 0; i <= m->nranges; i++)
		if (m->range[i].execs || m->range[i].all_execs)
			ix[n++] = i;
	sort_ranges = m->range;
	qsort(ix, n, sizeof(*ix), cmp_range);
	return n;
}

/*
 * Range-layer pairs by range, each range's layers as a tree: a layer after its parent,
 * siblings the longest span first; "no scope" last.
 */
static const struct vnp_metrics *sort_m;

/* Layer l's ancestor at depth d (l itself at its own depth). */
static uint32_t layer_at(const struct vnp_metrics *m, uint32_t l, uint32_t d)
{
	while (l < m->nlayers && m->layer[l].depth > d)
		l = m->layer[l].parent;
	return l;
}

static uint64_t layer_span(const struct vnp_metrics *m, uint32_t range, uint32_t l)
{
	uint32_t k = vnp_range_layer(m, range, l);

	return k == VNP_NONE ? 0 : m->rs[k].g.span_ps;
}

static int cmp_rs(const void *x, const void *y)
{
	const struct vnp_metrics *m = sort_m;
	const struct vnp_range_layer *a = &m->rs[*(const uint32_t *)x];
	const struct vnp_range_layer *b = &m->rs[*(const uint32_t *)y];
	uint32_t la = a->layer, lb = b->layer, d, da, db, pa, pb;

	if (a->range != b->range)
		return vnp_cmp(a->range, b->range);
	if (la >= m->nlayers || lb >= m->nlayers)
		return vnp_cmp(la >= m->nlayers, lb >= m->nlayers);
	da = m->layer[la].depth;
	db = m->layer[lb].depth;
	for (d = 1; d <= da && d <= db; d++) {
		pa = layer_at(m, la, d);
		pb = layer_at(m, lb, d);
		if (pa != pb)
			return vnp_cmp(layer_span(m, a->range, pb), layer_span(m, a->range, pa)) ?:
			       vnp_cmp(pa, pb);
	}
	return vnp_cmp(da, db);
}

/* m->rs's indexes so sorted (malloc()ed; NULL if there are none or no memory). */
uint32_t *vnp_rs_sorted(const struct vnp_metrics *m)
{
	uint32_t *ix = m->nrs ? malloc(m->nrs * sizeof(*ix)) : NULL, i;

	if (!ix)
		return NULL;
	for (i = 0; i < m->nrs; i++)
		ix[i] = i;
	sort_m = m;
	qsort(ix, m->nrs, sizeof(*ix), cmp_rs);
	return ix;
}

/* The first of range r's pairs in ix (sorted), m->nrs if it has none. */
uint32_t vnp_rs_first(const struct vnp_metrics *m, const uint32_t *ix, uint32_t r)
{
	uint32_t i;

	for (i = 0; ix && i < m->nrs && m->rs[ix[i]].range != r; i++)
		;
	return ix ? i : m->nrs;
}

const char *vnp_layer_name(const struct vnp_metrics *m, uint32_t l)
{
	return l < m->nlayers ? m->layer[l].name : "(no scope)";
}
