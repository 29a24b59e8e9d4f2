// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The library's messages: one print function for the process, the last error per thread. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

static vnprofile_print_fn print_fn;
/* Long enough for the list of a profile's programs, truncated past it. */
static __thread char last_error[8192];

const char *vnprofile_version(void)
{
	return VNEURON_VERSION;
}

vnprofile_print_fn vnprofile_set_print(vnprofile_print_fn fn)
{
	return __atomic_exchange_n(&print_fn, fn, __ATOMIC_ACQ_REL);
}

const char *vnprofile_last_error(void)
{
	return last_error;
}

static void vlog(enum vnprofile_level level, int print, const char *fmt, va_list ap)
{
	vnprofile_print_fn fn = __atomic_load_n(&print_fn, __ATOMIC_ACQUIRE);
	char small[512], *msg = small;
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small)) {
		msg = malloc((size_t)n + 1);
		if (msg)
			vsnprintf(msg, (size_t)n + 1, fmt, aq);
		else
			msg = small;	/* truncated rather than lost */
	}
	va_end(aq);
	if (level == VNPROFILE_ERROR)
		snprintf(last_error, sizeof(last_error), "%s", msg);
	if (print) {
		if (fn)
			fn(level, msg);
		else
			fprintf(stderr, "vnprofile: %s\n", msg);
	}
	if (msg != small)
		free(msg);
}

void vnp_log(enum vnprofile_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(level, 1, fmt, ap);
	va_end(ap);
}

void vnp_set_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(VNPROFILE_ERROR, 0, fmt, ap);
	va_end(ap);
}
