// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The .vnef validator: a valid program passes, and each rule has a test that breaks
 * exactly it and checks the reported check code (uapi enum vnef_check); every byte
 * flip is safe; a program is checked for its model.
 */
#include "program_util.h"

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
