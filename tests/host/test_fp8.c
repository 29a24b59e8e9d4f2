// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The fp8 conversions (core/vn_fp8.h) against a NumPy reference (tests/host/fp8_ref.py,
 * run with Debian's /usr/bin/python3): every one of the 256 codes of each format decoded,
 * and encoded back; midpoints between neighbouring values (ties to even) and the fp32
 * values either side of them; saturation, infinities, NaNs, zeros and tiny values.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vn_fp8.h"
#include "vn_isa.h"

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

TEST_HARNESS_MAIN
