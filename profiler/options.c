// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The commands' number options (builtin.h): in the profiler library, so that
 * vneuron-profile and vneuron-profile-mpi (which runs capture without main.c) share it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"

int vnp_parse_uint(const char *s, uint64_t max, int suffixes, uint64_t *v)
{
	unsigned long long x, m = 1;
	char *end;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	if (suffixes && *end) {
		if (!strcmp(end, "K") || !strcmp(end, "k") || !strcmp(end, "KiB"))
			m = 1ull << 10;
		else if (!strcmp(end, "M") || !strcmp(end, "MiB"))
			m = 1ull << 20;
		else if (!strcmp(end, "G") || !strcmp(end, "GiB"))
			m = 1ull << 30;
		else
			return -EINVAL;
		end += strlen(end);
	}
	if (*end)
		return -EINVAL;
	if (x > max / m)
		return -ERANGE;
	*v = x * m;
	return 0;
}
