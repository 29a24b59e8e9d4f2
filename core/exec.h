/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The executor: one struct vn_core per NeuronCore, running validated programs
 * (core/program.h) on its engine workers and DMA worker, one execution at a time, in
 * submission order. docs/isa.md gives the semantics and the modeled clock.
 *
 * Lock order: the core's lock is the only lock; completion callbacks run without it.
 */
#ifndef VN_EXEC_H
#define VN_EXEC_H

#include "vn_platform.h"
#include "vneuron.h"
#include "program.h"
#include "stats.h"

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
};

enum vn_exec_reason {
	VN_REASON_NONE = 0,
	VN_REASON_DEADLOCK = 1,		/* every stream blocked on a semaphore */
	VN_REASON_TIME_LIMIT = 2,
	VN_REASON_RESET = 3,
	VN_REASON_STOP = 4,
	VN_REASON_NOMEM = 5,		/* scratch memory */
	VN_REASON_CANCEL = 6,		/* vn_exec_cancel(): its owner went away */
};

struct vn_exec_status {
	u32 state;		/* enum vn_exec_state */
	u32 result;		/* enum vn_exec_result, once DONE */
	u32 reason;		/* enum vn_exec_reason */
	u32 stream;		/* engine 0..3 or VNEF_STREAM_DMA(q) where it failed, else ~0 */
	u32 pc;			/* entry index in that stream */
	u32 pad;
	u64 seq;		/* execution sequence number on this core, from 1 */
	u64 model_ps;		/* modeled duration: the latest stream end */
	u64 host_ns;		/* host time from start to end */
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
	u32 stream;		/* engine 0..3 or VNEF_STREAM_DMA(q) */
	u32 opcode;		/* enum vnef_opcode or VN_EVT_OPCODE_DMA */
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
 * execution records. Must not sleep or call the core's API.
 */
typedef void (*vn_exec_edge_hook)(void *arg, const struct vn_exec_status *st, bool end);
typedef void (*vn_exec_done_fn)(struct vn_exec *ex, void *arg);

struct vn_counters {
	u64 exec_ok;
	u64 exec_failed;
	u64 exec_timeout;
	u64 exec_aborted;
	u64 busy_ps[VNEF_STREAMS];	/* modeled busy time per stream */
	u64 model_ps;			/* modeled time of all executions */
	u64 flops;			/* TensorE, transposes included */
	u64 transpose_flops;
	u64 dma_bytes;
	u64 hbm_read;
	u64 hbm_write;
	u64 instructions;
	u64 descriptors;
};

/* A core with its SBUF, PSUM and workers. m may be NULL for vn_model_trn1 (core/model.h). */
int vn_core_create(const struct vneuron_model *m, const char *name, struct vn_core **out);
/* Stops the workers; a running execution ends ABORTED, queued ones too. */
void vn_core_destroy(struct vn_core *c);
/* Ends the running and queued executions (ABORTED, reason RESET) and clears the state. */
void vn_core_reset(struct vn_core *c);
void vn_core_counters(struct vn_core *c, struct vn_counters *out);
/* Hook for every event; taken at each execution's start. NULL to remove. */
void vn_core_set_hook(struct vn_core *c, vn_event_hook hook, void *arg);
/* The execution start/end hook (see vn_exec_edge_hook); NULL to remove. */
void vn_core_set_edge_hook(struct vn_core *c, vn_exec_edge_hook hook, void *arg);
/*
 * Run fn(arg) under the core's lock once no execution is running, holding queued ones
 * back meanwhile (e.g. to stop trace rings). Waits for the running execution to end.
 */
void vn_core_quiesce(struct vn_core *c, void (*fn)(void *arg), void *arg);
/* Also count into these sysfs counters (core/stats.h); NULL to stop. */
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
