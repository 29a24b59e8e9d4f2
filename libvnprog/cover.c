// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Whether a program writes every byte of an HBM tensor in each execution that ends OK:
 * then a caller need not zero that tensor's new buffer before a run (Python's
 * Program.run() makes its output arrays without zeroing them, so the core's DMA is the
 * first to touch them: zeroing on the submitting thread cost a cache-line transfer
 * between two host cores both ways, about a third of a small run).
 *
 * An execution ends OK only when every stream has run every entry (docs/isa.md,
 * "Faults, time limits and reset"), so each DMA descriptor writes all of its chunks.
 * Only what is certain counts: descriptors whose HBM destination has no pid_stride (the
 * same bytes for every program id); collectives and per-instance slices do not, nor a
 * tensor whose chunks are too many to sort cheaply (the answer is then 0: zero it).
 */
#include <stdlib.h>

#include "vnprog.h"
#include "vn_program.h"

#define COVER_MAX_CHUNKS	65536u	/* byte ranges looked at, per tensor */

struct span {
	uint64_t lo, hi;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The byte ranges d writes into tensor t, appended to s[*n..max); -1 past max. */
static int add_spans(const struct vnef_dma_desc *d, struct span *s, unsigned int *n,
		     unsigned int max)
{
	uint64_t c0 = d->count[0], c1 = d->count[1], len = d->chunk_bytes, i0, i1, off;

	/* contiguous chunks make one range: i0 first, then the whole descriptor */
	if ((c0 == 1 || d->dst.stride[0] == len) && c0 <= UINT64_MAX / len) {
		len *= c0;
		c0 = 1;
		if ((c1 == 1 || d->dst.stride[1] == len) && c1 <= UINT64_MAX / len) {
			len *= c1;
			c1 = 1;
		}
	}
	if (c0 * c1 > max - *n)		/* counts are 32-bit: no overflow */
		return -1;
	for (i1 = 0; i1 < c1; i1++) {
		for (i0 = 0; i0 < c0; i0++) {
			/* the validator kept every chunk inside the tensor: no overflow */
			off = d->dst.offset + i1 * d->dst.stride[1] + i0 * d->dst.stride[0];
			s[*n].lo = off;
			s[(*n)++].hi = off + len;
		}
	}
	return 0;
}

int nd_program_writes_all(const struct vn_program *vp, uint32_t tensor)
{
	unsigned int q, e, n = 0;
	struct span *s;
	uint64_t end = 0;
	int ret = 0;

	if (!vp || tensor >= vp->tensor_count || !vp->tensors[tensor].size)
		return 0;
	s = malloc(sizeof(*s) * COVER_MAX_CHUNKS);
	if (!s)
		return 0;
	for (q = 0; q < VNEF_DMA_QUEUES; q++) {
		const struct vn_stream *st = &vp->streams[VNEF_STREAM_DMA(q)];

		for (e = 0; st->desc && e < st->count; e++) {
			const struct vnef_dma_desc *d = &st->desc[e];

			if (d->dst.mem != VNEF_MEM_HBM || d->dst.tensor != tensor ||
			    d->dst.pid_stride)
				continue;
			if (add_spans(d, s, &n, COVER_MAX_CHUNKS))
				goto out;
		}
	}
	qsort(s, n, sizeof(*s), span_cmp);
	for (e = 0; e < n && s[e].lo <= end; e++)
		if (s[e].hi > end)
			end = s[e].hi;
	ret = end >= vp->tensors[tensor].size;
out:
	free(s);
	return ret;
}
