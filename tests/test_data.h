/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Test inputs and tolerances shared by the host kernel tests (tests/host/test_kernels.c)
 * and their device twins in the guest (tests/guest/exec_test.c, uring_test.c), so both
 * check the same data against the same bounds.
 */
#ifndef VN_TEST_DATA_H
#define VN_TEST_DATA_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#define FP32_U	(1.0 / 16777216.0)	/* fp32 unit roundoff */
#define BF16_U	(1.0 / 256.0)		/* bf16 unit roundoff */

/* Deterministic inputs in [-1, 1). */
static inline float rnd(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (float)((double)(*s >> 40) / (double)(1ull << 23) - 1.0);
}

static inline void fill(float *x, size_t n, uint64_t seed, float scale)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = scale * rnd(&seed);
}

static inline void *xmalloc(size_t n)
{
	void *p = malloc(n);

	if (!p)
		abort();
	return p;
}

#endif /* VN_TEST_DATA_H */
