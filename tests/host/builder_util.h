/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The builder tests' shared part (test_builder_*.c): the harness and two shapes.
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

#endif /* BUILDER_UTIL_H */
