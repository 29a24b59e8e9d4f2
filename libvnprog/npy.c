// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * .npy reader and writer. The header is a Python dict literal; this accepts exactly the
 * three keys NumPy writes ('descr', 'fortran_order', 'shape'), each once, in any order,
 * with optional spaces and a trailing comma, then spaces and a final newline, and
 * nothing else: a file we cannot read with certainty is refused, never guessed at.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nd_error.h"
#include "vnprog_int.h"

struct cur {
	const char *p, *end;
};

static void skip_sp(struct cur *c)
{
	while (c->p < c->end && *c->p == ' ')
		c->p++;
}

static int eat(struct cur *c, char ch)
{
	skip_sp(c);
	if (c->p < c->end && *c->p == ch) {
		c->p++;
		return 1;
	}
	return 0;
}

/* A quoted key or string: '...' without escapes, at most size - 1 characters. */
static int quoted(struct cur *c, char *out, size_t size)
{
	size_t n = 0;

	skip_sp(c);
	if (c->p >= c->end || *c->p != '\'')
		return -1;
	for (c->p++; c->p < c->end && *c->p != '\''; c->p++) {
		if (n + 1 >= size || *c->p == '\\' || *c->p == '\n')
			return -1;
		out[n++] = *c->p;
	}
	if (c->p >= c->end)
		return -1;
	c->p++;
	out[n] = '\0';
	return 0;
}

static int shape_tuple(struct cur *c, struct nd_npy *npy)
{
	uint64_t count = 1;

	if (!eat(c, '('))
		return -1;
	npy->ndim = 0;
	for (;;) {
		uint64_t v = 0;
		int digits = 0;

		if (eat(c, ')'))
			break;
		skip_sp(c);
		while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
			if (v > (UINT64_MAX - 9) / 10)
				return -1;
			v = v * 10 + (uint64_t)(*c->p++ - '0');
			digits++;
		}
		if (!digits || npy->ndim == ND_NPY_MAX_DIMS)
			return -1;
		if (v && count > UINT64_MAX / v)
			return -1;
		count *= v;
		npy->shape[npy->ndim++] = v;
		if (eat(c, ','))
			continue;
		if (!eat(c, ')'))
			return -1;
		/* a one-element tuple needs its comma: (3) is not a tuple */
		if (npy->ndim == 1)
			return -1;
		break;
	}
	npy->count = count;
	return 0;
}

int nd_npy_parse(const void *buf, size_t len, struct nd_npy *npy, struct nd_error *err)
{
	const unsigned char *b = buf;
	int seen_descr = 0, seen_fo = 0, seen_shape = 0;
	size_t pre, hlen;
	struct cur c;

	if (!buf || !npy)
		return nd_seterr(err, EINVAL, "npy: no buffer");
	memset(npy, 0, sizeof(*npy));
	if (len < 10 || memcmp(b, "\x93NUMPY", 6))
		return nd_seterr(err, EINVAL, "not a .npy file (no \\x93NUMPY magic)");
	if (b[6] == 1 && b[7] == 0) {
		pre = 10;
		hlen = b[8] | (size_t)b[9] << 8;
	} else if ((b[6] == 2 || b[6] == 3) && b[7] == 0) {
		pre = 12;
		if (len < pre)
			return nd_seterr(err, EINVAL, "truncated .npy header");
		hlen = b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
	} else {
		return nd_seterr(err, EINVAL, ".npy version %u.%u; this reads 1.0, 2.0 and 3.0",
				 b[6], b[7]);
	}
	if (hlen > len - pre)
		return nd_seterr(err, EINVAL, "truncated .npy header: %zu bytes announced, %zu "
				 "in the file", hlen, len - pre);
	if (!hlen || b[pre + hlen - 1] != '\n')
		return nd_seterr(err, EINVAL,
				 "malformed .npy header: it must end with a newline");
	c.p = (const char *)b + pre;
	c.end = c.p + hlen - 1;
	if (!eat(&c, '{'))
		return nd_seterr(err, EINVAL, "malformed .npy header: no '{'");
	for (;;) {
		char key[16], val[16];

		if (eat(&c, '}'))
			break;
		if (quoted(&c, key, sizeof(key)) || !eat(&c, ':'))
			return nd_seterr(err, EINVAL, "malformed .npy header: expected 'key':");
		if (!strcmp(key, "descr") && !seen_descr) {
			seen_descr = 1;
			if (quoted(&c, val, sizeof(val)))
				return nd_seterr(err, EINVAL, "malformed .npy header: bad descr");
			if (strcmp(val, "<f4"))
				return nd_seterr(err, EINVAL, ".npy dtype '%s': only little-endian "
						 "float32 ('<f4') is supported%s", val,
						 strcmp(val, "<f8") ? "" : " (numpy's default, "
						 "float64, as np.random.rand gives: save "
						 "x.astype(numpy.float32))");
		} else if (!strcmp(key, "fortran_order") && !seen_fo) {
			seen_fo = 1;
			skip_sp(&c);
			if ((size_t)(c.end - c.p) >= 5 && !memcmp(c.p, "False", 5))
				c.p += 5;
			else if ((size_t)(c.end - c.p) >= 4 && !memcmp(c.p, "True", 4))
				return nd_seterr(err, EINVAL, ".npy in Fortran order is not "
						 "supported (save a C-contiguous array)");
			else
				return nd_seterr(err, EINVAL,
						 "malformed .npy header: bad fortran_order");
		} else if (!strcmp(key, "shape") && !seen_shape) {
			seen_shape = 1;
			if (shape_tuple(&c, npy))
				return nd_seterr(err, EINVAL, "malformed .npy header: bad shape");
		} else {
			return nd_seterr(err, EINVAL, "malformed .npy header: unknown or repeated "
					 "key '%s'", key);
		}
		if (eat(&c, ','))
			continue;
		if (!eat(&c, '}'))
			return nd_seterr(err, EINVAL,
					 "malformed .npy header: expected ',' or '}'");
		break;
	}
	skip_sp(&c);
	if (c.p != c.end)
		return nd_seterr(err, EINVAL, "malformed .npy header: text after the dict");
	if (!seen_descr || !seen_fo || !seen_shape)
		return nd_seterr(err, EINVAL, "malformed .npy header: missing %s",
				 !seen_descr ? "descr" : !seen_fo ? "fortran_order" : "shape");
	npy->data_off = pre + hlen;
	if (npy->count > (UINT64_MAX - npy->data_off) / 4 ||
	    len - npy->data_off != npy->count * 4)
		return nd_seterr(err, EINVAL, ".npy data: %zu bytes, the shape needs %llu",
				 len - npy->data_off, (unsigned long long)npy->count * 4);
	return 0;
}

/* The whole file, at most 4 GiB. */
static int read_file(const char *path, void **bufp, size_t *sizep, struct nd_error *err)
{
	int ret = nd_read_file(path, 4ul << 30, bufp, sizep);

	if (ret == -EFBIG)
		return nd_seterr(err, EINVAL, "%.100s: larger than 4 GiB, the most a .npy input "
				 "may be", path);
	if (ret)
		nd_seterr(err, ret, "%.100s: %s", path, nd_strerror(ret));
	return ret;
}

int nd_npy_load(const char *path, struct nd_npy *npy, void **filep, struct nd_error *err)
{
	void *img = NULL;
	size_t size = 0;
	int ret;

	*filep = NULL;
	ret = read_file(path, &img, &size, err);
	if (ret)
		return ret;
	ret = nd_npy_parse(img, size, npy, err);
	if (ret) {
		if (err) {
			char m[ND_ERRMSG_MAX];

			memcpy(m, err->msg, sizeof(m));
			snprintf(err->msg, sizeof(err->msg), "%.100s: %.150s", path, m);
		}
		free(img);
		return ret;
	}
	*filep = img;
	return 0;
}

int nd_npy_write_header(FILE *f, const uint64_t *shape, unsigned int ndim)
{
	char h[256];
	size_t n, pad;
	unsigned int i;
	int ok;

	if (ndim > ND_NPY_MAX_DIMS)
		return -EINVAL;
	n = (size_t)snprintf(h, sizeof(h), "{'descr': '<f4', 'fortran_order': False, "
			     "'shape': (");
	for (i = 0; i < ndim; i++)
		n += (size_t)snprintf(h + n, sizeof(h) - n, "%s%llu%s", i ? ", " : "",
				      (unsigned long long)shape[i], ndim == 1 ? "," : "");
	n += (size_t)snprintf(h + n, sizeof(h) - n, "), }");
	/* magic + version + length + header, padded with spaces to 64 bytes, then '\n' */
	pad = (64 - (10 + n + 1) % 64) % 64;
	if (n + pad + 1 >= sizeof(h))
		return -EINVAL;
	memset(h + n, ' ', pad);
	n += pad;
	h[n++] = '\n';
	ok = fwrite("\x93NUMPY\x01\x00", 1, 8, f) == 8;
	ok = ok && fputc((int)(n & 0xff), f) != EOF && fputc((int)(n >> 8), f) != EOF;
	ok = ok && fwrite(h, 1, n, f) == n;
	return ok ? 0 : -EIO;
}

int nd_npy_save(const char *path, const uint64_t *shape, unsigned int ndim,
		const float *data, struct nd_error *err)
{
	uint64_t count = 1;
	struct nd_outfile o;
	char msg[4200];
	unsigned int i;
	int ok;

	if (ndim > ND_NPY_MAX_DIMS)
		return nd_seterr(err, EINVAL, "npy: %u dimensions; at most %d", ndim,
				 ND_NPY_MAX_DIMS);
	for (i = 0; i < ndim; i++)
		count *= shape[i];
	/* whole or not at all: a temporary file renamed into place (outfile.c) */
	ok = nd_out_open(&o, path, NULL, 0, ND_OUT_FORCE, msg, sizeof(msg));
	if (ok)
		return nd_seterr(err, -ok, "%s", msg);
	ok = nd_npy_write_header(o.f, shape, ndim);
	if (ok == -EINVAL) {
		nd_out_abort(&o);
		return nd_seterr(err, EINVAL, "npy: header too long");
	}
	if (ok || fwrite(data, 4, count, o.f) != count) {
		nd_out_abort(&o);
		return nd_seterr(err, EIO, "%s: write failed", path);
	}
	if (nd_out_commit(&o))
		return nd_seterr(err, EIO, "%s: write failed", path);
	return 0;
}
