/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The median of a bench's timed batches (sorts v in place). */
#ifndef BENCH_MEDIAN_H
#define BENCH_MEDIAN_H

#include <stdlib.h>

static int bench_dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), bench_dcmp);
	return v[n / 2];
}

#endif /* BENCH_MEDIAN_H */
