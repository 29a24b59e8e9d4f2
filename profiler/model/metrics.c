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
#include "metrics_priv.h"
#include "vn_isa.h"

uint64_t vnp_ev_wait(const struct vnp_timeline *tl, size_t i)
{
	const struct vnp_shape *sh = vnp_tl_shape(tl, i);
	unsigned int t = (unsigned int)sh->core * VNEF_STREAMS + sh->stream;
	uint64_t from, start = vnp_tl_start(tl, i);
	uint32_t exec;

	if (sh->sem_wait == VNEURON_TRACE_NO_SEM)
		return 0;
	exec = vnp_tl_ev_exec(tl, i);
	if (i > tl->track_off[t] && vnp_tl_ev_exec(tl, i - 1) == exec) {
		uint64_t pend = vnp_tl_end(tl, i - 1);

		return start > pend ? start - pend : 0;
	}
	/* the stream's first entry of this execution waited from the execution's start */
	from = vnp_tl_exec_start(tl, sh->core, exec);
	return start > from ? start - from : 0;
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
	const struct vnp_instr_cost *c = NULL;
	struct vnp_instr_cost ic;
	const struct vnef_instr *in;
	uint32_t khz;
	int have;

	if (vnp_ev_is_cc(e))
		return 0;	/* the model's collective costs are per step (docs/isa.md) */
	if (e->opcode == VNP_OP_DMA) {
		unsigned int used = tl->dma_queues[e->core], src, dst;
		int hs = 1, hd = 0, have = vnp_tl_desc(tl, e, &src, &dst, &n);

		if (have < 0) {
			const struct vnef_dma_desc *x = vnp_prog_desc(tl->prog,
								      e->stream - VNEF_ENGINES,
								      e->pc);

			have = !!x;
			if (x) {
				src = x->src.mem == VNEF_MEM_HBM ? VNEF_MEM_HBM : 0;
				dst = x->dst.mem == VNEF_MEM_HBM ? VNEF_MEM_HBM : 0;
				n = (uint64_t)x->count[0] * x->count[1] * x->chunk_bytes;
			}
		}
		if (have) {
			hs = src == VNEF_MEM_HBM;
			hd = dst == VNEF_MEM_HBM;
		} else {
			n = e->bytes;
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
	/* the instruction's cost inputs from the timeline's copy (progcache.c), else built */
	have = vnp_tl_instr(tl, e, &c);
	if (have < 0) {
		in = vnp_prog_instr(tl->prog, e->stream, e->pc);
		have = in && in->opcode == e->opcode;
		if (have) {
			vnp_instr_cost_of(e->stream, in, &ic);
			c = &ic;
		}
	} else if (have && c->opcode != e->opcode) {
		have = 0;
	}
	if (e->stream == VNEURON_ENGINE_TENSOR) {
		/* max(n, 64) cycles: below 64 columns (rows for a transpose) the rest is fixed */
		if (!have)
			return 0;
		n = c->n;
		return n < 64 ? d * (64 - n) / 64 : 0;
	}
	if (e->opcode == VNEF_OP_NOP)
		return 0;
	khz = e->stream == VNEURON_ENGINE_VECTOR ? md->vector_khz :
	      e->stream == VNEURON_ENGINE_SCALAR ? md->scalar_khz : md->gpsimd_khz;
	f = khz ? (uint64_t)VN_STATIC_CYCLES * 1000000000ull / khz : 0;
	if (have) {
		if (c->per_elem && khz) {
			uint64_t cyc = c->n;

			if (e->stream == VNEURON_ENGINE_GPSIMD) {
				uint64_t lanes = (uint64_t)(md->gpsimd_cores ? md->gpsimd_cores : 1) * 16;

				cyc = (cyc + lanes - 1) / lanes;	/* cyc: times partitions */
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
	m->eng_peak[VNEURON_ENGINE_TENSOR] = m->peak_flops;
	m->eng_peak[VNEURON_ENGINE_VECTOR] = (double)tl->model.vector_lanes *
					      (double)tl->model.vector_khz * 1e3 * ncores;
	m->eng_peak[VNEURON_ENGINE_SCALAR] = (double)tl->model.scalar_lanes *
					      (double)tl->model.scalar_khz * 1e3 * ncores;
	/* 8 cores x 512 bits: 16 fp32 lanes a core (core/engine.c) */
	m->eng_peak[VNEURON_ENGINE_GPSIMD] = (double)tl->model.gpsimd_cores * 16 *
					      (double)tl->model.gpsimd_khz * 1e3 * ncores;
	for (u = 0; u < VNEF_ENGINES; u++)
		m->eng_ridge[u] = m->hbm_bw > 0 ? m->eng_peak[u] / m->hbm_bw : 0;
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
	    vnp_layers_build(p, m)) {
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
		w = vnp_ev_wait(tl, it->idx);
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
				top_wait_add(m, it->idx, w, sig);
		}
		/* unit 0 of a group's flops: TensorE only, as hw_flops */
		vnp_group_add(&m->scope[loc && loc->scope < m->nscopes ? loc->scope : m->nscopes],
			      e, u, transpose, hr, hw, fx);
		vnp_group_add(&m->line[loc && loc->line < m->nlines ? loc->line : m->nlines],
			      e, u, transpose, hr, hw, fx);
		vnp_range_add(tl, m, e, u, transpose, hr, hw, fx);
		if (vnp_rs_add(tl, m, e, loc && loc->scope < m->nscopes ? loc->scope : m->nscopes,
			       u, transpose, hr, hw, fx))
			goto nomem;
	}
	for (k = 0; k < VNP_MAX_CORES; k++) {
		uint32_t i;

		for (i = 0; i <= m->nscopes; i++)
			vnp_group_close(&m->scope[i], k);
		for (i = 0; i <= m->nlines; i++)
			vnp_group_close(&m->line[i], k);
		for (i = 0; i <= m->nranges; i++) {
			vnp_group_close(&m->range[i].self, k);
			vnp_group_close(&m->range[i].all, k);
		}
		for (i = 0; i < m->nrs; i++)
			vnp_group_close(&m->rs[i].g, k);
	}
	tend = tl->t1;
	for (k = 0; k < ncores; k++)
		for (u = 0; u < VNP_UNITS; u++)
			tend = u64max(tend, sw->c[k].cur[u]);
	advance(sw, m, tend);
	vnp_range_execs(tl, m);
	free(it);
	free(sw);

	/* per queue unions: one queue runs one descriptor at a time, but do not assume it */
	for (q = 0; q < VNEF_DMA_QUEUES; q++) {
		for (k = 0; k < tl->ncores; k++) {
			unsigned int t = k * VNEF_STREAMS + VNEF_STREAM_DMA(q);
			uint64_t cur = 0;
			size_t i;

			/* start and end only: the whole event only where its memories count */
			for (i = tl->track_off[t]; i < tl->track_off[t + 1]; i++) {
				uint64_t start = vnp_tl_start(tl, i), end = vnp_tl_end(tl, i);

				if (start >= cur)
					m->queue[q].active_ps += end - start;
				else if (end > cur)
					m->queue[q].active_ps += end - cur;
				cur = u64max(cur, end);
				if (m->first_compute != UINT64_MAX && end <= m->first_compute) {
					struct vnp_ev ev = vnp_tl_ev(tl, i);
					unsigned int s2, d2;

					vnp_ev_dma_mems(tl, &ev, &s2, &d2);
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
	if (vnp_collectives_compute(tl, m) || vnp_exec_stats(tl, &m->xs)) {
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
	/* every engine's flops: a softmax or a layernorm has no TensorE work */
	if (m->hbm_read + m->hbm_write)
		m->ai = (double)(m->hw_flops - m->transpose_flops + m->other_flops) /
			(double)(m->hbm_read + m->hbm_write);
	else
		m->ai = m->hw_flops - m->transpose_flops + m->other_flops ? INFINITY : 0;
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
