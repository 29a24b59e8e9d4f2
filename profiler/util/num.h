/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Numbers computed in double precision, back to integers. */
#ifndef VNP_NUM_H
#define VNP_NUM_H

#include <stdint.h>

/*
 * v as uint64_t, saturated: a plain conversion is undefined from 2^64 on, below 0 and
 * for NaN, which a profile's hostile numbers reach (fuzz_view found two).
 */
static inline uint64_t vnp_u64_sat(double v)
{
	if (!(v > 0))
		return 0;
	return v >= 0x1p64 ? UINT64_MAX : (uint64_t)v;
}

#endif /* VNP_NUM_H */
