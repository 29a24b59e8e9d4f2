// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * One verdict (issue 29, docs/profiler.md "One verdict"): the class agrees with the first
 * finding or says why not, and no finding points at a finding that is not there. Each
 * kernel is written in the assembler, run on the host backend and analyzed (trn1's
 * times, test_verdict.c's header).
 */
#include <sys/wait.h>

#include "vnp_kernel.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define EQ(a, b)	EXPECT_EQ((int64_t)(a), (int64_t)(b))
#define STR(s, sub)	EXPECT_NE(strstr((s), (sub)), NULL)

/* No finding names a finding that is not printed: every symptom has its cause. */
static int dangling(const struct kern *k)
{
	unsigned int i;

	for (i = 0; i < k->a.n; i++)
		if (strstr(k->a.f[i].gain, "the finding about"))
			return 1;
	return 0;
}

/*
 * The exp kernel's shape: a load of 64 KiB on q0, one exp on ScalarE, the store on q1,
 * each waiting for the one before. Each queue is busy under half the time (so no unit
 * is saturated), but the queues are 96% of the critical path at 7% of HBM each: the
 * first finding spreads them, and the class says dma-queue-bound, not latency-bound.
 */
TEST(serial_queues_class_is_the_first_finding)
{
	struct text t = { 0 };
	struct kern *k;

	tx(&t, ".program \"serial\"\n.tensor x input fp32 [128, 128]\n"
	   ".tensor y output fp32 [128, 128]\n.queue 0\n.scope \"serial/load\"\n"
	   "\tdma sbuf[0; 0, 1]@0x0, x@0x0[0, 512], 1 x 128 x 512 signal s0\n"
	   ".engine scalar\n.scope \"serial/exp\"\n"
	   "\tactivate exp sbuf.fp32[0:128]@0x0[128], sbuf.fp32[0:128]@0x0[128], 1.0, 0.0 "
	   "wait s0 >= 1 signal s1\n"
	   ".queue 1\n.scope \"serial/store\"\n"
	   "\tdma y@0x0[0, 512], sbuf[0; 0, 1]@0x0, 1 x 128 x 512 wait s1 >= 1\n");
	k = kern_run(t.s, "serial.vasm", 1, 0);
	ASSERT_NE(k, NULL);
	ASSERT_GT(k->a.n, 0u);
	EXPECT_LT(k->m.queue[0].active_ps * 2, k->m.core_ps);
	EQ(k->a.f[0].rule, VNP_RULE_DMA_QUEUE_BOUND);
	EXPECT_TRUE(k->a.f[0].replayed);
	EQ(k->a.whole.cls, VNP_CLASS_DMA_QUEUE);
	STR(k->a.whole.label, "DMA-queue-bound (the DMA queues are ");
	STR(k->a.whole.why, "of the critical path one after another");
	EXPECT_EQ(strstr(k->a.whole.why, "idle gaps"), NULL);
	EXPECT_FALSE(dangling(k));
	printf("# serial: %s; first: %s; %s\n", k->a.whole.label,
	       vnp_rule_id(k->a.f[0].rule), k->a.f[0].gain);
	fflush(stdout);
	kern_free(k);
	free(t.s);
}

/*
 * HBM near its peak: 16 queues each load 64 KiB at once (each at its share, 410 GB/s /
 * 16), q0 a little more after them, while VectorE works 88% of the time. q0 is the
 * busiest unit, but the bytes move at 85% of HBM's bandwidth: more queues cannot help,
 * so the class is memory-bound, not dma-queue-bound.
 */
TEST(hbm_near_peak_is_memory_bound)
{
	struct text t = { 0 };
	struct kern *k;
	unsigned int q;

	tx(&t, ".program \"hbm\"\n.tensor x input fp32 [16, 128, 128]\n"
	   ".tensor z input fp32 [128, 8]\n");
	for (q = 0; q < 16; q++)
		tx(&t, ".queue %u\n\tdma sbuf[0; 0, 1]@0x%x, x@0x%x[0, 512], 1 x 128 x 512\n", q,
		   q * 512, q * 65536);
	tx(&t, ".queue 0\n\tdma sbuf[0; 0, 1]@0x2000, z@0x0[0, 32], 1 x 128 x 32\n");
	tx(&t, ".engine vector\n\ttensor_scalar mul sbuf.fp32[0:128]@0x4000[2890], "
	   "sbuf.fp32[0:128]@0x8000[2890], 2.0\n");
	k = kern_run(t.s, "hbm.vasm", 1, 0);
	ASSERT_NE(k, NULL);
	printf("# hbm: %s; mbu %.1f%%, VectorE %.1f%%, q0 %.1f%%\n", k->a.whole.label,
	       100 * k->m.mbu, vnp_pct(k->m.unit[1].active_ps, k->m.core_ps),
	       vnp_pct(k->m.queue[0].active_ps, k->m.core_ps));
	fflush(stdout);
	EXPECT_GT(k->m.mbu, 0.85);
	EXPECT_GT(k->m.queue[0].active_ps, k->m.unit[1].active_ps);
	EXPECT_GT((double)k->m.unit[1].active_ps, k->m.mbu * (double)k->m.core_ps);
	EQ(k->a.whole.cls, VNP_CLASS_MEMORY);
	EQ(k->a.whole.unit, VNP_BOUND_HBM);
	kern_free(k);
	free(t.s);
}

/*
 * The roofline of a kernel without TensorE work (issue 29): the exp kernel's shape has
 * only ScalarE flops (one a element, 128 x 128 of them) over 128 KiB of HBM traffic. Its
 * arithmetic intensity counts them (it was 0 from TensorE's alone), and each engine has
 * its roof from the model: VectorE 128 lanes at 1.12 GHz against HBM's 410 GB/s.
 */
TEST(roofline_counts_every_engine)
{
	struct text t = { 0 };
	struct kern *k;
	char *buf;

	tx(&t, ".program \"act\"\n.tensor x input fp32 [128, 128]\n"
	   ".tensor y output fp32 [128, 128]\n.queue 0\n"
	   "\tdma sbuf[0; 0, 1]@0x0, x@0x0[0, 512], 1 x 128 x 512 signal s0\n.engine scalar\n"
	   "\tactivate exp sbuf.fp32[0:128]@0x0[128], sbuf.fp32[0:128]@0x0[128], 1.0, 0.0 "
	   "wait s0 >= 1 signal s1\n.queue 1\n"
	   "\tdma y@0x0[0, 512], sbuf[0; 0, 1]@0x0, 1 x 128 x 512 wait s1 >= 1\n");
	k = kern_run(t.s, "act.vasm", 1, VNP_ANALYZE_NO_REPLAY);
	ASSERT_NE(k, NULL);
	EQ(k->m.hw_flops, 0);
	EQ(k->m.other_flops, 128 * 128);
	EXPECT_GT(k->m.ai, 0.124);
	EXPECT_LT(k->m.ai, 0.126);
	EXPECT_GT(k->m.eng_ridge[VNEURON_ENGINE_VECTOR], 128 * 1.12e9 / 410e9 - 1e-6);
	EXPECT_LT(k->m.eng_ridge[VNEURON_ENGINE_VECTOR], 128 * 1.12e9 / 410e9 + 1e-6);
	EXPECT_GT(k->m.eng_ridge[VNEURON_ENGINE_SCALAR], k->m.eng_ridge[VNEURON_ENGINE_VECTOR]);
	buf = kern_summary(k, 0);
	ASSERT_NE(buf, NULL);
	STR(buf, "arithmetic intensity 0.12 flop/B (all engines), ridge point 223.8 flop/B\n"
	    "  ridges, flop/B: TensorE 223.8, VectorE 0.35, ScalarE 0.44, GpSimdE 0.44\n");
	free(buf);
	kern_free(k);
	free(t.s);
}

/* The scope table keeps a long scope path's start (its outer layers), cut on the right. */
TEST(long_scope_cut_on_the_right)
{
	struct text t = { 0 };
	struct kern *k;
	char *buf;

	tx(&t, ".program \"long\"\n.tensor x input fp32 [128, 128]\n.queue 0\n"
	   ".scope \"model_encoder/layer_block_7/load_tiles\"\n"
	   "\tdma sbuf[0; 0, 1]@0x0, x@0x0[0, 512], 1 x 128 x 512\n");
	k = kern_run(t.s, "long.vasm", 1, VNP_ANALYZE_NO_REPLAY);
	ASSERT_NE(k, NULL);
	buf = kern_summary(k, 0);
	ASSERT_NE(buf, NULL);
	STR(buf, "  model_encoder/layer_block...  ");
	EXPECT_EQ(strstr(buf, "  der/layer_block_7/load_tiles"), NULL);
	free(buf);
	kern_free(k);
	free(t.s);
}

TEST_HARNESS_MAIN
