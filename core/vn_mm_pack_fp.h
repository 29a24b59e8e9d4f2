/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The exact-products check (core/vn_mm_fp.h, vn_mm_exact_*()) VN_PK_W lanes at a time,
 * instantiated by a tensor_*_fp.c file with VN_PK_NAME and VN_PK_ATTR: integer
 * operations on the bit patterns only.
 */
#define VN_PK_VEC	u32 __attribute__((vector_size(VN_PK_W * 4)))	/* not a typedef */

/* Biased exponents of the magnitudes [2^-56, 2^64): 71..190. */
#define VN_PK_EMIN	71u
#define VN_PK_ESPAN	(190u - 71u)

static inline bool vn_pk_one(u32 u)
{
	u32 e = (u >> 23 & 0xff) - VN_PK_EMIN;

	return !(u & 0xffff) && (!(u & 0x7fffffff) || e <= VN_PK_ESPAN);
}

VN_PK_ATTR bool VN_PK_NAME(const u32 *v, u32 n)
{
	VN_PK_VEC bad = { 0 }, x, e, mag;
	u32 i, l, lanes[VN_PK_W];

	for (i = 0; i + VN_PK_W <= n; i += VN_PK_W) {
		memcpy(&x, v + i, sizeof(x));
		mag = x & 0x7fffffff;
		e = (x >> 23 & 0xff) - VN_PK_EMIN;
		/* a lane is bad if its low half is set, or it is not zero and out of range */
		bad |= (x & 0xffff) | ((VN_PK_VEC)(e > VN_PK_ESPAN) & mag);
	}
	memcpy(lanes, &bad, sizeof(lanes));
	for (l = 0; l < VN_PK_W; l++)
		if (lanes[l])
			return false;
	for (; i < n; i++)
		if (!vn_pk_one(v[i]))
			return false;
	return true;
}

#undef VN_PK_VEC
#undef VN_PK_NAME
#undef VN_PK_ATTR
#undef VN_PK_W
