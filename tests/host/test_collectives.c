// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Collectives in the profiler (docs/metrics.md, "Collectives"; docs/profiler.md): CC
 * records of several ranks, one core each, read into one timeline; the collectives they
 * form, their algbw and busbw as nccl-tests define them, the waits for the last rank,
 * the transfers' overlap with compute, the communication-bound class, and each
 * collective rule firing on a profile made to show its problem and not on the fixed
 * one. Then the outputs: text, JSON, the events, Perfetto (decoded by protoc, with the
 * flows that link a collective across the ranks) and the web viewer's data.
 *
 * The profiles are simulated here, the way the device model runs them: each rank's
 * VectorE computes buckets one after another, signalling semaphore 0 after each; its
 * CC-core runs the collectives in order, each waiting for the bucket it sends; a
 * collective completes on every member at the last member's arrival plus its transfer
 * time. Times in ns.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "vn_model.h"
#include "../../profiler/analysis/analyze.h"
#include "../../profiler/output/summary.h"
#include "../../profiler/output/web.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define EQ(a, b)	EXPECT_EQ((int64_t)(a), (int64_t)(b))
#define AEQ(a, b)	ASSERT_EQ((int64_t)(a), (int64_t)(b))
#define BIT(r)		(1u << (r))
#define NS		1000ull
#define NOSEM		VNEURON_TRACE_NO_SEM
#define MAXR		8
#define MAXB		8
#define MAXC		64

/* What to simulate: per rank and bucket the compute, per bucket the collectives. */
struct plan {
	unsigned int ranks, buckets, per_bucket;	/* collectives per bucket */
	uint64_t compute[MAXR][MAXB];			/* ns */
	uint64_t xfer;					/* ns per collective */
	uint32_t bytes;					/* a rank's input */
	unsigned int op;
	int after_all;		/* the collectives wait for the last bucket, not their own */
	unsigned int execs;
	uint64_t warmup;	/* ns: rank 0 first runs an execution without collectives */
};

struct cct {
	struct vneuron_trace_record r[MAXR][1024];
	size_t n[MAXR];
	/* the program */
	char strtab[1024];
	uint32_t strlen_;
	struct vnef_tensor tensors[3];
	struct vnef_cc_instr cc[MAXC];
	uint32_t ncc;
	struct vnef_dma_desc desc[8];
	uint32_t ndesc;
	struct vnef_debug debug[128];
	uint32_t ndebug;
	struct vnp_prog prog;
	struct vnp_timeline tl;
	struct vnp_metrics m;
	struct vnp_analysis a;
	/* the simulation's own figures, to check against */
	uint64_t wait[MAXR];		/* each rank's waits for the last */
	uint64_t end[MAXR];
};

static uint32_t str(struct cct *t, const char *s)
{
	uint32_t off;

	if (!t->strlen_)
		t->strlen_ = 1;
	for (off = 1; off < t->strlen_; off += (uint32_t)strlen(t->strtab + off) + 1)
		if (!strcmp(t->strtab + off, s))
			return off;
	memcpy(t->strtab + off, s, strlen(s) + 1);
	t->strlen_ += (uint32_t)strlen(s) + 1;
	return off;
}

static void debug(struct cct *t, unsigned int stream, uint32_t pc, uint32_t line,
		  const char *scope)
{
	struct vnef_debug *d = &t->debug[t->ndebug++];

	d->stream = stream;
	d->index = pc;
	d->file_off = str(t, "train.c");
	d->line = line;
	d->scope_off = str(t, scope);
}

static struct vneuron_trace_record *rec(struct cct *t, unsigned int rank, uint8_t kind,
					uint8_t engine)
{
	struct vneuron_trace_record *r = &t->r[rank][t->n[rank]++];

	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->engine = engine;
	r->sem_wait = NOSEM;
	r->sem_signal = NOSEM;
	return r;
}

/* The good kernel: 4 ranks, 2 buckets of 20 us each reduced as it is ready (15 us). */
static struct plan good(void)
{
	struct plan p = { .ranks = 4, .buckets = 2, .per_bucket = 1, .xfer = 15000,
			  .bytes = 4u << 20, .op = VNEF_CC_ALL_REDUCE, .execs = 1 };
	unsigned int r, b;

	for (r = 0; r < MAXR; r++)
		for (b = 0; b < MAXB; b++)
			p.compute[r][b] = 20000;
	return p;
}

/* Simulates the plan into records and a program. */
static struct cct *simulate(const struct plan *p)
{
	struct cct *t = calloc(1, sizeof(*t));
	uint64_t vend[MAXR][MAXB], ccend[MAXR], arr[MAXR];
	unsigned int r, b, k, x, j;

	t->strlen_ = 1;
	t->tensors[0] = (struct vnef_tensor){ .name_off = str(t, "grad"),
					      .kind = VNEF_TENSOR_INPUT, .dtype = VNEF_DT_FP32,
					      .rank = 1, .shape = { 1 << 24 }, .size = 4u << 24 };
	t->tensors[1] = t->tensors[0];
	t->tensors[1].name_off = str(t, "out");
	t->tensors[1].kind = VNEF_TENSOR_OUTPUT;
	t->tensors[2] = t->tensors[0];
	t->tensors[2].name_off = str(t, "reduced");
	t->tensors[2].kind = VNEF_TENSOR_SCRATCH;
	if (p->warmup) {
		struct vneuron_trace_record *v = rec(t, 0, VNEURON_TRACE_EXEC_START,
						     VNEURON_TRACE_ENGINE_CORE);

		v = rec(t, 0, VNEURON_TRACE_INSN, VNEURON_ENGINE_SCALAR);
		v->opcode = VNEF_OP_ACTIVATE;
		v->model_end_ps = p->warmup * NS;
		v = rec(t, 0, VNEURON_TRACE_EXEC_END, VNEURON_TRACE_ENGINE_CORE);
		v->model_start_ps = v->model_end_ps = p->warmup * NS;
	}
	for (x = 0; x < p->execs; x++) {
		for (r = 0; r < p->ranks; r++) {
			uint64_t now = 0;
			struct vneuron_trace_record *v = rec(t, r, VNEURON_TRACE_EXEC_START,
							     VNEURON_TRACE_ENGINE_CORE);

			v->exec_seq = x + (!r && p->warmup);
			for (b = 0; b < p->buckets; b++) {
				v = rec(t, r, VNEURON_TRACE_INSN, VNEURON_ENGINE_VECTOR);
				v->opcode = VNEF_OP_TENSOR_TENSOR;
				v->pc = b;
				v->exec_seq = x + (!r && p->warmup);
				v->model_start_ps = now * NS;
				now += p->compute[r][b];
				v->model_end_ps = now * NS;
				v->elements = 128;
				v->bytes = 512;
				v->sem_signal = 0;
				vend[r][b] = now;
			}
			ccend[r] = 0;
		}
		for (b = 0, j = 0; b < p->buckets; b++) {
			for (k = 0; k < p->per_bucket; k++, j++) {
				unsigned int last = 0, need = p->after_all ? p->buckets - 1 : b;
				uint64_t la = 0, end;

				for (r = 0; r < p->ranks; r++) {
					arr[r] = ccend[r] > vend[r][need] ? ccend[r] : vend[r][need];
					if (arr[r] > la) {
						la = arr[r];
						last = r;
					}
				}
				end = la + p->xfer;
				for (r = 0; r < p->ranks; r++) {
					struct vneuron_trace_record *v =
						rec(t, r, VNEURON_TRACE_CC, VNEURON_TRACE_ENGINE_CC);

					v->opcode = (uint16_t)p->op;
					v->pc = j;
					v->exec_seq = x + (!r && p->warmup);
					v->model_start_ps = arr[r] * NS;
					v->count = la * NS;
					v->model_end_ps = end * NS;
					v->bytes = p->bytes;
					v->elements = p->ranks;
					v->dma_queue = (uint16_t)r;
					v->dma_desc = (uint16_t)last;
					if (!k) {
						v->sem_wait = 0;
						v->sem_value = need + 1;
					}
					ccend[r] = end;
					t->wait[r] += la - arr[r];
				}
				if (!x) {
					struct vnef_cc_instr *in = &t->cc[t->ncc++];

					memset(in, 0, sizeof(*in));
					in->opcode = p->op;
					in->dtype = VNEF_DT_FP32;
					in->count = p->bytes / 4;
					in->src_tensor = 0;
					in->dst_tensor = 2;
					in->dst_offset = (uint64_t)j * p->bytes;
					if (p->op == VNEF_CC_ALL_REDUCE)
						in->reduce = VNEF_ALU_ADD;
					debug(t, VNEF_STREAM_CC, j, 40 + b, "grads/allreduce");
				}
			}
		}
		for (r = 0; r < p->ranks; r++) {
			struct vneuron_trace_record *v = rec(t, r, VNEURON_TRACE_EXEC_END,
							     VNEURON_TRACE_ENGINE_CORE);
			uint64_t e = ccend[r] > vend[r][p->buckets - 1] ? ccend[r] :
				     vend[r][p->buckets - 1];

			v->exec_seq = x + (!r && p->warmup);
			v->model_start_ps = e * NS;
			v->model_end_ps = e * NS;
			t->end[r] = e;
		}
	}
	for (b = 0; b < p->buckets; b++)
		debug(t, VNEURON_ENGINE_VECTOR, b, 20, "layer/compute");
	return t;
}

/* A DMA descriptor of the program (none runs) reading bytes [off, off + len) of tensor t. */
static void reader(struct cct *t, uint32_t tensor, uint64_t off, uint32_t len)
{
	struct vnef_dma_desc *d = &t->desc[t->ndesc++];

	memset(d, 0, sizeof(*d));
	d->chunk_bytes = len;
	d->count[0] = 1;
	d->count[1] = 1;
	d->src.mem = VNEF_MEM_HBM;
	d->src.tensor = tensor;
	d->src.offset = off;
	d->dst.mem = VNEF_MEM_SBUF;
}

static int run(struct cct *t)
{
	unsigned int r;
	int ret;

	t->prog.strtab = t->strtab;
	t->prog.strtab_size = t->strlen_;
	t->prog.tensors = t->tensors;
	t->prog.ntensors = 3;
	t->prog.cc = t->cc;
	t->prog.ncc = t->ncc;
	t->prog.desc[0] = t->desc;
	t->prog.ndesc[0] = t->ndesc;
	t->prog.debug = t->debug;
	t->prog.ndebug = t->ndebug;
	t->prog.name = "ddp";
	ret = vnp_prog_index(&t->prog);
	if (ret)
		return ret;
	vnp_tl_init(&t->tl, &vn_model_trn1, &t->prog);
	for (r = 0; r < MAXR && !ret; r++)
		if (t->n[r])
			ret = vnp_tl_add(&t->tl, r, t->r[r], t->n[r]);
	ret = ret ?: vnp_tl_finish(&t->tl) ?: vnp_metrics_compute(&t->tl, 0, &t->m) ?:
	      vnp_analyze(&t->tl, &t->m, &t->a);
	if (!ret && getenv("VNP_DUMP")) {
		struct vnp_view v = { .tl = &t->tl, .m = &t->m, .a = &t->a, .top = 5 };

		vnp_summary_text(stdout, &v);
	}
	return ret;
}

static void cct_free(struct cct *t)
{
	vnp_analysis_free(&t->a);
	vnp_metrics_free(&t->m);
	vnp_tl_free(&t->tl);
	vnp_prog_free(&t->prog);
	free(t);
}

static unsigned int rules(const struct cct *t)
{
	unsigned int i, mask = 0;

	for (i = 0; i < t->a.n; i++)
		mask |= 1u << t->a.f[i].rule;
	return mask;
}

static const struct vnp_finding *finding(const struct cct *t, enum vnp_rule r)
{
	unsigned int i;

	for (i = 0; i < t->a.n; i++)
		if (t->a.f[i].rule == r)
			return &t->a.f[i];
	return NULL;
}

static struct cct *made(const struct plan *p)
{
	struct cct *t = simulate(p);

	if (run(t)) {
		cct_free(t);
		return NULL;
	}
	return t;
}

TEST(records_become_collectives)
{
	struct plan p = good();
	struct cct *t;
	const struct vnp_coll *c;
	struct vnp_ev ev;
	const struct vnp_ev *e;

	/* rank 2 computes its first bucket 6 us longer */
	p.compute[2][0] = 26000;
	t = made(&p);
	ASSERT_NE(t, NULL);
	AEQ(t->tl.ncores, 4);
	EQ(t->tl.ncc, 8);
	EQ(t->tl.malformed, 0);
	AEQ(t->m.ncoll, 2);
	EQ(t->m.cc_events, 8);
	c = &t->m.coll[0];
	EQ(c->op, VNEF_CC_ALL_REDUCE);
	EQ(c->pc, 0);
	EQ(c->members, 4);
	EQ(c->seen, 4);
	EQ(c->last_rank, 2);
	EQ(c->first_arrival, 20000 * NS);
	EQ(c->last_arrival, 26000 * NS);
	EQ(c->end, 41000 * NS);
	/* three ranks waited 6 us each */
	EQ(c->wait_ps, 18000 * NS);
	EQ(c->size, 4u << 20);
	/* nccl-tests: algbw = size / time, busbw = algbw x 2(n-1)/n for an all-reduce */
	EXPECT_LT(fabs(vnp_coll_algbw(c) - 4194304.0 / 15e-6), 1);
	EXPECT_LT(fabs(vnp_coll_busbw(c) - 4194304.0 / 15e-6 * 1.5), 1);
	/* the second: rank 2 arrives at 46 (its bucket), the others at 41 (the CC-core) */
	c = &t->m.coll[1];
	EQ(c->last_rank, 2);
	EQ(c->first_arrival, 41000 * NS);
	EQ(c->last_arrival, 46000 * NS);
	EQ(c->wait_ps, 15000 * NS);
	/* per op and per rank */
	EQ(t->m.cc_op[VNEF_CC_ALL_REDUCE].count, 2);
	EQ(t->m.cc_op[VNEF_CC_ALL_REDUCE].bytes, 8u << 20);
	EQ(t->m.cc_op[VNEF_CC_ALL_REDUCE].time_ps, 30000 * NS);
	EQ(t->m.cc_nranks, 4);
	EQ(t->m.cc_rank[2].last, 2);
	EQ(t->m.cc_rank[2].caused_ps, 33000 * NS);
	EQ(t->m.cc_rank[2].late_ps, 11000 * NS);
	EQ(t->m.cc_rank[0].waited_ps, 11000 * NS);
	EQ(t->m.cc_rank[2].waited_ps, 0);
	EQ(t->m.cc_wait_ps, 33000 * NS);
	EQ(t->m.cc_xfer_ps, 8 * 15000 * NS);
	/* the events: arrival to completion, the wait kept */
	ev = vnp_tl_ev(&t->tl, t->tl.track_off[VNEF_STREAM_CC]);
	e = &ev;
	EQ(vnp_cc_op(e), VNEF_CC_ALL_REDUCE);
	EQ(vnp_cc_rank(e), 0);
	EQ(vnp_cc_last(e), 2);
	EQ(vnp_cc_members(e), 4);
	EQ(vnp_cc_wait(e), 6000 * NS);
	EQ(vnp_cc_xfer(e), 15000 * NS);
	EQ(t->tl.cc_rank[3], 3);
	/* the CC-core is a unit: busy from arrival to completion */
	EQ(t->m.unit[VNP_UNIT_CC].count, 8);
	EQ(t->m.unit[VNP_UNIT_CC].instr_ps, 8 * 15000 * NS + 33000 * NS);
	cct_free(t);
}

static char *output(int (*fn)(FILE *, const struct vnp_view *), const struct cct *t);

TEST(transfers_overlap_compute)
{
	struct plan p = good();
	struct cct *t = made(&p);
	char *s;

	ASSERT_NE(t, NULL);
	/* bucket 0's transfer [20, 35) under bucket 1's compute [20, 40) on each rank */
	EQ(t->m.cc_overlap_ps, 4 * 15000 * NS);
	EQ(t->m.cc_xfer_ps, 8 * 15000 * NS);
	EQ(t->m.core_compute_ps[0], 40000 * NS);
	/* the critical path runs through the computes, then the last transfer */
	EQ(t->a.cp.len_ps, 4 * 55000 * NS);
	EQ(t->a.cp.unit_ps[VNP_UNIT_CC], 4 * 15000 * NS);
	EQ(t->a.cp.cc_wait_ps, 0);
	/* issue 29: no waits, so no load-imbalance rows of zeros: the arrival spread */
	EQ(t->m.cc_wait_ps, 0);
	s = output(vnp_summary_text, t);
	ASSERT_NE(s, NULL);
	EXPECT_NE(strstr(s, "  no load imbalance: no rank waited for another\n  arrival "
			 "spread per collective: min "), NULL) TH_LOG("%s", s);
	EXPECT_EQ(strstr(s, "others waited"), NULL) TH_LOG("%s", s);
	free(s);
	cct_free(t);
}

TEST(malformed_cc_records_are_counted)
{
	struct vnp_timeline tl;
	struct vneuron_trace_record r[6];
	unsigned int i;

	memset(r, 0, sizeof(r));
	for (i = 0; i < 6; i++) {
		r[i].kind = VNEURON_TRACE_CC;
		r[i].engine = VNEURON_TRACE_ENGINE_CC;
		r[i].opcode = VNEF_CC_ALL_REDUCE;
		r[i].model_start_ps = 10;
		r[i].count = 20;
		r[i].model_end_ps = 30;
		r[i].elements = 2;
		r[i].sem_wait = NOSEM;
		r[i].sem_signal = NOSEM;
	}
	r[0].engine = VNEURON_TRACE_ENGINE_DMA;		/* not the CC engine */
	r[1].opcode = VNEF_CC_OP_COUNT;			/* no such opcode */
	r[2].count = 5;					/* last arrival before its own */
	r[3].count = 40;				/* last arrival after completion */
	r[4].elements = 0;				/* no members */
	vnp_tl_init(&tl, &vn_model_trn1, NULL);
	AEQ(vnp_tl_add(&tl, 0, r, 6), 0);
	AEQ(vnp_tl_finish(&tl), 0);
	EQ(tl.malformed, 5);
	EQ(tl.n, 1);
	EQ(tl.ncc, 1);
	vnp_tl_free(&tl);
}

TEST(good_kernel_fires_nothing)
{
	struct plan p = good();
	struct cct *t = made(&p);

	ASSERT_NE(t, NULL);
	EQ(rules(t), 0);
	EQ(t->a.whole.cls, VNP_CLASS_COMPUTE);
	cct_free(t);
}

TEST(straggler_rank)
{
	struct plan p = good();
	const struct vnp_finding *f;
	struct cct *t;

	/* rank 2 computes 1.5 times as long */
	p.compute[2][0] = p.compute[2][1] = 30000;
	t = made(&p);
	ASSERT_NE(t, NULL);
	EQ(rules(t), BIT(VNP_RULE_CC_STRAGGLER));
	f = finding(t, VNP_RULE_CC_STRAGGLER);
	ASSERT_NE(f, NULL);
	EXPECT_NE(strstr(f->title, "Rank 2 arrives last at 2 of 2 collectives"), NULL)
		TH_LOG("%s", f->title);
	/* bucket 0: ranks wait 10 us at 20; bucket 1: the others arrive at 45, rank 2 at 60 */
	EXPECT_NE(strstr(f->evidence, "on average 12.500 us after the first rank; the others "
			 "waited 75.000 us for it"), NULL) TH_LOG("%s", f->evidence);
	EXPECT_NE(strstr(f->evidence, "Rank 2's engines computed 60.000 us, the other ranks' "
			 "40.000 us on average"), NULL) TH_LOG("%s", f->evidence);
	EXPECT_NE(strstr(f->evidence, "ALL_REDUCE pc 1 of exec 0 at train.c:41 "
			 "[grads/allreduce], rank 2 15.000 us late"), NULL)
		TH_LOG("%s", f->evidence);
	EXPECT_NE(strstr(f->advice, "give it a smaller share of the work"), NULL);
	EXPECT_GT(f->saved_ps, 0);
	EQ(t->m.cc_wait_ps, 75000 * NS);
	cct_free(t);

	/* the fixed kernel: the same work on every rank */
	p = good();
	t = made(&p);
	ASSERT_NE(t, NULL);
	EQ(rules(t) & BIT(VNP_RULE_CC_STRAGGLER), 0);
	cct_free(t);
}

TEST(collectives_never_overlapping_compute)
{
	struct plan p = good();
	const struct vnp_finding *f;
	struct cct *t;

	/* every collective waits for the last bucket */
	p.after_all = 1;
	t = made(&p);
	ASSERT_NE(t, NULL);
	EQ(rules(t), BIT(VNP_RULE_CC_NO_OVERLAP));
	EQ(t->m.cc_overlap_ps, 0);
	f = finding(t, VNP_RULE_CC_NO_OVERLAP);
	ASSERT_NE(f, NULL);
	EXPECT_NE(strstr(f->evidence, "2 collectives transfer for 120.000 us (summed over the ranks), the "
			 "engines compute for 160.000 us; both at once on a core: 0 ps"), NULL)
		TH_LOG("%s", f->evidence);
	EXPECT_NE(strstr(f->evidence, "On the critical paths: transfers 120.000 us, compute "
			 "160.000 us"), NULL) TH_LOG("%s", f->evidence);
	EXPECT_NE(strstr(f->advice, "train.c:40-41 in grads/allreduce"), NULL)
		TH_LOG("%s", f->advice);
	/* overlapped, the shorter (the transfers) would hide behind the compute */
	EQ(f->saved_ps, 120000 * NS);
	cct_free(t);

	/* fixed: each bucket's collective as soon as the bucket is ready (the good kernel) */
	p = good();
	t = made(&p);
	ASSERT_NE(t, NULL);
	EQ(rules(t) & BIT(VNP_RULE_CC_NO_OVERLAP), 0);
	cct_free(t);
}

TEST(many_small_collectives)
{
	struct plan p = good();
	const struct vnp_finding *f;
	struct cct *t;

	/* buckets of 40 us, each in 4 all-reduces of 16 KiB: 6 ring steps of >= 1 us each */
	p.per_bucket = 4;
	p.bytes = 16384;
	p.xfer = 6100;
	for (unsigned int r = 0; r < 4; r++)
		p.compute[r][0] = p.compute[r][1] = 40000;
	t = made(&p);
	ASSERT_NE(t, NULL);
	EQ(rules(t), BIT(VNP_RULE_CC_SMALL));
	f = finding(t, VNP_RULE_CC_SMALL);
	ASSERT_NE(f, NULL);
	EXPECT_NE(strstr(f->title, "8 small ALL_REDUCE collectives an execution spend 98% of "
			 "their time on link latency"), NULL) TH_LOG("%s", f->title);
	EXPECT_NE(strstr(f->evidence, "8 ALL_REDUCE of 16.0 KiB on average (8 an execution) "
			 "transfer for 48.800 us, busbw 4.03 GB/s"), NULL) TH_LOG("%s", f->evidence);
	/* the critical paths: one per rank, each through the last bucket's 4 */
	EXPECT_NE(strstr(f->evidence, "at least 1.000 us of link latency whatever it moves, "
			 "48.000 us of their time (96.000 us on the 4 ranks' critical paths)"), NULL)
		TH_LOG("%s", f->evidence);
	EXPECT_NE(strstr(f->advice, "train.c:40-41 in grads/allreduce (8 instructions)"), NULL)
		TH_LOG("%s", f->advice);
	/* the last bucket's 4 on each rank's path: 4 x 6 us fixed, 7/8 of it saved */
	EXPECT_LT(fabs(f->saved_ps - 4 * 4 * 6000.0 * NS * 7 / 8), 1);
	cct_free(t);

	/* fixed: one collective per bucket */
	p = good();
	t = made(&p);
	ASSERT_NE(t, NULL);
	EQ(rules(t) & BIT(VNP_RULE_CC_SMALL), 0);
	cct_free(t);
}

TEST(all_reduce_read_over_one_share)
{
	struct plan p = good();
	const struct vnp_finding *f;
	struct cct *t;

	/* the consumer loads a quarter of each bucket's reduced result */
	t = simulate(&p);
	reader(t, 2, 0, 1u << 20);
	reader(t, 2, 4u << 20, 1u << 20);
	ASSERT_EQ(run(t), 0);
	EQ(rules(t), BIT(VNP_RULE_CC_SPLIT));
	f = finding(t, VNP_RULE_CC_SPLIT);
	ASSERT_NE(f, NULL);
	EXPECT_NE(strstr(f->title, "An ALL_REDUCE of 4.0 MiB whose result is read only over a "
			 "1/4 share: a REDUCE_SCATTER would do"), NULL) TH_LOG("%s", f->title);
	EXPECT_NE(strstr(f->evidence, "1 entry of the program reads 1.0 MiB of its result in "
			 "HBM tensor 2, at most 1/4 of it"), NULL) TH_LOG("%s", f->evidence);
	EXPECT_NE(strstr(f->advice, "in 3 ring steps instead of 6"), NULL);
	/* both all-reduces: the second's transfer is on the critical paths, half saved */
	EQ(t->a.n, 2);
	EQ(t->a.f[0].saved_ps, 4 * 15000 * NS / 2);
	cct_free(t);

	/* fixed: the consumer reads all of it */
	t = simulate(&p);
	reader(t, 2, 0, 4u << 20);
	reader(t, 2, 4u << 20, 4u << 20);
	ASSERT_EQ(run(t), 0);
	EQ(rules(t), 0);
	cct_free(t);

	/* fixed: a reduce-scatter in the first place */
	p.op = VNEF_CC_REDUCE_SCATTER;
	t = simulate(&p);
	reader(t, 2, 0, 1u << 20);
	reader(t, 2, 4u << 20, 1u << 20);
	ASSERT_EQ(run(t), 0);
	EQ(rules(t), 0);
	cct_free(t);
}

TEST(communication_bound)
{
	struct plan p = good();
	struct cct *t;

	/* 2 us of compute per bucket, 40 us transfers */
	p.compute[0][0] = 2000;
	for (unsigned int r = 0; r < 4; r++)
		p.compute[r][0] = p.compute[r][1] = 2000;
	p.xfer = 40000;
	t = made(&p);
	ASSERT_NE(t, NULL);
	EQ(t->a.whole.cls, VNP_CLASS_COMMUNICATION);
	EQ(t->a.whole.unit, VNEF_STREAM_CC);
	EXPECT_NE(strstr(t->a.whole.label, "communication-bound (collective transfers are 98% "
			 "of the critical path)"), NULL) TH_LOG("%s", t->a.whole.label);
	EXPECT_NE(strstr(t->a.whole.why, "the transfers of 2 collectives take 320.000 us, "
			 "97.6% of the critical paths (summed over the ranks)"), NULL)
		TH_LOG("%s", t->a.whole.why);
	EXPECT_NE(strstr(t->a.whole.why, "busbw 157.29 GB/s"), NULL)
		TH_LOG("%s", t->a.whole.why);
	/* the scope of the collectives too */
	EQ(t->a.scope[0].cls, VNP_CLASS_COMMUNICATION);
	cct_free(t);
}

TEST(executions_align_across_ranks)
{
	struct plan p = good();
	struct cct *t;
	const struct vnp_coll *c;

	/* three executions; rank 1's first is 10 us longer, so every rank's second starts late */
	p.execs = 3;
	p.compute[1][1] = 30000;
	t = made(&p);
	ASSERT_NE(t, NULL);
	AEQ(t->m.ncoll, 6);
	/* round 1's first collective: every rank arrives 20 us into it, at 65 + 20 */
	c = &t->m.coll[2];
	EQ(c->round, 1);
	EQ(c->first_arrival, 85000 * NS);
	EQ(c->last_arrival, 85000 * NS);
	EQ(c->wait_ps, 0);
	EQ(t->m.nexec, 12);
	cct_free(t);

	/* rank 0 first runs 50 us without collectives: the first round starts after it */
	p.warmup = 50000;
	t = made(&p);
	ASSERT_NE(t, NULL);
	AEQ(t->m.ncoll, 6);
	EQ(t->m.nexec, 13);
	c = &t->m.coll[0];
	EQ(c->round, 0);
	EQ(c->seen, 4);
	EQ(c->first_arrival, 70000 * NS);
	EQ(c->wait_ps, 0);
	c = &t->m.coll[2];
	EQ(c->round, 1);
	EQ(c->first_arrival, 135000 * NS);
	EQ(vnp_tl_exec_start(&t->tl, 1, 0), 50000 * NS);
	cct_free(t);
}

/* Everything an output writes, into a string. */
static char *output(int (*fn)(FILE *, const struct vnp_view *), const struct cct *t)
{
	static const char *const labels[] = { "worker 0 core 0", "worker 1 core 1",
					      "worker 2 core 0", "worker 3 core 1" };
	struct vnp_view v = { .tl = &t->tl, .m = &t->m, .a = &t->a, .top = 5,
			      .labels = labels };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (fn(f, &v)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* VNP_KEEP=DIR keeps an output in DIR/cc-NAME (to feed a JSON parser, or to look at). */
static void keep(const char *name, const char *s)
{
	const char *dir = getenv("VNP_KEEP");
	char path[PATH_MAX];
	FILE *f;

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/cc-%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(s, f);
		fclose(f);
	}
}

static int web_data(FILE *f, const struct vnp_view *v)
{
	return vnp_web_data(f, v, v->labels);
}

TEST(outputs)
{
	struct plan p = good();
	struct cct *t;
	char *s, *q, *nl;

	p.compute[2][0] = p.compute[2][1] = 30000;
	t = made(&p);
	ASSERT_NE(t, NULL);
	s = output(vnp_summary_text, t);
	ASSERT_NE(s, NULL);
	EXPECT_NE(strstr(s, "event_count 16 (8 instructions, 0 DMA, 8 CC)"), NULL);
	/* issue 29: what is summed over the ranks says so */
	EXPECT_NE(strstr(s, "Collectives (CC-core): 2 over 4 ranks; CC-core time 195.000 us, "
			 "summed over them\n  transfers 120.000 us (summed), "
			 "overlapping compute 45.000 us (37.5%)\n  load imbalance: waits for the "
			 "last rank 75.000 us, summed over the ranks\n"), NULL)
		TH_LOG("%s", s);
	EXPECT_NE(strstr(s, "  ALL_REDUCE           2     8.0 MiB    30.000 us       279.62"
			 "       419.43"), NULL) TH_LOG("%s", s);
	EXPECT_NE(strstr(s, "    ALL_REDUCE pc 0 exec 0                  2    10.000 us"
			 "      30.000 us"), NULL) TH_LOG("%s", s);
	EXPECT_NE(strstr(s, "  2              2/2      75.000 us           0 ps"), NULL)
		TH_LOG("%s", s);
	EXPECT_NE(strstr(s, "[straggler-rank] Rank 2 arrives last"), NULL);
	/* issue 29: per execution of the slowest rank first, the sum labelled */
	EXPECT_NE(strstr(s, "critical path 75.000 us per execution (the longest, the slowest "
			 "rank's),\n    300.000 us summed over 4 executions on 4 ranks"), NULL)
		TH_LOG("%s", s);
	for (q = s; (nl = strchr(q, '\n')); q = nl + 1)
		EXPECT_LE(nl - q, 80);
	free(s);

	s = output(vnp_summary_json, t);
	ASSERT_NE(s, NULL);
	keep("summary.json", s);
	EXPECT_NE(strstr(s, "\"collectives\":{\"count\":2,\"events\":8,\"ranks\":4,"), NULL);
	EXPECT_NE(strstr(s, "\"ops\":{\"ALL_REDUCE\":{\"count\":2,\"bytes\":8388608,"
			 "\"time_ps\":30000000,\"wait_ps\":75000000,\"algbw\":2.7962e+11,"
			 "\"busbw\":4.1943e+11}}"), NULL) TH_LOG("%s", s);
	EXPECT_NE(strstr(s, "{\"op\":\"ALL_REDUCE\",\"pc\":1,\"exec\":0,\"members\":4,"
			 "\"seen\":4,\"last_rank\":2,\"late_ps\":15000000,\"wait_ps\":45000000"), NULL)
		TH_LOG("%s", s);
	EXPECT_NE(strstr(s, "\"file\":\"train.c\",\"line\":41,\"scope\":\"grads/allreduce\""),
		  NULL);
	EXPECT_NE(strstr(s, "{\"rank\":2,\"core\":2,\"count\":2,\"last\":2,\"late_ps\":25000000,"
			 "\"caused_wait_ps\":75000000,\"waited_ps\":0,\"compute_ps\":60000000"), NULL)
		TH_LOG("%s", s);
	EXPECT_NE(strstr(s, "\"CC-core\":{\"count\":8,"), NULL);
	EXPECT_NE(strstr(s, "\"rule\":\"straggler-rank\""), NULL);
	free(s);

	s = output(vnp_json_events, t);
	ASSERT_NE(s, NULL);
	keep("events.json", s);
	EXPECT_NE(strstr(s, "\"engine\":\"CC-core\",\"opcode\":\"ALL_REDUCE\",\"pc\":0,"), NULL);
	EXPECT_NE(strstr(s, "\"rank\":0,\"members\":4,\"last_rank\":2,\"cc_wait_ps\":10000000,"
			 "\"transfer_ps\":15000000,\"size\":4194304,\"algbw\":2.7962e+11,"
			 "\"busbw\":4.1943e+11,\"dtype\":\"fp32\",\"count\":1048576,"
			 "\"reduce\":\"add\""), NULL) TH_LOG("%s", s);
	EXPECT_NE(strstr(s, "\"dst\":{\"tensor\":2,\"name\":\"reduced\",\"offset\":4194304}"),
		  NULL);
	free(s);

	s = output(web_data, t);
	ASSERT_NE(s, NULL);
	keep("web.json", s);
	EXPECT_NE(strstr(s, "\"ALL_REDUCE\",\"ALL_GATHER\""), NULL);
	EXPECT_NE(strstr(s, "{\"name\":\"CC-core\",\"stream\":20,\"dma\":0,\"n\":2,\"cc\":1,"),
		  NULL) TH_LOG("%.2000s", s);
	/* rank 0: waited 10 and 15 us; groups of 4; rank 2 last; algbw in bytes/s */
	EXPECT_NE(strstr(s, "\"cw\":[10000000,15000000],\"g\":[4,4],\"lr\":[2,2],"
			 "\"ab\":[279620266667,279620266667]"), NULL);
	EXPECT_NE(strstr(s, "\"label\":\"worker 2 core 0\",\"rank\":2,"), NULL);
	free(s);
	cct_free(t);
}

/* protoc's text of a Perfetto trace, or NULL. */
static char *decode(const char *path)
{
	char cmd[PATH_MAX * 3], dir[PATH_MAX], *slash, *buf = NULL;
	size_t len = 0, n;
	char chunk[4096];
	FILE *f, *out;

	snprintf(dir, sizeof(dir), "%s", __FILE__);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	snprintf(cmd, sizeof(cmd), "protoc -I%s/../perfetto --decode=perfetto.protos.Trace "
		 "%s/../perfetto/trace.proto < %s", dir, dir, path);
	f = popen(cmd, "r");
	if (!f)
		return NULL;
	out = open_memstream(&buf, &len);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, out);
	fclose(out);
	if (pclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static unsigned int count(const char *s, const char *what)
{
	unsigned int n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

/* Lines "KEY: N" (protoc's text) with N >= min. */
static unsigned int count_ids(const char *s, const char *key, uint64_t min)
{
	size_t kl = strlen(key);
	unsigned int n = 0;

	for (; (s = strstr(s, key)); s += kl)
		if ((s == key || s[-1] == ' ' || s[-1] == '\n') && s[kl] == ':' &&
		    strtoull(s + kl + 1, NULL, 10) >= min)
			n++;
	return n;
}

TEST(perfetto_cc_tracks_and_flows)
{
	struct plan p = good();
	char path[] = "/tmp/vnp_cc_XXXXXX", *s;
	struct vnp_view v = { .top = 5 };
	struct cct *t;
	FILE *f;
	int fd;

	p.compute[2][0] = p.compute[2][1] = 30000;
	t = made(&p);
	ASSERT_NE(t, NULL);
	v.tl = &t->tl;
	v.m = &t->m;
	v.a = &t->a;
	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	f = fdopen(fd, "wb");
	ASSERT_EQ(vnp_perfetto(f, &v), 0);
	fclose(f);
	s = decode(path);
	unlink(path);
	ASSERT_NE(s, NULL);
	/* a CC-core track in each of the 4 processes (named twice: track and thread) */
	EQ(count(s, "name: \"CC-core\""), 8);
	EXPECT_NE(strstr(s, "name: \"ALL_REDUCE\""), NULL);
	EXPECT_NE(strstr(s, "name: \"cc\""), NULL);
	EXPECT_NE(strstr(s, "name: \"busbw_GBps\""), NULL);
	EXPECT_NE(strstr(s, "double_value: 419.43"), NULL);
	/*
	 * each collective: three flow_ids and one terminating, at the last arrival, with
	 * ids after the semaphore flows' (an event's index + 1 <= 16)
	 */
	EQ(count_ids(s, "terminating_flow_ids", 17), 2);
	EQ(count_ids(s, "flow_ids", 17), 6);
	/* and the semaphore flows: 4 first collectives and rank 2's second waited */
	EQ(count(s, "terminating_flow_ids:"), 2 + 5);
	free(s);
	cct_free(t);
}

TEST_HARNESS_MAIN
