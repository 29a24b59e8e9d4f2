// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The .vnef validator: a valid program passes, and each rule has a test that breaks
 * exactly it and checks the reported check code (uapi enum vnef_check).
 */
#include "core_util.h"
#include "vn_model.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#define SB	VNEF_MEM_SBUF
#define PS	VNEF_MEM_PSUM
#define F32	VNEF_DT_FP32
#define B16	VNEF_DT_BF16
#define TE	VNEURON_ENGINE_TENSOR
#define VE	VNEURON_ENGINE_VECTOR
#define SE	VNEURON_ENGINE_SCALAR
#define GE	VNEURON_ENGINE_GPSIMD

/* A valid program using every section and every engine. */
static void base(struct vb *b)
{
	static const float k[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct vnef_instr *in;
	struct vnef_dma_desc *d;
	float one = 1.0f;

	vb_init(b);
	b->name_off = vb_str(b, "base");
	vb_tensor(b, "x", VNEF_TENSOR_INPUT, F32, 4, 8, NULL);
	vb_tensor(b, "y", VNEF_TENSOR_OUTPUT, F32, 4, 8, NULL);
	vb_tensor(b, "k", VNEF_TENSOR_CONST, F32, 8, 0, k);
	d = vb_load(b, 0, 0, 0, 32, 4, 32, SB, 0, 0);		/* q0[0] */
	d->signal_mask = 1;
	in = vb_op(b, VE, VNEF_OP_TENSOR_TENSOR);		/* V[0] */
	in->src0 = vb_ap2(SB, F32, 0, 4, 0, 8);
	in->src1 = vb_ap2(SB, F32, 0, 4, 0, 8);
	in->dst = vb_ap2(SB, F32, 0, 4, 64, 8);
	VB_WAIT(in, 0, 1);
	in = vb_op(b, VE, VNEF_OP_TENSOR_SCALAR);		/* V[1] */
	in->op = VNEF_ALU_MUL;
	in->src0 = vb_ap2(SB, F32, 0, 4, 64, 8);
	in->dst = vb_ap2(SB, F32, 0, 4, 64, 8);
	memcpy(&in->imm[0], &one, 4);
	in->signal_mask = 2;
	in = vb_op(b, TE, VNEF_OP_LOAD_STATIONARY);		/* T[0] */
	in->src0 = vb_ap2(SB, F32, 0, 4, 0, 4);
	in = vb_op(b, TE, VNEF_OP_MULTIPLY_MOVING);		/* T[1] */
	in->src0 = vb_ap2(SB, B16, 0, 4, 256, 8);
	in->dst = vb_ap2(PS, F32, 0, 4, 0, 8);
	in = vb_op(b, SE, VNEF_OP_ACTIVATE);			/* S[0] */
	in->op = VNEF_ACT_EXP;
	in->src0 = vb_ap2(SB, F32, 0, 4, 64, 8);
	in->dst = vb_ap2(SB, F32, 0, 4, 128, 8);
	memcpy(&in->imm[0], &one, 4);
	VB_WAIT(in, 1, 1);
	in->signal_mask = 4;
	in = vb_op(b, GE, VNEF_OP_IOTA);			/* G[0] */
	in->dst = vb_ap2(SB, F32, 0, 128, 512, 16);
	in->imm[2] = 1;
	d = vb_store(b, 1, 1, 0, 32, 4, 32, SB, 0, 128);	/* q1[0] */
	VB_WAIT(d, 2, 1);
	vb_debug(b, VE, 0, "model.py", 12, "mlp/fc1/add");
	vb_debug(b, VNEF_STREAM_DMA(1), 0, "model.py", 20, "mlp/out");
}

static int load(uint8_t *img, uint64_t size, struct vn_prog_error *err)
{
	return vn_program_check(img, size, err);
}

TEST(base_is_valid_and_runs)
{
	float x[32], y[32];
	struct vn_bind bi[3] = { { x, sizeof(x) }, { y, sizeof(y) }, { NULL, 0 } };
	struct vn_prog_error err;
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_core *c;
	uint64_t size;
	uint8_t *img;
	struct vb b;
	int i;

	for (i = 0; i < 32; i++)
		x[i] = i * 0.1f;
	base(&b);
	img = vb_finish(&b, &size);
	vb_free(&b);
	ASSERT_EQ(0, vn_program_load(img, size, &p, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(VNEF_CHK_OK, err.check);
	EXPECT_EQ(3u, p->tensor_count);
	EXPECT_EQ(1, vn_program_tensor(p, "y"));
	EXPECT_EQ(-ENOENT, vn_program_tensor(p, "nope"));
	EXPECT_STREQ("mlp/fc1/add", vn_program_str(p, p->debug[0].scope_off));
	EXPECT_EQ((uint32_t)VNEF_STREAM_DMA(0), p->sem_writer[0]);
	EXPECT_EQ(1u, p->sem_incs[0]);
	vn_program_put(p);
	ASSERT_EQ(0, vn_core_create(NULL, "p", &c));
	ASSERT_EQ(0, run_image(c, img, size, bi, 3, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
	for (i = 0; i < 32; i++)
		ASSERT_TRUE(near(y[i], expf(2 * x[i]), 2e-6f, 0));
	vn_core_destroy(c);
	free(img);
}

/* Breaks the builder state (b) or the finished image (img, size), expects check. */
#define BAD(name, want_check, builder_change, image_change)			\
TEST(name)									\
{										\
	struct vn_prog_error err;						\
	struct vnef_header *h;							\
	struct vnef_section *sec;						\
	uint64_t size;								\
	uint8_t *img;								\
	struct vb b;								\
										\
	base(&b);								\
	builder_change;								\
	img = vb_finish(&b, &size);						\
	vb_free(&b);								\
	h = (struct vnef_header *)img;						\
	sec = (struct vnef_section *)(img + sizeof(*h));			\
	(void)h;								\
	(void)sec;								\
	image_change;								\
	EXPECT_NE(0, load(img, size, &err));					\
	EXPECT_EQ((uint32_t)(want_check), err.check)				\
		TH_LOG("got %s (%s), want %s", vn_check_name(err.check),	\
		       err.msg, vn_check_name(want_check));			\
	EXPECT_NE(NULL, err.msg);						\
	free(img);								\
}

#define BADB(name, want, change)	BAD(name, want, change, )
#define BADI(name, want, change)	BAD(name, want, , change)

/* Section order of base(): strtab, tensors, const, instr T V S G, dma q0 q1, debug. */
#define S_STR	0
#define S_TEN	1
#define S_CONST	2
#define S_T	3
#define S_V	4
#define S_S	5
#define S_G	6
#define S_Q0	7
#define S_Q1	8
#define S_DBG	9

#define V0	(b.in[VE][0])
#define V1	(b.in[VE][1])
#define T0	(b.in[TE][0])
#define T1	(b.in[TE][1])
#define S0	(b.in[SE][0])
#define G0	(b.in[GE][0])
#define Q0	(b.dd[0][0])
#define Q1	(b.dd[1][0])

/* header */
BADI(size_small, VNEF_CHK_SIZE, size = 20)
BADI(magic, VNEF_CHK_MAGIC, h->magic ^= 1)
BADI(version, VNEF_CHK_VERSION, h->version = VNEF_VERSION + 1)
BADI(version_0, VNEF_CHK_VERSION, h->version = 0)
BADI(total_size, VNEF_CHK_SIZE, h->total_size += 8)
BADI(header_size, VNEF_CHK_HEADER, h->header_size = 40)
BADI(header_flags, VNEF_CHK_HEADER, h->flags = 1)
BADI(header_reserved, VNEF_CHK_RESERVED, h->reserved[2] = 1)
BADI(section_entry_size, VNEF_CHK_HEADER, h->section_entry_size = 24)
BADI(section_count_zero, VNEF_CHK_HEADER, h->section_count = 0)
BADI(section_count_limit, VNEF_CHK_HEADER, h->section_count = VNEF_MAX_SECTIONS + 1)
BADI(section_table_beyond, VNEF_CHK_SIZE, h->section_count = 60)
BADI(program_name, VNEF_CHK_STRING, h->name_off = 1u << 20)

TEST(too_large_image)
{
	struct vn_prog_error err;
	uint8_t img[64] = { 0 };

	EXPECT_EQ(-E2BIG, load(img, (uint64_t)VNEF_MAX_IMAGE_BYTES + 1, &err));
	EXPECT_EQ(VNEF_CHK_SIZE, err.check);
}

/* section table */
BADI(section_misaligned, VNEF_CHK_SECTION, sec[S_STR].offset += 4)
BADI(section_beyond, VNEF_CHK_SECTION, sec[S_DBG].offset = size)
BADI(section_over_table, VNEF_CHK_SECTION, sec[S_STR].offset = 8)
BADI(section_size_wraps, VNEF_CHK_SECTION, sec[S_CONST].size = ~0ull - 7)
BADI(section_type, VNEF_CHK_SECTION, sec[S_DBG].type = 99)
BADI(section_overlap, VNEF_CHK_SECTION, sec[S_CONST].offset = sec[S_STR].offset)
BADI(section_dup_strtab, VNEF_CHK_SECTION_DUP, sec[S_CONST].type = VNEF_SEC_STRTAB)
BADI(section_dup_stream, VNEF_CHK_SECTION_DUP, sec[S_S].index = GE)
BADI(section_dup_queue, VNEF_CHK_SECTION_DUP, sec[S_Q1].index = 0)
BADI(section_dup_tensors, VNEF_CHK_SECTION_DUP,
     sec[S_DBG].type = VNEF_SEC_TENSORS; sec[S_DBG].entry_size = 64;
     sec[S_DBG].count = sec[S_DBG].size / 64)
BADI(section_entry_size_bad, VNEF_CHK_SECTION, sec[S_T].entry_size = 128)
BADI(section_size_not_count, VNEF_CHK_SECTION, sec[S_T].count = 1)
BADI(section_engine_index, VNEF_CHK_SECTION, sec[S_T].index = 4)
BADI(section_queue_index, VNEF_CHK_SECTION, sec[S_Q0].index = 16)
BADI(section_blob_count, VNEF_CHK_SECTION, sec[S_CONST].count = 1)
BADI(section_tensor_index, VNEF_CHK_SECTION, sec[S_TEN].index = 1)
BADI(strtab_missing, VNEF_CHK_SECTION_MISSING,
     sec[S_STR].type = VNEF_SEC_CONST; sec[S_CONST].type = 77; h->section_count = 2)
BADI(strtab_first_byte, VNEF_CHK_STRTAB, img[sec[S_STR].offset] = 'a')
BADI(strtab_last_byte, VNEF_CHK_STRTAB, img[sec[S_STR].offset + sec[S_STR].size - 1] = 'a')

TEST(no_streams)
{
	struct vn_prog_error err;
	uint64_t size;
	uint8_t *img;
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "x", VNEF_TENSOR_INPUT, F32, 4, 0, NULL);
	img = vb_finish(&b, &size);
	EXPECT_EQ(-EINVAL, load(img, size, &err));
	EXPECT_EQ(VNEF_CHK_SECTION_MISSING, err.check);
	free(img);
}

BADI(no_entries, VNEF_CHK_SECTION_MISSING,
     for (int i = S_T; i <= S_Q1; i++) { sec[i].count = 0; sec[i].size = 0; }
     h->section_count = S_DBG)

/*
 * A large image is long work for PROGRAM_LOAD: validation reaches a scheduling point (and
 * a fatal-signal check) every 4096 entries, in both of its passes over the streams.
 */
TEST(validation_has_scheduling_points)
{
	struct vn_prog_error err;
	unsigned long before;
	uint64_t size;
	uint8_t *img;
	struct vb b;
	uint32_t i, e;

	vb_init(&b);
	for (e = 0; e < VNEF_ENGINES; e++)
		for (i = 0; i < VNEF_MAX_INSTRS; i++)
			vb_op(&b, e, VNEF_OP_NOP);
	img = vb_finish(&b, &size);
	vb_free(&b);
	before = __atomic_load_n(&vn_os_resched_points, __ATOMIC_RELAXED);
	EXPECT_EQ(0, load(img, size, &err));
	/* 4 x 65536 entries, twice: 128 batches of 4096 */
	EXPECT_LE(128ul, __atomic_load_n(&vn_os_resched_points, __ATOMIC_RELAXED) - before);
	free(img);
}

TEST(too_many_tensors)
{
	struct vn_prog_error err;
	struct vnef_section *sec;
	struct vnef_header *h;
	uint64_t size, extra = 300 * sizeof(struct vnef_tensor);
	uint8_t *img;
	struct vb b;

	base(&b);
	img = vb_finish(&b, &size);
	vb_free(&b);
	img = realloc(img, size + extra);
	memset(img + size, 0, extra);
	h = (struct vnef_header *)img;
	sec = (struct vnef_section *)(img + sizeof(*h));
	sec[S_TEN].offset = size;
	sec[S_TEN].count = 300;
	sec[S_TEN].size = extra;
	size += extra;
	h->total_size = size;
	EXPECT_EQ(-EINVAL, load(img, size, &err));
	EXPECT_EQ(VNEF_CHK_LIMIT, err.check);
	free(img);
}

/* tensors */
BADB(tensor_name_off, VNEF_CHK_STRING, b.ten[1].name_off = 5000)
BADB(tensor_name_empty, VNEF_CHK_TENSOR_NAME, b.ten[1].name_off = 0)
BADB(tensor_name_dup, VNEF_CHK_TENSOR_NAME, b.ten[1].name_off = b.ten[0].name_off)
BADB(tensor_kind, VNEF_CHK_TENSOR, b.ten[1].kind = 5)
BADB(tensor_dtype, VNEF_CHK_TENSOR, b.ten[1].dtype = 3)
BADB(tensor_rank_zero, VNEF_CHK_TENSOR, b.ten[1].rank = 0)
BADB(tensor_rank_big, VNEF_CHK_TENSOR, b.ten[1].rank = 5)
BADB(tensor_dim_zero, VNEF_CHK_TENSOR, b.ten[1].shape[1] = 0)
BADB(tensor_dim_overflow, VNEF_CHK_TENSOR,
     b.ten[1].rank = 3; b.ten[1].shape[1] = 1ull << 40; b.ten[1].shape[2] = 1ull << 40)
BADB(tensor_too_big, VNEF_CHK_TENSOR, b.ten[1].shape[1] = 1ull << 33)
BADB(tensor_shape_beyond_rank, VNEF_CHK_RESERVED, b.ten[1].shape[3] = 2)
BADB(tensor_size_mismatch, VNEF_CHK_TENSOR, b.ten[1].size += 4)
BADB(tensor_const_outside, VNEF_CHK_TENSOR, b.ten[2].const_off = 8)
BADB(tensor_const_off_noconst, VNEF_CHK_RESERVED, b.ten[1].const_off = 8)

/* instructions: opcode and flags */
BADB(opcode_unknown, VNEF_CHK_OPCODE, V0.opcode = VNEF_OP_COUNT)
BADB(opcode_wrong_engine, VNEF_CHK_OPCODE, G0.opcode = VNEF_OP_ACTIVATE)
BADB(opcode_mm_on_vector, VNEF_CHK_OPCODE, V0.opcode = VNEF_OP_MULTIPLY_MOVING)
BADB(flags_unknown, VNEF_CHK_FLAGS, V0.flags |= 1u << 7)
BADB(flags_inapplicable, VNEF_CHK_FLAGS, V0.flags |= VNEF_IF_ACCUMULATE)
BADB(wait_without_flag, VNEF_CHK_RESERVED, V1.wait_value = 1)
BADB(instr_pad, VNEF_CHK_RESERVED, V0.pad = 1)
BADB(instr_reserved, VNEF_CHK_RESERVED, V0.reserved[3] = 1)
BADB(unused_imm, VNEF_CHK_RESERVED, V0.imm[0] = 1)
BADB(unused_imm_activate, VNEF_CHK_RESERVED, S0.imm[2] = 1)
BADB(unused_operand, VNEF_CHK_RESERVED, V1.src1.count[0] = 1)
BADB(op_on_nop, VNEF_CHK_RESERVED, T0.opcode = VNEF_OP_NOP; memset(&T0.src0, 0, 32);
     T0.op = 1; memset(&T1, 0, sizeof(T1)))

/* operands */
BADB(operand_mem_hbm, VNEF_CHK_OPERAND, V0.src1.mem = VNEF_MEM_HBM)
BADB(operand_mem_none, VNEF_CHK_OPERAND, V0.dst.mem = VNEF_MEM_NONE)
BADB(operand_dtype, VNEF_CHK_OPERAND, V0.src0.dtype = 7)
BADB(operand_pad, VNEF_CHK_RESERVED, V0.src0.pad = 1)
BADB(operand_partitions_zero, VNEF_CHK_OPERAND, V0.src0.partitions = 0)
BADB(operand_partitions_beyond, VNEF_CHK_OPERAND, V0.src0.start_partition = 125)
BADB(operand_count_zero, VNEF_CHK_OPERAND, V0.src0.count[1] = 0)
BADB(operand_misaligned, VNEF_CHK_OPERAND, V0.src0.offset = 2)
/* beyond trn1's partition (the default model), inside the largest model's */
BADB(operand_beyond_partition, VNEF_CHK_MODEL, V0.src0.offset = VNEF_SBUF_PART_BYTES - 28)
BADB(operand_beyond_any_partition, VNEF_CHK_OPERAND,
     V0.src0.offset = VNEF_SBUF_PART_BYTES_MAX - 28)
BADB(operand_stride_beyond, VNEF_CHK_OPERAND,
     V0.src0.count[1] = 2; V0.src0.stride[1] = 1u << 30; V0.src0.count[0] = 4)
BADB(operand_huge_strides, VNEF_CHK_OPERAND,
     V0.src0.count[0] = 2; V0.src0.count[1] = 4; V0.src0.stride[0] = ~0u; V0.src0.stride[1] = ~0u)
BADB(operand_free_size, VNEF_CHK_OPERAND,
     V0.dst.count[0] = 1000; V0.dst.count[1] = 1000; V0.dst.stride[0] = 0)
BADB(operand_psum_beyond, VNEF_CHK_OPERAND, T1.dst.offset = VNEF_PSUM_PART_BYTES)

/* alu and activation */
BADB(alu_unknown, VNEF_CHK_ALU, V0.op = VNEF_ALU_COUNT)
BADB(act_unknown, VNEF_CHK_ALU, S0.op = VNEF_ACT_COUNT)
BADB(reduce_sub, VNEF_CHK_ALU, V0.opcode = VNEF_OP_REDUCE; V0.op = VNEF_ALU_SUB;
     memset(&V0.src1, 0, 32); V0.dst.count[0] = 1)

/* opcode shape rules */
BADB(shape_tensor_tensor, VNEF_CHK_SHAPE, V0.src1.count[0] = 7)
BADB(shape_tensor_tensor_parts, VNEF_CHK_SHAPE, V0.src1.partitions = 3)
BADB(shape_scalar_column, VNEF_CHK_SHAPE, V1.flags |= VNEF_IF_SCALAR_COLUMN; V1.imm[0] = 0;
     V1.src1 = vb_ap2(SB, F32, 0, 4, 0, 2))
BADB(shape_reduce_not_column, VNEF_CHK_SHAPE, V0.opcode = VNEF_OP_REDUCE;
     memset(&V0.src1, 0, 32))
BADB(shape_copy, VNEF_CHK_SHAPE, V0.opcode = VNEF_OP_COPY; memset(&V0.src1, 0, 32);
     V0.dst.count[0] = 9)
BADB(shape_bias_column, VNEF_CHK_SHAPE, S0.flags |= VNEF_IF_BIAS_COLUMN;
     S0.src1 = vb_ap2(SB, F32, 0, 3, 0, 1))
BADB(shape_partition_reduce, VNEF_CHK_SHAPE, G0.opcode = VNEF_OP_PARTITION_REDUCE;
     G0.imm[2] = 0; G0.src0 = vb_ap2(SB, F32, 0, 128, 0, 16))
BADB(shape_stationary_m, VNEF_CHK_SHAPE, T0.src0 = vb_ap2(SB, F32, 0, 4, 0, 129))
BADB(shape_stationary_psum, VNEF_CHK_SHAPE, T0.src0.mem = PS)
BADB(shape_moving_before_stationary, VNEF_CHK_SHAPE, T0 = T1; T1.wait_value = 0)
BADB(shape_moving_k, VNEF_CHK_SHAPE, T1.src0.partitions = 5)
BADB(shape_moving_n, VNEF_CHK_SHAPE, T1.src0 = vb_ap2(SB, B16, 0, 4, 256, 513);
     T1.dst = vb_ap2(PS, F32, 0, 4, 0, 513))
BADB(shape_mm_out_m, VNEF_CHK_SHAPE, T1.dst.partitions = 5)
BADB(shape_mm_out_sbuf, VNEF_CHK_SHAPE, T1.dst.mem = SB)
BADB(shape_mm_out_bf16, VNEF_CHK_SHAPE, T1.dst.dtype = B16)
BADB(shape_mm_bank, VNEF_CHK_SHAPE, T1.dst.offset = 2048 - 16)
BADB(shape_transpose, VNEF_CHK_SHAPE, T1.opcode = VNEF_OP_TRANSPOSE;
     T1.src0 = vb_ap2(SB, F32, 0, 4, 256, 8); T1.dst = vb_ap2(PS, F32, 0, 4, 0, 8))

/* semaphores */
BADB(sem_id, VNEF_CHK_SEM, V0.wait_sem = VNEF_MAX_SEMS)
BADB(sem_wait_zero, VNEF_CHK_SEM, V0.wait_value = 0)
BADB(sem_two_writers, VNEF_CHK_SEM, G0.signal_mask = 1)
BADB(sem_never_reached, VNEF_CHK_DEADLOCK, V0.wait_value = 2)
BADB(sem_never_signalled, VNEF_CHK_DEADLOCK, V0.wait_sem = 9)
BADB(sem_own_later_signal, VNEF_CHK_DEADLOCK, V0.wait_sem = 1)

/* DMA */
BADB(dma_flags, VNEF_CHK_FLAGS, Q0.flags = VNEF_IF_ACCUMULATE)
BADB(dma_wait_without_flag, VNEF_CHK_RESERVED, Q0.wait_sem = 1)
BADB(dma_chunk_zero, VNEF_CHK_DMA, Q0.chunk_bytes = 0)
BADB(dma_count_zero, VNEF_CHK_DMA, Q0.count[1] = 0)
BADB(dma_too_large, VNEF_CHK_DMA, Q0.chunk_bytes = ~0u; Q0.count[0] = ~0u; Q0.count[1] = 4)
BADB(dma_ep_pid_stride_on_chip, VNEF_CHK_RESERVED, Q0.dst.pid_stride = 1)
BADB(dma_ep_pid_stride_past_tensor, VNEF_CHK_DMA, Q0.src.pid_stride = ~0u)
BADB(dma_hbm_partition, VNEF_CHK_RESERVED, Q0.src.partition = 1)
BADB(dma_hbm_part_stride, VNEF_CHK_RESERVED, Q0.src.part_stride[1] = 1)
BADB(dma_tensor_index, VNEF_CHK_DMA, Q0.src.tensor = 3)
BADB(dma_write_input, VNEF_CHK_DMA, Q1.dst.tensor = 0)
BADB(dma_write_const, VNEF_CHK_DMA, Q1.dst.tensor = 2)
BADB(dma_beyond_tensor, VNEF_CHK_DMA, Q0.src.offset = 4)
BADB(dma_span_overflow, VNEF_CHK_DMA, Q0.src.stride[0] = ~0ull / 2)
BADB(dma_offset_overflow, VNEF_CHK_DMA, Q0.src.offset = ~0ull - 8)
BADB(dma_mem, VNEF_CHK_DMA, Q0.dst.mem = 9)
BADB(dma_mem_none, VNEF_CHK_DMA, Q0.dst.mem = VNEF_MEM_NONE)
BADB(dma_chip_tensor, VNEF_CHK_RESERVED, Q0.dst.tensor = 1)
BADB(dma_last_partition, VNEF_CHK_DMA, Q0.dst.partition = 125)
BADB(dma_part_stride, VNEF_CHK_DMA, Q0.dst.part_stride[0] = 43)
BADB(dma_partition_bytes, VNEF_CHK_MODEL, Q0.dst.offset = VNEF_SBUF_PART_BYTES - 16)
BADB(dma_beyond_any_partition, VNEF_CHK_DMA, Q0.dst.offset = VNEF_SBUF_PART_BYTES_MAX - 16)
BADB(dma_psum_bytes, VNEF_CHK_DMA, Q0.dst.mem = PS; Q0.dst.offset = VNEF_PSUM_PART_BYTES - 16)
BADB(dma_stride_bytes, VNEF_CHK_MODEL, Q0.dst.stride[0] = 65536)
BADB(dma_stride_beyond_any, VNEF_CHK_DMA, Q0.dst.stride[0] = 131072)

/* debug table */
BADB(debug_pad, VNEF_CHK_RESERVED, b.dbg[1].pad = 1)
BADB(debug_stream, VNEF_CHK_DEBUG, b.dbg[1].stream = VNEF_STREAMS)
BADB(debug_index, VNEF_CHK_DEBUG, b.dbg[1].index = 1)
BADB(debug_file, VNEF_CHK_STRING, b.dbg[0].file_off = 1u << 30)
BADB(debug_scope, VNEF_CHK_STRING, b.dbg[0].scope_off = 1u << 30)
BADB(debug_too_many, VNEF_CHK_LIMIT,
     for (int i = 0; i < 10; i++) vb_debug(&b, VE, 0, "f", 1, "s"))

/*
 * ---- wrapping sums ----
 *
 * Every sum the validator bounds, attacked with values whose true result is out of range
 * but whose sum modulo 2^64 (or 2^32, 2^16 for narrower arithmetic) is small. Each row
 * first checks, with 128-bit arithmetic, that it really is such a value; then the loader
 * must refuse it with the right check. The boundary rows must still load, and they are run
 * too, in the host build's default mode where any access the executor's own check refuses
 * aborts: the validator and the executor agree on where memory ends.
 */

typedef unsigned __int128 u128;

#define U32M	0xffffffffu
#define SB_PB	VNEF_SBUF_PART_BYTES
#define PS_PB	VNEF_PSUM_PART_BYTES

/* Load base() as changed in b (freed), and if it loaded and c is given, run it on c. */
static int load_base(struct __test_metadata *_metadata, struct vb *b, struct vn_core *c,
		     struct vn_prog_error *err)
{
	float x[32] = { 0 }, y[32];
	struct vn_bind bi[3] = { { x, sizeof(x) }, { y, sizeof(y) }, { NULL, 0 } };
	struct vn_exec_status st;
	uint64_t size;
	uint8_t *img = vb_finish(b, &size);
	int r;

	vb_free(b);
	r = load(img, size, err);
	if (!r && c) {
		EXPECT_EQ(0, run_image(c, img, size, bi, 3, &st));
		EXPECT_EQ(VN_RES_OK, st.result);
	}
	free(img);
	return r;
}

/* Expect load_base() to refuse with check _chk, at section _sec entry _idx. */
#define EXPECT_REFUSED(_b, _chk, _sec, _idx, _what, ...) do {				\
	struct vn_prog_error __e;							\
	int __r = load_base(_metadata, (_b), NULL, &__e);				\
											\
	EXPECT_EQ(-EINVAL, __r) TH_LOG(_what, ##__VA_ARGS__);				\
	EXPECT_EQ((uint32_t)(_chk), __e.check)						\
		TH_LOG("got %s (%s); " _what, vn_check_name(__e.check), __e.msg,	\
		       ##__VA_ARGS__);							\
	EXPECT_EQ((uint32_t)(_sec), __e.section) TH_LOG(_what, ##__VA_ARGS__);		\
	EXPECT_EQ((uint32_t)(_idx), __e.index) TH_LOG(_what, ##__VA_ARGS__);		\
} while (0)

/* Expect it to load (and, given a core, to run without a fault). */
#define EXPECT_ACCEPTED(_b, _core, _what, ...) do {					\
	struct vn_prog_error __e;							\
	int __r = load_base(_metadata, (_b), (_core), &__e);				\
											\
	EXPECT_EQ(0, __r) TH_LOG("got %s (%s); " _what, vn_check_name(__e.check),	\
				 __e.msg, ##__VA_ARGS__);				\
} while (0)

/*
 * An on-chip DMA endpoint and the descriptor's shape. which: 0 is Q0's destination
 * (HBM x to chip), 1 is Q1's source (chip to HBM y); the HBM side reads or writes one
 * place (strides 0), so only the on-chip side can be out of range.
 */
struct chip_ep {
	uint32_t which, mem, partition, c0, ps0, c1, ps1, chunk;
	uint64_t offset, s0, s1;
};

static void set_chip_ep(struct vb *b, const struct chip_ep *e)
{
	struct vnef_dma_desc *d = e->which ? &b->dd[1][0] : &b->dd[0][0];
	struct vnef_dma_ep chip = vb_chip(e->mem, e->partition, e->offset, e->ps0, e->s0,
					  e->ps1, e->s1);

	d->chunk_bytes = e->chunk;
	d->count[0] = e->c0;
	d->count[1] = e->c1;
	if (e->which) {
		d->src = chip;
		d->dst = vb_hbm(1, 0, 0, 0);
	} else {
		d->src = vb_hbm(0, 0, 0, 0);
		d->dst = chip;
	}
}

static const char *const ep_name[2] = { "Q0 dst", "Q1 src" };
static const char *const mem_name[4] = { "none", "SBUF", "PSUM", "HBM" };

/*
 * The attack the last commit closed: partition + (c0 - 1) * ps0 + (c1 - 1) * ps1 wraps
 * 2^64 to a partition below 128, which the old validator accepted (and the DMA then
 * wrote 4 GiB-strided partitions far outside SBUF). With chunk_bytes * c0 * c1 within
 * 16 GiB, the sum can only pass 2^64 with one count 2^32 - 1, the other 4 and both
 * strides 2^32 - 1: it then wraps to partition - 1. partition 128 wraps to 127.
 */
TEST(dma_partition_sum_wrap_is_refused)
{
	static const uint32_t parts[] = { 1, 5, 64, 127, 128 };
	uint32_t w, m, i, big;

	for (w = 0; w < 2; w++)
		for (m = SB; m <= PS; m++)
			for (big = 0; big < 2; big++)
				for (i = 0; i < ARRAY_SIZE(parts); i++) {
					struct chip_ep e = {
						.which = w, .mem = m, .partition = parts[i],
						.c0 = big ? 4 : U32M, .ps0 = U32M,
						.c1 = big ? U32M : 4, .ps1 = U32M, .chunk = 1,
					};
					uint64_t wrapped = e.partition +
						(uint64_t)(e.c0 - 1) * e.ps0 +
						(uint64_t)(e.c1 - 1) * e.ps1;
					u128 last = (u128)e.partition +
						(u128)(e.c0 - 1) * e.ps0 +
						(u128)(e.c1 - 1) * e.ps1;
					struct vb b;

					ASSERT_LT(wrapped, 128ull);
					ASSERT_TRUE(last >= 128);
					ASSERT_LE((uint64_t)e.chunk * e.c0 * e.c1,
						  VNEF_MAX_TENSOR_BYTES);
					base(&b);
					set_chip_ep(&b, &e);
					EXPECT_REFUSED(&b, VNEF_CHK_DMA, w ? S_Q1 : S_Q0, 0,
						       "%s %s partition %u, count[%u] big",
						       ep_name[w], mem_name[m], e.partition, big);
				}
}

/* Sums that do not wrap but end past partition 127, and those that end exactly at it. */
TEST(dma_last_partition_boundary)
{
	static const uint32_t bad[][5] = {	/* partition, c0, ps0, c1, ps1 */
		{ 128, 1, 0, 1, 0 }, { 0, 129, 1, 1, 0 }, { 0, 2, 128, 1, 0 },
		{ 0, 1, 0, 2, 128 }, { 1, 2, 63, 2, 64 }, { 65, 64, 1, 1, 0 },
		{ U32M, 1, 0, 1, 0 }, { 0, 2, U32M, 1, 0 }, { 0, 1, 0, 2, U32M },
		{ U32M, 2, U32M, 2, U32M },
	};
	static const uint32_t good[][5] = {
		{ 127, 1, 0, 1, 0 }, { 0, 128, 1, 1, 0 }, { 0, 2, 127, 1, 0 },
		{ 0, 1, 0, 2, 127 }, { 1, 2, 63, 2, 63 }, { 64, 64, 1, 1, 0 },
		{ 0, 4, 0, 128, 1 }, { 127, 3, 0, 3, 0 },
	};
	uint32_t w, m, i;
	struct vn_core *c;

	ASSERT_EQ(0, vn_core_create(NULL, "pb", &c));
	for (w = 0; w < 2; w++)
		for (m = SB; m <= PS; m++) {
			for (i = 0; i < ARRAY_SIZE(bad); i++) {
				struct chip_ep e = {
					.which = w, .mem = m, .partition = bad[i][0],
					.c0 = bad[i][1], .ps0 = bad[i][2], .c1 = bad[i][3],
					.ps1 = bad[i][4], .chunk = 4,
				};
				struct vb b;

				base(&b);
				set_chip_ep(&b, &e);
				EXPECT_REFUSED(&b, VNEF_CHK_DMA, w ? S_Q1 : S_Q0, 0,
					       "%s %s bad row %u", ep_name[w], mem_name[m], i);
			}
			for (i = 0; i < ARRAY_SIZE(good); i++) {
				struct chip_ep e = {
					.which = w, .mem = m, .partition = good[i][0],
					.c0 = good[i][1], .ps0 = good[i][2], .c1 = good[i][3],
					.ps1 = good[i][4], .chunk = 4,
				};
				struct vb b;

				base(&b);
				set_chip_ep(&b, &e);
				EXPECT_ACCEPTED(&b, c, "%s %s good row %u", ep_name[w],
						mem_name[m], i);
			}
		}
	vn_core_destroy(c);
}

/* Byte offsets: offset + (c0 - 1) * s0 + (c1 - 1) * s1 + chunk_bytes. */
struct byte_row {
	uint64_t offset, s0, s1;
	uint32_t c0, c1, chunk;
};

static u128 byte_end(const struct byte_row *r)
{
	return (u128)r->offset + (u128)(r->c0 - 1) * r->s0 + (u128)(r->c1 - 1) * r->s1 +
	       r->chunk;
}

/* Each wraps 2^64 to a small end, through a different term. */
static const struct byte_row byte_wraps[] = {
	{ ~0ull - 15, 0, 0, 1, 1, 32 },			/* offset + chunk */
	{ ~0ull, 0, 0, 1, 1, 1 },			/* offset + chunk = 2^64 exactly */
	{ 0, 1ull << 63, 0, 3, 1, 1 },			/* (c0 - 1) * s0 = 2^64 */
	{ 0, 0x5555555555555556ull, 0, 4, 1, 4 },	/* 3 * s0 = 2^64 + 2 */
	{ 1ull << 63, 1ull << 62, 0, 3, 1, 1 },		/* offset + span0 */
	{ 0, 1ull << 63, 1ull << 63, 2, 2, 1 },		/* span0 + span1 */
	{ 16, 0, ~0ull, 1, 2, 1 },			/* offset + span1 */
	{ 0, 0, 1ull << 62, 1, 5, 8 },			/* 4 * s1 = 2^64 */
	{ 64, ~0ull - 63, 0, 2, 1, 8 },			/* offset + span0 = 2^64 */
};

/* Bytes past the partition end by one, on chip (SBUF, PSUM) and past a 128-byte tensor. */
static void byte_bad(uint64_t limit, struct byte_row *out)
{
	struct byte_row r[] = {
		{ limit - 31, 0, 0, 1, 1, 32 },
		{ 0, limit - 31, 0, 2, 1, 32 },
		{ 32, 0, limit - 63, 1, 2, 32 },
		{ 0, 16, limit / 2 - 16, 2, 3, 17 },
	};

	memcpy(out, r, sizeof(r));
}

/* Ending exactly at the partition or tensor end. */
static void byte_good(uint64_t limit, struct byte_row *out)
{
	struct byte_row r[] = {
		{ limit - 32, 0, 0, 1, 1, 32 },
		{ 0, limit - 32, 0, 2, 1, 32 },
		{ 32, 0, limit - 64, 1, 2, 32 },
		{ 0, 16, limit / 2 - 16, 2, 3, 16 },
	};

	memcpy(out, r, sizeof(r));
}

/* side: 0 Q0 src (HBM x), 1 Q0 dst (chip), 2 Q1 src (chip), 3 Q1 dst (HBM y). */
static void set_bytes(struct vb *b, uint32_t side, uint32_t mem, const struct byte_row *r)
{
	struct vnef_dma_desc *d = side < 2 ? &b->dd[0][0] : &b->dd[1][0];
	struct vnef_dma_ep *e = side == 0 || side == 2 ? &d->src : &d->dst;
	struct vnef_dma_ep *o = e == &d->src ? &d->dst : &d->src;

	d->chunk_bytes = r->chunk;
	d->count[0] = r->c0;
	d->count[1] = r->c1;
	if (side == 0 || side == 3)
		*e = vb_hbm(side ? 1 : 0, r->offset, r->s0, r->s1);
	else
		*e = vb_chip(mem, 0, r->offset, 0, r->s0, 0, r->s1);
	/* the other side: one place, never out of range */
	if (o->mem == VNEF_MEM_HBM)
		*o = vb_hbm(side < 2 ? 0 : 1, 0, 0, 0);
	else
		*o = vb_chip(o->mem, 0, 0, 0, 0, 0, 0);
}

static const char *const side_name[4] = { "Q0 src HBM", "Q0 dst chip", "Q1 src chip",
					   "Q1 dst HBM" };

TEST(dma_byte_sum_wrap_is_refused)
{
	uint32_t side, m, i;

	for (side = 0; side < 4; side++)
		for (m = SB; m <= PS; m++) {
			if ((side == 0 || side == 3) && m == PS)
				continue;	/* HBM: one pass */
			for (i = 0; i < ARRAY_SIZE(byte_wraps); i++) {
				const struct byte_row *r = &byte_wraps[i];
				uint64_t wrapped = r->offset + (r->c0 - 1) * r->s0 +
						   (r->c1 - 1) * r->s1 + r->chunk;
				struct vb b;

				ASSERT_LE(wrapped, 128ull) TH_LOG("row %u", i);
				ASSERT_TRUE(byte_end(r) > ~0ull) TH_LOG("row %u", i);
				base(&b);
				set_bytes(&b, side, m, r);
				EXPECT_REFUSED(&b, VNEF_CHK_DMA, side < 2 ? S_Q0 : S_Q1, 0,
					       "%s %s wrap row %u", side_name[side], mem_name[m], i);
			}
		}
}

TEST(dma_byte_boundary)
{
	struct byte_row bad[4], good[4];
	uint32_t side, m, i;
	uint64_t limit;
	struct vn_core *c;

	ASSERT_EQ(0, vn_core_create(NULL, "pb", &c));
	for (side = 0; side < 4; side++)
		for (m = SB; m <= PS; m++) {
			bool hbm = side == 0 || side == 3;

			if (hbm && m == PS)
				continue;
			limit = hbm ? 128 : m == SB ? SB_PB : PS_PB;
			byte_bad(limit, bad);
			byte_good(limit, good);
			for (i = 0; i < 4; i++) {
				struct vb b;

				ASSERT_TRUE(byte_end(&bad[i]) == limit + 1) TH_LOG("row %u", i);
				ASSERT_TRUE(byte_end(&good[i]) == limit) TH_LOG("row %u", i);
				base(&b);
				set_bytes(&b, side, m, &bad[i]);
				/* an SBUF range past trn1's partition may fit a larger model */
				EXPECT_REFUSED(&b, !hbm && m == SB ? VNEF_CHK_MODEL : VNEF_CHK_DMA,
					       side < 2 ? S_Q0 : S_Q1, 0, "%s %s bad row %u",
					       side_name[side], mem_name[m], i);
				base(&b);
				set_bytes(&b, side, m, &good[i]);
				EXPECT_ACCEPTED(&b, c, "%s %s good row %u", side_name[side],
						mem_name[m], i);
			}
		}
	vn_core_destroy(c);
}

/* chunk_bytes * count[0] * count[1]: wraps 2^64 (or 2^32) to a size within the limit. */
TEST(dma_size_product_wrap_is_refused)
{
	static const uint32_t rows[][3] = {	/* chunk_bytes, count[0], count[1] */
		{ U32M, U32M, 0x80000000u },	/* (2^32 - 1)^2 * 2^31 = 2^31 mod 2^64 */
		{ 0x80000000u, 0x80000000u, 4 },	/* 2^64: 0 */
		{ 0x10000, 0x10000, 0x10000 },	/* 2^48; 0 in 32 bits */
		{ 1, 0x80000000u, 9 },		/* 2^34 + 2^31: just over */
		{ 2, 0x80000000u, 5 },
	};
	uint32_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		u128 bytes = (u128)rows[i][0] * rows[i][1] * rows[i][2];
		struct vb b;

		ASSERT_TRUE(bytes > VNEF_MAX_TENSOR_BYTES) TH_LOG("row %u", i);
		base(&b);
		Q0.chunk_bytes = rows[i][0];
		Q0.count[0] = rows[i][1];
		Q0.count[1] = rows[i][2];
		Q0.src = vb_hbm(0, 0, 0, 0);
		Q0.dst = vb_chip(SB, 0, 0, 0, 0, 0, 0);
		EXPECT_REFUSED(&b, VNEF_CHK_DMA, S_Q0, 0, "size row %u", i);
	}
	/* exactly 16 GiB (one byte to one place, 2^34 times) is within the limit */
	{
		struct vb b;

		base(&b);
		Q0.chunk_bytes = 1;
		Q0.count[0] = 0x80000000u;
		Q0.count[1] = 8;
		Q0.src = vb_hbm(0, 0, 0, 0);
		Q0.dst = vb_chip(SB, 0, 0, 0, 0, 0, 0);
		EXPECT_ACCEPTED(&b, NULL, "16 GiB");
	}
}

/* Tensor shapes whose byte size wraps 2^64 to the (small) size the table claims. */
TEST(tensor_shape_product_wrap_is_refused)
{
	static const struct {
		uint32_t dtype, rank;
		uint64_t shape[4];
	} rows[] = {
		{ F32, 2, { 1ull << 32, 1ull << 32 } },			/* 0 */
		{ F32, 2, { (1ull << 62) + 1, 4 } },			/* 16 */
		{ F32, 4, { 1ull << 16, 1ull << 16, 1ull << 16, 1ull << 16 } },	/* 0 */
		{ F32, 3, { 3, 0x5555555555555556ull, 1 } },		/* 8 */
		{ F32, 1, { 1ull << 62 } },				/* 0: dtype size */
		{ B16, 1, { (1ull << 63) + 16 } },			/* 32 */
		{ F32, 2, { 1ull << 33, 1 } },				/* 2^35: no wrap */
		{ B16, 4, { 2, 2, 2, 1ull << 31 } },			/* 2^35 */
	};
	uint32_t i, d;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		uint64_t wrapped = vn_dtype_size(rows[i].dtype);
		u128 bytes = vn_dtype_size(rows[i].dtype);
		struct vb b;

		for (d = 0; d < rows[i].rank; d++) {
			wrapped *= rows[i].shape[d];
			bytes *= rows[i].shape[d];
		}
		ASSERT_TRUE(bytes > VNEF_MAX_TENSOR_BYTES) TH_LOG("row %u", i);
		base(&b);
		b.ten[1].dtype = rows[i].dtype;
		b.ten[1].rank = rows[i].rank;
		memcpy(b.ten[1].shape, rows[i].shape, sizeof(b.ten[1].shape));
		b.ten[1].size = wrapped;
		EXPECT_REFUSED(&b, VNEF_CHK_TENSOR, S_TEN, 1, "shape row %u", i);
	}
	/* exactly 16 GiB is a valid tensor (y: Q1 writes its first 128 bytes) */
	{
		struct vb b;

		base(&b);
		b.ten[1].shape[0] = 1ull << 16;
		b.ten[1].shape[1] = 1ull << 16;
		b.ten[1].size = 1ull << 34;
		EXPECT_ACCEPTED(&b, NULL, "16 GiB tensor");
	}
}

/*
 * Engine operands: V0 (TENSOR_TENSOR, [4 x 8] fp32 in SBUF) has all three of dst, src0
 * and src1. Each row changes one of them so that its last byte lies past the partition
 * (or its partitions past 127), with sums that wrap in 32 or 16 bits.
 */
struct ap_row {
	const char *what;
	uint16_t mem, start, parts;
	uint32_t offset, c0, s0, c1, s1;
};

static const struct ap_row ap_bad[] = {
	{ "index sum 2^32", SB, 0, 4, 0, 2, U32M, 2, 1 },
	{ "(c0 - 1) * s0 = 2^32", SB, 0, 4, 0, 8, 0x24924925u, 1, 0 },	/* 7 * s0 = 2^32 + 3 */
	{ "(c1 - 1) * s1 = 2^32", SB, 0, 4, 0, 1, 0, 8, 0x24924925u },
	{ "65536 * 65536", SB, 0, 4, 0, 65537, 65536, 1, 0 },
	{ "bytes 2^32", SB, 0, 4, 0, 2, 0x40000000u, 4, 1 },
	{ "offset + 32 > 2^32", SB, 0, 4, 0xfffffffcu, 1, 0, 8, 1 },
	{ "both strides max", SB, 0, 4, 0, 2, U32M, 4, U32M },
	{ "one past SBUF end", SB, 0, 4, SB_PB - 28, 8, 1, 1, 0 },
	{ "one past PSUM end", PS, 0, 4, PS_PB - 28, 8, 1, 1, 0 },
	{ "PSUM stride past", PS, 0, 4, 0, 2, PS_PB / 4, 4, 1 },
	{ "partitions 0xffff + 2", SB, 0xffff, 2, 0, 8, 1, 1, 0 },
	{ "partitions 0xff81 + 0x80", SB, 0xff81, 0x80, 0, 8, 1, 1, 0 },
	{ "partitions 125 + 4", SB, 125, 4, 0, 8, 1, 1, 0 },
	{ "partitions 0xffff", SB, 0, 0xffff, 0, 8, 1, 1, 0 },
};

static const struct ap_row ap_good[] = {
	{ "last 8 of SBUF", SB, 0, 4, SB_PB - 32, 8, 1, 1, 0 },
	{ "last of SBUF by stride", SB, 0, 4, 0, 4, 1, 2, SB_PB / 4 - 4 },
	{ "offset + stride to the end", SB, 0, 4, 4, 2, SB_PB / 4 - 2, 4, 0 },
	{ "last 8 of PSUM", PS, 0, 4, PS_PB - 32, 8, 1, 1, 0 },
	{ "partitions 124..127", SB, 124, 4, 0, 8, 1, 1, 0 },
	{ "PSUM partitions 124..127", PS, 124, 4, PS_PB - 32, 8, 1, 1, 0 },
};

static void set_ap(struct vnef_ap *a, const struct ap_row *r)
{
	*a = vb_ap(r->mem, F32, r->start, r->parts, r->offset, r->c0, r->s0, r->c1, r->s1);
}

TEST(operand_sum_wrap_is_refused)
{
	static const char *const opn[3] = { "dst", "src0", "src1" };
	uint32_t i, o;

	for (i = 0; i < ARRAY_SIZE(ap_bad); i++) {
		const struct ap_row *r = &ap_bad[i];
		u128 end = ((u128)(r->c0 - 1) * r->s0 + (u128)(r->c1 - 1) * r->s1 + 1) * 4 +
			   r->offset;
		uint64_t pb = r->mem == PS ? PS_PB : SB_PB;

		ASSERT_TRUE(end > pb || r->start + r->parts > VNEF_PARTITIONS) TH_LOG("%s", r->what);
		ASSERT_LE((uint64_t)r->c0 * r->c1, VNEF_MAX_FREE) TH_LOG("%s", r->what);
		/* past trn1's SBUF partition but inside a larger model's: a model misfit */
		bool model = r->mem == SB && end <= VNEF_SBUF_PART_BYTES_MAX &&
			     r->start + r->parts <= VNEF_PARTITIONS;

		for (o = 0; o < 3; o++) {
			struct vb b;

			base(&b);
			set_ap(o == 0 ? &V0.dst : o == 1 ? &V0.src0 : &V0.src1, r);
			EXPECT_REFUSED(&b, model ? VNEF_CHK_MODEL : VNEF_CHK_OPERAND, S_V, 0,
				       "%s: %s", opn[o], r->what);
		}
	}
}

TEST(operand_boundary_is_accepted)
{
	static const char *const opn[3] = { "dst", "src0", "src1" };
	uint32_t i, o;
	struct vn_core *c;

	ASSERT_EQ(0, vn_core_create(NULL, "pb", &c));
	for (i = 0; i < ARRAY_SIZE(ap_good); i++) {
		const struct ap_row *r = &ap_good[i];
		u128 end = ((u128)(r->c0 - 1) * r->s0 + (u128)(r->c1 - 1) * r->s1 + 1) * 4 +
			   r->offset;

		ASSERT_TRUE(end == (r->mem == PS ? PS_PB : SB_PB) ||
			    r->start + r->parts == VNEF_PARTITIONS) TH_LOG("%s", r->what);
		for (o = 0; o < 3; o++) {
			struct vb b;

			base(&b);
			set_ap(o == 0 ? &V0.dst : o == 1 ? &V0.src0 : &V0.src1, r);
			EXPECT_ACCEPTED(&b, c, "%s: %s", opn[o], r->what);
		}
	}
	vn_core_destroy(c);
}

/* A TensorE output in PSUM: the operand rules hold as for any other (and the bank rule). */
TEST(tensor_operand_sum_wrap_is_refused)
{
	struct vn_core *c;
	struct vb b;

	ASSERT_EQ(0, vn_core_create(NULL, "pb", &c));
	base(&b);
	T1.dst.count[0] = 2;
	T1.dst.stride[0] = U32M;
	T1.dst.count[1] = 4;
	T1.dst.stride[1] = 1;		/* [4 x 8]; index sum wraps 32 bits to 2 */
	EXPECT_REFUSED(&b, VNEF_CHK_OPERAND, S_T, 1, "MM dst");
	base(&b);
	T0.src0.start_partition = 0xffff;	/* u16 sum wraps to 3 */
	EXPECT_REFUSED(&b, VNEF_CHK_OPERAND, S_T, 0, "stationary");
	base(&b);
	T1.dst.offset = PS_PB - 32;		/* last 8 of the last bank: fine */
	EXPECT_ACCEPTED(&b, c, "MM dst in the last bank");
	vn_core_destroy(c);
}

TEST(error_names_the_place)
{
	struct vn_prog_error err;
	uint64_t size;
	uint8_t *img;
	struct vb b;

	base(&b);
	V1.src0.offset = 3;
	img = vb_finish(&b, &size);
	vb_free(&b);
	EXPECT_EQ(-EINVAL, load(img, size, &err));
	EXPECT_EQ(VNEF_CHK_OPERAND, err.check);
	EXPECT_EQ(S_V, err.section);
	EXPECT_EQ(1u, err.index);
	EXPECT_STREQ("operand", vn_check_name(err.check));
	EXPECT_STREQ("unknown", vn_check_name(999));
	free(img);
}

TEST(every_byte_flip_is_safe)
{
	struct vn_prog_error err;
	uint64_t size, i;
	uint8_t *img;
	struct vb b;
	int bits[] = { 0x01, 0x80, 0xff };

	base(&b);
	img = vb_finish(&b, &size);
	vb_free(&b);
	/* No crash, leak or UB on any single-byte corruption (ASan/UBSan build). */
	for (i = 0; i < size; i++)
		for (int k = 0; k < 3; k++) {
			img[i] ^= bits[k];
			load(img, size, &err);
			img[i] ^= bits[k];
		}
	EXPECT_EQ(0, load(img, size, &err));
	free(img);
}

/* A program is checked for a model: what fits trn2 or trn3 may not fit trn1. */
static uint8_t *changed_base(void (*change)(struct vb *), uint64_t *size)
{
	uint8_t *img;
	struct vb b;

	base(&b);
	change(&b);
	img = vb_finish(&b, size);
	vb_free(&b);
	return img;
}

static void sbuf_200k(struct vb *bp)
{
	bp->in[VE][0].src0.offset = 200 << 10;
}

static void fp8_e4m3fn_operand(struct vb *bp)
{
	bp->in[SE][0].dst.dtype = VNEF_DT_FP8_E4M3FN;
}

static void tensor_13g(struct vb *bp)
{
	bp->ten[0].shape[0] = 13ull << 25;		/* [13 * 2^25 x 8] fp32: 13 GiB */
	bp->ten[0].size = bp->ten[0].shape[0] * 8 * 4;
}

TEST(program_fits_its_model)
{
	struct vn_prog_error err;
	struct vn_program *p;
	uint64_t size;
	uint8_t *img;

	/* V[0]'s source at 200 KiB: beyond trn1's 192 KiB partition, inside trn2's 224 */
	img = changed_base(sbuf_200k, &size);
	EXPECT_EQ(0, vn_program_check_for(&vn_model_trn2, img, size, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0, vn_program_check_for(&vn_model_trn3, img, size, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(-EINVAL, vn_program_check_for(&vn_model_trn1, img, size, &err));
	EXPECT_EQ((uint32_t)VNEF_CHK_MODEL, err.check);
	EXPECT_EQ((uint32_t)S_V, err.section);
	EXPECT_EQ(0u, err.index);
	EXPECT_STREQ("needs 204832 SBUF bytes a partition, trn1 has 196608", err.msg);
	/* the trn1 forms: the default model */
	EXPECT_EQ(-EINVAL, vn_program_check(img, size, &err));
	EXPECT_STREQ("model", vn_check_name(err.check));
	/* a program loaded for trn3 is checked again for another model */
	ASSERT_EQ(0, vn_program_load_for(&vn_model_trn3, img, size, &p, &err));
	EXPECT_EQ(0, vn_program_fits(p, &vn_model_trn2, NULL));
	EXPECT_EQ(-EINVAL, vn_program_fits(p, &vn_model_trn1, NULL));
	EXPECT_EQ(204832u, p->need.part_end[VNEF_MEM_SBUF]);
	vn_program_put(p);
	free(img);

	/* an fp8_e4m3fn destination: only trn3 has OCP's E4M3 */
	img = changed_base(fp8_e4m3fn_operand, &size);
	EXPECT_EQ(0, vn_program_check_for(&vn_model_trn3, img, size, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(-EINVAL, vn_program_check_for(&vn_model_trn2, img, size, &err));
	EXPECT_EQ((uint32_t)VNEF_CHK_MODEL, err.check);
	EXPECT_EQ((uint32_t)S_S, err.section);
	EXPECT_EQ(0u, err.index);
	EXPECT_STREQ("uses fp8_e4m3fn, a dtype trn2 lacks", err.msg);
	EXPECT_EQ(-EINVAL, vn_program_check_for(&vn_model_trn1, img, size, &err));
	EXPECT_STREQ("uses fp8_e4m3fn, a dtype trn1 lacks", err.msg);
	free(img);

	/* a 13 GiB tensor: trn2 has 12 GiB of HBM a core, trn1 16, trn3 18 */
	img = changed_base(tensor_13g, &size);
	EXPECT_EQ(0, vn_program_check_for(&vn_model_trn1, img, size, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0, vn_program_check_for(&vn_model_trn3, img, size, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(-EINVAL, vn_program_check_for(&vn_model_trn2, img, size, &err));
	EXPECT_EQ((uint32_t)VNEF_CHK_MODEL, err.check);
	EXPECT_EQ((uint32_t)S_TEN, err.section);
	EXPECT_EQ(0u, err.index);
	EXPECT_STREQ("tensor of 13958643712 bytes, trn2 has 12884901888 of HBM", err.msg);
	free(img);
}

/* fp8 tensors and operands are valid wherever the model has the dtype. */
TEST(fp8_dtypes_are_valid)
{
	static const uint32_t dts[] = { VNEF_DT_FP8_E4M3, VNEF_DT_FP8_E5M2 };
	struct vn_prog_error err;
	uint64_t size;
	uint8_t *img;
	uint32_t i;
	struct vb b;

	for (i = 0; i < ARRAY_SIZE(dts); i++) {
		base(&b);
		vb_tensor(&b, "q", VNEF_TENSOR_OUTPUT, dts[i], 4, 8, NULL);
		b.in[VE][1].dst.dtype = (uint16_t)dts[i];
		b.in[VE][1].dst.offset = 1;		/* a byte: any offset is aligned */
		img = vb_finish(&b, &size);
		vb_free(&b);
		EXPECT_EQ(0, vn_program_check(img, size, &err)) TH_LOG("%s", err.msg);
		free(img);
	}
}

TEST_HARNESS_MAIN
