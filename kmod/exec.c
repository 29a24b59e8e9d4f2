// SPDX-License-Identifier: GPL-2.0
/*
 * Executions of an open file: EXEC, WAIT, poll(), what close() and release do to them,
 * and the submission API of io_uring commands (kmod/uring.c). Programs are in
 * program.c, cores and their executors in dev_core.c.
 *
 * An execution (struct vnk_exec) holds a reference on its file, its program (inside
 * the executor) and every buffer bound to it. The file's exec table holds one
 * reference until WAIT reaps it; the pending completion holds another, dropped by
 * vnk_exec_done(), which also drops the buffers. An execution submitted through
 * io_uring (kmod/uring.c) is never in the table: its notifier's reference takes the
 * table's place and is handed over at completion.
 *
 * Executions belong to the process that submitted them: a close() of the device file
 * by that process (flush(), which also runs for every descriptor at exit) cancels its
 * queued and running executions, ioctl and io_uring alike, without waiting: the engines
 * stop at their next bounded chunk and the completions free the rest. So an io_uring
 * command never outlives its ring's teardown, and a killed process leaves nothing
 * running. Release cancels whatever is left (executions of processes that still had
 * the file when they exited cannot exist: their flush ran).
 */
#include <linux/fs.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "dev_core.h"
#include "device.h"
#include "exec.h"
#include "file.h"
#include "main.h"
#include "mem.h"
#include "program.h"
#include "share.h"
#include "vn_exec.h"
#include "vn_model.h"
#include "vn_program.h"

/* The uapi mirrors the executor's result and reason numbers. */
static_assert((int)VNEURON_EXEC_OK == (int)VN_RES_OK);
static_assert((int)VNEURON_EXEC_ERROR == (int)VN_RES_ERROR);
static_assert((int)VNEURON_EXEC_TIMEOUT == (int)VN_RES_TIMEOUT);
static_assert((int)VNEURON_EXEC_ABORTED == (int)VN_RES_ABORTED);
static_assert((int)VNEURON_EXEC_FAULT == (int)VN_RES_FAULT);
static_assert((int)VNEURON_REASON_DEADLOCK == (int)VN_REASON_DEADLOCK);
static_assert((int)VNEURON_REASON_TIME_LIMIT == (int)VN_REASON_TIME_LIMIT);
static_assert((int)VNEURON_REASON_RESET == (int)VN_REASON_RESET);
static_assert((int)VNEURON_REASON_STOP == (int)VN_REASON_STOP);
static_assert((int)VNEURON_REASON_NOMEM == (int)VN_REASON_NOMEM);
static_assert((int)VNEURON_REASON_CANCEL == (int)VN_REASON_CANCEL);
static_assert((int)VNEURON_REASON_FAULT_SBUF == (int)VN_REASON_FAULT_SBUF);
static_assert((int)VNEURON_REASON_FAULT_PSUM == (int)VN_REASON_FAULT_PSUM);
static_assert((int)VNEURON_REASON_FAULT_HBM == (int)VN_REASON_FAULT_HBM);
static_assert((int)VNEURON_REASON_FAULT_SEM == (int)VN_REASON_FAULT_SEM);
static_assert((int)VNEURON_REASON_FAULT_STATE == (int)VN_REASON_FAULT_STATE);
static_assert((int)VNEURON_REASON_CC_MISSING == (int)VN_REASON_CC_MISSING);
static_assert((int)VNEURON_REASON_CC_PEER == (int)VN_REASON_CC_PEER);
static_assert((int)VNEURON_REASON_CC_MISMATCH == (int)VN_REASON_CC_MISMATCH);
static_assert((int)VNEURON_STREAM_CC == (int)VNEF_STREAM_CC);

/*
 * Tensor tables up to this size are read on the stack: no allocation (and, with slab
 * debugging, no stack trace saved) per execution for the common small program.
 */
#define VNK_EXEC_STACK_TENSORS	8

/* A per-execution host-time limit above this is refused: deadlines must not overflow. */
#define VNK_MAX_TIME_LIMIT_NS	(600ULL * NSEC_PER_SEC)

struct vnk_exec {
	struct kref ref;
	struct vnk_file *vf;		/* holds a file reference */
	struct vn_exec *ex;		/* holds the submitter's reference */
	struct vn_exec *ex2;		/* LNC=2: program id 1's, on core + 1; else NULL */
	struct pid *tgid;		/* the submitting process */
	struct vnk_user *user;		/* charged for it (kmod/share.c): the submitter's */
	struct list_head live;		/* in vf->live until completed, under done_lock */
	u64 bytes;			/* charged to vf->exec_bytes */
	u32 core;
	u32 lnc;			/* instances: 1, or 2 (VNEURON_EXEC_LNC2) */
	u32 ended;			/* under vf->done_lock: instances ended */
	bool cancelled;			/* under vf->done_lock: flush() or release did */
	bool completed;			/* under vf->done_lock */
	bool reaped;			/* under vf->done_lock: out of the exec table */
	vnk_exec_notify_fn notify;	/* io_uring submissions: told at completion */
	void *notify_arg;
	struct vn_exec_status st;	/* under vf->done_lock: the instances' merged status */
	struct vnk_exec *next_spare;	/* in vf->spare_execs */
	u32 nmems;
	u32 cap;			/* room in mems[] */
	struct vnk_mem *mems[];		/* bound buffers, until completion */
};

/* Spare executions a file keeps for its next submissions (see vnk_exec_alloc()). */
#define VNK_EXEC_SPARES		64

/*
 * A zeroed execution with room for count buffers: a spare of the file if it fits, so
 * that a steady stream of small executions allocates nothing.
 */
static struct vnk_exec *vnk_exec_alloc(struct vnk_file *vf, u32 count)
{
	struct vnk_exec *kx = NULL;

	if (count <= VNK_EXEC_STACK_TENSORS) {
		spin_lock(&vf->done_lock);
		kx = vf->spare_execs;
		if (kx) {
			vf->spare_execs = kx->next_spare;
			vf->nr_spare_execs--;
		}
		spin_unlock(&vf->done_lock);
		if (kx) {
			memset(kx, 0, struct_size(kx, mems, VNK_EXEC_STACK_TENSORS));
			kx->cap = VNK_EXEC_STACK_TENSORS;
			return kx;
		}
		count = VNK_EXEC_STACK_TENSORS;
	}
	kx = kzalloc(struct_size(kx, mems, count), GFP_KERNEL_ACCOUNT);
	if (kx)
		kx->cap = count;
	return kx;
}

/* Freed, or kept as a spare while the file lives (the caller holds a reference). */
static void vnk_exec_spare(struct vnk_file *vf, struct vnk_exec *kx)
{
	if (kx->cap == VNK_EXEC_STACK_TENSORS) {
		spin_lock(&vf->done_lock);
		if (vf->nr_spare_execs < VNK_EXEC_SPARES) {
			kx->next_spare = vf->spare_execs;
			vf->spare_execs = kx;
			vf->nr_spare_execs++;
			kx = NULL;
		}
		spin_unlock(&vf->done_lock);
	}
	kfree(kx);
}

/* The file's last reference is gone: nobody can add a spare any more. */
void vnk_exec_free_spares(struct vnk_file *vf)
{
	struct vnk_exec *kx;

	while ((kx = vf->spare_execs)) {
		vf->spare_execs = kx->next_spare;
		kfree(kx);
	}
	vf->nr_spare_execs = 0;
}

static void vnk_exec_free(struct kref *ref)
{
	struct vnk_exec *kx = container_of(ref, struct vnk_exec, ref);
	struct vnk_file *vf = kx->vf;
	u32 i;

	/* Only set when submission failed; a completion drops them itself. */
	for (i = 0; i < kx->nmems; i++)
		vnk_mem_put(kx->mems[i]);
	vn_exec_put(kx->ex);
	vn_exec_put(kx->ex2);
	put_pid(kx->tgid);
	vnk_share_uncharge(kx->user, VNEURON_SHARE_EXECS);
	atomic64_sub(kx->bytes, &vf->exec_bytes);
	atomic_dec(&vf->nr_execs);
	atomic64_dec(&vnk_counters.execs);
	vnk_exec_spare(vf, kx);
	vnk_file_put(vf);
}

static void vnk_exec_put(struct vnk_exec *kx)
{
	kref_put(&kx->ref, vnk_exec_free);
}

/*
 * One instance's end into the execution's status: the first to fail gives the result
 * and where; the modeled and host times are the later end's.
 */
static void vnk_exec_merge(struct vn_exec_status *acc, const struct vn_exec_status *st,
			   bool first)
{
	u64 model_ps = max(acc->model_ps, st->model_ps), host_ns = max(acc->host_ns, st->host_ns);
	u64 seq = acc->seq;

	if (first) {
		*acc = *st;
		return;
	}
	if (acc->result == VN_RES_OK && st->result != VN_RES_OK) {
		*acc = *st;
		acc->seq = seq;
	}
	acc->model_ps = model_ps;
	acc->host_ns = host_ns;
}

/*
 * An instance ended with @st (each instance holds a reference, dropped here); the
 * last one completes the execution.
 */
static void vnk_exec_instance_end(struct vnk_exec *kx, const struct vn_exec_status *st)
{
	struct vnk_file *vf = kx->vf;
	u32 i, n;
	bool last;

	spin_lock(&vf->done_lock);
	vnk_exec_merge(&kx->st, st, !kx->ended);
	last = ++kx->ended == kx->lnc;
	spin_unlock(&vf->done_lock);
	if (!last) {
		vnk_exec_put(kx);
		return;
	}
	n = kx->nmems;
	kx->nmems = 0;
	for (i = 0; i < n; i++)
		vnk_mem_put(kx->mems[i]);
	spin_lock(&vf->done_lock);
	kx->completed = true;
	if (!list_empty(&kx->live))
		list_del_init(&kx->live);
	if (!kx->reaped)
		vf->nr_done++;
	spin_unlock(&vf->done_lock);
	wake_up_all(&vf->done_wq);
	/* Hands notify its reference; kx->ex may not be set yet (submit still returning). */
	if (kx->notify)
		kx->notify(kx, kx->notify_arg);
	vnk_exec_put(kx);
}

/* From an executor worker (or a cancel, reset or unload), with no lock held. */
static void vnk_exec_done(struct vn_exec *ex, void *arg)
{
	struct vn_exec_status st;

	vn_exec_status(ex, &st);
	vnk_exec_instance_end(arg, &st);
}

/* End both instances (ABORTED, reason CANCEL); returns at once. */
static void vnk_exec_cancel(struct vnk_exec *kx)
{
	vn_exec_cancel(kx->ex);
	if (kx->ex2)
		vn_exec_cancel(kx->ex2);
}

/* Out of the table: poll() no longer counts it. Drops the table's reference. */
static void vnk_exec_reap(struct vnk_file *vf, struct vnk_exec *kx)
{
	spin_lock(&vf->done_lock);
	kx->reaped = true;
	if (kx->completed)
		vf->nr_done--;
	spin_unlock(&vf->done_lock);
	vnk_exec_put(kx);
}

/*
 * The executor's allocations for one execution (core/exec.c): scratch for every scratch
 * tensor bound to 0, 64-byte aligned, and the semaphores' time tables.
 */
static u64 vnk_exec_bytes(const struct vn_program *p, const u32 *handles, u32 lnc)
{
	u64 bytes = 0;
	u32 i, s;

	for (i = 0; i < p->tensor_count; i++)
		if (p->tensors[i].kind == VNEF_TENSOR_SCRATCH && !handles[i])
			bytes += ALIGN(p->tensors[i].size, 64);
	for (s = 0; s < VNEF_MAX_SEMS; s++)
		bytes += (u64)p->sem_incs[s] * sizeof(u64);
	return bytes * lnc;	/* each instance has its own */
}

/* Bind handles[i] to tensor i, taking a buffer reference for each. */
static int vnk_exec_bind(struct vnk_file *vf, struct vnk_exec *kx, const struct vn_program *p,
			 const u32 *handles, struct vn_bind *binds)
{
	u32 i;

	for (i = 0; i < p->tensor_count; i++) {
		const struct vnef_tensor *t = &p->tensors[i];
		struct vnk_mem *m;

		if (t->kind == VNEF_TENSOR_CONST) {
			if (handles[i])
				return -EINVAL;
			continue;
		}
		if (!handles[i]) {
			if (t->kind == VNEF_TENSOR_SCRATCH)
				continue;
			return -EINVAL;
		}
		m = vnk_mem_get(vf, handles[i]);
		if (!m)
			return -ENOENT;
		kx->mems[kx->nmems++] = m;
		if (m->size < t->size)
			return -EINVAL;
		binds[i].ptr = m->vaddr;
		binds[i].size = m->size;
	}
	return 0;
}

/*
 * Validate and queue an execution. On success *out holds the caller's reference (the
 * exec table's, or with notify, the one notify receives at completion).
 */
static int vnk_exec_start(struct vnk_file *vf, const struct vneuron_exec *arg,
			  vnk_exec_notify_fn notify, void *notify_arg, struct vnk_exec **out)
{
	struct vn_bind *binds = NULL, stack_binds[VNK_EXEC_STACK_TENSORS];
	u32 stack_handles[VNK_EXEC_STACK_TENSORS];
	struct vnk_device *vdev = vf->vdev;
	struct vn_core *ec[2] = { NULL, NULL };
	bool lnc2 = arg->flags & VNEURON_EXEC_LNC2;
	struct vn_exec_status aborted = {
		.result = VN_RES_ABORTED, .reason = VN_REASON_NOMEM, .stream = VNEURON_STREAM_NONE,
	};
	struct vn_program *p;
	struct vnk_user *user;
	struct vnk_exec *kx;
	u32 *handles = NULL;
	u32 count = arg->mem_count;
	int ret;

	if ((arg->flags & ~VNEURON_EXEC_LNC2) || arg->core >= vdev->core_count ||
	    count > VNEF_MAX_TENSORS || arg->time_limit_ns > VNK_MAX_TIME_LIMIT_NS)
		return -EINVAL;
	/* A logical core is an even core and the next one, on a model that has them. */
	if (lnc2 && (arg->core % 2 || arg->core + 1 >= vdev->core_count))
		return -EINVAL;
	if (lnc2 && vn_model_gen(vdev->model)->lnc < 2)
		return -EOPNOTSUPP;
	p = vnk_program_get(vf, arg->program);
	if (!p)
		return -ENOENT;
	if (count != p->tensor_count) {
		vn_program_put(p);
		return -EINVAL;
	}
	/* A collective's rank is one physical core: not an instance of a logical one. */
	if (lnc2 && p->streams[VNEF_STREAM_CC].count) {
		vn_program_put(p);
		return -EOPNOTSUPP;
	}
	if (atomic_inc_return(&vf->nr_execs) > vnk_limits.max_execs) {
		atomic_dec(&vf->nr_execs);
		vn_program_put(p);
		return -EAGAIN;
	}
	/* Executions are a shared resource too: the submitter's user's share. */
	user = vnk_share_charge(VNEURON_SHARE_EXECS, vf->filp, NULL);
	if (IS_ERR(user)) {
		atomic_dec(&vf->nr_execs);
		vn_program_put(p);
		return PTR_ERR(user);
	}
	atomic64_inc(&vnk_counters.execs);
	kx = vnk_exec_alloc(vf, count);
	if (!kx) {
		vnk_share_uncharge(user, VNEURON_SHARE_EXECS);
		atomic_dec(&vf->nr_execs);
		atomic64_dec(&vnk_counters.execs);
		vn_program_put(p);
		return -ENOMEM;
	}
	kx->user = user;
	kref_init(&kx->ref);		/* the exec table's (or this call's, until then) */
	kref_get(&vf->ref);
	kx->vf = vf;
	kx->core = arg->core;
	kx->lnc = lnc2 ? 2 : 1;
	kx->notify = notify;
	kx->notify_arg = notify_arg;
	kx->reaped = notify;		/* never in the exec table: poll() ignores it */
	kx->tgid = get_pid(task_tgid(current));
	INIT_LIST_HEAD(&kx->live);

	ret = -ENOMEM;
	if (count <= VNK_EXEC_STACK_TENSORS) {
		handles = stack_handles;
		binds = stack_binds;
		memset(stack_binds, 0, sizeof(stack_binds));
	} else {
		handles = kmalloc_array(count, sizeof(*handles), GFP_KERNEL_ACCOUNT);
		binds = kcalloc(count, sizeof(*binds), GFP_KERNEL_ACCOUNT);
		if (!handles || !binds)
			goto fail;
	}
	ret = -EFAULT;
	if (copy_from_user(handles, u64_to_user_ptr(arg->mem_handles_ptr),
			   array_size(count, sizeof(*handles))))
		goto fail;
	ret = vnk_exec_bind(vf, kx, p, handles, binds);
	if (ret)
		goto fail;
	/* What the executor will allocate for it, against the file's limit. */
	kx->bytes = vnk_exec_bytes(p, handles, kx->lnc);
	if (atomic64_add_return(kx->bytes, &vf->exec_bytes) > vnk_limits.max_exec_bytes) {
		ret = kx->bytes > vnk_limits.max_exec_bytes ? -E2BIG : -ENOSPC;
		goto fail;
	}
	/*
	 * A collective runs only on a core this file bound with COMM_JOIN, which owns it:
	 * refuse here, before the claim below, so the refused call claims nothing.
	 */
	ret = -ENOTCONN;
	if (p->streams[VNEF_STREAM_CC].count && READ_ONCE(vdev->cores[arg->core].owner) != vf)
		goto fail;
	/* Only now, with every argument checked: a refused call claims nothing. */
	if (lnc2) {
		ret = vnk_dev_core_claim_pair(vf, &vdev->cores[arg->core], ec);
		if (ret)
			goto fail;
	} else {
		ec[0] = vnk_dev_core_claim(vf, &vdev->cores[arg->core]);
		if (IS_ERR(ec[0])) {
			ret = PTR_ERR(ec[0]);
			goto fail;
		}
	}

	kref_get(&kx->ref);		/* the completion's: one per instance */
	if (lnc2)
		kref_get(&kx->ref);
	if (notify)
		kref_get(&kx->ref);	/* notify's, handed over at completion */
	if (lnc2)
		ret = vn_exec_submit_pid(ec[0], p, binds, count, arg->time_limit_ns, 0,
					 vnk_exec_done, kx, &kx->ex);
	else
		ret = vn_exec_submit(ec[0], p, binds, count, arg->time_limit_ns, vnk_exec_done,
				     kx, &kx->ex);
	if (ret) {
		/* Not the last: ours remains. */
		kref_put(&kx->ref, vnk_exec_free);
		if (lnc2)
			kref_put(&kx->ref, vnk_exec_free);
		if (notify)
			kref_put(&kx->ref, vnk_exec_free);
		goto fail;
	}
	if (lnc2) {
		ret = vn_exec_submit_pid(ec[1], p, binds, count, arg->time_limit_ns, 1,
					 vnk_exec_done, kx, &kx->ex2);
		if (ret) {
			/*
			 * Instance 0 runs: nobody is told of its end (the caller gets ret),
			 * it is stopped, and instance 1 ends here, unstarted.
			 */
			if (notify) {
				kx->notify = NULL;
				kref_put(&kx->ref, vnk_exec_free);
			}
			spin_lock(&vf->done_lock);
			kx->reaped = true;	/* never in the table: poll() ignores it */
			spin_unlock(&vf->done_lock);
			vn_exec_cancel(kx->ex);
			vnk_exec_instance_end(kx, &aborted);
			goto fail;
		}
	}
	/* Now flush() may cancel it (kx->ex is set); unless it has ended already. */
	spin_lock(&vf->done_lock);
	if (!kx->completed)
		list_add_tail(&kx->live, &vf->live);
	spin_unlock(&vf->done_lock);
	*out = kx;
	goto out;
fail:
	vnk_exec_put(kx);
out:
	if (handles != stack_handles) {
		kfree(handles);
		kfree(binds);
	}
	vn_program_put(p);	/* the execution holds its own */
	return ret;
}

int vnk_exec_ioctl(struct vnk_file *vf, void *data)
{
	struct vneuron_exec *arg = data;
	struct vnk_exec *kx;
	u32 id;
	int ret;

	arg->exec_id = 0;
	ret = vnk_exec_start(vf, arg, NULL, NULL, &kx);
	if (ret)
		return ret;
	ret = xa_alloc_cyclic(&vf->execs, &id, kx, XA_LIMIT(1, U32_MAX), &vf->next_exec,
			      GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		/* Nobody can wait for it: end it; its completion frees the rest. */
		vnk_exec_cancel(kx);
		vnk_exec_reap(vf, kx);
		return ret == -EBUSY ? -ENOSPC : ret;
	}
	arg->exec_id = id;
	return 0;
}

int vnk_exec_async(struct vnk_file *vf, const struct vneuron_exec *arg,
		   vnk_exec_notify_fn notify, void *notify_arg)
{
	struct vnk_exec *kx;
	int ret;

	ret = vnk_exec_start(vf, arg, notify, notify_arg, &kx);
	if (!ret)
		vnk_exec_put(kx);	/* held across submit: kx->ex is set by now */
	return ret;
}

/* How an execution ended, as WAIT reports it (exec_id and timeout left alone). */
static void vnk_exec_report(const struct vnk_exec *kx, const struct vn_exec_status *st,
			    struct vneuron_wait *w)
{
	w->status = st->result;
	w->reason = st->reason;
	w->stream = st->stream;
	w->pc = st->pc;
	w->core = kx->core;
	w->seq = st->seq;
	w->model_ps = st->model_ps;
	w->host_ns = st->host_ns;
}

void vnk_exec_result(struct vnk_exec *kx, struct vneuron_wait *w)
{
	vnk_exec_report(kx, &kx->st, w);
}

void vnk_exec_release(struct vnk_exec *kx)
{
	vnk_exec_put(kx);
}

void vnk_exec_undo(struct vnk_file *vf, void *data)
{
	const struct vneuron_exec *arg = data;
	struct vnk_exec *kx = xa_erase(&vf->execs, arg->exec_id);

	if (!kx)
		return;
	vnk_exec_cancel(kx);
	vnk_exec_reap(vf, kx);
}

int vnk_wait_ioctl(struct vnk_file *vf, void *data)
{
	struct vneuron_wait *arg = data;
	struct vn_exec_status st;
	struct vnk_exec *kx;
	u64 deadline;
	u64 id = arg->exec_id;
	int ret;

	if (arg->flags)
		return -EINVAL;
	if (!id || id > U32_MAX)
		return -ENOENT;
	xa_lock(&vf->execs);
	kx = xa_load(&vf->execs, id);
	if (kx)
		kref_get(&kx->ref);
	xa_unlock(&vf->execs);
	if (!kx)
		return -ENOENT;

	/* 0 means no deadline to the executor; a time in the past only checks. */
	deadline = arg->timeout_ns == VNEURON_WAIT_FOREVER ? 0 : max_t(u64, arg->timeout_ns, 1);
	ret = vn_exec_wait(kx->ex, deadline);
	if (!ret && kx->ex2)
		ret = vn_exec_wait(kx->ex2, deadline);
	if (ret == -EINTR)
		ret = -ERESTARTSYS;	/* the deadline is absolute: restarting is exact */
	if (ret)
		goto out;
	/* DONE is published just before the completion runs: wait for its buffer drops. */
	if (wait_event_killable(vf->done_wq, READ_ONCE(kx->completed))) {
		ret = -EINTR;
		goto out;
	}
	spin_lock(&vf->done_lock);
	st = kx->st;
	spin_unlock(&vf->done_lock);
	vnk_exec_report(kx, &st, arg);
	/* A concurrent WAIT on the same id may have reaped it first: both report. */
	if (xa_cmpxchg(&vf->execs, id, kx, NULL, 0) == kx)
		vnk_exec_reap(vf, kx);
out:
	vnk_exec_put(kx);
	return ret;
}

__poll_t vnk_exec_poll(struct vnk_file *vf, struct file *filp, poll_table *wait)
{
	__poll_t mask = 0;

	poll_wait(filp, &vf->done_wq, wait);
	spin_lock(&vf->done_lock);
	if (vf->nr_done)
		mask = EPOLLIN | EPOLLRDNORM;
	spin_unlock(&vf->done_lock);
	return mask;
}

/*
 * Cancel the live executions submitted by the calling process (all with NULL), a batch
 * at a time: the list's lock is a spinlock, and cancelling takes the executor's locks.
 */
static void vnk_exec_cancel_of(struct vnk_file *vf, struct pid *tgid)
{
	struct vnk_exec *kx, *batch[16];
	unsigned int i, n;

	do {
		n = 0;
		spin_lock(&vf->done_lock);
		list_for_each_entry(kx, &vf->live, live) {
			if (kx->cancelled || (tgid && kx->tgid != tgid))
				continue;
			kx->cancelled = true;
			kref_get(&kx->ref);
			batch[n++] = kx;
			if (n == ARRAY_SIZE(batch))
				break;
		}
		spin_unlock(&vf->done_lock);
		for (i = 0; i < n; i++) {
			vnk_exec_cancel(batch[i]);
			vnk_exec_put(batch[i]);
		}
	} while (n == ARRAY_SIZE(batch));
}

void vnk_exec_flush(struct vnk_file *vf)
{
	vnk_exec_cancel_of(vf, task_tgid(current));
}

void vnk_exec_release_all(struct vnk_file *vf)
{
	struct vnk_exec *kx;
	unsigned long idx;

	vnk_exec_cancel_of(vf, NULL);
	xa_for_each(&vf->execs, idx, kx) {
		xa_erase(&vf->execs, idx);
		vnk_exec_reap(vf, kx);
	}
}
