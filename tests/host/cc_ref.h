/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The C reference of the collectives for the host tests (test_cc_exec.c, test_cc_host.c,
 * mpi/test_mpi_cc.c): what element e of rank r's output must be, reductions computed over
 * the ranks in rank order in fp32, as core/vn_comm.h promises bit for bit; and the inputs
 * the tests give the ranks. Header-only; everything static.
 */
#ifndef CC_REF_H
#define CC_REF_H

#include <stddef.h>
#include <stdint.h>

#include "vn_comm.h"

/* Element i of rank's input: values whose sums round, so the order of additions shows. */
static inline float cc_val(uint32_t rank, uint64_t i)
{
	return (float)((rank * 7919 + i * 104729) % 1000) * 0.001f + 1e-7f * (float)rank;
}

/* Pseudo-random values of every magnitude from seed into x[0..n). */
static inline void cc_fill(float *x, size_t n, uint32_t seed)
{
	uint32_t s = seed * 2654435761u + 12345;
	size_t i;

	for (i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		x[i] = (float)((int32_t)(s >> 8) - (1 << 23)) / (float)(1 << (s % 23));
	}
}

/* Where the reference reads the ranks' inputs: element i of rank's input. */
struct cc_ref_in {
	const float *const *x;		/* each rank's input; NULL: cc_val() */
	float scale;			/* x[rank][i] * scale; 0: 1 */
};

static inline float cc_ref_in(const struct cc_ref_in *in, uint32_t rank, uint64_t i)
{
	if (!in->x)
		return cc_val(rank, i);
	return in->scale ? in->x[rank][i] * in->scale : in->x[rank][i];
}

/* Element i of the reduction (enum vn_cc_reduce) of n ranks' inputs, in rank order. */
static inline float cc_ref_reduce(const struct cc_ref_in *in, uint32_t reduce, uint32_t n,
				  uint64_t i)
{
	float acc = cc_ref_in(in, 0, i), v;
	uint32_t r;

	for (r = 1; r < n; r++) {
		v = cc_ref_in(in, r, i);
		acc = reduce == VN_CC_MAX ? (v > acc ? v : acc) : acc + v;
	}
	return acc;
}

/*
 * Element e of rank r's output of op (enum vn_cc_op) over n ranks, count elements as in
 * enum vn_cc_op (a chunk for the ops that have n of them), shift for PERMUTE.
 */
static inline float cc_ref(const struct cc_ref_in *in, uint32_t op, uint32_t reduce,
			   uint32_t n, uint32_t r, uint32_t shift, uint64_t count, uint64_t e)
{
	switch (op) {
	case VN_CC_ALL_REDUCE:
		return cc_ref_reduce(in, reduce, n, e);
	case VN_CC_REDUCE_SCATTER:	/* chunk r of the reduction */
		return cc_ref_reduce(in, reduce, n, (uint64_t)r * count + e);
	case VN_CC_ALL_GATHER:		/* chunk j is rank j's input */
		return cc_ref_in(in, (uint32_t)(e / count), e % count);
	case VN_CC_ALL_TO_ALL:		/* chunk j is rank j's chunk r */
		return cc_ref_in(in, (uint32_t)(e / count), (uint64_t)r * count + e % count);
	default:			/* PERMUTE: from rank r - shift */
		return cc_ref_in(in, (r + n - shift % n) % n, e);
	}
}

/* Elements [0, nout) of rank r's output of op into want (cc_ref()). */
static inline void cc_ref_out(float *want, uint64_t nout, const struct cc_ref_in *in,
			      uint32_t op, uint32_t reduce, uint32_t n, uint32_t r,
			      uint32_t shift, uint64_t count)
{
	uint64_t e;

	for (e = 0; e < nout; e++)
		want[e] = cc_ref(in, op, reduce, n, r, shift, count, e);
}

#endif /* CC_REF_H */
