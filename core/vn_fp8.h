/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The fp8 formats (enum vnef_dtype) and their conversions to and from fp32, on bit
 * patterns with integer arithmetic only, so any file may use them (the FPU is not
 * needed). docs/isa.md ("Data types") gives the rules; tests/host/test_fp8.c checks every
 * code both ways against a NumPy reference (tests/host/fp8_ref.py).
 *
 * Formats (sign, exponent, mantissa; bias; specials):
 *   FP8_E4M3    1.4.3, bias 7: AWS's cFP8 E4M3, IEEE-like: exponent 15 with mantissa 0
 *               is infinity, any other mantissa NaN; largest finite 240 (0x77)
 *   FP8_E5M2    1.5.2, bias 15: IEEE-like; largest finite 57344 (0x7b)
 *   FP8_E4M3FN  1.4.3, bias 7: OCP's E4M3: no infinity, NaN only S.1111.111; largest
 *               finite 448 (0x7e)
 *
 * To fp8: round to nearest, ties to even; a finite value beyond the largest saturates to
 * it (+-max, the sign kept); an infinity stays one where the format has them and
 * saturates in E4M3FN; every NaN becomes S.1111111 (0x7f with its sign: a NaN in all
 * three); values below half the smallest subnormal become a zero of their sign.
 * To fp32: exact; a NaN becomes the quiet NaN 0x7fc00000 with its sign.
 */
#ifndef VN_FP8_H
#define VN_FP8_H

#include "vn_platform.h"
#include "vneuron_program.h"

struct vn_fp8_format {
	u8 mbits;		/* mantissa bits */
	u8 bias;
	u8 ebits;
	u8 has_inf;		/* IEEE-like: exponent all ones is infinity or NaN */
	u8 max_code;		/* the largest finite value, sign clear */
};

#define VN_FP8_NAN	0x7fu

static inline const struct vn_fp8_format *vn_fp8_format(u32 dtype)
{
	static const struct vn_fp8_format e4m3 = { 3, 7, 4, 1, 0x77 };
	static const struct vn_fp8_format e5m2 = { 2, 15, 5, 1, 0x7b };
	static const struct vn_fp8_format e4m3fn = { 3, 7, 4, 0, 0x7e };

	switch (dtype) {
	case VNEF_DT_FP8_E4M3:
		return &e4m3;
	case VNEF_DT_FP8_E5M2:
		return &e5m2;
	case VNEF_DT_FP8_E4M3FN:
		return &e4m3fn;
	default:
		return NULL;
	}
}

/* The fp32 bit pattern of fp8 code @v in format @f: exact. */
static inline u32 vn_fp8_to_f32_bits(const struct vn_fp8_format *f, u8 v)
{
	u32 sign = (u32)(v & 0x80) << 24, emax = (1u << f->ebits) - 1;
	u32 mmask = (1u << f->mbits) - 1, e = (v >> f->mbits) & emax, m = v & mmask;
	s32 exp;

	if (e == emax && (f->has_inf || m == mmask)) {
		if (f->has_inf && !m)
			return sign | 0x7f800000u;
		return sign | 0x7fc00000u;
	}
	if (!e) {
		if (!m)
			return sign;
		/* subnormal m * 2^(1 - bias - mbits): normalise the leading 1 to bit mbits */
		exp = 1 - f->bias;
		while (!(m & (1u << f->mbits))) {
			m <<= 1;
			exp--;
		}
		m &= mmask;
	} else {
		exp = (s32)e - f->bias;
	}
	return sign | (u32)(exp + 127) << 23 | m << (23 - f->mbits);
}

/* The fp8 code of the fp32 bit pattern @x in format @f, by the rules above. */
static inline u8 vn_f32_bits_to_fp8(const struct vn_fp8_format *f, u32 x)
{
	u8 sign = (u8)((x >> 24) & 0x80);
	u32 a = x & 0x7fffffffu, sig, q, rem, half, shift, code;
	s32 e;

	if (a > 0x7f800000u)
		return sign | VN_FP8_NAN;
	if (a == 0x7f800000u)
		return sign | (f->has_inf ? (u8)(((1u << f->ebits) - 1) << f->mbits) : f->max_code);
	if (a < 0x00800000u)
		return sign;		/* zero or an fp32 subnormal: far below fp8's least */
	e = (s32)(a >> 23) - 127 + f->bias;	/* fp8's biased exponent, if normal */
	sig = (a & 0x7fffffu) | 0x800000u;	/* 1.mantissa, 23 fraction bits */
	shift = 23 - f->mbits + (e < 1 ? (u32)(1 - e) : 0);
	if (shift > 24)
		return sign;		/* below half the least subnormal */
	q = sig >> shift;
	rem = sig & ((1u << shift) - 1);
	half = 1u << (shift - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	/* a normal q carries the implicit 1 at bit mbits; a carry into the exponent is right */
	code = e < 1 ? q : ((u32)(e - 1) << f->mbits) + q;
	if (code > f->max_code)
		return sign | f->max_code;
	return sign | (u8)code;
}

#endif /* VN_FP8_H */
