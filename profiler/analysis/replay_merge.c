// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * merge (small-dma) and batch (instruction-overhead), docs/profiler.md "Replay": a run of
 * consecutive descriptors or elementwise instructions that advance by constant steps
 * folded into one entry with the run as its outer dimension.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "replay_priv.h"
#include "vn_isa.h"
#include "vn_program.h"

static int ep_step(const struct vnef_dma_ep *a, const struct vnef_dma_ep *b,
		   uint64_t *off, uint32_t *part)
{
	if (a->mem != b->mem || a->tensor != b->tensor || b->offset < a->offset ||
	    b->partition < a->partition ||
	    memcmp(a->part_stride, b->part_stride, sizeof(a->part_stride)) ||
	    a->stride[0] != b->stride[0])
		return 0;
	*off = b->offset - a->offset;
	*part = b->partition - a->partition;
	return 1;
}

/*
 * Whether b continues a's run with the steps found so far (set on the second). Only the
 * run's first may wait; a descriptor may signal if every later one of its run signals
 * the same semaphores, none of which another stream signals (own: those b's queue alone
 * signals), so that the waits can count the increments merging removes.
 */
static int continues(const struct vnef_dma_desc *a, const struct vnef_dma_desc *b,
		     uint64_t step[2], uint32_t pstep[2], int first, uint64_t own)
{
	uint64_t o[2];
	uint32_t p[2];

	if (a->chunk_bytes != b->chunk_bytes || a->count[0] != b->count[0] ||
	    a->count[1] != 1 || b->count[1] != 1 || (b->flags & VNEF_IF_WAIT) ||
	    (a->signal_mask && (a->signal_mask != b->signal_mask ||
				(a->signal_mask & ~own))) ||
	    !ep_step(&a->src, &b->src, &o[0], &p[0]) || !ep_step(&a->dst, &b->dst, &o[1], &p[1]))
		return 0;
	if (first) {
		step[0] = o[0];
		step[1] = o[1];
		pstep[0] = p[0];
		pstep[1] = p[1];
		return 1;
	}
	return o[0] == step[0] && o[1] == step[1] && p[0] == pstep[0] && p[1] == pstep[1];
}

/*
 * The semaphores only queue q signals: all it signals, as the loader refuses a semaphore
 * two streams signal; checked again so that the counts stay right if that ever changes.
 */
static uint64_t own_sems(const struct pimg *g, uint32_t q)
{
	uint64_t other = 0, mine = 0;
	unsigned int e, k;
	uint32_t i;

	for (e = 0; e < VNEF_ENGINES; e++)
		for (i = 0; i < g->nin[e]; i++)
			other |= g->in[e][i].signal_mask;
	for (k = 0; k < VNEF_DMA_QUEUES; k++)
		for (i = 0; i < g->nd[k]; i++)
			*(k == q ? &mine : &other) |= g->d[k][i].signal_mask;
	for (i = 0; i < g->ncc; i++)
		other |= g->cc[i].signal_mask;
	return mine & ~other;
}

/*
 * A wait on s, after a run whose k increments (the first is number first) became one:
 * one inside the run waits for the merged descriptor, one past it k - 1 fewer.
 */
static void fold_wait(uint32_t flags, uint32_t sem, uint32_t *value, uint32_t s,
		      uint32_t first, uint32_t k)
{
	if (!(flags & VNEF_IF_WAIT) || sem != s || *value <= first)
		return;
	*value = *value < first + k ? first : *value - (k - 1);
}

static void fold_increments(struct pimg *g, uint32_t s, uint32_t first, uint32_t k)
{
	unsigned int e, q;
	uint32_t i;

	for (e = 0; e < VNEF_ENGINES; e++)
		for (i = 0; i < g->nin[e]; i++)
			fold_wait(g->in[e][i].flags, g->in[e][i].wait_sem,
				  &g->in[e][i].wait_value, s, first, k);
	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		for (i = 0; i < g->nd[q]; i++)
			fold_wait(g->d[q][i].flags, g->d[q][i].wait_sem, &g->d[q][i].wait_value,
				  s, first, k);
	for (i = 0; i < g->ncc; i++)
		fold_wait(g->cc[i].flags, g->cc[i].wait_sem, &g->cc[i].wait_value, s, first, k);
}

/* Interleaved runs: at most this many, row i of each after row i of the one before. */
#define MERGE_MAX_PHASES	4

/* The bytes and partitions an endpoint of a descriptor covers. */
struct ep_box {
	uint32_t mem, tensor;
	uint64_t p0, p1, b0, b1;
};

static struct ep_box ep_box(const struct vnef_dma_desc *d, const struct vnef_dma_ep *e)
{
	uint64_t c1 = d->count[1] - 1, c0 = d->count[0] - 1;

	return (struct ep_box){ e->mem, e->tensor, e->partition, e->partition +
				c1 * e->part_stride[1] + c0 * e->part_stride[0] + 1, e->offset,
				e->offset + c1 * e->stride[1] + c0 * e->stride[0] +
				d->chunk_bytes };
}

static int box_overlap(const struct ep_box *a, const struct ep_box *b)
{
	return a->mem == b->mem && (a->mem != VNEF_MEM_HBM || a->tensor == b->tensor) &&
	       a->p0 < b->p1 && b->p0 < a->p1 && a->b0 < b->b1 && b->b0 < a->b1;
}

/*
 * Whether p merged runs m[0..p) may run one after another instead of interleaved: no
 * run writes where another reads or writes.
 */
static int independent(const struct vnef_dma_desc *m, uint32_t p)
{
	uint32_t a, b;

	for (a = 0; a < p; a++)
		for (b = 0; b < p; b++) {
			struct ep_box w = ep_box(&m[a], &m[a].dst), rs = ep_box(&m[b], &m[b].src),
				      rd = ep_box(&m[b], &m[b].dst);

			if (a != b && (box_overlap(&w, &rs) || box_overlap(&w, &rd)))
				return 0;
		}
	return 1;
}

/*
 * p runs interleaved from d[i] (phase r: d[i + r], d[i + r + p], ...), each advancing by
 * constant steps, only d[i] waiting and only the last signalling: the number of rows
 * each has (0 if under 2), their merged descriptors in m.
 */
static uint32_t interleaved(const struct vnef_dma_desc *d, uint32_t n, uint32_t i, uint32_t p,
			    struct vnef_dma_desc *m)
{
	uint64_t step[MERGE_MAX_PHASES][2] = { { 0 } };
	uint32_t pstep[MERGE_MAX_PHASES][2] = { { 0 } }, l, r, x;

	if (i + 2 * p > n)
		return 0;
	for (r = 1; r < p; r++)
		if (d[i + r].flags & VNEF_IF_WAIT)
			return 0;
	for (l = 1; i + p * (l + 1) <= n; l++) {
		for (r = 0; r < p; r++) {
			const struct vnef_dma_desc *a = &d[i + r + p * (l - 1)];

			if (!continues(a, a + p, step[r], pstep[r], l == 1, 0))
				break;
		}
		if (r < p)
			break;
	}
	/* a signal inside the runs would move: they end before the first one */
	for (x = i; x + 1 < i + p * l; x++)
		if (d[x].signal_mask) {
			l = (x - i) / p;
			break;
		}
	if (l < 2)
		return 0;
	for (r = 0; r < p; r++) {
		m[r] = d[i + r];
		m[r].count[1] = l;
		m[r].src.stride[1] = step[r][0];
		m[r].src.part_stride[1] = pstep[r][0];
		m[r].dst.stride[1] = step[r][1];
		m[r].dst.part_stride[1] = pstep[r][1];
		m[r].signal_mask = r == p - 1 ? d[i + p * l - 1].signal_mask : 0;
	}
	return independent(m, p) ? l : 0;
}

/*
 * A queue's runs of descriptors that advance by constant steps, each folded into one;
 * a run whose descriptors each signal signals once, and the waits on it count that.
 * Where no run starts, p runs interleaved row by row (x row i, w row i, ...) become p
 * descriptors, one after another, when none writes where another reads or writes.
 */
static int merge_queue(struct pimg *g, uint32_t q, uint32_t *map)
{
	struct vnef_dma_desc *d = g->d[q];
	uint32_t n = g->nd[q], i, j, o, s, inc[VNEF_MAX_SEMS] = { 0 };
	uint64_t own = own_sems(g, q);

	for (i = 0, o = 0; i < n; i = j, o++) {
		uint64_t step[2] = { 0 };
		uint32_t pstep[2] = { 0 }, k[VNEF_MAX_SEMS] = { 0 }, p, l = 0, x;
		struct vnef_dma_desc m = d[i], im[MERGE_MAX_PHASES];

		map[i] = o;
		for (j = i + 1; j < n && continues(&d[j - 1], &d[j], step, pstep, j == i + 1,
						   own); j++)
			map[j] = o | 0x80000000u;	/* merged away */
		for (p = 2; j == i + 1 && !l && p <= MERGE_MAX_PHASES; p++)
			l = interleaved(d, n, i, p, im);
		if (l) {
			p--;
			for (x = 0; x < p * l; x++)
				map[i + x] = (o + x % p) | (x < p ? 0 : 0x80000000u);
			for (s = 0; s < VNEF_MAX_SEMS; s++)
				inc[s] += (uint32_t)(im[p - 1].signal_mask >> s & 1);
			memcpy(&d[o], im, p * sizeof(*im));
			j = i + p * l;
			o += p - 1;
			continue;
		}
		for (s = 0; s < VNEF_MAX_SEMS; s++) {
			uint32_t x;

			for (x = i; x < j; x++)
				k[s] += (uint32_t)(d[x].signal_mask >> s & 1);
			if (k[s] > 1)
				fold_increments(g, s, inc[s] + 1, k[s]);
			inc[s] += k[s] ? 1 : 0;
		}
		if (j - i > 1) {
			m.count[1] = j - i;
			m.src.stride[1] = step[0];
			m.src.part_stride[1] = pstep[0];
			m.dst.stride[1] = step[1];
			m.dst.part_stride[1] = pstep[1];
			m.signal_mask = d[j - 1].signal_mask;
		}
		d[o] = m;
	}
	return (int)o;
}

int vnp_replay_merge(struct vnp_replay *r, uint64_t *ps, char *what, size_t len)
{
	uint32_t before, after;
	int ret = rp_replay_queues(r, merge_queue, ps, what, len,
				   "no run of descriptors advances by a constant step", &before,
				   &after);

	if (!ret)
		snprintf(what, len, "merging %u descriptors into %u", before, after);
	return ret;
}

/* ---- batch instructions ---- */

/* b's operand continues a's by one row of a's size (or stays put: a scalar column). */
static int ap_next(const struct vnef_ap *a, const struct vnef_ap *b, int column)
{
	uint64_t row = (uint64_t)a->count[0] * vn_dtype_bytes(a->dtype);

	if (a->mem != b->mem || a->dtype != b->dtype || a->start_partition != b->start_partition ||
	    a->partitions != b->partitions || memcmp(a->count, b->count, sizeof(a->count)) ||
	    memcmp(a->stride, b->stride, sizeof(a->stride)))
		return 0;
	if (a->mem == VNEF_MEM_NONE || column)
		return a->offset == b->offset;
	return a->count[1] == 1 && a->stride[0] == 1 && b->offset == a->offset + row;
}

static int batchable(const struct vnef_instr *a, const struct vnef_instr *b)
{
	const struct vn_opcode_info *info = vn_opcode_info(a->opcode);
	uint32_t col = a->flags & (VNEF_IF_SCALAR_COLUMN | VNEF_IF_BIAS_COLUMN);

	return info && info->cost == VN_COST_ELEMENTWISE && a->opcode == b->opcode &&
	       (a->flags & ~VNEF_IF_WAIT) == (b->flags & ~VNEF_IF_WAIT) &&
	       !(b->flags & VNEF_IF_WAIT) && !a->signal_mask && a->op == b->op &&
	       !memcmp(a->imm, b->imm, sizeof(a->imm)) && ap_next(&a->dst, &b->dst, 0) &&
	       ap_next(&a->src0, &b->src0, 0) && ap_next(&a->src1, &b->src1, !!col);
}

int vnp_replay_batch(struct vnp_replay *r, unsigned int e, uint64_t *ps, char *what,
		     size_t len)
{
	uint32_t n, i, j, o, *map = NULL;
	struct vnef_instr *in;
	struct pimg g;
	int ret;

	if (e >= VNEF_ENGINES)
		return -EINVAL;
	ret = rp_pimg_load(&g, r->p);
	if (ret)
		return ret;
	in = g.in[e];
	n = g.nin[e];
	ret = rp_map(&map, n);
	if (ret)
		goto out;
	for (i = 0, o = 0; i < n; i = j, o++) {
		struct vnef_instr m = in[i];
		uint32_t k;

		map[i] = o;
		for (j = i + 1; j < n && batchable(&in[j - 1], &in[j]); j++)
			map[j] = o | 0x80000000u;
		k = j - i;
		if (k > 1) {
			m.dst.count[0] *= k;
			m.src0.count[0] *= k;
			if (m.src1.mem != VNEF_MEM_NONE &&
			    !(m.flags & (VNEF_IF_SCALAR_COLUMN | VNEF_IF_BIAS_COLUMN)))
				m.src1.count[0] *= k;
			m.signal_mask = in[j - 1].signal_mask;
		}
		in[o] = m;
	}
	rp_remap_debug(&g, e, map, n);
	g.nin[e] = o;
	ret = rp_run_if(r, &g, o != n, ps, what, len,
			"no run of instructions walks a row in equal steps");
	if (!ret)
		snprintf(what, len, "batching %s's %u instructions into %u", vn_engine_name(e),
			 n, o);
out:
	free(map);
	rp_pimg_free(&g);
	return ret;
}
