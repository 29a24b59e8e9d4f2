// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Guest benchmark: executions per second of an empty program through vneuron.ko, by
 * ioctl (EXEC + WAIT) and by io_uring (libneurondev's nd_uring_*, one URING_CMD per
 * execution, one CQE at its end), with batches of 1, 8 and 64 in flight, in the same
 * run; the ratios io_uring / ioctl at each batch size; the median latency from
 * submission to completion for one execution at a time, and at each batch size the
 * median round's time per execution (robust to a loaded host's stalls of the vCPUs,
 * which the executions per second are not). The program is one VectorE
 * memset of a single element, so the figures are the submission, queue, worker wake-up
 * and completion costs. Prints `BENCH name=value unit` lines. Run by
 * tools/bench/guest-bench; argument: seconds per measurement (default 2).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>

#include "vnprog.h"

#define MAX_BATCH	64
#define MAX_SAMPLES	200000

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int exec1(int fd, uint32_t prog, uint64_t *id)
{
	struct vneuron_exec e = { .program = prog };

	if (ioctl(fd, VNEURON_IOCTL_EXEC, &e))
		return -errno;
	*id = e.exec_id;
	return 0;
}

static int wait1(int fd, uint64_t id)
{
	struct vneuron_wait w = { .exec_id = id, .timeout_ns = VNEURON_WAIT_FOREVER };

	if (ioctl(fd, VNEURON_IOCTL_WAIT, &w))
		return -errno;
	return w.status == VNEURON_EXEC_OK ? 0 : -EIO;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

/*
 * batch EXECs, then batch WAITs, for secs; executions per second. Each round's time
 * (batch executions) is kept in lat (*nlat of them).
 */
static double run_ioctl(int fd, uint32_t prog, int batch, double secs, uint64_t *lat,
			size_t *nlat)
{
	uint64_t ids[MAX_BATCH], t0 = now_ns(), end = t0 + (uint64_t)(secs * 1e9), t, n;
	int i;

	for (n = 0, t = t0; t < end; n += batch) {
		uint64_t s = t;

		for (i = 0; i < batch; i++)
			if (exec1(fd, prog, &ids[i]))
				return -1;
		for (i = 0; i < batch; i++)
			if (wait1(fd, ids[i]))
				return -1;
		t = now_ns();
		if (*nlat < MAX_SAMPLES)
			lat[(*nlat)++] = t - s;
	}
	return n / ((t - t0) / 1e9);
}

/* The same through an io_uring: submit batch, reap batch. */
static double run_uring(struct nd_uring *r, struct nd_program *p, int batch, double secs,
			uint64_t *lat, size_t *nlat)
{
	struct nd_uring_exec ex[MAX_BATCH] = { { 0 } };
	struct nd_uring_done done[MAX_BATCH];
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(secs * 1e9), t, n;
	int i, got, k;

	for (i = 0; i < batch; i++)
		ex[i].prog = p;
	for (n = 0, t = t0; t < end; n += batch) {
		uint64_t s = t;

		if (nd_uring_submit_exec(r, ex, batch) != batch)
			return -1;
		for (got = 0; got < batch; got += k) {
			k = nd_uring_reap(r, done, batch - got, batch - got);
			if (k <= 0)
				return -1;
			for (i = 0; i < k; i++)
				if (done[i].ret)
					return -1;
		}
		t = now_ns();
		if (*nlat < MAX_SAMPLES)
			lat[(*nlat)++] = t - s;
	}
	return n / ((t - t0) / 1e9);
}

int main(int argc, char **argv)
{
	static const int batches[] = { 1, 8, 64 };
	static uint64_t lat_ioctl[MAX_SAMPLES], lat_uring[MAX_SAMPLES];
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	uint64_t med_io[3], med_ur[3];
	double io[3], ur[3];
	size_t n_ioctl = 0, n_uring = 0, size;
	struct nd_builder *b;
	struct nd_program *p;
	struct nd_device *d;
	struct nd_uring *r;
	struct nd_error err;
	unsigned int i;
	void *img;
	int fd;

	if (nd_builder_new("empty", &b) ||
	    nd_memset(b, ND_VECTOR, nd_whole(nd_sbuf(b, "t", ND_FP32, 1, 1)), 0.0f) ||
	    nd_builder_finish(b, &img, &size)) {
		fprintf(stderr, "guest_exec: builder: %s\n", nd_builder_error(b));
		return 1;
	}
	nd_builder_free(b);
	if (nd_open(0, &d, &err)) {
		fprintf(stderr, "guest_exec: %s\n", err.msg);
		return 1;
	}
	if (nd_program_load(d, img, size, &p, NULL) || nd_uring_open(d, MAX_BATCH, &r)) {
		fprintf(stderr, "guest_exec: %s\n", nd_device_error(d));
		return 1;
	}
	fd = nd_device_fd(d);

	for (i = 0; i < 3; i++) {
		n_ioctl = 0;
		n_uring = 0;
		io[i] = run_ioctl(fd, nd_program_handle(p), batches[i], secs, lat_ioctl, &n_ioctl);
		ur[i] = run_uring(r, p, batches[i], secs, lat_uring, &n_uring);
		if (io[i] < 0 || ur[i] < 0) {
			fprintf(stderr, "guest_exec: an execution failed: %s\n",
				nd_device_error(d));
			return 1;
		}
		/* a batch's median time per execution: a busy host's stalls left out */
		med_io[i] = median(lat_ioctl, n_ioctl) / batches[i];
		med_ur[i] = median(lat_uring, n_uring) / batches[i];
	}
	/* ioctl names as before: one at a time, and 64 in flight */
	printf("BENCH exec_empty_ioctl_per_s=%.0f exec/s\n", io[0]);
	printf("BENCH exec_empty_ioctl_batch8_per_s=%.0f exec/s\n", io[1]);
	printf("BENCH exec_empty_ioctl_batch64_per_s=%.0f exec/s\n", io[2]);
	for (i = 0; i < 3; i++)
		printf("BENCH exec_empty_uring_b%d_per_s=%.0f exec/s\n", batches[i], ur[i]);
	for (i = 0; i < 3; i++)
		printf("BENCH exec_empty_uring_b%d_over_ioctl=%.2f x\n", batches[i],
		       ur[i] / io[i]);
	/* issue 17's goal: io_uring at batch 64 against the plain ioctl loop */
	printf("BENCH exec_empty_uring_b64_over_ioctl_b1=%.2f x\n", ur[2] / io[0]);
	printf("BENCH exec_empty_ioctl_latency_median=%llu ns\n", (unsigned long long)med_io[0]);
	printf("BENCH exec_empty_uring_b1_latency_median=%llu ns\n", (unsigned long long)med_ur[0]);
	for (i = 0; i < 3; i++)
		printf("BENCH exec_empty_median_b%d=%llu / %llu ns ioctl / uring\n", batches[i],
		       (unsigned long long)med_io[i], (unsigned long long)med_ur[i]);
	/* the goal's ratio from the medians: what the code costs, not the host's load */
	printf("BENCH exec_empty_uring_b64_over_ioctl_b1_median=%.2f x\n",
	       med_ur[2] ? (double)med_io[0] / med_ur[2] : 0.0);
	nd_uring_close(r);
	nd_program_unload(p);
	nd_close(d);
	free(img);
	return 0;
}
