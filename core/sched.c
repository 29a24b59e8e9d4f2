// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The executor's state machine of a core's current execution (c->lock held): starting
 * the next queued execution, its streams' states and semaphores, ending it (the abort
 * and fault statuses), its accounting, and waking the workers that may run. Modeled
 * clock and locking: core/vn_sched.h.
 */
#include "vn_sched.h"

/*
 * Workers sleep on their own condition and are woken only when they have something to
 * do: five threads woken for every semaphore made a storm of futex calls on the host.
 */
static void wake_worker(struct vn_core *c, u32 id)
{
	if (c->wcond[id])	/* NULL only in a core whose creation failed */
		vn_cond_broadcast(c->wcond[id]);
}

void vn_wake_all(struct vn_core *c)
{
	u32 id;

	for (id = 0; id < VN_WORKERS; id++)
		wake_worker(c, id);
	if (c->cond)
		vn_cond_broadcast(c->cond);
}

/* The worker of each stream that may now run: the runner, the CC-core's worker. */
static void wake_runnable(struct vn_core *c)
{
	bool run = false;
	u32 sid;

	for (sid = 0; sid < VNEF_STREAMS; sid++) {
		if (!vn_runnable(c, sid))
			continue;
		if (sid == VNEF_STREAM_CC)
			wake_worker(c, VN_CC_WORKER);
		else
			run = true;
	}
	if (run)
		wake_worker(c, VN_RUNNER);
}

void vn_set_abort(struct vn_core *c, u32 result, u32 reason, u32 stream, u32 pc)
{
	struct vn_exec *ex = c->cur;

	vn_lock_assert_held(c->lock);
	if (!ex || c->abort)
		return;
	vn_store_release(&c->abort, 1);
	ex->st.result = result;
	ex->st.reason = reason;
	ex->st.stream = stream;
	ex->st.pc = pc;
	vn_wake_all(c);
}

static const char *const fault_what[] = {
	[VN_REASON_FAULT_SBUF - VN_REASON_FAULT_SBUF] = "an access outside SBUF",
	[VN_REASON_FAULT_PSUM - VN_REASON_FAULT_SBUF] = "an access outside PSUM",
	[VN_REASON_FAULT_HBM - VN_REASON_FAULT_SBUF] = "an access outside a bound HBM buffer",
	[VN_REASON_FAULT_SEM - VN_REASON_FAULT_SBUF] = "a semaphore outside its table",
	[VN_REASON_FAULT_STATE - VN_REASON_FAULT_SBUF] = "operands the engine cannot hold",
};

/* The executor's check stopped an access the validator let through. */
void vn_set_fault(struct vn_core *c, u32 reason, u32 stream, u32 pc,
		  const struct vn_fault *f)
{
	struct vn_exec *ex = c->cur;

	vn_lock_assert_held(c->lock);
	if (c->fault_abort)
		vn_bug("device fault: the validator accepted", fault_what[reason -
		       VN_REASON_FAULT_SBUF]);
	if (!ex || c->abort)
		return;
	ex->st.fault = *f;
	vn_set_abort(c, VN_RES_FAULT, reason, stream, pc);
}

u32 vn_fault_reason(const struct vn_fault *f)
{
	switch (f->mem) {
	case VNEF_MEM_SBUF:
		return VN_REASON_FAULT_SBUF;
	case VNEF_MEM_PSUM:
		return VN_REASON_FAULT_PSUM;
	case VNEF_MEM_HBM:
		return VN_REASON_FAULT_HBM;
	default:
		return VN_REASON_FAULT_STATE;
	}
}

/* Zero what one owner may have left on chip, in pieces: it is 26 MiB. */
void vn_core_scrub(struct vn_core *c)
{
	size_t sb = (size_t)VNEF_PARTITIONS * VNEF_SBUF_PART_BYTES;
	size_t pb = (size_t)VNEF_PARTITIONS * VNEF_PSUM_PART_BYTES;
	size_t off, step = 1u << 20;
	u32 i;

	for (off = 0; off < sb; off += step) {
		memset(c->sbuf + off, 0, min(step, sb - off));
		vn_cond_resched();
	}
	memset(c->psum, 0, pb);
	memset(c->sem_val, 0, sizeof(c->sem_val));
	for (i = 0; i < VNEF_ENGINES; i++)
		vn_engine_ctx_scrub(&c->fp[i]);
	c->clean = true;
}

void vn_start_next(struct vn_core *c)
{
	struct vn_program *p;
	struct vn_exec *ex;
	u32 sid;

	vn_lock_assert_held(c->lock);
	if (c->cur || c->paused || c->stop || !c->q_head)
		return;
	ex = c->q_head;
	c->q_head = ex->next;
	if (!c->q_head)
		c->q_tail = NULL;
	ex->next = NULL;
	p = ex->prog;

	if (ex->owner != c->last_owner) {
		if (!c->clean)
			vn_core_scrub(c);
		c->last_owner = ex->owner;
	}
	c->clean = false;
	c->cur = ex;
	vn_store_release(&c->abort, 0);
	memset(c->sem_val, 0, sizeof(c->sem_val));
	memset(c->ss, 0, sizeof(c->ss));
	c->streams_live = 0;
	for (sid = 0; sid < VNEF_STREAMS; sid++) {
		if (p->streams[sid].count) {
			c->ss[sid].state = VN_SS_READY;
			c->streams_live++;
		}
	}
	for (sid = 0; sid < VNEF_ENGINES; sid++)
		c->fp[sid].stat_k = 0;
	c->start_ns = vn_time_ns();
	c->deadline_ns = c->start_ns + ex->limit_ns;
	vn_lock_take(ex->lock);
	ex->st.state = VN_EXEC_RUNNING;
	ex->st.seq = ++c->seq;
	vn_lock_drop(ex->lock);
	if (c->monitor)
		c->monitor(c->monitor_arg, &ex->st, false);
	/* The observer decides at the start; this execution keeps what it took. */
	c->ex_hook = c->hook;
	c->ex_edge = c->edge;
	c->ex_arg = c->hook_arg;
	c->ex_gone = NULL;
	if (c->ex_edge && !c->ex_edge(c->ex_arg, &ex->st, false)) {
		c->ex_hook = NULL;
		c->ex_edge = NULL;
		c->ex_arg = NULL;
	}
	wake_runnable(c);
}

static void count_stat(struct vn_core *c, u32 stat, u64 v)
{
	if (c->stats && v)
		vn_counter_add(&c->stats->c[stat], v);
}

/* The telemetry counters of the execution ending (kmod/genl.c), inside begin/end. */
static void count_run(struct vn_core *c, u32 result, u64 model_ps, u64 host_ns)
{
	struct vn_core_stats *s = c->stats;
	u32 sid;

	if (result < VN_STATS_RESULTS)
		vn_stat_add(&s->results[result], 1);
	for (sid = 0; sid < VNEF_STREAMS; sid++) {
		const struct vn_stream_run *r = &c->ss[sid];

		vn_stat_add(&s->stream_busy_ps[sid], r->busy_ps);
		vn_stat_add(&s->hbm_read, r->hbm_read);
		vn_stat_add(&s->hbm_write, r->hbm_write);
		vn_stat_add(sid < VNEF_ENGINES || sid == VNEF_STREAM_CC ? &s->instructions :
			    &s->descriptors, r->entries);
	}
	vn_stat_add(&s->model_ps, model_ps);
	vn_stat_add(&s->host_ns, host_ns);
}

/* The current execution ended: account it and start the next. Returns it to complete. */
struct vn_exec *vn_exec_finish(struct vn_core *c)
{
	struct vn_exec *ex = c->cur;
	u64 end = 0, busy = 0, flops = 0, bytes = 0;
	u32 sid;

	vn_lock_assert_held(c->lock);
	for (sid = 0; sid < VNEF_STREAMS; sid++) {
		struct vn_stream_run *r = &c->ss[sid];

		end = max(end, r->t_ps);
		busy += r->busy_ps;
		c->cnt.busy_ps[sid] += r->busy_ps;
		flops += r->flops;
		c->cnt.transpose_flops += r->transpose_flops;
		c->cnt.hbm_read += r->hbm_read;
		c->cnt.hbm_write += r->hbm_write;
		if (sid == VNEF_STREAM_CC) {
			/* entries: its collectives (NOPs are not counted), bytes: their inputs */
			c->cnt.collectives += r->entries;
			c->cnt.collective_bytes += r->bytes;
			count_stat(c, VN_STAT_COLLECTIVES, r->entries);
			count_stat(c, VN_STAT_COLLECTIVE_BYTES, r->bytes);
			continue;
		}
		bytes += r->bytes;
		if (sid < VNEF_ENGINES)
			c->cnt.instructions += r->entries;
		else
			c->cnt.descriptors += r->entries;
	}
	c->cnt.flops += flops;
	c->cnt.dma_bytes += bytes;
	c->cnt.model_ps += end;
	if (c->stats)
		vn_core_stats_begin(c->stats);
	vn_lock_take(ex->lock);
	ex->st.model_ps = end;
	ex->st.host_ns = vn_time_ns() - c->start_ns;
	vn_lock_drop(ex->lock);
	if (c->ex_edge)
		c->ex_edge(c->ex_arg, &ex->st, true);
	if (c->ex_gone)
		c->ex_gone(c->ex_arg);
	c->ex_hook = NULL;
	c->ex_edge = NULL;
	c->ex_arg = NULL;
	c->ex_gone = NULL;
	switch (ex->st.result) {
	case VN_RES_OK:
		c->cnt.exec_ok++;
		count_stat(c, VN_STAT_EXEC_OK, 1);
		break;
	case VN_RES_TIMEOUT:
		c->cnt.exec_timeout++;
		count_stat(c, VN_STAT_EXEC_TIMEDOUT, 1);
		break;
	case VN_RES_ABORTED:
		c->cnt.exec_aborted++;
		count_stat(c, VN_STAT_EXEC_FAILED, 1);
		break;
	case VN_RES_FAULT:
		c->cnt.exec_fault++;
		count_stat(c, VN_STAT_EXEC_FAILED, 1);
		count_stat(c, VN_STAT_DEVICE_FAULTS, 1);
		break;
	default:
		c->cnt.exec_failed++;
		count_stat(c, VN_STAT_EXEC_FAILED, 1);
	}
	count_stat(c, VN_STAT_BUSY_NS, busy / 1000);
	count_stat(c, VN_STAT_BYTES_MOVED, bytes);
	count_stat(c, VN_STAT_FLOPS, flops);
	if (c->stats) {
		count_run(c, ex->st.result, end, ex->st.host_ns);
		vn_core_stats_end(c->stats);
	}
	if (c->monitor)
		c->monitor(c->monitor_arg, &ex->st, true);
	c->cur = NULL;
	vn_store_release(&c->abort, 0);
	vn_start_next(c);
	vn_cond_broadcast(c->cond);	/* vn_core_reset() waits for cur to go */
	return ex;
}

struct vn_exec *vn_stream_done(struct vn_core *c, u32 sid)
{
	if (c->ss[sid].state == VN_SS_DONE)
		return NULL;
	c->ss[sid].state = VN_SS_DONE;
	if (--c->streams_live)
		return NULL;
	return vn_exec_finish(c);
}

/* Certain deadlock: no stream can run and none will ever signal again. */
bool vn_deadlocked(const struct vn_core *c)
{
	u32 sid;

	for (sid = 0; sid < VNEF_STREAMS; sid++) {
		const struct vn_stream_run *r = &c->ss[sid];

		if (r->state == VN_SS_DONE)
			continue;
		if (r->state == VN_SS_BLOCKED && c->sem_val[r->wait_sem] < r->wait_val)
			continue;
		return false;
	}
	return true;
}

/*
 * The validator bounds each semaphore's increments by sem_incs[s], the slots its time
 * table has; checked again here before each slot is written. False: a fault (f says).
 */
bool vn_signal_sems(struct vn_core *c, struct vn_exec *ex, u64 mask, u64 t_ps,
		    struct vn_fault *f)
{
	u32 s;

	vn_lock_assert_held(c->lock);
	for (; mask; mask &= mask - 1) {
		s = __builtin_ctzll(mask);
		if (c->sem_val[s] >= ex->prog->sem_incs[s]) {
			*f = (struct vn_fault){ .index = s, .offset = c->sem_val[s] + 1ull,
						.time_ps = t_ps };
			return false;
		}
		ex->sem_base[s][c->sem_val[s]] = t_ps;
		c->sem_val[s]++;
	}
	wake_runnable(c);
	return true;
}

/* A wait names a slot of the semaphore's time table: checked like a signal. */
bool vn_wait_ok(const struct vn_exec *ex, u32 sem, u32 val, u64 t_ps, struct vn_fault *f)
{
	if (sem < VNEF_MAX_SEMS && val && val <= ex->prog->sem_incs[sem])
		return true;
	*f = (struct vn_fault){ .index = sem, .offset = val, .time_ps = t_ps };
	return false;
}

void vn_emit(struct vn_core *c, struct vn_exec *ex, struct vn_event *ev, u32 sid, u32 pc,
	     u32 wsem, u32 wval, u64 mask, u64 start, u64 end)
{
	/* The hook runs without the lock: ex_hook and ex_arg stay fixed until the end. */
	ev->exec_seq = ex->st.seq;
	ev->stream = sid;
	ev->pc = pc;
	ev->start_ps = start;
	ev->end_ps = end;
	ev->host_ns = vn_time_ns();
	ev->wait_sem = wsem;
	ev->wait_value = wval;
	ev->signal_mask = mask;
	ev->sem_values = c->sem_val;
	c->ex_hook(c->ex_arg, ev);
}
