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
 * Bounds: VNK_MAX_COMM_HANDLES handles per file; communicators are a shared resource
 * (kmod/share.c: a total, a share per user and a privileged reserve, counted from
 * creation to the last reference, charged to the creator's user); every allocation
 * charged to the caller's memory cgroup.
 *
 * Ranks on other nodes (COMM_NODES) and the registration's network queue are
 * kmod/netq.c's, its mapped ring kmod/netq_ring.c's; a registration that goes takes its
 * queue with it (vnk_netq_detach()).
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
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "comm.h"
#include "compat.h"
#include "dev_core.h"
#include "device.h"
#include "file.h"
#include "main.h"
#include "netq.h"
#include "share.h"
#include "vn_comm.h"
#include "vn_exec.h"
#include "vneuron_program.h"

static_assert(VN_COMM_MAX_RANKS == VNEF_CC_MAX_RANKS);
static_assert(VN_COMM_MAX_RANKS <= 64);		/* the joined mask is a u64 */

/* The registry: registered communicators, searched by id. */
DEFINE_MUTEX(vnk_comm_lock);
static LIST_HEAD(vnk_comms);

void vnk_comm_file_init(struct vnk_file *vf)
{
	mutex_init(&vf->comm_lock);
	xa_init_flags(&vf->comms, XA_FLAGS_ALLOC1);
	spin_lock_init(&vf->netq_lock);
	INIT_LIST_HEAD(&vf->netq_rings);
	init_waitqueue_head(&vf->netq_wq);
}

static void vnk_comm_free(struct kref *ref)
{
	struct vnk_comm *c = container_of(ref, struct vnk_comm, ref);

	vn_comm_put(c->cm);
	vnk_share_uncharge(c->user, VNEURON_SHARE_COMMS);
	kfree_sensitive(c);
	atomic64_dec(&vnk_counters.comms);
}

void vnk_comm_put(struct vnk_comm *c)
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
		vnk_netq_detach(vf, c);
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
	struct vn_comm_params p = { .nranks = arg->nranks };
	struct vnk_comm_handle *h = NULL;
	struct vnk_user *user;
	struct vnk_comm *c = NULL;
	u32 handle;
	int ret;

	/* the links of the device's model (module parameter model) */
	vn_cc_links_of(vf->vdev->model, &p.intra, &p.inter);
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
	user = vnk_share_charge(VNEURON_SHARE_COMMS, vf->filp, NULL);
	if (IS_ERR(user)) {
		ret = PTR_ERR(user);
		goto out;
	}
	atomic64_inc(&vnk_counters.comms);
	ret = -ENOMEM;
	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	h = kzalloc(sizeof(*h), GFP_KERNEL_ACCOUNT);
	if (!c || !h)
		goto fail;
	c->user = user;
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
	vnk_share_uncharge(user, VNEURON_SHARE_COMMS);
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
	ret = c->nq.remote & bit ? -EINVAL : c->joined & bit ? -EEXIST : 0;
	if (!ret)
		c->joined |= bit;
	netq = c->nq.on;
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
