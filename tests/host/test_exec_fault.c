// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The executor's own checks: with fault_abort off an execution that leaves its
 * memories ends FAULT, says where, and leaves the core fit for the next one.
 */
#include "exec_core.h"

/*
 * ---- the executor's own checks ----
 *
 * A validator bug is simulated without touching the validator: a valid program is loaded,
 * then its private copy (which the core owns and runs) is changed to the attack values.
 * With fault_abort off the execution must end FAULT, say where, touch nothing outside
 * the memories (ASan watches), and leave the core fit for the next execution.
 */

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

TEST_HARNESS_MAIN
