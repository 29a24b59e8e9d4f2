/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * One register-blocked matmul micro-kernel, instantiated by core/tensor_fp.c with
 * VN_MM_NAME, VN_MM_MB rows x VN_MM_NV vectors of VN_MM_W floats and VN_MM_ATTR (target
 * flags). GCC vector types, so no intrinsics header is needed in the module; rows are
 * loaded and stored with memcpy() (unaligned vector moves).
 * out[m0.., n0..] = sum_k st[k][m0..] * mv[k][n0..]
 *
 * Every output is computed alone and exactly as the scalar loop does it: acc = 0, then
 * for k in order acc = acc + round(st * mv). The empty asm on each product keeps the
 * compiler from contracting multiply and add into an FMA (one rounding fewer), which
 * -ffp-contract=fast would do wherever the target has FMA (AVX-512F implies it); so the
 * results are the same bits with SSE2, AVX2 or AVX-512, in the module and on the host.
 */
/* a macro, not a typedef: the kernel's style */
#define VN_MM_VEC	float __attribute__((vector_size(VN_MM_W * 4)))

static VN_MM_ATTR void VN_MM_NAME(const float *__restrict st, const float *__restrict mv,
				  float *__restrict out, u32 k_n, u32 m0, u32 n0)
{
	VN_MM_VEC acc[VN_MM_MB][VN_MM_NV], b[VN_MM_NV], p, zero = { 0 };
	u32 i, j, k;

#pragma GCC unroll 16
	for (i = 0; i < VN_MM_MB; i++)
#pragma GCC unroll 4
		for (j = 0; j < VN_MM_NV; j++)
			acc[i][j] = zero;
	for (k = 0; k < k_n; k++) {
		const float *a = st + k * VNEF_MM_MAX_M + m0;
		const float *bk = mv + k * VN_MM_LD + n0;

#pragma GCC unroll 4
		for (j = 0; j < VN_MM_NV; j++)
			memcpy(&b[j], bk + j * VN_MM_W, sizeof(b[j]));
#pragma GCC unroll 16
		for (i = 0; i < VN_MM_MB; i++) {
			float ai = a[i];

#pragma GCC unroll 4
			for (j = 0; j < VN_MM_NV; j++) {
				p = b[j] * ai;
				__asm__("" : "+v"(p));	/* rounded on its own: no FMA */
				acc[i][j] += p;
			}
		}
	}
#pragma GCC unroll 16
	for (i = 0; i < VN_MM_MB; i++)
#pragma GCC unroll 4
		for (j = 0; j < VN_MM_NV; j++)
			memcpy(out + (m0 + i) * VN_MM_LD + n0 + j * VN_MM_W, &acc[i][j],
			       sizeof(acc[i][j]));
}

#undef VN_MM_VEC
#undef VN_MM_NAME
#undef VN_MM_MB
#undef VN_MM_NV
#undef VN_MM_W
#undef VN_MM_ATTR
