/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The instruction set and the program format's vocabulary, each fact once: the table
 * every part of vneuron looks up, as kernel/bpf/disasm.c serves both the verifier and
 * bpftool. The validator (core/program.c) takes from it which engines run an opcode,
 * which operands, flags and immediates it uses and what its op field holds; the cost
 * model (core/engine.c) its cost class; the assembler, disassembler, builder, dumper and
 * profiler its names and its operands' syntax.
 *
 * The tables themselves are in core/isa.c, one designated initializer per value. Adding
 * an elementwise opcode: its number in uapi/vneuron_program.h, its entry in isa.c's
 * opcode table (its cost class included) and its semantics (core/vector_fp.c); the
 * validator, the executor's check and the cost model read its entry. An opcode of a new
 * kind (its own shape rule or cost) also needs a case in check_shape() (core/program.c),
 * vn_engine_check() and vn_engine_cost() (core/engine.c). Nothing that only names it
 * needs a change (docs/development.md, "Adding an opcode").
 */
#ifndef VN_ISA_H
#define VN_ISA_H

#include "vn_platform.h"
#include "vneuron.h"
#include "vneuron_program.h"

/* Engines that run an opcode: bit e for enum vneuron_engine e. */
#define VN_ENG_T	0x1u
#define VN_ENG_V	0x2u
#define VN_ENG_S	0x4u
#define VN_ENG_G	0x8u
#define VN_ENG_ALL	0xfu

/* What an opcode's op field holds. */
enum vn_op_kind {
	VN_OPK_NONE = 0,	/* nothing: must be 0 */
	VN_OPK_ALU = 1,		/* enum vnef_alu */
	VN_OPK_REDUCE = 2,	/* enum vnef_alu: ADD, MAX or MIN */
	VN_OPK_ACT = 3,		/* enum vnef_act */
};

/* VectorE/ScalarE/GpSimdE per-instruction overhead (the profiler's fixed-cost share). */
#define VN_STATIC_CYCLES	64

/* How the cost model charges an opcode (docs/isa.md, "Modeled costs"). */
enum vn_cost_class {
	VN_COST_NONE = 0,	/* NOP: only waits and signals */
	VN_COST_STATIONARY,	/* TensorE: max(free, 64) cycles, fp32 at a quarter rate */
	VN_COST_MOVING,		/* TensorE: max(N, 64) cycles, 2 K M N flops */
	VN_COST_TRANSPOSE,	/* TensorE: max(P, 64) cycles, transpose flops */
	VN_COST_ELEMENTWISE,	/* over the destination's elements, per input */
	VN_COST_REDUCE,		/* over the source's elements */
};

/*
 * An opcode's operands in assembler order (docs/assembler.md): the op field, on-chip
 * operands, and numbers kept in imm[]. A SCALAR is a number in imm[i], or a [P x 1]
 * column in src1 with the column flag set.
 */
enum vn_arg_kind {
	VN_ARG_END = 0,
	VN_ARG_OP,		/* the op field, by the opcode's op kind */
	VN_ARG_DST,
	VN_ARG_SRC0,
	VN_ARG_SRC1,
	VN_ARG_F32,		/* imm[i], a float */
	VN_ARG_S32,		/* imm[i], a signed integer */
	VN_ARG_SCALAR,		/* imm[i] as a float, or src1 with the column flag */
};

/*
 * The generations' performance modes on 16-bit and narrower operands (docs/isa.md,
 * "Modeled clock"): which rate of struct vneuron_model_gen an opcode may run at.
 */
enum vn_perf_class {
	VN_PERF_NONE = 0,	/* one element per lane per cycle */
	VN_PERF_COPY,		/* VectorE vector_copy_rate, ScalarE scalar_copy_rate */
	VN_PERF_TT,		/* VectorE vector_tt_rate (two sources) */
};

struct vn_isa_arg {
	u8 kind;		/* enum vn_arg_kind */
	u8 imm;			/* F32, S32, SCALAR: the imm[] word */
	u8 column;		/* SCALAR: the flag that selects src1 (VNEF_IF_*) */
	const char *name;	/* for messages: "a destination", "a scale" */
};

#define VN_ISA_MAX_ARGS	5

struct vn_opcode_info {
	const char *mnemonic;	/* the assembler's: "multiply_moving" */
	const char *name;	/* for display: "MULTIPLY_MOVING" */
	u8 engines;		/* VN_ENG_* */
	u8 flags;		/* VNEF_IF_* allowed besides VNEF_IF_WAIT */
	u8 op_kind;		/* enum vn_op_kind */
	u8 cost;		/* enum vn_cost_class */
	u8 inputs;		/* operands read per element (elementwise cost) */
	u8 perf;		/* enum vn_perf_class */
	struct vn_isa_arg args[VN_ISA_MAX_ARGS];
};

/* The opcode's entry, or NULL for a number that is none. */
const struct vn_opcode_info *vn_opcode_info(u32 opcode);

/*
 * Names, "?" for a value that has none. vn_opcode_name() is the display name
 * ("MULTIPLY_MOVING"), vn_opcode_mnemonic() the assembler's ("multiply_moving").
 */
const char *vn_opcode_name(u32 opcode);
const char *vn_opcode_mnemonic(u32 opcode);
const char *vn_alu_name(u32 alu);
const char *vn_act_name(u32 act);
const char *vn_dtype_name(u32 dtype);
const char *vn_mem_name(u32 mem);		/* "SBUF"; "-" for NONE */
const char *vn_mem_lower(u32 mem);		/* "sbuf" */
const char *vn_engine_name(u32 engine);		/* "TensorE" */
const char *vn_engine_mnemonic(u32 engine);	/* "tensor" */
const char *vn_tensor_kind_name(u32 kind);	/* "input" */

/* Bytes of an element; 0 for a dtype that is none. */
u32 vn_dtype_bytes(u32 dtype);
/* Whether a dtype is one of the fp8 formats (core/vn_fp8.h converts them). */
bool vn_dtype_is_fp8(u32 dtype);

/* Whether the op field value is valid for an op kind (REDUCE: ADD, MAX, MIN). */
bool vn_op_valid(u32 op_kind, u32 op);
/*
 * The op field's name by op kind: an ALU op (ALU, REDUCE) or an activation function
 * (ACT); "?" for NONE or a value without one. vn_op_by_name() is its inverse over every
 * name of the kind's table (a REDUCE by "sub" is found: vn_op_valid() refuses it), -1 if
 * none.
 */
const char *vn_op_name(u32 op_kind, u32 op);
int vn_op_by_name(u32 op_kind, const char *s);

/*
 * What an instruction uses, given its opcode's entry and its flags: the operands
 * (VN_USE_*: a SCALAR argument uses src1 when its column flag is set) and the imm[]
 * words (bit i for imm[i]). Everything unused must be zero.
 */
#define VN_USE_DST	0x1u
#define VN_USE_SRC0	0x2u
#define VN_USE_SRC1	0x4u
void vn_opcode_uses(const struct vn_opcode_info *info, u32 flags, u32 *operands, u32 *imms);

/*
 * The collective engine's opcodes (struct vnef_cc_instr): names, the core/vn_comm.h
 * operation each runs, and which fields it uses. The CC-core's stream id is
 * VNEF_STREAM_CC; its display name "CC-core", its assembler mnemonic "cc".
 */
#define VN_CC_USES_REDUCE	0x1u	/* reduce: ADD or MAX */
#define VN_CC_USES_SHIFT	0x2u	/* shift */
#define VN_CC_USES_DATA		0x4u	/* dtype, count, src and dst tensors */

struct vn_cc_opcode_info {
	const char *mnemonic;	/* "all_reduce" */
	const char *name;	/* "ALL_REDUCE" */
	u8 comm_op;		/* enum vn_cc_op (core/vn_comm.h) for data opcodes */
	u8 uses;		/* VN_CC_USES_* */
};

const struct vn_cc_opcode_info *vn_cc_opcode_info(u32 opcode);
const char *vn_cc_opcode_name(u32 opcode);	/* "?" for none */
const char *vn_cc_opcode_mnemonic(u32 opcode);
int vn_cc_opcode_by_mnemonic(const char *s);
/* The reductions a collective takes, by the enum vnef_alu value: ADD, MAX. */
bool vn_cc_reduce_valid(u32 alu);
/* A stream id's display name: "TensorE" .. "GpSimdE", "DMA q3" is the caller's, "CC-core". */
#define VN_CC_ENGINE_NAME	"CC-core"
#define VN_CC_ENGINE_MNEMONIC	"cc"

/* The name of an enum vnef_check: "ok", "operand", "model"; "unknown" for none. */
const char *vn_check_name(u32 check);

/* Lookups by name (the assembler, tools): the value, or -1 if none has that name. */
int vn_opcode_by_mnemonic(const char *s);
int vn_alu_by_name(const char *s);
int vn_act_by_name(const char *s);
int vn_dtype_by_name(const char *s);
int vn_engine_by_mnemonic(const char *s);
int vn_tensor_kind_by_name(const char *s);

#endif /* VN_ISA_H */
