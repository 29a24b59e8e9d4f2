/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * vneuron: the network queue of a communicator with ranks on other nodes (uapi versions
 * 5 and 6): its requests and completions, blocking or through a mapped ring. Included by
 * vneuron.h, which defines its ioctls (docs/uapi.md, "Ranks on other nodes").
 */
#ifndef _UAPI_VNEURON_NETQ_H
#define _UAPI_VNEURON_NETQ_H

#include <linux/types.h>

/**
 * struct vneuron_netq_wait - argument of %VNEURON_IOCTL_NETQ_WAIT
 * @handle: in: the registration whose nodes were set (%VNEURON_IOCTL_COMM_NODES)
 * @flags: in: must be 0
 * @timeout_ns: in: absolute CLOCK_MONOTONIC time to give up at (ETIMEDOUT), non-zero;
 *	the kernel waits at most 10 s per call whatever it says
 * @stage: in: a buffer of the calling file: rank r's input is at @stage_offset + r *
 *	@rank_bytes, the local ranks' written by this call, the remote ranks' to be
 *	written by the proxy
 * @pad: must be 0
 * @stage_offset: in: where the ranks' inputs start in @stage
 * @stage_size: in: bytes of @stage usable from @stage_offset
 * @arrivals: in: user pointer to __u64[nranks]: out: the local ranks' modeled arrival
 *	times in ps (remote entries 0)
 * @id: out: the request, to pass to %VNEURON_IOCTL_NETQ_COMPLETE; 0 if @stage_size is
 *	below @stage_need (nothing copied: call again with a larger buffer)
 * @op: out: the collective (enum vn_cc_op of core/vn_comm.h: 0 ALL_REDUCE,
 *	1 ALL_GATHER, 2 REDUCE_SCATTER, 3 ALL_TO_ALL, 4 PERMUTE)
 * @reduce: out: 0 sum, 1 max
 * @dtype: out: %VNEF_DT_FP32 or %VNEF_DT_BF16
 * @shift: out: PERMUTE's shift
 * @count: out: elements, as the collective counts them
 * @rank_bytes: out: bytes of one rank's input
 * @stage_need: out: nranks * @rank_bytes
 * @local: out: bit r: rank r is of this node
 *
 * Waits (killable) until every local rank stands at its next collective and returns
 * it, their inputs copied into @stage (the ranks are held at the collective meanwhile,
 * so their buffers cannot go). One request at a time: until it is completed, another
 * NETQ_WAIT gives EBUSY. Local ranks that disagree about the collective break the
 * communicator (EINVAL in COMM_INFO's failure). Errors: EINVAL (@flags, @pad, a zero
 * @timeout_ns, a handle that is a rank's or without nodes, @stage range overflowing),
 * ENOENT (@handle or @stage not of this file), EBUSY (also: the registration is served
 * by a ring, %VNEURON_IOCTL_NETQ_RING_SETUP), ETIMEDOUT, EPIPE (the
 * communicator is broken: COMM_INFO says why), EFAULT, EINTR (a fatal signal), ENOMEM.
 */
struct vneuron_netq_wait {
	__u32 handle;
	__u32 flags;
	__u64 timeout_ns;
	__u32 stage;
	__u32 pad;
	__u64 stage_offset;
	__u64 stage_size;
	__u64 arrivals;
	__u64 id;
	__u32 op;
	__u32 reduce;
	__u32 dtype;
	__u32 shift;
	__u64 count;
	__u64 rank_bytes;
	__u64 stage_need;
	__u64 local;
};

/* Arrival times NETQ_COMPLETE accepts, at most: 2^62 ps is about 53 days. */
#define VNEURON_NETQ_MAX_PS		_BITULL(62)

/**
 * struct vneuron_netq_complete - argument of %VNEURON_IOCTL_NETQ_COMPLETE
 * @handle: in: the registration that received the request
 * @flags: in: must be 0
 * @id: in: the request (%VNEURON_IOCTL_NETQ_WAIT's @id); ignored with @error
 * @stage: in: a buffer of the calling file holding the remote ranks' inputs: rank r's
 *	at @stage_offset + r * rank_bytes (the request's layout; usually its stage)
 * @error: in: 0 to complete the request; else a positive errno that breaks the
 *	communicator, with or without a request: ETIMEDOUT (another node's ranks timed
 *	out; @missing names the ranks they found missing), EPIPE, EIO, EINVAL, EINTR
 * @stage_offset: in
 * @arrivals: in: user pointer to __u64[nranks]: the remote ranks' modeled arrivals in
 *	ps, at most %VNEURON_NETQ_MAX_PS (local entries ignored); 0 with @error
 * @failed_rank: in: with @error, the rank named as failed (below nranks); else 0
 * @pad: must be 0
 * @missing: in: with @error ETIMEDOUT, bit r: rank r never arrived; else 0
 *
 * Posts every remote rank at the request's collective, which then completes on this
 * node: its local ranks' outputs written, their modeled end the latest arrival plus
 * the collective's cost. Errors: EINVAL (@flags, @pad, an @error not listed, a bad
 * @failed_rank or @missing, an arrival too late, @stage range overflowing or beyond
 * the buffer), ENOENT (@handle or @stage not of this file, no request @id pending:
 * never issued or completed already), EBUSY (the registration is served by a ring),
 * EPIPE (the communicator broke meanwhile: a local rank timed out or left; nothing
 * moved), EFAULT, EINTR, ENOMEM.
 */
struct vneuron_netq_complete {
	__u32 handle;
	__u32 flags;
	__u64 id;
	__u32 stage;
	__u32 error;
	__u64 stage_offset;
	__u64 arrivals;
	__u32 failed_rank;
	__u32 pad;
	__u64 missing;
};

/* Entries of a network queue ring, at most (a power of two, at least 2). */
#define VNEURON_NETQ_RING_MAX_ENTRIES	64
/* Ranks a ring descriptor carries arrivals for: every rank of a communicator. */
#define VNEURON_NETQ_RING_RANKS		64

/**
 * struct vneuron_netq_ctrl - the first page of a network queue ring's mapping
 * @req_head: requests the kernel posted (free-running; entry @req_head % entries next)
 * @pad0: 0
 * @req_tail: requests the proxy consumed: it stores this after reading one
 * @pad1: 0
 * @cpl_head: completions the proxy posted: it stores this after writing one
 * @pad2: 0
 * @cpl_tail: completions the kernel consumed (at %VNEURON_IOCTL_NETQ_DOORBELL)
 * @pad3: 0
 *
 * Each index on its own cache line, as perf's data_head/data_tail. The producer
 * writes the entry, then the head with release semantics; the consumer reads the head
 * with acquire semantics, then the entry, then stores its tail. The whole mapping is
 * writable by the proxy, and the kernel trusts nothing in it: it keeps its own copies
 * of the indices it produces, reads each word of the proxy's once and checks it.
 */
struct vneuron_netq_ctrl {
	__u32 req_head;
	__u32 pad0[15];
	__u32 req_tail;
	__u32 pad1[15];
	__u32 cpl_head;
	__u32 pad2[15];
	__u32 cpl_tail;
	__u32 pad3[15];
};

/**
 * struct vneuron_netq_req - a request descriptor (kernel to proxy), 576 bytes
 * @id: the request, to complete; 0 if the stage is below @stage_need: nothing was
 *	copied, register a larger stage (%VNEURON_NETQ_DOORBELL_STAGE) and the request
 *	is posted again
 * @op: the collective (enum vn_cc_op of core/vn_comm.h: 0 ALL_REDUCE, 1 ALL_GATHER,
 *	2 REDUCE_SCATTER, 3 ALL_TO_ALL, 4 PERMUTE)
 * @reduce: 0 sum, 1 max
 * @dtype: %VNEF_DT_FP32 or %VNEF_DT_BF16
 * @shift: PERMUTE's shift
 * @count: elements, as the collective counts them
 * @rank_bytes: bytes of one rank's input: rank r's at the stage's offset + r * @rank_bytes
 * @stage_need: nranks * @rank_bytes
 * @local: bit r: rank r is of this node (its input is in the stage)
 * @nranks: ranks of the communicator
 * @pad: 0
 * @arrive_ps: the local ranks' modeled arrivals in ps (remote entries 0)
 *
 * The arrivals are in the descriptor so that a request is read whole from one entry.
 */
struct vneuron_netq_req {
	__u64 id;
	__u32 op;
	__u32 reduce;
	__u32 dtype;
	__u32 shift;
	__u64 count;
	__u64 rank_bytes;
	__u64 stage_need;
	__u64 local;
	__u32 nranks;
	__u32 pad;
	__u64 arrive_ps[VNEURON_NETQ_RING_RANKS];
};

/**
 * struct vneuron_netq_cpl - a completion descriptor (proxy to kernel), 576 bytes
 * @id: the request completed; ignored with @error
 * @error: 0, or a positive errno that breaks the communicator, as NETQ_COMPLETE's:
 *	ETIMEDOUT (with @missing), EPIPE, EIO, EINVAL, EINTR
 * @failed_rank: with @error, the rank named as failed (below nranks); else 0
 * @missing: with @error ETIMEDOUT, bit r: rank r never arrived; else 0
 * @ranks: without @error, the remote ranks posted now: 0 for every one not posted
 *	yet, the request completing (a whole completion); else bit r: rank r, a remote
 *	rank below nranks not posted yet for @id (a partial completion: the request
 *	stays pending until its last remote rank is posted); with @error 0
 * @pad: 0
 * @arrive_ps: the modeled arrivals in ps of the ranks posted, at most
 *	%VNEURON_NETQ_MAX_PS: those of @ranks, or with @ranks 0 every remote rank's
 *	(other entries ignored); their inputs are in the stage, at the request's layout,
 *	and stay there untouched until the request completes
 *
 * A partial completion lets the ranks of a node whose inputs came be posted at once,
 * so that at a local rank's time limit only the ranks never posted are named missing.
 */
struct vneuron_netq_cpl {
	__u64 id;
	__u32 error;
	__u32 failed_rank;
	__u64 missing;
	__u64 ranks;
	__u64 pad[4];
	__u64 arrive_ps[VNEURON_NETQ_RING_RANKS];
};

/*
 * mmap() offsets of network queue rings (%VNEURON_IOCTL_NETQ_RING_SETUP's
 * @mmap_offset): above the trace rings' window.
 */
#define VNEURON_MMAP_NETQ_BASE		_BITULL(53)

/**
 * struct vneuron_netq_ring_setup - argument of %VNEURON_IOCTL_NETQ_RING_SETUP
 * @handle: in: the registration whose nodes were set (%VNEURON_IOCTL_COMM_NODES)
 * @flags: in: must be 0
 * @entries: in: descriptors per ring, a power of two from 2 to
 *	%VNEURON_NETQ_RING_MAX_ENTRIES
 * @stage: in: a buffer of the calling file the kernel copies the local ranks' inputs
 *	into and reads the remote ranks' from (held by the ring until it goes)
 * @stage_offset: in: where the ranks' inputs start in @stage
 * @stage_size: in: bytes of @stage usable from @stage_offset
 * @mmap_offset: out: the offset to mmap() the ring at (shared, read-write, no exec)
 * @mmap_len: out: its length: the control page (struct vneuron_netq_ctrl), then
 *	@entries requests, then @entries completions
 * @req_offset: out: where the requests start in the mapping
 * @cpl_offset: out: where the completions start in the mapping
 *
 * One ring pair per registration, not per core: a communicator spanning nodes has at
 * most one collective in flight (every rank takes part) and its local ranks are on
 * several cores, so the registration is where a request is whole. From now on the
 * kernel posts a request (struct vneuron_netq_req) when every local rank stands at a
 * collective, their inputs copied into the stage while they are held there, and wakes
 * poll() (EPOLLIN while the proxy has requests to read); the proxy writes the remote
 * ranks' inputs into the stage through its mmap, a completion (struct vneuron_netq_cpl)
 * and rings %VNEURON_IOCTL_NETQ_DOORBELL. Unmapping the ring's last mapping breaks the
 * communicator, as closing the file does. Memory: one page plus 2 x @entries x 576
 * bytes, charged to the caller's memory cgroup. Errors: EINVAL (@flags, @entries, the
 * @stage range overflowing or past the buffer, a handle that is a rank's or without
 * nodes), ENOENT (@handle or @stage not of this file), EBUSY (a ring is set up, or a
 * NETQ_WAIT request is out), ENOMEM, EINTR.
 */
struct vneuron_netq_ring_setup {
	__u32 handle;
	__u32 flags;
	__u32 entries;
	__u32 stage;
	__u64 stage_offset;
	__u64 stage_size;
	__u64 mmap_offset;
	__u64 mmap_len;
	__u32 req_offset;
	__u32 cpl_offset;
};

/* NETQ_DOORBELL: first replace the ring's stage with the one given. */
#define VNEURON_NETQ_DOORBELL_STAGE	_BITUL(0)

/**
 * struct vneuron_netq_doorbell - argument of %VNEURON_IOCTL_NETQ_DOORBELL
 * @handle: in: the registration with a ring
 * @flags: in: 0 or %VNEURON_NETQ_DOORBELL_STAGE
 * @stage: in: with %VNEURON_NETQ_DOORBELL_STAGE, the new stage (a buffer of the
 *	calling file), else 0
 * @pad: must be 0
 * @stage_offset: in: as @stage
 * @stage_size: in: as @stage
 *
 * Consumes the completions between the ring's cpl_tail and cpl_head in order: each is
 * read once, checked, and completes its request (or breaks the communicator with its
 * @error); cpl_tail advances past it. A completion that fails a check stays unconsumed
 * (fix it and ring again): the call ends there with EINVAL (a bad field: @error not
 * listed, @failed_rank, @missing, an arrival too late, a pad; or cpl_head more than
 * the ring's entries ahead) or ENOENT (no such request pending). With
 * %VNEURON_NETQ_DOORBELL_STAGE the stage is replaced first (no request may be
 * pending), and a request posted with id 0 is posted again. Errors: EINVAL (@flags,
 * @pad, stage fields without the flag, the stage range), ENOENT (@handle or @stage not
 * of this file, no request for a completion), EBUSY (a new stage while a request is
 * pending), EPIPE (the communicator broke meanwhile: the completion was consumed,
 * nothing moved), ENOMEM, EINTR.
 */
struct vneuron_netq_doorbell {
	__u32 handle;
	__u32 flags;
	__u32 stage;
	__u32 pad;
	__u64 stage_offset;
	__u64 stage_size;
};

#endif /* _UAPI_VNEURON_NETQ_H */
