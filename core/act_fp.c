// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * ScalarE numerics: out = func(in * scale + bias). The kernel has no libm, so the
 * functions are written here: range reduction plus short polynomials, accurate to a
 * few ulp in fp32 (tests compare with libm at a relative 1e-5).
 */
#include "vn_ap_fp.h"

#define LN2_HI		0.693145751953125f
#define LN2_LO		0.0000014286068f
#define LOG2E		1.4426950408889634f

static inline float f_bits(u32 u)
{
	return vn_u32_f32(u);
}

static inline u32 f_u32(float f)
{
	union vn_f32 v = { .f = f };

	return v.u;
}

static inline float f_abs(float x)
{
	return f_bits(f_u32(x) & 0x7fffffffu);
}

/* 2^k for -126 <= k <= 127 */
static inline float pow2i(int k)
{
	return f_bits((u32)(k + 127) << 23);
}

static float vn_expf(float x)
{
	float r, p;
	int k;

	if (x != x)
		return x;
	if (x > 88.72284f)
		return f_bits(0x7f800000u);
	if (x < -103.972f)
		return 0;
	k = (int)(x * LOG2E + (x >= 0 ? 0.5f : -0.5f));
	r = x - (float)k * LN2_HI - (float)k * LN2_LO;
	p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120 +
	    r * (1.0f / 720 + r * (1.0f / 5040)))))));
	/* Two factors keep each power of two a normal number. */
	return p * pow2i(k / 2) * pow2i(k - k / 2);
}

static float vn_logf(float x)
{
	u32 u = f_u32(x);
	float m, s, s2, lm;
	int e = 0;

	if (x != x || x < 0)
		return f_bits(0x7fc00000u);
	if (x == 0)
		return f_bits(0xff800000u);
	if (u == 0x7f800000u)
		return x;
	if (u < 0x00800000u) {		/* subnormal */
		x *= 8388608.0f;
		u = f_u32(x);
		e = -23;
	}
	e += (int)((u >> 23) & 0xff) - 127;
	m = f_bits((u & 0x007fffffu) | 0x3f800000u);
	if (m > 1.41421356f) {
		m *= 0.5f;
		e++;
	}
	s = (m - 1) / (m + 1);
	s2 = s * s;
	lm = 2 * s * (1 + s2 * (1.0f / 3 + s2 * (1.0f / 5 + s2 * (1.0f / 7 + s2 * (1.0f / 9 +
	     s2 * (1.0f / 11))))));
	return (float)e * LN2_HI + (lm + (float)e * LN2_LO);
}

static float vn_tanhf(float x)
{
	float ax = f_abs(x), t, x2, e;

	if (x != x)
		return x;
	if (ax > 9)
		return x > 0 ? 1.0f : -1.0f;
	if (ax < 0.4f) {
		x2 = x * x;
		return x * (1 + x2 * (-1.0f / 3 + x2 * (2.0f / 15 + x2 * (-17.0f / 315 +
		       x2 * (62.0f / 2835 + x2 * (-1382.0f / 155925))))));
	}
	e = vn_expf(2 * ax);
	t = (e - 1) / (e + 1);
	return x < 0 ? -t : t;
}

static float vn_sigmoidf(float x)
{
	float e;

	if (x >= 0)
		return 1 / (1 + vn_expf(-x));
	e = vn_expf(x);
	return e / (1 + e);
}

static float vn_rsqrtf(float x)
{
	float y, scale = 1;
	u32 u = f_u32(x);

	if (x != x || x < 0)
		return f_bits(0x7fc00000u);
	if (x == 0)
		return 1 / x;		/* +-inf, as IEEE 754 rSqrt */
	if (u == 0x7f800000u)
		return 0;
	if (u < 0x00800000u) {		/* subnormal: 1/sqrt(x * 2^24) * 2^12 */
		x *= 16777216.0f;
		scale = 4096.0f;
	}
	y = f_bits(0x5f3759dfu - (f_u32(x) >> 1));
	y = y * (1.5f - 0.5f * x * y * y);
	y = y * (1.5f - 0.5f * x * y * y);
	y = y * (1.5f - 0.5f * x * y * y);
	return y * scale;
}

static float vn_sqrtf(float x)
{
	float y, s;

	if (x != x || x < 0)
		return f_bits(0x7fc00000u);
	if (x == 0 || f_u32(x) == 0x7f800000u)
		return x;
	y = vn_rsqrtf(x);
	s = x * y;
	return s + 0.5f * y * (x - s * s);
}

static float act(u32 fn, float x)
{
	switch (fn) {
	case VNEF_ACT_EXP:
		return vn_expf(x);
	case VNEF_ACT_LOG:
		return vn_logf(x);
	case VNEF_ACT_TANH:
		return vn_tanhf(x);
	case VNEF_ACT_SIGMOID:
		return vn_sigmoidf(x);
	case VNEF_ACT_GELU:
		return 0.5f * x * (1 + vn_tanhf(0.7978845608f * (x + 0.044715f * x * x * x)));
	case VNEF_ACT_RELU:
		return x > 0 ? x : 0;
	case VNEF_ACT_SQRT:
		return vn_sqrtf(x);
	case VNEF_ACT_RSQRT:
		return vn_rsqrtf(x);
	case VNEF_ACT_RECIPROCAL:
		return 1 / x;
	case VNEF_ACT_SQUARE:
		return x * x;
	default:
		return x;
	}
}

#define VN_ACT_NAME	act_vec_sse2
#define VN_ACT_W	4
#define VN_ACT_ATTR
#include "vn_act_vec_fp.h"

#define VN_ACT_NAME	act_vec_avx2
#define VN_ACT_W	8
#define VN_ACT_ATTR	__attribute__((target("avx2")))
#include "vn_act_vec_fp.h"

bool vn_fp_act_step(struct vn_fp_ctx *x, const struct vnef_instr *in,
		    struct vn_fp_cursor *c)
{
	const struct vnef_ap *d = &in->dst;
	float scale = vn_u32_f32(in->imm[0]), bias = vn_u32_f32(in->imm[1]), *s = x->seg[0];
	float *o, *v, *t;
	u32 f = vn_ap_free(d), budget = VN_FP_CHUNK, n, i;

	for (; c->p < d->partitions; c->p++, c->j0 = 0) {
		if (in->flags & VNEF_IF_BIAS_COLUMN)
			vn_gather(x, &in->src1, c->p, 0, 1, &bias);
		for (; c->j0 < f; c->j0 += n) {
			if (!budget)
				return false;
			n = min(min(f - c->j0, (u32)VN_FP_SEG), budget);
			budget -= n;
			/* contiguous fp32, the destination or apart: computed where they are */
			o = vn_ap_contig(x, d, c->p, c->j0, n);
			v = o ? vn_ap_contig(x, &in->src0, c->p, c->j0, n) : NULL;
			if (!v || !vn_in_place_ok(o, v, n)) {
				o = NULL;
				v = s;
				vn_gather(x, &in->src0, c->p, c->j0, n, s);
			}
			t = o ? o : s;
			if (x->simd >= VN_SIMD_AVX2)
				i = act_vec_avx2(in->op, t, v, n, scale, bias);
			else
				i = act_vec_sse2(in->op, t, v, n, scale, bias);
			for (; i < n; i++)
				t[i] = act(in->op, v[i] * scale + bias);
			if (!o)
				vn_scatter(x, d, c->p, c->j0, n, s);
		}
	}
	return true;
}
