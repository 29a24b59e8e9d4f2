// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Small vneuron.ko traffic for tests/guest/modload.sh (a test helper, built into
 * build/rel/guest/vneuron-traffic, not a user tool): every ioctl, an mmap, a program
 * run, and checks. Exit status 0 when every check passed.
 *
 *   vneuron-traffic [DEV]                 one round on DEV (default /dev/vneuron0), with
 *                                         an execution on every core of the device
 *   vneuron-traffic --hold DEV            open DEV, map a buffer, print "held", and keep
 *                                         the map until stdin closes
 *   vneuron-traffic --enomem DEV BYTES    MEM_ALLOC of BYTES must fail with ENOMEM
 *   vneuron-traffic --limits DEV          with small per-file limits loaded: each one
 *                                         refuses the call that would pass it
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vnprog.h"
#include "vneuron_trace.h"

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "vneuron-traffic:%d: %s failed (%s)\n", __LINE__,	\
			#cond, strerror(errno));				\
		exit(1);							\
	}									\
} while (0)

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static struct vneuron_mem_alloc alloc(int fd, uint64_t size)
{
	struct vneuron_mem_alloc a = { .size = size };

	CHECK(xioctl(fd, VNEURON_IOCTL_MEM_ALLOC, &a) == 0);
	return a;
}

static void rw(int fd, int write, uint32_t h, void *buf, uint64_t size)
{
	struct vneuron_mem_rw r = {
		.handle = h, .size = size, .user_ptr = (uintptr_t)buf,
	};

	CHECK(xioctl(fd, write ? VNEURON_IOCTL_MEM_WRITE : VNEURON_IOCTL_MEM_READ, &r) == 0);
}

/* out = exp(in) over [128 x 64], loaded; its handle, or -errno. */
static int load_exp(int fd)
{
	struct vneuron_program_load l = { 0 };
	struct nd_builder *b;
	size_t size;
	void *img;
	int ret;

	CHECK(nd_builder_new("traffic", &b) == 0);
	CHECK(nd_kernel_exp(b, 128, 64, 0) == 0);
	CHECK(nd_builder_finish(b, &img, &size) == 0);
	nd_builder_free(b);
	l.image_ptr = (uintptr_t)img;
	l.image_size = size;
	ret = xioctl(fd, VNEURON_IOCTL_PROGRAM_LOAD, &l);
	free(img);
	return ret ? ret : (int)l.handle;
}

/* out = exp(in) over [128 x 64] on every core; out[0] must be exp(0) = 1. */
static void run_everywhere(int fd, uint32_t cores)
{
	struct vneuron_program_unload u = { 0 };
	struct vneuron_mem_alloc in = alloc(fd, 128 * 64 * 4), out = alloc(fd, 128 * 64 * 4);
	uint32_t h[2] = { in.handle, out.handle }, c;
	int prog = load_exp(fd);
	float y;

	CHECK(prog >= 0);
	for (c = 0; c < cores; c++) {
		struct vneuron_exec e = {
			.program = (uint32_t)prog, .core = c, .mem_handles_ptr = (uintptr_t)h,
			.mem_count = 2,
		};
		struct vneuron_wait w = { .timeout_ns = VNEURON_WAIT_FOREVER };

		y = 0;
		rw(fd, 1, out.handle, &y, 4);
		CHECK(xioctl(fd, VNEURON_IOCTL_EXEC, &e) == 0);
		w.exec_id = e.exec_id;
		CHECK(xioctl(fd, VNEURON_IOCTL_WAIT, &w) == 0);
		CHECK(w.status == VNEURON_EXEC_OK && w.core == c);
		rw(fd, 0, out.handle, &y, 4);
		CHECK(y == 1.0f);
	}
	u.handle = (uint32_t)prog;
	CHECK(xioctl(fd, VNEURON_IOCTL_PROGRAM_UNLOAD, &u) == 0);
}

static void one_round(const char *dev)
{
	struct vneuron_info info = { 0 };
	struct vneuron_mem_free f = { 0 };
	struct vneuron_reset r = { 0 };
	struct vneuron_mem_alloc a;
	unsigned char src[3 * 4096], dst[sizeof(src)];
	unsigned char *m;
	size_t i;
	int fd = open(dev, O_RDWR | O_CLOEXEC);

	CHECK(fd >= 0);
	CHECK(xioctl(fd, VNEURON_IOCTL_GET_INFO, &info) == 0);
	CHECK(info.uapi_version == VNEURON_UAPI_VERSION);
	CHECK(info.caps & VNEURON_CAP_EXEC);
	a = alloc(fd, sizeof(src));
	for (i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 131 + 7);
	rw(fd, 1, a.handle, src, sizeof(src));
	rw(fd, 0, a.handle, dst, sizeof(dst));
	CHECK(!memcmp(src, dst, sizeof(src)));
	m = mmap(NULL, sizeof(src), PROT_READ | PROT_WRITE, MAP_SHARED, fd, a.mmap_offset);
	CHECK(m != MAP_FAILED);
	CHECK(!memcmp(m, src, sizeof(src)));
	memcpy(m, "abcd", 4);
	rw(fd, 0, a.handle, dst, sizeof(dst));
	CHECK(!memcmp(dst, "abcd", 4));
	munmap(m, sizeof(src));
	f.handle = a.handle;
	CHECK(xioctl(fd, VNEURON_IOCTL_MEM_FREE, &f) == 0);
	run_everywhere(fd, info.core_count);
	CHECK(xioctl(fd, VNEURON_IOCTL_RESET, &r) == 0);
	close(fd);
}

static void enomem(const char *dev, uint64_t size)
{
	struct vneuron_mem_alloc a = { .size = size };
	int fd = open(dev, O_RDWR | O_CLOEXEC);

	CHECK(fd >= 0);
	CHECK(xioctl(fd, VNEURON_IOCTL_MEM_ALLOC, &a) == -ENOMEM);
	close(fd);
}


/*
 * Every per-file limit (module parameters, GET_INFO's limits) refuses the call that
 * would pass it: programs (ENOSPC), unreaped executions (EAGAIN), trace rings (ENOSPC).
 * Meant for small limits: modload.sh loads max_programs=2 max_execs=2 max_trace_mb=1.
 */
static void limits(const char *dev)
{
	struct vneuron_info info = { 0 };
	struct vneuron_mem_alloc in, out;
	uint32_t h[2], i;
	int fd = open(dev, O_RDWR | O_CLOEXEC), prog = 0;
	uint64_t ring;

	CHECK(fd >= 0);
	CHECK(xioctl(fd, VNEURON_IOCTL_GET_INFO, &info) == 0);
	CHECK(info.caps & VNEURON_CAP_LIMITS);
	CHECK(info.limits.max_programs <= 16 && info.limits.max_execs <= 16);
	for (i = 0; i < info.limits.max_programs; i++) {
		prog = load_exp(fd);
		CHECK(prog > 0);
	}
	CHECK(load_exp(fd) == -ENOSPC);
	in = alloc(fd, 128 * 64 * 4);
	out = alloc(fd, 128 * 64 * 4);
	h[0] = in.handle;
	h[1] = out.handle;
	for (i = 0; i <= info.limits.max_execs; i++) {
		struct vneuron_exec e = {
			.program = (uint32_t)prog, .mem_handles_ptr = (uintptr_t)h, .mem_count = 2,
		};

		CHECK(xioctl(fd, VNEURON_IOCTL_EXEC, &e) ==
		      (i < info.limits.max_execs ? 0 : -EAGAIN));
	}
	/* The smallest rings whose session (6 rings: engines, DMA, CC-core) passes the limit; half fit. */
	for (ring = VNEURON_TRACE_MIN_RING; 6 * ring <= info.limits.max_trace_bytes; ring *= 2)
		;
	CHECK(ring <= VNEURON_TRACE_MAX_RING);
	{
		struct vneuron_trace_start t = { .core = 0, .ring_size = ring };
		struct vneuron_trace_start half = { .core = 0, .ring_size = ring / 2 };
		struct vneuron_trace_start more = { .core = 1, .ring_size = ring / 2 };

		CHECK(xioctl(fd, VNEURON_IOCTL_TRACE_START, &t) == -ENOSPC);
		CHECK(xioctl(fd, VNEURON_IOCTL_TRACE_START, &half) == 0);
		if (info.core_count > 1)
			CHECK(xioctl(fd, VNEURON_IOCTL_TRACE_START, &more) == -ENOSPC);
	}
	close(fd);
}

static void hold(const char *dev)
{
	int fd = open(dev, O_RDWR | O_CLOEXEC);
	struct vneuron_mem_alloc a;
	char buf[64];
	char *m;

	CHECK(fd >= 0);
	a = alloc(fd, 4096);
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, a.mmap_offset);
	CHECK(m != MAP_FAILED);
	close(fd);	/* the map keeps the file and its buffer */
	memcpy(m, "held", 4);
	printf("held\n");
	fflush(stdout);
	while (read(0, buf, sizeof(buf)) > 0)
		;
	CHECK(!memcmp(m, "held", 4));
	munmap(m, 4096);
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "--hold"))
		hold(argv[2]);
	else if (argc > 2 && !strcmp(argv[1], "--limits"))
		limits(argv[2]);
	else if (argc > 3 && !strcmp(argv[1], "--enomem"))
		enomem(argv[2], strtoull(argv[3], NULL, 0));
	else
		one_round(argc > 1 ? argv[1] : "/dev/vneuron0");
	return 0;
}
