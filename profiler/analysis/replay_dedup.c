// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * load once (repeated-load, docs/profiler.md "Replay"): a descriptor that loads again what
 * an earlier one of its queue loaded goes, when nothing else writes the region it fills;
 * the waits on its signals count one increment less.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "replay_priv.h"
#include "vn_isa.h"
#include "vn_program.h"

/* An on-chip region's bounding box: partitions [p0, p1), bytes [b0, b1). */
struct box {
	uint64_t p0, p1, b0, b1;
};

static int overlap(const struct box *a, const struct box *b)
{
	return a->p0 < b->p1 && b->p0 < a->p1 && a->b0 < b->b1 && b->b0 < a->b1;
}

static struct box desc_box(const struct vnef_dma_desc *d)
{
	const struct vnef_dma_ep *e = &d->dst;
	uint64_t c1 = d->count[1] - 1, c0 = d->count[0] - 1;

	return (struct box){ e->partition,
			     e->partition + c1 * e->part_stride[1] + c0 * e->part_stride[0] + 1,
			     e->offset, e->offset + c1 * e->stride[1] + c0 * e->stride[0] +
			     d->chunk_bytes };
}

static struct box ap_box(const struct vnef_ap *a)
{
	uint64_t el = vn_dtype_bytes(a->dtype);

	return (struct box){ a->start_partition, (uint64_t)a->start_partition + a->partitions,
			     a->offset, a->offset + ((uint64_t)(a->count[1] - 1) * a->stride[1] +
			     (uint64_t)(a->count[0] - 1) * a->stride[0] + 1) * el };
}

/* Whether anything but descriptors identical to d writes where d writes. */
static int written_by_others(const struct pimg *g, const struct vnef_dma_desc *d)
{
	struct box b = desc_box(d), x;
	unsigned int q, e;
	uint32_t i;

	for (e = 0; e < VNEF_ENGINES; e++)
		for (i = 0; i < g->nin[e]; i++) {
			if (g->in[e][i].dst.mem != d->dst.mem)
				continue;
			x = ap_box(&g->in[e][i].dst);
			if (overlap(&b, &x))
				return 1;
		}
	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		for (i = 0; i < g->nd[q]; i++) {
			const struct vnef_dma_desc *o = &g->d[q][i];

			if (o->dst.mem != d->dst.mem || (!memcmp(&o->src, &d->src, sizeof(o->src)) &&
			    !memcmp(&o->dst, &d->dst, sizeof(o->dst)) &&
			    !memcmp(o->count, d->count, sizeof(o->count)) &&
			    o->chunk_bytes == d->chunk_bytes))
				continue;
			x = desc_box(o);
			if (overlap(&b, &x))
				return 1;
		}
	return 0;
}

/* A wait (an entry's flags, sem and value) on s past the removed k-th increment: one less. */
static void drop_wait(uint32_t *flags, uint32_t *sem, uint32_t *value, uint32_t s, uint32_t k)
{
	if ((*flags & VNEF_IF_WAIT) && *sem == s && *value >= k && !--*value) {
		*flags &= ~VNEF_IF_WAIT;
		*sem = 0;
	}
}

/* Every wait on semaphore s for a value past the removed k-th increment waits one less. */
static void drop_increment(struct pimg *g, uint32_t s, uint32_t k)
{
	unsigned int e, q;
	uint32_t i;

	for (e = 0; e < VNEF_ENGINES; e++)
		for (i = 0; i < g->nin[e]; i++)
			drop_wait(&g->in[e][i].flags, &g->in[e][i].wait_sem,
				  &g->in[e][i].wait_value, s, k);
	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		for (i = 0; i < g->nd[q]; i++)
			drop_wait(&g->d[q][i].flags, &g->d[q][i].wait_sem,
				  &g->d[q][i].wait_value, s, k);
	for (i = 0; i < g->ncc; i++)
		drop_wait(&g->cc[i].flags, &g->cc[i].wait_sem, &g->cc[i].wait_value, s, k);
}

/*
 * A queue's descriptors that load again what an earlier one of theirs loaded, when
 * nothing else writes the region they fill, gone.
 */
static int dedup_queue(struct pimg *g, uint32_t q, uint32_t *map)
{
	struct vnef_dma_desc *d = g->d[q], *kept;
	uint32_t n = g->nd[q], inc[VNEF_MAX_SEMS] = { 0 }, i, j, o, s;

	kept = calloc(n ? n : 1, sizeof(*kept));
	if (!kept)
		return -ENOMEM;
	for (i = 0, o = 0; i < n; i++) {
		int again = 0;

		for (j = 0; j < i && !again && d[i].src.mem == VNEF_MEM_HBM &&
		     d[i].dst.mem != VNEF_MEM_HBM; j++)
			again = !(map[j] & 0x80000000u) &&
				!memcmp(&d[j].src, &d[i].src, sizeof(d[i].src)) &&
				!memcmp(&d[j].dst, &d[i].dst, sizeof(d[i].dst)) &&
				!memcmp(d[j].count, d[i].count, sizeof(d[i].count)) &&
				d[j].chunk_bytes == d[i].chunk_bytes;
		if (again && !written_by_others(g, &d[i])) {
			/* its increments go: later waits count one less for each */
			for (s = 0; s < VNEF_MAX_SEMS; s++)
				if (d[i].signal_mask >> s & 1)
					drop_increment(g, s, inc[s] + 1);
			map[i] = 0x80000000u;
			continue;
		}
		for (s = 0; s < VNEF_MAX_SEMS; s++)
			inc[s] += (uint32_t)(d[i].signal_mask >> s & 1);
		map[i] = o;
		kept[o++] = d[i];
	}
	free(g->d[q]);
	g->d[q] = kept;
	return (int)o;
}

int vnp_replay_dedup(struct vnp_replay *r, uint64_t *ps, char *what, size_t len)
{
	uint32_t before, after;
	int ret = rp_replay_queues(r, dedup_queue, ps, what, len,
				   "no descriptor loads the same data to the same place alone",
				   &before, &after);

	if (!ret)
		snprintf(what, len, "loading once: %u repeated descriptors removed",
			 before - after);
	return ret;
}
