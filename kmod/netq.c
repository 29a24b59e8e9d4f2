// SPDX-License-Identifier: GPL-2.0
/*
 * A communicator's network queue: ranks on other nodes (COMM_NODES, before any rank
 * joins) are remote: they never join here, and the creator's registration serves them
 * through its queue. NETQ_WAIT waits (killable, at most VNK_NETQ_MAX_WAIT_NS) until
 * every local rank stands at a collective, holds them there (vn_comm_proxy_hold(): their
 * buffers cannot go) while it copies their inputs into a buffer of the proxy's own file,
 * and hands out the request; NETQ_COMPLETE posts the remote ranks with their inputs read
 * from a buffer of that file (bounds checked, a reference held while the data moves) and
 * their arrivals, so the core reduces in rank order and models the time exactly as for
 * local ranks; the ring (kmod/netq_ring.c) may post them a few at a time, as each node's
 * inputs come (vnk_netq.posted), so that a local time limit names only the ranks never
 * posted. One request is out at a time (vnk_netq.state). The registration going
 * (destroy, close) breaks the communicator: nothing of the queue outlives it but its
 * numbers in struct vnk_netq.
 *
 * Lock order (kmod/file.h): the queue's state is under vnk_comm_lock, taken under the
 * registration's vnk_file.comm_lock or alone; the core's proxy hold (vn_comm's lock) is
 * taken with neither held.
 */
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>

#include "comm.h"
#include "file.h"
#include "mem.h"
#include "netq.h"
#include "netq_ring.h"
#include "vn_comm.h"
#include "vn_hbm.h"

/* NETQ_WAIT's longest wait, whatever its timeout says. */
#define VNK_NETQ_MAX_WAIT_NS	(10ULL * NSEC_PER_SEC)
/* Bytes copied between two reschedule points. */
#define VNK_NETQ_CHUNK		SZ_1M

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
		if (c->joined || c->nq.on) {
			ret = -EBUSY;
		} else {
			/* Before any rank can join: no collective has begun. */
			for (r = 0; r < arg->nranks; r++) {
				vn_comm_set_node(c->cm, r, nodes[r]);
				vn_comm_set_device(c->cm, r, devs[r]);
				if (remote & BIT_ULL(r))
					vn_comm_set_remote(c->cm, r);
			}
			c->nq.remote = remote;
			c->nq.on = true;
		}
		mutex_unlock(&vnk_comm_lock);
	}
	mutex_unlock(&vf->comm_lock);
out:
	kfree(nodes);
	kfree(devs);
	return ret;
}

/*
 * The network queue of registration @handle of @vf, with a reference; ERR_PTR if none.
 * With @ringp, its ring too, with a reference (-EINVAL if it has none); without, a
 * queue served by a ring is -EBUSY (its requests are the ring's).
 */
struct vnk_comm *vnk_netq_get(struct vnk_file *vf, u32 handle, struct vnk_netq_ring **ringp)
{
	struct vnk_comm_handle *h;
	struct vnk_comm *c = ERR_PTR(-ENOENT);

	if (mutex_lock_killable(&vf->comm_lock))
		return ERR_PTR(-EINTR);
	h = handle ? xa_load(&vf->comms, handle) : NULL;
	if (h) {
		c = h->comm;
		mutex_lock(&vnk_comm_lock);
		if (h->rank != VNEURON_COMM_NONE || !c->nq.on || (ringp && !c->nq.ring)) {
			c = ERR_PTR(-EINVAL);
		} else if (!ringp && c->nq.ring) {
			c = ERR_PTR(-EBUSY);
		} else {
			kref_get(&c->ref);
			if (ringp) {
				*ringp = c->nq.ring;
				vnk_netq_ring_get(c->nq.ring);
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
	if (c->nq.state == from)
		c->nq.state = to;
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
 * Under the hold: the local ranks' collective into @rq and @c (nq.args, nq.inb), their
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
	rq->local = ~c->nq.remote & (c->nranks == 64 ? ~0ULL : BIT_ULL(c->nranks) - 1);
	memcpy(rq->arrive_ps, p->arrive_ps, sizeof(rq->arrive_ps));
	mutex_lock(&vnk_comm_lock);
	c->nq.args = (struct vn_cc_args){ .op = a0->op, .reduce = a0->reduce,
					  .dtype = a0->dtype, .shift = a0->shift,
					  .count = a0->count };
	c->nq.inb = inb;
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
int vnk_netq_request(struct vnk_comm *c, struct vnk_mem *stage, u64 off, u64 size,
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
		vn_comm_break(c->cm, __ffs64(~c->nq.remote), -EINVAL);
		ret = -EPIPE;
	}
	mutex_lock(&vnk_comm_lock);
	if (!ret && rq->stage_need <= size) {
		c->nq.state = VNK_NETQ_PENDING;
		c->nq.posted = 0;
		rq->id = ++c->nq.id;
	} else {
		c->nq.state = VNK_NETQ_IDLE;
	}
	mutex_unlock(&vnk_comm_lock);
	return ret;
}

/* Request @id was not handed out after all: the queue takes the collective again. */
void vnk_netq_unissue(struct vnk_comm *c, u64 id)
{
	mutex_lock(&vnk_comm_lock);
	if (c->nq.state == VNK_NETQ_PENDING && c->nq.id == id)
		c->nq.state = VNK_NETQ_IDLE;
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
int vnk_netq_fail(struct vnk_comm *c, u32 error, u32 failed_rank, u64 missing)
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
int vnk_netq_post(struct vnk_comm *c, struct vnk_mem *stage, u64 off, u64 id,
		  u64 mask, const u64 *arr, struct vn_cc_args *ra)
{
	struct vn_cc_result res;
	u64 inb, todo = 0;
	bool done = false;
	u32 r, last = 0;
	int ret = 0;

	/* Those of @mask; with 0 every remote rank's, as before partial completions. */
	for (r = 0; r < c->nranks; r++)
		if (((mask ? mask : c->nq.remote) & BIT_ULL(r)) && arr[r] > VNEURON_NETQ_MAX_PS)
			return -EINVAL;
	mutex_lock(&vnk_comm_lock);
	inb = c->nq.inb;
	if (c->nq.state != VNK_NETQ_PENDING || !id || id != c->nq.id)
		ret = -ENOENT;
	else if ((mask & ~c->nq.remote) || (mask & c->nq.posted))
		ret = -EINVAL;		/* a local rank, one past nranks, or posted twice */
	else if (vn_range_check(stage->size, off, inb * c->nranks))
		ret = -EINVAL;		/* the request stays: the proxy may retry */
	if (!ret) {
		todo = mask ? mask : c->nq.remote & ~c->nq.posted;
		c->nq.state = VNK_NETQ_COMPLETING;
		c->nq.posted |= todo;
		done = c->nq.posted == c->nq.remote;
		for (r = 0; r < c->nranks; r++) {
			if (!(todo & BIT_ULL(r)))
				continue;
			ra[r] = c->nq.args;
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

void vnk_netq_detach(struct vnk_file *vf, struct vnk_comm *c)
{
	lockdep_assert_held(&vf->comm_lock);
	vnk_netq_ring_detach(vf, c);
	/* The proxy of the remote ranks is gone: nobody can complete a collective. */
	if (c->nq.on)
		vn_comm_break(c->cm, __ffs64(c->nq.remote), -EPIPE);
}
