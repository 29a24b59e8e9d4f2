// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The arithmetic of collectives (core/vn_comm.h): ranks' values reduced in rank order in
 * fp32, bf16 rounded once at the end. FPU sections are bounded: VN_CC_FP_CHUNK elements
 * of every rank, then a scheduling point.
 */
#include "vn_ap_fp.h"
#include "vn_comm.h"
#include "vn_os.h"

#define VN_CC_FP_CHUNK	4096u

/* Elements a block holds: the accumulator and a widened bf16 block fit a kernel frame. */
#define VN_CC_BLOCK	128u

/* acc[i] = acc[i] <reduce> v[i], four lanes at a time (the scalar loop's bits). */
static void reduce_into(u32 reduce, float *acc, const float *v, u32 k)
{
	u32 i = 0;

	if (reduce == VN_CC_MAX) {
		for (; i + 4 <= k; i += 4) {
			vn_v4 a = v4_load(acc + i), b = v4_load(v + i);

			v4_store(acc + i, v4_sel(a > b, a, b));
		}
		for (; i < k; i++)
			acc[i] = acc[i] > v[i] ? acc[i] : v[i];
		return;
	}
	for (; i + 4 <= k; i += 4)
		v4_store(acc + i, v4_add(v4_load(acc + i), v4_load(v + i)));
	for (; i < k; i++)
		acc[i] += v[i];
}

/* Reductions at least this big write around the cache (store_stream()). */
#define VN_CC_STREAM_BYTES	0x100000u	/* 1 MiB */

/*
 * dst[0..k) = src[0..k), the aligned part with non-temporal stores: results of large
 * reductions go to memory without first reading their lines (half the traffic of each
 * write); vn_cc_reduce() fences them before it returns.
 */
static void store_stream(float *dst, const float *src, u32 k)
{
	u32 i = 0;

#ifdef __x86_64__
	for (; i < k && ((unsigned long)(dst + i) & 15); i++)
		dst[i] = src[i];
	for (; i + 4 <= k; i += 4)
		__asm__("movntps %1, %0" : "=m"(*(vn_v4 *)(dst + i)) : "x"(v4_load(src + i)));
#endif
	for (; i < k; i++)
		dst[i] = src[i];
}

/* Elements [first, first + len) of the reduction, a block at a time (any dtype, any alignment). */
static void reduce_blocks(u32 reduce, u32 dtype, void *const *out, u32 nout,
			  const void *const *in, u32 n, u64 in_first, u64 first, u32 len,
			  bool stream)
{
	float acc[VN_CC_BLOCK], wide[VN_CC_BLOCK];
	const float *v;
	u32 done, k, r, o, i;
	u64 e;

	/* Small blocks: every rank's values of a block are read before any output is written. */
	for (done = 0; done < len; done += k) {
		k = min_t(u32, len - done, VN_CC_BLOCK);
		e = in_first + first + done;
		for (r = 0; r < n; r++) {
			if (dtype == VNEF_DT_BF16) {
				vn_bf16_widen((const u16 *)in[r] + e, r ? wide : acc, k);
				v = wide;
			} else if (r) {
				v = (const float *)in[r] + e;
			} else {
				memcpy(acc, (const float *)in[r] + e, k * sizeof(float));
				continue;
			}
			if (r)
				reduce_into(reduce, acc, v, k);
		}
		e = first + done;
		for (o = 0; o < nout; o++) {
			if (dtype != VNEF_DT_BF16 && stream) {
				store_stream((float *)out[o] + e, acc, k);
				continue;
			}
			if (dtype != VNEF_DT_BF16) {
				memcpy((float *)out[o] + e, acc, k * sizeof(float));
				continue;
			}
			for (i = 0; i < k; i++)
				((u16 *)out[o])[e + i] = vn_f32_to_bf16(acc[i]);
		}
	}
}

#ifdef __x86_64__
/* Elements a line step holds: two cache lines of fp32, eight registers. */
#define VN_CC_LINES	32u

/*
 * fp32, streamed, every output 16-byte aligned at first: elements [first, first + len),
 * len a multiple of VN_CC_LINES, in one pass. Each step holds two lines of the sum in
 * registers, reads every rank's two lines into it in rank order, then writes them to
 * every output around the cache: no accumulator in memory to load and store again per
 * rank, and each output gets whole lines, so its write-combining buffers fill.
 */
static void reduce_lines(u32 reduce, void *const *out, u32 nout, const void *const *in,
			 u32 n, u64 in_first, u64 first, u32 len)
{
	vn_v4 a[8], b;
	const float *p;
	float *d;
	u32 i, r, o, q;

	for (i = 0; i < len; i += VN_CC_LINES) {
		p = (const float *)in[0] + in_first + first + i;
		for (q = 0; q < 8; q++)
			a[q] = v4_load(p + 4 * q);
		for (r = 1; r < n; r++) {
			p = (const float *)in[r] + in_first + first + i;
			for (q = 0; q < 8; q++) {
				b = v4_load(p + 4 * q);
				a[q] = reduce == VN_CC_MAX ? v4_sel(a[q] > b, a[q], b) :
					v4_add(a[q], b);
			}
		}
		for (o = 0; o < nout; o++) {
			d = (float *)out[o] + first + i;
			for (q = 0; q < 8; q++)
				__asm__("movntps %1, %0" : "=m"(*(vn_v4 *)(d + 4 * q)) : "x"(a[q]));
		}
	}
}

#define vn_v16		float __attribute__((vector_size(64)))	/* not a typedef */
#define vn_v16i		s32 __attribute__((vector_size(64)))

/* a + b with a as the first source, as addps: of two NaN operands, a's */
VN_AVX512 static inline vn_v16 v16_add(vn_v16 a, vn_v16 b)
{
	vn_v16 r;

	__asm__("vaddps %2, %1, %0" : "=v"(r) : "v"(a), "v"(b));
	return r;
}

/* a > b ? a : b lane by lane, as v4_sel() */
VN_AVX512 static inline vn_v16 v16_max(vn_v16 a, vn_v16 b)
{
	vn_v16i m = (vn_v16i)(a > b);

	return (vn_v16)(((vn_v16i)a & m) | ((vn_v16i)b & ~m));
}

/*
 * reduce_lines() with AVX-512, every output 64-byte aligned at first: a line a register,
 * so each streamed store writes a whole line (about a fifth less time than four 16-byte
 * stores a line here). vaddps with the sum as its first source, as addps: the same bits.
 */
VN_AVX512 static void reduce_lines_avx512(u32 reduce, void *const *out, u32 nout,
					  const void *const *in, u32 n, u64 in_first,
					  u64 first, u32 len)
{
	vn_v16 a[2], b;
	const float *p;
	float *d;
	u32 i, r, o, q;

	for (i = 0; i < len; i += VN_CC_LINES) {
		p = (const float *)in[0] + in_first + first + i;
		memcpy(a, p, sizeof(a));
		for (r = 1; r < n; r++) {
			p = (const float *)in[r] + in_first + first + i;
			for (q = 0; q < 2; q++) {
				memcpy(&b, p + 16 * q, sizeof(b));
				a[q] = reduce == VN_CC_MAX ? v16_max(a[q], b) : v16_add(a[q], b);
			}
		}
		for (o = 0; o < nout; o++) {
			d = (float *)out[o] + first + i;
			for (q = 0; q < 2; q++)
				__asm__("vmovntps %1, %0" : "=m"(*(vn_v16 *)(d + 16 * q))
					: "v"(a[q]));
		}
	}
}

/*
 * Elements of [first, first + len) before out[0]'s first 64-byte line, or len if an
 * output is not 16-byte aligned there; *lines: every output is 64-byte aligned there.
 */
static u32 lines_head(void *const *out, u32 nout, u64 first, u32 len, bool *lines)
{
	unsigned long a0 = (unsigned long)((float *)out[0] + first), at;
	u32 o, head;

	*lines = true;
	if (a0 & 3)
		return len;
	head = (u32)((-a0 & 63) / sizeof(float));
	for (o = 1; o < nout; o++) {
		at = (unsigned long)((float *)out[o] + first + head);
		if (at & 15)
			return len;
		if (at & 63)
			*lines = false;
	}
	return min_t(u32, head, len);
}
#endif

/* wide: AVX-512 may be used (vn_cpu_vector()). */
static void reduce_chunk(u32 reduce, u32 dtype, void *const *out, u32 nout,
			 const void *const *in, u32 n, u64 in_first, u64 first, u32 len,
			 bool stream, bool wide)
{
#ifdef __x86_64__
	u32 head, body;
	bool lines;

	if (dtype == VNEF_DT_FP32 && stream && nout) {
		head = lines_head(out, nout, first, len, &lines);
		body = (len - head) / VN_CC_LINES * VN_CC_LINES;
		reduce_blocks(reduce, dtype, out, nout, in, n, in_first, first, head, stream);
		if (wide && lines)
			reduce_lines_avx512(reduce, out, nout, in, n, in_first, first + head, body);
		else
			reduce_lines(reduce, out, nout, in, n, in_first, first + head, body);
		first += head + body;
		len -= head + body;
	}
#endif
	reduce_blocks(reduce, dtype, out, nout, in, n, in_first, first, len, stream);
}

void vn_cc_reduce(u32 reduce, u32 dtype, void *const *out, u32 nout, const void *const *in,
		  u32 n, u64 in_first, u64 count)
{
	bool stream = count * 4 >= VN_CC_STREAM_BYTES;
	bool wide = (vn_cpu_vector() & VN_CPU_LEVEL) >= VN_CPU_AVX512;
	u64 first;
	u32 len;

	for (first = 0; first < count; first += len) {
		len = (u32)min_t(u64, count - first, VN_CC_FP_CHUNK);
		vn_fpu_begin();
		reduce_chunk(reduce, dtype, out, nout, in, n, in_first, first, len, stream, wide);
		vn_fpu_end();
		vn_cond_resched();
	}
#ifdef __x86_64__
	/*
	 * The streamed stores are seen before anything that follows. One fence at the end,
	 * as the kernel's __copy_user_nocache() does: a task switched out in between has its
	 * write-combining buffers drained by the switch's locked instructions.
	 */
	if (stream)
		__asm__ volatile("sfence" : : : "memory");
#endif
}
