// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The executor end to end on kernels: DMA patterns, scratch and constants, bindings,
 * tiled matmul, exp with a masked last tile, softmax, layernorm, determinism of the
 * modeled timeline, DMA/compute overlap.
 */
#include "exec_core.h"

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

TEST_HARNESS_MAIN
