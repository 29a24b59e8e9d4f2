// SPDX-License-Identifier: GPL-2.0
/*
 * Trace sessions: TRACE_START/TRACE_STOP, the rings' memory, their mmap and poll()
 * (uapi/vneuron_trace.h, docs/trace-buffer.md).
 *
 * A session traces one core for one open file: one ring per producer thread of the
 * executor (four engines, the DMA worker), each a consumer page and a control page plus
 * data from vmalloc (zeroed, charged to the caller's memcg). The executor's event hook
 * writes each event into the ring of the worker that ran it (single producer, no lock);
 * its execution edge hook, which runs under the core lock with no worker producing,
 * writes EXEC_START/EXEC_END records and publishes every ring at the end of an
 * execution.
 *
 * Lifetime: the session is refcounted; the file's table holds one reference until
 * TRACE_STOP or close, each vma one. Producers stop (hooks removed, rings published)
 * before the file's reference goes, so a mapping that outlives the file only keeps
 * memory alive. Pages go in at fault time, like device buffers (kmod/mem.c).
 *
 * Locking: vn_trace_lock (mutex) serialises start, stop, release and the lookups of
 * mmap; it nests inside mmap_lock and outside the executor's core lock (taken by
 * vn_core_set_hook() and vn_core_quiesce()). Stop drops it while it waits for the
 * running execution (at most its time limit): the session is marked stopping and its
 * core stays taken meanwhile. A file's table of sessions also has a spinlock, the only
 * lock poll() takes.
 */
#include <linux/fs.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "vneuron_drv.h"
#include "compat.h"
#include "exec.h"
#include "trace.h"

/* mmap layout: one window of 8 rings per core, 1 GiB per ring. */
#define VN_TRACE_RING_SHIFT	30
#define VN_TRACE_CORE_SHIFT	(VN_TRACE_RING_SHIFT + 3)
#define VN_TRACE_NR		VN_TRACE_RINGS_PER_CORE
/* Up to 5 x 256 MiB per session: accounted, and a refusal is no kernel warning. */
#define VN_TRACE_GFP		(GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN)

static_assert(VNEURON_TRACE_MAX_RING + 2 * 65536 <= (1ULL << VN_TRACE_RING_SHIFT));
static_assert(VN_TRACE_NR <= 8);
static_assert(sizeof(struct vneuron_trace_record) == VNEURON_TRACE_RECORD_SIZE);

struct vn_tsession {
	struct kref ref;
	struct vn_trace_file *tf;	/* for wake-ups; NULL once stopped */
	struct vn_core *ec;		/* the traced executor */
	u32 core;
	u32 nr;
	u64 size;			/* data bytes per ring */
	bool stopped;			/* under the core lock (edge hook) */
	bool stopping;			/* under vn_trace_lock: TRACE_STOP or release began */
	bool in_exec;			/* under the core lock: saw this execution start */
	u64 exec_seq;
	void *cons[VN_TRACE_NR];	/* one page each */
	void *buf[VN_TRACE_NR];		/* control page + data */
	struct vn_trace_ring prod[VN_TRACE_NR];
};

/* A file's trace state, made at its first TRACE_START and freed with the file. */
struct vn_trace_file {
	wait_queue_head_t wq;
	spinlock_t lock;			/* s[] changes under it and vn_trace_lock */
	struct vn_tsession *s[VN_MAX_CORES];
};

static DEFINE_MUTEX(vn_trace_lock);
/* Which session traces each core of each device, under vn_trace_lock. */
static struct vn_tsession *vn_trace_owner[VN_MAX_DEVICES][VN_MAX_CORES];

static void vn_tsession_free(struct kref *ref)
{
	struct vn_tsession *s = container_of(ref, struct vn_tsession, ref);
	u32 i;

	for (i = 0; i < s->nr; i++) {
		vfree(s->cons[i]);
		vfree(s->buf[i]);
	}
	kfree(s);
}

static void vn_tsession_put(struct vn_tsession *s)
{
	kref_put(&s->ref, vn_tsession_free);
}

/* From a producer (ring watermark) or the edge hook: nudge the file's pollers. */
static void vn_trace_wake(void *arg)
{
	struct vn_trace_file *tf = arg;

	if (wq_has_sleeper(&tf->wq))
		wake_up_interruptible(&tf->wq);
}

/* Event hook: the worker that ran the event writes its own ring. */
static void vn_trace_hook(void *arg, const struct vn_event *ev)
{
	struct vn_tsession *s = arg;

	vn_trace_event(&s->prod[vn_trace_ring_of(ev->stream)], ev);
}

/* Edge hook, under the core lock with no worker producing: rings may change hands. */
static void vn_trace_edge(void *arg, const struct vn_exec_status *st, bool end)
{
	struct vn_tsession *s = arg;
	struct vneuron_trace_record rec;
	bool woke = false;
	u32 i;

	if (s->stopped || (end && (!s->in_exec || s->exec_seq != st->seq)))
		return;
	vn_trace_rec_init(&rec, end ? VNEURON_TRACE_EXEC_END : VNEURON_TRACE_EXEC_START,
			  VNEURON_TRACE_ENGINE_CORE);
	rec.host_ns = ktime_get_ns();
	rec.exec_seq = (u32)st->seq;
	if (!end) {
		s->in_exec = true;
		s->exec_seq = st->seq;
		vn_trace_write(&s->prod[0], &rec);
		return;
	}
	s->in_exec = false;
	rec.model_end_ps = st->model_ps;
	rec.opcode = (u16)st->result;	/* enum vneuron_exec_status */
	rec.elements = st->reason;
	vn_trace_write(&s->prod[0], &rec);
	/* Publish every ring: a worker gone idle leaves its last batch unpublished. */
	for (i = 0; i < s->nr; i++) {
		struct vn_trace_ring *r = &s->prod[i];

		if (r->pub != r->head)
			woke = true;
		vn_trace_flush(r);
	}
	/* The drainer gets each execution's tail now, not at the next watermark. */
	if (woke)
		vn_trace_wake(s->tf);
}

static struct vn_tsession *vn_tsession_new(struct vn_trace_file *tf, u32 core,
					   const struct vneuron_trace_start *arg)
{
	struct vn_trace_params p = {
		.mode = arg->mode,
		.watermark = arg->watermark,
		.core = core,
		.data_offset = PAGE_SIZE,
		.start_host_ns = ktime_get_ns(),
	};
	struct vn_tsession *s;
	u32 i;
	int ret;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return ERR_PTR(-ENOMEM);
	kref_init(&s->ref);
	s->tf = tf;
	s->core = core;
	s->size = arg->ring_size;
	for (i = 0; i < VN_TRACE_NR; i++) {
		/* Zeroed: nothing stale reaches userspace. Faults map the pages one by one. */
		s->cons[i] = __vmalloc(PAGE_SIZE, VN_TRACE_GFP);
		s->buf[i] = __vmalloc(PAGE_SIZE + arg->ring_size, VN_TRACE_GFP);
		s->nr = i + 1;
		if (!s->cons[i] || !s->buf[i]) {
			ret = -ENOMEM;
			goto err;
		}
		p.engine = i < VNEURON_ENGINE_COUNT ? i : VNEURON_TRACE_ENGINE_DMA;
		ret = vn_trace_ring_init(&s->prod[i], s->cons[i], s->buf[i],
					 s->buf[i] + PAGE_SIZE, arg->ring_size, &p,
					 vn_trace_wake, tf);
		if (ret)
			goto err;
	}
	return s;
err:
	vn_tsession_put(s);
	return ERR_PTR(ret);
}

static struct vn_trace_file *vn_trace_file_get(struct vn_file *vf)
{
	struct vn_trace_file *tf = vf->trace;

	if (tf)
		return tf;
	tf = kzalloc(sizeof(*tf), GFP_KERNEL_ACCOUNT);
	if (!tf)
		return NULL;
	init_waitqueue_head(&tf->wq);
	spin_lock_init(&tf->lock);
	/* poll() reads it without vn_trace_lock. */
	smp_store_release(&vf->trace, tf);
	return tf;
}

int vn_trace_start_ioctl(struct vn_file *vf, struct vneuron_trace_start *arg)
{
	struct vn_device *vdev = vf->vdev;
	struct vn_tsession *s, *old = NULL;
	struct vn_trace_file *tf;
	struct vn_core *ec;
	u32 core = arg->core;
	int ret = 0;

	if (arg->flags || arg->pad || arg->mode > VNEURON_TRACE_MODE_OVERWRITE ||
	    core >= vdev->core_count)
		return -EINVAL;
	if (arg->ring_size < max_t(u64, VNEURON_TRACE_MIN_RING, PAGE_SIZE) ||
	    arg->ring_size > VNEURON_TRACE_MAX_RING || !is_power_of_2(arg->ring_size))
		return -EINVAL;
	if (arg->watermark >= arg->ring_size ||
	    arg->watermark % VNEURON_TRACE_RECORD_SIZE)
		return -EINVAL;

	mutex_lock(&vn_trace_lock);
	if (vn_trace_owner[vdev->index][core]) {
		ret = -EBUSY;
		goto out;
	}
	ec = vn_dev_core_exec(&vdev->cores[core]);
	tf = ec ? vn_trace_file_get(vf) : NULL;
	if (!tf) {
		ret = -ENOMEM;
		goto out;
	}
	s = vn_tsession_new(tf, core, arg);
	if (IS_ERR(s)) {
		ret = PTR_ERR(s);
		goto out;
	}
	s->ec = ec;
	/* A stopped session of this file on this core lives on only in its mappings. */
	spin_lock(&tf->lock);
	old = tf->s[core];
	tf->s[core] = s;
	spin_unlock(&tf->lock);
	vn_trace_owner[vdev->index][core] = s;
	/* The event hook is taken at each execution's start: a running one stays untraced. */
	vn_core_set_edge_hook(ec, vn_trace_edge, s);
	vn_core_set_hook(ec, vn_trace_hook, s);

	arg->nr_rings = s->nr;
	arg->mmap_offset = VNEURON_MMAP_TRACE_BASE + ((u64)core << VN_TRACE_CORE_SHIFT);
	arg->ring_stride = 1ULL << VN_TRACE_RING_SHIFT;
	arg->consumer_len = PAGE_SIZE;
	arg->ring_len = PAGE_SIZE + arg->ring_size;
	if (!arg->watermark)
		arg->watermark = (u32)s->prod[0].watermark;
out:
	mutex_unlock(&vn_trace_lock);
	if (old)
		vn_tsession_put(old);
	return ret;
}

/* TRACE_START's answer never arrived: nobody knows the rings, stop them. */
void vn_trace_start_undo(struct vn_file *vf, struct vneuron_trace_start *arg)
{
	struct vneuron_trace_stop st = { .core = arg->core };

	vn_trace_stop_ioctl(vf, &st);
}

static void vn_tsession_quiesced(void *arg)
{
	struct vn_tsession *s = arg;
	u32 i;

	s->stopped = true;
	for (i = 0; i < s->nr; i++)
		vn_trace_stop(&s->prod[i]);
}

/*
 * Stops the producers of a session, called with vn_trace_lock held and returning with
 * it held, dropped meanwhile: no new execution takes the event hook, the running one
 * ends, then, with the core idle, every ring is published and the pollers woken. The
 * session keeps its records for the drainer; the core is free afterwards.
 */
static void vn_tsession_stop(struct vn_device *vdev, struct vn_tsession *s)
{
	struct vn_core *ec = s->ec;

	s->stopping = true;
	kref_get(&s->ref);
	mutex_unlock(&vn_trace_lock);
	vn_core_set_hook(ec, NULL, NULL);
	vn_core_quiesce(ec, vn_tsession_quiesced, s);
	vn_core_set_edge_hook(ec, NULL, NULL);
	mutex_lock(&vn_trace_lock);
	vn_trace_owner[vdev->index][s->core] = NULL;
	vn_tsession_put(s);	/* the file's reference remains */
}

int vn_trace_stop_ioctl(struct vn_file *vf, const struct vneuron_trace_stop *arg)
{
	struct vn_trace_file *tf = vf->trace;
	struct vn_tsession *s;
	int ret = 0;

	if (arg->flags || arg->core >= vf->vdev->core_count)
		return -EINVAL;
	mutex_lock(&vn_trace_lock);
	s = tf ? tf->s[arg->core] : NULL;
	if (!s || s->stopping) {
		ret = -ENOENT;	/* this file is not tracing that core */
		goto out;
	}
	vn_tsession_stop(vf->vdev, s);
out:
	mutex_unlock(&vn_trace_lock);
	return ret;
}

/* The file is going (no ioctl of it runs): stop its sessions; mappings keep their memory. */
void vn_trace_release_all(struct vn_file *vf)
{
	struct vn_trace_file *tf = vf->trace;
	u32 i;

	if (!tf)
		return;
	mutex_lock(&vn_trace_lock);
	for (i = 0; i < VN_MAX_CORES; i++) {
		struct vn_tsession *s = tf->s[i];

		if (!s)
			continue;
		if (!s->stopping)
			vn_tsession_stop(vf->vdev, s);
		s->tf = NULL;
		spin_lock(&tf->lock);
		tf->s[i] = NULL;
		spin_unlock(&tf->lock);
		vn_tsession_put(s);
	}
	mutex_unlock(&vn_trace_lock);
	vf->trace = NULL;
	kfree(tf);
}

__poll_t vn_trace_poll(struct vn_file *vf, struct file *filp, poll_table *wait)
{
	/* Pairs with the release in vn_trace_file_get(): an initialised wait queue. */
	struct vn_trace_file *tf = smp_load_acquire(&vf->trace);
	__poll_t mask = 0;
	u32 i, j;

	if (!tf)
		return 0;
	poll_wait(filp, &tf->wq, wait);
	spin_lock(&tf->lock);
	for (i = 0; i < VN_MAX_CORES && !mask; i++) {
		struct vn_tsession *s = tf->s[i];

		for (j = 0; s && j < s->nr; j++) {
			if (vn_trace_readable(&s->prod[j])) {
				mask = EPOLLIN | EPOLLRDNORM;
				break;
			}
		}
	}
	spin_unlock(&tf->lock);
	return mask;
}

/* ---- mmap ---- */

static void vn_trace_vm_open(struct vm_area_struct *vma)
{
	struct vn_tsession *s = vma->vm_private_data;

	kref_get(&s->ref);
}

static void vn_trace_vm_close(struct vm_area_struct *vma)
{
	vn_tsession_put(vma->vm_private_data);
}

/* vmf->pgoff is the file offset: it says which ring and which part. */
static vm_fault_t vn_trace_vm_fault(struct vm_fault *vmf)
{
	struct vn_tsession *s = vmf->vma->vm_private_data;
	u64 off = ((u64)vmf->pgoff << PAGE_SHIFT) - VNEURON_MMAP_TRACE_BASE;
	u32 ring = (off >> VN_TRACE_RING_SHIFT) & 7;
	u64 in = off & ((1ULL << VN_TRACE_RING_SHIFT) - 1);
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

static const struct vm_operations_struct vn_trace_vm_ops = {
	.open = vn_trace_vm_open,
	.close = vn_trace_vm_close,
	.fault = vn_trace_vm_fault,
};

/*
 * A mapping at or above VNEURON_MMAP_TRACE_BASE: the consumer page of a ring
 * (read-write), or its control page and data (read-only, from the start), of a session
 * this file started. Anything else is refused.
 */
int vn_trace_mmap(struct vn_file *vf, struct vm_area_struct *vma)
{
	u64 off = ((u64)vma->vm_pgoff << PAGE_SHIFT) - VNEURON_MMAP_TRACE_BASE;
	u64 len = vma->vm_end - vma->vm_start;
	u32 core = off >> VN_TRACE_CORE_SHIFT;
	u32 ring = (off >> VN_TRACE_RING_SHIFT) & 7;
	u64 in = off & ((1ULL << VN_TRACE_RING_SHIFT) - 1);
	struct vn_trace_file *tf = vf->trace;
	struct vn_tsession *s;
	int ret = 0;

	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EACCES;
	if (core >= VN_MAX_CORES || core >= vf->vdev->core_count)
		return -EINVAL;
	mutex_lock(&vn_trace_lock);
	s = tf ? tf->s[core] : NULL;
	if (!s || ring >= s->nr) {
		ret = -EINVAL;
		goto out;
	}
	if (in == 0) {
		if (len > PAGE_SIZE)
			ret = -EINVAL;
	} else if (in == PAGE_SIZE) {
		if (len > PAGE_SIZE + s->size)
			ret = -EINVAL;
		else if (vma->vm_flags & VM_WRITE)
			ret = -EACCES;	/* only consumer_pos is the consumer's to write */
		else
			vn_vma_clear_flags(vma, VM_MAYWRITE);
	} else {
		ret = -EINVAL;
	}
	if (ret)
		goto out;
	vn_vma_clear_flags(vma, VM_MAYEXEC);
	vn_vma_set_flags(vma, VM_DONTEXPAND | VM_DONTDUMP);
	kref_get(&s->ref);
	vma->vm_private_data = s;
	vma->vm_ops = &vn_trace_vm_ops;
out:
	mutex_unlock(&vn_trace_lock);
	return ret;
}
