// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * TensorE numerics: the stationary array, MultiplyMoving and transposes, in fp32
 * (bf16 inputs are widened; PSUM accumulates in fp32).
 *
 * out[m][n] = sum_k stat[k][m] * mov[k][n] runs as register-blocked micro-kernels
 * (k innermost, core/vn_mm_kernel_fp.h): 4x8 with SSE2, 4x16 with AVX2, 8x32 (8x16 for
 * a narrow tail) with AVX-512, chosen at run time by CPU feature (x->simd), in the module
 * too. Each output is the scalar loop's result bit for bit, whichever kernel ran.
 */
#include "vn_ap_fp.h"

#define VN_MM_NAME	mm_4x8_sse2
#define VN_MM_MB	4
#define VN_MM_NV	2
#define VN_MM_W		4
#define VN_MM_ATTR
#include "vn_mm_kernel_fp.h"

#define VN_MM_NAME	mm_4x16_avx2
#define VN_MM_MB	4
#define VN_MM_NV	2
#define VN_MM_W		8
#define VN_MM_ATTR	__attribute__((target("avx2")))
#include "vn_mm_kernel_fp.h"

#define VN_MM_NAME	mm_8x32_avx512
#define VN_MM_MB	8
#define VN_MM_NV	2
#define VN_MM_W		16
#define VN_MM_ATTR	__attribute__((target("avx512f")))
#include "vn_mm_kernel_fp.h"

#define VN_MM_NAME	mm_8x16_avx512
#define VN_MM_MB	8
#define VN_MM_NV	1
#define VN_MM_W		16
#define VN_MM_ATTR	__attribute__((target("avx512f")))
#include "vn_mm_kernel_fp.h"

typedef void (*vn_mm_block)(const float *st, const float *mv, float *out, u32 k_n, u32 m0,
			    u32 n0);

/*
 * out[m][n] for m < m_n and n in [n0, n1), in whole blocks: a block that passes m_n or
 * n1 also computes outputs from the stale rest of stat and mov, which nobody stores
 * (store_out() takes rows < m_n, columns < n1). Every block stays inside the buffers:
 * 128 rows and VN_MM_LD columns are multiples of every block's size, and n0 is a
 * multiple of VN_MM_STEP_COLS. Outputs do not depend on each other, so this is the
 * same, bit for bit, as computing only the wanted ones.
 */
static void mm(const struct vn_fp_ctx *x, u32 k_n, u32 m_n, u32 n0, u32 n1)
{
	vn_mm_block blk = mm_4x8_sse2, tail = NULL;
	u32 mb = 4, nb = 8, m, n;

	if (x->simd == VN_SIMD_AVX512) {
		blk = mm_8x32_avx512;
		tail = mm_8x16_avx512;
		mb = 8;
		nb = 32;
	} else if (x->simd == VN_SIMD_AVX2) {
		blk = mm_4x16_avx2;
		nb = 16;
	}
	for (m = 0; m < m_n; m += mb) {
		for (n = n0; n + nb <= n1; n += nb)
			blk(x->stat, x->mov, x->out, k_n, m, n);
		if (n >= n1)
			continue;
		if (tail && n1 - n <= nb / 2)
			tail(x->stat, x->mov, x->out, k_n, m, n);
		else
			blk(x->stat, x->mov, x->out, k_n, m, n);
	}
}

/* Write rows [0, rows) of x->out, columns [c0, c1), to a PSUM operand, adding if asked. */
static void store_out(struct vn_fp_ctx *x, const struct vnef_ap *d, u32 rows, u32 c0, u32 c1,
		      bool accumulate)
{
	u32 m, n, w = c1 - c0;

	for (m = 0; m < rows; m++) {
		float *row = x->out + (size_t)m * VN_MM_LD + c0;
		float *f = accumulate ? vn_ap_contig(x, d, m, c0, w) : NULL;

		if (f) {
			/* in place: the same new + old of each element */
			for (n = 0; n < w; n++)
				f[n] = row[n] + f[n];
			continue;
		}
		if (accumulate) {
			vn_gather(x, d, m, c0, w, x->seg[0]);
			for (n = 0; n < w; n++)
				row[n] += x->seg[0][n];
		}
		vn_scatter(x, d, m, c0, w, row);
	}
}

/* out[m][p] = in[p][m] for p < np, m < nf (both VN_MM_LD apart), in cache-sized tiles. */
static void transpose(const float *in, float *out, u32 np, u32 nf)
{
	u32 p0, m0, p, m;
	float *o;

	for (p0 = 0; p0 < np; p0 += 16)
		for (m0 = 0; m0 < nf; m0 += 16)
			for (m = m0; m < min(nf, m0 + 16); m++) {
				o = out + (size_t)m * VN_MM_LD;
				for (p = p0; p < min(np, p0 + 16); p++)
					o[p] = in[(size_t)p * VN_MM_LD + m];
			}
}

/* Columns per MULTIPLY_MOVING step: as many whole VN_MM_STEP_COLS as the budget allows. */
static u32 mm_step_cols(const struct vn_fp_ctx *x)
{
	u32 per_col = max(1u, x->stat_k * x->stat_m);
	u32 cols = VN_MM_STEP_MACS / per_col / VN_MM_STEP_COLS * VN_MM_STEP_COLS;

	return max_t(u32, cols, VN_MM_STEP_COLS);
}

bool vn_fp_tensor_step(struct vn_fp_ctx *x, const struct vnef_instr *in,
		       struct vn_fp_cursor *cur)
{
	const struct vnef_ap *a = &in->src0;
	u32 k, p, f, c0, c1;

	switch (in->opcode) {
	case VNEF_OP_LOAD_STATIONARY:
		/* 128 x 128 elements at most: one step */
		x->stat_k = a->partitions;
		x->stat_m = vn_ap_free(a);
		x->stat_fp32 = a->dtype == VNEF_DT_FP32;
		for (k = 0; k < x->stat_k; k++)
			vn_gather(x, a, k, 0, x->stat_m, x->stat + k * VNEF_MM_MAX_M);
		return true;
	case VNEF_OP_MULTIPLY_MOVING:
		f = vn_ap_free(a);
		c0 = cur->j0;
		c1 = min(f, c0 + mm_step_cols(x));
		if (a->mem != in->dst.mem) {
			/*
			 * The steps' stores cannot reach the moving operand: all of it in
			 * the first step, in long rows (a plain copy, no arithmetic).
			 */
			for (k = 0; !c0 && k < x->stat_k; k++)
				vn_gather(x, a, k, 0, f, x->mov + (size_t)k * VN_MM_LD);
		} else {
			for (k = 0; k < x->stat_k; k++)
				vn_gather(x, a, k, c0, c1 - c0,
					  x->mov + (size_t)k * VN_MM_LD + c0);
		}
		mm(x, x->stat_k, x->stat_m, c0, c1);
		store_out(x, &in->dst, x->stat_m, c0, c1, in->flags & VNEF_IF_ACCUMULATE);
		cur->j0 = c1;
		return c1 >= f;
	case VNEF_OP_TRANSPOSE:
		/* 128 x 128 elements at most: one step. Exact: each output is one input x 1. */
		f = vn_ap_free(a);
		for (p = 0; p < a->partitions; p++)
			vn_gather(x, a, p, 0, f, x->mov + (size_t)p * VN_MM_LD);
		transpose(x->mov, x->out, a->partitions, f);
		store_out(x, &in->dst, f, 0, a->partitions, in->flags & VNEF_IF_ACCUMULATE);
		return true;
	default:
		return true;
	}
}
