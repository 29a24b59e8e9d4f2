// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * nd_range_push() + nd_range_pop() (docs/libneurondev.md, "Application ranges"): what a
 * pair costs an application without a profiler (a thread-local counter and one branch)
 * and under `vneuron-profile capture -- app` (a write() of the push and its name, one of
 * the pop, to the API log; here a file in /tmp). Each process decides once whether it
 * logs, so the profiled figure comes from a child with VNEURON_PROFILE_API set. Best of
 * a few runs, wall time per pair.
 *
 *   BENCH nd_range_push_pop_ns=X ns/pair            (no profiler)
 *   BENCH nd_range_push_pop_profiled_ns=Y ns/pair   (API log on)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "neurondev.h"

#define RUNS	5

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double best_pair_ns(unsigned int n)
{
	double best = 1e30, t;
	unsigned int r, i;

	for (r = 0; r < RUNS; r++) {
		t = now_ns();
		for (i = 0; i < n; i++) {
			if (nd_range_push("layer fc1") < 0 || nd_range_pop() < 0)
				exit(1);
		}
		t = (now_ns() - t) / n;
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	char path[] = "/tmp/bench_ranges.XXXXXX";
	int fd, status;
	pid_t pid;

	if (argc > 1) {
		printf("BENCH nd_range_push_pop_profiled_ns=%.0f ns/pair\n",
		       best_pair_ns(100u * 1000));
		return 0;
	}
	unsetenv("VNEURON_PROFILE_API");
	printf("BENCH nd_range_push_pop_ns=%.2f ns/pair\n", best_pair_ns(10u * 1000 * 1000));
	fflush(stdout);
	fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		/* a new process: its first range call opens the log */
		char *args[] = { "bench_ranges", "--profiled", NULL };

		setenv("VNEURON_PROFILE_API", path, 1);
		execv("/proc/self/exe", args);
		_exit(1);
	}
	waitpid(pid, &status, 0);
	unlink(path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
