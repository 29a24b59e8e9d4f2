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

static void reduce_chunk(u32 reduce, u32 dtype, void *const *out, u32 nout,
			 const void *const *in, u32 n, u64 in_first, u64 first, u32 len)
{
	float acc[VN_CC_FP_CHUNK / 16];
	u32 done, k, r, o, i;

	/* Small blocks: every rank's values of a block are read before any output is written. */
	for (done = 0; done < len; done += k) {
		k = min_t(u32, len - done, (u32)ARRAY_SIZE(acc));
		for (r = 0; r < n; r++) {
			for (i = 0; i < k; i++) {
				u64 e = in_first + first + done + i;
				float v = dtype == VNEF_DT_BF16 ?
					  vn_bf16_to_f32(((const u16 *)in[r])[e]) :
					  ((const float *)in[r])[e];

				if (!r)
					acc[i] = v;
				else if (reduce == VN_CC_MAX)
					acc[i] = acc[i] > v ? acc[i] : v;
				else
					acc[i] += v;
			}
		}
		for (o = 0; o < nout; o++) {
			for (i = 0; i < k; i++) {
				u64 e = first + done + i;

				if (dtype == VNEF_DT_BF16)
					((u16 *)out[o])[e] = vn_f32_to_bf16(acc[i]);
				else
					((float *)out[o])[e] = acc[i];
			}
		}
	}
}

void vn_cc_reduce(u32 reduce, u32 dtype, void *const *out, u32 nout, const void *const *in,
		  u32 n, u64 in_first, u64 count)
{
	u64 first;
	u32 len;

	for (first = 0; first < count; first += len) {
		len = (u32)min_t(u64, count - first, VN_CC_FP_CHUNK);
		vn_fpu_begin();
		reduce_chunk(reduce, dtype, out, nout, in, n, in_first, first, len);
		vn_fpu_end();
		vn_cond_resched();
	}
}
