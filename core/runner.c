// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The runner: the core's thread that runs the engines' and the DMA queues' streams of the
 * current execution, one at a time, each for as long as its entries may start (a
 * cooperative executor: a hand-off between two engines is a semaphore and a loop, not a
 * wake-up).
 */
#include "vn_sched.h"

#define VN_YIELD_NS	1000000	/* a scheduling point at least this often */

/*
 * Before each entry: false (the execution ended TIME_LIMIT) past the limit, else a
 * scheduling point now and then. limit: the engines' is the time limit, the DMA queues'
 * the waits' (vn_wait_deadline()), as when each had a worker of its own.
 */
static bool pace(struct vn_core *c, u32 sid, u32 pc, u64 limit)
{
	u64 now = vn_time_ns();

	if (now > limit) {
		vn_lock_take(c->lock);
		vn_set_abort(c, VN_RES_TIMEOUT, VN_REASON_TIME_LIMIT, sid, pc);
		return false;
	}
	if (now - c->run_yield_ns > VN_YIELD_NS) {
		vn_thread_yield();
		c->run_yield_ns = now;
	}
	return true;
}

/*
 * The entry at the stream's pc may start: 1, with its start time; 0 if it waits for a
 * value not yet reached (the stream is then BLOCKED); -EFAULT if the wait is outside
 * the semaphore's table (the execution then ends with a fault). c->lock held.
 */
static int may_start(struct vn_core *c, struct vn_exec *ex, u32 sid, u32 flags, u32 sem,
		     u32 val, u64 *start)
{
	struct vn_fault f;

	*start = c->ss[sid].t_ps;
	if (!(flags & VNEF_IF_WAIT))
		return 1;
	if (!vn_wait_ok(ex, sem, val, *start, &f)) {
		vn_set_fault(c, VN_REASON_FAULT_SEM, sid, c->ss[sid].pc, &f);
		return -EFAULT;
	}
	if (c->sem_val[sem] < val) {
		vn_stream_block(c, sid, sem, val);
		return 0;
	}
	*start = max(*start, ex->sem_base[sem][val - 1]);
	return 1;
}

/*
 * The entry at pc of stream sid ended at the stream's time: its semaphores signalled and
 * its event handed to the observer. c->lock held in and out. False: a signal outside its
 * time table ended the execution with a fault.
 */
static bool entry_end(struct vn_core *c, struct vn_exec *ex, struct vn_event *ev, u32 sid,
		      u32 pc, u32 flags, u32 wsem, u32 wval, u64 mask, u64 start)
{
	u64 end = c->ss[sid].t_ps;
	struct vn_fault f;

	if (mask && !vn_signal_sems(c, ex, mask, end, &f)) {
		vn_set_fault(c, VN_REASON_FAULT_SEM, sid, pc, &f);
		return false;
	}
	if (unlikely(c->ex_hook)) {
		vn_lock_drop(c->lock);
		vn_emit(c, ex, ev, sid, pc, flags & VNEF_IF_WAIT ? wsem : VN_NO_IDX, wval, mask,
			start, end);
		vn_lock_take(c->lock);
	}
	return true;
}

/*
 * Runs engine e's instructions from its pc for as long as they may start: returns when
 * one waits for a value not yet reached (the stream BLOCKED) or the stream ended, then
 * maybe with the execution to complete. c->lock held in and out, dropped around the work.
 */
static struct vn_exec *run_engine(struct vn_core *c, struct vn_exec *ex, u32 e)
{
	const struct vn_stream *st = &ex->prog->streams[e];
	struct vn_stream_run *r = &c->ss[e];
	struct vn_fault f;
	struct vn_event ev;
	u64 start, cost;
	u32 pc;
	int ok;

	r->state = VN_SS_RUN;
	for (; r->pc < st->count && !c->abort; r->pc++) {
		const struct vnef_instr *in = &st->instr[r->pc];

		pc = r->pc;
		ok = may_start(c, ex, e, in->flags, in->wait_sem, in->wait_value, &start);
		if (!ok)
			return NULL;
		if (ok < 0)
			break;
		vn_lock_drop(c->lock);
		if (!pace(c, e, pc, c->deadline_ns))
			break;
		if (!vn_engine_check(c, e, in, &f)) {
			f.time_ps = start;
			vn_lock_take(c->lock);
			vn_set_fault(c, vn_fault_reason(&f), e, pc, &f);
			break;
		}
		c->fp[e].pid = ex->pid;
		if (vn_engine_run(c, e, in)) {
			/* stopped, or over the time limit inside one long instruction */
			vn_lock_take(c->lock);
			vn_set_abort(c, VN_RES_TIMEOUT, VN_REASON_TIME_LIMIT, e, pc);
			break;
		}
		ev.opcode = in->opcode;
		ev.dma_queue = VN_NO_IDX;
		ev.dma_desc = VN_NO_IDX;
		cost = vn_engine_cost(c, e, in, &ev);
		r->t_ps = start + cost;
		r->busy_ps += cost;
		r->entries++;
		if (e == VNEURON_ENGINE_TENSOR) {
			r->flops += ev.flops;
			if (ev.flags & VN_EVT_F_TRANSPOSE)
				r->transpose_flops += ev.flops;
		}
		vn_lock_take(c->lock);
		if (!entry_end(c, ex, &ev, e, pc, in->flags, in->wait_sem, in->wait_value,
			       in->signal_mask, start))
			break;
	}
	return vn_stream_done(c, e);
}

/* Runs a DMA queue's descriptors as run_engine() runs an engine's instructions. */
static struct vn_exec *run_queue(struct vn_core *c, struct vn_exec *ex, u32 sid)
{
	const struct vn_stream *st = &ex->prog->streams[sid];
	struct vn_stream_run *r = &c->ss[sid];
	struct vn_fault f;
	struct vn_event ev;
	u64 start, cost;
	u32 pc;
	int ok;

	r->state = VN_SS_RUN;
	for (; r->pc < st->count && !c->abort; r->pc++) {
		const struct vnef_dma_desc *d = &st->desc[r->pc];

		pc = r->pc;
		ok = may_start(c, ex, sid, d->flags, d->wait_sem, d->wait_value, &start);
		if (!ok)
			return NULL;
		if (ok < 0)
			break;
		vn_lock_drop(c->lock);
		if (!pace(c, sid, pc, vn_wait_deadline(c)))
			break;
		ok = vn_dma_run(c, ex, d, &f);
		if (ok) {
			vn_lock_take(c->lock);
			if (ok == -EFAULT) {
				f.time_ps = start;
				vn_set_fault(c, vn_fault_reason(&f), sid, pc, &f);
			} else {
				vn_set_abort(c, VN_RES_TIMEOUT, VN_REASON_TIME_LIMIT, sid, pc);
			}
			break;
		}
		ev.opcode = VN_EVT_OPCODE_DMA;
		ev.dma_queue = sid - VNEF_STREAM_DMA(0);
		ev.dma_desc = pc;
		cost = vn_dma_cost(c, ex, d, &ev);
		r->t_ps = start + cost;
		r->busy_ps += cost;
		r->bytes += ev.bytes;
		r->hbm_read += ev.hbm_read;
		r->hbm_write += ev.hbm_write;
		r->entries++;
		vn_lock_take(c->lock);
		if (!entry_end(c, ex, &ev, sid, pc, d->flags, d->wait_sem, d->wait_value,
			       d->signal_mask, start))
			break;
	}
	return vn_stream_done(c, sid);
}

/*
 * One pass of the runner over the current execution (c->lock held): runs the next
 * stream that may, round robin, or ends the execution's engine and DMA streams when it
 * is stopping, or finds a deadlock, or sleeps until the CC-core signals. Returns the
 * execution to complete, if this ended it.
 */
struct vn_exec *vn_run_step(struct vn_core *c, struct vn_exec *ex)
{
	struct vn_exec *fin = NULL;
	bool live = false;
	u32 i, sid;

	for (sid = 0; sid < VNEF_STREAM_CC; sid++) {
		if (c->ss[sid].state == VN_SS_DONE)
			continue;
		if (c->abort) {
			fin = vn_stream_done(c, sid);
			if (fin)	/* the last: the next execution may have started */
				return fin;
			continue;
		}
		live = true;
	}
	if (!live) {
		/* nothing of ours: the CC-core ends the execution, or vn_start_next() wakes us */
		vn_cond_wait_worker(c->wcond[VN_RUNNER], c->lock, 0);
		return NULL;
	}
	for (i = 0; i < VNEF_STREAM_CC; i++) {
		sid = (c->run_next + i) % VNEF_STREAM_CC;
		if (vn_runnable(c, sid)) {
			c->run_next = (sid + 1) % VNEF_STREAM_CC;
			return sid < VNEF_ENGINES ? run_engine(c, ex, sid) : run_queue(c, ex, sid);
		}
	}
	/* live, none may run: one of ours is blocked, named if the execution ends here */
	for (sid = 0; c->ss[sid].state != VN_SS_BLOCKED; sid++)
		;
	if (vn_deadlocked(c)) {
		vn_set_abort(c, VN_RES_TIMEOUT, VN_REASON_DEADLOCK, sid, c->ss[sid].pc);
		return NULL;
	}
	/* every stream of ours waits for a value the CC-core will signal */
	if (vn_cond_wait_worker(c->wcond[VN_RUNNER], c->lock, vn_wait_deadline(c)) == -ETIMEDOUT &&
	    vn_time_ns() >= vn_wait_deadline(c))
		vn_set_abort(c, VN_RES_TIMEOUT, VN_REASON_TIME_LIMIT, sid, c->ss[sid].pc);
	return NULL;
}
