// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * VectorE and GpSimdE numerics: elementwise arithmetic, tensor-scalar, free-axis and
 * partition-axis reductions, copy/cast, memset and iota. Work goes segment by segment
 * (gather to fp32, compute, scatter) so in-place operands are fine and any stride works;
 * contiguous fp32 operands that are the destination or apart from it are computed where
 * they are, with the same operations (no copies).
 */
#include "vn_ap_fp.h"

static inline float f_max(float a, float b)
{
	return a > b ? a : b;
}

static inline float f_min(float a, float b)
{
	return a < b ? a : b;
}

static inline vn_v4 v4_op(u32 op, vn_v4 a, vn_v4 b)
{
	switch (op) {
	case VNEF_ALU_ADD:
		return v4_add(a, b);
	case VNEF_ALU_SUB:
		return a - b;
	case VNEF_ALU_MUL:
		return v4_mul(a, b);
	case VNEF_ALU_MAX:
		return v4_sel(a > b, a, b);
	case VNEF_ALU_MIN:
		return v4_sel(a < b, a, b);
	default:
		return a / b;
	}
}

/* a[i] = a[i] <op> b[i] */
static void alu_vec(u32 op, float *__restrict a, const float *__restrict b, u32 n)
{
	u32 i = 0;

	if (op <= VNEF_ALU_DIV)
		for (; i + 4 <= n; i += 4)
			v4_store(a + i, v4_op(op, v4_load(a + i), v4_load(b + i)));
	switch (op) {
	case VNEF_ALU_ADD:
		for (; i < n; i++)
			a[i] += b[i];
		break;
	case VNEF_ALU_SUB:
		for (; i < n; i++)
			a[i] -= b[i];
		break;
	case VNEF_ALU_MUL:
		for (; i < n; i++)
			a[i] *= b[i];
		break;
	case VNEF_ALU_MAX:
		for (; i < n; i++)
			a[i] = f_max(a[i], b[i]);
		break;
	case VNEF_ALU_MIN:
		for (; i < n; i++)
			a[i] = f_min(a[i], b[i]);
		break;
	case VNEF_ALU_DIV:
		for (; i < n; i++)
			a[i] /= b[i];
		break;
	}
}

/*
 * d[i] = a[i] <op> b[i] on contiguous operands, in place: the same operations as
 * alu_vec() on a gathered copy of a (the few last elements through one).
 */
static void alu_vec3(u32 op, float *d, const float *a, const float *b, u32 n)
{
	float ta[4], tb[4];
	u32 i = 0;

	if (op <= VNEF_ALU_DIV)
		for (; i + 4 <= n; i += 4)
			v4_store(d + i, v4_op(op, v4_load(a + i), v4_load(b + i)));
	if (i == n)
		return;
	memcpy(ta, a + i, (n - i) * 4);
	memcpy(tb, b + i, (n - i) * 4);
	alu_vec(op, ta, tb, n - i);
	memcpy(d + i, ta, (n - i) * 4);
}

/* a[i] = a[i] <op> s, or s <op> a[i] when reversed */
static void alu_scalar(u32 op, float *a, float s, u32 n, bool rev)
{
	const float sv[4] = { s, s, s, s };
	vn_v4 vs = v4_load(sv);
	u32 i = 0;

	/* as below: ADD and MUL take a[i] first whatever rev says */
	rev = rev && op != VNEF_ALU_ADD && op != VNEF_ALU_MUL;
	if (op <= VNEF_ALU_DIV)
		for (; i + 4 <= n; i += 4)
			v4_store(a + i, rev ? v4_op(op, vs, v4_load(a + i)) :
					      v4_op(op, v4_load(a + i), vs));
	switch (op) {
	case VNEF_ALU_ADD:
		for (; i < n; i++)
			a[i] += s;
		break;
	case VNEF_ALU_SUB:
		for (; i < n; i++)
			a[i] = rev ? s - a[i] : a[i] - s;
		break;
	case VNEF_ALU_MUL:
		for (; i < n; i++)
			a[i] *= s;
		break;
	case VNEF_ALU_MAX:
		for (; i < n; i++)
			a[i] = rev ? f_max(s, a[i]) : f_max(a[i], s);
		break;
	case VNEF_ALU_MIN:
		for (; i < n; i++)
			a[i] = rev ? f_min(s, a[i]) : f_min(a[i], s);
		break;
	case VNEF_ALU_DIV:
		for (; i < n; i++)
			a[i] = rev ? s / a[i] : a[i] / s;
		break;
	}
}

/* Sequential left-to-right, so the result does not depend on segmenting. */
static float reduce(u32 op, float acc, const float *a, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (op == VNEF_ALU_ADD)
			acc += a[i];
		else if (op == VNEF_ALU_MAX)
			acc = f_max(acc, a[i]);
		else
			acc = f_min(acc, a[i]);
	}
	return acc;
}

static inline float bits_f(u32 u)
{
	return vn_u32_f32(u);
}

static inline u32 f_bits(float f)
{
	union vn_f32 v = { .f = f };

	return v.u;
}

/*
 * Elements [j0, j0 + n) of partition p computed where they are, when every operand
 * there is contiguous fp32 and each source is the destination or apart from it, or a
 * COPY's contiguous fp32 goes to contiguous bf16 in the other memory: no gather and
 * scatter. False if not (nothing done).
 */
static bool elementwise_direct(struct vn_fp_ctx *x, const struct vnef_instr *in, u32 p, u32 j0,
			       u32 n, float s, bool rev)
{
	float *d = vn_ap_contig(x, &in->dst, p, j0, n), *a = NULL, *b = NULL;
	u16 *h;
	u32 i;

	/* fp32 to bf16 across memories (PSUM out to SBUF): narrowed straight over */
	if (!d && in->opcode == VNEF_OP_COPY && in->dst.mem != in->src0.mem) {
		h = vn_ap_contig_bf16(x, &in->dst, p, j0, n);
		a = h ? vn_ap_contig(x, &in->src0, p, j0, n) : NULL;
		if (!a)
			return false;
		if (x->simd == VN_SIMD_AVX512)
			vn_bf16_narrow_avx512(a, h, n);
		else
			vn_bf16_narrow(a, h, n);
		return true;
	}
	if (!d)
		return false;
	if (in->opcode == VNEF_OP_COPY || in->opcode == VNEF_OP_TENSOR_TENSOR ||
	    in->opcode == VNEF_OP_TENSOR_SCALAR) {
		a = vn_ap_contig(x, &in->src0, p, j0, n);
		if (!a)
			return false;
	}
	if (in->opcode == VNEF_OP_TENSOR_TENSOR) {
		b = vn_ap_contig(x, &in->src1, p, j0, n);
		if (!b || !vn_in_place_ok(d, b, n))
			return false;
	}
	if (a && !vn_in_place_ok(d, a, n))
		return false;
	switch (in->opcode) {
	case VNEF_OP_MEMSET:
		for (i = 0; i < n; i++)
			d[i] = s;
		return true;
	case VNEF_OP_COPY:
		memmove(d, a, n * 4);
		return true;
	case VNEF_OP_TENSOR_TENSOR:
		alu_vec3(in->op, d, a, b, n);
		return true;
	case VNEF_OP_TENSOR_SCALAR:
		if (d != a)
			memcpy(d, a, n * 4);
		alu_scalar(in->op, d, s, n, rev);
		return true;
	default:
		return false;
	}
}

/* Up to about VN_FP_CHUNK elements from the cursor on; true when finished. */
static bool elementwise(struct vn_fp_ctx *x, const struct vnef_instr *in,
			struct vn_fp_cursor *c)
{
	const struct vnef_ap *d = &in->dst;
	u32 f = vn_ap_free(d), budget = VN_FP_CHUNK, n, i;
	bool rev = in->flags & VNEF_IF_REVERSE;
	float s = bits_f(in->imm[0]);
	float *s0 = x->seg[0], *s1 = x->seg[1];

	for (; c->p < d->partitions; c->p++, c->j0 = 0) {
		if (in->opcode == VNEF_OP_TENSOR_SCALAR && (in->flags & VNEF_IF_SCALAR_COLUMN))
			vn_gather(x, &in->src1, c->p, 0, 1, &s);
		for (; c->j0 < f; c->j0 += n) {
			if (!budget)
				return false;
			n = min(min(f - c->j0, (u32)VN_FP_SEG), budget);
			budget -= n;
			if (elementwise_direct(x, in, c->p, c->j0, n, s, rev))
				continue;
			switch (in->opcode) {
			case VNEF_OP_MEMSET:
				for (i = 0; i < n; i++)
					s0[i] = s;
				break;
			case VNEF_OP_IOTA:
				for (i = 0; i < n; i++)
					s0[i] = (float)((s64)(s32)in->imm[0] +
							(s64)c->p * (s32)in->imm[1] +
							(s64)(c->j0 + i) * (s32)in->imm[2]);
				break;
			case VNEF_OP_PROGRAM_ID:
				for (i = 0; i < n; i++)
					s0[i] = (float)((s64)(s32)in->imm[0] +
							(s64)x->pid * (s32)in->imm[1]);
				break;
			case VNEF_OP_COPY:
				vn_gather(x, &in->src0, c->p, c->j0, n, s0);
				break;
			case VNEF_OP_TENSOR_TENSOR:
				vn_gather(x, &in->src0, c->p, c->j0, n, s0);
				vn_gather(x, &in->src1, c->p, c->j0, n, s1);
				alu_vec(in->op, s0, s1, n);
				break;
			case VNEF_OP_TENSOR_SCALAR:
				vn_gather(x, &in->src0, c->p, c->j0, n, s0);
				alu_scalar(in->op, s0, s, n, rev);
				break;
			}
			vn_scatter(x, d, c->p, c->j0, n, s0);
		}
	}
	return true;
}

static bool reduce_free(struct vn_fp_ctx *x, const struct vnef_instr *in,
			struct vn_fp_cursor *c)
{
	const struct vnef_ap *a = &in->src0;
	u32 f = vn_ap_free(a), budget = VN_FP_CHUNK, n;
	const float *v;
	float acc;

	for (; c->p < a->partitions; c->p++, c->j0 = 0) {
		acc = bits_f(c->acc);
		for (; c->j0 < f; c->j0 += n) {
			if (!budget) {
				c->acc = f_bits(acc);
				return false;
			}
			n = min(min(f - c->j0, (u32)VN_FP_SEG), budget);
			budget -= n;
			v = vn_ap_contig(x, a, c->p, c->j0, n);
			if (!v) {
				vn_gather(x, a, c->p, c->j0, n, x->seg[0]);
				v = x->seg[0];
			}
			if (!c->j0)
				acc = in->op == VNEF_ALU_ADD ? 0 : v[0];
			acc = reduce(in->op, acc, v, n);
		}
		vn_scatter(x, &in->dst, c->p, 0, 1, &acc);
	}
	return true;
}

/* One segment of the free axis across all partitions per step. */
static bool reduce_partitions(struct vn_fp_ctx *x, const struct vnef_instr *in,
			      struct vn_fp_cursor *c)
{
	const struct vnef_ap *a = &in->src0;
	u32 f = vn_ap_free(a), p, n;

	if (c->j0 >= f)
		return true;
	n = min(min(f - c->j0, (u32)VN_FP_SEG), max(1u, (u32)(VN_FP_CHUNK / a->partitions)));
	vn_gather(x, a, 0, c->j0, n, x->seg[0]);
	for (p = 1; p < a->partitions; p++) {
		const float *v = vn_ap_contig(x, a, p, c->j0, n);

		if (!v) {
			vn_gather(x, a, p, c->j0, n, x->seg[1]);
			v = x->seg[1];
		}
		alu_vec(in->op, x->seg[0], v, n);
	}
	vn_scatter(x, &in->dst, 0, c->j0, n, x->seg[0]);
	c->j0 += n;
	return c->j0 >= f;
}

bool vn_fp_vector_step(struct vn_fp_ctx *x, const struct vnef_instr *in,
		       struct vn_fp_cursor *cur)
{
	if (in->opcode == VNEF_OP_REDUCE)
		return reduce_free(x, in, cur);
	if (in->opcode == VNEF_OP_PARTITION_REDUCE)
		return reduce_partitions(x, in, cur);
	return elementwise(x, in, cur);
}
