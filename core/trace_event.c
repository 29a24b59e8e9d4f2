// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Executor events (core/vn_exec.h) to trace records: what the glue's event hook calls, in
 * the executor thread that ran the instruction or descriptor, on its engine's ring.
 */
#include "vn_os.h"
#include "vn_trace_event.h"

/*
 * The event's records written as their words (vn_trace_wput(): the hot path, no record
 * on the stack), through one writer: the head stays in a register between them.
 */
void vn_trace_event(struct vn_trace_ring *r, const struct vn_event *ev)
{
	struct vn_trace_writer w;
	struct vn_trace_words x;
	u64 sig = ev->signal_mask;

	vn_trace_event_words(&x, ev);
	vn_trace_writer_begin(&w, r);
	vn_trace_wput_words(&w, &x);
	/* The record names the first signalled semaphore; each further one gets a SEM record. */
	for (sig &= sig - 1; sig; sig &= sig - 1) {
		vn_trace_sem_words(&x, ev, (u16)__builtin_ctzll(sig));
		vn_trace_wput_words(&w, &x);
	}
	vn_trace_writer_end(&w);
}

/* ERROR: where a device fault stopped the execution (uapi/vneuron_trace.h). */
static void vn_trace_fault(struct vn_trace_ring *r, const struct vn_exec_status *st, u64 now)
{
	struct vneuron_trace_record rec;
	bool dma = st->stream >= VNEF_ENGINES && st->stream < VNEF_STREAM_CC;

	vn_trace_rec_init(&rec, VNEURON_TRACE_ERROR,
			  dma ? VNEURON_TRACE_ENGINE_DMA :
			  st->stream == VNEF_STREAM_CC ? VNEURON_TRACE_ENGINE_CC :
			  (u8)min_t(u32, st->stream, 0xff));
	rec.host_ns = now;
	rec.exec_seq = (u32)st->seq;
	rec.pc = st->pc;
	rec.opcode = (u16)st->reason;
	rec.model_start_ps = st->fault.time_ps;
	rec.model_end_ps = st->fault.time_ps;
	rec.elements = st->fault.mem;
	rec.sem_value = st->fault.index;
	rec.count = st->fault.offset;
	rec.bytes = vn_trace_sat32(st->fault.len);
	if (dma) {
		rec.dma_queue = (u16)(st->stream - VNEF_ENGINES);
		rec.dma_desc = (u16)min_t(u32, st->pc, 0xffff);
	}
	vn_trace_write(r, &rec);
}

void vn_trace_exec_edge(struct vn_trace_ring *r, const struct vn_exec_status *st, bool end)
{
	struct vneuron_trace_record rec;
	u64 now = vn_time_ns();

	vn_trace_rec_init(&rec, end ? VNEURON_TRACE_EXEC_END : VNEURON_TRACE_EXEC_START,
			  VNEURON_TRACE_ENGINE_CORE);
	rec.host_ns = now;
	rec.exec_seq = (u32)st->seq;
	if (!end && st->lnc > 1) {
		/* an instance of a logical core's launch: its LNC and program id */
		rec.opcode = st->lnc;
		rec.pc = st->pid;
	}
	if (end) {
		if (st->result == VN_RES_FAULT)
			vn_trace_fault(r, st, now);
		rec.model_end_ps = st->model_ps;
		rec.opcode = (u16)st->result;	/* enum vneuron_exec_status */
		rec.elements = st->reason;
	}
	vn_trace_write(r, &rec);
}
