// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The rules about what data is moved and how (docs/profiler.md): HBM data loaded more
 * than twice, and transposes on TensorE with the PSUM copies they cause.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"
#include "replay.h"
#include "vn_isa.h"

#define cat vnp_cat

/* One HBM source range of a descriptor and how often it ran per execution. */
struct range_use {
	uint32_t tensor, queue, desc;
	uint64_t lo, hi;
	uint64_t hits;
	uint64_t cp_ps;			/* its time on the critical path */
};

static int cmp_range(const void *x, const void *y)
{
	const struct range_use *a = x, *b = y;

	return vnp_cmp(a->tensor, b->tensor) ?: vnp_cmp(a->lo, b->lo) ?: vnp_cmp(a->hi, b->hi);
}

static uint64_t ep_hi(const struct vnef_dma_desc *d)
{
	return d->src.offset + (uint64_t)(d->count[1] - 1) * d->src.stride[1] +
	       (uint64_t)(d->count[0] - 1) * d->src.stride[0] + d->chunk_bytes;
}

/* A range's start (+hits) or end (-hits), for the sweep. */
struct edge {
	uint64_t pos;
	int64_t d;
};

static int cmp_edge(const void *x, const void *y)
{
	const struct edge *a = x, *b = y;

	/* at one position ends before starts: [a, b) and [b, c) never overlap */
	return vnp_cmp(a->pos, b->pos) ?: (a->d < b->d ? -1 : a->d > b->d);
}

/*
 * For the ranges [i, j) of one tensor: the most times any byte is read (in hits, all
 * executions) and the first byte range read that often, by one sweep over the sorted
 * range ends. Ranges that overlap without being equal count too: a tensor re-read in
 * other splits is found. e has room for 2 (j - i) edges.
 */
static uint64_t max_depth(const struct range_use *r, size_t i, size_t j, struct edge *e,
			  uint64_t *lo, uint64_t *hi)
{
	int64_t depth = 0, best = 0;
	size_t n = 0, k;

	for (k = i; k < j; k++) {
		if (!r[k].hits || r[k].hi <= r[k].lo)
			continue;
		e[n++] = (struct edge){ r[k].lo, (int64_t)r[k].hits };
		e[n++] = (struct edge){ r[k].hi, -(int64_t)r[k].hits };
	}
	qsort(e, n, sizeof(*e), cmp_edge);
	for (k = 0; k < n; k++) {
		depth += e[k].d;
		if (depth > best && k + 1 < n) {
			best = depth;
			*lo = e[k].pos;
			*hi = e[k + 1].pos;
		}
	}
	return (uint64_t)best;
}

/* Descriptors reading HBM tensor *arg. */
static int pred_reads(const struct vnp_timeline *tl, const struct vnp_ev *e, const void *arg)
{
	const struct vnef_dma_desc *d;

	if (e->opcode != VNP_OP_DMA)
		return 0;
	d = vnp_prog_desc(tl->prog, e->stream - VNEF_ENGINES, e->pc);
	return d && d->src.mem == VNEF_MEM_HBM && d->src.tensor == *(const uint32_t *)arg;
}

static int rule_repeated(struct vnp_rctx *c)
{
	const struct vnp_timeline *tl = c->tl;
	const struct vnp_prog *p = tl->prog;
	struct range_use *r;
	struct edge *edges;
	size_t nr = 0, i, j, total = 0, nbad = 0;
	struct vnp_finding *f = NULL;
	unsigned int q, k;
	char b1[32], where[320], what[160];
	uint32_t worst_t = 0;
	uint64_t after = 0;
	double worst = 0;
	int ret;

	if (!p)
		return 0;
	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		total += p->ndesc[q];
	if (!total)
		return 0;
	r = calloc(total, sizeof(*r));
	edges = calloc(2 * total, sizeof(*edges));
	if (!r || !edges) {
		free(r);
		free(edges);
		return -ENOMEM;
	}
	for (q = 0; q < VNEF_DMA_QUEUES; q++) {
		size_t base = nr;

		for (i = 0; i < p->ndesc[q]; i++) {
			const struct vnef_dma_desc *d = &p->desc[q][i];

			r[nr + i] = (struct range_use){ .tensor = VNP_NONE, .queue = q,
							.desc = (uint32_t)i };
			if (d->src.mem != VNEF_MEM_HBM)
				continue;
			r[nr + i].tensor = d->src.tensor;
			r[nr + i].lo = d->src.offset;
			r[nr + i].hi = ep_hi(d);
		}
		nr += p->ndesc[q];
		for (k = 0; k < tl->ncores; k++) {
			unsigned int t = k * VNEF_STREAMS + VNEF_STREAM_DMA(q);

			for (j = tl->track_off[t]; j < tl->track_off[t + 1]; j++) {
				uint32_t pc = vnp_tl_shape(tl, j)->pc;

				if (pc >= p->ndesc[q])
					continue;
				r[base + pc].hits++;
				if (c->cp->on && c->cp->on[j])
					r[base + pc].cp_ps += vnp_tl_dur(tl, j);
			}
		}
	}
	qsort(r, nr, sizeof(*r), cmp_range);
	for (i = 0; i < nr; i = j) {
		uint64_t lo = 0, hi = 0, depth, cpt = 0;
		double times;

		for (j = i; j < nr && r[j].tensor == r[i].tensor; j++)
			cpt += r[j].cp_ps;
		if (r[i].tensor == VNP_NONE)
			continue;
		depth = max_depth(r, i, j, edges, &lo, &hi);
		times = (double)depth / (double)c->nexec;
		if (times <= VNP_REPEAT_LOADS)
			continue;
		if (!f) {
			f = vnp_add(c, VNP_RULE_REPEATED_LOAD, 0, 0);
			if (!f) {
				free(r);
				free(edges);
				return -ENOMEM;
			}
			snprintf(f->title, sizeof(f->title),
				 "The same HBM data is loaded more than %d times per execution",
				 VNP_REPEAT_LOADS);
		}
		/* loading it once, the other reads of it go */
		f->saved_ps += (double)cpt * (1 - 1 / times);
		f->share += times;
		if (times > worst) {
			worst = times;
			worst_t = r[i].tensor;
		}
		if (++nbad <= 5) {
			const char *tn = r[i].tensor < p->ntensors ?
					 vnp_prog_str(p, p->tensors[r[i].tensor].name_off) : "?";
			unsigned int shown = 0;

			cat(f->evidence, sizeof(f->evidence),
			    "%s bytes [%llu, %llu) (%s) read %.1f times per execution by", tn,
			    (unsigned long long)lo, (unsigned long long)hi,
			    vnp_fmt_bytes((double)(hi - lo), b1, sizeof(b1)), times);
			for (k = (unsigned int)i; k < j; k++)
				if (r[k].lo <= lo && r[k].hi > lo && r[k].hits && shown++ < 4)
					cat(f->evidence, sizeof(f->evidence), " q%u#%u", r[k].queue,
					    r[k].desc);
			cat(f->evidence, sizeof(f->evidence), "%s; ", shown > 4 ? " ..." : "");
		}
	}
	free(r);
	free(edges);
	if (!f)
		return 0;
	if (nbad > 5)
		cat(f->evidence, sizeof(f->evidence), "and %zu more tensors.", nbad - 5);
	vnp_where(tl, pred_reads, &worst_t, where, sizeof(where));
	snprintf(f->advice, sizeof(f->advice),
		 "Keep data that is reused in SBUF instead of reloading it: load each tile "
		 "once and reorder the loops so the reused operand stays resident (e.g. the "
		 "stationary weights once per tile row).");
	if (*where)
		cat(f->advice, sizeof(f->advice), " The reads of %s are at %s.",
		    vnp_prog_str(p, p->tensors[worst_t].name_off), where);
	what[0] = 0;
	ret = -ENOTSUP;
	if (c->r)
		ret = vnp_replay_dedup(c->r, &after, what, sizeof(what));
	if (ret == -ENOMEM)
		return ret;
	if (ret && ret != -ENOTSUP)
		snprintf(what, sizeof(what), "the replay failed (%d)", ret);
	return vnp_settle(c, f, ret, after, what);
}

/* A transpose's PSUM output that some other engine copies out: the copy is its cost too. */
struct tp_out {
	uint32_t part, nparts;
	uint64_t lo, hi;
};

struct tp_set {
	struct tp_out *o;
	size_t n;
};

static int pred_transpose(const struct vnp_timeline *tl, const struct vnp_ev *e,
			  const void *arg)
{
	const struct tp_set *s = arg;
	const struct vnef_instr *in;
	size_t i;

	if (e->opcode == VNP_OP_DMA)
		return 0;
	if (e->stream == 0)
		return e->opcode == VNEF_OP_TRANSPOSE;
	in = vnp_prog_instr(tl->prog, e->stream, e->pc);
	if (!in || in->src0.mem != VNEF_MEM_PSUM)
		return 0;
	for (i = 0; i < s->n; i++)
		if (in->src0.start_partition < s->o[i].part + s->o[i].nparts &&
		    s->o[i].part < in->src0.start_partition + in->src0.partitions &&
		    in->src0.offset < s->o[i].hi && s->o[i].lo <= in->src0.offset)
			return 1;
	return 0;
}

static uint64_t ap_span(const struct vnef_ap *a)
{
	return ((uint64_t)a->count[0] * a->count[1]) * vn_dtype_bytes(a->dtype);
}

static int rule_transpose(struct vnp_rctx *c)
{
	const struct vnp_timeline *tl = c->tl;
	const struct vnp_metrics *m = c->m;
	const struct vnp_prog *p = tl->prog;
	struct tp_set set = { 0 };
	uint64_t cpt = 0, ncopy = 0, copy_ps = 0, bytes = 0, dma_ps;
	struct vnp_finding *f;
	char t1[32], t2[32], t3[32], where[256];
	double qbw;
	size_t i;

	if (!m->hw_flops ||
	    (double)m->transpose_flops <= VNP_TRANSPOSE_FRAC * (double)m->hw_flops)
		return 0;
	if (p && p->ninstr[0]) {
		set.o = calloc(p->ninstr[0], sizeof(*set.o));
		if (!set.o)
			return -ENOMEM;
		for (i = 0; i < p->ninstr[0]; i++) {
			const struct vnef_instr *in = &p->instr[0][i];

			if (in->opcode != VNEF_OP_TRANSPOSE)
				continue;
			set.o[set.n++] = (struct tp_out){ .part = in->dst.start_partition,
				.nparts = in->dst.partitions, .lo = in->dst.offset,
				.hi = in->dst.offset + ap_span(&in->dst) };
			bytes += ap_span(&in->src0) * in->src0.partitions;
		}
	}
	for (i = 0; i < tl->n; i++) {
		const struct vnp_ev e_copy = vnp_tl_ev(tl, i), *e = &e_copy;

		if (!pred_transpose(tl, e, &set))
			continue;
		if (e->stream) {
			ncopy++;
			copy_ps += e->end - e->start;
		}
		if (c->cp->on && c->cp->on[i])
			cpt += e->end - e->start;
	}
	f = vnp_add(c, VNP_RULE_TRANSPOSE_FLOPS, (double)cpt,
		(double)(m->unit[0].op_ps[VNEF_OP_TRANSPOSE] + copy_ps) / (double)m->core_ps);
	if (!f) {
		free(set.o);
		return -ENOMEM;
	}
	snprintf(f->title, sizeof(f->title), "Transposes are %.1f%% of TensorE flops",
		 100.0 * (double)m->transpose_flops / (double)m->hw_flops);
	cat(f->evidence, sizeof(f->evidence),
	    "%llu TRANSPOSE instructions: %llu of %llu TensorE flops (> %.0f%%), %s of TensorE "
	    "time, plus %llu copies of their results out of PSUM (%s); %s of all that is on "
	    "the critical path.", (unsigned long long)m->transpose_count,
	    (unsigned long long)m->transpose_flops, (unsigned long long)m->hw_flops,
	    100 * VNP_TRANSPOSE_FRAC,
	    vnp_fmt_time(m->unit[0].op_ps[VNEF_OP_TRANSPOSE], t1, sizeof(t1)),
	    (unsigned long long)ncopy, vnp_fmt_time(copy_ps, t2, sizeof(t2)),
	    vnp_fmt_time(cpt, t3, sizeof(t3)));
	vnp_where(tl, pred_transpose, &set, where, sizeof(where));
	/* the cost model's price of a DMA transpose: one 4-byte chunk per element */
	qbw = (double)tl->model.dma_engine_bw;
	if ((double)tl->model.hbm_bw / VNEF_DMA_QUEUES < qbw)
		qbw = (double)tl->model.hbm_bw / VNEF_DMA_QUEUES;
	dma_ps = (uint64_t)((double)(bytes / 4) * 64 / qbw * 1e12 / c->nexec);
	snprintf(f->advice, sizeof(f->advice),
		 "Store the operand in HBM already transposed (the contraction dimension "
		 "first) and load it straight into SBUF: the transposes and their PSUM copies "
		 "go%s%s%s. Do not transpose with a DMA access pattern instead: the model "
		 "charges every element as its own 64-byte chunk, about %s per execution even "
		 "spread over 16 queues, against %s for the transposes and copies.",
		 *where ? " (" : "", where, *where ? ")" : "",
		 vnp_fmt_time(dma_ps, t1, sizeof(t1)),
		 vnp_fmt_time((m->unit[0].op_ps[VNEF_OP_TRANSPOSE] + copy_ps) / c->nexec, t2,
			      sizeof(t2)));
	free(set.o);
	return vnp_settle(c, f, -ENOTSUP, 0, "the layout in HBM is the caller's");
}

VNP_RULE_DEF(repeated_load, REPEATED_LOAD, "repeated-load", rule_repeated,
	     "the DMA descriptors' HBM source ranges per tensor, their reads on the "
	     "critical path, the program's writes to the regions they fill",
	     VNP_THR(VNP_REPEAT_LOADS));

VNP_RULE_DEF(transpose_flops, TRANSPOSE_FLOPS, "transpose-flops", rule_transpose,
	     "TensorE's transpose flops and time, the PSUM copies that read their "
	     "results",
	     VNP_THR(VNP_TRANSPOSE_FRAC));
