/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The programs of the runner's tests (tests/host/test_run.c, tests/guest/run_test.c),
 * built with libvnprog: each returns a malloc()ed image (NULL if the builder refused
 * it) and its size; and a thread that cancels a run. Header-only; everything static.
 */
#ifndef VN_RUN_PROGRAMS_H
#define VN_RUN_PROGRAMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "vnrun.h"

#define RP_ROWS	250
#define RP_COLS	512
#define RP_CN	(128 * 64)	/* the all_reduce's elements */

static inline void *rp_finish(struct nd_builder *b, size_t *size)
{
	void *img = NULL;

	if (nd_builder_finish(b, &img, size))
		fprintf(stderr, "# finish: %s\n", nd_builder_error(b));
	nd_builder_free(b);
	return img;
}

/* The NKI profiler example: out = exp(in), [250 x 512] fp32. */
static inline void *rp_exp(size_t *size)
{
	struct nd_builder *b;

	if (nd_builder_new("exp", &b))
		return NULL;
	nd_kernel_exp(b, RP_ROWS, RP_COLS, 1);
	return rp_finish(b, size);
}

/*
 * count activations over a [128 x 512] tile, y = the tile: long enough (seconds on the
 * host at 20000, more under emulation) for a cancel to land inside one execution.
 */
static inline void *rp_long(unsigned int count, size_t *size)
{
	static const uint64_t shape[] = { 128, 512 };
	struct nd_builder *b;
	struct nd_tensor *x, *y;
	struct nd_tile *t;
	unsigned int i;

	if (nd_builder_new("long", &b))
		return NULL;
	x = nd_input(b, "x", ND_FP32, 2, shape);
	y = nd_output(b, "y", ND_FP32, 2, shape);
	t = nd_sbuf(b, "t", ND_FP32, 128, 512);
	nd_load(b, 0, nd_whole(t), nd_hbm_rows(x, 0, 0));
	for (i = 0; i < count; i++)
		nd_activate(b, nd_whole(t), nd_whole(t), ND_ACT_TANH, 1.0f, 0.0f);
	nd_store(b, 1, nd_hbm_rows(y, 0, 0), nd_whole(t));
	return rp_finish(b, size);
}

/* y = (sum over ranks of x * 2) + 1, [128 x 64] fp32, an all_reduce on HBM. */
static inline void *rp_allreduce(size_t *size)
{
	static const uint64_t shape[] = { 128, 64 };
	struct nd_builder *b;
	struct nd_tensor *tx, *ts, *ty;
	struct nd_tile *t, *u;

	if (nd_builder_new("allreduce", &b))
		return NULL;
	tx = nd_input(b, "x", ND_FP32, 2, shape);
	ts = nd_scratch(b, "s", ND_FP32, 2, shape);
	ty = nd_output(b, "y", ND_FP32, 2, shape);
	t = nd_sbuf(b, "t", ND_FP32, 128, 64);
	u = nd_sbuf(b, "u", ND_FP32, 128, 64);
	nd_load(b, 0, nd_whole(t), nd_hbm_rows(tx, 0, 0));
	nd_tensor_scalar(b, ND_VECTOR, nd_whole(t), nd_whole(t), ND_MUL, 2.0f, 0);
	nd_store(b, 1, nd_hbm_rows(ts, 0, 0), nd_whole(t));
	nd_all_reduce(b, ts, ts, RP_CN, ND_ADD);
	nd_load(b, 2, nd_whole(u), nd_hbm_rows(ts, 0, 0));
	nd_tensor_scalar(b, ND_GPSIMD, nd_whole(u), nd_whole(u), ND_ADD, 1.0f, 0);
	nd_store(b, 3, nd_hbm_rows(ty, 0, 0), nd_whole(u));
	return rp_finish(b, size);
}

/* A thread that cancels r's run after ms milliseconds (pthread_create(..., cancel_later, c)). */
struct canceller {
	struct nd_runner *r;
	unsigned int ms;
};

static inline void *cancel_later(void *arg)
{
	struct canceller *c = arg;

	usleep(c->ms * 1000);
	nd_runner_cancel(c->r);
	return NULL;
}

#endif /* VN_RUN_PROGRAMS_H */
