/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libvnprog: the program toolchain of vneuron. The builder (C calls in, a .vnef image
 * of uapi/vneuron_program.h out) and its ready-made kernels, .vnef files and their
 * listing, the assembler and disassembler, .npy files, and the host backend that runs
 * images on the host build of the device core. Device access is libneurondev's
 * (neurondev.h, included here for struct nd_error and struct nd_run_result).
 *
 * Link libvnprog.a, libneurondev.a and libvncore.a (the ISA table, the validator and
 * the executor are the device core's).
 *
 * Errors as in neurondev.h: 0 or a negative errno, with a message in the handle
 * (nd_builder_error(), nd_host_error()) or in a struct nd_error. No global state. A
 * builder or a host handle is used by one thread at a time (use several for parallel
 * builds or runs).
 */
#ifndef VNPROG_H
#define VNPROG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "neurondev.h"
#include "vneuron_program.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* ---------------------------------------------------------------------------------- */
/* The program builder: C calls in, a .vnef image (uapi/vneuron_program.h) out         */
/*
 * A program is built from HBM tensors (named inputs, outputs, scratch and constants) and
 * tiles: regions of SBUF or PSUM with a partition axis (<= 128) and a free axis, which
 * the builder places and frees. Every instruction call names the stream it runs on
 * (TensorE, VectorE, ScalarE, GpSimdE, a DMA queue, or the collective engine for the
 * collectives); the builder orders the streams
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
	ND_FP8_E4M3 = 3,	/* VNEF_DT_FP8_E4M3: AWS's cFP8 E4M3 (largest 240) */
	ND_FP8_E5M2 = 4,	/* VNEF_DT_FP8_E5M2 */
	ND_FP8_E4M3FN = 5,	/* VNEF_DT_FP8_E4M3FN: OCP's E4M3 (largest 448), trn3 only */
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
	/* elements added to offset per program id (LNC=2: each instance's slice), or 0 */
	uint64_t pid_stride;
};

/* A raw DMA endpoint: either an HBM tensor or a tile (offsets relative to the tile). */
struct nd_dma_ep {
	struct nd_tensor *tensor;	/* exactly one of tensor and tile */
	struct nd_tile *tile;
	uint64_t offset;		/* bytes */
	uint32_t partition;		/* tiles: first partition of the tile used */
	uint32_t part_stride[2];	/* tiles: partitions per index */
	uint64_t stride[2];		/* bytes per index */
	/* tensors: bytes added to offset per program id (docs/isa.md "Logical cores") */
	uint32_t pid_stride;
};

/* A raw DMA transfer: count[1] x count[0] chunks of chunk_bytes (vnef_dma_desc). */
struct nd_dma_xfer {
	uint32_t chunk_bytes;
	uint32_t count[2];
	struct nd_dma_ep src, dst;
};

int nd_builder_new(const char *program_name, struct nd_builder **bp);
void nd_builder_free(struct nd_builder *b);
/*
 * The device model the program is built for: "trn1" (the default), "trn2" or "trn3"
 * (docs/isa.md, "Device models"). Its SBUF and PSUM are what tiles are placed in, its
 * dtypes and HBM per core what tensors and tiles may have. Set it before the first
 * tensor or tile: -EBUSY after, -EINVAL for a name that is no model.
 */
int nd_builder_set_model(struct nd_builder *b, const char *model);
/* The builder's model (trn1's unless set). */
const struct vneuron_model *nd_builder_model(const struct nd_builder *b);
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
 * Any elementwise instruction of the ISA table (core/isa.c), by its opcode: the calls
 * above for copy, memset, iota, tensor_tensor, tensor_scalar and activate are this one,
 * and an opcode added to the table needs no call of its own. o holds the operands its
 * table entry lists (dst, src0, src1; a SCALAR argument is imm[i], or src1 when its
 * column flag is in flags), its op field (enum nd_alu or nd_act) and flags (VNEF_IF_*
 * the opcode allows, besides VNEF_IF_WAIT). Every source has dst's shape, a column is
 * [P x 1]. TensorE and the reductions have their own calls: -EINVAL for them here.
 */
union nd_imm {
	float f;			/* an F32 or SCALAR argument */
	int32_t i;			/* an S32 argument */
};

struct nd_operands {
	struct nd_tv dst, src0, src1;
	uint32_t op;
	uint32_t flags;
	union nd_imm imm[3];
};

int nd_instr_at(struct nd_builder *b, enum nd_engine e, uint32_t opcode,
		const struct nd_operands *o, const char *file, int line);

/*
 * Collectives: the collective engine (the CC-core, stream VNEF_STREAM_CC) of every rank
 * of a communicator runs the same program (SPMD) and its collectives meet (docs/isa.md,
 * "Collective engine"). A collective reads count elements (n x count for reduce_scatter
 * and all_to_all, n being the ranks of its group) of src from src_offset and writes
 * count (n x count for all_gather and all_to_all) into dst from dst_offset, on HBM
 * tensors of one dtype; dst is an output or scratch tensor. The builder orders it
 * against the other streams by those ranges, as it orders DMA: a load of dst waits for
 * the collective, the collective for earlier stores into src and for every earlier
 * access to dst.
 *
 * Replica groups: group_size members group_stride ranks apart (a stride of 0 is 1), or
 * group_size 0: one group of every rank. With groups the ranges are checked for them;
 * with group_size 0 the number of ranks is known only at execution, so the builder (as
 * the validator) checks one rank's share, orders a side that grows with n as if it ran
 * to the end of its tensor, and the executor checks the rest (a range past the tensor
 * ends the execution with a fault). reduce (ND_ADD or ND_MAX) is for all_reduce and
 * reduce_scatter only, shift (0..group_size - 1, or below 64 for every rank) for permute
 * only: member i sends to member (i + shift) mod n. src and dst may overlap only for an
 * all_reduce in place (the same elements).
 */
struct nd_cc {
	uint32_t opcode;			/* enum vnef_cc_opcode, not VNEF_CC_NOP */
	struct nd_tensor *src, *dst;
	uint64_t src_offset, dst_offset;	/* elements */
	uint64_t count;				/* elements, as above */
	enum nd_alu reduce;			/* all_reduce, reduce_scatter: ND_ADD, ND_MAX */
	uint16_t group_size, group_stride;	/* 0, 0: one group of every rank */
	uint32_t shift;				/* permute */
};

int nd_collective_at(struct nd_builder *b, const struct nd_cc *cc, const char *file,
		     int line);
/* The same over every rank, from element 0 of both tensors. */
int nd_all_reduce_at(struct nd_builder *b, struct nd_tensor *dst, struct nd_tensor *src,
		     uint64_t count, enum nd_alu op, const char *file, int line);
int nd_all_gather_at(struct nd_builder *b, struct nd_tensor *dst, struct nd_tensor *src,
		     uint64_t count, const char *file, int line);
int nd_reduce_scatter_at(struct nd_builder *b, struct nd_tensor *dst, struct nd_tensor *src,
			 uint64_t count, enum nd_alu op, const char *file, int line);
int nd_all_to_all_at(struct nd_builder *b, struct nd_tensor *dst, struct nd_tensor *src,
		     uint64_t count, const char *file, int line);
int nd_permute_at(struct nd_builder *b, struct nd_tensor *dst, struct nd_tensor *src,
		  uint64_t count, uint32_t shift, const char *file, int line);

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
#define nd_instr(b, ...)		nd_instr_at((b), __VA_ARGS__, ND_AT)
#define nd_collective(b, ...)		nd_collective_at((b), __VA_ARGS__, ND_AT)
#define nd_all_reduce(b, ...)		nd_all_reduce_at((b), __VA_ARGS__, ND_AT)
#define nd_all_gather(b, ...)		nd_all_gather_at((b), __VA_ARGS__, ND_AT)
#define nd_reduce_scatter(b, ...)	nd_reduce_scatter_at((b), __VA_ARGS__, ND_AT)
#define nd_all_to_all(b, ...)		nd_all_to_all_at((b), __VA_ARGS__, ND_AT)
#define nd_permute(b, ...)		nd_permute_at((b), __VA_ARGS__, ND_AT)

/*
 * Resolve the semaphores and lay out the image. *imagep is malloc()ed (free() it);
 * the builder can still be freed or finished again afterwards.
 */
int nd_builder_finish(struct nd_builder *b, void **imagep, size_t *sizep);
int nd_builder_write(struct nd_builder *b, const char *path);

/*
 * Entries of a stream so far (engine 0..3, VNEF_STREAM_DMA(queue) or VNEF_STREAM_CC),
 * NOPs included.
 */
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
/* The host backend (host.c): run an image on the host build of the device core        */
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

/* One executed instruction or descriptor, in modeled time (picoseconds). */
struct nd_event {
	uint32_t stream;		/* engine 0..3, VNEF_STREAM_DMA(queue) or VNEF_STREAM_CC */
	uint32_t opcode;		/* enum vnef_opcode, 0xffff for DMA, enum vnef_cc_opcode */
	uint32_t pc;
	uint32_t flags;
	uint64_t start_ps, end_ps;
	uint64_t elements, bytes, flops;
	uint64_t hbm_read, hbm_write;
	uint32_t wait_sem;		/* ~0 if none */
	uint32_t wait_value;
	/* collectives (VNEF_STREAM_CC), else 0: the rank, its group's size, the last */
	uint32_t cc_rank;		/* member to arrive and its arrival (modeled) */
	uint32_t cc_members;
	uint32_t cc_last;
	uint64_t cc_latest_ps;
	/* LNC=2: the physical core of the logical core that ran it, its program id (0, 1) */
	uint32_t core;
};

/*
 * The device model called name ("trn1", "trn2" or "trn3": docs/isa.md, "Device
 * models"): 0 with *m set, or -EINVAL with *m NULL and err saying "unknown model 'x'
 * (the models are trn1, trn2, trn3)". Every --model option and model= argument goes
 * through it, so the host backend's model is chosen in one place.
 */
int nd_model_lookup(const char *name, const struct vneuron_model **m, struct nd_error *err);
/* The models' names in table order, ", "-separated: "trn1, trn2, trn3". */
void nd_model_names(char *buf, size_t size);
/*
 * The model that accepts every program another model accepts (most SBUF and PSUM a
 * partition, partitions, HBM, dtypes), for tools that only read a program's tensors;
 * NULL if no model covers all the others.
 */
const struct vneuron_model *nd_model_widest(void);

/*
 * Edits between a[0..na) and b[0..nb) (insert, delete, change, swap two neighbours),
 * for "did you mean" suggestions; 99 for words of 40 characters or more.
 */
unsigned int nd_edits(const char *a, size_t na, const char *b, size_t nb);

struct vn_program;
/*
 * Whether every execution of vp that ends OK writes every byte of its HBM tensor
 * `tensor` (by DMA descriptors that write the same bytes for each program id): 1, or 0
 * when that is not certain (cover.c). A caller that only hands out the buffer after an
 * OK execution may then leave a new output buffer unzeroed.
 */
int nd_program_writes_all(const struct vn_program *vp, uint32_t tensor);

/* m may be NULL for the trn1 defaults. */
int nd_host_open(const struct vneuron_model *m, struct nd_host **hp, struct nd_error *err);
void nd_host_close(struct nd_host *h);
const char *nd_host_error(const struct nd_host *h);
/* Keep the events of the following runs (off by default). */
void nd_host_record(struct nd_host *h, int on);
/*
 * Run the following runs on a logical core of lnc physical cores (1, the default, or
 * 2: LNC=2, docs/isa.md "Logical cores"): two SPMD instances, program ids 0 and 1, on
 * two host cores sharing the bound buffers; nd_host_run() then reports the first
 * failing instance's status and the later end's times. Recorded events
 * (nd_host_record()) are both instances', each with its core (= program id); collectives
 * are instance 0's; a trace session started after it traces both instances
 * (nd_host_trace_instance()). -EINVAL (said) for another count or a model without
 * logical cores (trn1), -EBUSY changing it while traced, -ENOMEM.
 */
int nd_host_set_lnc(struct nd_host *h, unsigned int lnc);
/*
 * Validate and run an image; inputs are read from and outputs written to the bound
 * buffers. Scratch tensors may be left unbound (zeroed by the core). 0 when the
 * execution ended OK; -EINVAL for a rejected image or a bad binding, -EIO when the
 * execution failed (res says where), -ETIMEDOUT past limit_ns (0: the core's default).
 */
int nd_host_run(struct nd_host *h, const void *image, size_t size,
		const struct nd_host_tensor *tensors, unsigned int count, uint64_t limit_ns,
		struct nd_run_result *res);
/* The events of the last recorded run, ordered by (start, core, stream, pc). */
const struct nd_event *nd_host_events(const struct nd_host *h, size_t *count);
/*
 * Tracing a host handle: the module's trace session (TRACE_START, docs/trace-buffer.md)
 * in host memory, so a profiler drains it with the same consumer (nd_ring_*()) and gets
 * the same records: one ring per producer thread of the core, written by the device
 * core's own trace code from the runs of h that start after nd_host_trace_start() (o as
 * for nd_trace_start(); NULL: stop mode, the default size) until nd_host_trace_stop().
 * Start and stop between runs. nd_host_trace_fd() is an eventfd that becomes readable
 * when a ring passes its watermark, an execution ends, or tracing stops (read it to
 * clear it): for a drainer's poll(). nd_host_trace_free() (or nd_host_close()) frees
 * the rings. -EINVAL (a bad size or mode, said), -EBUSY (already traced), -ENOMEM.
 */
struct nd_host_trace;
int nd_host_trace_start(struct nd_host *h, const struct nd_trace_opts *o,
			struct nd_host_trace **tp);
unsigned int nd_host_trace_nr_rings(const struct nd_host_trace *t);
/* A consumer of ring i: nd_ring_init() on it. 0 or -EINVAL. */
int nd_host_trace_ring(const struct nd_host_trace *t, unsigned int i, struct nd_ring *r);
int nd_host_trace_fd(const struct nd_host_trace *t);
/*
 * LNC=2 (nd_host_set_lnc() before nd_host_trace_start()): program id pid's session, 0 t
 * itself, 1 the second host core's, with its own rings and eventfd, started, stopped
 * and freed with t (never nd_host_trace_free() it alone); NULL otherwise.
 */
struct nd_host_trace *nd_host_trace_instance(struct nd_host_trace *t, unsigned int pid);
int nd_host_trace_stop(struct nd_host_trace *t);
void nd_host_trace_free(struct nd_host_trace *t);
/* One run on a fresh core: nd_host_open + nd_host_run + nd_host_close. */
int nd_run_on_host(const void *image, size_t size, const struct nd_host_tensor *tensors,
		   unsigned int count, struct nd_run_result *res, struct nd_error *err);

/*
 * Collectives on the host: a communicator of nranks (1..64) ranks, device[r] the device
 * of rank r (two ranks of one device exchange over the intra-device link of the model,
 * others over the inter-device link; NULL: every rank on device 0). Each rank is a host
 * handle bound to it by nd_host_set_comm() (NULL: unbound), used from its own thread:
 * the ranks' nd_host_run() of the same program meet at every collective, and each
 * returns when its own execution ends. A program with collectives is refused (-ENOTCONN)
 * on an unbound handle. A failed rank (an error, a timeout) breaks the communicator:
 * the others' runs end too, and every later collective fails at once; use a new one.
 * nd_host_comm_free() drops the caller's reference: bound handles keep theirs until
 * unbound or closed. -EINVAL (nranks), -ENOMEM.
 */
struct nd_host_comm;

int nd_host_comm_new(unsigned int nranks, const uint32_t *device, struct nd_host_comm **cp);
/* The same with the links of model m (NULL: trn1's): its collective figures. */
int nd_host_comm_new_model(const struct vneuron_model *m, unsigned int nranks,
			   const uint32_t *device, struct nd_host_comm **cp);
void nd_host_comm_free(struct nd_host_comm *c);
unsigned int nd_host_comm_size(const struct nd_host_comm *c);
/* 1 once a rank failed: every later collective of this communicator fails. */
int nd_host_comm_broken(struct nd_host_comm *c);
/* The following runs of h are rank of c (-EINVAL for a rank out of range). */
int nd_host_set_comm(struct nd_host *h, struct nd_host_comm *c, unsigned int rank);
/*
 * For transports (libvnmpi): the device core's communicator under c (core/vn_comm.h), to
 * place ranks on nodes and mark the ranks a proxy posts. NULL for NULL.
 */
struct vn_comm;
struct vn_comm *nd_host_comm_core(struct nd_host_comm *c);

/* ---------------------------------------------------------------------------------- */
/* Files (file.c)                                                                      */

/*
 * Read all of path ("-": standard input) into a malloc()ed buffer of at most max bytes
 * (max < SIZE_MAX). 0, or -errno: -EFBIG when the input is longer than max.
 */
int nd_read_file(const char *path, size_t max, void **bufp, size_t *lenp);


/*
 * An output file that never loses what the user has (outfile.c): every tool writes its
 * outputs through it. nd_out_open() refuses a path that names one of the inputs (the
 * same device and inode, whatever the name) and, unless ND_OUT_FORCE, a path that
 * exists; then it creates a temporary file in the same directory. nd_out_commit()
 * flushes, fsync()s and renames it into place; nd_out_abort() removes it, so a failed
 * run leaves the old file as it was. "-" is standard output (commit only flushes); an
 * existing path that is not a regular file (/dev/null, a pipe) is written directly.
 */
#define ND_OUT_FORCE	1u	/* --force-overwrite: replace an existing output */
/* Commit with link() + unlink(), as where renameat2() is missing (for tests). */
#define ND_OUT_LINK	2u

struct nd_outfile {
	FILE *f;		/* write here */
	char *path;		/* the output's name (NULL for standard output) */
	char *tmp;		/* the temporary file, renamed to path by nd_out_commit() */
	unsigned int flags;	/* ND_OUT_* given to nd_out_open() */
	char *kept;		/* after commit's -EEXIST: where the output is */
};

/*
 * Checks path against the inputs (NULL entries and "-" skipped) and, without
 * ND_OUT_FORCE, refuses an existing path. 0, or -EINVAL (path is input inputs[i]: *which
 * = i) or -EEXIST, with the reason in msg.
 */
int nd_out_check(const char *path, const char *const *inputs, unsigned int n,
		 unsigned int flags, char *msg, size_t msglen);
/* nd_out_check(), then the temporary file. 0 or -errno, with the reason in msg. */
int nd_out_open(struct nd_outfile *o, const char *path, const char *const *inputs,
		unsigned int n, unsigned int flags, char *msg, size_t msglen);
/*
 * Flush, fsync, close and rename into place. Without ND_OUT_FORCE the rename never
 * replaces a file: one created at the path since the check (by someone else) stays, and
 * commit returns -EEXIST, keeping the output under its temporary name (o->kept, said by
 * nd_out_strerror(); nd_out_release() frees the names). Other errors: -errno, the
 * temporary file removed.
 */
int nd_out_commit(struct nd_outfile *o);
/* Close and remove the temporary file; the old output, if any, stays. */
void nd_out_abort(struct nd_outfile *o);
/* A sentence naming the file for ret, a return of nd_out_commit(), in buf. */
const char *nd_out_strerror(const struct nd_outfile *o, int ret, char *buf, size_t len);
/* Frees what a failed commit kept for the message (the kept file itself stays). */
void nd_out_release(struct nd_outfile *o);
/*
 * data as the whole of path, through the above: nd_out_open() (no inputs), one write,
 * nd_out_commit(). 0 or -errno with the reason in msg (-EEXIST: exists without
 * ND_OUT_FORCE, or appeared meanwhile).
 */
int nd_out_write(const char *path, const void *data, size_t size, unsigned int flags,
		 char *msg, size_t msglen);

/* Read a whole .vnef file into a malloc()ed buffer; only its size and magic are checked. */
int nd_vnef_read(const char *path, void **imagep, size_t *sizep, struct nd_error *err);
/* Write an image through a temporary file and rename(): no reader sees half of it. */
int nd_vnef_write(const char *path, const void *image, size_t size, struct nd_error *err);

/* ---------------------------------------------------------------------------------- */
/* Listing (dump.c)                                                                    */

/*
 * Validate an image with the core's validator and print it: tensors, then each stream's
 * entries with operands, waits, signals, source line and scope.
 */
int nd_vnef_dump(const void *image, size_t size, FILE *out, struct nd_error *err);

/* ---------------------------------------------------------------------------------- */
/* The assembler and disassembler (asm_*.c, docs/assembler.md)                          */
/*
 * The vneuron assembly language: a text form of .vnef programs.
 * nd_asm() parses it into an image, nd_dis() prints an image back as text; the
 * formatters print one instruction or descriptor in the same syntax.
 *
 * Round trip: for an image in the canonical layout (the one nd_asm() and the builder
 * write: STRTAB, TENSORS, CONST, streams in id order, DEBUG with one entry per entry),
 * nd_asm(nd_dis(image)) is byte-identical to the image, debug table included.
 */

/* One assembler error: where (1-based; line 0 when not tied to a line) and what. */
struct nd_asm_diag {
	unsigned int line;
	unsigned int col;
	char msg[224];
};

/* nd_asm() flags. */
#define ND_ASM_NO_VALIDATE	0x1u	/* skip the core validator (write invalid images) */

/*
 * Assemble len bytes of text. filename names the source in messages and, by default,
 * in the debug table. On success *imagep (malloc()ed) and *sizep hold the image. On
 * failure it returns -EINVAL for errors in the text (-ENOMEM, -E2BIG otherwise), every
 * error is printed to errs (may be NULL) as "file:line:col: error: message", and the
 * first is copied to *first (may be NULL). Unless ND_ASM_NO_VALIDATE, the image is
 * checked by the core's validator and a refusal is reported at the offending line.
 */
int nd_asm(const char *text, size_t len, const char *filename, unsigned int flags,
	   void **imagep, size_t *sizep, struct nd_asm_diag *first, FILE *errs);

/* nd_dis() flags. */
#define ND_DIS_NO_LAYOUT	0x1u	/* never write a .strtab directive */

/*
 * Print a valid image as assembly. -EINVAL (message in err) when the validator refuses
 * it. *exact (may be NULL) is set to 1 when reassembling the text gives the same bytes,
 * 0 when the image's layout is not canonical (the text is still the same program).
 */
int nd_dis(const void *image, size_t size, unsigned int flags, FILE *out, int *exact,
	   struct nd_error *err);

/*
 * One instruction or descriptor as a line of assembly (no indentation, no newline),
 * snprintf-style: returns the length it needs. DMA endpoints name tensors through
 * names[tensor] when names is given and tensor < ntensors, else as "#index".
 */
size_t nd_asm_format_instr(char *buf, size_t size, const struct vnef_instr *in);
size_t nd_asm_format_desc(char *buf, size_t size, const struct vnef_dma_desc *d,
			  const char *const *names, uint32_t ntensors);
/* A collective engine entry ("all_reduce add fp32 y@0x0, x@0x0, 1024"), tensors as above. */
size_t nd_asm_format_cc(char *buf, size_t size, const struct vnef_cc_instr *in,
			const char *const *names, uint32_t ntensors);

/*
 * A stream as the text names it: "vector", "queue 3", "cc"; "?" if none. Opcodes, ALU ops,
 * functions and the rest are the ISA table's (core/vn_isa.h: vn_opcode_mnemonic() ...).
 */
const char *nd_asm_engine_name(uint32_t stream);

/* ---------------------------------------------------------------------------------- */
/* NumPy files (npy.c)                                                                 */
/*
 * NumPy .npy files of little-endian float32 in C order: a small, strict reader and a
 * writer (format versions 1.0, 2.0 and 3.0; https://numpy.org/doc/stable/reference/
 * generated/numpy.lib.format.html), for vneuron-run and vneuron-profile capture.
 */

#define ND_NPY_MAX_DIMS 8

struct nd_npy {
	unsigned int ndim;		/* 0 for a scalar */
	uint64_t shape[ND_NPY_MAX_DIMS];
	uint64_t count;			/* elements: the product of shape */
	size_t data_off;		/* where the float32 data starts in the file */
};

/*
 * Parse the header of a whole .npy file held in buf and check that exactly count * 4
 * bytes of data follow. -EINVAL with a message naming the problem in err (may be NULL):
 * bad magic, unknown version, truncated or malformed header, a dtype other than '<f4',
 * Fortran order, a bad shape, or a data size that does not match the shape.
 */
int nd_npy_parse(const void *buf, size_t len, struct nd_npy *npy, struct nd_error *err);

/* Read path whole and parse it; *filep (malloc()ed, free it) holds the file. */
int nd_npy_load(const char *path, struct nd_npy *npy, void **filep, struct nd_error *err);

/* Write count = product(shape) float32 values as a version 1.0 .npy file. */
int nd_npy_save(const char *path, const uint64_t *shape, unsigned int ndim,
		const float *data, struct nd_error *err);

/* ---------------------------------------------------------------------------------- */
/* Versions                                                                           */

/* This library's version (the same as nd_version() for a matched installation). */
const char *nd_vnprog_version(void);

/*
 * A tool's --version: nd_version_string() for @tool with libvnprog's version added,
 * written to out. 0, or -EIO if it could not be written.
 */
int nd_tool_version(FILE *out, const char *tool);

#if defined(__cplusplus)
}
#endif

#endif /* VNPROG_H */
