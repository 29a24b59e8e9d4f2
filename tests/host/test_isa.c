// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Every instruction against a plain C reference, in fp32 and bf16, on edge shapes
 * (1 partition, 128 partitions, odd free sizes, strides, broadcast). Operands are put
 * into SBUF/PSUM directly; one program per instruction.
 */
#include "core_util.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"

#define SB	VNEF_MEM_SBUF
#define PS	VNEF_MEM_PSUM
#define F32	VNEF_DT_FP32
#define B16	VNEF_DT_BF16
#define OFF_A	0
#define OFF_B	(40 << 10)
#define OFF_D	(80 << 10)
#define OFF_C	(120 << 10)

/* the last one spans several FPU steps, resuming mid-partition */
static const uint32_t shapes[][2] = { { 1, 1 }, { 128, 7 }, { 37, 513 }, { 3, 4099 }, { 100, 1500 } };
static const uint32_t dts[] = { F32, B16 };

static float ref_alu(uint32_t op, float a, float b)
{
	switch (op) {
	case VNEF_ALU_ADD: return a + b;
	case VNEF_ALU_SUB: return a - b;
	case VNEF_ALU_MUL: return a * b;
	case VNEF_ALU_MAX: return a > b ? a : b;
	case VNEF_ALU_MIN: return a < b ? a : b;
	default: return a / b;
	}
}

FIXTURE(isa) {
	struct vn_core *c;
};

FIXTURE_SETUP(isa)
{
	ASSERT_EQ(0, vn_core_create(NULL, "isa", &self->c));
}

FIXTURE_TEARDOWN(isa)
{
	vn_core_destroy(self->c);
}

/* Compare dst [np x f] at OFF_D with want(p, j); returns mismatches. */
#define CHECK_DST(c, mem, dt, np, f, want_expr, rel, abs_tol) ({			\
	uint32_t _bad = 0, p, j;							\
	for (p = 0; p < (np); p++)							\
		for (j = 0; j < (f); j++) {						\
			float _w = ref_q(dt, (want_expr));				\
			float got = chip_get(c, mem, dt, p, (mem) == PS ? 0 : OFF_D, j);	\
			float r_ = (dt) == B16 ? 1.0f / 128 : (rel);			\
			if (!near(got, _w, r_, abs_tol)) {				\
				if (!_bad)						\
					TH_LOG("p %u j %u got %g want %g", p, j,	\
					       got, _w);				\
				_bad++;							\
			}								\
		}									\
	_bad; })

TEST_F(isa, tensor_tensor)
{
	struct vn_exec_status st;
	uint32_t s, d, op, eng;

	for (eng = VNEURON_ENGINE_VECTOR; eng <= VNEURON_ENGINE_GPSIMD; eng += 2)
	for (d = 0; d < 2; d++)
	for (s = 0; s < ARRAY_SIZE(shapes); s++)
	for (op = 0; op < VNEF_ALU_COUNT; op++) {
		uint32_t np = shapes[s][0], f = shapes[s][1], dt = dts[d];
		struct vnef_instr *in;
		struct vb b;

		chip_fill(self->c, SB, dt, 0, np, OFF_A, f, 1);
		chip_fill(self->c, SB, dt, 0, np, OFF_B, f, 2);
		vb_init(&b);
		in = vb_op(&b, eng, VNEF_OP_TENSOR_TENSOR);
		in->op = op;
		in->src0 = vb_ap2(SB, dt, 0, np, OFF_A, f);
		in->src1 = vb_ap2(SB, dt, 0, np, OFF_B, f);
		in->dst = vb_ap2(SB, dt, 0, np, OFF_D, f);
		ASSERT_EQ(0, run_vb(self->c, &b, &st));
		ASSERT_EQ(0u, CHECK_DST(self->c, SB, dt, np, f,
				       ref_alu(op, ref_q(dt, gen(1, p, j)), ref_q(dt, gen(2, p, j))),
				       0, 0)) TH_LOG("op %u dt %u shape %u", op, dt, s);
	}
}

TEST_F(isa, tensor_tensor_mixed_dtypes_and_strides)
{
	struct vn_exec_status st;
	struct vnef_instr *in;
	struct vb b;

	/* src0 fp32 read with stride 2 as [5 x 3] blocks; src1 bf16 broadcast (stride 0) */
	chip_fill(self->c, SB, F32, 0, 128, OFF_A, 64, 3);
	chip_fill(self->c, SB, B16, 0, 128, OFF_B, 1, 4);
	vb_init(&b);
	in = vb_op(&b, VNEURON_ENGINE_VECTOR, VNEF_OP_TENSOR_TENSOR);
	in->op = VNEF_ALU_MUL;
	in->src0 = vb_ap(SB, F32, 0, 128, OFF_A, 3, 2, 5, 7);
	in->src1 = vb_ap(SB, B16, 0, 128, OFF_B, 15, 0, 1, 0);
	in->dst = vb_ap2(SB, B16, 0, 128, OFF_D, 15);
	ASSERT_EQ(0, run_vb(self->c, &b, &st));
	ASSERT_EQ(0u, CHECK_DST(self->c, SB, B16, 128, 15,
			       gen(3, p, (j / 3) * 7 + (j % 3) * 2) * ref_bf16(gen(4, p, 0)), 0, 0));
}

TEST_F(isa, tensor_scalar)
{
	struct vn_exec_status st;
	uint32_t s, d, op, mode;

	for (mode = 0; mode < 3; mode++)	/* imm, column, reversed imm */
	for (d = 0; d < 2; d++)
	for (s = 0; s < ARRAY_SIZE(shapes); s++)
	for (op = 0; op < VNEF_ALU_COUNT; op++) {
		uint32_t np = shapes[s][0], f = shapes[s][1], dt = dts[d];
		float k = -0.75f;
		struct vnef_instr *in;
		struct vb b;

		chip_fill(self->c, SB, dt, 0, np, OFF_A, f, 5);
		chip_fill(self->c, SB, F32, 0, np, OFF_B, 1, 6);
		vb_init(&b);
		in = vb_op(&b, mode == 1 ? VNEURON_ENGINE_GPSIMD : VNEURON_ENGINE_VECTOR,
			   VNEF_OP_TENSOR_SCALAR);
		in->op = op;
		in->src0 = vb_ap2(SB, dt, 0, np, OFF_A, f);
		in->dst = vb_ap2(SB, dt, 0, np, OFF_D, f);
		if (mode == 1) {
			in->flags = VNEF_IF_SCALAR_COLUMN;
			in->src1 = vb_ap2(SB, F32, 0, np, OFF_B, 1);
		} else {
			memcpy(&in->imm[0], &k, 4);
			if (mode == 2)
				in->flags = VNEF_IF_REVERSE;
		}
		ASSERT_EQ(0, run_vb(self->c, &b, &st));
		ASSERT_EQ(0u, CHECK_DST(self->c, SB, dt, np, f,
				       mode == 1 ? ref_alu(op, ref_q(dt, gen(5, p, j)), gen(6, p, 0)) :
				       mode == 2 ? ref_alu(op, k, ref_q(dt, gen(5, p, j))) :
				       ref_alu(op, ref_q(dt, gen(5, p, j)), k), 0, 0))
			TH_LOG("mode %u op %u dt %u shape %u", mode, op, dt, s);
	}
}

TEST_F(isa, reduce_free_axis)
{
	static const uint32_t ops[] = { VNEF_ALU_ADD, VNEF_ALU_MAX, VNEF_ALU_MIN };
	struct vn_exec_status st;
	uint32_t s, d, o;

	for (d = 0; d < 2; d++)
	for (s = 0; s < ARRAY_SIZE(shapes); s++)
	for (o = 0; o < 3; o++) {
		uint32_t np = shapes[s][0], f = shapes[s][1], dt = dts[d], p, j;
		struct vnef_instr *in;
		float want[128];
		struct vb b;

		chip_fill(self->c, SB, dt, 0, np, OFF_A, f, 7);
		vb_init(&b);
		in = vb_op(&b, VNEURON_ENGINE_VECTOR, VNEF_OP_REDUCE);
		in->op = ops[o];
		in->src0 = vb_ap2(SB, dt, 0, np, OFF_A, f);
		in->dst = vb_ap2(SB, F32, 0, np, OFF_D, 1);
		ASSERT_EQ(0, run_vb(self->c, &b, &st));
		for (p = 0; p < np; p++) {
			double acc = ops[o] == VNEF_ALU_ADD ? 0 : ref_q(dt, gen(7, p, 0));

			for (j = 0; j < f; j++)
				acc = ops[o] == VNEF_ALU_ADD ? acc + ref_q(dt, gen(7, p, j)) :
				      ref_alu(ops[o], acc, ref_q(dt, gen(7, p, j)));
			want[p] = acc;
		}
		ASSERT_EQ(0u, CHECK_DST(self->c, SB, F32, np, 1, want[p], 1e-5f, 1e-3f))
			TH_LOG("op %u dt %u shape %u", ops[o], dt, s);
	}
}

TEST_F(isa, copy_and_cast)
{
	struct vn_exec_status st;
	uint32_t s, d, e;

	for (e = VNEURON_ENGINE_VECTOR; e <= VNEURON_ENGINE_GPSIMD; e++)
	for (d = 0; d < 4; d++)
	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		uint32_t np = shapes[s][0], f = shapes[s][1];
		uint32_t sdt = dts[d & 1], ddt = dts[d >> 1];
		struct vnef_instr *in;
		struct vb b;

		chip_fill(self->c, SB, sdt, 0, np, OFF_A, f, 8);
		vb_init(&b);
		in = vb_op(&b, e, VNEF_OP_COPY);
		in->src0 = vb_ap2(SB, sdt, 0, np, OFF_A, f);
		in->dst = vb_ap2(SB, ddt, 0, np, OFF_D, f);
		ASSERT_EQ(0, run_vb(self->c, &b, &st));
		ASSERT_EQ(0u, CHECK_DST(self->c, SB, ddt, np, f, ref_q(sdt, gen(8, p, j)), 0, 0));
	}
}

TEST_F(isa, copy_transposing_strides_and_psum)
{
	struct vn_exec_status st;
	struct vnef_instr *in;
	struct vb b;

	/* each partition holds a 6x10 row-major block; write its transpose to PSUM */
	chip_fill(self->c, SB, F32, 0, 128, OFF_A, 60, 9);
	vb_init(&b);
	in = vb_op(&b, VNEURON_ENGINE_VECTOR, VNEF_OP_COPY);
	in->src0 = vb_ap(SB, F32, 0, 128, OFF_A, 6, 10, 10, 1);
	in->dst = vb_ap2(PS, F32, 0, 128, 0, 60);
	ASSERT_EQ(0, run_vb(self->c, &b, &st));
	ASSERT_EQ(0u, CHECK_DST(self->c, PS, F32, 128, 60, gen(9, p, (j % 6) * 10 + j / 6), 0, 0));
}

static double ref_act(uint32_t fn, double x)
{
	switch (fn) {
	case VNEF_ACT_EXP: return exp(x);
	case VNEF_ACT_LOG: return log(x);
	case VNEF_ACT_TANH: return tanh(x);
	case VNEF_ACT_SIGMOID: return 1 / (1 + exp(-x));
	case VNEF_ACT_GELU: return 0.5 * x * (1 + tanh(0.7978845608 * (x + 0.044715 * x * x * x)));
	case VNEF_ACT_RELU: return x > 0 ? x : 0;
	case VNEF_ACT_SQRT: return sqrt(x);
	case VNEF_ACT_RSQRT: return 1 / sqrt(x);
	case VNEF_ACT_RECIPROCAL: return 1 / x;
	case VNEF_ACT_SQUARE: return x * x;
	default: return x;
	}
}

TEST_F(isa, activate)
{
	struct vn_exec_status st;
	uint32_t s, d, fn, col;

	for (col = 0; col < 2; col++)
	for (d = 0; d < 2; d++)
	for (s = 0; s < ARRAY_SIZE(shapes); s++)
	for (fn = 0; fn < VNEF_ACT_COUNT; fn++) {
		uint32_t np = shapes[s][0], f = shapes[s][1], dt = dts[d];
		bool pos = fn == VNEF_ACT_LOG || fn == VNEF_ACT_SQRT || fn == VNEF_ACT_RSQRT;
		float scale = pos ? 0.5f : 3.0f, bias = pos ? 1.25f : -0.5f;
		struct vnef_instr *in;
		struct vb b;

		chip_fill(self->c, SB, dt, 0, np, OFF_A, f, 10);
		/* a bias column of 1.25 + |gen|/4 keeps log/sqrt arguments positive */
		for (uint32_t p = 0; p < np; p++)
			chip_put(self->c, SB, F32, p, OFF_B, 0, 1.25f + fabsf(gen(11, p, 0)) / 4);
		vb_init(&b);
		in = vb_op(&b, VNEURON_ENGINE_SCALAR, VNEF_OP_ACTIVATE);
		in->op = fn;
		in->src0 = vb_ap2(SB, dt, 0, np, OFF_A, f);
		in->dst = vb_ap2(SB, dt, 0, np, OFF_D, f);
		memcpy(&in->imm[0], &scale, 4);
		if (col) {
			in->flags = VNEF_IF_BIAS_COLUMN;
			in->src1 = vb_ap2(SB, F32, 0, np, OFF_B, 1);
		} else {
			memcpy(&in->imm[1], &bias, 4);
		}
		ASSERT_EQ(0, run_vb(self->c, &b, &st));
		ASSERT_EQ(0u, CHECK_DST(self->c, SB, dt, np, f,
				       (float)ref_act(fn, (double)ref_q(dt, gen(10, p, j)) * scale +
						  (col ? 1.25f + fabsf(gen(11, p, 0)) / 4 : bias)),
				       2e-6f, 1e-6f))
			TH_LOG("fn %u dt %u shape %u col %u", fn, dt, s, col);
	}
}

TEST_F(isa, activate_special_values)
{
	static const float xs[] = { 0.0f, -0.0f, 1e-30f, 1e-40f, 88.0f, 89.0f, -87.0f, -104.0f,
				    1e30f, -1e30f, 20.0f, -20.0f, 0.3f, -0.39f, 0.41f };
	struct vn_exec_status st;
	uint32_t fn, j, n = ARRAY_SIZE(xs);

	for (fn = 0; fn < VNEF_ACT_COUNT; fn++) {
		struct vnef_instr *in;
		float one = 1.0f;
		struct vb b;

		for (j = 0; j < n; j++)
			chip_put(self->c, SB, F32, 0, OFF_A, j, xs[j]);
		vb_init(&b);
		in = vb_op(&b, VNEURON_ENGINE_SCALAR, VNEF_OP_ACTIVATE);
		in->op = fn;
		in->src0 = vb_ap2(SB, F32, 0, 1, OFF_A, n);
		in->dst = vb_ap2(SB, F32, 0, 1, OFF_D, n);
		memcpy(&in->imm[0], &one, 4);
		ASSERT_EQ(0, run_vb(self->c, &b, &st));
		ASSERT_EQ(0u, CHECK_DST(self->c, SB, F32, 1, n, (float)ref_act(fn, xs[j] * 1.0f + 0.0f),
				       4e-6f, 1e-37f)) TH_LOG("fn %u", fn);
	}
}

TEST_F(isa, memset_and_iota)
{
	struct vn_exec_status st;
	uint32_t s, d;

	for (d = 0; d < 2; d++)
	for (s = 0; s < ARRAY_SIZE(shapes); s++) {
		uint32_t np = shapes[s][0], f = shapes[s][1], dt = dts[d];
		float v = 2.5f;
		struct vnef_instr *in;
		struct vb b;

		vb_init(&b);
		in = vb_op(&b, VNEURON_ENGINE_VECTOR, VNEF_OP_MEMSET);
		in->dst = vb_ap2(SB, dt, 0, np, OFF_D, f);
		memcpy(&in->imm[0], &v, 4);
		ASSERT_EQ(0, run_vb(self->c, &b, &st));
		ASSERT_EQ(0u, CHECK_DST(self->c, SB, dt, np, f, 2.5f, 0, 0));

		vb_init(&b);
		in = vb_op(&b, VNEURON_ENGINE_GPSIMD, VNEF_OP_IOTA);
		in->dst = vb_ap2(SB, dt, 0, np, OFF_D, f);
		in->imm[0] = (uint32_t)-5;
		in->imm[1] = 1000;
		in->imm[2] = 3;
		ASSERT_EQ(0, run_vb(self->c, &b, &st));
		ASSERT_EQ(0u, CHECK_DST(self->c, SB, dt, np, f,
				       (float)(-5 + 1000 * (int)p + 3 * (int)j), 0, 0));
	}
}

TEST_F(isa, partition_reduce)
{
	static const uint32_t ops[] = { VNEF_ALU_ADD, VNEF_ALU_MAX, VNEF_ALU_MIN };
	struct vn_exec_status st;
	uint32_t s, d, o;

	for (d = 0; d < 2; d++)
	for (s = 0; s < ARRAY_SIZE(shapes); s++)
	for (o = 0; o < 3; o++) {
		uint32_t np = shapes[s][0], f = shapes[s][1], dt = dts[d], p, j;
		struct vnef_instr *in;
		struct vb b;
		float *want = calloc(f, sizeof(float));

		chip_fill(self->c, SB, dt, 0, np, OFF_A, f, 12);
		vb_init(&b);
		in = vb_op(&b, VNEURON_ENGINE_GPSIMD, VNEF_OP_PARTITION_REDUCE);
		in->op = ops[o];
		in->src0 = vb_ap2(SB, dt, 0, np, OFF_A, f);
		in->dst = vb_ap2(SB, F32, 5, 1, OFF_D, f);
		ASSERT_EQ(0, run_vb(self->c, &b, &st));
		for (j = 0; j < f; j++) {
			float acc = ref_q(dt, gen(12, 0, j));

			for (p = 1; p < np; p++)
				acc = ref_alu(ops[o], acc, ref_q(dt, gen(12, p, j)));
			want[j] = acc;
		}
		for (j = 0; j < f; j++)
			ASSERT_TRUE(near(chip_get(self->c, SB, F32, 5, OFF_D, j), want[j], 1e-5f,
					 1e-5f)) TH_LOG("op %u j %u", ops[o], j);
		free(want);
	}
}

/* out[m][n] (+)= sum_k stat[k][m] * mov[k][n] */
static void check_matmul(struct __test_metadata *_metadata, struct vn_core *c, uint32_t dt,
			 uint32_t k_n, uint32_t m_n, uint32_t n_n, bool acc)
{
	struct vn_exec_status st;
	struct vnef_instr *in;
	uint32_t m, n, k, bad = 0;
	struct vb b;

	chip_fill(c, SB, dt, 0, k_n, OFF_A, m_n, 13);
	chip_fill(c, SB, dt, 0, k_n, OFF_B, n_n, 14);
	for (m = 0; m < m_n; m++)
		for (n = 0; n < n_n; n++)
			chip_put(c, PS, F32, m, 2048, n, acc ? gen(15, m, n) : 99.0f);
	vb_init(&b);
	in = vb_op(&b, VNEURON_ENGINE_TENSOR, VNEF_OP_LOAD_STATIONARY);
	in->src0 = vb_ap2(SB, dt, 0, k_n, OFF_A, m_n);
	in = vb_op(&b, VNEURON_ENGINE_TENSOR, VNEF_OP_MULTIPLY_MOVING);
	in->src0 = vb_ap2(SB, dt, 0, k_n, OFF_B, n_n);
	in->dst = vb_ap2(PS, F32, 0, m_n, 2048, n_n);
	if (acc)
		in->flags = VNEF_IF_ACCUMULATE;
	ASSERT_EQ(0, run_vb(c, &b, &st));
	for (m = 0; m < m_n; m++)
		for (n = 0; n < n_n; n++) {
			double want = acc ? gen(15, m, n) : 0;
			float got = chip_get(c, PS, F32, m, 2048, n);

			for (k = 0; k < k_n; k++)
				want += (double)ref_q(dt, gen(13, k, m)) * ref_q(dt, gen(14, k, n));
			if (!near(got, want, 1e-5f, 1e-4f) && !bad++)
				TH_LOG("k %u m %u n %u: [%u][%u] got %g want %g", k_n, m_n, n_n, m,
				       n, got, want);
		}
	ASSERT_EQ(0u, bad);
}

TEST_F(isa, matmul)
{
	static const uint32_t sh[][3] = {
		{ 1, 1, 1 }, { 128, 128, 512 }, { 37, 5, 511 }, { 128, 1, 3 }, { 2, 127, 9 },
		{ 64, 100, 17 },
	};
	uint32_t s, d;

	for (d = 0; d < 2; d++)
		for (s = 0; s < ARRAY_SIZE(sh); s++) {
			check_matmul(_metadata, self->c, dts[d], sh[s][0], sh[s][1], sh[s][2], false);
			check_matmul(_metadata, self->c, dts[d], sh[s][0], sh[s][1], sh[s][2], true);
		}
}

TEST_F(isa, transpose)
{
	static const uint32_t sh[][2] = { { 1, 1 }, { 128, 128 }, { 37, 5 }, { 3, 128 } };
	struct vn_exec_status st;
	uint32_t s, d;

	for (d = 0; d < 2; d++)
	for (s = 0; s < ARRAY_SIZE(sh); s++) {
		uint32_t np = sh[s][0], f = sh[s][1], dt = dts[d];
		struct vnef_instr *in;
		struct vb b;

		chip_fill(self->c, SB, dt, 0, np, OFF_A, f, 16);
		vb_init(&b);
		in = vb_op(&b, VNEURON_ENGINE_TENSOR, VNEF_OP_TRANSPOSE);
		in->src0 = vb_ap2(SB, dt, 0, np, OFF_A, f);
		in->dst = vb_ap2(PS, F32, 0, f, 0, np);
		ASSERT_EQ(0, run_vb(self->c, &b, &st));
		ASSERT_EQ(0u, CHECK_DST(self->c, PS, F32, f, np, ref_q(dt, gen(16, j, p)), 0, 0));
	}
}

TEST_F(isa, nop_only_signals)
{
	struct vn_exec_status st;
	struct vnef_instr *in;
	struct vb b;

	vb_init(&b);
	in = vb_op(&b, VNEURON_ENGINE_VECTOR, VNEF_OP_NOP);
	in->signal_mask = 1;
	in = vb_op(&b, VNEURON_ENGINE_SCALAR, VNEF_OP_NOP);
	VB_WAIT(in, 0, 1);
	ASSERT_EQ(0, run_vb(self->c, &b, &st));
	EXPECT_EQ(0u, st.model_ps);
}

TEST_HARNESS_MAIN
