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

/* A CC record (uapi/vneuron_trace.h says what each field holds for it). */
static void cc_record(struct vneuron_trace_record *rec, const struct vn_event *ev)
{
	rec->flops = 0;
	rec->count = ev->cc_latest_ps;
	rec->elements = ev->cc_members;
	rec->dma_queue = (u16)ev->cc_rank;
	rec->dma_desc = (u16)ev->cc_last;
}

void vn_trace_event(struct vn_trace_ring *r, const struct vn_event *ev)
{
	bool cc = ev->stream == VNEF_STREAM_CC;
	bool dma = ev->stream >= VNEF_ENGINES && !cc;
	u8 engine = cc ? VNEURON_TRACE_ENGINE_CC : dma ? VNEURON_TRACE_ENGINE_DMA : ev->stream;
	struct vneuron_trace_record rec;
	u64 sig = ev->signal_mask;

	vn_trace_rec_init(&rec, cc ? VNEURON_TRACE_CC : dma ? VNEURON_TRACE_DMA :
			  VNEURON_TRACE_INSN, engine);
	rec.opcode = dma ? 0 : (u16)ev->opcode;
	rec.pc = ev->pc;
	rec.model_start_ps = ev->start_ps;
	rec.model_end_ps = ev->end_ps;
	rec.host_ns = ev->host_ns;
	rec.exec_seq = (u32)ev->exec_seq;
	rec.elements = vn_sat32(ev->elements);
	rec.flops = ev->flops;
	rec.bytes = vn_sat32(ev->bytes);
	if (ev->wait_sem != VN_EVT_NO_WAIT) {
		rec.sem_wait = (u16)ev->wait_sem;
		rec.sem_value = ev->wait_value;
	}
	if (sig) {
		rec.sem_signal = (u16)__builtin_ctzll(sig);
		sig &= sig - 1;
	}
	if (dma) {
		rec.dma_queue = (u16)ev->dma_queue;
		rec.dma_desc = (u16)ev->dma_desc;
	}
	if (cc)
		cc_record(&rec, ev);
	vn_trace_write(r, &rec);

	/* A record names one signalled semaphore; each further one gets a SEM record. */
	while (sig) {
		vn_trace_rec_init(&rec, VNEURON_TRACE_SEM, engine);
		rec.pc = ev->pc;
		rec.model_start_ps = ev->end_ps;
		rec.model_end_ps = ev->end_ps;
		rec.host_ns = ev->host_ns;
		rec.exec_seq = (u32)ev->exec_seq;
		rec.sem_signal = (u16)__builtin_ctzll(sig);
		if (dma)
			rec.dma_queue = (u16)ev->dma_queue;
		sig &= sig - 1;
		vn_trace_write(r, &rec);
	}
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
