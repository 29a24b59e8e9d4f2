// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Advice rules (docs/profiler.md). Each rule works from the metrics, the critical path
 * and, where it must name instructions, from the timeline and the program. A finding's
 * rank is the time its fix saves on the critical path: replayed on the device model
 * when the fix is mechanical (profiler/replay.c), else estimated.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_priv.h"
#include "vn_isa.h"
#include "replay.h"

static const char *const class_names[] = {
	[VNP_CLASS_NONE] = "idle",
	[VNP_CLASS_COMPUTE] = "compute-bound",
	[VNP_CLASS_MEMORY] = "memory-bound",
	[VNP_CLASS_COMMUNICATION] = "communication-bound",
	[VNP_CLASS_OVERHEAD] = "overhead-bound",
	[VNP_CLASS_DMA_QUEUE] = "dma-queue-bound",
	[VNP_CLASS_LATENCY] = "latency-bound",
};

static const char *const rule_ids[VNP_RULE_COUNT] = {
	[VNP_RULE_ENGINES_NO_OVERLAP] = "engines-no-overlap",
	[VNP_RULE_DMA_NO_OVERLAP] = "dma-no-overlap",
	[VNP_RULE_SMALL_DMA] = "small-dma",
	[VNP_RULE_REPEATED_LOAD] = "repeated-load",
	[VNP_RULE_TENSOR_IDLE] = "tensor-idle",
	[VNP_RULE_TRANSPOSE_FLOPS] = "transpose-flops",
	[VNP_RULE_SEM_WAIT] = "semaphore-wait",
	[VNP_RULE_DMA_QUEUE_BOUND] = "dma-queue-bound",
	[VNP_RULE_INSTR_OVERHEAD] = "instruction-overhead",
	[VNP_RULE_CC_STRAGGLER] = "straggler-rank",
	[VNP_RULE_CC_NO_OVERLAP] = "collective-no-overlap",
	[VNP_RULE_CC_SMALL] = "small-collectives",
	[VNP_RULE_CC_SPLIT] = "all-reduce-split",
	[VNP_RULE_NODE_STRAGGLER] = "straggler-node",
	[VNP_RULE_INTER_NODE_BOUND] = "inter-node-bound",
	[VNP_RULE_HOST_OVERHEAD] = "host-overhead",
};

const char *vnp_class_name(enum vnp_class c)
{
	return c <= VNP_CLASS_LATENCY ? class_names[c] : "?";
}

const char *vnp_rule_id(enum vnp_rule r)
{
	return r < VNP_RULE_COUNT ? rule_ids[r] : "?";
}

#define cat vnp_cat

/* " at file.c:12 [a/b]" of an event (its line and scope, as far as known), or "" */
static const char *ev_where(const struct vnp_timeline *tl, const struct vnp_ev *e,
			    char *buf, size_t len)
{
	const struct vnp_loc *l = vnp_ev_loc(tl, e);
	char src[256];

	buf[0] = 0;
	if (l && l->line != VNP_NONE)
		snprintf(buf, len, " at %s", vnp_prog_line(tl->prog, l->line, src, sizeof(src)));
	if (l && l->scope != VNP_NONE)
		cat(buf, len, " [%s]", vnp_prog_scope(tl->prog, l->scope));
	return buf;
}

struct vnp_finding *vnp_add(struct vnp_rctx *c, enum vnp_rule r, double saved, double share)
{
	struct vnp_analysis *a = c->a;
	struct vnp_finding *f = realloc(a->f, (a->n + 1) * sizeof(*f));

	if (!f)
		return NULL;
	a->f = f;
	f = &a->f[a->n++];
	memset(f, 0, sizeof(*f));
	f->rule = r;
	f->saved_ps = saved > 0 ? saved : 0;
	f->share = share;
	return f;
}

/*
 * Fills a finding's gain from a replay (ret 0: after_ps; -ENOTSUP: why not in what) or
 * its estimate. Returns 1 if the model says the fix does not help: drop the finding.
 */
int vnp_gain(struct vnp_rctx *c, struct vnp_finding *f, int ret, uint64_t after,
	     const char *what)
{
	char t1[32], t2[32];

	if (!ret && c->r) {
		uint64_t base = vnp_replay_base(c->r);

		if (after >= base)
			return 1;
		f->replayed = 1;
		f->before_ps = base;
		f->after_ps = after;
		f->saved_ps = (double)(base - after) * (double)c->nexec;
		snprintf(f->gain, sizeof(f->gain), "%s: %s -> %s, replayed", what,
			 vnp_fmt_time(base, t1, sizeof(t1)), vnp_fmt_time(after, t2, sizeof(t2)));
		return 0;
	}
	snprintf(f->gain, sizeof(f->gain), "estimate: about %s less on the critical path "
		 "per execution%s%s%s", vnp_fmt_time((uint64_t)(f->saved_ps / (double)c->nexec),
						     t1, sizeof(t1)),
		 what && *what ? " (not replayed: " : "", what && *what ? what : "",
		 what && *what ? ")" : "");
	return 0;
}

void vnp_drop_last(struct vnp_analysis *a)
{
	a->n--;
}

int vnp_pred_stream(const struct vnp_timeline *tl, const struct vnp_ev *e, const void *arg)
{
	return e->stream == *(const unsigned int *)arg;
}

/* Descriptors whose fixed cost is at least half their time. */
static int pred_small(const struct vnp_timeline *tl, const struct vnp_ev *e, const void *arg)
{
	return e->opcode == VNP_OP_DMA && 2 * vnp_ev_fixed(tl, e) >= e->end - e->start;
}

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
	return vnp_gain(c, f, -ENOTSUP, 0, "tiling is not a mechanical change") ? (vnp_drop_last(c->a), 0) : 0;
}

/* Critical-path time of loads (into SBUF/PSUM), stores (into HBM) and compute. */
static void cp_phases(struct vnp_rctx *c, uint64_t *load, uint64_t *store, uint64_t *comp)
{
	size_t i;

	*load = *store = *comp = 0;
	for (i = 0; i < c->cp->nev; i++) {
		const struct vnp_ev *e = &c->tl->ev[c->cp->ev[i]];
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
	return vnp_gain(c, f, -ENOTSUP, 0, "tiling is not a mechanical change") ? (vnp_drop_last(c->a), 0) : 0;
}

static int rule_small_dma(struct vnp_rctx *c)
{
	const struct vnp_timeline *tl = c->tl;
	const struct vnp_metrics *m = c->m;
	const struct vnp_unit *d = &m->unit[VNP_UNIT_DMA];
	struct vnp_finding *f;
	char b1[32], b2[32], t1[32], t2[32], t3[32], where[512], what[160];
	uint64_t after = 0;
	int ret = -ENOTSUP;

	/* DMA matters if it is on the critical path or busy most of the time */
	if (!m->dma_count || !d->instr_ps ||
	    (double)d->fixed_ps < VNP_SMALL_DMA_FRAC * (double)d->instr_ps ||
	    ((double)c->cp->unit_ps[VNP_UNIT_DMA] < VNP_CP_FRAC * (double)c->cp->len_ps &&
	     (double)d->active_ps < VNP_SATURATED_FRAC * (double)m->core_ps))
		return 0;
	f = vnp_add(c, VNP_RULE_SMALL_DMA, (double)c->cp->fixed_ps[VNP_UNIT_DMA],
		(double)d->fixed_ps / (double)m->core_ps);
	if (!f)
		return -ENOMEM;
	snprintf(f->title, sizeof(f->title), "DMA descriptors spend %.0f%% of their time on "
		 "fixed costs (%s each on average)", vnp_pct(d->fixed_ps, d->instr_ps),
		 vnp_fmt_bytes(m->avg_dma_bytes, b1, sizeof(b1)));
	cat(f->evidence, sizeof(f->evidence),
	    "%llu descriptors moved %s, %s each on average; at %u ns of fixed cost per "
	    "descriptor that is %s of %s of descriptor time, %s of it on the critical path.",
	    (unsigned long long)m->dma_count, vnp_fmt_bytes((double)m->dma_bytes, b1, sizeof(b1)),
	    vnp_fmt_bytes(m->avg_dma_bytes, t1, sizeof(t1)), tl->model.dma_desc_overhead_ns,
	    vnp_fmt_time(d->fixed_ps, b2, sizeof(b2)), vnp_fmt_time(d->instr_ps, t2, sizeof(t2)),
	    vnp_fmt_time(c->cp->fixed_ps[VNP_UNIT_DMA], t3, sizeof(t3)));
	vnp_where(tl, pred_small, NULL, where, sizeof(where));
	snprintf(f->advice, sizeof(f->advice),
		 "Move whole tiles per descriptor%s%s%s: one access pattern with one more "
		 "dimension instead of one descriptor per row or chunk. Every descriptor pays "
		 "%u ns before its first byte.", *where ? " (" : "", where, *where ? ")" : "",
		 tl->model.dma_desc_overhead_ns);
	what[0] = 0;
	if (c->r)
		ret = vnp_replay_merge(c->r, &after, what, sizeof(what));
	if (ret && ret != -ENOTSUP)
		snprintf(what, sizeof(what), "the replay failed (%d)", ret);
	return vnp_gain(c, f, ret, after, what) ? (vnp_drop_last(c->a), 0) : 0;
}

/* Queues with no descriptors in the program (or no events without one). */
static unsigned int free_queues(const struct vnp_timeline *tl, const struct vnp_metrics *m)
{
	unsigned int q, n = 0;

	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		if (tl->prog ? !tl->prog->ndesc[q] : !m->queue[q].count)
			n++;
	return n;
}

/*
 * Too few queues: the busiest queue is busy most of the time, or the queues are most of
 * the critical path, while HBM has bandwidth to spare and queues are free. The fix
 * spreads every queue at least half as busy as the busiest over the free ones.
 */
static int rule_queue_bound(struct vnp_rctx *c)
{
	const struct vnp_timeline *tl = c->tl;
	const struct vnp_metrics *m = c->m;
	unsigned int q, bq = 0, nfree = free_queues(tl, m), sid, nq = 0;
	uint64_t after = 0, cpq = c->cp->unit_ps[VNP_UNIT_DMA];
	uint32_t qmask = 0;
	struct vnp_finding *f;
	char t1[32], t2[32], b1[32], where[384], what[160];
	double busy, mbu = m->mbu, k;
	int ret = -ENOTSUP;

	for (q = 1; q < VNEF_DMA_QUEUES; q++)
		if (m->queue[q].active_ps > m->queue[bq].active_ps)
			bq = q;
	busy = (double)m->queue[bq].active_ps / (double)m->core_ps;
	sid = VNEF_STREAM_DMA(bq);
	if ((busy <= VNP_QUEUE_BUSY_FRAC && (double)cpq < VNP_SATURATED_FRAC *
	     (double)c->cp->len_ps) || mbu >= VNP_SATURATED_FRAC || !nfree ||
	    (double)m->queue[bq].fixed_ps >= VNP_FIXED_FRAC * (double)m->queue[bq].active_ps ||
	    (double)c->cp->stream_ps[sid] < VNP_CP_FRAC * (double)c->cp->len_ps)
		return 0;
	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		if (m->queue[q].count && 2 * m->queue[q].active_ps >= m->queue[bq].active_ps) {
			qmask |= 1u << q;
			nq++;
		}
	k = (double)(nq + nfree) / nq;
	f = vnp_add(c, VNP_RULE_DMA_QUEUE_BOUND, (double)cpq * (1.0 - 1.0 / k), busy);
	if (!f)
		return -ENOMEM;
	snprintf(f->title, sizeof(f->title), "DMA q%u is busy %.0f%% of the time while HBM is "
		 "used %.0f%%: too few queues", bq, 100 * busy, 100 * mbu);
	cat(f->evidence, sizeof(f->evidence), "q%u ran %llu descriptors (%s) in %s; it is %s "
	    "of the critical path, the DMA queues together %.0f%% of it. One queue moves at "
	    "most %.1f GB/s here; %u of the 16 queues carry nothing.", bq,
	    (unsigned long long)m->queue[bq].count,
	    vnp_fmt_bytes((double)m->queue[bq].bytes, b1, sizeof(b1)),
	    vnp_fmt_time(m->queue[bq].active_ps, t1, sizeof(t1)),
	    vnp_fmt_time(c->cp->stream_ps[sid], t2, sizeof(t2)), vnp_pct(cpq, c->cp->len_ps),
	    m->queue[bq].active_ps ? (double)m->queue[bq].bytes /
	    ((double)m->queue[bq].active_ps * 1e-12) / 1e9 : 0, nfree);
	vnp_where(tl, vnp_pred_stream, &sid, where, sizeof(where));
	snprintf(f->advice, sizeof(f->advice), "Spread q%u's descriptors%s%s%s%s over more "
		 "queues (%.0f each): each queue adds its own bandwidth until HBM's %.0f GB/s "
		 "is reached. Cut large descriptors in row blocks, give each queue its own "
		 "semaphore and let the consumer wait for all of them.", bq, *where ? " (" : "",
		 where, *where ? ")" : "", nq > 1 ? " and those of the other busy queues" : "",
		 k, m->hbm_bw / 1e9);
	what[0] = 0;
	if (c->r)
		ret = vnp_replay_spread(c->r, qmask, &after, what, sizeof(what));
	if (ret == -ENOMEM)
		return ret;
	if (ret && ret != -ENOTSUP)
		snprintf(what, sizeof(what), "the replay failed (%d)", ret);
	return vnp_gain(c, f, ret, after, what) ? (vnp_drop_last(c->a), 0) : 0;
}

static int rule_overhead(struct vnp_rctx *c)
{
	const struct vnp_metrics *m = c->m;
	struct vnp_finding *f;
	char t1[32], t2[32], t3[32], t4[32], where[512], what[160];
	uint64_t after = 0;
	unsigned int e;
	int ret;

	for (e = 0; e < VNEF_ENGINES; e++) {
		const struct vnp_unit *u = &m->unit[e];
		double F, V, b;

		if (!u->count || (double)u->fixed_ps < VNP_FIXED_FRAC * (double)u->instr_ps ||
		    (double)c->cp->stream_ps[e] < VNP_CP_FRAC * (double)c->cp->len_ps)
			continue;
		/* batch until the variable part is 8x the fixed cost of an instruction */
		F = (double)u->fixed_ps / (double)u->count;
		V = (double)(u->instr_ps - u->fixed_ps) / (double)u->count;
		b = V > 0 ? ceil(8 * F / V) : (double)u->count;
		if (b > (double)u->count / (double)c->nexec)
			b = (double)u->count / (double)c->nexec;
		if (b < 2)
			continue;
		f = vnp_add(c, VNP_RULE_INSTR_OVERHEAD,
			(double)c->cp->fixed_ps[e] * (1 - 1 / b), (double)u->fixed_ps /
			(double)m->core_ps);
		if (!f)
			return -ENOMEM;
		snprintf(f->title, sizeof(f->title), "%s spends %.0f%% of its time on fixed "
			 "per-instruction costs", vnp_engine_name(e),
			 vnp_pct(u->fixed_ps, u->instr_ps));
		cat(f->evidence, sizeof(f->evidence), "%llu instructions of %s on average, each "
		    "paying %s of fixed cost (%s in all, %s on the critical path).",
		    (unsigned long long)u->count,
		    vnp_fmt_time(u->instr_ps / u->count, t1, sizeof(t1)),
		    vnp_fmt_time((uint64_t)F, t2, sizeof(t2)),
		    vnp_fmt_time(u->fixed_ps, t3, sizeof(t3)),
		    vnp_fmt_time(c->cp->fixed_ps[e], t4, sizeof(t4)));
		vnp_where(c->tl, vnp_pred_stream, &e, where, sizeof(where));
		snprintf(f->advice, sizeof(f->advice), "Batch %s's work into fewer, larger "
			 "instructions%s%s%s: one instruction over a whole tile instead of one per "
			 "row or column; about %.0f of these per instruction would make the fixed "
			 "cost an eighth of the work.", vnp_engine_name(e), *where ? " (" : "",
			 where, *where ? ")" : "", b);
		what[0] = 0;
		ret = -ENOTSUP;
		if (c->r)
			ret = vnp_replay_batch(c->r, e, &after, what, sizeof(what));
		if (ret == -ENOMEM)
			return ret;
		if (ret && ret != -ENOTSUP)
			snprintf(what, sizeof(what), "the replay failed (%d)", ret);
		if (vnp_gain(c, f, ret, after, what))
			vnp_drop_last(c->a);
	}
	return 0;
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
	return vnp_gain(c, f, -ENOTSUP, 0, "reordering work is not a mechanical change") ?
	       (vnp_drop_last(c->a), 0) : 0;
}

/* Whether the unit behind a wait is the one the class says bounds the time. */
static int is_bound(const struct vnp_classification *cl, uint32_t root)
{
	if (root == VNP_NONE)
		return 0;
	if (cl->unit == VNP_BOUND_HBM)
		return root >= VNEF_ENGINES;
	return cl->cls != VNP_CLASS_LATENCY && root == cl->unit;
}

/*
 * Waits per engine, and for the DMA queues together. A waiter counts when its total wait
 * (for DMA: the most waiting queue's) exceeds VNP_SEM_WAIT_FRAC of total_time. Its
 * longest wait is followed back to the unit that was busy behind it: if that is the
 * unit the class names, the wait is a symptom of it and is folded into the class.
 */
static int sem_finding(struct vnp_rctx *c, unsigned int w0, unsigned int w1)
{
	const struct vnp_timeline *tl = c->tl;
	const struct vnp_metrics *m = c->m;
	uint64_t tot = 0, worst = 0, root_ps = 0, lw = 0;
	unsigned int w, s, i, wq = w0;
	size_t n;
	uint32_t root = VNP_NONE;
	char n1[32], n2[32], t1[32], t2[32], t3[32], where[160], who[32], rw[512];
	const struct vnp_ev *longest = NULL;
	struct vnp_finding *f;

	for (w = w0; w < w1; w++) {
		uint64_t qt = 0;

		for (s = 0; s <= VNEF_STREAMS; s++)
			qt += m->wait_ps[w][s];
		tot += qt;
		if (qt > worst) {
			worst = qt;
			wq = w;
		}
	}
	if ((double)worst <= VNP_SEM_WAIT_FRAC * (double)m->core_ps)
		return 0;
	for (i = 0; i < m->ntop_wait && !longest; i++) {
		const struct vnp_ev *e = &tl->ev[m->top_wait[i].ev];

		if (e->stream >= w0 && e->stream < w1) {
			longest = e;
			lw = m->top_wait[i].wait_ps;
		}
	}
	/* not among the profile's longest waits: look along the waiter's own tracks */
	for (w = w0; w < w1 && !longest; w++) {
		unsigned int k;

		for (k = 0; k < tl->ncores; k++) {
			unsigned int t = k * VNEF_STREAMS + w;
			size_t x;

			for (x = tl->track_off[t]; x < tl->track_off[t + 1]; x++) {
				uint64_t wt = vnp_ev_wait(tl, &tl->ev[x]);

				if (wt > lw) {
					lw = wt;
					longest = &tl->ev[x];
				}
			}
		}
	}
	if (longest)
		root = vnp_wait_root(tl, longest, &root_ps);
	if (w1 - w0 > 1)
		snprintf(who, sizeof(who), "DMA queues (most: %s)",
			 vnp_stream_name(wq, n1, sizeof(n1)));
	else
		vnp_stream_name(w0, who, sizeof(who));
	if (is_bound(&c->a->whole, root)) {
		cat(c->a->folded, sizeof(c->a->folded), "%s%s waits %.1f%% of the time, behind "
		    "%s, the bound unit", c->a->folded[0] ? "; " : "", who,
		    vnp_pct(worst, m->core_ps), vnp_stream_name(root, n2, sizeof(n2)));
		return 0;
	}
	/* waits behind one root are one finding: the others join the first */
	for (i = 0; i < c->a->n; i++) {
		f = &c->a->f[i];
		if (f->rule != VNP_RULE_SEM_WAIT || f->unit != root)
			continue;
		cat(f->evidence, sizeof(f->evidence), " %s waits %.1f%% of the time behind it "
		    "too (%s in all).", who, vnp_pct(worst, m->core_ps),
		    vnp_fmt_time(tot, t1, sizeof(t1)));
		/* "... leads to DMA q0 (also VectorE 59.2%, ScalarE 77.2%)" */
		n = strlen(f->title);
		if (n && f->title[n - 1] == ')' && strstr(f->title, " (also ")) {
			f->title[n - 1] = 0;
			cat(f->title, sizeof(f->title), ", %s %.1f%%)", who, vnp_pct(worst, m->core_ps));
		} else {
			cat(f->title, sizeof(f->title), " (also %s %.1f%%)", who,
			    vnp_pct(worst, m->core_ps));
		}
		if ((double)worst / (double)m->core_ps > f->share)
			f->share = (double)worst / (double)m->core_ps;
		return 0;
	}
	/* a symptom: what it saves is its root's, so it ranks after the root's finding */
	f = vnp_add(c, VNP_RULE_SEM_WAIT, 0, (double)worst / (double)m->core_ps);
	if (!f)
		return -ENOMEM;
	f->unit = root;
	snprintf(f->title, sizeof(f->title), "%s wait%s on semaphores %.1f%% of the time; "
		 "the chain behind the waits leads to %s", who, w1 - w0 > 1 ? "" : "s",
		 vnp_pct(worst, m->core_ps),
		 root != VNP_NONE ? vnp_stream_name(root, n2, sizeof(n2)) : "an unknown unit");
	cat(f->evidence, sizeof(f->evidence), "waited %s in total (> %.0f%% of total_time):",
	    vnp_fmt_time(tot, t1, sizeof(t1)), 100 * VNP_SEM_WAIT_FRAC);
	for (s = 0; s <= VNEF_STREAMS; s++) {
		uint64_t sum = 0;

		for (w = w0; w < w1; w++)
			sum += m->wait_ps[w][s];
		if (sum)
			cat(f->evidence, sizeof(f->evidence), " %s for %s;",
			    vnp_fmt_time(sum, t1, sizeof(t1)),
			    s < VNEF_STREAMS ? vnp_stream_name(s, n2, sizeof(n2)) : "?");
	}
	if (longest)
		cat(f->evidence, sizeof(f->evidence),
		    " the longest: %s %s %s %u%s waited %s from %s on semaphore %u, behind %s "
		    "of work on %s.", vnp_stream_name(longest->stream, n1, sizeof(n1)),
		    vnp_opcode_name(longest->opcode),
		    longest->opcode == VNP_OP_DMA ? "desc" : "pc", longest->pc,
		    ev_where(tl, longest, where, sizeof(where)),
		    vnp_fmt_time(lw, t1, sizeof(t1)),
		    vnp_fmt_time(longest->start - lw - m->t0, t2, sizeof(t2)), longest->sem_wait,
		    vnp_fmt_time(root_ps, t3, sizeof(t3)),
		    root != VNP_NONE ? vnp_stream_name(root, n2, sizeof(n2)) : "?");
	rw[0] = 0;
	if (root != VNP_NONE)
		vnp_where(tl, vnp_pred_stream, &root, rw, sizeof(rw));
	snprintf(f->advice, sizeof(f->advice),
		 "The waits are a symptom: shorten what %s does before it signals%s%s%s (a "
		 "smaller first tile, work split over more engines or queues), or give the "
		 "waiter independent work (another tile) and more buffers so it need not wait.",
		 root != VNP_NONE ? vnp_stream_name(root, n2, sizeof(n2)) : "the producer",
		 *rw ? " (" : "", rw, *rw ? ")" : "");
	snprintf(f->gain, sizeof(f->gain), "none of its own: a symptom, its saving is in the "
		 "finding about %s", root != VNP_NONE ? vnp_stream_name(root, n2, sizeof(n2)) :
		 "its producer");
	return 0;
}

static int rule_sem_wait(struct vnp_rctx *c)
{
	unsigned int e;
	int ret = 0;

	for (e = 0; e < VNEF_ENGINES && !ret; e++)
		ret = sem_finding(c, e, e + 1);
	return ret ?: sem_finding(c, VNEF_ENGINES, VNEF_STREAM_CC) ?:
	       sem_finding(c, VNEF_STREAM_CC, VNEF_STREAM_CC + 1);
}

static int cmp_finding(const void *x, const void *y)
{
	const struct vnp_finding *a = x, *b = y;

	if (a->saved_ps != b->saved_ps)
		return a->saved_ps > b->saved_ps ? -1 : 1;
	if (a->share != b->share)
		return a->share > b->share ? -1 : 1;
	return (int)a->rule - (int)b->rule;
}

/* "critical path: TensorE 80%, DMA q0 15%" for the class's why. */
static void cp_text(const struct vnp_critpath *cp, char *buf, size_t len)
{
	unsigned int s, k, shown = 0, used[VNEF_STREAMS] = { 0 };
	char n1[32];

	if (!cp->len_ps)
		return;
	vnp_cat(buf, len, "; critical path:");
	for (k = 0; k < 3; k++) {
		unsigned int best = VNEF_STREAMS;

		for (s = 0; s < VNEF_STREAMS; s++)
			if (!used[s] && cp->stream_ps[s] &&
			    (best == VNEF_STREAMS || cp->stream_ps[s] > cp->stream_ps[best]))
				best = s;
		if (best == VNEF_STREAMS)
			break;
		used[best] = 1;
		vnp_cat(buf, len, "%s %s %.0f%%", shown++ ? "," : "",
			vnp_stream_name(best, n1, sizeof(n1)),
			vnp_pct(cp->stream_ps[best], cp->len_ps));
		/* a collective's time on a path is partly its wait for another rank */
		if (best == VNEF_STREAM_CC && cp->cc_wait_ps)
			vnp_cat(buf, len, " (%.0f%% waiting for the last rank)",
				vnp_pct(cp->cc_wait_ps, cp->len_ps));
	}
}

int vnp_analyze_opts(const struct vnp_timeline *tl, const struct vnp_metrics *m,
		     struct vnp_analysis *a, unsigned int flags)
{
	struct vnp_rctx c = { .tl = tl, .m = m, .a = a, .nexec = m->nexec ? m->nexec : 1 };
	uint32_t i;
	int ret;

	memset(a, 0, sizeof(*a));
	c.cp = &a->cp;
	ret = vnp_critpath_compute(tl, &a->cp);
	if (ret)
		return ret;
	vnp_classify_whole(tl, m, &a->cp, &a->whole);
	cp_text(&a->cp, a->whole.why, sizeof(a->whole.why));
	if (a->whole.cls == VNP_CLASS_LATENCY && m->gap_hi > m->gap_lo) {
		char t1[32], t2[32], t3[32];

		cat(a->whole.why, sizeof(a->whole.why), "; longest idle stretch %s to %s (%s)",
		    vnp_fmt_time(m->gap_lo - m->t0, t1, sizeof(t1)),
		    vnp_fmt_time(m->gap_hi - m->t0, t2, sizeof(t2)),
		    vnp_fmt_time(m->gap_hi - m->gap_lo, t3, sizeof(t3)));
	}
	a->scope = calloc(m->nscopes + 1, sizeof(*a->scope));
	if (!a->scope) {
		vnp_analysis_free(a);
		return -ENOMEM;
	}
	for (i = 0; i <= m->nscopes; i++)
		vnp_classify_group(tl, m, &m->scope[i], &a->scope[i]);
	a->range = calloc(m->nranges + 1, sizeof(*a->range));
	if (!a->range) {
		vnp_analysis_free(a);
		return -ENOMEM;
	}
	for (i = 0; i <= m->nranges; i++)
		vnp_classify_group(tl, m, &m->range[i].self, &a->range[i]);
	a->range_scope = calloc(m->nrs ? m->nrs : 1, sizeof(*a->range_scope));
	if (!a->range_scope) {
		vnp_analysis_free(a);
		return -ENOMEM;
	}
	for (i = 0; i < m->nrs; i++)
		vnp_classify_group(tl, m, &m->rs[i].g, &a->range_scope[i]);
	if (!m->total_ps)
		return 0;
	/*
	 * a program that cannot be replayed (no image, refused) gets estimates; so does one
	 * with collectives: a replay runs one rank alone, whose collectives cost nothing
	 */
	if (!(flags & VNP_ANALYZE_NO_REPLAY) && tl->prog && tl->prog->owner && !m->ncoll &&
	    !tl->prog->ncc) {
		ret = vnp_replay_open(&c.r, tl->prog, &tl->model);
		if (ret == -ENOMEM)
			goto out;
		if (ret)
			c.r = NULL;
	}
	ret = rule_queue_bound(&c) ?: rule_small_dma(&c) ?: rule_overhead(&c) ?:
	      rule_engines(&c) ?: rule_dma_overlap(&c) ?: vnp_rule_repeated(&c) ?:
	      rule_tensor_idle(&c) ?: vnp_rule_transpose(&c) ?: vnp_rule_cc_straggler(&c) ?:
	      vnp_rule_cc_no_overlap(&c) ?: vnp_rule_cc_small(&c) ?: vnp_rule_cc_shard(&c) ?:
	      vnp_rule_node_straggler(&c) ?: vnp_rule_inter_node(&c) ?:
	      rule_sem_wait(&c) ?: vnp_rule_host_overhead(&c);
	if (a->folded[0])
		cat(a->whole.why, sizeof(a->whole.why), "; waits it explains: %s", a->folded);
out:
	vnp_replay_close(c.r);
	if (ret) {
		vnp_analysis_free(a);
		return ret;
	}
	for (i = 0; i < a->n; i++)
		a->f[i].impact = a->cp.len_ps ? a->f[i].saved_ps / (double)a->cp.len_ps : 0;
	if (a->n > 1)
		qsort(a->f, a->n, sizeof(*a->f), cmp_finding);
	return 0;
}

int vnp_analyze(const struct vnp_timeline *tl, const struct vnp_metrics *m,
		struct vnp_analysis *a)
{
	return vnp_analyze_opts(tl, m, a, 0);
}

void vnp_analysis_free(struct vnp_analysis *a)
{
	free(a->scope);
	free(a->range);
	free(a->range_scope);
	free(a->f);
	vnp_critpath_free(&a->cp);
	a->scope = NULL;
	a->range = NULL;
	a->range_scope = NULL;
	a->f = NULL;
	a->n = 0;
}
