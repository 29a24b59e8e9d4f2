/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The program runner of libvnprog (run.c, docs/libvnprog.md "The runner"): running a
 * .vnef program with named inputs, once or many times, on a core of /dev/vneuronN or on
 * the host backend, on one core or SPMD on several ranks over a communicator. What
 * vneuron-run, the examples, `vneuron-profile capture` and the Python package share.
 *
 *	struct nd_runner *r;
 *	struct nd_error err;
 *
 *	if (nd_runner_open_host(NULL, &r, &err))	   // or nd_runner_open_device(0, 0, ...)
 *		errx(1, "%s", err.msg);
 *	if (nd_runner_load_file(r, "exp.vnef", NULL) ||
 *	    nd_runner_bind_file(r, 0, "in", "in.npy", 0) ||
 *	    nd_runner_bind(r, 0, "out", out, sizeof(out)) ||
 *	    nd_runner_run(r, 1, 0, NULL))
 *		errx(1, "%s", nd_runner_error(r));
 *	nd_runner_close(r);
 *
 * Errors as the rest of libvnprog: 0 (or a count) or a negative errno, with a message
 * naming the problem in the handle (nd_runner_error()) or, for the open calls, in a
 * struct nd_error. No global state.
 *
 * Threads: every call on a handle takes the handle's lock, so threads may share one (a
 * run holds it until it returns: Python may call nd_runner_run() with the GIL released);
 * nd_runner_cancel() takes no lock and is async-signal-safe. nd_runner_close() must not
 * race with another call on the handle. Ranks run each in a thread of the runner's.
 *
 * Ranks are numbered 0..n-1 in the runner (one rank unless nd_runner_set_ranks());
 * calls taking a rank also take ND_RUNNER_ALL: every rank.
 */
#ifndef VNRUN_H
#define VNRUN_H

#include <stddef.h>
#include <stdint.h>

#include "vnprog.h"

#if defined(__cplusplus)
extern "C" {
#endif

struct nd_runner;

#define ND_RUNNER_MAX_RANKS	64		/* VNEF_CC_MAX_RANKS */
#define ND_RUNNER_ALL		(~0u)		/* a rank argument: every rank */

/* ---------------------------------------------------------------------------------- */
/* Opening                                                                            */

/**
 * nd_runner_open_device() - a runner on a core of /dev/vneuron<device>
 * @device: N of /dev/vneuronN
 * @core: the core rank 0 runs on
 * @rp: the runner, for nd_runner_close()
 * @err: the message on failure (may be NULL)
 *
 * The runner opens the device file itself (its own file: it owns the cores it runs on,
 * as the module gives a core to one file). -ENOENT with libneurondev's message ("is
 * vneuron.ko loaded?"), -ERANGE for a core the device does not have ("core 5:
 * /dev/vneuron0 has 2 cores"), -ENOMEM.
 *
 * Return: 0 or a negative errno.
 */
int nd_runner_open_device(unsigned int device, unsigned int core, struct nd_runner **rp,
			  struct nd_error *err);

/**
 * nd_runner_open_dev() - a runner on a core of a device handle the caller keeps open
 * @dev: the caller's handle (not closed by the runner; close it after the runner)
 * @core: the core rank 0 runs on
 * @rp: the runner
 * @err: the message on failure (may be NULL)
 *
 * Several runners on one handle share its cores (a core belongs to one device file), so
 * one open device can run many programs. Ranks on other devices get files of their own.
 * A cancel (nd_runner_cancel()) ends every execution this process has on @dev's file,
 * other runners' too: the module cancels by file (docs/uapi.md, "Faults and lifetimes").
 *
 * Return: 0, -ERANGE (the core), -EINVAL, -ENOMEM.
 */
int nd_runner_open_dev(struct nd_device *dev, unsigned int core, struct nd_runner **rp,
		       struct nd_error *err);

/**
 * nd_runner_open_host() - a runner on the host backend
 * @m: the device model of its cores; NULL for the default (trn1)
 * @rp: the runner
 * @err: the message on failure (may be NULL)
 *
 * Each rank is a host core (struct nd_host) in this process: no module needed.
 *
 * Return: 0, -ENOMEM.
 */
int nd_runner_open_host(const struct vneuron_model *m, struct nd_runner **rp,
			struct nd_error *err);

/**
 * nd_runner_close() - free a runner
 * @r: the runner (NULL is fine)
 *
 * Unloads its program, frees its buffers, leaves its communicators and closes the
 * device files and host cores it opened. Not while another thread uses @r.
 */
void nd_runner_close(struct nd_runner *r);

/**
 * nd_runner_error() - the message of the last failed call on @r ("" if none)
 * @r: the runner
 *
 * Return: a string valid until the next call on @r; threads sharing @r use
 * nd_runner_error_copy().
 */
const char *nd_runner_error(const struct nd_runner *r);

/**
 * nd_runner_error_copy() - the message of the last failed call, copied
 * @r: the runner
 * @buf: where to
 * @len: its size (the message is cut to fit, NUL-terminated)
 */
void nd_runner_error_copy(struct nd_runner *r, char *buf, size_t len);

/**
 * nd_runner_where() - where rank 0 runs, in words
 * @r: the runner
 *
 * Return: "/dev/vneuron0 core 1" or "the host backend".
 */
const char *nd_runner_where(const struct nd_runner *r);

/* 1 for a runner on the host backend, 0 on a device. */
int nd_runner_is_host(const struct nd_runner *r);

/**
 * nd_runner_set_lnc() - run on a logical core of @lnc physical cores
 * @r: a runner, before its program is loaded and without ranks
 * @lnc: 1, or 2 (LNC=2: two SPMD instances, program ids 0 and 1)
 *
 * On the host backend, nd_host_set_lnc() of its host core. On a device, nd_set_lnc() of
 * the runner's device handle (a borrowed one's too: nd_runner_open_dev()); rank 0's
 * core must be even with the next one on the device, and the runner's executions are
 * EXEC's VNEURON_EXEC_LNC2 launches there. A runner opened over a handle already set to
 * LNC=2 runs on logical cores without this call.
 *
 * Return: 0; -EINVAL (said: another count, an odd core or the device's last, a host
 * model without logical cores), -EOPNOTSUPP (said: a device without logical cores,
 * "model trn1 has no logical cores"), -EBUSY (a program is loaded or ranks are set).
 */
int nd_runner_set_lnc(struct nd_runner *r, unsigned int lnc);

/**
 * nd_runner_set_limit() - the host-time limit of each execution from now on
 * @r: the runner
 * @limit_ns: nanoseconds; 0 for the default (30 s, the module's)
 */
void nd_runner_set_limit(struct nd_runner *r, uint64_t limit_ns);

/* ---------------------------------------------------------------------------------- */
/* Ranks: the same program SPMD on several cores, devices or host cores                */

/*
 * Placement: rank r runs on the (core + r)-th core counting from core `core` of
 * /dev/vneuron<device> (the open call's), each device's cores in turn, then the next
 * device's: cores_per_device to a device, or each device's own core count when 0. On the
 * host backend the same numbering (cores_per_device 0: 2, the module's default) gives
 * each rank a modeled device, which picks the link of the communicator's cost model.
 * device[] and core[] place each rank explicitly instead (both or neither; on the host
 * only device[] matters).
 */
struct nd_runner_ranks {
	unsigned int count;			/* 1..ND_RUNNER_MAX_RANKS */
	unsigned int cores_per_device;		/* 0: each device's (host: 2) */
	const uint32_t *device;			/* explicit: N of /dev/vneuronN, or NULL */
	const uint32_t *core;
	unsigned int flags;			/* ND_RANKS_* */
	/*
	 * With ND_RANKS_NO_COMM: rank r is rank first + r of the communicator the caller
	 * gives later, for {rank} in the files bound before it (give it the same first);
	 * else 0.
	 */
	unsigned int first;
};

/*
 * Make no communicator: the caller gives one (nd_runner_set_host_comm(),
 * nd_runner_set_comm_id()), e.g. spanning nodes over MPI (libvnmpi).
 */
#define ND_RANKS_NO_COMM	1u
/*
 * Keep a broken communicator: by default the runner makes a new one before the next run
 * when a rank failed or was cancelled (only one it made itself), so the handle stays
 * usable; with this flag every later collective fails as it would.
 */
#define ND_RANKS_KEEP_BROKEN	2u

/**
 * nd_runner_set_ranks() - run on several ranks from now on
 * @r: the runner, with no program loaded yet (-EBUSY otherwise)
 * @rk: how many and where
 *
 * Opens the other devices' files (device: one per device, shared by its ranks) or host
 * cores, and, for more than one rank and unless %ND_RANKS_NO_COMM, a communicator of
 * them all: the module's (COMM_CREATE on rank 0's device, every rank joined, then
 * unregistered) or a host one. -EINVAL (count, flags), -ENODEV ("4 ranks need 2 more
 * cores than /dev/vneuron0..0 have (load the module with more devices or cores)"),
 * -ERANGE (an explicit core the device lacks), -EOPNOTSUPP (a module without
 * collectives), the device's errors.
 *
 * Return: 0 or a negative errno.
 */
int nd_runner_set_ranks(struct nd_runner *r, const struct nd_runner_ranks *rk);

/* The runner's ranks (1 unless set). */
unsigned int nd_runner_ranks(const struct nd_runner *r);

/**
 * nd_runner_set_host_comm() - host backend: the ranks are ranks of @c
 * @r: a host runner whose ranks were set with %ND_RANKS_NO_COMM
 * @c: the communicator (the caller keeps its reference; each rank takes its own)
 * @first: the runner's rank r is rank @first + r of @c
 *
 * Return: 0, -EINVAL (not a host runner, ranks past @c's size).
 */
int nd_runner_set_host_comm(struct nd_runner *r, struct nd_host_comm *c, unsigned int first);

/**
 * nd_runner_set_comm_id() - device: the ranks join the communicator @id
 * @r: a device runner whose ranks were set with %ND_RANKS_NO_COMM
 * @id: a communicator registered by its creator (e.g. libvnmpi's nd_mpi_comm_new_dev()
 *	on nd_runner_device(r, 0))
 * @first: the runner's rank r joins as rank @first + r
 *
 * Return: 0, or nd_comm_join()'s errors with the device's message.
 */
int nd_runner_set_comm_id(struct nd_runner *r, const nd_comm_id *id, unsigned int first);

/* Where a rank runs (nd_runner_place()). */
struct nd_runner_place {
	unsigned int device;		/* N of /dev/vneuronN; host: its modeled device */
	unsigned int core;		/* its core on that device */
	unsigned int rank;		/* its rank in the communicator (first + r), else r */
};

/* Where rank @rank runs. 0 or -EINVAL (no such rank). */
int nd_runner_place(struct nd_runner *r, unsigned int rank, struct nd_runner_place *pl);

/*
 * A rank's host core (host backend), for a tracer to attach nd_host_trace_start() before
 * the runs, or its device file (device; the tracer traces the core with a file of its
 * own); NULL for no such rank or the other backend. Valid until nd_runner_close().
 */
struct nd_host *nd_runner_host(struct nd_runner *r, unsigned int rank);
struct nd_device *nd_runner_device(struct nd_runner *r, unsigned int rank);

/* ---------------------------------------------------------------------------------- */
/* The program                                                                         */

/**
 * nd_runner_load_file() - load a .vnef file (replacing the program loaded, if any)
 * @r: the runner
 * @path: the file ("-": standard input)
 * @le: which check refused it (may be NULL); le->check is 0 when it was not refused
 *
 * The image is validated by the device core's validator (the module's, on every
 * device the ranks use, too). Refused: -EINVAL, "exp.vnef: refused by the validator:
 * header check: ... (section -1, entry -1)". Bindings of the previous program go.
 *
 * Return: 0, -EINVAL, a file's -errno (-ENOENT, ...), -ENOMEM.
 */
int nd_runner_load_file(struct nd_runner *r, const char *path, struct nd_load_error *le);

/**
 * nd_runner_load_image() - load an image from memory (copied)
 * @r: the runner
 * @image: the .vnef bytes
 * @size: their size
 * @name: the program's name in messages (NULL: the name in its header)
 * @le: as for nd_runner_load_file()
 *
 * Return: as nd_runner_load_file().
 */
int nd_runner_load_image(struct nd_runner *r, const void *image, size_t size,
			 const char *name, struct nd_load_error *le);

/* Unload the program and its bindings (nothing loaded is fine). */
void nd_runner_unload(struct nd_runner *r);

/*
 * The loaded image (the runner's copy) and its size; NULL if none. Valid until the
 * program is unloaded or replaced.
 */
const void *nd_runner_image(struct nd_runner *r, size_t *sizep);

/* One tensor of the program (nd_runner_tensor(), nd_runner_find()). */
struct nd_runner_tensor {
	const char *name;		/* valid while the program is loaded */
	uint32_t index;			/* in the program's tensor table */
	uint32_t kind;			/* VNEF_TENSOR_INPUT, _OUTPUT, _SCRATCH, _CONST */
	uint32_t dtype;			/* VNEF_DT_FP32, VNEF_DT_BF16 */
	uint32_t rank;			/* 1..VNEF_MAX_RANK */
	uint64_t shape[VNEF_MAX_RANK];
	uint64_t elements;		/* the product of the shape */
	uint64_t bytes;
};

/* The program's tensors: their count, or -ENOENT when no program is loaded. */
int nd_runner_tensor_count(struct nd_runner *r);
/* Tensor i (0..count-1). 0, -ENOENT (no program), -EINVAL (i). */
int nd_runner_tensor(struct nd_runner *r, unsigned int i, struct nd_runner_tensor *t);
/*
 * The tensor called name (t may be NULL): its index, or -ENOENT with the message
 * "exp.vnef has no tensor 'y'; its inputs: a b; its outputs: c".
 */
int nd_runner_find(struct nd_runner *r, const char *name, struct nd_runner_tensor *t);

/* ---------------------------------------------------------------------------------- */
/* Bindings: what each tensor of each rank is                                          */

/*
 * Every input must be bound before a run (-ENOENT, "input 'x' is not bound; bind it or
 * give zeros"). Outputs and scratch tensors not bound use the runner's own buffers
 * (nd_runner_data()); constants come from the image and cannot be bound. Binding a
 * tensor again replaces its binding, except a file binding: binding a tensor bound to a
 * file is -EEXIST ("input 'x' is bound twice (a.npy, then b.npy)") until
 * nd_runner_unbind().
 */

/* nd_runner_bind_file() flags. */
#define ND_BIND_FORCE		1u	/* an output file may replace an existing file */
#define ND_BIND_ANY_SHAPE	2u	/* an input file of another shape, the same element count */
#define ND_BIND_RAW		4u	/* an input file without the .npy magic: raw bytes, exactly
					 * the tensor's size */
#define ND_BIND_INPUT		8u	/* the tensor must be an input: else -ENOENT, "exp.vnef
					 * has no input 'y'; its inputs: a b" */
#define ND_BIND_LITERAL		16u	/* the path as it is: "{rank}" not replaced (one
					 * rank's file; a tool's single-core form) */

/**
 * nd_runner_bind() - bind a tensor to the caller's buffer
 * @r: the runner
 * @rank: the rank, or %ND_RUNNER_ALL (inputs only: every rank reads the same buffer)
 * @name: the tensor (an input, output or scratch tensor of the program)
 * @data: the buffer, in the tensor's dtype and C order (bf16: bit patterns as uint16);
 *	it must stay valid until it is unbound, rebound or the program unloaded
 * @size: its size in bytes, at least the tensor's
 *
 * Host backend: no copy, the core reads inputs from and writes outputs into @data.
 * Device: an input is copied into device memory at each nd_runner_run() (the one copy),
 * an output copied out of it after each run, a scratch tensor both ways.
 * -ENOENT (no such tensor, named with the program's inputs), -EINVAL (a constant, no
 * data), -ENOSPC ("tensor 'x' needs 4096 bytes; the buffer has 100").
 *
 * Return: 0 or a negative errno.
 */
int nd_runner_bind(struct nd_runner *r, unsigned int rank, const char *name, void *data,
		   uint64_t size);

/**
 * nd_runner_bind_file() - bind a tensor to a .npy file
 * @r: the runner
 * @rank: the rank, or %ND_RUNNER_ALL; in a path for every rank, "{rank}" is replaced by
 *	each rank's number in its communicator (nd_runner_place()'s rank)
 * @name: an input or output tensor
 * @path: the file
 * @flags: %ND_BIND_*
 *
 * An input is read now: a .npy of little-endian float32 in C order (bf16 tensors get
 * the values rounded to nearest even) with the tensor's shape (any shape of its element
 * count with %ND_BIND_ANY_SHAPE), or raw bytes with %ND_BIND_RAW. -EINVAL naming the
 * tensor, the file and both shapes ("in.npy: 250 elements, input 'in' has 128000 (the
 * file [250], the tensor fp32 [250, 512])"), or the .npy reader's message.
 * An output is written after each nd_runner_run() whose executions all ended OK, as
 * float32 (bf16 widened) in the tensor's shape, through nd_out_open(): whole or not at
 * all, never over the program or an input file, over an existing file only with
 * %ND_BIND_FORCE; the path is checked now (-EEXIST, -EINVAL, said) and again when
 * written. Its directory must exist.
 *
 * Return: 0 or a negative errno.
 */
int nd_runner_bind_file(struct nd_runner *r, unsigned int rank, const char *name,
			const char *path, unsigned int flags);

/**
 * nd_runner_bind_zeros() - bind an input to zeros
 * @r: the runner
 * @rank: the rank, or %ND_RUNNER_ALL
 * @name: the input, or NULL for every input of the rank not bound yet
 *
 * Return: 0, -ENOENT, -EINVAL (not an input), -ENOMEM.
 */
int nd_runner_bind_zeros(struct nd_runner *r, unsigned int rank, const char *name);

/**
 * nd_runner_data() - the runner's own buffer of a tensor, to fill or read in place
 * @r: the runner
 * @rank: the rank
 * @name: an input, output or scratch tensor
 * @datap: the buffer: on a device, the device memory itself, mapped (no copy at all);
 *	on the host, memory the core reads and writes directly
 * @sizep: its size (may be NULL): the tensor's
 *
 * The tensor is bound to that buffer from now on (a caller's buffer or a file it was
 * bound to is unbound; its previous contents are kept when it was already the runner's).
 * Valid until the tensor is bound again or the program unloaded.
 *
 * Return: 0, -ENOENT, -EINVAL (a constant), -ENOMEM, the device's errors.
 */
int nd_runner_data(struct nd_runner *r, unsigned int rank, const char *name, void **datap,
		   uint64_t *sizep);

/**
 * nd_runner_input() - the bytes an input of a rank is bound to, to read
 * @r: the runner
 * @rank: the rank (not %ND_RUNNER_ALL)
 * @name: the input
 * @datap: its bytes in the tensor's dtype: the caller's buffer, or the runner's copy of
 *	a file or its zeros; valid until the input is bound again or the program unloaded
 * @sizep: their size (may be NULL): the tensor's
 *
 * A tool reads its input files with one runner before it opens a device, then binds
 * another runner's inputs to these bytes (`vneuron-profile capture`).
 *
 * Return: 0, -ENOENT (no such input, or not bound to bytes), -EINVAL (the rank).
 */
int nd_runner_input(struct nd_runner *r, unsigned int rank, const char *name,
		    const void **datap, uint64_t *sizep);

/* Forget a tensor's binding (an input then has none). 0 or -ENOENT. */
int nd_runner_unbind(struct nd_runner *r, unsigned int rank, const char *name);

/* ---------------------------------------------------------------------------------- */
/* Running                                                                             */

/* One execution of one rank. */
struct nd_runner_exec {
	int done;			/* 1 if it ran (the runs may stop before it) */
	int err;			/* 0 if it ended OK; -EIO (error or fault), -ETIMEDOUT,
					 * -ECANCELED (aborted), -EINTR (nd_runner_cancel()) */
	struct nd_run_result res;	/* status, reason, where, modeled ps, the core's host ns */
	uint64_t wall_ns;		/* host time from its submission to its end */
};

/* nd_runner_run() flags. */
#define ND_RUN_KEEP_GOING	1u	/* a failed execution does not stop the runs */

/**
 * nd_runner_run() - run the program n times on every rank
 * @r: the runner, its program loaded and every input bound
 * @n: executions per rank (1..)
 * @flags: %ND_RUN_*
 * @x: per execution, n x ranks entries, x[i * ranks + rank] (may be NULL)
 *
 * Each execution runs on every rank at once (a thread per rank when there are several:
 * their collectives meet), the next when all ended. Inputs bound to caller buffers are
 * copied in once before the first (device), outputs copied out and output files written
 * after the last, if every execution ended OK. A failed execution stops the runs unless
 * %ND_RUN_KEEP_GOING; the message names it: "execution 2: execution device fault: an
 * access outside SBUF ... at DMA3 entry 2" (with "rank 1: " before it for ranks; the
 * module's words for a collective: nd_comm_describe()).
 * nd_runner_cancel() ends it early: -EINTR, "interrupted (nd_runner_cancel())", the
 * execution in progress ended (on the module: cancelled and reaped; on the host: the
 * core stopped at its next bounded step), the handle ready for the next run.
 *
 * Return: 0 when every execution ended OK; else the first failure's errno (-EINTR when
 * cancelled); -ENOENT (no program, an input not bound), -EINVAL, -ENOMEM, an output
 * file's error (the outputs of the run are then in the bound buffers only), the device's
 * errors.
 */
int nd_runner_run(struct nd_runner *r, unsigned int n, unsigned int flags,
		  struct nd_runner_exec *x);

/*
 * Called by nd_runner_run() after each execution that every rank ran (OK or not):
 * exec counts from 1 within the run, x holds each rank's entry (x[rank], ranks
 * entries). Runs on the calling thread with the handle's lock held: it must not call
 * the runner but nd_runner_describe() (for this runner). Return 0 to go on, nonzero to stop the runs there (nd_runner_run() then
 * returns as if they had all been asked: 0 if every execution ended OK).
 */
typedef int (*nd_runner_each_fn)(void *arg, unsigned int exec, const struct nd_runner_exec *x,
				 unsigned int ranks);

/**
 * nd_runner_set_each() - a function called between executions from now on
 * @r: the runner
 * @fn: the function (NULL: none)
 * @arg: its first argument
 *
 * What a tracer needs between executions: start or stop its tracing before the next
 * one, show progress, report each failure as it happens, stop on a signal
 * (`vneuron-profile capture`).
 */
void nd_runner_set_each(struct nd_runner *r, nd_runner_each_fn fn, void *arg);

/* See nd_runner_set_wait(). */
typedef void (*nd_runner_wait_fn)(void *arg);

/**
 * nd_runner_set_wait() - a function called as each execution is waited for, from now on
 * @r: the runner
 * @fn: the function (NULL: none)
 * @arg: its argument
 *
 * With one rank, @fn is called once per execution on the thread of nd_runner_run(),
 * after the execution was submitted and before its wait: work the caller has to do for
 * every execution (Python puts its Ctrl-C handler in place) then overlaps with the
 * core's. Not called for an execution that could not be submitted, nor with several
 * ranks (they wait on threads of their own). @fn must not call the runner but
 * nd_runner_cancel(), which ends the runs there.
 */
void nd_runner_set_wait(struct nd_runner *r, nd_runner_wait_fn fn, void *arg);

/* The last execution of a rank (zeros before any). 0 or -EINVAL. */
int nd_runner_result(struct nd_runner *r, unsigned int rank, struct nd_runner_exec *x);

/**
 * nd_runner_describe() - how an execution of a rank ended, in words
 * @r: the runner
 * @rank: the rank it ran on
 * @x: its entry from nd_runner_run()
 * @buf: where to
 * @len: its size
 *
 * "ok", "interrupted (nd_runner_cancel())", nd_run_describe()'s words, or on a device
 * with a communicator nd_comm_describe()'s ("collective 0 (ALL_REDUCE) on the CC-core:
 * ranks 2, 3 never arrived (timeout)").
 *
 * Return: @buf.
 */
const char *nd_runner_describe(struct nd_runner *r, unsigned int rank,
			       const struct nd_runner_exec *x, char *buf, size_t len);

/**
 * nd_runner_cancel() - end the run in progress early
 * @r: the runner
 *
 * Sets a flag and returns: async-signal-safe, callable from any thread or a signal
 * handler (Ctrl-C). The run in progress, or the next one if none is, returns -EINTR
 * promptly: the runner looks at the flag at least every few milliseconds while it
 * waits. The run consumes the flag.
 */
void nd_runner_cancel(struct nd_runner *r);

#if defined(__cplusplus)
}
#endif

#endif /* VNRUN_H */
