/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * vneuron: the .vnef program format (cf. NEFF), shared by the kernel's validator
 * (core/program.c), the program builder (libneurondev) and the profiler.
 * docs/program-format.md describes the layout and every validation rule,
 * docs/isa.md every instruction.
 *
 * An image is little-endian and self-describing:
 *
 *   struct vnef_header                    at 0, header_size bytes
 *   struct vnef_section[section_count]    at header_size
 *   section payloads                      8-byte aligned, inside total_size, no overlap
 *
 * Sections: one string table, one tensor table, at most one constant blob, one
 * instruction stream per engine (struct vnef_instr[], index = engine), one descriptor
 * stream per DMA queue (struct vnef_dma_desc[], index = queue), at most one debug table.
 * All structs are fixed-size with explicit padding; every pad and reserved field must be
 * zero, every unknown flag bit is rejected.
 *
 * Streams: engines 0..3 (enum vneuron_engine) and DMA queues 0..15 are the 20 streams
 * of a core (stream id VNEF_STREAM_DMA(q) = 4 + q). Each runs its own entries in order.
 * An entry may first wait until one semaphore reaches a value, and increments every
 * semaphore in signal_mask by one when it completes. Each semaphore is incremented by
 * exactly one stream (validated), which makes the modeled timeline deterministic. All
 * semaphores are zero at the start of every execution. The execution ends when every
 * stream has run its last entry.
 */
#ifndef _UAPI_VNEURON_PROGRAM_H
#define _UAPI_VNEURON_PROGRAM_H

#include <linux/const.h>
#include <linux/types.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define VNEF_MAGIC		0x46454e56u	/* "VNEF" read as a little-endian __u32 */
#define VNEF_VERSION		1

/* Limits (the validator rejects more). */
#define VNEF_MAX_IMAGE_BYTES	(64u << 20)
#define VNEF_MAX_SECTIONS	64
#define VNEF_MAX_TENSORS	256
#define VNEF_MAX_TENSOR_BYTES	_BITULL(34)	/* 16 GiB: the modeled HBM of a core */
#define VNEF_MAX_INSTRS		65536		/* per engine stream */
#define VNEF_MAX_DESCS		65536		/* per DMA queue */
#define VNEF_MAX_SEMS		64		/* semaphores per core */
#define VNEF_MAX_RANK		4
#define VNEF_MAX_FREE		98304		/* free size of an operand: bf16 per partition */
#define VNEF_ENGINES		4
#define VNEF_DMA_QUEUES		16
#define VNEF_STREAMS		(VNEF_ENGINES + VNEF_DMA_QUEUES)
#define VNEF_STREAM_DMA(q)	(VNEF_ENGINES + (q))

/* The on-chip memories (also in struct vneuron_model). */
#define VNEF_PARTITIONS		128
#define VNEF_SBUF_PART_BYTES	(192u << 10)
#define VNEF_PSUM_PART_BYTES	(16u << 10)
#define VNEF_PSUM_BANK_BYTES	(2u << 10)

/* TensorE shape limits. */
#define VNEF_MM_MAX_K		128	/* contraction: partitions of both operands */
#define VNEF_MM_MAX_M		128	/* stationary free size = output partitions */
#define VNEF_MM_MAX_N		512	/* moving free size = output free size */

struct vnef_header {
	__u32 magic;			/* VNEF_MAGIC */
	__u32 version;			/* VNEF_VERSION */
	__u32 header_size;		/* sizeof(struct vnef_header) */
	__u32 flags;			/* must be 0 */
	__u64 total_size;		/* the whole image; equals the size handed to the loader */
	__u32 section_count;		/* 1..VNEF_MAX_SECTIONS */
	__u32 section_entry_size;	/* sizeof(struct vnef_section) */
	__u32 name_off;			/* program name: offset in the string table (0 = "") */
	__u32 reserved[3];		/* must be 0 */
};

enum vnef_section_type {
	VNEF_SEC_STRTAB = 1,	/* NUL-terminated strings; byte 0 is NUL; last byte is NUL */
	VNEF_SEC_TENSORS = 2,	/* struct vnef_tensor[count] */
	VNEF_SEC_CONST = 3,	/* bytes of constant tensors */
	VNEF_SEC_INSTR = 4,	/* struct vnef_instr[count]; index = engine */
	VNEF_SEC_DMA = 5,	/* struct vnef_dma_desc[count]; index = DMA queue */
	VNEF_SEC_DEBUG = 6,	/* struct vnef_debug[count] */
};

struct vnef_section {
	__u32 type;			/* enum vnef_section_type */
	__u32 index;			/* engine (INSTR), queue (DMA), else 0 */
	__u64 offset;			/* from the start of the image, multiple of 8 */
	__u64 size;			/* bytes; count * entry_size for tables */
	__u32 count;			/* entries (tables), else 0 */
	__u32 entry_size;		/* sizeof the entry struct (tables), else 0 */
};

enum vnef_dtype {
	VNEF_DT_FP32 = 1,
	VNEF_DT_BF16 = 2,	/* stored round-to-nearest-even; computed in fp32 */
};

enum vnef_tensor_kind {
	VNEF_TENSOR_INPUT = 1,	/* bound at execution, read */
	VNEF_TENSOR_OUTPUT = 2,	/* bound at execution, written (may be read) */
	VNEF_TENSOR_SCRATCH = 3,/* bound at execution or given zeroed by the core */
	VNEF_TENSOR_CONST = 4,	/* data in the CONST section, read-only */
};

/* A named HBM tensor. size = product(shape[0..rank-1]) * dtype size. */
struct vnef_tensor {
	__u32 name_off;			/* string table; names are unique and non-empty */
	__u32 kind;			/* enum vnef_tensor_kind */
	__u32 dtype;			/* enum vnef_dtype */
	__u32 rank;			/* 1..VNEF_MAX_RANK */
	__u64 shape[VNEF_MAX_RANK];	/* dims >= 1; unused dims 0 */
	__u64 size;			/* bytes, <= VNEF_MAX_TENSOR_BYTES */
	__u64 const_off;		/* CONST: offset in the CONST section; else 0 */
};

enum vnef_mem {
	VNEF_MEM_NONE = 0,	/* operand unused: every field must be 0 */
	VNEF_MEM_SBUF = 1,
	VNEF_MEM_PSUM = 2,
	VNEF_MEM_HBM = 3,	/* DMA endpoints only */
};

/*
 * An on-chip operand ("access pattern"): partitions [start_partition, +partitions) of
 * SBUF or PSUM and, in each, the free-axis elements
 *   offset + (i1 * stride[1] + i0 * stride[0]) * dtype size,  i0 < count[0], i1 < count[1]
 * visited i1-major. Its free size is count[0] * count[1] <= VNEF_MAX_FREE. Strides are
 * in elements and may be 0 (broadcast) in sources. Every element must lie inside the
 * partition.
 */
struct vnef_ap {
	__u16 mem;			/* enum vnef_mem: SBUF or PSUM */
	__u16 dtype;			/* enum vnef_dtype */
	__u16 start_partition;
	__u16 partitions;		/* >= 1; start_partition + partitions <= 128 */
	__u32 offset;			/* bytes from the start of each partition, dtype aligned */
	__u32 count[2];			/* >= 1 each */
	__u32 stride[2];		/* elements */
	__u32 pad;			/* must be 0 */
};

/* Instruction opcodes; the engine column says which streams accept each. */
enum vnef_opcode {
	VNEF_OP_NOP = 0,		/* any engine: only waits and signals */
	/* TensorE */
	VNEF_OP_LOAD_STATIONARY = 1,	/* src0 [K part x M] -> stationary array */
	VNEF_OP_MULTIPLY_MOVING = 2,	/* dst PSUM [M x N] (+)= stat^T . src0 [K x N] */
	VNEF_OP_TRANSPOSE = 3,		/* dst [F part x P] = src0 [P part x F]^T */
	/* VectorE and GpSimdE */
	VNEF_OP_TENSOR_TENSOR = 4,	/* dst = src0 <alu> src1 */
	VNEF_OP_TENSOR_SCALAR = 5,	/* dst = src0 <alu> scalar (imm or per-partition) */
	/* VectorE */
	VNEF_OP_REDUCE = 6,		/* dst [P x 1] = <alu> over the free axis of src0 */
	/* VectorE, ScalarE, GpSimdE */
	VNEF_OP_COPY = 7,		/* dst = src0, converted to dst's dtype */
	/* ScalarE */
	VNEF_OP_ACTIVATE = 8,		/* dst = func(src0 * scale + bias) */
	/* VectorE and GpSimdE */
	VNEF_OP_MEMSET = 9,		/* dst = imm[0] (fp32 bits) */
	/* GpSimdE */
	VNEF_OP_IOTA = 10,		/* dst[p][j] = imm0 + p * imm1 + j * imm2 (s32) */
	VNEF_OP_PARTITION_REDUCE = 11,	/* dst [1 x F] = <alu> over the partitions of src0 */
	VNEF_OP_COUNT = 12,
};

/* Instruction flags. */
#define VNEF_IF_WAIT		_BITUL(0)	/* wait until sem[wait_sem] >= wait_value */
#define VNEF_IF_ACCUMULATE	_BITUL(1)	/* MULTIPLY_MOVING, TRANSPOSE: add to PSUM */
#define VNEF_IF_SCALAR_COLUMN	_BITUL(2)	/* TENSOR_SCALAR: scalar is src1 [P x 1] */
#define VNEF_IF_REVERSE		_BITUL(3)	/* TENSOR_SCALAR: dst = scalar <alu> src0 */
#define VNEF_IF_BIAS_COLUMN	_BITUL(4)	/* ACTIVATE: bias is src1 [P x 1], not imm[1] */
#define VNEF_IF_ALL		0x1fu

/* VectorE / GpSimdE arithmetic and reductions (REDUCE, PARTITION_REDUCE: ADD, MAX, MIN). */
enum vnef_alu {
	VNEF_ALU_ADD = 0,
	VNEF_ALU_SUB = 1,
	VNEF_ALU_MUL = 2,
	VNEF_ALU_MAX = 3,
	VNEF_ALU_MIN = 4,
	VNEF_ALU_DIV = 5,
	VNEF_ALU_COUNT = 6,
};

/* ScalarE activation functions. */
enum vnef_act {
	VNEF_ACT_IDENTITY = 0,
	VNEF_ACT_EXP = 1,
	VNEF_ACT_LOG = 2,
	VNEF_ACT_TANH = 3,
	VNEF_ACT_SIGMOID = 4,
	VNEF_ACT_GELU = 5,		/* tanh approximation */
	VNEF_ACT_RELU = 6,
	VNEF_ACT_SQRT = 7,
	VNEF_ACT_RSQRT = 8,
	VNEF_ACT_RECIPROCAL = 9,
	VNEF_ACT_SQUARE = 10,
	VNEF_ACT_COUNT = 11,
};

/*
 * Operands and immediates per opcode (shapes as [partitions x free size]):
 *   LOAD_STATIONARY   src0 SBUF [K x M], K <= 128, M <= 128
 *   MULTIPLY_MOVING   src0 SBUF [K x N], N <= 512, K as loaded; dst PSUM fp32 [M x N]
 *                     inside one 2 KiB bank; VNEF_IF_ACCUMULATE adds instead of writing
 *   TRANSPOSE         src0 SBUF [P x F], P, F <= 128; dst PSUM fp32 [F x P] (one bank)
 *   TENSOR_TENSOR     op = alu; src0, src1, dst [P x F] alike (dtypes may differ)
 *   TENSOR_SCALAR     op = alu; scalar = imm[0] or src1 [P x 1] (VNEF_IF_SCALAR_COLUMN)
 *   REDUCE            op = ADD, MAX or MIN; src0 [P x F] -> dst [P x 1]
 *   COPY              src0 [P x F] -> dst [P x F]
 *   ACTIVATE          op = act; scale = imm[0], bias = imm[1] or src1 [P x 1]
 *   MEMSET            dst [P x F] = imm[0]
 *   IOTA              dst [P x F], dst[p][j] = imm[0] + p * imm[1] + j * imm[2] (s32)
 *   PARTITION_REDUCE  op = ADD, MAX or MIN; src0 [P x F] -> dst [1 x F]
 * where P and F match between operands (element j of the free axis is matched in visit
 * order, so counts may differ as long as the free sizes agree).
 */

/*
 * One engine instruction (160 bytes). Operands not used by the opcode have mem NONE and
 * all-zero fields. imm[] holds fp32 bit patterns except for IOTA (s32).
 */
struct vnef_instr {
	__u32 opcode;			/* enum vnef_opcode */
	__u32 flags;			/* VNEF_IF_* */
	__u32 wait_sem;			/* with VNEF_IF_WAIT, else 0 */
	__u32 wait_value;		/* with VNEF_IF_WAIT: >= 1, else 0 */
	__u64 signal_mask;		/* bit s: sem[s] += 1 on completion */
	struct vnef_ap dst;
	struct vnef_ap src0;
	struct vnef_ap src1;
	__u32 op;			/* enum vnef_alu or enum vnef_act; else 0 */
	__u32 pad;			/* must be 0 */
	__u32 imm[4];			/* per opcode: see docs/isa.md; unused must be 0 */
	__u32 reserved[4];		/* must be 0 */
};

/*
 * A DMA endpoint. HBM: tensor + byte offset; on-chip: start partition + byte offset in
 * the partition. The transfer is count[1] x count[0] chunks of chunk_bytes:
 * chunk (i1, i0) is at
 *   HBM:     offset + i1 * stride[1] + i0 * stride[0]                        (bytes)
 *   on-chip: partition + i1 * part_stride[1] + i0 * part_stride[0],
 *            byte offset + i1 * stride[1] + i0 * stride[0] within that partition
 * A chunk never crosses a partition end.
 */
struct vnef_dma_ep {
	__u32 mem;			/* enum vnef_mem: SBUF, PSUM or HBM */
	__u32 tensor;			/* HBM: tensor index; else 0 */
	__u64 offset;			/* bytes */
	__u32 partition;		/* on-chip: first partition; HBM: 0 */
	__u32 pad;			/* must be 0 */
	__u32 part_stride[2];		/* on-chip: partitions per index; HBM: 0 */
	__u64 stride[2];		/* bytes per index */
};

/* One DMA descriptor (128 bytes): copies count[1] * count[0] * chunk_bytes bytes. */
struct vnef_dma_desc {
	__u32 flags;			/* VNEF_IF_WAIT only */
	__u32 wait_sem;
	__u32 wait_value;
	__u32 chunk_bytes;		/* >= 1 contiguous bytes per chunk */
	__u64 signal_mask;
	__u32 count[2];			/* >= 1 each */
	struct vnef_dma_ep src;
	struct vnef_dma_ep dst;
};

/* Debug table: where an instruction or descriptor came from. */
struct vnef_debug {
	__u32 stream;			/* engine 0..3 or VNEF_STREAM_DMA(queue) */
	__u32 index;			/* entry in that stream */
	__u32 file_off;			/* string table: source file */
	__u32 line;
	__u32 scope_off;		/* string table: scope path, e.g. "mlp/fc1/matmul" */
	__u32 pad;			/* must be 0 */
};

/* Which validation check failed (the loader's error report). Append only. */
enum vnef_check {
	VNEF_CHK_OK = 0,
	VNEF_CHK_SIZE,			/* image too small, too large, or total_size mismatch */
	VNEF_CHK_MAGIC,
	VNEF_CHK_VERSION,
	VNEF_CHK_HEADER,		/* header_size, flags, reserved, entry size, counts */
	VNEF_CHK_SECTION,		/* section type, index, alignment, bounds, overlap */
	VNEF_CHK_SECTION_DUP,		/* a section given twice */
	VNEF_CHK_SECTION_MISSING,	/* no string or tensor table, or no stream at all */
	VNEF_CHK_STRTAB,		/* string table framing */
	VNEF_CHK_STRING,		/* an offset outside the string table or a bad name */
	VNEF_CHK_TENSOR,		/* kind, dtype, rank, shape, size, const data */
	VNEF_CHK_TENSOR_NAME,		/* empty or duplicate name */
	VNEF_CHK_LIMIT,			/* too many entries */
	VNEF_CHK_OPCODE,		/* unknown opcode or not accepted by this engine */
	VNEF_CHK_FLAGS,			/* unknown or inapplicable flag */
	VNEF_CHK_RESERVED,		/* a pad, reserved or unused field is not 0 */
	VNEF_CHK_SEM,			/* semaphore id, wait value, or a second writer */
	VNEF_CHK_OPERAND,		/* memory, dtype, partitions, counts or bounds */
	VNEF_CHK_SHAPE,			/* opcode-specific shape rule */
	VNEF_CHK_ALU,			/* alu op or activation function */
	VNEF_CHK_DMA,			/* DMA endpoint or size */
	VNEF_CHK_DEBUG,			/* debug entry */
	VNEF_CHK_DEADLOCK,		/* a wait that can never be satisfied */
	VNEF_CHK_NR,			/* number of checks */
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VNEURON_PROGRAM_H */
