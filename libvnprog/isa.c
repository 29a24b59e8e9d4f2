// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The instruction calls of the builder: check the operands with messages that name the
 * instruction and the operand, fill a vnef_instr or vnef_dma_desc, list the regions it
 * reads and writes, and hand it to nd_emit() for ordering. What an opcode takes (its
 * engines, op field, flags, operands and immediates) comes from the ISA table
 * (core/vn_isa.h), so nd_instr_at() serves every elementwise opcode, old or new.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vnprog_int.h"
#include "vn_program.h"

/* An argument's word: "a bias (a number or a [P x 1] column)" gives "bias". */
const char *nd_arg_word(const struct vn_isa_arg *arg, char *buf, size_t size)
{
	const char *s = arg->name ? arg->name : "";
	size_t n;

	if (!strncmp(s, "a ", 2))
		s += 2;
	else if (!strncmp(s, "an ", 3))
		s += 3;
	n = strcspn(s, "(");
	while (n && s[n - 1] == ' ')
		n--;
	snprintf(buf, size, "%.*s", (int)n, s);
	return buf;
}

size_t nd_op_list(char *buf, size_t size, uint32_t op_kind, const char *last)
{
	uint32_t v, n = 0, total = 0;
	const char *name;
	size_t len = 0;

	for (v = 0; strcmp(vn_op_name(op_kind, v), "?"); v++)
		total += vn_op_valid(op_kind, v);
	if (size)
		buf[0] = '\0';
	for (v = 0; strcmp(name = vn_op_name(op_kind, v), "?"); v++) {
		if (!vn_op_valid(op_kind, v))
			continue;
		len += snprintf(buf + (len < size ? len : size), len < size ? size - len : 0,
				"%s%s", !n ? "" : n + 1 == total ? last : ", ", name);
		n++;
	}
	return len;
}

static int check_tile(struct nd_builder *b, const char *op, const char *what,
		      const struct nd_tile *t)
{
	if (!t)
		return nd_berr(b, EINVAL, "%s: %s is not a tile (NULL)", op, what);
	if (t->b != b)
		return nd_berr(b, EINVAL, "%s: %s tile '%s' belongs to another builder", op, what,
			       t->name);
	if (t->freed)
		return nd_berr(b, EINVAL, "%s: %s tile '%s' is used after nd_tile_free()", op,
			       what, t->name);
	return 0;
}

/* A tile view as an instruction operand, and the region it covers. */
static int operand(struct nd_builder *b, const char *op, const char *what, struct nd_tv v,
		   struct vnef_ap *ap, struct nd_access *acc, int write)
{
	const struct nd_tile *t = v.tile;
	uint32_t es, c0 = v.nf, c1 = 1, s0 = 1, s1 = 0;
	uint64_t last;
	int ret;

	ret = check_tile(b, op, what, t);
	if (ret)
		return ret;
	if (!v.np || !v.nf)
		return nd_berr(b, EINVAL, "%s: %s view of tile '%s' is empty (%u x %u)", op, what,
			       t->name, v.np, v.nf);
	if (v.np > VNEF_PARTITIONS)
		return nd_berr(b, EINVAL, "%s: %s has %u partitions; at most %d", op, what, v.np,
			       VNEF_PARTITIONS);
	if (v.nf > VNEF_MAX_FREE)
		return nd_berr(b, E2BIG, "%s: %s has %u free elements; at most %d", op, what,
			       v.nf, VNEF_MAX_FREE);
	if (v.strided) {
		if (!v.count0 || v.nf % v.count0)
			return nd_berr(b, EINVAL, "%s: %s pattern: %u elements are not rows of %u",
				       op, what, v.nf, v.count0);
		c0 = v.count0;
		c1 = v.nf / v.count0;
		s0 = v.stride0;
		s1 = v.stride1;
		if (write && ((c0 > 1 && !s0) || (c1 > 1 && !s1)))
			return nd_berr(b, EINVAL, "%s: %s pattern has a stride of 0; only sources "
				       "broadcast", op, what);
	}
	last = (uint64_t)(c0 - 1) * s0 + (uint64_t)(c1 - 1) * s1;
	if ((uint64_t)v.p0 + v.np > t->partitions || (uint64_t)v.f0 + last >= t->free)
		return nd_berr(b, ERANGE, "%s: %s view [%u:%u, %u:%llu] is outside tile '%s' "
			       "[%u x %u]", op, what, v.p0, v.p0 + v.np, v.f0,
			       (unsigned long long)(v.f0 + last + 1), t->name, t->partitions,
			       t->free);
	es = vn_dtype_bytes(t->dtype);
	memset(ap, 0, sizeof(*ap));
	ap->mem = (uint16_t)t->mem;
	ap->dtype = (uint16_t)t->dtype;
	ap->start_partition = (uint16_t)v.p0;
	ap->partitions = (uint16_t)v.np;
	ap->offset = t->offset + v.f0 * es;
	ap->count[0] = c0;
	ap->count[1] = c1;
	ap->stride[0] = s0;
	ap->stride[1] = s1;
	if (acc) {
		memset(acc, 0, sizeof(*acc));
		acc->space = t->mem;
		acc->p_lo = v.p0;
		acc->p_hi = v.p0 + v.np;
		acc->b_lo = ap->offset;
		acc->b_hi = ap->offset + (last + 1) * es;
		acc->write = write;
	}
	return 0;
}

static int same_shape(struct nd_builder *b, const char *op, const char *wa, struct nd_tv a,
		      const char *wb, struct nd_tv c)
{
	if (a.np != c.np || a.nf != c.nf)
		return nd_berr(b, EINVAL, "%s: shape mismatch: %s is [%u x %u], %s is [%u x %u]",
			       op, wa, a.np, a.nf, wb, c.np, c.nf);
	return 0;
}

static int column(struct nd_builder *b, const char *op, struct nd_tv c, uint32_t np)
{
	if (c.nf != 1 || c.np != np)
		return nd_berr(b, EINVAL, "%s: shape mismatch: the column must be [%u x 1], is "
			       "[%u x %u]", op, np, c.np, c.nf);
	return 0;
}

/* TensorE reads its operands from SBUF and writes fp32 into one PSUM bank. */
static int tensor_src(struct nd_builder *b, const char *op, const char *what, struct nd_tv v)
{
	if (v.tile->mem != ND_SBUF)
		return nd_berr(b, EINVAL, "%s: %s tile '%s' is in PSUM; TensorE reads SBUF", op,
			       what, v.tile->name);
	return 0;
}

static int tensor_dst(struct nd_builder *b, const char *op, struct nd_tv dst,
		      const struct vnef_ap *ap)
{
	if (dst.tile->mem != ND_PSUM)
		return nd_berr(b, EINVAL, "%s: dst tile '%s' is in SBUF; TensorE writes PSUM", op,
			       dst.tile->name);
	if (dst.tile->dtype != ND_FP32)
		return nd_berr(b, EINVAL, "%s: dst tile '%s' must be fp32 (PSUM accumulates in "
			       "fp32)", op, dst.tile->name);
	if (ap && ap->offset / VNEF_PSUM_BANK_BYTES !=
	    (ap->offset + ((uint64_t)(ap->count[0] - 1) * ap->stride[0] +
			   (uint64_t)(ap->count[1] - 1) * ap->stride[1] + 1) * 4 - 1) /
	    VNEF_PSUM_BANK_BYTES)
		return nd_berr(b, EINVAL, "%s: dst view of tile '%s' crosses a PSUM bank (2 KiB "
			       "a partition)", op, dst.tile->name);
	return 0;
}

/* The op field, checked for the opcode's op kind. */
static int check_op(struct nd_builder *b, const char *op, uint32_t kind, uint32_t v)
{
	char list[96];

	if (vn_op_valid(kind, v))
		return 0;
	switch (kind) {
	case VN_OPK_REDUCE:
		if (v < VNEF_ALU_COUNT) {
			nd_op_list(list, sizeof(list), kind, " or ");
			return nd_berr(b, EINVAL, "%s: cannot reduce with '%s' (%s)", op,
				       vn_alu_name(v), list);
		}
		/* fall through */
	case VN_OPK_ALU:
		return nd_berr(b, EINVAL, "%s: unknown ALU operation %d", op, (int)v);
	case VN_OPK_ACT:
		return nd_berr(b, EINVAL, "%s: unknown activation function %d", op, (int)v);
	default:
		return nd_berr(b, EINVAL, "%s takes no op field (%u given)", op, v);
	}
}

/* The table's SCALAR argument that src1 carries under these flags, or NULL. */
static const struct vn_isa_arg *column_arg(const struct vn_opcode_info *info, uint32_t flags)
{
	uint32_t i;

	for (i = 0; i < VN_ISA_MAX_ARGS; i++)
		if (info->args[i].kind == VN_ARG_SCALAR && (flags & info->args[i].column))
			return &info->args[i];
	return NULL;
}

static bool has_arg(const struct vn_opcode_info *info, uint32_t kind)
{
	uint32_t i;

	for (i = 0; i < VN_ISA_MAX_ARGS; i++)
		if (info->args[i].kind == kind)
			return true;
	return false;
}

/*
 * What every instruction call does first, from the opcode's table entry: the engine
 * runs it, its op field and flags are valid, and each operand it uses is a view of a
 * live tile. names[] name dst, src0 and src1 in messages (NULL: "dst", "src" or "src0",
 * "src1" or the column's word). Fills e (opcode, op, flags, operands, immediates), and
 * acc[] with *nacc accesses: the destination, the sources, and the destination again
 * as a read when it accumulates.
 */
static int instr_begin(struct nd_builder *b, const char *op, enum nd_engine eng,
		       uint32_t opcode, const struct nd_operands *o, const char *const *names,
		       struct nd_entry *e, struct nd_access *acc, uint32_t *nacc)
{
	const struct vn_opcode_info *info = vn_opcode_info(opcode);
	const struct vn_isa_arg *col;
	const char *what[3];
	uint32_t uses, imms, i, n = 0;
	char word[32], colname[48];
	int ret;

	if (!info)
		return nd_berr(b, EINVAL, "opcode %u is not in the ISA table", opcode);
	if ((unsigned int)eng >= VNEF_ENGINES || !(info->engines & (1u << eng)))
		return nd_berr(b, EINVAL, "%s does not run on engine %d (%s)", op, (int)eng,
			       (unsigned int)eng < VNEF_ENGINES ? nd_stream_name(eng) : "unknown");
	ret = check_op(b, op, info->op_kind, o->op);
	if (ret)
		return ret;
	if (o->flags & ~info->flags)
		return nd_berr(b, EINVAL, "%s: flags 0x%x do not apply to it", op,
			       o->flags & ~info->flags);
	col = column_arg(info, o->flags);
	if (col)
		snprintf(colname, sizeof(colname), "%s column",
			 nd_arg_word(col, word, sizeof(word)));
	what[0] = names && names[0] ? names[0] : "dst";
	what[1] = names && names[1] ? names[1] : has_arg(info, VN_ARG_SRC1) ? "src0" : "src";
	what[2] = names && names[2] ? names[2] : col ? colname : "src1";

	memset(e, 0, sizeof(*e));
	e->u.in.opcode = opcode;
	e->u.in.op = o->op;
	e->u.in.flags = o->flags;
	vn_opcode_uses(info, o->flags, &uses, &imms);
	if (uses & VN_USE_DST) {
		ret = operand(b, op, what[0], o->dst, &e->u.in.dst, &acc[n++], 1);
		if (ret)
			return ret;
	}
	if (uses & VN_USE_SRC0) {
		ret = operand(b, op, what[1], o->src0, &e->u.in.src0, &acc[n++], 0);
		if (ret)
			return ret;
	}
	if (uses & VN_USE_SRC1) {
		ret = operand(b, op, what[2], o->src1, &e->u.in.src1, &acc[n++], 0);
		if (ret)
			return ret;
	}
	for (i = 0; i < 3; i++)
		if (imms & (1u << i))
			memcpy(&e->u.in.imm[i], &o->imm[i], sizeof(e->u.in.imm[i]));
	if ((o->flags & VNEF_IF_ACCUMULATE) && (uses & VN_USE_DST)) {
		acc[n] = acc[0];
		acc[n++].write = 0;
	}
	*nacc = n;
	return 0;
}

int nd_instr_at(struct nd_builder *b, enum nd_engine eng, uint32_t opcode,
		const struct nd_operands *o, const char *file, int line)
{
	const struct vn_opcode_info *info = vn_opcode_info(opcode);
	const char *op = vn_opcode_mnemonic(opcode);
	struct nd_access acc[4];
	struct nd_entry e;
	uint32_t nacc, i;
	int ret;

	if (!b)
		return -EINVAL;
	if (!o)
		return nd_berr(b, EINVAL, "%s: no operands given", op);
	if (info && info->cost != VN_COST_ELEMENTWISE && info->cost != VN_COST_NONE)
		return nd_berr(b, EINVAL, "%s has a call of its own (nd_%s())", op, op);
	ret = instr_begin(b, op, eng, opcode, o, NULL, &e, acc, &nacc);
	if (ret)
		return ret;
	/* The validator's elementwise rules (core/program.c), said here with names. */
	for (i = 0; i < VN_ISA_MAX_ARGS && !ret; i++) {
		const struct vn_isa_arg *arg = &info->args[i];

		if (arg->kind == VN_ARG_SRC0)
			ret = same_shape(b, op, "dst", o->dst,
					 has_arg(info, VN_ARG_SRC1) ? "src0" : "src", o->src0);
		else if (arg->kind == VN_ARG_SRC1)
			ret = same_shape(b, op, "dst", o->dst, "src1", o->src1);
		else if (arg->kind == VN_ARG_SCALAR && (o->flags & arg->column))
			ret = column(b, op, o->src1, o->dst.np);
	}
	if (ret)
		return ret;
	/* Elementwise entries are named after their operation: "add", "exp", "copy". */
	if (info->op_kind == VN_OPK_ALU || info->op_kind == VN_OPK_ACT)
		op = vn_op_name(info->op_kind, o->op);
	return nd_emit(b, eng, &e, acc, nacc, op, file, line);
}

int nd_tensor_tensor_at(struct nd_builder *b, enum nd_engine eng, struct nd_tv dst,
			struct nd_tv s0, struct nd_tv s1, enum nd_alu a, const char *file,
			int line)
{
	struct nd_operands o = { .dst = dst, .src0 = s0, .src1 = s1, .op = a };

	return nd_instr_at(b, eng, VNEF_OP_TENSOR_TENSOR, &o, file, line);
}

int nd_tensor_scalar_at(struct nd_builder *b, enum nd_engine eng, struct nd_tv dst,
			struct nd_tv s0, enum nd_alu a, float scalar, int reverse,
			const char *file, int line)
{
	struct nd_operands o = { .dst = dst, .src0 = s0, .op = a,
				 .flags = reverse ? VNEF_IF_REVERSE : 0,
				 .imm[0].f = scalar };

	return nd_instr_at(b, eng, VNEF_OP_TENSOR_SCALAR, &o, file, line);
}

int nd_tensor_column_at(struct nd_builder *b, enum nd_engine eng, struct nd_tv dst,
			struct nd_tv s0, enum nd_alu a, struct nd_tv col, int reverse,
			const char *file, int line)
{
	struct nd_operands o = { .dst = dst, .src0 = s0, .src1 = col, .op = a,
				 .flags = VNEF_IF_SCALAR_COLUMN | (reverse ? VNEF_IF_REVERSE : 0) };

	return nd_instr_at(b, eng, VNEF_OP_TENSOR_SCALAR, &o, file, line);
}

int nd_copy_at(struct nd_builder *b, enum nd_engine eng, struct nd_tv dst, struct nd_tv src,
	       const char *file, int line)
{
	struct nd_operands o = { .dst = dst, .src0 = src };

	return nd_instr_at(b, eng, VNEF_OP_COPY, &o, file, line);
}

int nd_activate_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src, enum nd_act f,
		   float scale, float bias, const char *file, int line)
{
	struct nd_operands o = { .dst = dst, .src0 = src, .op = f, .imm[0].f = scale,
				 .imm[1].f = bias };

	return nd_instr_at(b, ND_SCALAR, VNEF_OP_ACTIVATE, &o, file, line);
}

int nd_activate_column_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src,
			  enum nd_act f, float scale, struct nd_tv bias_col, const char *file,
			  int line)
{
	struct nd_operands o = { .dst = dst, .src0 = src, .src1 = bias_col, .op = f,
				 .flags = VNEF_IF_BIAS_COLUMN, .imm[0].f = scale };

	return nd_instr_at(b, ND_SCALAR, VNEF_OP_ACTIVATE, &o, file, line);
}

int nd_memset_at(struct nd_builder *b, enum nd_engine eng, struct nd_tv dst, float value,
		 const char *file, int line)
{
	struct nd_operands o = { .dst = dst, .imm[0].f = value };

	return nd_instr_at(b, eng, VNEF_OP_MEMSET, &o, file, line);
}

int nd_iota_at(struct nd_builder *b, struct nd_tv dst, int32_t base, int32_t pstep,
	       int32_t fstep, const char *file, int line)
{
	struct nd_operands o = { .dst = dst, .imm = { { .i = base }, { .i = pstep },
						      { .i = fstep } } };

	return nd_instr_at(b, ND_GPSIMD, VNEF_OP_IOTA, &o, file, line);
}

/* A reduction: dst must be [np x 1] (over the free axis) or [1 x nf] (partitions). */
static int reduction(struct nd_builder *b, enum nd_engine eng, uint32_t opcode,
		     struct nd_tv dst, struct nd_tv src, enum nd_alu a, const char *file,
		     int line)
{
	struct nd_operands o = { .dst = dst, .src0 = src, .op = a };
	const char *op = vn_opcode_mnemonic(opcode);
	struct nd_access acc[2];
	struct nd_entry e;
	char name[32];
	uint32_t nacc;
	int ret;

	if (!b)
		return -EINVAL;
	ret = instr_begin(b, op, eng, opcode, &o, NULL, &e, acc, &nacc);
	if (ret)
		return ret;
	if (opcode == VNEF_OP_REDUCE && (dst.nf != 1 || dst.np != src.np))
		return nd_berr(b, EINVAL, "%s: shape mismatch: dst must be [%u x 1], is [%u x %u]",
			       op, src.np, dst.np, dst.nf);
	if (opcode == VNEF_OP_PARTITION_REDUCE && (dst.np != 1 || dst.nf != src.nf))
		return nd_berr(b, EINVAL, "%s: shape mismatch: dst must be [1 x %u], is [%u x %u]",
			       op, src.nf, dst.np, dst.nf);
	/* "reduce_max" says which; a partition reduction keeps its mnemonic */
	if (opcode == VNEF_OP_REDUCE)
		snprintf(name, sizeof(name), "%s_%s", op, vn_alu_name(a));
	else
		snprintf(name, sizeof(name), "%s", op);
	return nd_emit(b, eng, &e, acc, nacc, name, file, line);
}

int nd_reduce_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src, enum nd_alu a,
		 const char *file, int line)
{
	return reduction(b, ND_VECTOR, VNEF_OP_REDUCE, dst, src, a, file, line);
}

int nd_partition_reduce_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src,
			   enum nd_alu a, const char *file, int line)
{
	return reduction(b, ND_GPSIMD, VNEF_OP_PARTITION_REDUCE, dst, src, a, file, line);
}

/* ---------------------------------------------------------------------------- */
/* TensorE                                                                      */

/* LOAD_STATIONARY's entry, checked: an SBUF operand of at most [128 x 128]. */
static int stationary(struct nd_builder *b, const char *op, struct nd_tv st,
		      struct nd_entry *e, struct nd_access *acc)
{
	static const char *const names[3] = { NULL, "stationary", NULL };
	struct nd_operands o = { .src0 = st };
	uint32_t nacc;
	int ret;

	ret = instr_begin(b, op, ND_TENSOR, VNEF_OP_LOAD_STATIONARY, &o, names, e, acc, &nacc);
	if (!ret)
		ret = tensor_src(b, op, "stationary", st);
	if (ret)
		return ret;
	if (st.np > VNEF_MM_MAX_K || st.nf > VNEF_MM_MAX_M)
		return nd_berr(b, EINVAL, "%s: stationary is [%u x %u]; at most [%d x %d] "
			       "(K partitions x M)", op, st.np, st.nf, VNEF_MM_MAX_K,
			       VNEF_MM_MAX_M);
	return 0;
}

/*
 * The operand dtypes a matmul takes together: the same, or two fp8 formats (TensorE
 * multiplies an E4M3 matrix by an E5M2 one: AWS's Trainium2 NKI guide).
 */
static bool mm_dtypes_match(uint32_t a, uint32_t b)
{
	return a == b || (vn_dtype_is_fp8(a) && vn_dtype_is_fp8(b));
}

/* Emit it; MULTIPLY_MOVING's checks then know the stationary's shape and dtype. */
static int load_stationary(struct nd_builder *b, struct nd_entry *e, struct nd_access *acc,
			   struct nd_tv st, const char *op, const char *file, int line)
{
	int ret = nd_emit(b, ND_TENSOR, e, acc, 1, op, file, line);

	if (ret)
		return ret;
	b->stat_valid = 1;
	b->stat_k = st.np;
	b->stat_m = st.nf;
	b->stat_dtype = st.tile->dtype;
	return 0;
}

int nd_load_stationary_at(struct nd_builder *b, struct nd_tv st, const char *file, int line)
{
	const char *op = "load_stationary";
	struct nd_access acc;
	struct nd_entry e;
	int ret;

	if (!b)
		return -EINVAL;
	ret = stationary(b, op, st, &e, &acc);
	if (ret)
		return ret;
	return load_stationary(b, &e, &acc, st, op, file, line);
}

static int multiply_moving(struct nd_builder *b, struct nd_tv dst, struct nd_tv mv,
			   int accumulate, const char *op, const char *file, int line)
{
	static const char *const names[3] = { "dst", "moving", NULL };
	struct nd_operands o = { .dst = dst, .src0 = mv,
				 .flags = accumulate ? VNEF_IF_ACCUMULATE : 0 };
	struct nd_access acc[3];
	struct nd_entry e;
	uint32_t nacc;
	int ret;

	ret = instr_begin(b, op, ND_TENSOR, VNEF_OP_MULTIPLY_MOVING, &o, names, &e, acc, &nacc);
	if (ret)
		return ret;
	if (!b->stat_valid)
		return nd_berr(b, EINVAL, "%s: no stationary operand loaded on TensorE", op);
	ret = tensor_src(b, op, "moving", mv);
	if (!ret)
		ret = tensor_dst(b, op, dst, &e.u.in.dst);
	if (ret)
		return ret;
	if (!mm_dtypes_match(mv.tile->dtype, b->stat_dtype))
		return nd_berr(b, EINVAL, "%s: moving is %s but the stationary is %s", op,
			       vn_dtype_name(mv.tile->dtype), vn_dtype_name(b->stat_dtype));
	if (mv.np != b->stat_k)
		return nd_berr(b, EINVAL, "%s: shape mismatch: moving has K=%u partitions, the "
			       "stationary K=%u", op, mv.np, b->stat_k);
	if (mv.nf > VNEF_MM_MAX_N)
		return nd_berr(b, EINVAL, "%s: moving has N=%u columns; at most %d", op, mv.nf,
			       VNEF_MM_MAX_N);
	if (dst.np != b->stat_m || dst.nf != mv.nf)
		return nd_berr(b, EINVAL, "%s: shape mismatch: dst is [%u x %u], the product is "
			       "[%u x %u] (M x N)", op, dst.np, dst.nf, b->stat_m, mv.nf);
	return nd_emit(b, ND_TENSOR, &e, acc, nacc, op, file, line);
}

int nd_multiply_moving_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv mv,
			  int accumulate, const char *file, int line)
{
	if (!b)
		return -EINVAL;
	return multiply_moving(b, dst, mv, accumulate, "multiply_moving", file, line);
}

int nd_matmul_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv st, struct nd_tv mv,
		 int accumulate, const char *file, int line)
{
	const char *op = "matmul";
	struct nd_access acc;
	struct nd_entry e;
	struct vnef_ap ap;
	int ret;

	if (!b)
		return -EINVAL;
	/* Check both halves before emitting either, so a bad call leaves nothing behind. */
	ret = stationary(b, op, st, &e, &acc);
	if (!ret)
		ret = operand(b, op, "moving", mv, &ap, NULL, 0);
	if (!ret)
		ret = tensor_src(b, op, "moving", mv);
	if (ret)
		return ret;
	if (mv.np != st.np)
		return nd_berr(b, EINVAL, "%s: shape mismatch: stationary has K=%u partitions, "
			       "moving K=%u", op, st.np, mv.np);
	if (!mm_dtypes_match(mv.tile->dtype, st.tile->dtype))
		return nd_berr(b, EINVAL, "%s: stationary and moving dtypes differ", op);
	if (mv.nf > VNEF_MM_MAX_N)
		return nd_berr(b, EINVAL, "%s: moving has N=%u columns; at most %d", op, mv.nf,
			       VNEF_MM_MAX_N);
	ret = operand(b, op, "dst", dst, &ap, NULL, 1);
	if (ret)
		return ret;
	if (dst.np != st.nf || dst.nf != mv.nf)
		return nd_berr(b, EINVAL, "%s: shape mismatch: dst is [%u x %u], the product is "
			       "[%u x %u] (M x N)", op, dst.np, dst.nf, st.nf, mv.nf);
	ret = tensor_dst(b, op, dst, &ap);
	if (!ret)
		ret = load_stationary(b, &e, &acc, st, op, file, line);
	if (ret)
		return ret;
	return multiply_moving(b, dst, mv, accumulate, op, file, line);
}

int nd_transpose_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src, int accumulate,
		    const char *file, int line)
{
	const char *op = "transpose";
	struct nd_operands o = { .dst = dst, .src0 = src,
				 .flags = accumulate ? VNEF_IF_ACCUMULATE : 0 };
	struct nd_access acc[3];
	struct nd_entry e;
	uint32_t nacc;
	int ret;

	if (!b)
		return -EINVAL;
	ret = instr_begin(b, op, ND_TENSOR, VNEF_OP_TRANSPOSE, &o, NULL, &e, acc, &nacc);
	if (ret)
		return ret;
	if (dst.np != src.nf || dst.nf != src.np)
		return nd_berr(b, EINVAL, "%s: shape mismatch: src is [%u x %u], dst must be "
			       "[%u x %u], is [%u x %u]", op, src.np, src.nf, src.nf, src.np,
			       dst.np, dst.nf);
	/* dst has src.nf partitions, so src.nf <= 128 = VNEF_MM_MAX_M already */
	ret = tensor_src(b, op, "src", src);
	if (!ret)
		ret = tensor_dst(b, op, dst, &e.u.in.dst);
	if (ret)
		return ret;
	return nd_emit(b, ND_TENSOR, &e, acc, nacc, op, file, line);
}

/* ---------------------------------------------------------------------------- */
/* DMA                                                                          */

static int pick_queue(struct nd_builder *b, const char *op, int queue, uint32_t *stream)
{
	if (queue == ND_QUEUE_AUTO || queue == ND_QUEUE_SPREAD) {
		queue = (int)b->next_queue;
		b->next_queue = (b->next_queue + 1) % VNEF_DMA_QUEUES;
	} else if (queue < 0 || queue >= VNEF_DMA_QUEUES) {
		return nd_berr(b, EINVAL, "%s: DMA queue %d; queues are 0..%d, ND_QUEUE_AUTO or "
			       "ND_QUEUE_SPREAD",
			       op, queue, VNEF_DMA_QUEUES - 1);
	}
	*stream = VNEF_STREAM_DMA(queue);
	return 0;
}

/* One endpoint of a transfer: fill the descriptor side and the region it covers. */
static int endpoint(struct nd_builder *b, const char *op, const char *what,
		    const struct nd_dma_ep *ep, const struct nd_dma_xfer *x, int write,
		    struct vnef_dma_ep *out, struct nd_access *acc)
{
	uint64_t span = 0, pspan = 0, end;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	memset(acc, 0, sizeof(*acc));
	acc->write = write;
	for (i = 0; i < 2; i++) {
		uint64_t k = x->count[i] - 1, t;

		if (__builtin_mul_overflow(k, ep->stride[i], &t) ||
		    __builtin_add_overflow(span, t, &span))
			return nd_berr(b, ERANGE, "%s: %s strides overflow", op, what);
		pspan += k * ep->part_stride[i];
	}
	if (__builtin_add_overflow(span, (uint64_t)x->chunk_bytes, &span) ||
	    __builtin_add_overflow(span, ep->offset, &end))
		return nd_berr(b, ERANGE, "%s: %s extent overflows", op, what);

	if (!!ep->tensor == !!ep->tile)
		return nd_berr(b, EINVAL, "%s: %s must name exactly one of a tensor and a tile",
			       op, what);
	if (ep->tensor) {
		const struct nd_tensor *t = ep->tensor;

		if (t->b != b)
			return nd_berr(b, EINVAL, "%s: %s tensor belongs to another builder", op,
				       what);
		if (ep->partition || ep->part_stride[0] || ep->part_stride[1])
			return nd_berr(b, EINVAL, "%s: %s is in HBM; partitions must be 0", op,
				       what);
		/* program id 1's slice too: a program must fit on either instance */
		end += (uint64_t)ep->pid_stride * (VN_LNC_MAX - 1);
		if (end > t->size)
			return nd_berr(b, ERANGE, "%s: %s reaches byte %llu of tensor '%s'%s, "
				       "which has %llu", op, what, (unsigned long long)end, t->name,
				       ep->pid_stride ? " (program id 1's slice)" : "",
				       (unsigned long long)t->size);
		if (write && (t->kind == VNEF_TENSOR_INPUT || t->kind == VNEF_TENSOR_CONST))
			return nd_berr(b, EINVAL, "%s: writes %s tensor '%s', which is read-only",
				       op, t->kind == VNEF_TENSOR_INPUT ? "input" : "constant",
				       t->name);
		out->mem = VNEF_MEM_HBM;
		out->tensor = t->index;
		out->offset = ep->offset;
		out->pid_stride = ep->pid_stride;
		acc->pid_stride = ep->pid_stride;
		acc->space = ND_SPACE_HBM + t->index;
		acc->p_lo = 0;
		acc->p_hi = 1;
	} else {
		const struct nd_tile *t = ep->tile;
		uint64_t tbytes;
		int ret = check_tile(b, op, what, t);

		if (ret)
			return ret;
		if (ep->pid_stride)
			return nd_berr(b, EINVAL, "%s: %s is tile '%s': a pid_stride is for HBM "
				       "(each physical core has its own SBUF and PSUM)", op, what,
				       t->name);
		tbytes = (uint64_t)t->free * vn_dtype_bytes(t->dtype);
		if (ep->partition + pspan >= t->partitions)
			return nd_berr(b, ERANGE, "%s: %s reaches partition %llu of tile '%s', which "
				       "has %u", op, what,
				       (unsigned long long)(ep->partition + pspan), t->name,
				       t->partitions);
		if (end > tbytes)
			return nd_berr(b, ERANGE, "%s: %s reaches byte %llu of each partition of "
				       "tile '%s', which has %llu", op, what,
				       (unsigned long long)end, t->name,
				       (unsigned long long)tbytes);
		out->mem = t->mem;
		out->offset = t->offset + ep->offset;
		out->partition = ep->partition;
		out->part_stride[0] = ep->part_stride[0];
		out->part_stride[1] = ep->part_stride[1];
		acc->space = t->mem;
		acc->p_lo = ep->partition;
		acc->p_hi = (uint32_t)(ep->partition + pspan + 1);
	}
	out->stride[0] = ep->stride[0];
	out->stride[1] = ep->stride[1];
	acc->b_lo = out->offset;
	/* ordered against what either instance's slice touches */
	acc->b_hi = out->offset + span + (uint64_t)ep->pid_stride * (VN_LNC_MAX - 1);
	return 0;
}

static int dma(struct nd_builder *b, const char *op, int queue, const struct nd_dma_xfer *x,
	       const char *file, int line)
{
	struct nd_access acc[2];
	struct nd_entry e;
	uint32_t stream = 0;
	int ret;

	if (!x->chunk_bytes || !x->count[0] || !x->count[1])
		return nd_berr(b, EINVAL, "%s: empty transfer (%u x %u chunks of %u bytes)", op,
			       x->count[1], x->count[0], x->chunk_bytes);
	memset(&e, 0, sizeof(e));
	ret = endpoint(b, op, "source", &x->src, x, 0, &e.u.d.src, &acc[0]);
	if (!ret)
		ret = endpoint(b, op, "destination", &x->dst, x, 1, &e.u.d.dst, &acc[1]);
	if (ret)
		return ret;
	if (x->src.tensor && x->dst.tile && x->src.tensor->dtype != x->dst.tile->dtype)
		return nd_berr(b, EINVAL, "%s: dtype mismatch: tensor '%s' is %s, tile '%s' is %s",
			       op, x->src.tensor->name, vn_dtype_name(x->src.tensor->dtype),
			       x->dst.tile->name, vn_dtype_name(x->dst.tile->dtype));
	if (x->dst.tensor && x->src.tile && x->dst.tensor->dtype != x->src.tile->dtype)
		return nd_berr(b, EINVAL, "%s: dtype mismatch: tile '%s' is %s, tensor '%s' is %s",
			       op, x->src.tile->name, vn_dtype_name(x->src.tile->dtype),
			       x->dst.tensor->name, vn_dtype_name(x->dst.tensor->dtype));
	ret = pick_queue(b, op, queue, &stream);
	if (ret)
		return ret;
	e.u.d.chunk_bytes = x->chunk_bytes;
	e.u.d.count[0] = x->count[0];
	e.u.d.count[1] = x->count[1];
	return nd_emit(b, stream, &e, acc, 2, op, file, line);
}

int nd_dma_at(struct nd_builder *b, int queue, const struct nd_dma_xfer *x, const char *file,
	      int line)
{
	if (!b)
		return -EINVAL;
	if (!x)
		return nd_berr(b, EINVAL, "dma: no transfer given");
	return dma(b, "dma", queue, x, file, line);
}

/* A tile view and an HBM pattern as a transfer; tile_is_dst says the direction. */
static int view_xfer(struct nd_builder *b, const char *op, struct nd_tv v, struct nd_hbm h,
		     struct nd_dma_xfer *x, int tile_is_dst)
{
	struct nd_dma_ep *te = tile_is_dst ? &x->dst : &x->src;
	struct nd_dma_ep *he = tile_is_dst ? &x->src : &x->dst;
	uint64_t es, last;
	int ret;

	ret = check_tile(b, op, "tile", v.tile);
	if (ret)
		return ret;
	if (!h.tensor)
		return nd_berr(b, EINVAL, "%s: no HBM tensor (NULL)", op);
	if (!v.np || !v.nf)
		return nd_berr(b, EINVAL, "%s: empty view (%u x %u)", op, v.np, v.nf);
	if (v.strided)
		return nd_berr(b, EINVAL, "%s: a strided tile view; give the pattern to nd_dma()",
			       op);
	if (h.pid_stride > UINT32_MAX / 8)
		return nd_berr(b, ERANGE, "%s: a pid_stride of %llu elements is more than a DMA "
			       "descriptor holds", op, (unsigned long long)h.pid_stride);
	if ((uint64_t)v.p0 + v.np > v.tile->partitions ||
	    (uint64_t)v.f0 + v.nf > v.tile->free)
		return nd_berr(b, ERANGE, "%s: view [%u:%u, %u:%u] is outside tile '%s' [%u x %u]",
			       op, v.p0, v.p0 + v.np, v.f0, v.f0 + v.nf, v.tile->name,
			       v.tile->partitions, v.tile->free);
	/* each term is checked below; their sum stays far from 2^64 */
	last = h.offset + (v.np - 1) * h.pstride + (v.nf - 1) * h.fstride;
	if (h.offset >= h.tensor->numel || h.pstride > h.tensor->numel ||
	    h.fstride > h.tensor->numel || last >= h.tensor->numel)
		return nd_berr(b, ERANGE, "%s: the view [%u x %u] reaches element %llu of tensor "
			       "'%s', which has %llu", op, v.np, v.nf, (unsigned long long)last,
			       h.tensor->name, (unsigned long long)h.tensor->numel);
	es = vn_dtype_bytes(v.tile->dtype);
	memset(x, 0, sizeof(*x));
	te->tile = v.tile;
	te->partition = v.p0;
	te->offset = v.f0 * es;
	he->tensor = h.tensor;
	he->offset = h.offset * vn_dtype_bytes(h.tensor->dtype);
	he->pid_stride = (uint32_t)(h.pid_stride * vn_dtype_bytes(h.tensor->dtype));
	if (h.fstride == 1) {
		/* One contiguous row per partition. */
		x->chunk_bytes = (uint32_t)(v.nf * es);
		x->count[0] = v.np;
		x->count[1] = 1;
		te->part_stride[0] = 1;
		he->stride[0] = h.pstride * es;
	} else {
		/* Element by element: free index inner, partition outer. */
		x->chunk_bytes = (uint32_t)es;
		x->count[0] = v.nf;
		x->count[1] = v.np;
		te->stride[0] = es;
		te->part_stride[1] = 1;
		he->stride[0] = h.fstride * es;
		he->stride[1] = h.pstride * es;
	}
	return 0;
}

#define SPREAD_WAYS	4
#define SPREAD_MIN	(64u << 10)

/*
 * A load or store of a view. ND_QUEUE_SPREAD splits a large one by partitions over the
 * next queues, so its parts move in parallel (each queue is one DMA engine).
 */
static int view_dma(struct nd_builder *b, const char *op, int queue, struct nd_tv v,
		    struct nd_hbm h, int tile_is_dst, const char *file, int line)
{
	struct nd_dma_xfer x;
	uint32_t parts = 1, k;
	int ret;

	ret = view_xfer(b, op, v, h, &x, tile_is_dst);
	if (ret)
		return ret;
	if (queue != ND_QUEUE_SPREAD)
		return dma(b, op, queue, &x, file, line);
	if ((uint64_t)v.np * v.nf * vn_dtype_bytes(v.tile->dtype) >= SPREAD_MIN)
		parts = v.np < SPREAD_WAYS ? v.np : SPREAD_WAYS;
	for (k = 0; k < parts; k++) {
		uint32_t p0 = v.np * k / parts, p1 = v.np * (k + 1) / parts;
		struct nd_tv sub = v;
		struct nd_hbm hs = h;

		sub.p0 = v.p0 + p0;
		sub.np = p1 - p0;
		hs.offset = h.offset + p0 * h.pstride;
		/* inside the whole view, which passed: these cannot fail but for limits */
		ret = view_xfer(b, op, sub, hs, &x, tile_is_dst);
		if (!ret)
			ret = dma(b, op, ND_QUEUE_AUTO, &x, file, line);
		if (ret)
			return ret;
	}
	return 0;
}

int nd_load_at(struct nd_builder *b, int queue, struct nd_tv dst, struct nd_hbm src,
	       const char *file, int line)
{
	if (!b)
		return -EINVAL;
	return view_dma(b, "load", queue, dst, src, 1, file, line);
}

int nd_store_at(struct nd_builder *b, int queue, struct nd_hbm dst, struct nd_tv src,
		const char *file, int line)
{
	if (!b)
		return -EINVAL;
	return view_dma(b, "store", queue, src, dst, 0, file, line);
}
