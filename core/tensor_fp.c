// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * TensorE numerics: the stationary array, MultiplyMoving and transposes, in fp32
 * (bf16 inputs are widened; PSUM accumulates in fp32).
 *
 * out[m][n] = sum_k stat[k][m] * mov[k][n] runs as register-blocked micro-kernels
 * (k innermost) that the compiler vectorises: 4x8 with SSE2 in the module; on the host
 * 4x16 with AVX2+FMA or 8x32 with AVX-512, chosen at run time by CPU feature.
 */
#include "ap_fp.h"

#define VN_MM_NAME	mm_4x8
#define VN_MM_MB	4
#define VN_MM_NB	8
#define VN_MM_ATTR
#include "mm_kernel_fp.h"

#ifndef __KERNEL__
#define VN_MM_NAME	mm_4x16_avx2
#define VN_MM_MB	4
#define VN_MM_NB	16
#define VN_MM_ATTR	__attribute__((target("avx2,fma")))
#include "mm_kernel_fp.h"

#define VN_MM_NAME	mm_8x32_avx512
#define VN_MM_MB	8
#define VN_MM_NB	32
#define VN_MM_ATTR	__attribute__((target("avx512f")))
#include "mm_kernel_fp.h"
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

static void mm(const struct vn_fp_ctx *x, u32 k_n, u32 m_n, u32 n_n)
{
	vn_mm_block blk = mm_4x8;
	u32 mb = 4, nb = 8, m0, n0, mfull, nfull;

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
	mfull = m_n / mb * mb;
	nfull = n_n / nb * nb;
	for (m0 = 0; m0 < mfull; m0 += mb)
		for (n0 = 0; n0 < nfull; n0 += nb)
			blk(x->stat, x->mov, x->out, k_n, m0, n0);
	mm_edge(x->stat, x->mov, x->out, k_n, 0, mfull, nfull, n_n);
	mm_edge(x->stat, x->mov, x->out, k_n, mfull, m_n, 0, n_n);
}

/* Write rows [0, rows) of x->out (cols wide) to a PSUM operand, adding if asked. */
static void store_out(struct vn_fp_ctx *x, const struct vnef_ap *d, u32 rows, u32 cols,
		      bool accumulate)
{
	u32 m, n;

	for (m = 0; m < rows; m++) {
		float *row = x->out + (size_t)m * VN_MM_LD;

		if (accumulate) {
			vn_gather(x, d, m, 0, cols, x->seg[0]);
			for (n = 0; n < cols; n++)
				row[n] += x->seg[0][n];
		}
		vn_scatter(x, d, m, 0, cols, row);
	}
}

void vn_fp_tensor(struct vn_fp_ctx *x, const struct vnef_instr *in)
{
	const struct vnef_ap *a = &in->src0;
	u32 k, m, p, f;

	switch (in->opcode) {
	case VNEF_OP_LOAD_STATIONARY:
		x->stat_k = a->partitions;
		x->stat_m = vn_ap_free(a);
		x->stat_fp32 = a->dtype == VNEF_DT_FP32;
		for (k = 0; k < x->stat_k; k++)
			vn_gather(x, a, k, 0, x->stat_m, x->stat + k * VNEF_MM_MAX_M);
		break;
	case VNEF_OP_MULTIPLY_MOVING:
		f = vn_ap_free(a);
		for (k = 0; k < x->stat_k; k++)
			vn_gather(x, a, k, 0, f, x->mov + (size_t)k * VN_MM_LD);
		mm(x, x->stat_k, x->stat_m, f);
		store_out(x, &in->dst, x->stat_m, f, in->flags & VNEF_IF_ACCUMULATE);
		break;
	case VNEF_OP_TRANSPOSE:
		/* Exact: each output is one input times 1 (the identity moving operand). */
		f = vn_ap_free(a);
		for (p = 0; p < a->partitions; p++) {
			vn_gather(x, a, p, 0, f, x->seg[1]);
			for (m = 0; m < f; m++)
				x->out[(size_t)m * VN_MM_LD + p] = x->seg[1][m];
		}
		store_out(x, &in->dst, f, a->partitions, in->flags & VNEF_IF_ACCUMULATE);
		break;
	default:
		break;
	}
}
