/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The executor's structs, shared by its files (core/vn_sched.h), engine.c and dma.c. */
#ifndef VN_INTERNAL_H
#define VN_INTERNAL_H

#include "vn_os.h"
#include "vn_exec.h"
#include "vn_engine_fp.h"

#define VN_RUNNER	0	/* the four engines' and the 16 DMA queues' streams */
#define VN_CC_WORKER	1	/* the CC-core's: a collective waits for other ranks */
#define VN_WORKERS	2

enum vn_stream_state {
	VN_SS_DONE = 0,		/* finished, empty or aborted */
	VN_SS_READY = 1,	/* not yet started by its worker */
	VN_SS_RUN = 2,
	VN_SS_BLOCKED = 3,	/* waiting for wait_sem >= wait_val */
};

struct vn_stream_run {
	u32 state;
	u32 pc;
	u32 wait_sem;
	u32 wait_val;
	u64 t_ps;		/* modeled time: end of its last entry */
	u64 busy_ps;
	u64 flops;
	u64 transpose_flops;
	u64 bytes;		/* DMA */
	u64 hbm_read;
	u64 hbm_write;
	u64 entries;
};

/*
 * Spare executions of a core (their lock and condition ready), reused by its next
 * submissions: no allocation per execution in the steady state. Refcounted: an execution
 * may outlive its core, and returns to the pool (or frees itself) at its last put.
 */
struct vn_exec_pool {
	int refs;		/* the core's, and one per execution made from the pool */
	struct vn_lock *lock;	/* everything below */
	struct vn_exec *spare;	/* through ->next */
	u32 nspare;
	bool closed;		/* the core is gone: keep nothing more */
};

struct vn_exec {
	int refs;
	struct vn_exec_pool *pool;	/* made from a core's pool (a reference), or NULL */
	struct vn_lock *lock;	/* guards state/status for waiters */
	struct vn_cond *cond;
	struct vn_core *core;	/* only while queued or running */
	struct vn_program *prog;
	struct vn_exec *next;	/* the core's queue */
	struct vn_bind *binds;	/* per tensor, resolved (CONST and own scratch filled in) */
	void *scratch;		/* scratch the core provided */
	u64 *sem_times;		/* sem_incs[s] slots per semaphore */
	u64 *sem_base[VNEF_MAX_SEMS];
	u64 limit_ns;
	u64 owner;
	vn_exec_done_fn done;
	void *done_arg;
	struct vn_comm *comm;	/* its communicator (a reference), or NULL */
	u32 rank;
	u32 pid;		/* program id: the SPMD instance on its logical core */
	struct vn_exec_status st;
};

struct vn_worker_arg {
	struct vn_core *c;
	u32 id;
};

struct vn_core {
	struct vneuron_model m;
	char name[16];
	u8 *sbuf;
	u8 *psum;
	struct vn_lock *lock;	/* everything below */
	struct vn_cond *cond;	/* for callers: an execution ended, cur changed */
	struct vn_cond *wcond[VN_WORKERS];	/* one per worker: woken only for its work */
	struct vn_thread *thr[VN_WORKERS];
	bool stop;
	bool fault_abort;	/* host: vn_bug() on a fault (vn_core_set_fault_abort()) */
	bool clean;		/* SBUF, PSUM and semaphores all zero */
	u64 owner;		/* given to executions at submission */
	struct vn_comm *comm;	/* given to executions at submission (a reference) */
	u32 comm_rank;
	u64 last_owner;		/* of the last execution started */
	u32 paused;		/* reset or quiesce in progress: start nothing */
	struct vn_exec *cur;
	struct vn_exec *q_head, *q_tail;
	u64 seq;
	u64 deadline_ns;
	u64 start_ns;
	int abort;		/* read without the lock between steps */
	int cc_busy;		/* the CC-core waits at a collective (wait_deadline()) */
	u32 streams_live;
	struct vn_stream_run ss[VNEF_STREAMS];
	u32 sem_val[VNEF_MAX_SEMS];
	/* the observer in force, and the one the running execution took (ex_*) */
	vn_event_hook hook, ex_hook;
	vn_exec_edge_hook edge, ex_edge;
	void *hook_arg, *ex_arg;
	void (*ex_gone)(void *arg);	/* vn_core_unhook() waits for the end: then this */
	vn_exec_monitor_fn monitor;	/* every execution's start and end */
	void *monitor_arg;
	struct vn_fp_ctx fp[VNEF_ENGINES];
	struct vn_counters cnt;
	struct vn_core_stats *stats;
	u32 run_next;		/* the runner's round robin: the stream it looks at first */
	u64 run_yield_ns;	/* the runner's last scheduling point */
	struct vn_worker_arg args[VN_WORKERS];
	struct vn_exec_pool *pool;
};

/* core/engine.c */
int vn_engine_ctx_init(struct vn_fp_ctx *x, u8 *sbuf, u8 *psum);
void vn_engine_ctx_free(struct vn_fp_ctx *x);
void vn_engine_ctx_scrub(struct vn_fp_ctx *x);
/*
 * The executor's own check of an instruction against the memory and buffers its
 * numerics will touch, independent of the validator: true if it may run, else false
 * with f (but time_ps) filled in.
 */
bool vn_engine_check(const struct vn_core *c, u32 engine, const struct vnef_instr *in,
		     struct vn_fault *f);
int vn_engine_run(struct vn_core *c, u32 engine, const struct vnef_instr *in);
/* Modeled cost in ps, with the event's element, byte and flop counts filled in. */
u64 vn_engine_cost(const struct vn_core *c, u32 engine, const struct vnef_instr *in,
		   struct vn_event *ev);

/*
 * core/dma.c. Checks every chunk against the memory it targets before copying it:
 * -EFAULT with f (but time_ps) filled in if one is outside; -EINTR, -ETIMEDOUT if the
 * execution is stopping or over its time limit.
 */
int vn_dma_run(struct vn_core *c, struct vn_exec *ex, const struct vnef_dma_desc *d,
	       struct vn_fault *f);
u64 vn_dma_cost(const struct vn_core *c, const struct vn_exec *ex,
		const struct vnef_dma_desc *d, struct vn_event *ev);

#endif /* VN_INTERNAL_H */
