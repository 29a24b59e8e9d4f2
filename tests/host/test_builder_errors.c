// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The program builder's input errors: each returns -errno with a message naming
 * the problem, and blocks finishing.
 */
#include "builder_util.h"

/* ---------------------------------------------------------------------------- */
/* Input errors: each returns -errno, names the problem, and blocks finishing.   */

FIXTURE(err)
{
	struct nd_builder *b;
	struct nd_tensor *x, *y;
	struct nd_tile *s, *s2, *ps, *col;
};

FIXTURE_SETUP(err)
{
	ASSERT_EQ(0, nd_builder_new("err", &self->b));
	self->x = nd_input(self->b, "x", ND_FP32, 2, SHAPE_128x128);
	self->y = nd_output(self->b, "y", ND_FP32, 2, SHAPE_128x128);
	self->s = nd_sbuf(self->b, "s", ND_FP32, 128, 128);
	self->s2 = nd_sbuf(self->b, "s2", ND_FP32, 128, 128);
	self->ps = nd_psum(self->b, "ps", ND_FP32, 128, 128);
	self->col = nd_sbuf(self->b, "col", ND_FP32, 128, 1);
	ASSERT_NE(NULL, self->col);
	ASSERT_EQ(0, nd_builder_status(self->b));
}

FIXTURE_TEARDOWN(err)
{
	nd_builder_free(self->b);
}

/* The call failed with code and a message containing what. */
#define EXPECT_MSG(what)							\
	do {									\
		const char *m_ = nd_builder_error(self->b);			\
		if (!strstr(m_, what)) {					\
			TH_LOG("message: %s", m_);				\
			EXPECT_TRUE(0);						\
		}								\
	} while (0)

#define EXPECT_ERR(code, what, call)						\
	do {									\
		EXPECT_EQ(code, (call));					\
		EXPECT_MSG(what);						\
	} while (0)

#define EXPECT_NULL_ERR(code, what, call)					\
	do {									\
		EXPECT_EQ(NULL, (call));					\
		EXPECT_EQ(code, nd_builder_status(self->b));			\
		EXPECT_MSG(what);						\
	} while (0)

TEST_F(err, tensor_without_name)
{
	EXPECT_NULL_ERR(-EINVAL, "without a name", nd_input(self->b, "", ND_FP32, 1,
							       (uint64_t[]){ 4 }));
}

TEST_F(err, tensor_duplicate_name)
{
	EXPECT_NULL_ERR(-EEXIST, "'x' is already defined",
			nd_output(self->b, "x", ND_FP32, 1, (uint64_t[]){ 4 }));
}

TEST_F(err, tensor_name_too_long)
{
	char name[200];

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	EXPECT_NULL_ERR(-ENAMETOOLONG, "longer than 127",
			nd_input(self->b, name, ND_FP32, 1, (uint64_t[]){ 4 }));
}

TEST_F(err, tensor_bad_dtype)
{
	EXPECT_NULL_ERR(-EINVAL, "unknown dtype",
			nd_input(self->b, "z", (enum nd_dtype)7, 1, (uint64_t[]){ 4 }));
}

TEST_F(err, tensor_bad_rank)
{
	EXPECT_NULL_ERR(-EINVAL, "rank 5", nd_input(self->b, "z", ND_FP32, 5,
						   (uint64_t[]){ 1, 1, 1, 1, 1 }));
}

TEST_F(err, tensor_zero_dimension)
{
	EXPECT_NULL_ERR(-EINVAL, "dimension 1 is 0",
			nd_input(self->b, "z", ND_FP32, 2, (uint64_t[]){ 4, 0 }));
}

TEST_F(err, tensor_too_large)
{
	EXPECT_NULL_ERR(-E2BIG, "larger than",
			nd_input(self->b, "z", ND_FP32, 2, (uint64_t[]){ 1ull << 20, 1ull << 20 }));
}

TEST_F(err, const_without_data)
{
	EXPECT_NULL_ERR(-EINVAL, "without data",
			nd_const(self->b, "z", ND_FP32, 1, (uint64_t[]){ 4 }, NULL));
}

TEST_F(err, tile_partitions_over_128)
{
	EXPECT_NULL_ERR(-EINVAL, "129 partitions", nd_sbuf(self->b, "t", ND_FP32, 129, 4));
}

TEST_F(err, tile_zero_partitions)
{
	EXPECT_NULL_ERR(-EINVAL, "0 partitions", nd_sbuf(self->b, "t", ND_FP32, 0, 4));
}

TEST_F(err, tile_larger_than_partition)
{
	EXPECT_NULL_ERR(-E2BIG, "SBUF of trn1 has 196608 bytes",
			nd_sbuf(self->b, "t", ND_FP32, 128, 49153));
	EXPECT_NULL_ERR(-E2BIG, "PSUM of trn1 has 16384 bytes",
			nd_psum(self->b, "t", ND_FP32, 128, 4097));
}

TEST_F(err, tile_bad_memory)
{
	EXPECT_NULL_ERR(-EINVAL, "neither SBUF nor PSUM",
			nd_tile(self->b, (enum nd_memory)3, "t", ND_FP32, 1, 1));
}

TEST_F(err, out_of_sbuf)
{
	struct nd_tile *t;
	int i;

	/* 192 KiB a partition: the fixture holds 1 KiB + 64 B; 23 x 8 KiB more fit. */
	for (i = 0; i < 23; i++)
		ASSERT_NE(NULL, nd_sbuf(self->b, NULL, ND_FP32, 128, 2048));
	EXPECT_NULL_ERR(-ENOSPC, "out of SBUF: tile 'big' needs 8192 bytes",
			nd_sbuf(self->b, "big", ND_FP32, 128, 2048));
	/* freeing one makes room again, at the same place */
	t = nd_sbuf(self->b, "small", ND_FP32, 128, 16);
	ASSERT_NE(NULL, t);
}

TEST_F(err, out_of_psum)
{
	struct nd_tile *t[8];
	uint32_t off;
	int i;

	/* 8 banks; the fixture's 512-byte tile takes bank 0's start */
	for (i = 0; i < 7; i++) {
		t[i] = nd_psum(self->b, NULL, ND_FP32, 128, 512);
		ASSERT_NE(NULL, t[i]);
		EXPECT_EQ(0, nd_tile_offset(t[i]) % 2048);
	}
	EXPECT_NULL_ERR(-ENOSPC, "out of PSUM", nd_psum(self->b, "p8", ND_FP32, 128, 512));
	/* a small one still fits in bank 0 */
	ASSERT_NE(NULL, nd_psum(self->b, "small", ND_FP32, 128, 128));
	off = nd_tile_offset(t[3]);
	EXPECT_EQ(0, nd_tile_free(self->b, t[3]));
	t[7] = nd_psum(self->b, "again", ND_FP32, 128, 512);
	ASSERT_NE(NULL, t[7]);
	EXPECT_EQ(off, nd_tile_offset(t[7]));
}

TEST_F(err, tile_freed_twice)
{
	EXPECT_EQ(0, nd_tile_free(self->b, self->s2));
	EXPECT_ERR(-EINVAL, "freed twice", nd_tile_free(self->b, self->s2));
}

TEST_F(err, tile_used_after_free)
{
	EXPECT_EQ(0, nd_tile_free(self->b, self->s2));
	EXPECT_ERR(-EINVAL, "used after nd_tile_free",
		   nd_copy(self->b, ND_VECTOR, nd_whole(self->s), nd_whole(self->s2)));
}

TEST_F(err, tile_of_another_builder)
{
	struct nd_builder *o;
	struct nd_tile *t;

	ASSERT_EQ(0, nd_builder_new("other", &o));
	t = nd_sbuf(o, "t", ND_FP32, 128, 128);
	EXPECT_ERR(-EINVAL, "belongs to another builder",
		   nd_copy(self->b, ND_VECTOR, nd_whole(self->s), nd_whole(t)));
	nd_builder_free(o);
}

TEST_F(err, null_tile)
{
	EXPECT_ERR(-EINVAL, "src is not a tile",
		   nd_copy(self->b, ND_VECTOR, nd_whole(self->s), nd_whole(NULL)));
}

TEST_F(err, view_outside_tile)
{
	EXPECT_ERR(-ERANGE, "outside tile 's'",
		   nd_copy(self->b, ND_VECTOR, nd_part(self->s, 100, 29, 0, 128),
			   nd_part(self->s2, 0, 29, 0, 128)));
	EXPECT_ERR(-ERANGE, "outside tile 's2'",
		   nd_copy(self->b, ND_VECTOR, nd_part(self->s, 0, 1, 0, 100),
			   nd_part(self->s2, 0, 1, 50, 100)));
}

TEST_F(err, empty_view)
{
	EXPECT_ERR(-EINVAL, "is empty",
		   nd_copy(self->b, ND_VECTOR, nd_part(self->s, 0, 0, 0, 1),
			   nd_part(self->s2, 0, 0, 0, 1)));
}

TEST_F(err, shape_mismatch_elementwise)
{
	EXPECT_ERR(-EINVAL, "shape mismatch: dst is [128 x 128], src1 is [64 x 128]",
		   nd_tensor_tensor(self->b, ND_VECTOR, nd_whole(self->s), nd_whole(self->s),
				    nd_part(self->s2, 0, 64, 0, 128), ND_ADD));
}

TEST_F(err, wrong_engine)
{
	EXPECT_ERR(-EINVAL, "does not run on engine 2 (ScalarE)",
		   nd_tensor_tensor(self->b, ND_SCALAR, nd_whole(self->s), nd_whole(self->s),
				    nd_whole(self->s2), ND_ADD));
	EXPECT_ERR(-EINVAL, "does not run on engine 0 (TensorE)",
		   nd_memset(self->b, ND_TENSOR, nd_whole(self->s), 0));
	EXPECT_ERR(-EINVAL, "unknown",
		   nd_copy(self->b, (enum nd_engine)9, nd_whole(self->s), nd_whole(self->s2)));
}

TEST_F(err, bad_alu_and_activation)
{
	EXPECT_ERR(-EINVAL, "unknown ALU operation 6",
		   nd_tensor_scalar(self->b, ND_VECTOR, nd_whole(self->s), nd_whole(self->s),
				    (enum nd_alu)6, 1.0f, 0));
	EXPECT_ERR(-EINVAL, "cannot reduce with 'sub'",
		   nd_reduce(self->b, nd_whole(self->col), nd_whole(self->s), ND_SUB));
	EXPECT_ERR(-EINVAL, "unknown activation function 11",
		   nd_activate(self->b, nd_whole(self->s), nd_whole(self->s), (enum nd_act)11,
			       1.0f, 0.0f));
}

TEST_F(err, reduce_and_column_shapes)
{
	EXPECT_ERR(-EINVAL, "dst must be [128 x 1], is [128 x 128]",
		   nd_reduce(self->b, nd_whole(self->s2), nd_whole(self->s), ND_ADD));
	EXPECT_ERR(-EINVAL, "the column must be [128 x 1], is [64 x 1]",
		   nd_tensor_column(self->b, ND_VECTOR, nd_whole(self->s), nd_whole(self->s),
				    ND_SUB, nd_part(self->col, 0, 64, 0, 1), 0));
	EXPECT_ERR(-EINVAL, "the column must be [128 x 1]",
		   nd_activate_column(self->b, nd_whole(self->s), nd_whole(self->s), ND_ACT_EXP,
				      1.0f, nd_whole(self->s2)));
	EXPECT_ERR(-EINVAL, "dst must be [1 x 128], is [128 x 1]",
		   nd_partition_reduce(self->b, nd_whole(self->col), nd_whole(self->s), ND_ADD));
}

TEST_F(err, multiply_moving_without_stationary)
{
	EXPECT_ERR(-EINVAL, "no stationary operand loaded",
		   nd_multiply_moving(self->b, nd_whole(self->ps), nd_whole(self->s), 0));
}

TEST_F(err, matmul_contraction_mismatch)
{
	EXPECT_ERR(-EINVAL, "stationary has K=128 partitions, moving K=64",
		   nd_matmul(self->b, nd_whole(self->ps), nd_whole(self->s),
			     nd_part(self->s2, 0, 64, 0, 128), 0));
	ASSERT_EQ(0, nd_load_stationary(self->b, nd_part(self->s, 0, 64, 0, 128)));
	EXPECT_ERR(-EINVAL, "moving has K=128 partitions, the stationary K=64",
		   nd_multiply_moving(self->b, nd_whole(self->ps), nd_whole(self->s2), 0));
}

TEST_F(err, matmul_output_shape_and_memory)
{
	struct nd_tile *pbf = nd_psum(self->b, "pbf", ND_BF16, 128, 128);

	EXPECT_ERR(-EINVAL, "dst is [64 x 128], the product is [128 x 128]",
		   nd_matmul(self->b, nd_part(self->ps, 0, 64, 0, 128), nd_whole(self->s),
			     nd_whole(self->s2), 0));
	EXPECT_ERR(-EINVAL, "is in SBUF; TensorE writes PSUM",
		   nd_matmul(self->b, nd_whole(self->s), nd_whole(self->s), nd_whole(self->s2),
			     0));
	EXPECT_ERR(-EINVAL, "must be fp32",
		   nd_matmul(self->b, nd_whole(pbf), nd_whole(self->s), nd_whole(self->s2), 0));
	EXPECT_ERR(-EINVAL, "is in PSUM; TensorE reads SBUF",
		   nd_matmul(self->b, nd_whole(self->ps), nd_whole(self->ps), nd_whole(self->s2),
			     0));
}

TEST_F(err, matmul_limits)
{
	struct nd_tile *wide = nd_sbuf(self->b, "wide", ND_FP32, 128, 1024);
	struct nd_tile *pwide = nd_psum(self->b, "pwide", ND_FP32, 128, 1024);

	ASSERT_NE(NULL, pwide);
	EXPECT_ERR(-EINVAL, "stationary is [128 x 1024]; at most [128 x 128]",
		   nd_load_stationary(self->b, nd_whole(wide)));
	EXPECT_ERR(-EINVAL, "moving has N=1024 columns; at most 512",
		   nd_matmul(self->b, nd_whole(pwide), nd_whole(self->s), nd_whole(wide), 0));
	/* 512 fp32 starting mid-bank cross into the next bank */
	EXPECT_ERR(-EINVAL, "crosses a PSUM bank",
		   nd_matmul(self->b, nd_part(pwide, 0, 128, 256, 512), nd_whole(self->s),
			     nd_part(wide, 0, 128, 0, 512), 0));
}

TEST_F(err, matmul_dtype_mismatch)
{
	struct nd_tile *h = nd_sbuf(self->b, "h", ND_BF16, 128, 128);

	EXPECT_ERR(-EINVAL, "dtypes differ",
		   nd_matmul(self->b, nd_whole(self->ps), nd_whole(self->s), nd_whole(h), 0));
}

TEST_F(err, transpose_shapes)
{
	EXPECT_ERR(-EINVAL, "dst must be [128 x 64], is [128 x 128]",
		   nd_transpose(self->b, nd_whole(self->ps), nd_part(self->s, 0, 64, 0, 128), 0));
	EXPECT_ERR(-EINVAL, "TensorE writes PSUM",
		   nd_transpose(self->b, nd_whole(self->s2), nd_whole(self->s), 0));
}

TEST_F(err, dma_bad_queue)
{
	EXPECT_ERR(-EINVAL, "DMA queue 16",
		   nd_load(self->b, 16, nd_whole(self->s), nd_hbm_rows(self->x, 0, 0)));
	EXPECT_ERR(-EINVAL, "DMA queue -3",
		   nd_load(self->b, -3, nd_whole(self->s), nd_hbm_rows(self->x, 0, 0)));
}

TEST_F(err, dma_outside_tensor)
{
	EXPECT_ERR(-ERANGE, "reaches element 16511 of tensor 'x', which has 16384",
		   nd_load(self->b, 0, nd_whole(self->s), nd_hbm_rows(self->x, 1, 0)));
	EXPECT_ERR(-ERANGE, "of tensor 'x'",
		   nd_load(self->b, 0, nd_whole(self->s),
			   (struct nd_hbm){ .tensor = self->x, .offset = ~0ull, .fstride = 1 }));
}

TEST_F(err, dma_writes_input)
{
	EXPECT_ERR(-EINVAL, "writes input tensor 'x', which is read-only",
		   nd_store(self->b, 0, nd_hbm_rows(self->x, 0, 0), nd_whole(self->s)));
}

TEST_F(err, dma_dtype_mismatch)
{
	struct nd_tile *h = nd_sbuf(self->b, "h", ND_BF16, 128, 128);

	EXPECT_ERR(-EINVAL, "dtype mismatch: tensor 'x' is fp32, tile 'h' is bf16",
		   nd_load(self->b, 0, nd_whole(h), nd_hbm_rows(self->x, 0, 0)));
}

TEST_F(err, dma_raw_endpoints)
{
	struct nd_dma_xfer x = { .chunk_bytes = 4, .count = { 1, 1 },
				 .src = { .tensor = self->x, .tile = self->s },
				 .dst = { .tile = self->s } };

	EXPECT_ERR(-EINVAL, "exactly one of a tensor and a tile", nd_dma(self->b, 0, &x));
	x.src.tile = NULL;
	x.count[0] = 0;
	EXPECT_ERR(-EINVAL, "empty transfer", nd_dma(self->b, 0, &x));
	x.count[0] = 129;
	x.dst.part_stride[0] = 1;
	EXPECT_ERR(-ERANGE, "reaches partition 128 of tile 's'", nd_dma(self->b, 0, &x));
	x.count[0] = 1;
	x.dst.offset = 512;
	EXPECT_ERR(-ERANGE, "reaches byte 516 of each partition", nd_dma(self->b, 0, &x));
	x.dst.offset = 0;
	x.src.partition = 1;
	EXPECT_ERR(-EINVAL, "is in HBM; partitions must be 0", nd_dma(self->b, 0, &x));
	EXPECT_ERR(-EINVAL, "no transfer given", nd_dma(self->b, 0, NULL));
}

TEST_F(err, patterns)
{
	EXPECT_ERR(-EINVAL, "only sources broadcast",
		   nd_copy(self->b, ND_VECTOR, nd_pattern(self->s, 0, 128, 0, 128, 0, 1, 0),
			   nd_whole(self->s2)));
	EXPECT_ERR(-ERANGE, "view [0:128, 0:135] is outside tile 's2'",
		   nd_copy(self->b, ND_VECTOR, nd_part(self->s, 0, 128, 0, 16),
			   nd_pattern(self->s2, 0, 128, 0, 2, 1, 8, 19)));
	EXPECT_ERR(-EINVAL, "give the pattern to nd_dma()",
		   nd_load(self->b, 0, nd_pattern(self->s, 0, 128, 0, 2, 1, 8, 16),
			   nd_hbm_rows(self->x, 0, 0)));
	EXPECT_ERR(-E2BIG, "has 131072 free elements; at most 98304",
		   nd_tensor_scalar(self->b, ND_VECTOR, nd_whole(self->s),
				    nd_pattern(self->col, 0, 128, 0, 1024, 0, 128, 0), ND_ADD,
				    1.0f, 0));
	/* shapes compare the pattern's element count: 8 x 16 = 128 */
	EXPECT_EQ(0, nd_copy(self->b, ND_VECTOR, nd_whole(self->s),
			     nd_pattern(self->s2, 0, 128, 0, 8, 16, 16, 1)));
}

TEST_F(err, more_argument_errors)
{
	struct nd_builder *o;
	struct nd_tensor *ox;
	struct nd_tile *h = nd_sbuf(self->b, "h", ND_BF16, 128, 128);
	struct nd_tile *wide = nd_sbuf(self->b, "wide", ND_FP32, 128, 256);
	struct nd_dma_xfer x = { .chunk_bytes = 4, .count = { 3, 1 },
				 .src = { .tensor = self->x, .stride = { ~0ull, 0 } },
				 .dst = { .tile = self->s } };

	ASSERT_EQ(0, nd_builder_new("other", &o));
	ox = nd_input(o, "ox", ND_FP32, 2, SHAPE_128x128);
	EXPECT_ERR(-EINVAL, "not a tile of this builder",
		   nd_tile_free(self->b, nd_sbuf(o, "t", ND_FP32, 1, 1)));
	EXPECT_ERR(-EINVAL, "source tensor belongs to another builder",
		   nd_dma(self->b, 0, &(struct nd_dma_xfer){ .chunk_bytes = 4,
			  .count = { 1, 1 }, .src = { .tensor = ox },
			  .dst = { .tile = self->s } }));
	nd_builder_free(o);
	EXPECT_NULL_ERR(-EINVAL, "unknown dtype", nd_sbuf(self->b, "t", (enum nd_dtype)0, 1, 1));
	EXPECT_ERR(-EINVAL, "has 200 partitions; at most 128",
		   nd_copy(self->b, ND_VECTOR, nd_part(self->s, 0, 200, 0, 1),
			   nd_part(self->s2, 0, 200, 0, 1)));
	EXPECT_ERR(-EINVAL, "elements are not rows of 0",
		   nd_copy(self->b, ND_VECTOR, nd_whole(self->s),
			   (struct nd_tv){ .tile = self->s2, .np = 128, .nf = 128, .strided = 1 }));
	EXPECT_ERR(-EINVAL, "no HBM tensor",
		   nd_load(self->b, 0, nd_whole(self->s), nd_hbm_rows(NULL, 0, 0)));
	EXPECT_ERR(-EINVAL, "dtype mismatch: tile 'h' is bf16, tensor 'y' is fp32",
		   nd_store(self->b, 0, nd_hbm_rows(self->y, 0, 0), nd_whole(h)));
	EXPECT_ERR(-ERANGE, "source strides overflow", nd_dma(self->b, 0, &x));
	x.count[0] = 1;
	x.src.stride[0] = 0;
	x.src.offset = ~0ull - 1;
	EXPECT_ERR(-ERANGE, "source extent overflows", nd_dma(self->b, 0, &x));
	x.src.offset = 65536;
	EXPECT_ERR(-ERANGE, "source reaches byte 65540 of tensor 'x', which has 65536",
		   nd_dma(self->b, 0, &x));
	ASSERT_EQ(0, nd_load_stationary(self->b, nd_whole(self->s)));
	EXPECT_ERR(-EINVAL, "moving is bf16 but the stationary is fp32",
		   nd_multiply_moving(self->b, nd_whole(self->ps), nd_whole(h), 0));
	EXPECT_ERR(-EINVAL, "dst must be [256 x 128]",
		   nd_transpose(self->b, nd_whole(self->ps), nd_whole(wide), 0));
}

TEST_F(err, kernel_arguments)
{
	float g[4] = { 0 };

	EXPECT_ERR(-EINVAL, "exp kernel: empty tensor", nd_kernel_exp(self->b, 0, 4, 0));
	EXPECT_ERR(-EINVAL, "softmax kernel: empty tensor", nd_kernel_softmax(self->b, 4, 0));
	EXPECT_ERR(-EINVAL, "no gamma/beta",
		   nd_kernel_layernorm(self->b, 4, 4, g, NULL, 1e-5f));
	EXPECT_ERR(-EINVAL, "mlp kernel: d_in and hidden must be multiples of 128",
		   nd_kernel_mlp(self->b, 100, 128, 128, ND_FP32));
	EXPECT_ERR(-EINVAL, "multiples of 128",
		   nd_kernel_matmul(self->b, 128, 128, 700, ND_FP32, ND_FP32));
}

TEST(too_many_tensors)
{
	struct nd_builder *b;
	char name[16];
	int i;

	ASSERT_EQ(0, nd_builder_new("t", &b));
	for (i = 0; i < VNEF_MAX_TENSORS; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		ASSERT_NE(NULL, nd_scratch(b, name, ND_FP32, 1, (uint64_t[]){ 1 }));
	}
	EXPECT_EQ(NULL, nd_scratch(b, "one_more", ND_FP32, 1, (uint64_t[]){ 1 }));
	EXPECT_NE(NULL, strstr(nd_builder_error(b), "more than 256 tensors"));
	nd_builder_free(b);
}

TEST(stream_full)
{
	struct nd_builder *b;
	struct nd_tile *t;
	int i;

	ASSERT_EQ(0, nd_builder_new("full", &b));
	t = nd_sbuf(b, "t", ND_FP32, 1, 1);
	for (i = 0; i < VNEF_MAX_INSTRS; i++)
		ASSERT_EQ(0, nd_memset(b, ND_VECTOR, nd_whole(t), (float)i));
	EXPECT_EQ(-E2BIG, nd_memset(b, ND_VECTOR, nd_whole(t), 0));
	EXPECT_NE(NULL, strstr(nd_builder_error(b), "VectorE: more than 65536 entries"));
	nd_builder_free(b);
}

/* Constants count against the image limit, and so does the image as a whole. */
TEST(image_limits)
{
	const size_t big = 60u << 20;
	struct nd_builder *b;
	struct nd_tile *t;
	uint8_t *data = calloc(1, big);
	size_t size;
	void *img;
	int i;

	ASSERT_NE(NULL, data);
	ASSERT_EQ(0, nd_builder_new("big", &b));
	ASSERT_NE(NULL, nd_const(b, "c", ND_FP32, 1, (uint64_t[]){ big / 4 }, data));
	EXPECT_EQ(NULL, nd_const(b, "d", ND_FP32, 1, (uint64_t[]){ 2u << 20 }, data));
	EXPECT_NE(NULL, strstr(nd_builder_error(b), "constants over the 67108864-byte image"));
	nd_builder_free(b);

	ASSERT_EQ(0, nd_builder_new("big", &b));
	ASSERT_NE(NULL, nd_const(b, "c", ND_FP32, 1, (uint64_t[]){ big / 4 }, data));
	t = nd_sbuf(b, "t", ND_FP32, 1, 1);
	for (i = 0; i < 30000; i++)
		ASSERT_EQ(0, nd_memset(b, i & 1 ? ND_VECTOR : ND_GPSIMD, nd_whole(t), 1.0f));
	EXPECT_EQ(-E2BIG, nd_builder_finish(b, &img, &size));
	EXPECT_NE(NULL, strstr(nd_builder_error(b), "the image would be"));
	nd_builder_free(b);
	free(data);
}

TEST_F(err, scopes)
{
	char name[16];
	int i;

	EXPECT_ERR(-EINVAL, "without a scope to pop", nd_scope_pop(self->b));
	EXPECT_ERR(-EINVAL, "contains '/'", nd_scope_push(self->b, "a/b"));
	EXPECT_ERR(-EINVAL, "is empty", nd_scope_push(self->b, ""));
	for (i = 0; i < 16; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		ASSERT_EQ(0, nd_scope_push(self->b, name));
	}
	EXPECT_ERR(-E2BIG, "at most 16 deep", nd_scope_push(self->b, "deep"));
	/* the pushed scopes are freed with the builder (ASan checks) */
}

TEST_F(err, first_error_blocks_finish)
{
	void *img = (void *)1;
	size_t size = 1;

	ASSERT_EQ(0, nd_memset(self->b, ND_VECTOR, nd_whole(self->s), 1.0f));
	EXPECT_EQ(-EINVAL, nd_memset(self->b, ND_TENSOR, nd_whole(self->s), 1.0f));
	/* later good calls still work, but the image is refused */
	ASSERT_EQ(0, nd_store(self->b, 0, nd_hbm_rows(self->y, 0, 0), nd_whole(self->s)));
	EXPECT_EQ(-EINVAL, nd_builder_finish(self->b, &img, &size));
	EXPECT_EQ(NULL, img);
	EXPECT_EQ(0, size);
	EXPECT_NE(NULL, strstr(nd_builder_error(self->b),
			       "the program has errors; the first: memset does not run"));
}

TEST_HARNESS_MAIN
