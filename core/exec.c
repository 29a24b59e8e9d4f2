// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Executions (struct vn_exec): submission with their bindings, waiting, status,
 * cancellation, completion and references.
 */
#include "vn_sched.h"
#include "vn_comm.h"

void vn_exec_get(struct vn_exec *ex)
{
	__atomic_add_fetch(&ex->refs, 1, __ATOMIC_RELAXED);
}

void vn_exec_put(struct vn_exec *ex)
{
	if (!ex || __atomic_sub_fetch(&ex->refs, 1, __ATOMIC_ACQ_REL))
		return;
	vn_vfree(ex->scratch);
	if (ex->comm)
		vn_comm_put(ex->comm);
	vn_program_put(ex->prog);
	vn_exec_release(ex);
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
void vn_exec_complete(struct vn_exec *ex)
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

void vn_exec_abort_queued(struct vn_exec *list, u32 reason)
{
	struct vn_exec *ex, *next;

	for (ex = list; ex; ex = next) {
		next = ex->next;
		ex->next = NULL;
		vn_lock_take(ex->lock);
		ex->st.result = VN_RES_ABORTED;
		ex->st.reason = reason;
		vn_lock_drop(ex->lock);
		vn_exec_complete(ex);
	}
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

/* An execution of one core (lnc 1, pid 0) or one instance of a logical core's launch. */
static int submit(struct vn_core *c, struct vn_program *p, const struct vn_bind *binds,
		  u32 count, u64 limit_ns, u32 lnc, u32 pid, vn_exec_done_fn done, void *arg,
		  struct vn_exec **out)
{
	struct vn_exec *ex;
	u64 slots = 0;
	u32 s;
	int r;

	*out = NULL;
	if (pid >= lnc)
		return -EINVAL;
	for (s = 0; s < VNEF_MAX_SEMS; s++)
		slots += p->sem_incs[s];
	/*
	 * One allocation per execution, not five, and mostly none (a spare reused): with
	 * the kernel's slab debugging each cost a stack trace at allocation and at free,
	 * and poisoning, which made most of an empty execution's time in the guest.
	 */
	ex = vn_exec_from_pool(c, p, slots);
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
	ex->pid = pid;
	ex->done = done;
	ex->done_arg = arg;
	ex->st.state = VN_EXEC_QUEUED;
	ex->st.stream = VN_NO_IDX;
	ex->st.lnc = (u16)lnc;
	ex->st.pid = (u16)pid;

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
	vn_exec_get(ex);	/* the core's reference, dropped by vn_exec_complete() */
	ex->core = c;
	ex->owner = c->owner;
	ex->st.owner = c->owner;
	if (c->q_tail)
		c->q_tail->next = ex;
	else
		c->q_head = ex;
	c->q_tail = ex;
	vn_start_next(c);
	vn_lock_drop(c->lock);
	*out = ex;
	return 0;
fail:
	vn_exec_put(ex);
	return r;
}

int vn_exec_submit(struct vn_core *c, struct vn_program *p, const struct vn_bind *binds,
		   u32 count, u64 limit_ns, vn_exec_done_fn done, void *arg,
		   struct vn_exec **out)
{
	return submit(c, p, binds, count, limit_ns, 1, 0, done, arg, out);
}

int vn_exec_submit_pid(struct vn_core *c, struct vn_program *p, const struct vn_bind *binds,
		       u32 count, u64 limit_ns, u32 pid, vn_exec_done_fn done, void *arg,
		       struct vn_exec **out)
{
	return submit(c, p, binds, count, limit_ns, VN_LNC_MAX, pid, done, arg, out);
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
		vn_set_abort(c, VN_RES_ABORTED, VN_REASON_CANCEL, VN_NO_IDX, 0);
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
		vn_exec_abort_queued(ex, VN_REASON_CANCEL);
}
