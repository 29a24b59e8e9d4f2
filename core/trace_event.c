// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Executor events (core/vn_exec.h) to trace records: what the glue's event hook calls, in
 * the executor thread that ran the instruction or descriptor, on its engine's ring.
 */
#include "vn_exec.h"
#include "vn_os.h"
#include "vn_trace.h"

static u32 vn_sat32(u64 v)
{
	return v > 0xffffffffull ? 0xffffffffu : (u32)v;
}

/*
 * One record per event, written as its words (vn_trace_put(): the hot path, no record
 * on the stack). A CC record's fields are uapi/vneuron_trace.h's: count the latest
 * arrival, elements the members, dma_queue the rank, dma_desc the last to arrive.
 */
void vn_trace_event(struct vn_trace_ring *r, const struct vn_event *ev)
{
	bool cc = ev->stream == VNEF_STREAM_CC;
	bool dma = ev->stream >= VNEF_ENGINES && !cc;
	u8 engine = cc ? VNEURON_TRACE_ENGINE_CC : dma ? VNEURON_TRACE_ENGINE_DMA : ev->stream;
	u8 kind = cc ? VNEURON_TRACE_CC : dma ? VNEURON_TRACE_DMA : VNEURON_TRACE_INSN;
	bool waits = ev->wait_sem != VN_EVT_NO_WAIT;
	u16 queue = dma ? (u16)ev->dma_queue : cc ? (u16)ev->cc_rank : 0;
	u16 desc = dma ? (u16)ev->dma_desc : cc ? (u16)ev->cc_last : 0;
	u16 first = VNEURON_TRACE_NO_SEM;
	u64 sig = ev->signal_mask, w4 = vn_trace_w32((u32)ev->exec_seq, cc ? ev->cc_members :
						     vn_sat32(ev->elements));
	struct vn_trace_writer w;

	if (sig) {
		first = (u16)__builtin_ctzll(sig);
		sig &= sig - 1;
	}
	/* One writer for the event's records: the head stays in a register between them. */
	vn_trace_writer_begin(&w, r);
	vn_trace_wput(&w, vn_trace_w0(kind, engine, dma ? 0 : (u16)ev->opcode, ev->pc),
		      ev->start_ps, ev->end_ps, ev->host_ns, w4,
		      cc ? ev->cc_latest_ps : ev->flops,
		      vn_trace_w32(vn_sat32(ev->bytes), waits ? ev->wait_value : 0),
		      vn_trace_w7(waits ? (u16)ev->wait_sem : VNEURON_TRACE_NO_SEM, first, queue,
				  desc));

	/* A record names one signalled semaphore; each further one gets a SEM record. */
	for (; sig; sig &= sig - 1)
		vn_trace_wput(&w, vn_trace_w0(VNEURON_TRACE_SEM, engine, 0, ev->pc), ev->end_ps,
			      ev->end_ps, ev->host_ns, vn_trace_w32((u32)ev->exec_seq, 0), 0, 0,
			      vn_trace_w7(VNEURON_TRACE_NO_SEM, (u16)__builtin_ctzll(sig),
					  dma ? queue : 0, 0));
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
	rec.bytes = vn_sat32(st->fault.len);
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
	if (end) {
		if (st->result == VN_RES_FAULT)
			vn_trace_fault(r, st, now);
		rec.model_end_ps = st->model_ps;
		rec.opcode = (u16)st->result;	/* enum vneuron_exec_status */
		rec.elements = st->reason;
	}
	vn_trace_write(r, &rec);
}
