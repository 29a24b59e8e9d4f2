// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The rules about collectives (docs/profiler.md): a rank the others wait for, transfers
 * that never overlap compute, many small collectives that pay the link latency each
 * time, and an all-reduce whose consumer reads only one rank's share of the result.
 * Their evidence comes from the collectives of the metrics (struct vnp_coll), the
 * critical path and, for the last, the program's collective stream and descriptors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"
#include "vn_comm.h"
#include "vn_isa.h"

#define cat vnp_cat

/* "pc 3 exec 0 (k.c:12 [grad/ar])" of a collective, into buf */
static const char *coll_name(const struct vnp_timeline *tl, const struct vnp_coll *x,
				 char *buf, size_t len)
{
	const struct vnp_loc *l = vnp_prog_loc(tl->prog, VNEF_STREAM_CC, x->pc);
	char src[256];

	snprintf(buf, len, "%s pc %u of exec %u", vn_cc_opcode_name(x->op), x->pc, x->round);
	if (l && l->line != VNP_NONE)
		cat(buf, len, " at %s", vnp_prog_line(tl->prog, l->line, src, sizeof(src)));
	if (l && l->scope != VNP_NONE)
		cat(buf, len, " [%s]", vnp_prog_scope(tl->prog, l->scope));
	return buf;
}

/* vnp_where() predicate: collectives of the opcode *arg (all with VNP_NONE). */
static int pred_cc(const struct vnp_timeline *tl, const struct vnp_ev *e, const void *arg)
{
	uint32_t op = *(const uint32_t *)arg;

	return vnp_ev_is_cc(e) && vnp_cc_op(e) != VNEF_CC_NOP &&
	       (op == VNP_NONE || vnp_cc_op(e) == op);
}

/* The compute of a rank: the engines' union on each core that ran as that rank. */
static uint64_t rank_compute(const struct vnp_timeline *tl, const struct vnp_metrics *m,
			     unsigned int rank)
{
	uint64_t sum = 0;
	unsigned int k;

	for (k = 0; k < tl->ncores && k < VNP_MAX_CORES; k++)
		if (tl->cc_rank[k] == rank)
			sum += m->core_compute_ps[k];
	return sum;
}

/*
 * One rank arrives last at most collectives and the others wait for it: its work before
 * them is longer (or it starts later). Balancing the work removes the waits behind it
 * from the critical path.
 */
static int rule_cc_straggler(struct vnp_rctx *c)
{
	const struct vnp_timeline *tl = c->tl;
	const struct vnp_metrics *m = c->m;
	unsigned int r, best = 0, others = 0;
	uint64_t other_compute = 0, mine;
	const struct vnp_coll *worst = NULL;
	struct vnp_finding *f;
	char t1[32], t2[32], t3[32], name[320];
	uint32_t i;

	if (!m->ncoll || !m->core_ps ||
	    (double)m->cc_wait_ps < VNP_CC_WAIT_FRAC * (double)m->core_ps)
		return 0;
	for (r = 1; r < m->cc_nranks; r++)
		if (m->cc_rank[r].caused_ps > m->cc_rank[best].caused_ps)
			best = r;
	if ((double)m->cc_rank[best].caused_ps < VNP_CC_STRAGGLER_SHARE * (double)m->cc_wait_ps)
		return 0;
	for (i = 0; i < m->ncoll; i++)
		if (m->coll[i].last_rank == best && m->coll[i].last_arrival >
		    m->coll[i].first_arrival && (!worst || m->coll[i].wait_ps > worst->wait_ps))
			worst = &m->coll[i];
	for (r = 0; r < m->cc_nranks; r++) {
		if (r == best || !m->cc_rank[r].count)
			continue;
		other_compute += rank_compute(tl, m, r);
		others++;
	}
	mine = rank_compute(tl, m, best);
	f = vnp_add(c, VNP_RULE_CC_STRAGGLER, (double)c->cp->cc_wait_rank[best],
		    (double)m->cc_rank[best].caused_ps / (double)m->core_ps);
	if (!f)
		return -ENOMEM;
	snprintf(f->title, sizeof(f->title), "Rank %u arrives last at %llu of %u collectives: "
		 "the other ranks wait %.1f%% of the time for it", best,
		 (unsigned long long)m->cc_rank[best].last, m->ncoll,
		 vnp_pct(m->cc_rank[best].caused_ps, m->core_ps));
	cat(f->evidence, sizeof(f->evidence), "rank %u was the last to arrive at %llu "
	    "collectives, on average %s after the first rank; the others waited %s for it "
	    "there (all waits at collectives: %s, %.1f%% of core time, > %.0f%%).", best,
	    (unsigned long long)m->cc_rank[best].last,
	    vnp_fmt_time(m->cc_rank[best].late_ps / (m->cc_rank[best].last ?
			 m->cc_rank[best].last : 1), t1, sizeof(t1)),
	    vnp_fmt_time(m->cc_rank[best].caused_ps, t2, sizeof(t2)),
	    vnp_fmt_time(m->cc_wait_ps, t3, sizeof(t3)), vnp_pct(m->cc_wait_ps, m->core_ps),
	    100 * VNP_CC_WAIT_FRAC);
	if (worst)
		cat(f->evidence, sizeof(f->evidence), " The longest: %s, rank %u %s late, %u "
		    "ranks waiting %s in all.", coll_name(tl, worst, name, sizeof(name)),
		    best, vnp_fmt_time(worst->last_arrival - worst->first_arrival, t1,
				       sizeof(t1)), worst->members - 1u,
		    vnp_fmt_time(worst->wait_ps, t2, sizeof(t2)));
	if (others)
		cat(f->evidence, sizeof(f->evidence), " Rank %u's engines computed %s, the other "
		    "ranks' %s on average.", best, vnp_fmt_time(mine, t1, sizeof(t1)),
		    vnp_fmt_time(other_compute / others, t2, sizeof(t2)));
	cat(f->evidence, sizeof(f->evidence), " On the critical paths: %s of waits for "
	    "rank %u.", vnp_fmt_time(c->cp->cc_wait_rank[best], t1, sizeof(t1)), best);
	if (mine > (others ? other_compute / others : 0))
		snprintf(name, sizeof(name), "rank %u computes more than the others before its "
			 "collectives: give it a smaller share of the work (of the batch, the rows "
			 "or the layers), or move the work only it does elsewhere", best);
	else
		snprintf(name, sizeof(name), "rank %u does not compute more than the others, so "
			 "look at what only it waits for before its collectives (its inputs, its "
			 "DMA, its semaphore waits)", best);
	snprintf(f->advice, sizeof(f->advice), "Balance the ranks so that they reach each "
		 "collective together: %s; the others' waits for it (%s) then leave their "
		 "critical paths.", name, vnp_fmt_time(m->cc_rank[best].caused_ps, t1, sizeof(t1)));
	return vnp_settle(c, f, -ENOTSUP, 0, "rebalancing work is not a mechanical change");
}

/*
 * Collectives whose transfers never run while an engine computes on the same core:
 * communication and compute take turns. Buckets started as their data is ready, and
 * independent work meanwhile, hide the shorter behind the longer.
 */
static int rule_cc_no_overlap(struct vnp_rctx *c)
{
	const struct vnp_metrics *m = c->m;
	uint64_t xf = m->cc_xfer_ps, small = xf < m->compute_ps ? xf : m->compute_ps;
	uint64_t cpx = c->cp->unit_ps[VNP_UNIT_CC], cpc = 0;
	struct vnp_finding *f;
	char t1[32], t2[32], t3[32], where[320];
	uint32_t any = VNP_NONE;
	unsigned int u;

	if (!m->ncoll || !small || (double)m->cc_overlap_ps > VNP_OVERLAP_FRAC * (double)small ||
	    (double)cpx < VNP_CP_FRAC * (double)c->cp->len_ps)
		return 0;
	for (u = 0; u < VNEF_ENGINES; u++)
		cpc += c->cp->unit_ps[u];
	f = vnp_add(c, VNP_RULE_CC_NO_OVERLAP, (double)(cpx < cpc ? cpx : cpc),
		    (double)small / (double)m->core_ps);
	if (!f)
		return -ENOMEM;
	snprintf(f->title, sizeof(f->title), "Collectives never overlap compute: the "
		 "engines wait while data moves");
	cat(f->evidence, sizeof(f->evidence), "%u collectives transfer for %s (summed over the ranks), "
	    "the engines compute for %s; both at once on a core: %s (<= %.0f%% of the "
	    "smaller). On the critical paths: transfers %s, compute %s.", m->ncoll,
	    vnp_fmt_time(xf, t1, sizeof(t1)), vnp_fmt_time(m->compute_ps, t2, sizeof(t2)),
	    vnp_fmt_time(m->cc_overlap_ps, t3, sizeof(t3)), 100 * VNP_OVERLAP_FRAC,
	    vnp_fmt_time(cpx, t1, sizeof(t1)), vnp_fmt_time(cpc, t2, sizeof(t2)));
	vnp_where(c->tl, pred_cc, &any, where, sizeof(where));
	snprintf(f->advice, sizeof(f->advice), "Overlap communication with compute%s%s%s: "
		 "the CC-core is an engine of its own, so start each collective as soon as "
		 "its data is ready (split a large one into buckets, each signalled when its "
		 "part is computed) and give the engines work that does not need its result "
		 "(the next layer or micro-batch) instead of waiting for it. At best the "
		 "shorter of transfers and compute on the critical path, %s, hides behind the "
		 "longer.", *where ? " (" : "", where, *where ? ")" : "",
		 vnp_fmt_time(cpx < cpc ? cpx : cpc, t3, sizeof(t3)));
	return vnp_settle(c, f, -ENOTSUP, 0, "pipelining is not a mechanical change");
}

/* Ring steps of an op on n ranks (docs/isa.md, "Collectives"). */
static unsigned int cc_steps(unsigned int op, unsigned int n)
{
	if (n < 2)
		return 0;
	switch (op) {
	case VNEF_CC_ALL_REDUCE:
		return 2 * (n - 1);
	case VNEF_CC_ALL_GATHER:
	case VNEF_CC_REDUCE_SCATTER:
	case VNEF_CC_ALL_TO_ALL:
		return n - 1;
	case VNEF_CC_PERMUTE:
		return 1;
	default:
		return 0;
	}
}

/*
 * The part of a collective's transfer that is link latency: each ring step pays at least
 * the lower of the model's two hop latencies (core/comm.c), whatever it moves.
 */
static uint64_t cc_latency(const struct vneuron_model *m)
{
	struct vn_cc_link intra, inter;

	vn_cc_links_of(m, &intra, &inter);
	return intra.latency_ps < inter.latency_ps ? intra.latency_ps : inter.latency_ps;
}

static uint64_t cc_fixed(const struct vneuron_model *m, unsigned int op, unsigned int n,
			 uint64_t xfer)
{
	uint64_t lat = cc_latency(m);
	uint64_t fx = (uint64_t)cc_steps(op, n) * lat;

	return fx < xfer ? fx : xfer;
}

/*
 * Many small collectives of one kind an execution, each paying the link latency of
 * every ring step: fused into buckets, the latency is paid once per bucket.
 */
static int rule_cc_small(struct vnp_rctx *c)
{
	const struct vnp_timeline *tl = c->tl;
	const struct vnp_metrics *m = c->m;
	uint64_t fixed[VNEF_CC_OP_COUNT] = { 0 }, cpfix[VNEF_CC_OP_COUNT] = { 0 };
	uint64_t cpx[VNEF_CC_OP_COUNT] = { 0 }, rounds = 0;
	struct vnp_finding *f;
	char t1[32], t2[32], t3[32], t4[32], b1[32], where[320];
	uint32_t i, op;

	if (!m->ncoll)
		return 0;
	for (i = 0; i < m->ncoll; i++) {
		const struct vnp_coll *x = &m->coll[i];

		fixed[x->op] += cc_fixed(&tl->model, x->op, x->members, x->end - x->last_arrival);
		if (x->round + 1ull > rounds)
			rounds = x->round + 1ull;
	}
	for (i = 0; i < c->cp->nev; i++) {
		const struct vnp_ev e_copy = vnp_tl_ev(tl, c->cp->ev[i]), *e = &e_copy;

		if (!vnp_ev_is_cc(e) || vnp_cc_op(e) >= VNEF_CC_OP_COUNT)
			continue;
		cpx[vnp_cc_op(e)] += vnp_cc_xfer(e);
		cpfix[vnp_cc_op(e)] += cc_fixed(&tl->model, vnp_cc_op(e), vnp_cc_members(e),
						vnp_cc_xfer(e));
	}
	for (op = 1; op < VNEF_CC_OP_COUNT; op++) {
		const struct vnp_cc_op *o = &m->cc_op[op];
		double k = (double)o->count / (double)rounds;

		if (k < VNP_CC_SMALL_COUNT || !o->time_ps ||
		    (double)fixed[op] < VNP_CC_FIXED_FRAC * (double)o->time_ps ||
		    (double)cpx[op] < VNP_CP_FRAC * (double)c->cp->len_ps)
			continue;
		f = vnp_add(c, VNP_RULE_CC_SMALL, (double)cpfix[op] * (1 - 1 / k),
			    (double)fixed[op] / (double)m->core_ps);
		if (!f)
			return -ENOMEM;
		snprintf(f->title, sizeof(f->title), "%.0f small %s collectives an execution "
			 "spend %.0f%% of their time on link latency", k, vn_cc_opcode_name(op),
			 vnp_pct(fixed[op], o->time_ps));
		cat(f->evidence, sizeof(f->evidence), "%llu %s of %s on average (%.0f an "
		    "execution) transfer for %s, busbw %.2f GB/s; each ring step pays at least "
		    "%s of link latency whatever it moves, %s of their time (%s on the %u ranks' "
		    "critical paths).", (unsigned long long)o->count, vn_cc_opcode_name(op),
		    vnp_fmt_bytes((double)o->bytes / (double)o->count, b1, sizeof(b1)), k,
		    vnp_fmt_time(o->time_ps, t1, sizeof(t1)),
		    o->bus_bytes / ((double)o->time_ps * 1e-12) / 1e9,
		    vnp_fmt_time(cc_latency(&tl->model), t2, sizeof(t2)),
		    vnp_fmt_time(fixed[op], t3, sizeof(t3)),
		    vnp_fmt_time(cpfix[op], t4, sizeof(t4)), m->cc_nranks);
		vnp_where(tl, pred_cc, &op, where, sizeof(where));
		snprintf(f->advice, sizeof(f->advice), "Fuse them%s%s%s: put the tensors in "
			 "one buffer (buckets of several MiB, as data-parallel training does with "
			 "gradients) and run one %s per bucket; the latency is then paid once per "
			 "bucket instead of once per tensor, about %.0f times less.",
			 *where ? " (" : "", where, *where ? ")" : "", vn_cc_opcode_name(op), k);
		if (vnp_gain(c, f, -ENOTSUP, 0, "fusing collectives is not a mechanical change"))
			vnp_drop_last(c->a);
	}
	return 0;
}

/* [lo, hi) bytes of tensor t read by a descriptor's source, if it reads t. */
static int desc_reads(const struct vnef_dma_desc *d, uint32_t t, uint64_t *lo, uint64_t *hi)
{
	if (d->src.mem != VNEF_MEM_HBM || d->src.tensor != t || !d->count[0] || !d->count[1])
		return 0;
	*lo = d->src.offset;
	*hi = d->src.offset + (uint64_t)(d->count[1] - 1) * d->src.stride[1] +
	      (uint64_t)(d->count[0] - 1) * d->src.stride[0] + d->chunk_bytes;
	return 1;
}

struct span {
	uint64_t lo, hi;
};

static int cmp_span(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return vnp_cmp(a->lo, b->lo) ?: vnp_cmp(a->hi, b->hi);
}

/*
 * The bytes of [lo, hi) of tensor t that the program reads after writing them: by DMA
 * descriptors (engines read on-chip memory only) and by other collectives' inputs. Their
 * union's length, and in *nread the entries that read it; -ENOMEM.
 */
static int64_t bytes_read(const struct vnp_prog *p, uint32_t t, uint64_t lo, uint64_t hi,
			  uint32_t self, unsigned int *nread)
{
	struct span *v = NULL, *nv;
	size_t n = 0, cap = 0, i;
	uint64_t a, b, cur = 0, sum = 0;
	unsigned int q;
	uint32_t k;

	*nread = 0;
	for (q = 0; q <= VNEF_DMA_QUEUES; q++) {
		uint32_t cnt = q < VNEF_DMA_QUEUES ? p->ndesc[q] : p->ncc;

		for (k = 0; k < cnt; k++) {
			if (q < VNEF_DMA_QUEUES) {
				if (!p->desc[q] || !desc_reads(&p->desc[q][k], t, &a, &b))
					continue;
			} else {
				const struct vnef_cc_instr *x = &p->cc[k];
				uint32_t es = vn_dtype_bytes(x->dtype);

				if (k == self || x->opcode == VNEF_CC_NOP || x->src_tensor != t)
					continue;
				a = x->src_offset;
				b = a + x->count * es;
			}
			if (b <= lo || a >= hi)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv) {
					free(v);
					return -ENOMEM;
				}
				v = nv;
			}
			v[n++] = (struct span){ a > lo ? a : lo, b < hi ? b : hi };
			(*nread)++;
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_span);
	for (i = 0; i < n; i++) {
		if (v[i].lo >= cur) {
			sum += v[i].hi - v[i].lo;
		} else if (v[i].hi > cur) {
			sum += v[i].hi - cur;
		}
		if (v[i].hi > cur)
			cur = v[i].hi;
	}
	free(v);
	return (int64_t)sum;
}

/*
 * An all-reduce whose result is read only over a 1/n share (n its group): a
 * reduce-scatter gives each rank its share in n - 1 ring steps instead of 2(n - 1), and
 * an all-gather can follow later if the whole result is needed after all. Evidence: the
 * program's descriptors and collectives that read the all-reduce's output range cover
 * at most out_bytes / n of it (scratch outputs only: the host may read an output
 * tensor whole).
 */
static int rule_cc_shard(struct vnp_rctx *c)
{
	const struct vnp_timeline *tl = c->tl;
	const struct vnp_prog *p = tl->prog;
	const struct vnp_metrics *m = c->m;
	struct vnp_finding *f;
	char t1[32], t2[32], b1[32], b2[32], name[320];
	uint32_t pc, i;

	if (!p || !p->cc || !m->ncoll)
		return 0;
	for (pc = 0; pc < p->ncc; pc++) {
		const struct vnef_cc_instr *x = &p->cc[pc];
		uint64_t out, xfer = 0, cpx = 0, n = 0;
		const struct vnp_coll *first = NULL;
		unsigned int nread, members = 0;
		int64_t rd;
		size_t k;

		if (x->opcode != VNEF_CC_ALL_REDUCE || x->dst_tensor >= p->ntensors ||
		    !p->tensors || p->tensors[x->dst_tensor].kind != VNEF_TENSOR_SCRATCH)
			continue;
		for (i = 0; i < m->ncoll; i++) {
			if (m->coll[i].pc != pc || m->coll[i].op != VNEF_CC_ALL_REDUCE)
				continue;
			if (!first)
				first = &m->coll[i];
			members = m->coll[i].members > members ? m->coll[i].members : members;
			xfer += m->coll[i].end - m->coll[i].last_arrival;
			n++;
		}
		if (!first || members < 2)
			continue;
		out = x->count * vn_dtype_bytes(x->dtype);
		rd = bytes_read(p, x->dst_tensor, x->dst_offset, x->dst_offset + out, pc, &nread);
		if (rd < 0)
			return (int)rd;
		if (!rd || (uint64_t)rd * members > out)
			continue;
		for (k = 0; k < c->cp->nev; k++) {
			const struct vnp_ev e_copy = vnp_tl_ev(tl, c->cp->ev[k]), *e = &e_copy;

			if (vnp_ev_is_cc(e) && e->pc == pc)
				cpx += vnp_cc_xfer(e);
		}
		/* the reduce-scatter is n - 1 of the all-reduce's 2(n - 1) steps */
		f = vnp_add(c, VNP_RULE_CC_SPLIT, (double)cpx / 2,
			    (double)xfer * members / 2 / (double)m->core_ps);
		if (!f)
			return -ENOMEM;
		snprintf(f->title, sizeof(f->title), "An ALL_REDUCE of %s whose result is read "
			 "only over a 1/%u share: a REDUCE_SCATTER would do",
			 vnp_fmt_bytes((double)out, b1, sizeof(b1)), members);
		cat(f->evidence, sizeof(f->evidence), "%s reduces %s over %u ranks (%llu times, "
		    "transfers %s); afterwards %u entr%s of the program read%s %s of its "
		    "result in HBM tensor %u, at most 1/%u of it. On the critical paths its "
		    "transfers take %s.", coll_name(tl, first, name, sizeof(name)),
		    vnp_fmt_bytes((double)out, b1, sizeof(b1)), members,
		    (unsigned long long)n, vnp_fmt_time(xfer, t1, sizeof(t1)), nread,
		    nread == 1 ? "y" : "ies", nread == 1 ? "s" : "", vnp_fmt_bytes((double)rd, b2,
										 sizeof(b2)),
		    x->dst_tensor, members, vnp_fmt_time(cpx, t2, sizeof(t2)));
		snprintf(f->advice, sizeof(f->advice), "Replace the all-reduce by a "
			 "reduce-scatter (each rank gets its 1/%u share of the reduction, in %u "
			 "ring steps instead of %u) and have each rank read its own share; if the "
			 "whole result is needed later, all-gather it there, where it can overlap "
			 "other work (the split all-reduce, as sharded optimizers do).", members,
			 members - 1, 2 * (members - 1));
		if (vnp_gain(c, f, -ENOTSUP, 0, "changing the collective is not a mechanical "
			     "change"))
			vnp_drop_last(c->a);
	}
	return 0;
}

VNP_RULE_DEF(straggler_rank, CC_STRAGGLER, "straggler-rank", rule_cc_straggler,
	     "the collectives' last rank and the others' waits for it, its engines' "
	     "compute against the others', the waits on the critical paths",
	     VNP_THR(VNP_CC_WAIT_FRAC) VNP_THR(VNP_CC_STRAGGLER_SHARE));

VNP_RULE_DEF(collective_no_overlap, CC_NO_OVERLAP, "collective-no-overlap", rule_cc_no_overlap,
	     "the collectives' transfers, the engines' compute, their overlap, both on "
	     "the critical paths",
	     VNP_THR(VNP_OVERLAP_FRAC) VNP_THR(VNP_CP_FRAC));

VNP_RULE_DEF(small_collectives, CC_SMALL, "small-collectives", rule_cc_small,
	     "the collectives per opcode and execution, the link latency of their ring "
	     "steps, their transfers on the critical paths",
	     VNP_THR(VNP_CC_SMALL_COUNT) VNP_THR(VNP_CC_FIXED_FRAC) VNP_THR(VNP_CP_FRAC));

VNP_RULE_DEF(all_reduce_split, CC_SPLIT, "all-reduce-split", rule_cc_shard,
	     "each ALL_REDUCE into a scratch tensor and the program's reads of its "
	     "result (descriptors, other collectives' inputs), its transfers on the "
	     "critical paths");
