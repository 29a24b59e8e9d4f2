// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Metrics of a timeline (docs/metrics.md). One merged pass in start order: because
 * events arrive by start time, the part of a unit's busy union at or after the current
 * time t is exactly [t, max end seen so far), so between two consecutive starts every
 * unit is busy on a prefix of the segment. Unions, pairwise overlaps and "X idle while Y
 * busy" then follow from the prefix lengths, with no interval lists kept.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "vn_isa.h"

static inline uint64_t u64min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t u64max(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

uint64_t vnp_ev_wait(const struct vnp_timeline *tl, const struct vnp_ev *e)
{
	size_t idx = (size_t)(e - tl->ev);
	unsigned int t = vnp_ev_track(e);
	uint64_t from;

	if (e->sem_wait == VNEURON_TRACE_NO_SEM)
		return 0;
	if (idx > tl->track_off[t] && e[-1].exec == e->exec) {
		const struct vnp_ev *p = e - 1;

		return e->start > p->end ? e->start - p->end : 0;
	}
	/* the stream's first entry of this execution waited from the execution's start */
	from = vnp_tl_exec_start(tl, e->core, e->exec);
	return e->start > from ? e->start - from : 0;
}

/* Queues the program gives descriptors (else: that ran something); they share HBM. */
static unsigned int queues_used(const struct vnp_timeline *tl, unsigned int core)
{
	unsigned int q, n = 0;

	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		if (tl->prog ? tl->prog->ndesc[q] != 0 :
		    vnp_tl_track_len(tl, core * VNEF_STREAMS + VNEF_STREAM_DMA(q)) != 0)
			n++;
	return n;
}

/*
 * The model's cost is fixed + variable (docs/isa.md, "Modeled costs"); the variable part
 * is recomputed here from the entry in the program, the rest of the duration is fixed.
 * Without the program: a descriptor's bytes at its queue's bandwidth, an engine's
 * static cycles.
 */
uint64_t vnp_ev_fixed(const struct vnp_timeline *tl, const struct vnp_ev *e)
{
	const struct vneuron_model *md = &tl->model;
	uint64_t d = e->end - e->start, var, n, bw, f;
	const struct vnef_instr *in;
	uint32_t khz;

	if (vnp_ev_is_cc(e))
		return 0;	/* the model's collective costs are per step (docs/isa.md) */
	if (e->opcode == VNP_OP_DMA) {
		const struct vnef_dma_desc *x = vnp_prog_desc(tl->prog, e->stream - VNEF_ENGINES,
							      e->pc);
		unsigned int used = queues_used(tl, e->core);
		int hs = 1, hd = 0;

		n = e->bytes;
		if (x) {
			hs = x->src.mem == VNEF_MEM_HBM;
			hd = x->dst.mem == VNEF_MEM_HBM;
			n = (uint64_t)x->count[0] * x->count[1] * x->chunk_bytes;
		}
		bw = md->dma_engine_bw;
		if ((hs || hd) && used) {
			uint64_t share = md->hbm_bw / used;

			if (hs && hd)
				share /= 2;
			bw = bw < share ? bw : share;
		}
		bw /= 1000000;		/* bytes per microsecond, as the model rounds */
		var = bw ? n * 1000000 / bw : 0;
		return d > var ? d - var : 0;
	}
	in = vnp_prog_instr(tl->prog, e->stream, e->pc);
	if (in && in->opcode != e->opcode)
		in = NULL;
	if (e->stream == VNEURON_ENGINE_TENSOR) {
		/* max(n, 64) cycles: below 64 columns (rows for a transpose) the rest is fixed */
		if (!in)
			return 0;
		n = e->opcode == VNEF_OP_TRANSPOSE ? in->src0.partitions :
		    (uint64_t)in->src0.count[0] * in->src0.count[1];
		return n < 64 ? d * (64 - n) / 64 : 0;
	}
	if (e->opcode == VNEF_OP_NOP)
		return 0;
	khz = e->stream == VNEURON_ENGINE_VECTOR ? md->vector_khz :
	      e->stream == VNEURON_ENGINE_SCALAR ? md->scalar_khz : md->gpsimd_khz;
	f = khz ? (uint64_t)VN_STATIC_CYCLES * 1000000000ull / khz : 0;
	if (in) {
		const struct vn_opcode_info *info = vn_opcode_info(in->opcode);

		if (info && (info->cost == VN_COST_ELEMENTWISE || info->cost == VN_COST_REDUCE) &&
		    khz) {
			const struct vnef_ap *a = info->cost == VN_COST_REDUCE ? &in->src0 : &in->dst;
			uint64_t cyc = (uint64_t)a->count[0] * a->count[1] * info->inputs;

			if (e->stream == VNEURON_ENGINE_GPSIMD) {
				uint64_t lanes = (uint64_t)(md->gpsimd_cores ? md->gpsimd_cores : 1) * 16;

				cyc = (cyc * a->partitions + lanes - 1) / lanes;
			}
			var = cyc * 1000000000ull / khz;
			return d > var ? d - var : 0;
		}
	}
	return f < d ? f : d;
}

/* Sweep state per core: each core's units are busy on their own prefixes. */
struct sweep_core {
	uint64_t cur[VNP_UNITS];
	uint64_t xlo, xhi;		/* the current collective's transfer */
	uint64_t tidle_run_lo, tidle_run_hi;
	uint64_t gap_run_lo, gap_run_hi;
};

struct sweep {
	uint64_t tp;
	unsigned int ncores;
	struct sweep_core c[VNP_MAX_CORES];
};

static void run_extend(uint64_t *run_lo, uint64_t *run_hi, uint64_t lo, uint64_t hi,
		       uint64_t *best_lo, uint64_t *best_hi)
{
	if (*run_hi == lo && *run_hi > *run_lo) {
		*run_hi = hi;
	} else {
		*run_lo = lo;
		*run_hi = hi;
	}
	if (*run_hi - *run_lo > *best_hi - *best_lo) {
		*best_lo = *run_lo;
		*best_hi = *run_hi;
	}
}

/* Core-time sums can exceed 64 bits only in a damaged profile: saturate. */
static inline void sat_add(uint64_t *a, uint64_t b)
{
	*a = *a + b < *a ? UINT64_MAX : *a + b;
}

/* [tp, b): every core's units are busy on a prefix; sums are core-time. */
static void advance(struct sweep *s, struct vnp_metrics *m, uint64_t b)
{
	uint64_t a = s->tp;
	unsigned int u, v, k;

	if (b <= a)
		return;
	for (k = 0; k < s->ncores; k++) {
		struct sweep_core *c = &s->c[k];
		uint64_t L[VNP_UNITS], lc = 0, lo = 0, lall;

		for (u = 0; u < VNP_UNITS; u++) {
			L[u] = c->cur[u] > a ? u64min(c->cur[u], b) - a : 0;
			sat_add(&m->unit[u].active_ps, L[u]);
			if (u < VNEF_ENGINES)
				lc = u64max(lc, L[u]);
			if (u > 0 && u < VNEF_ENGINES)
				lo = u64max(lo, L[u]);
		}
		lall = u64max(lc, L[VNP_UNIT_DMA]);
		sat_add(&m->compute_ps, lc);
		sat_add(&m->core_compute_ps[k], lc);
		/* compute is busy on [a, a + lc): its overlap with the transfer in progress */
		if (lc && c->xhi > c->xlo) {
			uint64_t x0 = u64max(a, c->xlo), x1 = u64min(a + lc, c->xhi);

			if (x1 > x0)
				sat_add(&m->cc_overlap_ps, x1 - x0);
		}
		sat_add(&m->busy_ps, lall);
		sat_add(&m->dma_compute_ps, u64min(L[VNP_UNIT_DMA], lc));
		for (u = 0; u < VNP_UNITS; u++) {
			if (!L[u])
				continue;	/* most steps leave most units idle */
			for (v = u + 1; v < VNP_UNITS; v++)
				if (L[v])
					sat_add(&m->overlap_ps[u][v], u64min(L[u], L[v]));
		}
		if (lo > L[0]) {
			sat_add(&m->tensor_idle_ps, lo - L[0]);
			run_extend(&c->tidle_run_lo, &c->tidle_run_hi, a + L[0], a + lo,
				   &m->tidle_lo, &m->tidle_hi);
		}
		if (lall < b - a)
			run_extend(&c->gap_run_lo, &c->gap_run_hi, a + lall, b, &m->gap_lo,
				   &m->gap_hi);
	}
	s->tp = b;
}

_Static_assert(VNP_MAX_CORES <= 64, "vnp_group.ex_open has a bit per core");

/* Closes the group's span in an execution of core k. */
static void span_close(struct vnp_group *g, unsigned int k)
{
	if (g->ex_open & (1ull << k))
		g->span_ps += g->ex_last[k] - g->ex_first[k];
	g->ex_open &= ~(1ull << k);
}

static void group_add(struct vnp_group *g, const struct vnp_ev *e, unsigned int unit,
		      int transpose, uint64_t hr, uint64_t hw, uint64_t fixed)
{
	uint64_t d = e->end - e->start;
	unsigned int k = e->core % VNP_MAX_CORES;

	if (!g->count) {
		g->first = e->start;
		g->last = e->end;
	}
	if (!(g->ex_open & (1ull << k)) || g->ex_seq[k] != e->exec) {
		span_close(g, k);
		g->ex_open |= 1ull << k;
		g->ex_seq[k] = e->exec;
		g->ex_first[k] = e->start;
		g->ex_last[k] = e->end;
	}
	g->ex_last[k] = u64max(g->ex_last[k], e->end);
	g->count++;
	g->instr_ps += d;
	/* a collective's part is its transfer: its wait is another rank's */
	g->unit_ps[unit] += unit == VNP_UNIT_CC ? vnp_cc_xfer(e) : d;
	g->fixed_ps[unit] += fixed;
	if (e->opcode == VNP_OP_DMA && e->stream >= VNEF_ENGINES)
		g->queue_ps[e->stream - VNEF_ENGINES] += d;
	g->last = u64max(g->last, e->end);
	/* union in start order */
	if (e->start >= g->cur_end)
		g->active_ps += d;
	else if (e->end > g->cur_end)
		g->active_ps += e->end - g->cur_end;
	g->cur_end = u64max(g->cur_end, e->end);
	if (unit == VNEURON_ENGINE_TENSOR)
		g->flops += e->flops;
	if (transpose)
		g->transpose_flops += e->flops;
	if (unit == VNP_UNIT_CC) {
		g->cc_count++;
		g->cc_wait_ps += vnp_cc_wait(e);
	}
	if (e->opcode == VNP_OP_DMA) {
		g->dma_bytes += e->bytes;
		g->dma_count++;
		g->hbm_read += hr;
		g->hbm_write += hw;
	}
}

/* A range id as an index of m->range: unknown ones count as no range. */
static uint32_t range_ix(const struct vnp_metrics *m, uint32_t id)
{
	return id < m->nranges ? id : m->nranges;
}

/* Event e into the groups of the ranges open when its execution was launched. */
static void range_add(const struct vnp_timeline *tl, struct vnp_metrics *m,
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
	group_add(&m->range[n ? range_ix(m, ids[n - 1]) : m->nranges].self, e, unit, transpose,
		  hr, hw, fixed);
	for (i = 0; i < n; i++) {
		/* a name open twice on the stack counts once */
		for (j = 0; j < i && ids[j] != ids[i]; j++)
			;
		if (j == i)
			group_add(&m->range[range_ix(m, ids[i])].all, e, unit, transpose, hr, hw,
				  fixed);
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
static int rs_add(const struct vnp_timeline *tl, struct vnp_metrics *m,
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
		group_add(g, e, unit, transpose, hr, hw, fixed);
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
static int layers_build(const struct vnp_prog *p, struct vnp_metrics *m)
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
static void range_execs(const struct vnp_timeline *tl, struct vnp_metrics *m)
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

static void unit_add(struct vnp_unit *u, const struct vnp_ev *e)
{
	if (!u->count) {
		u->first = e->start;
		u->last = e->end;
	}
	u->count++;
	u->instr_ps += e->end - e->start;
	u->last = u64max(u->last, e->end);
	u->flops += e->flops;
	u->bytes += e->bytes;
	if (e->opcode < VNEF_OP_COUNT) {
		u->op_count[e->opcode]++;
		u->op_ps[e->opcode] += e->end - e->start;
	}
}

static void series_add(struct vnp_metrics *m, double *rate, int64_t *cover, uint64_t t0,
		       const struct vnp_ev *e)
{
	uint64_t s = e->start - t0, end = e->end - t0, bp = m->bin_ps;
	uint64_t ks = s / bp, ke;
	double r;

	if (ks >= m->nbins)
		ks = m->nbins - 1;
	if (end == s) {
		m->tput[ks] += e->bytes;
		return;
	}
	ke = (end - 1) / bp;
	if (ke >= m->nbins)
		ke = m->nbins - 1;
	r = (double)e->bytes / (double)(end - s);
	if (ks == ke) {
		m->tput[ks] += e->bytes;
		m->pending[ks] += (double)(end - s);
		return;
	}
	m->tput[ks] += r * (double)((ks + 1) * bp - s);
	m->pending[ks] += (double)((ks + 1) * bp - s);
	m->tput[ke] += r * (double)(end - ke * bp);
	m->pending[ke] += (double)(end - ke * bp);
	if (ke > ks + 1) {
		rate[ks + 1] += r;
		rate[ke] -= r;
		cover[ks + 1]++;
		cover[ke]--;
	}
}

static void top_wait_add(struct vnp_metrics *m, size_t idx, uint64_t w, uint32_t sig)
{
	unsigned int i = m->ntop_wait;

	if (i == VNP_TOP_WAITS) {
		if (w <= m->top_wait[i - 1].wait_ps)
			return;
		i--;
	} else {
		m->ntop_wait++;
	}
	while (i > 0 && m->top_wait[i - 1].wait_ps < w) {
		m->top_wait[i] = m->top_wait[i - 1];
		i--;
	}
	m->top_wait[i] = (struct vnp_wait){ .ev = idx, .wait_ps = w, .signaller = sig };
}

double vnp_cc_bus_factor(unsigned int op, unsigned int n)
{
	if (!n)
		return 0;
	switch (op) {
	case VNEF_CC_ALL_REDUCE:
		return 2.0 * (n - 1) / n;
	case VNEF_CC_ALL_GATHER:
	case VNEF_CC_REDUCE_SCATTER:
	case VNEF_CC_ALL_TO_ALL:
		return (double)(n - 1) / n;
	case VNEF_CC_PERMUTE:
		return 1;
	default:
		return 0;
	}
}

uint64_t vnp_cc_size(unsigned int op, unsigned int n, uint64_t in_bytes)
{
	/* all-gather's buffer is the gathered output; the others' the input */
	return op == VNEF_CC_ALL_GATHER ? in_bytes * n : in_bytes;
}

double vnp_coll_algbw(const struct vnp_coll *c)
{
	uint64_t t = c->end - c->last_arrival;

	return t ? (double)c->size / ((double)t * 1e-12) : 0;
}

double vnp_coll_busbw(const struct vnp_coll *c)
{
	return vnp_coll_algbw(c) * vnp_cc_bus_factor(c->op, c->members);
}

/* A CC event with the key of its collective, for grouping. */
struct cc_key {
	uint32_t round, pc;
	uint16_t last;
	size_t ev;
};

static int cmp_cc_key(const void *x, const void *y)
{
	const struct cc_key *a = x, *b = y;

	return vnp_cmp(a->round, b->round) ?: vnp_cmp(a->pc, b->pc) ?:
	       vnp_cmp(a->last, b->last) ?: vnp_cmp(a->ev, b->ev);
}

static int cmp_member(const void *x, const void *y)
{
	return vnp_cmp(((const struct vnp_cc_member *)x)->ev,
		       ((const struct vnp_cc_member *)y)->ev);
}

uint32_t vnp_cc_coll_of(const struct vnp_metrics *m, size_t ev)
{
	size_t lo = 0, hi = m->cc_events;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->cc_of[mid].ev < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return m->cc_of && lo < m->cc_events && m->cc_of[lo].ev == ev ? m->cc_of[lo].coll :
	       VNP_NONE;
}

/*
 * Groups the CC events into collectives (struct vnp_coll) and sums them per opcode and
 * per rank. NOPs are events but no collective. Memory: a few words per CC event (a
 * collective stream holds at most VNEF_MAX_CC_INSTRS entries an execution). 0 or -ENOMEM.
 */
static int collectives(const struct vnp_timeline *tl, struct vnp_metrics *m)
{
	struct cc_key *k;
	size_t n = 0, i, j;
	unsigned int c;

	if (!m->cc_events)
		return 0;
	k = malloc(m->cc_events * sizeof(*k));
	m->cc_of = malloc(m->cc_events * sizeof(*m->cc_of));
	m->coll = malloc(m->cc_events * sizeof(*m->coll));
	if (!k || !m->cc_of || !m->coll) {
		free(k);
		return -ENOMEM;
	}
	for (c = 0; c < tl->ncores; c++) {
		unsigned int t = c * VNEF_STREAMS + VNEF_STREAM_CC;
		uint32_t exec = 0, round = 0;

		for (i = tl->track_off[t]; i < tl->track_off[t + 1]; i++) {
			const struct vnp_ev *e = &tl->ev[i];

			if (i == tl->track_off[t] || e->exec != exec) {
				exec = e->exec;
				round = vnp_tl_exec_round(tl, c, exec);
			}
			k[n++] = (struct cc_key){ .round = round, .pc = e->pc,
						  .last = (uint16_t)vnp_cc_last(e), .ev = i };
		}
	}
	qsort(k, n, sizeof(*k), cmp_cc_key);
	m->ncoll = 0;
	for (i = 0; i < n; i = j) {
		const struct vnp_ev *e0 = &tl->ev[k[i].ev];
		struct vnp_coll *x = &m->coll[m->ncoll];
		uint64_t in = 0;

		*x = (struct vnp_coll){ .first_arrival = UINT64_MAX, .pc = k[i].pc,
					.round = k[i].round, .op = (uint16_t)vnp_cc_op(e0),
					.members = (uint16_t)vnp_cc_members(e0),
					.last_rank = k[i].last, .ev_last = k[i].ev };
		for (j = i; j < n && k[j].round == k[i].round && k[j].pc == k[i].pc &&
			    k[j].last == k[i].last; j++) {
			const struct vnp_ev *e = &tl->ev[k[j].ev];

			m->cc_of[j] = (struct vnp_cc_member){ .ev = k[j].ev, .coll = m->ncoll };
			x->first_arrival = u64min(x->first_arrival, e->start);
			x->last_arrival = u64max(x->last_arrival, e->start + vnp_cc_wait(e));
			x->end = u64max(x->end, e->end);
			x->wait_ps += vnp_cc_wait(e);
			in = u64max(in, e->bytes);
			if (e->start >= tl->ev[x->ev_last].start)
				x->ev_last = k[j].ev;
			x->seen++;
		}
		x->size = vnp_cc_size(x->op, x->members, in);
		if (x->op != VNEF_CC_NOP)
			m->ncoll++;
		else
			for (; i < j; i++)	/* a NOP is no collective */
				m->cc_of[i].coll = VNP_NONE;
	}
	free(k);
	qsort(m->cc_of, n, sizeof(*m->cc_of), cmp_member);
	/* per opcode, then per rank */
	for (i = 0; i < m->ncoll; i++) {
		const struct vnp_coll *x = &m->coll[i];
		struct vnp_cc_op *o = &m->cc_op[x->op];

		o->count++;
		o->bytes += x->size;
		o->time_ps += x->end - x->last_arrival;
		o->bus_bytes += (double)x->size * vnp_cc_bus_factor(x->op, x->members);
		o->wait_ps += x->wait_ps;
		if (x->last_arrival > x->first_arrival && x->last_rank < VNEF_CC_MAX_RANKS) {
			m->cc_rank[x->last_rank].last++;
			m->cc_rank[x->last_rank].caused_ps += x->wait_ps;
			m->cc_rank[x->last_rank].late_ps += x->last_arrival - x->first_arrival;
		}
	}
	for (i = 0; i < n; i++) {
		const struct vnp_ev *e = &tl->ev[m->cc_of[i].ev];
		unsigned int r = vnp_cc_rank(e);

		if (m->cc_of[i].coll == VNP_NONE || r >= VNEF_CC_MAX_RANKS)
			continue;
		if (!m->cc_rank[r].count)
			m->cc_rank[r].core = e->core;
		m->cc_rank[r].count++;
		m->cc_rank[r].waited_ps += vnp_cc_wait(e);
		if (r + 1 > m->cc_nranks)
			m->cc_nranks = r + 1;
	}
	return 0;
}

int vnp_metrics_compute(const struct vnp_timeline *tl, unsigned int nbins,
			struct vnp_metrics *m)
{
	const struct vnp_prog *p = tl->prog;
	unsigned int ncores = tl->ncores ? tl->ncores : 1, u, k, q;
	struct sweep *sw;
	struct vnp_iter *it;
	const struct vnp_ev *e;
	double *rate = NULL, tsec;
	int64_t *cover = NULL;
	uint64_t tend;

	memset(m, 0, sizeof(*m));
	m->t0 = tl->t0;
	m->t1 = tl->t1;
	m->total_ps = tl->t1 - tl->t0;
	m->core_ps = m->total_ps * ncores;
	if (ncores && m->core_ps / ncores != m->total_ps)
		m->core_ps = UINT64_MAX;
	m->nexec = tl->nexec;
	m->event_count = tl->n;
	m->peak_flops = (double)tl->model.peak_flops_bf16 * ncores;
	m->hbm_bw = (double)tl->model.hbm_bw * ncores;
	m->nscopes = p ? p->nscopes : 0;
	m->nlines = p ? p->nlines : 0;
	m->nbins = nbins ? nbins : VNP_DEFAULT_BINS;
	m->bin_ps = m->total_ps / m->nbins;
	if (m->bin_ps < UINT64_MAX)	/* bins cover [t0, t1] whole; a damaged profile may span all */
		m->bin_ps++;
	m->first_compute = UINT64_MAX;

	it = malloc(sizeof(*it));
	sw = calloc(1, sizeof(*sw));
	m->scope = calloc(m->nscopes + 1, sizeof(*m->scope));
	m->line = calloc(m->nlines + 1, sizeof(*m->line));
	m->nranges = tl->rg.nnames;
	m->range = calloc(m->nranges + 1, sizeof(*m->range));
	m->tput = calloc(m->nbins, sizeof(*m->tput));
	m->pending = calloc(m->nbins, sizeof(*m->pending));
	rate = calloc(m->nbins + 1, sizeof(*rate));
	cover = calloc(m->nbins + 1, sizeof(*cover));
	if (it && sw && m->range && p && m->nranges && tl->rg.attributed &&
	    layers_build(p, m)) {
		free(m->range);		/* out of memory: all is freed below */
		m->range = NULL;
	}
	if (!it || !sw || !m->scope || !m->line || !m->range || !m->tput || !m->pending || !rate || !cover)
		goto nomem;

	sw->tp = tl->t0;
	sw->ncores = ncores;
	vnp_iter_init(it, tl);
	while ((e = vnp_iter_next(it))) {
		const struct vnp_loc *loc = vnp_ev_loc(tl, e);
		unsigned int src = 0, dst = 0, is_dma = e->opcode == VNP_OP_DMA;
		unsigned int is_cc = vnp_ev_is_cc(e);
		uint64_t hr = 0, hw = 0, w, fx = is_cc ? 0 : vnp_ev_fixed(tl, e);
		int transpose = e->opcode == VNEF_OP_TRANSPOSE && e->stream == 0;

		u = is_dma ? VNP_UNIT_DMA : is_cc ? VNP_UNIT_CC : e->stream;
		advance(sw, m, e->start);
		sw->c[e->core].cur[u] = u64max(sw->c[e->core].cur[u], e->end);
		if (is_cc) {
			struct vnp_unit *x = &m->unit[u];

			/* a collective: its wait is not work, its bytes are the rank's input */
			if (!x->count) {
				x->first = e->start;
				x->last = e->end;
			}
			x->count++;
			x->instr_ps += e->end - e->start;
			x->last = u64max(x->last, e->end);
			x->bytes += e->bytes;
			m->cc_events++;
			m->cc_xfer_ps += vnp_cc_xfer(e);
			m->cc_wait_ps += vnp_cc_wait(e);
			sw->c[e->core].xlo = e->start + vnp_cc_wait(e);
			sw->c[e->core].xhi = e->end;
		} else {
			unit_add(&m->unit[u], e);
			m->unit[u].fixed_ps += fx;
		}
		if (is_cc) {
			/* neither DMA nor compute */
		} else if (is_dma) {
			m->dma_count++;
			unit_add(&m->queue[e->stream - VNEF_ENGINES], e);
			m->queue[e->stream - VNEF_ENGINES].fixed_ps += fx;
			vnp_ev_dma_mems(tl, e, &src, &dst);
			m->dma_bytes += e->bytes;
			m->mem_read[src] += e->bytes;
			m->mem_write[dst] += e->bytes;
			if (src == VNEF_MEM_HBM)
				hr = e->bytes;
			if (dst == VNEF_MEM_HBM)
				hw = e->bytes;
			m->hbm_read += hr;
			m->hbm_write += hw;
			if (dst == VNEF_MEM_SBUF || dst == VNEF_MEM_PSUM)
				m->dma_in_count++;
			series_add(m, rate, cover, tl->t0, e);
		} else {
			m->instr_count++;
			if (e->start < m->first_compute)
				m->first_compute = e->start;
			if (e->stream == 0) {
				m->hw_flops += e->flops;
				if (transpose) {
					m->transpose_flops += e->flops;
					m->transpose_count++;
				}
			} else {
				m->other_flops += e->flops;
			}
		}
		w = vnp_ev_wait(tl, e);
		if (e->sem_wait != VNEURON_TRACE_NO_SEM) {
			uint32_t sig = VNP_NONE;

			if (e->sem_wait < VNEF_MAX_SEMS) {
				sig = p ? p->sem_writer[e->sem_wait] : VNP_NONE;
				if (sig == VNP_NONE)
					sig = tl->sig_stream[e->sem_wait];
			}
			m->unit[u].wait_ps += w;
			m->unit[u].waits++;
			m->wait_ps[e->stream][sig < VNEF_STREAMS ? sig : VNEF_STREAMS] += w;
			m->wait_n[e->stream][sig < VNEF_STREAMS ? sig : VNEF_STREAMS]++;
			if (w)
				top_wait_add(m, (size_t)(e - tl->ev), w, sig);
		}
		/* unit 0 of a group's flops: TensorE only, as hw_flops */
		group_add(&m->scope[loc && loc->scope < m->nscopes ? loc->scope : m->nscopes],
			  e, u, transpose, hr, hw, fx);
		group_add(&m->line[loc && loc->line < m->nlines ? loc->line : m->nlines],
			  e, u, transpose, hr, hw, fx);
		range_add(tl, m, e, u, transpose, hr, hw, fx);
		if (rs_add(tl, m, e, loc && loc->scope < m->nscopes ? loc->scope : m->nscopes,
			   u, transpose, hr, hw, fx))
			goto nomem;
	}
	for (k = 0; k < VNP_MAX_CORES; k++) {
		uint32_t i;

		for (i = 0; i <= m->nscopes; i++)
			span_close(&m->scope[i], k);
		for (i = 0; i <= m->nlines; i++)
			span_close(&m->line[i], k);
		for (i = 0; i <= m->nranges; i++) {
			span_close(&m->range[i].self, k);
			span_close(&m->range[i].all, k);
		}
		for (i = 0; i < m->nrs; i++)
			span_close(&m->rs[i].g, k);
	}
	tend = tl->t1;
	for (k = 0; k < ncores; k++)
		for (u = 0; u < VNP_UNITS; u++)
			tend = u64max(tend, sw->c[k].cur[u]);
	advance(sw, m, tend);
	range_execs(tl, m);
	free(it);
	free(sw);

	/* per queue unions: one queue runs one descriptor at a time, but do not assume it */
	for (q = 0; q < VNEF_DMA_QUEUES; q++) {
		for (k = 0; k < tl->ncores; k++) {
			unsigned int t = k * VNEF_STREAMS + VNEF_STREAM_DMA(q);
			uint64_t cur = 0;
			size_t i;

			for (i = tl->track_off[t]; i < tl->track_off[t + 1]; i++) {
				e = &tl->ev[i];
				if (e->start >= cur)
					m->queue[q].active_ps += e->end - e->start;
				else if (e->end > cur)
					m->queue[q].active_ps += e->end - cur;
				cur = u64max(cur, e->end);
				if (m->first_compute != UINT64_MAX && e->end <= m->first_compute) {
					unsigned int s2, d2;

					vnp_ev_dma_mems(tl, e, &s2, &d2);
					if (d2 == VNEF_MEM_SBUF || d2 == VNEF_MEM_PSUM)
						m->dma_in_before_compute++;
				}
			}
		}
	}

	/* series: full-bin coverage from the difference arrays */
	{
		double r = 0;
		int64_t c = 0;

		for (k = 0; k < m->nbins; k++) {
			r += rate[k];
			c += cover[k];
			m->tput[k] += r * (double)m->bin_ps;
			m->pending[k] += (double)c * (double)m->bin_ps;
			m->tput[k] = m->tput[k] * 1e12 / (double)m->bin_ps;
			m->pending[k] /= (double)m->bin_ps;
			if (m->tput[k] > m->tput_peak)
				m->tput_peak = m->tput[k];
			if (m->pending[k] > m->pending_peak)
				m->pending_peak = m->pending[k];
			m->tput_avg += m->tput[k] / m->nbins;
			m->pending_avg += m->pending[k] / m->nbins;
		}
	}
	free(rate);
	free(cover);
	if (collectives(tl, m) || vnp_exec_stats(tl, &m->xs)) {
		vnp_metrics_free(m);
		return -ENOMEM;
	}
	vnp_nodes_compute(tl, m);

	tsec = (double)m->total_ps * 1e-12;
	/* a model without peaks (a damaged profile) gives zeros, never inf or NaN */
	if (tsec > 0 && m->peak_flops > 0 && m->hbm_bw > 0) {
		m->hfu = (double)m->hw_flops / (m->peak_flops * tsec);
		m->mbu = (double)(m->hbm_read + m->hbm_write) / tsec / m->hbm_bw;
		/* model flops are per execution; total_time spans all of them */
		m->mfu = tl->model_flops ? (double)tl->model_flops * (double)(m->nexec ? m->nexec : 1) /
					   (m->peak_flops * tsec) : -1;
	} else {
		m->mfu = tl->model_flops ? 0 : -1;
	}
	if (m->hbm_read + m->hbm_write)
		m->ai = (double)(m->hw_flops - m->transpose_flops) /
			(double)(m->hbm_read + m->hbm_write);
	else
		m->ai = m->hw_flops > m->transpose_flops ? INFINITY : 0;
	m->ridge = m->hbm_bw > 0 ? m->peak_flops / m->hbm_bw : 0;
	if (m->core_ps)
		m->dma_active_pct = 100.0 * (double)m->unit[VNP_UNIT_DMA].active_ps /
				    (double)m->core_ps;
	m->avg_dma_bytes = m->dma_count ? (double)m->dma_bytes / (double)m->dma_count : 0;
	if (m->first_compute == UINT64_MAX)
		m->first_compute = 0;
	return 0;

nomem:
	free(it);
	free(sw);
	free(rate);
	free(cover);
	vnp_metrics_free(m);
	return -ENOMEM;
}

void vnp_metrics_free(struct vnp_metrics *m)
{
	uint32_t i;

	vnp_exec_stats_free(&m->xs);
	free(m->scope);
	free(m->line);
	free(m->range);
	free(m->rs);
	free(m->rs_slot);
	for (i = 0; i < m->nlayers; i++)
		free(m->layer[i].name);
	free(m->layer);
	free(m->scope_layers);
	free(m->lay_ids);
	m->layer = NULL;
	m->scope_layers = m->lay_ids = NULL;
	m->nlayers = 0;
	free(m->tput);
	free(m->pending);
	free(m->coll);
	free(m->cc_of);
	m->scope = NULL;
	m->line = NULL;
	m->range = NULL;
	m->nranges = 0;
	m->rs = NULL;
	m->rs_slot = NULL;
	m->nrs = m->rs_cap = m->rs_slots = 0;
	m->tput = NULL;
	m->pending = NULL;
	m->coll = NULL;
	m->cc_of = NULL;
	m->ncoll = 0;
	m->cc_events = 0;
}
