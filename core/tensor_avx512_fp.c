// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * TensorE's AVX-512 micro-kernels (core/vn_mm_fp.h): 8 x 32 outputs (8 x 16 for a narrow
 * tail), multiply then add (any fp32 operands), FMA or VDPBF16PS (exact products only,
 * AVX512_BF16). Each function carries its own target; core/tensor_fp.c calls them only on
 * CPUs that have it.
 */
#include "vn_ap_fp.h"
#include "vn_mm_fp.h"

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

/*
 * Whether each of 16 bf16 values is exact (0) or not, into bad: zero, or a magnitude in
 * [0x2380, 0x5f7f] (biased exponents 71..190, vn_mm_exact()).
 */
static VN_AVX512 void check16(const u16 *h, vn_v16h *bad)
{
	vn_v16h v, mag;

	memcpy(&v, h, sizeof(v));
	mag = v & 0x7fff;
	*bad |= (vn_v16h)((vn_v16h)(mag - 0x2380) > 0x3bff) & mag;
}

/* One half row: 16 bf16 values as pair halves, and whether each is exact (0) or not. */
static VN_AVX512 vn_v16u half_row(const u16 *h, vn_v16h *bad)
{
	vn_v16h v;

	check16(h, bad);
	memcpy(&v, h, sizeof(v));
	return __builtin_convertvector(v, vn_v16u);
}

/* Whether no lane of a check16() found a value that is not exact. */
static VN_AVX512 bool none_bad(vn_v16h bad)
{
	u64 w[4];

	memcpy(w, &bad, sizeof(w));
	return !(w[0] | w[1] | w[2] | w[3]);
}

VN_AVX512 bool vn_mm_widen_panel_bf16_avx512(const u16 *h, size_t ld, u32 rows, u32 n,
					     u32 *dst, ptrdiff_t next, u32 next_n)
{
	u16 t[VN_MM_PW] = { 0 };
	vn_v16h bad = { 0 };
	vn_v16u w, lo, hi;
	u32 k;

	for (k = 0; k < rows; k++, h += ld, dst += VN_MM_PW) {
		const u16 *r = h;

		if (next_n) {
			/* into L2: the first and last line of the next step's values */
			__builtin_prefetch(h + next, 0, 2);
			__builtin_prefetch(h + next + next_n - 1, 0, 2);
		}
		if (n < VN_MM_PW) {
			/* t's tail past n stays zero */
			memcpy(t, h, n * 2);
			r = t;
		}
		check16(r, &bad);
		check16(r + 16, &bad);
		/* 32 values as 16 words: the even ones in the low halves (little endian) */
		memcpy(&w, r, sizeof(w));
		lo = w << 16;
		hi = w & 0xffff0000u;
		lo = __builtin_shufflevector(lo, hi, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21,
					     6, 22, 7, 23);
		memcpy(dst, &lo, sizeof(lo));
		w = w << 16;
		hi = __builtin_shufflevector(w, hi, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13,
					     29, 14, 30, 15, 31);
		memcpy(dst + 16, &hi, sizeof(hi));
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

/* A row of 16 values as fp32 bit patterns: bf16 ones widened. */
static VN_AVX512 vn_v16u trow(const u8 *row, bool bf16)
{
	vn_v16h h;
	vn_v16u v;

	if (bf16) {
		memcpy(&h, row, sizeof(h));
		return __builtin_convertvector(h, vn_v16u) << 16;
	}
	memcpy(&v, row, sizeof(v));
	return v;
}

/*
 * Rows a and c = a + b (a's index with bit b clear) exchange their off-diagonal b x b
 * blocks: element (a, j | b) with (c, j). Done for b = 8, 4, 2, 1, that is the transpose.
 */
static inline VN_AVX512 void tswap(vn_v16u *a, vn_v16u *c, int b)
{
	vn_v16u t = *a;

	switch (b) {
	case 8:
		*a = __builtin_shufflevector(t, *c, 0, 1, 2, 3, 4, 5, 6, 7,
					     16, 17, 18, 19, 20, 21, 22, 23);
		*c = __builtin_shufflevector(t, *c, 8, 9, 10, 11, 12, 13, 14, 15,
					     24, 25, 26, 27, 28, 29, 30, 31);
		break;
	case 4:
		*a = __builtin_shufflevector(t, *c, 0, 1, 2, 3, 16, 17, 18, 19,
					     8, 9, 10, 11, 24, 25, 26, 27);
		*c = __builtin_shufflevector(t, *c, 4, 5, 6, 7, 20, 21, 22, 23,
					     12, 13, 14, 15, 28, 29, 30, 31);
		break;
	case 2:
		*a = __builtin_shufflevector(t, *c, 0, 1, 16, 17, 4, 5, 20, 21,
					     8, 9, 24, 25, 12, 13, 28, 29);
		*c = __builtin_shufflevector(t, *c, 2, 3, 18, 19, 6, 7, 22, 23,
					     10, 11, 26, 27, 14, 15, 30, 31);
		break;
	default:
		*a = __builtin_shufflevector(t, *c, 0, 16, 2, 18, 4, 20, 6, 22,
					     8, 24, 10, 26, 12, 28, 14, 30);
		*c = __builtin_shufflevector(t, *c, 1, 17, 3, 19, 5, 21, 7, 23,
					     9, 25, 11, 27, 13, 29, 15, 31);
		break;
	}
}

/* Row i of a block, 16 values, to out's row i. */
static inline VN_AVX512 void tput(u32 *out, u32 ldo, u32 i, vn_v16u v)
{
	memcpy(out + (size_t)i * ldo, &v, sizeof(v));
}

/*
 * out[m][p] = rows[p][m], 16 x 16 blocks in named registers: as an array GCC kept them
 * in a kilobyte of stack.
 */
VN_AVX512 void vn_transpose16_avx512(const u8 *const *rows, bool bf16, u32 n, u32 *out,
				     u32 ldo)
{
	vn_v16u r0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10, r11, r12, r13, r14, r15;
	u32 m, es = bf16 ? 2 : 4;

	for (m = 0; m < n; m += 16) {
		u32 *dst = out + (size_t)m * ldo;	/* never a step past the last block */
		size_t o = (size_t)m * es;

		r0 = trow(rows[0] + o, bf16); r1 = trow(rows[1] + o, bf16);
		r2 = trow(rows[2] + o, bf16); r3 = trow(rows[3] + o, bf16);
		r4 = trow(rows[4] + o, bf16); r5 = trow(rows[5] + o, bf16);
		r6 = trow(rows[6] + o, bf16); r7 = trow(rows[7] + o, bf16);
		r8 = trow(rows[8] + o, bf16); r9 = trow(rows[9] + o, bf16);
		r10 = trow(rows[10] + o, bf16); r11 = trow(rows[11] + o, bf16);
		r12 = trow(rows[12] + o, bf16); r13 = trow(rows[13] + o, bf16);
		r14 = trow(rows[14] + o, bf16); r15 = trow(rows[15] + o, bf16);
		tswap(&r0, &r8, 8); tswap(&r1, &r9, 8);
		tswap(&r2, &r10, 8); tswap(&r3, &r11, 8);
		tswap(&r4, &r12, 8); tswap(&r5, &r13, 8);
		tswap(&r6, &r14, 8); tswap(&r7, &r15, 8);
		tswap(&r0, &r4, 4); tswap(&r1, &r5, 4);
		tswap(&r2, &r6, 4); tswap(&r3, &r7, 4);
		tswap(&r8, &r12, 4); tswap(&r9, &r13, 4);
		tswap(&r10, &r14, 4); tswap(&r11, &r15, 4);
		tswap(&r0, &r2, 2); tswap(&r1, &r3, 2);
		tswap(&r4, &r6, 2); tswap(&r5, &r7, 2);
		tswap(&r8, &r10, 2); tswap(&r9, &r11, 2);
		tswap(&r12, &r14, 2); tswap(&r13, &r15, 2);
		tswap(&r0, &r1, 1); tswap(&r2, &r3, 1);
		tswap(&r4, &r5, 1); tswap(&r6, &r7, 1);
		tswap(&r8, &r9, 1); tswap(&r10, &r11, 1);
		tswap(&r12, &r13, 1); tswap(&r14, &r15, 1);
		tput(dst, ldo, 0, r0); tput(dst, ldo, 1, r1);
		tput(dst, ldo, 2, r2); tput(dst, ldo, 3, r3);
		tput(dst, ldo, 4, r4); tput(dst, ldo, 5, r5);
		tput(dst, ldo, 6, r6); tput(dst, ldo, 7, r7);
		tput(dst, ldo, 8, r8); tput(dst, ldo, 9, r9);
		tput(dst, ldo, 10, r10); tput(dst, ldo, 11, r11);
		tput(dst, ldo, 12, r12); tput(dst, ldo, 13, r13);
		tput(dst, ldo, 14, r14); tput(dst, ldo, 15, r15);
	}
}

VN_AVX512 void vn_bf16_narrow_avx512(const float *v, u16 *h, u32 n)
{
	vn_v16u u, r, nan;
	vn_v16h o;
	u32 i;

	/* vn_bf16_narrow()'s lanes, 16 at a time */
	for (i = 0; i + 16 <= n; i += 16) {
		memcpy(&u, v + i, sizeof(u));
		r = (u + 0x7fffu + ((u >> 16) & 1)) >> 16;
		nan = (vn_v16u)((u & 0x7fffffffu) > 0x7f800000u);
		r = (r & ~nan) | (((u >> 16) | 0x40) & nan);
		o = __builtin_convertvector(r, vn_v16h);
		memcpy(h + i, &o, sizeof(o));
	}
	vn_bf16_narrow(v + i, h + i, n - i);
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
