// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: the .vnef validator (core/program.c) on arbitrary bytes, mutated
 * with knowledge of the format (vnef_mutator.h) so its arithmetic sees boundary values.
 */
#include <stddef.h>
#include <stdint.h>
#include "vn_program.h"
#define VNM_LIBFUZZER
#include "vnef_mutator.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vn_prog_error err;
	struct vn_program *p;

	if (vn_program_load(data, size, &p, &err) == 0) {
		/* A valid program must have consistent tables. */
		if (!p->total_entries || p->tensor_count > VNEF_MAX_TENSORS)
			__builtin_trap();
		vn_program_put(p);
	} else if (err.check == VNEF_CHK_OK || err.check >= VNEF_CHK_NR || !err.msg) {
		__builtin_trap();
	}
	return 0;
}
