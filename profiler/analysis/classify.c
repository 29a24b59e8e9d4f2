// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Classification by the saturated resource (docs/metrics.md, "Classification"): every
 * engine's and DMA queue's busy share, HBM's (mbu), and the share of fixed entry costs
 * in the busiest unit's time name what bounds the time. Arithmetic intensity against
 * the ridge point explains TensorE against HBM; it does not decide alone.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"
#include "../util/num.h"

void vnp_cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* What a class is computed from: T is core-time (whole) or the scope's spans. */
struct cin {
	uint64_t T;
	uint64_t eng_ps[VNEF_ENGINES], eng_fixed[VNEF_ENGINES], eng_n[VNEF_ENGINES];
	uint64_t q_ps[VNEF_DMA_QUEUES], q_fixed[VNEF_DMA_QUEUES], q_n[VNEF_DMA_QUEUES];
	uint64_t flops, tflops, bytes;
	double peak, bw;		/* one core's */
	double qbw;			/* one queue's bandwidth to HBM (the model's share) */
	/* collectives: transfers (comm_ps) over comm_T, with their figures for the why */
	uint64_t comm_ps, comm_T, comm_wait_ps, comm_n;
	const char *comm_of;		/* "of the critical path" or "of its time" */
	const char *comm_what;		/* what comm_n counts */
	const char *comm_label;		/* comm_of for the label */
	double algbw, busbw;
};

static void classify(struct vnp_classification *c, const struct cin *in)
{
	unsigned int e, q, be = 0, bq = 0;
	double ue, uq, mbu, top, ai, hfu, fx;
	char t1[32], b1[32];

	memset(c, 0, sizeof(*c));
	c->unit = VNP_NONE;
	if (!in->T) {
		c->cls = VNP_CLASS_NONE;
		snprintf(c->label, sizeof(c->label), "idle");
		snprintf(c->why, sizeof(c->why), "no events");
		return;
	}
	for (e = 1; e < VNEF_ENGINES; e++)
		if (in->eng_ps[e] > in->eng_ps[be])
			be = e;
	for (q = 1; q < VNEF_DMA_QUEUES; q++)
		if (in->q_ps[q] > in->q_ps[bq])
			bq = q;
	if (in->comm_T && (double)in->comm_ps >= VNP_COMM_FRAC * (double)in->comm_T) {
		double uc = (double)in->comm_ps / (double)in->comm_T;

		c->cls = VNP_CLASS_COMMUNICATION;
		c->unit = VNEF_STREAM_CC;
		c->pct = 100 * uc;
		snprintf(c->label, sizeof(c->label), "communication-bound (collective transfers "
			 "are %.0f%% %s)", 100 * uc, in->comm_label);
		snprintf(c->why, sizeof(c->why), "the transfers of %llu %s take %s, %.1f%% %s "
			 "(at least %.0f%%)%s", (unsigned long long)in->comm_n, in->comm_what,
			 vnp_fmt_time(in->comm_ps, t1, sizeof(t1)), 100 * uc, in->comm_of,
			 100 * VNP_COMM_FRAC, in->algbw > 0 || in->comm_wait_ps ? "; " : "");
		if (in->algbw > 0)
			vnp_cat(c->why, sizeof(c->why), "algbw %.2f GB/s, busbw %.2f GB/s",
				in->algbw / 1e9, in->busbw / 1e9);
		if (in->comm_wait_ps)
			vnp_cat(c->why, sizeof(c->why), "%swaits for the last rank to arrive add "
				"%s", in->algbw > 0 ? "; " : "",
				vnp_fmt_time(in->comm_wait_ps, b1, sizeof(b1)));
		return;
	}
	ue = (double)in->eng_ps[be] / (double)in->T;
	uq = (double)in->q_ps[bq] / (double)in->T;
	mbu = in->bw > 0 ? (double)in->bytes / ((double)in->T * 1e-12) / in->bw : 0;
	hfu = in->peak > 0 ? (double)in->flops / (in->peak * (double)in->T * 1e-12) : 0;
	ai = in->bytes ? (double)(in->flops - in->tflops) / (double)in->bytes : INFINITY;
	top = fmax(ue, fmax(uq, mbu));
	if (top < VNP_SATURATED_FRAC) {
		c->cls = VNP_CLASS_LATENCY;
		if (uq > ue) {
			c->unit = VNEF_STREAM_DMA(bq);
			snprintf(c->label, sizeof(c->label), "latency-bound (busiest: DMA q%u "
				 "%.0f%%)", bq, 100 * uq);
		} else {
			c->unit = be;
			snprintf(c->label, sizeof(c->label), "latency-bound (busiest: %s %.0f%%)",
				 vnp_engine_name(be), 100 * ue);
		}
		c->pct = 100 * fmax(ue, uq);
		snprintf(c->why, sizeof(c->why), "no unit is busy over %.0f%% of the time "
			 "(%s %.1f%%, DMA q%u %.1f%%, HBM %.1f%%): the time goes to waits along "
			 "the dependency chain (the critical path) and idle gaps",
			 100 * VNP_SATURATED_FRAC, vnp_engine_name(be), 100 * ue, bq, 100 * uq,
			 100 * mbu);
		return;
	}
	/* a queue busy while HBM is near its peak waits for HBM: more queues would not help */
	if (mbu >= VNP_SATURATED_FRAC && (mbu >= ue || uq > ue)) {
		c->cls = VNP_CLASS_MEMORY;
		c->unit = VNP_BOUND_HBM;
		c->pct = 100 * mbu;
		snprintf(c->label, sizeof(c->label), "memory-bound (HBM %.0f%%)", 100 * mbu);
		snprintf(c->why, sizeof(c->why), "HBM moves %s at %.1f%% of its bandwidth "
			 "(mbu); the busiest engine, %s, is busy %.1f%%",
			 vnp_fmt_bytes((double)in->bytes, b1, sizeof(b1)), 100 * mbu,
			 vnp_engine_name(be), 100 * ue);
		if (in->flops > in->tflops)
			vnp_cat(c->why, sizeof(c->why), "; arithmetic intensity %.2f flop/B < "
				"ridge point %.1f flop/B", ai, in->peak / in->bw);
		return;
	}
	if (uq > ue) {
		fx = in->q_ps[bq] ? (double)in->q_fixed[bq] / (double)in->q_ps[bq] : 0;
		c->unit = VNEF_STREAM_DMA(bq);
		c->pct = 100 * uq;
		if (fx >= VNP_FIXED_FRAC) {
			c->cls = VNP_CLASS_OVERHEAD;
			snprintf(c->label, sizeof(c->label), "overhead-bound (fixed descriptor "
				 "costs are %.0f%% of q%u's time)", 100 * fx, bq);
			snprintf(c->why, sizeof(c->why), "DMA q%u is busy %.1f%% of the time with "
				 "%llu descriptors, and %.1f%% of that is the fixed cost per "
				 "descriptor (%s), not moving bytes", bq, 100 * uq,
				 (unsigned long long)in->q_n[bq], 100 * fx,
				 vnp_fmt_time(in->q_fixed[bq], t1, sizeof(t1)));
			return;
		}
		c->cls = VNP_CLASS_DMA_QUEUE;
		snprintf(c->label, sizeof(c->label), "DMA-queue-bound (q%u %.0f%% busy, one "
			 "queue is %.0f%% of HBM)", bq, 100 * uq, 100 * in->qbw / in->bw);
		snprintf(c->why, sizeof(c->why), "DMA q%u is busy %.1f%% of the time, but one "
			 "queue moves at most %.1f GB/s, %.1f%% of HBM's %.0f GB/s: HBM is used "
			 "%.1f%% (mbu); the busiest engine, %s, is busy %.1f%%", bq, 100 * uq,
			 in->qbw / 1e9, 100 * in->qbw / in->bw, in->bw / 1e9, 100 * mbu,
			 vnp_engine_name(be), 100 * ue);
		return;
	}
	fx = in->eng_ps[be] ? (double)in->eng_fixed[be] / (double)in->eng_ps[be] : 0;
	c->unit = be;
	c->pct = 100 * ue;
	if (fx >= VNP_FIXED_FRAC) {
		c->cls = VNP_CLASS_OVERHEAD;
		snprintf(c->label, sizeof(c->label), "overhead-bound (fixed instruction costs "
			 "are %.0f%% of %s's time)", 100 * fx, vnp_engine_name(be));
		snprintf(c->why, sizeof(c->why), "%s is busy %.1f%% of the time with %llu "
			 "instructions, and %.1f%% of that is the fixed cost per instruction (%s)",
			 vnp_engine_name(be), 100 * ue, (unsigned long long)in->eng_n[be],
			 100 * fx, vnp_fmt_time(in->eng_fixed[be], t1, sizeof(t1)));
		return;
	}
	c->cls = VNP_CLASS_COMPUTE;
	snprintf(c->label, sizeof(c->label), "compute-bound (%s %.0f%% busy)",
		 vnp_engine_name(be), 100 * ue);
	snprintf(c->why, sizeof(c->why), "%s is busy %.1f%% of the time; HBM is used %.1f%% "
		 "(mbu), the busiest DMA queue q%u %.1f%%", vnp_engine_name(be), 100 * ue,
		 100 * mbu, bq, 100 * uq);
	if (be == VNEURON_ENGINE_TENSOR) {
		vnp_cat(c->why, sizeof(c->why), "; hfu %.1f%%", 100 * hfu);
		if (in->bytes && in->flops > in->tflops)
			vnp_cat(c->why, sizeof(c->why), ", arithmetic intensity %.1f flop/B %s "
				"ridge point %.1f flop/B", ai, ai >= in->peak / in->bw ? ">=" : "<",
				in->peak / in->bw);
	}
}

/* One queue's bandwidth to HBM in the model: its own, capped by its static share. */
static double queue_bw(const struct vnp_timeline *tl)
{
	unsigned int q, used = 0;
	double bw = (double)tl->model.dma_engine_bw;

	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		if ((tl->prog && tl->prog->ndesc[q]) ||
		    (!tl->prog && vnp_tl_track_len(tl, VNEF_STREAM_DMA(q))))
			used++;
	if (used && (double)tl->model.hbm_bw / used < bw)
		bw = (double)tl->model.hbm_bw / used;
	return bw;
}

/* The collectives' algbw and busbw over all of them: sizes and times summed. */
static void cc_bw(const struct vnp_metrics *m, double *algbw, double *busbw)
{
	uint64_t bytes = 0, t = 0;
	double bus = 0;
	unsigned int op;

	for (op = 0; op < VNEF_CC_OP_COUNT; op++) {
		bytes += m->cc_op[op].bytes;
		bus += m->cc_op[op].bus_bytes;
		t += m->cc_op[op].time_ps;
	}
	*algbw = t ? (double)bytes / ((double)t * 1e-12) : 0;
	*busbw = t ? bus / ((double)t * 1e-12) : 0;
}

void vnp_classify_whole(const struct vnp_timeline *tl, const struct vnp_metrics *m,
			const struct vnp_critpath *cp, struct vnp_classification *c)
{
	unsigned int ncores = tl->ncores ? tl->ncores : 1, u;
	/* no events (a salvaged profile cut before its first): no class from nothing */
	struct cin in = { .T = m->event_count ? m->core_ps : 0 };

	/* collectives count by their transfers on the critical path */
	if (cp && m->ncoll) {
		in.comm_ps = cp->unit_ps[VNP_UNIT_CC];
		in.comm_T = cp->len_ps;
		in.comm_wait_ps = cp->cc_wait_ps;
		in.comm_n = m->ncoll;
		in.comm_what = "collectives";
		in.comm_label = "of the critical path";
		in.comm_of = "of the critical paths (summed over the ranks)";
		cc_bw(m, &in.algbw, &in.busbw);
	}
	for (u = 0; u < VNEF_ENGINES; u++) {
		in.eng_ps[u] = m->unit[u].active_ps;
		in.eng_fixed[u] = m->unit[u].fixed_ps;
		in.eng_n[u] = m->unit[u].count;
	}
	for (u = 0; u < VNEF_DMA_QUEUES; u++) {
		in.q_ps[u] = m->queue[u].active_ps;
		in.q_fixed[u] = m->queue[u].fixed_ps;
		in.q_n[u] = m->queue[u].count;
	}
	in.flops = m->hw_flops;
	in.tflops = m->transpose_flops;
	in.bytes = m->hbm_read + m->hbm_write;
	in.peak = m->peak_flops / ncores;
	in.bw = m->hbm_bw / ncores;
	in.qbw = queue_bw(tl);
	classify(c, &in);
	if (tl->salvaged && !m->event_count) {
		snprintf(c->label, sizeof(c->label), "none (partial profile: no events read)");
		snprintf(c->why, sizeof(c->why), "the profile was salvaged and holds no "
			 "instruction or DMA events: nothing to classify");
	}
}

void vnp_classify_group(const struct vnp_timeline *tl, const struct vnp_metrics *m,
			const struct vnp_group *g, struct vnp_classification *c)
{
	unsigned int ncores = tl->ncores ? tl->ncores : 1, u;
	struct cin in = { .T = g->count ? g->span_ps : 0 };
	uint64_t dma = g->unit_ps[VNP_UNIT_DMA];

	/* a scope's collectives: their transfers over its span */
	if (g->unit_ps[VNP_UNIT_CC]) {
		in.comm_ps = g->unit_ps[VNP_UNIT_CC];
		in.comm_T = in.T;
		in.comm_of = "of its time";
		in.comm_what = "collective calls (summed over the ranks)";
		in.comm_label = "of its time";
		in.comm_n = g->cc_count;
		in.comm_wait_ps = g->cc_wait_ps;
	}
	for (u = 0; u < VNEF_ENGINES; u++) {
		in.eng_ps[u] = g->unit_ps[u];
		in.eng_fixed[u] = g->fixed_ps[u];
	}
	for (u = 0; u < VNEF_DMA_QUEUES; u++) {
		in.q_ps[u] = g->queue_ps[u];
		/* the group's fixed DMA costs, shared out by queue time */
		in.q_fixed[u] = dma ? vnp_u64_sat((double)g->fixed_ps[VNP_UNIT_DMA] *
						  (double)g->queue_ps[u] / (double)dma) : 0;
	}
	in.flops = g->flops;
	in.tflops = g->transpose_flops;
	in.bytes = g->hbm_read + g->hbm_write;
	in.peak = m->peak_flops / ncores;
	in.bw = m->hbm_bw / ncores;
	in.qbw = queue_bw(tl);
	classify(c, &in);
}

/* ---- where findings come from ---- */

struct wgroup {
	uint32_t scope, file_off;
	uint32_t lo, hi;		/* line range */
	uint64_t n;
	int dma;
};

static int cmp_wgroup(const void *x, const void *y)
{
	const struct wgroup *a = x, *b = y;

	return a->n != b->n ? (a->n > b->n ? -1 : 1) : vnp_cmp(a->lo, b->lo);
}

void vnp_where(const struct vnp_timeline *tl, vnp_ev_pred pred, const void *arg,
	       char *buf, size_t len)
{
	struct wgroup g[16];
	unsigned int ng = 0, i, j;
	const struct vnp_prog *p = tl->prog;
	uint64_t n;
	size_t k;

	buf[0] = 0;
	if (!p || !p->lines)
		return;
	for (k = 0; k < tl->n; k++) {
		const struct vnp_ev e_copy = vnp_tl_ev(tl, k), *e = &e_copy;
		const struct vnp_loc *l;
		const struct vnp_line *ln;

		if (!pred(tl, e, arg))
			continue;
		l = vnp_ev_loc(tl, e);
		if (!l || l->line == VNP_NONE || l->line >= p->nlines)
			continue;
		ln = &p->lines[l->line];
		for (i = 0; i < ng; i++)
			if (g[i].scope == l->scope && g[i].file_off == ln->file_off)
				break;
		if (i == ng) {
			if (ng == 16)
				continue;
			g[ng++] = (struct wgroup){ .scope = l->scope, .file_off = ln->file_off,
						   .lo = ln->line, .hi = ln->line,
						   .dma = e->opcode == VNP_OP_DMA };
		}
		g[i].n++;
		if (ln->line < g[i].lo)
			g[i].lo = ln->line;
		if (ln->line > g[i].hi)
			g[i].hi = ln->line;
	}
	qsort(g, ng, sizeof(*g), cmp_wgroup);
	for (j = 0; j < ng && j < 3; j++) {
		vnp_cat(buf, len, "%s%s:%u", j ? "; " : "", vnp_prog_str(p, g[j].file_off),
			g[j].lo);
		if (g[j].hi != g[j].lo)
			vnp_cat(buf, len, "-%u", g[j].hi);
		if (g[j].scope != VNP_NONE)
			vnp_cat(buf, len, " in %s", vnp_prog_scope(p, g[j].scope));
		/* per execution, rounded; an entry that ran at all counts at least once */
		n = (g[j].n + (tl->nexec ? tl->nexec : 1) / 2) / (tl->nexec ? tl->nexec : 1);
		n = n ? n : 1;
		vnp_cat(buf, len, " (%llu %s%s)", (unsigned long long)n,
			g[j].dma ? "descriptor" : "instruction", n == 1 ? "" : "s");
	}
	if (ng > 3)
		vnp_cat(buf, len, "; and %u more places", ng - 3);
}
