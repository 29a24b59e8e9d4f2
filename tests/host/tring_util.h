/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The trace ring tests' shared part (test_trace_ring.c, test_trace_ring_threads.c): a ring
 * as the glue maps it, and records whose every field derives from a sequence number.
 */
#ifndef TRING_UTIL_H
#define TRING_UTIL_H

#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vn_exec.h"
#include "vn_trace.h"
#include "neurondev.h"
#include "../../profiler/format/vntf.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

/* Compare as signed 64-bit: the harness is strict about mixed signedness. */
#define EQ(a, b)	EXPECT_EQ((int64_t)(a), (int64_t)(b))
#define AEQ(a, b)	ASSERT_EQ((int64_t)(a), (int64_t)(b))

#define PAGE	4096u
#define REC	64u

_Static_assert(sizeof(struct vneuron_trace_record) == 64, "record size");
_Static_assert(offsetof(struct vneuron_trace_record, model_start_ps) == 8, "layout");
_Static_assert(offsetof(struct vneuron_trace_record, exec_seq) == 32, "layout");
_Static_assert(offsetof(struct vneuron_trace_record, flops) == 40, "layout");
_Static_assert(offsetof(struct vneuron_trace_record, dma_desc) == 62, "layout");
_Static_assert(offsetof(struct vneuron_trace_ctrl, producer_pos) == 64, "own line");
_Static_assert(sizeof(struct vneuron_trace_ctrl) == 128, "ctrl size");
_Static_assert(sizeof(struct vneuron_trace_start) == 64, "start size");

/* A ring as the glue would map it: consumer page, then control page + data. */
struct tring {
	struct vneuron_trace_consumer *cons;
	unsigned char *map;		/* control page, data at +PAGE */
	size_t map_len;
	struct vn_trace_ring prod;
	struct nd_ring cons_r;
	int wakes;
};

static inline void on_wake(void *arg)
{
	__atomic_fetch_add(&((struct tring *)arg)->wakes, 1, __ATOMIC_RELAXED);
}

static inline int tring_setup(struct tring *t, uint64_t size, uint32_t mode, uint32_t batch,
		       uint32_t watermark)
{
	struct vn_trace_params p = {
		.mode = mode, .batch = batch, .watermark = watermark,
		.core = 1, .engine = VNEURON_ENGINE_VECTOR, .data_offset = PAGE,
	};
	int err;

	memset(t, 0, sizeof(*t));
	t->cons = aligned_alloc(PAGE, PAGE);
	t->map_len = PAGE + size;
	t->map = aligned_alloc(PAGE, t->map_len);
	if (!t->cons || !t->map)
		return -ENOMEM;
	memset(t->cons, 0, PAGE);
	memset(t->map, 0, t->map_len);
	err = vn_trace_ring_init(&t->prod, t->cons, (void *)t->map, t->map + PAGE, size, &p,
				 on_wake, t);
	if (err)
		return err;
	return nd_ring_init(&t->cons_r, t->cons, t->map, t->map_len);
}

static inline void tring_free(struct tring *t)
{
	free(t->cons);
	free(t->map);
}

static inline void mkrec(struct vneuron_trace_record *r, uint64_t seq)
{
	vn_trace_rec_init(r, VNEURON_TRACE_INSN, VNEURON_ENGINE_VECTOR);
	r->opcode = (uint16_t)(seq * 7);
	r->pc = (uint32_t)seq;
	r->model_start_ps = seq * 1000;
	r->model_end_ps = seq * 1000 + 999;
	r->host_ns = ~seq;
	r->exec_seq = (uint32_t)(seq >> 32);
	r->elements = (uint32_t)(seq * 2654435761u);
	r->flops = seq;
	r->bytes = (uint32_t)(seq ^ 0xa5a5a5a5u);
	r->sem_value = (uint32_t)(seq >> 3);
	r->dma_queue = (uint16_t)(seq >> 16);
	r->dma_desc = (uint16_t)seq;
}

/* The sequence number of an intact INSN record, or -1 if any field disagrees. */
static inline int64_t recseq(const struct vneuron_trace_record *r)
{
	struct vneuron_trace_record want;

	if (r->kind != VNEURON_TRACE_INSN)
		return -1;
	mkrec(&want, r->flops);
	return memcmp(&want, r, sizeof(want)) ? -1 : (int64_t)r->flops;
}

#endif
