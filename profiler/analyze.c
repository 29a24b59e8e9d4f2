// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Roofline classification and advice rules (docs/profiler.md). Each rule works from the
 * metrics and, where it must name instructions, from the timeline and the program.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

static const char *const class_names[] = {
	[VNP_CLASS_NONE] = "idle",
	[VNP_CLASS_COMPUTE] = "compute-bound",
	[VNP_CLASS_MEMORY] = "memory-bound",
	[VNP_CLASS_COMMUNICATION] = "communication-bound",
	[VNP_CLASS_OVERHEAD] = "overhead-bound",
};

static const char *const rule_ids[VNP_RULE_COUNT] = {
	[VNP_RULE_ENGINES_NO_OVERLAP] = "engines-no-overlap",
	[VNP_RULE_DMA_NO_OVERLAP] = "dma-no-overlap",
	[VNP_RULE_SMALL_DMA] = "small-dma",
	[VNP_RULE_REPEATED_LOAD] = "repeated-load",
	[VNP_RULE_TENSOR_IDLE] = "tensor-idle",
	[VNP_RULE_TRANSPOSE_FLOPS] = "transpose-flops",
	[VNP_RULE_SEM_WAIT] = "semaphore-wait",
};

const char *vnp_class_name(enum vnp_class c)
{
	return c <= VNP_CLASS_OVERHEAD ? class_names[c] : "?";
}

const char *vnp_rule_id(enum vnp_rule r)
{
	return r < VNP_RULE_COUNT ? rule_ids[r] : "?";
}

/* Appends to a fixed buffer, truncating. */
static void cat(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

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

/* The source line with the most of a uint64_t field of struct vnp_group, or VNP_NONE. */
static uint32_t top_line(const struct vnp_metrics *m, size_t field)
{
	uint32_t i, best = VNP_NONE;
	uint64_t v, most = 0;

	for (i = 0; i < m->nlines; i++) {
		v = *(const uint64_t *)((const char *)&m->line[i] + field);
		if (v > most) {
			most = v;
			best = i;
		}
	}
	return best;
}

/*
 * T: the wall time the class is about; cap: the busy time possible in it (T x cores for
 * the whole profile, whose busy time is summed over cores; T for a scope).
 */
static void classify(struct vnp_classification *c, uint64_t T, uint64_t cap, uint64_t busy,
		     uint64_t flops, uint64_t tflops, uint64_t bytes, uint64_t cc_ps,
		     const struct vnp_metrics *m)
{
	char t1[32], t2[32];
	double ai;

	c->why[0] = 0;
	if (!T) {
		c->cls = VNP_CLASS_NONE;
		snprintf(c->why, sizeof(c->why), "no events");
		return;
	}
	if ((double)cc_ps > VNP_COMM_FRAC * (double)cap) {
		c->cls = VNP_CLASS_COMMUNICATION;
		snprintf(c->why, sizeof(c->why), "collectives take %.1f%% of the time (> %.0f%%)",
			 vnp_pct(cc_ps, cap), 100 * VNP_COMM_FRAC);
		return;
	}
	if ((double)busy < VNP_OVERHEAD_BUSY_FRAC * (double)cap) {
		c->cls = VNP_CLASS_OVERHEAD;
		snprintf(c->why, sizeof(c->why),
			 "engines and DMA are busy %s of %s (%.1f%% < %.0f%%): the rest is "
			 "semaphore waits and gaps",
			 vnp_fmt_time(busy, t1, sizeof(t1)), vnp_fmt_time(cap, t2, sizeof(t2)),
			 vnp_pct(busy, cap), 100 * VNP_OVERHEAD_BUSY_FRAC);
		return;
	}
	if (!bytes && flops <= tflops) {
		c->cls = VNP_CLASS_COMPUTE;
		snprintf(c->why, sizeof(c->why),
			 "no HBM traffic and no TensorE flops: bound by the engines' own "
			 "instruction time (busy %.1f%%)", vnp_pct(busy, cap));
		return;
	}
	ai = bytes ? (double)(flops - tflops) / (double)bytes : INFINITY;
	if (ai >= m->ridge) {
		c->cls = VNP_CLASS_COMPUTE;
		if (isinf(ai))
			snprintf(c->why, sizeof(c->why),
				 "no HBM traffic for %llu TensorE flops; hfu %.1f%%",
				 (unsigned long long)flops,
				 100.0 * (double)flops / (m->peak_flops * (double)T * 1e-12));
		else
			snprintf(c->why, sizeof(c->why),
				 "arithmetic intensity %.1f flop/B >= ridge point %.1f flop/B; "
				 "hfu %.1f%%", ai, m->ridge,
				 100.0 * (double)flops / (m->peak_flops * (double)T * 1e-12));
	} else {
		c->cls = VNP_CLASS_MEMORY;
		snprintf(c->why, sizeof(c->why),
			 "arithmetic intensity %.2f flop/B < ridge point %.1f flop/B; "
			 "mbu %.1f%%", ai, m->ridge,
			 100.0 * (double)bytes / ((double)T * 1e-12) / m->hbm_bw);
	}
}

static struct vnp_finding *add(struct vnp_analysis *a, enum vnp_rule r, double impact)
{
	struct vnp_finding *f = realloc(a->f, (a->n + 1) * sizeof(*f));

	if (!f)
		return NULL;
	a->f = f;
	f = &a->f[a->n++];
	memset(f, 0, sizeof(*f));
	f->rule = r;
	f->impact = impact;
	return f;
}

static int rule_engines(const struct vnp_metrics *m, struct vnp_analysis *a)
{
	unsigned int u, v, used = 0;
	uint64_t sum = 0, mx = 0;
	struct vnp_finding *f;
	char t1[32], t2[32], t3[32];

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
	}
	f = add(a, VNP_RULE_ENGINES_NO_OVERLAP, (double)(sum - mx) / (double)m->core_ps);
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
	snprintf(f->advice, sizeof(f->advice),
		 "Tile the work and pipeline it across engines: while one engine processes "
		 "tile i the next can process tile i-1 (double-buffer the SBUF tiles so the "
		 "semaphores allow it). Up to %s of engine time could overlap.",
		 vnp_fmt_time(sum - mx, t1, sizeof(t1)));
	return 0;
}

static int rule_dma_overlap(const struct vnp_metrics *m, struct vnp_analysis *a)
{
	const struct vnp_unit *d = &m->unit[VNP_UNIT_DMA];
	uint64_t small = d->active_ps < m->compute_ps ? d->active_ps : m->compute_ps;
	struct vnp_finding *f;
	char t1[32], t2[32], t3[32], b1[32];
	uint64_t cfirst = UINT64_MAX, clast = 0;
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
	f = add(a, VNP_RULE_DMA_NO_OVERLAP,
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
		    "the data is fully loaded before compute starts.",
		    (unsigned long long)m->dma_in_count,
		    vnp_fmt_time(m->first_compute - m->t0, t1, sizeof(t1)));
	else if (m->dma_in_count)
		cat(f->evidence, sizeof(f->evidence),
		    "%llu of %llu loads into SBUF/PSUM complete before the first instruction at %s.",
		    (unsigned long long)m->dma_in_before_compute,
		    (unsigned long long)m->dma_in_count,
		    vnp_fmt_time(m->first_compute - m->t0, t1, sizeof(t1)));
	snprintf(f->advice, sizeof(f->advice),
		 "Split the data into tiles and start computing on the first tile while the "
		 "next ones load (and store results while later tiles compute); with enough "
		 "SBUF buffers per tile, up to %s of DMA or compute time could be hidden.",
		 vnp_fmt_time(small, t1, sizeof(t1)));
	return 0;
}

static int rule_small_dma(const struct vnp_timeline *tl, const struct vnp_metrics *m,
			  struct vnp_analysis *a)
{
	uint32_t best = top_line(m, offsetof(struct vnp_group, dma_count));
	struct vnp_finding *f;
	char b1[32], b2[32], t1[32], src[256];
	double ovh;

	if (!m->dma_count || m->avg_dma_bytes >= VNP_SMALL_DMA_BYTES)
		return 0;
	ovh = (double)m->dma_count * tl->model.dma_desc_overhead_ns * 1000.0;
	f = add(a, VNP_RULE_SMALL_DMA,
		m->core_ps ? ovh / (double)m->core_ps / VNEF_DMA_QUEUES : 0);
	if (!f)
		return -ENOMEM;
	snprintf(f->title, sizeof(f->title), "DMA transfers average %s (< 32 KiB)",
		 vnp_fmt_bytes(m->avg_dma_bytes, b1, sizeof(b1)));
	cat(f->evidence, sizeof(f->evidence),
	    "%llu descriptors moved %s, %s each on average; at %u ns of fixed cost per "
	    "descriptor that is %s of descriptor overhead.",
	    (unsigned long long)m->dma_count, vnp_fmt_bytes((double)m->dma_bytes, b1, sizeof(b1)),
	    vnp_fmt_bytes(m->avg_dma_bytes, t1, sizeof(t1)), tl->model.dma_desc_overhead_ns,
	    vnp_fmt_time((uint64_t)ovh, b2, sizeof(b2)));
	if (best != VNP_NONE)
		cat(f->evidence, sizeof(f->evidence),
		    " Most descriptors come from %s (%llu, %s average).",
		    vnp_prog_line(tl->prog, best, src, sizeof(src)),
		    (unsigned long long)m->line[best].dma_count,
		    vnp_fmt_bytes((double)m->line[best].dma_bytes /
				  (double)m->line[best].dma_count, b1, sizeof(b1)));
	snprintf(f->advice, sizeof(f->advice),
		 "Move larger blocks per descriptor (32 KiB or more): load whole tiles with "
		 "one access pattern instead of row by row, merge adjacent transfers, and "
		 "spread large ones over several queues.");
	return 0;
}

struct range_use {
	uint32_t tensor;
	uint64_t lo, hi;
	uint64_t hits;
	uint32_t queue, desc;
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

static int rule_repeated(const struct vnp_timeline *tl, const struct vnp_metrics *m,
			 struct vnp_analysis *a)
{
	const struct vnp_prog *p = tl->prog;
	struct range_use *r;
	size_t nr = 0, i, j, total = 0, nbad = 0;
	uint64_t execs = m->nexec ? m->nexec : 1, worst = 0;
	struct vnp_finding *f = NULL;
	unsigned int q, c;
	char b1[32];

	if (!p)
		return 0;
	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		total += p->ndesc[q];
	if (!total)
		return 0;
	r = calloc(total, sizeof(*r));
	if (!r)
		return -ENOMEM;
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
		for (c = 0; c < tl->ncores; c++) {
			unsigned int t = c * VNEF_STREAMS + VNEF_STREAM_DMA(q);

			for (j = tl->track_off[t]; j < tl->track_off[t + 1]; j++)
				if (tl->ev[j].pc < p->ndesc[q])
					r[base + tl->ev[j].pc].hits++;
		}
	}
	qsort(r, nr, sizeof(*r), cmp_range);
	for (i = 0; i < nr; i = j) {
		uint64_t hits = 0;

		for (j = i; j < nr && !cmp_range(&r[i], &r[j]); j++)
			hits += r[j].hits;
		if (r[i].tensor == VNP_NONE || hits <= VNP_REPEAT_LOADS * execs)
			continue;
		if (!f) {
			f = add(a, VNP_RULE_REPEATED_LOAD, 0);
			if (!f) {
				free(r);
				return -ENOMEM;
			}
			snprintf(f->title, sizeof(f->title),
				 "The same HBM data is loaded more than %d times per execution",
				 VNP_REPEAT_LOADS);
		}
		nbad++;
		if (hits > worst)
			worst = hits;
		if (nbad <= 5) {
			const char *tn = r[i].tensor < p->ntensors ?
					 vnp_prog_str(p, p->tensors[r[i].tensor].name_off) : "?";

			cat(f->evidence, sizeof(f->evidence),
			    "%s bytes [%llu, %llu) (%s) read %.1f times per execution by",
			    tn, (unsigned long long)r[i].lo, (unsigned long long)r[i].hi,
			    vnp_fmt_bytes((double)(r[i].hi - r[i].lo), b1, sizeof(b1)),
			    (double)hits / (double)execs);
			for (c = 0; i + c < j && c < 4; c++)
				cat(f->evidence, sizeof(f->evidence), " q%u#%u", r[i + c].queue,
				    r[i + c].desc);
			cat(f->evidence, sizeof(f->evidence), "%s; ", j - i > 4 ? " ..." : "");
		}
	}
	if (f) {
		if (nbad > 5)
			cat(f->evidence, sizeof(f->evidence), "and %zu more ranges.", nbad - 5);
		snprintf(f->advice, sizeof(f->advice),
			 "Keep data that is reused in SBUF instead of reloading it (reorder the "
			 "loops so the reused operand stays resident, e.g. load the stationary "
			 "weights once per tile row); each range here was read up to %llu times.",
			 (unsigned long long)(worst / execs));
		f->impact = 0.05;
	}
	free(r);
	return 0;
}

static int rule_tensor_idle(const struct vnp_metrics *m, struct vnp_analysis *a)
{
	struct vnp_finding *f;
	char t1[32], t2[32], t3[32], t4[32], t5[32];

	if (!m->unit[0].flops || !m->core_ps ||
	    (double)m->tensor_idle_ps <= VNP_TENSOR_IDLE_FRAC * (double)m->core_ps)
		return 0;
	f = add(a, VNP_RULE_TENSOR_IDLE, (double)m->tensor_idle_ps / (double)m->core_ps);
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
	snprintf(f->advice, sizeof(f->advice),
		 "Give TensorE the next matmul while the other engines post-process the "
		 "previous result (separate PSUM banks per tile), or move elementwise work "
		 "that only rescales into the matmul's operands.");
	return 0;
}

static int rule_transpose(const struct vnp_timeline *tl, const struct vnp_metrics *m,
			  struct vnp_analysis *a)
{
	uint32_t best = top_line(m, offsetof(struct vnp_group, transpose_flops));
	struct vnp_finding *f;
	char t1[32], src[256];

	if (!m->hw_flops ||
	    (double)m->transpose_flops <= VNP_TRANSPOSE_FRAC * (double)m->hw_flops)
		return 0;
	f = add(a, VNP_RULE_TRANSPOSE_FLOPS,
		m->core_ps ? (double)m->unit[0].op_ps[VNEF_OP_TRANSPOSE] / (double)m->core_ps : 0);
	if (!f)
		return -ENOMEM;
	snprintf(f->title, sizeof(f->title), "Transposes are %.1f%% of TensorE flops",
		 100.0 * (double)m->transpose_flops / (double)m->hw_flops);
	cat(f->evidence, sizeof(f->evidence),
	    "%llu TRANSPOSE instructions: %llu of %llu TensorE flops (> %.0f%%), %s of TensorE "
	    "time.", (unsigned long long)m->transpose_count,
	    (unsigned long long)m->transpose_flops, (unsigned long long)m->hw_flops,
	    100 * VNP_TRANSPOSE_FRAC,
	    vnp_fmt_time(m->unit[0].op_ps[VNEF_OP_TRANSPOSE], t1, sizeof(t1)));
	if (best != VNP_NONE)
		cat(f->evidence, sizeof(f->evidence), " Most come from %s.",
		    vnp_prog_line(tl->prog, best, src, sizeof(src)));
	snprintf(f->advice, sizeof(f->advice),
		 "Lay the data out in HBM the way TensorE consumes it (contraction dimension on "
		 "the partitions), or transpose with the DMA access pattern while loading, so "
		 "TensorE spends its time on real matmuls.");
	return 0;
}

/*
 * Waits per compute engine, and for the DMA queues together (a store waiting for its
 * data is normal; a queue that spends much of the run waiting delays what follows it).
 * A waiter fires when its total wait (for DMA: the most waiting queue's) exceeds
 * VNP_SEM_WAIT_FRAC of total_time.
 */
static int sem_finding(const struct vnp_timeline *tl, const struct vnp_metrics *m,
		       struct vnp_analysis *a, unsigned int w0, unsigned int w1)
{
	uint64_t sig[VNEF_STREAMS + 1] = { 0 }, tot = 0, worst = 0, bestv = 0;
	unsigned int w, s, i, best = VNEF_STREAMS, wq = w0, shown = 0;
	char n1[32], n2[32], t1[32], t2[32], where[160], who[32];
	struct vnp_finding *f;

	for (w = w0; w < w1; w++) {
		uint64_t qt = 0;

		for (s = 0; s <= VNEF_STREAMS; s++) {
			sig[s] += m->wait_ps[w][s];
			qt += m->wait_ps[w][s];
		}
		tot += qt;
		if (qt > worst) {
			worst = qt;
			wq = w;
		}
	}
	if ((double)worst <= VNP_SEM_WAIT_FRAC * (double)m->core_ps)
		return 0;
	for (s = 0; s <= VNEF_STREAMS; s++)
		if (sig[s] > bestv) {
			bestv = sig[s];
			best = s;
		}
	if (w1 - w0 > 1)
		snprintf(who, sizeof(who), "DMA queues");
	else
		vnp_stream_name(w0, who, sizeof(who));
	f = add(a, VNP_RULE_SEM_WAIT, (double)worst / (double)m->core_ps);
	if (!f)
		return -ENOMEM;
	snprintf(f->title, sizeof(f->title), "%s wait%s on semaphores %.1f%% of the time%s, "
		 "mostly for %s", who, w1 - w0 > 1 ? "" : "s", vnp_pct(worst, m->core_ps),
		 w1 - w0 > 1 ? vnp_stream_name(wq, n1, sizeof(n1)) : "",
		 best < VNEF_STREAMS ? vnp_stream_name(best, n2, sizeof(n2)) :
		 "an unknown signaller");
	if (w1 - w0 > 1) {
		/* "... of the time on DMA q3": say which queue */
		snprintf(f->title, sizeof(f->title), "DMA queues wait on semaphores: %s %.1f%% of "
			 "the time, mostly for %s", vnp_stream_name(wq, n1, sizeof(n1)),
			 vnp_pct(worst, m->core_ps),
			 best < VNEF_STREAMS ? vnp_stream_name(best, n2, sizeof(n2)) :
			 "an unknown signaller");
		cat(f->evidence, sizeof(f->evidence), "the queues waited %s in total, %s the "
		    "most (%s, > %.0f%% of total_time);", vnp_fmt_time(tot, t1, sizeof(t1)), n1,
		    vnp_fmt_time(worst, t2, sizeof(t2)), 100 * VNP_SEM_WAIT_FRAC);
	} else {
		cat(f->evidence, sizeof(f->evidence), "%s waited %s in total (> %.0f%% of "
		    "total_time):", who, vnp_fmt_time(tot, t1, sizeof(t1)),
		    100 * VNP_SEM_WAIT_FRAC);
	}
	for (s = 0; s <= VNEF_STREAMS; s++)
		if (sig[s])
			cat(f->evidence, sizeof(f->evidence), " %s for %s;",
			    vnp_fmt_time(sig[s], t1, sizeof(t1)),
			    s < VNEF_STREAMS ? vnp_stream_name(s, n2, sizeof(n2)) : "?");
	for (i = 0; i < m->ntop_wait && shown < 3; i++) {
		const struct vnp_ev *e = &tl->ev[m->top_wait[i].ev];

		if (e->stream < w0 || e->stream >= w1)
			continue;
		shown++;
		cat(f->evidence, sizeof(f->evidence),
		    " %s %s %s %u%s waited %s from %s on semaphore %u%s%s;",
		    vnp_stream_name(e->stream, n1, sizeof(n1)), vnp_opcode_name(e->opcode),
		    e->opcode == VNP_OP_DMA ? "desc" : "pc", e->pc,
		    ev_where(tl, e, where, sizeof(where)),
		    vnp_fmt_time(m->top_wait[i].wait_ps, t1, sizeof(t1)),
		    vnp_fmt_time(e->start - m->top_wait[i].wait_ps - m->t0, t2, sizeof(t2)),
		    e->sem_wait, m->top_wait[i].signaller < VNEF_STREAMS ? " of " : "",
		    m->top_wait[i].signaller < VNEF_STREAMS ?
		    vnp_stream_name(m->top_wait[i].signaller, n2, sizeof(n2)) : "");
	}
	snprintf(f->advice, sizeof(f->advice),
		 "%s %s starved by %s: shorten that producer's critical path (a smaller first "
		 "tile, an earlier DMA), give the waiter independent work (another tile) to run "
		 "meanwhile, or give it more buffers so it need not wait for one to be released.",
		 who, w1 - w0 > 1 ? "are" : "is",
		 best < VNEF_STREAMS ? vnp_stream_name(best, n2, sizeof(n2)) : "its producer");
	return 0;
}

static int rule_sem_wait(const struct vnp_timeline *tl, const struct vnp_metrics *m,
			 struct vnp_analysis *a)
{
	unsigned int e;
	int ret = 0;

	if (!m->total_ps)
		return 0;
	for (e = 0; e < VNEF_ENGINES && !ret; e++)
		ret = sem_finding(tl, m, a, e, e + 1);
	return ret ?: sem_finding(tl, m, a, VNEF_ENGINES, VNEF_STREAMS);
}

static int cmp_finding(const void *x, const void *y)
{
	const struct vnp_finding *a = x, *b = y;

	if (a->impact != b->impact)
		return a->impact > b->impact ? -1 : 1;
	return (int)a->rule - (int)b->rule;
}

int vnp_analyze(const struct vnp_timeline *tl, const struct vnp_metrics *m,
		struct vnp_analysis *a)
{
	uint32_t i;
	int ret;

	memset(a, 0, sizeof(*a));
	classify(&a->whole, m->total_ps, m->core_ps, m->busy_ps, m->hw_flops, m->transpose_flops,
		 m->hbm_read + m->hbm_write, 0, m);
	if (a->whole.cls == VNP_CLASS_OVERHEAD && m->gap_hi > m->gap_lo) {
		char t1[32], t2[32], t3[32], t4[32];
		uint64_t waits = 0;
		unsigned int u;

		for (u = 0; u < VNP_UNITS; u++)
			waits += m->unit[u].wait_ps;
		cat(a->whole.why, sizeof(a->whole.why), "; longest idle stretch %s to %s (%s); "
		    "semaphore waits %s in all", vnp_fmt_time(m->gap_lo - m->t0, t1, sizeof(t1)),
		    vnp_fmt_time(m->gap_hi - m->t0, t2, sizeof(t2)),
		    vnp_fmt_time(m->gap_hi - m->gap_lo, t3, sizeof(t3)),
		    vnp_fmt_time(waits, t4, sizeof(t4)));
	}
	a->scope = calloc(m->nscopes + 1, sizeof(*a->scope));
	if (!a->scope)
		return -ENOMEM;
	for (i = 0; i <= m->nscopes; i++) {
		const struct vnp_group *g = &m->scope[i];

		uint64_t span = g->count ? g->last - g->first : 0;

		classify(&a->scope[i], span, span, g->active_ps, g->flops, g->transpose_flops,
			 g->hbm_read + g->hbm_write, 0, m);
	}
	if (!m->total_ps)
		return 0;
	ret = rule_engines(m, a);
	if (!ret)
		ret = rule_dma_overlap(m, a);
	if (!ret)
		ret = rule_small_dma(tl, m, a);
	if (!ret)
		ret = rule_repeated(tl, m, a);
	if (!ret)
		ret = rule_tensor_idle(m, a);
	if (!ret)
		ret = rule_transpose(tl, m, a);
	if (!ret)
		ret = rule_sem_wait(tl, m, a);
	if (ret) {
		vnp_analysis_free(a);
		return ret;
	}
	if (a->n > 1)
		qsort(a->f, a->n, sizeof(*a->f), cmp_finding);
	return 0;
}

void vnp_analysis_free(struct vnp_analysis *a)
{
	free(a->scope);
	free(a->f);
	a->scope = NULL;
	a->f = NULL;
	a->n = 0;
}
