// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * TensorE's AVX-512 micro-kernels (core/vn_mm_fp.h): 8 x 32 outputs (8 x 16 for a narrow
 * tail), multiply then add (any fp32 operands), FMA or VDPBF16PS (exact products only,
 * AVX512_BF16). Each function carries its own target; core/tensor_fp.c calls them only on
 * CPUs that have it.
 */
#include "vn_ap_fp.h"
#include "vn_mm_fp.h"

#define VN_AVX512	__attribute__((target("avx512f")))
#define VN_AVX512_FMA	__attribute__((target("avx512f,fma")))
#define VN_AVX512_BF16	__attribute__((target("avx512f,avx512bf16")))

#define VN_MM_NAME	mm_avx512_8x32
#define VN_MM_MB	8
#define VN_MM_NV	2
#define VN_MM_W		16
#define VN_MM_ATTR	VN_AVX512
#define VN_MM_OP	VN_MM_MULADD
#include "vn_mm_kernel_fp.h"

#define VN_MM_NAME	mm_avx512_8x16
#define VN_MM_MB	8
#define VN_MM_NV	1
#define VN_MM_W		16
#define VN_MM_ATTR	VN_AVX512
#define VN_MM_OP	VN_MM_MULADD
#include "vn_mm_kernel_fp.h"

#define VN_MM_NAME	mm_avx512_fma_8x32
#define VN_MM_MB	8
#define VN_MM_NV	2
#define VN_MM_W		16
#define VN_MM_ATTR	VN_AVX512_FMA
#define VN_MM_OP	VN_MM_FMA
#include "vn_mm_kernel_fp.h"

#define VN_MM_NAME	mm_avx512_fma_8x16
#define VN_MM_MB	8
#define VN_MM_NV	1
#define VN_MM_W		16
#define VN_MM_ATTR	VN_AVX512_FMA
#define VN_MM_OP	VN_MM_FMA
#include "vn_mm_kernel_fp.h"

#define VN_MM_NAME	mm_avx512_dp_8x32
#define VN_MM_MB	8
#define VN_MM_NV	2
#define VN_MM_W		16
#define VN_MM_ATTR	VN_AVX512_BF16
#define VN_MM_OP	VN_MM_DP
#include "vn_mm_kernel_fp.h"

#define VN_MM_NAME	mm_avx512_dp_8x16
#define VN_MM_MB	8
#define VN_MM_NV	1
#define VN_MM_W		16
#define VN_MM_ATTR	VN_AVX512_BF16
#define VN_MM_OP	VN_MM_DP
#include "vn_mm_kernel_fp.h"

const struct vn_mm_kset vn_mm_avx512 = {
	mm_avx512_8x32, mm_avx512_8x16, 8, 32, false, "avx512",
};

const struct vn_mm_kset vn_mm_avx512_fma = {
	mm_avx512_fma_8x32, mm_avx512_fma_8x16, 8, 32, false, "avx512-fma",
};

const struct vn_mm_kset vn_mm_avx512_dp = {
	mm_avx512_dp_8x32, mm_avx512_dp_8x16, 8, 32, true, "avx512-bf16",
};

#define VN_PK_NAME	vn_mm_exact_avx512
#define VN_PK_W		16
#define VN_PK_ATTR	VN_AVX512
#include "vn_mm_pack_fp.h"

#define vn_v16u	u32 __attribute__((vector_size(64)))	/* not a typedef */

VN_AVX512 void vn_mm_pairs_avx512(const u32 *src, u32 *dst, u32 rows, u32 w)
{
	vn_v16u hi, lo;
	u32 r, c;

	for (r = 0; r < rows; r += 2) {
		const u32 *s = src + (size_t)r * w;
		u32 *d = dst + (size_t)(r / 2) * w;

		for (c = 0; c < w; c += 16) {
			memcpy(&hi, s + c, sizeof(hi));
			if (r + 1 < rows)
				memcpy(&lo, s + w + c, sizeof(lo));
			else
				lo = (vn_v16u){ 0 };
			hi = (hi & 0xffff0000u) | lo >> 16;
			memcpy(d + c, &hi, sizeof(hi));
		}
	}
}

#define vn_v16h	u16 __attribute__((vector_size(32)))	/* not a typedef */

/* One half row: 16 bf16 values as pair halves, and whether each is exact (0) or not. */
static VN_AVX512 vn_v16u half_row(const u16 *h, vn_v16h *bad)
{
	vn_v16h v;

	memcpy(&v, h, sizeof(v));
	/* zero, or a biased exponent in 71..190 (vn_mm_exact()) */
	*bad |= (vn_v16h)((vn_v16h)((v >> 7 & 0xff) - 71) > 119) & (v & 0x7fff);
	return __builtin_convertvector(v, vn_v16u);
}

/* Whether no lane of a half_row() check found a value that is not exact. */
static VN_AVX512 bool none_bad(vn_v16h bad)
{
	u64 w[4];

	memcpy(w, &bad, sizeof(w));
	return !(w[0] | w[1] | w[2] | w[3]);
}

VN_AVX512 bool vn_mm_widen_bf16_avx512(const u16 *h, u32 n, u32 *dst)
{
	u16 t[VN_MM_PW] = { 0 };
	vn_v16h bad = { 0 };
	vn_v16u p;
	u32 j, c;

	for (j = 0; j < n; j += VN_MM_PW, dst += VN_MM_PANEL) {
		const u16 *r = h + j;

		if (n - j < VN_MM_PW) {
			memcpy(t, r, (n - j) * 2);
			r = t;
		}
		for (c = 0; c < VN_MM_PW; c += 16) {
			p = half_row(r + c, &bad) << 16;
			memcpy(dst + c, &p, sizeof(p));
		}
	}
	return none_bad(bad);
}

VN_AVX512 bool vn_mm_widen_groups_bf16_avx512(const u16 *h, u32 n, u32 *dst)
{
	u16 t[16] = { 0 };
	u32 w[16], m;
	vn_v16h bad = { 0 };
	vn_v16u p;

	for (m = 0; m < n; m += 16) {
		const u16 *r = h + m;
		u32 *g = dst + (m / VN_MM_SB) * VN_MM_GROUP;

		if (n - m < 16) {
			memcpy(t, r, (n - m) * 2);
			r = t;
		}
		p = half_row(r, &bad) << 16;
		memcpy(w, &p, sizeof(w));
		memcpy(g, w, VN_MM_SB * 4);
		if (m + VN_MM_SB < n)
			memcpy(g + VN_MM_GROUP, w + VN_MM_SB, VN_MM_SB * 4);
	}
	return none_bad(bad);
}

VN_AVX512 bool vn_mm_pairs_bf16_avx512(const u16 *h0, const u16 *h1, u32 *dst, u32 n)
{
	u16 t0[VN_MM_PW] = { 0 }, t1[VN_MM_PW] = { 0 };
	vn_v16h bad = { 0 };
	vn_v16u p;
	u32 c;

	if (n < VN_MM_PW || !h1) {
		memcpy(t0, h0, n * 2);
		if (h1)
			memcpy(t1, h1, n * 2);
		h0 = t0;
		h1 = t1;
	}
	for (c = 0; c < VN_MM_PW; c += 16) {
		p = half_row(h0 + c, &bad) << 16;
		p |= half_row(h1 + c, &bad);
		memcpy(dst + c, &p, sizeof(p));
	}
	return none_bad(bad);
}

/*
 * Lanes that tell the rule from what the instruction might do instead: two products
 * that round away together but not one by one (one rounding for both would differ),
 * the high pair first or the low pair first, cancellation to zero, an overflow, signs.
 * Values are bf16 bit patterns inside vn_mm_exact()'s range.
 */
static const u16 dp_case[15][4] = {	/* a_hi, a_lo, b_hi, b_lo */
	{ 0x3380, 0x3380, 0x3f80, 0x3f80 },	/* 1 + 2^-24 + 2^-24 */
	{ 0x3380, 0x33c0, 0x3f80, 0x3f80 },	/* 1 + 2^-24 + 1.5 * 2^-24 */
	{ 0x33c0, 0x3380, 0x3f80, 0x3f80 },	/* 1 + 1.5 * 2^-24 + 2^-24 */
	{ 0xbf80, 0x3f80, 0x3f80, 0x3f80 },	/* 1 - 1 + 1 */
	{ 0x5f7f, 0x5f7f, 0x5f7f, 0x5f7f },	/* near the top: overflows */
	{ 0x5f7f, 0xdf7f, 0x5f7f, 0x5f7f },	/* up, then back */
	{ 0x2380, 0x2380, 0x2380, 0x2380 },	/* the smallest products, 2^-112 */
	{ 0x2380, 0xa380, 0x2400, 0x2380 },	/* tiny, cancelling */
	{ 0x3fc1, 0x4123, 0xbf99, 0x3e01 },
	{ 0xc2aa, 0x3c55, 0x42f0, 0xc00f },
	{ 0x4b00, 0x3f80, 0x4b00, 0x3f80 },	/* 2^46 + 1 */
	{ 0x3f80, 0x4b00, 0x3f80, 0x4b00 },	/* 1 + 2^46 */
	{ 0x0000, 0x3f80, 0x8000, 0x3f81 },	/* a signed zero product */
	{ 0x3b80, 0x3380, 0x3b80, 0x3f80 },	/* 2^-16 * 2^-16 + 2^-24 */
	{ 0x4580, 0xc580, 0x4580, 0x4580 },	/* 2^12 * 2^12 - 2^12 * 2^12 */
};

#define VN_DP_CASES	15	/* the 16th lane computes 0 + 0 */

static const u32 dp_acc[VN_DP_CASES] = {
	0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000, 0x7f7fffff, 0x7f7fffff, 0x00000000,
	0x00000000, 0x40490fdb, 0xc1200000, 0x3f800000, 0x4b800000, 0x00000000, 0x3f800000,
	0x3f800001,
};

static float dp_bf16(u16 h)
{
	return vn_u32_f32((u32)h << 16);
}

VN_AVX512_BF16 bool vn_mm_dp_selftest(void)
{
	u32 la[16] = { 0 }, lb[16] = { 0 }, lacc[16] = { 0 }, l;
	vn_v16u a, b, acc;
	union vn_f32 want;

	for (l = 0; l < VN_DP_CASES; l++) {
		la[l] = (u32)dp_case[l][0] << 16 | dp_case[l][1];
		lb[l] = (u32)dp_case[l][2] << 16 | dp_case[l][3];
		lacc[l] = dp_acc[l];
	}
	memcpy(&a, la, sizeof(a));
	memcpy(&b, lb, sizeof(b));
	memcpy(&acc, lacc, sizeof(acc));
	__asm__("vdpbf16ps %2, %1, %0" : "+v"(acc) : "v"(a), "v"(b));
	memcpy(lacc, &acc, sizeof(lacc));
	for (l = 0; l < VN_DP_CASES; l++) {
		float p, s = vn_u32_f32(dp_acc[l]);

		/* each product and sum rounded on its own: no FMA */
		p = dp_bf16(dp_case[l][0]) * dp_bf16(dp_case[l][2]);
		__asm__("" : "+x"(p));
		s = s + p;
		p = dp_bf16(dp_case[l][1]) * dp_bf16(dp_case[l][3]);
		__asm__("" : "+x"(p), "+x"(s));
		s = s + p;
		want.f = s;
		if (lacc[l] != want.u)
			return false;
	}
	return true;
}
