// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * AMX-BF16 (TDPBF16PS) against TensorE's rule, in the host build only: Kbuild leaves
 * this file out, since kernel_fpu_begin() does not cover the tile state.
 *
 * Intel's pseudo-code adds each pair's two products to the fp32 accumulator one at a
 * time (RNE, DAZ, FTZ), as VDPBF16PS does, which would be the rule's bits on exact
 * operands (vn_mm_exact()). The Emerald Rapids CPU this was written on does not: one
 * pair gives acc + round(p0 + p1) (the pair's sum rounded once, then added), and the 16
 * pairs of a tile row are summed in another grouping. So TensorE does not use AMX; this
 * check (crafted tiles and pseudo-random ones against the rule, either half first) says
 * whether a CPU's TDPBF16PS would give the rule's bits, for the tests and bench_core.
 * Inline asm: no intrinsics header, and no target flags needed.
 */
#include "vn_ap_fp.h"
#include "vn_mm_fp.h"

#if defined(__x86_64__) && !defined(__KERNEL__)
#include <cpuid.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ARCH_REQ_XCOMP_PERM	0x1023	/* arch_prctl(): ask for an XSAVE feature */
#define XFEATURE_XTILEDATA	18
#define XCR0_TILE		(3ull << 17)	/* XTILECFG, XTILEDATA */

static bool amx_ok;
static pthread_once_t amx_once = PTHREAD_ONCE_INIT;

/*
 * CPUID: AMX-TILE and AMX-BF16; XCR0: the OS saves tile state; the permission, granted.
 * VN_NO_AMX=1 in the environment: as if absent (the tests' way to the other path).
 */
static void amx_init(void)
{
	const char *off = getenv("VN_NO_AMX");
	unsigned int a, b, c, d, lo, hi;

	if (off && !strcmp(off, "1"))
		return;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d) || !(d & 1u << 22) || !(d & 1u << 24))
		return;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((((u64)hi << 32 | lo) & XCR0_TILE) != XCR0_TILE)
		return;
	amx_ok = !syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA);
}

bool vn_mm_amx_ready(void)
{
	pthread_once(&amx_once, amx_init);
	return amx_ok;
}

/* LDTILECFG's 64 bytes: palette 1, tiles 0-2 of 16 rows x 64 bytes. */
struct amx_cfg {
	u8 palette, start_row, reserved[14];
	u16 colsb[16];
	u8 rows[16];
};

void vn_mm_amx_tile(const u32 *a, const u32 *b, float *c)
{
	struct amx_cfg cfg = { .palette = 1 };
	u64 ld = 64;
	int t;

	for (t = 0; t < 3; t++) {
		cfg.colsb[t] = 64;
		cfg.rows[t] = 16;
	}
	__asm__ volatile("ldtilecfg %0" : : "m"(cfg));
	__asm__ volatile("tileloadd (%0,%1,1), %%tmm0" : : "r"(c), "r"(ld) : "memory");
	__asm__ volatile("tileloadd (%0,%1,1), %%tmm1" : : "r"(a), "r"(ld) : "memory");
	__asm__ volatile("tileloadd (%0,%1,1), %%tmm2" : : "r"(b), "r"(ld) : "memory");
	__asm__ volatile("tdpbf16ps %%tmm2, %%tmm1, %%tmm0" : : : "memory");
	__asm__ volatile("tilestored %%tmm0, (%0,%1,1)" : : "r"(c), "r"(ld) : "memory");
	__asm__ volatile("tilerelease" : : : "memory");
}
#else
bool vn_mm_amx_ready(void)
{
	return false;
}

void vn_mm_amx_tile(const u32 *a, const u32 *b, float *c)
{
	(void)a;
	(void)b;
	(void)c;
}
#endif

static float amx_bf16(u32 h)
{
	return vn_u32_f32(h << 16);
}

/*
 * The rule for output (m, n) of a tile: acc, then each pair's two products in k order,
 * element k in the high half (hi_first) or in the low one; each rounded on its own.
 */
static u32 amx_rule(const u32 *a, const u32 *b, const float *c, u32 m, u32 n, bool hi_first)
{
	union vn_f32 r;
	float s = c[m * 16 + n], p;
	u32 k, h, x, y;

	for (k = 0; k < 32; k++) {
		x = a[m * 16 + k / 2];
		y = b[k / 2 * 16 + n];
		h = (k & 1) == hi_first;	/* this product's half: low (1) or high (0) */
		p = amx_bf16(h ? x & 0xffff : x >> 16) * amx_bf16(h ? y & 0xffff : y >> 16);
		__asm__("" : "+x"(p), "+x"(s));
		s = s + p;
	}
	r.f = s;
	return r.u;
}

/* An exact bf16 value (vn_mm_exact()) of magnitude 2^-6..2^6, sign and mantissa varied. */
static u32 amx_rand(u32 *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 31) << 15 | (121u + (*seed >> 8) % 13u) << 7 | (*seed >> 16 & 0x7f);
}

/*
 * The tiles: 0, pseudo-random operands and accumulators (sums round often); 1, crafted
 * pairs where one rounding of both products differs from two (the first pair of each
 * row, the rest zero); 2, 1 + 2^-24 + 2^-24 in two pairs of every row (two roundings
 * give 1, one gives 1 + 2^-23).
 */
static void amx_case(u32 t, u32 *a, u32 *b, float *c)
{
	static const u32 pair[][3] = {	/* a, b, acc */
		{ 0x33803380, 0x3f803f80, 0x3f800000 },	/* 1 + 2^-24 + 2^-24 */
		{ 0x338033c0, 0x3f803f80, 0x3f800000 },
		{ 0x33c03380, 0x3f803f80, 0x3f800000 },
		{ 0x5f7f5f7f, 0x5f7f5f7f, 0x7f7fffff },	/* overflows */
		{ 0xbf803f80, 0x3f803f80, 0x3f800000 },	/* 1 - 1 + 1 */
		{ 0x4b003f80, 0x4b003f80, 0x3f800000 },	/* 2^46 + 1 */
		{ 0x3b803380, 0x3b803f80, 0x3f800000 },	/* 2^-32 + 2^-24 */
		{ 0x3f804b00, 0x3f804b00, 0x4b800000 },
	};
	u32 i, seed = 1;

	for (i = 0; i < 256; i++) {
		a[i] = t ? 0 : amx_rand(&seed) << 16 | amx_rand(&seed);
		b[i] = t ? 0 : amx_rand(&seed) << 16 | amx_rand(&seed);
		c[i] = t == 2 ? 1.0f : t ? 0.0f : amx_bf16(amx_rand(&seed));
	}
	for (i = 0; i < 16 && t == 1; i++) {
		/* row i's pair times column i's: the case on the diagonal */
		a[i * 16] = pair[i % 8][0];
		b[i] = pair[i % 8][1];
		c[i * 16 + i] = vn_u32_f32(pair[i % 8][2]);
	}
	for (i = 0; i < 16 && t == 2; i++) {
		a[i * 16] = 0x33800000;
		a[i * 16 + 1] = 0x33800000;
		b[i] = 0x3f800000;
		b[16 + i] = 0x3f800000;
	}
}

u32 vn_mm_amx_check(u32 *mismatch)
{
	u32 a[256], b[256], bad[2] = { 0 }, t, i, o;
	float c[256], c0[256];
	union vn_f32 got;

	*mismatch = 0;
	if (!vn_mm_amx_ready())
		return VN_AMX_ABSENT;
	for (t = 0; t < 3; t++) {
		amx_case(t, a, b, c);
		memcpy(c0, c, sizeof(c));
		vn_mm_amx_tile(a, b, c);
		for (i = 0; i < 256; i++) {
			got.f = c[i];
			for (o = 0; o < 2; o++)
				bad[o] += got.u != amx_rule(a, b, c0, i / 16, i % 16, o);
		}
	}
	*mismatch = min(bad[0], bad[1]);
	if (!bad[0])
		return VN_AMX_LOW_FIRST;
	return bad[1] ? VN_AMX_OTHER : VN_AMX_HIGH_FIRST;
}
