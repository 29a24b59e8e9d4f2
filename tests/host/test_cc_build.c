// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Collectives in the toolchain: the builder's collective calls (their entries on the
 * collective engine's stream, their ordering against DMA and the engines through HBM
 * ranges, every refusal with its message), the listing, and the images' round trip
 * through the disassembler and the assembler. Runs on the host: tests/host/test_cc_host.c.
 */
#include "builder_util.h"

static const uint64_t SHAPE_128x64[] = { 128, 64 };
static const uint64_t SHAPE_4x128x64[] = { 4, 128, 64 };

/* The image reassembles from its disassembly to the same bytes. */
static int round_trips(const void *img, size_t size)
{
	struct nd_asm_diag d;
	struct nd_error err;
	char *text = NULL;
	size_t tlen = 0, s2;
	void *i2 = NULL;
	int exact = 0, same;
	FILE *f = open_memstream(&text, &tlen);

	if (!f)
		return 0;
	if (nd_dis(img, size, 0, f, &exact, &err)) {
		fprintf(stderr, "dis: %s\n", err.msg);
		fclose(f);
		free(text);
		return 0;
	}
	fclose(f);
	if (nd_asm(text, tlen, "<dis>", 0, &i2, &s2, &d, stderr)) {
		fprintf(stderr, "%s\n", text);
		free(text);
		return 0;
	}
	same = exact && s2 == size && !memcmp(img, i2, size);
	if (!same)
		fprintf(stderr, "not the same bytes (exact %d):\n%s\n", exact, text);
	free(text);
	free(i2);
	return same;
}

/*
 * The all-reduce kernel of the host test: x*2 through SBUF into scratch s, all_reduce
 * of s in place, then s+1 to the output y.
 */
static void build_allreduce(struct nd_builder *b)
{
	struct nd_tensor *x = nd_input(b, "x", ND_FP32, 2, SHAPE_128x64);
	struct nd_tensor *s = nd_scratch(b, "s", ND_FP32, 2, SHAPE_128x64);
	struct nd_tensor *y = nd_output(b, "y", ND_FP32, 2, SHAPE_128x64);
	struct nd_tile *t = nd_sbuf(b, "t", ND_FP32, 128, 64);
	struct nd_tile *u = nd_sbuf(b, "u", ND_FP32, 128, 64);

	nd_load(b, 0, nd_whole(t), nd_hbm_rows(x, 0, 0));
	nd_tensor_scalar(b, ND_VECTOR, nd_whole(t), nd_whole(t), ND_MUL, 2.0f, 0);
	nd_store(b, 1, nd_hbm_rows(s, 0, 0), nd_whole(t));
	nd_all_reduce(b, s, s, 128 * 64, ND_ADD);
	nd_load(b, 2, nd_whole(u), nd_hbm_rows(s, 0, 0));
	nd_tensor_scalar(b, ND_GPSIMD, nd_whole(u), nd_whole(u), ND_ADD, 1.0f, 0);
	nd_store(b, 3, nd_hbm_rows(y, 0, 0), nd_whole(u));
}

/* A store into s, the collective, a load of s: each waits for the one before. */
TEST(all_reduce_ordered_by_hbm)
{
	const struct vnef_cc_instr *cc;
	const struct vnef_dma_desc *d;
	struct nd_builder *b;
	struct vn_program *p = NULL;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("allreduce", &b));
	build_allreduce(b);
	ASSERT_EQ(0, nd_builder_status(b)) TH_LOG("%s", nd_builder_error(b));
	EXPECT_EQ(1, nd_builder_stream_len(b, VNEF_STREAM_CC));
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	EXPECT_EQ(VNEF_VERSION, ((struct vnef_header *)img)->version);
	ASSERT_EQ(1, p->streams[VNEF_STREAM_CC].count);
	cc = &p->streams[VNEF_STREAM_CC].cc[0];
	EXPECT_EQ(VNEF_CC_ALL_REDUCE, cc->opcode);
	EXPECT_EQ(VNEF_DT_FP32, cc->dtype);
	EXPECT_EQ(VNEF_ALU_ADD, cc->reduce);
	EXPECT_EQ(128 * 64, cc->count);
	EXPECT_EQ(1, cc->src_tensor);
	EXPECT_EQ(1, cc->dst_tensor);
	EXPECT_EQ(0, cc->group_size);
	/* after the store into s on queue 1; signals the load of s on queue 2 */
	EXPECT_EQ(VNEF_IF_WAIT, cc->flags);
	EXPECT_EQ(VNEF_STREAM_DMA(1), cc->wait_sem);
	EXPECT_EQ(1, cc->wait_value);
	EXPECT_EQ(1ull << VNEF_STREAM_CC, cc->signal_mask);
	d = &p->streams[VNEF_STREAM_DMA(1)].desc[0];
	EXPECT_EQ(1ull << VNEF_STREAM_DMA(1), d->signal_mask);
	d = &p->streams[VNEF_STREAM_DMA(2)].desc[0];
	EXPECT_EQ(VNEF_IF_WAIT, d->flags);
	EXPECT_EQ(VNEF_STREAM_CC, d->wait_sem);
	EXPECT_EQ(1, d->wait_value);
	/* the debug table names the collective's line and scope */
	{
		uint32_t i, found = 0;

		for (i = 0; i < p->debug_count; i++)
			if (p->debug[i].stream == VNEF_STREAM_CC && p->debug[i].index == 0) {
				found = 1;
				EXPECT_STREQ("all_reduce",
					     vn_program_str(p, p->debug[i].scope_off));
				EXPECT_STREQ(__FILE__, vn_program_str(p, p->debug[i].file_off));
			}
		EXPECT_EQ(1, found);
	}
	EXPECT_TRUE(round_trips(img, size));
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/* Every collective and form validates, round-trips, and is listed. */
TEST(every_collective)
{
	struct nd_builder *b;
	struct vn_program *p = NULL;
	struct nd_error err;
	char *text = NULL;
	size_t size, tlen = 0;
	void *img;
	FILE *f;

	ASSERT_EQ(0, nd_builder_new("every", &b));
	{
		struct nd_tensor *x = nd_input(b, "x", ND_FP32, 2, SHAPE_128x64);
		struct nd_tensor *x4 = nd_input(b, "x4", ND_FP32, 3, SHAPE_4x128x64);
		struct nd_tensor *y = nd_output(b, "y", ND_FP32, 2, SHAPE_128x64);
		struct nd_tensor *y4 = nd_output(b, "y4", ND_FP32, 3, SHAPE_4x128x64);
		struct nd_tensor *h = nd_scratch(b, "h", ND_BF16, 1, (uint64_t[]){ 4096 });
		struct nd_tensor *g = nd_output(b, "g", ND_BF16, 1, (uint64_t[]){ 4096 });
		uint64_t n = 128 * 64;

		ASSERT_EQ(0, nd_all_reduce(b, y, x, n, ND_MAX));
		ASSERT_EQ(0, nd_all_gather(b, y4, x, n));
		ASSERT_EQ(0, nd_reduce_scatter(b, y, x4, n, ND_ADD));
		ASSERT_EQ(0, nd_all_to_all(b, y4, x4, n));
		ASSERT_EQ(0, nd_permute(b, y, x, n, 3));
		/* groups, offsets, bf16, in place */
		ASSERT_EQ(0, nd_collective(b, &(struct nd_cc){
			.opcode = VNEF_CC_ALL_GATHER, .src = x, .dst = y4, .src_offset = 64,
			.dst_offset = 128, .count = 1000, .group_size = 4, .group_stride = 2 }));
		ASSERT_EQ(0, nd_collective(b, &(struct nd_cc){
			.opcode = VNEF_CC_PERMUTE, .src = h, .dst = g, .count = 2048,
			.group_size = 2, .shift = 1 }));
		ASSERT_EQ(0, nd_collective(b, &(struct nd_cc){
			.opcode = VNEF_CC_ALL_REDUCE, .src = g, .dst = g, .src_offset = 8,
			.dst_offset = 8, .count = 100, .reduce = ND_ADD }));
		/* scatter's source and all_to_all's grow with the group: the rest of h */
		ASSERT_EQ(0, nd_collective(b, &(struct nd_cc){
			.opcode = VNEF_CC_REDUCE_SCATTER, .src = h, .dst = h, .src_offset = 1024,
			.count = 256, .reduce = ND_MAX, .group_size = 2, .group_stride = 1 }));
	}
	EXPECT_EQ(9, nd_builder_stream_len(b, VNEF_STREAM_CC));
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	{
		const struct vnef_cc_instr *cc = p->streams[VNEF_STREAM_CC].cc;

		EXPECT_EQ(VNEF_ALU_MAX, cc[0].reduce);
		EXPECT_EQ(0, cc[1].reduce);
		EXPECT_EQ(3, cc[4].shift);
		EXPECT_EQ(64 * 4, cc[5].src_offset);
		EXPECT_EQ(128 * 4, cc[5].dst_offset);
		EXPECT_EQ(4, cc[5].group_size);
		EXPECT_EQ(2, cc[5].group_stride);
		EXPECT_EQ(VNEF_DT_BF16, cc[6].dtype);
		EXPECT_EQ(1, cc[6].group_stride);	/* 0 is 1 */
		EXPECT_EQ(16, cc[7].src_offset);
	}
	EXPECT_TRUE(round_trips(img, size));
	f = open_memstream(&text, &tlen);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, nd_vnef_dump(img, size, f, &err)) TH_LOG("%s", err.msg);
	fclose(f);
	EXPECT_NE(NULL, strstr(text, "CC-core: 9 entries\n")) TH_LOG("%s", text);
	EXPECT_NE(NULL, strstr(text, "      0 all_reduce.max fp32 x 8192 x+0x0 -> y+0x0  ; "));
	EXPECT_NE(NULL, strstr(text, "      5 all_gather fp32 x 1000 x+0x100 -> y4+0x200 group=4 "
				     "stride=2"));
	EXPECT_NE(NULL, strstr(text, "      4 permute fp32 x 8192 x+0x0 -> y+0x0 shift=3"));
	EXPECT_NE(NULL, strstr(text, "      6 permute bf16 x 2048 h+0x0 -> g+0x0 group=2 stride=1 "
				     "shift=1"));
	free(text);
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/*
 * Ordering: collectives wait for earlier writes of their source and every earlier
 * access to their destination; loads of their destination wait for them; reads of
 * inputs order nothing.
 */
TEST(hazards)
{
	struct nd_builder *b;
	struct vn_program *p = NULL;
	const struct vnef_cc_instr *cc;
	const struct vnef_dma_desc *d;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("hazards", &b));
	{
		struct nd_tensor *x = nd_input(b, "x", ND_FP32, 2, SHAPE_128x64);
		struct nd_tensor *s = nd_scratch(b, "s", ND_FP32, 2, SHAPE_128x64);
		struct nd_tensor *y = nd_output(b, "y", ND_FP32, 2, SHAPE_128x64);
		struct nd_tile *t = nd_sbuf(b, "t", ND_FP32, 128, 64);
		struct nd_tile *u = nd_sbuf(b, "u", ND_FP32, 128, 64);

		ASSERT_EQ(0, nd_load(b, 0, nd_whole(t), nd_hbm_rows(x, 0, 0)));	/* DMA0 0 */
		ASSERT_EQ(0, nd_all_reduce(b, s, x, 128 * 64, ND_ADD));		/* CC 0: free */
		ASSERT_EQ(0, nd_load(b, 1, nd_whole(u), nd_hbm_rows(s, 0, 0)));	/* waits CC */
		/* WAR: the next collective writes s, which queue 1 read */
		ASSERT_EQ(0, nd_all_reduce(b, s, x, 128 * 64, ND_MAX));		/* CC 1 */
		/* rows 0..63 of y from queue 2, then a permute writing y: WAW */
		ASSERT_EQ(0, nd_store(b, 2, nd_hbm_rows(y, 0, 0), nd_part(t, 0, 64, 0, 64)));
		ASSERT_EQ(0, nd_permute(b, y, s, 128 * 64, 1));			/* CC 2 */
		/* the first half of s again: behind CC 2's read in the stream's own order */
		ASSERT_EQ(0, nd_collective(b, &(struct nd_cc){
			.opcode = VNEF_CC_ALL_REDUCE, .src = x, .dst = s, .count = 64 * 64,
			.reduce = ND_ADD }));						/* CC 3 */
		ASSERT_EQ(0, nd_load(b, 3, nd_part(u, 64, 64, 0, 64), nd_hbm_rows(s, 64, 0)));
	}
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	ASSERT_EQ(4, p->streams[VNEF_STREAM_CC].count);
	cc = p->streams[VNEF_STREAM_CC].cc;
	EXPECT_EQ(0, cc[0].flags);			/* x is an input: nothing to wait for */
	d = &p->streams[VNEF_STREAM_DMA(1)].desc[0];
	EXPECT_EQ(VNEF_IF_WAIT, d->flags);
	EXPECT_EQ(VNEF_STREAM_CC, d->wait_sem);
	EXPECT_EQ(1, d->wait_value);
	EXPECT_EQ(VNEF_IF_WAIT, cc[1].flags);
	EXPECT_EQ(VNEF_STREAM_DMA(1), cc[1].wait_sem);
	EXPECT_EQ(VNEF_IF_WAIT, cc[2].flags);
	EXPECT_EQ(VNEF_STREAM_DMA(2), cc[2].wait_sem);
	EXPECT_EQ(0, cc[3].flags);			/* s behind the CC stream's own order */
	/* the last load reads rows 64..127 of s, which CC 3 did not write: CC 1 did */
	d = &p->streams[VNEF_STREAM_DMA(3)].desc[0];
	EXPECT_EQ(VNEF_IF_WAIT, d->flags);
	EXPECT_EQ(VNEF_STREAM_CC, d->wait_sem);
	EXPECT_EQ(2, d->wait_value);			/* CC 1's signal: the last write */
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/* A collective with two waits gets a NOP of its own stream carrying one of them. */
TEST(two_waits_use_a_collective_nop)
{
	struct nd_builder *b;
	struct vn_program *p = NULL;
	const struct vn_stream *st;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("two", &b));
	{
		struct nd_tensor *s = nd_scratch(b, "s", ND_FP32, 2, SHAPE_128x64);
		struct nd_tensor *y = nd_output(b, "y", ND_FP32, 2, SHAPE_128x64);
		struct nd_tile *t = nd_sbuf(b, "t", ND_FP32, 128, 64);

		ASSERT_EQ(0, nd_memset(b, ND_VECTOR, nd_whole(t), 1.0f));
		ASSERT_EQ(0, nd_store(b, 0, nd_hbm_rows(s, 0, 0), nd_whole(t)));
		ASSERT_EQ(0, nd_store(b, 1, nd_hbm_rows(y, 0, 0), nd_whole(t)));
		/* reads s (queue 0), writes y (queue 1): two waits */
		ASSERT_EQ(0, nd_all_reduce(b, y, s, 128 * 64, ND_ADD));
	}
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	st = &p->streams[VNEF_STREAM_CC];
	ASSERT_EQ(2, st->count);
	EXPECT_EQ(VNEF_CC_NOP, st->cc[0].opcode);
	EXPECT_EQ(VNEF_IF_WAIT, st->cc[0].flags);
	EXPECT_EQ(VNEF_CC_ALL_REDUCE, st->cc[1].opcode);
	EXPECT_EQ(VNEF_IF_WAIT, st->cc[1].flags);
	EXPECT_NE(st->cc[0].wait_sem, st->cc[1].wait_sem);
	EXPECT_EQ(0, st->cc[0].signal_mask);
	EXPECT_TRUE(round_trips(img, size));
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/*
 * With group_size 0, a side that grows with the number of ranks is ordered to the end of
 * its tensor: a load from the last row of an all_gather's output waits for it.
 */
TEST(every_rank_orders_the_tail)
{
	struct nd_builder *b;
	struct vn_program *p = NULL;
	const struct vnef_dma_desc *d;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("tail", &b));
	{
		struct nd_tensor *x = nd_input(b, "x", ND_FP32, 2, SHAPE_128x64);
		struct nd_tensor *g = nd_scratch(b, "g", ND_FP32, 2, (uint64_t[]){ 512, 64 });
		struct nd_tile *t = nd_sbuf(b, "t", ND_FP32, 128, 64);

		ASSERT_EQ(0, nd_all_gather(b, g, x, 128 * 64));
		ASSERT_EQ(0, nd_load(b, 0, nd_whole(t), nd_hbm_rows(g, 384, 0)));
	}
	ASSERT_EQ(0, finish_and_load(b, &p, &img, &size));
	d = &p->streams[VNEF_STREAM_DMA(0)].desc[0];
	EXPECT_EQ(VNEF_IF_WAIT, d->flags);
	EXPECT_EQ(VNEF_STREAM_CC, d->wait_sem);
	vn_program_put(p);
	free(img);
	nd_builder_free(b);
}

/* ---------------------------------------------------------------------------- */
/* Refusals: -errno, a message naming the problem, and no image.                */

FIXTURE(err)
{
	struct nd_builder *b;
	struct nd_tensor *x, *y, *s, *h, *c;
};

FIXTURE_SETUP(err)
{
	static const float zeros[4];

	ASSERT_EQ(0, nd_builder_new("err", &self->b));
	self->x = nd_input(self->b, "x", ND_FP32, 2, SHAPE_128x64);
	self->y = nd_output(self->b, "y", ND_FP32, 2, SHAPE_128x64);
	self->s = nd_scratch(self->b, "s", ND_FP32, 2, SHAPE_128x64);
	self->h = nd_scratch(self->b, "h", ND_BF16, 2, SHAPE_128x64);
	self->c = nd_const(self->b, "c", ND_FP32, 1, (uint64_t[]){ 4 }, zeros);
	ASSERT_NE(NULL, self->c);
	ASSERT_EQ(0, nd_builder_status(self->b));
}

FIXTURE_TEARDOWN(err)
{
	nd_builder_free(self->b);
}

#define EXPECT_ERR(code, what, call)						\
	do {									\
		const char *m_;							\
		EXPECT_EQ(code, (call));					\
		m_ = nd_builder_error(self->b);					\
		if (!strstr(m_, what)) {					\
			TH_LOG("message: %s", m_);				\
			EXPECT_TRUE(0);						\
		}								\
	} while (0)

#define CC(...)	nd_collective(self->b, &(struct nd_cc){ __VA_ARGS__ })

TEST_F(err, not_a_collective)
{
	EXPECT_ERR(-EINVAL, "collective: no description given", nd_collective(self->b, NULL));
	EXPECT_ERR(-EINVAL, "collective: opcode 0 is not a collective (all_reduce, all_gather, "
		   "reduce_scatter, all_to_all or permute)",
		   CC(.opcode = VNEF_CC_NOP, .src = self->x, .dst = self->y, .count = 1));
	EXPECT_ERR(-EINVAL, "opcode 6 is not a collective",
		   CC(.opcode = VNEF_CC_OP_COUNT, .src = self->x, .dst = self->y, .count = 1));
	EXPECT_EQ(-EINVAL, nd_all_reduce(NULL, self->y, self->x, 1, ND_ADD));
}

TEST_F(err, tensors)
{
	struct nd_builder *o;
	struct nd_tensor *ot;

	EXPECT_ERR(-EINVAL, "all_reduce: no source tensor (NULL)",
		   nd_all_reduce(self->b, self->y, NULL, 1, ND_ADD));
	EXPECT_ERR(-EINVAL, "all_gather: no destination tensor (NULL)",
		   nd_all_gather(self->b, NULL, self->x, 1));
	ASSERT_EQ(0, nd_builder_new("other", &o));
	ot = nd_output(o, "o", ND_FP32, 1, (uint64_t[]){ 4 });
	EXPECT_ERR(-EINVAL, "permute: the destination tensor belongs to another builder",
		   nd_permute(self->b, ot, self->x, 1, 0));
	nd_builder_free(o);
	EXPECT_ERR(-EINVAL, "all_to_all: dtype mismatch: source 'x' is fp32, destination 'h' is "
		   "bf16", nd_all_to_all(self->b, self->h, self->x, 1));
}

TEST_F(err, writes_read_only)
{
	EXPECT_ERR(-EINVAL, "all_reduce: writes input tensor 'x', which is read-only",
		   nd_all_reduce(self->b, self->x, self->s, 1, ND_ADD));
	EXPECT_ERR(-EINVAL, "all_gather: writes constant tensor 'c', which is read-only",
		   nd_all_gather(self->b, self->c, self->s, 1));
}

TEST_F(err, count_zero)
{
	EXPECT_ERR(-EINVAL, "reduce_scatter: count is 0; a collective moves at least one element",
		   nd_reduce_scatter(self->b, self->y, self->x, 0, ND_ADD));
}

TEST_F(err, bad_reduction)
{
	EXPECT_ERR(-EINVAL, "all_reduce: reduction 'sub'; a collective reduces by add or max",
		   nd_all_reduce(self->b, self->y, self->x, 1, ND_SUB));
	EXPECT_ERR(-EINVAL, "reduce_scatter: reduction 'min'",
		   nd_reduce_scatter(self->b, self->y, self->x, 1, ND_MIN));
	EXPECT_ERR(-EINVAL, "reduction '?'",
		   nd_all_reduce(self->b, self->y, self->x, 1, (enum nd_alu)99));
}

TEST_F(err, groups)
{
	EXPECT_ERR(-EINVAL, "all_reduce: replica groups of 65 ranks; a communicator has at most 64",
		   CC(.opcode = VNEF_CC_ALL_REDUCE, .src = self->x, .dst = self->y, .count = 1,
		      .group_size = 65, .group_stride = 1));
	EXPECT_ERR(-EINVAL, "all_reduce: group_stride 2 without a group_size",
		   CC(.opcode = VNEF_CC_ALL_REDUCE, .src = self->x, .dst = self->y, .count = 1,
		      .group_stride = 2));
	EXPECT_ERR(-EINVAL, "all_gather: replica groups span 66 ranks (2 members 33 apart)",
		   CC(.opcode = VNEF_CC_ALL_GATHER, .src = self->x, .dst = self->y, .count = 1,
		      .group_size = 2, .group_stride = 33));
}

TEST_F(err, shift)
{
	EXPECT_ERR(-EINVAL, "permute: shift 2 in groups of 2; the shift is 0..1",
		   CC(.opcode = VNEF_CC_PERMUTE, .src = self->x, .dst = self->y, .count = 1,
		      .group_size = 2, .shift = 2));
	EXPECT_ERR(-EINVAL, "permute: shift 64; the shift is below 64",
		   nd_permute(self->b, self->y, self->x, 1, 64));
	EXPECT_ERR(-EINVAL, "all_reduce: shift 1; only permute shifts",
		   CC(.opcode = VNEF_CC_ALL_REDUCE, .src = self->x, .dst = self->y, .count = 1,
		      .shift = 1));
}

TEST_F(err, ranges)
{
	EXPECT_ERR(-ERANGE, "all_reduce: the source needs elements [1, 8193) of tensor 'x', which "
		   "has 8192",
		   CC(.opcode = VNEF_CC_ALL_REDUCE, .src = self->x, .dst = self->y,
		      .src_offset = 1, .count = 8192));
	EXPECT_ERR(-ERANGE, "all_gather: the destination needs elements [0, 16384) of tensor 'y', "
		   "which has 8192",
		   CC(.opcode = VNEF_CC_ALL_GATHER, .src = self->x, .dst = self->y,
		      .count = 8192, .group_size = 2));
	/* every rank: one share must fit; the message says the range grows */
	EXPECT_ERR(-ERANGE, "reduce_scatter: the source needs elements [8000, 8193) of tensor 'x', "
		   "which has 8192 (one rank's share: with group_size 0 the range grows with the "
		   "number of ranks)",
		   CC(.opcode = VNEF_CC_REDUCE_SCATTER, .src = self->x, .dst = self->y,
		      .src_offset = 8000, .count = 193));
	EXPECT_ERR(-ERANGE, "the destination needs elements",
		   CC(.opcode = VNEF_CC_PERMUTE, .src = self->x, .dst = self->y,
		      .dst_offset = ~0ull / 2, .count = 1));
	EXPECT_ERR(-E2BIG, "all_to_all: 268435456 elements of fp32 per member; a rank's input and "
		   "output are at most 2147483648 bytes",
		   CC(.opcode = VNEF_CC_ALL_TO_ALL, .src = self->x, .dst = self->y,
		      .count = 1ull << 28, .group_size = 4));
	EXPECT_ERR(-E2BIG, "elements of fp32; a rank's", nd_all_reduce(self->b, self->y, self->x,
								    ~0ull / 2, ND_ADD));
}

TEST_F(err, overlap)
{
	EXPECT_ERR(-EINVAL, "all_gather: source and destination overlap in tensor 's' (only an "
		   "all_reduce works in place, on the same elements)",
		   CC(.opcode = VNEF_CC_ALL_GATHER, .src = self->s, .dst = self->s,
		      .src_offset = 10, .count = 100, .group_size = 2));
	EXPECT_ERR(-EINVAL, "all_reduce: source and destination overlap",
		   CC(.opcode = VNEF_CC_ALL_REDUCE, .src = self->s, .dst = self->s,
		      .src_offset = 0, .dst_offset = 50, .count = 100));
	/* every rank: the gathered output may run over the source placed after it */
	EXPECT_ERR(-EINVAL, "all_gather: source and destination of tensor 's' overlap for groups "
		   "of 2 or more ranks (group_size 0 is every rank); give group_size, or separate "
		   "them",
		   CC(.opcode = VNEF_CC_ALL_GATHER, .src = self->s, .dst = self->s,
		      .src_offset = 100, .count = 100));
	/* the same with the source first is fine, and so is an all_reduce in place */
	EXPECT_EQ(0, CC(.opcode = VNEF_CC_ALL_GATHER, .src = self->s, .dst = self->s,
			.dst_offset = 100, .count = 100));
	EXPECT_EQ(0, CC(.opcode = VNEF_CC_ALL_REDUCE, .src = self->s, .dst = self->s,
			.src_offset = 7, .dst_offset = 7, .count = 100));
}

/* An error blocks finishing; the stream length is the collective engine's. */
TEST_F(err, first_error_blocks_finish)
{
	size_t size;
	void *img;

	EXPECT_EQ(-EINVAL, nd_all_reduce(self->b, self->y, self->x, 0, ND_ADD));
	EXPECT_EQ(0, nd_all_reduce(self->b, self->y, self->x, 1, ND_ADD));
	EXPECT_EQ(1, nd_builder_stream_len(self->b, VNEF_STREAM_CC));
	EXPECT_EQ(-EINVAL, nd_builder_finish(self->b, &img, &size));
	EXPECT_NE(NULL, strstr(nd_builder_error(self->b), "the program has errors; the first: "
			       "all_reduce: count is 0"));
}

/* The stream holds VNEF_MAX_CC_INSTRS entries. */
TEST(stream_full)
{
	struct nd_builder *b;
	struct nd_tensor *x, *y;
	uint32_t i;

	ASSERT_EQ(0, nd_builder_new("full", &b));
	x = nd_input(b, "x", ND_FP32, 1, (uint64_t[]){ 4 });
	y = nd_output(b, "y", ND_FP32, 1, (uint64_t[]){ 4 });
	for (i = 0; i < VNEF_MAX_CC_INSTRS; i++)
		ASSERT_EQ(0, nd_all_reduce(b, y, x, 4, ND_ADD));
	EXPECT_EQ(-E2BIG, nd_all_reduce(b, y, x, 4, ND_ADD));
	EXPECT_STREQ("CC-core: more than 4096 entries in one stream", nd_builder_error(b));
	nd_builder_free(b);
}

TEST_HARNESS_MAIN
