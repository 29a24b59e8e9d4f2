/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Gathering access-pattern operands into fp32 segments and scattering them back, with
 * bf16 and fp8 conversion (core/vn_fp8.h). Included only by *_fp.c files.
 */
#ifndef VN_AP_FP_H
#define VN_AP_FP_H

#include "vn_engine_fp.h"
#include "vn_fp8.h"

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

/* v[0..n) = the bf16 values h[0..n), widened 8 at a time (exact: a shift). */
static inline void vn_bf16_widen(const u16 *h, float *v, u32 n)
{
	u16 __attribute__((vector_size(16))) hv;
	u32 __attribute__((vector_size(32))) w;
	u32 r;

	for (r = 0; r + 8 <= n; r += 8) {
		memcpy(&hv, h + r, sizeof(hv));
		w = __builtin_convertvector(hv, __typeof__(w)) << 16;
		memcpy(v + r, &w, sizeof(w));
	}
	for (; r < n; r++)
		v[r] = vn_bf16_to_f32(h[r]);
}

/* h[0..n) = v[0..n) rounded to bf16 as vn_f32_to_bf16(), four at a time. */
static inline void vn_bf16_narrow(const float *v, u16 *h, u32 n)
{
	u32 __attribute__((vector_size(16))) u, r, nan;
	u16 __attribute__((vector_size(8))) o;
	u32 i;

	for (i = 0; i + 4 <= n; i += 4) {
		memcpy(&u, v + i, sizeof(u));
		r = (u + 0x7fffu + ((u >> 16) & 1)) >> 16;
		/* NaN: its high half, made quiet */
		nan = (__typeof__(nan))((u & 0x7fffffffu) > 0x7f800000u);
		r = (r & ~nan) | (((u >> 16) | 0x40) & nan);
		o = __builtin_convertvector(r, __typeof__(o));
		memcpy(h + i, &o, sizeof(o));
	}
	for (; i < n; i++)
		h[i] = vn_f32_to_bf16(v[i]);
}

/* The same, 16 at a time (core/tensor_avx512_fp.c: AVX-512 CPUs only). */
void vn_bf16_narrow_avx512(const float *v, u16 *h, u32 n);

/*
 * Four lanes at a time with SSE2 (the module's FPU flags, and every x86-64), for
 * VectorE and the collectives: each lane is the scalar operation on the same operands,
 * so the results are the same bits; the selects are the scalar max and min
 * (a > b ? a : b), NaN and signed zeros included.
 */
#define vn_v4	float __attribute__((vector_size(16)))	/* macros, not typedefs */
/* an AVX-512 function's target, for the files that choose it at run time */
#define VN_AVX512	__attribute__((target("avx512f")))
#define vn_v4i	s32 __attribute__((vector_size(16)))

static inline vn_v4 v4_load(const float *p)
{
	vn_v4 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void v4_store(float *p, vn_v4 v)
{
	memcpy(p, &v, sizeof(v));
}

static inline vn_v4 v4_sel(vn_v4i m, vn_v4 a, vn_v4 b)
{
	return (vn_v4)(((vn_v4i)a & m) | ((vn_v4i)b & ~m));
}

/*
 * a + b and a * b with a as the destination operand, as the scalar loops compile: of
 * two NaN operands x86 returns the destination's, and the compiler would otherwise be
 * free to swap the operands of these commutative operations.
 */
static inline vn_v4 v4_add(vn_v4 a, vn_v4 b)
{
#ifdef __x86_64__
	__asm__("addps %1, %0" : "+x"(a) : "x"(b));
	return a;
#else
	return a + b;
#endif
}

static inline vn_v4 v4_mul(vn_v4 a, vn_v4 b)
{
#ifdef __x86_64__
	__asm__("mulps %1, %0" : "+x"(a) : "x"(b));
	return a;
#else
	return a * b;
#endif
}

static inline float vn_u32_f32(u32 u)
{
	union vn_f32 v = { .u = u };

	return v.f;
}

/* Bytes from one partition of an operand's memory to the next. */
static inline u32 vn_ap_part_bytes(const struct vnef_ap *a)
{
	return a->mem == VNEF_MEM_PSUM ? VNEF_PSUM_PART_BYTES : VNEF_SBUF_PART_BYTES;
}

static inline u8 *vn_ap_part(const struct vn_fp_ctx *x, const struct vnef_ap *a, u32 p)
{
	u8 *base = a->mem == VNEF_MEM_PSUM ? x->psum : x->sbuf;

	return base + (size_t)(a->start_partition + p) * vn_ap_part_bytes(a) + a->offset;
}

static inline u32 vn_ap_free(const struct vnef_ap *a)
{
	return a->count[0] * a->count[1];
}

/*
 * Elements j0..j0+n of an operand's partition, in visit order, as runs along its first
 * axis: vn_ap_run() gives each run's first element (in elements from the partition's
 * offset) and length, and where the run starts in the caller's array.
 */
struct vn_ap_walk {
	u32 i0, i1;		/* the next element's indices */
	u32 k, n;		/* elements walked, wanted */
};

static inline void vn_ap_walk_init(struct vn_ap_walk *w, const struct vnef_ap *a, u32 j0, u32 n)
{
	w->i0 = j0 % a->count[0];
	w->i1 = j0 / a->count[0];
	w->k = 0;
	w->n = n;
}

static inline bool vn_ap_run(struct vn_ap_walk *w, const struct vnef_ap *a, u64 *e, u32 *at,
			     u32 *run)
{
	if (w->k >= w->n)
		return false;
	*e = (u64)w->i1 * a->stride[1] + (u64)w->i0 * a->stride[0];
	*run = min(w->n - w->k, a->count[0] - w->i0);
	*at = w->k;
	w->k += *run;
	w->i0 = 0;
	w->i1++;
	return true;
}

/*
 * The fp32 elements j0..j0+n of partition p when they lie side by side in memory (one
 * run along the first axis, stride 1): their address, else NULL.
 */
static inline float *vn_ap_contig(const struct vn_fp_ctx *x, const struct vnef_ap *a, u32 p,
				  u32 j0, u32 n)
{
	if (a->dtype != VNEF_DT_FP32 || a->stride[0] != 1 || j0 % a->count[0] + n > a->count[0])
		return NULL;
	return (float *)vn_ap_part(x, a, p) + (u64)(j0 / a->count[0]) * a->stride[1] +
	       j0 % a->count[0];
}

/* The same for bf16 elements: their address when they lie side by side, else NULL. */
static inline u16 *vn_ap_contig_bf16(const struct vn_fp_ctx *x, const struct vnef_ap *a,
				     u32 p, u32 j0, u32 n)
{
	if (a->dtype != VNEF_DT_BF16 || a->stride[0] != 1 || j0 % a->count[0] + n > a->count[0])
		return NULL;
	return (u16 *)vn_ap_part(x, a, p) + (u64)(j0 / a->count[0]) * a->stride[1] +
	       j0 % a->count[0];
}

/*
 * Whether n outputs at d may be computed in place from n inputs at s (elementwise, in
 * visit order) with the results of gathering the inputs first: s is d, or apart from it.
 */
static inline bool vn_in_place_ok(const float *d, const float *s, u32 n)
{
	return s == d || s + n <= d || d + n <= s;
}

/*
 * Elements j0..j0+n of partition p (visit order) to buf[0..n) (store false: a gather) or
 * from it (store true: a scatter). Inlined with a constant store, so each caller gets
 * its own loops.
 */
static inline void vn_ap_move(const struct vn_fp_ctx *x, const struct vnef_ap *a, u32 p, u32 j0,
			      u32 n, float *buf, bool store)
{
	u8 *base = vn_ap_part(x, a, p);
	u64 e, st = a->stride[0];
	struct vn_ap_walk w;
	u32 at, run, r;
	float *f = vn_ap_contig(x, a, p, j0, n);

	if (f) {
		/* one run: the common case, without the walk */
		if (store)
			memmove(f, buf, n * sizeof(float));
		else
			memcpy(buf, f, n * sizeof(float));
		return;
	}
	vn_ap_walk_init(&w, a, j0, n);
	while (vn_ap_run(&w, a, &e, &at, &run)) {
		float *v = buf + at;

		if (a->dtype == VNEF_DT_FP32) {
			float *f = (float *)base + e;

			if (st == 1 && store)
				memmove(f, v, run * sizeof(float));
			else if (st == 1)
				memcpy(v, f, run * sizeof(float));
			else if (store)
				for (r = 0; r < run; r++)
					f[r * st] = v[r];
			else
				for (r = 0; r < run; r++)
					v[r] = f[r * st];
		} else if (a->dtype == VNEF_DT_BF16) {
			u16 *h = (u16 *)base + e;

			if (st == 1 && !store) {
				vn_bf16_widen(h, v, run);
				continue;
			}
			if (st == 1) {
				vn_bf16_narrow(v, h, run);
				continue;
			}
			if (store)
				for (r = 0; r < run; r++)
					h[r * st] = vn_f32_to_bf16(v[r]);
			else
				for (r = 0; r < run; r++)
					v[r] = vn_bf16_to_f32(h[r * st]);
		} else {
			/* fp8 (the validator and vn_engine_check() admit no other dtype) */
			const struct vn_fp8_format *f8 = vn_fp8_format(a->dtype);
			u8 *q = base + e;
			union vn_f32 u;

			if (store) {
				for (r = 0; r < run; r++) {
					u.f = v[r];
					q[r * st] = vn_f32_bits_to_fp8(f8, u.u);
				}
			} else {
				for (r = 0; r < run; r++)
					v[r] = vn_u32_f32(vn_fp8_to_f32_bits(f8, q[r * st]));
			}
		}
	}
}

/* out[0..n) = elements j0..j0+n of partition p (visit order). */
static inline void vn_gather(const struct vn_fp_ctx *x, const struct vnef_ap *a, u32 p, u32 j0,
			     u32 n, float *out)
{
	vn_ap_move(x, a, p, j0, n, out, false);
}

/* Elements j0..j0+n of partition p (visit order) = in[0..n). */
static inline void vn_scatter(const struct vn_fp_ctx *x, const struct vnef_ap *a, u32 p, u32 j0,
			      u32 n, const float *in)
{
	/* in is only read: store moves from it */
	vn_ap_move(x, a, p, j0, n, (float *)in, true);
}

#endif /* VN_AP_FP_H */
