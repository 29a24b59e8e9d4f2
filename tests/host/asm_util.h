/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The assembler tests' shared part (test_asm_*.c): reading a file, assembling,
 * disassembling, and the round trip checks.
 */
#ifndef ASM_UTIL_H
#define ASM_UTIL_H

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vnprog.h"
#include "vn_isa.h"
#include "vn_program.h"
#include "vn_model.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

static inline char *read_text(const char *path, size_t *len)
{
	char alt[512];
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f) {
		/* Run from elsewhere than the top of the tree: find it next to this file. */
		const char *s = strrchr(__FILE__, '/');

		if (!s)
			return NULL;
		snprintf(alt, sizeof(alt), "%.*s/../../%s", (int)(s - __FILE__), __FILE__, path);
		f = fopen(alt, "r");
		if (!f)
			return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

static inline int as(const char *text, const char *file, void **img, size_t *size,
	      struct nd_asm_diag *d)
{
	return nd_asm(text, strlen(text), file, 0, img, size, d, NULL);
}

/* The disassembly of an image as a string. */
static inline char *dis(const void *img, size_t size, int *exact)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct nd_error err;
	int ret;

	if (!f)
		return NULL;
	ret = nd_dis(img, size, 0, f, exact, &err);
	fclose(f);
	if (ret) {
		fprintf(stderr, "# nd_dis: %s\n", err.msg);
		free(buf);
		return NULL;
	}
	return buf;
}

/* dis then as: the same bytes; and the text is a fixed point. */
static inline void round_trip(struct __test_metadata *_metadata, const void *img, size_t size)
{
	struct nd_asm_diag d;
	char *text, *text2;
	void *img2;
	size_t size2;
	int exact = 0;

	text = dis(img, size, &exact);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(1, exact);
	ASSERT_EQ(0, as(text, "<dis>", &img2, &size2, &d))
		TH_LOG("%u:%u: %s", d.line, d.col, d.msg);
	ASSERT_EQ(size, size2);
	EXPECT_EQ(0, memcmp(img, img2, size));
	text2 = dis(img2, size2, NULL);
	ASSERT_NE(NULL, text2);
	EXPECT_STREQ(text, text2);
	free(text);
	free(text2);
	free(img2);
}

static inline void file_round_trip(struct __test_metadata *_metadata, const char *path)
{
	struct nd_asm_diag d;
	size_t len, size;
	char *text;
	void *img;

	text = read_text(path, &len);
	ASSERT_NE(NULL, text) TH_LOG("cannot read %s", path);
	ASSERT_EQ(0, nd_asm(text, len, path, 0, &img, &size, &d, NULL))
		TH_LOG("%s:%u:%u: %s", path, d.line, d.col, d.msg);
	EXPECT_EQ(0, vn_program_check(img, size, NULL));
	round_trip(_metadata, img, size);
	free(img);
	free(text);
}

#endif /* ASM_UTIL_H */
