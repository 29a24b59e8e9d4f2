// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The .npy reader and writer (libvnprog/npy.c): round trip and malformed files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "vnprog.h"

/* A version 1.0 file with header text hdr (newline added) and nbytes of data. */
static size_t make(unsigned char *buf, const char *hdr, size_t nbytes)
{
	size_t h = strlen(hdr) + 1;

	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	buf[8] = (unsigned char)(h & 0xff);
	buf[9] = (unsigned char)(h >> 8);
	memcpy(buf + 10, hdr, h - 1);
	buf[10 + h - 1] = '\n';
	memset(buf + 10 + h, 0, nbytes);
	return 10 + h + nbytes;
}

TEST(round_trip)
{
	const uint64_t shape[] = { 3, 5 }, one[] = { 7 };
	char path[] = "/tmp/vn_npy_XXXXXX";
	float data[15], *got;
	struct nd_error err = { 0 };
	struct nd_npy npy;
	void *file;
	int fd, i;

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	close(fd);
	for (i = 0; i < 15; i++)
		data[i] = (float)i * 0.25f - 1.0f;
	ASSERT_EQ(0, nd_npy_save(path, shape, 2, data, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, nd_npy_load(path, &npy, &file, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(2u, npy.ndim);
	EXPECT_EQ(3u, npy.shape[0]);
	EXPECT_EQ(5u, npy.shape[1]);
	EXPECT_EQ(15u, npy.count);
	/* NumPy aligns the data to 64 bytes */
	EXPECT_EQ(0u, npy.data_off % 64);
	got = (float *)((char *)file + npy.data_off);
	EXPECT_EQ(0, memcmp(got, data, sizeof(data)));
	EXPECT_NE(NULL, strstr((char *)file + 10, "'shape': (3, 5)"));
	free(file);

	ASSERT_EQ(0, nd_npy_save(path, one, 1, data, &err));
	ASSERT_EQ(0, nd_npy_load(path, &npy, &file, &err));
	EXPECT_EQ(1u, npy.ndim);
	EXPECT_EQ(7u, npy.count);
	EXPECT_NE(NULL, strstr((char *)file + 10, "'shape': (7,)"));
	free(file);
	unlink(path);

	EXPECT_EQ(-ENOENT, nd_npy_load("/nonexistent/x.npy", &npy, &file, &err));
	EXPECT_NE(NULL, strstr(err.msg, "/nonexistent/x.npy"));
}

TEST(header_forms_accepted)
{
	static unsigned char buf[4096];
	struct nd_npy npy;
	size_t n;

	n = make(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 24);
	ASSERT_EQ(0, nd_npy_parse(buf, n, &npy, NULL));
	EXPECT_EQ(6u, npy.count);
	/* keys in another order, no trailing comma, padding spaces */
	n = make(buf, "{'shape': (4,), 'fortran_order': False, 'descr': '<f4'}     ", 16);
	ASSERT_EQ(0, nd_npy_parse(buf, n, &npy, NULL));
	EXPECT_EQ(1u, npy.ndim);
	EXPECT_EQ(4u, npy.count);
	/* a scalar: shape () is one element */
	n = make(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 4);
	ASSERT_EQ(0, nd_npy_parse(buf, n, &npy, NULL));
	EXPECT_EQ(0u, npy.ndim);
	EXPECT_EQ(1u, npy.count);
	/* an empty array */
	n = make(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }", 0);
	ASSERT_EQ(0, nd_npy_parse(buf, n, &npy, NULL));
	EXPECT_EQ(0u, npy.count);
	/* version 2.0: a 4-byte header length */
	n = make(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 4);
	memmove(buf + 12, buf + 10, n - 10);
	buf[6] = 2;
	buf[8] = (unsigned char)(n - 10 - 4);
	buf[9] = buf[10] = buf[11] = 0;
	ASSERT_EQ(0, nd_npy_parse(buf, n + 2, &npy, NULL));
	EXPECT_EQ(1u, npy.count);
}

struct bad_case {
	const char *hdr;
	size_t data;
	const char *msg;
};

TEST(malformed_headers_refused)
{
	static const struct bad_case cases[] = {
		{ "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", 16,
		  "'<f8': only little-endian float32 ('<f4') is supported (numpy's default, "
		  "float64, as np.random.rand gives: save x.astype(numpy.float32))" },
		{ "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8, "'>f4'" },
		{ "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", 8, "Fortran" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", 8, "shape" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (2,-1), }", 8, "shape" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (a,), }", 8, "shape" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (2,3,), }", 8,
		  "needs 24" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 9, "needs 8" },
		{ "{'descr': '<f4', 'fortran_order': False, }", 8, "missing shape" },
		{ "{'descr': '<f4', 'shape': (2,), }", 8, "missing fortran_order" },
		{ "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", 8,
		  "repeated" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", 8,
		  "unknown" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", 8, "after" },
		{ "'descr': '<f4', 'fortran_order': False, 'shape': (2,)", 8, "'{'" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': (2,) ", 8, "'}'" },
		{ "{'descr: '<f4', 'fortran_order': False, 'shape': (2,)}", 8, "malformed" },
		{ "{'descr': '<f4', 'fortran_order': Fals, 'shape': (2,)}", 8, "fortran_order" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': "
		  "(4294967296, 4294967296, 4294967296,)}", 8, "shape" },
		{ "{'descr': '<f4', 'fortran_order': False, 'shape': "
		  "(1,1,1,1,1,1,1,1,1,)}", 4, "shape" },
	};
	static unsigned char buf[4096];
	struct nd_error err;
	struct nd_npy npy;
	unsigned int i;
	size_t n;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&err, 0, sizeof(err));
		n = make(buf, cases[i].hdr, cases[i].data);
		EXPECT_EQ(-EINVAL, nd_npy_parse(buf, n, &npy, &err)) TH_LOG("case %u", i);
		EXPECT_NE(NULL, strstr(err.msg, cases[i].msg))
			TH_LOG("case %u: '%s' lacks '%s'", i, err.msg, cases[i].msg);
	}
}

TEST(bad_preamble_refused)
{
	static unsigned char buf[256];
	struct nd_error err = { 0 };
	struct nd_npy npy;
	size_t n;

	n = make(buf, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 4);
	EXPECT_EQ(-EINVAL, nd_npy_parse(buf, 5, &npy, &err));
	EXPECT_NE(NULL, strstr(err.msg, "magic"));
	buf[0] = 'X';
	EXPECT_EQ(-EINVAL, nd_npy_parse(buf, n, &npy, &err));
	EXPECT_NE(NULL, strstr(err.msg, "magic"));
	buf[0] = 0x93;
	buf[6] = 4;
	EXPECT_EQ(-EINVAL, nd_npy_parse(buf, n, &npy, &err));
	EXPECT_NE(NULL, strstr(err.msg, "version 4.0"));
	buf[6] = 1;
	buf[8] = 0xff;
	EXPECT_EQ(-EINVAL, nd_npy_parse(buf, n, &npy, &err));
	EXPECT_NE(NULL, strstr(err.msg, "truncated"));
	buf[8] = (unsigned char)(n - 10 - 4 - 1);
	EXPECT_EQ(-EINVAL, nd_npy_parse(buf, n, &npy, &err));
	EXPECT_NE(NULL, strstr(err.msg, "newline"));
	EXPECT_EQ(-EINVAL, nd_npy_parse(NULL, 0, &npy, &err));
}

TEST_HARNESS_MAIN
