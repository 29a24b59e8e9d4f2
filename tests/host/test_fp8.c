// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The fp8 conversions (core/vn_fp8.h) against a NumPy reference (tests/host/fp8_ref.py,
 * run with Debian's /usr/bin/python3): every one of the 256 codes of each format decoded,
 * and encoded back; midpoints between neighbouring values (ties to even) and the fp32
 * values either side of them; saturation, infinities, NaNs, zeros and tiny values. Then
 * the engines: COPY into and out of fp8 on VectorE, ScalarE and GpSimdE, contiguous and
 * strided, gives the conversion's bits; a TensorE matmul of fp8 inputs accumulates in
 * fp32.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_util.h"
#include "vn_fp8.h"
#include "vn_isa.h"
#include "vn_model.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"

static u32 dtype_of(const char *fmt)
{
	if (!strcmp(fmt, "e4m3"))
		return VNEF_DT_FP8_E4M3;
	if (!strcmp(fmt, "e5m2"))
		return VNEF_DT_FP8_E5M2;
	if (!strcmp(fmt, "e4m3fn"))
		return VNEF_DT_FP8_E4M3FN;
	return 0;
}

TEST(every_code_both_ways_against_numpy)
{
	unsigned int dec = 0, enc = 0, bad = 0, code, bits, want, i;
	char line[128], fmt[16], kind;
	FILE *p = popen("/usr/bin/python3 tests/host/fp8_ref.py", "r");
	u32 seen[VNEF_DT_COUNT] = { 0 };

	ASSERT_NE(NULL, p);
	while (fgets(line, sizeof(line), p)) {
		const struct vn_fp8_format *f;

		if (sscanf(line, "%c %15s", &kind, fmt) != 2)
			continue;
		f = vn_fp8_format(dtype_of(fmt));
		ASSERT_NE(NULL, f) TH_LOG("format %s", fmt);
		if (kind == 'D' && sscanf(line, "D %*s %u %x", &code, &want) == 2) {
			bits = vn_fp8_to_f32_bits(f, (u8)code);
			seen[dtype_of(fmt)]++;
			dec++;
			if (bits != want && bad++ < 10)
				TH_LOG("%s: code 0x%02x decodes to %08x, NumPy %08x", fmt, code,
				       bits, want);
		} else if (kind == 'E' && sscanf(line, "E %*s %x %u", &bits, &want) == 2) {
			code = vn_f32_bits_to_fp8(f, bits);
			enc++;
			if (code != want && bad++ < 10)
				TH_LOG("%s: %08x encodes to 0x%02x, NumPy 0x%02x", fmt, bits, code,
				       want);
		}
	}
	ASSERT_EQ(0, pclose(p)) TH_LOG("tests/host/fp8_ref.py failed (needs python3-numpy)");
	for (i = VNEF_DT_FP8_E4M3; i <= VNEF_DT_FP8_E4M3FN; i++)
		EXPECT_EQ(256u, seen[i]) TH_LOG("%s: not every code decoded", vn_dtype_name(i));
	EXPECT_EQ(3u * 256, dec);
	EXPECT_LT(3u * 512, enc);
	EXPECT_EQ(0u, bad);
}

/* Independently of NumPy: the figures the docs give, and the round trip. */
TEST(documented_figures)
{
	const struct vn_fp8_format *e4 = vn_fp8_format(VNEF_DT_FP8_E4M3);
	const struct vn_fp8_format *e5 = vn_fp8_format(VNEF_DT_FP8_E5M2);
	const struct vn_fp8_format *fn = vn_fp8_format(VNEF_DT_FP8_E4M3FN);
	unsigned int c;

	ASSERT_NE(NULL, e4);
	ASSERT_NE(NULL, e5);
	ASSERT_NE(NULL, fn);
	EXPECT_EQ(NULL, vn_fp8_format(VNEF_DT_BF16));
	EXPECT_EQ(0x43700000u, vn_fp8_to_f32_bits(e4, 0x77));	/* 240 */
	EXPECT_EQ(0x47600000u, vn_fp8_to_f32_bits(e5, 0x7b));	/* 57344 */
	EXPECT_EQ(0x43e00000u, vn_fp8_to_f32_bits(fn, 0x7e));	/* 448 */
	EXPECT_EQ(0x7f800000u, vn_fp8_to_f32_bits(e4, 0x78));	/* +inf */
	EXPECT_EQ(0xff800000u, vn_fp8_to_f32_bits(e5, 0xfc));	/* -inf */
	EXPECT_EQ(0x43800000u, vn_fp8_to_f32_bits(fn, 0x78));	/* 256: no infinity */
	EXPECT_EQ(0x3b000000u, vn_fp8_to_f32_bits(e4, 0x01));	/* 2^-9 */
	EXPECT_EQ(0x37800000u, vn_fp8_to_f32_bits(e5, 0x01));	/* 2^-16 */
	/* 1e6 saturates; +inf stays infinite in e4m3, saturates in e4m3fn */
	EXPECT_EQ(0x77, vn_f32_bits_to_fp8(e4, 0x49742400u));
	EXPECT_EQ(0xf7, vn_f32_bits_to_fp8(e4, 0xc9742400u));
	EXPECT_EQ(0x78, vn_f32_bits_to_fp8(e4, 0x7f800000u));
	EXPECT_EQ(0x7e, vn_f32_bits_to_fp8(fn, 0x7f800000u));
	EXPECT_EQ(0xff, vn_f32_bits_to_fp8(e5, 0xffc00001u));
	/* 1.0625 is halfway between 1 and 1.125: to the even code, 1 */
	EXPECT_EQ(0x38, vn_f32_bits_to_fp8(e4, 0x3f880000u));
	/* every finite code comes back as itself */
	for (c = 0; c < 256; c++) {
		u32 b4 = vn_fp8_to_f32_bits(e4, (u8)c), b5 = vn_fp8_to_f32_bits(e5, (u8)c);
		u32 bf = vn_fp8_to_f32_bits(fn, (u8)c);

		if ((b4 & 0x7fffffffu) < 0x7f800000u)
			EXPECT_EQ(c, vn_f32_bits_to_fp8(e4, b4));
		if ((b5 & 0x7fffffffu) < 0x7f800000u)
			EXPECT_EQ(c, vn_f32_bits_to_fp8(e5, b5));
		if ((bf & 0x7fffffffu) < 0x7f800000u)
			EXPECT_EQ(c, vn_f32_bits_to_fp8(fn, bf));
	}
	EXPECT_EQ(1u, vn_dtype_bytes(VNEF_DT_FP8_E4M3));
	EXPECT_STREQ("fp8_e4m3fn", vn_dtype_name(VNEF_DT_FP8_E4M3FN));
	EXPECT_EQ(VNEF_DT_FP8_E5M2, vn_dtype_by_name("fp8_e5m2"));
}

static u32 f32_bits(float f)
{
	u32 u;

	memcpy(&u, &f, 4);
	return u;
}

/* Values that exercise every case: ordinary, ties, beyond the largest, tiny, specials. */
static float probe(u32 j)
{
	static const float special[] = { 0.0f, -0.0f, 1.0625f, 240.0f, 250.0f, 448.0f, 1e6f,
					 -1e6f, 1e-3f, 1e-7f, 57344.0f, 61440.0f };

	if (j < ARRAY_SIZE(special))
		return special[j];
	if (j == ARRAY_SIZE(special))
		return INFINITY;
	if (j == ARRAY_SIZE(special) + 1)
		return -NAN;
	return gen(7, 0, j) * 37.0f;
}

/* One COPY on @engine from @src to @dst operand; expect the run OK. */
static int copy_once(struct vn_core *c, const struct vneuron_model *m, u32 engine,
		     struct vnef_ap src, struct vnef_ap dst)
{
	struct vn_exec_status st;
	struct vn_program *p;
	struct vnef_instr *in;
	struct vb b;
	int r;

	vb_init(&b);
	in = vb_op(&b, engine, VNEF_OP_COPY);
	in->src0 = src;
	in->dst = dst;
	r = load_vb_for(m, &b, &p);
	if (r)
		return r;
	r = run_prog(c, p, NULL, 0, &st);
	vn_program_put(p);
	return r ?: st.result == VN_RES_OK ? 0 : -EIO;
}

TEST(engines_convert_to_and_from_fp8)
{
	static const u32 engines[] = { VNEURON_ENGINE_VECTOR, VNEURON_ENGINE_SCALAR,
				       VNEURON_ENGINE_GPSIMD };
	static const u32 dts[] = { VNEF_DT_FP8_E4M3, VNEF_DT_FP8_E5M2, VNEF_DT_FP8_E4M3FN };
	const u32 n = 300, parts = 3;
	struct vn_core *c;
	u32 e, d, stride, p, j, bad = 0;

	ASSERT_EQ(0, vn_core_create(&vn_model_trn3, "fp8", &c));
	for (e = 0; e < ARRAY_SIZE(engines); e++)
		for (d = 0; d < ARRAY_SIZE(dts); d++)
			for (stride = 1; stride <= 2; stride++) {
				const struct vn_fp8_format *f = vn_fp8_format(dts[d]);

				for (p = 0; p < parts; p++)
					for (j = 0; j < n; j++)
						chip_put(c, VNEF_MEM_SBUF, VNEF_DT_FP32, p, 0, j,
							 probe(j) * (float)(p + 1));
				/* fp32 at 0 -> fp8 at 8192 (every other byte when strided) */
				ASSERT_EQ(0, copy_once(c, &vn_model_trn3, engines[e],
						       vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, parts,
							      0, n),
						       vb_ap(VNEF_MEM_SBUF, dts[d], 0, parts, 8192,
							     n, stride, 1, 0)));
				/* and back to fp32 at 16384 */
				ASSERT_EQ(0, copy_once(c, &vn_model_trn3, engines[e],
						       vb_ap(VNEF_MEM_SBUF, dts[d], 0, parts, 8192,
							     n, stride, 1, 0),
						       vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, parts,
							      16384, n)));
				for (p = 0; p < parts; p++)
					for (j = 0; j < n; j++) {
						u32 x = f32_bits(probe(j) * (float)(p + 1));
						u8 want = vn_f32_bits_to_fp8(f, x);
						u8 got = chip_addr(c, VNEF_MEM_SBUF, p, 8192)[j * stride];
						u32 back = f32_bits(chip_get(c, VNEF_MEM_SBUF,
									     VNEF_DT_FP32, p,
									     16384, j));

						if ((got != want ||
						     back != vn_fp8_to_f32_bits(f, want)) && bad++ < 5)
							TH_LOG("%s %s stride %u p %u j %u: %08x -> "
							       "0x%02x (want 0x%02x) -> %08x",
							       vn_engine_name(engines[e]),
							       vn_dtype_name(dts[d]), stride, p, j, x,
							       got, want, back);
					}
			}
	EXPECT_EQ(0u, bad);
	vn_core_destroy(c);
}

/* [K x M] stationary and [K x N] moving in fp8: products exact, sums in fp32. */
TEST(tensor_matmul_of_fp8_inputs)
{
	const u32 k = 64, mm = 32, n = 96;
	const struct vn_fp8_format *f = vn_fp8_format(VNEF_DT_FP8_E4M3);
	struct vn_exec_status st;
	struct vn_program *p;
	struct vnef_instr *in;
	struct vn_core *c;
	u32 i, j, q, bad = 0;
	struct vb b;

	ASSERT_EQ(0, vn_core_create(&vn_model_trn2, "fp8mm", &c));
	for (q = 0; q < k; q++) {
		for (j = 0; j < mm; j++)
			chip_addr(c, VNEF_MEM_SBUF, q, 0)[j] =
				vn_f32_bits_to_fp8(f, f32_bits(gen(1, q, j) * 8));
		for (j = 0; j < n; j++)
			chip_addr(c, VNEF_MEM_SBUF, q, 1024)[j] =
				vn_f32_bits_to_fp8(f, f32_bits(gen(2, q, j) * 8));
	}
	vb_init(&b);
	in = vb_op(&b, VNEURON_ENGINE_TENSOR, VNEF_OP_LOAD_STATIONARY);
	in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP8_E4M3, 0, k, 0, mm);
	in = vb_op(&b, VNEURON_ENGINE_TENSOR, VNEF_OP_MULTIPLY_MOVING);
	in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP8_E4M3, 0, k, 1024, n);
	in->dst = vb_ap2(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, mm, 0, n);
	ASSERT_EQ(0, load_vb_for(&vn_model_trn2, &b, &p));
	ASSERT_EQ(0, run_prog(c, p, NULL, 0, &st));
	vn_program_put(p);
	ASSERT_EQ((u32)VN_RES_OK, st.result);
	for (i = 0; i < mm; i++)
		for (j = 0; j < n; j++) {
			double want = 0;
			float got = chip_get(c, VNEF_MEM_PSUM, VNEF_DT_FP32, i, 0, j), a, v;
			u32 ab, vb2;

			for (q = 0; q < k; q++) {
				ab = vn_fp8_to_f32_bits(f, chip_addr(c, VNEF_MEM_SBUF, q, 0)[i]);
				vb2 = vn_fp8_to_f32_bits(f, chip_addr(c, VNEF_MEM_SBUF, q, 1024)[j]);
				memcpy(&a, &ab, 4);
				memcpy(&v, &vb2, 4);
				want += (double)a * v;
			}
			if (!near(got, (float)want, 1e-5f, 1e-3f) && bad++ < 5)
				TH_LOG("out[%u][%u] = %g, want %g", i, j, got, want);
		}
	EXPECT_EQ(0u, bad);
	vn_core_destroy(c);
}

TEST_HARNESS_MAIN
