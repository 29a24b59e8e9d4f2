// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: arbitrary bytes into the .npy reader (libvnprog/npy.c).
 *
 * No crash or out-of-bounds read; a refusal is -EINVAL with a message; an accepted file
 * has its data inside the buffer, exactly count float32 values, count the product of
 * the shape.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nd_error err = { 0 };
	struct nd_npy npy;
	uint64_t n = 1;
	unsigned int i;
	uint8_t *copy;
	int ret;

	/* an exact-size heap copy, so ASan sees any read past the end */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	ret = nd_npy_parse(copy, size, &npy, &err);
	if (ret) {
		if (ret != -EINVAL || !err.msg[0])
			abort();
	} else {
		if (npy.ndim > ND_NPY_MAX_DIMS)
			abort();
		for (i = 0; i < npy.ndim; i++)
			n *= npy.shape[i];
		if (n != npy.count || npy.data_off > size || size - npy.data_off != n * 4)
			abort();
	}
	free(copy);
	return 0;
}
