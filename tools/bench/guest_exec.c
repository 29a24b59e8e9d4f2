// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Guest benchmark: executions per second of an empty program through vneuron.ko's ioctl
 * path (EXEC + WAIT), one at a time and with 64 in flight. The program is one VectorE
 * memset of a single element, so the figure is the submission, queue, worker wake-up and
 * completion cost. Prints `BENCH name=value unit` lines. Run by tools/bench/guest-bench.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "neurondev.h"

#define BATCH	64

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0, t0, t;
	struct vneuron_program_load a = { 0 };
	struct nd_builder *b;
	uint64_t ids[BATCH], n;
	size_t size;
	void *img;
	int fd, i;

	if (nd_builder_new("empty", &b) ||
	    nd_memset(b, ND_VECTOR, nd_whole(nd_sbuf(b, "t", ND_FP32, 1, 1)), 0.0f) ||
	    nd_builder_finish(b, &img, &size)) {
		fprintf(stderr, "guest_exec: builder: %s\n", nd_builder_error(b));
		return 1;
	}
	nd_builder_free(b);
	fd = open("/dev/vneuron0", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("guest_exec: /dev/vneuron0");
		return 1;
	}
	a.image_ptr = (uintptr_t)img;
	a.image_size = size;
	if (ioctl(fd, VNEURON_IOCTL_PROGRAM_LOAD, &a)) {
		perror("guest_exec: PROGRAM_LOAD");
		return 1;
	}

	/* one at a time: the round trip */
	t0 = now_s();
	for (n = 0, t = t0; t - t0 < secs; n++) {
		if (exec1(fd, a.handle, &ids[0]) || wait1(fd, ids[0])) {
			fprintf(stderr, "guest_exec: execution failed\n");
			return 1;
		}
		if ((n & 15) == 15)
			t = now_s();
	}
	t = now_s();
	printf("BENCH exec_empty_ioctl_per_s=%.0f exec/s\n", n / (t - t0));

	/* BATCH in flight: the throughput of the queue */
	t0 = now_s();
	for (n = 0, t = t0; t - t0 < secs; n += BATCH, t = now_s()) {
		for (i = 0; i < BATCH; i++)
			if (exec1(fd, a.handle, &ids[i]))
				return 1;
		for (i = 0; i < BATCH; i++)
			if (wait1(fd, ids[i]))
				return 1;
	}
	printf("BENCH exec_empty_ioctl_batch64_per_s=%.0f exec/s\n", n / (t - t0));
	close(fd);
	free(img);
	return 0;
}
