// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * VectorE's and ScalarE's direct paths (core/vector_fp.c, core/act_fp.c): contiguous fp32
 * operands computed where they are must give the bits the gather-compute-scatter path
 * gives the same values laid out with a stride, NaN payloads, infinities, signed zeros
 * and denormals included; in place too; and an output that overlaps a source but is not
 * it still gets the gathered semantics (the direct path steps aside).
 */
#include <stdlib.h>
#include <string.h>

#include "vn_internal.h"
#include "vn_ap_fp.h"
#include "vn_os.h"
#include "vneuron_program.h"

/* The 6.1 harness defines non-static helpers without prototypes (fixtures too). */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"

#define SB_PB	VNEF_SBUF_PART_BYTES
#define P	8		/* partitions */
#define F	37		/* elements: a vector body and a tail */

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t val(void)
{
	static const uint32_t special[] = {
		0x7fc00001, 0xffc00123, 0x7fa00000, 0x7f800000, 0xff800000, 0x00000000,
		0x80000000, 0x00000001, 0x807fffff, 0x7f7fffff, 0x3f800000, 0xc0000000,
	};
	uint32_t r;

	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	r = (uint32_t)(rng >> 24);
	if (r % 5 == 0)
		return special[(r >> 8) % 12];
	return (r & 0x80000000u) | (0x30000000u + (r & 0x1fffffffu) % 0x1e000000u);
}

FIXTURE(fp) {
	uint8_t *sbuf, *psum;
	struct vn_fp_ctx x;
};

FIXTURE_SETUP(fp)
{
	self->sbuf = calloc(VNEF_PARTITIONS, SB_PB);
	self->psum = calloc(VNEF_PARTITIONS, VNEF_PSUM_PART_BYTES);
	ASSERT_NE(NULL, self->sbuf);
	ASSERT_NE(NULL, self->psum);
	ASSERT_EQ(0, vn_engine_ctx_init(&self->x, self->sbuf, self->psum));
}

FIXTURE_TEARDOWN(fp)
{
	vn_engine_ctx_free(&self->x);
	free(self->sbuf);
	free(self->psum);
}

/* An SBUF operand of P x n (or 1 x n) at byte offset off, elements stride apart. */
static struct vnef_ap op(uint32_t off, uint32_t n, uint32_t stride, uint16_t parts)
{
	return (struct vnef_ap){ .mem = VNEF_MEM_SBUF, .dtype = VNEF_DT_FP32,
				 .partitions = parts, .offset = off, .count = { n, 1 },
				 .stride = { stride, n * stride } };
}

static uint32_t *at(FIXTURE_DATA(fp) *self, uint32_t p, uint32_t off, uint32_t j,
		    uint32_t stride)
{
	return (uint32_t *)(self->sbuf + (size_t)p * SB_PB + off) + (size_t)j * stride;
}

/* Runs in with every operand at stride st (1: direct), the operands' values given. */
static void run(FIXTURE_DATA(fp) *self, struct vnef_instr in, uint32_t st, const uint32_t *v0,
		const uint32_t *v1, uint32_t n, bool in_place, uint32_t *out)
{
	const uint32_t o0 = 0, o1 = 4096, od = 8192, oc = 12288;
	uint16_t dp = in.opcode == VNEF_OP_PARTITION_REDUCE ? 1 : P;
	uint32_t dn = in.opcode == VNEF_OP_REDUCE ? 1 : n, p, j;
	struct vn_fp_cursor cur = { 0 };

	for (p = 0; p < P; p++)
		for (j = 0; j < n; j++) {
			*at(self, p, o0, j, st) = v0[p * n + j];
			*at(self, p, o1, j, st) = v1[p * n + j];
		}
	for (p = 0; p < P; p++)
		*at(self, p, oc, 0, 1) = v1[p];
	in.src0 = op(o0, n, st, P);
	if (in.opcode == VNEF_OP_TENSOR_TENSOR)
		in.src1 = op(o1, n, st, P);
	if (in.flags & VNEF_IF_SCALAR_COLUMN || in.flags & VNEF_IF_BIAS_COLUMN)
		in.src1 = op(oc, 1, 1, P);
	in.dst = op(in_place ? o0 : od, dn, st, dp);
	if (in.opcode == VNEF_OP_ACTIVATE)
		while (!vn_fp_act_step(&self->x, &in, &cur))
			;
	else
		while (!vn_fp_vector_step(&self->x, &in, &cur))
			;
	for (p = 0; p < dp; p++)
		for (j = 0; j < dn; j++)
			out[p * n + j] = *at(self, p, in_place ? o0 : od, j, st);
}

static bool same(uint32_t a, uint32_t b)
{
	return a == b;
}

TEST_F(fp, direct_paths_give_the_gathered_bits)
{
	static const uint32_t ops[] = { VNEF_ALU_ADD, VNEF_ALU_SUB, VNEF_ALU_MUL, VNEF_ALU_MAX,
					VNEF_ALU_MIN, VNEF_ALU_DIV };
	static const uint32_t acts[] = { VNEF_ACT_IDENTITY, VNEF_ACT_EXP, VNEF_ACT_RELU,
					 VNEF_ACT_LOG, VNEF_ACT_SQUARE };
	uint32_t v0[P * F], v1[P * F], a[P * F], b[P * F], i, k, kind, ip;
	struct vnef_instr in;
	unsigned int bad = 0;

	for (i = 0; i < P * F; i++) {
		v0[i] = val();
		v1[i] = val();
	}
	for (kind = 0; kind < 7; kind++)
		for (k = 0; k < 6; k++)
			for (ip = 0; ip < 2; ip++) {
				memset(&in, 0, sizeof(in));
				in.op = ops[k];
				in.imm[0] = v1[3];
				in.imm[1] = v1[5];
				switch (kind) {
				case 0:
					in.opcode = VNEF_OP_TENSOR_TENSOR;
					break;
				case 1:
				case 2:
					in.opcode = VNEF_OP_TENSOR_SCALAR;
					in.flags = (kind == 2 ? VNEF_IF_SCALAR_COLUMN : 0) |
						   (ip ? 0 : VNEF_IF_REVERSE);
					break;
				case 3:
					in.opcode = VNEF_OP_COPY;
					break;
				case 4:
					in.opcode = VNEF_OP_REDUCE;
					in.op = ops[k % 3 ? (k % 3 == 1 ? 3 : 4) : 0];
					break;
				case 5:
					in.opcode = VNEF_OP_PARTITION_REDUCE;
					in.op = ops[k % 3 ? (k % 3 == 1 ? 3 : 4) : 0];
					break;
				default:
					in.opcode = VNEF_OP_ACTIVATE;
					in.op = acts[k % 5];
					in.flags = ip ? VNEF_IF_BIAS_COLUMN : 0;
					break;
				}
				/* reductions write elsewhere: in place only for the others */
				run(self, in, 1, v0, v1, F, ip && kind != 4 && kind != 5, a);
				run(self, in, 2, v0, v1, F, ip && kind != 4 && kind != 5, b);
				for (i = 0; i < P * F; i++)
					if (!same(a[i], b[i]) && !bad++)
						TH_LOG("opcode %u op %u in place %u [%u]: direct %#x, gathered %#x",
						       in.opcode, in.op, ip, i, a[i], b[i]);
			}
	EXPECT_EQ(0u, bad);
}

/* The vector identity and square (core/vn_act_vec_fp.h) are the scalar x * scale + bias. */
TEST_F(fp, identity_and_square_are_the_scalar_ones)
{
	uint32_t v0[P * F], v1[P * F], a[P * F], i, sq;
	struct vnef_instr in = { .opcode = VNEF_OP_ACTIVATE };
	unsigned int bad = 0;

	for (i = 0; i < P * F; i++) {
		v0[i] = val();
		v1[i] = 0;
	}
	in.imm[0] = 0xbf000000;	/* -0.5 */
	in.imm[1] = 0x3e800000;	/* 0.25 */
	for (sq = 0; sq < 2; sq++) {
		in.op = sq ? VNEF_ACT_SQUARE : VNEF_ACT_IDENTITY;
		run(self, in, 1, v0, v1, F, false, a);
		for (i = 0; i < P * F; i++) {
			volatile float x, y;
			uint32_t w;

			memcpy((float *)&x, &v0[i], 4);
			x = x * -0.5f;
			x = x + 0.25f;
			y = sq ? x * x : x;
			memcpy(&w, (const float *)&y, 4);
			if (w != a[i] && !(y != y && ((a[i] & 0x7fffffff) > 0x7f800000)) && !bad++)
				TH_LOG("op %u [%u] of %#x: %#x, want %#x", in.op, i, v0[i], a[i], w);
		}
	}
	EXPECT_EQ(0u, bad);
}

/*
 * A COPY of fp32 PSUM to bf16 SBUF (how matmul kernels take out a transpose) narrows
 * contiguous rows straight across, 4 or (AVX-512) 16 at a time: the same bits as the
 * gathered path (stride 2) and as vn_f32_to_bf16() of each value.
 */
TEST_F(fp, psum_to_bf16_copy_is_the_gathered_one)
{
	struct vnef_instr in = { .opcode = VNEF_OP_COPY };
	uint32_t v[P * F], p, j, st, sd, simd;
	struct vn_fp_cursor cur;
	unsigned int bad = 0;

	for (j = 0; j < P * F; j++)
		v[j] = val();
	for (st = 1; st <= 4; st++) {
		/* SSE2, then AVX-512 where the CPU has it */
		simd = st <= 2 ? VN_SIMD_SSE2 : VN_SIMD_AVX512;
		if (simd == VN_SIMD_AVX512 &&
		    (vn_cpu_vector() & VN_CPU_LEVEL) < VN_CPU_AVX512)
			break;
		self->x.simd = simd;
		sd = 2 - st % 2;	/* contiguous, or every other element (gathered) */
		for (p = 0; p < P; p++)
			for (j = 0; j < F; j++)
				memcpy(self->psum + (size_t)p * VNEF_PSUM_PART_BYTES + j * sd * 4,
				       &v[p * F + j], 4);
		in.src0 = op(0, F, sd, P);
		in.src0.mem = VNEF_MEM_PSUM;
		in.dst = op(256, F, sd, P);
		in.dst.dtype = VNEF_DT_BF16;
		memset(&cur, 0, sizeof(cur));
		while (!vn_fp_vector_step(&self->x, &in, &cur))
			;
		for (p = 0; p < P; p++)
			for (j = 0; j < F; j++) {
				uint16_t h, want;
				float f;

				memcpy(&h, self->sbuf + (size_t)p * SB_PB + 256 + j * sd * 2, 2);
				memcpy(&f, &v[p * F + j], 4);
				want = vn_f32_to_bf16(f);
				if (h != want && !bad++)
					TH_LOG("simd %u stride %u [%u][%u] of %#x: %#x, want %#x",
					       simd, sd, p, j, v[p * F + j], h, want);
			}
	}
	EXPECT_EQ(0u, bad);
}

/* dst one element past src0: gathered semantics (all inputs read first), not a smear. */
TEST_F(fp, overlapping_destination_is_gathered)
{
	struct vnef_instr in = { .opcode = VNEF_OP_TENSOR_SCALAR, .op = VNEF_ALU_ADD };
	float *row = (float *)self->sbuf;
	struct vn_fp_cursor cur;
	uint32_t j, act;

	for (act = 0; act < 2; act++) {
		if (act) {
			/* identity(x * 1 + 1) */
			in = (struct vnef_instr){ .opcode = VNEF_OP_ACTIVATE,
						  .op = VNEF_ACT_IDENTITY };
			in.imm[0] = 0x3f800000;
			in.imm[1] = 0x3f800000;
		}
		in.imm[0] = 0x3f800000;	/* + 1, or * 1 */
		for (j = 0; j < F + 1; j++)
			row[j] = (float)j;
		in.src0 = op(0, F, 1, 1);
		in.dst = op(4, F, 1, 1);
		memset(&cur, 0, sizeof(cur));
		while (act ? !vn_fp_act_step(&self->x, &in, &cur) :
			     !vn_fp_vector_step(&self->x, &in, &cur))
			;
		for (j = 0; j < F; j++)
			ASSERT_EQ((float)j + 1, row[j + 1]);
	}
}

/*
 * The vector bf16 rounding (vn_bf16_narrow()) is vn_f32_to_bf16(): every high half with
 * the low halves that round differently (ties, below, above), NaNs and infinities among
 * them, and random values.
 */
TEST(bf16_narrowing_is_the_scalar_rounding)
{
	static const uint16_t low[] = { 0x0000, 0x7fff, 0x8000, 0x8001, 0xffff, 0x0001 };
	float v[6 * 4];
	uint16_t h[6 * 4];
	uint32_t hi, k, u, bad = 0;

	for (hi = 0; hi < 0x10000; hi += 4) {
		for (k = 0; k < 6 * 4; k++) {
			u = (hi + k % 4) << 16 | low[k / 4];
			memcpy(&v[k], &u, 4);
		}
		vn_bf16_narrow(v, h, 6 * 4);
		for (k = 0; k < 6 * 4; k++)
			if (h[k] != vn_f32_to_bf16(v[k]) && !bad++)
				TH_LOG("%#x: %#x, want %#x", (hi + k % 4) << 16 | low[k / 4], h[k],
				       vn_f32_to_bf16(v[k]));
	}
	for (k = 0; k < 100000; k++) {
		float w[8];
		uint16_t g[8];
		uint32_t j;

		for (j = 0; j < 8; j++) {
			u = val() ^ (uint32_t)(rng >> 40);
			memcpy(&w[j], &u, 4);
		}
		vn_bf16_narrow(w, g, 8);
		for (j = 0; j < 8; j++)
			bad += g[j] != vn_f32_to_bf16(w[j]);
	}
	EXPECT_EQ(0u, bad);
}

TEST_HARNESS_MAIN
