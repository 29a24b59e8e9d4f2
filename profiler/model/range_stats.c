// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Application ranges' figures (docs/capture.md, "Application ranges", "Device time by
 * layer"): each event into the groups of the ranges open at its execution's launch, and
 * into the (range, layer) pairs, the layers being the debug table's scope paths and
 * their prefixes; the ranges' executions, device time and launch gaps.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "metrics_priv.h"
#include "vn_isa.h"

/* A range id as an index of m->range: unknown ones count as no range. */
static uint32_t range_ix(const struct vnp_metrics *m, uint32_t id)
{
	return id < m->nranges ? id : m->nranges;
}

/* Event e into the groups of the ranges open when its execution was launched. */
void vnp_range_add(const struct vnp_timeline *tl, struct vnp_metrics *m,
		   const struct vnp_ev *e, unsigned int unit, int transpose, uint64_t hr,
		   uint64_t hw, uint64_t fixed)
{
	const struct vnp_exec *x;
	const uint32_t *ids;
	unsigned int n, i, j;

	if (!m->nranges)
		return;
	x = vnp_tl_exec(tl, e->core, e->exec);
	n = x ? vnp_exec_ranges(tl, x, &ids) : 0;
	vnp_group_add(&m->range[n ? range_ix(m, ids[n - 1]) : m->nranges].self, e, unit,
		      transpose, hr, hw, fixed);
	for (i = 0; i < n; i++) {
		/* a name open twice on the stack counts once */
		for (j = 0; j < i && ids[j] != ids[i]; j++)
			;
		if (j == i)
			vnp_group_add(&m->range[range_ix(m, ids[i])].all, e, unit, transpose,
				      hr, hw, fixed);
	}
}

static uint32_t rs_hash(uint32_t range, uint32_t layer, uint32_t mask)
{
	return (uint32_t)(((uint64_t)range * 0x9e3779b1u ^ layer * 0x85ebca6bu) & mask);
}

/* Room for one more pair, the hash at most half full. 0 or -ENOMEM. */
static int rs_grow(struct vnp_metrics *m)
{
	struct vnp_range_layer *rs;
	uint32_t n, i, h, *slot;

	if (m->nrs >= UINT32_MAX / 4)
		return -ENOMEM;
	if (m->nrs == m->rs_cap) {
		n = m->rs_cap ? m->rs_cap * 2 : 32;
		rs = reallocarray(m->rs, n, sizeof(*rs));
		if (!rs)
			return -ENOMEM;
		m->rs = rs;
		m->rs_cap = n;
	}
	if ((m->nrs + 1) * 2 <= m->rs_slots)
		return 0;
	n = m->rs_slots ? m->rs_slots * 2 : 64;
	slot = calloc(n, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	for (i = 0; i < m->nrs; i++) {
		for (h = rs_hash(m->rs[i].range, m->rs[i].layer, n - 1); slot[h];
		     h = (h + 1) & (n - 1))
			;
		slot[h] = i + 1;
	}
	free(m->rs_slot);
	m->rs_slot = slot;
	m->rs_slots = n;
	return 0;
}

/* The group of (range, layer), added if new; NULL out of memory. */
static struct vnp_group *rs_group(struct vnp_metrics *m, uint32_t range, uint32_t layer)
{
	struct vnp_range_layer *x;
	uint32_t h;

	if (m->rs_last < m->nrs && m->rs[m->rs_last].range == range &&
	    m->rs[m->rs_last].layer == layer)
		return &m->rs[m->rs_last].g;
	for (h = m->rs_slots ? rs_hash(range, layer, m->rs_slots - 1) : 0;
	     m->rs_slots && m->rs_slot[h]; h = (h + 1) & (m->rs_slots - 1)) {
		x = &m->rs[m->rs_slot[h] - 1];
		if (x->range == range && x->layer == layer) {
			m->rs_last = m->rs_slot[h] - 1;
			return &x->g;
		}
	}
	if (rs_grow(m))
		return NULL;
	for (h = rs_hash(range, layer, m->rs_slots - 1); m->rs_slot[h];
	     h = (h + 1) & (m->rs_slots - 1))
		;
	x = &m->rs[m->nrs];
	memset(x, 0, sizeof(*x));
	x->range = range;
	x->layer = layer;
	m->rs_slot[h] = ++m->nrs;
	m->rs_last = m->nrs - 1;
	return &x->g;
}

/* Event e (of scope) into its innermost range's groups of the scope's layers. */
int vnp_rs_add(const struct vnp_timeline *tl, struct vnp_metrics *m,
	       const struct vnp_ev *e, uint32_t scope, unsigned int unit, int transpose,
	       uint64_t hr, uint64_t hw, uint64_t fixed)
{
	uint32_t i, lo = 0, hi = 0, range;
	const struct vnp_exec *x;
	const uint32_t *ids;
	struct vnp_group *g;
	unsigned int n;

	if (!m->scope_layers)
		return 0;
	x = vnp_tl_exec(tl, e->core, e->exec);
	n = x ? vnp_exec_ranges(tl, x, &ids) : 0;
	range = n ? range_ix(m, ids[n - 1]) : m->nranges;
	if (scope < m->nscopes) {
		lo = m->scope_layers[scope];
		hi = m->scope_layers[scope + 1];
	}
	/* no scope, or a path of no name: the "no scope" layer */
	for (i = lo; i < hi || (lo == hi && i == lo); i++) {
		g = rs_group(m, range, lo == hi ? m->nlayers : m->lay_ids[i]);
		if (!g)
			return -ENOMEM;
		vnp_group_add(g, e, unit, transpose, hr, hw, fixed);
	}
	return 0;
}

uint32_t vnp_range_layer(const struct vnp_metrics *m, uint32_t range, uint32_t layer)
{
	uint32_t h;

	for (h = m->rs_slots ? rs_hash(range, layer, m->rs_slots - 1) : 0;
	     m->rs_slots && m->rs_slot[h]; h = (h + 1) & (m->rs_slots - 1))
		if (m->rs[m->rs_slot[h] - 1].range == range &&
		    m->rs[m->rs_slot[h] - 1].layer == layer)
			return m->rs_slot[h] - 1;
	return VNP_NONE;
}

/* The layer named by name's first len bytes, added if new; VNP_NONE out of memory. */
static uint32_t layer_id(struct vnp_metrics *m, uint32_t *slot, uint32_t mask,
			 const char *name, size_t len, uint32_t parent, uint32_t depth)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	struct vnp_layer *l;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)name[i]) * 16777619u;
	for (h &= mask; slot[h]; h = (h + 1) & mask) {
		l = &m->layer[slot[h] - 1];
		if (!strncmp(l->name, name, len) && !l->name[len])
			return slot[h] - 1;
	}
	l = &m->layer[m->nlayers];
	l->name = strndup(name, len);
	if (!l->name)
		return VNP_NONE;
	l->parent = parent;
	l->depth = depth;
	slot[h] = ++m->nlayers;
	return m->nlayers - 1;
}

/*
 * The layers of the program's scopes (struct vnp_range_scope): each scope path and its
 * prefixes, empty components skipped. 0 or -ENOMEM.
 */
int vnp_layers_build(const struct vnp_prog *p, struct vnp_metrics *m)
{
	uint32_t s, n = 0, k = 0, slots = 64, *slot, id, parent, depth;
	const char *path;
	size_t i, len;

	for (s = 0; s < m->nscopes; s++) {
		path = vnp_prog_scope(p, s);
		for (i = 0, len = strlen(path); i <= len; i++)
			n += i == len || path[i] == '/';
	}
	if (n > UINT32_MAX / 4)
		return -ENOMEM;
	while (slots < 2 * n)
		slots *= 2;
	slot = calloc(slots, sizeof(*slot));
	m->layer = calloc(n ? n : 1, sizeof(*m->layer));
	m->lay_ids = calloc(n ? n : 1, sizeof(*m->lay_ids));
	m->scope_layers = calloc(m->nscopes + 1, sizeof(*m->scope_layers));
	if (!slot || !m->layer || !m->lay_ids || !m->scope_layers) {
		free(slot);
		return -ENOMEM;
	}
	for (s = 0; s < m->nscopes; s++) {
		m->scope_layers[s] = k;
		path = vnp_prog_scope(p, s);
		parent = VNP_NONE;
		depth = 0;
		for (i = 0, len = strlen(path); i <= len; i++) {
			/* the end of a component that has a name */
			if ((i < len && path[i] != '/') || !i || path[i - 1] == '/')
				continue;
			id = layer_id(m, slot, slots - 1, path, i, parent, ++depth);
			if (id == VNP_NONE) {
				free(slot);
				return -ENOMEM;
			}
			m->lay_ids[k++] = id;
			parent = id;
		}
	}
	m->scope_layers[m->nscopes] = k;
	free(slot);
	return 0;
}

/* Executions' modeled time and the launch gaps before them, per range. */
void vnp_range_execs(const struct vnp_timeline *tl, struct vnp_metrics *m)
{
	const struct vnp_exec *prev = NULL;
	unsigned int n, i, j;
	const uint32_t *ids;
	size_t k;

	for (k = 0; k < tl->nexec; k++) {
		const struct vnp_exec *x = &tl->execs[k];
		struct vnp_range_stat *self;
		uint64_t d = x->hi > x->lo ? x->hi - x->lo : 0;

		if (prev && prev->key >> 32 != x->key >> 32)
			prev = NULL;
		n = vnp_exec_ranges(tl, x, &ids);
		self = &m->range[n ? range_ix(m, ids[n - 1]) : m->nranges];
		self->execs++;
		self->device_ps += d;
		for (i = 0; i < n; i++) {
			for (j = 0; j < i && ids[j] != ids[i]; j++)
				;
			if (j == i) {
				m->range[range_ix(m, ids[i])].all_execs++;
				m->range[range_ix(m, ids[i])].all_device_ps += d;
			}
		}
		/* launch gaps: an application's (vnp_tl_launch_gaps()) */
		if (x->host_lo && x->host_hi && tl->api_calls[ND_API_EXEC - ND_API_MARKER]) {
			if (prev && x->host_lo > prev->host_hi) {
				self->gap_ns += x->host_lo - prev->host_hi;
				self->gaps++;
			}
			prev = x;
		}
	}
	for (i = 0; i < tl->ncores; i++) {
		uint64_t held, ng;

		m->gap_ns += vnp_tl_launch_gaps(tl, i, &held, &ng);
		m->held_ns += held;
	}
}
