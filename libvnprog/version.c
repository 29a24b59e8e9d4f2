// SPDX-License-Identifier: GPL-2.0 OR MIT
/* libvnprog's version and the --version text of the tools built on it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "vnprog.h"

#ifndef VNEURON_VERSION
#error "VNEURON_VERSION must be defined (the Makefile passes dkms.conf's PACKAGE_VERSION)"
#endif

const char *nd_vnprog_version(void)
{
	return VNEURON_VERSION;
}

int nd_tool_version(FILE *out, const char *tool)
{
	const char *libs[] = { "libvnprog", nd_vnprog_version(), NULL };
	char small[512], *buf = small;
	int n, ret = 0;

	n = nd_version_string(small, sizeof(small), tool, libs);
	if (n < 0)
		return n;
	if ((size_t)n >= sizeof(small)) {
		buf = malloc((size_t)n + 1);
		if (!buf)
			return -ENOMEM;
		nd_version_string(buf, (size_t)n + 1, tool, libs);
	}
	if (fputs(buf, out) == EOF || fflush(out))
		ret = -EIO;
	if (buf != small)
		free(buf);
	return ret;
}
