// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The instruction calls of the builder: check the operands with messages that name the
 * instruction and the operand, fill a vnef_instr or vnef_dma_desc, list the regions it
 * reads and writes, and hand it to nd_emit() for ordering.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nd_internal.h"

static const char *const alu_names[] = { "add", "sub", "mul", "max", "min", "div" };
static const char *const act_names[] = {
	"identity", "exp", "log", "tanh", "sigmoid", "gelu", "relu", "sqrt", "rsqrt",
	"reciprocal", "square",
};

static uint32_t fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
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
	es = nd_dtype_size(t->dtype);
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

static int check_engine(struct nd_builder *b, const char *op, enum nd_engine e,
			unsigned int allowed)
{
	if ((unsigned int)e >= VNEF_ENGINES || !(allowed & (1u << e)))
		return nd_berr(b, EINVAL, "%s does not run on engine %d (%s)", op, (int)e,
			       (unsigned int)e < VNEF_ENGINES ? nd_stream_name(e) : "unknown");
	return 0;
}

#define ENG(x) (1u << (x))

static int check_alu(struct nd_builder *b, const char *op, enum nd_alu a, int reduce)
{
	if ((unsigned int)a >= VNEF_ALU_COUNT)
		return nd_berr(b, EINVAL, "%s: unknown ALU operation %d", op, (int)a);
	if (reduce && a != ND_ADD && a != ND_MAX && a != ND_MIN)
		return nd_berr(b, EINVAL, "%s: cannot reduce with '%s' (add, max or min)", op,
			       alu_names[a]);
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

static void instr(struct nd_entry *e, uint32_t opcode)
{
	memset(e, 0, sizeof(*e));
	e->u.in.opcode = opcode;
}

int nd_load_stationary_at(struct nd_builder *b, struct nd_tv st, const char *file, int line)
{
	const char *op = "load_stationary";
	struct nd_access acc;
	struct nd_entry e;
	int ret;

	if (!b)
		return -EINVAL;
	instr(&e, VNEF_OP_LOAD_STATIONARY);
	ret = operand(b, op, "stationary", st, &e.u.in.src0, &acc, 0);
	if (!ret)
		ret = tensor_src(b, op, "stationary", st);
	if (ret)
		return ret;
	if (st.np > VNEF_MM_MAX_K || st.nf > VNEF_MM_MAX_M)
		return nd_berr(b, EINVAL, "%s: stationary is [%u x %u]; at most [%d x %d] "
			       "(K partitions x M)", op, st.np, st.nf, VNEF_MM_MAX_K,
			       VNEF_MM_MAX_M);
	ret = nd_emit(b, ND_TENSOR, &e, &acc, 1, op, file, line);
	if (ret)
		return ret;
	b->stat_valid = 1;
	b->stat_k = st.np;
	b->stat_m = st.nf;
	b->stat_dtype = st.tile->dtype;
	return 0;
}

static int multiply_moving(struct nd_builder *b, struct nd_tv dst, struct nd_tv mv,
			   int accumulate, const char *op, const char *file, int line)
{
	struct nd_access acc[3];
	struct nd_entry e;
	int ret;

	instr(&e, VNEF_OP_MULTIPLY_MOVING);
	ret = operand(b, op, "dst", dst, &e.u.in.dst, &acc[0], 1);
	if (!ret)
		ret = operand(b, op, "moving", mv, &e.u.in.src0, &acc[1], 0);
	if (ret)
		return ret;
	if (!b->stat_valid)
		return nd_berr(b, EINVAL, "%s: no stationary operand loaded on TensorE", op);
	ret = tensor_src(b, op, "moving", mv);
	if (!ret)
		ret = tensor_dst(b, op, dst, &e.u.in.dst);
	if (ret)
		return ret;
	if (mv.tile->dtype != b->stat_dtype)
		return nd_berr(b, EINVAL, "%s: moving is %s but the stationary is %s", op,
			       mv.tile->dtype == ND_BF16 ? "bf16" : "fp32",
			       b->stat_dtype == ND_BF16 ? "bf16" : "fp32");
	if (mv.np != b->stat_k)
		return nd_berr(b, EINVAL, "%s: shape mismatch: moving has K=%u partitions, the "
			       "stationary K=%u", op, mv.np, b->stat_k);
	if (mv.nf > VNEF_MM_MAX_N)
		return nd_berr(b, EINVAL, "%s: moving has N=%u columns; at most %d", op, mv.nf,
			       VNEF_MM_MAX_N);
	if (dst.np != b->stat_m || dst.nf != mv.nf)
		return nd_berr(b, EINVAL, "%s: shape mismatch: dst is [%u x %u], the product is "
			       "[%u x %u] (M x N)", op, dst.np, dst.nf, b->stat_m, mv.nf);
	if (accumulate) {
		e.u.in.flags |= VNEF_IF_ACCUMULATE;
		acc[2] = acc[0];
		acc[2].write = 0;
	}
	return nd_emit(b, ND_TENSOR, &e, acc, accumulate ? 3 : 2, op, file, line);
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
	struct nd_access acc;
	struct nd_entry e;
	int ret;

	if (!b)
		return -EINVAL;
	/* Check both halves before emitting either, so a bad call leaves nothing behind. */
	instr(&e, VNEF_OP_LOAD_STATIONARY);
	ret = operand(b, "matmul", "stationary", st, &e.u.in.src0, &acc, 0);
	if (!ret)
		ret = tensor_src(b, "matmul", "stationary", st);
	if (ret)
		return ret;
	if (st.np > VNEF_MM_MAX_K || st.nf > VNEF_MM_MAX_M)
		return nd_berr(b, EINVAL, "matmul: stationary is [%u x %u]; at most [%d x %d] "
			       "(K partitions x M)", st.np, st.nf, VNEF_MM_MAX_K, VNEF_MM_MAX_M);
	{
		struct nd_entry e2;
		struct vnef_ap ap;

		instr(&e2, VNEF_OP_MULTIPLY_MOVING);
		ret = operand(b, "matmul", "moving", mv, &ap, NULL, 0);
		if (!ret)
			ret = tensor_src(b, "matmul", "moving", mv);
		if (ret)
			return ret;
		if (mv.np != st.np)
			return nd_berr(b, EINVAL, "matmul: shape mismatch: stationary has K=%u "
				       "partitions, moving K=%u", st.np, mv.np);
		if (mv.tile->dtype != st.tile->dtype)
			return nd_berr(b, EINVAL, "matmul: stationary and moving dtypes differ");
	}
	if (mv.nf > VNEF_MM_MAX_N)
		return nd_berr(b, EINVAL, "matmul: moving has N=%u columns; at most %d", mv.nf,
			       VNEF_MM_MAX_N);
	{
		struct vnef_ap dap;

		ret = operand(b, "matmul", "dst", dst, &dap, NULL, 1);
		if (ret)
			return ret;
		if (dst.np != st.nf || dst.nf != mv.nf)
			return nd_berr(b, EINVAL, "matmul: shape mismatch: dst is [%u x %u], the "
				       "product is [%u x %u] (M x N)", dst.np, dst.nf, st.nf, mv.nf);
		ret = tensor_dst(b, "matmul", dst, &dap);
		if (ret)
			return ret;
	}
	ret = nd_emit(b, ND_TENSOR, &e, &acc, 1, "matmul", file, line);
	if (ret)
		return ret;
	b->stat_valid = 1;
	b->stat_k = st.np;
	b->stat_m = st.nf;
	b->stat_dtype = st.tile->dtype;
	return multiply_moving(b, dst, mv, accumulate, "matmul", file, line);
}

int nd_transpose_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src, int accumulate,
		    const char *file, int line)
{
	const char *op = "transpose";
	struct nd_access acc[3];
	struct nd_entry e;
	int ret;

	if (!b)
		return -EINVAL;
	instr(&e, VNEF_OP_TRANSPOSE);
	ret = operand(b, op, "dst", dst, &e.u.in.dst, &acc[0], 1);
	if (!ret)
		ret = operand(b, op, "src", src, &e.u.in.src0, &acc[1], 0);
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
	if (accumulate) {
		e.u.in.flags |= VNEF_IF_ACCUMULATE;
		acc[2] = acc[0];
		acc[2].write = 0;
	}
	return nd_emit(b, ND_TENSOR, &e, acc, accumulate ? 3 : 2, op, file, line);
}

int nd_tensor_tensor_at(struct nd_builder *b, enum nd_engine eng, struct nd_tv dst,
			struct nd_tv s0, struct nd_tv s1, enum nd_alu a, const char *file,
			int line)
{
	const char *op = "tensor_tensor";
	struct nd_access acc[3];
	struct nd_entry e;
	int ret;

	if (!b)
		return -EINVAL;
	ret = check_engine(b, op, eng, ENG(ND_VECTOR) | ENG(ND_GPSIMD));
	if (!ret)
		ret = check_alu(b, op, a, 0);
	if (ret)
		return ret;
	instr(&e, VNEF_OP_TENSOR_TENSOR);
	e.u.in.op = a;
	ret = operand(b, op, "dst", dst, &e.u.in.dst, &acc[0], 1);
	if (!ret)
		ret = operand(b, op, "src0", s0, &e.u.in.src0, &acc[1], 0);
	if (!ret)
		ret = operand(b, op, "src1", s1, &e.u.in.src1, &acc[2], 0);
	if (!ret)
		ret = same_shape(b, op, "dst", dst, "src0", s0);
	if (!ret)
		ret = same_shape(b, op, "dst", dst, "src1", s1);
	if (ret)
		return ret;
	return nd_emit(b, eng, &e, acc, 3, alu_names[a], file, line);
}

int nd_tensor_scalar_at(struct nd_builder *b, enum nd_engine eng, struct nd_tv dst,
			struct nd_tv s0, enum nd_alu a, float scalar, int reverse,
			const char *file, int line)
{
	const char *op = "tensor_scalar";
	struct nd_access acc[2];
	struct nd_entry e;
	int ret;

	if (!b)
		return -EINVAL;
	ret = check_engine(b, op, eng, ENG(ND_VECTOR) | ENG(ND_GPSIMD));
	if (!ret)
		ret = check_alu(b, op, a, 0);
	if (ret)
		return ret;
	instr(&e, VNEF_OP_TENSOR_SCALAR);
	e.u.in.op = a;
	e.u.in.imm[0] = fbits(scalar);
	if (reverse)
		e.u.in.flags |= VNEF_IF_REVERSE;
	ret = operand(b, op, "dst", dst, &e.u.in.dst, &acc[0], 1);
	if (!ret)
		ret = operand(b, op, "src", s0, &e.u.in.src0, &acc[1], 0);
	if (!ret)
		ret = same_shape(b, op, "dst", dst, "src", s0);
	if (ret)
		return ret;
	return nd_emit(b, eng, &e, acc, 2, alu_names[a], file, line);
}

static int column(struct nd_builder *b, const char *op, struct nd_tv c, uint32_t np)
{
	if (c.nf != 1 || c.np != np)
		return nd_berr(b, EINVAL, "%s: shape mismatch: the column must be [%u x 1], is "
			       "[%u x %u]", op, np, c.np, c.nf);
	return 0;
}

int nd_tensor_column_at(struct nd_builder *b, enum nd_engine eng, struct nd_tv dst,
			struct nd_tv s0, enum nd_alu a, struct nd_tv col, int reverse,
			const char *file, int line)
{
	const char *op = "tensor_scalar";
	struct nd_access acc[3];
	struct nd_entry e;
	int ret;

	if (!b)
		return -EINVAL;
	ret = check_engine(b, op, eng, ENG(ND_VECTOR) | ENG(ND_GPSIMD));
	if (!ret)
		ret = check_alu(b, op, a, 0);
	if (ret)
		return ret;
	instr(&e, VNEF_OP_TENSOR_SCALAR);
	e.u.in.op = a;
	e.u.in.flags = VNEF_IF_SCALAR_COLUMN | (reverse ? VNEF_IF_REVERSE : 0);
	ret = operand(b, op, "dst", dst, &e.u.in.dst, &acc[0], 1);
	if (!ret)
		ret = operand(b, op, "src", s0, &e.u.in.src0, &acc[1], 0);
	if (!ret)
		ret = operand(b, op, "column", col, &e.u.in.src1, &acc[2], 0);
	if (!ret)
		ret = same_shape(b, op, "dst", dst, "src", s0);
	if (!ret)
		ret = column(b, op, col, dst.np);
	if (ret)
		return ret;
	return nd_emit(b, eng, &e, acc, 3, alu_names[a], file, line);
}

int nd_reduce_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src, enum nd_alu a,
		 const char *file, int line)
{
	const char *op = "reduce";
	struct nd_access acc[2];
	struct nd_entry e;
	char name[32];
	int ret;

	if (!b)
		return -EINVAL;
	ret = check_alu(b, op, a, 1);
	if (ret)
		return ret;
	instr(&e, VNEF_OP_REDUCE);
	e.u.in.op = a;
	ret = operand(b, op, "dst", dst, &e.u.in.dst, &acc[0], 1);
	if (!ret)
		ret = operand(b, op, "src", src, &e.u.in.src0, &acc[1], 0);
	if (ret)
		return ret;
	if (dst.nf != 1 || dst.np != src.np)
		return nd_berr(b, EINVAL, "%s: shape mismatch: dst must be [%u x 1], is [%u x %u]",
			       op, src.np, dst.np, dst.nf);
	snprintf(name, sizeof(name), "reduce_%s", alu_names[a]);
	return nd_emit(b, ND_VECTOR, &e, acc, 2, name, file, line);
}

int nd_copy_at(struct nd_builder *b, enum nd_engine eng, struct nd_tv dst, struct nd_tv src,
	       const char *file, int line)
{
	const char *op = "copy";
	struct nd_access acc[2];
	struct nd_entry e;
	int ret;

	if (!b)
		return -EINVAL;
	ret = check_engine(b, op, eng, ENG(ND_VECTOR) | ENG(ND_SCALAR) | ENG(ND_GPSIMD));
	if (ret)
		return ret;
	instr(&e, VNEF_OP_COPY);
	ret = operand(b, op, "dst", dst, &e.u.in.dst, &acc[0], 1);
	if (!ret)
		ret = operand(b, op, "src", src, &e.u.in.src0, &acc[1], 0);
	if (!ret)
		ret = same_shape(b, op, "dst", dst, "src", src);
	if (ret)
		return ret;
	return nd_emit(b, eng, &e, acc, 2, op, file, line);
}

static int activate(struct nd_builder *b, struct nd_tv dst, struct nd_tv src, enum nd_act f,
		    float scale, float bias, const struct nd_tv *bias_col, const char *file,
		    int line)
{
	const char *op = "activate";
	struct nd_access acc[3];
	struct nd_entry e;
	int ret;

	if ((unsigned int)f >= VNEF_ACT_COUNT)
		return nd_berr(b, EINVAL, "%s: unknown activation function %d", op, (int)f);
	instr(&e, VNEF_OP_ACTIVATE);
	e.u.in.op = f;
	e.u.in.imm[0] = fbits(scale);
	ret = operand(b, op, "dst", dst, &e.u.in.dst, &acc[0], 1);
	if (!ret)
		ret = operand(b, op, "src", src, &e.u.in.src0, &acc[1], 0);
	if (!ret)
		ret = same_shape(b, op, "dst", dst, "src", src);
	if (!ret && bias_col) {
		ret = operand(b, op, "bias column", *bias_col, &e.u.in.src1, &acc[2], 0);
		if (!ret)
			ret = column(b, op, *bias_col, dst.np);
		e.u.in.flags |= VNEF_IF_BIAS_COLUMN;
	} else {
		e.u.in.imm[1] = fbits(bias);
	}
	if (ret)
		return ret;
	return nd_emit(b, ND_SCALAR, &e, acc, bias_col ? 3 : 2, act_names[f], file, line);
}

int nd_activate_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src, enum nd_act f,
		   float scale, float bias, const char *file, int line)
{
	if (!b)
		return -EINVAL;
	return activate(b, dst, src, f, scale, bias, NULL, file, line);
}

int nd_activate_column_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src,
			  enum nd_act f, float scale, struct nd_tv bias_col, const char *file,
			  int line)
{
	if (!b)
		return -EINVAL;
	return activate(b, dst, src, f, scale, 0.0f, &bias_col, file, line);
}

int nd_memset_at(struct nd_builder *b, enum nd_engine eng, struct nd_tv dst, float value,
		 const char *file, int line)
{
	const char *op = "memset";
	struct nd_access acc;
	struct nd_entry e;
	int ret;

	if (!b)
		return -EINVAL;
	ret = check_engine(b, op, eng, ENG(ND_VECTOR) | ENG(ND_GPSIMD));
	if (ret)
		return ret;
	instr(&e, VNEF_OP_MEMSET);
	e.u.in.imm[0] = fbits(value);
	ret = operand(b, op, "dst", dst, &e.u.in.dst, &acc, 1);
	if (ret)
		return ret;
	return nd_emit(b, eng, &e, &acc, 1, op, file, line);
}

int nd_iota_at(struct nd_builder *b, struct nd_tv dst, int32_t base, int32_t pstep,
	       int32_t fstep, const char *file, int line)
{
	const char *op = "iota";
	struct nd_access acc;
	struct nd_entry e;
	int ret;

	if (!b)
		return -EINVAL;
	instr(&e, VNEF_OP_IOTA);
	e.u.in.imm[0] = (uint32_t)base;
	e.u.in.imm[1] = (uint32_t)pstep;
	e.u.in.imm[2] = (uint32_t)fstep;
	ret = operand(b, op, "dst", dst, &e.u.in.dst, &acc, 1);
	if (ret)
		return ret;
	return nd_emit(b, ND_GPSIMD, &e, &acc, 1, op, file, line);
}

int nd_partition_reduce_at(struct nd_builder *b, struct nd_tv dst, struct nd_tv src,
			   enum nd_alu a, const char *file, int line)
{
	const char *op = "partition_reduce";
	struct nd_access acc[2];
	struct nd_entry e;
	int ret;

	if (!b)
		return -EINVAL;
	ret = check_alu(b, op, a, 1);
	if (ret)
		return ret;
	instr(&e, VNEF_OP_PARTITION_REDUCE);
	e.u.in.op = a;
	ret = operand(b, op, "dst", dst, &e.u.in.dst, &acc[0], 1);
	if (!ret)
		ret = operand(b, op, "src", src, &e.u.in.src0, &acc[1], 0);
	if (ret)
		return ret;
	if (dst.np != 1 || dst.nf != src.nf)
		return nd_berr(b, EINVAL, "%s: shape mismatch: dst must be [1 x %u], is [%u x %u]",
			       op, src.nf, dst.np, dst.nf);
	return nd_emit(b, ND_GPSIMD, &e, acc, 2, op, file, line);
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
		if (end > t->size)
			return nd_berr(b, ERANGE, "%s: %s reaches byte %llu of tensor '%s', which "
				       "has %llu", op, what, (unsigned long long)end, t->name,
				       (unsigned long long)t->size);
		if (write && (t->kind == VNEF_TENSOR_INPUT || t->kind == VNEF_TENSOR_CONST))
			return nd_berr(b, EINVAL, "%s: writes %s tensor '%s', which is read-only",
				       op, t->kind == VNEF_TENSOR_INPUT ? "input" : "constant",
				       t->name);
		out->mem = VNEF_MEM_HBM;
		out->tensor = t->index;
		out->offset = ep->offset;
		acc->space = ND_SPACE_HBM + t->index;
		acc->p_lo = 0;
		acc->p_hi = 1;
	} else {
		const struct nd_tile *t = ep->tile;
		uint64_t tbytes;
		int ret = check_tile(b, op, what, t);

		if (ret)
			return ret;
		tbytes = (uint64_t)t->free * nd_dtype_size(t->dtype);
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
	acc->b_hi = out->offset + span;
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
			       op, x->src.tensor->name,
			       x->src.tensor->dtype == ND_BF16 ? "bf16" : "fp32",
			       x->dst.tile->name, x->dst.tile->dtype == ND_BF16 ? "bf16" : "fp32");
	if (x->dst.tensor && x->src.tile && x->dst.tensor->dtype != x->src.tile->dtype)
		return nd_berr(b, EINVAL, "%s: dtype mismatch: tile '%s' is %s, tensor '%s' is %s",
			       op, x->src.tile->name,
			       x->src.tile->dtype == ND_BF16 ? "bf16" : "fp32",
			       x->dst.tensor->name,
			       x->dst.tensor->dtype == ND_BF16 ? "bf16" : "fp32");
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
	es = nd_dtype_size(v.tile->dtype);
	memset(x, 0, sizeof(*x));
	te->tile = v.tile;
	te->partition = v.p0;
	te->offset = v.f0 * es;
	he->tensor = h.tensor;
	he->offset = h.offset * nd_dtype_size(h.tensor->dtype);
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
	if ((uint64_t)v.np * v.nf * nd_dtype_size(v.tile->dtype) >= SPREAD_MIN)
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
