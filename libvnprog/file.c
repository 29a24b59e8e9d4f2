// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Files: a whole input file (or standard input), and .vnef images read and written. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vnprog_int.h"

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

int nd_vnef_write(const char *path, const void *image, size_t size, struct nd_error *err)
{
	char msg[sizeof(err->msg)];
	int ret;

	if (!path || !*path || !image || !size)
		return nd_seterr(err, EINVAL, "nd_vnef_write: no path or no image");
	/* a temporary file renamed into place: a reader never sees half an image */
	ret = nd_out_write(path, image, size, ND_OUT_FORCE, msg, sizeof(msg));
	return ret ? nd_seterr(err, -ret, "%s", msg) : 0;
}

int nd_vnef_read(const char *path, void **imagep, size_t *sizep, struct nd_error *err)
{
	struct stat st;
	size_t len = 0;
	void *buf;
	int ret;

	if (!path || !imagep || !sizep)
		return nd_seterr(err, EINVAL, "nd_vnef_read: bad arguments");
	*imagep = NULL;
	*sizep = 0;
	if (stat(path, &st))
		return nd_seterr(err, errno, "%s: %s", path, nd_strerror(errno));
	if (!S_ISREG(st.st_mode))
		return nd_seterr(err, EINVAL, "%s: not a regular file", path);
	ret = nd_read_file(path, VNEF_MAX_IMAGE_BYTES, &buf, &len);
	if (ret == -EFBIG || (!ret && len < sizeof(struct vnef_header))) {
		if (!ret)
			free(buf);
		return nd_seterr(err, EINVAL, "%s: %lld bytes is not the size of a .vnef image "
				 "(%zu..%u)", path, ret ? (long long)st.st_size : (long long)len,
				 sizeof(struct vnef_header), VNEF_MAX_IMAGE_BYTES);
	}
	if (ret)
		return nd_seterr(err, ret, "%s: %s", path, nd_strerror(ret));
	if (((const struct vnef_header *)buf)->magic != VNEF_MAGIC) {
		free(buf);
		return nd_seterr(err, EINVAL, "%s: not a .vnef image (bad magic)", path);
	}
	*imagep = buf;
	*sizep = len;
	return 0;
}
