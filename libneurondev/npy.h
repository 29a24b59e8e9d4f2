/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * NumPy .npy files of little-endian float32 in C order: a small, strict reader and a
 * writer (format versions 1.0, 2.0 and 3.0; https://numpy.org/doc/stable/reference/
 * generated/numpy.lib.format.html). Used by vneuron-run and the examples.
 */
#ifndef ND_NPY_H
#define ND_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "neurondev.h"

#define ND_NPY_MAX_DIMS 8

struct nd_npy {
	unsigned int ndim;		/* 0 for a scalar */
	uint64_t shape[ND_NPY_MAX_DIMS];
	uint64_t count;			/* elements: the product of shape */
	size_t data_off;		/* where the float32 data starts in the file */
};

/*
 * Parse the header of a whole .npy file held in buf and check that exactly count * 4
 * bytes of data follow. -EINVAL with a message naming the problem in err (may be NULL):
 * bad magic, unknown version, truncated or malformed header, a dtype other than '<f4',
 * Fortran order, a bad shape, or a data size that does not match the shape.
 */
int nd_npy_parse(const void *buf, size_t len, struct nd_npy *npy, struct nd_error *err);

/* Read path whole and parse it; *datap (malloc()ed, free it) holds the file. */
int nd_npy_load(const char *path, struct nd_npy *npy, void **filep, struct nd_error *err);

/* Write count = product(shape) float32 values as a version 1.0 .npy file. */
int nd_npy_save(const char *path, const uint64_t *shape, unsigned int ndim,
		const float *data, struct nd_error *err);

#endif
