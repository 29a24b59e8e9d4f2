// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The executor end to end: DMA patterns, tiled matmul, exp with a masked last tile,
 * softmax, layernorm, determinism of the modeled timeline, DMA/compute overlap,
 * deadlock and time limits, reset, stop, bindings, scratch, constants, events.
 *
 * One file, over 1,000 lines: one test per executor behaviour, each short, sharing the
 * program-building fixtures of core_util.h.
 */
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

static float *fmat(uint32_t rows, uint32_t cols, uint32_t seed)
{
	float *m = malloc(sizeof(float) * rows * cols);
	uint32_t r, c;

	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++)
			m[r * cols + c] = gen(seed, r, c);
	return m;
}

/* Runs b with binds, returns the status; frees b. */
static int run_b(struct vn_core *c, struct vb *b, struct vn_bind *bi, struct vn_exec_status *st)
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

static void log_hook(void *arg, const struct vn_event *ev)
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

static int ev_cmp(const void *a, const void *b)
{
	const struct vn_event *x = a, *y = b;

	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* ---- DMA ---- */

TEST_F(ex, dma_patterns)
{
	uint32_t in[64 * 40], out[64 * 40], out2[64 * 40], i, p, j;
	struct vn_bind bi[3] = {
		{ in, sizeof(in) }, { out, sizeof(out) }, { out2, sizeof(out2) } };
	struct vn_exec_status st;
	struct vnef_dma_desc *d;
	struct vb b;

	for (i = 0; i < 64 * 40; i++)
		in[i] = i * 2654435761u;
	memset(out, 0, sizeof(out));
	memset(out2, 0, sizeof(out2));
	vb_init(&b);
	vb_tensor(&b, "in", VNEF_TENSOR_INPUT, F32, 64, 40, NULL);
	vb_tensor(&b, "out", VNEF_TENSOR_OUTPUT, F32, 64, 40, NULL);
	vb_tensor(&b, "out2", VNEF_TENSOR_OUTPUT, F32, 64, 40, NULL);
	/* rows 0..63 to partitions 1, 3, 5, ... (part_stride 2), 160 bytes each at 64 */
	d = vb_load(&b, 0, 0, 0, 160, 64, 160, SB, 1, 64);
	d->dst.part_stride[0] = 2;
	d->signal_mask = 1;
	/* SBUF to SBUF on another queue: every partition's 160 bytes to offset 4096 */
	d = vb_dma(&b, 1);
	VB_WAIT(d, 0, 1);
	d->chunk_bytes = 160;
	d->count[0] = 64;
	d->count[1] = 1;
	d->src = vb_chip(SB, 1, 64, 2, 0, 0, 0);
	d->dst = vb_chip(SB, 1, 4096, 2, 0, 0, 0);
	d->signal_mask = 2;
	/* back out, 3-D: [64 rows] x [40 words] as 4-byte chunks, to out */
	d = vb_dma(&b, 2);
	VB_WAIT(d, 1, 1);
	d->chunk_bytes = 4;
	d->count[0] = 40;
	d->count[1] = 64;
	d->src = vb_chip(SB, 1, 4096, 0, 4, 2, 0);
	d->dst = vb_hbm(1, 0, 4, 160);
	d->signal_mask = 4;
	/* HBM to HBM, transposing 64x40 words into out2 as 40x64 */
	d = vb_dma(&b, 3);
	VB_WAIT(d, 2, 1);
	d->chunk_bytes = 4;
	d->count[0] = 64;
	d->count[1] = 40;
	d->src = vb_hbm(1, 0, 160, 4);
	d->dst = vb_hbm(2, 0, 4, 256);
	ASSERT_EQ(0, run_b(self->c, &b, bi, &st));
	ASSERT_EQ(VN_RES_OK, st.result);
	EXPECT_EQ(0, memcmp(in, out, sizeof(in)));
	for (p = 0; p < 64; p++)
		for (j = 0; j < 40; j++)
			ASSERT_EQ(in[p * 40 + j], out2[j * 64 + p]);
	/* SBUF holds them where the pattern said */
	EXPECT_EQ(0, memcmp(vn_core_sbuf(self->c, 3) + 64, in + 40, 160));
}

TEST_F(ex, scratch_const_and_psum)
{
	float k[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, out[8] = { 0 };
	struct vn_bind bi[3] = { { NULL, 0 }, { NULL, 0 }, { out, sizeof(out) } };
	struct vn_exec_status st;
	struct vnef_dma_desc *d;
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "k", VNEF_TENSOR_CONST, F32, 8, 0, k);
	vb_tensor(&b, "tmp", VNEF_TENSOR_SCRATCH, F32, 8, 0, NULL);
	vb_tensor(&b, "out", VNEF_TENSOR_OUTPUT, F32, 8, 0, NULL);
	d = vb_dma(&b, 0);		/* const -> scratch */
	d->chunk_bytes = 32;
	d->count[0] = d->count[1] = 1;
	d->src = vb_hbm(0, 0, 0, 0);
	d->dst = vb_hbm(1, 0, 0, 0);
	d = vb_dma(&b, 0);		/* scratch -> PSUM partition 9 */
	d->chunk_bytes = 32;
	d->count[0] = d->count[1] = 1;
	d->src = vb_hbm(1, 0, 0, 0);
	d->dst = vb_chip(PS, 9, 2048, 0, 0, 0, 0);
	d = vb_dma(&b, 0);		/* PSUM -> out */
	d->chunk_bytes = 32;
	d->count[0] = d->count[1] = 1;
	d->src = vb_chip(PS, 9, 2048, 0, 0, 0, 0);
	d->dst = vb_hbm(2, 0, 0, 0);
	ASSERT_EQ(0, run_b(self->c, &b, bi, &st));
	ASSERT_EQ(VN_RES_OK, st.result);
	EXPECT_EQ(0, memcmp(k, out, sizeof(k)));
}

TEST_F(ex, bind_errors)
{
	float buf[16];
	struct vn_bind ok[1] = { { buf, sizeof(buf) } }, small[1] = { { buf, 8 } };
	struct vn_bind null[1] = { { NULL, 64 } };
	struct vn_program *p;
	struct vn_exec *e;
	struct vnef_dma_desc *d;
	uint64_t size;
	uint8_t *img;
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "x", VNEF_TENSOR_OUTPUT, F32, 16, 0, NULL);
	d = vb_dma(&b, 0);
	d->chunk_bytes = 64;
	d->count[0] = d->count[1] = 1;
	d->src = vb_chip(SB, 0, 0, 0, 0, 0, 0);
	d->dst = vb_hbm(0, 0, 0, 0);
	img = vb_finish(&b, &size);
	vb_free(&b);
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	EXPECT_EQ(-EINVAL, vn_exec_submit(self->c, p, ok, 0, 0, NULL, NULL, &e));
	EXPECT_EQ(-EINVAL, vn_exec_submit(self->c, p, ok, 2, 0, NULL, NULL, &e));
	EXPECT_EQ(-EINVAL, vn_exec_submit(self->c, p, small, 1, 0, NULL, NULL, &e));
	EXPECT_EQ(-EINVAL, vn_exec_submit(self->c, p, null, 1, 0, NULL, NULL, &e));
	EXPECT_EQ(-EINVAL, vn_exec_submit(self->c, p, NULL, 1, 0, NULL, NULL, &e));
	ASSERT_EQ(0, vn_exec_submit(self->c, p, ok, 1, 0, NULL, NULL, &e));
	vn_program_put(p);	/* the execution keeps its own reference */
	ASSERT_EQ(0, vn_exec_wait(e, 0));
	vn_exec_put(e);
}

/* ---- workloads ---- */

/* C[512x512] = AT^T . B with AT [K=512 x M=512], B [K x N=512], fp32, 128-tiles. */
static void build_matmul(struct vb *b)
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
	vb_debug(b, TE, 1, "test_exec.c", __LINE__, "mm/tile0");
}

TEST_F(ex, tiled_matmul_512)
{
	float *at = fmat(512, 512, 1), *bm = fmat(512, 512, 2), *c = calloc(512 * 512, 4);
	struct vn_bind bi[3] = { { at, 1 << 20 }, { bm, 1 << 20 }, { c, 1 << 20 } };
	struct vn_exec_status st;
	uint32_t m, n, k, bad = 0;
	struct vb b;

	build_matmul(&b);
	ASSERT_EQ(0, run_b(self->c, &b, bi, &st));
	ASSERT_EQ(VN_RES_OK, st.result);
	for (m = 0; m < 512; m += 3)
		for (n = 0; n < 512; n++) {
			double want = 0;

			for (k = 0; k < 512; k++)
				want += (double)at[k * 512 + m] * bm[k * 512 + n];
			if (!near(c[m * 512 + n], want, 1e-5f, 1e-3f) && !bad++)
				TH_LOG("[%u][%u] got %g want %g", m, n, c[m * 512 + n], want);
		}
	EXPECT_EQ(0u, bad);
	/* the modeled time is at least the 16 fp32 matmuls: 512 cycles each at 2.8 GHz */
	EXPECT_GE(st.model_ps, 16ull * 512 * 1000000000ull / 2800000);
	free(at);
	free(bm);
	free(c);
}

/* exp over [rows x 512] in 128-partition tiles; the last tile is partial. */
static void build_exp(struct vb *b, uint32_t rows, bool dbuf)
{
	uint32_t t, tiles = (rows + 127) / 128;
	struct vnef_instr *in;
	struct vnef_dma_desc *d;
	float one = 1.0f;

	vb_init(b);
	vb_tensor(b, "x", VNEF_TENSOR_INPUT, F32, rows, 512, NULL);
	vb_tensor(b, "y", VNEF_TENSOR_OUTPUT, F32, rows, 512, NULL);
	for (t = 0; t < tiles; t++) {
		uint32_t np = rows - t * 128 < 128 ? rows - t * 128 : 128;
		uint32_t buf = dbuf ? t % 2 : 0;

		/* load t into IN[buf] once ACT t-2 (or t-1 single-buffered) has read it */
		d = vb_load(b, 0, 0, (uint64_t)t * 128 * 2048, 2048, np, 2048, SB, 0, buf * 2048);
		if (dbuf && t >= 2)
			VB_WAIT(d, 1, t - 1);
		else if (!dbuf && t >= 1)
			VB_WAIT(d, 1, t);
		d->signal_mask = 1;
		/* OUT[buf] is free once the store of t-2 (t-1) is done */
		if ((dbuf && t >= 2) || (!dbuf && t >= 1)) {
			in = vb_op(b, SE, VNEF_OP_NOP);
			VB_WAIT(in, 2, dbuf ? t - 1 : t);
		}
		in = vb_op(b, SE, VNEF_OP_ACTIVATE);
		in->op = VNEF_ACT_EXP;
		memcpy(&in->imm[0], &one, 4);
		in->src0 = vb_ap2(SB, F32, 0, np, buf * 2048, 512);
		in->dst = vb_ap2(SB, F32, 0, np, 8192 + buf * 2048, 512);
		VB_WAIT(in, 0, t + 1);
		in->signal_mask = 2;
		d = vb_store(b, 1, 1, (uint64_t)t * 128 * 2048, 2048, np, 2048, SB, 0,
			     8192 + buf * 2048);
		VB_WAIT(d, 1, t + 1);
		d->signal_mask = 4;
	}
}

TEST_F(ex, exp_masked_last_tile)
{
	float *x = fmat(250, 512, 3), *y = calloc(250 * 512, 4);
	struct vn_bind bi[2] = { { x, 250 * 2048 }, { y, 250 * 2048 } };
	struct vn_exec_status st;
	uint32_t i, bad = 0;
	struct vb b;

	build_exp(&b, 250, false);
	ASSERT_EQ(0, run_b(self->c, &b, bi, &st));
	ASSERT_EQ(VN_RES_OK, st.result);
	for (i = 0; i < 250 * 512; i++)
		if (!near(y[i], expf(x[i]), 2e-6f, 0) && !bad++)
			TH_LOG("%u: got %g want %g", i, y[i], expf(x[i]));
	EXPECT_EQ(0u, bad);
	free(x);
	free(y);
}

TEST_F(ex, softmax)
{
	float *x = fmat(128, 256, 4), *y = calloc(128 * 256, 4);
	struct vn_bind bi[2] = { { x, 128 * 1024 }, { y, 128 * 1024 } };
	struct vn_exec_status st;
	struct vnef_instr *in;
	struct vnef_dma_desc *d;
	uint32_t r, j, bad = 0;
	float one = 1.0f;
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "x", VNEF_TENSOR_INPUT, F32, 128, 256, NULL);
	vb_tensor(&b, "y", VNEF_TENSOR_OUTPUT, F32, 128, 256, NULL);
	d = vb_load(&b, 0, 0, 0, 1024, 128, 1024, SB, 0, 0);
	d->signal_mask = 1;
	in = vb_op(&b, VE, VNEF_OP_REDUCE);
	in->op = VNEF_ALU_MAX;
	in->src0 = vb_ap2(SB, F32, 0, 128, 0, 256);
	in->dst = vb_ap2(SB, F32, 0, 128, 4096, 1);
	VB_WAIT(in, 0, 1);
	in = vb_op(&b, VE, VNEF_OP_TENSOR_SCALAR);
	in->op = VNEF_ALU_SUB;
	in->flags = VNEF_IF_SCALAR_COLUMN;
	in->src0 = vb_ap2(SB, F32, 0, 128, 0, 256);
	in->src1 = vb_ap2(SB, F32, 0, 128, 4096, 1);
	in->dst = vb_ap2(SB, F32, 0, 128, 0, 256);
	in->signal_mask = 2;
	in = vb_op(&b, SE, VNEF_OP_ACTIVATE);
	in->op = VNEF_ACT_EXP;
	memcpy(&in->imm[0], &one, 4);
	in->src0 = vb_ap2(SB, F32, 0, 128, 0, 256);
	in->dst = vb_ap2(SB, F32, 0, 128, 0, 256);
	VB_WAIT(in, 1, 1);
	in->signal_mask = 4;
	in = vb_op(&b, VE, VNEF_OP_REDUCE);
	in->op = VNEF_ALU_ADD;
	in->src0 = vb_ap2(SB, F32, 0, 128, 0, 256);
	in->dst = vb_ap2(SB, F32, 0, 128, 4100, 1);
	VB_WAIT(in, 2, 1);
	in = vb_op(&b, VE, VNEF_OP_TENSOR_SCALAR);
	in->op = VNEF_ALU_DIV;
	in->flags = VNEF_IF_SCALAR_COLUMN;
	in->src0 = vb_ap2(SB, F32, 0, 128, 0, 256);
	in->src1 = vb_ap2(SB, F32, 0, 128, 4100, 1);
	in->dst = vb_ap2(SB, F32, 0, 128, 0, 256);
	in->signal_mask = 8;
	d = vb_store(&b, 1, 1, 0, 1024, 128, 1024, SB, 0, 0);
	VB_WAIT(d, 3, 1);
	ASSERT_EQ(0, run_b(self->c, &b, bi, &st));
	ASSERT_EQ(VN_RES_OK, st.result);
	for (r = 0; r < 128; r++) {
		double mx = -1e30, s = 0;

		for (j = 0; j < 256; j++)
			mx = fmax(mx, x[r * 256 + j]);
		for (j = 0; j < 256; j++)
			s += exp(x[r * 256 + j] - mx);
		for (j = 0; j < 256; j++)
			if (!near(y[r * 256 + j], exp(x[r * 256 + j] - mx) / s, 1e-5f, 1e-7f) &&
			    !bad++)
				TH_LOG("[%u][%u] got %g", r, j, y[r * 256 + j]);
	}
	EXPECT_EQ(0u, bad);
	free(x);
	free(y);
}

TEST_F(ex, layernorm)
{
	float *x = fmat(100, 300, 5), *y = calloc(100 * 300, 4);
	struct vn_bind bi[2] = { { x, 100 * 1200 }, { y, 100 * 1200 } };
	float inv_f = 1.0f / 300, eps = 1e-5f;
	struct vn_exec_status st;
	struct vnef_instr *in;
	struct vnef_dma_desc *d;
	uint32_t r, j, bad = 0;
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "x", VNEF_TENSOR_INPUT, F32, 100, 300, NULL);
	vb_tensor(&b, "y", VNEF_TENSOR_OUTPUT, F32, 100, 300, NULL);
	d = vb_load(&b, 0, 0, 0, 1200, 100, 1200, SB, 0, 0);
	d->signal_mask = 1;
	in = vb_op(&b, VE, VNEF_OP_REDUCE);			/* sum */
	in->op = VNEF_ALU_ADD;
	in->src0 = vb_ap2(SB, F32, 0, 100, 0, 300);
	in->dst = vb_ap2(SB, F32, 0, 100, 8192, 1);
	VB_WAIT(in, 0, 1);
	in = vb_op(&b, VE, VNEF_OP_TENSOR_SCALAR);		/* mean */
	in->op = VNEF_ALU_MUL;
	memcpy(&in->imm[0], &inv_f, 4);
	in->src0 = vb_ap2(SB, F32, 0, 100, 8192, 1);
	in->dst = vb_ap2(SB, F32, 0, 100, 8192, 1);
	in = vb_op(&b, VE, VNEF_OP_TENSOR_SCALAR);		/* xc = x - mean */
	in->op = VNEF_ALU_SUB;
	in->flags = VNEF_IF_SCALAR_COLUMN;
	in->src0 = vb_ap2(SB, F32, 0, 100, 0, 300);
	in->src1 = vb_ap2(SB, F32, 0, 100, 8192, 1);
	in->dst = vb_ap2(SB, F32, 0, 100, 0, 300);
	in = vb_op(&b, GE, VNEF_OP_TENSOR_TENSOR);		/* xc^2 on GpSimdE */
	in->op = VNEF_ALU_MUL;
	in->src0 = vb_ap2(SB, F32, 0, 100, 0, 300);
	in->src1 = vb_ap2(SB, F32, 0, 100, 0, 300);
	in->dst = vb_ap2(SB, F32, 0, 100, 2048, 300);
	in = vb_op(&b, VE, VNEF_OP_NOP);
	in->signal_mask = 2;
	b.in[GE][0].flags |= VNEF_IF_WAIT;
	b.in[GE][0].wait_sem = 1;
	b.in[GE][0].wait_value = 1;
	b.in[GE][0].signal_mask = 4;
	in = vb_op(&b, VE, VNEF_OP_REDUCE);			/* sum xc^2 */
	in->op = VNEF_ALU_ADD;
	in->src0 = vb_ap2(SB, F32, 0, 100, 2048, 300);
	in->dst = vb_ap2(SB, F32, 0, 100, 8196, 1);
	VB_WAIT(in, 2, 1);
	in->signal_mask = 8;
	in = vb_op(&b, SE, VNEF_OP_ACTIVATE);			/* rsqrt(var + eps) */
	in->op = VNEF_ACT_RSQRT;
	memcpy(&in->imm[0], &inv_f, 4);
	memcpy(&in->imm[1], &eps, 4);
	in->src0 = vb_ap2(SB, F32, 0, 100, 8196, 1);
	in->dst = vb_ap2(SB, F32, 0, 100, 8200, 1);
	VB_WAIT(in, 3, 1);
	in->signal_mask = 16;
	in = vb_op(&b, VE, VNEF_OP_TENSOR_SCALAR);		/* y = xc * r */
	in->op = VNEF_ALU_MUL;
	in->flags = VNEF_IF_SCALAR_COLUMN;
	in->src0 = vb_ap2(SB, F32, 0, 100, 0, 300);
	in->src1 = vb_ap2(SB, F32, 0, 100, 8200, 1);
	in->dst = vb_ap2(SB, F32, 0, 100, 4096, 300);
	VB_WAIT(in, 4, 1);
	in->signal_mask = 32;
	d = vb_store(&b, 1, 1, 0, 1200, 100, 1200, SB, 0, 4096);
	VB_WAIT(d, 5, 1);
	ASSERT_EQ(0, run_b(self->c, &b, bi, &st));
	ASSERT_EQ(VN_RES_OK, st.result);
	for (r = 0; r < 100; r++) {
		double mean = 0, var = 0;

		for (j = 0; j < 300; j++)
			mean += x[r * 300 + j];
		mean /= 300;
		for (j = 0; j < 300; j++)
			var += (x[r * 300 + j] - mean) * (x[r * 300 + j] - mean);
		var /= 300;
		for (j = 0; j < 300; j++) {
			double want = (x[r * 300 + j] - mean) / sqrt(var + 1e-5);

			if (!near(y[r * 300 + j], want, 1e-4f, 1e-5f) && !bad++)
				TH_LOG("[%u][%u] got %g want %g", r, j, y[r * 300 + j], want);
		}
	}
	EXPECT_EQ(0u, bad);
	free(x);
	free(y);
}

/* ---- the modeled clock ---- */

static void run_logged(struct __test_metadata *_metadata, struct vn_core *c, struct vb *b,
		       struct vn_bind *bi, struct evlog *l, struct vn_exec_status *st)
{
	memset(l, 0, sizeof(*l));
	pthread_mutex_init(&l->m, NULL);
	vn_core_set_hook(c, log_hook, l);
	ASSERT_EQ(0, run_b(c, b, bi, st));
	vn_core_set_hook(c, NULL, NULL);
	ASSERT_EQ(VN_RES_OK, st->result);
	qsort(l->ev, l->n, sizeof(l->ev[0]), ev_cmp);
}

TEST_F(ex, determinism)
{
	float *at = fmat(512, 512, 1), *bm = fmat(512, 512, 2), *c = calloc(512 * 512, 4);
	struct vn_bind bi[3] = { { at, 1 << 20 }, { bm, 1 << 20 }, { c, 1 << 20 } };
	static struct evlog l1, l2;
	struct vn_exec_status s1, s2;
	struct vn_core *other;
	uint32_t i;
	struct vb b;

	build_matmul(&b);
	run_logged(_metadata, self->c, &b, bi, &l1, &s1);
	/* again, on a fresh core, with the host busy differently */
	ASSERT_EQ(0, vn_core_create(NULL, "other", &other));
	build_matmul(&b);
	run_logged(_metadata, other, &b, bi, &l2, &s2);
	vn_core_destroy(other);
	ASSERT_EQ(16u * 2 + 4 + 4 + 4, l1.n);
	ASSERT_EQ(l1.n, l2.n);
	EXPECT_EQ(s1.model_ps, s2.model_ps);
	for (i = 0; i < l1.n; i++) {
		EXPECT_EQ(l1.ev[i].stream, l2.ev[i].stream);
		EXPECT_EQ(l1.ev[i].start_ps, l2.ev[i].start_ps);
		EXPECT_EQ(l1.ev[i].end_ps, l2.ev[i].end_ps);
	}
	/* events carry what the profiler needs */
	for (i = 0; i < l1.n; i++) {
		const struct vn_event *e = &l1.ev[i];

		EXPECT_LE(e->start_ps, e->end_ps);
		if (e->stream == TE && e->opcode == VNEF_OP_MULTIPLY_MOVING)
			EXPECT_EQ(2ull * 128 * 128 * 512, e->flops);
		/* the last MM of m-tile t (pc 8t + 7) leaves sem 2 at t + 1 */
		if (e->stream == TE && e->signal_mask == 4)
			EXPECT_EQ(e->pc / 8 + 1, e->flags >> 16) TH_LOG("pc %u", e->pc);
		if (e->stream >= VNEF_ENGINES) {
			EXPECT_EQ(VN_EVT_OPCODE_DMA, e->opcode);
			EXPECT_EQ(e->stream - VNEF_ENGINES, e->dma_queue);
			EXPECT_EQ(128u * 2048, e->bytes);
		}
	}
	free(at);
	free(bm);
	free(c);
}

static bool overlaps(const struct vn_event *a, const struct vn_event *b)
{
	return a->start_ps < b->end_ps && b->start_ps < a->end_ps;
}

TEST_F(ex, double_buffering_overlaps_dma_and_compute)
{
	float *x = fmat(1024, 512, 6), *y = calloc(1024 * 512, 4);
	struct vn_bind bi[2] = { { x, 1024 * 2048 }, { y, 1024 * 2048 } };
	static struct evlog l1, l2;
	struct vn_exec_status s1, s2;
	uint32_t i, j, ov = 0;
	struct vb b;

	build_exp(&b, 1024, true);
	run_logged(_metadata, self->c, &b, bi, &l1, &s1);
	for (i = 0; i < l1.n; i++)
		for (j = 0; j < l1.n; j++)
			if (l1.ev[i].stream == SE && l1.ev[i].opcode == VNEF_OP_ACTIVATE &&
			    l1.ev[j].stream >= VNEF_ENGINES && overlaps(&l1.ev[i], &l1.ev[j]))
				ov++;
	EXPECT_GT(ov, 4u);
	for (i = 0; i < 1024 * 512; i += 77)
		ASSERT_TRUE(near(y[i], expf(x[i]), 2e-6f, 0));
	/* single-buffered, the same work takes longer in modeled time */
	build_exp(&b, 1024, false);
	run_logged(_metadata, self->c, &b, bi, &l2, &s2);
	EXPECT_LT(s1.model_ps, s2.model_ps);
	free(x);
	free(y);
}

/* ---- faults ---- */

static void build_deadlock(struct vb *b)
{
	struct vnef_instr *in;

	vb_init(b);
	in = vb_op(b, VE, VNEF_OP_NOP);
	VB_WAIT(in, 1, 1);
	in->signal_mask = 1;
	in = vb_op(b, SE, VNEF_OP_NOP);
	VB_WAIT(in, 0, 1);
	in->signal_mask = 2;
}

static void build_small_ok(struct vb *b)
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

TEST_F(ex, deadlock_is_detected_and_next_runs)
{
	struct vn_exec_status st;
	struct vn_counters cnt;
	struct vb b;

	build_deadlock(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_TIMEOUT, st.result);
	EXPECT_EQ(VN_REASON_DEADLOCK, st.reason);
	EXPECT_TRUE(st.stream == VE || st.stream == SE);
	EXPECT_EQ(0u, st.pc);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
	vn_core_counters(self->c, &cnt);
	EXPECT_EQ(1ull, cnt.exec_timeout);
	EXPECT_EQ(1ull, cnt.exec_ok);
}

TEST_F(ex, dma_deadlock_is_detected)
{
	struct vn_exec_status st;
	struct vnef_dma_desc *d;
	struct vnef_instr *in;
	struct vb b;

	vb_init(&b);
	d = vb_dma(&b, 5);
	VB_WAIT(d, 1, 1);
	d->chunk_bytes = 4;
	d->count[0] = d->count[1] = 1;
	d->src = vb_chip(SB, 0, 0, 0, 0, 0, 0);
	d->dst = vb_chip(SB, 1, 0, 0, 0, 0, 0);
	d->signal_mask = 1;
	in = vb_op(&b, GE, VNEF_OP_NOP);
	VB_WAIT(in, 0, 1);
	in->signal_mask = 2;
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_TIMEOUT, st.result);
	EXPECT_EQ(VN_REASON_DEADLOCK, st.reason);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
}

/* Many large instructions: long enough to be stopped midway. */
/* n ScalarE tanh over 128 x 16384 fp32 each (4000: far longer than any limit used). */
static uint8_t *build_long_n(uint64_t *size, uint32_t n)
{
	struct vnef_instr *in;
	float one = 1.0f;
	struct vb b;
	uint32_t i;

	vb_init(&b);
	for (i = 0; i < n; i++) {
		in = vb_op(&b, SE, VNEF_OP_ACTIVATE);
		in->op = VNEF_ACT_TANH;
		memcpy(&in->imm[0], &one, 4);
		in->src0 = vb_ap2(SB, F32, 0, 128, 0, 16384);
		in->dst = vb_ap2(SB, F32, 0, 128, 65536, 16384);
	}
	uint8_t *img = vb_finish(&b, size);

	vb_free(&b);
	return img;
}

static uint8_t *build_long(uint64_t *size)
{
	return build_long_n(size, 4000);
}

static void done_cb(struct vn_exec *e, void *arg)
{
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_SEQ_CST);
}

TEST_F(ex, time_limit)
{
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_exec *e;
	uint64_t size;
	uint8_t *img = build_long(&size);
	struct vb b;

	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 20 * 1000000ull, NULL, NULL, &e));
	ASSERT_EQ(0, vn_exec_wait(e, 0));
	vn_exec_status(e, &st);
	EXPECT_EQ(VN_RES_TIMEOUT, st.result);
	EXPECT_EQ(VN_REASON_TIME_LIMIT, st.reason);
	vn_exec_put(e);
	vn_program_put(p);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
}

TEST_F(ex, time_limit_inside_one_instruction)
{
	struct vn_exec_status st;
	struct vnef_instr *in;
	struct vn_program *p;
	struct vn_exec *e;
	float one = 1.0f;
	uint64_t size;
	uint8_t *img;
	struct vb b;

	vb_init(&b);
	in = vb_op(&b, SE, VNEF_OP_ACTIVATE);
	in->op = VNEF_ACT_TANH;
	memcpy(&in->imm[0], &one, 4);
	in->src0 = vb_ap2(SB, VNEF_DT_BF16, 0, 128, 0, VNEF_MAX_FREE);
	in->dst = vb_ap2(SB, VNEF_DT_BF16, 0, 128, 0, VNEF_MAX_FREE);
	img = vb_finish(&b, &size);
	vb_free(&b);
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 2 * 1000000ull, NULL, NULL, &e));
	ASSERT_EQ(0, vn_exec_wait(e, 0));
	vn_exec_status(e, &st);
	EXPECT_EQ(VN_RES_TIMEOUT, st.result);
	EXPECT_EQ(VN_REASON_TIME_LIMIT, st.reason);
	EXPECT_EQ((uint32_t)SE, st.stream);
	EXPECT_EQ(0u, st.pc);
	vn_exec_put(e);
	vn_program_put(p);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
}

TEST_F(ex, reset_aborts_running_and_queued)
{
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_exec *e1, *e2;
	uint64_t size;
	uint8_t *img = build_long(&size);
	int calls = 0;
	struct vb b;

	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, done_cb, &calls, &e1));
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, done_cb, &calls, &e2));
	vn_core_sbuf(self->c, 7)[150000] = 0xab;
	usleep(20000);
	vn_core_reset(self->c);
	ASSERT_EQ(0, vn_exec_wait(e1, 0));
	ASSERT_EQ(0, vn_exec_wait(e2, 0));
	vn_exec_status(e1, &st);
	EXPECT_EQ(VN_RES_ABORTED, st.result);
	EXPECT_EQ(VN_REASON_RESET, st.reason);
	vn_exec_status(e2, &st);
	EXPECT_EQ(VN_RES_ABORTED, st.result);
	vn_exec_put(e1);
	vn_exec_put(e2);
	vn_program_put(p);
	/* the reset cleared SBUF */
	EXPECT_EQ(0, vn_core_sbuf(self->c, 7)[150000]);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
	usleep(1000);
	EXPECT_EQ(2, __atomic_load_n(&calls, __ATOMIC_SEQ_CST));
}

TEST_F(ex, cancel_running_and_queued)
{
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_exec *e1, *e2, *e3;
	uint64_t size;
	uint8_t *img = build_long(&size);
	struct vb b;

	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, NULL, NULL, &e1));
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, NULL, NULL, &e2));
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, NULL, NULL, &e3));
	vn_exec_cancel(e2);		/* queued: leaves the queue at once */
	vn_exec_status(e2, &st);
	EXPECT_EQ(VN_EXEC_DONE, st.state);
	EXPECT_EQ(VN_RES_ABORTED, st.result);
	EXPECT_EQ(VN_REASON_CANCEL, st.reason);
	usleep(10000);
	vn_exec_cancel(e1);		/* running: ends promptly */
	ASSERT_EQ(0, vn_exec_wait(e1, 0));
	vn_exec_status(e1, &st);
	EXPECT_EQ(VN_RES_ABORTED, st.result);
	EXPECT_EQ(VN_REASON_CANCEL, st.reason);
	vn_exec_cancel(e3);
	ASSERT_EQ(0, vn_exec_wait(e3, 0));
	vn_exec_cancel(e3);		/* done: nothing happens */
	vn_exec_put(e1);
	vn_exec_put(e2);
	vn_exec_put(e3);
	vn_program_put(p);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
}

TEST(destroy_stops_a_running_execution)
{
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_exec *e1, *e2;
	struct vn_core *c;
	uint64_t size;
	uint8_t *img = build_long(&size);
	int calls = 0;

	ASSERT_EQ(0, vn_core_create(NULL, "d", &c));
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	ASSERT_EQ(0, vn_exec_submit(c, p, NULL, 0, 0, done_cb, &calls, &e1));
	ASSERT_EQ(0, vn_exec_submit(c, p, NULL, 0, 0, done_cb, &calls, &e2));
	usleep(10000);
	vn_core_destroy(c);
	EXPECT_EQ(2, calls);
	vn_exec_status(e1, &st);
	EXPECT_EQ(VN_EXEC_DONE, st.state);
	EXPECT_EQ(VN_RES_ABORTED, st.result);
	EXPECT_EQ(VN_REASON_STOP, st.reason);
	vn_exec_status(e2, &st);
	EXPECT_EQ(VN_RES_ABORTED, st.result);
	vn_exec_put(e1);
	vn_exec_put(e2);
	vn_program_put(p);
}

/*
 * Destroyed at once: the execution is current (submitted to an idle core) but no worker
 * has picked it up, so destroy finishes it itself, under the core's lock as the end
 * hooks expect (the host layer aborts otherwise), with its gone hook called once.
 */
TEST(destroy_right_after_submit)
{
	static struct evlog l;
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_exec *e;
	struct vn_core *c;
	uint64_t size;
	uint8_t *img = build_long_n(&size, 4);
	int calls = 0, round;

	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	memset(&l, 0, sizeof(l));
	pthread_mutex_init(&l.m, NULL);
	for (round = 0; round < 20; round++) {
		ASSERT_EQ(0, vn_core_create(NULL, "d", &c));
		vn_core_set_hook(c, log_hook, &l);
		ASSERT_EQ(0, vn_exec_submit(c, p, NULL, 0, 0, done_cb, &calls, &e));
		vn_core_destroy(c);
		vn_exec_status(e, &st);
		EXPECT_EQ(VN_EXEC_DONE, st.state);
		EXPECT_TRUE(st.result == VN_RES_ABORTED || st.result == VN_RES_OK);
		vn_exec_put(e);
	}
	EXPECT_EQ(20, calls);
	vn_program_put(p);
}

struct edges {
	uint64_t seq[8];
	uint32_t result[8];
	int n;
	int events_at_end;
	struct evlog *log;
};

/* One observer: the event log, the edges seen, gone calls, and what to answer starts. */
struct observer {
	struct evlog *log;
	struct edges e;
	int gone;
	bool refuse;
};

static void obs_event(void *arg, const struct vn_event *ev)
{
	log_hook(((struct observer *)arg)->log, ev);
}

static bool obs_edge(void *arg, const struct vn_exec_status *st, bool end)
{
	struct observer *o = arg;
	struct edges *e = &o->e;

	if (!end && o->refuse)
		return false;
	if (e->n < 8) {
		e->seq[e->n] = st->seq | (end ? 1ull << 63 : 0);
		e->result[e->n] = st->result;
		e->n++;
	}
	if (end)
		e->events_at_end = o->log->n;
	return true;
}

static void obs_gone(void *arg)
{
	__atomic_add_fetch(&((struct observer *)arg)->gone, 1, __ATOMIC_SEQ_CST);
}

TEST_F(ex, edge_hook_and_unhook)
{
	static struct evlog l;
	struct observer o = { .log = &l };
	struct vn_exec_status st;
	struct vb b;

	memset(&l, 0, sizeof(l));
	pthread_mutex_init(&l.m, NULL);
	vn_core_set_hooks(self->c, obs_event, obs_edge, &o);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	build_deadlock(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	ASSERT_EQ(4, o.e.n);
	EXPECT_EQ(1ull, o.e.seq[0]);
	EXPECT_EQ(1ull | 1ull << 63, o.e.seq[1]);
	EXPECT_EQ((uint32_t)VN_RES_OK, o.e.result[1]);
	EXPECT_EQ(2ull, o.e.seq[2]);
	EXPECT_EQ(2ull | 1ull << 63, o.e.seq[3]);
	EXPECT_EQ((uint32_t)VN_RES_TIMEOUT, o.e.result[3]);
	EXPECT_EQ(2, o.e.events_at_end);	/* the first program's two entries, before its end */
	/* Nothing runs: gone is called before unhook returns. */
	EXPECT_TRUE(vn_core_unhook(self->c, &o, obs_gone));
	EXPECT_EQ(1, o.gone);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
	EXPECT_EQ(4, o.e.n);	/* unobserved */
	EXPECT_EQ(2u, l.n);
}

/* An observer that refuses an execution at its start sees none of it. */
TEST_F(ex, edge_hook_may_refuse_an_execution)
{
	static struct evlog l;
	struct observer o = { .log = &l, .refuse = true };
	struct vn_exec_status st;
	struct vb b;

	memset(&l, 0, sizeof(l));
	pthread_mutex_init(&l.m, NULL);
	vn_core_set_hooks(self->c, obs_event, obs_edge, &o);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
	EXPECT_EQ(0, o.e.n);
	EXPECT_EQ(0u, l.n);
	o.refuse = false;
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(2, o.e.n);
	EXPECT_EQ(2u, l.n);
	EXPECT_TRUE(vn_core_unhook(self->c, &o, obs_gone));
}

/*
 * Unhooking while an observed execution runs does not wait: the execution keeps its
 * hooks to its end (events and end edge delivered), gone runs once, at that end, and the
 * next execution is unobserved.
 */
TEST_F(ex, unhook_while_running_calls_gone_at_its_end)
{
	static struct evlog l;
	struct observer o = { .log = &l };
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_exec *e;
	uint64_t size;
	uint8_t *img = build_long_n(&size, 60);
	struct vb b;

	memset(&l, 0, sizeof(l));
	pthread_mutex_init(&l.m, NULL);
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	vn_core_set_hooks(self->c, obs_event, obs_edge, &o);
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, NULL, NULL, &e));
	while (!__atomic_load_n(&l.n, __ATOMIC_SEQ_CST))
		usleep(100);
	EXPECT_FALSE(vn_core_unhook(self->c, &o, obs_gone));
	EXPECT_EQ(0, __atomic_load_n(&o.gone, __ATOMIC_SEQ_CST));
	ASSERT_EQ(0, vn_exec_wait(e, 0));
	vn_exec_status(e, &st);
	EXPECT_EQ(VN_RES_OK, st.result);
	EXPECT_EQ(1, o.gone);
	ASSERT_EQ(2, o.e.n);		/* its start and its end */
	EXPECT_EQ(60, o.e.events_at_end);
	vn_exec_put(e);
	vn_program_put(p);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(2, o.e.n);
	EXPECT_EQ(1, o.gone);
}

TEST_F(ex, queue_runs_in_order_and_counts)
{
	struct vn_exec *e[8];
	struct vn_exec_status st;
	struct vn_counters cnt;
	struct vn_program *p;
	uint64_t size, seq = 0;
	uint8_t *img;
	struct vb b;
	int i;

	build_small_ok(&b);
	img = vb_finish(&b, &size);
	vb_free(&b);
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, NULL, NULL, &e[i]));
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, vn_exec_wait(e[i], 0));
		vn_exec_status(e[i], &st);
		EXPECT_EQ(VN_RES_OK, st.result);
		EXPECT_GT(st.seq, seq);
		seq = st.seq;
		vn_exec_put(e[i]);
	}
	vn_program_put(p);
	vn_core_counters(self->c, &cnt);
	EXPECT_EQ(8ull, cnt.exec_ok);
	EXPECT_EQ(16ull, cnt.instructions);
	EXPECT_GT(cnt.busy_ps[VE], 0ull);
}

/* The monitor sees every execution's start and end; telemetry counters add up. */
struct mon_log {
	int starts, ends;
	uint64_t last_seq;
	bool ordered;
};

static void mon_fn(void *arg, const struct vn_exec_status *st, bool end)
{
	struct mon_log *m = arg;

	if (!end) {
		m->starts++;
		m->ordered &= st->seq == m->last_seq + 1;
		m->last_seq = st->seq;
	} else {
		m->ends++;
		m->ordered &= st->seq == m->last_seq;
	}
}

TEST_F(ex, monitor_and_telemetry_counters)
{
	struct mon_log m = { .ordered = true };
	struct vn_core_stats stats = { 0 }, snap;
	struct vn_exec *e[4];
	struct vn_counters cnt;
	struct vn_program *p;
	uint64_t size, busy = 0;
	uint8_t *img;
	struct vb b;
	int i;

	vn_core_set_stats(self->c, &stats);
	vn_core_set_monitor(self->c, mon_fn, &m);
	build_small_ok(&b);
	img = vb_finish(&b, &size);
	vb_free(&b);
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, NULL, NULL, &e[i]));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, vn_exec_wait(e[i], 0));
		vn_exec_put(e[i]);
	}
	vn_program_put(p);
	vn_core_set_monitor(self->c, NULL, NULL);
	vn_core_set_stats(self->c, NULL);
	EXPECT_EQ(4, m.starts);
	EXPECT_EQ(4, m.ends);
	EXPECT_TRUE(m.ordered);
	ASSERT_TRUE(vn_core_stats_read(&stats, &snap));
	vn_core_counters(self->c, &cnt);
	EXPECT_EQ(4ull, snap.results[VN_RES_OK]);
	EXPECT_EQ(4ull, snap.c[VN_STAT_EXEC_OK].total);
	EXPECT_EQ(cnt.instructions, snap.instructions);
	EXPECT_EQ(cnt.descriptors, snap.descriptors);
	EXPECT_EQ(cnt.model_ps, snap.model_ps);
	EXPECT_GT(snap.host_ns, 0ull);
	for (i = 0; i < VNEF_STREAMS; i++) {
		EXPECT_EQ(cnt.busy_ps[i], snap.stream_busy_ps[i]);
		busy += snap.stream_busy_ps[i];
	}
	/* busy_time_ns is counted per execution, rounded down each time */
	EXPECT_GE(busy / 1000, snap.c[VN_STAT_BUSY_NS].total);
	EXPECT_LE(busy / 1000, snap.c[VN_STAT_BUSY_NS].total + 4);
	EXPECT_EQ(snap.begin, snap.end);
	/* A writer in progress makes a read fail rather than return a torn copy. */
	stats.begin++;
	EXPECT_FALSE(vn_core_stats_read(&stats, &snap));
}

/*
 * ---- the executor's own checks ----
 *
 * A validator bug is simulated without touching the validator: a valid program is loaded,
 * then its private copy (which the core owns and runs) is changed to the attack values.
 * With fault_abort off the execution must end FAULT, say where, touch nothing outside
 * the memories (ASan watches), and leave the core fit for the next execution.
 */

#define B16	VNEF_DT_BF16
#define SB_PB	VNEF_SBUF_PART_BYTES
#define PS_PB	VNEF_PSUM_PART_BYTES
#define U32M	0xffffffffu
#define DMAQ(q)	VNEF_STREAM_DMA(q)

struct want_fault {
	uint32_t reason, stream, pc, mem, index;
	uint64_t offset, len;
};

static uint32_t mem_reason(uint32_t mem)
{
	return mem == PS ? VN_REASON_FAULT_PSUM : VN_REASON_FAULT_SBUF;
}

/* Runs p on c: it must fault as w says; then a clean program runs normally. */
static void expect_fault(struct __test_metadata *_metadata, struct vn_core *c,
			 struct vn_program *p, const struct vn_bind *bi, uint32_t nb,
			 const struct want_fault *w, const char *what)
{
	struct vn_counters before, after;
	struct vn_exec_status st;
	struct vb b;

	vn_core_counters(c, &before);
	ASSERT_EQ(0, run_prog(c, p, bi, nb, &st)) TH_LOG("%s", what);
	EXPECT_EQ(VN_EXEC_DONE, st.state) TH_LOG("%s", what);
	EXPECT_EQ(VN_RES_FAULT, st.result) TH_LOG("%s", what);
	EXPECT_EQ(w->reason, st.reason) TH_LOG("%s", what);
	EXPECT_EQ(w->stream, st.stream) TH_LOG("%s", what);
	EXPECT_EQ(w->pc, st.pc) TH_LOG("%s", what);
	EXPECT_EQ(w->mem, st.fault.mem) TH_LOG("%s", what);
	EXPECT_EQ(w->index, st.fault.index) TH_LOG("%s", what);
	EXPECT_EQ(w->offset, st.fault.offset) TH_LOG("%s", what);
	EXPECT_EQ(w->len, st.fault.len) TH_LOG("%s", what);
	vn_core_counters(c, &after);
	EXPECT_EQ(before.exec_fault + 1, after.exec_fault) TH_LOG("%s", what);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(c, &b, NULL, &st)) TH_LOG("%s", what);
	EXPECT_EQ(VN_RES_OK, st.result) TH_LOG("after %s", what);
}

/* x [rows x 32 bytes] (HBM) to partitions p0.. of mem at byte off, one row each (q0). */
static void build_dma_in(struct vb *b, uint32_t rows, uint32_t mem, uint32_t p0, uint32_t off)
{
	vb_init(b);
	vb_tensor(b, "x", VNEF_TENSOR_INPUT, F32, rows, 8, NULL);
	vb_load(b, 0, 0, 0, 32, rows, 32, mem, p0, off);
}

/* The reverse: partitions p0.. of mem at off to y [rows x 32 bytes] (q0). */
static void build_dma_out(struct vb *b, uint32_t rows, uint32_t mem, uint32_t p0, uint32_t off)
{
	vb_init(b);
	vb_tensor(b, "y", VNEF_TENSOR_OUTPUT, F32, rows, 8, NULL);
	vb_store(b, 0, 0, 0, 32, rows, 32, mem, p0, off);
}

/* A DMA chunk for a partition past 127 stops there: the chunks before it landed. */
TEST_F(ex, fault_dma_past_last_partition)
{
	uint32_t x[16 * 8], y[16 * 8], i, m;
	struct vn_bind bx[1] = { { x, sizeof(x) } }, by[1] = { { y, sizeof(y) } };
	struct vn_program *p;
	struct vb b;

	for (i = 0; i < 16 * 8; i++)
		x[i] = 0x51000000u + i;
	vn_core_set_fault_abort(self->c, false);
	for (m = SB; m <= PS; m++) {
		uint32_t off = m == SB ? 4096 : 2048;
		struct want_fault w = { mem_reason(m), DMAQ(0), 0, m, 128, off, 32 };

		/* rows to 112..127, moved to 120..: row 8 would go to partition 128 */
		build_dma_in(&b, 16, m, 112, off);
		ASSERT_EQ(0, load_vb(&b, &p));
		prog_desc(p, 0, 0)->dst.partition = 120;
		expect_fault(_metadata, self->c, p, bx, 1, &w, "dst past 127");
		EXPECT_EQ(0, memcmp(chip_addr(self->c, m, 120, off), x, 32));
		EXPECT_EQ(0, memcmp(chip_addr(self->c, m, 127, off), x + 7 * 8, 32));
		vn_program_put(p);
		/* and reading: partitions 120..135 to y */
		build_dma_out(&b, 16, m, 112, off);
		ASSERT_EQ(0, load_vb(&b, &p));
		prog_desc(p, 0, 0)->src.partition = 120;
		expect_fault(_metadata, self->c, p, by, 1, &w, "src past 127");
		vn_program_put(p);
	}
}

/* The values of the validator attack, given to the executor: it faults at chunk (0, 1). */
TEST_F(ex, fault_dma_partition_sum_wraps)
{
	uint32_t x[8] = { 0 }, y[8], m, big;
	struct vn_bind bx[1] = { { x, sizeof(x) } }, by[1] = { { y, sizeof(y) } };
	struct vnef_dma_desc *d;
	struct vn_program *p;
	struct vb b;

	vn_core_set_fault_abort(self->c, false);
	for (m = SB; m <= PS; m++)
		for (big = 0; big < 2; big++) {
			/* chunk (0, 1) or (1, 0): partition 5 + 2^32 - 1 */
			struct want_fault w = { mem_reason(m), DMAQ(0), 0, m, U32M, 0, 1 };

			build_dma_in(&b, 1, m, 5, 0);
			ASSERT_EQ(0, load_vb(&b, &p));
			d = prog_desc(p, 0, 0);
			d->chunk_bytes = 1;
			d->count[0] = big ? 4 : U32M;
			d->count[1] = big ? U32M : 4;
			d->src.stride[0] = 0;
			d->dst.part_stride[0] = U32M;
			d->dst.part_stride[1] = U32M;
			expect_fault(_metadata, self->c, p, bx, 1, &w, "dst wraps");
			vn_program_put(p);

			build_dma_out(&b, 1, m, 5, 0);
			ASSERT_EQ(0, load_vb(&b, &p));
			d = prog_desc(p, 0, 0);
			d->chunk_bytes = 1;
			d->count[0] = big ? 4 : U32M;
			d->count[1] = big ? U32M : 4;
			d->dst.stride[0] = 0;
			d->src.part_stride[0] = U32M;
			d->src.part_stride[1] = U32M;
			expect_fault(_metadata, self->c, p, by, 1, &w, "src wraps");
			vn_program_put(p);
		}
}

/*
 * A chunk past the end of its partition, or whose byte offset wraps 64 bits. The fault
 * names the partition the chunk is in (5), as struct vn_fault and the trace's ERROR
 * record say, whichever of its bounds the chunk breaks.
 */
TEST_F(ex, fault_dma_past_partition_end)
{
	uint32_t x[8] = { 0 }, y[8], m;
	struct vn_bind bx[1] = { { x, sizeof(x) } }, by[1] = { { y, sizeof(y) } };
	struct vn_program *p;
	struct vb b;

	vn_core_set_fault_abort(self->c, false);
	for (m = SB; m <= PS; m++) {
		uint32_t pb = m == SB ? SB_PB : PS_PB;
		struct want_fault w = { mem_reason(m), DMAQ(0), 0, m, 5, pb - 16, 32 };

		build_dma_in(&b, 1, m, 5, pb - 32);
		ASSERT_EQ(0, load_vb(&b, &p));
		prog_desc(p, 0, 0)->dst.offset = pb - 16;
		expect_fault(_metadata, self->c, p, bx, 1, &w, "dst past the end");
		vn_program_put(p);

		build_dma_out(&b, 1, m, 5, pb - 32);
		ASSERT_EQ(0, load_vb(&b, &p));
		prog_desc(p, 0, 0)->src.offset = pb - 16;
		expect_fault(_metadata, self->c, p, by, 1, &w, "src past the end");
		vn_program_put(p);

		w.offset = ~0ull - 15;
		build_dma_in(&b, 1, m, 5, pb - 32);
		ASSERT_EQ(0, load_vb(&b, &p));
		prog_desc(p, 0, 0)->dst.offset = ~0ull - 15;	/* + 32 wraps to 16 */
		expect_fault(_metadata, self->c, p, bx, 1, &w, "dst offset wraps");
		vn_program_put(p);
	}
}

/* HBM: the buffer bound is exactly the tensor's size (malloc: ASan sees one byte past). */
TEST_F(ex, fault_dma_past_bound_buffer)
{
	uint8_t *x = malloc(128), *y = malloc(128);
	struct vn_bind bx[1] = { { x, 128 } }, by[1] = { { y, 128 } };
	struct want_fault w;
	struct vn_program *p;
	struct vb b;

	memset(x, 1, 128);
	vn_core_set_fault_abort(self->c, false);
	/* rows at 32, 64, 96 fit; the last, at 128, does not */
	w = (struct want_fault){ VN_REASON_FAULT_HBM, DMAQ(0), 0, VNEF_MEM_HBM, 0, 128, 32 };
	build_dma_in(&b, 4, SB, 0, 0);
	ASSERT_EQ(0, load_vb(&b, &p));
	prog_desc(p, 0, 0)->src.offset = 32;
	expect_fault(_metadata, self->c, p, bx, 1, &w, "read past the buffer");
	vn_program_put(p);
	w = (struct want_fault){ VN_REASON_FAULT_HBM, DMAQ(0), 0, VNEF_MEM_HBM, 0, 104, 32 };
	build_dma_out(&b, 4, SB, 0, 0);
	ASSERT_EQ(0, load_vb(&b, &p));
	prog_desc(p, 0, 0)->dst.offset = 8;
	expect_fault(_metadata, self->c, p, by, 1, &w, "write past the buffer");
	vn_program_put(p);
	/* row 1 at 2^63; row 2's offset would wrap 64 bits */
	w = (struct want_fault){ VN_REASON_FAULT_HBM, DMAQ(0), 0, VNEF_MEM_HBM, 0,
				1ull << 63, 32 };
	build_dma_in(&b, 4, SB, 0, 0);
	ASSERT_EQ(0, load_vb(&b, &p));
	prog_desc(p, 0, 0)->src.stride[0] = 1ull << 63;
	expect_fault(_metadata, self->c, p, bx, 1, &w, "stride wraps");
	vn_program_put(p);
	/* a tensor the program does not have */
	w = (struct want_fault){ VN_REASON_FAULT_HBM, DMAQ(0), 0, VNEF_MEM_HBM, 7, 0, 0 };
	build_dma_in(&b, 4, SB, 0, 0);
	ASSERT_EQ(0, load_vb(&b, &p));
	prog_desc(p, 0, 0)->src.tensor = 7;
	expect_fault(_metadata, self->c, p, bx, 1, &w, "no such tensor");
	vn_program_put(p);
	free(x);
	free(y);
}

/*
 * Engine operands: a valid instruction, then one operand changed. which: 0 dst, 1 src0,
 * 2 src1. The fault names the operand's memory, its start partition (or, past 127, the
 * last one it claims), the offset of its last element (or its own offset) and the size
 * of one element.
 */
struct ap_attack {
	const char *what;
	uint32_t engine, opcode, which;
	struct vnef_ap ok, bad;
	struct want_fault w;
};

static struct vnef_ap *instr_ap(struct vnef_instr *in, uint32_t which)
{
	return which == 0 ? &in->dst : which == 1 ? &in->src0 : &in->src1;
}

TEST_F(ex, fault_operand_out_of_range)
{
	const struct ap_attack rows[] = {
		{ "MEMSET dst one past SBUF", VE, VNEF_OP_MEMSET, 0,
		  vb_ap2(SB, F32, 0, 4, SB_PB - 256, 64), vb_ap2(SB, F32, 0, 4, SB_PB - 252, 64),
		  { VN_REASON_FAULT_SBUF, VE, 0, SB, 0, SB_PB, 4 } },
		{ "COPY src0 past PSUM", VE, VNEF_OP_COPY, 1,
		  vb_ap2(PS, F32, 0, 4, PS_PB - 256, 64), vb_ap2(PS, F32, 0, 4, PS_PB - 128, 64),
		  { VN_REASON_FAULT_PSUM, VE, 0, PS, 0, PS_PB + 124, 4 } },
		{ "ACTIVATE src0 index sum 2^32 + 2", SE, VNEF_OP_ACTIVATE, 1,
		  vb_ap2(SB, F32, 0, 4, 0, 64), vb_ap(SB, F32, 0, 4, 0, 2, U32M, 32, 1),
		  { VN_REASON_FAULT_SBUF, SE, 0, SB, 0, (U32M + 31ull) * 4, 4 } },
		{ "TENSOR_TENSOR src1 partitions 126..129", GE, VNEF_OP_TENSOR_TENSOR, 2,
		  vb_ap2(SB, F32, 0, 4, 1024, 64), vb_ap2(SB, F32, 126, 4, 1024, 64),
		  { VN_REASON_FAULT_SBUF, GE, 0, SB, 129, 1024, 4 } },
		{ "MEMSET dst partitions 0xffff + 2", GE, VNEF_OP_MEMSET, 0,
		  vb_ap2(SB, B16, 0, 4, 0, 64), vb_ap2(SB, B16, 0xffff, 4, 0, 64),
		  { VN_REASON_FAULT_SBUF, GE, 0, SB, 0x10002, 0, 2 } },
		{ "bf16 dst one past PSUM", VE, VNEF_OP_TENSOR_TENSOR, 0,
		  vb_ap2(PS, B16, 0, 4, PS_PB - 128, 64), vb_ap2(PS, B16, 0, 4, PS_PB - 126, 64),
		  { VN_REASON_FAULT_PSUM, VE, 0, PS, 0, PS_PB, 2 } },
		{ "REDUCE dst stride to one past SBUF", VE, VNEF_OP_REDUCE, 0,
		  vb_ap2(SB, F32, 0, 4, 8192, 1),
		  vb_ap(SB, F32, 0, 4, 8192, 1, 0, 2, (SB_PB - 8192) / 4),
		  { VN_REASON_FAULT_SBUF, VE, 0, SB, 0, SB_PB, 4 } },
	};
	struct vn_program *p;
	struct vnef_instr *in;
	uint32_t i;
	struct vb b;

	vn_core_set_fault_abort(self->c, false);
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		const struct ap_attack *r = &rows[i];
		float one = 1.0f;

		vb_init(&b);
		in = vb_op(&b, r->engine, r->opcode);
		in->dst = vb_ap2(SB, F32, 0, 4, 0, 64);
		if (r->opcode != VNEF_OP_MEMSET)
			in->src0 = vb_ap2(SB, F32, 0, 4, 512, 64);
		if (r->opcode == VNEF_OP_TENSOR_TENSOR)
			in->src1 = vb_ap2(SB, F32, 0, 4, 1024, 64);
		if (r->opcode == VNEF_OP_ACTIVATE)
			memcpy(&in->imm[0], &one, 4);
		if (r->opcode == VNEF_OP_REDUCE) {
			in->op = VNEF_ALU_ADD;
			in->dst = vb_ap2(SB, F32, 0, 4, 8192, 1);
		}
		*instr_ap(in, r->which) = r->ok;
		ASSERT_EQ(0, load_vb(&b, &p)) TH_LOG("%s", r->what);
		*instr_ap(prog_instr(p, r->engine, 0), r->which) = r->bad;
		expect_fault(_metadata, self->c, p, NULL, 0, &r->w, r->what);
		vn_program_put(p);
	}
}

/* LOAD_STATIONARY [128 x 128] fp32 at 0, then MULTIPLY_MOVING [128 x 64] bf16 to PSUM. */
static void build_mm(struct vb *b)
{
	struct vnef_instr *in;

	vb_init(b);
	in = vb_op(b, TE, VNEF_OP_LOAD_STATIONARY);
	in->src0 = vb_ap2(SB, F32, 0, 128, 0, 128);
	in = vb_op(b, TE, VNEF_OP_MULTIPLY_MOVING);
	in->src0 = vb_ap2(SB, B16, 0, 128, 65536, 64);
	in->dst = vb_ap2(PS, F32, 0, 128, 2048, 64);
}

/* Operands TensorE cannot hold with its state: a fault of the engine's state. */
TEST_F(ex, fault_tensor_state)
{
	struct vn_exec_status st;
	struct want_fault w;
	struct vn_program *p;
	struct vnef_instr *in;
	struct vb b;

	vn_core_set_fault_abort(self->c, false);
	/* once valid, so a stationary is loaded in this core's past */
	build_mm(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	ASSERT_EQ(VN_RES_OK, st.result);
	/* the moving operand has 64 partitions, the stationary K is 128 */
	w = (struct want_fault){ VN_REASON_FAULT_STATE, TE, 1, VNEF_MEM_NONE, 0, 65536, 0 };
	build_mm(&b);
	ASSERT_EQ(0, load_vb(&b, &p));
	prog_instr(p, TE, 1)->src0.partitions = 64;
	expect_fault(_metadata, self->c, p, NULL, 0, &w, "moving K 64 < 128");
	vn_program_put(p);
	/* the output has 100 partitions, the stationary M is 128 */
	w = (struct want_fault){ VN_REASON_FAULT_STATE, TE, 1, VNEF_MEM_NONE, 0, 2048, 0 };
	build_mm(&b);
	ASSERT_EQ(0, load_vb(&b, &p));
	prog_instr(p, TE, 1)->dst.partitions = 100;
	expect_fault(_metadata, self->c, p, NULL, 0, &w, "output M 100 < 128");
	vn_program_put(p);
	/* 513 moving columns: more than the engine's buffers hold */
	w = (struct want_fault){ VN_REASON_FAULT_STATE, TE, 1, VNEF_MEM_NONE, 0, 0, 0 };
	build_mm(&b);
	ASSERT_EQ(0, load_vb(&b, &p));
	in = prog_instr(p, TE, 1);
	in->src0.count[0] = 513;
	in->dst.count[0] = 513;
	expect_fault(_metadata, self->c, p, NULL, 0, &w, "N 513");
	vn_program_put(p);
	/* no LOAD_STATIONARY in this execution: the last one's is not used */
	w = (struct want_fault){ VN_REASON_FAULT_STATE, TE, 1, VNEF_MEM_NONE, 0, 0, 0 };
	build_mm(&b);
	ASSERT_EQ(0, load_vb(&b, &p));
	in = prog_instr(p, TE, 0);
	memset(in, 0, sizeof(*in));
	in->opcode = VNEF_OP_NOP;
	expect_fault(_metadata, self->c, p, NULL, 0, &w, "no stationary");
	vn_program_put(p);
}

/* VectorE signals sem 3 once (V[0]); V[1] is a NOP; ScalarE waits for sem 3 >= 1. */
static void build_sems(struct vb *b)
{
	struct vnef_instr *in;
	struct vnef_dma_desc *d;

	vb_init(b);
	in = vb_op(b, VE, VNEF_OP_NOP);
	in->signal_mask = 1ull << 3;
	vb_op(b, VE, VNEF_OP_NOP);
	in = vb_op(b, SE, VNEF_OP_NOP);
	VB_WAIT(in, 3, 1);
	/* queue 2 copies 4 bytes on chip once sem 3 >= 1, and signals sem 4 */
	d = vb_dma(b, 2);
	VB_WAIT(d, 3, 1);
	d->chunk_bytes = 4;
	d->count[0] = d->count[1] = 1;
	d->src = vb_chip(SB, 0, 0, 0, 0, 0, 0);
	d->dst = vb_chip(SB, 1, 0, 0, 0, 0, 0);
	d->signal_mask = 1ull << 4;
}

/* Waits for a value the program never signals, or for a semaphore past the table. */
TEST_F(ex, fault_wait_beyond_signals)
{
	static const uint32_t waits[][2] = { { 3, 2 }, { 9, 1 }, { 64, 1 }, { U32M, 1 },
					     { 3, U32M } };
	struct vn_program *p;
	struct vnef_dma_desc *d;
	struct vnef_instr *in;
	uint32_t i;
	struct vb b;

	vn_core_set_fault_abort(self->c, false);
	for (i = 0; i < ARRAY_SIZE(waits); i++) {
		struct want_fault w = { VN_REASON_FAULT_SEM, SE, 0, VNEF_MEM_NONE, waits[i][0],
					waits[i][1], 0 };

		build_sems(&b);
		ASSERT_EQ(0, load_vb(&b, &p));
		in = prog_instr(p, SE, 0);
		in->wait_sem = waits[i][0];
		in->wait_value = waits[i][1];
		expect_fault(_metadata, self->c, p, NULL, 0, &w, "engine wait");
		vn_program_put(p);

		w.stream = DMAQ(2);
		build_sems(&b);
		ASSERT_EQ(0, load_vb(&b, &p));
		d = prog_desc(p, 2, 0);
		d->wait_sem = waits[i][0];
		d->wait_value = waits[i][1];
		expect_fault(_metadata, self->c, p, NULL, 0, &w, "DMA wait");
		vn_program_put(p);
	}
}

/* More signals than the validator counted: past the semaphore's time table. */
TEST_F(ex, fault_signal_beyond_table)
{
	struct want_fault w;
	struct vn_program *p;
	struct vb b;

	vn_core_set_fault_abort(self->c, false);
	/* sem 5 is never signalled: its table has no slot */
	w = (struct want_fault){ VN_REASON_FAULT_SEM, VE, 1, VNEF_MEM_NONE, 5, 1, 0 };
	build_sems(&b);
	ASSERT_EQ(0, load_vb(&b, &p));
	prog_instr(p, VE, 1)->signal_mask = 1ull << 5;
	expect_fault(_metadata, self->c, p, NULL, 0, &w, "unsignalled sem");
	vn_program_put(p);
	/* sem 3 a second time: one slot */
	w = (struct want_fault){ VN_REASON_FAULT_SEM, VE, 1, VNEF_MEM_NONE, 3, 2, 0 };
	build_sems(&b);
	ASSERT_EQ(0, load_vb(&b, &p));
	prog_instr(p, VE, 1)->signal_mask = 1ull << 3;
	expect_fault(_metadata, self->c, p, NULL, 0, &w, "sem 3 twice");
	vn_program_put(p);
	/* a DMA descriptor signalling sem 63, never counted */
	w = (struct want_fault){ VN_REASON_FAULT_SEM, DMAQ(2), 0, VNEF_MEM_NONE, 63, 1, 0 };
	build_sems(&b);
	ASSERT_EQ(0, load_vb(&b, &p));
	prog_desc(p, 2, 0)->signal_mask |= 1ull << 63;
	expect_fault(_metadata, self->c, p, NULL, 0, &w, "DMA signals sem 63");
	vn_program_put(p);
}

/*
 * A CONST tensor is bound by the core to its bytes in the program's copy: a tensor table
 * the validator let through with const_off or size past the CONST section must not make
 * a DMA read past that copy. Refusing the submission or faulting the DMA are both fine.
 */
TEST_F(ex, const_binding_stays_inside_the_program)
{
	static const float k[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct vn_bind bi[1] = { { NULL, 0 } };	/* CONST: the core binds it */
	struct vn_exec_status st;
	struct vnef_tensor *t;
	struct vn_program *p;
	struct vn_exec *e;
	uint32_t i;
	struct vb b;
	int r;

	vn_core_set_fault_abort(self->c, false);
	/* unchanged, it runs */
	vb_init(&b);
	vb_tensor(&b, "k", VNEF_TENSOR_CONST, F32, 8, 0, k);
	vb_load(&b, 0, 0, 0, 32, 1, 32, SB, 0, 0);
	ASSERT_EQ(0, load_vb(&b, &p));
	ASSERT_EQ(0, run_prog(self->c, p, bi, 1, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
	EXPECT_EQ(0, memcmp(vn_core_sbuf(self->c, 0), k, 32));
	vn_program_put(p);
	for (i = 0; i < 2; i++) {
		vb_init(&b);
		vb_tensor(&b, "k", VNEF_TENSOR_CONST, F32, 8, 0, k);
		vb_load(&b, 0, 0, 0, 32, 1, 32, SB, 0, 0);
		ASSERT_EQ(0, load_vb(&b, &p));
		t = (struct vnef_tensor *)(p->image + ((const uint8_t *)p->tensors - p->image));
		if (i) {
			t->shape[0] = 1 << 18;		/* 1 MiB, the descriptor reads its end */
			t->size = 1 << 20;
			prog_desc(p, 0, 0)->src.offset = (1 << 20) - 32;
		} else {
			t->const_off = 1 << 20;		/* past the image */
		}
		r = vn_exec_submit(self->c, p, bi, 1, 0, NULL, NULL, &e);
		if (!r) {
			ASSERT_EQ(0, vn_exec_wait(e, 0));
			vn_exec_status(e, &st);
			EXPECT_EQ(VN_RES_FAULT, st.result) TH_LOG("case %u", i);
			EXPECT_EQ(VN_REASON_FAULT_HBM, st.reason) TH_LOG("case %u", i);
			vn_exec_put(e);
		} else {
			EXPECT_EQ(-EINVAL, r) TH_LOG("case %u", i);
		}
		vn_program_put(p);
	}
}

/* A fault ends only its own execution: the one queued behind it runs normally. */
TEST_F(ex, fault_then_queued_execution_runs)
{
	uint32_t x[16 * 8] = { 0 };
	struct vn_bind bx[1] = { { x, sizeof(x) } };
	struct vn_program *bad, *ok;
	struct vn_exec *e1, *e2;
	struct vn_exec_status st;
	struct vb b;

	vn_core_set_fault_abort(self->c, false);
	build_dma_in(&b, 16, SB, 112, 0);
	ASSERT_EQ(0, load_vb(&b, &bad));
	prog_desc(bad, 0, 0)->dst.partition = 113;
	build_small_ok(&b);
	ASSERT_EQ(0, load_vb(&b, &ok));
	ASSERT_EQ(0, vn_exec_submit(self->c, bad, bx, 1, 0, NULL, NULL, &e1));
	ASSERT_EQ(0, vn_exec_submit(self->c, ok, NULL, 0, 0, NULL, NULL, &e2));
	ASSERT_EQ(0, vn_exec_wait(e2, 0));
	ASSERT_EQ(0, vn_exec_wait(e1, 0));
	vn_exec_status(e1, &st);
	EXPECT_EQ(VN_RES_FAULT, st.result);
	EXPECT_EQ(128u, st.fault.index);
	vn_exec_status(e2, &st);
	EXPECT_EQ(VN_RES_OK, st.result);
	EXPECT_EQ(VNEF_MEM_NONE, st.fault.mem);
	vn_exec_put(e1);
	vn_exec_put(e2);
	vn_program_put(bad);
	vn_program_put(ok);
}

/* In the host build a fault aborts by default (so fuzzers find what the validator misses). */
static void fault_child_dma(void *arg)
{
	uint32_t x[16 * 8] = { 0 };
	struct vn_bind bx[1] = { { x, sizeof(x) } };
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_core *c;
	struct vb b;

	if (vn_core_create(NULL, "abort", &c))
		_exit(3);
	build_dma_in(&b, 16, SB, 112, 0);
	if (load_vb(&b, &p))
		_exit(4);
	prog_desc(p, 0, 0)->dst.partition = 120;
	run_prog(c, p, bx, 1, &st);
	_exit(5);	/* not reached: the fault aborted */
}

static void fault_child_state(void *arg)
{
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_core *c;
	struct vb b;

	if (vn_core_create(NULL, "abort", &c))
		_exit(3);
	build_mm(&b);
	if (load_vb(&b, &p))
		_exit(4);
	prog_instr(p, TE, 1)->src0.partitions = 64;
	run_prog(c, p, NULL, 0, &st);
	_exit(5);
}

TEST(fault_aborts_by_default)
{
	char err[4096];
	int status;

	status = run_child(fault_child_dma, NULL, err, sizeof(err));
	EXPECT_TRUE(aborted(status)) TH_LOG("status %#x, stderr: %s", status, err);
	EXPECT_NE(NULL, strstr(err, "device fault")) TH_LOG("stderr: %s", err);
	EXPECT_NE(NULL, strstr(err, "outside SBUF")) TH_LOG("stderr: %s", err);
	status = run_child(fault_child_state, NULL, err, sizeof(err));
	EXPECT_TRUE(aborted(status)) TH_LOG("status %#x, stderr: %s", status, err);
	EXPECT_NE(NULL, strstr(err, "device fault")) TH_LOG("stderr: %s", err);
	EXPECT_NE(NULL, strstr(err, "the engine cannot hold")) TH_LOG("stderr: %s", err);
}

/*
 * ---- on-chip data and owners ----
 *
 * W writes a pattern over SBUF (the first and last KiB of every partition), all of PSUM,
 * and signals sem 7 five times. R copies those places to three output tensors and
 * signals sem 7 once.
 */
#define OWNER_A	0x1001
#define OWNER_B	0x2002

static void build_writer(struct vb *b)
{
	struct vnef_instr *in;
	float v = 2.5f;
	uint32_t i;

	vb_init(b);
	in = vb_op(b, GE, VNEF_OP_IOTA);	/* 1 + p * 1000 + j: never 0 */
	in->dst = vb_ap2(SB, F32, 0, 128, 0, 256);
	in->imm[0] = 1;
	in->imm[1] = 1000;
	in->imm[2] = 1;
	in = vb_op(b, GE, VNEF_OP_IOTA);
	in->dst = vb_ap2(SB, F32, 0, 128, SB_PB - 1024, 256);
	in->imm[0] = 7;
	in->imm[1] = 3;
	in->imm[2] = 5;
	in = vb_op(b, VE, VNEF_OP_MEMSET);
	in->dst = vb_ap2(PS, F32, 0, 128, 0, PS_PB / 4);
	memcpy(&in->imm[0], &v, 4);
	for (i = 0; i < 5; i++) {
		in = vb_op(b, VE, VNEF_OP_NOP);
		in->signal_mask = 1ull << 7;
	}
}

static void build_reader(struct vb *b)
{
	struct vnef_instr *in;

	vb_init(b);
	vb_tensor(b, "lo", VNEF_TENSOR_OUTPUT, F32, 128, 256, NULL);
	vb_tensor(b, "hi", VNEF_TENSOR_OUTPUT, F32, 128, 256, NULL);
	vb_tensor(b, "ps", VNEF_TENSOR_OUTPUT, F32, 128, PS_PB / 4, NULL);
	vb_store(b, 0, 0, 0, 1024, 128, 1024, SB, 0, 0);
	vb_store(b, 1, 1, 0, 1024, 128, 1024, SB, 0, SB_PB - 1024);
	vb_store(b, 2, 2, 0, PS_PB, 128, PS_PB, PS, 0, 0);
	in = vb_op(b, VE, VNEF_OP_NOP);
	in->signal_mask = 1ull << 7;
}

struct readout {
	uint8_t lo[128 * 1024], hi[128 * 1024], ps[128 * PS_PB];
	uint32_t sem7;		/* sem 7's value after R's only signal */
};

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* Runs W on c, for its current owner. */
static void run_writer(struct __test_metadata *_metadata, struct vn_core *c)
{
	struct vn_exec_status st;
	struct vb b;

	build_writer(&b);
	ASSERT_EQ(0, run_b(c, &b, NULL, &st));
	ASSERT_EQ(VN_RES_OK, st.result);
}

/* Runs R on c, its outputs and sem 7 in r. */
static void run_reader(struct __test_metadata *_metadata, struct vn_core *c, struct readout *r)
{
	struct vn_bind bi[3] = { { r->lo, sizeof(r->lo) }, { r->hi, sizeof(r->hi) },
				 { r->ps, sizeof(r->ps) } };
	static struct evlog l;
	struct vn_exec_status st;
	struct vb b;
	uint32_t i;

	memset(r, 0x5a, sizeof(*r));
	memset(&l, 0, sizeof(l));
	pthread_mutex_init(&l.m, NULL);
	vn_core_set_hook(c, log_hook, &l);
	build_reader(&b);
	ASSERT_EQ(0, run_b(c, &b, bi, &st));
	vn_core_set_hook(c, NULL, NULL);
	ASSERT_EQ(VN_RES_OK, st.result);
	r->sem7 = 0;
	for (i = 0; i < l.n; i++)
		if (l.ev[i].stream == VE)
			r->sem7 = l.ev[i].flags >> 16;
}

/* R's outputs hold what W wrote: the same bytes as on chip, none of them zero. */
static bool sees_pattern(struct vn_core *c, const struct readout *r)
{
	uint32_t p, j;

	for (p = 0; p < 128; p++) {
		if (memcmp(r->lo + p * 1024, vn_core_sbuf(c, p), 1024) ||
		    memcmp(r->hi + p * 1024, vn_core_sbuf(c, p) + SB_PB - 1024, 1024) ||
		    memcmp(r->ps + p * PS_PB, vn_core_psum(c, p), PS_PB))
			return false;
		for (j = 0; j < 256; j++)
			if (!chip_get(c, SB, F32, p, 0, j) ||
			    !chip_get(c, SB, F32, p, SB_PB - 1024, j))
				return false;
		for (j = 0; j < PS_PB / 4; j++)
			if (chip_get(c, PS, F32, p, 0, j) != 2.5f)
				return false;
	}
	return true;
}

static bool sees_zeros(const struct readout *r)
{
	return all_zero(r->lo, sizeof(r->lo)) && all_zero(r->hi, sizeof(r->hi)) &&
	       all_zero(r->ps, sizeof(r->ps));
}

TEST_F(ex, owner_change_scrubs_chip)
{
	struct readout *r = malloc(sizeof(*r));

	/* A writes; A's next executions still see it (no scrub between them) */
	vn_core_set_owner(self->c, OWNER_A);
	run_writer(_metadata, self->c);
	run_reader(_metadata, self->c, r);
	EXPECT_TRUE(sees_pattern(self->c, r));
	EXPECT_EQ(1u, r->sem7);		/* semaphores start at 0 in every execution */
	vn_core_set_owner(self->c, OWNER_A);
	run_reader(_metadata, self->c, r);
	EXPECT_TRUE(sees_pattern(self->c, r));

	/* B's first execution reads zeros everywhere, and all of SBUF and PSUM is zero */
	vn_core_set_owner(self->c, OWNER_B);
	run_reader(_metadata, self->c, r);
	EXPECT_TRUE(sees_zeros(r));
	EXPECT_EQ(1u, r->sem7);
	EXPECT_TRUE(chip_all_zero(self->c));

	/* B writes; back to A: A does not see B's data either */
	run_writer(_metadata, self->c);
	run_reader(_metadata, self->c, r);
	EXPECT_TRUE(sees_pattern(self->c, r));
	vn_core_set_owner(self->c, OWNER_A);
	run_reader(_metadata, self->c, r);
	EXPECT_TRUE(sees_zeros(r));
	EXPECT_TRUE(chip_all_zero(self->c));

	/* owner 0 (none) is an owner like any other */
	run_writer(_metadata, self->c);
	vn_core_set_owner(self->c, 0);
	run_reader(_metadata, self->c, r);
	EXPECT_TRUE(sees_zeros(r));
	free(r);
}

TEST_F(ex, reset_scrubs_chip)
{
	struct readout *r = malloc(sizeof(*r));

	vn_core_set_owner(self->c, OWNER_A);
	run_writer(_metadata, self->c);
	vn_core_reset(self->c);
	EXPECT_TRUE(chip_all_zero(self->c));
	run_reader(_metadata, self->c, r);	/* the same owner, after a reset */
	EXPECT_TRUE(sees_zeros(r));
	EXPECT_EQ(1u, r->sem7);
	free(r);
}

/*
 * ---- TensorE in steps ----
 *
 * One MULTIPLY_MOVING runs in FPU sections of at most VN_MM_STEP_MACS multiply-adds,
 * split by whole groups of VN_MM_STEP_COLS columns. The micro-kernels compute every
 * output alone: acc = 0, then acc += stat[k][m] * mov[k][n] for k in order, then one
 * add of the old PSUM value with VNEF_IF_ACCUMULATE. A plain loop doing the same is the
 * unsplit pass bit for bit; the kernels may fuse the multiply-add (FMA) where the build
 * lets the compiler contract, so both roundings are computed and one must match all.
 */
static float ref_dot(const float *st, const float *mv, uint32_t k_n, uint32_t m_n,
		     uint32_t n_n, uint32_t m, uint32_t n, bool fused)
{
	volatile float prod;
	float s = 0;
	uint32_t k;

	for (k = 0; k < k_n; k++) {
		if (fused) {
			s = fmaf(st[k * m_n + m], mv[k * n_n + n], s);
		} else {
			prod = st[k * m_n + m] * mv[k * n_n + n];	/* rounded on its own */
			s += prod;
		}
	}
	return s;
}

static uint32_t bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

/* FPU sections one MULTIPLY_MOVING of this shape takes. */
static unsigned long mm_sections(uint32_t k_n, uint32_t m_n, uint32_t n_n)
{
	uint32_t cols = VN_MM_STEP_MACS / (k_n * m_n) / VN_MM_STEP_COLS * VN_MM_STEP_COLS;

	if (cols < VN_MM_STEP_COLS)
		cols = VN_MM_STEP_COLS;
	return (n_n + cols - 1) / cols;
}

/*
 * K x M stationary at SBUF 0, K x N moving at SBUF 65536, M x N out at PSUM 0 (the old
 * values there added with acc). strict: every output matches one rounding; else each
 * output matches either (shapes with edges, which a build may compile apart).
 */
static void check_mm_bits(struct __test_metadata *_metadata, struct vn_core *c, uint32_t dt,
			  uint32_t k_n, uint32_t m_n, uint32_t n_n, bool acc, bool strict)
{
	float *st = malloc(4 * k_n * m_n), *mv = malloc(4 * k_n * n_n);
	float *old = malloc(4 * m_n * n_n);
	uint32_t k, m, n, bad_sep = 0, bad_fma = 0, bad_any = 0;
	struct vn_exec_status s;
	struct vnef_instr *in;
	unsigned long sec0;
	struct vb b;

	chip_fill(c, SB, dt, 0, k_n, 0, m_n, 31);
	chip_fill(c, SB, dt, 0, k_n, 65536, n_n, 32);
	chip_fill(c, PS, F32, 0, m_n, 0, n_n, 33);
	for (k = 0; k < k_n; k++) {
		for (m = 0; m < m_n; m++)
			st[k * m_n + m] = chip_get(c, SB, dt, k, 0, m);
		for (n = 0; n < n_n; n++)
			mv[k * n_n + n] = chip_get(c, SB, dt, k, 65536, n);
	}
	for (m = 0; m < m_n; m++)
		for (n = 0; n < n_n; n++)
			old[m * n_n + n] = chip_get(c, PS, F32, m, 0, n);
	vb_init(&b);
	in = vb_op(&b, TE, VNEF_OP_LOAD_STATIONARY);
	in->src0 = vb_ap2(SB, dt, 0, k_n, 0, m_n);
	in = vb_op(&b, TE, VNEF_OP_MULTIPLY_MOVING);
	in->src0 = vb_ap2(SB, dt, 0, k_n, 65536, n_n);
	in->dst = vb_ap2(PS, F32, 0, m_n, 0, n_n);
	if (acc)
		in->flags = VNEF_IF_ACCUMULATE;
	sec0 = __atomic_load_n(&vn_os_fpu_sections, __ATOMIC_RELAXED);
	ASSERT_EQ(0, run_vb(c, &b, &s));
	/* the load, then the multiply in its steps */
	EXPECT_EQ(1 + mm_sections(k_n, m_n, n_n),
		  __atomic_load_n(&vn_os_fpu_sections, __ATOMIC_RELAXED) - sec0);
	for (m = 0; m < m_n; m++)
		for (n = 0; n < n_n; n++) {
			float sep = ref_dot(st, mv, k_n, m_n, n_n, m, n, false);
			float fus = ref_dot(st, mv, k_n, m_n, n_n, m, n, true);
			uint32_t got = bits(chip_get(c, PS, F32, m, 0, n));

			if (acc) {
				sep += old[m * n_n + n];
				fus += old[m * n_n + n];
			}
			bad_sep += got != bits(sep);
			bad_fma += got != bits(fus);
			if (got != bits(sep) && got != bits(fus) && !bad_any++)
				TH_LOG("[%u][%u] got %#x, one pass gives %#x (or fused %#x)", m,
				       n, got, bits(sep), bits(fus));
		}
	EXPECT_EQ(0u, bad_any) TH_LOG("dt %u %ux%ux%u acc %d", dt, k_n, m_n, n_n, acc);
	if (strict)
		EXPECT_TRUE(!bad_sep || !bad_fma)
			TH_LOG("outputs mix roundings: %u unfused, %u fused differ", bad_sep,
			       bad_fma);
	free(st);
	free(mv);
	free(old);
}

TEST_F(ex, tensor_steps_are_bit_exact)
{
	static const uint32_t dts[2] = { F32, B16 };
	uint32_t d, acc;

	for (d = 0; d < 2; d++)
		for (acc = 0; acc < 2; acc++) {
			check_mm_bits(_metadata, self->c, dts[d], 128, 128, 512, acc, true);
			/* edges: rows and columns past the kernels' blocks, a short last step */
			check_mm_bits(_metadata, self->c, dts[d], 96, 100, 500, acc, false);
		}
	/* a full multiply is at least 16 sections: 8 Mi multiply-adds in 2^19 steps */
	EXPECT_GE(mm_sections(128, 128, 512), 16ul);
}

/*
 * A core reuses ended executions (their semaphore times, binds and status): each run
 * of the matmul, on a spare after the first, and a small program's runs in between,
 * must give the first run's output and modeled time bit for bit.
 */
TEST_F(ex, spare_executions_give_the_same_results)
{
	float *at = fmat(512, 512, 1), *bm = fmat(512, 512, 2);
	float *c1 = calloc(512 * 512, 4), *c2 = calloc(512 * 512, 4);
	struct vn_bind b1[3] = { { at, 1 << 20 }, { bm, 1 << 20 }, { c1, 1 << 20 } };
	struct vn_bind b2[3] = { { at, 1 << 20 }, { bm, 1 << 20 }, { c2, 1 << 20 } };
	struct vn_exec_status s1, s2, ss;
	struct vb b;
	int i;

	build_matmul(&b);
	ASSERT_EQ(0, run_b(self->c, &b, b1, &s1));
	ASSERT_EQ(VN_RES_OK, s1.result);
	for (i = 0; i < 3; i++) {
		build_small_ok(&b);
		ASSERT_EQ(0, run_vb(self->c, &b, &ss));
		EXPECT_EQ(VN_RES_OK, ss.result);
		memset(c2, 0, 1 << 20);
		build_matmul(&b);
		ASSERT_EQ(0, run_b(self->c, &b, b2, &s2));
		EXPECT_EQ(VN_RES_OK, s2.result);
		EXPECT_EQ(s1.model_ps, s2.model_ps);
		EXPECT_EQ(0, memcmp(c1, c2, 1 << 20));
	}
	free(at);
	free(bm);
	free(c1);
	free(c2);
}

TEST_HARNESS_MAIN
