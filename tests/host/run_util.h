/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The host tests' way to run a command: its exit status and what it printed. */
#ifndef RUN_UTIL_H
#define RUN_UTIL_H

#include <stdio.h>
#include <sys/wait.h>

/*
 * Runs cmd through the shell, its stderr joined to its stdout; the output into out (at
 * most size - 1 bytes and a NUL; the rest is read and dropped, so the command never
 * dies of a closed pipe). Returns the exit status, or -1 if it did not run or exit.
 */
static inline int run_out(const char *cmd, char *out, size_t size)
{
	char full[4096];
	size_t n = 0;
	FILE *p;
	int st;

	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	p = popen(full, "r");
	if (!p)
		return -1;
	while (n + 1 < size && (st = fgetc(p)) != EOF)
		out[n++] = (char)st;
	while (fgetc(p) != EOF)
		;
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif /* RUN_UTIL_H */
