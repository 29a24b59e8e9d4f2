// SPDX-License-Identifier: GPL-2.0 OR MIT
/* nd_read_file(): the one whole-file reader of the library and the tools. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "vnprog.h"

FIXTURE(file) {
	char path[64];
};

FIXTURE_SETUP(file)
{
	int fd;

	strcpy(self->path, "/tmp/vn_test_file_XXXXXX");
	fd = mkstemp(self->path);
	ASSERT_LE(0, fd);
	close(fd);
}

FIXTURE_TEARDOWN(file)
{
	unlink(self->path);
}

static void put(const char *path, size_t n)
{
	FILE *f = fopen(path, "wb");
	size_t i;

	for (i = 0; i < n; i++)
		fputc((int)(i * 7 % 251), f);
	fclose(f);
}

TEST_F(file, whole_file_across_growth)
{
	size_t n = 300000, len = 0, i;
	unsigned char *buf = NULL;

	put(self->path, n);
	ASSERT_EQ(0, nd_read_file(self->path, n, (void **)&buf, &len));
	ASSERT_EQ(n, len);
	for (i = 0; i < n; i++)
		ASSERT_EQ((unsigned char)(i * 7 % 251), buf[i]);
	free(buf);
}

TEST_F(file, empty_file)
{
	void *buf = NULL;
	size_t len = 1;

	put(self->path, 0);
	ASSERT_EQ(0, nd_read_file(self->path, 10, &buf, &len));
	ASSERT_EQ((size_t)0, len);
	free(buf);
}

TEST_F(file, one_byte_over_the_limit)
{
	void *buf = NULL;
	size_t len = 0;

	put(self->path, 4097);
	ASSERT_EQ(-EFBIG, nd_read_file(self->path, 4096, &buf, &len));
	ASSERT_EQ(NULL, buf);
	put(self->path, 4096);
	ASSERT_EQ(0, nd_read_file(self->path, 4096, &buf, &len));
	ASSERT_EQ((size_t)4096, len);
	free(buf);
}

TEST(missing_file)
{
	void *buf = NULL;
	size_t len = 0;

	ASSERT_EQ(-ENOENT, nd_read_file("/nonexistent/vneuron", 10, &buf, &len));
	ASSERT_EQ(-EISDIR, nd_read_file("/", 10, &buf, &len));
}

TEST_HARNESS_MAIN
