// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The rules about work that could run at the same time and does not (docs/profiler.md,
 * "Analysis and advice"): engines that take turns, DMA that never overlaps compute
 * (the data loaded before compute starts), and TensorE idle while other engines work.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"
#include "vn_isa.h"

#define cat vnp_cat

static int pred_engines(const struct vnp_timeline *tl, const struct vnp_ev *e, const void *arg)
{
	return e->stream < VNEF_ENGINES && e->opcode != VNEF_OP_NOP;
}

/* Loads: descriptors that write SBUF or PSUM. */
static int pred_loads(const struct vnp_timeline *tl, const struct vnp_ev *e, const void *arg)
{
	unsigned int src, dst;

	if (e->opcode != VNP_OP_DMA)
		return 0;
	vnp_ev_dma_mems(tl, e, &src, &dst);
	return dst == VNEF_MEM_SBUF || dst == VNEF_MEM_PSUM;
}

/* VectorE, ScalarE and GpSimdE work (what runs while TensorE idles). */
static int pred_others(const struct vnp_timeline *tl, const struct vnp_ev *e, const void *arg)
{
	return e->stream > 0 && e->stream < VNEF_ENGINES && e->opcode != VNEF_OP_NOP;
}

static int rule_engines(struct vnp_rctx *c)
{
	const struct vnp_metrics *m = c->m;
	unsigned int u, v, used = 0;
	uint64_t sum = 0, mx = 0, cps = 0, cpmx = 0;
	struct vnp_finding *f;
	char t1[32], t2[32], t3[32], where[320];

	for (u = 0; u < VNEF_ENGINES; u++)
		if (m->unit[u].active_ps)
			used++;
	if (used < 2)
		return 0;
	for (u = 0; u < VNEF_ENGINES; u++) {
		for (v = u + 1; v < VNEF_ENGINES; v++) {
			uint64_t small = m->unit[u].active_ps < m->unit[v].active_ps ?
					 m->unit[u].active_ps : m->unit[v].active_ps;

			if (!small)
				continue;
			if ((double)m->overlap_ps[u][v] > VNP_OVERLAP_FRAC * (double)small)
				return 0;
		}
		sum += m->unit[u].active_ps;
		if (m->unit[u].active_ps > mx)
			mx = m->unit[u].active_ps;
		cps += c->cp->stream_ps[u];
		if (c->cp->stream_ps[u] > cpmx)
			cpmx = c->cp->stream_ps[u];
	}
	f = vnp_add(c, VNP_RULE_ENGINES_NO_OVERLAP, (double)(cps - cpmx),
		(double)(sum - mx) / (double)m->core_ps);
	if (!f)
		return -ENOMEM;
	snprintf(f->title, sizeof(f->title), "The %u engines in use never run at the same time",
		 used);
	for (u = 0; u < VNEF_ENGINES; u++) {
		const struct vnp_unit *x = &m->unit[u];

		if (!x->active_ps)
			continue;
		cat(f->evidence, sizeof(f->evidence),
		    "%s: %llu instructions, active %s between %s and %s; ", vnp_engine_name(u),
		    (unsigned long long)x->count, vnp_fmt_time(x->active_ps, t1, sizeof(t1)),
		    vnp_fmt_time(x->first - m->t0, t2, sizeof(t2)),
		    vnp_fmt_time(x->last - m->t0, t3, sizeof(t3)));
	}
	cat(f->evidence, sizeof(f->evidence),
	    "time with two or more engines busy: %s (<= %.0f%% of the least busy engine).",
	    vnp_fmt_time(m->overlap_ps[0][1] + m->overlap_ps[0][2] + m->overlap_ps[0][3] +
			 m->overlap_ps[1][2] + m->overlap_ps[1][3] + m->overlap_ps[2][3],
			 t1, sizeof(t1)), 100 * VNP_OVERLAP_FRAC);
	vnp_where(c->tl, pred_engines, NULL, where, sizeof(where));
	snprintf(f->advice, sizeof(f->advice),
		 "Tile the work and pipeline it across engines%s%s%s: while one engine "
		 "processes tile i the next can process tile i-1 (double-buffer the SBUF tiles "
		 "so the semaphores allow it). The engines are %s of the critical path; at best "
		 "it shrinks to the busiest engine's share, %s.", *where ? " (" : "", where,
		 *where ? ")" : "", vnp_fmt_time(cps, t1, sizeof(t1)),
		 vnp_fmt_time(cpmx, t2, sizeof(t2)));
	return vnp_settle(c, f, -ENOTSUP, 0, "tiling is not a mechanical change");
}

/* Critical-path time of loads (into SBUF/PSUM), stores (into HBM) and compute. */
static void cp_phases(struct vnp_rctx *c, uint64_t *load, uint64_t *store, uint64_t *comp)
{
	size_t i;

	*load = *store = *comp = 0;
	for (i = 0; i < c->cp->nev; i++) {
		const struct vnp_ev e_copy = vnp_tl_ev(c->tl, c->cp->ev[i]), *e = &e_copy;
		unsigned int src, dst;

		if (vnp_ev_is_cc(e))
			continue;
		if (e->opcode != VNP_OP_DMA) {
			*comp += e->end - e->start;
			continue;
		}
		vnp_ev_dma_mems(c->tl, e, &src, &dst);
		if (dst == VNEF_MEM_HBM)
			*store += e->end - e->start;
		else
			*load += e->end - e->start;
	}
}

static int rule_dma_overlap(struct vnp_rctx *c)
{
	const struct vnp_metrics *m = c->m;
	const struct vnp_unit *d = &m->unit[VNP_UNIT_DMA];
	uint64_t small = d->active_ps < m->compute_ps ? d->active_ps : m->compute_ps;
	uint64_t cfirst = UINT64_MAX, clast = 0, ld, st, cm, mx;
	struct vnp_finding *f;
	char t1[32], t2[32], t3[32], b1[32], where[320];
	unsigned int u;

	if (!small || (double)m->dma_compute_ps > VNP_OVERLAP_FRAC * (double)small)
		return 0;
	for (u = 0; u < VNEF_ENGINES; u++) {
		if (!m->unit[u].count)
			continue;
		if (m->unit[u].first < cfirst)
			cfirst = m->unit[u].first;
		if (m->unit[u].last > clast)
			clast = m->unit[u].last;
	}
	/* pipelined, loads, compute and stores of different tiles overlap: the longest stays */
	cp_phases(c, &ld, &st, &cm);
	mx = ld > st ? ld : st;
	mx = mx > cm ? mx : cm;
	f = vnp_add(c, VNP_RULE_DMA_NO_OVERLAP, (double)(ld + st + cm - mx),
		(double)small / (double)(m->core_ps ? m->core_ps : 1));
	if (!f)
		return -ENOMEM;
	snprintf(f->title, sizeof(f->title), "DMA never overlaps compute");
	cat(f->evidence, sizeof(f->evidence),
	    "DMA: %llu descriptors, %s, active %s between %s and %s; ",
	    (unsigned long long)d->count, vnp_fmt_bytes((double)d->bytes, b1, sizeof(b1)),
	    vnp_fmt_time(d->active_ps, t1, sizeof(t1)),
	    vnp_fmt_time(d->first - m->t0, t2, sizeof(t2)),
	    vnp_fmt_time(d->last - m->t0, t3, sizeof(t3)));
	cat(f->evidence, sizeof(f->evidence),
	    "engines: active %s between %s and %s; DMA and compute together: %s. ",
	    vnp_fmt_time(m->compute_ps, t1, sizeof(t1)),
	    vnp_fmt_time(cfirst - m->t0, t2, sizeof(t2)),
	    vnp_fmt_time(clast - m->t0, t3, sizeof(t3)),
	    vnp_fmt_time(m->dma_compute_ps, b1, sizeof(b1)));
	if (m->dma_in_count && m->dma_in_before_compute == m->dma_in_count)
		cat(f->evidence, sizeof(f->evidence),
		    "All %llu loads into SBUF/PSUM complete before the first instruction at %s: "
		    "the data is fully loaded before compute starts. ",
		    (unsigned long long)m->dma_in_count,
		    vnp_fmt_time(m->first_compute - m->t0, t1, sizeof(t1)));
	else if (m->dma_in_count)
		cat(f->evidence, sizeof(f->evidence),
		    "%llu of %llu loads into SBUF/PSUM complete before the first instruction at %s. ",
		    (unsigned long long)m->dma_in_before_compute,
		    (unsigned long long)m->dma_in_count,
		    vnp_fmt_time(m->first_compute - m->t0, t1, sizeof(t1)));
	cat(f->evidence, sizeof(f->evidence), "Critical path: loads %s, compute %s, stores %s.",
	    vnp_fmt_time(ld, t1, sizeof(t1)), vnp_fmt_time(cm, t2, sizeof(t2)),
	    vnp_fmt_time(st, t3, sizeof(t3)));
	vnp_where(c->tl, pred_loads, NULL, where, sizeof(where));
	snprintf(f->advice, sizeof(f->advice),
		 "Split the data into tiles and compute tile i while tile i+1 loads and tile "
		 "i-1 stores (a buffer per tile in flight)%s%s%s. Loads, compute and stores "
		 "then overlap, and the critical path tends to the longest of the three, %s.",
		 *where ? "; the loads: " : "", where, "", vnp_fmt_time(mx, t1, sizeof(t1)));
	return vnp_settle(c, f, -ENOTSUP, 0, "tiling is not a mechanical change");
}

static int rule_tensor_idle(struct vnp_rctx *c)
{
	const struct vnp_metrics *m = c->m;
	struct vnp_finding *f;
	char t1[32], t2[32], t3[32], t4[32], t5[32], where[320];
	uint64_t other = c->cp->unit_ps[1] + c->cp->unit_ps[2] + c->cp->unit_ps[3];

	if (!m->unit[0].flops || !m->core_ps ||
	    (double)m->tensor_idle_ps <= VNP_TENSOR_IDLE_FRAC * (double)m->core_ps)
		return 0;
	f = vnp_add(c, VNP_RULE_TENSOR_IDLE,
		(double)(other < m->tensor_idle_ps ? other : m->tensor_idle_ps) / 2,
		(double)m->tensor_idle_ps / (double)m->core_ps);
	if (!f)
		return -ENOMEM;
	snprintf(f->title, sizeof(f->title),
		 "TensorE is idle %.1f%% of the time while other engines work",
		 vnp_pct(m->tensor_idle_ps, m->core_ps));
	cat(f->evidence, sizeof(f->evidence),
	    "TensorE active %s (%.1f%%); VectorE/ScalarE/GpSimdE busy while TensorE idles: "
	    "%s (> %.0f%% of total_time); the longest such stretch is %s to %s (%s).",
	    vnp_fmt_time(m->unit[0].active_ps, t1, sizeof(t1)),
	    vnp_pct(m->unit[0].active_ps, m->core_ps),
	    vnp_fmt_time(m->tensor_idle_ps, t2, sizeof(t2)), 100 * VNP_TENSOR_IDLE_FRAC,
	    vnp_fmt_time(m->tidle_lo - m->t0, t3, sizeof(t3)),
	    vnp_fmt_time(m->tidle_hi - m->t0, t4, sizeof(t4)),
	    vnp_fmt_time(m->tidle_hi - m->tidle_lo, t5, sizeof(t5)));
	vnp_where(c->tl, pred_others, NULL, where, sizeof(where));
	snprintf(f->advice, sizeof(f->advice),
		 "Give TensorE the next matmul while the other engines post-process the "
		 "previous result (separate PSUM banks per tile), or move elementwise work "
		 "that only rescales into the matmul's operands%s%s%s.", *where ? " (" : "",
		 where, *where ? ")" : "");
	return vnp_settle(c, f, -ENOTSUP, 0, "reordering work is not a mechanical change");
}

VNP_RULE_DEF(engines_no_overlap, ENGINES_NO_OVERLAP, "engines-no-overlap", rule_engines,
	     "the engines' active time, their pairwise overlap and their time on the "
	     "critical path",
	     VNP_THR(VNP_OVERLAP_FRAC));

VNP_RULE_DEF(dma_no_overlap, DMA_NO_OVERLAP, "dma-no-overlap", rule_dma_overlap,
	     "DMA and compute active time and their overlap, the loads before the "
	     "first instruction, the critical path's loads, compute and stores",
	     VNP_THR(VNP_OVERLAP_FRAC));

VNP_RULE_DEF(tensor_idle, TENSOR_IDLE, "tensor-idle", rule_tensor_idle,
	     "TensorE's idle time while another engine is busy, the other engines' "
	     "critical-path time",
	     VNP_THR(VNP_TENSOR_IDLE_FRAC));
