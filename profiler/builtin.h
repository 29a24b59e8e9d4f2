/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The commands of vneuron-profile (profiler/main.c dispatches them by name): each takes
 * its argv (argv[0] is the command's name) and returns the exit status docs/profiler.md
 * documents. Below them everything returns 0 or -errno; only a cmd_* function turns an
 * error into an exit status.
 */
#ifndef VNP_BUILTIN_H
#define VNP_BUILTIN_H

#include <stdint.h>
#include <stdio.h>

/* Exit statuses. */
#define VNP_EXIT_OK	0
#define VNP_EXIT_INPUT	1	/* bad input, or a failed execution */
#define VNP_EXIT_USAGE	2
#define VNP_EXIT_SYSTEM	3	/* device, memory or write error */
#define VNP_EXIT_REGRESSION 4	/* diff --fail-on: B slower than allowed */

int cmd_view(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* The manual page (vneuron-profile --help), whose body is view's (builtin-view.c). */
void vnp_usage(FILE *f);
extern const char vnp_view_manual[];

/*
 * A number option's value: decimal, 0x hex or 0 octal, at most max; with suffixes, K
 * (k, KiB) and M (MiB) multiply by 2^10 and 2^20. 0, or -EINVAL (not such a number) or
 * -ERANGE (above max).
 */
int vnp_parse_uint(const char *s, uint64_t max, int suffixes, uint64_t *v);

#endif /* VNP_BUILTIN_H */
