/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libneurondev: the userspace driver library of vneuron.
 *
 * Errors: every call that can fail returns 0 (or a non-negative value) on success and a
 * negative errno on failure, and records a message naming the problem in the handle it
 * was given (nd_device_error(), nd_builder_error()) or in the struct nd_error passed to
 * calls that have no handle yet. nd_strerror() names an errno value alone.
 *
 * The library has no global state: everything lives in handles.
 *
 * Threads: a device handle may be used by several threads at once (the kernel orders the
 * calls); its last-error message is kept per handle, so threads sharing a handle should
 * read it with nd_device_error_copy(). A memory object belongs to its device and may be
 * used from any thread except while it is being freed; nd_close() must not race with any
 * other call on the handle. A builder or a host handle is not thread-safe: one thread
 * uses it at a time (use several for parallel builds or runs).
 */
#ifndef NEURONDEV_H
#define NEURONDEV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vneuron.h"
#include "vneuron_program.h"

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
/* The program builder: C calls in, a .vnef image (uapi/vneuron_program.h) out         */
/*
 * A program is built from HBM tensors (named inputs, outputs, scratch and constants) and
 * tiles: regions of SBUF or PSUM with a partition axis (<= 128) and a free axis, which
 * the builder places and frees. Every instruction call names the stream it runs on
 * (TensorE, VectorE, ScalarE, GpSimdE, or a DMA queue); the builder orders the streams
 * itself: it records which stream last wrote and read every region and, when a new
 * entry touches a region another stream used, makes it wait on that stream's semaphore
 * (one semaphore per signalling stream, as the format requires). The instruction
 * macros capture __FILE__ and __LINE__; scopes give each entry a layer path such as
 * "mlp/fc1/matmul" in the debug table.
 *
 * A failing call returns -errno and leaves a message in nd_builder_error(); the builder
 * remembers its first error and nd_builder_finish() refuses to produce an image after
 * one, so a kernel may be written without checking every call.
 */

struct nd_builder;
struct nd_tensor;
struct nd_tile;

enum nd_dtype {
	ND_FP32 = 1,		/* VNEF_DT_FP32 */
	ND_BF16 = 2,		/* VNEF_DT_BF16 */
};

enum nd_engine {
	ND_TENSOR = 0,		/* enum vneuron_engine */
	ND_VECTOR = 1,
	ND_SCALAR = 2,
	ND_GPSIMD = 3,
};

enum nd_memory {
	ND_SBUF = 1,		/* VNEF_MEM_SBUF */
	ND_PSUM = 2,		/* VNEF_MEM_PSUM */
};

/* enum vnef_alu and enum vnef_act, under the library's prefix. */
enum nd_alu { ND_ADD, ND_SUB, ND_MUL, ND_MAX, ND_MIN, ND_DIV };
enum nd_act {
	ND_ACT_IDENTITY, ND_ACT_EXP, ND_ACT_LOG, ND_ACT_TANH, ND_ACT_SIGMOID, ND_ACT_GELU,
	ND_ACT_RELU, ND_ACT_SQRT, ND_ACT_RSQRT, ND_ACT_RECIPROCAL, ND_ACT_SQUARE,
};

/*
 * DMA queue for the DMA calls: 0..15, or the next queue round-robin, or (loads and
 * stores) split by partitions into up to 4 descriptors on the next queues when the
 * transfer is 64 KiB or more, so the parts move in parallel.
 */
#define ND_QUEUE_AUTO	(-1)
#define ND_QUEUE_SPREAD	(-2)

/*
 * A part of a tile: partitions [p0, p0 + np) and nf free-axis elements, [f0, f0 + nf)
 * unless strided: then element i is at f0 + (i % count0) * stride0 + (i / count0) *
 * stride1 (nd_pattern(); a stride of 0 broadcasts, in sources only).
 */
struct nd_tv {
	struct nd_tile *tile;
	uint32_t p0, np;
	uint32_t f0, nf;
	uint32_t strided;
	uint32_t count0, stride0, stride1;
};

/*
 * The HBM side of a load or store of a tile view [np x nf]: element (p, f) of the view is
 * element offset + p * pstride + f * fstride of the tensor (counted in elements).
 */
struct nd_hbm {
	struct nd_tensor *tensor;
	uint64_t offset;
	uint64_t pstride;
	uint64_t fstride;
};

/* A raw DMA endpoint: either an HBM tensor or a tile (offsets relative to the tile). */
struct nd_dma_ep {
	struct nd_tensor *tensor;	/* exactly one of tensor and tile */
	struct nd_tile *tile;
	uint64_t offset;		/* bytes */
	uint32_t partition;		/* tiles: first partition of the tile used */
	uint32_t part_stride[2];	/* tiles: partitions per index */
	uint64_t stride[2];		/* bytes per index */
};

/* A raw DMA transfer: count[1] x count[0] chunks of chunk_bytes (vnef_dma_desc). */
struct nd_dma_xfer {
	uint32_t chunk_bytes;
	uint32_t count[2];
	struct nd_dma_ep src, dst;
};

int nd_builder_new(const char *program_name, struct nd_builder **bp);
void nd_builder_free(struct nd_builder *b);
/* The message of the last failed call ("" if none). */
const char *nd_builder_error(const struct nd_builder *b);
/* The first error of this builder (0 if none); finishing fails with it. */
int nd_builder_status(const struct nd_builder *b);

/* HBM tensors. rank 1..4; names unique and non-empty. NULL on error. */
struct nd_tensor *nd_input(struct nd_builder *b, const char *name, enum nd_dtype dt,
			   unsigned int rank, const uint64_t *shape);
struct nd_tensor *nd_output(struct nd_builder *b, const char *name, enum nd_dtype dt,
			    unsigned int rank, const uint64_t *shape);
struct nd_tensor *nd_scratch(struct nd_builder *b, const char *name, enum nd_dtype dt,
			     unsigned int rank, const uint64_t *shape);
/* A constant tensor: data (size of the tensor in bytes) is copied into the image. */
struct nd_tensor *nd_const(struct nd_builder *b, const char *name, enum nd_dtype dt,
			   unsigned int rank, const uint64_t *shape, const void *data);
uint32_t nd_tensor_index(const struct nd_tensor *t);

/*
 * Tiles: partitions x free elements of dt in SBUF or PSUM, placed at the same byte
 * offset in every partition. A PSUM tile of up to one bank (2 KiB a partition) never
 * crosses a bank. -ENOSPC (NULL) when the memory is full. name may be NULL.
 */
struct nd_tile *nd_tile(struct nd_builder *b, enum nd_memory mem, const char *name,
			enum nd_dtype dt, uint32_t partitions, uint32_t free_elems);
#define nd_sbuf(b, name, dt, p, f)	nd_tile((b), ND_SBUF, (name), (dt), (p), (f))
#define nd_psum(b, name, dt, p, f)	nd_tile((b), ND_PSUM, (name), (dt), (p), (f))
/*
 * Give a tile's space back. Later tiles may reuse it; the builder keeps ordering the
 * new tile's writers after the old tile's readers. The handle stays valid until
 * nd_builder_free() but may no longer be used in instructions.
 */
int nd_tile_free(struct nd_builder *b, struct nd_tile *t);
uint32_t nd_tile_offset(const struct nd_tile *t);	/* bytes into each partition */
/* Bytes of SBUF or PSUM a partition still has free in total. */
uint32_t nd_onchip_free_bytes(const struct nd_builder *b, enum nd_memory mem);

/* The whole tile, or a part of it. */
struct nd_tv nd_whole(struct nd_tile *t);
struct nd_tv nd_part(struct nd_tile *t, uint32_t p0, uint32_t np, uint32_t f0, uint32_t nf);
/* A 2-D free-axis pattern: count1 rows of count0 elements (strides in elements). */
struct nd_tv nd_pattern(struct nd_tile *t, uint32_t p0, uint32_t np, uint32_t f0,
			uint32_t count0, uint32_t stride0, uint32_t count1, uint32_t stride1);

/* HBM views: rows of a row-major matrix tensor on partitions, or its columns. */
struct nd_hbm nd_hbm_rows(struct nd_tensor *t, uint64_t row, uint64_t col);
struct nd_hbm nd_hbm_cols(struct nd_tensor *t, uint64_t row, uint64_t col);

/* Scopes: layer names for the debug table ("mlp/fc1/matmul"); up to 16 deep. */
int nd_scope_push(struct nd_builder *b, const char *name);
int nd_scope_pop(struct nd_builder *b);

/* Instructions: each has an _at() form taking the source location; use the macros. */
int nd_load_stationary_at(struct nd_builder *b, struct nd_tv stationary,
			  const char *file, int line);
int nd_multiply_moving_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv moving,
			  int accumulate, const char *file, int line);
/* dst [M x N] (+)= stationary[K x M]^T . moving[K x N]: LoadStationary + MultiplyMoving. */
int nd_matmul_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv stationary,
		 struct nd_tv moving, int accumulate, const char *file, int line);
int nd_transpose_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src,
		    int accumulate, const char *file, int line);
int nd_tensor_tensor_at(struct nd_builder *b, enum nd_engine e, struct nd_tv dst,
			struct nd_tv src0, struct nd_tv src1, enum nd_alu op,
			const char *file, int line);
/* dst = src0 <op> scalar (or scalar <op> src0 with reverse). */
int nd_tensor_scalar_at(struct nd_builder *b, enum nd_engine e, struct nd_tv dst,
			struct nd_tv src0, enum nd_alu op, float scalar, int reverse,
			const char *file, int line);
/* dst = src0 <op> col, col [np x 1] one scalar per partition. */
int nd_tensor_column_at(struct nd_builder *b, enum nd_engine e, struct nd_tv dst,
			struct nd_tv src0, enum nd_alu op, struct nd_tv col, int reverse,
			const char *file, int line);
/* VectorE: dst [np x 1] = <op> over the free axis of src (ADD, MAX, MIN). */
int nd_reduce_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src, enum nd_alu op,
		 const char *file, int line);
int nd_copy_at(struct nd_builder *b, enum nd_engine e, struct nd_tv dst, struct nd_tv src,
	       const char *file, int line);
/* ScalarE: dst = func(src * scale + bias). */
int nd_activate_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src, enum nd_act f,
		   float scale, float bias, const char *file, int line);
/* ScalarE: dst = func(src * scale + bias_col), bias_col [np x 1]. */
int nd_activate_column_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src,
			  enum nd_act f, float scale, struct nd_tv bias_col,
			  const char *file, int line);
int nd_memset_at(struct nd_builder *b, enum nd_engine e, struct nd_tv dst, float value,
		 const char *file, int line);
/* GpSimdE: dst[p][j] = base + p * pstep + j * fstep (s32). */
int nd_iota_at(struct nd_builder *b, struct nd_tv dst, int32_t base, int32_t pstep,
	       int32_t fstep, const char *file, int line);
/* GpSimdE: dst [1 x nf] = <op> over the partitions of src (ADD, MAX, MIN). */
int nd_partition_reduce_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src,
			   enum nd_alu op, const char *file, int line);
/* DMA on a queue (0..15 or ND_QUEUE_AUTO): HBM -> tile, tile -> HBM, or raw. */
int nd_load_at(struct nd_builder *b, int queue, struct nd_tv dst, struct nd_hbm src,
	       const char *file, int line);
int nd_store_at(struct nd_builder *b, int queue, struct nd_hbm dst, struct nd_tv src,
		const char *file, int line);
int nd_dma_at(struct nd_builder *b, int queue, const struct nd_dma_xfer *x,
	      const char *file, int line);

/*
 * The call-site macros: nd_matmul(b, ...) is nd_matmul_at(b, ..., __FILE__, __LINE__).
 * Variadic, so compound literals with commas may be passed as they are.
 */
#define ND_AT __FILE__, __LINE__
#define nd_load_stationary(b, ...)	nd_load_stationary_at((b), __VA_ARGS__, ND_AT)
#define nd_multiply_moving(b, ...)	nd_multiply_moving_at((b), __VA_ARGS__, ND_AT)
#define nd_matmul(b, ...)		nd_matmul_at((b), __VA_ARGS__, ND_AT)
#define nd_transpose(b, ...)		nd_transpose_at((b), __VA_ARGS__, ND_AT)
#define nd_tensor_tensor(b, ...)	nd_tensor_tensor_at((b), __VA_ARGS__, ND_AT)
#define nd_tensor_scalar(b, ...)	nd_tensor_scalar_at((b), __VA_ARGS__, ND_AT)
#define nd_tensor_column(b, ...)	nd_tensor_column_at((b), __VA_ARGS__, ND_AT)
#define nd_reduce(b, ...)		nd_reduce_at((b), __VA_ARGS__, ND_AT)
#define nd_copy(b, ...)			nd_copy_at((b), __VA_ARGS__, ND_AT)
#define nd_activate(b, ...)		nd_activate_at((b), __VA_ARGS__, ND_AT)
#define nd_activate_column(b, ...)	nd_activate_column_at((b), __VA_ARGS__, ND_AT)
#define nd_memset(b, ...)		nd_memset_at((b), __VA_ARGS__, ND_AT)
#define nd_iota(b, ...)			nd_iota_at((b), __VA_ARGS__, ND_AT)
#define nd_partition_reduce(b, ...)	nd_partition_reduce_at((b), __VA_ARGS__, ND_AT)
#define nd_load(b, ...)			nd_load_at((b), __VA_ARGS__, ND_AT)
#define nd_store(b, ...)		nd_store_at((b), __VA_ARGS__, ND_AT)
#define nd_dma(b, ...)			nd_dma_at((b), __VA_ARGS__, ND_AT)

/*
 * Resolve the semaphores and lay out the image. *imagep is malloc()ed (free() it);
 * the builder can still be freed or finished again afterwards.
 */
int nd_builder_finish(struct nd_builder *b, void **imagep, size_t *sizep);
int nd_builder_write(struct nd_builder *b, const char *path);

/* Entries of a stream so far (engine 0..3 or VNEF_STREAM_DMA(queue)), NOPs included. */
uint32_t nd_builder_stream_len(const struct nd_builder *b, unsigned int stream);

/* bf16 <-> fp32, round to nearest even (NaN stays NaN). */
uint16_t nd_fp32_to_bf16(float f);
float nd_bf16_to_fp32(uint16_t h);

/* ---------------------------------------------------------------------------------- */
/* Ready-made kernels (kernels.c): each declares its tensors in b and returns the       */
/* builder's first error. Rows go on partitions in 128-row tiles, the last one masked.  */

/* out = exp(in), fp32 [rows x cols] ("in", "out"): the NKI profiler example. */
int nd_kernel_exp(struct nd_builder *b, uint32_t rows, uint32_t cols, int double_buffer);
/*
 * C [m x n] = A [m x k] . B [k x n] ("A", "B" of dt, "C" of out_dt): A blocks transposed
 * on TensorE, K-accumulated in PSUM, double-buffered. m, k multiples of 128, k <= 2048,
 * n <= 512 or a multiple of 512; B stays in SBUF.
 */
int nd_kernel_matmul(struct nd_builder *b, uint32_t m, uint32_t k, uint32_t n,
		     enum nd_dtype dt, enum nd_dtype out_dt);
/* y = softmax(x) over each row, fp32 ("x", "y"). */
int nd_kernel_softmax(struct nd_builder *b, uint32_t rows, uint32_t cols);
/* y = (x - mean) / sqrt(var + eps) * gamma + beta over each row ("x", "y"; constants). */
int nd_kernel_layernorm(struct nd_builder *b, uint32_t rows, uint32_t cols,
			const float *gamma, const float *beta, float eps);
/*
 * y [128 x d_out] fp32 = relu(x . w1) . w2 ("x" [128 x d_in], "w1", "w2" of dt), in
 * scopes mlp/fc1, mlp/fc2. d_in, hidden multiples of 128; hidden, d_out <= 512.
 */
int nd_kernel_mlp(struct nd_builder *b, uint32_t d_in, uint32_t hidden, uint32_t d_out,
		  enum nd_dtype dt);

/* ---------------------------------------------------------------------------------- */
/* The host backend: run an image on the host build of the device core (libvncore)     */
/*
 * No module needed: the image is validated by the same code the kernel uses
 * (core/program.c) and run by the same executor (core/vn_exec.h) on host threads, with
 * host buffers as the HBM tensors. A host handle is one core; use it from one thread.
 */

struct nd_host;

/* An HBM tensor of the program, bound by name. size >= the tensor's size. */
struct nd_host_tensor {
	const char *name;
	void *data;
	uint64_t size;
};

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

/* One executed instruction or descriptor, in modeled time (picoseconds). */
struct nd_event {
	uint32_t stream;		/* engine 0..3 or VNEF_STREAM_DMA(queue) */
	uint32_t opcode;		/* enum vnef_opcode, or 0xffff for DMA */
	uint32_t pc;
	uint32_t flags;
	uint64_t start_ps, end_ps;
	uint64_t elements, bytes, flops;
	uint64_t hbm_read, hbm_write;
	uint32_t wait_sem;		/* ~0 if none */
	uint32_t wait_value;
};

/* m may be NULL for the trn1 defaults. */
int nd_host_open(const struct vneuron_model *m, struct nd_host **hp, struct nd_error *err);
void nd_host_close(struct nd_host *h);
const char *nd_host_error(const struct nd_host *h);
/* Keep the events of the following runs (off by default). */
void nd_host_record(struct nd_host *h, int on);
/*
 * Validate and run an image; inputs are read from and outputs written to the bound
 * buffers. Scratch tensors may be left unbound (zeroed by the core). 0 when the
 * execution ended OK; -EINVAL for a rejected image or a bad binding, -EIO when the
 * execution failed (res says where), -ETIMEDOUT past limit_ns (0: the core's default).
 */
int nd_host_run(struct nd_host *h, const void *image, size_t size,
		const struct nd_host_tensor *tensors, unsigned int count, uint64_t limit_ns,
		struct nd_run_result *res);
/* The events of the last recorded run, ordered by (start, stream, pc). */
const struct nd_event *nd_host_events(const struct nd_host *h, size_t *count);
/* One run on a fresh core: nd_host_open + nd_host_run + nd_host_close. */
int nd_run_on_host(const void *image, size_t size, const struct nd_host_tensor *tensors,
		   unsigned int count, struct nd_run_result *res, struct nd_error *err);

/* ---------------------------------------------------------------------------------- */
/* Programs on the device: the kernel path of nd_host_run() (dev_exec.c)               */
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
/* Files                                                                               */

/*
 * Read all of path ("-": standard input) into a malloc()ed buffer of at most max bytes
 * (max < SIZE_MAX). 0, or -errno: -EFBIG when the input is longer than max.
 */
int nd_read_file(const char *path, size_t max, void **bufp, size_t *lenp);

/* ---------------------------------------------------------------------------------- */
/* .vnef files                                                                         */

/* Read a whole file into a malloc()ed buffer. */
int nd_vnef_read(const char *path, void **imagep, size_t *sizep, struct nd_error *err);
int nd_vnef_write(const char *path, const void *image, size_t size, struct nd_error *err);
/*
 * Validate an image with the core's validator and print it: tensors, then each stream's
 * entries with operands, waits, signals, source line and scope. Needs libvncore.
 */
int nd_vnef_dump(const void *image, size_t size, FILE *out, struct nd_error *err);

/* ---------------------------------------------------------------------------------- */
/* Tracing (libneurondev/trace.c; uapi/vneuron_trace.h, docs/trace-buffer.md)           */

struct nd_trace;
struct vneuron_trace_consumer;
struct vneuron_trace_start;

#define ND_TRACE_DEFAULT_RING	(4u << 20)	/* data bytes per ring */

struct nd_trace_opts {
	uint32_t mode;			/* VNEURON_TRACE_MODE_STOP (0) or _OVERWRITE */
	uint32_t watermark;		/* bytes between wake-ups; 0: half the ring */
	uint64_t ring_size;		/* power of two, 4 KiB..256 MiB; 0: the default */
};

/* One ring's mappings, what profiler/ring.c's vnp_ring_init() takes. */
struct nd_trace_ring {
	struct vneuron_trace_consumer *cons;	/* writable consumer page */
	const void *ctrl;			/* read-only control page and data */
	size_t ctrl_len;
};

/*
 * Start tracing a core (o may be NULL: stop mode, default size) and map its rings. Every
 * execution that starts on the core afterwards is traced, from any process. -EBUSY if
 * some file already traces it.
 */
int nd_trace_start(struct nd_device *dev, unsigned int core, const struct nd_trace_opts *o,
		   struct nd_trace **tp);
unsigned int nd_trace_nr_rings(const struct nd_trace *t);
int nd_trace_ring(const struct nd_trace *t, unsigned int i, struct nd_trace_ring *r);
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

#if defined(__cplusplus)
}
#endif

#endif /* NEURONDEV_H */
