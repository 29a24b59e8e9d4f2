// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The rules about fixed per-entry costs and queues (docs/profiler.md, "Analysis and
 * advice"): descriptors too small for their fixed cost (merge, replayed), a DMA queue
 * that bounds the time while HBM idles (spread, replayed), and engines spending their
 * time on instructions too small for their fixed cost (batch, replayed).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"
#include "replay.h"
#include "vn_isa.h"

#define cat vnp_cat

/* Descriptors whose fixed cost is at least half their time. */
static int pred_small(const struct vnp_timeline *tl, const struct vnp_ev *e, const void *arg)
{
	return e->opcode == VNP_OP_DMA && 2 * vnp_ev_fixed(tl, e) >= e->end - e->start;
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
	return vnp_settle(c, f, ret, after, what);
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
	f->unit = sid;
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
	return vnp_settle(c, f, ret, after, what);
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
		f->unit = e;
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
		ret = vnp_settle(c, f, ret, after, what);
		if (ret)
			return ret;
	}
	return 0;
}

VNP_RULE_DEF(small_dma, SMALL_DMA, "small-dma", rule_small_dma,
	     "the descriptors' fixed time, DMA's share of the critical path and busy "
	     "time",
	     VNP_THR(VNP_SMALL_DMA_FRAC) VNP_THR(VNP_CP_FRAC) VNP_THR(VNP_SATURATED_FRAC));

VNP_RULE_DEF(dma_queue_bound, DMA_QUEUE_BOUND, "dma-queue-bound", rule_queue_bound,
	     "each queue's busy and fixed time, HBM's use, the queues left empty, the "
	     "queue's critical-path time",
	     VNP_THR(VNP_QUEUE_BUSY_FRAC) VNP_THR(VNP_SATURATED_FRAC) VNP_THR(VNP_FIXED_FRAC)
	     VNP_THR(VNP_CP_FRAC));

VNP_RULE_DEF(instruction_overhead, INSTR_OVERHEAD, "instruction-overhead", rule_overhead,
	     "each engine's fixed time and its share of the critical path",
	     VNP_THR(VNP_FIXED_FRAC) VNP_THR(VNP_CP_FRAC));
