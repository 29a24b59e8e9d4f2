// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * DMA descriptors: copying a 2-D pattern of chunks between HBM tensors, SBUF and PSUM,
 * and its modeled cost. The descriptor rings are the program's per-queue DMA streams;
 * the DMA worker in core/exec.c picks the next runnable descriptor of each queue.
 */
#include "core_internal.h"

#define VN_DMA_YIELD_BYTES	0x100000u	/* scheduling point and stop check */
#define VN_DMA_MIN_CHUNK	64		/* a chunk costs at least one burst */

struct vn_dma_side {
	u8 *base;
	u64 stride[2];		/* bytes, partition steps folded in */
};

static void dma_side(struct vn_core *c, struct vn_exec *ex, const struct vnef_dma_ep *e,
		     struct vn_dma_side *s)
{
	u64 pb;
	u32 i;

	if (e->mem == VNEF_MEM_HBM) {
		s->base = (u8 *)ex->binds[e->tensor].ptr + e->offset;
		s->stride[0] = e->stride[0];
		s->stride[1] = e->stride[1];
		return;
	}
	pb = e->mem == VNEF_MEM_PSUM ? VNEF_PSUM_PART_BYTES : VNEF_SBUF_PART_BYTES;
	s->base = (e->mem == VNEF_MEM_PSUM ? c->psum : c->sbuf) + e->partition * pb + e->offset;
	for (i = 0; i < 2; i++)
		s->stride[i] = e->part_stride[i] * pb + e->stride[i];
}

int vn_dma_run(struct vn_core *c, struct vn_exec *ex, const struct vnef_dma_desc *d)
{
	struct vn_dma_side s, t;
	u64 chunk = d->chunk_bytes, since = 0;
	u32 i0, i1, n0 = d->count[0];

	dma_side(c, ex, &d->src, &s);
	dma_side(c, ex, &d->dst, &t);
	/* Rows of back-to-back chunks on both sides copy as one. */
	if (n0 > 1 && s.stride[0] == chunk && t.stride[0] == chunk) {
		chunk *= n0;
		n0 = 1;
	}
	for (i1 = 0; i1 < d->count[1]; i1++) {
		for (i0 = 0; i0 < n0; i0++) {
			u64 so = i1 * s.stride[1] + i0 * s.stride[0];
			u64 to = i1 * t.stride[1] + i0 * t.stride[0];
			u64 done = 0;

			/* Big chunks in pieces, so a stop is seen within a bounded time. */
			while (done < chunk) {
				u64 n = min_t(u64, chunk - done, VN_DMA_YIELD_BYTES);

				memmove(t.base + to + done, s.base + so + done, n);
				done += n;
				since += n;
				if (since >= VN_DMA_YIELD_BYTES) {
					since = 0;
					vn_thread_yield();
					if (vn_load_acquire(&c->abort))
						return -EINTR;
					if (vn_time_ns() > c->deadline_ns)
						return -ETIMEDOUT;
				}
			}
		}
	}
	return 0;
}

u64 vn_dma_cost(const struct vn_core *c, const struct vn_exec *ex,
		const struct vnef_dma_desc *d, struct vn_event *ev)
{
	u64 chunks = (u64)d->count[0] * d->count[1];
	u64 bytes = chunks * d->chunk_bytes;
	u64 charged = chunks * max_t(u64, d->chunk_bytes, VN_DMA_MIN_CHUNK);
	u64 bw = c->m.dma_engine_bw, bw_us;

	/*
	 * The program's queues share the core's HBM bandwidth: a static share, so the cost
	 * stays a function of the program alone.
	 */
	if ((d->src.mem == VNEF_MEM_HBM || d->dst.mem == VNEF_MEM_HBM) && ex->prog->dma_queues)
		bw = min_t(u64, bw, c->m.hbm_bw / ex->prog->dma_queues);
	/* bytes per microsecond keeps bytes * 10^6 inside 64 bits */
	bw_us = max_t(u64, bw / 1000000, 1);

	ev->flags = 0;
	ev->flops = 0;
	ev->elements = chunks;
	ev->bytes = bytes;
	ev->hbm_read = d->src.mem == VNEF_MEM_HBM ? bytes : 0;
	ev->hbm_write = d->dst.mem == VNEF_MEM_HBM ? bytes : 0;
	return (u64)c->m.dma_desc_overhead_ns * 1000 + charged * 1000000 / bw_us;
}
