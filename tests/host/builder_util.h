/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The builder tests' shared part (test_builder_*.c, test_cc_build.c): the harness, two
 * shapes, and an image finished and loaded by the core.
 */
#ifndef BUILDER_UTIL_H
#define BUILDER_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vnprog.h"
#include "vn_program.h"

/*
 * The 6.1 harness (and its FIXTURE macros) define functions without prototypes, compare
 * its int expectations with unsigned values, and expand ASSERT_* to a for loop.
 */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

static const uint64_t SHAPE_250x512[] = { 250, 512 };
static const uint64_t SHAPE_128x128[] = { 128, 128 };

/* Finish, validate with the core, and hand back the loaded program. */
static inline int finish_and_load(struct nd_builder *b, struct vn_program **pp,
				  void **imgp, size_t *sizep)
{
	struct vn_prog_error pe;
	int ret;

	ret = nd_builder_finish(b, imgp, sizep);
	if (ret) {
		fprintf(stderr, "finish: %s\n", nd_builder_error(b));
		return ret;
	}
	ret = vn_program_load(*imgp, *sizep, pp, &pe);
	if (ret)
		fprintf(stderr, "validator: %s: %s (section %d, entry %d)\n",
			vn_check_name(pe.check), pe.msg, (int)pe.section, (int)pe.index);
	return ret;
}

#endif /* BUILDER_UTIL_H */
