// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The instruction set's tables (core/vn_isa.h) and their lookups. */
#include "vn_isa.h"
#include "vn_comm.h"

#define A(k)		{ .kind = VN_ARG_##k }
#define AN(k, n)	{ .kind = VN_ARG_##k, .name = (n) }
#define AI(k, i, n)	{ .kind = VN_ARG_##k, .imm = (i), .name = (n) }
#define AS(i, flag, n)	{ .kind = VN_ARG_SCALAR, .imm = (i), .column = (flag), .name = (n) }
#define DST		AN(DST, "a destination")
#define SRC		AN(SRC0, "a source")

/* One entry an opcode: which engines, flags, op field, cost and assembler operands. */
static const struct vn_opcode_info vn_opcodes[VNEF_OP_COUNT] = {
	[VNEF_OP_NOP] = {
		.mnemonic = "nop", .name = "NOP", .engines = VN_ENG_ALL,
		.cost = VN_COST_NONE,
	},
	[VNEF_OP_LOAD_STATIONARY] = {
		.mnemonic = "load_stationary", .name = "LOAD_STATIONARY", .engines = VN_ENG_T,
		.cost = VN_COST_STATIONARY, .inputs = 1,
		.args = { AN(SRC0, "a source (the stationary matrix)") },
	},
	[VNEF_OP_MULTIPLY_MOVING] = {
		.mnemonic = "multiply_moving", .name = "MULTIPLY_MOVING", .engines = VN_ENG_T,
		.flags = VNEF_IF_ACCUMULATE, .cost = VN_COST_MOVING, .inputs = 1,
		.args = { DST, SRC },
	},
	[VNEF_OP_TRANSPOSE] = {
		.mnemonic = "transpose", .name = "TRANSPOSE", .engines = VN_ENG_T,
		.flags = VNEF_IF_ACCUMULATE, .cost = VN_COST_TRANSPOSE, .inputs = 1,
		.args = { DST, SRC },
	},
	[VNEF_OP_TENSOR_TENSOR] = {
		.mnemonic = "tensor_tensor", .name = "TENSOR_TENSOR",
		.engines = VN_ENG_V | VN_ENG_G, .op_kind = VN_OPK_ALU,
		.cost = VN_COST_ELEMENTWISE, .inputs = 2, .perf = VN_PERF_TT,
		.args = { A(OP), DST, AN(SRC0, "a first source"), AN(SRC1, "a second source") },
	},
	[VNEF_OP_TENSOR_SCALAR] = {
		.mnemonic = "tensor_scalar", .name = "TENSOR_SCALAR",
		.engines = VN_ENG_V | VN_ENG_G,
		.flags = VNEF_IF_SCALAR_COLUMN | VNEF_IF_REVERSE, .op_kind = VN_OPK_ALU,
		.cost = VN_COST_ELEMENTWISE, .inputs = 1, .perf = VN_PERF_COPY,
		.args = { A(OP), DST, SRC,
			  AS(0, VNEF_IF_SCALAR_COLUMN, "a scalar (a number or a [P x 1] column)") },
	},
	[VNEF_OP_REDUCE] = {
		.mnemonic = "reduce", .name = "REDUCE", .engines = VN_ENG_V,
		.op_kind = VN_OPK_REDUCE, .cost = VN_COST_REDUCE, .inputs = 1,
		.args = { A(OP), DST, SRC },
	},
	[VNEF_OP_COPY] = {
		.mnemonic = "copy", .name = "COPY", .engines = VN_ENG_V | VN_ENG_S | VN_ENG_G,
		.cost = VN_COST_ELEMENTWISE, .inputs = 1, .perf = VN_PERF_COPY,
		.args = { DST, SRC },
	},
	[VNEF_OP_ACTIVATE] = {
		.mnemonic = "activate", .name = "ACTIVATE", .engines = VN_ENG_S,
		.flags = VNEF_IF_BIAS_COLUMN, .op_kind = VN_OPK_ACT,
		.cost = VN_COST_ELEMENTWISE, .inputs = 1,
		.args = { A(OP), DST, SRC, AI(F32, 0, "a scale"),
			  AS(1, VNEF_IF_BIAS_COLUMN, "a bias (a number or a [P x 1] column)") },
	},
	[VNEF_OP_MEMSET] = {
		.mnemonic = "memset", .name = "MEMSET", .engines = VN_ENG_V | VN_ENG_G,
		.cost = VN_COST_ELEMENTWISE, .inputs = 1,
		.args = { DST, AI(F32, 0, "a value") },
	},
	[VNEF_OP_IOTA] = {
		.mnemonic = "iota", .name = "IOTA", .engines = VN_ENG_G,
		.cost = VN_COST_ELEMENTWISE, .inputs = 1,
		.args = { DST, AI(S32, 0, "a base"), AI(S32, 1, "a partition step"),
			  AI(S32, 2, "a free step") },
	},
	[VNEF_OP_PROGRAM_ID] = {
		.mnemonic = "program_id", .name = "PROGRAM_ID", .engines = VN_ENG_V | VN_ENG_G,
		.cost = VN_COST_ELEMENTWISE, .inputs = 1,
		.args = { DST, AI(S32, 0, "a base"), AI(S32, 1, "a step per program id") },
	},
	[VNEF_OP_PARTITION_REDUCE] = {
		.mnemonic = "partition_reduce", .name = "PARTITION_REDUCE", .engines = VN_ENG_G,
		.op_kind = VN_OPK_REDUCE, .cost = VN_COST_REDUCE, .inputs = 1,
		.args = { A(OP), DST, SRC },
	},
};

static const char *const vn_alu_names[VNEF_ALU_COUNT] = {
	[VNEF_ALU_ADD] = "add",
	[VNEF_ALU_SUB] = "sub",
	[VNEF_ALU_MUL] = "mul",
	[VNEF_ALU_MAX] = "max",
	[VNEF_ALU_MIN] = "min",
	[VNEF_ALU_DIV] = "div",
};

static const char *const vn_act_names[VNEF_ACT_COUNT] = {
	[VNEF_ACT_IDENTITY] = "identity",
	[VNEF_ACT_EXP] = "exp",
	[VNEF_ACT_LOG] = "log",
	[VNEF_ACT_TANH] = "tanh",
	[VNEF_ACT_SIGMOID] = "sigmoid",
	[VNEF_ACT_GELU] = "gelu",
	[VNEF_ACT_RELU] = "relu",
	[VNEF_ACT_SQRT] = "sqrt",
	[VNEF_ACT_RSQRT] = "rsqrt",
	[VNEF_ACT_RECIPROCAL] = "reciprocal",
	[VNEF_ACT_SQUARE] = "square",
};

/* One entry per collective engine opcode. */
static const struct vn_cc_opcode_info vn_cc_opcodes[VNEF_CC_OP_COUNT] = {
	[VNEF_CC_NOP] = { .mnemonic = "nop", .name = "NOP" },
	[VNEF_CC_ALL_REDUCE] = {
		.mnemonic = "all_reduce", .name = "ALL_REDUCE", .comm_op = VN_CC_ALL_REDUCE,
		.uses = VN_CC_USES_DATA | VN_CC_USES_REDUCE,
	},
	[VNEF_CC_ALL_GATHER] = {
		.mnemonic = "all_gather", .name = "ALL_GATHER", .comm_op = VN_CC_ALL_GATHER,
		.uses = VN_CC_USES_DATA,
	},
	[VNEF_CC_REDUCE_SCATTER] = {
		.mnemonic = "reduce_scatter", .name = "REDUCE_SCATTER",
		.comm_op = VN_CC_REDUCE_SCATTER, .uses = VN_CC_USES_DATA | VN_CC_USES_REDUCE,
	},
	[VNEF_CC_ALL_TO_ALL] = {
		.mnemonic = "all_to_all", .name = "ALL_TO_ALL", .comm_op = VN_CC_ALL_TO_ALL,
		.uses = VN_CC_USES_DATA,
	},
	[VNEF_CC_PERMUTE] = {
		.mnemonic = "permute", .name = "PERMUTE", .comm_op = VN_CC_PERMUTE,
		.uses = VN_CC_USES_DATA | VN_CC_USES_SHIFT,
	},
};

const struct vn_cc_opcode_info *vn_cc_opcode_info(u32 opcode)
{
	return opcode < ARRAY_SIZE(vn_cc_opcodes) ? &vn_cc_opcodes[opcode] : NULL;
}

const char *vn_cc_opcode_name(u32 opcode)
{
	return opcode < ARRAY_SIZE(vn_cc_opcodes) ? vn_cc_opcodes[opcode].name : "?";
}

const char *vn_cc_opcode_mnemonic(u32 opcode)
{
	return opcode < ARRAY_SIZE(vn_cc_opcodes) ? vn_cc_opcodes[opcode].mnemonic : "?";
}

int vn_cc_opcode_by_mnemonic(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vn_cc_opcodes); i++)
		if (!strcmp(vn_cc_opcodes[i].mnemonic, s))
			return (int)i;
	return -1;
}

bool vn_cc_reduce_valid(u32 alu)
{
	return alu == VNEF_ALU_ADD || alu == VNEF_ALU_MAX;
}

static const struct {
	const char *name;
	u32 bytes;
} vn_dtypes[VNEF_DT_COUNT] = {
	[VNEF_DT_FP32] = { "fp32", 4 },
	[VNEF_DT_BF16] = { "bf16", 2 },
	[VNEF_DT_FP8_E4M3] = { "fp8_e4m3", 1 },
	[VNEF_DT_FP8_E5M2] = { "fp8_e5m2", 1 },
	[VNEF_DT_FP8_E4M3FN] = { "fp8_e4m3fn", 1 },
};

static const struct {
	const char *name;
	const char *lower;
} vn_mems[] = {
	[VNEF_MEM_NONE] = { "-", "none" },
	[VNEF_MEM_SBUF] = { "SBUF", "sbuf" },
	[VNEF_MEM_PSUM] = { "PSUM", "psum" },
	[VNEF_MEM_HBM] = { "HBM", "hbm" },
};

static const struct {
	const char *name;
	const char *mnemonic;
} vn_engines[VNEURON_ENGINE_COUNT] = {
	[VNEURON_ENGINE_TENSOR] = { "TensorE", "tensor" },
	[VNEURON_ENGINE_VECTOR] = { "VectorE", "vector" },
	[VNEURON_ENGINE_SCALAR] = { "ScalarE", "scalar" },
	[VNEURON_ENGINE_GPSIMD] = { "GpSimdE", "gpsimd" },
};

static const char *const vn_tensor_kinds[] = {
	[VNEF_TENSOR_INPUT] = "input",
	[VNEF_TENSOR_OUTPUT] = "output",
	[VNEF_TENSOR_SCRATCH] = "scratch",
	[VNEF_TENSOR_CONST] = "const",
};

const struct vn_opcode_info *vn_opcode_info(u32 opcode)
{
	return opcode < ARRAY_SIZE(vn_opcodes) && vn_opcodes[opcode].mnemonic ?
	       &vn_opcodes[opcode] : NULL;
}

/* A name from a table indexed by value; "?" outside it or in a gap. */
static const char *name_of(const char *const *names, size_t n, u32 v)
{
	return v < n && names[v] ? names[v] : "?";
}

const char *vn_opcode_name(u32 opcode)
{
	const struct vn_opcode_info *info = vn_opcode_info(opcode);

	return info ? info->name : "?";
}

const char *vn_opcode_mnemonic(u32 opcode)
{
	const struct vn_opcode_info *info = vn_opcode_info(opcode);

	return info ? info->mnemonic : "?";
}

const char *vn_alu_name(u32 alu)
{
	return name_of(vn_alu_names, ARRAY_SIZE(vn_alu_names), alu);
}

const char *vn_act_name(u32 act)
{
	return name_of(vn_act_names, ARRAY_SIZE(vn_act_names), act);
}

const char *vn_dtype_name(u32 dtype)
{
	return dtype < ARRAY_SIZE(vn_dtypes) && vn_dtypes[dtype].name ? vn_dtypes[dtype].name :
	       "?";
}

u32 vn_dtype_bytes(u32 dtype)
{
	return dtype < ARRAY_SIZE(vn_dtypes) ? vn_dtypes[dtype].bytes : 0;
}

bool vn_dtype_is_fp8(u32 dtype)
{
	return vn_dtype_bytes(dtype) == 1;
}

const char *vn_mem_name(u32 mem)
{
	return mem < ARRAY_SIZE(vn_mems) ? vn_mems[mem].name : "?";
}

const char *vn_mem_lower(u32 mem)
{
	return mem < ARRAY_SIZE(vn_mems) ? vn_mems[mem].lower : "?";
}

const char *vn_engine_name(u32 engine)
{
	return engine < ARRAY_SIZE(vn_engines) ? vn_engines[engine].name : "?";
}

const char *vn_engine_mnemonic(u32 engine)
{
	return engine < ARRAY_SIZE(vn_engines) ? vn_engines[engine].mnemonic : "?";
}

const char *vn_tensor_kind_name(u32 kind)
{
	return name_of(vn_tensor_kinds, ARRAY_SIZE(vn_tensor_kinds), kind);
}

bool vn_op_valid(u32 op_kind, u32 op)
{
	switch (op_kind) {
	case VN_OPK_NONE:
		return !op;
	case VN_OPK_ALU:
		return op < VNEF_ALU_COUNT;
	case VN_OPK_REDUCE:
		return op == VNEF_ALU_ADD || op == VNEF_ALU_MAX || op == VNEF_ALU_MIN;
	case VN_OPK_ACT:
		return op < VNEF_ACT_COUNT;
	default:
		return false;
	}
}

const char *vn_op_name(u32 op_kind, u32 op)
{
	switch (op_kind) {
	case VN_OPK_ALU:
	case VN_OPK_REDUCE:
		return vn_alu_name(op);
	case VN_OPK_ACT:
		return vn_act_name(op);
	default:
		return "?";
	}
}

void vn_opcode_uses(const struct vn_opcode_info *info, u32 flags, u32 *operands, u32 *imms)
{
	const struct vn_isa_arg *a;
	u32 i;

	*operands = 0;
	*imms = 0;
	for (i = 0; i < VN_ISA_MAX_ARGS; i++) {
		a = &info->args[i];
		switch (a->kind) {
		case VN_ARG_DST:
			*operands |= VN_USE_DST;
			break;
		case VN_ARG_SRC0:
			*operands |= VN_USE_SRC0;
			break;
		case VN_ARG_SRC1:
			*operands |= VN_USE_SRC1;
			break;
		case VN_ARG_F32:
		case VN_ARG_S32:
			*imms |= 1u << a->imm;
			break;
		case VN_ARG_SCALAR:
			if (flags & a->column)
				*operands |= VN_USE_SRC1;
			else
				*imms |= 1u << a->imm;
			break;
		default:
			break;
		}
	}
}

/* The value whose name is s in a table, or -1. */
static int index_of(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], s))
			return (int)i;
	return -1;
}

int vn_opcode_by_mnemonic(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vn_opcodes); i++)
		if (vn_opcodes[i].mnemonic && !strcmp(vn_opcodes[i].mnemonic, s))
			return (int)i;
	return -1;
}

int vn_alu_by_name(const char *s)
{
	return index_of(vn_alu_names, ARRAY_SIZE(vn_alu_names), s);
}

int vn_act_by_name(const char *s)
{
	return index_of(vn_act_names, ARRAY_SIZE(vn_act_names), s);
}

int vn_op_by_name(u32 op_kind, const char *s)
{
	switch (op_kind) {
	case VN_OPK_ALU:
	case VN_OPK_REDUCE:
		return vn_alu_by_name(s);
	case VN_OPK_ACT:
		return vn_act_by_name(s);
	default:
		return -1;
	}
}

int vn_dtype_by_name(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vn_dtypes); i++)
		if (vn_dtypes[i].name && !strcmp(vn_dtypes[i].name, s))
			return (int)i;
	return -1;
}

int vn_engine_by_mnemonic(const char *s)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vn_engines); i++)
		if (!strcmp(vn_engines[i].mnemonic, s))
			return (int)i;
	return -1;
}

int vn_tensor_kind_by_name(const char *s)
{
	return index_of(vn_tensor_kinds, ARRAY_SIZE(vn_tensor_kinds), s);
}

/* The validator's checks (enum vnef_check), for its error reports. */
static const char * const check_names[VNEF_CHK_NR] = {
	[VNEF_CHK_OK] = "ok",
	[VNEF_CHK_SIZE] = "size",
	[VNEF_CHK_MAGIC] = "magic",
	[VNEF_CHK_VERSION] = "version",
	[VNEF_CHK_HEADER] = "header",
	[VNEF_CHK_SECTION] = "section",
	[VNEF_CHK_SECTION_DUP] = "section-dup",
	[VNEF_CHK_SECTION_MISSING] = "section-missing",
	[VNEF_CHK_STRTAB] = "strtab",
	[VNEF_CHK_STRING] = "string",
	[VNEF_CHK_TENSOR] = "tensor",
	[VNEF_CHK_TENSOR_NAME] = "tensor-name",
	[VNEF_CHK_LIMIT] = "limit",
	[VNEF_CHK_OPCODE] = "opcode",
	[VNEF_CHK_FLAGS] = "flags",
	[VNEF_CHK_RESERVED] = "reserved",
	[VNEF_CHK_SEM] = "semaphore",
	[VNEF_CHK_OPERAND] = "operand",
	[VNEF_CHK_SHAPE] = "shape",
	[VNEF_CHK_ALU] = "alu",
	[VNEF_CHK_DMA] = "dma",
	[VNEF_CHK_DEBUG] = "debug",
	[VNEF_CHK_DEADLOCK] = "deadlock",
	[VNEF_CHK_CC] = "collective",
	[VNEF_CHK_MODEL] = "model",
};

const char *vn_check_name(u32 check)
{
	return check < VNEF_CHK_NR ? check_names[check] : "unknown";
}
