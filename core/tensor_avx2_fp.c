// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * TensorE's AVX2 micro-kernels (core/vn_mm_fp.h): 4 x 16 outputs, multiply then add (any
 * fp32 operands) or FMA (exact products only). Each function carries its own target;
 * core/tensor_fp.c calls them only on CPUs that have it.
 */
#include "vn_ap_fp.h"
#include "vn_mm_fp.h"

#define VN_MM_NAME	mm_avx2_4x16
#define VN_MM_MB	4
#define VN_MM_NV	2
#define VN_MM_W		8
#define VN_MM_ATTR	__attribute__((target("avx2")))
#define VN_MM_OP	VN_MM_MULADD
#include "vn_mm_kernel_fp.h"

#define VN_MM_NAME	mm_avx2_fma_4x16
#define VN_MM_MB	4
#define VN_MM_NV	2
#define VN_MM_W		8
#define VN_MM_ATTR	__attribute__((target("avx2,fma")))
#define VN_MM_OP	VN_MM_FMA
#include "vn_mm_kernel_fp.h"

const struct vn_mm_kset vn_mm_avx2 = { mm_avx2_4x16, NULL, 4, 16, false, "avx2" };
const struct vn_mm_kset vn_mm_avx2_fma = { mm_avx2_fma_4x16, NULL, 4, 16, false, "avx2-fma" };

#define VN_PK_NAME	vn_mm_exact_avx2
#define VN_PK_W		8
#define VN_PK_ATTR	__attribute__((target("avx2")))
#include "vn_mm_pack_fp.h"
