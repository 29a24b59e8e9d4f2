// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Versions for every tool's --version: the tool, the libraries, the uapi the library was
 * built for and the loaded module's, in one place so all tools print the same lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "nd_internal.h"

#ifndef VNEURON_VERSION
#error "VNEURON_VERSION must be defined (the Makefile passes dkms.conf's PACKAGE_VERSION)"
#endif

const char *nd_version(void)
{
	return VNEURON_VERSION;
}

/* snprintf() that appends at *len and keeps counting past the end of buf. */
static void add(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(*len < size ? buf + *len : NULL, *len < size ? size - *len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n;
}

/* The first line of a file without its newline, or "" if it cannot be read. */
static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

int nd_version_string(char *buf, size_t size, const char *tool, const char *const *libs)
{
	struct vneuron_info info;
	char modver[64];
	size_t len = 0;
	int fd;

	if (!buf && size)
		return -EINVAL;
	if (size)
		buf[0] = '\0';
	if (tool)
		add(buf, size, &len, "%s %s\n", tool, VNEURON_VERSION);
	add(buf, size, &len, "libneurondev %s (uapi %d)\n", nd_version(), VNEURON_UAPI_VERSION);
	for (; libs && libs[0] && libs[1]; libs += 2)
		add(buf, size, &len, "%s %s\n", libs[0], libs[1]);

	/* Read-only: GET_INFO is the one call such a file may make, and it claims nothing. */
	read_line("/sys/module/vneuron/version", modver, sizeof(modver));
	fd = open("/dev/vneuron0", O_RDONLY | O_CLOEXEC);
	memset(&info, 0, sizeof(info));
	if (fd >= 0 && ioctl(fd, VNEURON_IOCTL_GET_INFO, &info) == 0) {
		add(buf, size, &len, "module vneuron %s (uapi %u, /dev/vneuron0)\n",
		    modver[0] ? modver : "unknown", info.uapi_version);
	} else if (fd >= 0) {
		add(buf, size, &len, "module vneuron %s (/dev/vneuron0: GET_INFO: %s)\n",
		    modver[0] ? modver : "unknown", nd_strerror(errno));
	} else if (modver[0]) {
		add(buf, size, &len, "module vneuron %s (/dev/vneuron0: %s)\n", modver,
		    nd_strerror(errno));
	} else {
		add(buf, size, &len, "module vneuron not loaded\n");
	}
	if (fd >= 0)
		close(fd);
	return len > (size_t)__INT_MAX__ ? -EOVERFLOW : (int)len;
}
