// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Replayed, then analysed again (issue 29, docs/profiler.md "Replay"): a finding's
 * claimed gain is what its fixed twin saves when the fix is a program transformation,
 * and after a replayed fix the replayed program is analysed again, so that the class
 * and the then: line say what bounds it next. Kernels in the assembler, run on the host
 * backend (trn1's times).
 */
#include "vnp_kernel.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define EQ(a, b)	EXPECT_EQ((int64_t)(a), (int64_t)(b))
#define STR(s, sub)	EXPECT_NE(strstr((s), (sub)), NULL)

static const struct vnp_finding *finding(const struct kern *k, enum vnp_rule r)
{
	unsigned int i;

	for (i = 0; i < k->a.n; i++)
		if (k->a.f[i].rule == r)
			return &k->a.f[i];
	return NULL;
}

/*
 * Runs src and its fixed twin fix (name.vasm, name_fixed.vasm) and checks what a twin
 * test asks of its small-DMA finding: replayed, from the run's time, claiming to the
 * picosecond what the twin saves. The finding; the run in *kp, the twin's time in *twin.
 */
static const struct vnp_finding *replayed_as_twin(struct __test_metadata *_metadata,
						  const char *src, const char *fix,
						  const char *name, struct kern **kp,
						  uint64_t *twin)
{
	char file[64], fixed[64];
	const struct vnp_finding *f;
	struct kern *k;

	snprintf(file, sizeof(file), "%s.vasm", name);
	snprintf(fixed, sizeof(fixed), "%s_fixed.vasm", name);
	k = kern_run(src, file, 1, 0);
	*kp = k;
	*twin = twin_ps(fix, fixed);
	ASSERT_NE(k, NULL);
	ASSERT_NE(*twin, 0u);
	f = finding(k, VNP_RULE_SMALL_DMA);
	ASSERT_NE(f, NULL);
	printf("# %s: %s; %s; twin %llu ps\n", name, k->a.whole.label, f->gain,
	       (unsigned long long)*twin);
	fflush(stdout);
	ASSERT_TRUE(f->replayed);
	EQ(f->before_ps, k->model_ps);
	/* the claimed gain is the twin's saving, to the picosecond */
	EQ(f->before_ps - f->after_ps, k->model_ps - *twin);
	return f;
}

/*
 * Many small DMAs, each telling the consumer it landed: [128 x 128] fp32 loaded row by
 * row, 128 descriptors of 512 B that each signal s0, VectorE waiting for all 128. The
 * fixed twin loads it with one descriptor of 128 rows that signals once, VectorE waiting
 * for 1: merging must count the increments it removes in the waits, or it cannot replay
 * and the gain stays an estimate (the held-out small-dma case: 12.3 us claimed, 16.3 us
 * saved).
 */
static char *smalldma(int fixed, const char *after)
{
	struct text t = { 0 };
	unsigned int p;

	tx(&t, ".program \"smallsig\"\n.tensor x input fp32 [128, 128]\n"
	   ".tensor y output fp32 [128, 128]\n.queue 0\n.scope \"small/load\"\n");
	if (fixed)
		tx(&t, "\tdma sbuf[0; 0, 1]@0x0, x@0x0[0, 512], 1 x 128 x 512 signal s0\n");
	for (p = 0; !fixed && p < 128; p++)
		tx(&t, "\tdma sbuf[%u]@0x0, x@0x%x, 1 x 1 x 512 signal s0\n", p, p * 512);
	tx(&t, ".engine vector\n.scope \"small/scale\"\n"
	   "\ttensor_scalar mul sbuf.fp32[0:128]@0x8000[128], sbuf.fp32[0:128]@0x0[128], "
	   "2.0 wait s0 >= %u signal s1\n%s.queue 1\n.scope \"small/store\"\n"
	   "\tdma y@0x0[0, 512], sbuf[0; 0, 1]@0x8000, 1 x 128 x 512 wait s1 >= 1\n",
	   fixed ? 1 : 128, after);
	return t.s;
}

TEST(small_dma_signalling_each_row_is_replayed_as_its_twin)
{
	char *src = smalldma(0, ""), *fix = smalldma(1, "");
	const struct vnp_finding *f;
	struct kern *k;
	uint64_t twin;

	f = replayed_as_twin(_metadata, src, fix, "smallsig", &k, &twin);
	EQ(f->saved_ps, (double)(k->model_ps - twin));
	STR(f->gain, "merging 129 descriptors into 2: ");
	STR(f->gain, ", replayed");
	kern_free(k);
	free(src);
	free(fix);
}

/*
 * A wait past the merged run counts the increments merging removed: VectorE waits for
 * s0 >= 130 (two more rows, elsewhere, after the 128); merged, the 128 are one increment
 * and the two another, so it waits for 2, and the replay runs to the end instead of
 * hanging (a wait for 130 increments that never come) or being refused.
 */
TEST(merge_renumbers_waits_past_the_run)
{
	struct text t = { 0 };
	struct kern *k;
	const struct vnp_finding *f;
	unsigned int p;

	tx(&t, ".program \"smallsig2\"\n.tensor x input fp32 [130, 128]\n"
	   ".tensor y output fp32 [128, 128]\n.queue 0\n.scope \"small/load\"\n");
	for (p = 0; p < 128; p++)
		tx(&t, "\tdma sbuf[%u]@0x0, x@0x%x, 1 x 1 x 512 signal s0\n", p, p * 512);
	/* two rows elsewhere: a new run (another step) */
	tx(&t, "\tdma sbuf[0]@0x4000, x@0x10000, 1 x 1 x 512 signal s0\n"
	   "\tdma sbuf[0]@0x6000, x@0x10200, 1 x 1 x 512 signal s0\n");
	tx(&t, ".engine vector\n.scope \"small/scale\"\n"
	   "\ttensor_scalar mul sbuf.fp32[0:128]@0x8000[128], sbuf.fp32[0:128]@0x0[128], "
	   "2.0 wait s0 >= 130 signal s1\n.queue 1\n.scope \"small/store\"\n"
	   "\tdma y@0x0[0, 512], sbuf[0; 0, 1]@0x8000, 1 x 128 x 512 wait s1 >= 1\n");
	k = kern_run(t.s, "smallsig2.vasm", 1, 0);
	ASSERT_NE(k, NULL);
	f = finding(k, VNP_RULE_SMALL_DMA);
	ASSERT_NE(f, NULL);
	printf("# smallsig2: %s\n", f->gain);
	ASSERT_TRUE(f->replayed);
	EXPECT_LT(f->after_ps, f->before_ps);
	kern_free(k);
	free(t.s);
}

/*
 * Two tensors loaded row by row, interleaved (x row i, w row i, ...) on q0: 256
 * descriptors of 512 B, the last signalling. No two consecutive descriptors advance by
 * one step, but each tensor's rows do: merging makes them two descriptors, x's then w's
 * (neither writes where the other reads or writes), which is the fixed twin.
 */
static char *interleaved(int fixed)
{
	struct text t = { 0 };
	unsigned int p;

	tx(&t, ".program \"inter\"\n.tensor x input fp32 [128, 128]\n"
	   ".tensor w input fp32 [128, 128]\n.tensor y output fp32 [128, 128]\n.queue 0\n"
	   ".scope \"inter/load\"\n");
	if (fixed)
		tx(&t, "\tdma sbuf[0; 0, 1]@0x0, x@0x0[0, 512], 1 x 128 x 512\n"
		   "\tdma sbuf[0; 0, 1]@0x200, w@0x0[0, 512], 1 x 128 x 512 signal s0\n");
	for (p = 0; !fixed && p < 128; p++)
		tx(&t, "\tdma sbuf[%u]@0x0, x@0x%x, 1 x 1 x 512\n"
		   "\tdma sbuf[%u]@0x200, w@0x%x, 1 x 1 x 512%s\n", p, p * 512, p, p * 512,
		   p == 127 ? " signal s0" : "");
	tx(&t, ".engine vector\n.scope \"inter/add\"\n"
	   "\ttensor_tensor add sbuf.fp32[0:128]@0x8000[128], sbuf.fp32[0:128]@0x0[128], "
	   "sbuf.fp32[0:128]@0x200[128] wait s0 >= 1 signal s1\n.queue 1\n"
	   ".scope \"inter/store\"\n"
	   "\tdma y@0x0[0, 512], sbuf[0; 0, 1]@0x8000, 1 x 128 x 512 wait s1 >= 1\n");
	return t.s;
}

TEST(small_dma_interleaved_rows_are_replayed_as_their_twin)
{
	char *src = interleaved(0), *fix = interleaved(1);
	const struct vnp_finding *f;
	struct kern *k;
	uint64_t twin;

	f = replayed_as_twin(_metadata, src, fix, "inter", &k, &twin);
	STR(f->gain, "merging 257 descriptors into 3: ");
	kern_free(k);
	free(src);
	free(fix);
}

/*
 * Interleaved rows that overlap (w's row i lands where x's row i + 1 goes, which then
 * overwrites it) cannot be reordered: x's rows all first would leave w's on top. No
 * merge: the gain stays an estimate that says why.
 */
TEST(interleaved_rows_that_overlap_are_not_reordered)
{
	struct text t = { 0 };
	struct kern *k;
	const struct vnp_finding *f;
	unsigned int p;

	tx(&t, ".program \"inter2\"\n.tensor x input fp32 [128, 128]\n"
	   ".tensor w input fp32 [128, 128]\n.queue 0\n");
	for (p = 0; p < 127; p++)
		tx(&t, "\tdma sbuf[%u]@0x0, x@0x%x, 1 x 1 x 512\n"
		   "\tdma sbuf[%u]@0x0, w@0x%x, 1 x 1 x 512%s\n", p, p * 512, p + 1, p * 512,
		   p == 126 ? " signal s0" : "");
	tx(&t, ".engine vector\n\ttensor_scalar mul sbuf.fp32[0:128]@0x8000[128], "
	   "sbuf.fp32[0:128]@0x0[128], 2.0 wait s0 >= 1\n");
	k = kern_run(t.s, "inter2.vasm", 1, 0);
	ASSERT_NE(k, NULL);
	f = finding(k, VNP_RULE_SMALL_DMA);
	ASSERT_NE(f, NULL);
	printf("# inter2: %s\n", f->gain);
	fflush(stdout);
	EXPECT_FALSE(f->replayed);
	STR(f->gain, "estimate: ");
	STR(f->gain, "not replayed: no run of descriptors advances by a constant step");
	kern_free(k);
	free(t.s);
}

/*
 * The same rows and, after the scale, eight VectorE instructions of 2890 elements a
 * partition (about 2.3 us each): VectorE is busy about 60% of the time, so the class is
 * compute-bound on VectorE while the first finding merges q0's descriptors. The replayed
 * program, analysed again, is VectorE's even more: the class says what it would be after
 * the fix, and the then: line comes from that second analysis, not from this profile.
 */
static const char vector_work[] =
	"\ttensor_scalar mul sbuf.fp32[0:128]@0x10000[2890], sbuf.fp32[0:128]@0x10000[2890], 2.0\n"
	"\ttensor_scalar mul sbuf.fp32[0:128]@0x10000[2890], sbuf.fp32[0:128]@0x10000[2890], 2.0\n"
	"\ttensor_scalar mul sbuf.fp32[0:128]@0x10000[2890], sbuf.fp32[0:128]@0x10000[2890], 2.0\n"
	"\ttensor_scalar mul sbuf.fp32[0:128]@0x10000[2890], sbuf.fp32[0:128]@0x10000[2890], 2.0\n"
	"\ttensor_scalar mul sbuf.fp32[0:128]@0x10000[2890], sbuf.fp32[0:128]@0x10000[2890], 2.0\n"
	"\ttensor_scalar mul sbuf.fp32[0:128]@0x10000[2890], sbuf.fp32[0:128]@0x10000[2890], 2.0\n"
	"\ttensor_scalar mul sbuf.fp32[0:128]@0x10000[2890], sbuf.fp32[0:128]@0x10000[2890], 2.0\n"
	"\ttensor_scalar mul sbuf.fp32[0:128]@0x10000[2890], sbuf.fp32[0:128]@0x10000[2890], 2.0\n";

TEST(after_the_replayed_fix_the_program_is_analysed_again)
{
	char *src = smalldma(0, vector_work), *fix = smalldma(1, vector_work), *txt;
	struct kern *k = kern_run(src, "smallvec.vasm", 1, 0), *twin;
	const struct vnp_finding *f;

	ASSERT_NE(k, NULL);
	twin = kern_run(fix, "smallvec_fixed.vasm", 1, VNP_ANALYZE_NO_REPLAY);
	ASSERT_NE(twin, NULL);
	printf("# smallvec: %s; %s\n# then: %s\n# twin: %s\n", k->a.whole.label,
	       k->a.whole.why, k->a.next, twin->a.whole.label);
	fflush(stdout);
	EQ(k->a.whole.cls, VNP_CLASS_COMPUTE);
	EQ(k->a.whole.unit, VNEURON_ENGINE_VECTOR);
	ASSERT_GT(k->a.n, 0u);
	f = &k->a.f[0];
	EQ(f->rule, VNP_RULE_SMALL_DMA);
	ASSERT_TRUE(f->replayed);
	/* the second analysis is the fixed twin's own */
	EQ(f->after_ps, twin->model_ps);
	EQ(f->then.cls, twin->a.whole.cls);
	EXPECT_STREQ(f->then.label, twin->a.whole.label);
	EQ(f->then.cls, VNP_CLASS_COMPUTE);
	EQ(f->then.unit, VNEURON_ENGINE_VECTOR);
	STR(f->then.fix, "merging 129 descriptors into 2");
	/* the class says what it would be; the then: line is the replayed program's */
	STR(k->a.whole.why, "; compute-bound now; with merging 129 descriptors into 2 it "
	    "would be compute-bound (");
	STR(k->a.next, "with merging 129 descriptors into 2 (the first finding, replayed): "
	    "compute-bound (");
	STR(k->a.next, "on its critical path VectorE, ");
	EXPECT_NE(strstr(k->a.next, twin->a.whole.label), NULL);
	txt = kern_summary(k, 0);
	ASSERT_NE(txt, NULL);
	STR(txt, "  then: with merging 129 descriptors into 2 (the first finding, replayed)");
	/* which gains are replayed and which estimated */
	STR(txt, "gain replayed, ");
	STR(txt, "replayed, 0 estimated)");
	free(txt);
	txt = kern_summary(k, 1);
	ASSERT_NE(txt, NULL);
	STR(txt, "\"then\":{\"class\":\"compute-bound\",\"class_label\":\"compute-bound (");
	STR(txt, "\"fix\":\"merging 129 descriptors into 2\",\"busiest\":\"VectorE\"");
	STR(txt, "\"next_bound\":\"with merging 129 descriptors into 2 (the first finding, "
	    "replayed): compute-bound (");
	free(txt);
	kern_free(twin);
	kern_free(k);
	free(src);
	free(fix);
}

TEST_HARNESS_MAIN
