// SPDX-License-Identifier: GPL-2.0
/*
 * Communicators: COMM_CREATE makes one (core/vn_comm.h) with a random 16-byte id and
 * registers it module-wide, so that files of any device can find it by that id; COMM_JOIN
 * binds a core of the caller's device as one of its ranks (the core's executions then
 * run their collective stream as that rank); COMM_INFO reports its state; COMM_DESTROY
 * and the file's release end a registration or make a rank leave.
 *
 * The id is the only way in, as NCCL's ncclUniqueId: it is never shown anywhere (sysfs,
 * debugfs, logs, events), compared in constant time, and freed with kfree_sensitive().
 * Knowing it is being trusted by the communicator's ranks: they exchange data.
 *
 * Lifetimes. A struct vnk_comm is held by its registration (the creator's handle, while
 * registered) and by each rank's handle; it holds one reference on the core's struct
 * vn_comm, and executions hold their own (core/exec.c), so a communicator outlives the
 * handles its queued executions were submitted under. Handles belong to their file:
 * another file's numbers are not in its table. A rank that leaves (COMM_DESTROY,
 * release) breaks the communicator for the others (vn_comm_leave()): a communicator is
 * of use only while all its ranks are there, and this ends their waits at once instead
 * of at a time limit.
 *
 * Bounds: VNK_MAX_COMM_HANDLES handles per file, VNK_MAX_COMMS communicators in the
 * module (counted from creation to the last reference), every allocation charged to the
 * caller's memory cgroup.
 *
 * Ranks on other nodes (COMM_NODES, before any rank joins) are remote: they never join
 * here, and the creator's registration serves them through its network queue. NETQ_WAIT
 * waits (killable, at most VNK_NETQ_MAX_WAIT_NS) until every local rank stands at a
 * collective, holds them there (vn_comm_proxy_hold(): their buffers cannot go) while it
 * copies their inputs into a buffer of the proxy's own file, and hands out the request;
 * NETQ_COMPLETE posts the remote ranks with their inputs read from a buffer of that file
 * (bounds checked, a reference held while the data moves) and their arrivals, so the core
 * reduces in rank order and models the time exactly as for local ranks; the ring may post
 * them a few at a time, as each node's inputs come (nq_posted), so that a local time limit
 * names only the ranks never posted. One request is out at a time (nq_state). The
 * registration going (destroy, close) breaks the communicator: nothing of the queue
 * outlives it but its numbers in struct vnk_comm.
 *
 * Lock order (kmod/file.h): vnk_file.comm_lock (serialises a file's communicator calls)
 * -> vnk_dev_core.lock (the claim at JOIN) -> the executor's and vn_comm's locks (core
 * calls). vnk_comm_lock (the registry, the ranks joined, the queue's state) is taken
 * under comm_lock and nests only vn_comm's lock (COMM_NODES); no reference is dropped
 * under it.
 */
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "comm.h"
#include "compat.h"
#include "dev_core.h"
#include "device.h"
#include "file.h"
#include "main.h"
#include "mem.h"
#include "vn_comm.h"
#include "vn_exec.h"
#include "vneuron_program.h"

static_assert(VN_COMM_MAX_RANKS == VNEF_CC_MAX_RANKS);
static_assert(VN_COMM_MAX_RANKS <= 64);		/* the joined mask is a u64 */

/**
 * struct vnk_comm - a communicator as the module knows it
 * @ref: its registration holds one while registered, each rank's handle one
 * @node: in vnk_comms while registered
 * @registered: findable by @id (under vnk_comm_lock)
 * @nranks: its ranks
 * @joined: bit r: rank r joined (under vnk_comm_lock); never cleared once a rank was
 *	bound, so a rank that left cannot be taken again
 * @cm: the device core's communicator, one reference
 * @netq: its nodes were set: @remote ranks, a network queue (under vnk_comm_lock)
 * @nq_state: the queue's request: enum vnk_netq_state (under vnk_comm_lock)
 * @remote: bit r: rank r is on another node (set once, with @netq)
 * @nq_id: the last request's id (under vnk_comm_lock)
 * @nq_args: the pending request's collective, values only (under vnk_comm_lock)
 * @nq_inb: bytes of one rank's input in it (under vnk_comm_lock)
 * @nq_posted: bit r: remote rank r of the pending request was posted (under
 *	vnk_comm_lock)
 * @ring: the queue's ring, if NETQ_RING_SETUP made one: a reference (under
 *	vnk_comm_lock; set and cleared under the registration's vnk_file.comm_lock)
 * @id: the secret id
 */
struct vnk_comm {
	struct kref ref;
	struct list_head node;
	bool registered;
	bool netq;
	u32 nranks;
	u32 nq_state;
	u64 joined;
	u64 remote;
	u64 nq_id;
	struct vn_cc_args nq_args;
	u64 nq_inb;
	u64 nq_posted;
	struct vnk_netq_ring *ring;
	struct vn_comm *cm;
	u8 id[VNEURON_COMM_ID_BYTES];
};

/* A network queue's one request: none, being waited for, out, being completed. */
enum vnk_netq_state { VNK_NETQ_IDLE, VNK_NETQ_WAITING, VNK_NETQ_PENDING, VNK_NETQ_COMPLETING };

/* NETQ_WAIT's longest wait, whatever its timeout says. */
#define VNK_NETQ_MAX_WAIT_NS	(10ULL * NSEC_PER_SEC)
/* Bytes copied between two reschedule points. */
#define VNK_NETQ_CHUNK		SZ_1M

/**
 * struct vnk_comm_handle - one handle of a file's table
 * @comm: the communicator, one reference
 * @rank: the rank bound, or VNEURON_COMM_NONE for the creator's registration
 * @core: the core bound as @rank
 * @ec: that core's executor: valid while the file owns the core, i.e. until its release
 */
struct vnk_comm_handle {
	struct vnk_comm *comm;
	u32 rank;
	u32 core;
	struct vn_core *ec;
};

/* The registry: registered communicators, searched by id. */
static DEFINE_MUTEX(vnk_comm_lock);
static LIST_HEAD(vnk_comms);

void vnk_comm_file_init(struct vnk_file *vf)
{
	mutex_init(&vf->comm_lock);
	xa_init_flags(&vf->comms, XA_FLAGS_ALLOC1);
	spin_lock_init(&vf->netq_lock);
	INIT_LIST_HEAD(&vf->netq_rings);
	init_waitqueue_head(&vf->netq_wq);
}

static void vnk_netq_ring_detach(struct vnk_file *vf, struct vnk_comm *c);

static void vnk_comm_free(struct kref *ref)
{
	struct vnk_comm *c = container_of(ref, struct vnk_comm, ref);

	vn_comm_put(c->cm);
	kfree_sensitive(c);
	atomic64_dec(&vnk_counters.comms);
}

static void vnk_comm_put(struct vnk_comm *c)
{
	kref_put(&c->ref, vnk_comm_free);
}

/* The registered communicator with this id, with a reference; NULL if none. */
static struct vnk_comm *vnk_comm_find(const u8 *id)
{
	struct vnk_comm *c, *found = NULL;

	mutex_lock(&vnk_comm_lock);
	list_for_each_entry(c, &vnk_comms, node) {
		if (!vnk_memneq(c->id, id, VNEURON_COMM_ID_BYTES)) {
			found = c;
			kref_get(&c->ref);
			break;
		}
	}
	mutex_unlock(&vnk_comm_lock);
	return found;
}

/* Drop a handle taken out of the file's table: a rank leaves, a registration ends. */
static void vnk_comm_drop(struct vnk_file *vf, struct vnk_comm_handle *h)
{
	struct vnk_comm *c = h->comm;

	lockdep_assert_held(&vf->comm_lock);
	if (h->rank != VNEURON_COMM_NONE) {
		/* Executions submitted from now on have none; queued ones keep theirs. */
		vn_core_set_comm(h->ec, NULL, 0);
		vn_comm_leave(c->cm, h->rank);
		clear_bit(h->core, &vf->comm_cores);
	} else {
		mutex_lock(&vnk_comm_lock);
		list_del(&c->node);
		c->registered = false;
		mutex_unlock(&vnk_comm_lock);
		vnk_netq_ring_detach(vf, c);
		/* The proxy of the remote ranks is gone: nobody can complete a collective. */
		if (c->netq)
			vn_comm_break(c->cm, __ffs64(c->remote), -EPIPE);
	}
	vf->nr_comms--;
	kfree(h);
	vnk_comm_put(c);
}

/* Destroy handle @handle of @vf, if it is one. */
static int vnk_comm_destroy_handle(struct vnk_file *vf, u32 handle, bool killable)
{
	struct vnk_comm_handle *h;

	if (!killable)
		mutex_lock(&vf->comm_lock);
	else if (mutex_lock_killable(&vf->comm_lock))
		return -EINTR;
	h = handle ? xa_erase(&vf->comms, handle) : NULL;
	if (h)
		vnk_comm_drop(vf, h);
	mutex_unlock(&vf->comm_lock);
	return h ? 0 : -ENOENT;
}

int vnk_comm_create_ioctl(struct vnk_file *vf, void *data)
{
	struct vneuron_comm_create *arg = data;
	struct vn_comm_params p = {
		.nranks = arg->nranks,
		.intra = vn_cc_intra_device,
		.inter = vn_cc_inter_device,
	};
	struct vnk_comm_handle *h = NULL;
	struct vnk_comm *c = NULL;
	u32 handle;
	int ret;

	memset(arg->id, 0, sizeof(arg->id));
	arg->handle = 0;
	if (arg->flags || arg->pad || !arg->nranks || arg->nranks > VN_COMM_MAX_RANKS)
		return -EINVAL;
	if (mutex_lock_killable(&vf->comm_lock))
		return -EINTR;
	if (vf->nr_comms >= VNK_MAX_COMM_HANDLES) {
		ret = -ENOSPC;
		goto out;
	}
	if (atomic64_inc_return(&vnk_counters.comms) > VNK_MAX_COMMS) {
		atomic64_dec(&vnk_counters.comms);
		ret = -EAGAIN;
		goto out;
	}
	ret = -ENOMEM;
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	h = kzalloc(sizeof(*h), GFP_KERNEL_ACCOUNT);
	if (!c || !h)
		goto fail;
	ret = vn_comm_create(&p, &c->cm);
	if (ret)
		goto fail;
	kref_init(&c->ref);		/* the registration's */
	INIT_LIST_HEAD(&c->node);
	c->nranks = arg->nranks;
	get_random_bytes(c->id, sizeof(c->id));
	h->comm = c;
	h->rank = VNEURON_COMM_NONE;
	h->core = VNEURON_COMM_NONE;
	ret = xa_alloc_cyclic(&vf->comms, &handle, h, XA_LIMIT(1, VNK_HANDLE_LIMIT),
			      &vf->next_comm, GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto fail;
	}
	mutex_lock(&vnk_comm_lock);
	list_add(&c->node, &vnk_comms);
	c->registered = true;
	mutex_unlock(&vnk_comm_lock);
	vf->nr_comms++;
	memcpy(arg->id, c->id, sizeof(arg->id));
	arg->handle = handle;
	ret = 0;
	goto out;
fail:
	if (c && c->cm)
		vn_comm_put(c->cm);
	kfree_sensitive(c);
	kfree(h);
	atomic64_dec(&vnk_counters.comms);
out:
	mutex_unlock(&vf->comm_lock);
	return ret;
}

void vnk_comm_create_undo(struct vnk_file *vf, void *data)
{
	const struct vneuron_comm_create *arg = data;

	vnk_comm_destroy_handle(vf, arg->handle, false);
}

int vnk_comm_join_ioctl(struct vnk_file *vf, void *data)
{
	struct vneuron_comm_join *arg = data;
	struct vnk_device *vdev = vf->vdev;
	struct vnk_comm_handle *h = NULL;
	u64 bit = BIT_ULL(arg->rank % VN_COMM_MAX_RANKS);
	struct vnk_comm *c;
	struct vn_core *ec;
	bool netq;
	u32 handle;
	int ret;

	arg->handle = 0;
	if (arg->flags || arg->core >= vdev->core_count || arg->rank >= VN_COMM_MAX_RANKS)
		return -EINVAL;
	if (mutex_lock_killable(&vf->comm_lock))
		return -EINTR;
	c = vnk_comm_find(arg->id);
	if (!c) {
		ret = -ENOENT;
		goto out;
	}
	if (arg->rank >= c->nranks) {
		ret = -EINVAL;
		goto put;
	}
	if (vf->nr_comms >= VNK_MAX_COMM_HANDLES) {
		ret = -ENOSPC;
		goto put;
	}
	/* A core runs one rank of one communicator at a time. */
	if (test_bit(arg->core, &vf->comm_cores)) {
		ret = -EBUSY;
		goto put;
	}
	h = kzalloc(sizeof(*h), GFP_KERNEL_ACCOUNT);
	if (!h) {
		ret = -ENOMEM;
		goto put;
	}
	/* The rank is reserved first, so two files joining it at once cannot both have it. */
	mutex_lock(&vnk_comm_lock);
	ret = c->remote & bit ? -EINVAL : c->joined & bit ? -EEXIST : 0;
	if (!ret)
		c->joined |= bit;
	netq = c->netq;
	mutex_unlock(&vnk_comm_lock);
	if (ret)
		goto put;
	h->comm = c;
	h->rank = arg->rank;
	h->core = arg->core;
	/* Nobody sees the handle before it is complete: the file's calls wait for comm_lock. */
	ret = xa_alloc_cyclic(&vf->comms, &handle, h, XA_LIMIT(1, VNK_HANDLE_LIMIT),
			      &vf->next_comm, GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto unreserve;
	}
	/* Only now, with everything else done: a refused call claims nothing. */
	ec = vnk_dev_core_claim(vf, &vdev->cores[arg->core]);
	if (IS_ERR(ec)) {
		ret = PTR_ERR(ec);
		xa_erase(&vf->comms, handle);
		goto unreserve;
	}
	h->ec = ec;
	/* Across nodes the devices are COMM_NODES's, the same on every node. */
	if (!netq)
		vn_comm_set_device(c->cm, arg->rank, vdev->index);
	vn_core_set_comm(ec, c->cm, arg->rank);
	set_bit(arg->core, &vf->comm_cores);
	vf->nr_comms++;
	arg->handle = handle;
	ret = 0;
	goto out;			/* the handle keeps the reference */
unreserve:
	mutex_lock(&vnk_comm_lock);
	c->joined &= ~bit;
	mutex_unlock(&vnk_comm_lock);
put:
	kfree(h);
	vnk_comm_put(c);
out:
	mutex_unlock(&vf->comm_lock);
	return ret;
}

void vnk_comm_join_undo(struct vnk_file *vf, void *data)
{
	const struct vneuron_comm_join *arg = data;

	vnk_comm_destroy_handle(vf, arg->handle, false);
}

int vnk_comm_info_ioctl(struct vnk_file *vf, void *data)
{
	struct vneuron_comm_info *arg = data;
	struct vn_comm_state st;
	struct vnk_comm_handle *h;
	struct vnk_comm *c;
	u32 handle = arg->handle;
	u64 joined;

	if (arg->flags)
		return -EINVAL;
	memset(arg, 0, sizeof(*arg));
	arg->handle = handle;
	if (mutex_lock_killable(&vf->comm_lock))
		return -EINTR;
	h = handle ? xa_load(&vf->comms, handle) : NULL;
	if (!h) {
		mutex_unlock(&vf->comm_lock);
		return -ENOENT;
	}
	c = h->comm;
	vn_comm_state(c->cm, &st);
	mutex_lock(&vnk_comm_lock);
	joined = c->joined;
	mutex_unlock(&vnk_comm_lock);
	arg->nranks = c->nranks;
	arg->rank = h->rank;
	arg->core = h->core;
	mutex_unlock(&vf->comm_lock);

	arg->joined = hweight64(joined);
	arg->joined_mask = joined;
	arg->broken = st.broken;
	arg->failed_rank = st.broken ? st.failed_rank : VNEURON_COMM_NONE;
	arg->failure = st.broken ? -st.failure : 0;
	arg->missing = st.missing;
	arg->collectives = st.collectives;
	return 0;
}

int vnk_comm_destroy_ioctl(struct vnk_file *vf, void *data)
{
	const struct vneuron_comm_destroy *arg = data;

	if (arg->flags)
		return -EINVAL;
	return vnk_comm_destroy_handle(vf, arg->handle, true);
}

void vnk_comm_release_all(struct vnk_file *vf)
{
	struct vnk_comm_handle *h;
	unsigned long idx;

	/* Release cannot be interrupted: a short, bounded hold of the lock. */
	mutex_lock(&vf->comm_lock);
	xa_for_each(&vf->comms, idx, h) {
		xa_erase(&vf->comms, idx);
		vnk_comm_drop(vf, h);
	}
	mutex_unlock(&vf->comm_lock);
	xa_destroy(&vf->comms);
	mutex_destroy(&vf->comm_lock);
}

int vnk_comm_nodes_ioctl(struct vnk_file *vf, void *data)
{
	const struct vneuron_comm_nodes *arg = data;
	u64 all, remote = 0;
	struct vnk_comm_handle *h;
	u32 *nodes, *devs;
	struct vnk_comm *c;
	u32 r;
	int ret;

	if (arg->flags || !arg->nranks || arg->nranks > VN_COMM_MAX_RANKS)
		return -EINVAL;
	all = arg->nranks == 64 ? ~0ULL : BIT_ULL(arg->nranks) - 1;
	nodes = kcalloc(arg->nranks, sizeof(*nodes), GFP_KERNEL_ACCOUNT);
	devs = kcalloc(arg->nranks, sizeof(*devs), GFP_KERNEL_ACCOUNT);
	ret = -ENOMEM;
	if (!nodes || !devs)
		goto out;
	ret = -EFAULT;
	if (copy_from_user(nodes, u64_to_user_ptr(arg->nodes), arg->nranks * sizeof(*nodes)) ||
	    copy_from_user(devs, u64_to_user_ptr(arg->devices), arg->nranks * sizeof(*devs)))
		goto out;
	for (r = 0; r < arg->nranks; r++)
		if (nodes[r] != arg->node)
			remote |= BIT_ULL(r);
	ret = -EINVAL;
	if (!remote || remote == all)
		goto out;
	ret = -EINTR;
	if (mutex_lock_killable(&vf->comm_lock))
		goto out;
	h = arg->handle ? xa_load(&vf->comms, arg->handle) : NULL;
	ret = !h ? -ENOENT : h->rank != VNEURON_COMM_NONE ? -EINVAL : 0;
	if (!ret && h->comm->nranks != arg->nranks)
		ret = -EINVAL;
	if (!ret) {
		c = h->comm;
		mutex_lock(&vnk_comm_lock);
		if (c->joined || c->netq) {
			ret = -EBUSY;
		} else {
			/* Before any rank can join: no collective has begun. */
			for (r = 0; r < arg->nranks; r++) {
				vn_comm_set_node(c->cm, r, nodes[r]);
				vn_comm_set_device(c->cm, r, devs[r]);
				if (remote & BIT_ULL(r))
					vn_comm_set_remote(c->cm, r);
			}
			c->remote = remote;
			c->netq = true;
		}
		mutex_unlock(&vnk_comm_lock);
	}
	mutex_unlock(&vf->comm_lock);
out:
	kfree(nodes);
	kfree(devs);
	return ret;
}

/* A request as both ways of serving the queue hand it out. */
struct vnk_netq_rq {
	u64 id, count, rank_bytes, stage_need, local;
	u32 op, reduce, dtype, shift;
	u64 arrive_ps[VN_COMM_MAX_RANKS];
};

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
	mutex_destroy(&ring->lock);
	kfree(ring);
}

static void vnk_netq_ring_put(struct vnk_netq_ring *ring)
{
	kref_put(&ring->ref, vnk_netq_ring_free);
}

/*
 * The network queue of registration @handle of @vf, with a reference; ERR_PTR if none.
 * With @ringp, its ring too, with a reference (-EINVAL if it has none); without, a
 * queue served by a ring is -EBUSY (its requests are the ring's).
 */
static struct vnk_comm *vnk_netq_get(struct vnk_file *vf, u32 handle,
				     struct vnk_netq_ring **ringp)
{
	struct vnk_comm_handle *h;
	struct vnk_comm *c = ERR_PTR(-ENOENT);

	if (mutex_lock_killable(&vf->comm_lock))
		return ERR_PTR(-EINTR);
	h = handle ? xa_load(&vf->comms, handle) : NULL;
	if (h) {
		c = h->comm;
		mutex_lock(&vnk_comm_lock);
		if (h->rank != VNEURON_COMM_NONE || !c->netq || (ringp && !c->ring)) {
			c = ERR_PTR(-EINVAL);
		} else if (!ringp && c->ring) {
			c = ERR_PTR(-EBUSY);
		} else {
			kref_get(&c->ref);
			if (ringp) {
				*ringp = c->ring;
				kref_get(&c->ring->ref);
			}
		}
		mutex_unlock(&vnk_comm_lock);
	}
	mutex_unlock(&vf->comm_lock);
	return c;
}

/* Moves the queue of @c from state @from to @to: 0, or -EBUSY if it is not in @from. */
static int vnk_netq_move(struct vnk_comm *c, u32 from, u32 to)
{
	int ret = 0;

	mutex_lock(&vnk_comm_lock);
	if (c->nq_state == from)
		c->nq_state = to;
	else
		ret = -EBUSY;
	mutex_unlock(&vnk_comm_lock);
	return ret;
}

/* Bounded copy, rescheduling between chunks (the ranks are held meanwhile). */
static void vnk_netq_copy(u8 *to, const u8 *from, u64 len)
{
	u64 done, n;

	for (done = 0; done < len; done += n) {
		n = min_t(u64, len - done, VNK_NETQ_CHUNK);
		memmove(to + done, from + done, n);
		cond_resched();
	}
}

/*
 * Under the hold: the local ranks' collective into @rq and @c (nq_args, nq_inb), their
 * inputs into @stage at @off if @size holds them all. 0, or -EINVAL if they disagree.
 */
static int vnk_netq_take(struct vnk_comm *c, const struct vn_cc_pending *p,
			 struct vnk_netq_rq *rq, struct vnk_mem *stage, u64 off, u64 size)
{
	const struct vn_cc_args *a0 = NULL, *a;
	u64 inb, need;
	u32 r;

	for (r = 0; r < c->nranks; r++) {
		a = p->args[r];
		if (!a)
			continue;
		if (!a0)
			a0 = a;
		if (a->op != a0->op || a->reduce != a0->reduce || a->dtype != a0->dtype ||
		    a->count != a0->count || a->shift != a0->shift || !a->in)
			return -EINVAL;
	}
	if (!a0)
		return -EINVAL;
	inb = vn_cc_in_bytes(a0->op, c->nranks, a0->dtype, a0->count);
	if (!inb || check_mul_overflow(inb, (u64)c->nranks, &need))
		return -EINVAL;
	rq->op = a0->op;
	rq->reduce = a0->reduce;
	rq->dtype = a0->dtype;
	rq->shift = a0->shift;
	rq->count = a0->count;
	rq->rank_bytes = inb;
	rq->stage_need = need;
	rq->local = ~c->remote & (c->nranks == 64 ? ~0ULL : BIT_ULL(c->nranks) - 1);
	memcpy(rq->arrive_ps, p->arrive_ps, sizeof(rq->arrive_ps));
	mutex_lock(&vnk_comm_lock);
	c->nq_args = (struct vn_cc_args){ .op = a0->op, .reduce = a0->reduce,
					  .dtype = a0->dtype, .shift = a0->shift,
					  .count = a0->count };
	c->nq_inb = inb;
	mutex_unlock(&vnk_comm_lock);
	if (need > size)
		return 0;
	for (r = 0; r < c->nranks; r++)
		if (p->args[r])
			vnk_netq_copy((u8 *)stage->vaddr + off + r * inb, p->args[r]->in, inb);
	return 0;
}

/*
 * The one way a request is taken, for NETQ_WAIT and the ring: waits until
 * @deadline_ns (a past one: only if the local ranks stand at a collective now) for
 * them, holds them while their inputs are copied into @stage (@off, @size checked by
 * the caller) and fills @rq; its id is 0 if @size is below the need (nothing copied,
 * the queue idle). Local ranks that disagree, or a group's collective, break the
 * communicator: -EPIPE. Else 0, -EBUSY (a request is out), -ETIMEDOUT, -EINTR.
 */
static int vnk_netq_request(struct vnk_comm *c, struct vnk_mem *stage, u64 off, u64 size,
			    u64 deadline_ns, struct vn_cc_pending *p, struct vnk_netq_rq *rq)
{
	int ret;

	memset(rq, 0, sizeof(*rq));
	ret = vnk_netq_move(c, VNK_NETQ_IDLE, VNK_NETQ_WAITING);
	if (ret)
		return ret;
	ret = vn_comm_proxy_hold(c->cm, deadline_ns, NULL, p);
	if (!ret) {
		ret = vnk_netq_take(c, p, rq, stage, off, size);
		vn_comm_proxy_release(c->cm);
	}
	if (ret == -EINVAL) {
		/* Local ranks that disagree, or not of every rank: nothing can complete. */
		vn_comm_break(c->cm, __ffs64(~c->remote), -EINVAL);
		ret = -EPIPE;
	}
	mutex_lock(&vnk_comm_lock);
	if (!ret && rq->stage_need <= size) {
		c->nq_state = VNK_NETQ_PENDING;
		c->nq_posted = 0;
		rq->id = ++c->nq_id;
	} else {
		c->nq_state = VNK_NETQ_IDLE;
	}
	mutex_unlock(&vnk_comm_lock);
	return ret;
}

/* Request @id was not handed out after all: the queue takes the collective again. */
static void vnk_netq_unissue(struct vnk_comm *c, u64 id)
{
	mutex_lock(&vnk_comm_lock);
	if (c->nq_state == VNK_NETQ_PENDING && c->nq_id == id)
		c->nq_state = VNK_NETQ_IDLE;
	mutex_unlock(&vnk_comm_lock);
}

int vnk_netq_wait_ioctl(struct vnk_file *vf, void *data)
{
	struct vneuron_netq_wait *arg = data;
	struct vn_cc_pending *p = NULL;
	struct vnk_netq_rq *rq = NULL;
	struct vnk_mem *stage = NULL;
	u64 end, deadline, limit;
	struct vnk_comm *c;
	int ret;

	arg->id = 0;
	arg->op = 0;
	arg->reduce = 0;
	arg->dtype = 0;
	arg->shift = 0;
	arg->count = 0;
	arg->rank_bytes = 0;
	arg->stage_need = 0;
	arg->local = 0;
	if (arg->flags || arg->pad || !arg->timeout_ns ||
	    check_add_overflow(arg->stage_offset, arg->stage_size, &end))
		return -EINVAL;
	c = vnk_netq_get(vf, arg->handle, NULL);
	if (IS_ERR(c))
		return PTR_ERR(c);
	ret = -ENOENT;
	stage = vnk_mem_get(vf, arg->stage);
	if (!stage)
		goto out;
	ret = -EINVAL;
	if (end > stage->size)
		goto out;
	ret = -ENOMEM;
	p = kzalloc(sizeof(*p), GFP_KERNEL_ACCOUNT);
	rq = kzalloc(sizeof(*rq), GFP_KERNEL_ACCOUNT);
	if (!p || !rq)
		goto out;
	limit = ktime_get_ns() + VNK_NETQ_MAX_WAIT_NS;
	deadline = min(arg->timeout_ns, limit);
	ret = vnk_netq_request(c, stage, arg->stage_offset, arg->stage_size, deadline, p, rq);
	if (ret)
		goto out;
	arg->op = rq->op;
	arg->reduce = rq->reduce;
	arg->dtype = rq->dtype;
	arg->shift = rq->shift;
	arg->count = rq->count;
	arg->rank_bytes = rq->rank_bytes;
	arg->stage_need = rq->stage_need;
	arg->local = rq->local;
	if (rq->id && copy_to_user(u64_to_user_ptr(arg->arrivals), rq->arrive_ps,
				   c->nranks * sizeof(rq->arrive_ps[0]))) {
		vnk_netq_unissue(c, rq->id);
		ret = -EFAULT;
		goto out;
	}
	arg->id = rq->id;
out:
	kfree(p);
	kfree(rq);
	if (stage)
		vnk_mem_put(stage);
	vnk_comm_put(c);
	return ret;
}

void vnk_netq_wait_undo(struct vnk_file *vf, void *data)
{
	const struct vneuron_netq_wait *arg = data;
	struct vnk_comm *c;

	if (!arg->id)
		return;
	c = vnk_netq_get(vf, arg->handle, NULL);
	if (IS_ERR(c))
		return;
	/* Its id never reached the proxy: the next NETQ_WAIT gives the collective again. */
	vnk_netq_unissue(c, arg->id);
	vnk_comm_put(c);
}

/* A completion with an error: the proxy breaks the communicator. 0 or -EINVAL. */
static int vnk_netq_fail(struct vnk_comm *c, u32 error, u32 failed_rank, u64 missing)
{
	u64 all = c->nranks == 64 ? ~0ULL : BIT_ULL(c->nranks) - 1;

	switch (error) {
	case ETIMEDOUT:
	case EPIPE:
	case EIO:
	case EINVAL:
	case EINTR:
		break;
	default:
		return -EINVAL;
	}
	if (failed_rank >= c->nranks || (missing & ~all) || (missing && error != ETIMEDOUT))
		return -EINVAL;
	vn_comm_break_missing(c->cm, failed_rank, -(int)error, missing);
	return 0;
}

/*
 * The one way remote ranks are posted, for NETQ_COMPLETE and the ring: ranks @mask of
 * request @id (0: every remote rank not posted yet), their inputs in @stage at @off
 * (the request's layout) and their arrivals in @arr[nranks] (a kernel copy, read here
 * once); @ra[nranks] holds their arguments, which the communicator reads until the
 * collective completes: the caller keeps it while the request is pending. The request
 * completes with its last remote rank. 0; -EINVAL (@mask not a subset of the remote
 * ranks not posted yet, an arrival too late, the range past @stage: the request stays),
 * -ENOENT (no request @id pending), -EPIPE (broken meanwhile: the request is gone).
 */
static int vnk_netq_post(struct vnk_comm *c, struct vnk_mem *stage, u64 off, u64 id,
			 u64 mask, const u64 *arr, struct vn_cc_args *ra)
{
	struct vn_cc_result res;
	u64 inb, todo = 0;
	bool done = false;
	u32 r, last = 0;
	int ret = 0;

	/* Those of @mask; with 0 every remote rank's, as before partial completions. */
	for (r = 0; r < c->nranks; r++)
		if (((mask ? mask : c->remote) & BIT_ULL(r)) && arr[r] > VNEURON_NETQ_MAX_PS)
			return -EINVAL;
	mutex_lock(&vnk_comm_lock);
	inb = c->nq_inb;
	if (c->nq_state != VNK_NETQ_PENDING || !id || id != c->nq_id)
		ret = -ENOENT;
	else if ((mask & ~c->remote) || (mask & c->nq_posted))
		ret = -EINVAL;		/* a local rank, one past nranks, or posted twice */
	else if (vn_range_check(stage->size, off, inb * c->nranks))
		ret = -EINVAL;		/* the request stays: the proxy may retry */
	if (!ret) {
		todo = mask ? mask : c->remote & ~c->nq_posted;
		c->nq_state = VNK_NETQ_COMPLETING;
		c->nq_posted |= todo;
		done = c->nq_posted == c->remote;
		for (r = 0; r < c->nranks; r++) {
			if (!(todo & BIT_ULL(r)))
				continue;
			ra[r] = c->nq_args;
			ra[r].in = (u8 *)stage->vaddr + off + r * inb;
		}
	}
	mutex_unlock(&vnk_comm_lock);
	if (ret)
		return ret;
	res.members = 1;
	for (r = 0; r < c->nranks && !ret; r++) {
		if (!(todo & BIT_ULL(r)))
			continue;
		/* The last remote rank completes the collective: the data moves in this call. */
		ret = vn_comm_arrive(c->cm, r, &ra[r], arr[r], &res);
		last = r;
	}
	if (!ret && done && res.members == 1)
		ret = -EPIPE;		/* cannot be: the locals were all held at it */
	if (ret) {
		/* The caller's @ra may die now: the communicator must never read it again. */
		vn_comm_break(c->cm, last, ret == -EPIPE ? -EPIPE : -EINVAL);
		ret = -EPIPE;
		done = true;
	}
	vnk_netq_move(c, VNK_NETQ_COMPLETING, done ? VNK_NETQ_IDLE : VNK_NETQ_PENDING);
	return ret;
}

int vnk_netq_complete_ioctl(struct vnk_file *vf, void *data)
{
	const struct vneuron_netq_complete *arg = data;
	struct vn_cc_args *ra = NULL;
	struct vnk_mem *stage = NULL;
	struct vnk_comm *c;
	u64 *arr = NULL;
	int ret;

	if (arg->flags || arg->pad)
		return -EINVAL;
	c = vnk_netq_get(vf, arg->handle, NULL);
	if (IS_ERR(c))
		return PTR_ERR(c);
	if (arg->error) {
		ret = vnk_netq_fail(c, arg->error, arg->failed_rank, arg->missing);
		goto out;
	}
	ret = -EINVAL;
	if (arg->failed_rank || arg->missing)
		goto out;
	ret = -ENOMEM;
	arr = kcalloc(c->nranks, sizeof(*arr), GFP_KERNEL_ACCOUNT);
	if (!arr)
		goto out;
	ret = -EFAULT;
	if (copy_from_user(arr, u64_to_user_ptr(arg->arrivals), c->nranks * sizeof(*arr)))
		goto out;
	ra = kcalloc(c->nranks, sizeof(*ra), GFP_KERNEL_ACCOUNT);
	if (!ra)
		goto out;
	ret = -ENOENT;
	stage = vnk_mem_get(vf, arg->stage);
	/* Whole: @ra and @stage may go as the call returns, the collective complete. */
	if (stage)
		ret = vnk_netq_post(c, stage, arg->stage_offset, arg->id, 0, arr, ra);
out:
	kfree(ra);
	kfree(arr);
	if (stage)
		vnk_mem_put(stage);
	vnk_comm_put(c);
	return ret;
}

/* ---- the ring ---- */

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
		mutex_lock(&vnk_comm_lock);
		if (!c->netq)
			ret = -EINVAL;
		else if (c->ring || c->nq_state != VNK_NETQ_IDLE)
			ret = -EBUSY;
		else
			c->ring = ring;		/* the registration's reference */
		mutex_unlock(&vnk_comm_lock);
	}
	if (ret) {
		mutex_unlock(&vf->comm_lock);
		goto err_ring;
	}
	ring->c = c;
	ring->cm = c->cm;
	vn_comm_get(c->cm);
	ring->first_remote = __ffs64(c->remote);
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
static void vnk_netq_ring_detach(struct vnk_file *vf, struct vnk_comm *c)
{
	struct vnk_netq_ring *ring;
	struct vnk_mem *stage;
	bool partial;

	lockdep_assert_held(&vf->comm_lock);
	mutex_lock(&vnk_comm_lock);
	ring = c->ring;
	c->ring = NULL;
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
	partial = c->nq_state == VNK_NETQ_PENDING && c->nq_posted;
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
		ret = c->nq_state == VNK_NETQ_IDLE ? 0 : -EBUSY;
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
