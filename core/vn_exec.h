/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The executor: one struct vn_core per NeuronCore, running validated programs
 * (core/vn_program.h) on its runner and CC-core threads, one execution at a time, in
 * submission order. docs/isa.md gives the semantics and the modeled clock.
 *
 * Lock order: a core's lock, then an execution's lock; completion callbacks run with
 * neither held, hooks with the core's lock held as documented at each.
 *
 * A second line of defence: before every engine instruction and every DMA chunk the
 * executor checks the access against the memory it targets (SBUF, PSUM, the bound HBM
 * buffer, the semaphore tables, the engine's own buffers), with code of its own rather
 * than the validator's. An access out of range ends the execution with VN_RES_FAULT and
 * says where (struct vn_fault), so a validator bug is an error status, never memory
 * corruption. The host build aborts instead (vn_bug()), so fuzzing finds such programs.
 */
#ifndef VN_EXEC_H
#define VN_EXEC_H

#include "vn_platform.h"
#include "vneuron.h"
#include "vn_program.h"
#include "vn_stats.h"

struct vn_core;
struct vn_exec;

enum vn_exec_state {
	VN_EXEC_QUEUED = 0,
	VN_EXEC_RUNNING = 1,
	VN_EXEC_DONE = 2,
};

enum vn_exec_result {
	VN_RES_OK = 0,
	VN_RES_ERROR = 1,	/* engine, pc and reason say where */
	VN_RES_TIMEOUT = 2,	/* host-time limit or a certain deadlock (reason says) */
	VN_RES_ABORTED = 3,	/* reset or core stopped */
	VN_RES_FAULT = 4,	/* the executor's own check stopped an access (reason says where) */
};

enum vn_exec_reason {
	VN_REASON_NONE = 0,
	VN_REASON_DEADLOCK = 1,		/* every stream blocked on a semaphore */
	VN_REASON_TIME_LIMIT = 2,
	VN_REASON_RESET = 3,
	VN_REASON_STOP = 4,
	VN_REASON_NOMEM = 5,		/* scratch memory */
	VN_REASON_CANCEL = 6,		/* vn_exec_cancel(): its owner went away */
	VN_REASON_FAULT_SBUF = 7,	/* VN_RES_FAULT: an access outside SBUF or its partition */
	VN_REASON_FAULT_PSUM = 8,
	VN_REASON_FAULT_HBM = 9,	/* outside the buffer bound to the tensor */
	VN_REASON_FAULT_SEM = 10,	/* a semaphore id or value outside the execution's tables */
	VN_REASON_FAULT_STATE = 11,	/* operands the engine's state or buffers cannot hold */
	VN_REASON_CC_MISSING = 12,	/* TIMEOUT: ranks never arrived at the collective */
	VN_REASON_CC_PEER = 13,		/* ABORTED: another rank failed or left */
	VN_REASON_CC_MISMATCH = 14,	/* ERROR: the ranks disagree on the collective */
};

/* Where the executor's own checks stopped an access (result VN_RES_FAULT). */
struct vn_fault {
	u32 mem;		/* enum vnef_mem; VNEF_MEM_NONE for a semaphore or engine state */
	u32 index;		/* SBUF/PSUM: partition; HBM: tensor; semaphore: its id */
	u64 offset;		/* bytes into that partition or tensor; semaphore: the value */
	u64 len;		/* bytes of the access (0 if not an access) */
	u64 time_ps;		/* modeled start of the faulting entry */
};

struct vn_exec_status {
	u32 state;		/* enum vn_exec_state */
	u32 result;		/* enum vn_exec_result, once DONE */
	u32 reason;		/* enum vn_exec_reason */
	u32 stream;		/* where it failed (engine, DMA or CC stream id), else ~0 */
	u32 pc;			/* entry index in that stream */
	u16 lnc;		/* 1, or VN_LNC_MAX: an instance of a logical core's launch */
	u16 pid;		/* that instance's program id (PROGRAM_ID), else 0 */
	u64 seq;		/* execution sequence number on this core, from 1 */
	u64 model_ps;		/* modeled duration: the latest stream end */
	u64 host_ns;		/* host time from start to end */
	u64 owner;		/* the core's owner when it was submitted (vn_core_set_owner()) */
	struct vn_fault fault;	/* result VN_RES_FAULT: where */
};

/* An HBM binding: the memory behind one program tensor, by tensor index. */
struct vn_bind {
	void *ptr;		/* kernel virtual address (host: any pointer) */
	u64 size;		/* >= the tensor's size */
};

/* Event for every executed instruction and DMA descriptor (the trace hook). */
#define VN_EVT_OPCODE_DMA	0xffffu
#define VN_EVT_F_TRANSPOSE	1u	/* flops are transpose flops */
#define VN_EVT_NO_WAIT		(~0u)

struct vn_event {
	u64 exec_seq;
	u32 stream;		/* engine 0..3, VNEF_STREAM_DMA(q) or VNEF_STREAM_CC */
	u32 opcode;		/* enum vnef_opcode, VN_EVT_OPCODE_DMA, enum vnef_cc_opcode (CC) */
	u32 pc;			/* instruction / descriptor index */
	u32 flags;		/* VN_EVT_F_* */
	u64 start_ps;		/* modeled */
	u64 end_ps;
	u64 host_ns;		/* host time at completion */
	u64 elements;
	u64 bytes;		/* bytes read + written by the operation */
	u64 flops;
	u32 wait_sem;		/* VN_EVT_NO_WAIT if none */
	u32 wait_value;
	u64 signal_mask;
	u32 dma_queue;		/* DMA: queue; else ~0 */
	u32 dma_desc;		/* DMA: descriptor index; else ~0 */
	u64 hbm_read;
	u64 hbm_write;
	/* CC: the rank, its group's size, the last member to arrive and when (ps) */
	u32 cc_rank;
	u32 cc_members;
	u32 cc_last;
	u64 cc_latest_ps;
	/*
	 * For each s in signal_mask, sem_values[s] is the value after this entry's
	 * increment; stable while the hook runs, as only this stream writes those.
	 */
	const u32 *sem_values;
};

typedef void (*vn_event_hook)(void *arg, const struct vn_event *ev);
/*
 * Called under the core's lock when an execution starts (end false: before any of its
 * events) and when it ends (end true: after all of its events, status final), with no
 * worker producing events: the place to flush per-worker trace rings and write
 * execution records. At the start it decides: false leaves this execution unobserved
 * (no events, no end call), e.g. when it belongs to an owner the observer may not see.
 * Must not sleep or call the core's API.
 */
typedef bool (*vn_exec_edge_hook)(void *arg, const struct vn_exec_status *st, bool end);
typedef void (*vn_exec_done_fn)(struct vn_exec *ex, void *arg);
/*
 * Told of every execution's start (end false) and end (end true, status final), under
 * the core's lock, whoever traces it: telemetry. Must not sleep or call the core's API.
 */
typedef void (*vn_exec_monitor_fn)(void *arg, const struct vn_exec_status *st, bool end);

struct vn_counters {
	u64 exec_ok;
	u64 exec_failed;
	u64 exec_timeout;
	u64 exec_aborted;
	u64 exec_fault;
	u64 busy_ps[VNEF_STREAMS];	/* modeled busy time per stream */
	u64 model_ps;			/* modeled time of all executions */
	u64 flops;			/* TensorE, transposes included */
	u64 transpose_flops;
	u64 dma_bytes;
	u64 hbm_read;
	u64 hbm_write;
	u64 instructions;
	u64 descriptors;
	u64 collectives;		/* CC-core instructions other than NOP */
	u64 collective_bytes;		/* their inputs' bytes */
};

/* A core with its SBUF, PSUM and workers. m may be NULL for vn_model_trn1 (core/vn_model.h). */
int vn_core_create(const struct vneuron_model *m, const char *name, struct vn_core **out);
/* Stops the workers; a running execution ends ABORTED, queued ones too. */
void vn_core_destroy(struct vn_core *c);
/* Ends the running and queued executions (ABORTED, reason RESET) and clears the state. */
void vn_core_reset(struct vn_core *c);
void vn_core_counters(struct vn_core *c, struct vn_counters *out);
/*
 * The observer of the core's executions: hook for every event and edge (start/end) hook,
 * either may be NULL, sharing arg. Each execution takes the hooks in force when it
 * starts and keeps them to its end, so changing them never disturbs a running one.
 */
void vn_core_set_hooks(struct vn_core *c, vn_event_hook hook, vn_exec_edge_hook edge,
		       void *arg);
/* Only the event hook (the edge hook goes too). NULL to remove. */
void vn_core_set_hook(struct vn_core *c, vn_event_hook hook, void *arg);
/*
 * Removes the hooks without waiting: executions that start from now on are unobserved.
 * If the running execution took hooks with this arg, they stay in force to its end, and
 * then gone(arg) runs from the worker that ended it; otherwise gone(arg) runs before
 * this returns, which it then says by returning true. Either way gone runs once, under
 * the core's lock, with no worker producing events (so rings may be stopped there).
 */
bool vn_core_unhook(struct vn_core *c, void *arg, void (*gone)(void *arg));
/*
 * The owner of the executions submitted from now on (an id the caller never reuses; 0
 * for none). When an execution of another owner than the previous one starts, SBUF,
 * PSUM and the semaphores are zeroed first: no owner sees another's on-chip data.
 */
void vn_core_set_owner(struct vn_core *c, u64 owner);
/*
 * The host build aborts on a device fault by default (fuzzing); tests of the fault
 * status turn that off. The kernel always ends the execution with VN_RES_FAULT.
 */
void vn_core_set_fault_abort(struct vn_core *c, bool abort);
/* The monitor of every execution (NULL to stop). */
void vn_core_set_monitor(struct vn_core *c, vn_exec_monitor_fn fn, void *arg);
/*
 * The communicator and rank of the executions submitted from now on (cm NULL: none).
 * Each execution takes a reference to it for its lifetime. An execution whose program
 * has a collective stream is refused (-ENOTCONN) without one. When an execution that
 * has one ends other than OK, it leaves the communicator (vn_comm_leave()), so its
 * peers' waits end at once.
 */
struct vn_comm;
void vn_core_set_comm(struct vn_core *c, struct vn_comm *cm, u32 rank);
/* Also count into these sysfs counters (core/vn_stats.h); NULL to stop. */
void vn_core_set_stats(struct vn_core *c, struct vn_core_stats *stats);

/* Host-time limit of an execution when the submitter gives 0. */
#define VN_EXEC_DEFAULT_LIMIT_NS	(30ull * 1000000000ull)

/*
 * Queue an execution without blocking. binds[i] is for tensor i (count must equal the
 * program's tensor count; CONST entries are ignored, SCRATCH entries may be NULL/0 to
 * let the core provide zeroed scratch). Returns -EINVAL for a bad binding (err says which
 * tensor), -ENOMEM. The execution holds a program reference. done (may be NULL) is called
 * once, from a worker, without locks, when the execution ends; it must not sleep long.
 * The caller owns one reference to *out.
 */
int vn_exec_submit(struct vn_core *c, struct vn_program *p, const struct vn_bind *binds,
		   u32 count, u64 limit_ns, vn_exec_done_fn done, void *arg,
		   struct vn_exec **out);
/*
 * The same for one SPMD instance of a launch on a logical core of VN_LNC_MAX cores
 * (every instance, program id 0 too): pid (< VN_LNC_MAX) is the program id its
 * PROGRAM_ID instructions and DMA pid_stride see; vn_exec_submit() gives 0. The status
 * carries both (lnc, pid), so the trace's EXEC_START record can say so.
 */
int vn_exec_submit_pid(struct vn_core *c, struct vn_program *p, const struct vn_bind *binds,
		       u32 count, u64 limit_ns, u32 pid, vn_exec_done_fn done, void *arg,
		       struct vn_exec **out);
/* Wait until DONE or the absolute deadline (0 = none). 0, -ETIMEDOUT or -EINTR. */
int vn_exec_wait(struct vn_exec *ex, u64 deadline_ns);
void vn_exec_status(struct vn_exec *ex, struct vn_exec_status *st);
/*
 * End one execution (ABORTED, reason CANCEL) whether queued or running, e.g. when the
 * file that submitted it is released; returns at once, wait for DONE if needed. Not
 * concurrently with vn_core_destroy() of its core.
 */
void vn_exec_cancel(struct vn_exec *ex);
void vn_exec_get(struct vn_exec *ex);
void vn_exec_put(struct vn_exec *ex);

/* Inspect on-chip memory (tests, debug): a partition's bytes. */
u8 *vn_core_sbuf(struct vn_core *c, u32 partition);
u8 *vn_core_psum(struct vn_core *c, u32 partition);

#endif /* VN_EXEC_H */
