/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An open file of /dev/vneuronN (kmod/file.c): the owner of every object made through
 * it, and the ioctl table.
 *
 * Security model (docs/security.md): a read-only file may only GET_INFO (file.c); a core
 * belongs to one file at a time, claimed by its first EXEC (others get -EBUSY) and
 * released when that file goes; only the owner (or CAP_SYS_ADMIN) resets it
 * (dev_core.c); tracing sees the executions of owners the tracer may ptrace, or all
 * with CAP_PERFMON (trace.c).
 *
 * Lock order (outermost first; docs/uapi.md, "Lock order", says why):
 *   mm->mmap_lock (held by the mm around mmap(), munmap(), faults in user copies)
 *   -> vnk_file.comm_lock (mutex: a file's communicator handles, kmod/comm.c)
 *   -> vnk_dev_core.lock (mutex: a core's owner, claim, executor and trace session)
 *   -> the executor's locks (core/vn_exec.h: core lock, then execution lock), taken only
 *      inside core calls
 *   vnk_device.hbm_lock (mutex: HBM budget, peak and device addresses) nests inside
 *      mmap_lock only.
 *   vnk_comm_lock (mutex: the module's registry of communicators, their joined ranks
 *      and network queues, kmod/comm.c, kmod/netq.c) is taken under
 *      vnk_file.comm_lock and nests only vn_comm's lock.
 *   vnk_netq_ring.lock (mutex: a network queue ring's posting, doorbell and teardown,
 *      kmod/netq_ring.c) nests vnk_comm_lock and vn_comm's lock; the teardown takes it under
 *      vnk_file.comm_lock, waits for the ring's work there and drops the ring's stage
 *      (hbm_lock). A ring's vma close breaks its communicator (vn_comm's lock) under
 *      mmap_lock. vnk_file.netq_lock (spinlock: the file's rings, for poll and mmap)
 *      is innermost.
 *   vnk_share_lock (spinlock: each user's charges of the shared resources,
 *      kmod/share.c) is innermost: charges are taken under vnk_dev_core.lock and
 *      vnk_file.comm_lock, given back from completions, releases and vma closes.
 *   vnk_file.mems, .progs, .execs xa_locks (spinlocks: handle tables),
 *      vnk_file.done_lock (spinlock: completions for poll and the live list for flush)
 *      and vnk_trace_file.lock are innermost and nest nothing: lookups take a reference
 *      under them and drop it after.
 *   Completion callbacks (exec.c) run with no vneuron lock held and may drop buffer
 *   references (hbm_lock) and take done_lock. The executor's end hooks (trace.c: edge
 *   and gone) run under its core lock and take only spinlocks and wait-queue locks;
 *   the references they drop only queue work or free memory.
 * No vneuron lock is held across copy_{to,from}_user(). A buffer's last reference may
 * go in a vma close (under mmap_lock); freeing it takes hbm_lock, as ordered above.
 */
#ifndef VNK_FILE_H
#define VNK_FILE_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>

/* Handles of a file's tables (buffers, programs) cycle through 1..VNK_HANDLE_LIMIT. */
#define VNK_HANDLE_LIMIT	65535
/* User copies go in chunks of this size, with a resched and fatal-signal check between. */
#define VNK_COPY_CHUNK		SZ_1M

struct vnk_device;
struct vnk_trace_file;

/**
 * struct vnk_file - one open file: owns every object created through it
 * @ref: the file holds one, each execution not yet completed one and each trace
 *	session one, so a completion arriving after close still finds its file, and
 *	limits stay charged until the memory they count is freed
 * @vdev: the device
 * @filp: its struct file, for capability checks of its opener (kmod/share.c): valid
 *	during every call made through it, which holds the file
 * @writable: opened with FMODE_WRITE
 * @mems: handle -> struct vnk_mem
 * @next_handle: xa_alloc_cyclic() cursor of @mems
 * @nr_mems: live buffer handles
 * @progs: handle -> struct vn_program
 * @next_prog: xa_alloc_cyclic() cursor of @progs
 * @nr_progs: loaded programs (max_programs)
 * @prog_bytes: their image bytes (max_program_bytes)
 * @execs: exec id -> struct vnk_exec, until reaped by WAIT
 * @next_exec: xa_alloc_cyclic() cursor of @execs
 * @nr_execs: executions not yet freed (max_execs)
 * @exec_bytes: their scratch and semaphore tables (max_exec_bytes)
 * @trace_bytes: ring memory of its trace sessions (max_trace_bytes)
 * @done_lock: protects @nr_done, @live and the flags of every struct vnk_exec
 * @nr_done: executions completed and not yet reaped: poll() readiness
 * @live: executions not yet completed, for flush()
 * @spare_execs: ended executions kept for reuse, under @done_lock (kmod/exec.c)
 * @nr_spare_execs: how many
 * @done_wq: completions (poll, WAIT's last step)
 * @trace_wq: trace rings (poll, TRACE_STOP); lives with the file for its sessions
 * @owned: bit i: owns core i (changed under that core's lock)
 * @trace: its trace sessions (kmod/trace.c), or NULL
 * @comm_lock: serialises the file's communicator calls (kmod/comm.c); protects
 *	@comms, @next_comm, @nr_comms and @comm_cores
 * @comms: handle -> struct vnk_comm_handle: its communicator registrations and ranks
 * @next_comm: xa_alloc_cyclic() cursor of @comms
 * @nr_comms: live communicator handles (VNK_MAX_COMM_HANDLES)
 * @comm_cores: bit i: core i is bound as a rank by one of @comms
 * @netq_lock: protects @netq_rings (poll and mmap look rings up under it)
 * @netq_rings: the network queue rings of its registrations (kmod/netq_ring.c)
 * @netq_wq: requests posted to those rings (poll)
 */
struct vnk_file {
	struct kref ref;
	struct vnk_device *vdev;
	struct file *filp;
	bool writable;
	struct xarray mems;
	u32 next_handle;
	atomic_t nr_mems;
	struct xarray progs;
	u32 next_prog;
	atomic_t nr_progs;
	atomic64_t prog_bytes;
	struct xarray execs;
	u32 next_exec;
	atomic_t nr_execs;
	atomic64_t exec_bytes;
	atomic64_t trace_bytes;
	spinlock_t done_lock;		/* @nr_done, @live, vnk_exec flags, spares */
	unsigned int nr_done;
	struct list_head live;
	struct vnk_exec *spare_execs;
	unsigned int nr_spare_execs;
	wait_queue_head_t done_wq;
	wait_queue_head_t trace_wq;
	unsigned long owned;
	struct vnk_trace_file *trace;
	struct mutex comm_lock;		/* see @comm_lock above */
	struct xarray comms;
	u32 next_comm;
	unsigned int nr_comms;
	unsigned long comm_cores;
	spinlock_t netq_lock;		/* @netq_rings */
	struct list_head netq_rings;
	wait_queue_head_t netq_wq;
};

/* The file operations of /dev/vneuronN. */
extern const struct file_operations vnk_fops;

/**
 * vnk_file_put() - drop a reference on a file's state
 * @vf: the file; the last reference frees it
 */
void vnk_file_put(struct vnk_file *vf);

#endif /* VNK_FILE_H */
