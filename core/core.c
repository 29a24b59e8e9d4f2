// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A core (struct vn_core): its SBUF and PSUM, its two worker threads (the runner of the
 * engines' and DMA queues' streams, core/runner.c, and the CC-core's worker,
 * core/cc_run.c), reset, counters and the settings executions take at submission.
 */
#include "vn_sched.h"
#include "vn_comm.h"
#include "vn_model.h"

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
			fin = vn_run_step(c, ex);
			spun = false;
		} else if (!ex && w->id == VN_RUNNER && !spun) {
			idle_spin(c);
			spun = true;
		} else if (ex && c->ss[VNEF_STREAM_CC].state == VN_SS_READY) {
			c->ss[VNEF_STREAM_CC].state = VN_SS_RUN;
			vn_lock_drop(c->lock);
			fin = vn_run_cc(c, ex);
		} else {
			vn_cond_wait_worker(c->wcond[w->id], c->lock, 0);
		}
		if (fin) {
			vn_lock_drop(c->lock);
			vn_exec_complete(fin);
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
	c->pool = vn_exec_pool_create();
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

void vn_core_destroy(struct vn_core *c)
{
	struct vn_exec *cur, *queued;
	u32 i;

	if (!c)
		return;
	if (c->lock) {
		vn_lock_take(c->lock);
		c->stop = true;
		vn_set_abort(c, VN_RES_ABORTED, VN_REASON_STOP, VN_NO_IDX, 0);
		vn_wake_all(c);
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
			cur = vn_exec_finish(c);
		vn_lock_drop(c->lock);
	}
	if (cur)
		vn_exec_complete(cur);
	vn_exec_abort_queued(queued, VN_REASON_STOP);
	for (i = 0; i < VNEF_ENGINES; i++)
		vn_engine_ctx_free(&c->fp[i]);
	vn_cond_destroy(c->cond);
	for (i = 0; i < VN_WORKERS; i++)
		vn_cond_destroy(c->wcond[i]);
	vn_lock_destroy(c->lock);
	if (c->comm)
		vn_comm_put(c->comm);
	vn_exec_pool_close(c->pool);
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
	vn_set_abort(c, VN_RES_ABORTED, VN_REASON_RESET, VN_NO_IDX, 0);
	while (c->cur)
		vn_cond_wait_worker(c->cond, c->lock, 0);
	vn_core_scrub(c);
	for (i = 0; i < VNEF_ENGINES; i++)
		c->fp[i].stat_k = 0;
	c->paused--;
	vn_start_next(c);
	vn_lock_drop(c->lock);
	vn_exec_abort_queued(queued, VN_REASON_RESET);
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
