/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ScalarE's loop d[i] = act(fn, s[i] * scale + bias) for the functions that have a
 * vector form here (d may be s), VN_ACT_W lanes at a time; instantiated by core/act_fp.c with
 * VN_ACT_NAME and VN_ACT_ATTR (target flags without FMA, so nothing is contracted).
 * Each lane does the scalar code's operations in its order (vn_expf(): the same range
 * reduction, polynomial and two power-of-two factors), so every result is the same
 * bits. Returns how many leading elements it did (a multiple of VN_ACT_W, or 0).
 */
/* GCC vector types (macros, not typedefs: the kernel's style) */
#define vf	float __attribute__((vector_size(VN_ACT_W * 4)))
#define vi	s32 __attribute__((vector_size(VN_ACT_W * 4)))
#define vu	u32 __attribute__((vector_size(VN_ACT_W * 4)))

static VN_ACT_ATTR u32 VN_ACT_NAME(u32 fn, float *d, const float *s, u32 n, float scale,
				   float bias)
{
	const vf zero = { 0 };
	vf x, xc, kf, r, p, y;
	vi in, k, kh, pos, big, nan;
	u32 i;

	if (fn != VNEF_ACT_EXP && fn != VNEF_ACT_RELU && fn != VNEF_ACT_IDENTITY &&
	    fn != VNEF_ACT_SQUARE)
		return 0;
	for (i = 0; i + VN_ACT_W <= n; i += VN_ACT_W) {
		memcpy(&x, s + i, sizeof(x));
		x = x * scale + bias;
		if (fn == VNEF_ACT_IDENTITY || fn == VNEF_ACT_SQUARE) {
			y = fn == VNEF_ACT_SQUARE ? x * x : x;
			memcpy(d + i, &y, sizeof(y));
			continue;
		}
		if (fn == VNEF_ACT_RELU) {
			/* x > 0 ? x : 0 (NaN and -0 give +0) */
			y = (vf)((vi)x & (vi)(x > zero));
			memcpy(d + i, &y, sizeof(y));
			continue;
		}
		nan = x != x;
		big = x > 88.72284f;
		in = (x <= 88.72284f) & (x >= -103.972f);
		xc = (vf)((vi)x & in);	/* out-of-range lanes compute from 0, then are replaced */
		pos = xc >= zero;
		k = __builtin_convertvector(xc * LOG2E + (vf)(((vi)(zero + 0.5f) & pos) |
							   ((vi)(zero - 0.5f) & ~pos)), vi);
		kf = __builtin_convertvector(k, vf);
		r = xc - kf * LN2_HI - kf * LN2_LO;
		p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 +
		    r * (1.0f / 120 + r * (1.0f / 720 + r * (1.0f / 5040)))))));
		kh = k / 2;
		y = p * (vf)(((vu)kh + 127) << 23) * (vf)(((vu)(k - kh) + 127) << 23);
		/* NaN: itself; above the range: +inf; below: +0 */
		y = (vf)(((vi)y & in) | ((vi)x & nan) | ((vi)(zero + f_bits(0x7f800000u)) & big));
		memcpy(d + i, &y, sizeof(y));
	}
	return i;
}

#undef vf
#undef vi
#undef vu
#undef VN_ACT_NAME
#undef VN_ACT_W
#undef VN_ACT_ATTR
