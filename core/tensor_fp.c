// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * TensorE numerics: the stationary array, MultiplyMoving and transposes, in fp32
 * (bf16 inputs are widened; PSUM accumulates in fp32).
 *
 * out[m][n] = sum_k stat[k][m] * mov[k][n] runs as register-blocked micro-kernels
 * (k innermost) that the compiler vectorises: 4x8 with SSE2 in the module; on the host
 * 4x16 with AVX2+FMA or 8x32 with AVX-512, chosen at run time by CPU feature.
 */
#include "vn_ap_fp.h"

#define VN_MM_NAME	mm_4x8
#define VN_MM_MB	4
#define VN_MM_NB	8
#define VN_MM_ATTR
#include "vn_mm_kernel_fp.h"

#ifndef __KERNEL__
#define VN_MM_NAME	mm_4x16_avx2
#define VN_MM_MB	4
#define VN_MM_NB	16
#define VN_MM_ATTR	__attribute__((target("avx2,fma")))
#include "vn_mm_kernel_fp.h"

#define VN_MM_NAME	mm_8x32_avx512
#define VN_MM_MB	8
#define VN_MM_NB	32
#define VN_MM_ATTR	__attribute__((target("avx512f")))
#include "vn_mm_kernel_fp.h"
#endif

/* Any remaining rows or columns, one output at a time. */
static void mm_edge(const float *st, const float *mv, float *out, u32 k_n, u32 m0, u32 m1,
		    u32 n0, u32 n1)
{
	u32 m, n, k;

	for (m = m0; m < m1; m++)
		for (n = n0; n < n1; n++) {
			float s = 0;

			for (k = 0; k < k_n; k++)
				s += st[k * VNEF_MM_MAX_M + m] * mv[k * VN_MM_LD + n];
			out[m * VN_MM_LD + n] = s;
		}
}

typedef void (*vn_mm_block)(const float *st, const float *mv, float *out, u32 k_n, u32 m0,
			    u32 n0);

/* out[m][n] for m < m_n and n in [n0, n1): micro-kernels on whole blocks, then edges. */
static void mm(const struct vn_fp_ctx *x, u32 k_n, u32 m_n, u32 n0, u32 n1)
{
	vn_mm_block blk = mm_4x8;
	u32 mb = 4, nb = 8, m, n, mfull, nfull;

#ifndef __KERNEL__
	if (x->simd == VN_SIMD_AVX512) {
		blk = mm_8x32_avx512;
		mb = 8;
		nb = 32;
	} else if (x->simd == VN_SIMD_AVX2) {
		blk = mm_4x16_avx2;
		nb = 16;
	}
#endif
	/* n0 is a multiple of VN_MM_STEP_COLS, hence of nb: the blocks of one whole pass */
	mfull = m_n / mb * mb;
	nfull = n0 + (n1 - n0) / nb * nb;
	for (m = 0; m < mfull; m += mb)
		for (n = n0; n < nfull; n += nb)
			blk(x->stat, x->mov, x->out, k_n, m, n);
	mm_edge(x->stat, x->mov, x->out, k_n, 0, mfull, nfull, n1);
	mm_edge(x->stat, x->mov, x->out, k_n, mfull, m_n, n0, n1);
}

/* Write rows [0, rows) of x->out, columns [c0, c1), to a PSUM operand, adding if asked. */
static void store_out(struct vn_fp_ctx *x, const struct vnef_ap *d, u32 rows, u32 c0, u32 c1,
		      bool accumulate)
{
	u32 m, n, w = c1 - c0;

	for (m = 0; m < rows; m++) {
		float *row = x->out + (size_t)m * VN_MM_LD + c0;

		if (accumulate) {
			vn_gather(x, d, m, c0, w, x->seg[0]);
			for (n = 0; n < w; n++)
				row[n] += x->seg[0][n];
		}
		vn_scatter(x, d, m, c0, w, row);
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
	u32 k, m, p, f, c0, c1;

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
		for (k = 0; k < x->stat_k; k++)
			vn_gather(x, a, k, c0, c1 - c0, x->mov + (size_t)k * VN_MM_LD + c0);
		mm(x, x->stat_k, x->stat_m, c0, c1);
		store_out(x, &in->dst, x->stat_m, c0, c1, in->flags & VNEF_IF_ACCUMULATE);
		cur->j0 = c1;
		return c1 >= f;
	case VNEF_OP_TRANSPOSE:
		/* 128 x 128 elements at most: one step. Exact: each output is one input x 1. */
		f = vn_ap_free(a);
		for (p = 0; p < a->partitions; p++) {
			vn_gather(x, a, p, 0, f, x->seg[1]);
			for (m = 0; m < f; m++)
				x->out[(size_t)m * VN_MM_LD + p] = x->seg[1][m];
		}
		store_out(x, &in->dst, f, 0, a->partitions, in->flags & VNEF_IF_ACCUMULATE);
		return true;
	default:
		return true;
	}
}
