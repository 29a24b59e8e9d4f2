// SPDX-License-Identifier: GPL-2.0
/*
 * Trace sessions: TRACE_START/TRACE_STOP, the rings' memory, their mmap and poll()
 * (uapi/vneuron_trace.h, docs/trace-buffer.md).
 *
 * A session traces one core for one open file: one ring per engine of the executor
 * (four engines, the DMA queues, the CC-core), each a consumer page and a control page
 * plus data from vmalloc (zeroed, charged to the caller's memcg and to the file's
 * max_trace_bytes). The executor's event hook writes each event into the ring of the
 * engine that ran it (one thread runs an engine: single producer, no lock); its edge
 * hook, which runs under the core lock with no worker producing, decides at each
 * execution's start whether the session may see it (its owner is the tracer's own file,
 * or a dumpable process of the same user, or the tracer has CAP_PERFMON), writes
 * EXEC_START, and at the end ERROR (a device fault) and EXEC_END records and publishes
 * every ring.
 *
 * A core's session is a shared resource (kmod/share.c: a share per user), and the slot
 * cannot be held against those with the best claim to it: a privileged tracer takes it
 * from an unprivileged session, and the core's owner (or whoever may see the owner)
 * takes it from a session that cannot see the owner's executions, so useless to its
 * tracer; the displaced session ends as if stopped, and its TRACE_STOP says -ECANCELED.
 *
 * Stopping never waits inside the kernel for someone else's work: the hooks are removed
 * for future executions at once; a traced execution still running keeps them to its end,
 * when the executor calls vnk_session_gone() (vn_core_unhook()). TRACE_STOP waits for
 * that, killably; release does not wait at all.
 *
 * Lifetime: the session is refcounted: the file's table holds one reference until
 * TRACE_STOP's successor or close, each vma one, the executor's hooks one until gone. It
 * holds its file's state (the trace_bytes charge, the wait queue its producers wake)
 * and the executor (struct vnk_executor) until gone, so a producer never wakes freed
 * memory, and an epoll entry (removed when the file goes) never outlives its wait queue.
 *
 * Locking: vnk_dev_core.lock serialises start, stop and claims of a core (a session is
 * in core->tsession while it takes new executions); a file's table of sessions has a
 * spinlock, the only lock poll() and mmap() lookups take.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "dev_core.h"
#include "device.h"
#include "file.h"
#include "genl.h"
#include "main.h"
#include "share.h"
#include "trace.h"
#include "vn_exec.h"
#include "vn_trace.h"
#include "vneuron_genl.h"
#include "vneuron_trace.h"

/* mmap layout: one window of 8 rings per core, 1 GiB per ring. */
#define VNK_TRACE_RING_SHIFT	30
#define VNK_TRACE_CORE_SHIFT	(VNK_TRACE_RING_SHIFT + 3)
#define VNK_TRACE_NR		VN_TRACE_RINGS_PER_CORE
/* Up to 5 x 256 MiB per session: accounted, and a refusal is no kernel warning or OOM. */
#define VNK_TRACE_GFP		(GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN | \
				 __GFP_RETRY_MAYFAIL)

static_assert(VNEURON_TRACE_MAX_RING + 2 * 65536 <= (1ULL << VNK_TRACE_RING_SHIFT));
static_assert(VNK_TRACE_NR <= 8);
static_assert(sizeof(struct vneuron_trace_record) == VNEURON_TRACE_RECORD_SIZE);

struct vnk_trace_session {
	struct kref ref;
	struct vnk_file *vf;		/* holds a reference: its trace_bytes charge */
	struct vnk_executor *exr;	/* the traced executor, until gone */
	const struct cred *cred;	/* the tracer's, for owners that claim later */
	struct vnk_user *user;		/* charged while it holds its core (kmod/share.c) */
	bool privileged;		/* CAP_PERFMON or CAP_SYS_ADMIN at TRACE_START */
	bool displaced;			/* taken over by another tracer (under core->lock) */
	pid_t tracer;			/* its process, init namespace (telemetry) */
	u64 visible;			/* the claim id whose executions it may see, or 0 */
	u32 core;
	u32 nr;
	u64 size;			/* data bytes per ring */
	u64 bytes;			/* charged to vf->trace_bytes */
	bool stopping;			/* TRACE_STOP or release began (under core->lock) */
	bool stopped;			/* gone: rings final, producers detached */
	void *cons[VNK_TRACE_NR];	/* one page each */
	void *buf[VNK_TRACE_NR];	/* control page + data */
	struct vn_trace_ring prod[VNK_TRACE_NR];
};

/* A file's trace state, made at its first TRACE_START and freed with the file. */
struct vnk_trace_file {
	spinlock_t lock;			/* s[] */
	struct vnk_trace_session *s[VNK_MAX_CORES];
};

static void vnk_session_free(struct kref *ref)
{
	struct vnk_trace_session *s = container_of(ref, struct vnk_trace_session, ref);
	u32 i;

	for (i = 0; i < s->nr; i++) {
		vfree(s->cons[i]);
		vfree(s->buf[i]);
	}
	atomic64_sub(s->bytes, &s->vf->trace_bytes);
	vnk_file_put(s->vf);
	put_cred(s->cred);
	kfree(s);
}

static void vnk_session_put(struct vnk_trace_session *s)
{
	kref_put(&s->ref, vnk_session_free);
}

/* From a producer (ring watermark) or the edge hook: nudge the file's pollers. */
static void vnk_trace_wake(void *arg)
{
	struct vnk_trace_session *s = arg;

	if (wq_has_sleeper(&s->vf->trace_wq))
		wake_up_interruptible(&s->vf->trace_wq);
}

/* Event hook: the worker that ran the event writes its own ring. */
static void vnk_trace_hook(void *arg, const struct vn_event *ev)
{
	struct vnk_trace_session *s = arg;

	vn_trace_event(&s->prod[vn_trace_ring_of(ev->stream)], ev);
}

/*
 * Edge hook, under the executor's lock with no worker producing: rings may change hands.
 * At the start: whether this session may see the execution's owner.
 */
static bool vnk_trace_edge(void *arg, const struct vn_exec_status *st, bool end)
{
	struct vnk_trace_session *s = arg;
	bool woke = false;
	u32 i;

	if (!end && !s->privileged && st->owner != READ_ONCE(s->visible))
		return false;
	vn_trace_exec_edge(&s->prod[0], st, end);
	if (!end)
		return true;
	/* Publish every ring: a worker gone idle leaves its last batch unpublished. */
	for (i = 0; i < s->nr; i++) {
		struct vn_trace_ring *r = &s->prod[i];

		if (r->pub != r->head)
			woke = true;
		vn_trace_flush(r);
	}
	/* The drainer gets each execution's tail now, not at the next watermark. */
	if (woke)
		vnk_trace_wake(s);
	return true;
}

/*
 * No execution uses the session's hooks any more (vn_core_unhook()): under the
 * executor's lock, with no worker producing. Publishes the rings for good, wakes
 * TRACE_STOP and the pollers, lets the executor go and drops the hooks' reference.
 */
static void vnk_session_gone(void *arg)
{
	struct vnk_trace_session *s = arg;
	u64 dropped = 0;
	u32 i;

	for (i = 0; i < s->nr; i++) {
		vn_trace_stop(&s->prod[i]);
		dropped += s->prod[i].dropped;
	}
	vnk_event_trace(&s->vf->vdev->cores[s->core], VNEURON_EVENT_TRACE_STOP, s->tracer,
			s->cred->uid, dropped);
	WRITE_ONCE(s->stopped, true);
	wake_up_all(&s->vf->trace_wq);
	vnk_executor_put(s->exr);
	s->exr = NULL;
	vnk_session_put(s);
}

static struct vnk_trace_session *vnk_session_new(struct vnk_file *vf, u32 core,
						 const struct vneuron_trace_start *arg, u64 bytes)
{
	struct vn_trace_params p = {
		.mode = arg->mode,
		.watermark = arg->watermark,
		.core = core,
		.data_offset = PAGE_SIZE,
		.start_host_ns = ktime_get_ns(),
	};
	struct vnk_trace_session *s;
	u32 i;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return ERR_PTR(-ENOMEM);
	kref_init(&s->ref);
	kref_get(&vf->ref);
	s->vf = vf;
	s->bytes = bytes;		/* charged by the caller */
	s->cred = get_current_cred();
	/* The caller's and the file opener's: a descriptor handed over gives nothing. */
	s->privileged = vnk_share_privileged(VNEURON_SHARE_TRACES, vf->filp, NULL);
	s->tracer = task_tgid_nr(current);
	s->core = core;
	s->size = arg->ring_size;
	for (i = 0; i < VNK_TRACE_NR; i++) {
		/* Zeroed: nothing stale reaches userspace. Faults map the pages one by one. */
		s->cons[i] = __vmalloc(PAGE_SIZE, VNK_TRACE_GFP);
		s->buf[i] = __vmalloc(PAGE_SIZE + arg->ring_size, VNK_TRACE_GFP);
		s->nr = i + 1;
		if (!s->cons[i] || !s->buf[i]) {
			ret = -ENOMEM;
			goto err;
		}
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto err;
		}
		p.engine = vn_trace_ring_engine(i);
		ret = vn_trace_ring_init(&s->prod[i], s->cons[i], s->buf[i],
					 s->buf[i] + PAGE_SIZE, arg->ring_size, &p,
					 vnk_trace_wake, s);
		if (ret)
			goto err;
	}
	return s;
err:
	vnk_session_put(s);
	return ERR_PTR(ret);
}

static struct vnk_trace_file *vnk_trace_file_get(struct vnk_file *vf)
{
	/* Pairs with the cmpxchg_release() below: an initialised lock. */
	struct vnk_trace_file *tf = smp_load_acquire(&vf->trace), *old;

	if (tf)
		return tf;
	tf = kzalloc(sizeof(*tf), GFP_KERNEL_ACCOUNT);
	if (!tf)
		return NULL;
	spin_lock_init(&tf->lock);
	/* Two TRACE_STARTs of one file may race here: one table wins. */
	old = cmpxchg_release(&vf->trace, NULL, tf);
	if (old) {
		kfree(tf);
		return old;
	}
	return tf;
}

/*
 * The uid check of ptrace_may_access() (which modules cannot call), for a tracer with
 * credentials tracer and a target with credentials target and memory mm: the same user
 * and group as every id of the target, and a dumpable target (so a setuid process, or
 * one that made itself undumpable, stays private).
 */
static bool vnk_cred_may_see(const struct cred *tracer, const struct cred *target,
			     struct mm_struct *mm)
{
	if (!uid_eq(tracer->uid, target->euid) || !uid_eq(tracer->uid, target->suid) ||
	    !uid_eq(tracer->uid, target->uid) || !gid_eq(tracer->gid, target->egid) ||
	    !gid_eq(tracer->gid, target->sgid) || !gid_eq(tracer->gid, target->gid))
		return false;
	return mm && get_dumpable(mm) == SUID_DUMP_USER;
}

/*
 * May the calling process, through @vf, see the executions of the core's current owner?
 * Its own file's, a dumpable process of its own user's, everyone's when privileged.
 */
static bool vnk_may_see_owner(struct vnk_file *vf, struct vnk_dev_core *core)
{
	struct task_struct *task;
	const struct cred *tcred;
	struct mm_struct *mm;
	bool ok;

	if (core->owner == vf || vnk_share_privileged(VNEURON_SHARE_TRACES, vf->filp, NULL))
		return true;
	task = get_pid_task(core->owner_pid, PIDTYPE_TGID);
	if (!task)
		return false;
	tcred = get_task_cred(task);
	mm = get_task_mm(task);
	ok = vnk_cred_may_see(current_cred(), tcred, mm);
	if (mm)
		mmput(mm);
	put_cred(tcred);
	put_task_struct(task);
	return ok;
}

void vnk_trace_core_claimed(struct vnk_dev_core *core)
{
	struct vnk_trace_session *s = core->tsession;

	lockdep_assert_held(&core->lock);
	if (!s)
		return;
	if (core->owner && (s->privileged || core->owner == s->vf ||
			    vnk_cred_may_see(s->cred, current_cred(), current->mm)))
		WRITE_ONCE(s->visible, core->claim);
	else
		WRITE_ONCE(s->visible, 0);
}

/*
 * The session's share of the file's max_trace_bytes: its rings' data. (Each ring's
 * consumer and control pages are charged to the memory cgroup only: at most 8 sessions
 * of 5 rings per file.)
 */
static u64 vnk_trace_bytes(u64 ring_size)
{
	return VNK_TRACE_NR * ring_size;
}

/*
 * Under core->lock: may TRACE_START through @vf take the core's tracing from session
 * @old? A privileged tracer from an unprivileged one; the owner's side (who may see the
 * owner) from a session that cannot see the owner.
 */
static bool vnk_trace_may_take(struct vnk_file *vf, struct vnk_dev_core *core,
			       const struct vnk_trace_session *old)
{
	if (old->vf == vf || old->privileged)
		return false;
	if (vnk_share_privileged(VNEURON_SHARE_TRACES, vf->filp, NULL))
		return true;
	return core->owner && READ_ONCE(old->visible) != core->claim &&
	       vnk_may_see_owner(vf, core);
}

/*
 * Under core->lock: session @s no longer takes the core's new executions and gives back
 * its charge. Returns false if it had stopped already. The caller then has the executor
 * let go of its hooks (vn_core_unhook()), with the lock dropped.
 */
static bool vnk_session_unslot(struct vnk_trace_session *s, struct vnk_dev_core *core,
			       bool displaced)
{
	lockdep_assert_held(&core->lock);
	if (s->stopping)
		return false;
	s->displaced = displaced;
	/* Pairs with TRACE_STOP's acquire: @displaced is seen with @stopping. */
	smp_store_release(&s->stopping, true);
	if (core->tsession == s)
		core->tsession = NULL;
	vnk_share_uncharge(s->user, VNEURON_SHARE_TRACES);
	s->user = NULL;
	return true;
}

int vnk_trace_start_ioctl(struct vnk_file *vf, void *data)
{
	struct vneuron_trace_start *arg = data;
	struct vnk_device *vdev = vf->vdev;
	struct vnk_trace_session *s, *old, *gone = NULL;
	struct vnk_dev_core *core;
	struct vnk_trace_file *tf;
	struct vnk_executor *exr;
	struct vnk_user *user;
	u32 c = arg->core;
	u64 bytes;
	int ret;

	if (arg->flags || arg->pad || arg->mode > VNEURON_TRACE_MODE_OVERWRITE ||
	    c >= vdev->core_count)
		return -EINVAL;
	if (arg->ring_size < max_t(u64, VNEURON_TRACE_MIN_RING, PAGE_SIZE) ||
	    arg->ring_size > VNEURON_TRACE_MAX_RING || !is_power_of_2(arg->ring_size))
		return -EINVAL;
	if (arg->watermark >= arg->ring_size ||
	    arg->watermark % VNEURON_TRACE_RECORD_SIZE)
		return -EINVAL;
	core = &vdev->cores[c];
	bytes = vnk_trace_bytes(arg->ring_size);
	if (atomic64_add_return(bytes, &vf->trace_bytes) > vnk_limits.max_trace_bytes) {
		atomic64_sub(bytes, &vf->trace_bytes);
		return -ENOSPC;
	}
	tf = vnk_trace_file_get(vf);
	if (!tf) {
		atomic64_sub(bytes, &vf->trace_bytes);
		return -ENOMEM;
	}
	/* The rings first, with no lock held: they may be large. The session owns bytes. */
	s = vnk_session_new(vf, c, arg, bytes);
	if (IS_ERR(s))
		return PTR_ERR(s);

	if (mutex_lock_killable(&core->lock)) {
		ret = -EINTR;
		goto err;
	}
	if (core->tsession && !vnk_trace_may_take(vf, core, core->tsession)) {
		ret = -EBUSY;
		goto err_unlock;
	}
	if (core->owner && !vnk_may_see_owner(vf, core)) {
		ret = -EPERM;
		goto err_unlock;
	}
	user = vnk_share_charge(VNEURON_SHARE_TRACES, vf->filp, NULL);
	if (IS_ERR(user)) {
		ret = PTR_ERR(user);
		goto err_unlock;
	}
	exr = vnk_executor_get(core);
	if (!exr) {
		vnk_share_uncharge(user, VNEURON_SHARE_TRACES);
		ret = -ENOMEM;
		goto err_unlock;
	}
	/* Every check passed: only now is a session taken over. */
	gone = core->tsession;
	if (gone && !vnk_session_unslot(gone, core, true))
		gone = NULL;
	s->user = user;
	s->exr = exr;
	s->visible = core->owner ? core->claim : 0;
	core->tsession = s;
	/* A stopped session of this file on this core lives on only in its mappings. */
	spin_lock(&tf->lock);
	old = tf->s[c];
	tf->s[c] = s;
	spin_unlock(&tf->lock);
	kref_get(&s->ref);		/* the hooks', dropped when gone */
	/* The hooks are taken at each execution's start: a running one stays untraced. */
	vn_core_set_hooks(exr->ec, vnk_trace_hook, vnk_trace_edge, s);
	/* The displaced session's hooks stay with an execution that took them, to its end. */
	if (gone)
		vn_core_unhook(gone->exr->ec, gone, vnk_session_gone);
	vnk_event_trace(core, VNEURON_EVENT_TRACE_START, s->tracer, s->cred->uid, 0);
	/*
	 * What the caller is told, read while the lock keeps s: once it is dropped, another
	 * process sharing this file may stop the session and start the next, freeing s.
	 */
	arg->nr_rings = s->nr;
	if (!arg->watermark)
		arg->watermark = (u32)s->prod[0].watermark;
	mutex_unlock(&core->lock);
	if (old)
		vnk_session_put(old);

	arg->mmap_offset = VNEURON_MMAP_TRACE_BASE + ((u64)c << VNK_TRACE_CORE_SHIFT);
	arg->ring_stride = 1ULL << VNK_TRACE_RING_SHIFT;
	arg->consumer_len = PAGE_SIZE;
	arg->ring_len = PAGE_SIZE + arg->ring_size;
	return 0;

err_unlock:
	mutex_unlock(&core->lock);
err:
	vnk_session_put(s);
	return ret;
}

/*
 * Takes a session out of its core (no new execution takes its hooks) and has the
 * executor call vnk_session_gone() once no execution uses them, maybe at once.
 */
static void vnk_session_detach(struct vnk_trace_session *s, struct vnk_dev_core *core)
{
	struct vnk_executor *exr;

	mutex_lock(&core->lock);
	if (!vnk_session_unslot(s, core, false)) {
		mutex_unlock(&core->lock);
		return;
	}
	exr = s->exr;
	mutex_unlock(&core->lock);
	/* The session's own executor reference keeps exr alive until gone. */
	vn_core_unhook(exr->ec, s, vnk_session_gone);
}

/* Nobody knows the rings: stop them. */
void vnk_trace_start_undo(struct vnk_file *vf, void *data)
{
	const struct vneuron_trace_start *arg = data;
	struct vneuron_trace_stop st = { .core = arg->core };

	vnk_trace_stop_ioctl(vf, &st);
}

/* This file's session on a core, with a reference, or NULL. */
static struct vnk_trace_session *vnk_session_of(struct vnk_file *vf, u32 core)
{
	/* Pairs with the cmpxchg_release() of vnk_trace_file_get(): an initialised lock. */
	struct vnk_trace_file *tf = smp_load_acquire(&vf->trace);
	struct vnk_trace_session *s = NULL;

	if (!tf || core >= VNK_MAX_CORES)
		return NULL;
	spin_lock(&tf->lock);
	s = tf->s[core];
	if (s)
		kref_get(&s->ref);
	spin_unlock(&tf->lock);
	return s;
}

int vnk_trace_stop_ioctl(struct vnk_file *vf, void *data)
{
	const struct vneuron_trace_stop *arg = data;
	struct vnk_trace_session *s;
	int ret = 0;

	if (arg->flags || arg->core >= vf->vdev->core_count)
		return -EINVAL;
	s = vnk_session_of(vf, arg->core);
	if (!s)
		return -ENOENT;		/* this file is not tracing that core */
	/* Pairs with vnk_session_unslot()'s release. */
	if (smp_load_acquire(&s->stopping)) {
		ret = -ENOENT;
		if (!READ_ONCE(s->displaced))
			goto out;
		/* Taken over: the rings are final once its last execution ends. */
		ret = -ECANCELED;
		if (wait_event_killable(vf->trace_wq, READ_ONCE(s->stopped)))
			ret = -EINTR;
		goto out;
	}
	vnk_session_detach(s, &vf->vdev->cores[arg->core]);
	/* A traced execution still running keeps its hooks to its end: wait, killably. */
	if (wait_event_killable(vf->trace_wq, READ_ONCE(s->stopped)))
		ret = -EINTR;
out:
	vnk_session_put(s);
	return ret;
}

void vnk_trace_release_all(struct vnk_file *vf)
{
	struct vnk_trace_file *tf = vf->trace;
	struct vnk_trace_session *s;
	u32 i;

	if (!tf)
		return;
	for (i = 0; i < VNK_MAX_CORES; i++) {
		spin_lock(&tf->lock);
		s = tf->s[i];
		tf->s[i] = NULL;
		spin_unlock(&tf->lock);
		if (!s)
			continue;
		vnk_session_detach(s, &vf->vdev->cores[i]);
		vnk_session_put(s);
	}
	vf->trace = NULL;
	kfree(tf);
}

__poll_t vnk_trace_poll(struct vnk_file *vf, struct file *filp, poll_table *wait)
{
	/* Pairs with the cmpxchg_release() of vnk_trace_file_get(): an initialised lock. */
	struct vnk_trace_file *tf = smp_load_acquire(&vf->trace);
	__poll_t mask = 0;
	u32 i, j;

	if (!tf)
		return 0;
	poll_wait(filp, &vf->trace_wq, wait);
	spin_lock(&tf->lock);
	for (i = 0; i < VNK_MAX_CORES; i++) {
		struct vnk_trace_session *s = tf->s[i];

		for (j = 0; s && j < s->nr && !mask; j++)
			if (vn_trace_readable(&s->prod[j]))
				mask = EPOLLIN | EPOLLRDNORM;
	}
	spin_unlock(&tf->lock);
	return mask;
}

/* ---- mmap ---- */

static void vnk_trace_vm_open(struct vm_area_struct *vma)
{
	struct vnk_trace_session *s = vma->vm_private_data;

	kref_get(&s->ref);
}

static void vnk_trace_vm_close(struct vm_area_struct *vma)
{
	vnk_session_put(vma->vm_private_data);
}

/* vmf->pgoff is the file offset: it says which ring and which part. */
static vm_fault_t vnk_trace_vm_fault(struct vm_fault *vmf)
{
	struct vnk_trace_session *s = vmf->vma->vm_private_data;
	u64 off = ((u64)vmf->pgoff << PAGE_SHIFT) - VNEURON_MMAP_TRACE_BASE;
	u32 ring = (off >> VNK_TRACE_RING_SHIFT) & 7;
	u64 in = off & ((1ULL << VNK_TRACE_RING_SHIFT) - 1);
	struct page *page;
	void *addr;

	if (ring >= s->nr)
		return VM_FAULT_SIGBUS;
	if (in < PAGE_SIZE)
		addr = s->cons[ring];
	else if (in - PAGE_SIZE < PAGE_SIZE + s->size)
		addr = s->buf[ring] + (in - PAGE_SIZE);
	else
		return VM_FAULT_SIGBUS;
	page = vmalloc_to_page(addr);
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct vnk_trace_vm_ops = {
	.open = vnk_trace_vm_open,
	.close = vnk_trace_vm_close,
	.fault = vnk_trace_vm_fault,
};

/*
 * A mapping at or above VNEURON_MMAP_TRACE_BASE: the consumer page of a ring
 * (read-write), or its control page and data (read-only, from the start), of a session
 * this file started. Anything else is refused.
 */
int vnk_trace_mmap(struct vnk_file *vf, struct vm_area_struct *vma)
{
	u64 off = ((u64)vma->vm_pgoff << PAGE_SHIFT) - VNEURON_MMAP_TRACE_BASE;
	u64 len = vma->vm_end - vma->vm_start;
	u32 core = off >> VNK_TRACE_CORE_SHIFT;
	u32 ring = (off >> VNK_TRACE_RING_SHIFT) & 7;
	u64 in = off & ((1ULL << VNK_TRACE_RING_SHIFT) - 1);
	struct vnk_trace_session *s;
	int ret = 0;

	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EACCES;
	if (core >= VNK_MAX_CORES || core >= vf->vdev->core_count)
		return -EINVAL;
	s = vnk_session_of(vf, core);
	if (!s)
		return -EINVAL;
	if (ring >= s->nr) {
		ret = -EINVAL;
	} else if (in == 0) {
		if (len > PAGE_SIZE)
			ret = -EINVAL;
	} else if (in == PAGE_SIZE) {
		if (len > PAGE_SIZE + s->size)
			ret = -EINVAL;
		else if (vma->vm_flags & VM_WRITE)
			ret = -EACCES;	/* only consumer_pos is the consumer's to write */
		else
			vnk_vma_clear_flags(vma, VM_MAYWRITE);
	} else {
		ret = -EINVAL;
	}
	if (ret) {
		vnk_session_put(s);
		return ret;
	}
	vnk_vma_clear_flags(vma, VM_MAYEXEC);
	vnk_vma_set_flags(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = s;	/* takes over our reference */
	vma->vm_ops = &vnk_trace_vm_ops;
	return 0;
}
