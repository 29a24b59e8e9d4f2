// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Reading a whole input file (or standard input), shared by the library and the tools. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "neurondev.h"

int nd_read_file(const char *path, size_t max, void **bufp, size_t *lenp)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 1 << 16, len = 0, n;
	char *buf = NULL, *q;
	int ret = 0;

	if (!f)
		return -errno;
	for (;;) {
		if (!buf || len == cap) {
			/* Grow one byte past max, so an over-long input is seen. */
			if (buf)
				cap = cap > max / 2 + 1 ? max + 1 : cap * 2;
			q = realloc(buf, cap);
			if (!q) {
				ret = -ENOMEM;
				break;
			}
			buf = q;
		}
		errno = 0;
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (len > max) {
			ret = -EFBIG;
			break;
		}
		if (!n) {
			if (ferror(f))
				ret = errno ? -errno : -EIO;
			break;
		}
	}
	if (f != stdin)
		fclose(f);
	if (ret) {
		free(buf);
		return ret;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}
