/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The guest execution tests' shared part (exec_*test.c): device buffers, runs with
 * a time limit, the host backend's modeled time, core statistics, and a small program.
 */
#ifndef EXEC_DEV_H
#define EXEC_DEV_H

/* Each test file uses some of these static functions: marked unused for the others. */

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vnprog.h"
#include "vn_program.h"
#include "kmod_test.h"
#include "exec_util.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

__attribute__((unused))
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* A device buffer holding n bytes of data (or zeroes). */
__attribute__((unused))
static struct nd_mem *dev_buf(struct nd_device *d, const void *data, uint64_t n)
{
	struct nd_mem *m;

	if (nd_mem_alloc(d, n, &m))
		return NULL;
	if (data && nd_mem_write(m, 0, data, n)) {
		nd_mem_free(m);
		return NULL;
	}
	return m;
}

/* Load, run once on core, unload. 0 when the execution ended OK. */
/* Load, run once with a host-time limit (0: the module's 30 s), unload. */
__attribute__((unused))
static int dev_run_limit(struct nd_device *d, const void *img, size_t size, unsigned int core,
			 const struct nd_bind *binds, unsigned int n, uint64_t limit_ns,
			 struct nd_run_result *res)
{
	struct nd_program *p;
	int ret;

	ret = nd_program_load(d, img, size, &p, NULL);
	if (ret) {
		fprintf(stderr, "# load: %s\n", nd_device_error(d));
		return ret;
	}
	ret = nd_run(p, core, binds, n, limit_ns, res);
	if (ret)
		fprintf(stderr, "# run: %s\n", nd_device_error(d));
	nd_program_unload(p);
	return ret;
}

__attribute__((unused))
static int dev_run(struct nd_device *d, const void *img, size_t size, unsigned int core,
		   const struct nd_bind *binds, unsigned int n, struct nd_run_result *res)
{
	return dev_run_limit(d, img, size, core, binds, n, 0, res);
}

/* The modeled duration of the same image on the host backend. */
__attribute__((unused))
static uint64_t host_model_ps(const void *img, size_t size, struct nd_host_tensor *t,
			      unsigned int n)
{
	struct nd_run_result res;
	struct nd_error err;

	if (nd_run_on_host(img, size, t, n, &res, &err)) {
		fprintf(stderr, "# host: %s\n", err.msg);
		return 0;
	}
	return res.model_ps;
}

__attribute__((unused))
static long long core_stat(unsigned int core, const char *name)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "core%u/stats/%s/total", core, name);
	return vn_sysfs(rel);
}

/* ---------------------------------------------------------------------------- */
/* Small programs for the fault and argument tests                               */

/* out = exp(in) over [128 x 512]: tensors "in" (0) and "out" (1). */
__attribute__((unused))
static int small_image(void **img, size_t *size)
{
	struct nd_builder *b;

	if (nd_builder_new("small", &b))
		return -1;
	if (nd_kernel_exp(b, 128, 512, 0)) {
		nd_builder_free(b);
		return -1;
	}
	return finish(b, img, size);
}

/* Many large ScalarE instructions on SBUF: long enough to be stopped midway. */

/* The entries of an image's section (type, index), or NULL. */

/*
 * VectorE writes a, ScalarE reads a and writes c, VectorE reads c: the builder makes
 * ScalarE wait on VectorE and VectorE's second entry on ScalarE. Then VectorE's first
 * entry is made to wait on ScalarE too: a cycle only execution can find.
 */

/* The small program runs OK on core with fresh buffers. */
__attribute__((unused))
static int small_runs(struct nd_device *d, unsigned int core)
{
	struct nd_run_result res;
	struct nd_mem *mi, *mo;
	size_t size;
	void *img;
	int ret;

	if (small_image(&img, &size))
		return -1;
	mi = dev_buf(d, NULL, 128 * 512 * 4);
	mo = dev_buf(d, NULL, 128 * 512 * 4);
	if (!mi || !mo) {
		free(img);
		return -ENOMEM;
	}
	{
		struct nd_bind bi[] = { { "in", mi }, { "out", mo } };

		ret = dev_run(d, img, size, core, bi, 2, &res);
	}
	nd_mem_free(mi);
	nd_mem_free(mo);
	free(img);
	return ret ? ret : (int)res.result;
}

#endif /* EXEC_DEV_H */
