/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A communicator's network queue (kmod/netq.c): COMM_NODES declares the ranks of other
 * nodes, and the creator's registration serves them: NETQ_WAIT hands a proxy the local
 * ranks' collective, NETQ_COMPLETE posts the remote ranks. The same request and post
 * functions serve the queue's mapped ring (kmod/netq_ring.c).
 */
#ifndef VNK_NETQ_H
#define VNK_NETQ_H

#include <linux/types.h>

#include "vn_comm.h"

struct vnk_comm;
struct vnk_file;
struct vnk_mem;
struct vnk_netq_ring;

/**
 * enum vnk_netq_state - a network queue's one request
 * @VNK_NETQ_IDLE: none
 * @VNK_NETQ_WAITING: being waited for (the local ranks held while it is taken)
 * @VNK_NETQ_PENDING: out: the proxy has it
 * @VNK_NETQ_COMPLETING: remote ranks being posted
 */
enum vnk_netq_state { VNK_NETQ_IDLE, VNK_NETQ_WAITING, VNK_NETQ_PENDING, VNK_NETQ_COMPLETING };

/**
 * struct vnk_netq - the network queue of a communicator (struct vnk_comm.nq), all of it
 *	under vnk_comm_lock
 * @on: its nodes were set (COMM_NODES): @remote ranks, a queue
 * @state: its request: enum vnk_netq_state
 * @remote: bit r: rank r is on another node (set once, with @on)
 * @id: the last request's id
 * @args: the pending request's collective, values only
 * @inb: bytes of one rank's input in it
 * @posted: bit r: remote rank r of the pending request was posted
 * @ring: the queue's ring, if NETQ_RING_SETUP made one: a reference (set and cleared
 *	under the registration's vnk_file.comm_lock too)
 */
struct vnk_netq {
	bool on;
	u32 state;
	u64 remote;
	u64 id;
	struct vn_cc_args args;
	u64 inb;
	u64 posted;
	struct vnk_netq_ring *ring;
};

/**
 * struct vnk_netq_rq - a request as both ways of serving the queue hand it out
 * @id: its id, 0 if the stage was too small (nothing copied)
 * @count: the collective's count
 * @rank_bytes: one rank's input bytes
 * @stage_need: the stage it needs: nranks x @rank_bytes
 * @local: bit r: rank r is local
 * @op: the collective
 * @reduce: its reduction
 * @dtype: its element type
 * @shift: a PERMUTE's shift
 * @arrive_ps: the local ranks' modeled arrivals
 */
struct vnk_netq_rq {
	u64 id, count, rank_bytes, stage_need, local;
	u32 op, reduce, dtype, shift;
	u64 arrive_ps[VN_COMM_MAX_RANKS];
};

/**
 * vnk_comm_nodes_ioctl() - VNEURON_IOCTL_COMM_NODES: declare the ranks of other nodes
 * @vf: the calling file
 * @data: struct vneuron_comm_nodes
 *
 * Return: 0, -EINVAL, -ENOENT, -EBUSY (a rank joined, or set already), -EFAULT,
 * -ENOMEM, -EINTR.
 */
int vnk_comm_nodes_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_netq_wait_ioctl() - VNEURON_IOCTL_NETQ_WAIT: the network queue's next request
 * @vf: the calling file
 * @data: struct vneuron_netq_wait
 *
 * Return: 0, -EINVAL, -ENOENT, -EBUSY (a request is out), -ETIMEDOUT, -EPIPE (the
 * communicator is broken), -EFAULT, -ENOMEM, -EINTR.
 */
int vnk_netq_wait_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_netq_wait_undo() - NETQ_WAIT's request id never reached the caller: it is
 *	given again by the next NETQ_WAIT
 * @vf: the calling file
 * @data: struct vneuron_netq_wait as vnk_netq_wait_ioctl() filled it
 */
void vnk_netq_wait_undo(struct vnk_file *vf, void *data);

/**
 * vnk_netq_complete_ioctl() - VNEURON_IOCTL_NETQ_COMPLETE: post the remote ranks, or
 *	break the communicator
 * @vf: the calling file
 * @data: struct vneuron_netq_complete
 *
 * Return: 0, -EINVAL, -ENOENT (no such request pending), -EPIPE (broken meanwhile),
 * -EFAULT, -ENOMEM, -EINTR.
 */
int vnk_netq_complete_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_netq_detach() - registration @c of @vf goes: its queue and ring with it
 * @vf: the registration's file, its comm_lock held
 * @c: the communicator, out of the registry
 *
 * The proxy of the remote ranks is gone: a communicator with a queue breaks.
 */
void vnk_netq_detach(struct vnk_file *vf, struct vnk_comm *c);

/**
 * vnk_netq_get() - the network queue of registration @handle of @vf
 * @vf: the calling file
 * @handle: a communicator handle of @vf
 * @ringp: NULL, or where to put its ring (with a reference; see below)
 *
 * Without @ringp a queue served by a ring is -EBUSY (its requests are the ring's);
 * with it, a queue without a ring is -EINVAL.
 *
 * Return: the communicator with a reference, or ERR_PTR(-ENOENT, -EINVAL, -EBUSY,
 * -EINTR).
 */
struct vnk_comm *vnk_netq_get(struct vnk_file *vf, u32 handle, struct vnk_netq_ring **ringp);

/**
 * vnk_netq_request() - take the local ranks' collective as a request
 * @c: the communicator, with a queue
 * @stage: the proxy's buffer the inputs go into
 * @off: their offset in @stage (the range checked by the caller)
 * @size: the bytes from @off the caller may fill
 * @deadline_ns: CLOCK_MONOTONIC; a past one: only if the ranks stand there now
 * @p: scratch for the core's view of the ranks
 * @rq: the request; its id 0 if @size is below its need (nothing copied, queue idle)
 *
 * Waits for the local ranks, holds them while their inputs are copied. Local ranks
 * that disagree, or a group's collective, break the communicator.
 *
 * Return: 0, -EPIPE (broken), -EBUSY (a request is out), -ETIMEDOUT, -EINTR.
 */
int vnk_netq_request(struct vnk_comm *c, struct vnk_mem *stage, u64 off, u64 size,
		     u64 deadline_ns, struct vn_cc_pending *p, struct vnk_netq_rq *rq);

/**
 * vnk_netq_unissue() - request @id was not handed out after all
 * @c: the communicator
 * @id: the request's id
 *
 * The queue takes the collective again at the next request.
 */
void vnk_netq_unissue(struct vnk_comm *c, u64 id);

/**
 * vnk_netq_fail() - a completion with an error: the proxy breaks the communicator
 * @c: the communicator
 * @error: a positive errno (ETIMEDOUT, EPIPE, EIO, EINVAL, EINTR)
 * @failed_rank: the rank to blame, below nranks
 * @missing: with ETIMEDOUT, the ranks that never came
 *
 * Return: 0, or -EINVAL for arguments out of range (nothing done).
 */
int vnk_netq_fail(struct vnk_comm *c, u32 error, u32 failed_rank, u64 missing);

/**
 * vnk_netq_post() - post remote ranks of the pending request
 * @c: the communicator
 * @stage: the buffer their inputs are in
 * @off: the request's layout starts there
 * @id: the request's id
 * @mask: the ranks to post, 0 for every remote rank not posted yet
 * @arr: their arrivals, a kernel copy of nranks entries, read here once
 * @ra: nranks arguments the communicator reads until the collective completes: the
 *	caller keeps them while the request is pending
 *
 * The request completes with its last remote rank.
 *
 * Return: 0; -EINVAL (@mask not a subset of the remote ranks not posted yet, an arrival
 * too late, the range past @stage: the request stays); -ENOENT (no request @id
 * pending); -EPIPE (broken meanwhile: the request is gone).
 */
int vnk_netq_post(struct vnk_comm *c, struct vnk_mem *stage, u64 off, u64 id, u64 mask,
		  const u64 *arr, struct vn_cc_args *ra);

#endif /* VNK_NETQ_H */
