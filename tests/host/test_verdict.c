// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The analyzer's verdicts on real kernels (docs/profiler.md, "Analysis"): each kernel is
 * written in the assembler with one known bottleneck, run on the host backend, and
 * analyzed. Each test checks the class and the unit it names, that the root cause is
 * the first finding, and, where the fix is replayed, that the replayed time equals the
 * modeled time of the fixed twin written by hand. Times are the model's (trn1): a DMA
 * descriptor costs 64 ns + bytes / min(27 GiB/s, 410 GB/s / queues used), VectorE
 * 64 + F cycles at 1.12 GHz, ScalarE 64 + F cycles at 1.4 GHz, TensorE max(N, 64)
 * cycles at 2.8 GHz.
 */
#include <sys/wait.h>

#include "vnp_kernel.h"
#include "run_util.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define EQ(a, b)	EXPECT_EQ((int64_t)(a), (int64_t)(b))
#define STR(s, sub)	EXPECT_NE(strstr((s), (sub)), NULL)

static const struct vnp_finding *first(const struct kern *k)
{
	return k->a.n ? &k->a.f[0] : NULL;
}

static const struct vnp_finding *finding(const struct kern *k, enum vnp_rule r)
{
	unsigned int i;

	for (i = 0; i < k->a.n; i++)
		if (k->a.f[i].rule == r)
			return &k->a.f[i];
	return NULL;
}

/* A load of 64 KiB: [128 partitions x 512 B] at HBM offset off to SBUF byte sb. */
static void load64k(struct text *t, const char *tensor, unsigned int off, unsigned int sb,
		    const char *sync)
{
	tx(t, "\tdma sbuf[0; 0, 1]@0x%x, %s@0x%x[0, 512], 1 x 128 x 512%s\n", sb, tensor, off,
	   sync);
}

/*
 * DMA-queue-bound: 15 loads of 64 KiB on q0, a scale on VectorE, a store on q1. With
 * two queues in use, one queue moves 27 GiB/s (7% of HBM): q0 is busy 15 x 2.325 us of
 * the 35.4 us. The twin spreads the loads over q0, q2..q15, each with its own semaphore
 * and VectorE waiting for each (NOPs), which is what the replay does.
 */
static char *qbound(int fixed)
{
	static const unsigned int tq[15] = { 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	struct text t = { 0 };
	char sync[32];
	unsigned int i;

	tx(&t, ".program \"qbound\"\n.tensor x input fp32 [15, 128, 128]\n"
	   ".tensor y output fp32 [128, 128]\n");
	for (i = 0; i < 15; i++) {
		if (fixed)
			tx(&t, ".queue %u\n", tq[i]);
		else if (!i)
			tx(&t, ".queue 0\n");
		if (!i)
			tx(&t, ".scope \"qbound/load\"\n");
		snprintf(sync, sizeof(sync), " signal s%u", fixed ? 2 + i : 0);
		load64k(&t, "x", i * 65536, i * 512, sync);
	}
	tx(&t, ".engine vector\n.scope \"qbound/scale\"\n");
	for (i = 0; fixed && i < 14; i++)
		tx(&t, "\tnop wait s%u >= 1\n", 2 + i);
	tx(&t, "\ttensor_scalar mul sbuf.fp32[0:128]@0x8000[128], sbuf.fp32[0:128]@0x0[128], "
	   "2.0 wait %s signal s1\n", fixed ? "s16 >= 1" : "s0 >= 15");
	tx(&t, ".queue 1\n.scope \"qbound/store\"\n");
	tx(&t, "\tdma y@0x0[0, 512], sbuf[0; 0, 1]@0x8000, 1 x 128 x 512 wait s1 >= 1\n");
	return t.s;
}

TEST(dma_queue_bound)
{
	char *src = qbound(0), *fix = qbound(1);
	struct kern *k = kern_run(src, "qbound.vasm", 1, 0);
	const struct vnp_finding *f;
	uint64_t twin = twin_ps(fix, "qbound_fixed.vasm");

	ASSERT_NE(k, NULL);
	EQ(k->a.whole.cls, VNP_CLASS_DMA_QUEUE);
	EQ(k->a.whole.unit, VNEF_STREAM_DMA(0));
	STR(k->a.whole.label, "DMA-queue-bound (q0 ");
	STR(k->a.whole.label, "one queue is 7% of HBM");
	EXPECT_GT(k->a.whole.pct, 90);
	f = first(k);
	ASSERT_NE(f, NULL);
	EQ(f->rule, VNP_RULE_DMA_QUEUE_BOUND);
	/* the unrolled loads are one range of lines, with their scope */
	STR(f->advice, "qbound.vasm:6-20 in qbound/load (15 descriptors)");
	ASSERT_TRUE(f->replayed);
	EQ(f->before_ps, k->model_ps);
	EXPECT_GT((int64_t)twin, 0);
	EQ(f->after_ps, twin);
	EXPECT_LT(f->after_ps * 4, f->before_ps);
	STR(f->gain, "spreading q0's 15 descriptors over 15 queues: ");
	STR(f->gain, ", replayed");
	printf("# qbound: %s; first: %s; %s; twin %llu ps\n", k->a.whole.label,
	       vnp_rule_id(f->rule), f->gain, (unsigned long long)twin);
	fflush(stdout);
	kern_free(k);
	free(src);
	free(fix);
}

/*
 * Overhead-bound on a queue (small-dma): [128 x 128] fp32 loaded row by row, 128
 * descriptors of 512 B (64 ns fixed + 17.7 ns moving each: 78% fixed). The twin loads
 * it with one descriptor of 128 chunks, which is what merging gives.
 */
static char *smalldma(int fixed)
{
	struct text t = { 0 };
	unsigned int p;

	tx(&t, ".program \"smalldma\"\n.tensor x input fp32 [128, 128]\n"
	   ".tensor y output fp32 [128, 128]\n.queue 0\n.scope \"small/load\"\n");
	if (fixed)
		load64k(&t, "x", 0, 0, " signal s0");
	for (p = 0; !fixed && p < 128; p++)
		tx(&t, "\tdma sbuf[%u]@0x0, x@0x%x, 1 x 1 x 512%s\n", p, p * 512,
		   p == 127 ? " signal s0" : "");
	tx(&t, ".engine vector\n.scope \"small/scale\"\n"
	   "\ttensor_scalar mul sbuf.fp32[0:128]@0x8000[128], sbuf.fp32[0:128]@0x0[128], "
	   "2.0 wait s0 >= 1 signal s1\n.queue 1\n.scope \"small/store\"\n"
	   "\tdma y@0x0[0, 512], sbuf[0; 0, 1]@0x8000, 1 x 128 x 512 wait s1 >= 1\n");
	return t.s;
}

TEST(small_dma_overhead_bound)
{
	char *src = smalldma(0), *fix = smalldma(1);
	struct kern *k = kern_run(src, "small.vasm", 1, 0);
	const struct vnp_finding *f;
	uint64_t twin = twin_ps(fix, "small_fixed.vasm");

	ASSERT_NE(k, NULL);
	EQ(k->a.whole.cls, VNP_CLASS_OVERHEAD);
	EQ(k->a.whole.unit, VNEF_STREAM_DMA(0));
	STR(k->a.whole.label, "fixed descriptor costs are 78% of q0's time");
	f = first(k);
	ASSERT_NE(f, NULL);
	EQ(f->rule, VNP_RULE_SMALL_DMA);
	EXPECT_EQ(finding(k, VNP_RULE_DMA_QUEUE_BOUND), NULL);
	STR(f->advice, "small.vasm:6-133 in small/load (128 descriptors)");
	ASSERT_TRUE(f->replayed);
	EQ(f->before_ps, k->model_ps);
	EQ(f->after_ps, twin);
	STR(f->gain, "merging 129 descriptors into 2: ");
	printf("# smalldma: %s; first: %s; %s; twin %llu ps\n", k->a.whole.label,
	       vnp_rule_id(f->rule), f->gain, (unsigned long long)twin);
	fflush(stdout);
	kern_free(k);
	free(src);
	free(fix);
}

/*
 * Overhead-bound on an engine: 256 VectorE instructions of one element per partition
 * (65 cycles, 64 of them fixed) between a 128 KiB load and store. The twin scales the
 * whole row with one instruction.
 */
static char *overhead(int fixed)
{
	struct text t = { 0 };
	unsigned int i;

	tx(&t, ".program \"overhead\"\n.tensor x input fp32 [128, 256]\n"
	   ".tensor y output fp32 [128, 256]\n.queue 0\n.scope \"ovh/load\"\n"
	   "\tdma sbuf[0; 0, 1]@0x0, x@0x0[0, 1024], 1 x 128 x 1024 signal s0\n"
	   ".engine vector\n.scope \"ovh/scale\"\n");
	if (fixed)
		tx(&t, "\ttensor_scalar mul sbuf.fp32[0:128]@0x1000[256], "
		   "sbuf.fp32[0:128]@0x0[256], 2.0 wait s0 >= 1 signal s1\n");
	for (i = 0; !fixed && i < 256; i++)
		tx(&t, "\ttensor_scalar mul sbuf.fp32[0:128]@0x%x[1], sbuf.fp32[0:128]@0x%x[1], "
		   "2.0%s%s\n", 0x1000 + 4 * i, 4 * i, i ? "" : " wait s0 >= 1",
		   i == 255 ? " signal s1" : "");
	tx(&t, ".queue 1\n.scope \"ovh/store\"\n"
	   "\tdma y@0x0[0, 1024], sbuf[0; 0, 1]@0x1000, 1 x 128 x 1024 wait s1 >= 1\n");
	return t.s;
}

TEST(instruction_overhead_bound)
{
	char *src = overhead(0), *fix = overhead(1);
	struct kern *k = kern_run(src, "ovh.vasm", 1, 0);
	const struct vnp_finding *f;
	uint64_t twin = twin_ps(fix, "ovh_fixed.vasm");

	ASSERT_NE(k, NULL);
	EQ(k->a.whole.cls, VNP_CLASS_OVERHEAD);
	EQ(k->a.whole.unit, VNEURON_ENGINE_VECTOR);
	STR(k->a.whole.label, "fixed instruction costs are 98% of VectorE's time");
	f = first(k);
	ASSERT_NE(f, NULL);
	EQ(f->rule, VNP_RULE_INSTR_OVERHEAD);
	STR(f->advice, "ovh.vasm:9-264 in ovh/scale (256 instructions)");
	ASSERT_TRUE(f->replayed);
	EQ(f->before_ps, k->model_ps);
	EQ(f->after_ps, twin);
	STR(f->gain, "batching VectorE's 256 instructions into 1: ");
	printf("# overhead: %s; first: %s; %s; twin %llu ps\n", k->a.whole.label,
	       vnp_rule_id(f->rule), f->gain, (unsigned long long)twin);
	fflush(stdout);
	kern_free(k);
	free(src);
	free(fix);
}

/*
 * Repeated loads: four tiles each load the same 64 KiB of weights W again to the same
 * SBUF place, next to their own 64 KiB of x; VectorE adds them. W is read 4 times per
 * execution. Loading it once (the twin: W, then the four x tiles, the waits counting
 * one signal less for each W that went) is what the replay does.
 */
static char *reload(int fixed)
{
	struct text t = { 0 };
	unsigned int i, n = 0;

	tx(&t, ".program \"reload\"\n.tensor w input fp32 [128, 128]\n"
	   ".tensor x input fp32 [4, 128, 128]\n.tensor y output fp32 [4, 128, 128]\n"
	   ".queue 0\n.scope \"reload/load\"\n");
	for (i = 0; i < 4; i++) {
		if (!fixed || !i) {
			load64k(&t, "w", 0, 0, " signal s0");
			n++;
		}
		load64k(&t, "x", i * 65536, 0x1000 + i * 512, " signal s0");
		n++;
		tx(&t, ".engine vector\n.scope \"reload/add\"\n\ttensor_tensor add "
		   "sbuf.fp32[0:128]@0x%x[128], sbuf.fp32[0:128]@0x0[128], sbuf.fp32[0:128]@0x%x[128] "
		   "wait s0 >= %u signal s1\n.queue 0\n.scope \"reload/load\"\n", 0x2000 + i * 512,
		   0x1000 + i * 512, n);
	}
	tx(&t, ".queue 1\n.scope \"reload/store\"\n");
	for (i = 0; i < 4; i++)
		tx(&t, "\tdma y@0x%x[0, 512], sbuf[0; 0, 1]@0x%x, 1 x 128 x 512 wait s1 >= %u\n",
		   i * 65536, 0x2000 + i * 512, i + 1);
	return t.s;
}

TEST(repeated_load_replayed)
{
	char *src = reload(0), *fix = reload(1);
	struct kern *k = kern_run(src, "reload.vasm", 1, 0);
	uint64_t twin = twin_ps(fix, "reload_fixed.vasm");
	const struct vnp_finding *f;

	ASSERT_NE(k, NULL);
	f = finding(k, VNP_RULE_REPEATED_LOAD);
	ASSERT_NE(f, NULL);
	STR(f->evidence, "read 4.0 times per execution");
	STR(f->advice, "The reads of w are at reload.vasm:");
	ASSERT_TRUE(f->replayed);
	EQ(f->before_ps, k->model_ps);
	EXPECT_GT((int64_t)twin, 0);
	EQ(f->after_ps, twin);
	STR(f->gain, "loading once: 3 repeated descriptors removed: ");
	printf("# reload: %s; first: %s; repeated-load: %s; twin %llu ps\n", k->a.whole.label,
	       vnp_rule_id(first(k)->rule), f->gain, (unsigned long long)twin);
	fflush(stdout);
	kern_free(k);
	free(src);
	free(fix);
}

/* Compute-bound on ScalarE: 64 exps of [128 x 128] (137 ns each) between 64 KiB DMAs. */
TEST(compute_bound_scalar)
{
	struct text t = { 0 };
	struct kern *k;
	unsigned int i;

	tx(&t, ".program \"scalar\"\n.tensor x input fp32 [128, 128]\n"
	   ".tensor y output fp32 [128, 128]\n.queue 0\n");
	load64k(&t, "x", 0, 0, " signal s0");
	tx(&t, ".engine scalar\n");
	for (i = 0; i < 64; i++)
		tx(&t, "\tactivate exp sbuf.fp32[0:128]@0x0[128], sbuf.fp32[0:128]@0x0[128], "
		   "1.0, 0.0%s%s\n", i ? "" : " wait s0 >= 1", i == 63 ? " signal s1" : "");
	tx(&t, ".queue 1\n\tdma y@0x0[0, 512], sbuf[0; 0, 1]@0x0, 1 x 128 x 512 wait s1 >= 1\n");
	k = kern_run(t.s, "scalar.vasm", 1, 0);
	ASSERT_NE(k, NULL);
	EQ(k->a.whole.cls, VNP_CLASS_COMPUTE);
	EQ(k->a.whole.unit, VNEURON_ENGINE_SCALAR);
	STR(k->a.whole.label, "compute-bound (ScalarE 65% busy)");
	printf("# scalar: %s; first: %s\n", k->a.whole.label,
	       first(k) ? vnp_rule_id(first(k)->rule) : "none");
	fflush(stdout);
	kern_free(k);
	free(t.s);
}

/*
 * Memory-bound: 16 queues each copy 64 KiB HBM to HBM. Each byte is read and written,
 * so HBM carries 2 MiB; the model charges HBM to HBM bytes twice against the queue's
 * share (410 GB/s / 16 / 2), so mbu stays below 100%.
 */
TEST(memory_bound_hbm)
{
	struct text t = { 0 };
	struct kern *k;
	unsigned int q;

	tx(&t, ".program \"copy\"\n.tensor x input fp32 [16, 128, 128]\n"
	   ".tensor y output fp32 [16, 128, 128]\n");
	for (q = 0; q < 16; q++)
		tx(&t, ".queue %u\n\tdma y@0x%x[0, 512], x@0x%x[0, 512], 1 x 128 x 512\n", q,
		   q * 65536, q * 65536);
	k = kern_run(t.s, "copy.vasm", 1, 0);
	ASSERT_NE(k, NULL);
	EQ(k->m.hbm_read + k->m.hbm_write, 2 * 16 * 65536);
	EXPECT_LT(k->m.mbu, 1.0);
	EXPECT_GT(k->m.mbu, 0.95);
	EQ(k->a.whole.cls, VNP_CLASS_MEMORY);
	EQ(k->a.whole.unit, VNP_BOUND_HBM);
	STR(k->a.whole.label, "memory-bound (HBM 99%)");
	EQ(k->a.n, 0);
	printf("# copy: %s, mbu %.1f%%\n", k->a.whole.label, 100 * k->m.mbu);
	fflush(stdout);
	kern_free(k);
	free(t.s);
}

/*
 * Latency-bound: load, VectorE, ScalarE, store, each waiting for the one before; no
 * unit is busy over 30%. The critical path is the chain, crossing three semaphores.
 */
TEST(latency_bound_chain)
{
	struct kern *k = kern_run(vnp_chain, "chain.vasm", 1, 0);
	const struct vnp_critpath *cp;
	unsigned int s;

	ASSERT_NE(k, NULL);
	cp = &k->a.cp;
	EQ(k->a.whole.cls, VNP_CLASS_LATENCY);
	/* the path is all four entries, end to end */
	EQ(cp->nev, 4);
	EQ(cp->sem_hops, 3);
	EQ(cp->len_ps, k->model_ps);
	for (s = 0; s < VNEF_STREAMS; s++) {
		unsigned int t = VNEF_STREAM_DMA(0) == s || VNEF_STREAM_DMA(1) == s ||
				 s == VNEURON_ENGINE_VECTOR || s == VNEURON_ENGINE_SCALAR;

		EQ(cp->stream_ps[s] > 0, t);
	}
	EQ(cp->stream_ps[VNEURON_ENGINE_VECTOR], 1885714);	/* 2112 cycles at 1.12 GHz */
	EQ(cp->stream_ps[VNEURON_ENGINE_SCALAR], 1508571);	/* 2112 cycles at 1.4 GHz */
	ASSERT_NE(first(k), NULL);
	/* loads, compute, stores in a row: pipelining them is the biggest saving */
	EQ(first(k)->rule, VNP_RULE_DMA_NO_OVERLAP);
	EXPECT_NE(finding(k, VNP_RULE_ENGINES_NO_OVERLAP), NULL);
	printf("# chain: %s; first: %s; %s\n", k->a.whole.label, vnp_rule_id(first(k)->rule),
	       first(k)->gain);
	fflush(stdout);
	kern_free(k);
}

/*
 * The chain's Perfetto trace, decoded by protoc against the project's schema (and the
 * reference one when it is there): three semaphore flows, each from the signalling
 * slice to the waiting one, and the four slices of the critical path marked.
 */
TEST(perfetto_flows_and_critical_path)
{
	struct kern *k = kern_run(vnp_chain, "chain.vasm", 1, VNP_ANALYZE_NO_REPLAY);
	struct vnp_view v;
	char path[] = "/tmp/vnp-flows-XXXXXX", cmd[512], line[256];
	unsigned int flows = 0, ends = 0, crit = 0, i;
	int fd;
	FILE *f;

	ASSERT_NE(k, NULL);
	v = (struct vnp_view){ .tl = &k->tl, .m = &k->m, .a = &k->a };
	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	f = fdopen(fd, "wb");
	ASSERT_EQ(vnp_perfetto(f, &v), 0);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "protoc -Itests/perfetto --decode=perfetto.protos.Trace "
		 "tests/perfetto/trace.proto < %s", path);
	f = popen(cmd, "r");
	ASSERT_NE(f, NULL);
	while (fgets(line, sizeof(line), f)) {
		flows += !!strstr(line, " flow_ids: ") && !strstr(line, "terminating");
		ends += !!strstr(line, "terminating_flow_ids: ");
		/* the annotation name's interned id is 19 (A_CRIT) */
		crit += !!strstr(line, "name_iid: 19");
	}
	EQ(pclose(f), 0);
	EQ(flows, 3);
	EQ(ends, 3);
	EQ(crit, 4);
	/* each flow id is a waiter's: the waiters are the last three of the chain */
	for (i = 0; i < 3; i++)
		EQ(vnp_ev_signaller(&k->tl, k->a.cp.ev[i + 1]), k->a.cp.ev[i]);
	unlink(path);
	kern_free(k);
}

/*
 * Compute-bound on TensorE: 100 matmuls of [128 x 512] bf16 (183 ns each); the store
 * waits 91% of the time for ScalarE's copy, which waits for TensorE. The wait is
 * TensorE's symptom: folded into the class, not a finding of its own.
 */
TEST(compute_bound_tensor_folds_waits)
{
	struct text t = { 0 };
	struct kern *k;
	unsigned int i;

	tx(&t, ".program \"mm\"\n.tensor a input fp32 [128, 64]\n.tensor b input bf16 [128, 512]\n"
	   ".tensor c output fp32 [128, 128]\n.queue 0\n"
	   "\tdma sbuf[0; 0, 1]@0x0, a@0x0[0, 256], 1 x 128 x 256 signal s0\n.queue 1\n"
	   "\tdma sbuf[0; 0, 1]@0x1000, b@0x0[0, 1024], 1 x 128 x 1024 signal s1\n"
	   ".engine tensor\n.scope \"mm/matmul\"\n"
	   "\tload_stationary sbuf.bf16[0:128]@0x0[128] wait s0 >= 1\n");
	for (i = 0; i < 100; i++)
		tx(&t, "\tmultiply_moving psum.fp32[0:128]@0x0[512], sbuf.bf16[0:128]@0x1000[512]%s%s\n",
		   i ? "" : " wait s1 >= 1", i == 99 ? " signal s2" : "");
	tx(&t, ".engine scalar\n.scope \"mm/evict\"\n"
	   "\tcopy sbuf.fp32[0:128]@0x4000[512], psum.fp32[0:128]@0x0[512] wait s2 >= 1 signal s3\n"
	   ".queue 2\n.scope \"mm/store\"\n"
	   "\tdma c@0x0[0, 512], sbuf[0; 0, 1]@0x4000, 1 x 128 x 512 wait s3 >= 1\n");
	k = kern_run(t.s, "mm.vasm", 1, 0);
	ASSERT_NE(k, NULL);
	EQ(k->a.whole.cls, VNP_CLASS_COMPUTE);
	EQ(k->a.whole.unit, VNEURON_ENGINE_TENSOR);
	/*
	 * TensorE's own wait for its loads is the loads' symptom: it joins the finding
	 * about them (one verdict: no symptom left without its cause)
	 */
	for (i = 0; i < k->a.n; i++) {
		EXPECT_EQ(strstr(k->a.f[i].title, "DMA queues"), NULL);
		EXPECT_NE((int)k->a.f[i].rule, (int)VNP_RULE_SEM_WAIT);
	}
	ASSERT_NE(finding(k, VNP_RULE_DMA_NO_OVERLAP), NULL);
	STR(finding(k, VNP_RULE_DMA_NO_OVERLAP)->evidence, "Waits it causes: TensorE waits on "
	    "semaphores");
	STR(k->a.folded, "DMA queues (most: DMA q2) waits");
	STR(k->a.folded, "behind TensorE, the bound unit");
	printf("# mm: %s; first: %s; folded: %s\n", k->a.whole.label,
	       first(k) ? vnp_rule_id(first(k)->rule) : "none", k->a.folded);
	fflush(stdout);
	kern_free(k);
	free(t.s);
}

/*
 * Transposes: A [128 x 128] fp32 is transposed on TensorE four times (512 cycles each)
 * and VectorE copies each result out of PSUM before it is used as a stationary. The
 * finding counts the copies with the transposes and warns off a DMA transpose: the twin
 * that loads A transposed by a DMA access pattern (one 4-byte chunk per element, each
 * charged 64 bytes) is far slower, the one that loads A already transposed is faster.
 */
enum tp_variant { TP_TENSOR, TP_DMA, TP_LAYOUT };

static char *transposes(enum tp_variant v)
{
	struct text t = { 0 };
	unsigned int i;

	tx(&t, ".program \"tp\"\n.tensor a input fp32 [128, 128]\n.tensor b input bf16 [128, 128]\n"
	   ".tensor c output fp32 [128, 128]\n.queue 0\n.scope \"tp/load\"\n");
	if (v == TP_DMA)
		tx(&t, "\tdma sbuf[0; 1, 0]@0x1000[0, 4], a@0x0[4, 512], 128 x 128 x 4 signal s0\n");
	else
		load64k(&t, "a", 0, v == TP_LAYOUT ? 0x1000 : 0, " signal s0");
	tx(&t, ".queue 1\n\tdma sbuf[0; 0, 1]@0x800, b@0x0[0, 256], 1 x 128 x 256 signal s1\n"
	   ".engine tensor\n.scope \"tp/transpose\"\n");
	for (i = 0; v == TP_TENSOR && i < 4; i++)
		tx(&t, "\ttranspose psum.fp32[0:128]@0x%x[128], sbuf.fp32[0:128]@0x0[128]%s signal s2\n",
		   i * 512, i ? "" : " wait s0 >= 1");
	tx(&t, ".scope \"tp/matmul\"\n");
	for (i = 0; i < 4; i++)
		tx(&t, "\tload_stationary sbuf.fp32[0:128]@0x%x[128] wait %s\n"
		   "\tmultiply_moving psum.fp32[0:128]@0x1000[128], sbuf.bf16[0:128]@0x800[128]%s%s\n",
		   0x1000 + (v == TP_TENSOR ? i * 512 : 0), v == TP_TENSOR ? (i == 0 ? "s3 >= 1" :
		   i == 1 ? "s3 >= 2" : i == 2 ? "s3 >= 3" : "s3 >= 4") : "s0 >= 1",
		   i ? "" : (v == TP_TENSOR ? " wait s1 >= 1" : ""), i == 3 ? " signal s4" : "");
	tx(&t, ".engine vector\n.scope \"tp/transpose\"\n");
	for (i = 0; v == TP_TENSOR && i < 4; i++)
		tx(&t, "\tcopy sbuf.fp32[0:128]@0x%x[128], psum.fp32[0:128]@0x%x[128] wait s2 >= %u "
		   "signal s3\n", 0x1000 + i * 512, i * 512, i + 1);
	tx(&t, ".scope \"tp/evict\"\n\tcopy sbuf.fp32[0:128]@0x2000[128], psum.fp32[0:128]@0x1000[128] "
	   "wait s4 >= 1 signal s3\n.queue 2\n.scope \"tp/store\"\n"
	   "\tdma c@0x0[0, 512], sbuf[0; 0, 1]@0x2000, 1 x 128 x 512 wait s3 >= %u\n",
	   v == TP_TENSOR ? 5 : 1);
	return t.s;
}

TEST(transposes_and_their_copies)
{
	char *src = transposes(TP_TENSOR), *dma = transposes(TP_DMA), *lay = transposes(TP_LAYOUT);
	struct kern *k = kern_run(src, "tp.vasm", 1, 0);
	uint64_t dma_ps = twin_ps(dma, "tp_dma.vasm"), lay_ps = twin_ps(lay, "tp_layout.vasm");
	const struct vnp_finding *f;

	ASSERT_NE(k, NULL);
	f = finding(k, VNP_RULE_TRANSPOSE_FLOPS);
	ASSERT_NE(f, NULL);
	STR(f->evidence, "4 TRANSPOSE instructions");
	STR(f->evidence, "plus 4 copies of their results out of PSUM");
	STR(f->advice, "Do not transpose with a DMA access pattern");
	STR(f->advice, "tp.vasm:");
	/* what the advice says, the model confirms: DMA slower, the layout faster */
	EXPECT_GT((int64_t)dma_ps, (int64_t)(5 * k->model_ps));
	EXPECT_GT((int64_t)lay_ps, 0);
	EXPECT_LT(lay_ps, k->model_ps);
	/* here the transposes and copies are all on the path: the estimate is exact */
	EQ(f->saved_ps, k->model_ps - lay_ps);
	EXPECT_FALSE(f->replayed);
	printf("# transposes: %s; first: %s; %s; DMA-transposed twin %llu ps, pre-transposed "
	       "twin %llu ps, kernel %llu ps\n", k->a.whole.label, vnp_rule_id(first(k)->rule),
	       f->gain, (unsigned long long)dma_ps, (unsigned long long)lay_ps,
	       (unsigned long long)k->model_ps);
	fflush(stdout);
	kern_free(k);
	free(src);
	free(dma);
	free(lay);
}

/*
 * Balanced: 16 tiles, each loaded on its own queue, scaled on VectorE (1.886 us) and
 * stored on the same queue; loads all run at once, stores overlap the next tiles'
 * work. VectorE is the bound unit and no rule finds anything to fix.
 */
TEST(balanced_fires_nothing)
{
	struct text t = { 0 };
	struct kern *k, *k3;
	unsigned int i;

	tx(&t, ".program \"balanced\"\n.tensor x input fp32 [16, 128, 128]\n"
	   ".tensor y output fp32 [16, 128, 128]\n.engine vector\n.scope \"bal/scale\"\n");
	for (i = 0; i < 16; i++)
		tx(&t, "\ttensor_scalar mul sbuf.fp32[0:128]@0x%x[2048], sbuf.fp32[0:128]@0x%x[2048], "
		   "2.0 wait s%u >= 1 signal s20\n", 0x10000 + (i % 2) * 0x2000, i * 512, i);
	for (i = 0; i < 16; i++) {
		tx(&t, ".queue %u\n.scope \"bal/load\"\n", i);
		tx(&t, "\tdma sbuf[0; 0, 1]@0x%x, x@0x%x[0, 512], 1 x 128 x 512 signal s%u\n",
		   i * 512, i * 65536, i);
		tx(&t, ".scope \"bal/store\"\n\tdma y@0x%x[0, 512], sbuf[0; 0, 1]@0x%x, "
		   "1 x 128 x 512 wait s20 >= %u\n", i * 65536, 0x10000 + (i % 2) * 0x2000, i + 1);
	}
	k = kern_run(t.s, "bal.vasm", 1, 0);
	ASSERT_NE(k, NULL);
	EQ(k->a.whole.cls, VNP_CLASS_COMPUTE);
	EQ(k->a.whole.unit, VNEURON_ENGINE_VECTOR);
	EQ(k->a.n, 0);
	for (i = 0; i < k->a.n; i++)
		printf("# unexpected: %s: %s\n", vnp_rule_id(k->a.f[i].rule), k->a.f[i].title);
	fflush(stdout);
	/* three executions: the same classes for the execution and every scope */
	k3 = kern_run(t.s, "bal.vasm", 3, VNP_ANALYZE_NO_REPLAY);
	ASSERT_NE(k3, NULL);
	EQ(k3->m.nexec, 3);
	EQ(k3->a.whole.cls, k->a.whole.cls);
	EQ(k3->a.whole.unit, k->a.whole.unit);
	ASSERT_EQ(k3->m.nscopes, k->m.nscopes);
	for (i = 0; i <= k->m.nscopes; i++) {
		EQ(k3->a.scope[i].cls, k->a.scope[i].cls);
		EQ(k3->a.scope[i].unit, k->a.scope[i].unit);
		EQ(k3->m.scope[i].span_ps, 3 * k->m.scope[i].span_ps);
	}
	EQ(k3->a.cp.len_ps, 3 * k->a.cp.len_ps);
	EQ(k3->a.n, 0);
	printf("# balanced: %s; findings: %u\n", k->a.whole.label, k->a.n);
	fflush(stdout);
	kern_free(k);
	kern_free(k3);
	free(t.s);
}

/* Runs build/bin/vneuron-profile with args; its exit status, stdout+stderr in out. */
static int run_profiler(char *out, size_t len, const char *args)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "build/bin/vneuron-profile %s", args);
	return run_out(cmd, out, len);
}

/*
 * diff: the queue-bound kernel (A) against its fixed twin (B), two different programs.
 * B is 85% faster, so --fail-on passes A -> B and fails B -> A (a known regression).
 */
TEST(diff_gates_a_regression)
{
	char dir[] = "/tmp/vnp-diff-XXXXXX", args[512], *out = malloc(65536);
	char *slow = qbound(0), *fast = qbound(1);

	ASSERT_NE(mkdtemp(dir), NULL);
	ASSERT_EQ(kern_save(slow, dir, "slow"), 0);
	ASSERT_EQ(kern_save(fast, dir, "fast"), 0);
	snprintf(args, sizeof(args), "diff --fail-on 5 %s/slow.vntf %s/fast.vntf", dir, dir);
	EQ(run_profiler(out, 65536, args), 0);
	if (getenv("VNP_DUMP"))
		printf("%s", out), fflush(stdout);
	STR(out, "total time                        37.364 us     5.414 us  -31.950 us   -85.5%");
	STR(out, "class A: DMA-queue-bound (q0 93% busy, one queue is 7% of HBM)");
	STR(out, "DMA q2                             0.000 us     2.622 us   +2.622 us      new");
	STR(out, "qbound/load");
	STR(out, "dma-queue-bound");
	STR(out, "fixed in B");
	STR(out, "no regression: B is -85.51% against A per execution (--fail-on 5)");
	snprintf(args, sizeof(args), "diff --fail-on 5 %s/fast.vntf %s/slow.vntf", dir, dir);
	EQ(run_profiler(out, 65536, args), 4);
	STR(out, "REGRESSION: B is 590.09% slower than A per execution (--fail-on 5)");
	STR(out, "new in B");
	/* the same profile: no change at all */
	snprintf(args, sizeof(args), "diff --fail-on 0 -n %s/fast.vnef %s/fast.vntf %s/fast.vntf",
		 dir, dir, dir);
	EQ(run_profiler(out, 65536, args), 0);
	STR(out, "+0.00% against A");
	/* usage */
	EQ(run_profiler(out, 65536, "diff --fail-on -3 a.vntf b.vntf"), 2);
	EQ(run_profiler(out, 65536, "diff a.vntf"), 2);
	EQ(run_profiler(out, 65536, "diff --help"), 0);
	STR(out, "--fail-on PCT");
	snprintf(args, sizeof(args), "rm -rf %s", dir);
	EQ(system(args), 0);
	free(out);
	free(slow);
	free(fast);
}

TEST_HARNESS_MAIN
