/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TensorE's micro-kernels and packers, one object per instruction set (tensor_fp.c:
 * SSE2, every x86-64; tensor_avx2_fp.c; tensor_avx512_fp.c), each function compiled for
 * its own target and called only where the CPU has it (core/tensor_fp.c chooses at run
 * time, in the module too, between kernel_fpu_begin() and kernel_fpu_end()).
 *
 * Layouts (vn_engine_fp.h; core/tensor_fp.c packs them):
 *  - the stationary array in groups of VN_MM_SB outputs m: group g holds st[k][8g + i]
 *    at g * VN_MM_GROUP + k * VN_MM_SB + i; as bf16 pairs, the same with k / 2 rows,
 *    VN_MM_PAIR_GROUP apart, after the fp32 groups;
 *  - the moving operand in panels of VN_MM_PW columns: panel p holds mv[k][32p + j] at
 *    p * VN_MM_PANEL + k * VN_MM_PW + j; pairs likewise, after the fp32 panels.
 * A pair word holds element k in its high half and k + 1 in its low half (zero past K).
 */
#ifndef VN_MM_FP_H
#define VN_MM_FP_H

#include "vn_engine_fp.h"

/*
 * out[i][j] for a block of rows x columns (the kernel set's mb x nb) from a stationary
 * group at st (its first row's column) and a panel at mv (its first column), k_n rows
 * (or pairs); rows of out ldo floats apart; accumulate: out = acc + out.
 */
typedef void (*vn_mm_kern)(const void *st, const void *mv, u32 k_n, float *out, u32 ldo,
			   u32 accumulate);

struct vn_mm_kset {
	vn_mm_kern blk;		/* mb x nb */
	vn_mm_kern tail;	/* mb x nb / 2, or NULL */
	u32 mb, nb;
	bool pairs;		/* operands are bf16 pairs */
	const char *name;
};

extern const struct vn_mm_kset vn_mm_sse2;
extern const struct vn_mm_kset vn_mm_avx2, vn_mm_avx2_fma;
extern const struct vn_mm_kset vn_mm_avx512, vn_mm_avx512_fma, vn_mm_avx512_dp;

/*
 * Whether every one of the n fp32 values at v (bit patterns) makes exact products with
 * any other such value: zero, or a bf16 value (low 16 bits clear) of magnitude in
 * [2^-56, 2^64). Then a product is an exact normal fp32 number, a sum of them never
 * underflows (it is a multiple of 2^-126) and only an overflow to infinity rounds,
 * which every path rounds alike: one FMA, or VDPBF16PS with its denormal flushing, gives
 * the rule's bits.
 */
bool vn_mm_exact_sse2(const u32 *v, u32 n);
bool vn_mm_exact_avx2(const u32 *v, u32 n);
bool vn_mm_exact_avx512(const u32 *v, u32 n);

/* dst[r][c] = the pair of src rows 2r and 2r + 1 (zero past rows), c < w, r < (rows+1)/2. */
void vn_mm_pairs_avx512(const u32 *src, u32 *dst, u32 rows, u32 w);

/*
 * One pair row of a panel, dst[j] = h0[j] << 16 | h1[j] for j < n <= VN_MM_PW (zero past
 * n; h1 NULL: zero), from bf16 rows k and k + 1: whether every value is exact.
 */
bool vn_mm_pairs_bf16_avx512(const u16 *h0, const u16 *h1, u32 *dst, u32 n);

/*
 * One panel: n <= VN_MM_PW bf16 values of each row k < rows (ld elements apart from h)
 * widened to fp32 into dst[k * VN_MM_PW], zero past n; next_n (<= VN_MM_PW) values
 * next elements from each row's first asked into L2 (0: none). Whether every value is
 * exact.
 */
bool vn_mm_widen_panel_bf16_avx512(const u16 *h, size_t ld, u32 rows, u32 n, u32 *dst,
				   ptrdiff_t next, u32 next_n);

/*
 * One row of n bf16 values of the stationary widened to fp32 into its groups: value m to
 * dst[(m / VN_MM_SB) * VN_MM_GROUP + m % VN_MM_SB], the last group's row zero past n.
 * Whether every value is exact.
 */
bool vn_mm_widen_groups_bf16_avx512(const u16 *h, u32 n, u32 *dst);

/*
 * out[m][p] = row p's value m for p < 16, m < n (n a multiple of 16): the rows' values
 * bf16 (widened to fp32) or fp32, out's rows ldo words apart. Moves only: exact.
 */
void vn_transpose16_avx512(const u8 *const *rows, bool bf16, u32 n, u32 *out, u32 ldo);

/* VDPBF16PS gives the rule's bits on this CPU (a few crafted lanes; once per context). */
bool vn_mm_dp_selftest(void);

#ifndef __KERNEL__
/*
 * AMX-BF16 (core/tensor_amx_user.c, host build only: the kernel's FPU sections do not
 * cover tile state). TensorE does not use it: TDPBF16PS does not give the rule's bits
 * on the CPUs we know (docs/isa.md).
 */
#define VN_AMX_ABSENT		0	/* no AMX-BF16, or the OS does not let us use it */
#define VN_AMX_OTHER		1	/* runs, but not the rule's bits */
#define VN_AMX_HIGH_FIRST	2	/* the rule's bits, element k in a pair's high half */
#define VN_AMX_LOW_FIRST	3	/* the rule's bits, element k in the low half */

/* The CPU has AMX-BF16, XCR0 enables tile data and arch_prctl() granted it (once). */
bool vn_mm_amx_ready(void);

/* c[16][16] += a[16][16 pairs] x b[16 pairs][16]: one TDPBF16PS (vn_mm_amx_ready() only). */
void vn_mm_amx_tile(const u32 *a, const u32 *b, float *c);

/*
 * What TDPBF16PS does against the rule on crafted and pseudo-random tiles (VN_AMX_*);
 * *mismatch: the outputs that differ from the rule (the better order's).
 */
u32 vn_mm_amx_check(u32 *mismatch);
#endif

#endif /* VN_MM_FP_H */
