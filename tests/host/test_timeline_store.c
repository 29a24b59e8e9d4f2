// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The timeline's compact event store (profiler/model/events.c): every event read back
 * exactly as added, whatever the order it came in; a program run many times keeps few
 * shapes; a hostile profile whose every event differs (fields, execution, durations
 * past 32 bits) is stored and read back right, with tables bounded by its events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vn_model.h"
#include "../../profiler/model/timeline.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define EQ(a, b)	EXPECT_EQ((int64_t)(a), (int64_t)(b))
#define AEQ(a, b)	ASSERT_EQ((int64_t)(a), (int64_t)(b))

/* An instruction record of engine e (or, e >= VNEF_ENGINES, a descriptor of queue e - 4). */
static struct vneuron_trace_record rec(unsigned int e, uint32_t pc, uint32_t exec,
				       uint64_t start, uint64_t dur, uint64_t salt)
{
	struct vneuron_trace_record r;

	memset(&r, 0, sizeof(r));
	if (e < VNEF_ENGINES) {
		r.kind = VNEURON_TRACE_INSN;
		r.engine = (uint8_t)e;
		r.opcode = (uint16_t)(salt % VNEF_OP_COUNT);
		r.flops = salt * 7919;
	} else {
		r.kind = VNEURON_TRACE_DMA;
		r.engine = VNEURON_TRACE_ENGINE_DMA;
		r.dma_queue = (uint16_t)(e - VNEF_ENGINES);
	}
	r.pc = pc;
	r.exec_seq = exec;
	r.model_start_ps = start;
	r.model_end_ps = start + dur;
	r.bytes = (uint32_t)(salt * 31);
	r.elements = (uint32_t)(salt * 17);
	r.sem_wait = salt % 3 ? VNEURON_TRACE_NO_SEM : (uint16_t)(salt % 16);
	r.sem_signal = salt % 5 ? VNEURON_TRACE_NO_SEM : (uint16_t)(salt % 16);
	return r;
}

/* What the timeline should hold for record r of core 0. */
static struct vnp_ev want(const struct vneuron_trace_record *r)
{
	struct vnp_ev e = {
		.start = r->model_start_ps, .end = r->model_end_ps,
		.flops = r->kind == VNEURON_TRACE_INSN ? r->flops : 0, .pc = r->pc,
		.bytes = r->bytes, .elements = r->elements, .exec = r->exec_seq,
		.opcode = r->kind == VNEURON_TRACE_DMA ? VNP_OP_DMA : r->opcode,
		.sem_wait = r->sem_wait, .sem_signal = r->sem_signal,
		.stream = (uint8_t)(r->kind == VNEURON_TRACE_DMA ?
				    VNEF_STREAM_DMA(r->dma_queue) : r->engine),
	};
	return e;
}

static int cmp_ev(const void *a, const void *b)
{
	const struct vnp_ev *x = a, *y = b;

	if (vnp_ev_track(x) != vnp_ev_track(y))
		return vnp_ev_track(x) < vnp_ev_track(y) ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->exec != y->exec)
		return x->exec < y->exec ? -1 : 1;
	return vnp_cmp(x->pc, y->pc);
}

static int same(const struct vnp_ev *a, const struct vnp_ev *b)
{
	return a->start == b->start && a->end == b->end && a->flops == b->flops &&
	       a->pc == b->pc && a->bytes == b->bytes && a->elements == b->elements &&
	       a->exec == b->exec && a->opcode == b->opcode && a->sem_wait == b->sem_wait &&
	       a->sem_signal == b->sem_signal && a->stream == b->stream && a->core == b->core;
}

/* Every event of tl as want[] (sorted) says, by index and by the merged walk. */
static int check_all(const struct vnp_timeline *tl, const struct vnp_ev *w, size_t n)
{
	struct vnp_iter *it = malloc(sizeof(*it));
	const struct vnp_ev *e;
	uint64_t last = 0;
	size_t i, k = 0;
	int bad = 0;

	if (!it || tl->n != n)
		bad = 1;
	for (i = 0; i < n && !bad; i++) {
		struct vnp_ev got = vnp_tl_ev(tl, i);

		if (!same(&got, &w[i]) || vnp_tl_start(tl, i) != w[i].start ||
		    vnp_tl_end(tl, i) != w[i].end || vnp_tl_ev_exec(tl, i) != w[i].exec ||
		    vnp_tl_shape(tl, i)->pc != w[i].pc) {
			fprintf(stderr, "event %zu differs\n", i);
			bad = 1;
		}
	}
	if (!bad) {
		vnp_iter_init(it, tl);
		while ((e = vnp_iter_next(it))) {
			if (it->idx >= n || !same(e, &w[it->idx]) || e->start < last)
				bad = 1;
			last = e->start;
			k++;
		}
		bad |= k != n;
	}
	free(it);
	return bad;
}

TEST(a_repeated_program_keeps_few_shapes)
{
	enum { EXECS = 50, PCS = 40, STREAMS = 6 };
	static struct vneuron_trace_record r[EXECS * PCS * STREAMS];
	static struct vnp_ev w[EXECS * PCS * STREAMS];
	struct vnp_timeline tl;
	uint64_t t = 0;
	size_t n = 0, i;
	unsigned int x, p, s;

	for (x = 0; x < EXECS; x++)
		for (p = 0; p < PCS; p++)
			for (s = 0; s < STREAMS; s++) {
				r[n] = rec(s, p, x, t + p * 1000, 500 + s, p * STREAMS + s);
				w[n] = want(&r[n]);
				n++;
			}
	vnp_tl_init(&tl, &vn_model_trn1, NULL);
	AEQ(vnp_tl_add(&tl, 0, r, n), 0);
	EQ(tl.shapes_direct, 0);
	AEQ(vnp_tl_finish(&tl), 0);
	/* one shape an instruction of a stream, one run an execution of a track */
	EQ(tl.nshapes, PCS * STREAMS);
	EQ(tl.nruns, EXECS * STREAMS);
	EQ(tl.nlongd, 0);
	/* executions with their own clocks are laid end to end: shift the wanted times */
	for (i = 0; i < n; i++) {
		uint64_t sh = vnp_tl_exec(&tl, 0, w[i].exec)->shift;

		w[i].start += sh;
		w[i].end += sh;
	}
	qsort(w, n, sizeof(*w), cmp_ev);
	EQ(check_all(&tl, w, n), 0);
	vnp_tl_free(&tl);
}

/*
 * A hostile profile: every event its own shape, a new execution at every event of a
 * track, durations past 2^32 ps, records in a scrambled order; each read back exactly,
 * and the tables bounded by the events (no more shapes, runs or long durations).
 */
static void every_event_distinct(struct __test_metadata *_metadata, uint64_t shapes_try)
{
	enum { N = 20000 };
	struct vneuron_trace_record *r = calloc(N, sizeof(*r));
	struct vnp_ev *w = calloc(N, sizeof(*w));
	struct vnp_timeline tl;
	size_t i, nlong = 0;

	ASSERT_NE(r, NULL);
	ASSERT_NE(w, NULL);
	for (i = 0; i < N; i++) {
		unsigned int s = (unsigned int)(i % 7);
		uint64_t dur = i % 11 == 0 ? (1ull << 32) + i : i % 13 == 0 ? UINT32_MAX : i;
		/* one execution starting at 0 each: the layout leaves all times alone */
		r[i] = rec(s, (uint32_t)(i * 2654435761u % 100003), 0, (uint64_t)i * 3 % 5000,
			   dur, i + 1);
		r[i].exec_seq = (uint32_t)(i % 2);	/* alternating within a track */
		nlong += dur >= UINT32_MAX;
	}
	/* scramble: a fixed permutation */
	for (i = N - 1; i > 0; i--) {
		size_t j = (i * 48271u + 11) % (i + 1);
		struct vneuron_trace_record x = r[i];

		r[i] = r[j];
		r[j] = x;
	}
	vnp_tl_init(&tl, &vn_model_trn1, NULL);
	tl.shapes_try = shapes_try;
	/* in uneven calls, as a reader hands out chunks */
	AEQ(vnp_tl_add(&tl, 0, r, 777), 0);
	AEQ(vnp_tl_add(&tl, 0, r + 777, N - 777), 0);
	/* interning stopped paying: each event has its own shape, no hash table kept */
	EQ(tl.shapes_direct, shapes_try <= N);
	EQ(tl.shape_hash == NULL, shapes_try <= N);
	AEQ(vnp_tl_finish(&tl), 0);
	EQ(tl.malformed, 0);
	EQ(tl.nshapes, N);
	EXPECT_LE(tl.nruns, (size_t)N);
	EQ(tl.nlongd, nlong);
	for (i = 0; i < N; i++) {
		uint64_t sh = vnp_tl_exec(&tl, 0, r[i].exec_seq)->shift;

		w[i] = want(&r[i]);
		/* exec 1 is laid after exec 0 */
		w[i].start += sh;
		w[i].end += sh;
	}
	qsort(w, N, sizeof(*w), cmp_ev);
	EQ(check_all(&tl, w, N), 0);
	vnp_tl_free(&tl);
	free(r);
	free(w);
}

TEST(every_event_distinct_in_any_order)
{
	every_event_distinct(_metadata, VNP_SHAPES_TRY);
}

/* The same once interning has stopped paying (from 4096 events on, not 16 M). */
TEST(every_event_distinct_interning_stopped)
{
	every_event_distinct(_metadata, 4096);
}

/*
 * The store's bound (--memory-limit): a hostile profile (every event its own shape and
 * execution: a hash, not a search, finds them) is stopped with -E2BIG soon after the store
 * passes it, at most one check's worth of events over; a repeated program of as many
 * events stays under the same bound, and no bound reads both whole.
 */
TEST(memory_limit_bounds_the_store)
{
	enum { N = 4 * VNP_MEM_CHECK, LIMIT = 8 << 20 };
	struct vneuron_trace_record *r = calloc(N, sizeof(*r));
	struct vnp_timeline tl;
	size_t i;
	int ret;

	ASSERT_NE(NULL, r);
	for (i = 0; i < N; i++)
		r[i] = rec(i % 4, (uint32_t)i, (uint32_t)i, i * 1000, 500, i + 1);
	vnp_tl_init(&tl, &vn_model_trn1, NULL);
	tl.mem_limit = LIMIT;
	ret = 0;
	for (i = 0; i < N && !ret; i += 1000)
		ret = vnp_tl_add(&tl, 0, r + i, N - i < 1000 ? N - i : 1000);
	EQ(ret, -E2BIG);
	EXPECT_LT(tl.n, (size_t)N);
	EXPECT_GT(vnp_tl_store_bytes(&tl), (uint64_t)LIMIT);
	/* checked every VNP_MEM_CHECK events: over by less than that many at 80 bytes */
	EXPECT_LT(vnp_tl_store_bytes(&tl), (uint64_t)LIMIT * 2 + VNP_MEM_CHECK * 80ull);
	vnp_tl_free(&tl);

	vnp_tl_init(&tl, &vn_model_trn1, NULL);
	AEQ(vnp_tl_add(&tl, 0, r, N), 0);	/* no bound: read whole */
	EQ(tl.n, N);
	vnp_tl_free(&tl);

	for (i = 0; i < N; i++)		/* 64 instructions, one execution each 256 events */
		r[i] = rec(i % 4, (uint32_t)(i % 64), (uint32_t)(i / 256), i * 1000, 500,
			   i % 64 + 1);
	vnp_tl_init(&tl, &vn_model_trn1, NULL);
	tl.mem_limit = LIMIT;
	AEQ(vnp_tl_add(&tl, 0, r, N), 0);
	EQ(tl.n, N);
	EXPECT_LE(vnp_tl_store_bytes(&tl), (uint64_t)LIMIT);
	AEQ(vnp_tl_finish(&tl), 0);
	vnp_tl_free(&tl);
	free(r);
}

TEST(empty_timeline)
{
	struct vnp_timeline tl;
	struct vnp_iter it;

	vnp_tl_init(&tl, &vn_model_trn1, NULL);
	AEQ(vnp_tl_finish(&tl), 0);
	EQ(tl.n, 0);
	vnp_iter_init(&it, &tl);
	EXPECT_EQ(vnp_iter_next(&it), NULL);
	vnp_tl_free(&tl);
}

TEST_HARNESS_MAIN
