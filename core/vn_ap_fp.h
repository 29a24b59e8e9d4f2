/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Gathering access-pattern operands into fp32 segments and scattering them back, with
 * bf16 conversion. Included only by *_fp.c files.
 */
#ifndef VN_AP_FP_H
#define VN_AP_FP_H

#include "vn_engine_fp.h"

union vn_f32 {
	float f;
	u32 u;
};

static inline float vn_bf16_to_f32(u16 h)
{
	union vn_f32 v = { .u = (u32)h << 16 };

	return v.f;
}

/* Round to nearest even; NaN stays a quiet NaN. */
static inline u16 vn_f32_to_bf16(float f)
{
	union vn_f32 v = { .f = f };

	if ((v.u & 0x7fffffffu) > 0x7f800000u)
		return (u16)((v.u >> 16) | 0x40);
	return (u16)((v.u + 0x7fffu + ((v.u >> 16) & 1)) >> 16);
}

static inline float vn_u32_f32(u32 u)
{
	union vn_f32 v = { .u = u };

	return v.f;
}

static inline u8 *vn_ap_part(const struct vn_fp_ctx *x, const struct vnef_ap *a, u32 p)
{
	u8 *base = a->mem == VNEF_MEM_PSUM ? x->psum : x->sbuf;
	u32 pb = a->mem == VNEF_MEM_PSUM ? VNEF_PSUM_PART_BYTES : VNEF_SBUF_PART_BYTES;

	return base + (size_t)(a->start_partition + p) * pb + a->offset;
}

static inline u32 vn_ap_free(const struct vnef_ap *a)
{
	return a->count[0] * a->count[1];
}

/* out[0..n) = elements j0..j0+n of partition p (visit order). */
static inline void vn_gather(const struct vn_fp_ctx *x, const struct vnef_ap *a, u32 p, u32 j0,
			     u32 n, float *out)
{
	const u8 *base = vn_ap_part(x, a, p);
	u32 i0 = j0 % a->count[0], i1 = j0 / a->count[0];
	u32 k = 0;

	while (k < n) {
		u64 e = (u64)i1 * a->stride[1] + (u64)i0 * a->stride[0];
		u32 run = min(n - k, a->count[0] - i0);
		u32 r;

		if (a->dtype == VNEF_DT_FP32) {
			const float *s = (const float *)base + e;

			if (a->stride[0] == 1)
				memcpy(out + k, s, run * sizeof(float));
			else
				for (r = 0; r < run; r++)
					out[k + r] = s[(u64)r * a->stride[0]];
		} else {
			const u16 *s = (const u16 *)base + e;

			for (r = 0; r < run; r++)
				out[k + r] = vn_bf16_to_f32(s[(u64)r * a->stride[0]]);
		}
		k += run;
		i0 = 0;
		i1++;
	}
}

static inline void vn_scatter(const struct vn_fp_ctx *x, const struct vnef_ap *a, u32 p, u32 j0,
			      u32 n, const float *in)
{
	u8 *base = vn_ap_part(x, a, p);
	u32 i0 = j0 % a->count[0], i1 = j0 / a->count[0];
	u32 k = 0;

	while (k < n) {
		u64 e = (u64)i1 * a->stride[1] + (u64)i0 * a->stride[0];
		u32 run = min(n - k, a->count[0] - i0);
		u32 r;

		if (a->dtype == VNEF_DT_FP32) {
			float *d = (float *)base + e;

			if (a->stride[0] == 1)
				memmove(d, in + k, run * sizeof(float));
			else
				for (r = 0; r < run; r++)
					d[(u64)r * a->stride[0]] = in[k + r];
		} else {
			u16 *d = (u16 *)base + e;

			for (r = 0; r < run; r++)
				d[(u64)r * a->stride[0]] = vn_f32_to_bf16(in[k + r]);
		}
		k += run;
		i0 = 0;
		i1++;
	}
}

#endif /* VN_AP_FP_H */
