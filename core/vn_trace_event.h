/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * An executor event (core/vn_exec.h) as trace records (uapi/vneuron_trace.h): the one
 * encoder of the format from an event's fields. The device's producer writes the words
 * into a ring (core/trace_event.c); the profiler's replay keeps them as records
 * (profiler/analysis/replay.c), which must read as the device's would.
 */
#ifndef VN_TRACE_EVENT_H
#define VN_TRACE_EVENT_H

#include "vn_exec.h"
#include "vn_trace.h"

static inline u32 vn_trace_sat32(u64 v)
{
	return v > 0xffffffffull ? 0xffffffffu : (u32)v;
}

/*
 * The event's INSN, DMA or CC record, naming the first semaphore it signals (each further
 * one gets a SEM record: vn_trace_sem_words()). A CC record's fields are the uapi's:
 * count the latest arrival, elements the members, dma_queue the rank, dma_desc the last
 * to arrive.
 */
static inline void vn_trace_event_words(struct vn_trace_words *w, const struct vn_event *ev)
{
	bool cc = ev->stream == VNEF_STREAM_CC;
	bool dma = ev->stream >= VNEF_ENGINES && !cc;
	u8 engine = cc ? VNEURON_TRACE_ENGINE_CC : dma ? VNEURON_TRACE_ENGINE_DMA : ev->stream;
	u8 kind = cc ? VNEURON_TRACE_CC : dma ? VNEURON_TRACE_DMA : VNEURON_TRACE_INSN;
	bool waits = ev->wait_sem != VN_EVT_NO_WAIT;
	u16 queue = dma ? (u16)ev->dma_queue : cc ? (u16)ev->cc_rank : 0;
	u16 desc = dma ? (u16)ev->dma_desc : cc ? (u16)ev->cc_last : 0;
	u16 first = ev->signal_mask ? (u16)__builtin_ctzll(ev->signal_mask) :
			VNEURON_TRACE_NO_SEM;

	w->w0 = vn_trace_w0(kind, engine, dma ? 0 : (u16)ev->opcode, ev->pc);
	w->start = ev->start_ps;
	w->end = ev->end_ps;
	w->host = ev->host_ns;
	w->w4 = vn_trace_w32((u32)ev->exec_seq, cc ? ev->cc_members : vn_trace_sat32(ev->elements));
	w->w5 = cc ? ev->cc_latest_ps : ev->flops;
	w->w6 = vn_trace_w32(vn_trace_sat32(ev->bytes), waits ? ev->wait_value : 0);
	w->w7 = vn_trace_w7(waits ? (u16)ev->wait_sem : VNEURON_TRACE_NO_SEM, first, queue, desc);
}

/*
 * The SEM record of semaphore sem, signalled by ev beyond its first: at the event's end,
 * sem_value 0 (not known there), a DMA event's queue in dma_queue.
 */
static inline void vn_trace_sem_words(struct vn_trace_words *w, const struct vn_event *ev,
				      u16 sem)
{
	bool dma = ev->stream >= VNEF_ENGINES && ev->stream != VNEF_STREAM_CC;
	u8 engine = ev->stream == VNEF_STREAM_CC ? VNEURON_TRACE_ENGINE_CC :
		    dma ? VNEURON_TRACE_ENGINE_DMA : ev->stream;

	w->w0 = vn_trace_w0(VNEURON_TRACE_SEM, engine, 0, ev->pc);
	w->start = ev->end_ps;
	w->end = ev->end_ps;
	w->host = ev->host_ns;
	w->w4 = vn_trace_w32((u32)ev->exec_seq, 0);
	w->w5 = 0;
	w->w6 = 0;
	w->w7 = vn_trace_w7(VNEURON_TRACE_NO_SEM, sem, dma ? (u16)ev->dma_queue : 0, 0);
}

#endif /* VN_TRACE_EVENT_H */
