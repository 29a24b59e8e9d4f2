/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libneurondev: the userspace driver library of vneuron. Device access through
 * /dev/vneuronN (uapi/vneuron.h): memory, programs and executions by ioctl and io_uring,
 * communicators for collectives, trace sessions and the consumer of their rings
 * (uapi/vneuron_trace.h), how executions end in words, and the API log of
 * `vneuron-profile capture -- app`. The program
 * toolchain (builder, assembler, host backend) is libvnprog, libvnprog/vnprog.h.
 *
 * Link libneurondev.a and libvncore.a: the ISA's names (core/vn_isa.h) and the program
 * reader (vn_program_load()) are the device core's.
 *
 * Errors: every call that can fail returns 0 (or a non-negative value) on success and a
 * negative errno on failure, and records a message naming the problem in the handle it
 * was given (nd_device_error()) or in the struct nd_error passed to calls that have no
 * handle yet. nd_strerror() names an errno value alone.
 *
 * The library has no global state: everything lives in handles.
 *
 * Threads: a device handle may be used by several threads at once (the kernel orders the
 * calls); its last-error message is kept per handle, so threads sharing a handle should
 * read it with nd_device_error_copy(). A memory object belongs to its device and may be
 * used from any thread except while it is being freed; nd_close() must not race with any
 * other call on the handle. A trace ring consumer belongs to one thread at a time.
 */
#ifndef NEURONDEV_H
#define NEURONDEV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vneuron.h"
#include "vneuron_genl.h"
#include "vneuron_program.h"
#include "vneuron_trace.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define ND_ERRMSG_MAX 256

/* An error for calls that have no handle to record it in (nd_open() and friends). */
struct nd_error {
	int code;			/* negative errno, 0 if none */
	char msg[ND_ERRMSG_MAX];
};

/* A static description of a (negative or positive) errno value. Never NULL. */
const char *nd_strerror(int err);

/* This library's version ("0.1.0"; the module's and the packages' too). */
const char *nd_version(void);

/*
 * The text of a tool's --version, one "NAME VERSION" line each: @tool (may be NULL),
 * libneurondev with the uapi version it was built for, each pair of @libs (name, version,
 * ..., NULL; may be NULL; e.g. {"libvnprog", vnp_version(), NULL}) and the module: its
 * version (sysfs) and uapi version (GET_INFO on a read-only /dev/vneuron0), or why they
 * cannot be read. Returns the length of the whole text, as snprintf() does (a result >=
 * size means it was cut), or -EINVAL.
 */
int nd_version_string(char *buf, size_t size, const char *tool, const char *const *libs);

/* ---------------------------------------------------------------------------------- */
/* Device access: /dev/vneuronN through uapi/vneuron.h                                 */

struct nd_device;
struct nd_mem;

/*
 * Open /dev/vneuron<index> (nd_open) or a device node by path (nd_open_path) and check
 * that it is a vneuron device (GET_INFO). err may be NULL. A missing node gives -ENOENT
 * and "/dev/vneuron0: no such device; is vneuron.ko loaded?".
 */
int nd_open(unsigned int index, struct nd_device **devp, struct nd_error *err);
int nd_open_path(const char *path, struct nd_device **devp, struct nd_error *err);
/* Frees every memory object still allocated through dev, then closes it. NULL is fine. */
void nd_close(struct nd_device *dev);

int nd_device_fd(const struct nd_device *dev);
/* The message of the last failed call on dev ("" if none). See the thread note above. */
const char *nd_device_error(struct nd_device *dev);
void nd_device_error_copy(struct nd_device *dev, char *buf, size_t size);

/* GET_INFO, fresh from the device (hbm_used changes). */
int nd_info(struct nd_device *dev, struct vneuron_info *info);
/* Stop a core's work, fail what is queued and clear its state. */
int nd_reset(struct nd_device *dev, unsigned int core);

/* Device memory: zeroed by the device, freed by nd_mem_free() or nd_close(). */
int nd_mem_alloc(struct nd_device *dev, uint64_t size, struct nd_mem **memp);
int nd_mem_free(struct nd_mem *mem);
int nd_mem_write(struct nd_mem *mem, uint64_t offset, const void *src, uint64_t size);
int nd_mem_read(struct nd_mem *mem, uint64_t offset, void *dst, uint64_t size);
/* Map the buffer into this process (once; later calls return the same view). */
int nd_mem_map(struct nd_mem *mem, void **ptrp);
uint64_t nd_mem_size(const struct nd_mem *mem);
uint64_t nd_mem_device_addr(const struct nd_mem *mem);
uint32_t nd_mem_handle(const struct nd_mem *mem);

/* ---------------------------------------------------------------------------------- */
/* How an execution ended (status.c)                                                   */

/*
 * How an execution ended: result is enum vneuron_exec_status (VNEURON_EXEC_OK = 0,
 * ERROR, TIMEOUT, ABORTED, FAULT), reason enum vneuron_exec_reason (uapi/vneuron.h).
 */
struct nd_run_result {
	uint32_t result;		/* 0 = OK */
	uint32_t reason;
	uint32_t stream;		/* where it failed, else ~0 */
	uint32_t pc;
	uint64_t model_ps;		/* modeled duration */
	uint64_t host_ns;
};

/* "ok", "error", "timeout", "aborted", "device fault"; never NULL. */
const char *nd_exec_result_name(uint32_t result);
/* The status's id, its enum's name: "OK", ..., "FAULT"; "?" for none. */
const char *nd_exec_result_id(uint32_t result);
/* "deadlock on semaphores", "an access outside SBUF or its partition", ...; never NULL. */
const char *nd_exec_reason_name(uint32_t reason);
/* A short id for JSON: "deadlock", "time-limit", ..., "sbuf", "state"; "?" for none. */
const char *nd_exec_reason_id(uint32_t reason);
/* The errno an unsuccessful result maps to: ETIMEDOUT, ECANCELED or EIO (0 for OK). */
int nd_run_errno(const struct nd_run_result *r);
/* "execution device fault: an access outside SBUF ... at DMA q3 entry 2" into buf. */
const char *nd_run_describe(const struct nd_run_result *r, char *buf, size_t len);

/*
 * A stream by its display name: "TensorE" .. "GpSimdE", "DMA0" .. "DMA15", "CC-core"
 * (VNEURON_STREAM_CC); "?" if none.
 */
const char *nd_stream_name(uint32_t stream);

/* ---------------------------------------------------------------------------------- */
/* Programs on the device (exec.c): the kernel path of vnprog.h's nd_host_run()        */
/*
 * The image is validated by the module (the same core/program.c) and runs on a core's
 * kernel workers, with device buffers as the HBM tensors. Unload every program before
 * nd_close() (closing the device drops them in the module, not their handles here).
 */

struct nd_program;

/* Which validation check refused an image (enum vnef_check, section and entry or ~0). */
struct nd_load_error {
	uint32_t check;
	uint32_t section;
	uint32_t index;
	char msg[64];
};

/* A device buffer bound to a program tensor by name. */
struct nd_bind {
	const char *name;
	struct nd_mem *mem;
};

/* Wait without a deadline (nd_wait()). */
#define ND_WAIT_FOREVER	UINT64_MAX

/*
 * Load an image. -EINVAL when the module refuses it: the device error names the check,
 * and le (may be NULL) gets its code, section and entry. -E2BIG above 64 MiB; -ENOSPC
 * when the file holds too many programs.
 */
int nd_program_load(struct nd_device *dev, const void *image, size_t size,
		    struct nd_program **progp, struct nd_load_error *le);
int nd_program_unload(struct nd_program *prog);
uint32_t nd_program_handle(const struct nd_program *prog);
uint32_t nd_program_tensor_count(const struct nd_program *prog);
/* Tensor index by name, or -ENOENT. */
int nd_program_tensor(const struct nd_program *prog, const char *name);
/*
 * Queue an execution on a core without blocking; *exec_idp is for nd_wait(). Inputs and
 * outputs must be bound; scratch tensors may be left out (the core provides them).
 * limit_ns: host-time limit, 0 for the module's default.
 */
int nd_exec(struct nd_program *prog, unsigned int core, const struct nd_bind *binds,
	    unsigned int count, uint64_t limit_ns, uint64_t *exec_idp);
/*
 * Wait until an execution ends or the absolute CLOCK_MONOTONIC timeout_ns passes
 * (-ETIMEDOUT; ND_WAIT_FOREVER: no deadline). 0 once it ended, whatever its result
 * (in res: 0 = OK, see nd_run_result); the id is then used up.
 */
int nd_wait(struct nd_device *dev, uint64_t exec_id, uint64_t timeout_ns,
	    struct nd_run_result *res);
/* nd_exec() + nd_wait(): 0 if OK, -EIO if the execution failed, -ETIMEDOUT on timeout. */
int nd_run(struct nd_program *prog, unsigned int core, const struct nd_bind *binds,
	   unsigned int count, uint64_t limit_ns, struct nd_run_result *res);

/**
 * nd_set_lnc() - launch this handle's executions on logical cores of @lnc physical cores
 * @dev: the device handle
 * @lnc: 1 (physical cores, the default), or 2 (LNC=2)
 *
 * The device side of libvnprog's nd_host_set_lnc(). With LNC=2, every nd_exec(),
 * nd_run() and nd_uring_submit_exec() through @dev is EXEC's %VNEURON_EXEC_LNC2: its
 * core (physical numbering, as everywhere in this library) must be an even core 2k with
 * 2k + 1 on the device, and the program runs as two SPMD instances, program id 0 on
 * core 2k and 1 on 2k + 1, bound to the same buffers, one exec id (docs/uapi.md,
 * "EXEC"). Set it before executing from other threads; it applies to later calls.
 *
 * Return: 0; -EINVAL for @lnc other than 1 or 2; -EOPNOTSUPP when the device has no
 * logical cores ("model trn1 has no logical cores", a module before uapi 8, a device
 * of one core). The launch itself refuses an odd core or one past the device (-EINVAL)
 * and a program with a collective stream (-EOPNOTSUPP) before the module sees it. The
 * device error says which.
 */
int nd_set_lnc(struct nd_device *dev, unsigned int lnc);
/* The handle's LNC: 1 or 2 (nd_set_lnc()); 1 for NULL. */
unsigned int nd_lnc(const struct nd_device *dev);

/* ---------------------------------------------------------------------------------- */
/* Communicators and collectives (comm.c, VNEURON_CAP_COLLECTIVES; docs/uapi.md)         */
/*
 * A communicator groups ranks, each a core of some /dev/vneuronN of this machine; the
 * collective stream (the CC-core) of an execution on a rank's core meets the other
 * ranks' at each collective. As with NCCL's ncclGetUniqueId() and ncclCommInitRank():
 * one process creates it and gets its id, passes the id to every rank's process (as 32
 * hex digits: nd_comm_id_format() / nd_comm_id_parse()), and each joins with its rank
 * and a core of the device it opened, then runs its programs on that core (nd_exec(),
 * nd_run()). The id is a secret: whoever knows it can join and exchange data with the
 * ranks. The creator's device handle keeps the communicator findable until
 * nd_comm_unregister() or nd_close(); ranks keep it alive after that.
 *
 * A rank that leaves (nd_comm_destroy(), nd_close(), its process exiting) or whose
 * execution fails breaks the communicator: every collective not yet complete ends at
 * once (ABORTED, reason CC_PEER). Wait for a rank's executions before destroying it.
 * nd_run() of a program that fails at a collective says which ranks never arrived or
 * which one failed, from nd_comm_info(); nd_comm_describe() gives the same words for an
 * nd_wait() result.
 */

#define ND_COMM_ID_BYTES	VNEURON_COMM_ID_BYTES		/* 16 */
#define ND_COMM_ID_STRLEN	(2 * ND_COMM_ID_BYTES + 1)	/* 32 hex digits and a NUL */

/* A communicator's id: 16 random bytes from the module. */
typedef struct nd_comm_id {
	unsigned char bytes[ND_COMM_ID_BYTES];
} nd_comm_id;

struct nd_comm;

/* A communicator's state (COMM_INFO). */
struct nd_comm_info {
	uint32_t nranks;
	uint32_t rank;			/* this handle's rank */
	uint32_t core;			/* the core bound as that rank */
	uint32_t joined;		/* ranks that joined so far */
	uint64_t joined_mask;		/* bit r: rank r joined */
	int broken;			/* a rank failed or left: collectives end at once */
	uint32_t failed_rank;		/* the rank that broke it, or ~0u */
	int failure;			/* how, a positive errno: ETIMEDOUT, EPIPE, EINVAL, EINTR */
	uint64_t missing;		/* after a timeout: bit r, rank r had not arrived */
	uint64_t collectives;		/* completed, once per group */
};

/* The id as 32 lowercase hex digits into buf; returns buf (NULL if id or buf is NULL). */
char *nd_comm_id_format(const nd_comm_id *id, char buf[ND_COMM_ID_STRLEN]);
/*
 * The id from 32 hex digits (either case), with optional white space around them (a
 * line read from a pipe or a file). 0, or -EINVAL for anything else.
 */
int nd_comm_id_parse(const char *str, nd_comm_id *id);

/*
 * A new communicator of nranks (1..VNEF_CC_MAX_RANKS) ranks; its id in *id. It stays
 * registered through dev until nd_comm_unregister() or nd_close(dev). -EOPNOTSUPP on a
 * module without VNEURON_CAP_COLLECTIVES, -EINVAL, -ENOSPC (the handle holds 64
 * communicator handles), -EAGAIN (the module holds 256 communicators).
 */
int nd_comm_create(struct nd_device *dev, unsigned int nranks, nd_comm_id *id);
/* Nobody can join it any more (ranks that joined keep it). -ENOENT if dev did not create it. */
int nd_comm_unregister(struct nd_device *dev, const nd_comm_id *id);
/*
 * Bind core `core` of dev as rank `rank` of the communicator with this id: executions on
 * that core through dev take part in its collectives. Claims the core for dev as an
 * execution does. -ENOENT (no communicator has this id, or its registration ended),
 * -EEXIST (the rank joined already), -EBUSY (another process owns the core, or it is
 * bound already), -EINVAL (rank or core out of range), -ENOSPC.
 */
int nd_comm_join(struct nd_device *dev, const nd_comm_id *id, unsigned int rank,
		 unsigned int core, struct nd_comm **commp);
int nd_comm_info(struct nd_comm *comm, struct nd_comm_info *info);
/* Leave: the core is unbound and the communicator breaks for the others. NULL is fine. */
int nd_comm_destroy(struct nd_comm *comm);
unsigned int nd_comm_rank(const struct nd_comm *comm);
unsigned int nd_comm_size(const struct nd_comm *comm);
unsigned int nd_comm_core(const struct nd_comm *comm);
struct nd_device *nd_comm_device(const struct nd_comm *comm);
/*
 * How an execution of this rank ended, in words, with what the communicator knows:
 * "collective 3 (ALL_REDUCE) on the CC-core: ranks 2, 3 never arrived (timeout)" for
 * CC_MISSING, "... aborted: rank 1 left or its execution ended early" for CC_PEER,
 * "... the ranks disagree on the collective ..." for CC_MISMATCH; nd_run_describe()'s
 * words for other results. prog (may be NULL) names the opcode.
 */
const char *nd_comm_describe(struct nd_comm *comm, const struct nd_program *prog,
			     const struct nd_run_result *r, char *buf, size_t len);

/*
 * Ranks on other nodes (docs/uapi.md, "Ranks on other nodes"; VNEURON_CAP_NETQ). The
 * creator of a communicator on dev (nd_comm_create()) declares, before any rank joins,
 * the node of each rank (nodes[r]) and its device on that node (devices[r], for the
 * cost model: every node passes the same arrays); the ranks not of node `node` are
 * remote: they never join here, and dev serves their side of each collective through
 * the communicator's network queue (libvnmpi's nd_mpi_comm_new_dev() does it with MPI).
 * -EOPNOTSUPP on a module without the queue, -ENOENT if dev did not create it, -EINVAL,
 * -EBUSY (a rank joined already, or set already).
 */
int nd_comm_set_nodes(struct nd_device *dev, const nd_comm_id *id, unsigned int node,
		      const uint32_t *nodes, const uint32_t *devices, unsigned int nranks);

/* A request of the network queue (NETQ_WAIT). */
struct nd_netq_req {
	uint64_t id;			/* 0: the stage is below stage_need, nothing taken */
	uint32_t op;			/* enum vn_cc_op */
	uint32_t reduce, dtype, shift;
	uint64_t count;
	uint64_t rank_bytes;		/* rank r's input at stage offset r * rank_bytes */
	uint64_t stage_need;
	uint64_t local;			/* bit r: rank r is of this node */
};

/*
 * The queue's next request, waited for until timeout_ns (absolute CLOCK_MONOTONIC, at
 * most 10 s ahead are waited): the local ranks' inputs copied into stage (from offset
 * 0, stage_size bytes of it usable), their arrivals in ps into arrivals[nranks]. 0;
 * -ETIMEDOUT, -EPIPE (the communicator is broken: nd_comm_reg_info()), -EBUSY, -EINTR,
 * -EINVAL, -ENOENT. No message is recorded: the proxy's timeouts are routine.
 */
int nd_netq_wait(struct nd_device *dev, const nd_comm_id *id, struct nd_mem *stage,
		 uint64_t stage_size, uint64_t timeout_ns, uint64_t *arrivals,
		 struct nd_netq_req *req);
/*
 * Complete request req: the remote ranks' inputs are in stage (the request's layout),
 * their arrivals in arrivals[nranks]. 0, -EPIPE (broken meanwhile), -ENOENT, -EINVAL.
 */
int nd_netq_complete(struct nd_device *dev, const nd_comm_id *id, uint64_t req,
		     struct nd_mem *stage, const uint64_t *arrivals);
/* Break the communicator with err (a positive errno), naming rank (and missing ranks). */
int nd_netq_fail(struct nd_device *dev, const nd_comm_id *id, int err, unsigned int rank,
		 uint64_t missing);
/*
 * The same queue as a mapped ring (uapi 6, VNEURON_CAP_NETQ_RING; docs/uapi.md,
 * "The ring"): the kernel posts each request as soon as the local ranks stand at the
 * collective, their inputs copied into stage (from offset 0, stage_size bytes usable),
 * and poll() on the device wakes the proxy. Once opened, nd_netq_wait() and
 * nd_netq_complete() are refused (-EBUSY) for this communicator. Closing the ring
 * (unmapping it) breaks the communicator, as nd_comm_unregister() does.
 * -EOPNOTSUPP on a module without it, -ENOENT, -EINVAL, -EBUSY, -ENOMEM.
 */
struct nd_netq_ring;
int nd_netq_ring_open(struct nd_device *dev, const nd_comm_id *id, struct nd_mem *stage,
		      uint64_t stage_size, struct nd_netq_ring **qp);
/*
 * The next request, waited for with poll() up to timeout_ns (absolute CLOCK_MONOTONIC):
 * as nd_netq_wait() gives it (id 0: the stage is below stage_need; give a larger one
 * with nd_netq_ring_stage() and the request comes again). 0, -ETIMEDOUT.
 */
int nd_netq_ring_next(struct nd_netq_ring *q, uint64_t timeout_ns, uint64_t *arrivals,
		      struct nd_netq_req *req);
/* Complete request req: as nd_netq_complete(), through the ring and its doorbell. */
int nd_netq_ring_complete(struct nd_netq_ring *q, uint64_t req, const uint64_t *arrivals);
/*
 * Post the remote ranks in mask (bit r: rank r) of request req now, before the others:
 * their inputs are in the stage (left untouched until the request completes), their
 * arrivals in arrivals[nranks]. The request completes with its last remote rank, by
 * this call or nd_netq_ring_complete() (which posts the rest); until then a local time
 * limit names only the ranks not posted. mask 0 is nd_netq_ring_complete(). -EINVAL
 * (a rank local, past nranks or posted already, an arrival too late), as that.
 */
int nd_netq_ring_post(struct nd_netq_ring *q, uint64_t req, uint64_t mask,
		      const uint64_t *arrivals);
/* As nd_netq_fail(), through the ring. */
int nd_netq_ring_fail(struct nd_netq_ring *q, int err, unsigned int rank, uint64_t missing);
/* A new stage (no request out): a request given with id 0 comes again. */
int nd_netq_ring_stage(struct nd_netq_ring *q, struct nd_mem *stage, uint64_t stage_size);
/* Unmaps the ring: the communicator breaks. NULL is fine. */
void nd_netq_ring_close(struct nd_netq_ring *q);

/* The state of the communicator dev created (its registration's COMM_INFO). */
int nd_comm_reg_info(struct nd_device *dev, const nd_comm_id *id, struct nd_comm_info *info);

/* ---------------------------------------------------------------------------------- */
/* Where a process of a multi-node job stands (place.c; libvnmpi's nd_mpi_place())      */

/*
 * A job's processes, numbered 0..size-1, each on one node (machine) of nodes; a node's
 * processes share its devices. libvnmpi's nd_mpi_place() learns it from MPI; programs
 * without MPI (tools, tests) are told it explicitly, by arguments or the environment.
 */
struct nd_place {
	uint32_t rank;		/* this process among all: 0..size-1 */
	uint32_t size;		/* processes of the job, 1..ND_PLACE_MAX */
	uint32_t node;		/* its node: 0..nodes-1 */
	uint32_t nodes;		/* 1..size */
};

#define ND_PLACE_MAX	65536

/*
 * Explicit values as decimal strings (a tool's arguments): rank, size, node, nodes; NULL
 * for the defaults (rank 0, size 1, node 0, nodes the node + 1 when node is given, else
 * 1). -EINVAL naming the value at fault: not a decimal number, rank >= size, node >=
 * nodes, nodes > size, size or nodes 0 or above ND_PLACE_MAX.
 */
int nd_place_parse(const char *rank, const char *size, const char *node, const char *nodes,
		   struct nd_place *pl, struct nd_error *err);
/*
 * The same from the environment: VNEURON_RANK, VNEURON_WORLD_SIZE, VNEURON_NODE and
 * VNEURON_NODES (unset: the defaults; set: as nd_place_parse(), the message naming the
 * variable).
 */
int nd_place_from_env(struct nd_place *pl, struct nd_error *err);

/* ---------------------------------------------------------------------------------- */
/* Batched executions through io_uring (uring.c, VNEURON_CAP_URING_CMD)                */
/*
 * One io_uring on a device handle: nd_uring_submit_exec() queues many executions with
 * one system call, nd_uring_reap() collects their completions (one CQE each, when the
 * execution ends: no WAIT). A ring is for one thread at a time; close it before
 * nd_close() of its device.
 */

struct nd_uring;

/* One execution to queue; the bindings are read before nd_uring_submit_exec() returns. */
struct nd_uring_exec {
	struct nd_program *prog;
	unsigned int core;
	const struct nd_bind *binds;
	unsigned int count;
	uint64_t limit_ns;		/* host-time limit, 0 for the module's default */
	uint64_t user_data;		/* returned in its nd_uring_done */
};

/* One completion. */
struct nd_uring_done {
	uint64_t user_data;
	/*
	 * 0 OK, -EIO (ERROR), -ETIMEDOUT (TIMEOUT), -ECANCELED (ABORTED), or the -errno
	 * with which the module refused it (as nd_exec() would have).
	 */
	int ret;
	int has_result;			/* res is valid: the execution ran or was aborted */
	struct nd_run_result res;
};

/*
 * depth: executions in flight at most (1..4096). -EOPNOTSUPP without
 * VNEURON_CAP_URING_CMD; other -errno from io_uring_queue_init().
 */
int nd_uring_open(struct nd_device *dev, unsigned int depth, struct nd_uring **ringp);
/*
 * Queue up to n executions with one io_uring_enter(). Returns how many were queued
 * (fewer than n when the ring is full: reap, then submit the rest) or -errno for a
 * bad argument (nothing queued from that entry on).
 */
int nd_uring_submit_exec(struct nd_uring *r, const struct nd_uring_exec *ex, unsigned int n);
/*
 * Collect up to max completions, blocking until at least min_wait have arrived (0: only
 * what is there). Returns the number collected or -errno (-EINTR on a signal).
 */
int nd_uring_reap(struct nd_uring *r, struct nd_uring_done *out, unsigned int max,
		  unsigned int min_wait);
/* Executions submitted and not yet reaped. */
unsigned int nd_uring_inflight(const struct nd_uring *r);
/*
 * Close the ring. Waits for executions still in flight (the module writes their status
 * into the ring's memory): each ends by its time limit at the latest, at once on RESET.
 */
void nd_uring_close(struct nd_uring *r);

/* ---------------------------------------------------------------------------------- */
/* Trace sessions (trace.c; uapi/vneuron_trace.h, docs/trace-buffer.md)                 */

struct nd_trace;
struct nd_ring;

#define ND_TRACE_DEFAULT_RING	(4u << 20)	/* data bytes per ring */

struct nd_trace_opts {
	uint32_t mode;			/* VNEURON_TRACE_MODE_STOP (0) or _OVERWRITE */
	uint32_t watermark;		/* bytes between wake-ups; 0: half the ring */
	uint64_t ring_size;		/* power of two, 4 KiB..256 MiB; 0: the default */
};

/*
 * Start tracing a core (o may be NULL: stop mode, default size) and map its rings. Every
 * execution that starts on the core afterwards is traced, from any process. -EBUSY if
 * some file already traces it.
 */
int nd_trace_start(struct nd_device *dev, unsigned int core, const struct nd_trace_opts *o,
		   struct nd_trace **tp);
unsigned int nd_trace_nr_rings(const struct nd_trace *t);
/* A consumer of ring i (below): nd_ring_init() on its mappings. 0 or -EINVAL. */
int nd_trace_ring(const struct nd_trace *t, unsigned int i, struct nd_ring *r);
/* The kernel's answer to TRACE_START (sizes, offsets, the watermark in force). */
const struct vneuron_trace_start *nd_trace_params(const struct nd_trace *t);
/*
 * Wait up to timeout_ms (-1: forever) until a ring of the device file has unread
 * records (or an execution of it completed: both report POLLIN). 1 ready, 0 timeout,
 * -errno. For a drainer thread; nd_device_fd() serves an event loop.
 */
int nd_trace_poll(struct nd_device *dev, int timeout_ms);
/* Stop producing; the rings stay mapped for the last drain. Idempotent. */
int nd_trace_stop(struct nd_trace *t);
/* Stop if needed, unmap, free. NULL is fine. */
void nd_trace_free(struct nd_trace *t);

/* ---------------------------------------------------------------------------------- */
/* Trace ring consumer (ring.c)                                                        */
/*
 * The consumer side of a trace ring (uapi/vneuron_trace.h, docs/trace-buffer.md): drains
 * records from a mapped consumer page, control page and data area.
 *
 * Two ways to read:
 *  - nd_ring_peek() + nd_ring_release(): zero-copy, pointers into the ring. Safe in
 *    stop mode (the producer never writes slots the consumer has not released). In
 *    overwrite mode the producer may reuse the slots while they are in use:
 *    nd_ring_release() says how many of them may have been overwritten.
 *  - nd_ring_read(): copies into a caller buffer (what a read() system call would do)
 *    and, in overwrite mode, discards copies that raced with the producer, so what it
 *    returns is always intact.
 * Every record the consumer misses is counted: nd_ring_lost() for records overwritten
 * before they were read (overwrite mode), the control page's dropped count for records
 * the producer could not store (stop mode, also announced by LOST records in the stream).
 */

/* One ring's consumer state; the fields are the library's. */
struct nd_ring {
	struct vneuron_trace_consumer *cons;
	const struct vneuron_trace_ctrl *ctrl;
	const unsigned char *data;
	uint64_t size;
	uint64_t mask;
	uint64_t tail;		/* our position; published to cons->consumer_pos */
	uint64_t peek_pos;	/* start of the records handed out by peek */
	uint64_t peek_n;
	uint64_t lost;		/* overwrite mode: records overwritten before we read them */
	uint32_t mode;
};

/*
 * Attaches to a ring: cons is the writable consumer page, ctrl the read-only mapping of
 * ctrl_len bytes (control page then data). Validates the control page. 0 or -EINVAL
 * (bad magic, version, record size, mode or sizes, data outside the mapping).
 */
int nd_ring_init(struct nd_ring *r, struct vneuron_trace_consumer *cons,
		 const void *ctrl, size_t ctrl_len);

/*
 * Up to max records from the consumer position, contiguous in the ring (a batch stops at
 * the end of the data area; the next call returns the rest). *recs points into the
 * ring. Returns the count (0: nothing new) or -EIO if the producer position is
 * impossible (not a record boundary, behind us, or in stop mode more than a ring ahead).
 */
ssize_t nd_ring_peek(struct nd_ring *r, const struct vneuron_trace_record **recs, size_t max);

/*
 * Done with the n first records of the last peek: they are released to the producer.
 * Returns how many of them (from the first) may have been overwritten while in use
 * (always 0 in stop mode); they are added to nd_ring_lost().
 */
size_t nd_ring_release(struct nd_ring *r, size_t n);

/* Copies up to max intact records into buf; count, 0 or -EIO as nd_ring_peek(). */
ssize_t nd_ring_read(struct nd_ring *r, struct vneuron_trace_record *buf, size_t max);

/* Records published but not yet consumed (overwrite mode: may exceed the ring). */
uint64_t nd_ring_available(const struct nd_ring *r);

/* Records overwritten before they were read (overwrite mode). */
uint64_t nd_ring_lost(const struct nd_ring *r);

/* The producer's count of records dropped because the ring was full (stop mode). */
uint64_t nd_ring_dropped(const struct nd_ring *r);

/*
 * Hands everything published when it is called to fn in batches, as one consumer pass:
 * straight from the ring in stop mode (zero-copy), through nd_ring_read() in overwrite
 * mode (so no torn record reaches fn). A non-zero return of fn ends the pass (in stop mode
 * its batch stays in the ring). Returns the records handed over, -EIO (a corrupt ring) or
 * fn's error.
 */
ssize_t nd_ring_drain(struct nd_ring *r,
		      int (*fn)(void *arg, const struct vneuron_trace_record *recs, size_t n),
		      void *arg);

/* ---------------------------------------------------------------------------------- */
/* Live telemetry over generic netlink (telemetry.c; uapi/vneuron_genl.h, docs/telemetry.md) */
/*
 * The module's generic netlink family "vneuron", through libnl-genl-3: snapshots of the
 * devices and cores (the figures sysfs has, one consistent snapshot per core) and a
 * subscription to events (executions, claims, resets, trace sessions, faults, module
 * errors). Needs no device node and no privilege: the module decides what each caller
 * may see (an owner of another uid is hidden, its events are not sent).
 *
 * A telemetry handle is for one thread at a time. Errors as the rest of the library:
 * 0 / count or -errno, with a message in the handle (nd_telemetry_error()); libnl's
 * errors and the kernel's extended acks are turned into that message.
 */

struct nd_telemetry;

/* Streams of a core: the four engines, then the DMA queues (stream numbering of uapi). */
#define ND_TEL_STREAMS		VNEF_STREAMS

/* One device (VNEURON_CMD_GET_DEVICE). */
struct nd_tel_device {
	uint32_t device;		/* N of /dev/vneuronN */
	uint32_t nr_cores;
	uint64_t hbm_size;		/* bytes */
	uint64_t hbm_used;		/* allocated now */
	uint64_t hbm_peak;		/* the most ever allocated at once */
	uint32_t uapi_version;
	char module_version[32];
	uint64_t events_produced;	/* since load, module-wide */
	uint64_t events_dropped;	/* of those, dropped before they were queued */
	uint64_t attrs;			/* bit a: attribute a (enum vneuron_genl_attr) was sent */
	/*
	 * The resources every user shares (uapi 7, VNEURON_A_SHARES), by enum
	 * vneuron_share_kind: total, per_user, reserved, used, reserved_used (user_used is 0
	 * here: GET_INFO has the caller's); nr_shares of them were sent (0 from an older
	 * module).
	 */
	struct vneuron_share shares[VNEURON_SHARE_COUNT];
	uint32_t nr_shares;
	char model[16];			/* device model, "trn1" from a module before it */
};

/* One core's snapshot (VNEURON_CMD_GET_CORE); every counter counts since module load. */
struct nd_tel_core {
	uint32_t device;
	uint32_t core;
	uint32_t owner_pid;		/* 0: nobody owns it, or owner_hidden */
	uint32_t owner_uid;
	int owner_hidden;		/* owned by a process the caller may not see */
	int traced;			/* a trace session takes its executions */
	uint64_t exec_ok;		/* executions by how they ended */
	uint64_t exec_error;
	uint64_t exec_timeout;
	uint64_t exec_aborted;
	uint64_t exec_fault;
	uint64_t busy_ns;		/* modeled busy time of all streams (sysfs busy_time_ns) */
	uint64_t bytes;			/* bytes moved (sysfs bytes_moved) */
	uint64_t flops;
	uint64_t model_ps;		/* modeled time of all executions */
	uint64_t stream_busy_ps[ND_TEL_STREAMS];	/* modeled busy time per stream */
	unsigned int nr_streams;	/* entries the kernel sent (the highest + 1) */
	uint64_t hbm_read;		/* bytes DMA read from / wrote to HBM */
	uint64_t hbm_write;
	uint64_t instructions;		/* engine instructions run */
	uint64_t descriptors;		/* DMA descriptors run */
	uint64_t timestamp_ns;		/* CLOCK_MONOTONIC of the snapshot */
	uint64_t attrs;			/* bit a: attribute a was sent */
};

/* Executions that ended, by any status. */
uint64_t nd_tel_core_execs(const struct nd_tel_core *c);

/*
 * A core's activity between two of its snapshots (docs/telemetry.md, "Utilisation").
 * Busy times are modeled (the per-stream picoseconds, and busy_ns, their sum over the
 * streams), so an engine's utilisation is its share of the core's modeled execution time
 * in the interval (its busy ps over the model_ps the core's executions took). Only the
 * rates per second are over the host interval. A snapshot has no host busy time: the
 * tools take it from the EXEC_END events' host_ns.
 */
struct nd_tel_rates {
	double interval_s;		/* host time between the snapshots */
	uint64_t execs;			/* executions that ended in the interval */
	uint64_t faults;		/* of those, ended FAULT */
	uint64_t model_ps;		/* their modeled time */
	double execs_per_s;		/* per host second */
	double streams_busy;		/* busy streams on average: busy_ns over model_ps */
	double engine[VNEF_ENGINES];	/* 0..1: busy ps over model_ps, by engine */
	double dma_queue[VNEF_DMA_QUEUES];	/* 0..1: the same per DMA queue */
	double dma;			/* 0..1: the busiest DMA queue's */
	double bytes_per_s;		/* moved, per host second */
	double model_flops;		/* FLOP per modeled second (0 when no modeled time) */
};

/* The rates from prev to cur (the same core, cur later). -EINVAL if they do not fit. */
int nd_tel_core_rates(const struct nd_tel_core *prev, const struct nd_tel_core *cur,
		      struct nd_tel_rates *r);

/* One event (VNEURON_CMD_EVENT); fields the event does not carry are 0 (device, core ~0). */
struct nd_tel_event {
	uint32_t type;			/* enum vneuron_genl_event */
	uint64_t timestamp_ns;		/* CLOCK_MONOTONIC */
	uint32_t device;		/* ~0u: about no device */
	uint32_t core;			/* ~0u: about no core */
	uint32_t pid;			/* the process it is about (0: none) */
	uint32_t uid;
	uint64_t exec_seq;		/* EXEC_*, FAULT: the execution on its core (from 1) */
	uint32_t status;		/* EXEC_END: enum vneuron_exec_status */
	uint32_t reason;		/* EXEC_END, FAULT: enum vneuron_exec_reason */
	uint64_t model_ps;		/* EXEC_END: modeled duration */
	uint64_t host_ns;		/* EXEC_END: host duration */
	uint32_t stream;		/* FAULT: where (else VNEURON_STREAM_NONE) */
	uint32_t pc;
	uint64_t trace_dropped;		/* TRACE_STOP: records its rings dropped */
	uint32_t err;			/* ERROR: a positive errno */
	char message[128];		/* ERROR: what failed */
	uint64_t dropped;		/* events this subscriber missed before this one */
	uint64_t attrs;			/* bit a: attribute a was sent */
};

/*
 * Connect to the family. -ENOENT, "the vneuron module is not loaded (no generic netlink
 * family 'vneuron')", when it is absent; other -errno when netlink itself fails. err
 * may be NULL.
 */
int nd_telemetry_open(struct nd_telemetry **tp, struct nd_error *err);
/* Unsubscribes if needed and frees. NULL is fine. */
void nd_telemetry_close(struct nd_telemetry *t);
/* The message of the last failed call on t ("" if none). */
const char *nd_telemetry_error(const struct nd_telemetry *t);

/*
 * Every device (device < 0) or /dev/vneuron<device> (-ENODEV if none): *devs is a
 * malloc()ed array for free() (NULL when there are none). Returns the count or -errno.
 */
int nd_telemetry_devices(struct nd_telemetry *t, int device, struct nd_tel_device **devs);
/* Every core of every device (device < 0) or of one device; as nd_telemetry_devices(). */
int nd_telemetry_cores(struct nd_telemetry *t, int device, struct nd_tel_core **cores);

/*
 * Receive events from now on (-EALREADY if subscribed, -EDQUOT past the caller's user's
 * share of subscriptions, -EBUSY past the module's subscriber limit or what its
 * privileged reserve leaves) / stop (-ENOENT if not subscribed). Events that arrive
 * meanwhile are kept for nd_telemetry_next_event().
 */
int nd_telemetry_subscribe(struct nd_telemetry *t);
int nd_telemetry_unsubscribe(struct nd_telemetry *t);
/*
 * The event socket, for poll() (POLLIN: events to read). Events may also be queued in
 * the handle already: call nd_telemetry_next_event(t, ev, 0) until it returns 0 before
 * polling.
 */
int nd_telemetry_fd(const struct nd_telemetry *t);
/*
 * The next event, waiting up to timeout_ms (0: only what is there, -1: forever).
 * 1 with *ev filled, 0 if none came in time, -errno (-EINTR on a signal). Any event may
 * carry a dropped count; a VNEURON_EVENT_DROPPED message carries nothing else.
 */
int nd_telemetry_next_event(struct nd_telemetry *t, struct nd_tel_event *ev, int timeout_ms);
/* Events missed in total (the sum of the events' dropped counts so far). */
uint64_t nd_telemetry_dropped(const struct nd_telemetry *t);

/*
 * An event type's name: "exec_start", "exec_end", "fault", "claim", "release", "reset",
 * "trace_start", "trace_stop", "error", "dropped" (VNEURON_EVENT_DROPPED: a message that
 * only says how many events were missed); "?" for none.
 */
const char *nd_tel_event_name(uint32_t type);

/* ---------------------------------------------------------------------------------- */
/* The API log (apilog.c, docs/profiler.md)                                            */
/*
 * With VNEURON_PROFILE_API=FILE in its environment (`vneuron-profile capture -- app`
 * sets it), every device handle appends one 64-byte struct vneuron_trace_record per call
 * to FILE: a MARKER record whose opcode is the call (ND_API_MARKER + 1 ..), host_ns the
 * call's start, count its duration in ns, pc the process's call sequence number (from
 * 1), elements the pid, bytes the size (alloc, free, load; saturated), dma_queue the core
 * and sem_value the low 32 bits of the exec id (EXEC, WAIT), exec_seq the execution's
 * sequence number on its core (WAIT: the device records' exec_seq); engine is
 * VNEURON_TRACE_ENGINE_CORE, sem_wait and sem_signal VNEURON_TRACE_NO_SEM,
 * model_start_ps the calling thread's id and dma_desc its range depth (below,
 * "Application ranges"). EXEC and WAIT records also carry the device's N (of
 * /dev/vneuronN) in model_end_ps, and EXEC records the program's id in bytes: the pc of
 * its PROGRAM_LOAD record.
 * After each PROGRAM_LOAD come six PROGRAM_ID records, the loaded image's identity in
 * 16-byte chunks: exec_seq the chunk (0, 1: its SHA-256; 2..5: the program's name from
 * its header, NUL-padded), model_start_ps and model_end_ps the chunk's bytes in order,
 * sem_value the program's id, count the image's size in bytes.
 * An execution submitted through io_uring (nd_uring_submit_exec()) has no exec id of the
 * kernel's: its EXEC record (logged at submission) and its WAIT record (logged when
 * nd_uring_reap() takes its completion) carry sem_signal ND_API_URING and in sem_value
 * an id of the library's, unique in the process (its own space: it may equal a kernel
 * exec id).
 * The kernel never writes these records: its MARKER opcodes stay below ND_API_MARKER.
 */
#define ND_API_MARKER	0x8000
#define ND_API_URING	1	/* sem_signal of io_uring's EXEC and WAIT records */

enum nd_api_call {
	ND_API_OPEN = ND_API_MARKER + 1,	/* nd_open() */
	ND_API_CLOSE,				/* nd_close() */
	ND_API_MEM_ALLOC,
	ND_API_MEM_FREE,
	ND_API_PROGRAM_LOAD,
	ND_API_EXEC,
	ND_API_WAIT,
	ND_API_RANGE_PUSH = ND_API_MARKER + 8,	/* nd_range_push() */
	ND_API_RANGE_POP = ND_API_MARKER + 9,	/* nd_range_pop() */
	ND_API_MARK = ND_API_MARKER + 10,	/* nd_mark() */
	ND_API_PROGRAM_ID = ND_API_MARKER + 11,	/* a loaded image's identity, in chunks */
	ND_API_END = ND_API_MARKER + 12,	/* one past the last */
};

#define ND_API_ID_CHUNKS	6		/* PROGRAM_ID records per load */
#define ND_API_ID_CHUNK		16		/* bytes each carries */

/*
 * "open", "close", "mem_alloc", "mem_free", "program_load", "exec", "wait", "range_push",
 * "range_pop", "mark", "program_id"; "other".
 */
const char *nd_api_call_name(uint32_t opcode);

/* ---------------------------------------------------------------------------------- */
/* Application ranges (apilog.c, docs/libneurondev.md "Application ranges")           */
/*
 * Like NVTX: a thread opens named ranges ("step 12", "layer fc1") that nest, and marks
 * instants. Without a profiler each call is a thread-local counter and one branch; under
 * `vneuron-profile capture -- app` each is logged with the API calls (the records above:
 * model_start_ps the thread id, dma_desc the thread's depth after the call, bytes the
 * name's length, the name itself in the next ceil(bytes / 64) records of the log), and
 * the profile attributes every execution to the ranges open on the thread that launched
 * it. Every API record carries the thread id and depth the same way.
 */
#define ND_RANGE_NAME_MAX	127	/* bytes of a name that are kept */
#define ND_RANGE_MAX_DEPTH	64	/* ranges open on one thread that are recorded */

/*
 * Opens a range named name on this thread: the new depth (1 for the outermost), or
 * -EINVAL for a NULL or empty name, or -E2BIG when ND_RANGE_MAX_DEPTH ranges are
 * already open: that range is counted but not recorded, and the nd_range_pop() that
 * closes it closes nothing recorded. A name is cut to ND_RANGE_NAME_MAX bytes (on a
 * UTF-8 character boundary); control characters and bytes that are not UTF-8 become
 * '?'.
 */
int nd_range_push(const char *name);
/* Closes this thread's innermost range: the depth left, or -ENOENT if none is open. */
int nd_range_pop(void);
/* An instant event named name on this thread: 0, or -EINVAL as nd_range_push(). */
int nd_mark(const char *name);
/*
 * The cleaning a name gets: up to len bytes of src (stopping at a NUL) into dst, cut to
 * ND_RANGE_NAME_MAX bytes, control characters and invalid UTF-8 made '?', then a NUL.
 * Its length. nd_range_name_ok(): whether s (len bytes) is already such a name (1..max
 * bytes, nothing to clean); the profiler checks names it reads with it.
 */
size_t nd_range_name_clean(char dst[ND_RANGE_NAME_MAX + 1], const char *src, size_t len);
int nd_range_name_ok(const char *s, size_t len);

#if defined(__cplusplus)
}
#endif

#endif /* NEURONDEV_H */
