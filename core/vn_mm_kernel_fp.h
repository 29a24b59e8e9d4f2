/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * One register-blocked matmul micro-kernel, instantiated by the tensor_*_fp.c files with
 * VN_MM_NAME, VN_MM_MB rows x VN_MM_NV vectors of VN_MM_W floats, VN_MM_ATTR (target
 * flags) and VN_MM_OP, how a product is added:
 *
 *  VN_MM_MULADD  acc = acc + round(st * mv): a multiply, then an add (the device's rule
 *                for any fp32 operands). The empty asm on each product keeps the compiler
 *                from contracting them into an FMA (one rounding fewer), which
 *                -ffp-contract=fast would do wherever the target has FMA.
 *  VN_MM_FMA     acc = round(acc + st * mv) in one FMA: the same bits when every product
 *                is exact in fp32, which core/tensor_fp.c checks first (vn_mm_exact()).
 *  VN_MM_DP      VDPBF16PS on bf16 pairs: acc = round(round(acc + hi * hi') + lo * lo'),
 *                the high halves first; the packer puts element k in the high half and
 *                k + 1 in the low one, so this is the rule's k order. Exact products only,
 *                as for the FMA (no denormal, infinity or NaN either: the instruction
 *                flushes denormals).
 *
 * Operands are packed (core/tensor_fp.c): the stationary block st[k][i], VN_MM_SB floats
 * (or pairs) per k; the moving panel mv[k][j], VN_MM_PW floats (or pairs) per k, so both
 * stream through the cache in order. out[i][j] = acc, or acc + out[i][j] when accumulate
 * (acc first: x86 returns the first operand's NaN of two), rows ldo floats apart. GCC
 * vector types and inline asm: no intrinsics header, which the module cannot include.
 */
#define VN_MM_MULADD	0
#define VN_MM_FMA	1
#define VN_MM_DP	2

/* macros, not typedefs: the kernel's style */
#define VN_MM_VEC	float __attribute__((vector_size(VN_MM_W * 4)))
#define VN_MM_VECI	u32 __attribute__((vector_size(VN_MM_W * 4)))

static VN_MM_ATTR void VN_MM_NAME(const void *stv, const void *mvv, u32 k_n, float *out,
				  u32 ldo, u32 accumulate)
{
	const u32 *st = stv, *mv = mvv;
	VN_MM_VEC acc[VN_MM_MB][VN_MM_NV], b[VN_MM_NV], zero = { 0 };
	VN_MM_VECI zi = { 0 };
	u32 i, j, k;

#pragma GCC unroll 16
	for (i = 0; i < VN_MM_MB; i++)
#pragma GCC unroll 4
		for (j = 0; j < VN_MM_NV; j++)
			acc[i][j] = zero;
	for (k = 0; k < k_n; k++) {
		const u32 *a = st + k * VN_MM_SB;
		const u32 *bk = mv + k * VN_MM_PW;

#pragma GCC unroll 4
		for (j = 0; j < VN_MM_NV; j++)
			memcpy(&b[j], bk + j * VN_MM_W, sizeof(b[j]));
#pragma GCC unroll 16
		for (i = 0; i < VN_MM_MB; i++) {
			/* an integer broadcast: exact for every bit pattern */
			VN_MM_VEC ai = (VN_MM_VEC)(zi + a[i]);

#pragma GCC unroll 4
			for (j = 0; j < VN_MM_NV; j++) {
#if VN_MM_OP == VN_MM_MULADD
				VN_MM_VEC p = b[j] * ai;

				__asm__("" : "+v"(p));	/* rounded on its own: no FMA */
				acc[i][j] += p;
#elif VN_MM_OP == VN_MM_FMA
				__asm__("vfmadd231ps %2, %1, %0"
					: "+v"(acc[i][j]) : "v"(ai), "v"(b[j]));
#else
				__asm__("vdpbf16ps %2, %1, %0"
					: "+v"(acc[i][j]) : "v"(ai), "v"(b[j]));
#endif
			}
		}
	}
#pragma GCC unroll 16
	for (i = 0; i < VN_MM_MB; i++) {
#pragma GCC unroll 4
		for (j = 0; j < VN_MM_NV; j++) {
			float *o = out + (size_t)i * ldo + j * VN_MM_W;

			if (accumulate) {
				VN_MM_VEC old;

				memcpy(&old, o, sizeof(old));
#if VN_MM_W == 4
				__asm__("addps %1, %0" : "+v"(acc[i][j]) : "v"(old));
#else
				__asm__("vaddps %2, %1, %0"
					: "=v"(acc[i][j]) : "v"(acc[i][j]), "v"(old));
#endif
			}
			memcpy(o, &acc[i][j], sizeof(acc[i][j]));
		}
	}
}

#undef VN_MM_VEC
#undef VN_MM_VECI
#undef VN_MM_NAME
#undef VN_MM_MB
#undef VN_MM_NV
#undef VN_MM_W
#undef VN_MM_ATTR
#undef VN_MM_OP
