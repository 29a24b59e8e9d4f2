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

/*
 * The (core, execution, scope) spans of tl's events, each merged as its events come: an
 * open-addressed table of indices into the spans, so memory grows with the distinct spans
 * (executions x scopes), never with the events (a 100 M-event profile holds a few
 * thousand). The spans in *lp, unordered; 0 or -ENOMEM.
 */
struct span_tab {
	struct vnp_layer_span *l;
	size_t n, cap;
	uint32_t *slot;			/* index + 1, 0: empty */
	size_t mask;			/* slots - 1 */
};

static size_t span_hash(unsigned int core, uint32_t exec, uint32_t scope, size_t mask)
{
	uint64_t h = ((uint64_t)exec << 32 | scope) * 0x9e3779b97f4a7c15ull;

	return (size_t)((h ^ h >> 29 ^ core * 0xff51afd7ed558ccdull) & mask);
}

static int span_tab_grow(struct span_tab *t)
{
	size_t slots = t->mask ? 2 * (t->mask + 1) : 1024, i;
	uint32_t *s;

	if (slots > (size_t)UINT32_MAX)
		return -ENOMEM;
	s = calloc(slots, sizeof(*s));
	if (!s)
		return -ENOMEM;
	free(t->slot);
	t->slot = s;
	t->mask = slots - 1;
	for (i = 0; i < t->n; i++) {
		const struct vnp_layer_span *x = &t->l[i];
		size_t h = span_hash(x->core, x->exec, x->scope, t->mask);

		while (s[h])
			h = (h + 1) & t->mask;
		s[h] = (uint32_t)(i + 1);
	}
	return 0;
}

/* The part of an event a span takes. */
struct span_ev {
	uint64_t start, end;
	uint32_t exec;
	uint8_t core;
};

static int span_add(struct span_tab *t, const struct span_ev *e, uint32_t scope)
{
	struct vnp_layer_span *x;
	size_t h;

	if (2 * (t->n + 1) > t->mask + 1 && span_tab_grow(t))
		return -ENOMEM;
	h = span_hash(e->core, e->exec, scope, t->mask);
	for (; t->slot[h]; h = (h + 1) & t->mask) {
		x = &t->l[t->slot[h] - 1];
		if (x->core == e->core && x->exec == e->exec && x->scope == scope) {
			x->lo = e->start < x->lo ? e->start : x->lo;
			x->hi = e->end > x->hi ? e->end : x->hi;
			return 0;
		}
	}
	if (t->n == t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 256;

		x = realloc(t->l, nc * sizeof(*x));
		if (!x)
			return -ENOMEM;
		t->l = x;
		t->cap = nc;
	}
	t->l[t->n] = (struct vnp_layer_span){ .lo = e->start, .hi = e->end,
		.exec = e->exec, .scope = scope, .core = e->core };
	t->slot[h] = (uint32_t)++t->n;
	return 0;
}

static int scope_spans(const struct vnp_timeline *tl, unsigned int ncores,
		       struct vnp_layer_span **lp, size_t *np)
{
	struct span_tab t = { 0 };
	size_t i;

	for (i = 0; i < tl->n; i++) {
		/* what a span takes, for an event with a scope: no whole event decoded */
		const struct vnp_shape *sh = vnp_tl_shape(tl, i);
		const struct vnp_loc *loc = vnp_prog_loc(tl->prog, sh->stream, sh->pc);
		struct span_ev e;

		if (!loc || loc->scope == VNP_NONE || sh->core >= ncores)
			continue;
		e = (struct span_ev){ .start = vnp_tl_start(tl, i), .end = vnp_tl_end(tl, i),
				      .exec = vnp_tl_ev_exec(tl, i), .core = sh->core };
		if (span_add(&t, &e, loc->scope)) {
			free(t.slot);
			free(t.l);
			return -ENOMEM;
		}
	}
	free(t.slot);
	*lp = t.l;
	*np = t.n;
	return 0;
}

int vnp_layer_spans(const struct vnp_timeline *tl, unsigned int ncores,
		    struct vnp_layer_spans *ls)
{
	uint64_t lane_end[VNP_LAYER_LANES];
	unsigned int c = VNP_MAX_CORES, d = 0, j;
	struct vnp_layer_span *l = NULL;
	size_t i, n = 0, need;

	memset(ls, 0, sizeof(*ls));
	if (!tl->prog || !tl->prog->nscopes)
		return 0;
	if (norm_scopes(tl->prog, ls) || scope_spans(tl, ncores, &l, &n))
		goto nomem;
	/* keys are distinct: sorted, as the prefixes' merge below expects */
	if (n)
		qsort(l, n, sizeof(*l), cmp_lay_scope);
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
