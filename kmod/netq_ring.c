// SPDX-License-Identifier: GPL-2.0
/*
 * A network queue's mapped ring (uapi 6): NETQ_RING_SETUP gives a registration with
 * remote ranks a ring pair the proxy maps, as a NIC's queue: the kernel posts each
 * request (kmod/netq.c's vnk_netq_request()) from a work item as soon as the last local
 * rank arrives and wakes poll(); the proxy writes completion descriptors and rings
 * NETQ_DOORBELL, which consumes them in order (vnk_netq_post()). The whole mapping is
 * the proxy's to scribble on: the kernel keeps its own indices, reads the proxy's once
 * per use, masks every index and copies each completion out once before checking it.
 *
 * Lifetime: the ring is held by its registration (vnk_netq.ring) until the registration
 * goes (vnk_netq_ring_detach(): no more posting, the stage let go), by each vma, and by
 * each doorbell in progress. Its last unmapping breaks the communicator: the proxy can no
 * longer serve the remote ranks.
 *
 * Lock order (kmod/file.h): vnk_netq_ring.lock nests vnk_comm_lock and vn_comm's lock;
 * the teardown takes it under vnk_file.comm_lock, waits for the ring's work there and
 * drops the stage (hbm_lock). A vma close breaks the communicator under mmap_lock.
 * vnk_file.netq_lock (the file's rings, for poll and mmap) is innermost.
 */
#include <linux/err.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "comm.h"
#include "compat.h"
#include "file.h"
#include "mem.h"
#include "netq.h"
#include "netq_ring.h"
#include "share.h"
#include "vn_comm.h"

/*
 * A network queue's ring pair (NETQ_RING_SETUP): one per registration. Held by the
 * registration (struct vnk_comm.ring) until it goes, by each vma and by each doorbell
 * in progress. @lock serialises posting (the work), the doorbell and the teardown;
 * @c, @stage and @wq are valid while !@dead. Everything in @mem is the proxy's to
 * scribble on: the kernel keeps its own indices and copies each completion out once.
 */
struct vnk_netq_ring {
	struct kref ref;
	struct list_head node;		/* in vnk_file.netq_rings, under netq_lock */
	struct mutex lock;
	bool dead;
	struct vnk_comm *c;
	struct vn_comm *cm;		/* one reference: the last unmapping breaks it */
	u32 first_remote;
	u32 handle;
	u32 entries;
	u32 req_head;			/* the kernel's: requests posted */
	u32 cpl_tail;			/* the kernel's: completions consumed */
	atomic_t maps;
	wait_queue_head_t *wq;		/* the file's netq_wq */
	struct work_struct post;
	struct vnk_mem *stage;
	u64 stage_offset, stage_size;
	void *mem;			/* control page, requests, completions */
	size_t len;
	struct vn_cc_pending pend;	/* the work's, under @lock */
	struct vnk_netq_rq rq;		/* the work's, under @lock */
	struct vneuron_netq_req req;	/* the work's, under @lock */
	struct vneuron_netq_cpl cpl;	/* the doorbell's copy of a completion, under @lock */
	struct vnk_user *user;		/* charged for it (kmod/share.c) */
	/* The posted remote ranks' arguments, read by the communicator until it completes. */
	struct vn_cc_args ra[VN_COMM_MAX_RANKS];
};

/* Each ring's window of mmap offsets: 1 MiB, a registration handle apart. */
#define VNK_NETQ_RING_SHIFT	20
#define VNK_NETQ_REQ_OFFSET	PAGE_SIZE
static_assert(sizeof(struct vneuron_netq_ctrl) <= PAGE_SIZE);
static_assert(sizeof(struct vneuron_netq_req) == 576);
static_assert(sizeof(struct vneuron_netq_cpl) == 576);
static_assert(VNEURON_NETQ_RING_RANKS == VN_COMM_MAX_RANKS);
static_assert(PAGE_SIZE + 2 * VNEURON_NETQ_RING_MAX_ENTRIES * 576 <=
	      (1UL << VNK_NETQ_RING_SHIFT));
static_assert((u64)VNK_HANDLE_LIMIT << VNK_NETQ_RING_SHIFT < VNEURON_MMAP_NETQ_BASE);

static void vnk_netq_ring_free(struct kref *ref)
{
	struct vnk_netq_ring *ring = container_of(ref, struct vnk_netq_ring, ref);

	vfree(ring->mem);
	vn_comm_put(ring->cm);
	vnk_share_uncharge(ring->user, VNEURON_SHARE_NETQ_RINGS);
	mutex_destroy(&ring->lock);
	kfree(ring);
}

void vnk_netq_ring_put(struct vnk_netq_ring *ring)
{
	kref_put(&ring->ref, vnk_netq_ring_free);
}

void vnk_netq_ring_get(struct vnk_netq_ring *ring)
{
	kref_get(&ring->ref);
}

static struct vneuron_netq_ctrl *vnk_netq_ctrl(struct vnk_netq_ring *ring)
{
	return ring->mem;
}

/*
 * Under ring->lock: @rq into the next request entry, then req_head (release: the
 * entry first), and the proxy woken. A proxy that left no room, or scribbled its
 * req_tail, cannot be served: the communicator breaks (EINVAL).
 */
static void vnk_netq_ring_post(struct vnk_netq_ring *ring, const struct vnk_netq_rq *rq)
{
	struct vneuron_netq_ctrl *ctl = vnk_netq_ctrl(ring);
	struct vneuron_netq_req *d = &ring->req;
	/* Pairs with the proxy's release of req_tail: its reads of the entry are done. */
	u32 tail = smp_load_acquire(&ctl->req_tail);
	u32 slot = ring->req_head & (ring->entries - 1);

	if ((u32)(ring->req_head - tail) >= ring->entries) {
		vn_comm_break(ring->cm, ring->first_remote, -EINVAL);
		if (rq->id)
			vnk_netq_unissue(ring->c, rq->id);
		return;
	}
	memset(d, 0, sizeof(*d));
	d->id = rq->id;
	d->op = rq->op;
	d->reduce = rq->reduce;
	d->dtype = rq->dtype;
	d->shift = rq->shift;
	d->count = rq->count;
	d->rank_bytes = rq->rank_bytes;
	d->stage_need = rq->stage_need;
	d->local = rq->local;
	d->nranks = ring->c->nranks;
	memcpy(d->arrive_ps, rq->arrive_ps, sizeof(d->arrive_ps));
	memcpy((u8 *)ring->mem + VNK_NETQ_REQ_OFFSET + slot * sizeof(*d), d, sizeof(*d));
	ring->req_head++;
	/* The entry before the head: pairs with the proxy's acquire of req_head. */
	smp_store_release(&ctl->req_head, ring->req_head);
	wake_up_interruptible(ring->wq);
}

/* Every local rank stands at a collective (or the stage changed): post its request. */
static void vnk_netq_post_work(struct work_struct *work)
{
	struct vnk_netq_ring *ring = container_of(work, struct vnk_netq_ring, post);

	mutex_lock(&ring->lock);
	/* A past deadline: only if they stand there now; -EBUSY if a request is out. */
	if (!ring->dead &&
	    !vnk_netq_request(ring->c, ring->stage, ring->stage_offset, ring->stage_size, 1,
			      &ring->pend, &ring->rq))
		vnk_netq_ring_post(ring, &ring->rq);
	mutex_unlock(&ring->lock);
}

/* From the communicator, under its lock: the local ranks all arrived. */
static void vnk_netq_notify(void *arg)
{
	struct vnk_netq_ring *ring = arg;

	queue_work(system_unbound_wq, &ring->post);
}

/*
 * Under ring->lock: the completions the proxy posted, in order, each copied out of the
 * mapping once and checked before use. 0, or the first one's error: -EINVAL and
 * -ENOENT leave it unconsumed (the proxy may fix it), -EPIPE consumes it.
 */
static int vnk_netq_ring_consume(struct vnk_netq_ring *ring)
{
	struct vneuron_netq_ctrl *ctl = vnk_netq_ctrl(ring);
	struct vneuron_netq_cpl *cp = &ring->cpl;
	size_t cpl_off = VNK_NETQ_REQ_OFFSET + ring->entries * sizeof(struct vneuron_netq_req);
	/* Pairs with the proxy's release of cpl_head: the entries before it are written. */
	u32 head = smp_load_acquire(&ctl->cpl_head), slot, i;
	int ret = 0;

	if ((u32)(head - ring->cpl_tail) > ring->entries)
		return -EINVAL;
	while (ring->cpl_tail != head) {
		slot = ring->cpl_tail & (ring->entries - 1);
		memcpy(cp, (u8 *)ring->mem + cpl_off + slot * sizeof(*cp), sizeof(*cp));
		ret = 0;
		for (i = 0; i < ARRAY_SIZE(cp->pad); i++)
			if (cp->pad[i])
				ret = -EINVAL;
		if (ret)
			break;
		if (cp->error && cp->ranks)
			ret = -EINVAL;
		else if (cp->error)
			ret = vnk_netq_fail(ring->c, cp->error, cp->failed_rank, cp->missing);
		else if (cp->failed_rank || cp->missing)
			ret = -EINVAL;
		else
			ret = vnk_netq_post(ring->c, ring->stage, ring->stage_offset, cp->id,
					    cp->ranks, cp->arrive_ps, ring->ra);
		if (ret && ret != -EPIPE)
			break;
		ring->cpl_tail++;
		/* Our reads of the entry before the tail: the proxy may then reuse it. */
		smp_store_release(&ctl->cpl_tail, ring->cpl_tail);
		if (ret)
			break;
	}
	return ret;
}

/* The stage range @off, @size of buffer @handle of @vf, with a reference; ERR_PTR. */
static struct vnk_mem *vnk_netq_stage(struct vnk_file *vf, u32 handle, u64 off, u64 size)
{
	struct vnk_mem *m;
	u64 end;

	if (check_add_overflow(off, size, &end))
		return ERR_PTR(-EINVAL);
	m = vnk_mem_get(vf, handle);
	if (!m)
		return ERR_PTR(-ENOENT);
	if (end > m->size) {
		vnk_mem_put(m);
		return ERR_PTR(-EINVAL);
	}
	return m;
}

int vnk_netq_ring_setup_ioctl(struct vnk_file *vf, void *data)
{
	struct vneuron_netq_ring_setup *arg = data;
	struct vnk_netq_ring *ring;
	struct vnk_comm_handle *h;
	struct vnk_mem *stage;
	struct vnk_comm *c;
	int ret;

	arg->mmap_offset = 0;
	arg->mmap_len = 0;
	arg->req_offset = 0;
	arg->cpl_offset = 0;
	if (arg->flags || arg->entries < 2 || arg->entries > VNEURON_NETQ_RING_MAX_ENTRIES ||
	    !is_power_of_2(arg->entries))
		return -EINVAL;
	stage = vnk_netq_stage(vf, arg->stage, arg->stage_offset, arg->stage_size);
	if (IS_ERR(stage))
		return PTR_ERR(stage);
	ret = -ENOMEM;
	ring = kzalloc(sizeof(*ring), GFP_KERNEL_ACCOUNT);
	if (!ring)
		goto err;
	kref_init(&ring->ref);
	INIT_LIST_HEAD(&ring->node);
	mutex_init(&ring->lock);
	INIT_WORK(&ring->post, vnk_netq_post_work);
	atomic_set(&ring->maps, 0);
	ring->entries = arg->entries;
	ring->len = PAGE_ALIGN(VNK_NETQ_REQ_OFFSET + 2 * (size_t)arg->entries *
			       sizeof(struct vneuron_netq_req));
	/* Zeroed: nothing stale reaches userspace. Faults map the pages one by one. */
	ring->mem = __vmalloc(ring->len, GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN);
	if (!ring->mem) {
		kfree(ring);
		goto err;
	}
	ring->stage = stage;
	ring->stage_offset = arg->stage_offset;
	ring->stage_size = arg->stage_size;
	ring->handle = arg->handle;
	ring->wq = &vf->netq_wq;
	ret = -EINTR;
	if (mutex_lock_killable(&vf->comm_lock))
		goto err_ring;
	h = arg->handle ? xa_load(&vf->comms, arg->handle) : NULL;
	c = h ? h->comm : NULL;
	ret = !h ? -ENOENT : h->rank != VNEURON_COMM_NONE ? -EINVAL : 0;
	if (!ret) {
		/* Rings are a shared resource: the caller's user's share. */
		ring->user = vnk_share_charge(VNEURON_SHARE_NETQ_RINGS, vf->filp, NULL);
		if (IS_ERR(ring->user)) {
			ret = PTR_ERR(ring->user);
			ring->user = NULL;
		}
	}
	if (!ret) {
		mutex_lock(&vnk_comm_lock);
		if (!c->nq.on)
			ret = -EINVAL;
		else if (c->nq.ring || c->nq.state != VNK_NETQ_IDLE)
			ret = -EBUSY;
		else
			c->nq.ring = ring;		/* the registration's reference */
		mutex_unlock(&vnk_comm_lock);
	}
	if (ret) {
		mutex_unlock(&vf->comm_lock);
		goto err_ring;
	}
	ring->c = c;
	ring->cm = c->cm;
	vn_comm_get(c->cm);
	ring->first_remote = __ffs64(c->nq.remote);
	spin_lock(&vf->netq_lock);
	list_add(&ring->node, &vf->netq_rings);
	spin_unlock(&vf->netq_lock);
	/* From now on the local ranks' arrivals post requests. */
	vn_comm_set_proxy_notify(c->cm, vnk_netq_notify, ring);
	mutex_unlock(&vf->comm_lock);
	arg->mmap_offset = VNEURON_MMAP_NETQ_BASE + ((u64)arg->handle << VNK_NETQ_RING_SHIFT);
	arg->mmap_len = ring->len;
	arg->req_offset = VNK_NETQ_REQ_OFFSET;
	arg->cpl_offset = VNK_NETQ_REQ_OFFSET + arg->entries * sizeof(struct vneuron_netq_req);
	return 0;
err_ring:
	if (ring->user)
		vnk_share_uncharge(ring->user, VNEURON_SHARE_NETQ_RINGS);
	vfree(ring->mem);
	mutex_destroy(&ring->lock);
	kfree(ring);
err:
	vnk_mem_put(stage);
	return ret;
}

/*
 * Under vf->comm_lock: registration @c of @vf goes, and its ring with it: no more
 * requests are posted, the stage is let go, and the mappings keep only the pages.
 */
void vnk_netq_ring_detach(struct vnk_file *vf, struct vnk_comm *c)
{
	struct vnk_netq_ring *ring;
	struct vnk_mem *stage;
	bool partial;

	lockdep_assert_held(&vf->comm_lock);
	mutex_lock(&vnk_comm_lock);
	ring = c->nq.ring;
	c->nq.ring = NULL;
	mutex_unlock(&vnk_comm_lock);
	if (!ring)
		return;
	vn_comm_set_proxy_notify(c->cm, NULL, NULL);
	spin_lock(&vf->netq_lock);
	list_del(&ring->node);
	spin_unlock(&vf->netq_lock);
	mutex_lock(&ring->lock);
	ring->dead = true;
	stage = ring->stage;
	ring->stage = NULL;
	mutex_unlock(&ring->lock);
	cancel_work_sync(&ring->post);
	mutex_lock(&vnk_comm_lock);
	partial = c->nq.state == VNK_NETQ_PENDING && c->nq.posted;
	mutex_unlock(&vnk_comm_lock);
	/* Ranks posted point into the stage and the ring: nobody may complete them now. */
	if (partial)
		vn_comm_break(c->cm, ring->first_remote, -EPIPE);
	vnk_mem_put(stage);
	vnk_netq_ring_put(ring);
}

void vnk_netq_ring_setup_undo(struct vnk_file *vf, void *data)
{
	const struct vneuron_netq_ring_setup *arg = data;
	struct vnk_comm_handle *h;

	/* Nobody knows where the ring is: the registration serves without it, by ioctl. */
	mutex_lock(&vf->comm_lock);
	h = arg->handle ? xa_load(&vf->comms, arg->handle) : NULL;
	if (h && h->rank == VNEURON_COMM_NONE)
		vnk_netq_ring_detach(vf, h->comm);
	mutex_unlock(&vf->comm_lock);
}

int vnk_netq_doorbell_ioctl(struct vnk_file *vf, void *data)
{
	const struct vneuron_netq_doorbell *arg = data;
	bool restage = arg->flags & VNEURON_NETQ_DOORBELL_STAGE;
	struct vnk_mem *nst = NULL, *old = NULL;
	struct vnk_netq_ring *ring = NULL;
	struct vnk_comm *c;
	int ret;

	if ((arg->flags & ~VNEURON_NETQ_DOORBELL_STAGE) || arg->pad ||
	    (!restage && (arg->stage || arg->stage_offset || arg->stage_size)))
		return -EINVAL;
	c = vnk_netq_get(vf, arg->handle, &ring);
	if (IS_ERR(c))
		return PTR_ERR(c);
	if (restage) {
		nst = vnk_netq_stage(vf, arg->stage, arg->stage_offset, arg->stage_size);
		if (IS_ERR(nst)) {
			ret = PTR_ERR(nst);
			nst = NULL;
			goto out;
		}
	}
	ret = -EINTR;
	if (mutex_lock_killable(&ring->lock))
		goto out;
	if (ring->dead) {
		ret = -ENOENT;		/* the registration went meanwhile */
		goto unlock;
	}
	if (restage) {
		mutex_lock(&vnk_comm_lock);
		ret = c->nq.state == VNK_NETQ_IDLE ? 0 : -EBUSY;
		mutex_unlock(&vnk_comm_lock);
		if (ret)
			goto unlock;
		old = ring->stage;
		ring->stage = nst;
		ring->stage_offset = arg->stage_offset;
		ring->stage_size = arg->stage_size;
		nst = NULL;
		/* A request posted with id 0 (the stage too small) is posted again. */
		queue_work(system_unbound_wq, &ring->post);
	}
	ret = vnk_netq_ring_consume(ring);
unlock:
	mutex_unlock(&ring->lock);
out:
	if (old)
		vnk_mem_put(old);
	if (nst)
		vnk_mem_put(nst);
	if (ring)
		vnk_netq_ring_put(ring);
	vnk_comm_put(c);
	return ret;
}

__poll_t vnk_netq_poll(struct vnk_file *vf, struct file *filp, poll_table *wait)
{
	struct vnk_netq_ring *ring;
	__poll_t mask = 0;

	poll_wait(filp, &vf->netq_wq, wait);
	spin_lock(&vf->netq_lock);
	list_for_each_entry(ring, &vf->netq_rings, node)
		if (READ_ONCE(ring->req_head) != READ_ONCE(vnk_netq_ctrl(ring)->req_tail))
			mask = EPOLLIN | EPOLLRDNORM;
	spin_unlock(&vf->netq_lock);
	return mask;
}

static void vnk_netq_vm_open(struct vm_area_struct *vma)
{
	struct vnk_netq_ring *ring = vma->vm_private_data;

	kref_get(&ring->ref);
	atomic_inc(&ring->maps);
}

/* The proxy unmapped its ring: it cannot serve the remote ranks any more. */
static void vnk_netq_vm_close(struct vm_area_struct *vma)
{
	struct vnk_netq_ring *ring = vma->vm_private_data;

	if (atomic_dec_and_test(&ring->maps))
		vn_comm_break(ring->cm, ring->first_remote, -EPIPE);
	vnk_netq_ring_put(ring);
}

static vm_fault_t vnk_netq_vm_fault(struct vm_fault *vmf)
{
	struct vnk_netq_ring *ring = vmf->vma->vm_private_data;
	u64 in = (((u64)vmf->pgoff << PAGE_SHIFT) - VNEURON_MMAP_NETQ_BASE) &
		 ((1ULL << VNK_NETQ_RING_SHIFT) - 1);
	struct page *page;

	if (in >= ring->len)
		return VM_FAULT_SIGBUS;
	page = vmalloc_to_page((u8 *)ring->mem + in);
	get_page(page);
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct vnk_netq_vm_ops = {
	.open = vnk_netq_vm_open,
	.close = vnk_netq_vm_close,
	.fault = vnk_netq_vm_fault,
};

int vnk_netq_mmap(struct vnk_file *vf, struct vm_area_struct *vma)
{
	u64 off = ((u64)vma->vm_pgoff << PAGE_SHIFT) - VNEURON_MMAP_NETQ_BASE;
	u64 len = vma->vm_end - vma->vm_start;
	u64 handle = off >> VNK_NETQ_RING_SHIFT;
	struct vnk_netq_ring *ring, *found = NULL;

	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EACCES;
	if (off & ((1ULL << VNK_NETQ_RING_SHIFT) - 1))
		return -EINVAL;
	spin_lock(&vf->netq_lock);
	list_for_each_entry(ring, &vf->netq_rings, node) {
		if (ring->handle == handle && len <= ring->len) {
			found = ring;
			kref_get(&ring->ref);
			break;
		}
	}
	spin_unlock(&vf->netq_lock);
	if (!found)
		return -EINVAL;
	vnk_vma_clear_flags(vma, VM_MAYEXEC);
	/* Not into a fork's child: the mappings counted are the proxy's. */
	vnk_vma_set_flags(vma, VM_DONTEXPAND | VM_DONTDUMP | VM_DONTCOPY);
	atomic_inc(&found->maps);
	vma->vm_private_data = found;	/* takes over our reference */
	vma->vm_ops = &vnk_netq_vm_ops;
	return 0;
}
