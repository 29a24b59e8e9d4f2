// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What the commands share (builtin.h): the library's messages printed under the
 * command's name, and number options. Apart from main.c, so that vneuron-profile-mpi
 * (which runs capture without main.c) has them too.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "vnprog.h"

static const char *prefix = "vneuron-profile: ";

static void print(enum vnprofile_level level, const char *msg)
{
	fprintf(stderr, "%s%s\n", prefix, msg);
}

void vnp_cli_messages(const char *name)
{
	prefix = name;
	vnprofile_set_print(print);
}

void vnp_cli_did_you_mean(const struct option *lo, int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : NULL, *name;
	unsigned int best = 3, e;
	const char *pick = NULL;
	size_t n;

	if (!arg || strncmp(arg, "--", 2))
		return;
	name = arg + 2;
	n = strcspn(name, "=");
	for (; lo->name; lo++) {
		/* "--fromat": "--output-format", by its last word too */
		const char *last = strrchr(lo->name, '-');
		unsigned int e2 = last ? nd_edits(name, n, last + 1, strlen(last + 1)) : 99;

		e = nd_edits(name, n, lo->name, strlen(lo->name));
		e = e ? e : 99;
		e = e2 < e ? e2 : e;
		if (e < best) {
			best = e;
			pick = lo->name;
		}
	}
	if (pick)
		fprintf(stderr, "%sdid you mean '--%s'?\n", prefix, pick);
}

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	if (!caught)
		caught = sig;
}

void vnp_catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART }, old;
	static const int sigs[] = { SIGINT, SIGTERM };
	unsigned int i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		/* an ignored signal stays ignored (nohup, a shell's background job) */
		if (!sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
}

int vnp_signalled(void)
{
	return caught;
}

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

const char *vnp_cli_size(double bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB" };
	unsigned int u = 0;

	while (u < 3 && bytes >= 1024) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, u ? (u < 3 ? "%.1f %s" : "%.2f %s") : "%.0f %s", bytes, unit[u]);
	return buf;
}
