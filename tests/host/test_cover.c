// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * nd_program_writes_all() (libvnprog/cover.c): 1 only when the DMA descriptors of a
 * program certainly write every byte of a tensor in an OK execution (Python's
 * Program.run() then leaves that output's new array unzeroed), 0 for gaps, per-instance
 * slices (pid_stride), tensors written by nobody, inputs and bad indices. The Python
 * side (the zeros a program leaves): tests/python/test_program.py.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog.h"
#include "vn_program.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#define HEAD								\
	".program \"cover\"\n"						\
	".tensor x input fp32 [128, 64]\n"				\
	".tensor z output fp32 [128, 64]\n"				\
	".queue 0\n"							\
	"\tdma sbuf[0; 0, 1]@0x0, x@0x0[0, 256], 1 x 128 x 256 signal s4\n"

/* Whether tensor i of the program HEAD + body is written whole; -1 if it is invalid. */
static int writes_all(const char *body, uint32_t i)
{
	char text[4096];
	struct vn_program *vp;
	size_t size;
	void *img;
	int ret;

	snprintf(text, sizeof(text), "%s%s", HEAD, body);
	if (nd_asm(text, strlen(text), "cover.vasm", 0, &img, &size, NULL, stderr))
		return -1;
	ret = vn_program_load_any(img, size, &vp, NULL);
	free(img);
	if (ret)
		return -1;
	ret = nd_program_writes_all(vp, i);
	vn_program_put(vp);
	return ret;
}

TEST(one_store_of_every_row)
{
	EXPECT_EQ(1, writes_all(".queue 1\n\tdma z@0x0[0, 256], sbuf[0; 0, 1]@0x0, "
				"1 x 128 x 256 wait s4 >= 1\n", 1));
	EXPECT_EQ(0, writes_all(".queue 1\n\tdma z@0x0[0, 256], sbuf[0; 0, 1]@0x0, "
				"1 x 128 x 256 wait s4 >= 1\n", 0));	/* the input */
	EXPECT_EQ(0, writes_all(".queue 1\n\tdma z@0x0[0, 256], sbuf[0; 0, 1]@0x0, "
				"1 x 128 x 256 wait s4 >= 1\n", 2));	/* no such tensor */
}

TEST(halves_on_two_queues_and_overlaps)
{
	EXPECT_EQ(1, writes_all(".queue 1\n\tdma z@0x0[0, 256], sbuf[0; 0, 1]@0x0, "
				"1 x 64 x 256 wait s4 >= 1\n"
				".queue 2\n\tdma z@0x4000[0, 256], sbuf[64; 0, 1]@0x0, "
				"1 x 64 x 256\n", 1));
	EXPECT_EQ(1, writes_all(".queue 1\n\tdma z@0x0[0, 256], sbuf[0; 0, 1]@0x0, "
				"1 x 100 x 256 wait s4 >= 1\n"
				".queue 2\n\tdma z@0x3200[0, 256], sbuf[50; 0, 1]@0x0, "
				"1 x 78 x 256\n", 1));
}

TEST(gaps_are_not_written)
{
	/* half the rows; the last byte short; every other 128-byte half-row */
	EXPECT_EQ(0, writes_all(".queue 1\n\tdma z@0x0[0, 256], sbuf[0; 0, 1]@0x0, "
				"1 x 64 x 256 wait s4 >= 1\n", 1));
	EXPECT_EQ(0, writes_all(".queue 1\n\tdma z@0x0[0, 256], sbuf[0; 0, 1]@0x0, "
				"1 x 127 x 256 wait s4 >= 1\n"
				".queue 2\n\tdma z@0x7f00[0, 0], sbuf[0; 0, 1]@0x0, "
				"1 x 1 x 255\n", 1));
	EXPECT_EQ(0, writes_all(".queue 1\n\tdma z@0x0[0, 256], sbuf[0; 0, 1]@0x0, "
				"1 x 128 x 128 wait s4 >= 1\n", 1));
	/* the same with the other halves: chunks that are not contiguous, sorted */
	EXPECT_EQ(1, writes_all(".queue 1\n\tdma z@0x0[0, 256], sbuf[0; 0, 1]@0x0, "
				"1 x 128 x 128 wait s4 >= 1\n"
				".queue 2\n\tdma z@0x80[0, 256], sbuf[0; 0, 1]@0x80, "
				"1 x 128 x 128\n", 1));
	EXPECT_EQ(0, writes_all("", 1));	/* no store at all */
}

TEST(nothing_is_certain_per_program_id)
{
	EXPECT_EQ(0, writes_all(".queue 1\n\tdma z@0x0[0, 256] pid 16384, sbuf[0; 0, 1]@0x0, "
				"1 x 64 x 256 wait s4 >= 1\n", 1));
	EXPECT_EQ(0, nd_program_writes_all(NULL, 0));
}

TEST_HARNESS_MAIN
