// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The program builder: its images pass the device core's validator (core/program.c),
 * semaphores follow the format's rules, the debug table carries file:line and scopes,
 * images are reproducible, and the listing, bf16 and fp8 matmuls are right.
 */
#include "builder_util.h"

/* The NKI exp kernel of the profiler blog: 128-partition tiles, masked last tile. */
static void build_exp(struct nd_builder *b, int double_buffer)
{
	struct nd_tensor *in = nd_input(b, "in", ND_FP32, 2, SHAPE_250x512);
	struct nd_tensor *out = nd_output(b, "out", ND_FP32, 2, SHAPE_250x512);
	struct nd_tile *ti[2], *to[2];
	uint32_t p, i = 0;

	ti[0] = nd_sbuf(b, "in0", ND_FP32, 128, 512);
	to[0] = nd_sbuf(b, "out0", ND_FP32, 128, 512);
	ti[1] = double_buffer ? nd_sbuf(b, "in1", ND_FP32, 128, 512) : ti[0];
	to[1] = double_buffer ? nd_sbuf(b, "out1", ND_FP32, 128, 512) : to[0];
	for (p = 0; p < 250; p += 128, i ^= 1) {
		uint32_t np = 250 - p < 128 ? 250 - p : 128;

		nd_load(b, ND_QUEUE_AUTO, nd_part(ti[i], 0, np, 0, 512), nd_hbm_rows(in, p, 0));
		nd_activate(b, nd_part(to[i], 0, np, 0, 512), nd_part(ti[i], 0, np, 0, 512),
			    ND_ACT_EXP, 1.0f, 0.0f);
		nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(out, p, 0), nd_part(to[i], 0, np, 0, 512));
	}
}

TEST(exp_kernel_validates)
{
	struct nd_builder *b;
	struct vn_program *p = NULL;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("exp", &b));
	build_exp(b, 0);
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	EXPECT_EQ(2, p->tensor_count);
	{
		const struct vn_stream *sc = &p->streams[VNEURON_ENGINE_SCALAR];
		uint32_t i, acts = 0;

		for (i = 0; i < sc->count; i++)
			acts += sc->instr[i].opcode == VNEF_OP_ACTIVATE;
		EXPECT_EQ(2, acts);
	}
	EXPECT_STREQ("exp", vn_program_str(p, ((struct vnef_header *)img)->name_off));
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/* Every semaphore has one signalling stream and every wait is reached. */
static void check_sems(struct __test_metadata *_metadata, const struct vn_program *p)
{
	uint32_t s;

	for (s = 0; s < VNEF_MAX_SEMS; s++) {
		if (p->sem_writer[s] == ~0u)
			continue;
		/* The builder gives semaphore s to stream s. */
		EXPECT_EQ(s, p->sem_writer[s]);
	}
}

TEST(semaphores_one_writer_each)
{
	struct nd_builder *b;
	struct vn_program *p = NULL;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("exp2", &b));
	build_exp(b, 1);
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	check_sems(_metadata, p);
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/* The exp kernel's activation waits on its load: exactly one wait, on that DMA queue. */
TEST(simple_dependency_gets_one_wait)
{
	struct nd_builder *b;
	struct vn_program *p = NULL;
	const struct vnef_instr *in;
	const struct vnef_dma_desc *st;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("one", &b));
	{
		struct nd_tensor *x = nd_input(b, "x", ND_FP32, 2, SHAPE_128x128);
		struct nd_tensor *y = nd_output(b, "y", ND_FP32, 2, SHAPE_128x128);
		struct nd_tile *t = nd_sbuf(b, "t", ND_FP32, 128, 128);

		ASSERT_EQ(0, nd_load(b, 3, nd_whole(t), nd_hbm_rows(x, 0, 0)));
		ASSERT_EQ(0, nd_activate(b, nd_whole(t), nd_whole(t), ND_ACT_TANH, 2.0f, 0.5f));
		ASSERT_EQ(0, nd_store(b, 5, nd_hbm_rows(y, 0, 0), nd_whole(t)));
	}
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	ASSERT_EQ(1, p->streams[VNEURON_ENGINE_SCALAR].count);
	in = &p->streams[VNEURON_ENGINE_SCALAR].instr[0];
	EXPECT_EQ(VNEF_OP_ACTIVATE, in->opcode);
	EXPECT_EQ(VNEF_IF_WAIT, in->flags & VNEF_IF_WAIT);
	EXPECT_EQ(VNEF_STREAM_DMA(3), in->wait_sem);
	EXPECT_EQ(1, in->wait_value);
	EXPECT_EQ(1ull << VNEURON_ENGINE_SCALAR, in->signal_mask);
	ASSERT_EQ(1, p->streams[VNEF_STREAM_DMA(3)].count);
	EXPECT_EQ(1ull << VNEF_STREAM_DMA(3), p->streams[VNEF_STREAM_DMA(3)].desc[0].signal_mask);
	st = &p->streams[VNEF_STREAM_DMA(5)].desc[0];
	EXPECT_EQ(VNEF_IF_WAIT, st->flags);
	EXPECT_EQ(VNEURON_ENGINE_SCALAR, st->wait_sem);
	EXPECT_EQ(1, st->wait_value);
	EXPECT_EQ(0, st->signal_mask);
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/*
 * Waits implied by other waits are dropped: VectorE waits on ScalarE, which already
 * waited on the load, so VectorE needs no wait on the DMA queue.
 */
TEST(implied_waits_are_dropped)
{
	struct nd_builder *b;
	struct vn_program *p = NULL;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("implied", &b));
	{
		struct nd_tensor *x = nd_input(b, "x", ND_FP32, 2, SHAPE_128x128);
		struct nd_tile *t = nd_sbuf(b, "t", ND_FP32, 128, 128);
		struct nd_tile *u = nd_sbuf(b, "u", ND_FP32, 128, 128);
		struct nd_tile *v = nd_sbuf(b, "v", ND_FP32, 128, 128);

		ASSERT_EQ(0, nd_load(b, 0, nd_whole(t), nd_hbm_rows(x, 0, 0)));
		ASSERT_EQ(0, nd_activate(b, nd_whole(u), nd_whole(t), ND_ACT_EXP, 1.0f, 0.0f));
		/* reads t (DMA) and u (ScalarE): the ScalarE wait implies the DMA one */
		ASSERT_EQ(0, nd_tensor_tensor(b, ND_VECTOR, nd_whole(v), nd_whole(t), nd_whole(u),
					      ND_ADD));
	}
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	ASSERT_EQ(1, p->streams[VNEURON_ENGINE_VECTOR].count);
	EXPECT_EQ(VNEURON_ENGINE_SCALAR, p->streams[VNEURON_ENGINE_VECTOR].instr[0].wait_sem);
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/* Two unrelated producers: the consumer gets a NOP carrying the first wait. */
TEST(two_waits_use_a_nop)
{
	struct nd_builder *b;
	struct vn_program *p = NULL;
	const struct vn_stream *vs;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("two", &b));
	{
		struct nd_tensor *x = nd_input(b, "x", ND_FP32, 2, SHAPE_128x128);
		struct nd_tile *t = nd_sbuf(b, "t", ND_FP32, 128, 128);
		struct nd_tile *u = nd_sbuf(b, "u", ND_FP32, 128, 128);
		struct nd_tile *v = nd_sbuf(b, "v", ND_FP32, 128, 128);

		ASSERT_EQ(0, nd_load(b, 0, nd_whole(t), nd_hbm_rows(x, 0, 0)));
		ASSERT_EQ(0, nd_load(b, 1, nd_whole(u), nd_hbm_rows(x, 0, 0)));
		ASSERT_EQ(0, nd_tensor_tensor(b, ND_VECTOR, nd_whole(v), nd_whole(t), nd_whole(u),
					      ND_MUL));
		/* a store waiting on two loads' readers and VectorE: DMA queues get help */
		ASSERT_EQ(0, nd_load(b, 2, nd_whole(t), nd_hbm_rows(x, 0, 0)));
	}
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	vs = &p->streams[VNEURON_ENGINE_VECTOR];
	ASSERT_EQ(2, vs->count);
	EXPECT_EQ(VNEF_OP_NOP, vs->instr[0].opcode);
	EXPECT_EQ(VNEF_IF_WAIT, vs->instr[0].flags);
	EXPECT_EQ(VNEF_OP_TENSOR_TENSOR, vs->instr[1].opcode);
	EXPECT_EQ(VNEF_IF_WAIT, vs->instr[1].flags);
	EXPECT_NE(vs->instr[0].wait_sem, vs->instr[1].wait_sem);
	check_sems(_metadata, p);
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/* A DMA that must wait on two engines: the waits gather on one of them. */
TEST(dma_with_two_waits)
{
	struct nd_builder *b;
	struct vn_program *p = NULL;
	const struct vnef_dma_desc *d;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("dma2", &b));
	{
		struct nd_tensor *x = nd_input(b, "x", ND_FP32, 2, SHAPE_128x128);
		struct nd_tensor *y = nd_output(b, "y", ND_FP32, 2, SHAPE_128x128);
		struct nd_tile *t = nd_sbuf(b, "t", ND_FP32, 128, 128);

		ASSERT_EQ(0, nd_memset(b, ND_VECTOR, nd_part(t, 0, 64, 0, 128), 1.0f));
		ASSERT_EQ(0, nd_memset(b, ND_GPSIMD, nd_part(t, 64, 64, 0, 128), 2.0f));
		ASSERT_EQ(0, nd_store(b, 0, nd_hbm_rows(y, 0, 0), nd_whole(t)));
		(void)x;
	}
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	d = &p->streams[VNEF_STREAM_DMA(0)].desc[0];
	EXPECT_EQ(VNEF_IF_WAIT, d->flags);
	check_sems(_metadata, p);
	/* one of the engines carries a NOP waiting on the other */
	EXPECT_EQ(3, p->streams[VNEURON_ENGINE_VECTOR].count +
		     p->streams[VNEURON_ENGINE_GPSIMD].count);
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/* HBM hazards: through a scratch tensor (RAW) and on an output (WAW); input reads are free. */
TEST(hbm_hazards)
{
	struct nd_builder *b;
	struct vn_program *p = NULL;
	const struct vnef_dma_desc *d;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("hbm", &b));
	{
		struct nd_tensor *x = nd_input(b, "x", ND_FP32, 2, SHAPE_128x128);
		struct nd_tensor *s = nd_scratch(b, "s", ND_FP32, 2, SHAPE_128x128);
		struct nd_tensor *y = nd_output(b, "y", ND_FP32, 2, SHAPE_128x128);
		struct nd_tile *t = nd_sbuf(b, "t", ND_FP32, 128, 128);
		struct nd_tile *u = nd_sbuf(b, "u", ND_FP32, 128, 128);

		ASSERT_EQ(0, nd_load(b, 0, nd_whole(t), nd_hbm_rows(x, 0, 0)));
		ASSERT_EQ(0, nd_load(b, 1, nd_whole(u), nd_hbm_rows(x, 0, 0)));	/* no wait */
		ASSERT_EQ(0, nd_store(b, 2, nd_hbm_rows(s, 0, 0), nd_whole(t)));	/* waits DMA0 */
		/* reads what DMA2 wrote, writes what DMA1 wrote: gathered on an engine */
		ASSERT_EQ(0, nd_load(b, 3, nd_whole(u), nd_hbm_rows(s, 0, 0)));
		ASSERT_EQ(0, nd_store(b, 4, nd_hbm_rows(y, 0, 0), nd_whole(t)));
		/* WAW on y after DMA4, RAW on u after DMA3: two more NOPs */
		ASSERT_EQ(0, nd_store(b, 5, nd_hbm_rows(y, 0, 0), nd_whole(u)));
	}
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	EXPECT_EQ(0, p->streams[VNEF_STREAM_DMA(1)].desc[0].flags);
	d = &p->streams[VNEF_STREAM_DMA(2)].desc[0];
	EXPECT_EQ(VNEF_IF_WAIT, d->flags);
	EXPECT_EQ(VNEF_STREAM_DMA(0), d->wait_sem);
	d = &p->streams[VNEF_STREAM_DMA(3)].desc[0];
	EXPECT_EQ(VNEF_IF_WAIT, d->flags);
	EXPECT_EQ(VNEURON_ENGINE_GPSIMD, d->wait_sem);
	EXPECT_EQ(4, p->streams[VNEURON_ENGINE_GPSIMD].count);
	d = &p->streams[VNEF_STREAM_DMA(4)].desc[0];
	EXPECT_EQ(VNEF_STREAM_DMA(0), d->wait_sem);
	d = &p->streams[VNEF_STREAM_DMA(5)].desc[0];
	EXPECT_EQ(VNEF_IF_WAIT, d->flags);
	EXPECT_EQ(VNEURON_ENGINE_GPSIMD, d->wait_sem);
	/* only the NOPs other streams wait on signal: the second and the fourth */
	EXPECT_EQ(2, d->wait_value);
	check_sems(_metadata, p);
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/* ND_QUEUE_SPREAD: a big load becomes four descriptors on four queues; a small one, one. */
TEST(spread_queues)
{
	static const uint64_t shape[] = { 256, 512 };
	struct nd_builder *b;
	struct vn_program *p = NULL;
	uint32_t q, parts = 0, sum = 0;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("spread", &b));
	{
		struct nd_tensor *x = nd_input(b, "x", ND_FP32, 2, shape);
		struct nd_tile *t = nd_sbuf(b, "t", ND_FP32, 128, 512);
		struct nd_tile *u = nd_sbuf(b, "u", ND_FP32, 128, 512);

		/* 128 x 512 x 4 = 256 KiB: four parts of 32 partitions */
		ASSERT_EQ(0, nd_load(b, ND_QUEUE_SPREAD, nd_whole(t), nd_hbm_rows(x, 128, 0)));
		ASSERT_EQ(0, nd_activate(b, nd_whole(u), nd_whole(t), ND_ACT_EXP, 1.0f, 0.0f));
		/* 16 x 512 x 4 = 32 KiB: one descriptor */
		ASSERT_EQ(0, nd_load(b, ND_QUEUE_SPREAD, nd_part(t, 0, 16, 0, 512),
				     nd_hbm_rows(x, 0, 0)));
	}
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	for (q = 0; q < 4; q++) {
		const struct vn_stream *st = &p->streams[VNEF_STREAM_DMA(q)];

		ASSERT_EQ(1, st->count);
		EXPECT_EQ(32, st->desc[0].count[0]);
		EXPECT_EQ(32 * q, st->desc[0].dst.partition);
		EXPECT_EQ((128 + 32 * q) * 2048ull, st->desc[0].src.offset);
		parts++;
		sum += st->desc[0].count[0];
	}
	EXPECT_EQ(4, parts);
	EXPECT_EQ(128, sum);
	EXPECT_EQ(16, p->streams[VNEF_STREAM_DMA(4)].desc[0].count[0]);
	/* the exp waits on all four: three NOPs carry the first three waits */
	EXPECT_EQ(4, p->streams[VNEURON_ENGINE_SCALAR].count);
	check_sems(_metadata, p);
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/* Every ISA call at least once, all validated by the core. */
TEST(every_instruction_validates)
{
	static const uint64_t s4[] = { 128, 512 };
	struct nd_builder *b;
	struct vn_program *p = NULL;
	size_t size;
	void *img;
	float cdata[128];
	unsigned int i;

	for (i = 0; i < 128; i++)
		cdata[i] = (float)i;
	ASSERT_EQ(0, nd_builder_new("isa", &b));
	{
		struct nd_tensor *x = nd_input(b, "x", ND_BF16, 2, s4);
		struct nd_tensor *c = nd_const(b, "c", ND_FP32, 1, (uint64_t[]){ 128 }, cdata);
		struct nd_tensor *y = nd_output(b, "y", ND_FP32, 2, s4);
		struct nd_tensor *s = nd_scratch(b, "s", ND_FP32, 2, s4);
		struct nd_tile *a = nd_sbuf(b, "a", ND_BF16, 128, 512);
		struct nd_tile *st = nd_sbuf(b, "st", ND_BF16, 128, 128);
		struct nd_tile *ps = nd_psum(b, "ps", ND_FP32, 128, 512);
		struct nd_tile *pt = nd_psum(b, "pt", ND_FP32, 128, 128);
		struct nd_tile *f = nd_sbuf(b, "f", ND_FP32, 128, 512);
		struct nd_tile *g = nd_sbuf(b, "g", ND_FP32, 128, 512);
		struct nd_tile *col = nd_sbuf(b, "col", ND_FP32, 128, 1);
		struct nd_tile *row = nd_sbuf(b, "row", ND_FP32, 1, 512);
		struct nd_dma_xfer xf = {
			.chunk_bytes = 4, .count = { 128, 1 },
			.src = { .tensor = c, .stride = { 4, 0 } },
			.dst = { .tile = col, .part_stride = { 1, 0 } },
		};

		ASSERT_EQ(0, nd_load(b, ND_QUEUE_AUTO, nd_whole(a), nd_hbm_rows(x, 0, 0)));
		ASSERT_EQ(0, nd_load(b, ND_QUEUE_AUTO, nd_whole(st), nd_hbm_cols(x, 0, 0)));
		ASSERT_EQ(0, nd_dma(b, 7, &xf));
		ASSERT_EQ(0, nd_load_stationary(b, nd_whole(st)));
		ASSERT_EQ(0, nd_multiply_moving(b, nd_whole(ps), nd_whole(a), 0));
		ASSERT_EQ(0, nd_matmul(b, nd_whole(ps), nd_whole(st), nd_whole(a), 1));
		ASSERT_EQ(0, nd_transpose(b, nd_whole(pt), nd_whole(st), 0));
		ASSERT_EQ(0, nd_copy(b, ND_VECTOR, nd_whole(f), nd_whole(ps)));
		ASSERT_EQ(0, nd_copy(b, ND_SCALAR, nd_part(g, 0, 128, 0, 128), nd_whole(pt)));
		ASSERT_EQ(0, nd_copy(b, ND_GPSIMD, nd_part(g, 0, 128, 128, 128),
				     nd_part(f, 0, 128, 0, 128)));
		ASSERT_EQ(0, nd_tensor_tensor(b, ND_VECTOR, nd_whole(g), nd_whole(f), nd_whole(g),
					      ND_SUB));
		ASSERT_EQ(0, nd_tensor_tensor(b, ND_GPSIMD, nd_whole(g), nd_whole(f), nd_whole(g),
					      ND_MAX));
		ASSERT_EQ(0, nd_tensor_scalar(b, ND_VECTOR, nd_whole(f), nd_whole(f), ND_DIV,
					      3.0f, 1));
		ASSERT_EQ(0, nd_tensor_scalar(b, ND_GPSIMD, nd_whole(f), nd_whole(f), ND_MIN,
					      3.0f, 0));
		ASSERT_EQ(0, nd_tensor_column(b, ND_VECTOR, nd_whole(g), nd_whole(g), ND_MUL,
					      nd_whole(col), 0));
		ASSERT_EQ(0, nd_reduce(b, nd_whole(col), nd_whole(g), ND_MAX));
		ASSERT_EQ(0, nd_activate(b, nd_whole(f), nd_whole(g), ND_ACT_GELU, 1.0f, 0.0f));
		ASSERT_EQ(0, nd_activate_column(b, nd_whole(f), nd_whole(f), ND_ACT_SIGMOID, 0.5f,
						nd_whole(col)));
		ASSERT_EQ(0, nd_memset(b, ND_GPSIMD, nd_whole(g), 0.25f));
		ASSERT_EQ(0, nd_iota(b, nd_whole(g), 1, 512, 1));
		ASSERT_EQ(0, nd_partition_reduce(b, nd_whole(row), nd_whole(g), ND_ADD));
		ASSERT_EQ(0, nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(s, 0, 0), nd_whole(f)));
		ASSERT_EQ(0, nd_load(b, ND_QUEUE_AUTO, nd_whole(g), nd_hbm_rows(s, 0, 0)));
		ASSERT_EQ(0, nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(y, 0, 0), nd_whole(g)));
		ASSERT_EQ(0, nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(y, 0, 0), nd_whole(row)));
	}
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	check_sems(_metadata, p);
	EXPECT_EQ(4, p->tensor_count);
	EXPECT_EQ(128 * 4, p->const_size);
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/* Find the debug entry of (stream, index). */
static const struct vnef_debug *debug_of(const struct vn_program *p, uint32_t stream,
					 uint32_t index)
{
	uint32_t i;

	for (i = 0; i < p->debug_count; i++)
		if (p->debug[i].stream == stream && p->debug[i].index == index)
			return &p->debug[i];
	return NULL;
}

TEST(debug_table_lines_and_scopes)
{
	struct nd_builder *b;
	struct vn_program *p = NULL;
	const struct vnef_debug *d;
	size_t size;
	void *img;
	int mm_line, act_line;

	ASSERT_EQ(0, nd_builder_new("dbg", &b));
	{
		struct nd_tensor *x = nd_input(b, "x", ND_FP32, 2, SHAPE_128x128);
		struct nd_tile *a = nd_sbuf(b, "a", ND_FP32, 128, 128);
		struct nd_tile *o = nd_psum(b, "o", ND_FP32, 128, 128);
		struct nd_tile *h = nd_sbuf(b, "h", ND_FP32, 128, 128);

		ASSERT_EQ(0, nd_load(b, 0, nd_whole(a), nd_hbm_rows(x, 0, 0)));
		ASSERT_EQ(0, nd_scope_push(b, "mlp"));
		ASSERT_EQ(0, nd_scope_push(b, "fc1"));
		mm_line = __LINE__ + 1;
		ASSERT_EQ(0, nd_matmul(b, nd_whole(o), nd_whole(a), nd_whole(a), 0));
		ASSERT_EQ(0, nd_scope_pop(b));
		act_line = __LINE__ + 1;
		ASSERT_EQ(0, nd_activate(b, nd_whole(h), nd_whole(o), ND_ACT_RELU, 1.0f, 0.0f));
		ASSERT_EQ(0, nd_scope_pop(b));
	}
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	EXPECT_EQ(p->total_entries, p->debug_count);

	d = debug_of(p, VNEURON_ENGINE_TENSOR, 1);
	ASSERT_NE(NULL, d);
	EXPECT_STREQ("mlp/fc1/matmul", vn_program_str(p, d->scope_off));
	EXPECT_STREQ(__FILE__, vn_program_str(p, d->file_off));
	EXPECT_EQ(mm_line, (int)d->line);
	d = debug_of(p, VNEURON_ENGINE_SCALAR, 0);
	ASSERT_NE(NULL, d);
	EXPECT_STREQ("mlp/relu", vn_program_str(p, d->scope_off));
	EXPECT_EQ(act_line, (int)d->line);
	d = debug_of(p, VNEF_STREAM_DMA(0), 0);
	ASSERT_NE(NULL, d);
	EXPECT_STREQ("load", vn_program_str(p, d->scope_off));
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/* The same calls give the same bytes; a file round-trips. */
TEST(image_is_reproducible_and_file_round_trips)
{
	struct nd_builder *b1, *b2;
	void *i1, *i2, *i3;
	size_t s1, s2, s3;
	char path[] = "/tmp/nd_builder_XXXXXX";
	struct nd_error err;
	int fd;

	ASSERT_EQ(0, nd_builder_new("exp", &b1));
	ASSERT_EQ(0, nd_builder_new("exp", &b2));
	build_exp(b1, 1);
	build_exp(b2, 1);
	ASSERT_EQ(0, nd_builder_finish(b1, &i1, &s1));
	ASSERT_EQ(0, nd_builder_finish(b2, &i2, &s2));
	ASSERT_EQ(s1, s2);
	EXPECT_EQ(0, memcmp(i1, i2, s1));

	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	close(fd);
	ASSERT_EQ(0, nd_builder_write(b1, path));
	ASSERT_EQ(0, nd_vnef_read(path, &i3, &s3, &err));
	ASSERT_EQ(s1, s3);
	EXPECT_EQ(0, memcmp(i1, i3, s1));
	unlink(path);
	EXPECT_EQ(-ENOENT, nd_vnef_read(path, &i3, &s3, &err));
	EXPECT_NE(NULL, strstr(err.msg, path));
	EXPECT_EQ(-EINVAL, nd_vnef_read("/dev/null", &i3, &s3, &err));
	EXPECT_NE(NULL, strstr(err.msg, "not a regular file"));
	/* too short for a header, then a header without the magic */
	ASSERT_EQ(0, nd_vnef_write(path, "VNEF", 4, &err));
	EXPECT_EQ(-EINVAL, nd_vnef_read(path, &i3, &s3, &err));
	EXPECT_NE(NULL, strstr(err.msg, "is not the size of a .vnef image"));
	ASSERT_EQ(0, nd_vnef_write(path, i2, 64, &err));
	((uint8_t *)i2)[0] ^= 1;
	ASSERT_EQ(0, nd_vnef_write(path, i2, 64, &err));
	EXPECT_EQ(-EINVAL, nd_vnef_read(path, &i3, &s3, &err));
	EXPECT_NE(NULL, strstr(err.msg, "not a .vnef image (bad magic)"));
	unlink(path);
	EXPECT_EQ(-ENOENT, nd_vnef_write("/nonexistent/dir/x.vnef", i1, s1, &err));
	free(i1);
	free(i2);
	free(i3);
	nd_builder_free(b1);
	nd_builder_free(b2);
}

/* The listing shows the entries with their waits, signals, lines and scopes. */
TEST(dump_listing)
{
	struct nd_builder *b;
	struct nd_error err;
	char *text = NULL;
	size_t size, tlen = 0;
	void *img;
	FILE *f;

	ASSERT_EQ(0, nd_builder_new("exp", &b));
	nd_scope_push(b, "k");
	build_exp(b, 1);
	ASSERT_EQ(0, nd_builder_finish(b, &img, &size));
	f = open_memstream(&text, &tlen);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, nd_vnef_dump(img, size, f, &err)) TH_LOG("%s", err.msg);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "program \"exp\": 2 tensors, 6 entries"));
	EXPECT_NE(NULL, strstr(text, "tensor 0 in input fp32 [250, 512] 512000 bytes"));
	EXPECT_NE(NULL, strstr(text, "activate.exp scale=1 bias=0 dst=SBUF[0:128]@0x"));
	EXPECT_NE(NULL, strstr(text, "dst=SBUF[0:122]@0x"));
	EXPECT_NE(NULL, strstr(text, "wait s4>=1  signal s2  ; " __FILE__ ":"));
	EXPECT_NE(NULL, strstr(text, " k/exp\n"));
	EXPECT_NE(NULL, strstr(text, "dma 1x128 x 2048B in+0x0{s0,2048} -> SBUF[p0{ps0,1}]"));
	free(text);
	/* a broken image is refused with the validator's reason */
	((uint32_t *)img)[0] = 0;
	f = open_memstream(&text, &tlen);
	EXPECT_EQ(-EINVAL, nd_vnef_dump(img, size, f, &err));
	fclose(f);
	EXPECT_NE(NULL, strstr(err.msg, "invalid image: magic check"));
	free(text);
	free(img);
	nd_builder_free(b);
}

TEST(empty_program)
{
	struct nd_builder *b;
	void *img;
	size_t size;

	ASSERT_EQ(0, nd_builder_new(NULL, &b));
	EXPECT_EQ(-EINVAL, nd_builder_finish(b, &img, &size));
	EXPECT_NE(NULL, strstr(nd_builder_error(b), "no instructions"));
	nd_builder_free(b);
	/* NULL handles never crash */
	EXPECT_EQ(-EINVAL, nd_builder_new("x", NULL));
	EXPECT_EQ(NULL, nd_input(NULL, "x", ND_FP32, 1, (uint64_t[]){ 1 }));
	EXPECT_EQ(-EINVAL, nd_memset(NULL, ND_VECTOR, nd_whole(NULL), 0));
	EXPECT_EQ(-EINVAL, nd_builder_finish(NULL, &img, &size));
	nd_builder_free(NULL);
}

TEST(bf16_conversion)
{
	EXPECT_EQ(0x3f80, nd_fp32_to_bf16(1.0f));
	EXPECT_EQ(1.0f, nd_bf16_to_fp32(0x3f80));
	/* ties to even: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 */
	EXPECT_EQ(0x3f80, nd_fp32_to_bf16(1.0f + 1.0f / 256));
	EXPECT_EQ(0x3f82, nd_fp32_to_bf16(1.0f + 3.0f / 256));
	EXPECT_EQ(0x7fc0, nd_fp32_to_bf16(__builtin_nanf("")) & 0x7fc0);
	EXPECT_EQ(0xff80, nd_fp32_to_bf16(-__builtin_inff()));
}

/* A builder for a model places tiles in its SBUF and takes its dtypes; errors name it. */
TEST(builder_model)
{
	struct nd_builder *b;
	struct vn_prog_error pe;
	struct nd_tile *t;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("m", &b));
	EXPECT_STREQ("trn1", nd_builder_model(b)->name);
	EXPECT_EQ(-EINVAL, nd_builder_set_model(b, "trn9"));
	EXPECT_NE(NULL, strstr(nd_builder_error(b), "unknown model 'trn9' (the models are trn1, trn2, trn3)"));
	nd_builder_free(b);

	/* 224 KiB a partition: trn2's SBUF, not trn1's */
	ASSERT_EQ(0, nd_builder_new("m", &b));
	ASSERT_EQ(0, nd_builder_set_model(b, "trn2"));
	t = nd_sbuf(b, "big", ND_FP32, 128, 57344);
	ASSERT_NE(NULL, t) TH_LOG("%s", nd_builder_error(b));
	EXPECT_EQ(-EBUSY, nd_builder_set_model(b, "trn3"));
	EXPECT_NE(NULL, strstr(nd_builder_error(b), "before the first tensor or tile"));
	EXPECT_EQ(NULL, nd_sbuf(b, "e4m3fn", ND_FP8_E4M3FN, 128, 64));
	EXPECT_NE(NULL, strstr(nd_builder_error(b), "fp8_e4m3fn is not a dtype of trn2 (it has "
				"fp32, bf16, fp8_e4m3, fp8_e5m2)")) TH_LOG("%s", nd_builder_error(b));
	nd_builder_free(b);

	ASSERT_EQ(0, nd_builder_new("m", &b));
	ASSERT_EQ(0, nd_builder_set_model(b, "trn2"));
	t = nd_sbuf(b, "big", ND_FP32, 128, 57344);
	ASSERT_EQ(0, nd_memset(b, ND_VECTOR, nd_part(t, 0, 128, 57000, 344), 1.0f));
	ASSERT_EQ(0, nd_builder_finish(b, &img, &size)) TH_LOG("%s", nd_builder_error(b));
	EXPECT_EQ(0, vn_program_check_for(nd_builder_model(b), img, size, &pe)) TH_LOG("%s", pe.msg);
	EXPECT_EQ(-EINVAL, vn_program_check(img, size, &pe));
	EXPECT_STREQ("needs 229376 SBUF bytes a partition, trn1 has 196608", pe.msg);
	free(img);
	nd_builder_free(b);

	/* the same tile on trn1, a 13 GiB tensor on trn2, fp8 tiles on trn3 */
	ASSERT_EQ(0, nd_builder_new("m", &b));
	EXPECT_EQ(NULL, nd_sbuf(b, "big", ND_FP32, 128, 57344));
	EXPECT_NE(NULL, strstr(nd_builder_error(b), "SBUF of trn1 has 196608 bytes"));
	nd_builder_free(b);
	ASSERT_EQ(0, nd_builder_new("m", &b));
	ASSERT_EQ(0, nd_builder_set_model(b, "trn2"));
	EXPECT_EQ(NULL, nd_input(b, "x", ND_FP32, 2, (uint64_t[]){ 13ull << 25, 8 }));
	EXPECT_NE(NULL, strstr(nd_builder_error(b), "12884901888 bytes of HBM a core of trn2"))
		TH_LOG("%s", nd_builder_error(b));
	nd_builder_free(b);
	ASSERT_EQ(0, nd_builder_new("m", &b));
	ASSERT_EQ(0, nd_builder_set_model(b, "trn3"));
	EXPECT_NE(NULL, nd_sbuf(b, "a", ND_FP8_E4M3FN, 128, 64));
	EXPECT_NE(NULL, nd_input(b, "x", ND_FP8_E5M2, 1, (uint64_t[]){ 64 }));
	EXPECT_EQ(0, nd_builder_status(b)) TH_LOG("%s", nd_builder_error(b));
	nd_builder_free(b);
}

/* fp8 tiles feed TensorE, E4M3 with E5M2 too; the result is fp32 in PSUM. */
TEST(fp8_matmul_builds)
{
	struct nd_builder *b;
	struct vn_program *p;
	struct nd_tile *s, *m, *o;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("fp8mm", &b));
	s = nd_sbuf(b, "s", ND_FP8_E4M3, 128, 128);
	m = nd_sbuf(b, "m", ND_FP8_E5M2, 128, 512);
	o = nd_psum(b, "o", ND_FP32, 128, 512);
	ASSERT_EQ(0, nd_matmul(b, nd_whole(o), nd_whole(s), nd_whole(m), 0))
		TH_LOG("%s", nd_builder_error(b));
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

TEST_HARNESS_MAIN
