/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The producer side of a trace ring (uapi/vneuron_trace.h, docs/trace-buffer.md).
 *
 * One ring has exactly one producer: the executor thread that runs its engine.
 * Everything here runs in that thread, with no lock. The OS glue owns the memory
 * (consumer page, control page, data pages; in the kernel from vmalloc_user() so it can
 * be mapped) and the wake-up of poll()ers, which it receives through the wake callback.
 *
 * Writing costs, per record: one compare against a precomputed limit and a 64-byte
 * copy. The slow path runs once per batch of records: it publishes the producer
 * position with a release store, re-reads the consumer position only when the ring
 * looks full, and reserves the next batch in overwrite mode.
 */
#ifndef VN_TRACE_H
#define VN_TRACE_H

#include "vn_platform.h"
#include "vneuron.h"
#include "vneuron_trace.h"

#define VN_TRACE_DEFAULT_BATCH	64	/* records per position update */
#define VN_TRACE_MAX_BATCH	4096
#define VN_TRACE_PREFETCH	4096	/* bytes ahead vn_trace_put() prefetches */

struct vn_trace_params {
	u32 mode;		/* VNEURON_TRACE_MODE_* */
	u32 watermark;		/* bytes; 0 = data_size / 2 */
	u32 batch;		/* records; 0 = VN_TRACE_DEFAULT_BATCH or half the ring */
	u32 core;
	u32 engine;		/* enum vneuron_engine or VNEURON_TRACE_ENGINE_* */
	u32 data_offset;	/* from the control page to the data pages, as mapped */
	u64 start_host_ns;
};

struct vn_trace_ring {
	/* Producer-private; the shared pages only ever receive copies. */
	u8 *data;
	u64 mask;		/* data_size - 1 */
	u64 head;		/* position of the next record */
	u64 stop;		/* head may reach this without the slow path */
	u64 pub;		/* last published head */
	u64 room_end;		/* stop mode: cached consumer position + data_size */
	u64 resv;		/* overwrite mode: reserved up to here (write_pos) */
	u64 size;
	u64 batch_bytes;
	u64 watermark;
	u64 wake_pos;		/* head at the last wake-up */
	u64 dropped;		/* total, stop mode */
	u64 pending_lost;	/* dropped since the last LOST record */
	u64 lost_start_ps;	/* modeled span of the pending drops */
	u64 lost_end_ps;
	u32 mode;
	u32 engine;
	struct vneuron_trace_ctrl *ctrl;
	struct vneuron_trace_consumer *cons;
	void (*wake)(void *arg);
	void *wake_arg;
};

/*
 * Sets up a ring over memory the glue allocated and zeroed: cons and ctrl each one page,
 * data data_size bytes. Fills the control page. wake (may be NULL) is called from the
 * producer thread each time watermark bytes more have been published, and by
 * vn_trace_stop(). Returns 0 or -EINVAL for bad sizes, mode, watermark or batch.
 */
int vn_trace_ring_init(struct vn_trace_ring *r, struct vneuron_trace_consumer *cons,
		       struct vneuron_trace_ctrl *ctrl, void *data, u64 data_size,
		       const struct vn_trace_params *p, void (*wake)(void *arg), void *wake_arg);

/*
 * The slow path of vn_trace_write() and vn_trace_put(): span says the record's modeled
 * start and end (for a LOST record's span if it is dropped), or NULL. False: no room,
 * the record dropped and counted.
 */
bool vn_trace_slow_span(struct vn_trace_ring *r, const u64 *span);

/* vn_trace_put()'s slow path, out of line: the span by value keeps the fast path in registers. */
bool vn_trace_slow_put(struct vn_trace_ring *r, u64 start, u64 end);

/* The same for a record given whole; rec may be NULL. */
static inline bool vn_trace_slow(struct vn_trace_ring *r, const struct vneuron_trace_record *rec)
{
	u64 span[2];

	if (!rec)
		return vn_trace_slow_span(r, NULL);
	span[0] = rec->model_start_ps;
	span[1] = rec->model_end_ps;
	return vn_trace_slow_span(r, span);
}

/*
 * Publishes everything written (end of an instruction batch or an execution) and wakes
 * the consumer if the watermark is reached.
 */
void vn_trace_flush(struct vn_trace_ring *r);

/* Final flush before the ring stops: publishes and always wakes the consumer. */
void vn_trace_stop(struct vn_trace_ring *r);

/*
 * For the glue's poll(), from any thread: whether published records are unread. Reads
 * only the shared pages, never the producer's private state.
 */
static inline bool vn_trace_readable(const struct vn_trace_ring *r)
{
	return vn_load_acquire(&r->ctrl->producer_pos) != READ_ONCE(r->cons->consumer_pos);
}

/* Whether tracing is on for a ring pointer an engine holds: the one branch when off. */
static inline bool vn_trace_on(const struct vn_trace_ring *r)
{
	return unlikely(!!r);
}

/*
 * Writes one record. The whole record is copied, so nothing from the caller's stack
 * beyond it can leak. Returns false if the record was dropped (stop mode, ring full):
 * the drop is counted and reported by a LOST record once there is room again.
 */
static inline bool vn_trace_write(struct vn_trace_ring *r,
				  const struct vneuron_trace_record *rec)
{
	if (unlikely(r->head >= r->stop) && !vn_trace_slow(r, rec))
		return false;
	memcpy(r->data + (r->head & r->mask), rec, sizeof(*rec));
	r->head += sizeof(*rec);
	return true;
}

/*
 * A record as the eight 64-bit words of its uapi layout (vneuron_trace.h), built in
 * registers and stored straight into the ring: no copy of a record assembled on the
 * stack, whose field-by-field stores a wide copy would then wait for (a store-forwarding
 * stall of some 15 cycles a load on x86). The words are the record's bytes on a
 * little-endian CPU; elsewhere vn_trace_put() lays the fields out one by one.
 */
static inline u64 vn_trace_w0(u8 kind, u8 engine, u16 opcode, u32 pc)
{
	return kind | (u64)engine << 8 | (u64)opcode << 16 | (u64)pc << 32;
}

/* Two u32 fields side by side: exec_seq/elements, bytes/sem_value. */
static inline u64 vn_trace_w32(u32 lo, u32 hi)
{
	return lo | (u64)hi << 32;
}

static inline u64 vn_trace_w7(u16 sem_wait, u16 sem_signal, u16 dma_queue, u16 dma_desc)
{
	return sem_wait | (u64)sem_signal << 16 | (u64)dma_queue << 32 | (u64)dma_desc << 48;
}

/* A record's eight words, in the order of its layout (core/vn_trace_event.h fills them). */
struct vn_trace_words {
	u64 w0;		/* vn_trace_w0(): kind, engine, opcode, pc */
	u64 start;	/* model_start_ps */
	u64 end;	/* model_end_ps */
	u64 host;	/* host_ns */
	u64 w4;		/* vn_trace_w32(): exec_seq, elements */
	u64 w5;		/* flops or count */
	u64 w6;		/* vn_trace_w32(): bytes, sem_value */
	u64 w7;		/* vn_trace_w7(): sem_wait, sem_signal, dma_queue, dma_desc */
};

/*
 * The record's fields from its words, one by one: for a record kept in memory (the
 * profiler's replay) and for vn_trace_wput() on a big-endian CPU. Sets every byte.
 */
static inline void vn_trace_rec_words(struct vneuron_trace_record *t,
				      const struct vn_trace_words *x)
{
	t->kind = (u8)x->w0;
	t->engine = (u8)(x->w0 >> 8);
	t->opcode = (u16)(x->w0 >> 16);
	t->pc = (u32)(x->w0 >> 32);
	t->model_start_ps = x->start;
	t->model_end_ps = x->end;
	t->host_ns = x->host;
	t->exec_seq = (u32)x->w4;
	t->elements = (u32)(x->w4 >> 32);
	t->flops = x->w5;
	t->bytes = (u32)x->w6;
	t->sem_value = (u32)(x->w6 >> 32);
	t->sem_wait = (u16)x->w7;
	t->sem_signal = (u16)(x->w7 >> 16);
	t->dma_queue = (u16)(x->w7 >> 32);
	t->dma_desc = (u16)(x->w7 >> 48);
}

/*
 * A writer: the ring's hot fields (data, mask, head, stop) held in the caller's locals for
 * a run of records. In a loop of vn_trace_put() the head goes through r->head in memory
 * from one record to the next: a store-to-load forwarding (about 5 cycles) on the
 * critical path of every record, and the compiler must reload data, mask and stop after
 * each record's stores, which may alias them. A writer on the stack whose address is
 * never taken lives in registers, so a record costs only its stores. One writer per
 * ring at a time (the ring's single producer); between vn_trace_writer_begin() and
 * vn_trace_writer_end() nothing but the writer itself may write to the ring or read its
 * head (vn_trace_flush(), vn_trace_reserve()): end the writer first.
 */
struct vn_trace_writer {
	struct vn_trace_ring *ring;
	u8 *data;
	u64 mask;
	u64 head;
	u64 stop;
};

static inline void vn_trace_writer_begin(struct vn_trace_writer *w, struct vn_trace_ring *r)
{
	w->ring = r;
	w->data = r->data;
	w->mask = r->mask;
	w->head = r->head;
	w->stop = r->stop;
}

/* Stores the writer's head back into the ring. */
static inline void vn_trace_writer_end(struct vn_trace_writer *w)
{
	w->ring->head = w->head;
}

/*
 * Writes one record given as its words (w0: vn_trace_w0(), w4 and w6: vn_trace_w32(),
 * w7: vn_trace_w7(); start, end, host and w5 the 64-bit fields). Every byte of the
 * record is written. Returns false if it was dropped, as vn_trace_write().
 */
static inline bool vn_trace_wput(struct vn_trace_writer *w, u64 w0, u64 start, u64 end,
				 u64 host, u64 w4, u64 w5, u64 w6, u64 w7)
{
	u64 *rec;

	if (unlikely(w->head >= w->stop)) {
		bool ok;

		/* The slow path works on the ring: hand it the head, take back its limits. */
		w->ring->head = w->head;
		ok = vn_trace_slow_put(w->ring, start, end);
		w->head = w->ring->head;
		w->stop = w->ring->stop;
		if (!ok)
			return false;
	}
	rec = (u64 *)(w->data + (w->head & w->mask));
	/*
	 * The line a batch ahead, owned (the consumer's core read it a lap ago): its
	 * transfer overlaps this batch's, and the stores to it do not wait.
	 */
	vn_prefetchw(w->data + ((w->head + VN_TRACE_PREFETCH) & w->mask));
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	rec[0] = w0;
	rec[1] = start;
	rec[2] = end;
	rec[3] = host;
	rec[4] = w4;
	rec[5] = w5;
	rec[6] = w6;
	rec[7] = w7;
#else
	{
		struct vn_trace_words x = { w0, start, end, host, w4, w5, w6, w7 };

		vn_trace_rec_words((struct vneuron_trace_record *)rec, &x);
	}
#endif
	w->head += sizeof(struct vneuron_trace_record);
	return true;
}

static inline bool vn_trace_wput_words(struct vn_trace_writer *w, const struct vn_trace_words *x)
{
	return vn_trace_wput(w, x->w0, x->start, x->end, x->host, x->w4, x->w5, x->w6, x->w7);
}

/* One record through a writer of its own: for a producer that writes one at a time. */
static inline bool vn_trace_put(struct vn_trace_ring *r, u64 w0, u64 start, u64 end, u64 host,
				u64 w4, u64 w5, u64 w6, u64 w7)
{
	struct vn_trace_writer w;
	bool ok;

	vn_trace_writer_begin(&w, r);
	ok = vn_trace_wput(&w, w0, start, end, host, w4, w5, w6, w7);
	vn_trace_writer_end(&w);
	return ok;
}

/*
 * Reserve/commit: a slot to fill in place, or NULL (dropped, counted). The caller must
 * set every field of the slot (it holds an older record) before vn_trace_commit().
 */
static inline struct vneuron_trace_record *vn_trace_reserve(struct vn_trace_ring *r)
{
	if (unlikely(r->head >= r->stop) && !vn_trace_slow(r, NULL))
		return NULL;
	return (struct vneuron_trace_record *)(r->data + (r->head & r->mask));
}

static inline void vn_trace_commit(struct vn_trace_ring *r)
{
	r->head += sizeof(struct vneuron_trace_record);
}

/*
 * Rings per core: one per engine, each written by the one executor thread that runs it
 * (core/exec.c): the four engines, the 16 DMA queues together, the collective engine.
 */
#define VN_TRACE_RINGS_PER_CORE		(VNEURON_ENGINE_COUNT + 2)
#define VN_TRACE_RING_DMA		VNEURON_ENGINE_COUNT
#define VN_TRACE_RING_CC		(VNEURON_ENGINE_COUNT + 1)

static inline u32 vn_trace_ring_of(u32 stream)
{
	if (stream < VNEURON_ENGINE_COUNT)
		return stream;
	return stream == VNEURON_STREAM_CC ? VN_TRACE_RING_CC : VN_TRACE_RING_DMA;
}

/* vneuron_trace_ctrl.engine of ring i: the engine, or VNEURON_TRACE_ENGINE_DMA / _CC. */
static inline u32 vn_trace_ring_engine(u32 ring)
{
	if (ring < VNEURON_ENGINE_COUNT)
		return ring;
	return ring == VN_TRACE_RING_CC ? VNEURON_TRACE_ENGINE_CC : VNEURON_TRACE_ENGINE_DMA;
}

/*
 * The records of one executor event (core/trace_event.c): an INSN or DMA record, and a
 * SEM record (sem_value 0: not known there) for each semaphore signalled beyond the
 * first. Call it from the event hook, on ring vn_trace_ring_of(ev->stream).
 */
struct vn_event;
void vn_trace_event(struct vn_trace_ring *r, const struct vn_event *ev);
/*
 * The records of an execution's edge (core/trace_event.c), from the edge hook: at the
 * start EXEC_START; at the end an ERROR record for a device fault (where it stopped),
 * then EXEC_END (modeled time, result, reason). The glue publishes the rings after.
 */
struct vn_exec_status;
void vn_trace_exec_edge(struct vn_trace_ring *r, const struct vn_exec_status *st, bool end);

/* A record of a kind with every field zero and no semaphores. */
static inline void vn_trace_rec_init(struct vneuron_trace_record *rec, u8 kind, u8 engine)
{
	memset(rec, 0, sizeof(*rec));
	rec->kind = kind;
	rec->engine = engine;
	rec->sem_wait = VNEURON_TRACE_NO_SEM;
	rec->sem_signal = VNEURON_TRACE_NO_SEM;
}

#endif /* VN_TRACE_H */
