// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Metrics of the view (docs/metrics.md) on synthetic timelines whose answers are worked
 * out by hand: unions, overlaps, flops utilisation, arithmetic intensity, DMA bytes per
 * memory and series, semaphore waits, scopes and lines, bad records.
 */
#include <math.h>
#include <stdio.h>

#include "vnp_synth.h"
#include "../../profiler/format/sha256.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define EQ(a, b)	EXPECT_EQ((int64_t)(a), (int64_t)(b))
#define AEQ(a, b)	ASSERT_EQ((int64_t)(a), (int64_t)(b))
#define NEAR(a, b)	EXPECT_LT(fabs((double)(a) - (double)(b)), 1e-9 + 1e-9 * fabs((double)(b)))

TEST(union_and_overlap)
{
	struct synth *s = synth_new();

	/* TensorE [0,100) [200,300); VectorE [50,250); DMA q0 [0,400), q1 [100,200) */
	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 100, 1000);
	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 200, 300, 1000);
	synth_insn(s, 1, VNEF_OP_TENSOR_TENSOR, 50, 250, 77);
	synth_dma(s, 0, 0, 400, 4096, VNEF_MEM_HBM, VNEF_MEM_SBUF, ~0ull);
	synth_dma(s, 1, 100, 200, 4096, VNEF_MEM_SBUF, VNEF_MEM_HBM, ~0ull);
	AEQ(synth_run(s, 0), 0);

	EQ(s->m.total_ps, 400 * NS);
	EQ(s->m.event_count, 5);
	EQ(s->m.instr_count, 3);
	EQ(s->m.dma_count, 2);
	EQ(s->m.unit[0].active_ps, 200 * NS);
	EQ(s->m.unit[0].instr_ps, 200 * NS);
	EQ(s->m.unit[1].active_ps, 200 * NS);
	EQ(s->m.unit[VNP_UNIT_DMA].active_ps, 400 * NS);
	EQ(s->m.unit[VNP_UNIT_DMA].instr_ps, 500 * NS);
	EQ(s->m.queue[0].active_ps, 400 * NS);
	EQ(s->m.queue[1].active_ps, 100 * NS);
	EQ(s->m.overlap_ps[0][1], 100 * NS);
	EQ(s->m.overlap_ps[0][VNP_UNIT_DMA], 200 * NS);
	EQ(s->m.overlap_ps[1][VNP_UNIT_DMA], 200 * NS);
	EQ(s->m.compute_ps, 300 * NS);
	EQ(s->m.busy_ps, 400 * NS);
	EQ(s->m.dma_compute_ps, 300 * NS);
	/* VectorE busy, TensorE idle: [100,200) */
	EQ(s->m.tensor_idle_ps, 100 * NS);
	EQ(s->m.tidle_lo, 100 * NS);
	EQ(s->m.tidle_hi, 200 * NS);
	EQ(s->m.unit[0].op_count[VNEF_OP_MULTIPLY_MOVING], 2);
	EQ(s->m.unit[1].op_count[VNEF_OP_TENSOR_TENSOR], 1);
	EQ(s->m.other_flops, 77);
	EQ(s->m.hbm_read, 4096);
	EQ(s->m.hbm_write, 4096);
	EQ(s->m.mem_read[VNEF_MEM_HBM], 4096);
	EQ(s->m.mem_write[VNEF_MEM_SBUF], 4096);
	EQ(s->m.mem_read[VNEF_MEM_SBUF], 4096);
	NEAR(s->m.avg_dma_bytes, 4096);
	NEAR(s->m.dma_active_pct, 100);
	synth_free(s);
}

TEST(roofline_figures)
{
	struct synth *s = synth_new();
	double peak = 2.0 * 128 * 128 * 2.8e9, t = 1000e-9, bytes = 2.0 * 65536;

	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 800, 8000000);
	synth_insn(s, 0, VNEF_OP_TRANSPOSE, 800, 1000, 2000000);
	synth_dma(s, 0, 0, 500, 65536, VNEF_MEM_HBM, VNEF_MEM_SBUF, ~0ull);
	synth_dma(s, 0, 500, 1000, 65536, VNEF_MEM_SBUF, VNEF_MEM_HBM, ~0ull);
	s->tl.model_flops = 0;
	AEQ(synth_run(s, 0), 0);

	EQ(s->m.hw_flops, 10000000);
	EQ(s->m.transpose_flops, 2000000);
	EQ(s->m.transpose_count, 1);
	NEAR(s->m.peak_flops, peak);
	NEAR(s->m.hfu, 1e7 / (peak * t));
	NEAR(s->m.ai, 8e6 / bytes);
	NEAR(s->m.ridge, peak / 410e9);
	NEAR(s->m.mbu, bytes / t / 410e9);
	EXPECT_LT(s->m.mfu, 0);		/* no model flops given */
	synth_free(s);
}

TEST(mfu_from_model_flops)
{
	struct synth *s = synth_new();
	double peak = 2.0 * 128 * 128 * 2.8e9;

	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 1000, 5000000);
	s->prog.strtab = s->strtab;
	s->prog.strtab_size = s->strlen_;
	AEQ(vnp_prog_index(&s->prog), 0);
	vnp_tl_init(&s->tl, &vn_model_trn1, &s->prog);
	s->tl.model_flops = 4000000;
	AEQ(vnp_tl_add(&s->tl, 0, s->r, s->n), 0);
	AEQ(vnp_tl_finish(&s->tl), 0);
	AEQ(vnp_metrics_compute(&s->tl, 0, &s->m), 0);
	NEAR(s->m.mfu, 4e6 / (peak * 1e-6));
	/* no HBM traffic: the intensity is infinite, reported as null in json */
	EXPECT_TRUE(isinf(s->m.ai));
	AEQ(vnp_analyze(&s->tl, &s->m, &s->a), 0);
	EQ(s->a.whole.cls, VNP_CLASS_COMPUTE);
	synth_free(s);
}

TEST(mfu_counts_every_execution)
{
	struct synth *s = synth_new();
	double peak = 2.0 * 128 * 128 * 2.8e9;

	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 500, 1000);
	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 500, 1000, 1000);
	s->r[1].exec_seq = 1;
	s->prog.strtab = s->strtab;
	s->prog.strtab_size = s->strlen_;
	AEQ(vnp_prog_index(&s->prog), 0);
	vnp_tl_init(&s->tl, &vn_model_trn1, &s->prog);
	s->tl.model_flops = 3000000;
	AEQ(vnp_tl_add(&s->tl, 0, s->r, s->n), 0);
	AEQ(vnp_tl_finish(&s->tl), 0);
	AEQ(vnp_metrics_compute(&s->tl, 0, &s->m), 0);
	EQ(s->m.nexec, 2);
	NEAR(s->m.mfu, 2 * 3e6 / (peak * 1e-6));
	AEQ(vnp_analyze(&s->tl, &s->m, &s->a), 0);
	synth_free(s);
}

TEST(executions_with_their_own_clocks_are_laid_end_to_end)
{
	struct synth *s = synth_new();
	struct vneuron_trace_record *r;

	/* exec 0: TensorE [0,400), EXEC_END at 600; exec 1 counts from 0 again */
	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 400, 10);
	r = synth_rec(s);
	r->kind = VNEURON_TRACE_EXEC_END;
	r->engine = VNEURON_TRACE_ENGINE_CORE;
	r->model_end_ps = 600 * NS;
	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 400, 10);
	s->r[s->n - 1].exec_seq = 1;
	/* VectorE's first entry of exec 1 waited 100 ns from that execution's start */
	synth_insn(s, 1, VNEF_OP_COPY, 100, 200, 0);
	s->r[s->n - 1].exec_seq = 1;
	s->r[s->n - 1].sem_wait = 0;
	AEQ(synth_run(s, 0), 0);
	EQ(s->m.nexec, 2);
	EQ(s->m.total_ps, 1000 * NS);
	EQ(s->m.unit[0].active_ps, 800 * NS);
	AEQ(vnp_tl_track_len(&s->tl, 0), 2);
	EQ(vnp_tl_start(&s->tl, s->tl.track_off[0] + 1), 600 * NS);
	EQ(s->m.unit[1].wait_ps, 100 * NS);
	EQ(s->m.overlap_ps[0][1], 100 * NS);
	synth_free(s);
}

TEST(cores_are_swept_apart)
{
	struct synth *s = synth_new();
	struct vneuron_trace_record r[2];

	/* core 0: TensorE [0,100); core 1: VectorE [0,100) and DMA [0,50) */
	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 100, 10);
	synth_insn(s, 1, VNEF_OP_COPY, 0, 100, 0);
	synth_dma(s, 0, 0, 50, 65536, VNEF_MEM_HBM, VNEF_MEM_SBUF, ~0ull);
	memcpy(r, s->r + 1, sizeof(r));
	s->n = 1;
	AEQ(synth_run(s, 0), 0);
	vnp_analysis_free(&s->a);
	vnp_metrics_free(&s->m);
	vnp_tl_free(&s->tl);
	vnp_tl_init(&s->tl, &vn_model_trn1, &s->prog);
	AEQ(vnp_tl_add(&s->tl, 0, s->r, 1), 0);
	AEQ(vnp_tl_add(&s->tl, 1, r, 2), 0);
	AEQ(vnp_tl_finish(&s->tl), 0);
	AEQ(vnp_metrics_compute(&s->tl, 0, &s->m), 0);
	EQ(s->m.total_ps, 100 * NS);
	EQ(s->m.core_ps, 200 * NS);
	/* different cores never overlap each other's engines */
	EQ(s->m.overlap_ps[0][1], 0);
	EQ(s->m.overlap_ps[1][VNP_UNIT_DMA], 50 * NS);
	EQ(s->m.overlap_ps[0][VNP_UNIT_DMA], 0);
	EQ(s->m.busy_ps, 200 * NS);
	EQ(s->m.compute_ps, 200 * NS);
	/* core 1's VectorE works while its own TensorE idles */
	EQ(s->m.tensor_idle_ps, 100 * NS);
	NEAR(s->m.dma_active_pct, 25);
	AEQ(vnp_analyze(&s->tl, &s->m, &s->a), 0);
	synth_free(s);
}

TEST(semaphore_waits)
{
	struct synth *s = synth_new();
	struct vneuron_trace_record *r;

	/* TensorE signals sem 0 at 100; VectorE ran [0,20) then waited until 100 */
	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 100, 10);
	s->r[s->n - 1].sem_signal = 0;
	synth_insn(s, 1, VNEF_OP_COPY, 0, 20, 0);
	synth_insn(s, 1, VNEF_OP_COPY, 100, 150, 0);
	r = &s->r[s->n - 1];
	r->sem_wait = 0;
	r->sem_value = 1;
	AEQ(synth_run(s, 0), 0);

	EQ(s->m.unit[1].wait_ps, 80 * NS);
	EQ(s->m.unit[1].waits, 1);
	EQ(s->m.wait_ps[1][0], 80 * NS);
	EQ(s->m.wait_n[1][0], 1);
	AEQ(s->m.ntop_wait, 1);
	EQ(s->m.top_wait[0].wait_ps, 80 * NS);
	EQ(s->m.top_wait[0].signaller, 0);
	EQ(vnp_tl_shape(&s->tl, s->m.top_wait[0].ev)->stream, 1);
	/* the wait is not busy time */
	EQ(s->m.unit[1].active_ps, 70 * NS);
	synth_free(s);
}

TEST(scopes_and_lines)
{
	struct synth *s = synth_new();

	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 100, 100);
	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 100, 200, 100);
	synth_insn(s, 1, VNEF_OP_ACTIVATE, 150, 300, 0);
	synth_dma(s, 2, 0, 50, 1024, VNEF_MEM_HBM, VNEF_MEM_SBUF, ~0ull);
	synth_debug(s, 0, 0, "k.c", 10, "mlp/fc1");
	synth_debug(s, 0, 1, "k.c", 10, "mlp/fc1");
	synth_debug(s, 1, 0, "k.c", 12, "mlp/act");
	synth_debug(s, VNEF_STREAM_DMA(2), 0, "k.c", 5, "mlp/fc1");
	AEQ(synth_run(s, 0), 0);

	AEQ(s->prog.nscopes, 2);
	AEQ(s->prog.nlines, 3);
	/* scope ids sort by name: mlp/act = 0, mlp/fc1 = 1 */
	EXPECT_STREQ(vnp_prog_scope(&s->prog, 0), "mlp/act");
	EXPECT_STREQ(vnp_prog_scope(&s->prog, 1), "mlp/fc1");
	EQ(s->m.scope[1].count, 3);
	EQ(s->m.scope[1].instr_ps, 250 * NS);
	EQ(s->m.scope[1].active_ps, 200 * NS);
	EQ(s->m.scope[1].flops, 200);
	EQ(s->m.scope[1].hbm_read, 1024);
	EQ(s->m.scope[1].dma_count, 1);
	EQ(s->m.scope[0].count, 1);
	EQ(s->m.scope[0].unit_ps[1], 150 * NS);
	EQ(s->m.scope[2].count, 0);	/* nothing without a scope */
	/* lines sort by (file, line): 5, 10, 12 */
	EQ(s->prog.lines[1].line, 10);
	EQ(s->m.line[1].count, 2);
	EQ(s->m.line[1].active_ps, 200 * NS);
	EQ(s->m.line[0].dma_count, 1);
	synth_free(s);
}

TEST(dma_series_conserve_bytes_and_time)
{
	struct synth *s = synth_new();
	double bytes = 0, inflight = 0;
	unsigned int k;

	synth_dma(s, 0, 0, 1000, 1000000, VNEF_MEM_HBM, VNEF_MEM_SBUF, ~0ull);
	synth_dma(s, 1, 100, 130, 3000, VNEF_MEM_HBM, VNEF_MEM_SBUF, ~0ull);
	synth_dma(s, 2, 500, 500, 77, VNEF_MEM_HBM, VNEF_MEM_SBUF, ~0ull);
	AEQ(synth_run(s, 7), 0);
	AEQ(s->m.nbins, 7);
	for (k = 0; k < s->m.nbins; k++) {
		bytes += s->m.tput[k] * (double)s->m.bin_ps * 1e-12;
		inflight += s->m.pending[k] * (double)s->m.bin_ps;
		EXPECT_GE(s->m.pending[k], 0);
		EXPECT_LE(s->m.pending[k], 2.0 + 1e-9);
	}
	EXPECT_LT(fabs(bytes - 1003077.0), 1e-3);
	EXPECT_LT(fabs(inflight - 1030.0 * NS), 1e-3);
	/* the first bin holds the 30 ns transfer: two in flight part of it */
	EXPECT_GT(s->m.pending[0], 1.0);
	synth_free(s);
}

TEST(bad_and_lost_records_are_counted)
{
	struct synth *s = synth_new();
	struct vneuron_trace_record *r;

	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 100, 1);
	r = synth_rec(s);
	r->kind = 99;				/* unknown kind */
	r = synth_rec(s);
	r->kind = VNEURON_TRACE_INSN;
	r->engine = 7;				/* no such engine */
	r = synth_rec(s);
	r->kind = VNEURON_TRACE_INSN;
	r->opcode = VNEF_OP_COUNT;		/* no such opcode */
	r = synth_rec(s);
	r->kind = VNEURON_TRACE_DMA;
	r->engine = VNEURON_TRACE_ENGINE_DMA;
	r->dma_queue = 16;			/* no such queue */
	r = synth_rec(s);
	r->kind = VNEURON_TRACE_INSN;
	r->model_start_ps = 10;
	r->model_end_ps = 5;			/* ends before it starts */
	r = synth_rec(s);
	r->kind = VNEURON_TRACE_LOST;
	r->count = 12;
	AEQ(synth_run(s, 0), 0);
	EQ(s->tl.malformed, 5);
	EQ(s->tl.lost, 12);
	EQ(s->m.event_count, 1);
	synth_free(s);
}

TEST(api_calls_are_counted_not_placed)
{
	struct synth *s = synth_new();
	struct vneuron_trace_record *r;
	struct vnp_view v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 100, 1);
	for (i = 0; i < 3; i++) {
		r = synth_rec(s);
		r->kind = VNEURON_TRACE_MARKER;
		r->engine = VNEURON_TRACE_ENGINE_CORE;
		r->opcode = i < 2 ? ND_API_EXEC : ND_API_OPEN;
		r->host_ns = 1000000 + i;
		r->count = 2000;		/* the call took 2 us of host time */
	}
	r = synth_rec(s);
	r->kind = VNEURON_TRACE_MARKER;
	r->opcode = 3;				/* a user marker */
	AEQ(synth_run(s, 0), 0);
	EQ(s->tl.api_calls[ND_API_EXEC - ND_API_MARKER], 2);
	EQ(s->tl.api_ns[ND_API_EXEC - ND_API_MARKER], 4000);
	EQ(s->tl.api_calls[ND_API_OPEN - ND_API_MARKER], 1);
	EQ(s->tl.nmarkers, 1);
	v = (struct vnp_view){ .tl = &s->tl, .m = &s->m, .a = &s->a, .top = 5 };
	f = open_memstream(&buf, &len);
	EQ(vnp_summary_text(f, &v), 0);
	EQ(vnp_summary_json(f, &v), 0);
	fclose(f);
	EXPECT_NE(strstr(buf, "open 1 (2.000 us); exec 2 (4.000 us)"), NULL);
	EXPECT_NE(strstr(buf, "\"exec\":{\"count\":2,\"host_ns\":4000}"), NULL);
	free(buf);
	synth_free(s);
}

TEST(unsorted_records_are_sorted_per_track)
{
	struct synth *s = synth_new();
	size_t i, t;
	uint32_t k;

	for (k = 0; k < 500; k++)
		synth_insn(s, k % 4, VNEF_OP_NOP, (k * 7919) % 1000 * 10, (k * 7919) % 1000 * 10 + 5, 0);
	/* reverse the input */
	for (i = 0; i < s->n / 2; i++) {
		struct vneuron_trace_record x = s->r[i];

		s->r[i] = s->r[s->n - 1 - i];
		s->r[s->n - 1 - i] = x;
	}
	AEQ(synth_run(s, 0), 0);
	AEQ(s->tl.n, 500);
	for (t = 0; t < 4; t++) {
		EQ(vnp_tl_track_len(&s->tl, t), 125);
		for (i = s->tl.track_off[t] + 1; i < s->tl.track_off[t + 1]; i++)
			EXPECT_LE(vnp_tl_start(&s->tl, i - 1), vnp_tl_start(&s->tl, i));
	}
	/* the merged iteration is in start order */
	{
		struct vnp_iter it;
		const struct vnp_ev *e;
		uint64_t last = 0;
		size_t n = 0;

		vnp_iter_init(&it, &s->tl);
		while ((e = vnp_iter_next(&it))) {
			EXPECT_LE(last, e->start);
			last = e->start;
			n++;
		}
		EQ(n, 500);
	}
	synth_free(s);
}

TEST(empty_profile)
{
	struct synth *s = synth_new();
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	AEQ(synth_run(s, 0), 0);
	EQ(s->m.total_ps, 0);
	EQ(s->m.event_count, 0);
	EQ(s->a.whole.cls, VNP_CLASS_NONE);
	EQ(s->a.n, 0);
	f = open_memstream(&buf, &len);
	{
		struct vnp_view v = { .tl = &s->tl, .m = &s->m, .a = &s->a, .top = 5 };

		EQ(vnp_summary_text(f, &v), 0);
		EQ(vnp_summary_json(f, &v), 0);
		EQ(vnp_json_events(f, &v), 0);
	}
	fclose(f);
	EXPECT_NE(strstr(buf, "event_count 0"), NULL);
	free(buf);
	synth_free(s);
}

TEST(sha256_known_answers)
{
	static const uint8_t abc[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40, 0xde, 0x5d,
		0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c, 0xb4, 0x10,
		0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	static const uint8_t two_blocks[32] = {	/* "abcdbcdecdef...nopq", 56 bytes */
		0x24, 0x8d, 0x6a, 0x61, 0xd2, 0x06, 0x38, 0xb8, 0xe5, 0xc0, 0x26, 0x93, 0x0c,
		0x3e, 0x60, 0x39, 0xa3, 0x3c, 0xe4, 0x59, 0x64, 0xff, 0x21, 0x67, 0xf6, 0xec,
		0xed, 0xd4, 0x19, 0xdb, 0x06, 0xc1,
	};
	uint8_t h[32];

	vnp_sha256("abc", 3, h);
	EXPECT_EQ(memcmp(h, abc, 32), 0);
	vnp_sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, h);
	EXPECT_EQ(memcmp(h, two_blocks, 32), 0);
}

/*
 * vnp_ev_fixed() and vnp_ev_dma_mems() read the finished timeline's copy of the
 * program's descriptors and instructions (profiler/model/progcache.c): the same answer
 * as from the program itself (the copy set aside), for every kind of entry, including
 * memories out of range, an opcode the program does not have there and pcs past the end.
 */
TEST(fixed_costs_from_the_copy_match_the_program)
{
	static struct vnef_instr in[VNEF_ENGINES][3];
	struct synth *s = synth_new();
	struct vneuron_trace_record *r;
	unsigned int k, n_fixed = 0, n_hbm = 0;
	size_t i;

	synth_dma(s, 0, 0, 1000, 4096, VNEF_MEM_HBM, VNEF_MEM_SBUF, ~0ull);
	synth_dma(s, 1, 0, 1000, 4096, VNEF_MEM_SBUF, VNEF_MEM_HBM, ~0ull);
	synth_dma(s, 2, 0, 3000, 4096, VNEF_MEM_HBM, VNEF_MEM_HBM, ~0ull);
	synth_dma(s, 3, 0, 1000, 4096, VNEF_MEM_SBUF, VNEF_MEM_PSUM, ~0ull);
	synth_dma(s, 4, 0, 1000, 4096, 7, VNEF_MEM_HBM, ~0ull);	/* out of range */
	s->desc[4][0].count[0] = 3;
	synth_dma(s, 5, 0, 1000, 4096, VNEF_MEM_HBM, VNEF_MEM_SBUF, ~0ull);
	r = &s->r[s->n - 1];
	r->pc = r->dma_desc = 200;				/* past the queue's end */
	in[0][0] = (struct vnef_instr){ .opcode = VNEF_OP_MULTIPLY_MOVING,
		.src0 = { .count = { 8, 4 } } };
	in[0][1] = (struct vnef_instr){ .opcode = VNEF_OP_TRANSPOSE, .src0 = { .partitions = 16 } };
	in[1][0] = (struct vnef_instr){ .opcode = VNEF_OP_TENSOR_TENSOR,
		.dst = { .count = { 64, 2 } } };
	in[1][1] = (struct vnef_instr){ .opcode = VNEF_OP_REDUCE,
		.src0 = { .count = { 100, 3 } } };
	in[2][0] = (struct vnef_instr){ .opcode = VNEF_OP_ACTIVATE,
		.dst = { .count = { 32, 1 } } };
	in[3][0] = (struct vnef_instr){ .opcode = VNEF_OP_TENSOR_SCALAR,
		.dst = { .count = { 512, 1 }, .partitions = 128 } };
	in[3][1] = (struct vnef_instr){ .opcode = VNEF_OP_IOTA, .dst = { .count = { 9, 9 } } };
	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 2000, 9000, 0);
	synth_insn(s, 0, VNEF_OP_TRANSPOSE, 9000, 12000, 0);
	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 12000, 13000, 0);	/* pc 2: past the end */
	synth_insn(s, 1, VNEF_OP_TENSOR_TENSOR, 2000, 9000, 0);
	synth_insn(s, 1, VNEF_OP_COPY, 9000, 12000, 0);			/* not the program's */
	synth_insn(s, 2, VNEF_OP_ACTIVATE, 2000, 90000, 0);
	synth_insn(s, 3, VNEF_OP_TENSOR_SCALAR, 2000, 90000, 0);
	synth_insn(s, 3, VNEF_OP_IOTA, 90000, 99000, 0);
	for (k = 0; k < VNEF_ENGINES; k++) {
		s->prog.instr[k] = in[k];
		s->prog.ninstr[k] = k == 2 ? 1 : 2;
	}
	AEQ(synth_run(s, 0), 0);
	ASSERT_EQ(s->tl.desc_prog, &s->prog);
	for (i = 0; i < s->tl.n; i++) {
		struct vnp_ev e = vnp_tl_ev(&s->tl, i);
		unsigned int src, dst, src2, dst2;
		uint64_t fx = vnp_ev_fixed(&s->tl, &e), fx2;

		vnp_ev_dma_mems(&s->tl, &e, &src, &dst);
		s->tl.desc_prog = NULL;				/* read the program */
		fx2 = vnp_ev_fixed(&s->tl, &e);
		vnp_ev_dma_mems(&s->tl, &e, &src2, &dst2);
		s->tl.desc_prog = &s->prog;
		EQ(fx, fx2) TH_LOG("event %zu stream %u pc %u", i, e.stream, e.pc);
		EQ(src, src2);
		EQ(dst, dst2);
		n_fixed += fx && fx < e.end - e.start;
		n_hbm += src == VNEF_MEM_HBM || dst == VNEF_MEM_HBM;
	}
	/* the cases above do reach the per-entry costs, not only the fallbacks */
	EXPECT_GE(n_fixed, 4u);
	EQ(n_hbm, 4);
	synth_free(s);
}

TEST_HARNESS_MAIN
