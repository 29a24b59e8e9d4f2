// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * TensorE's kernel paths (core/tensor_fp.c, core/vn_mm_fp.h) against the scalar rule, bit
 * for bit: every path this CPU can run (SSE2, AVX2, AVX2 + FMA, AVX-512, AVX-512 + FMA,
 * AVX-512 BF16's VDPBF16PS), forced one at a time on an engine context of our own, over
 * fp32 operands with special values (any path must then multiply and add), exact bf16
 * operands (the FMA and VDPBF16PS paths), and exact operands spoilt by one value out of
 * range in the moving operand or in the stationary (back to multiply and add); shapes with edges, odd K, accumulation and a strided
 * destination. Then the instruction itself: VDPBF16PS against the rule on every bf16
 * value of the exact range, each in many lanes.
 *
 * The rule: acc = 0; for k in order acc = acc + round(stat[k][m] * mov[k][n]); with
 * VNEF_IF_ACCUMULATE out = acc + old. A NaN result must be a NaN (its payload is the
 * CPU's choice of operand, the same on every path but not asserted).
 */
#include <stdlib.h>
#include <string.h>

#include "vn_internal.h"
#include "vn_mm_fp.h"
#include "vn_os.h"
#include "vneuron_program.h"

/* The 6.1 harness defines non-static helpers without prototypes (fixtures too). */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"

#define SB_PB	VNEF_SBUF_PART_BYTES
#define PS_PB	VNEF_PSUM_PART_BYTES
#define MV_OFF	65536u		/* the moving operand's byte offset in each partition */
#define DST_OFF	131072u		/* an SBUF destination's */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

static float f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

static uint32_t bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

/* A bf16 value of the exact range (vn_mm_exact()), or zero now and then. */
static uint16_t bf16_exact(void)
{
	uint32_t r = rnd();

	if (r % 23 == 0)
		return (uint16_t)(r & 0x8000);
	/* exponents 71..190, weighted to the middle so that sums cancel and round */
	return (uint16_t)((r & 0x8000) | (71 + (r >> 7) % 120 / (1 + (r >> 20) % 3) +
					  (r >> 20) % 3 * 20) << 7 | (r & 0x7f));
}

/* fp32 values: ordinary ones, and now and then NaN, +-inf, +-0, denormals, extremes. */
static uint32_t f32_any(void)
{
	static const uint32_t special[] = {
		0x7fc00000, 0xffc00123, 0x7f800000, 0xff800000, 0x00000000, 0x80000000,
		0x00000001, 0x807fffff, 0x7f7fffff, 0x00800000, 0x3f800000, 0xbf800001,
	};
	uint32_t r = rnd();

	/* rare enough that most outputs of K = 128 stay finite */
	if (r % 600 == 0)
		return special[(r >> 8) % 12];
	return bits((float)(int32_t)(rnd() - 0x80000000u) * 0x1p-31f * (float)(1 + r % 7));
}

enum data { D_ANY, D_EXACT, D_SPOILT, D_SPOILT_ST };	/* spoilt: the moving, or the stationary */

struct path {
	const char *name;	/* the kernels' name for exact products */
	uint32_t simd, features;
};

/* The paths this CPU can run. */
static int paths(struct path *p)
{
	uint32_t cpu = vn_cpu_vector(), lvl = cpu & VN_CPU_LEVEL, n = 0;

	p[n++] = (struct path){ "sse2", VN_SIMD_SSE2, 0 };
	if (lvl >= VN_CPU_AVX2) {
		p[n++] = (struct path){ "avx2", VN_SIMD_AVX2, VN_FP_SSE_TESTED };
		if (cpu & VN_CPU_FMA)
			p[n++] = (struct path){ "avx2-fma", VN_SIMD_AVX2, VN_FP_FMA |
						VN_FP_FMA_TESTED | VN_FP_FMA_OK |
						VN_FP_SSE_TESTED };
	}
	if (lvl >= VN_CPU_AVX512) {
		p[n++] = (struct path){ "avx512", VN_SIMD_AVX512, VN_FP_SSE_TESTED };
		if (cpu & VN_CPU_FMA)
			p[n++] = (struct path){ "avx512-fma", VN_SIMD_AVX512, VN_FP_FMA |
						VN_FP_FMA_TESTED | VN_FP_FMA_OK |
						VN_FP_SSE_TESTED };
		if ((cpu & VN_CPU_BF16) && vn_mm_dp_selftest())
			p[n++] = (struct path){ "avx512-bf16", VN_SIMD_AVX512,
						VN_FP_BF16 | VN_FP_DP_TESTED | VN_FP_DP_OK |
						VN_FP_SSE_TESTED };
	}
	return (int)n;
}

FIXTURE(te) {
	uint8_t *sbuf, *psum;
	struct vn_fp_ctx x;
	float psum_want[128 * 128];
};

FIXTURE_SETUP(te)
{
	self->sbuf = calloc(VNEF_PARTITIONS, SB_PB);
	self->psum = calloc(VNEF_PARTITIONS, PS_PB);
	ASSERT_NE(NULL, self->sbuf);
	ASSERT_NE(NULL, self->psum);
	ASSERT_EQ(0, vn_engine_ctx_init(&self->x, self->sbuf, self->psum));
}

FIXTURE_TEARDOWN(te)
{
	vn_engine_ctx_free(&self->x);
	free(self->sbuf);
	free(self->psum);
}

static struct vnef_ap ap(uint16_t mem, uint16_t dt, uint16_t parts, uint32_t off, uint32_t n,
			 uint32_t stride)
{
	return (struct vnef_ap){ .mem = mem, .dtype = dt, .partitions = parts, .offset = off,
				 .count = { n, 1 }, .stride = { stride, n * stride } };
}

/* Writes element j of partition p of an SBUF operand (stride 1) from fp32 bits. */
static void put(uint8_t *sbuf, uint16_t dt, uint32_t p, uint32_t off, uint32_t j, uint32_t u)
{
	uint8_t *q = sbuf + (size_t)p * SB_PB + off;
	uint16_t h = (uint16_t)(u >> 16);

	if (dt == VNEF_DT_FP32)
		memcpy(q + 4 * j, &u, 4);
	else
		memcpy(q + 2 * j, &h, 2);
}

/* A value of the class for an operand of type dt, as the engine will read it (fp32 bits). */
static uint32_t value(enum data d, uint16_t dt)
{
	uint32_t u = d == D_ANY ? f32_any() : (uint32_t)bf16_exact() << 16;

	return dt == VNEF_DT_BF16 ? u & 0xffff0000u : u;
}

struct shape {
	uint32_t k, m, n;
	uint16_t st_dt, mv_dt;
	int acc;
	uint32_t dst_stride;	/* elements between outputs of a row: 1, or 2 (not contiguous) */
	uint16_t dst_mem;	/* VNEF_MEM_SBUF (at DST_OFF: the moving operand's memory), or PSUM */
};

/*
 * One LOAD_STATIONARY + MULTIPLY_MOVING on path p over data d, every output against the
 * rule. The path's name for the kernels it used must be want (NULL: not checked).
 */
static void check(struct __test_metadata *_metadata, FIXTURE_DATA(te) *self,
		  const struct path *p, const struct shape *s, enum data d, const char *want)
{
	struct vn_fp_ctx *x = &self->x;
	float *st = malloc(4 * s->k * s->m), *mv = malloc(4 * s->k * s->n);
	float *old = malloc(4 * s->m * s->n);
	struct vnef_instr in = { 0 };
	struct vn_fp_cursor cur = { 0 };
	uint32_t k, m, n, bad = 0, steps = 0;
	bool sb = s->dst_mem == VNEF_MEM_SBUF;
	uint8_t *dst = sb ? self->sbuf + DST_OFF : self->psum;
	size_t dpb = sb ? SB_PB : PS_PB;

	x->simd = p->simd;
	x->features = p->features;
	for (k = 0; k < s->k; k++) {
		for (m = 0; m < s->m; m++) {
			uint32_t u = value(d == D_ANY ? D_ANY : D_EXACT, s->st_dt);

			if (d == D_SPOILT_ST && k == s->k / 2 && m == s->m - 1)
				u = rnd() % 2 ? 0x00010000u : 0x7f800000u;
			put(self->sbuf, s->st_dt, k, 0, m, u);
			st[k * s->m + m] = f32(u);
		}
		for (n = 0; n < s->n; n++) {
			uint32_t u = value(d == D_ANY ? D_ANY : D_EXACT, s->mv_dt);

			/* one value out of the exact range spoils the whole operand */
			if (d == D_SPOILT && k == s->k / 2 && n == s->n - 1)
				u = rnd() % 2 ? 0x00010000u : 0x7f800000u;
			put(self->sbuf, s->mv_dt, k, MV_OFF, n, u);
			mv[k * s->n + n] = f32(u);
		}
	}
	for (m = 0; m < s->m; m++)
		for (n = 0; n < s->n; n++) {
			old[m * s->n + n] = f32(f32_any());
			memcpy(dst + (size_t)m * dpb + 4 * n * s->dst_stride,
			       &old[m * s->n + n], 4);
		}

	in.opcode = VNEF_OP_LOAD_STATIONARY;
	in.src0 = ap(VNEF_MEM_SBUF, s->st_dt, (uint16_t)s->k, 0, s->m, 1);
	ASSERT_TRUE(vn_fp_tensor_step(x, &in, &cur));
	in.opcode = VNEF_OP_MULTIPLY_MOVING;
	in.src0 = ap(VNEF_MEM_SBUF, s->mv_dt, (uint16_t)s->k, MV_OFF, s->n, 1);
	in.dst = ap(sb ? VNEF_MEM_SBUF : VNEF_MEM_PSUM, VNEF_DT_FP32, (uint16_t)s->m,
		    sb ? DST_OFF : 0, s->n, s->dst_stride);
	in.flags = s->acc ? VNEF_IF_ACCUMULATE : 0;
	memset(&cur, 0, sizeof(cur));
	while (!vn_fp_tensor_step(x, &in, &cur))
		ASSERT_GT(1000u, ++steps);
	if (want)
		EXPECT_STREQ(want, x->mm_ran);

	for (m = 0; m < s->m; m++)
		for (n = 0; n < s->n; n++) {
			volatile float prod, acc = 0;
			uint32_t got;

			for (k = 0; k < s->k; k++) {
				prod = st[k * s->m + m] * mv[k * s->n + n];	/* rounded alone */
				acc = acc + prod;
			}
			if (s->acc)
				acc = acc + old[m * s->n + n];
			memcpy(&got, dst + (size_t)m * dpb + 4 * n * s->dst_stride, 4);
			if (got == bits(acc) || (acc != acc && f32(got) != f32(got)))
				continue;
			if (!bad++)
				TH_LOG("%s, data %d, %ux%ux%u acc %d: [%u][%u] got %#x, the rule %#x",
				       p->name, d, s->k, s->m, s->n, s->acc, m, n, got, bits(acc));
		}
	EXPECT_EQ(0u, bad);
	free(st);
	free(mv);
	free(old);
}

static const struct shape shapes[] = {
	{ 128, 128, 512, VNEF_DT_FP32, VNEF_DT_FP32, 0, 1, VNEF_MEM_PSUM },
	{ 128, 128, 512, VNEF_DT_BF16, VNEF_DT_BF16, 1, 1, VNEF_MEM_PSUM },
	{ 96, 100, 500, VNEF_DT_BF16, VNEF_DT_BF16, 1, 1, VNEF_MEM_PSUM },	/* edges */
	{ 127, 64, 96, VNEF_DT_BF16, VNEF_DT_FP32, 0, 1, VNEF_MEM_PSUM },	/* odd K, mixed types */
	{ 3, 10, 10, VNEF_DT_FP32, VNEF_DT_BF16, 1, 1, VNEF_MEM_PSUM },
	{ 1, 1, 1, VNEF_DT_BF16, VNEF_DT_BF16, 0, 1, VNEF_MEM_PSUM },
	{ 64, 40, 70, VNEF_DT_BF16, VNEF_DT_BF16, 1, 2, VNEF_MEM_PSUM },	/* a strided destination */
	/* the moving operand in the destination's memory: each step gathers its columns */
	{ 128, 128, 512, VNEF_DT_BF16, VNEF_DT_BF16, 1, 1, VNEF_MEM_SBUF },
	{ 96, 100, 500, VNEF_DT_BF16, VNEF_DT_FP32, 0, 1, VNEF_MEM_SBUF },
};

/* Any operands: every path multiplies and adds, with the rule's bits. */
TEST_F(te, every_path_any_operands)
{
	struct path p[8];
	int i, np = paths(p);
	unsigned int s;

	for (i = 0; i < np; i++)
		for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++)
			check(_metadata, self, &p[i], &shapes[s], D_ANY, NULL);
}

/* Exact products: the FMA and VDPBF16PS paths run, with the rule's bits. */
TEST_F(te, every_path_exact_operands)
{
	static const char *const muladd[] = { "sse2", "avx2", "avx512" };
	struct path p[8];
	int i, np = paths(p);
	unsigned int s;

	for (i = 0; i < np; i++)
		for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
			/* fp32 shapes too: bf16 values held as fp32 */
			check(_metadata, self, &p[i], &shapes[s], D_EXACT, p[i].name);
			/* one value out of range: multiply and add */
			check(_metadata, self, &p[i], &shapes[s], D_SPOILT, muladd[p[i].simd]);
			check(_metadata, self, &p[i], &shapes[s], D_SPOILT_ST, muladd[p[i].simd]);
		}
}

/*
 * Where SSE2 timed much faster than the CPU's widest vectors (QEMU's TCG), TensorE keeps
 * to SSE2's multiply and add, exact operands too, with the rule's bits.
 */
TEST_F(te, sse_only_path)
{
	struct path p = { "sse2", VN_SIMD_AVX2, VN_FP_FMA | VN_FP_FMA_TESTED | VN_FP_FMA_OK |
			  VN_FP_SSE_TESTED | VN_FP_SSE_OK };
	uint32_t lvl = vn_cpu_vector() & VN_CPU_LEVEL;
	unsigned int s;

	if (lvl < VN_CPU_AVX2)
		SKIP(return, "no AVX2: SSE2 is the only path");
	if (lvl >= VN_CPU_AVX512)
		p.simd = VN_SIMD_AVX512;
	for (s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		check(_metadata, self, &p, &shapes[s], D_EXACT, "sse2");
		check(_metadata, self, &p, &shapes[s], D_ANY, "sse2");
	}
}

/* A fresh context times its choices at first use, and keeps them: flags set, bits right. */
TEST_F(te, first_use_timing)
{
	struct path p = { NULL, self->x.simd, self->x.features };
	uint32_t f;

	if (p.simd == VN_SIMD_SSE2)
		SKIP(return, "SSE2 only: nothing to time");
	check(_metadata, self, &p, &shapes[0], D_EXACT, NULL);
	f = self->x.features;
	EXPECT_NE(0u, f & VN_FP_SSE_TESTED);
	if ((f & VN_FP_FMA) && !(f & VN_FP_SSE_OK))
		EXPECT_NE(0u, f & VN_FP_FMA_TESTED);
	/* chosen once: the same kernels for the next operands */
	p.features = f;
	check(_metadata, self, &p, &shapes[0], D_EXACT, self->x.mm_ran);
	EXPECT_EQ(f, self->x.features);
}

#define T_DOFF	0x8000u	/* an SBUF destination's offset, past the source's bytes */

/* Element j of partition p of a transpose's destination: PSUM, or SBUF at T_DOFF. */
static uint8_t *t_dst(FIXTURE_DATA(te) *self, int psum, uint32_t p, uint32_t j)
{
	return psum ? self->psum + (size_t)p * PS_PB + 4 * j :
		      self->sbuf + (size_t)p * SB_PB + T_DOFF + 4 * j;
}

/*
 * The AVX-512 widening of a moving panel (vn_mm_widen_panel_bf16_avx512()) on every bf16
 * value: each row's 32 values (or n < 32, the rest zero) widened to their fp32 bits in
 * order, and the verdict the same as vn_mm_exact_sse2()'s on those bits, value by value,
 * whatever lane it sits in; the prefetch of the next columns changes nothing.
 */
TEST(widen_panel_every_bf16_value)
{
	enum { ROWS = 3, LD = 40 };
	uint16_t h[ROWS * LD + 64];
	uint32_t out[ROWS * 32], w, v, r, c, n, bad = 0;

	if ((vn_cpu_vector() & VN_CPU_LEVEL) < VN_CPU_AVX512)
		SKIP(return, "no AVX-512 on this CPU");
	for (v = 0; v < 0x10000; v++) {
		n = v % 7 ? 32 : 1 + v % 31;
		for (r = 0; r < ROWS * LD + 64; r++)
			h[r] = 0x3f80;	/* 1.0: exact */
		h[(v % ROWS) * LD + v % n] = (uint16_t)v;
		memset(out, 0xa5, sizeof(out));
		w = (uint32_t)v << 16;
		if (vn_mm_widen_panel_bf16_avx512(h, LD, ROWS, n, out, 32, v % 3 ? 32 : 0) !=
		    vn_mm_exact_sse2(&w, 1) && !bad++)
			TH_LOG("value %#x: a different verdict", v);
		for (r = 0; r < ROWS; r++)
			for (c = 0; c < 32; c++)
				if (out[r * 32 + c] != (c < n ? (uint32_t)h[r * LD + c] << 16 : 0) &&
				    !bad++)
					TH_LOG("value %#x, n %u: row %u lane %u got %#x", v, n, r, c,
					       out[r * 32 + c]);
	}
	EXPECT_EQ(0u, bad);
}

/*
 * TRANSPOSE (AVX-512's 16 x 16 bands, 4 x 4 blocks and edges) is the plain transpose on
 * every path this CPU runs, from fp32 or bf16, into PSUM or SBUF, added if asked.
 */
TEST_F(te, transpose_blocks_and_edges)
{
	static const uint32_t shape[][2] = {
		{ 128, 128 }, { 32, 48 }, { 48, 32 }, { 13, 19 }, { 16, 10 }, { 1, 7 },
		{ 128, 16 },
	};
	struct vn_fp_cursor cur = { 0 };
	struct vnef_instr in = { .opcode = VNEF_OP_TRANSPOSE };
	uint32_t s, p, f, acc, dt, ps, bad = 0;
	struct path pa[8];
	int npa = paths(pa), i;

	for (i = 0; i < npa; i++)
		for (s = 0; s < 7; s++)
			for (acc = 0; acc < 4; acc++) {
				uint32_t np = shape[s][0], nf = shape[s][1];

				dt = acc & 2 ? VNEF_DT_BF16 : VNEF_DT_FP32;
				ps = s != 2 && s != 4;	/* PSUM, or SBUF (another path) */
				self->x.simd = pa[i].simd;
				self->x.features = pa[i].features;
				for (p = 0; p < np; p++)
					for (f = 0; f < nf; f++)
						put(self->sbuf, (uint16_t)dt, p, 0, f, f32_any());
				for (f = 0; f < nf; f++)
					for (p = 0; p < np; p++)
						memcpy(t_dst(self, ps, f, p),
						       (uint32_t[]){ f32_any() }, 4);
				in.src0 = ap(VNEF_MEM_SBUF, (uint16_t)dt, (uint16_t)np, 0, nf, 1);
				in.dst = ap(ps ? VNEF_MEM_PSUM : VNEF_MEM_SBUF, VNEF_DT_FP32,
					    (uint16_t)nf, ps ? 0 : T_DOFF, np, 1);
				in.flags = acc & 1 ? VNEF_IF_ACCUMULATE : 0;
				for (f = 0; f < nf; f++)
					for (p = 0; p < np; p++) {
						uint8_t *q = self->sbuf + (size_t)p * SB_PB;
						uint32_t u = 0;
						float old;

						if (dt == VNEF_DT_BF16)
							memcpy((uint8_t *)&u + 2, q + 2 * f, 2);
						else
							memcpy(&u, q + 4 * f, 4);
						memcpy(&old, t_dst(self, ps, f, p), 4);
						self->psum_want[f * 128 + p] =
							acc & 1 ? f32(u) + old : f32(u);
					}
				memset(&cur, 0, sizeof(cur));
				ASSERT_TRUE(vn_fp_tensor_step(&self->x, &in, &cur));
				for (f = 0; f < nf; f++)
					for (p = 0; p < np; p++) {
						uint32_t g, w = bits(self->psum_want[f * 128 + p]);

						memcpy(&g, t_dst(self, ps, f, p), 4);
						if (g != w && !(f32(w) != f32(w) && f32(g) != f32(g)) &&
						    !bad++)
							TH_LOG("%s %ux%u %s acc %u [%u][%u]: got %#x "
							       "want %#x", pa[i].name, np, nf,
							       dt == VNEF_DT_BF16 ? "bf16" : "fp32",
							       acc & 1, f, p, g, w);
					}
			}
	EXPECT_EQ(0u, bad);
}

/*
 * VDPBF16PS itself: acc + hi * hi', then + lo * lo', each rounded, for every bf16 value of
 * the exact range as a_hi (and, in the next pass, as a_lo), each against many partners
 * and accumulators: random ones, and ones that nearly cancel the product.
 */
#define DP_LANES	16

__attribute__((target("avx512f,avx512bf16"))) static void dp16(uint32_t *acc,
							       const uint32_t *a,
							       const uint32_t *b)
{
	float __attribute__((vector_size(64))) s;
	uint32_t __attribute__((vector_size(64))) va, vb;

	memcpy(&s, acc, 64);
	memcpy(&va, a, 64);
	memcpy(&vb, b, 64);
	__asm__("vdpbf16ps %2, %1, %0" : "+v"(s) : "v"(va), "v"(vb));
	memcpy(acc, &s, 64);
}

TEST(vdpbf16ps_is_the_rule_in_the_exact_range)
{
	uint32_t a[DP_LANES], b[DP_LANES], acc[DP_LANES], want[DP_LANES];
	uint32_t cpu = vn_cpu_vector(), v, pass, l, bad = 0;
	uint64_t lanes = 0;

	if (!(cpu & VN_CPU_BF16))
		SKIP(return, "no AVX512_BF16 on this CPU");
	for (pass = 0; pass < 8; pass++) {
		for (v = 0; v < 0x10000; v += DP_LANES) {
			for (l = 0; l < DP_LANES; l++) {
				uint16_t x = (uint16_t)(v + l), y = bf16_exact(), z = bf16_exact();
				uint16_t w = bf16_exact();
				volatile float s, p;

				/* a value outside the range takes an exact one's place */
				if (((x >> 7 & 0xff) - 71u) > 119u && (x & 0x7fff))
					x = bf16_exact();
				a[l] = pass % 2 ? (uint32_t)z << 16 | x : (uint32_t)x << 16 | z;
				b[l] = (uint32_t)y << 16 | w;
				/*
				 * The accumulator is a sum of exact products, as in a kernel;
				 * in half the lanes of later passes one that nearly cancels
				 * the first product: tiny sums.
				 */
				p = f32((uint32_t)bf16_exact() << 16) * f32((uint32_t)bf16_exact() << 16);
				s = p;
				p = f32((uint32_t)bf16_exact() << 16) * f32((uint32_t)bf16_exact() << 16);
				if (pass >= 4 && l % 2)
					p = -(f32(a[l] & 0xffff0000u) * f32(b[l] & 0xffff0000u));
				s = s + p;
				acc[l] = bits(s);
				s = f32(acc[l]);
				p = f32(a[l] & 0xffff0000u) * f32(b[l] & 0xffff0000u);
				s = s + p;
				p = f32(a[l] << 16) * f32(b[l] << 16);
				s = s + p;
				want[l] = bits(s);
			}
			dp16(acc, a, b);
			for (l = 0; l < DP_LANES; l++, lanes++)
				if (acc[l] != want[l] && !bad++)
					TH_LOG("a %#x b %#x: got %#x, the rule %#x", a[l], b[l],
					       acc[l], want[l]);
		}
	}
	EXPECT_EQ(0u, bad) TH_LOG("of %llu lanes", (unsigned long long)lanes);
	EXPECT_TRUE(vn_mm_dp_selftest());
}

/* The rule for output (m, n) of an AMX tile, element k of each pair in the high half or not. */
static uint32_t amx_want(const uint32_t *a, const uint32_t *b, const float *c, int m, int n,
			 int hi_first)
{
	volatile float s = c[m * 16 + n], p;
	int k;

	for (k = 0; k < 32; k++) {
		uint32_t x = a[m * 16 + k / 2], y = b[k / 2 * 16 + n];
		int low = (k & 1) == hi_first;

		p = f32(low ? x << 16 : x & 0xffff0000u) * f32(low ? y << 16 : y & 0xffff0000u);
		s = s + p;
	}
	return bits(s);
}

/*
 * Where the CPU has AMX-BF16: vn_mm_amx_check()'s verdict holds on other operands. A
 * tile it calls the rule's (in one order) gives the rule's bits on random ones: exact
 * bf16 values of the whole range (overflow, cancellation, zeros, signs), accumulators
 * that are such sums, pairs past a K that is not a multiple of 32 zero. A CPU it says
 * does otherwise showed a mismatch.
 */
TEST(amx_verdict_holds)
{
	uint32_t a[256], b[256], want_bad[2] = { 0 }, mism, verdict, t, i, o, kp;
	float c[256], c0[256];

	verdict = vn_mm_amx_check(&mism);
	if (verdict == VN_AMX_ABSENT) {
		EXPECT_FALSE(vn_mm_amx_ready());
		EXPECT_EQ(0u, mism);
		SKIP(return, "no AMX-BF16 here (or the OS does not grant it)");
	}
	for (t = 0; t < 64; t++) {
		kp = t % 4 ? 16 : 1 + rnd() % 16;	/* the pairs in use */
		for (i = 0; i < 256; i++) {
			a[i] = i % 16 < kp ? (uint32_t)bf16_exact() << 16 | bf16_exact() : 0;
			b[i] = i / 16 < kp ? (uint32_t)bf16_exact() << 16 | bf16_exact() : 0;
			c[i] = f32((uint32_t)bf16_exact() << 16) * f32((uint32_t)bf16_exact() << 16);
		}
		memcpy(c0, c, sizeof(c));
		vn_mm_amx_tile(a, b, c);
		for (i = 0; i < 256; i++)
			for (o = 0; o < 2; o++)
				want_bad[o] += bits(c[i]) != amx_want(a, b, c0, i / 16, i % 16, o);
	}
	TH_LOG("verdict %u, %u of its tiles' outputs off the rule; random tiles: %u (low half "
	       "first), %u (high half first) of %u", verdict, mism, want_bad[0], want_bad[1],
	       64 * 256);
	if (verdict == VN_AMX_LOW_FIRST) {
		EXPECT_EQ(0u, want_bad[0]);
	} else if (verdict == VN_AMX_HIGH_FIRST) {
		EXPECT_EQ(0u, want_bad[1]);
	} else {
		EXPECT_NE(0u, mism);
	}
}

/*
 * VN_NO_AMX=1: the check finds no AMX and asks the OS for nothing, as on a CPU without it
 * (each test runs in a child of its own: the environment is read once per process).
 */
TEST(amx_off_by_environment)
{
	uint32_t mism = 7;

	ASSERT_EQ(0, setenv("VN_NO_AMX", "1", 1));
	EXPECT_FALSE(vn_mm_amx_ready());
	EXPECT_EQ((uint32_t)VN_AMX_ABSENT, vn_mm_amx_check(&mism));
	EXPECT_EQ(0u, mism);
}

TEST_HARNESS_MAIN
