/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The executor tests' shared part (test_exec_*.c): a core per test (fixture ex),
 * matrices, runs, event logs, over the program-building fixtures of core_util.h.
 */
#ifndef EXEC_CORE_H
#define EXEC_CORE_H

#include <pthread.h>
#include <unistd.h>
#include "core_util.h"
#include "vn_engine_fp.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#define SB	VNEF_MEM_SBUF
#define PS	VNEF_MEM_PSUM
#define F32	VNEF_DT_FP32
#define TE	VNEURON_ENGINE_TENSOR
#define VE	VNEURON_ENGINE_VECTOR
#define SE	VNEURON_ENGINE_SCALAR
#define GE	VNEURON_ENGINE_GPSIMD
#define B16	VNEF_DT_BF16
#define SB_PB	VNEF_SBUF_PART_BYTES
#define PS_PB	VNEF_PSUM_PART_BYTES
#define U32M	0xffffffffu
#define DMAQ(q)	VNEF_STREAM_DMA(q)

FIXTURE(ex) {
	struct vn_core *c;
};

FIXTURE_SETUP(ex)
{
	ASSERT_EQ(0, vn_core_create(NULL, "ex", &self->c));
}

FIXTURE_TEARDOWN(ex)
{
	vn_core_destroy(self->c);
}

static inline float *fmat(uint32_t rows, uint32_t cols, uint32_t seed)
{
	float *m = malloc(sizeof(float) * rows * cols);
	uint32_t r, c;

	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++)
			m[r * cols + c] = gen(seed, r, c);
	return m;
}

/* Runs b with binds, returns the status; frees b. */
static inline int run_b(struct vn_core *c, struct vb *b, struct vn_bind *bi,
			struct vn_exec_status *st)
{
	uint64_t size;
	uint8_t *img = vb_finish(b, &size);
	uint32_t n = b->nten;
	int r;

	r = run_image(c, img, size, bi, n, st);
	free(img);
	vb_free(b);
	return r;
}

/* ---- events ---- */

struct evlog {
	pthread_mutex_t m;
	struct vn_event ev[4096];
	uint32_t n;
};

static inline void log_hook(void *arg, const struct vn_event *ev)
{
	struct evlog *l = arg;

	pthread_mutex_lock(&l->m);
	if (l->n < 4096) {
		l->ev[l->n] = *ev;
		/* keep the lowest signalled semaphore's value, read now, in the high flags */
		if (ev->signal_mask)
			l->ev[l->n].flags |= ev->sem_values[__builtin_ctzll(ev->signal_mask)] << 16;
		l->n++;
	}
	pthread_mutex_unlock(&l->m);
}

static inline int ev_cmp(const void *a, const void *b)
{
	const struct vn_event *x = a, *y = b;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static inline void build_small_ok(struct vb *b)
{
	struct vnef_instr *in;
	float v = 1.5f;

	vb_init(b);
	in = vb_op(b, VE, VNEF_OP_MEMSET);
	in->dst = vb_ap2(SB, F32, 0, 128, 0, 64);
	memcpy(&in->imm[0], &v, 4);
	in->signal_mask = 1;
	in = vb_op(b, SE, VNEF_OP_NOP);
	VB_WAIT(in, 0, 1);
}

/* C[512x512] = AT^T . B with AT [K=512 x M=512], B [K x N=512], fp32, 128-tiles. */
static inline void build_matmul(struct vb *b)
{
	struct vnef_instr *in;
	struct vnef_dma_desc *d;
	uint32_t kt, mt;

	vb_init(b);
	vb_tensor(b, "at", VNEF_TENSOR_INPUT, F32, 512, 512, NULL);
	vb_tensor(b, "b", VNEF_TENSOR_INPUT, F32, 512, 512, NULL);
	vb_tensor(b, "c", VNEF_TENSOR_OUTPUT, F32, 512, 512, NULL);
	for (kt = 0; kt < 4; kt++) {
		d = vb_load(b, 0, 0, kt * 128 * 2048, 2048, 128, 2048, SB, 0, kt * 2048);
		d->signal_mask = 1ull << 0;
		d = vb_load(b, 1, 1, kt * 128 * 2048, 2048, 128, 2048, SB, 0, 8192 + kt * 2048);
		d->signal_mask = 1ull << 1;
	}
	for (mt = 0; mt < 4; mt++) {
		for (kt = 0; kt < 4; kt++) {
			in = vb_op(b, TE, VNEF_OP_LOAD_STATIONARY);
			in->src0 = vb_ap2(SB, F32, 0, 128, kt * 2048 + mt * 512, 128);
			if (!mt)
				VB_WAIT(in, 0, kt + 1);
			in = vb_op(b, TE, VNEF_OP_MULTIPLY_MOVING);
			in->src0 = vb_ap2(SB, F32, 0, 128, 8192 + kt * 2048, 512);
			in->dst = vb_ap2(PS, F32, 0, 128, mt * 2048, 512);
			if (kt)
				in->flags |= VNEF_IF_ACCUMULATE;
			if (!mt)
				VB_WAIT(in, 1, kt + 1);
			if (kt == 3)
				in->signal_mask = 1ull << 2;
		}
		d = vb_store(b, 2, 2, mt * 128 * 2048, 2048, 128, 2048, PS, 0, mt * 2048);
		VB_WAIT(d, 2, mt + 1);
	}
	vb_debug(b, TE, 1, "exec_core.h", __LINE__, "mm/tile0");
}

#endif /* EXEC_CORE_H */
