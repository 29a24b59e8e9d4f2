/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the executor's files share (core/exec.c, exec_pool.c, sched.c, runner.c,
 * cc_run.c, core.c); the structs are in vn_internal.h.
 *
 * Modeled clock: every stream (4 engines, 16 DMA queues, the CC-core) has its own time.
 * An entry starts at max(stream time, time its awaited semaphore value was reached) and
 * ends after its modeled cost. The program validator guarantees that each semaphore has
 * one writer stream, so the time at which value v was reached is the end time of that
 * stream's v-th signalling entry: it is recorded in sem_times and does not depend on
 * how host threads interleave. Same program, same model -> same timeline, bit for bit.
 *
 * Locking: c->lock guards the queue, stream states and semaphores; ex->lock guards an
 * execution's status for waiters. Order: c->lock, then ex->lock. Engine work runs
 * without locks (operands were validated and are checked again just before each access;
 * on-chip races are the program's own).
 */
#ifndef VN_SCHED_H
#define VN_SCHED_H

#include "vn_internal.h"

#define VN_NO_IDX	(~0u)
/*
 * While the CC-core waits at a collective, the other workers' waits end this long after
 * the time limit: the collective ends at the limit itself and names the ranks it waited
 * for (CC_MISSING), which says more than an engine's TIME_LIMIT on a semaphore the
 * collective would have signalled.
 */
#define VN_CC_GRACE_NS	500000000ull

/* A stream whose next entry may run: ready, or blocked on a value now reached. */
static inline bool vn_runnable(const struct vn_core *c, u32 sid)
{
	const struct vn_stream_run *r = &c->ss[sid];

	return r->state == VN_SS_READY ||
	       (r->state == VN_SS_BLOCKED && c->sem_val[r->wait_sem] >= r->wait_val);
}

static inline void vn_stream_block(struct vn_core *c, u32 sid, u32 sem, u32 val)
{
	c->ss[sid].state = VN_SS_BLOCKED;
	c->ss[sid].wait_sem = sem;
	c->ss[sid].wait_val = val;
}

/*
 * When a worker's wait on its condition gives up (VN_CC_GRACE_NS); read again when a wait
 * times out, since the CC-core may have reached its collective during it.
 */
static inline u64 vn_wait_deadline(struct vn_core *c)
{
	return c->deadline_ns + (vn_load_acquire(&c->cc_busy) ? VN_CC_GRACE_NS : 0);
}

/* ---- sched.c: the current execution's state machine, c->lock held ---- */

/* Wakes every worker and the callers waiting on c->cond. */
void vn_wake_all(struct vn_core *c);
/* Ends the current execution with result and reason at stream and pc (the first says). */
void vn_set_abort(struct vn_core *c, u32 result, u32 reason, u32 stream, u32 pc);
/* The executor's check stopped an access the validator let through (f says which). */
void vn_set_fault(struct vn_core *c, u32 reason, u32 stream, u32 pc,
		  const struct vn_fault *f);
/* The fault reason of an access outside the memory f names. */
u32 vn_fault_reason(const struct vn_fault *f);
/* Zeroes SBUF, PSUM, the semaphores and the engines' buffers. */
void vn_core_scrub(struct vn_core *c);
/* Starts the first queued execution if the core is idle and may start one. */
void vn_start_next(struct vn_core *c);
/* The current execution ended: accounts it, starts the next; returns it to complete. */
struct vn_exec *vn_exec_finish(struct vn_core *c);
/* Stream sid is done: the execution to complete if it was the last. */
struct vn_exec *vn_stream_done(struct vn_core *c, u32 sid);
/* Certain deadlock: no stream can run and none will ever signal again. */
bool vn_deadlocked(const struct vn_core *c);
/* Signals the semaphores of mask at t_ps; false (a fault, f says) past a time table. */
bool vn_signal_sems(struct vn_core *c, struct vn_exec *ex, u64 mask, u64 t_ps,
		    struct vn_fault *f);
/* A wait on sem >= val names a slot of its time table; false (f says) if not. */
bool vn_wait_ok(const struct vn_exec *ex, u32 sem, u32 val, u64 t_ps, struct vn_fault *f);
/* Hands an event to the observer the execution took (without c->lock). */
void vn_emit(struct vn_core *c, struct vn_exec *ex, struct vn_event *ev, u32 sid, u32 pc,
	     u32 wsem, u32 wval, u64 mask, u64 start, u64 end);

/* ---- the workers: c->lock held in and out; the execution to complete, if ended ---- */

/* runner.c: one pass of the runner over the engines' and DMA queues' streams. */
struct vn_exec *vn_run_step(struct vn_core *c, struct vn_exec *ex);
/* cc_run.c: the collective stream, from its start to its end (c->lock dropped inside). */
struct vn_exec *vn_run_cc(struct vn_core *c, struct vn_exec *ex);

/* ---- exec.c ---- */

/* Publishes the end of an execution (no core lock held); drops the core's reference. */
void vn_exec_complete(struct vn_exec *ex);
/* Ends the executions of a queue (through ->next) ABORTED with reason, and completes them. */
void vn_exec_abort_queued(struct vn_exec *list, u32 reason);

/* ---- exec_pool.c ---- */

struct vn_exec_pool *vn_exec_pool_create(void);
/* The core is going: frees the spares; executions still out free themselves. */
void vn_exec_pool_close(struct vn_exec_pool *pl);
/* A zeroed execution for p with slots semaphore times: a spare when p fits, else new. */
struct vn_exec *vn_exec_from_pool(struct vn_core *c, const struct vn_program *p, u64 slots);
/* The last reference is gone: back to its pool if it has room, else freed. */
void vn_exec_release(struct vn_exec *ex);

#endif /* VN_SCHED_H */
