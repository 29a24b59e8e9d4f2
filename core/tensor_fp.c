// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * TensorE numerics: the stationary array, MultiplyMoving and transposes, in fp32
 * (bf16 inputs are widened; PSUM accumulates in fp32).
 *
 * out[m][n] = sum_k stat[k][m] * mov[k][n], each output alone as the scalar loop does it
 * (acc = 0, then acc = acc + round(stat * mov) for k in order, then acc + old with
 * VNEF_IF_ACCUMULATE), runs as register-blocked micro-kernels over packed operands
 * (core/vn_mm_fp.h): the stationary array packed at LOAD_STATIONARY, the moving operand
 * in panels of 32 columns, outputs stored straight into PSUM where the destination rows
 * are contiguous. The kernel set is chosen at run time, in the module too: SSE2, AVX2 or
 * AVX-512 multiply-then-add for any operands; where every product is exact (bf16 values,
 * vn_mm_exact()), one FMA per product or, with AVX512_BF16, VDPBF16PS on pairs, which
 * give the same bits faster. Each choice beyond the CPU's flags is timed at first use, on
 * operands like a matmul's: an emulator (QEMU's TCG, the test guest) reports AVX2 and FMA
 * but runs them many times slower than SSE2's multiply and add. Every path gives every
 * output bit for bit the same.
 */
#include "vn_ap_fp.h"
#include "vn_mm_fp.h"
#include "vn_os.h"

#define VN_MM_NAME	mm_sse2_4x8
#define VN_MM_MB	4
#define VN_MM_NV	2
#define VN_MM_W		4
#define VN_MM_ATTR
#define VN_MM_OP	VN_MM_MULADD
#include "vn_mm_kernel_fp.h"

const struct vn_mm_kset vn_mm_sse2 = { mm_sse2_4x8, NULL, 4, 8, false, "sse2" };

#define VN_PK_NAME	vn_mm_exact_sse2
#define VN_PK_W		4
#define VN_PK_ATTR
#include "vn_mm_pack_fp.h"

/* The pair areas follow the fp32 ones (vn_engine_fp.h). */
static u32 *stat_words(const struct vn_fp_ctx *x, bool pairs)
{
	return (u32 *)x->stat + (pairs ? VN_MM_GROUPS * VN_MM_GROUP : 0);
}

static u32 *mov_words(const struct vn_fp_ctx *x, bool pairs)
{
	return (u32 *)x->mov + (pairs ? VN_MM_PANELS * VN_MM_PANEL : 0);
}

static bool exact(const struct vn_fp_ctx *x, const u32 *v, u32 n)
{
	if (x->simd == VN_SIMD_AVX512)
		return vn_mm_exact_avx512(v, n);
	if (x->simd == VN_SIMD_AVX2)
		return vn_mm_exact_avx2(v, n);
	return vn_mm_exact_sse2(v, n);
}

/*
 * bf16 value i of a timing operand: magnitudes 2^-8..2^8, mantissas varied, signs
 * alternating, so the products are exact and the sums soon round, as a matmul's do. Zeros
 * would mislead: QEMU's TCG returns an FMA with a zero factor at once, and it computes in
 * software (much slower) until some operation was inexact.
 */
static u32 time_bf16(u32 i)
{
	return (127u + i * 7u % 17u - 8u) << 7 | (i * 37u & 0x7fu) | (i & 1u) << 15;
}

/*
 * The fastest of 5 timings of 8 calls of a kernel set's block on such operands (bf16
 * values, or pairs of them), in ns per 256 outputs of k_n products (or pairs) each.
 */
static u64 time_kernel(struct vn_fp_ctx *x, const struct vn_mm_kset *ks, u32 k_n)
{
	u32 *w = (u32 *)x->out, r, i;
	u64 best = ~0ull, t;

	/* x->out is scratch: the operands, then the outputs */
	for (i = 0; i < VN_MM_GROUP + VN_MM_PANEL; i++)
		w[i] = time_bf16(i) << 16 | (ks->pairs ? time_bf16(i * 5 + 1) : 0);
	for (r = 0; r < 5; r++) {
		t = vn_time_ns();
		for (i = 0; i < 8; i++)
			ks->blk(x->out, x->out + VN_MM_GROUP, k_n,
				x->out + VN_MM_GROUP + VN_MM_PANEL, VN_MM_PW, 0);
		t = vn_time_ns() - t;
		best = min(best, t);
	}
	return best * 256 / (ks->mb * ks->nb);
}

static const struct vn_mm_kset *widest(const struct vn_fp_ctx *x)
{
	if (x->simd == VN_SIMD_AVX512)
		return &vn_mm_avx512;
	return x->simd == VN_SIMD_AVX2 ? &vn_mm_avx2 : &vn_mm_sse2;
}

/*
 * Whether TensorE keeps to SSE2 (any operands, no exactness checks): so where its kernel
 * is more than 1.5 times as fast as the widest one's (timed at first use), which no CPU
 * does but QEMU's TCG does, emulating 256-bit operations several times slower than
 * 128-bit ones. The margin keeps a noisy timing from narrowing a real CPU.
 */
static bool sse_only(struct vn_fp_ctx *x)
{
	if (x->simd == VN_SIMD_SSE2)
		return true;
	if (!(x->features & VN_FP_SSE_TESTED)) {
		x->features |= VN_FP_SSE_TESTED;
		if (time_kernel(x, &vn_mm_sse2, 128) * 3 < time_kernel(x, widest(x), 128) * 2)
			x->features |= VN_FP_SSE_OK;
	}
	return x->features & VN_FP_SSE_OK;
}

/*
 * VDPBF16PS where the CPU has it, gives the rule's bits and beats one FMA per product
 * (checked at first use). Intel's Sapphire Rapids runs it at a quarter of the FMA's rate,
 * half as many products; AMD's Zen 4 and 5 at the FMA's, twice as many.
 */
static bool dp_usable(struct vn_fp_ctx *x)
{
	if (x->simd != VN_SIMD_AVX512 || !(x->features & VN_FP_BF16) || sse_only(x))
		return false;
	if (!(x->features & VN_FP_DP_TESTED)) {
		x->features |= VN_FP_DP_TESTED;
		if (vn_mm_dp_selftest() && (!(x->features & VN_FP_FMA) ||
					    time_kernel(x, &vn_mm_avx512_dp, 64) <
					    time_kernel(x, &vn_mm_avx512_fma, 128)))
			x->features |= VN_FP_DP_OK;
	}
	return x->features & VN_FP_DP_OK;
}

/*
 * One FMA per product where the CPU has it and it is faster than a multiply and an add
 * (timed at first use): so it is on every CPU we know, but an emulator (QEMU's TCG, the
 * test guest) runs each FMA lane through software, many times slower than the pair.
 */
static bool fma_usable(struct vn_fp_ctx *x)
{
	if (x->simd < VN_SIMD_AVX2 || !(x->features & VN_FP_FMA) || sse_only(x))
		return false;
	if (!(x->features & VN_FP_FMA_TESTED)) {
		bool wide = x->simd == VN_SIMD_AVX512;

		x->features |= VN_FP_FMA_TESTED;
		if (time_kernel(x, wide ? &vn_mm_avx512_fma : &vn_mm_avx2_fma, 128) <
		    time_kernel(x, widest(x), 128))
			x->features |= VN_FP_FMA_OK;
	}
	return x->features & VN_FP_FMA_OK;
}

/* Whether exact products may take a faster path than multiply-then-add here. */
static bool exact_path(struct vn_fp_ctx *x)
{
	return fma_usable(x) || dp_usable(x);
}

static const struct vn_mm_kset *kernels(struct vn_fp_ctx *x, bool exact_products)
{
	if (sse_only(x))
		return &vn_mm_sse2;
	if (x->simd == VN_SIMD_AVX512) {
		if (exact_products && dp_usable(x))
			return &vn_mm_avx512_dp;
		if (exact_products && fma_usable(x))
			return &vn_mm_avx512_fma;
		return &vn_mm_avx512;
	}
	if (x->simd == VN_SIMD_AVX2)
		return exact_products && fma_usable(x) ? &vn_mm_avx2_fma : &vn_mm_avx2;
	return &vn_mm_sse2;
}

/* dst[r][c] = the pair of src rows 2r, 2r + 1 (zero past rows), four lanes at a time. */
static void pairs_sse2(const u32 *src, u32 *dst, u32 rows, u32 w)
{
	u32 __attribute__((vector_size(16))) hi, lo;
	u32 r, c;

	for (r = 0; r < rows; r += 2)
		for (c = 0; c < w; c += 4) {
			memcpy(&hi, src + (size_t)r * w + c, sizeof(hi));
			lo = (__typeof__(lo)){ 0 };
			if (r + 1 < rows)
				memcpy(&lo, src + (size_t)(r + 1) * w + c, sizeof(lo));
			hi = (hi & 0xffff0000u) | lo >> 16;
			memcpy(dst + (size_t)(r / 2) * w + c, &hi, sizeof(hi));
		}
}

/* bf16 elements j0..j0+n of partition p when they lie side by side: their address. */
static const u16 *bf16_row(const struct vn_fp_ctx *x, const struct vnef_ap *a, u32 p, u32 j0,
			   u32 n)
{
	return vn_ap_contig_bf16(x, a, p, j0, n);
}

/*
 * Partitions lie VNEF_SBUF_PART_BYTES apart, too far for the CPU's prefetcher to follow
 * from one row to the next: the stationary's widening asks for the row VN_MV_AHEAD
 * ahead itself (the moving operand's, for the next step's columns: gather_panels()).
 */
#define VN_MV_AHEAD	4

static void prefetch_row(const u16 *h, u32 n)
{
	u32 i;

	for (i = 0; h && i < n; i += 32)
		vn_prefetch(h + i);
}

/*
 * LOAD_STATIONARY: rows k < K of groups of 8 outputs, the last group's missing outputs
 * zero (so the exactness check sees only real values and zeros); pairs too when they may
 * be used.
 */
static void load_stationary(struct vn_fp_ctx *x, const struct vnef_ap *a)
{
	u32 groups, g, k, n, *st = stat_words(x, false);
	bool checked = x->simd == VN_SIMD_AVX512, ok = true;
	float *seg = x->seg[0];

	x->stat_k = a->partitions;
	x->stat_m = vn_ap_free(a);
	x->stat_fp32 = a->dtype == VNEF_DT_FP32;
	groups = (x->stat_m + VN_MM_SB - 1) / VN_MM_SB;
	for (k = 0; k < x->stat_k; k++) {
		const u16 *h = bf16_row(x, a, k, 0, x->stat_m);
		const float *src;

		if (h && k + VN_MV_AHEAD < x->stat_k)
			prefetch_row(bf16_row(x, a, k + VN_MV_AHEAD, 0, x->stat_m), x->stat_m);
		/* bf16 rows widened and checked straight into the groups */
		checked = checked && h;
		if (checked) {
			ok &= vn_mm_widen_groups_bf16_avx512(h, x->stat_m, st + k * VN_MM_SB);
			continue;
		}
		src = vn_ap_contig(x, a, k, 0, x->stat_m);
		if (!src) {
			vn_gather(x, a, k, 0, x->stat_m, seg);
			src = seg;
		}
		for (g = 0; g < groups; g++) {
			u32 *dst = st + g * VN_MM_GROUP + k * VN_MM_SB;

			n = min_t(u32, VN_MM_SB, x->stat_m - g * VN_MM_SB);
			if (n == VN_MM_SB) {
				memcpy(dst, src + g * VN_MM_SB, VN_MM_SB * 4);
				continue;
			}
			memcpy(dst, src + g * VN_MM_SB, n * 4);
			memset(dst + n, 0, (VN_MM_SB - n) * 4);
		}
	}
	x->stat_exact = exact_path(x) && ok;
	for (g = 0; x->stat_exact && !checked && g < groups; g++)
		x->stat_exact = exact(x, st + g * VN_MM_GROUP, x->stat_k * VN_MM_SB);
	for (g = 0; x->stat_exact && dp_usable(x) && g < groups; g++)
		pairs_sse2(st + g * VN_MM_GROUP, stat_words(x, true) + g * VN_MM_PAIR_GROUP,
			   x->stat_k, VN_MM_SB);
}

/* Row k's columns [j1, j2) asked into L2 where they lie side by side (bf16 or fp32). */
static void prefetch_next(struct vn_fp_ctx *x, const struct vnef_ap *a, u32 k, u32 j1, u32 j2)
{
	const u8 *r = j2 > j1 ? (const u8 *)bf16_row(x, a, k, j1, j2 - j1) : NULL;
	u32 o, bytes = (j2 - j1) * 2;

	if (!r && j2 > j1) {
		r = (const u8 *)vn_ap_contig(x, a, k, j1, j2 - j1);
		bytes *= 2;
	}
	for (o = 0; r && o < bytes; o += 64)
		__builtin_prefetch(r + o, 0, 2);
	if (r)
		__builtin_prefetch(r + bytes - 1, 0, 2);
}

/*
 * Moving columns [j0, j1) into the panels from the first (column j0 to panel 0), rows
 * k < K; columns of the last panel past j1 zero; the next step's columns [j1, j2) of
 * each row asked into L2 as it goes. Whether they hold exact values only, when known:
 * with AVX-512, bf16 rows are widened and checked panel by panel (else -1: not checked).
 */
static int gather_panels(struct vn_fp_ctx *x, const struct vnef_ap *a, u32 j0, u32 j1,
			 u32 j2)
{
	const u16 *h = bf16_row(x, a, 0, j0, j1 - j0), *hn;
	u32 k, j, n, jn, nn, *mv = mov_words(x, false);
	const float *src;
	bool ok = true;

	if (h && x->simd == VN_SIMD_AVX512) {
		/* the rows of one operand lie a partition apart, all contiguous or none */
		for (j = j0; j < j1; j += VN_MM_PW) {
			jn = j + (j1 - j0);
			nn = jn < j2 ? min_t(u32, VN_MM_PW, j2 - jn) : 0;
			hn = nn ? bf16_row(x, a, 0, jn, nn) : NULL;
			ok &= vn_mm_widen_panel_bf16_avx512(h + (j - j0), vn_ap_part_bytes(a) / 2,
							    x->stat_k, min_t(u32, VN_MM_PW, j1 - j),
							    mv + (j - j0) / VN_MM_PW * VN_MM_PANEL,
							    hn ? hn - (h + (j - j0)) : 0,
							    hn ? nn : 0);
		}
		return ok;
	}
	for (k = 0; k < x->stat_k; k++) {
		/* bf16 rows widened into the panels, fp32 ones copied */
		prefetch_next(x, a, k, j1, j2);
		h = bf16_row(x, a, k, j0, j1 - j0);
		src = h ? NULL : vn_ap_contig(x, a, k, j0, j1 - j0);
		if (!h && !src) {
			vn_gather(x, a, k, j0, j1 - j0, x->seg[0]);
			src = x->seg[0];
		}
		for (j = j0; j < j1; j += VN_MM_PW) {
			u32 *p = mv + (j - j0) / VN_MM_PW * VN_MM_PANEL + k * VN_MM_PW;

			n = min_t(u32, VN_MM_PW, j1 - j);
			if (h)
				vn_bf16_widen(h + (j - j0), (float *)p, n);
			else if (n == VN_MM_PW)
				memcpy(p, src + (j - j0), VN_MM_PW * 4);
			else
				memcpy(p, src + (j - j0), n * 4);
			if (n < VN_MM_PW)
				memset(p + n, 0, (VN_MM_PW - n) * 4);
		}
	}
	return -1;
}

/* Whether the panels of columns [j0, j1) (from the first) hold exact values only. */
static bool panels_exact(struct vn_fp_ctx *x, u32 j0, u32 j1)
{
	u32 j;

	for (j = j0; j < j1; j += VN_MM_PW)
		if (!exact(x, mov_words(x, false) + (j - j0) / VN_MM_PW * VN_MM_PANEL,
			   x->stat_k * VN_MM_PW))
			return false;
	return true;
}

/*
 * Rows [m0, m1) of x->out, columns [c0, c1), to a PSUM operand, adding new + old if
 * asked.
 */
static void store_out(struct vn_fp_ctx *x, const struct vnef_ap *d, u32 m0, u32 m1, u32 c0,
		      u32 c1, bool accumulate)
{
	u32 m, n, w = c1 - c0;

	for (m = m0; m < m1; m++) {
		float *row = x->out + (size_t)m * VN_MM_LD + c0;
		float *f = accumulate ? vn_ap_contig(x, d, m, c0, w) : NULL;

		if (f) {
			/* in place: the same new + old of each element */
			for (n = 0; n + 4 <= w; n += 4)
				v4_store(f + n, v4_add(v4_load(row + n), v4_load(f + n)));
			for (; n < w; n++)
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

/*
 * Outputs m < M, columns [c0, c1) in whole blocks: a block inside both is stored
 * straight into the destination when its rows are contiguous fp32; one that passes M or
 * c1 (it also computes outputs from the stale or zero rest of the operands, which nobody
 * stores) goes through x->out. Outputs do not depend on each other, so this is the same,
 * bit for bit, as computing only the wanted ones.
 */
static void mm_blocks(struct vn_fp_ctx *x, const struct vn_mm_kset *ks,
		      const struct vnef_instr *in, u32 c0, u32 c1, u32 p0)
{
	const struct vnef_ap *d = &in->dst;
	bool acc = in->flags & VNEF_IF_ACCUMULATE;
	float *d0 = vn_ap_contig(x, d, 0, c0, c1 - c0);
	u32 ldd = vn_ap_part_bytes(d) / 4;
	const u32 *stb = stat_words(x, ks->pairs), *mvb = mov_words(x, ks->pairs);
	u32 gs = ks->pairs ? VN_MM_PAIR_GROUP : VN_MM_GROUP;
	u32 ps = ks->pairs ? VN_MM_PAIR_PANEL : VN_MM_PANEL;
	u32 kk = ks->pairs ? (x->stat_k + 1) / 2 : x->stat_k;
	u32 m, n, w;
	vn_mm_kern kern;

	for (m = 0; m < x->stat_m; m += ks->mb) {
		for (n = c0; n < c1; n += w) {
			const u32 *st = stb + (m / VN_MM_SB) * gs + m % VN_MM_SB;
			const u32 *mv = mvb + (n - p0) / VN_MM_PW * ps + (n - p0) % VN_MM_PW;

			kern = ks->blk;
			w = ks->nb;
			if (ks->tail && c1 - n <= w / 2) {
				kern = ks->tail;
				w /= 2;
			}
			if (d0 && m + ks->mb <= x->stat_m && n + w <= c1) {
				kern(st, mv, kk, d0 + (size_t)m * ldd + (n - c0), ldd, acc);
				continue;
			}
			kern(st, mv, kk, x->out + (size_t)m * VN_MM_LD + n, VN_MM_LD, 0);
			store_out(x, d, m, min(m + ks->mb, x->stat_m), n, min(n + w, c1), acc);
		}
	}
}

/* out[m][p] = in[p][m] for p, m < 4: in's rows VN_MM_LD apart, out's ldo, 4 lanes a time. */
static void transpose4(const float *in, float *out, u32 ldo)
{
	vn_v4 r0 = v4_load(in), r1 = v4_load(in + VN_MM_LD);
	vn_v4 r2 = v4_load(in + 2 * VN_MM_LD), r3 = v4_load(in + 3 * VN_MM_LD);
	vn_v4 t0, t1, t2, t3;

	/* constant lanes: GCC (12 on) and clang (the fuzzers' build) both take them */
	t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5);
	t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
	t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5);
	t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);

	v4_store(out, __builtin_shufflevector(t0, t2, 0, 1, 4, 5));
	v4_store(out + ldo, __builtin_shufflevector(t0, t2, 2, 3, 6, 7));
	v4_store(out + 2 * ldo, __builtin_shufflevector(t1, t3, 0, 1, 4, 5));
	v4_store(out + 3 * ldo, __builtin_shufflevector(t1, t3, 2, 3, 6, 7));
}

/*
 * out[m][p] = in[p][m] for p < np, m < nf (in's rows VN_MM_LD apart, out's ldo), in
 * cache-sized tiles of 4 x 4 blocks (exact: moves only).
 */
static void transpose(const float *in, float *out, u32 ldo, u32 np, u32 nf)
{
	u32 p0, m0, p, m, p4 = np / 4 * 4, m4 = nf / 4 * 4;

	for (p0 = 0; p0 < p4; p0 += 16)
		for (m0 = 0; m0 < m4; m0 += 16)
			for (m = m0; m < min(m4, m0 + 16); m += 4)
				for (p = p0; p < min(p4, p0 + 16); p += 4)
					transpose4(in + (size_t)p * VN_MM_LD + m,
						   out + (size_t)m * ldo + p, ldo);
	for (m = 0; m < nf; m++)
		for (p = m < m4 ? p4 : 0; p < np; p++)
			out[(size_t)m * ldo + p] = in[(size_t)p * VN_MM_LD + m];
}

/*
 * With AVX-512, bands of 16 source rows (contiguous bf16 or fp32, in another memory than
 * the destination, so no store reaches a row still to be read) transposed straight into
 * d0: whether it was done. Whole bands only: partitions and free size multiples of 16.
 */
static bool transpose_avx512(struct vn_fp_ctx *x, const struct vnef_ap *a, u32 f,
			     float *d0, u32 ldd)
{
	bool bf16 = a->dtype == VNEF_DT_BF16;
	const u8 *rows[16];
	u32 p0, i;

	if (x->simd != VN_SIMD_AVX512 || a->partitions % 16 || f % 16)
		return false;
	for (p0 = 0; p0 < a->partitions; p0 += 16) {
		for (i = 0; i < 16; i++) {
			rows[i] = bf16 ? (const u8 *)bf16_row(x, a, p0 + i, 0, f) :
					 (const u8 *)vn_ap_contig(x, a, p0 + i, 0, f);
			/* all bands alike in practice; a later one redone whole is the same */
			if (!rows[i])
				return false;
		}
		vn_transpose16_avx512(rows, bf16, f, (u32 *)d0 + p0, ldd);
	}
	return true;
}

/*
 * TRANSPOSE (128 x 128 elements at most: one step; exact: each output is one input x 1):
 * straight into the destination when its rows are contiguous fp32 and nothing is added
 * to them, else through x->out.
 */
static void transpose_op(struct vn_fp_ctx *x, const struct vnef_instr *in)
{
	const struct vnef_ap *a = &in->src0, *d = &in->dst;
	bool acc = in->flags & VNEF_IF_ACCUMULATE;
	u32 f = vn_ap_free(a), p, ldd;
	float *d0 = acc ? NULL : vn_ap_contig(x, d, 0, 0, a->partitions);

	ldd = vn_ap_part_bytes(d) / 4;
	if (d0 && a->mem != d->mem && transpose_avx512(x, a, f, d0, ldd))
		return;
	for (p = 0; p < a->partitions; p++) {
		const u16 *h = bf16_row(x, a, p, 0, f);
		float *row = x->mov + (size_t)p * VN_MM_LD;

		if (h)
			vn_bf16_widen(h, row, f);
		else
			vn_gather(x, a, p, 0, f, row);
	}
	if (d0) {
		transpose(x->mov, d0, ldd, a->partitions, f);
		return;
	}
	transpose(x->mov, x->out, VN_MM_LD, a->partitions, f);
	store_out(x, d, 0, f, 0, a->partitions, acc);
}

/* Columns per MULTIPLY_MOVING step: as many whole VN_MM_STEP_COLS as the budget allows. */
static u32 mm_step_cols(const struct vn_fp_ctx *x)
{
	u32 per_col = max(1u, x->stat_k * x->stat_m);
	u32 cols = VN_MM_STEP_MACS / per_col / VN_MM_STEP_COLS * VN_MM_STEP_COLS;

	return max_t(u32, cols, VN_MM_STEP_COLS);
}

/*
 * bf16 moving columns [j0, j1) straight into pair panels from the first (no fp32 pass):
 * whether every value is exact; if not, the panels are of no use.
 */
static bool gather_pairs(struct vn_fp_ctx *x, const struct vnef_ap *a, u32 j0, u32 j1)
{
	u32 kp, j, *pp = mov_words(x, true);
	const u16 *h0, *h1;

	for (kp = 0; kp < (x->stat_k + 1) / 2; kp++) {
		h0 = bf16_row(x, a, 2 * kp, j0, j1 - j0);
		h1 = 2 * kp + 1 < x->stat_k ? bf16_row(x, a, 2 * kp + 1, j0, j1 - j0) : NULL;
		for (j = j0; j < j1; j += VN_MM_PW)
			if (!vn_mm_pairs_bf16_avx512(h0 + (j - j0), h1 ? h1 + (j - j0) : NULL,
						     pp + (j - j0) / VN_MM_PW * VN_MM_PAIR_PANEL +
						     kp * VN_MM_PW, min_t(u32, VN_MM_PW, j1 - j)))
				return false;
	}
	return true;
}

/* How the moving operand's panels hold it (cursor p of a MULTIPLY_MOVING). */
enum { VN_MV_ANY, VN_MV_EXACT, VN_MV_PAIRS };

/*
 * Columns [j0, j1) of the moving operand into panels, the next step's [j1, j2) asked
 * into L2 where the widening can: VN_MV_*.
 */
static u32 gather_moving(struct vn_fp_ctx *x, const struct vnef_ap *a, u32 j0, u32 j1,
			 u32 j2)
{
	int known;

	if (x->stat_exact && dp_usable(x) && bf16_row(x, a, 0, j0, j1 - j0) &&
	    gather_pairs(x, a, j0, j1))
		return VN_MV_PAIRS;
	known = gather_panels(x, a, j0, j1, j2);
	if (!x->stat_exact)
		return VN_MV_ANY;
	return (known < 0 ? panels_exact(x, j0, j1) : known) ? VN_MV_EXACT : VN_MV_ANY;
}

/*
 * One step of a MULTIPLY_MOVING: columns [c0, c1). With AVX-512 a bf16 operand's step
 * gathers its own columns first, into the panels from the first, which stay in L1
 * while the step's blocks read them (a whole operand's panels, 256 KiB for 512
 * columns, do not: writing them into L2 cost more than reading the bf16 rows); the
 * widening asks for the next step's columns of each row into L2 as it goes, the
 * partitions lying too far apart for the CPU's prefetcher, and the step's arithmetic
 * hides the wait. Else an operand in another memory than the output is gathered whole
 * in the first step (the steps' stores cannot reach it; fp32 rows copied whole stream
 * better), and one in the same memory step by step. p0: the column of the first panel.
 */
static bool multiply_step(struct vn_fp_ctx *x, const struct vnef_instr *in,
			  struct vn_fp_cursor *cur)
{
	const struct vnef_ap *a = &in->src0;
	u32 f = vn_ap_free(a), cols = mm_step_cols(x), c0 = cur->j0, c1 = min(f, c0 + cols), j;
	bool whole = a->mem != in->dst.mem &&
		     !(x->simd == VN_SIMD_AVX512 && a->dtype == VNEF_DT_BF16);
	u32 p0 = whole ? 0 : c0;
	const struct vn_mm_kset *ks;

	if (!whole)
		cur->p = gather_moving(x, a, c0, c1, min(f, c1 + cols));
	else if (!c0)
		cur->p = gather_moving(x, a, 0, f, f);
	ks = kernels(x, cur->p != VN_MV_ANY);
	/* exact fp32 panels, to be multiplied as pairs */
	for (j = c0; ks->pairs && cur->p == VN_MV_EXACT && j < c1; j += VN_MM_PW)
		vn_mm_pairs_avx512(mov_words(x, false) + (j - p0) / VN_MM_PW * VN_MM_PANEL,
				   mov_words(x, true) + (j - p0) / VN_MM_PW * VN_MM_PAIR_PANEL,
				   x->stat_k, VN_MM_PW);
	mm_blocks(x, ks, in, c0, c1, p0);
	x->mm_ran = ks->name;
	cur->j0 = c1;
	return c1 >= f;
}

bool vn_fp_tensor_step(struct vn_fp_ctx *x, const struct vnef_instr *in,
		       struct vn_fp_cursor *cur)
{
	switch (in->opcode) {
	case VNEF_OP_LOAD_STATIONARY:
		/* 128 x 128 elements at most: one step */
		load_stationary(x, &in->src0);
		return true;
	case VNEF_OP_MULTIPLY_MOVING:
		return multiply_step(x, in, cur);
	case VNEF_OP_TRANSPOSE:
		transpose_op(x, in);
		return true;
	default:
		return true;
	}
}

const char *vn_fp_mm_kernels(struct vn_fp_ctx *x, bool exact_products)
{
	return kernels(x, exact_products)->name;
}
