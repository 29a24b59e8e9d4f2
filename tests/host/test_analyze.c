// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The analyzer's rules and classes (docs/profiler.md): for each rule a small profile
 * built to show exactly that problem, which must fire that rule and no other, and a
 * fixed version that fires nothing. Times in ns.
 */
#include <math.h>
#include <stdio.h>

#include "vnp_synth.h"
#include "../../profiler/analysis/rule.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define EQ(a, b)	EXPECT_EQ((int64_t)(a), (int64_t)(b))
#define AEQ(a, b)	ASSERT_EQ((int64_t)(a), (int64_t)(b))
#define BIT(r)		(1u << (r))

enum variant {
	GOOD,
	ENGINES_SERIAL,
	DMA_FIRST,
	SMALL_DMA,
	RELOAD,
	TENSOR_IDLE,
	TRANSPOSES,
	SEM_WAITS,
};

/*
 * The fixed kernel: TensorE busy [0,1000) with matmuls, VectorE [50,950) alongside it,
 * ten 64 KiB loads from distinct HBM ranges on q0 spread over [0,1000). Each variant
 * breaks one thing.
 */
static struct synth *profile(enum variant v)
{
	struct synth *s = synth_new();
	unsigned int i;

	synth_exec(s, 0, 1000);
	switch (v) {
	case ENGINES_SERIAL:
		/* VectorE then ScalarE, never together; TensorE unused */
		for (i = 0; i < 5; i++)
			synth_insn(s, 1, VNEF_OP_TENSOR_TENSOR, i * 100, i * 100 + 100, 0);
		for (i = 5; i < 10; i++)
			synth_insn(s, 2, VNEF_OP_ACTIVATE, i * 100, i * 100 + 100, 0);
		break;
	case DMA_FIRST:
		/* compute only after every load */
		for (i = 0; i < 10; i++)
			synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 1000 + i * 100, 1100 + i * 100,
				   1000000);
		for (i = 0; i < 9; i++)
			synth_insn(s, 1, VNEF_OP_COPY, 1050 + i * 100, 1150 + i * 100, 0);
		break;
	case TENSOR_IDLE:
		for (i = 0; i < 3; i++)
			synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, i * 100, i * 100 + 100, 1000000);
		for (i = 0; i < 10; i++)
			synth_insn(s, 1, VNEF_OP_TENSOR_TENSOR, i * 100, i * 100 + 100, 0);
		break;
	case SEM_WAITS:
		for (i = 0; i < 10; i++) {
			synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, i * 100, i * 100 + 100, 1000000);
			s->r[s->n - 1].sem_signal = 0;
		}
		/* VectorE runs 100 ns every 300 ns, waiting for TensorE in between */
		for (i = 0; i < 4; i++) {
			synth_insn(s, 1, VNEF_OP_TENSOR_SCALAR, i * 300, i * 300 + 100, 0);
			if (i) {
				s->r[s->n - 1].sem_wait = 0;
				s->r[s->n - 1].sem_value = 3 * i;
			}
		}
		break;
	default:
		for (i = 0; i < 10; i++)
			synth_insn(s, 0, v == TRANSPOSES && i < 2 ? VNEF_OP_TRANSPOSE :
				   VNEF_OP_MULTIPLY_MOVING, i * 100, i * 100 + 100, 1000000);
		for (i = 0; i < 9; i++) {
			synth_insn(s, 1, VNEF_OP_TENSOR_TENSOR, 50 + i * 100, 150 + i * 100, 0);
			/* the good kernel waits too, but for no time */
			if (v == GOOD && i) {
				s->r[s->n - 1].sem_wait = 0;
				s->r[s->n - 1].sem_value = i;
			}
		}
		break;
	}
	if (v == SMALL_DMA) {
		for (i = 0; i < 100; i++)
			synth_dma(s, 0, i * 10, i * 10 + 10, 128, VNEF_MEM_HBM, VNEF_MEM_SBUF, ~0ull);
	} else {
		for (i = 0; i < 10; i++)
			synth_dma(s, 0, i * 100, i * 100 + 100, 65536, VNEF_MEM_HBM, VNEF_MEM_SBUF,
				  v == RELOAD && i < 3 ? 0 : (i + 1) * 65536ull);
	}
	for (i = 0; i < s->npc[0]; i++)
		synth_debug(s, 0, i, "kernel.c", 20 + (i < 2), "layer/matmul");
	for (i = 0; i < s->ndesc[0]; i++)
		synth_debug(s, VNEF_STREAM_DMA(0), i, "kernel.c", 10, "layer/load");
	return s;
}

static void dump(struct synth *s)
{
	struct vnp_view v = { .tl = &s->tl, .m = &s->m, .a = &s->a, .top = 5 };

	vnp_summary_text(stdout, &v);
	fflush(stdout);
}

/* Runs a variant; the fired rules as a mask. */
static unsigned int rules_of(struct synth *s)
{
	if (synth_run(s, 0))
		return ~0u;
	if (getenv("VNP_DUMP"))
		dump(s);
	return synth_rules(s);
}

static const struct vnp_finding *finding(const struct synth *s, enum vnp_rule r)
{
	unsigned int i;

	for (i = 0; i < s->a.n; i++)
		if (s->a.f[i].rule == r)
			return &s->a.f[i];
	return NULL;
}

TEST(good_kernel_fires_nothing)
{
	struct synth *s = profile(GOOD);

	EQ(rules_of(s), 0);
	/* it did wait on a semaphore, for no time */
	EQ(s->m.unit[1].waits, 8);
	EQ(s->m.unit[1].wait_ps, 0);
	synth_free(s);
}

TEST(engines_never_overlap)
{
	struct synth *s = profile(ENGINES_SERIAL);
	const struct vnp_finding *f;

	EQ(rules_of(s), BIT(VNP_RULE_ENGINES_NO_OVERLAP));
	f = finding(s, VNP_RULE_ENGINES_NO_OVERLAP);
	ASSERT_NE(f, NULL);
	/* names the engines and their time ranges */
	EXPECT_NE(strstr(f->evidence, "VectorE: 5 instructions, active 500.000 ns between "
			 "0 ps and 500.000 ns"), NULL);
	EXPECT_NE(strstr(f->evidence, "ScalarE: 5 instructions"), NULL);
	EXPECT_NE(strstr(f->advice, "500.000 ns"), NULL);
	synth_free(s);
}

TEST(dma_never_overlaps_compute)
{
	struct synth *s = profile(DMA_FIRST);
	const struct vnp_finding *f;

	EQ(rules_of(s), BIT(VNP_RULE_DMA_NO_OVERLAP));
	f = finding(s, VNP_RULE_DMA_NO_OVERLAP);
	ASSERT_NE(f, NULL);
	EXPECT_NE(strstr(f->evidence, "All 10 loads into SBUF/PSUM complete before the first "
			 "instruction at 1.000 us"), NULL);
	EXPECT_NE(strstr(f->evidence, "between 0 ps and 1.000 us"), NULL);
	synth_free(s);
}

TEST(small_dma_transfers)
{
	struct synth *s = profile(SMALL_DMA);
	const struct vnp_finding *f;

	EQ(rules_of(s), BIT(VNP_RULE_SMALL_DMA));
	f = finding(s, VNP_RULE_SMALL_DMA);
	ASSERT_NE(f, NULL);
	EXPECT_NE(strstr(f->title, "(128 B each on average)"), NULL);
	EXPECT_NE(strstr(f->evidence, "100 descriptors"), NULL);
	EXPECT_NE(strstr(f->advice, "kernel.c:10 in layer/load (100 descriptors)"), NULL);
	synth_free(s);
}

TEST(tensor_loaded_more_than_twice)
{
	struct synth *s = profile(RELOAD);
	const struct vnp_finding *f;

	EQ(rules_of(s), BIT(VNP_RULE_REPEATED_LOAD));
	f = finding(s, VNP_RULE_REPEATED_LOAD);
	ASSERT_NE(f, NULL);
	EXPECT_NE(strstr(f->evidence, "x bytes [0, 65536)"), NULL);
	EXPECT_NE(strstr(f->evidence, "read 3.0 times"), NULL);
	EXPECT_NE(strstr(f->evidence, "q0#0 q0#1 q0#2"), NULL);
	synth_free(s);
}

TEST(two_loads_are_fine)
{
	struct synth *s = profile(GOOD);

	/* a fourth and fifth descriptor reading one range: twice is allowed */
	s->desc[0][4].src.offset = s->desc[0][5].src.offset;
	EQ(rules_of(s), 0);
	synth_free(s);
}

TEST(tensor_idle_while_others_work)
{
	struct synth *s = profile(TENSOR_IDLE);
	const struct vnp_finding *f;

	EQ(rules_of(s), BIT(VNP_RULE_TENSOR_IDLE));
	f = finding(s, VNP_RULE_TENSOR_IDLE);
	ASSERT_NE(f, NULL);
	EXPECT_NE(strstr(f->evidence, "300.000 ns to 1.000 us (700.000 ns)"), NULL);
	synth_free(s);
}

TEST(transposes_over_ten_percent)
{
	struct synth *s = profile(TRANSPOSES);
	const struct vnp_finding *f;

	EQ(rules_of(s), BIT(VNP_RULE_TRANSPOSE_FLOPS));
	f = finding(s, VNP_RULE_TRANSPOSE_FLOPS);
	ASSERT_NE(f, NULL);
	EXPECT_NE(strstr(f->title, "20.0%"), NULL);
	EXPECT_NE(strstr(f->evidence, "2 TRANSPOSE instructions"), NULL);
	EXPECT_NE(strstr(f->advice, "kernel.c:21 in layer/matmul"), NULL);
	EXPECT_NE(strstr(f->advice, "Do not transpose with a DMA access pattern"), NULL);
	synth_free(s);
}

TEST(long_semaphore_waits)
{
	struct synth *s = profile(SEM_WAITS);
	const struct vnp_finding *f;

	EQ(rules_of(s), BIT(VNP_RULE_SEM_WAIT));
	f = finding(s, VNP_RULE_SEM_WAIT);
	ASSERT_NE(f, NULL);
	/* the class is HBM (the synthetic loads are faster than HBM): not folded */
	EQ(s->a.whole.cls, VNP_CLASS_MEMORY);
	EXPECT_NE(strstr(f->title, "VectorE waits on semaphores 60.0% of the time; the chain "
			 "behind the waits leads to TensorE"), NULL);
	EXPECT_NE(strstr(f->evidence, "600.000 ns for TensorE"), NULL);
	EXPECT_NE(strstr(f->evidence, "VectorE TENSOR_SCALAR pc 1 waited 200.000 ns from "
			 "100.000 ns on semaphore 0, behind 300.000 ns of work on TensorE"), NULL);
	/* a symptom: it saves nothing itself */
	EXPECT_EQ(f->saved_ps, 0);
	/* no finding is about TensorE: the gain names TensorE's work, not a missing finding */
	EXPECT_EQ(strstr(f->gain, "the finding about"), NULL);
	EXPECT_NE(strstr(f->gain, "a symptom of TensorE's work, which no other finding is "
			 "about (TensorE, "), NULL);
	synth_free(s);
}

TEST(classes)
{
	struct synth *s;
	unsigned int i;

	/* memory-bound: the good kernel moves 640 KiB for 10 Mflop */
	s = profile(GOOD);
	AEQ(rules_of(s), 0);
	EQ(s->a.whole.cls, VNP_CLASS_MEMORY);
	EXPECT_NE(strstr(s->a.whole.why, "ridge point 223.8"), NULL);
	synth_free(s);

	/* compute-bound: 80 Mflop per 64 KiB */
	s = synth_new();
	for (i = 0; i < 10; i++)
		synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, i * 100, i * 100 + 100, 8000000);
	synth_dma(s, 0, 0, 100, 65536, VNEF_MEM_HBM, VNEF_MEM_SBUF, ~0ull);
	AEQ(synth_run(s, 0), 0);
	EQ(s->a.whole.cls, VNP_CLASS_COMPUTE);
	synth_free(s);

	/* latency-bound: the same kernel inside an execution ten times longer */
	s = profile(GOOD);
	synth_exec(s, 0, 10000);
	AEQ(synth_run(s, 0), 0);
	EQ(s->a.whole.cls, VNP_CLASS_LATENCY);
	EXPECT_NE(strstr(s->a.whole.why, "no unit is busy over 50% of the time"), NULL);
	EXPECT_NE(strstr(s->a.whole.why, "longest idle stretch 1.000 us to 10.000 us"), NULL);
	synth_free(s);

	/* vector work only, no HBM: bound by the engines */
	s = synth_new();
	synth_insn(s, 1, VNEF_OP_COPY, 0, 100, 0);
	AEQ(synth_run(s, 0), 0);
	EQ(s->a.whole.cls, VNP_CLASS_COMPUTE);
	synth_free(s);
}

TEST(scopes_are_classified)
{
	struct synth *s = synth_new();
	uint32_t i;

	/* scope "mm": dense matmuls, little data; scope "copy": loads only */
	for (i = 0; i < 10; i++) {
		synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, i * 100, i * 100 + 100, 8000000);
		synth_debug(s, 0, i, "k.c", 1, "mm");
	}
	synth_dma(s, 0, 0, 100, 65536, VNEF_MEM_HBM, VNEF_MEM_SBUF, ~0ull);
	synth_debug(s, VNEF_STREAM_DMA(0), 0, "k.c", 2, "mm");
	for (i = 1; i < 11; i++) {
		synth_dma(s, 0, 1000 + i * 100, 1100 + i * 100, 65536, VNEF_MEM_HBM,
			  VNEF_MEM_SBUF, ~0ull);
		synth_debug(s, VNEF_STREAM_DMA(0), i, "k.c", 3, "copy");
	}
	AEQ(synth_run(s, 0), 0);
	AEQ(s->m.nscopes, 2);
	/* sorted by name: copy = 0, mm = 1 */
	EQ(s->a.scope[0].cls, VNP_CLASS_MEMORY);
	EQ(s->a.scope[1].cls, VNP_CLASS_COMPUTE);
	synth_free(s);
}

TEST(summary_outputs_name_the_advice)
{
	struct synth *s = profile(DMA_FIRST);
	struct vnp_view v = { .tl = &s->tl, .m = &s->m, .a = &s->a, .top = 5 };
	char *buf = NULL, *p, *nl;
	size_t len = 0;
	FILE *f;

	AEQ(rules_of(s), BIT(VNP_RULE_DMA_NO_OVERLAP));
	f = open_memstream(&buf, &len);
	ASSERT_EQ(vnp_summary_text(f, &v), 0);
	fclose(f);
	EXPECT_NE(strstr(buf, "[dma-no-overlap] DMA never overlaps compute"), NULL);
	EXPECT_NE(strstr(buf, "layer/matmul"), NULL);
	/* fits a terminal */
	for (p = buf; (nl = strchr(p, '\n')); p = nl + 1)
		EXPECT_LE(nl - p, 80);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	ASSERT_EQ(vnp_summary_json(f, &v), 0);
	fclose(f);
	EXPECT_NE(strstr(buf, "\"rule\":\"dma-no-overlap\""), NULL);
	EXPECT_NE(strstr(buf, "\"scope\":\"layer/load\""), NULL);
	free(buf);
	synth_free(s);
}

/*
 * The rules' table (analysis/rules.c): every rule once, at its id, named as its
 * findings are, with something it reads, its thresholds and its place in
 * docs/profiler.md, which describes every rule by that name.
 */
TEST(rules_table)
{
	char *doc = NULL, want[64];
	const struct vnp_threshold *t;
	unsigned int i, j;
	size_t len;
	FILE *f;

	f = fopen("docs/profiler.md", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, getdelim(&doc, &len, 0, f) < 0);
	fclose(f);
	for (i = 0; i < VNP_RULE_COUNT; i++) {
		const struct vnp_rule_def *r = vnp_rules[i];

		ASSERT_NE(NULL, r);
		EXPECT_EQ(i, r->id);
		EXPECT_STREQ(r->name, vnp_rule_id(i));
		EXPECT_NE(NULL, r->run);
		EXPECT_LT(20, (int)strlen(r->reads));
		EXPECT_STREQ(VNP_RULES_DOC, r->doc);
		for (t = r->thresholds; t && t->name; t++)
			EXPECT_GT(t->value, 0) TH_LOG("%s: %s", r->name, t->name);
		snprintf(want, sizeof(want), "| `%s` |", r->name);
		EXPECT_NE(NULL, strstr(doc, want)) TH_LOG("docs/profiler.md: no row %s", want);
		for (j = 0; j < i; j++)
			EXPECT_STRNE(r->name, vnp_rules[j]->name);
	}
	EXPECT_STREQ("?", vnp_rule_id(VNP_RULE_COUNT));
	free(doc);
}

TEST_HARNESS_MAIN
