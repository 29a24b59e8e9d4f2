// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Guest benchmark of the telemetry family (kmod/genl.c): the event rate it sustains and
 * what watching costs. A subscriber thread drains events while empty executions run 64 at
 * a time through io_uring for a few seconds; the figures are the events produced per
 * second, the share delivered (the rest dropped and counted: the module paces each
 * subscriber to VNEURON_GENL_EVENT_BURST per VNEURON_GENL_EVENT_PERIOD_MS), and the
 * execution rate with and without a subscriber, in the same run. Then vneuron-top (batch
 * mode) and vneuron-monitor run for a few seconds each, beside that workload and on an
 * idle device, and their CPU time per second of monitoring is printed. Run by tools/bench/guest-bench; argument:
 * seconds per measurement (default 2).
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vnprog.h"

#define BATCH	64

struct drain {
	struct nd_telemetry *t;
	volatile int stop;
	uint64_t received;
	uint64_t dropped;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void *drain_events(void *arg)
{
	struct drain *d = arg;
	struct nd_tel_event ev;
	int r;

	while (!d->stop) {
		r = nd_telemetry_next_event(d->t, &ev, 100);
		if (r < 0)
			break;
		if (r > 0 && ev.type != VNEURON_EVENT_DROPPED)
			d->received++;
	}
	/* What is still queued in the socket. */
	while (nd_telemetry_next_event(d->t, &ev, 200) > 0)
		if (ev.type != VNEURON_EVENT_DROPPED)
			d->received++;
	d->dropped = nd_telemetry_dropped(d->t);
	return NULL;
}

/* Empty executions, BATCH in flight, for secs: executions per second. */
static double run(struct nd_uring *r, struct nd_program *p, double secs)
{
	struct nd_uring_exec ex[BATCH] = { { 0 } };
	struct nd_uring_done done[BATCH];
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(secs * 1e9), t, n;
	int i, got, k;

	for (i = 0; i < BATCH; i++)
		ex[i].prog = p;
	for (n = 0, t = t0; t < end; n += BATCH) {
		if (nd_uring_submit_exec(r, ex, BATCH) != BATCH)
			return -1;
		for (got = 0; got < BATCH; got += k) {
			k = nd_uring_reap(r, done, BATCH - got, BATCH - got);
			if (k <= 0)
				return -1;
		}
		t = now_ns();
	}
	return n / ((t - t0) / 1e9);
}

static double children_cpu_ms(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru))
		return -1;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

/*
 * A tool run for about secs beside the workload (r, p; NULL r: beside nothing, an idle
 * device): its CPU time in ms, or -1.
 */
static double tool_cpu(const char *const argv[], struct nd_uring *r, struct nd_program *p,
		       double secs)
{
	double before = children_cpu_ms();
	pid_t pid;
	int st;

	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || before < 0)
		return -1;
	if (r ? run(r, p, secs) < 0 : usleep((useconds_t)(secs * 1e6)) != 0)
		return -1;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return children_cpu_ms() - before;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	struct drain d = { 0 };
	struct nd_tel_device *dev = NULL;
	uint64_t produced0, produced1;
	double bare, watched, top_ms, mon_ms, top_idle, mon_idle;
	char top_path[4200], mon_path[4200], n_top[16], n_mon[16];
	struct nd_error err;
	struct nd_builder *b;
	struct nd_program *p;
	struct nd_device *nd;
	struct nd_uring *r;
	pthread_t thr;
	size_t size;
	void *img;
	char *slash;
	uint64_t t0, t1;

	if (nd_builder_new("empty", &b) ||
	    nd_memset(b, ND_VECTOR, nd_whole(nd_sbuf(b, "t", ND_FP32, 1, 1)), 0.0f) ||
	    nd_builder_finish(b, &img, &size)) {
		fprintf(stderr, "guest_telemetry: builder: %s\n", nd_builder_error(b));
		return 1;
	}
	nd_builder_free(b);
	if (nd_open(0, &nd, &err) || nd_telemetry_open(&d.t, &err)) {
		fprintf(stderr, "guest_telemetry: %s\n", err.msg);
		return 1;
	}
	if (nd_program_load(nd, img, size, &p, NULL) || nd_uring_open(nd, BATCH, &r)) {
		fprintf(stderr, "guest_telemetry: %s\n", nd_device_error(nd));
		return 1;
	}
	bare = run(r, p, secs);
	if (nd_telemetry_devices(d.t, 0, &dev) != 1 || nd_telemetry_subscribe(d.t)) {
		fprintf(stderr, "guest_telemetry: %s\n", nd_telemetry_error(d.t));
		return 1;
	}
	produced0 = dev->events_produced;
	free(dev);
	pthread_create(&thr, NULL, drain_events, &d);
	t0 = now_ns();
	watched = run(r, p, secs);
	t1 = now_ns();
	d.stop = 1;
	pthread_join(thr, NULL);
	if (nd_telemetry_devices(d.t, 0, &dev) != 1 || bare < 0 || watched < 0) {
		fprintf(stderr, "guest_telemetry: %s\n", nd_telemetry_error(d.t));
		return 1;
	}
	produced1 = dev->events_produced;
	free(dev);
	printf("BENCH genl_events_produced_per_s=%.0f events/s\n",
	       (produced1 - produced0) / ((t1 - t0) / 1e9));
	printf("BENCH genl_events_delivered_per_s=%.0f events/s\n",
	       d.received / ((t1 - t0) / 1e9));
	printf("BENCH genl_events_accounted=%.3f (received+dropped)/produced\n",
	       produced1 > produced0 ?
	       (double)(d.received + d.dropped) / (double)(produced1 - produced0) : 0.0);
	printf("BENCH genl_exec_rate_watched_over_bare=%.2f x\n", watched / bare);
	nd_telemetry_close(d.t);

	/* The tools live beside this binary's build: build/bin/ from build/rel/bench-guest/. */
	slash = strstr(argv[0], "/build/rel/bench-guest/");
	if (!slash) {
		fprintf(stderr, "guest_telemetry: run from build/rel/bench-guest/\n");
		return 1;
	}
	snprintf(top_path, sizeof(top_path), "%.*s/build/bin/vneuron-top",
		 (int)(slash - argv[0]), argv[0]);
	snprintf(mon_path, sizeof(mon_path), "%.*s/build/bin/vneuron-monitor",
		 (int)(slash - argv[0]), argv[0]);
	snprintf(n_top, sizeof(n_top), "%d", (int)(secs * 2));
	snprintf(n_mon, sizeof(n_mon), "%d", (int)(secs * 2));
	{
		const char *const top_argv[] = { top_path, "-b", n_top, "-d", "0.5", NULL };
		const char *const mon_argv[] = { mon_path, "-i", "0.5", "-n", n_mon, NULL };

		top_ms = tool_cpu(top_argv, r, p, secs);
		mon_ms = tool_cpu(mon_argv, r, p, secs);
		top_idle = tool_cpu(top_argv, NULL, NULL, secs);
		mon_idle = tool_cpu(mon_argv, NULL, NULL, secs);
	}
	if (top_ms < 0 || mon_ms < 0 || top_idle < 0 || mon_idle < 0) {
		fprintf(stderr, "guest_telemetry: a tool failed\n");
		return 1;
	}
	/*
	 * Per second of monitoring (about secs each): an idle device, and beside the flood of
	 * empty executions above, where each tool also receives every event (the monitor
	 * prints each as a JSON line).
	 */
	printf("BENCH vneuron_top_cpu_idle=%.1f ms/s\n", top_idle / secs);
	printf("BENCH vneuron_monitor_cpu_idle=%.1f ms/s\n", mon_idle / secs);
	printf("BENCH vneuron_top_cpu_event_flood=%.1f ms/s\n", top_ms / secs);
	printf("BENCH vneuron_monitor_cpu_event_flood=%.1f ms/s\n", mon_ms / secs);
	nd_uring_close(r);
	nd_program_unload(p);
	nd_close(nd);
	free(img);
	return 0;
}
