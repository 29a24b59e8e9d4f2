// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * On-chip data and owners (scrubbing between owners and on reset), and the tensor
 * engine's steps bit exact against a reference.
 */
#include "exec_core.h"

/*
 * ---- on-chip data and owners ----
 *
 * W writes a pattern over SBUF (the first and last KiB of every partition), all of PSUM,
 * and signals sem 7 five times. R copies those places to three output tensors and
 * signals sem 7 once.
 */
#define OWNER_A	0x1001
#define OWNER_B	0x2002

static void build_writer(struct vb *b)
{
	struct vnef_instr *in;
	float v = 2.5f;
	uint32_t i;

	vb_init(b);
	in = vb_op(b, GE, VNEF_OP_IOTA);	/* 1 + p * 1000 + j: never 0 */
	in->dst = vb_ap2(SB, F32, 0, 128, 0, 256);
	in->imm[0] = 1;
	in->imm[1] = 1000;
	in->imm[2] = 1;
	in = vb_op(b, GE, VNEF_OP_IOTA);
	in->dst = vb_ap2(SB, F32, 0, 128, SB_PB - 1024, 256);
	in->imm[0] = 7;
	in->imm[1] = 3;
	in->imm[2] = 5;
	in = vb_op(b, VE, VNEF_OP_MEMSET);
	in->dst = vb_ap2(PS, F32, 0, 128, 0, PS_PB / 4);
	memcpy(&in->imm[0], &v, 4);
	for (i = 0; i < 5; i++) {
		in = vb_op(b, VE, VNEF_OP_NOP);
		in->signal_mask = 1ull << 7;
	}
}

static void build_reader(struct vb *b)
{
	struct vnef_instr *in;

	vb_init(b);
	vb_tensor(b, "lo", VNEF_TENSOR_OUTPUT, F32, 128, 256, NULL);
	vb_tensor(b, "hi", VNEF_TENSOR_OUTPUT, F32, 128, 256, NULL);
	vb_tensor(b, "ps", VNEF_TENSOR_OUTPUT, F32, 128, PS_PB / 4, NULL);
	vb_store(b, 0, 0, 0, 1024, 128, 1024, SB, 0, 0);
	vb_store(b, 1, 1, 0, 1024, 128, 1024, SB, 0, SB_PB - 1024);
	vb_store(b, 2, 2, 0, PS_PB, 128, PS_PB, PS, 0, 0);
	in = vb_op(b, VE, VNEF_OP_NOP);
	in->signal_mask = 1ull << 7;
}

struct readout {
	uint8_t lo[128 * 1024], hi[128 * 1024], ps[128 * PS_PB];
	uint32_t sem7;		/* sem 7's value after R's only signal */
};

static bool all_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* Runs W on c, for its current owner. */
static void run_writer(struct __test_metadata *_metadata, struct vn_core *c)
{
	struct vn_exec_status st;
	struct vb b;

	build_writer(&b);
	ASSERT_EQ(0, run_b(c, &b, NULL, &st));
	ASSERT_EQ(VN_RES_OK, st.result);
}

/* Runs R on c, its outputs and sem 7 in r. */
static void run_reader(struct __test_metadata *_metadata, struct vn_core *c, struct readout *r)
{
	struct vn_bind bi[3] = { { r->lo, sizeof(r->lo) }, { r->hi, sizeof(r->hi) },
				 { r->ps, sizeof(r->ps) } };
	static struct evlog l;
	struct vn_exec_status st;
	struct vb b;
	uint32_t i;

	memset(r, 0x5a, sizeof(*r));
	memset(&l, 0, sizeof(l));
	pthread_mutex_init(&l.m, NULL);
	vn_core_set_hook(c, log_hook, &l);
	build_reader(&b);
	ASSERT_EQ(0, run_b(c, &b, bi, &st));
	vn_core_set_hook(c, NULL, NULL);
	ASSERT_EQ(VN_RES_OK, st.result);
	r->sem7 = 0;
	for (i = 0; i < l.n; i++)
		if (l.ev[i].stream == VE)
			r->sem7 = l.ev[i].flags >> 16;
}

/* R's outputs hold what W wrote: the same bytes as on chip, none of them zero. */
static bool sees_pattern(struct vn_core *c, const struct readout *r)
{
	uint32_t p, j;

	for (p = 0; p < 128; p++) {
		if (memcmp(r->lo + p * 1024, vn_core_sbuf(c, p), 1024) ||
		    memcmp(r->hi + p * 1024, vn_core_sbuf(c, p) + SB_PB - 1024, 1024) ||
		    memcmp(r->ps + p * PS_PB, vn_core_psum(c, p), PS_PB))
			return false;
		for (j = 0; j < 256; j++)
			if (!chip_get(c, SB, F32, p, 0, j) ||
			    !chip_get(c, SB, F32, p, SB_PB - 1024, j))
				return false;
		for (j = 0; j < PS_PB / 4; j++)
			if (chip_get(c, PS, F32, p, 0, j) != 2.5f)
				return false;
	}
	return true;
}

static bool sees_zeros(const struct readout *r)
{
	return all_zero(r->lo, sizeof(r->lo)) && all_zero(r->hi, sizeof(r->hi)) &&
	       all_zero(r->ps, sizeof(r->ps));
}

TEST_F(ex, owner_change_scrubs_chip)
{
	struct readout *r = malloc(sizeof(*r));

	/* A writes; A's next executions still see it (no scrub between them) */
	vn_core_set_owner(self->c, OWNER_A);
	run_writer(_metadata, self->c);
	run_reader(_metadata, self->c, r);
	EXPECT_TRUE(sees_pattern(self->c, r));
	EXPECT_EQ(1u, r->sem7);		/* semaphores start at 0 in every execution */
	vn_core_set_owner(self->c, OWNER_A);
	run_reader(_metadata, self->c, r);
	EXPECT_TRUE(sees_pattern(self->c, r));

	/* B's first execution reads zeros everywhere, and all of SBUF and PSUM is zero */
	vn_core_set_owner(self->c, OWNER_B);
	run_reader(_metadata, self->c, r);
	EXPECT_TRUE(sees_zeros(r));
	EXPECT_EQ(1u, r->sem7);
	EXPECT_TRUE(chip_all_zero(self->c));

	/* B writes; back to A: A does not see B's data either */
	run_writer(_metadata, self->c);
	run_reader(_metadata, self->c, r);
	EXPECT_TRUE(sees_pattern(self->c, r));
	vn_core_set_owner(self->c, OWNER_A);
	run_reader(_metadata, self->c, r);
	EXPECT_TRUE(sees_zeros(r));
	EXPECT_TRUE(chip_all_zero(self->c));

	/* owner 0 (none) is an owner like any other */
	run_writer(_metadata, self->c);
	vn_core_set_owner(self->c, 0);
	run_reader(_metadata, self->c, r);
	EXPECT_TRUE(sees_zeros(r));
	free(r);
}

TEST_F(ex, reset_scrubs_chip)
{
	struct readout *r = malloc(sizeof(*r));

	vn_core_set_owner(self->c, OWNER_A);
	run_writer(_metadata, self->c);
	vn_core_reset(self->c);
	EXPECT_TRUE(chip_all_zero(self->c));
	run_reader(_metadata, self->c, r);	/* the same owner, after a reset */
	EXPECT_TRUE(sees_zeros(r));
	EXPECT_EQ(1u, r->sem7);
	free(r);
}

/*
 * ---- TensorE in steps ----
 *
 * One MULTIPLY_MOVING runs in FPU sections of at most VN_MM_STEP_MACS multiply-adds,
 * split by whole groups of VN_MM_STEP_COLS columns. The micro-kernels compute every
 * output alone: acc = 0, then acc += stat[k][m] * mov[k][n] for k in order, then one
 * add of the old PSUM value with VNEF_IF_ACCUMULATE. A plain loop doing the same is the
 * unsplit pass bit for bit; the kernels may fuse the multiply-add (FMA) where the build
 * lets the compiler contract, so both roundings are computed and one must match all.
 */
static float ref_dot(const float *st, const float *mv, uint32_t k_n, uint32_t m_n,
		     uint32_t n_n, uint32_t m, uint32_t n, bool fused)
{
	volatile float prod;
	float s = 0;
	uint32_t k;

	for (k = 0; k < k_n; k++) {
		if (fused) {
			s = fmaf(st[k * m_n + m], mv[k * n_n + n], s);
		} else {
			prod = st[k * m_n + m] * mv[k * n_n + n];	/* rounded on its own */
			s += prod;
		}
	}
	return s;
}

static uint32_t bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

/* FPU sections one MULTIPLY_MOVING of this shape takes. */
static unsigned long mm_sections(uint32_t k_n, uint32_t m_n, uint32_t n_n)
{
	uint32_t cols = VN_MM_STEP_MACS / (k_n * m_n) / VN_MM_STEP_COLS * VN_MM_STEP_COLS;

	if (cols < VN_MM_STEP_COLS)
		cols = VN_MM_STEP_COLS;
	return (n_n + cols - 1) / cols;
}

/*
 * K x M stationary at SBUF 0, K x N moving at SBUF 65536, M x N out at PSUM 0 (the old
 * values there added with acc). strict: every output matches one rounding; else each
 * output matches either (shapes with edges, which a build may compile apart).
 */
static void check_mm_bits(struct __test_metadata *_metadata, struct vn_core *c, uint32_t dt,
			  uint32_t k_n, uint32_t m_n, uint32_t n_n, bool acc, bool strict)
{
	float *st = malloc(4 * k_n * m_n), *mv = malloc(4 * k_n * n_n);
	float *old = malloc(4 * m_n * n_n);
	uint32_t k, m, n, bad_sep = 0, bad_fma = 0, bad_any = 0;
	struct vn_exec_status s;
	struct vnef_instr *in;
	unsigned long sec0;
	struct vb b;

	chip_fill(c, SB, dt, 0, k_n, 0, m_n, 31);
	chip_fill(c, SB, dt, 0, k_n, 65536, n_n, 32);
	chip_fill(c, PS, F32, 0, m_n, 0, n_n, 33);
	for (k = 0; k < k_n; k++) {
		for (m = 0; m < m_n; m++)
			st[k * m_n + m] = chip_get(c, SB, dt, k, 0, m);
		for (n = 0; n < n_n; n++)
			mv[k * n_n + n] = chip_get(c, SB, dt, k, 65536, n);
	}
	for (m = 0; m < m_n; m++)
		for (n = 0; n < n_n; n++)
			old[m * n_n + n] = chip_get(c, PS, F32, m, 0, n);
	vb_init(&b);
	in = vb_op(&b, TE, VNEF_OP_LOAD_STATIONARY);
	in->src0 = vb_ap2(SB, dt, 0, k_n, 0, m_n);
	in = vb_op(&b, TE, VNEF_OP_MULTIPLY_MOVING);
	in->src0 = vb_ap2(SB, dt, 0, k_n, 65536, n_n);
	in->dst = vb_ap2(PS, F32, 0, m_n, 0, n_n);
	if (acc)
		in->flags = VNEF_IF_ACCUMULATE;
	sec0 = __atomic_load_n(&vn_os_fpu_sections, __ATOMIC_RELAXED);
	ASSERT_EQ(0, run_vb(c, &b, &s));
	/* the load, then the multiply in its steps */
	EXPECT_EQ(1 + mm_sections(k_n, m_n, n_n),
		  __atomic_load_n(&vn_os_fpu_sections, __ATOMIC_RELAXED) - sec0);
	for (m = 0; m < m_n; m++)
		for (n = 0; n < n_n; n++) {
			float sep = ref_dot(st, mv, k_n, m_n, n_n, m, n, false);
			float fus = ref_dot(st, mv, k_n, m_n, n_n, m, n, true);
			uint32_t got = bits(chip_get(c, PS, F32, m, 0, n));

			if (acc) {
				sep += old[m * n_n + n];
				fus += old[m * n_n + n];
			}
			bad_sep += got != bits(sep);
			bad_fma += got != bits(fus);
			if (got != bits(sep) && got != bits(fus) && !bad_any++)
				TH_LOG("[%u][%u] got %#x, one pass gives %#x (or fused %#x)", m,
				       n, got, bits(sep), bits(fus));
		}
	EXPECT_EQ(0u, bad_any) TH_LOG("dt %u %ux%ux%u acc %d", dt, k_n, m_n, n_n, acc);
	if (strict)
		EXPECT_TRUE(!bad_sep || !bad_fma)
			TH_LOG("outputs mix roundings: %u unfused, %u fused differ", bad_sep,
			       bad_fma);
	free(st);
	free(mv);
	free(old);
}

TEST_F(ex, tensor_steps_are_bit_exact)
{
	static const uint32_t dts[2] = { F32, B16 };
	uint32_t d, acc;

	for (d = 0; d < 2; d++)
		for (acc = 0; acc < 2; acc++) {
			check_mm_bits(_metadata, self->c, dts[d], 128, 128, 512, acc, true);
			/* edges: rows and columns past the kernels' blocks, a short last step */
			check_mm_bits(_metadata, self->c, dts[d], 96, 100, 500, acc, false);
		}
	/* a full multiply is at least 16 sections: 8 Mi multiply-adds in 2^19 steps */
	EXPECT_GE(mm_sections(128, 128, 512), 16ul);
}

/*
 * A core reuses ended executions (their semaphore times, binds and status): each run
 * of the matmul, on a spare after the first, and a small program's runs in between,
 * must give the first run's output and modeled time bit for bit.
 */
TEST_F(ex, spare_executions_give_the_same_results)
{
	float *at = fmat(512, 512, 1), *bm = fmat(512, 512, 2);
	float *c1 = calloc(512 * 512, 4), *c2 = calloc(512 * 512, 4);
	struct vn_bind b1[3] = { { at, 1 << 20 }, { bm, 1 << 20 }, { c1, 1 << 20 } };
	struct vn_bind b2[3] = { { at, 1 << 20 }, { bm, 1 << 20 }, { c2, 1 << 20 } };
	struct vn_exec_status s1, s2, ss;
	struct vb b;
	int i;

	build_matmul(&b);
	ASSERT_EQ(0, run_b(self->c, &b, b1, &s1));
	ASSERT_EQ(VN_RES_OK, s1.result);
	for (i = 0; i < 3; i++) {
		build_small_ok(&b);
		ASSERT_EQ(0, run_vb(self->c, &b, &ss));
		EXPECT_EQ(VN_RES_OK, ss.result);
		memset(c2, 0, 1 << 20);
		build_matmul(&b);
		ASSERT_EQ(0, run_b(self->c, &b, b2, &s2));
		EXPECT_EQ(VN_RES_OK, s2.result);
		EXPECT_EQ(s1.model_ps, s2.model_ps);
		EXPECT_EQ(0, memcmp(c1, c2, 1 << 20));
	}
	free(at);
	free(bm);
	free(c1);
	free(c2);
}

TEST_HARNESS_MAIN
