// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The executor: a core's command queue, its two threads (the runner of the engines' and
 * DMA queues' streams, the CC-core's worker), semaphores and the modeled clock.
 *
 * Modeled clock: every stream (4 engines, 16 DMA queues) has its own time. An entry
 * starts at max(stream time, time its awaited semaphore value was reached) and ends
 * after its modeled cost. The program validator guarantees that each semaphore has one
 * writer stream, so the time at which value v was reached is the end time of that
 * stream's v-th signalling entry: it is recorded in sem_times and does not depend on
 * how host threads interleave. Same program, same model -> same timeline, bit for bit.
 *
 * Locking: c->lock guards the queue, stream states and semaphores; ex->lock guards an
 * execution's status for waiters. Order: c->lock, then ex->lock. Engine work runs
 * without locks (operands were validated and are checked again just before each access;
 * on-chip races are the program's own).
 */
#include "vn_internal.h"
#include "vn_comm.h"
#include "vn_model.h"

#define NO_IDX		(~0u)
#define VN_YIELD_NS	1000000	/* a scheduling point at least this often */
#define VN_SPIN_NS	20000	/* an engine polls a semaphore this long before sleeping */
/*
 * While the CC-core waits at a collective, the other workers' waits end this long after
 * the time limit: the collective ends at the limit itself and names the ranks it waited
 * for (CC_MISSING), which says more than an engine's TIME_LIMIT on a semaphore the
 * collective would have signalled.
 */
#define VN_CC_GRACE_NS	500000000ull

/* ---- executions ---- */

void vn_exec_get(struct vn_exec *ex)
{
	__atomic_add_fetch(&ex->refs, 1, __ATOMIC_RELAXED);
}

/* ---- execution memory: one allocation each, a core's spares reused ---- */

/*
 * An execution of a program with at most this many tensors and semaphore increments
 * (most) is made in the pool's fixed size, and may be reused by any such program.
 */
#define VN_POOL_TENSORS	8
#define VN_POOL_SLOTS	64
#define VN_POOL_SPARES	64	/* per core (io_uring batches of 64): 2 KiB each */

static u64 align_up(u64 x, u64 a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Where the lock, the condition, the binds and the semaphore times are. */
static u64 exec_lock_off(void)
{
	return align_up(sizeof(struct vn_exec), VN_OS_ALIGN);
}

static u64 exec_cond_off(void)
{
	return exec_lock_off() + align_up(vn_lock_size(), VN_OS_ALIGN);
}

static u64 exec_binds_off(void)
{
	return exec_cond_off() + align_up(vn_cond_size(), VN_OS_ALIGN);
}

/* A new execution's memory with room for tensors binds and slots semaphore times. */
static struct vn_exec *exec_alloc(u32 tensors, u64 slots)
{
	u64 times_off = exec_binds_off() + sizeof(struct vn_bind) * (u64)tensors;
	struct vn_exec *ex = vn_vzalloc(times_off + sizeof(u64) * slots);

	if (!ex)
		return NULL;
	ex->lock = vn_lock_init((u8 *)ex + exec_lock_off(), "vn_exec.lock");
	ex->cond = vn_cond_init((u8 *)ex + exec_cond_off(), "vn_exec.cond");
	ex->binds = (struct vn_bind *)((u8 *)ex + exec_binds_off());
	ex->sem_times = (u64 *)((u8 *)ex + times_off);
	return ex;
}

static void exec_free(struct vn_exec *ex)
{
	vn_cond_fini(ex->cond);
	vn_lock_fini(ex->lock);
	vn_vfree(ex);
}

static void pool_put(struct vn_exec_pool *pl)
{
	if (__atomic_sub_fetch(&pl->refs, 1, __ATOMIC_ACQ_REL))
		return;
	vn_lock_destroy(pl->lock);
	vn_free(pl);
}

/*
 * An execution for program p: a spare of the core's pool when p fits the pool's size,
 * all of it zeroed but its lock and condition (both idle: nobody held a reference).
 */
static struct vn_exec *exec_get(struct vn_core *c, const struct vn_program *p, u64 slots)
{
	struct vn_exec_pool *pl = c->pool;
	struct vn_exec *ex = NULL;
	struct vn_lock *lock;
	struct vn_cond *cond;

	if (!pl || p->tensor_count > VN_POOL_TENSORS || slots > VN_POOL_SLOTS)
		return exec_alloc(p->tensor_count, slots);
	vn_lock_take(pl->lock);
	if (pl->spare) {
		ex = pl->spare;
		pl->spare = ex->next;
		pl->nspare--;
	}
	vn_lock_drop(pl->lock);
	if (ex) {
		lock = ex->lock;
		cond = ex->cond;
		memset(ex, 0, sizeof(*ex));
		memset((u8 *)ex + exec_binds_off(), 0,
		       sizeof(struct vn_bind) * VN_POOL_TENSORS + sizeof(u64) * VN_POOL_SLOTS);
		ex->lock = lock;
		ex->cond = cond;
		ex->binds = (struct vn_bind *)((u8 *)ex + exec_binds_off());
		ex->sem_times = (u64 *)(ex->binds + VN_POOL_TENSORS);
	} else {
		ex = exec_alloc(VN_POOL_TENSORS, VN_POOL_SLOTS);
		if (!ex)
			return NULL;
		__atomic_add_fetch(&pl->refs, 1, __ATOMIC_RELAXED);
	}
	ex->pool = pl;
	return ex;
}

/* The last reference is gone: back to its pool if it has room, else freed. */
static void exec_release(struct vn_exec *ex)
{
	struct vn_exec_pool *pl = ex->pool;

	if (pl) {
		vn_lock_take(pl->lock);
		if (!pl->closed && pl->nspare < VN_POOL_SPARES) {
			ex->next = pl->spare;
			pl->spare = ex;
			pl->nspare++;
			vn_lock_drop(pl->lock);
			return;
		}
		vn_lock_drop(pl->lock);
	}
	exec_free(ex);
	if (pl)
		pool_put(pl);
}

static struct vn_exec_pool *pool_create(void)
{
	struct vn_exec_pool *pl = vn_zalloc(sizeof(*pl));

	if (!pl)
		return NULL;
	pl->refs = 1;
	pl->lock = vn_lock_create("vn_exec_pool.lock");
	if (!pl->lock) {
		vn_free(pl);
		return NULL;
	}
	return pl;
}

/* The core is going: free the spares; executions still out free themselves. */
static void pool_close(struct vn_exec_pool *pl)
{
	struct vn_exec *ex, *next;

	if (!pl)
		return;
	vn_lock_take(pl->lock);
	pl->closed = true;
	ex = pl->spare;
	pl->spare = NULL;
	pl->nspare = 0;
	vn_lock_drop(pl->lock);
	for (; ex; ex = next) {
		next = ex->next;
		exec_free(ex);
		pool_put(pl);
	}
	pool_put(pl);
}

void vn_exec_put(struct vn_exec *ex)
{
	if (!ex || __atomic_sub_fetch(&ex->refs, 1, __ATOMIC_ACQ_REL))
		return;
	vn_vfree(ex->scratch);
	if (ex->comm)
		vn_comm_put(ex->comm);
	vn_program_put(ex->prog);
	exec_release(ex);
}

void vn_exec_status(struct vn_exec *ex, struct vn_exec_status *st)
{
	vn_lock_take(ex->lock);
	*st = ex->st;
	vn_lock_drop(ex->lock);
}

int vn_exec_wait(struct vn_exec *ex, u64 deadline_ns)
{
	int r = 0;

	vn_lock_take(ex->lock);
	while (ex->st.state != VN_EXEC_DONE) {
		r = vn_cond_wait(ex->cond, ex->lock, deadline_ns);
		if (r)
			break;
	}
	if (ex->st.state == VN_EXEC_DONE)
		r = 0;
	vn_lock_drop(ex->lock);
	return r;
}

/* Publish the end of an execution; no core lock held. Drops the core's reference. */
static void exec_complete(struct vn_exec *ex)
{
	/* A rank that ends early frees its peers waiting at a collective at once. */
	if (ex->comm && ex->st.result != VN_RES_OK)
		vn_comm_leave(ex->comm, ex->rank);
	vn_vfree(ex->scratch);
	ex->scratch = NULL;
	vn_lock_take(ex->lock);
	ex->st.state = VN_EXEC_DONE;
	vn_cond_broadcast(ex->cond);
	vn_lock_drop(ex->lock);
	if (ex->done)
		ex->done(ex, ex->done_arg);
	vn_exec_put(ex);
}

/* ---- the core's state machine (c->lock held) ---- */

/*
 * Workers sleep on their own condition and are woken only when they have something to
 * do: five threads woken for every semaphore made a storm of futex calls on the host.
 */
static void wake_worker(struct vn_core *c, u32 id)
{
	if (c->wcond[id])	/* NULL only in a core whose creation failed */
		vn_cond_broadcast(c->wcond[id]);
}

static void wake_all(struct vn_core *c)
{
	u32 id;

	for (id = 0; id < VN_WORKERS; id++)
		wake_worker(c, id);
	if (c->cond)
		vn_cond_broadcast(c->cond);
}

/* A stream whose next entry may run: ready, or blocked on a value now reached. */
static bool runnable(const struct vn_core *c, u32 sid)
{
	const struct vn_stream_run *r = &c->ss[sid];

	return r->state == VN_SS_READY ||
	       (r->state == VN_SS_BLOCKED && c->sem_val[r->wait_sem] >= r->wait_val);
}

/* The worker of each stream that may now run: the runner, the CC-core's worker. */
static void wake_runnable(struct vn_core *c)
{
	bool run = false;
	u32 sid;

	for (sid = 0; sid < VNEF_STREAMS; sid++) {
		if (!runnable(c, sid))
			continue;
		if (sid == VNEF_STREAM_CC)
			wake_worker(c, VN_CC_WORKER);
		else
			run = true;
	}
	if (run)
		wake_worker(c, VN_RUNNER);
}

static void set_abort(struct vn_core *c, u32 result, u32 reason, u32 stream, u32 pc)
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
	wake_all(c);
}

static const char *const fault_what[] = {
	[VN_REASON_FAULT_SBUF - VN_REASON_FAULT_SBUF] = "an access outside SBUF",
	[VN_REASON_FAULT_PSUM - VN_REASON_FAULT_SBUF] = "an access outside PSUM",
	[VN_REASON_FAULT_HBM - VN_REASON_FAULT_SBUF] = "an access outside a bound HBM buffer",
	[VN_REASON_FAULT_SEM - VN_REASON_FAULT_SBUF] = "a semaphore outside its table",
	[VN_REASON_FAULT_STATE - VN_REASON_FAULT_SBUF] = "operands the engine cannot hold",
};

/* The executor's check stopped an access the validator let through. */
static void set_fault(struct vn_core *c, u32 reason, u32 stream, u32 pc,
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
	set_abort(c, VN_RES_FAULT, reason, stream, pc);
}

static u32 fault_reason(const struct vn_fault *f)
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
static void scrub(struct vn_core *c)
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

static void start_next(struct vn_core *c)
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
			scrub(c);
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
static struct vn_exec *finish_locked(struct vn_core *c)
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
	start_next(c);
	vn_cond_broadcast(c->cond);	/* vn_core_reset() waits for cur to go */
	return ex;
}

static struct vn_exec *stream_done(struct vn_core *c, u32 sid)
{
	if (c->ss[sid].state == VN_SS_DONE)
		return NULL;
	c->ss[sid].state = VN_SS_DONE;
	if (--c->streams_live)
		return NULL;
	return finish_locked(c);
}

/* Certain deadlock: no stream can run and none will ever signal again. */
static bool deadlocked(const struct vn_core *c)
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

static void block(struct vn_core *c, u32 sid, u32 sem, u32 val)
{
	c->ss[sid].state = VN_SS_BLOCKED;
	c->ss[sid].wait_sem = sem;
	c->ss[sid].wait_val = val;
}

/*
 * When a worker's wait on its condition gives up (VN_CC_GRACE_NS); read again when a wait
 * times out, since the CC-core may have reached its collective during it.
 */
static u64 wait_deadline(struct vn_core *c)
{
	return c->deadline_ns + (vn_load_acquire(&c->cc_busy) ? VN_CC_GRACE_NS : 0);
}

/*
 * The CC-core waits for sem >= val. 0, or -EINTR when the execution is ending. It first
 * polls for up to VN_SPIN_NS, yielding the CPU, without the lock: most hand-offs take
 * microseconds, less than a sleep and a wake-up cost. sem_val is read racily there and
 * again under the lock.
 */
static int wait_sem(struct vn_core *c, u32 sid, u32 sem, u32 val)
{
	u64 until;
	int r = 0;

	if (c->sem_val[sem] < val && !c->abort) {
		vn_lock_drop(c->lock);
		until = vn_time_ns() + VN_SPIN_NS;
		while (vn_load_acquire(&c->sem_val[sem]) < val && !vn_load_acquire(&c->abort) &&
		       vn_time_ns() < until)
			vn_thread_yield();
		vn_lock_take(c->lock);
	}
	while (c->sem_val[sem] < val) {
		if (c->abort) {
			r = -EINTR;
			break;
		}
		block(c, sid, sem, val);
		if (deadlocked(c)) {
			set_abort(c, VN_RES_TIMEOUT, VN_REASON_DEADLOCK, sid, c->ss[sid].pc);
			r = -EINTR;
			break;
		}
		if (vn_cond_wait_worker(c->wcond[VN_CC_WORKER], c->lock, wait_deadline(c)) ==
		    -ETIMEDOUT &&
		    c->sem_val[sem] < val && vn_time_ns() >= wait_deadline(c)) {
			set_abort(c, VN_RES_TIMEOUT, VN_REASON_TIME_LIMIT, sid, c->ss[sid].pc);
			r = -EINTR;
			break;
		}
	}
	c->ss[sid].state = VN_SS_RUN;
	return r;
}

/*
 * The validator bounds each semaphore's increments by sem_incs[s], the slots its time
 * table has; checked again here before each slot is written. False: a fault (f says).
 */
static bool signal_sems(struct vn_core *c, struct vn_exec *ex, u64 mask, u64 t_ps,
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
static bool wait_ok(const struct vn_exec *ex, u32 sem, u32 val, u64 t_ps, struct vn_fault *f)
{
	if (sem < VNEF_MAX_SEMS && val && val <= ex->prog->sem_incs[sem])
		return true;
	*f = (struct vn_fault){ .index = sem, .offset = val, .time_ps = t_ps };
	return false;
}

static void emit(struct vn_core *c, struct vn_exec *ex, struct vn_event *ev, u32 sid, u32 pc,
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

/* ---- the runner ---- */

/*
 * Before each entry: false (the execution ended TIME_LIMIT) past the limit, else a
 * scheduling point now and then. limit: the engines' is the time limit, the DMA queues'
 * the waits' (wait_deadline()), as when each had a worker of its own.
 */
static bool pace(struct vn_core *c, u32 sid, u32 pc, u64 limit)
{
	u64 now = vn_time_ns();

	if (now > limit) {
		vn_lock_take(c->lock);
		set_abort(c, VN_RES_TIMEOUT, VN_REASON_TIME_LIMIT, sid, pc);
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
	if (!wait_ok(ex, sem, val, *start, &f)) {
		set_fault(c, VN_REASON_FAULT_SEM, sid, c->ss[sid].pc, &f);
		return -EFAULT;
	}
	if (c->sem_val[sem] < val) {
		block(c, sid, sem, val);
		return 0;
	}
	*start = max(*start, ex->sem_base[sem][val - 1]);
	return 1;
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
			set_fault(c, fault_reason(&f), e, pc, &f);
			break;
		}
		if (vn_engine_run(c, e, in)) {
			/* stopped, or over the time limit inside one long instruction */
			vn_lock_take(c->lock);
			set_abort(c, VN_RES_TIMEOUT, VN_REASON_TIME_LIMIT, e, pc);
			break;
		}
		ev.opcode = in->opcode;
		ev.dma_queue = NO_IDX;
		ev.dma_desc = NO_IDX;
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
		if (in->signal_mask && !signal_sems(c, ex, in->signal_mask, r->t_ps, &f)) {
			set_fault(c, VN_REASON_FAULT_SEM, e, pc, &f);
			break;
		}
		if (unlikely(c->ex_hook)) {
			vn_lock_drop(c->lock);
			emit(c, ex, &ev, e, pc, in->flags & VNEF_IF_WAIT ? in->wait_sem : NO_IDX,
			     in->wait_value, in->signal_mask, start, r->t_ps);
			vn_lock_take(c->lock);
		}
	}
	return stream_done(c, e);
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
		if (!pace(c, sid, pc, wait_deadline(c)))
			break;
		ok = vn_dma_run(c, ex, d, &f);
		if (ok) {
			vn_lock_take(c->lock);
			if (ok == -EFAULT) {
				f.time_ps = start;
				set_fault(c, fault_reason(&f), sid, pc, &f);
			} else {
				set_abort(c, VN_RES_TIMEOUT, VN_REASON_TIME_LIMIT, sid, pc);
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
		if (d->signal_mask && !signal_sems(c, ex, d->signal_mask, r->t_ps, &f)) {
			set_fault(c, VN_REASON_FAULT_SEM, sid, pc, &f);
			break;
		}
		if (unlikely(c->ex_hook)) {
			vn_lock_drop(c->lock);
			emit(c, ex, &ev, sid, pc, d->flags & VNEF_IF_WAIT ? d->wait_sem : NO_IDX,
			     d->wait_value, d->signal_mask, start, r->t_ps);
			vn_lock_take(c->lock);
		}
	}
	return stream_done(c, sid);
}

/*
 * One pass of the runner over the current execution (c->lock held): runs the next
 * stream that may, round robin, or ends the execution's engine and DMA streams when it
 * is stopping, or finds a deadlock, or sleeps until the CC-core signals. Returns the
 * execution to complete, if this ended it.
 */
static struct vn_exec *run_step(struct vn_core *c, struct vn_exec *ex)
{
	struct vn_exec *fin = NULL;
	bool live = false;
	u32 i, sid;

	for (sid = 0; sid < VNEF_STREAM_CC; sid++) {
		if (c->ss[sid].state == VN_SS_DONE)
			continue;
		if (c->abort) {
			fin = stream_done(c, sid);
			if (fin)	/* the last: the next execution may have started */
				return fin;
			continue;
		}
		live = true;
	}
	if (!live) {
		/* nothing of ours: the CC-core ends the execution, or start_next() wakes us */
		vn_cond_wait_worker(c->wcond[VN_RUNNER], c->lock, 0);
		return NULL;
	}
	for (i = 0; i < VNEF_STREAM_CC; i++) {
		sid = (c->run_next + i) % VNEF_STREAM_CC;
		if (runnable(c, sid)) {
			c->run_next = (sid + 1) % VNEF_STREAM_CC;
			return sid < VNEF_ENGINES ? run_engine(c, ex, sid) : run_queue(c, ex, sid);
		}
	}
	/* live, none may run: one of ours is blocked, named if the execution ends here */
	for (sid = 0; c->ss[sid].state != VN_SS_BLOCKED; sid++)
		;
	if (deadlocked(c)) {
		set_abort(c, VN_RES_TIMEOUT, VN_REASON_DEADLOCK, sid, c->ss[sid].pc);
		return NULL;
	}
	/* every stream of ours waits for a value the CC-core will signal */
	if (vn_cond_wait_worker(c->wcond[VN_RUNNER], c->lock, wait_deadline(c)) == -ETIMEDOUT &&
	    vn_time_ns() >= wait_deadline(c))
		set_abort(c, VN_RES_TIMEOUT, VN_REASON_TIME_LIMIT, sid, c->ss[sid].pc);
	return NULL;
}

/*
 * The collective engine's side of a collective: the executor's own check of both HBM
 * ranges for the actual group (the validator could only check one rank's share), then
 * the rendezvous. 0, or -EFAULT with f filled in, or the rendezvous's error.
 */
static int cc_collective(struct vn_core *c, struct vn_exec *ex, const struct vnef_cc_instr *in,
			 u64 start, struct vn_cc_result *res, struct vn_fault *f)
{
	const struct vn_cc_opcode_info *info = vn_cc_opcode_info(in->opcode);
	u32 members[VN_COMM_MAX_RANKS], idx, g;
	const struct vn_bind *src, *dst;
	struct vn_cc_args a;
	u64 inb, outb, end;

	g = vn_cc_group(vn_comm_size(ex->comm), ex->rank, in->group_size, in->group_stride,
			members, &idx);
	inb = vn_cc_in_bytes(info->comm_op, g ? g : 1, in->dtype, in->count);
	outb = vn_cc_out_bytes(info->comm_op, g ? g : 1, in->dtype, in->count);
	if (in->src_tensor >= ex->prog->tensor_count || in->dst_tensor >= ex->prog->tensor_count) {
		*f = (struct vn_fault){ .mem = VNEF_MEM_HBM, .index = in->src_tensor };
		return -EFAULT;
	}
	src = &ex->binds[in->src_tensor];
	dst = &ex->binds[in->dst_tensor];
	if (!inb || check_add_overflow(in->src_offset, inb, &end) || end > src->size ||
	    end > ex->prog->tensors[in->src_tensor].size) {
		*f = (struct vn_fault){ .mem = VNEF_MEM_HBM, .index = in->src_tensor,
					.offset = in->src_offset, .len = inb };
		return -EFAULT;
	}
	if (!outb || check_add_overflow(in->dst_offset, outb, &end) || end > dst->size ||
	    end > ex->prog->tensors[in->dst_tensor].size) {
		*f = (struct vn_fault){ .mem = VNEF_MEM_HBM, .index = in->dst_tensor,
					.offset = in->dst_offset, .len = outb };
		return -EFAULT;
	}
	a = (struct vn_cc_args){
		.op = info->comm_op, .dtype = in->dtype,
		.reduce = in->reduce == VNEF_ALU_MAX ? VN_CC_MAX : VN_CC_SUM,
		.group_size = in->group_size, .group_stride = in->group_stride,
		.shift = in->shift, .count = in->count,
		.in = (const u8 *)src->ptr + in->src_offset,
		.out = (u8 *)dst->ptr + in->dst_offset,
	};
	return vn_comm_collective(ex->comm, ex->rank, &a, start, c->deadline_ns, &c->abort, res);
}

/* Runs the collective stream; returns with c->lock held and maybe an execution to complete. */
static struct vn_exec *run_cc(struct vn_core *c, struct vn_exec *ex)
{
	const u32 sid = VNEF_STREAM_CC;
	const struct vn_stream *st = &ex->prog->streams[sid];
	struct vn_stream_run *r = &c->ss[sid];
	struct vn_cc_result res;
	struct vn_fault f;
	struct vn_event ev;
	u32 pc;
	int ret;

	for (pc = 0; pc < st->count; pc++) {
		const struct vnef_cc_instr *in = &st->cc[pc];
		u64 start = r->t_ps;

		r->pc = pc;
		if (vn_load_acquire(&c->abort))
			break;
		if (vn_time_ns() > c->deadline_ns) {
			vn_lock_take(c->lock);
			set_abort(c, VN_RES_TIMEOUT, VN_REASON_TIME_LIMIT, sid, pc);
			vn_lock_drop(c->lock);
			break;
		}
		if (in->flags & VNEF_IF_WAIT) {
			vn_lock_take(c->lock);
			if (!wait_ok(ex, in->wait_sem, in->wait_value, start, &f)) {
				set_fault(c, VN_REASON_FAULT_SEM, sid, pc, &f);
				vn_lock_drop(c->lock);
				break;
			}
			if (wait_sem(c, sid, in->wait_sem, in->wait_value)) {
				vn_lock_drop(c->lock);
				break;
			}
			start = max(start, ex->sem_base[in->wait_sem][in->wait_value - 1]);
			vn_lock_drop(c->lock);
		}
		memset(&ev, 0, sizeof(ev));
		ev.opcode = in->opcode;
		ev.dma_queue = NO_IDX;
		ev.dma_desc = NO_IDX;
		res = (struct vn_cc_result){ .done_ps = start, .latest_ps = start,
					     .last = ex->rank, .members = 1 };
		ret = 0;
		if (in->opcode != VNEF_CC_NOP) {
			/* cleared only once a failed collective has said so (set_abort()) */
			vn_store_release(&c->cc_busy, 1);
			ret = cc_collective(c, ex, in, start, &res, &f);
			if (ret == -EFAULT) {
				/*
				 * Not a validator miss (it could not know the group): a fault
				 * status even on the host, which set_fault() would abort.
				 */
				f.time_ps = start;
				vn_lock_take(c->lock);
				if (!c->abort) {
					ex->st.fault = f;
					set_abort(c, VN_RES_FAULT, VN_REASON_FAULT_HBM, sid, pc);
				}
				vn_lock_drop(c->lock);
				break;
			}
		}
		if (ret) {
			vn_lock_take(c->lock);
			if (ret == -ETIMEDOUT)
				set_abort(c, VN_RES_TIMEOUT, VN_REASON_CC_MISSING, sid, pc);
			else if (ret == -EINVAL)
				set_abort(c, VN_RES_ERROR, VN_REASON_CC_MISMATCH, sid, pc);
			else	/* -EPIPE, or -EINTR when nothing else ended it */
				set_abort(c, VN_RES_ABORTED, VN_REASON_CC_PEER, sid, pc);
			vn_lock_drop(c->lock);
			break;
		}
		vn_store_release(&c->cc_busy, 0);
		if (in->opcode != VNEF_CC_NOP) {
			const struct vn_cc_opcode_info *info = vn_cc_opcode_info(in->opcode);

			ev.elements = in->count;
			ev.bytes = vn_cc_in_bytes(info->comm_op, res.members, in->dtype, in->count);
			/* busy: the transfer; the wait for the last member is not work */
			r->busy_ps += res.done_ps - res.latest_ps;
			r->bytes += ev.bytes;
			r->entries++;
		}
		ev.cc_rank = ex->rank;
		ev.cc_members = res.members;
		ev.cc_last = res.last;
		ev.cc_latest_ps = res.latest_ps;
		r->t_ps = res.done_ps;
		if (in->signal_mask) {
			vn_lock_take(c->lock);
			if (!signal_sems(c, ex, in->signal_mask, r->t_ps, &f)) {
				set_fault(c, VN_REASON_FAULT_SEM, sid, pc, &f);
				vn_lock_drop(c->lock);
				break;
			}
			vn_lock_drop(c->lock);
		}
		if (unlikely(c->ex_hook))
			emit(c, ex, &ev, sid, pc, in->flags & VNEF_IF_WAIT ? in->wait_sem : NO_IDX,
			     in->wait_value, in->signal_mask, start, r->t_ps);
	}
	vn_store_release(&c->cc_busy, 0);
	vn_lock_take(c->lock);
	return stream_done(c, sid);
}

/*
 * A core's two threads: the runner runs the engines' and DMA queues' streams of the
 * current execution, one at a time, each for as long as its entries may start (a
 * cooperative executor: a hand-off between two engines is a semaphore and a loop, not
 * a wake-up), and the CC-core's worker its collectives, which wait for other ranks.
 */
/*
 * The runner found nothing to run: poll for a next execution for up to
 * vn_idle_spin_ns() before sleeping, without the lock (c->cur is read racily here,
 * again under it). A batch of submissions then costs one wake-up, not one per
 * execution: the submitter is slower than the runner at an empty program, so the
 * queue is empty between two. Not while another thread waits for this CPU: the
 * submitter may be the one.
 */
static void idle_spin(struct vn_core *c)
{
	u64 until, spin = vn_idle_spin_ns();

	if (!spin)
		return;
	vn_lock_drop(c->lock);
	until = vn_time_ns() + spin;
	while (!vn_load_acquire(&c->cur) && !vn_load_acquire(&c->stop) && vn_time_ns() < until &&
	       vn_thread_alone())
		vn_thread_yield();
	vn_lock_take(c->lock);
}

static int worker(void *arg)
{
	struct vn_worker_arg *w = arg;
	struct vn_core *c = w->c;
	struct vn_exec *ex, *fin;
	bool spun = false;

	vn_lock_take(c->lock);
	while (!c->stop) {
		ex = c->cur;
		fin = NULL;
		if (ex && w->id == VN_RUNNER) {
			fin = run_step(c, ex);
			spun = false;
		} else if (!ex && w->id == VN_RUNNER && !spun) {
			idle_spin(c);
			spun = true;
		} else if (ex && c->ss[VNEF_STREAM_CC].state == VN_SS_READY) {
			c->ss[VNEF_STREAM_CC].state = VN_SS_RUN;
			vn_lock_drop(c->lock);
			fin = run_cc(c, ex);
		} else {
			vn_cond_wait_worker(c->wcond[w->id], c->lock, 0);
		}
		if (fin) {
			vn_lock_drop(c->lock);
			exec_complete(fin);
			vn_lock_take(c->lock);
		}
	}
	vn_lock_drop(c->lock);
	return 0;
}

/* ---- the core ---- */

static const char *const worker_names[VN_WORKERS] = { "run", "cc" };

int vn_core_create(const struct vneuron_model *m, const char *name, struct vn_core **out)
{
	struct vn_core *c;
	char tname[32];
	size_t n;
	u32 i;

	*out = NULL;
	c = vn_zalloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->m = m ? *m : vn_model_trn1;
	c->clean = true;
#ifndef __KERNEL__
	c->fault_abort = true;
#endif
	for (n = 0; name && name[n] && n < sizeof(c->name) - 1; n++)
		c->name[n] = name[n];
	c->sbuf = vn_vzalloc((size_t)VNEF_PARTITIONS * VNEF_SBUF_PART_BYTES);
	c->psum = vn_vzalloc((size_t)VNEF_PARTITIONS * VNEF_PSUM_PART_BYTES);
	c->lock = vn_lock_create("vn_core.lock");
	c->cond = vn_cond_create("vn_core.cond");
	c->pool = pool_create();
	if (!c->sbuf || !c->psum || !c->lock || !c->cond || !c->pool)
		goto fail;
	for (i = 0; i < VN_WORKERS; i++) {
		c->wcond[i] = vn_cond_create("vn_core.wcond");
		if (!c->wcond[i])
			goto fail;
	}
	for (i = 0; i < VNEF_ENGINES; i++)
		if (vn_engine_ctx_init(&c->fp[i], c->sbuf, c->psum))
			goto fail;
	for (i = 0; i < VN_WORKERS; i++) {
		c->args[i].c = c;
		c->args[i].id = i;
		/* "vn-<core>-<worker>", the core's name cut to 9 bytes */
		memcpy(tname, "vn-", 3);
		n = 3;
		for (; c->name[n - 3] && n < 12; n++)
			tname[n] = c->name[n - 3];
		tname[n++] = '-';
		memcpy(tname + n, worker_names[i], strlen(worker_names[i]) + 1);
		c->thr[i] = vn_thread_start(worker, &c->args[i], tname);
		if (!c->thr[i])
			goto fail;
	}
	*out = c;
	return 0;
fail:
	vn_core_destroy(c);
	return -ENOMEM;
}

static void abort_queued(struct vn_exec *list, u32 reason)
{
	struct vn_exec *ex, *next;

	for (ex = list; ex; ex = next) {
		next = ex->next;
		ex->next = NULL;
		vn_lock_take(ex->lock);
		ex->st.result = VN_RES_ABORTED;
		ex->st.reason = reason;
		vn_lock_drop(ex->lock);
		exec_complete(ex);
	}
}

void vn_core_destroy(struct vn_core *c)
{
	struct vn_exec *cur, *queued;
	u32 i;

	if (!c)
		return;
	if (c->lock) {
		vn_lock_take(c->lock);
		c->stop = true;
		set_abort(c, VN_RES_ABORTED, VN_REASON_STOP, NO_IDX, 0);
		wake_all(c);
		vn_lock_drop(c->lock);
	}
	for (i = 0; i < VN_WORKERS; i++)
		vn_thread_stop(c->thr[i]);
	/*
	 * The workers are gone: finish what they left (an execution started but not yet
	 * picked up by any of them), under the lock its hooks expect, completing it after.
	 */
	cur = NULL;
	queued = NULL;
	if (c->lock) {
		vn_lock_take(c->lock);
		queued = c->q_head;
		c->q_head = NULL;
		c->q_tail = NULL;
		if (c->cur)
			cur = finish_locked(c);
		vn_lock_drop(c->lock);
	}
	if (cur)
		exec_complete(cur);
	abort_queued(queued, VN_REASON_STOP);
	for (i = 0; i < VNEF_ENGINES; i++)
		vn_engine_ctx_free(&c->fp[i]);
	vn_cond_destroy(c->cond);
	for (i = 0; i < VN_WORKERS; i++)
		vn_cond_destroy(c->wcond[i]);
	vn_lock_destroy(c->lock);
	if (c->comm)
		vn_comm_put(c->comm);
	pool_close(c->pool);
	vn_vfree(c->sbuf);
	vn_vfree(c->psum);
	vn_free(c);
}

void vn_core_reset(struct vn_core *c)
{
	struct vn_exec *queued;
	u32 i;

	vn_lock_take(c->lock);
	c->paused++;
	queued = c->q_head;
	c->q_head = NULL;
	c->q_tail = NULL;
	set_abort(c, VN_RES_ABORTED, VN_REASON_RESET, NO_IDX, 0);
	while (c->cur)
		vn_cond_wait_worker(c->cond, c->lock, 0);
	scrub(c);
	for (i = 0; i < VNEF_ENGINES; i++)
		c->fp[i].stat_k = 0;
	c->paused--;
	start_next(c);
	vn_lock_drop(c->lock);
	abort_queued(queued, VN_REASON_RESET);
}

void vn_core_counters(struct vn_core *c, struct vn_counters *out)
{
	vn_lock_take(c->lock);
	*out = c->cnt;
	vn_lock_drop(c->lock);
}

void vn_core_set_hooks(struct vn_core *c, vn_event_hook hook, vn_exec_edge_hook edge,
		       void *arg)
{
	vn_lock_take(c->lock);
	c->hook = hook;
	c->edge = edge;
	c->hook_arg = arg;
	vn_lock_drop(c->lock);
}

void vn_core_set_hook(struct vn_core *c, vn_event_hook hook, void *arg)
{
	vn_core_set_hooks(c, hook, NULL, arg);
}

bool vn_core_unhook(struct vn_core *c, void *arg, void (*gone)(void *arg))
{
	bool now = true;

	vn_lock_take(c->lock);
	if (c->hook_arg == arg) {
		c->hook = NULL;
		c->edge = NULL;
		c->hook_arg = NULL;
	}
	if (c->cur && c->ex_arg == arg && (c->ex_hook || c->ex_edge)) {
		c->ex_gone = gone;
		now = false;
	} else if (gone) {
		gone(arg);
	}
	vn_lock_drop(c->lock);
	return now;
}

void vn_core_set_owner(struct vn_core *c, u64 owner)
{
	vn_lock_take(c->lock);
	c->owner = owner;
	vn_lock_drop(c->lock);
}

void vn_core_set_comm(struct vn_core *c, struct vn_comm *cm, u32 rank)
{
	struct vn_comm *old;

	if (cm)
		vn_comm_get(cm);
	vn_lock_take(c->lock);
	old = c->comm;
	c->comm = cm;
	c->comm_rank = rank;
	vn_lock_drop(c->lock);
	if (old)
		vn_comm_put(old);
}

void vn_core_set_fault_abort(struct vn_core *c, bool abort)
{
	vn_lock_take(c->lock);
	c->fault_abort = abort;
	vn_lock_drop(c->lock);
}

void vn_core_set_monitor(struct vn_core *c, vn_exec_monitor_fn fn, void *arg)
{
	vn_lock_take(c->lock);
	c->monitor = fn;
	c->monitor_arg = arg;
	vn_lock_drop(c->lock);
}

void vn_core_set_stats(struct vn_core *c, struct vn_core_stats *stats)
{
	vn_lock_take(c->lock);
	c->stats = stats;
	vn_lock_drop(c->lock);
}

u8 *vn_core_sbuf(struct vn_core *c, u32 partition)
{
	return c->sbuf + (size_t)partition * VNEF_SBUF_PART_BYTES;
}

u8 *vn_core_psum(struct vn_core *c, u32 partition)
{
	return c->psum + (size_t)partition * VNEF_PSUM_PART_BYTES;
}

/* ---- submission ---- */

#define VN_MAX_OWN_SCRATCH	(1024ull * 1024 * 1024)

static int bind_tensors(struct vn_exec *ex, const struct vn_bind *binds, u32 count)
{
	struct vn_program *p = ex->prog;
	u64 own = 0, off = 0;
	u32 i;

	if (count != p->tensor_count || (count && !binds))
		return -EINVAL;
	for (i = 0; i < count; i++) {
		const struct vnef_tensor *t = &p->tensors[i];

		if (t->kind == VNEF_TENSOR_CONST)
			continue;
		if (t->kind == VNEF_TENSOR_SCRATCH && !binds[i].ptr) {
			if (binds[i].size)
				return -EINVAL;
			own += (t->size + 63) & ~63ull;
			continue;
		}
		if (!binds[i].ptr || binds[i].size < t->size)
			return -EINVAL;
		ex->binds[i] = binds[i];
	}
	if (own > VN_MAX_OWN_SCRATCH)
		return -E2BIG;
	if (own) {
		ex->scratch = vn_vzalloc(own);
		if (!ex->scratch)
			return -ENOMEM;
	}
	for (i = 0; i < count; i++) {
		const struct vnef_tensor *t = &p->tensors[i];

		if (t->kind == VNEF_TENSOR_CONST) {
			u64 end;

			/* The validator keeps constants inside CONST; check again. */
			if (check_add_overflow(t->const_off, t->size, &end) || end > p->const_size)
				return -EINVAL;
			ex->binds[i].ptr = (void *)(p->consts + t->const_off);
			ex->binds[i].size = t->size;
		} else if (t->kind == VNEF_TENSOR_SCRATCH && !binds[i].ptr) {
			ex->binds[i].ptr = (u8 *)ex->scratch + off;
			ex->binds[i].size = t->size;
			off += (t->size + 63) & ~63ull;
		}
	}
	return 0;
}

int vn_exec_submit(struct vn_core *c, struct vn_program *p, const struct vn_bind *binds,
		   u32 count, u64 limit_ns, vn_exec_done_fn done, void *arg,
		   struct vn_exec **out)
{
	struct vn_exec *ex;
	u64 slots = 0;
	u32 s;
	int r;

	*out = NULL;
	for (s = 0; s < VNEF_MAX_SEMS; s++)
		slots += p->sem_incs[s];
	/*
	 * One allocation per execution, not five, and mostly none (a spare reused): with
	 * the kernel's slab debugging each cost a stack trace at allocation and at free,
	 * and poisoning, which made most of an empty execution's time in the guest.
	 */
	ex = exec_get(c, p, slots);
	if (!ex)
		return -ENOMEM;
	ex->refs = 1;
	vn_program_get(p);
	ex->prog = p;
	for (slots = 0, s = 0; s < VNEF_MAX_SEMS; s++) {
		ex->sem_base[s] = ex->sem_times + slots;
		slots += p->sem_incs[s];
	}
	r = bind_tensors(ex, binds, count);
	if (r)
		goto fail;
	ex->limit_ns = limit_ns ? limit_ns : VN_EXEC_DEFAULT_LIMIT_NS;
	ex->done = done;
	ex->done_arg = arg;
	ex->st.state = VN_EXEC_QUEUED;
	ex->st.stream = NO_IDX;

	vn_lock_take(c->lock);
	if (c->stop) {
		vn_lock_drop(c->lock);
		r = -ENODEV;
		goto fail;
	}
	if (p->streams[VNEF_STREAM_CC].count) {
		if (!c->comm) {
			vn_lock_drop(c->lock);
			r = -ENOTCONN;
			goto fail;
		}
		vn_comm_get(c->comm);
		ex->comm = c->comm;
		ex->rank = c->comm_rank;
	}
	vn_exec_get(ex);	/* the core's reference, dropped by exec_complete() */
	ex->core = c;
	ex->owner = c->owner;
	ex->st.owner = c->owner;
	if (c->q_tail)
		c->q_tail->next = ex;
	else
		c->q_head = ex;
	c->q_tail = ex;
	start_next(c);
	vn_lock_drop(c->lock);
	*out = ex;
	return 0;
fail:
	vn_exec_put(ex);
	return r;
}

void vn_exec_cancel(struct vn_exec *ex)
{
	struct vn_core *c = ex->core;
	struct vn_exec **pp, *prev = NULL;
	bool unlinked = false, done;

	vn_lock_take(ex->lock);
	done = ex->st.state == VN_EXEC_DONE;
	vn_lock_drop(ex->lock);
	if (!c || done)
		return;
	vn_lock_take(c->lock);
	if (c->cur == ex) {
		set_abort(c, VN_RES_ABORTED, VN_REASON_CANCEL, NO_IDX, 0);
	} else {
		for (pp = &c->q_head; *pp; prev = *pp, pp = &(*pp)->next) {
			if (*pp != ex)
				continue;
			*pp = ex->next;
			if (c->q_tail == ex)
				c->q_tail = prev;
			ex->next = NULL;
			unlinked = true;
			break;
		}
	}
	vn_lock_drop(c->lock);
	if (unlinked)
		abort_queued(ex, VN_REASON_CANCEL);
}
