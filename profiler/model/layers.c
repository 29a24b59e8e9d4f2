// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Layers: the spans of debug scopes and their prefixes per execution (layers.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layers.h"

static int cmp_lay_scope(const void *x, const void *y)
{
	const struct vnp_layer_span *a = x, *b = y;

	return vnp_cmp(a->core, b->core) ?: vnp_cmp(a->exec, b->exec) ?:
	       vnp_cmp(a->scope, b->scope);
}

static int cmp_lay_path(const void *x, const void *y)
{
	const struct vnp_layer_span *a = x, *b = y;
	int c;

	c = vnp_cmp(a->core, b->core) ?: vnp_cmp(a->exec, b->exec);
	if (c)
		return c;
	c = strncmp(a->path, b->path, a->len < b->len ? a->len : b->len);
	return c ?: vnp_cmp(a->len, b->len);
}

/* Outer first at one start, so that a lane holds a parent before its children. */
static int cmp_lay_time(const void *x, const void *y)
{
	const struct vnp_layer_span *a = x, *b = y;

	return vnp_cmp(a->core, b->core) ?: vnp_cmp(a->depth, b->depth) ?:
	       vnp_cmp(a->lo, b->lo) ?: vnp_cmp(b->hi, a->hi);
}

/* Merges runs of equal keys of l[0..n) (sorted by cmp) into their spans; the new n. */
static size_t lay_merge(struct vnp_layer_span *l, size_t n,
			int (*cmp)(const void *, const void *))
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (k && !cmp(&l[k - 1], &l[i])) {
			l[k - 1].lo = l[i].lo < l[k - 1].lo ? l[i].lo : l[k - 1].lo;
			l[k - 1].hi = l[i].hi > l[k - 1].hi ? l[i].hi : l[k - 1].hi;
		} else {
			l[k++] = l[i];
		}
	}
	return k;
}

/* Each scope's path without empty components ("/a//b/" is "a/b"). 0 or -ENOMEM. */
static int norm_scopes(const struct vnp_prog *p, struct vnp_layer_spans *ls)
{
	size_t total = 0, k = 0, i;
	uint32_t s;

	for (s = 0; s < p->nscopes; s++)
		total += strlen(vnp_prog_scope(p, s)) + 1;
	ls->norm = malloc(total ? total : 1);
	ls->np = calloc(p->nscopes, sizeof(*ls->np));
	if (!ls->norm || !ls->np)
		return -ENOMEM;
	for (s = 0; s < p->nscopes; s++) {
		const char *path = vnp_prog_scope(p, s);

		ls->np[s] = ls->norm + k;
		for (i = 0; path[i]; i++)
			if (path[i] != '/' || (path[i + 1] && path[i + 1] != '/' &&
					       ls->norm + k != ls->np[s]))
				ls->norm[k++] = path[i];
		ls->norm[k++] = 0;
	}
	return 0;
}

/* How many prefixes a normalised path has, as prefixes() counts them. */
static size_t prefix_count(const char *p)
{
	size_t len = strlen(p), depth = 0, k;

	for (k = 1; k <= len && depth < VNP_LAYER_DEPTHS; k++)
		if (k == len || p[k] == '/')
			depth++;
	return depth;
}

/* The prefixes of the (execution, scope) spans l[0..n) into ls->s. */
static void prefixes(struct vnp_layer_spans *ls, const struct vnp_layer_span *l, size_t n)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		const char *p = ls->np[l[i].scope];
		size_t len = strlen(p), depth = 0;

		for (k = 1; k <= len && depth < VNP_LAYER_DEPTHS; k++) {
			struct vnp_layer_span *x = &ls->s[ls->n];

			if (k < len && p[k] != '/')
				continue;
			*x = l[i];
			x->path = p;
			x->len = (uint32_t)k;
			x->depth = (uint8_t)++depth;
			ls->n++;
		}
	}
}

int vnp_layer_spans(const struct vnp_timeline *tl, unsigned int ncores,
		    struct vnp_layer_spans *ls)
{
	uint64_t lane_end[VNP_LAYER_LANES];
	unsigned int c = VNP_MAX_CORES, d = 0, j;
	struct vnp_layer_span *l;
	size_t i, n = 0, need;

	memset(ls, 0, sizeof(*ls));
	if (!tl->prog || !tl->prog->nscopes)
		return 0;
	l = malloc((tl->n ? tl->n : 1) * sizeof(*l));
	if (!l || norm_scopes(tl->prog, ls))
		goto nomem;
	for (i = 0; i < tl->n; i++) {
		const struct vnp_ev *e = &tl->ev[i];
		const struct vnp_loc *loc = vnp_ev_loc(tl, e);

		if (loc && loc->scope != VNP_NONE && e->core < ncores)
			l[n++] = (struct vnp_layer_span){ .lo = e->start, .hi = e->end,
				.exec = e->exec, .scope = loc->scope, .core = e->core };
	}
	qsort(l, n, sizeof(*l), cmp_lay_scope);
	n = lay_merge(l, n, cmp_lay_scope);
	/* each (execution, scope) once per prefix: counted, as a program may have many scopes */
	for (i = 0, need = 0; i < n; i++)
		need += prefix_count(ls->np[l[i].scope]);
	ls->s = need > SIZE_MAX / sizeof(*ls->s) ? NULL :
		malloc((need ? need : 1) * sizeof(*ls->s));
	if (!ls->s)
		goto nomem;
	prefixes(ls, l, n);
	free(l);
	qsort(ls->s, ls->n, sizeof(*ls->s), cmp_lay_path);
	ls->n = lay_merge(ls->s, ls->n, cmp_lay_path);
	qsort(ls->s, ls->n, sizeof(*ls->s), cmp_lay_time);
	for (i = 0; i < ls->n; i++) {
		struct vnp_layer_span *x = &ls->s[i];

		if (x->core != c || x->depth != d) {
			c = x->core;
			d = x->depth;
			memset(lane_end, 0, sizeof(lane_end));
		}
		for (j = 0; j < VNP_LAYER_LANES && lane_end[j] > x->lo; j++)
			;
		x->lane = (uint8_t)j;
		if (j < VNP_LAYER_LANES)
			lane_end[j] = x->hi;
	}
	return 0;
nomem:
	free(l);
	vnp_layer_spans_free(ls);
	return -ENOMEM;
}

void vnp_layer_spans_free(struct vnp_layer_spans *ls)
{
	free(ls->s);
	free(ls->norm);
	free(ls->np);
	memset(ls, 0, sizeof(*ls));
}
