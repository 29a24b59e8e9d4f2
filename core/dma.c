// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * DMA descriptors: copying a 2-D pattern of chunks between HBM tensors, SBUF and PSUM,
 * and its modeled cost. The descriptor rings are the program's per-queue DMA streams;
 * the runner in core/exec.c runs each queue's descriptors as their waits allow.
 */
#include "vn_internal.h"
#include "vn_model.h"

#define VN_DMA_YIELD_BYTES	0x100000u	/* scheduling point and stop check */
#define VN_DMA_MIN_CHUNK	64		/* a chunk costs at least one burst */

/*
 * One endpoint as the copy loop walks it. Chunk (i1, i0) is at byte offset + i1 *
 * stride[1] + i0 * stride[0] of the partition numbered partition + i1 * part_stride[1] +
 * i0 * part_stride[0] (on chip: each partition is a region of pbytes), or of the buffer
 * bound to the tensor (HBM: one region of pbytes, the buffer's size). Every chunk is
 * checked against its region before it is copied, with overflow-checked arithmetic:
 * this is the executor's own check, independent of the validator's.
 */
struct vn_dma_side {
	u8 *base;		/* SBUF, PSUM or the bound buffer */
	u64 pbytes;		/* bytes of one partition, or of the buffer */
	u64 parts;		/* partitions (1 for HBM) */
	u32 mem;
	u32 tensor;
	u64 pid_off;		/* HBM: pid_stride * the execution's program id */
	const struct vnef_dma_ep *e;
};

static bool dma_side(struct vn_core *c, struct vn_exec *ex, const struct vnef_dma_ep *e,
		     bool is_dst, struct vn_dma_side *s, struct vn_fault *f)
{
	s->e = e;
	s->mem = e->mem;
	s->tensor = e->tensor;
	s->parts = VNEF_PARTITIONS;
	s->pid_off = 0;
	switch (e->mem) {
	case VNEF_MEM_HBM:
		if (e->tensor >= ex->prog->tensor_count || !ex->binds[e->tensor].ptr)
			break;
		/* Constants live in the program's image, which its executions share. */
		if (is_dst && ex->prog->tensors[e->tensor].kind == VNEF_TENSOR_CONST)
			break;
		s->base = ex->binds[e->tensor].ptr;
		s->pbytes = ex->binds[e->tensor].size;
		s->parts = 1;
		s->pid_off = (u64)e->pid_stride * ex->pid;
		return true;
	case VNEF_MEM_SBUF:
		s->base = c->sbuf;
		s->pbytes = vn_core_part_bytes(&c->m, e->mem);
		return true;
	case VNEF_MEM_PSUM:
		s->base = c->psum;
		s->pbytes = vn_core_part_bytes(&c->m, e->mem);
		return true;
	}
	*f = (struct vn_fault){ .mem = e->mem == VNEF_MEM_HBM ? VNEF_MEM_HBM : VNEF_MEM_NONE,
				.index = e->tensor };
	return false;
}

/*
 * The address of chunk (i1, i0) of n bytes, or NULL with f filled in if any byte of it
 * lies outside its partition or buffer.
 */
static u8 *dma_chunk(const struct vn_dma_side *s, u64 i1, u64 i0, u64 n, struct vn_fault *f)
{
	const struct vnef_dma_ep *e = s->e;
	u64 part = 0, off = 0, t, end;
	bool ok;

	/* Both computed whatever fails, so a fault report names the partition and offset. */
	ok = !check_mul_overflow(i1, e->stride[1], &off) &&
	     !check_mul_overflow(i0, e->stride[0], &t) && !check_add_overflow(off, t, &off) &&
	     !check_add_overflow(off, e->offset, &off) &&
	     !check_add_overflow(off, s->pid_off, &off) && !check_add_overflow(off, n, &end) &&
	     end <= s->pbytes;
	if (s->mem != VNEF_MEM_HBM) {
		bool in = !check_mul_overflow(i1, (u64)e->part_stride[1], &part) &&
			  !check_mul_overflow(i0, (u64)e->part_stride[0], &t) &&
			  !check_add_overflow(part, t, &part) &&
			  !check_add_overflow(part, (u64)e->partition, &part) &&
			  part < s->parts;

		ok = ok && in;
	}
	if (!ok) {
		*f = (struct vn_fault){
			.mem = s->mem,
			.index = s->mem == VNEF_MEM_HBM ? s->tensor : (u32)min_t(u64, part, ~0u),
			.offset = off,
			.len = n,
		};
		return NULL;
	}
	return s->base + part * s->pbytes + off;
}

int vn_dma_run(struct vn_core *c, struct vn_exec *ex, const struct vnef_dma_desc *d,
	       struct vn_fault *f)
{
	struct vn_dma_side s, t;
	u64 chunk = d->chunk_bytes, since = 0;
	u32 i0, i1, n0 = d->count[0];
	u8 *from, *to;

	if (!dma_side(c, ex, &d->src, false, &s, f) || !dma_side(c, ex, &d->dst, true, &t, f))
		return -EFAULT;
	/* Rows of back-to-back chunks in one partition on both sides copy as one. */
	if (n0 > 1 && d->src.stride[0] == chunk && d->dst.stride[0] == chunk &&
	    !d->src.part_stride[0] && !d->dst.part_stride[0] &&
	    !check_mul_overflow(chunk, (u64)n0, &chunk)) {
		n0 = 1;
	} else {
		chunk = d->chunk_bytes;
	}
	for (i1 = 0; i1 < d->count[1]; i1++) {
		for (i0 = 0; i0 < n0; i0++) {
			u64 done = 0;

			from = dma_chunk(&s, i1, i0, chunk, f);
			to = from ? dma_chunk(&t, i1, i0, chunk, f) : NULL;
			if (!to)
				return -EFAULT;
			/* Big chunks in pieces, so a stop is seen within a bounded time. */
			while (done < chunk) {
				u64 n = min_t(u64, chunk - done, VN_DMA_YIELD_BYTES);

				memmove(to + done, from + done, n);
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
	if ((d->src.mem == VNEF_MEM_HBM || d->dst.mem == VNEF_MEM_HBM) && ex->prog->dma_queues) {
		u64 share = c->m.hbm_bw / ex->prog->dma_queues;

		/* HBM to HBM reads and writes HBM: every byte uses the bandwidth twice */
		if (d->src.mem == VNEF_MEM_HBM && d->dst.mem == VNEF_MEM_HBM)
			share /= 2;
		bw = min_t(u64, bw, share);
	}
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
