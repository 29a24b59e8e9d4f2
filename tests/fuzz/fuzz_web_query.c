// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: arbitrary bytes as the query of the viewer server's GET /events
 * (profiler/output/web_lod.c, vnp_web_parse_window()).
 *
 * No crash or out-of-bounds read; a refusal is -EINVAL with a message; an accepted
 * query is made of the three parameters' names, digits, '=' and '&' only, names a core
 * of the profile and 0 <= t0 < t1 <= its length, and printed back parses the same.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../profiler/output/web_priv.h"

#define NCORES	4u
#define SPAN	1000000000000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vnp_web_win w, again;
	const char *why = NULL;
	char *q = malloc(size + 1), back[96];
	int ret;

	if (!q)
		return 0;
	memcpy(q, data, size);	/* an exact-size heap copy: ASan sees a read past its end */
	q[size] = 0;
	ret = vnp_web_parse_window(q, NCORES, SPAN, &w, &why);
	if (ret) {
		if (ret != -EINVAL || !why || !*why)
			abort();
	} else {
		if (w.core >= NCORES || w.t0 >= w.t1 || w.t1 > SPAN ||
		    strspn(q, "coret01=&23456789") != strlen(q))
			abort();
		snprintf(back, sizeof(back), "core=%u&t0=%llu&t1=%llu", w.core,
			 (unsigned long long)w.t0, (unsigned long long)w.t1);
		if (vnp_web_parse_window(back, NCORES, SPAN, &again, &why) ||
		    again.core != w.core || again.t0 != w.t0 || again.t1 != w.t1)
			abort();
	}
	free(q);
	return 0;
}
