/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * One register-blocked matmul micro-kernel, instantiated by core/tensor_fp.c with
 * VN_MM_NAME, VN_MM_MB x VN_MM_NB outputs and VN_MM_ATTR (target flags). Constant trip
 * counts let the compiler keep the accumulators in vector registers.
 * out[m0.., n0..] = sum_k st[k][m0..] * mv[k][n0..]
 */
static VN_MM_ATTR void VN_MM_NAME(const float *__restrict st, const float *__restrict mv,
				  float *__restrict out, u32 k_n, u32 m0, u32 n0)
{
	float acc[VN_MM_MB][VN_MM_NB];
	u32 i, j, k;

	for (i = 0; i < VN_MM_MB; i++)
		for (j = 0; j < VN_MM_NB; j++)
			acc[i][j] = 0;
	for (k = 0; k < k_n; k++) {
		const float *a = st + k * VNEF_MM_MAX_M + m0;
		const float *b = mv + k * VN_MM_LD + n0;

		for (i = 0; i < VN_MM_MB; i++)
			for (j = 0; j < VN_MM_NB; j++)
				acc[i][j] += a[i] * b[j];
	}
	for (i = 0; i < VN_MM_MB; i++)
		for (j = 0; j < VN_MM_NB; j++)
			out[(m0 + i) * VN_MM_LD + n0 + j] = acc[i][j];
}

#undef VN_MM_NAME
#undef VN_MM_MB
#undef VN_MM_NB
#undef VN_MM_ATTR
