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
 * stream per DMA queue (struct vnef_dma_desc[], index = queue), at most one collective
 * stream (struct vnef_cc_instr[], index 0; version 2), at most one debug table.
 * All structs are fixed-size with explicit padding; every pad and reserved field must be
 * zero, every unknown flag bit is rejected.
 *
 * Streams: engines 0..3 (enum vneuron_engine), DMA queues 0..15 and the collective
 * engine (the CC-core) are the 21 streams of a core (stream id VNEF_STREAM_DMA(q) = 4 + q,
 * VNEF_STREAM_CC = 20). Each runs its own entries in order.
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
#define VNEF_VERSION		2	/* 2 added the collective stream; 1 is still read */
#define VNEF_VERSION_MIN	1

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
#define VNEF_STREAM_DMA(q)	(VNEF_ENGINES + (q))
#define VNEF_STREAM_CC		(VNEF_ENGINES + VNEF_DMA_QUEUES)
#define VNEF_STREAMS		(VNEF_STREAM_CC + 1)
#define VNEF_MAX_CC_INSTRS	4096		/* collective stream entries */
#define VNEF_CC_MAX_RANKS	64		/* ranks of a communicator */
#define VNEF_CC_MAX_BYTES	_BITULL(31)	/* a rank's input or output of a collective */

/*
 * The on-chip memories. A model's own sizes are in struct vneuron_model: a program must
 * fit the model it runs on. VNEF_SBUF_PART_BYTES is trn1's SBUF partition, the default;
 * no model has more than VNEF_SBUF_PART_BYTES_MAX.
 */
#define VNEF_PARTITIONS		128
#define VNEF_SBUF_PART_BYTES	(192u << 10)
#define VNEF_SBUF_PART_BYTES_MAX	(256u << 10)
#define VNEF_PSUM_PART_BYTES	(16u << 10)
#define VNEF_PSUM_BANK_BYTES	(2u << 10)

/* TensorE shape limits. */
#define VNEF_MM_MAX_K		128	/* contraction: partitions of both operands */
#define VNEF_MM_MAX_M		128	/* stationary free size = output partitions */
#define VNEF_MM_MAX_N		512	/* moving free size = output free size */

/**
 * struct vnef_header - the image header, at offset 0
 * @magic: %VNEF_MAGIC
 * @version: %VNEF_VERSION
 * @header_size: sizeof(struct vnef_header)
 * @flags: must be 0
 * @total_size: the whole image; equals the size handed to the loader
 * @section_count: 1..VNEF_MAX_SECTIONS
 * @section_entry_size: sizeof(struct vnef_section)
 * @name_off: program name: offset in the string table (0 = "")
 * @reserved: must be 0
 */
struct vnef_header {
	__u32 magic;
	__u32 version;
	__u32 header_size;
	__u32 flags;
	__u64 total_size;
	__u32 section_count;
	__u32 section_entry_size;
	__u32 name_off;
	__u32 reserved[3];
};

/**
 * enum vnef_section_type - what a section holds
 * @VNEF_SEC_STRTAB: NUL-terminated strings; byte 0 is NUL; last byte is NUL
 * @VNEF_SEC_TENSORS: struct vnef_tensor[count]
 * @VNEF_SEC_CONST: bytes of constant tensors
 * @VNEF_SEC_INSTR: struct vnef_instr[count]; index = engine
 * @VNEF_SEC_DMA: struct vnef_dma_desc[count]; index = DMA queue
 * @VNEF_SEC_DEBUG: struct vnef_debug[count]
 * @VNEF_SEC_CC: struct vnef_cc_instr[count]; index 0 (version 2)
 */
enum vnef_section_type {
	VNEF_SEC_STRTAB = 1,
	VNEF_SEC_TENSORS = 2,
	VNEF_SEC_CONST = 3,
	VNEF_SEC_INSTR = 4,
	VNEF_SEC_DMA = 5,
	VNEF_SEC_DEBUG = 6,
	VNEF_SEC_CC = 7,
};

/**
 * struct vnef_section - an entry of the section table
 * @type: enum vnef_section_type
 * @index: engine (INSTR), queue (DMA), else 0 (CC included)
 * @offset: from the start of the image, multiple of 8
 * @size: bytes; count * entry_size for tables
 * @count: entries (tables), else 0
 * @entry_size: sizeof the entry struct (tables), else 0
 */
struct vnef_section {
	__u32 type;
	__u32 index;
	__u64 offset;
	__u64 size;
	__u32 count;
	__u32 entry_size;
};

/**
 * enum vnef_dtype - element types
 * @VNEF_DT_FP32: IEEE binary32
 * @VNEF_DT_BF16: bfloat16, stored round-to-nearest-even; computed in fp32
 * @VNEF_DT_FP8_E4M3: AWS's cFP8 E4M3 (NKI float8_e4m3): sign, 4 exponent bits (bias 7),
 *	3 mantissa bits, IEEE-like: exponent 15 is infinity (mantissa 0) or NaN, the
 *	largest finite value 240
 * @VNEF_DT_FP8_E5M2: cFP8 E5M2 (NKI float8_e5m2, OCP's and IEEE-like): 5 exponent bits
 *	(bias 15), 2 mantissa bits, infinities, NaNs, the largest finite value 57344
 * @VNEF_DT_FP8_E4M3FN: OCP's E4M3 (NKI float8_e4m3fn, trn3 only): bias 7, no infinity,
 *	NaN only S.1111.111, the largest finite value 448
 * @VNEF_DT_COUNT: one past the last dtype
 *
 * Stored values are converted to the dtype by rounding to nearest even; fp8 saturates
 * a finite value beyond its largest to that value (docs/isa.md, "Data types"). Which
 * dtypes a model has: struct vneuron_model_gen.dtypes.
 */
enum vnef_dtype {
	VNEF_DT_FP32 = 1,
	VNEF_DT_BF16 = 2,
	VNEF_DT_FP8_E4M3 = 3,
	VNEF_DT_FP8_E5M2 = 4,
	VNEF_DT_FP8_E4M3FN = 5,
	VNEF_DT_COUNT = 6,
};

/**
 * enum vnef_tensor_kind - how a tensor gets its memory
 * @VNEF_TENSOR_INPUT: bound at execution, read
 * @VNEF_TENSOR_OUTPUT: bound at execution, written (may be read)
 * @VNEF_TENSOR_SCRATCH: bound at execution or given zeroed by the core
 * @VNEF_TENSOR_CONST: data in the CONST section, read-only
 */
enum vnef_tensor_kind {
	VNEF_TENSOR_INPUT = 1,
	VNEF_TENSOR_OUTPUT = 2,
	VNEF_TENSOR_SCRATCH = 3,
	VNEF_TENSOR_CONST = 4,
};

/**
 * struct vnef_tensor - a named HBM tensor
 * @name_off: string table; names are unique and non-empty
 * @kind: enum vnef_tensor_kind
 * @dtype: enum vnef_dtype
 * @rank: 1..VNEF_MAX_RANK
 * @shape: dims >= 1; unused dims 0
 * @size: bytes, <= VNEF_MAX_TENSOR_BYTES; product(shape[0..rank-1]) * dtype size
 * @const_off: CONST: offset in the CONST section; else 0
 */
struct vnef_tensor {
	__u32 name_off;
	__u32 kind;
	__u32 dtype;
	__u32 rank;
	__u64 shape[VNEF_MAX_RANK];
	__u64 size;
	__u64 const_off;
};

/**
 * enum vnef_mem - the memories an operand or DMA endpoint names
 * @VNEF_MEM_NONE: operand unused: every field must be 0
 * @VNEF_MEM_SBUF: the state buffer
 * @VNEF_MEM_PSUM: the partial-sum buffer
 * @VNEF_MEM_HBM: device memory; DMA endpoints only
 */
enum vnef_mem {
	VNEF_MEM_NONE = 0,
	VNEF_MEM_SBUF = 1,
	VNEF_MEM_PSUM = 2,
	VNEF_MEM_HBM = 3,
};

/**
 * struct vnef_ap - an on-chip operand ("access pattern")
 * @mem: enum vnef_mem: SBUF or PSUM
 * @dtype: enum vnef_dtype
 * @start_partition: first partition
 * @partitions: >= 1; start_partition + partitions <= 128
 * @offset: bytes from the start of each partition, dtype aligned
 * @count: >= 1 each
 * @stride: elements
 * @pad: must be 0
 *
 * Partitions [start_partition, +partitions) of SBUF or PSUM and, in each, the
 * free-axis elements::
 *
 *   offset + (i1 * stride[1] + i0 * stride[0]) * dtype size,  i0 < count[0], i1 < count[1]
 *
 * visited i1-major. Its free size is count[0] * count[1] <= VNEF_MAX_FREE. Strides are
 * in elements and may be 0 (broadcast) in sources. Every element must lie inside the
 * partition.
 */
struct vnef_ap {
	__u16 mem;
	__u16 dtype;
	__u16 start_partition;
	__u16 partitions;
	__u32 offset;
	__u32 count[2];
	__u32 stride[2];
	__u32 pad;
};

/**
 * enum vnef_opcode - instruction opcodes, and the engines that accept each
 * @VNEF_OP_NOP: any engine: only waits and signals
 * @VNEF_OP_LOAD_STATIONARY: TensorE: src0 [K part x M] -> stationary array
 * @VNEF_OP_MULTIPLY_MOVING: TensorE: dst PSUM [M x N] (+)= stat^T . src0 [K x N]
 * @VNEF_OP_TRANSPOSE: TensorE: dst [F part x P] = src0 [P part x F]^T
 * @VNEF_OP_TENSOR_TENSOR: VectorE and GpSimdE: dst = src0 <alu> src1
 * @VNEF_OP_TENSOR_SCALAR: VectorE and GpSimdE: dst = src0 <alu> scalar (imm or
 *	per-partition)
 * @VNEF_OP_REDUCE: VectorE: dst [P x 1] = <alu> over the free axis of src0
 * @VNEF_OP_COPY: VectorE, ScalarE, GpSimdE: dst = src0, converted to dst's dtype
 * @VNEF_OP_ACTIVATE: ScalarE: dst = func(src0 * scale + bias)
 * @VNEF_OP_MEMSET: VectorE and GpSimdE: dst = imm[0] (fp32 bits)
 * @VNEF_OP_IOTA: GpSimdE: dst[p][j] = imm0 + p * imm1 + j * imm2 (s32)
 * @VNEF_OP_PARTITION_REDUCE: GpSimdE: dst [1 x F] = <alu> over the partitions of src0
 * @VNEF_OP_PROGRAM_ID: VectorE and GpSimdE: dst = imm0 + program id * imm1 (s32): the
 *	instance's index on its logical core (0 alone; 0 or 1 at LNC=2)
 * @VNEF_OP_COUNT: number of opcodes
 */
enum vnef_opcode {
	VNEF_OP_NOP = 0,
	VNEF_OP_LOAD_STATIONARY = 1,
	VNEF_OP_MULTIPLY_MOVING = 2,
	VNEF_OP_TRANSPOSE = 3,
	VNEF_OP_TENSOR_TENSOR = 4,
	VNEF_OP_TENSOR_SCALAR = 5,
	VNEF_OP_REDUCE = 6,
	VNEF_OP_COPY = 7,
	VNEF_OP_ACTIVATE = 8,
	VNEF_OP_MEMSET = 9,
	VNEF_OP_IOTA = 10,
	VNEF_OP_PARTITION_REDUCE = 11,
	VNEF_OP_PROGRAM_ID = 12,
	VNEF_OP_COUNT = 13,
};

/* Instruction flags. */
#define VNEF_IF_WAIT		_BITUL(0)	/* wait until sem[wait_sem] >= wait_value */
#define VNEF_IF_ACCUMULATE	_BITUL(1)	/* MULTIPLY_MOVING, TRANSPOSE: add to PSUM */
#define VNEF_IF_SCALAR_COLUMN	_BITUL(2)	/* TENSOR_SCALAR: scalar is src1 [P x 1] */
#define VNEF_IF_REVERSE		_BITUL(3)	/* TENSOR_SCALAR: dst = scalar <alu> src0 */
#define VNEF_IF_BIAS_COLUMN	_BITUL(4)	/* ACTIVATE: bias is src1 [P x 1], not imm[1] */
#define VNEF_IF_ALL		0x1fu

/**
 * enum vnef_alu - VectorE / GpSimdE arithmetic and reductions
 * @VNEF_ALU_ADD: a + b
 * @VNEF_ALU_SUB: a - b
 * @VNEF_ALU_MUL: a * b
 * @VNEF_ALU_MAX: the larger
 * @VNEF_ALU_MIN: the smaller
 * @VNEF_ALU_DIV: a / b
 * @VNEF_ALU_COUNT: number of operations
 *
 * REDUCE and PARTITION_REDUCE take ADD, MAX or MIN.
 */
enum vnef_alu {
	VNEF_ALU_ADD = 0,
	VNEF_ALU_SUB = 1,
	VNEF_ALU_MUL = 2,
	VNEF_ALU_MAX = 3,
	VNEF_ALU_MIN = 4,
	VNEF_ALU_DIV = 5,
	VNEF_ALU_COUNT = 6,
};

/**
 * enum vnef_act - ScalarE activation functions
 * @VNEF_ACT_IDENTITY: x
 * @VNEF_ACT_EXP: e^x
 * @VNEF_ACT_LOG: natural logarithm
 * @VNEF_ACT_TANH: hyperbolic tangent
 * @VNEF_ACT_SIGMOID: 1 / (1 + e^-x)
 * @VNEF_ACT_GELU: GELU, tanh approximation
 * @VNEF_ACT_RELU: max(x, 0)
 * @VNEF_ACT_SQRT: square root
 * @VNEF_ACT_RSQRT: 1 / square root
 * @VNEF_ACT_RECIPROCAL: 1 / x
 * @VNEF_ACT_SQUARE: x * x
 * @VNEF_ACT_COUNT: number of functions
 */
enum vnef_act {
	VNEF_ACT_IDENTITY = 0,
	VNEF_ACT_EXP = 1,
	VNEF_ACT_LOG = 2,
	VNEF_ACT_TANH = 3,
	VNEF_ACT_SIGMOID = 4,
	VNEF_ACT_GELU = 5,
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
 *   PROGRAM_ID        dst [P x F] = imm[0] + pid * imm[1] (s32), pid the program id
 * where P and F match between operands (element j of the free axis is matched in visit
 * order, so counts may differ as long as the free sizes agree).
 */

/**
 * struct vnef_instr - one engine instruction (160 bytes)
 * @opcode: enum vnef_opcode
 * @flags: VNEF_IF_*
 * @wait_sem: with %VNEF_IF_WAIT, else 0
 * @wait_value: with %VNEF_IF_WAIT: >= 1, else 0
 * @signal_mask: bit s: sem[s] += 1 on completion
 * @dst: destination operand
 * @src0: first source operand
 * @src1: second source operand
 * @op: enum vnef_alu or enum vnef_act; else 0
 * @pad: must be 0
 * @imm: per opcode: see docs/isa.md; unused must be 0
 * @reserved: must be 0
 *
 * Operands not used by the opcode have mem NONE and all-zero fields. @imm holds fp32
 * bit patterns except for IOTA and PROGRAM_ID (s32).
 */
struct vnef_instr {
	__u32 opcode;
	__u32 flags;
	__u32 wait_sem;
	__u32 wait_value;
	__u64 signal_mask;
	struct vnef_ap dst;
	struct vnef_ap src0;
	struct vnef_ap src1;
	__u32 op;
	__u32 pad;
	__u32 imm[4];
	__u32 reserved[4];
};

/**
 * struct vnef_dma_ep - a DMA endpoint
 * @mem: enum vnef_mem: SBUF, PSUM or HBM
 * @tensor: HBM: tensor index; else 0
 * @offset: bytes
 * @partition: on-chip: first partition; HBM: 0
 * @pid_stride: HBM: bytes added to @offset per program id (an SPMD instance's slice
 *	on a logical core, docs/isa.md "Logical cores"); on-chip: 0
 * @part_stride: on-chip: partitions per index; HBM: 0
 * @stride: bytes per index
 *
 * HBM: tensor + byte offset; on-chip: start partition + byte offset in the partition.
 * The transfer is count[1] x count[0] chunks of chunk_bytes; chunk (i1, i0) is at::
 *
 *   HBM:     offset + i1 * stride[1] + i0 * stride[0]                        (bytes)
 *   on-chip: partition + i1 * part_stride[1] + i0 * part_stride[0],
 *            byte offset + i1 * stride[1] + i0 * stride[0] within that partition
 *
 * A chunk never crosses a partition end.
 */
struct vnef_dma_ep {
	__u32 mem;
	__u32 tensor;
	__u64 offset;
	__u32 partition;
	__u32 pid_stride;
	__u32 part_stride[2];
	__u64 stride[2];
};

/**
 * struct vnef_dma_desc - one DMA descriptor (128 bytes)
 * @flags: %VNEF_IF_WAIT only
 * @wait_sem: with %VNEF_IF_WAIT, else 0
 * @wait_value: with %VNEF_IF_WAIT: >= 1, else 0
 * @chunk_bytes: >= 1 contiguous bytes per chunk
 * @signal_mask: bit s: sem[s] += 1 on completion
 * @count: >= 1 each
 * @src: where the chunks are read
 * @dst: where they are written
 *
 * Copies count[1] * count[0] * chunk_bytes bytes.
 */
struct vnef_dma_desc {
	__u32 flags;
	__u32 wait_sem;
	__u32 wait_value;
	__u32 chunk_bytes;
	__u64 signal_mask;
	__u32 count[2];
	struct vnef_dma_ep src;
	struct vnef_dma_ep dst;
};

/**
 * enum vnef_cc_opcode - collective engine opcodes (struct vnef_cc_instr.opcode)
 * @VNEF_CC_NOP: only waits and signals
 * @VNEF_CC_ALL_REDUCE: dst [count] = reduce over the group of every member's src [count]
 * @VNEF_CC_ALL_GATHER: dst [n * count]: member i's src [count] at i * count
 * @VNEF_CC_REDUCE_SCATTER: dst [count] = chunk i (of src [n * count]) of the reduction,
 *	for the member i
 * @VNEF_CC_ALL_TO_ALL: dst [n * count]: chunk j is member j's src chunk i, for member i
 * @VNEF_CC_PERMUTE: send/recv (collective permute): member i sends src [count] to member
 *	(i + shift) mod n, which receives it in dst [count]
 * @VNEF_CC_OP_COUNT: number of opcodes
 *
 * n is the number of ranks in the instruction's group, i a rank's index in it. Every
 * member of a group runs the same instruction (the same .vnef on every rank: SPMD); the
 * collective completes on all of them at one modeled time (docs/isa.md, "Collectives").
 */
enum vnef_cc_opcode {
	VNEF_CC_NOP = 0,
	VNEF_CC_ALL_REDUCE = 1,
	VNEF_CC_ALL_GATHER = 2,
	VNEF_CC_REDUCE_SCATTER = 3,
	VNEF_CC_ALL_TO_ALL = 4,
	VNEF_CC_PERMUTE = 5,
	VNEF_CC_OP_COUNT = 6,
};

/**
 * struct vnef_cc_instr - one collective engine instruction (96 bytes)
 * @opcode: enum vnef_cc_opcode
 * @flags: %VNEF_IF_WAIT only
 * @wait_sem: with %VNEF_IF_WAIT, else 0
 * @wait_value: with %VNEF_IF_WAIT: >= 1, else 0
 * @signal_mask: bit s: sem[s] += 1 on completion
 * @dtype: enum vnef_dtype: FP32 or BF16 (reductions accumulate in fp32)
 * @reduce: ALL_REDUCE, REDUCE_SCATTER: %VNEF_ALU_ADD or %VNEF_ALU_MAX; else 0
 * @count: elements, >= 1, as enum vnef_cc_opcode says
 * @src_tensor: HBM tensor read
 * @dst_tensor: HBM tensor written: OUTPUT or SCRATCH
 * @src_offset: bytes into src_tensor, dtype aligned
 * @dst_offset: bytes into dst_tensor, dtype aligned
 * @group_size: ranks per group; 0: one group of every rank
 * @group_stride: with group_size: rank distance between members (>= 1); else 0
 * @shift: PERMUTE: 0..group_size-1 (0 = all ranks: any value below VNEF_CC_MAX_RANKS);
 *	else 0
 * @reserved: must be 0
 *
 * Replica groups: with group_size g and stride s the ranks fall into groups of g members
 * b, b + s, ..., b + (g - 1) s, for every b with (b mod g s) < s; a communicator of n
 * ranks must have n a multiple of g s (else every rank's execution ends ERROR, reason
 * CC_MISMATCH). g 2 s 1 over 4 ranks: {0,1} {2,3}; g 2 s 2: {0,2} {1,3}.
 *
 * Ranges: src [src_offset, + in bytes) inside src_tensor and dst [dst_offset, + out bytes)
 * inside dst_tensor, each at most %VNEF_CC_MAX_BYTES, tensors of the instruction's dtype.
 * The byte counts depend on the group size n; with group_size 0 only the execution knows
 * n, so the validator checks one rank's share and the executor the whole range before
 * the collective starts (outside the tensor's buffer: %VNEURON_EXEC_FAULT, reason
 * FAULT_HBM). They may overlap only for an ALL_REDUCE whose src and dst are the same
 * bytes (in place).
 */
struct vnef_cc_instr {
	__u32 opcode;
	__u32 flags;
	__u32 wait_sem;
	__u32 wait_value;
	__u64 signal_mask;
	__u32 dtype;
	__u32 reduce;
	__u64 count;
	__u32 src_tensor;
	__u32 dst_tensor;
	__u64 src_offset;
	__u64 dst_offset;
	__u16 group_size;
	__u16 group_stride;
	__u32 shift;
	__u32 reserved[6];
};

/**
 * struct vnef_debug - debug table: where an instruction or descriptor came from
 * @stream: engine 0..3, VNEF_STREAM_DMA(queue) or VNEF_STREAM_CC
 * @index: entry in that stream
 * @file_off: string table: source file
 * @line: source line
 * @scope_off: string table: scope path, e.g. "mlp/fc1/matmul"
 * @pad: must be 0
 */
struct vnef_debug {
	__u32 stream;
	__u32 index;
	__u32 file_off;
	__u32 line;
	__u32 scope_off;
	__u32 pad;
};

/**
 * enum vnef_check - which validation check failed (the loader's error report)
 * @VNEF_CHK_OK: none
 * @VNEF_CHK_SIZE: image too small, too large, or total_size mismatch
 * @VNEF_CHK_MAGIC: not %VNEF_MAGIC
 * @VNEF_CHK_VERSION: not %VNEF_VERSION
 * @VNEF_CHK_HEADER: header_size, flags, reserved, entry size, counts
 * @VNEF_CHK_SECTION: section type, index, alignment, bounds, overlap
 * @VNEF_CHK_SECTION_DUP: a section given twice
 * @VNEF_CHK_SECTION_MISSING: no string or tensor table, or no stream at all
 * @VNEF_CHK_STRTAB: string table framing
 * @VNEF_CHK_STRING: an offset outside the string table or a bad name
 * @VNEF_CHK_TENSOR: kind, dtype, rank, shape, size, const data
 * @VNEF_CHK_TENSOR_NAME: empty or duplicate name
 * @VNEF_CHK_LIMIT: too many entries
 * @VNEF_CHK_OPCODE: unknown opcode or not accepted by this engine
 * @VNEF_CHK_FLAGS: unknown or inapplicable flag
 * @VNEF_CHK_RESERVED: a pad, reserved or unused field is not 0
 * @VNEF_CHK_SEM: semaphore id, wait value, or a second writer
 * @VNEF_CHK_OPERAND: memory, dtype, partitions, counts or bounds
 * @VNEF_CHK_SHAPE: opcode-specific shape rule
 * @VNEF_CHK_ALU: alu op or activation function
 * @VNEF_CHK_DMA: DMA endpoint or size
 * @VNEF_CHK_DEBUG: debug entry
 * @VNEF_CHK_DEADLOCK: a wait that can never be satisfied
 * @VNEF_CHK_CC: a collective instruction: op, dtype, group, tensors or ranges
 * @VNEF_CHK_MODEL: a valid program that does not fit the device's model: an on-chip
 *	range beyond the model's partition, a dtype or a tensor size the model lacks
 * @VNEF_CHK_NR: number of checks
 *
 * Append only.
 */
enum vnef_check {
	VNEF_CHK_OK = 0,
	VNEF_CHK_SIZE,
	VNEF_CHK_MAGIC,
	VNEF_CHK_VERSION,
	VNEF_CHK_HEADER,
	VNEF_CHK_SECTION,
	VNEF_CHK_SECTION_DUP,
	VNEF_CHK_SECTION_MISSING,
	VNEF_CHK_STRTAB,
	VNEF_CHK_STRING,
	VNEF_CHK_TENSOR,
	VNEF_CHK_TENSOR_NAME,
	VNEF_CHK_LIMIT,
	VNEF_CHK_OPCODE,
	VNEF_CHK_FLAGS,
	VNEF_CHK_RESERVED,
	VNEF_CHK_SEM,
	VNEF_CHK_OPERAND,
	VNEF_CHK_SHAPE,
	VNEF_CHK_ALU,
	VNEF_CHK_DMA,
	VNEF_CHK_DEBUG,
	VNEF_CHK_DEADLOCK,
	VNEF_CHK_CC,
	VNEF_CHK_MODEL,
	VNEF_CHK_NR,
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VNEURON_PROGRAM_H */
