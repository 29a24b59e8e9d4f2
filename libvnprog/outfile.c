// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Output files that never lose what the user has: an output is never one of the inputs
 * (compared by device and inode), an existing file is replaced only when asked, and the
 * data goes to a temporary file in the same directory, renamed into place after fsync()
 * only when it is complete (vnprog.h, "Files").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vnprog_int.h"

static int say(char *msg, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (msg && len) {
		va_start(ap, fmt);
		vsnprintf(msg, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

int nd_out_check(const char *path, const char *const *inputs, unsigned int n,
		 unsigned int flags, char *msg, size_t msglen)
{
	struct stat out, in;
	unsigned int i;

	if (!path || !strcmp(path, "-"))
		return 0;
	if (stat(path, &out))
		return 0;	/* nothing there yet (or unreachable: creating it will say) */
	for (i = 0; i < n; i++) {
		if (!inputs[i] || !strcmp(inputs[i], "-") || stat(inputs[i], &in))
			continue;
		if (in.st_dev == out.st_dev && in.st_ino == out.st_ino)
			return say(msg, msglen, -EINVAL, "%s: the output would overwrite the "
				   "input %s; give another output file", path, inputs[i]);
	}
	if (S_ISDIR(out.st_mode))
		return say(msg, msglen, -EISDIR, "%s: %s", path, strerror(EISDIR));
	/* a device or a pipe (/dev/null, /dev/stdout) is written, not replaced */
	if (!S_ISREG(out.st_mode))
		return 0;
	if (!(flags & ND_OUT_FORCE))
		return say(msg, msglen, -EEXIST, "%s exists; use --force-overwrite to "
			   "replace it", path);
	return 0;
}

int nd_out_open(struct nd_outfile *o, const char *path, const char *const *inputs,
		unsigned int n, unsigned int flags, char *msg, size_t msglen)
{
	struct stat st;
	mode_t mask;
	size_t len;
	int ret, fd;

	memset(o, 0, sizeof(*o));
	o->flags = flags;
	if (!path || !*path)
		return say(msg, msglen, -EINVAL, "no output file name");
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	ret = nd_out_check(path, inputs, n, flags, msg, msglen);
	if (ret)
		return ret;
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		o->f = fopen(path, "wb");
		if (!o->f) {
			ret = -errno;
			return say(msg, msglen, ret, "%s: %s", path, strerror(-ret));
		}
		return 0;
	}
	len = strlen(path);
	o->path = strdup(path);
	o->tmp = malloc(len + sizeof(".tmpXXXXXX"));
	if (!o->path || !o->tmp) {
		nd_out_abort(o);
		return say(msg, msglen, -ENOMEM, "out of memory");
	}
	memcpy(o->tmp, path, len);
	memcpy(o->tmp + len, ".tmpXXXXXX", sizeof(".tmpXXXXXX"));
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		ret = -errno;
		free(o->tmp);
		o->tmp = NULL;
		nd_out_abort(o);
		return say(msg, msglen, ret, "%s: cannot create: %s", path, strerror(-ret));
	}
	/* the mode a new file would get, or the replaced file's */
	if (stat(path, &st)) {
		mask = umask(0);
		umask(mask);
		st.st_mode = 0666 & ~mask;
	}
	/* on failure mkstemp's 0600 stays: safe, merely stricter */
	fchmod(fd, st.st_mode & 07777);
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		ret = -errno;
		close(fd);
		nd_out_abort(o);
		return say(msg, msglen, ret, "%s: %s", path, strerror(-ret));
	}
	return 0;
}

/*
 * tmp to path, never replacing a file there unless ND_OUT_FORCE: one created since
 * nd_out_check() (by another program, or a second run) is someone's data. renameat2()'s
 * RENAME_NOREPLACE does it in one step; where the file system or kernel lacks it,
 * link() (which never replaces) and unlink() do. 0 or -errno (-EEXIST: it is there).
 */
static int place(const struct nd_outfile *o)
{
	if (o->flags & ND_OUT_FORCE)
		return rename(o->tmp, o->path) ? -errno : 0;
	if (!(o->flags & ND_OUT_LINK)) {
		if (!renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_NOREPLACE))
			return 0;
		if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
			return -errno;
	}
	if (link(o->tmp, o->path))
		return -errno;
	unlink(o->tmp);
	return 0;
}

int nd_out_commit(struct nd_outfile *o)
{
	int ret = 0;

	if (!o->f)
		return -EINVAL;
	if (!o->tmp) {
		/* standard output, or a device or pipe written directly */
		ret = fflush(o->f) ? -(errno ?: EIO) : 0;
		if (o->f != stdout && fclose(o->f) && !ret)
			ret = -(errno ?: EIO);
		o->f = NULL;
		return ret;
	}
	if (fflush(o->f) || fsync(fileno(o->f)))
		ret = -(errno ?: EIO);
	if (fclose(o->f) && !ret)
		ret = -(errno ?: EIO);
	o->f = NULL;
	if (!ret)
		ret = place(o);
	if (ret == -EEXIST) {
		/* keep what was written, under its temporary name, for nd_out_strerror() */
		o->kept = o->tmp;
		o->tmp = NULL;
	}
	if (ret) {
		nd_out_abort(o);
		return ret;
	}
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return 0;
}

const char *nd_out_strerror(const struct nd_outfile *o, int ret, char *buf, size_t len)
{
	if (ret == -EEXIST && o->kept)
		snprintf(buf, len, "%s was created by someone else while this output was "
			 "written; it was kept, and this output is in %s (use --force-overwrite "
			 "to replace such a file)", o->path ? o->path : "the output", o->kept);
	else
		snprintf(buf, len, "%s: %s", o->path ? o->path : "the output",
			 strerror(ret < 0 ? -ret : ret));
	return buf;
}

int nd_out_write(const char *path, const void *data, size_t size, unsigned int flags,
		 char *msg, size_t msglen)
{
	struct nd_outfile o;
	int ret = nd_out_open(&o, path, NULL, 0, flags, msg, msglen);

	if (ret)
		return ret;
	if (size && fwrite(data, 1, size, o.f) != size) {
		ret = -(errno ?: EIO);
		say(msg, msglen, ret, "%s: write failed: %s", path, strerror(-ret));
		nd_out_abort(&o);
		return ret;
	}
	ret = nd_out_commit(&o);
	if (ret)
		nd_out_strerror(&o, ret, msg, msglen);
	nd_out_release(&o);
	return ret;
}

void nd_out_release(struct nd_outfile *o)
{
	free(o->kept);
	free(o->path);
	o->kept = o->path = NULL;
}

void nd_out_abort(struct nd_outfile *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	o->f = NULL;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	/* after commit's -EEXIST the path and the kept name stay for nd_out_strerror() */
	if (!o->kept) {
		free(o->path);
		o->path = NULL;
	}
}
