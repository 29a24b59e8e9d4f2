// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The trace ring protocol: core/trace.c (producer) against libneurondev/ring.c (consumer)
 * in one thread (the two-thread runs: test_trace_ring_threads.c).
 * Every record carries a sequence number and fields derived from it, so the consumer
 * checks order, loss, duplication and torn records.
 */
#include "tring_util.h"
#include "vn_trace_event.h"

TEST(off_is_null)
{
	struct vn_trace_ring *none = NULL;

	ASSERT_FALSE(vn_trace_on(none));
}

TEST(producer_rejects_bad_parameters)
{
	static const uint64_t sizes[] = { 0, 2048, 4095, 6144, VNEURON_TRACE_MAX_RING * 2 };
	struct vneuron_trace_consumer cons;
	struct vneuron_trace_ctrl ctrl;
	struct vn_trace_params p = { .data_offset = PAGE };
	struct vn_trace_ring r;
	static unsigned char data[8192];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		EQ(-EINVAL, vn_trace_ring_init(&r, &cons, &ctrl, data, sizes[i], &p,
						      NULL, NULL));
	AEQ(0, vn_trace_ring_init(&r, &cons, &ctrl, data, 8192, &p, NULL, NULL));
	EQ(-EINVAL, vn_trace_ring_init(&r, NULL, &ctrl, data, 8192, &p, NULL, NULL));
	p.mode = 2;
	EQ(-EINVAL, vn_trace_ring_init(&r, &cons, &ctrl, data, 8192, &p, NULL, NULL));
	p.mode = VNEURON_TRACE_MODE_OVERWRITE;
	p.watermark = 8192;
	EQ(-EINVAL, vn_trace_ring_init(&r, &cons, &ctrl, data, 8192, &p, NULL, NULL));
	p.watermark = 8191;
	EQ(0, vn_trace_ring_init(&r, &cons, &ctrl, data, 8192, &p, NULL, NULL));
	p.batch = 8192 / 2 / REC + 1;	/* more than half the ring */
	EQ(-EINVAL, vn_trace_ring_init(&r, &cons, &ctrl, data, 8192, &p, NULL, NULL));
	p.batch = 8192 / 2 / REC;
	EQ(0, vn_trace_ring_init(&r, &cons, &ctrl, data, 8192, &p, NULL, NULL));
	p.data_offset = sizeof(ctrl) - 1;
	EQ(-EINVAL, vn_trace_ring_init(&r, &cons, &ctrl, data, 8192, &p, NULL, NULL));
}

TEST(control_page_contents)
{
	struct tring t;
	const struct vneuron_trace_ctrl *c;

	AEQ(0, tring_setup(&t, 4096, VNEURON_TRACE_MODE_STOP, 0, 0));
	c = (const void *)t.map;
	EQ(32, c->batch);		/* the default, shrunk to half the smallest ring */
	tring_free(&t);
	AEQ(0, tring_setup(&t, 8192, VNEURON_TRACE_MODE_STOP, 16, 0));
	c = (const void *)t.map;
	EQ(VNEURON_TRACE_CTRL_MAGIC, c->magic);
	EQ(VNEURON_TRACE_VERSION, c->version);
	EQ(REC, c->record_size);
	EQ(PAGE, c->data_offset);
	EQ(8192, c->data_size);
	EQ(4096, c->watermark);	/* default: half the ring */
	EQ(16, c->batch);
	EQ(1, c->core);
	EQ(VNEURON_ENGINE_VECTOR, c->engine);
	EQ(0, c->producer_pos);
	tring_free(&t);
}

TEST(consumer_rejects_bad_control_page)
{
	struct tring t;
	struct vneuron_trace_ctrl *c, saved;
	struct nd_ring r;

	AEQ(0, tring_setup(&t, 8192, VNEURON_TRACE_MODE_STOP, 0, 0));
	c = (void *)t.map;
	saved = *c;
	EQ(-EINVAL, nd_ring_init(&r, t.cons, t.map, sizeof(*c) - 1));
	EQ(-EINVAL, nd_ring_init(&r, t.cons, t.map, t.map_len - 1));
	EQ(-EINVAL, nd_ring_init(&r, NULL, t.map, t.map_len));
#define BAD(stmt) do { stmt; \
		{ EQ(-EINVAL, nd_ring_init(&r, t.cons, t.map, t.map_len)); } \
		*c = saved; } while (0)
	BAD(c->magic++);
	BAD(c->version = 2);
	BAD(c->record_size = 32);
	BAD(c->mode = 7);
	BAD(c->data_size = 6144);
	BAD(c->data_size = 2048);
	BAD(c->data_size = 16384);
	BAD(c->data_offset = 8);
	BAD(c->data_offset = PAGE + 64);
	BAD(c->data_offset = ~0ull);
	BAD(t.cons->consumer_pos = 64);			/* ahead of the producer */
	t.cons->consumer_pos = 0;
	c->producer_pos = 128;
	BAD(t.cons->consumer_pos = 3);			/* not a record boundary */
	t.cons->consumer_pos = 0;
#undef BAD
	EQ(0, nd_ring_init(&r, t.cons, t.map, t.map_len));
	tring_free(&t);
}

TEST(consumer_rejects_impossible_producer_position)
{
	const struct vneuron_trace_record *recs;
	struct vneuron_trace_record buf[4];
	struct vneuron_trace_ctrl *c;
	struct tring t;

	AEQ(0, tring_setup(&t, 8192, VNEURON_TRACE_MODE_STOP, 0, 0));
	c = (void *)t.map;
	c->producer_pos = 65;
	EQ(-EIO, nd_ring_peek(&t.cons_r, &recs, 4));
	EQ(-EIO, nd_ring_read(&t.cons_r, buf, 4));
	c->producer_pos = 8192 + 64;	/* more than a ring ahead in stop mode */
	EQ(-EIO, nd_ring_read(&t.cons_r, buf, 4));
	c->producer_pos = 128;
	EQ(2, nd_ring_read(&t.cons_r, buf, 4));
	c->producer_pos = 64;		/* went backwards */
	EQ(-EIO, nd_ring_read(&t.cons_r, buf, 4));
	tring_free(&t);

	AEQ(0, tring_setup(&t, 8192, VNEURON_TRACE_MODE_OVERWRITE, 0, 0));
	c = (void *)t.map;
	c->producer_pos = 64;
	c->write_pos = 64 + 8192;	/* reserving more than half a ring */
	EQ(-EIO, nd_ring_read(&t.cons_r, buf, 4));
	c->write_pos = 63;
	c->producer_pos = 0;
	EQ(-EIO, nd_ring_read(&t.cons_r, buf, 4));
	tring_free(&t);
}

TEST(publishes_per_batch_and_on_flush)
{
	struct vneuron_trace_record rec, out[64];
	struct tring t;
	int i;

	AEQ(0, tring_setup(&t, 8192, VNEURON_TRACE_MODE_STOP, 8, 0));
	for (i = 0; i < 8; i++) {
		mkrec(&rec, i);
		ASSERT_TRUE(vn_trace_write(&t.prod, &rec));
	}
	/* A full batch is published when the next record comes, or on flush. */
	EQ(0, nd_ring_available(&t.cons_r));
	mkrec(&rec, 8);
	ASSERT_TRUE(vn_trace_write(&t.prod, &rec));
	EQ(8, nd_ring_available(&t.cons_r));
	vn_trace_flush(&t.prod);
	EQ(9, nd_ring_available(&t.cons_r));
	AEQ(9, nd_ring_read(&t.cons_r, out, 64));
	for (i = 0; i < 9; i++)
		EQ(i, recseq(&out[i]));
	EQ(9 * REC, t.cons->consumer_pos);
	EQ(0, nd_ring_read(&t.cons_r, out, 64));
	tring_free(&t);
}

/*
 * vn_trace_put()'s words are the record's fields, each where the uapi puts it, and a
 * put dropped on a full ring is counted and reported with its modeled span.
 */
TEST(put_writes_the_fields_in_place)
{
	const struct vneuron_trace_record *recs;
	struct vneuron_trace_record want;
	struct tring t;
	int i;

	AEQ(0, tring_setup(&t, 4096, VNEURON_TRACE_MODE_STOP, 4, 0));
	memset(&want, 0, sizeof(want));
	want.kind = VNEURON_TRACE_DMA;
	want.engine = 0xfe;
	want.opcode = 0x1234;
	want.pc = 0xdeadbeef;
	want.model_start_ps = 0x0102030405060708ull;
	want.model_end_ps = 0x1112131415161718ull;
	want.host_ns = 0x2122232425262728ull;
	want.exec_seq = 0x31323334;
	want.elements = 0x41424344;
	want.flops = 0x5152535455565758ull;
	want.bytes = 0x61626364;
	want.sem_value = 0x71727374;
	want.sem_wait = 0x8182;
	want.sem_signal = 0x9192;
	want.dma_queue = 0xa1a2;
	want.dma_desc = 0xb1b2;
	for (i = 0; i < 66; i++)
		EQ(i < 64, vn_trace_put(&t.prod, vn_trace_w0(want.kind, want.engine, want.opcode,
							     want.pc),
					  want.model_start_ps, want.model_end_ps + i, want.host_ns,
					  vn_trace_w32(want.exec_seq, want.elements), want.flops,
					  vn_trace_w32(want.bytes, want.sem_value),
					  vn_trace_w7(want.sem_wait, want.sem_signal, want.dma_queue,
						      want.dma_desc)));
	vn_trace_flush(&t.prod);
	AEQ(64, nd_ring_peek(&t.cons_r, &recs, 100));
	EXPECT_EQ(0, memcmp(&want, &recs[0], sizeof(want)));
	EQ(0, nd_ring_release(&t.cons_r, 64));
	ASSERT_TRUE(vn_trace_put(&t.prod, 0, 1, 2, 3, 4, 5, 6, 7));
	vn_trace_flush(&t.prod);
	AEQ(2, nd_ring_peek(&t.cons_r, &recs, 100));
	/* the two dropped: their span from the first's start to the last's end */
	EQ(VNEURON_TRACE_LOST, recs[0].kind);
	EQ(2, recs[0].count);
	EQ(want.model_start_ps, recs[0].model_start_ps);
	EQ(want.model_end_ps + 65, recs[0].model_end_ps);
	tring_free(&t);
}

/*
 * A run of records through one writer (vn_trace_wput()) leaves the ring exactly as the
 * same records put one by one: the same bytes, the same drops and LOST records, the
 * same positions, across wraps of the ring and its slow paths.
 */
TEST(writer_run_matches_puts)
{
	struct vneuron_trace_record a[64], b[64];
	struct vn_trace_writer w;
	struct tring ta, tb;
	uint64_t i;
	ssize_t na, nb, k;

	AEQ(0, tring_setup(&ta, 4096, VNEURON_TRACE_MODE_STOP, 4, 0));
	AEQ(0, tring_setup(&tb, 4096, VNEURON_TRACE_MODE_STOP, 4, 0));
	vn_trace_writer_begin(&w, &ta.prod);
	for (i = 0; i < 1000; i++) {
		u64 w0 = vn_trace_w0(VNEURON_TRACE_INSN, 2, (u16)i, (u32)i);
		u64 w7 = vn_trace_w7((u16)(i * 3), (u16)(i * 5), (u16)i, (u16)(i >> 2));

		EQ(vn_trace_put(&tb.prod, w0, i * 357, i * 357 + 7, ~i, i << 32 | 9, i, i * 11,
				w7),
		   vn_trace_wput(&w, w0, i * 357, i * 357 + 7, ~i, i << 32 | 9, i, i * 11, w7));
		if (i % 97 != 96)
			continue;
		/* drain both, unevenly: some runs fill the ring and drop */
		vn_trace_writer_end(&w);
		vn_trace_flush(&ta.prod);
		vn_trace_flush(&tb.prod);
		EQ(tb.prod.head, ta.prod.head);
		EQ(tb.prod.dropped, ta.prod.dropped);
		do {
			na = nd_ring_read(&ta.cons_r, a, i % 2 ? 64 : 40);
			nb = nd_ring_read(&tb.cons_r, b, i % 2 ? 64 : 40);
			AEQ(nb, na);
			for (k = 0; k < na; k++) {
				if (a[k].kind == VNEURON_TRACE_LOST)	/* its host_ns is the clock's */
					a[k].host_ns = b[k].host_ns;
				EXPECT_EQ(0, memcmp(&a[k], &b[k], sizeof(a[k])));
			}
		} while (na > 0 && i % 3);
		vn_trace_writer_begin(&w, &ta.prod);
	}
	vn_trace_writer_end(&w);
	vn_trace_stop(&ta.prod);
	vn_trace_stop(&tb.prod);
	EQ(tb.prod.head, ta.prod.head);
	EQ(tb.prod.dropped, ta.prod.dropped);
	ASSERT_TRUE(ta.prod.dropped > 0);
	tring_free(&ta);
	tring_free(&tb);
}

/* The records of an event as core/trace_event.c wrote them field by field (its spec). */
static int spec_records(const struct vn_event *ev, struct vneuron_trace_record *out)
{
	bool cc = ev->stream == VNEF_STREAM_CC;
	bool dma = ev->stream >= VNEF_ENGINES && !cc;
	uint8_t engine = cc ? VNEURON_TRACE_ENGINE_CC : dma ? VNEURON_TRACE_ENGINE_DMA :
			      ev->stream;
	struct vneuron_trace_record *rec = out;
	uint64_t sig = ev->signal_mask;
	int n = 1;

	vn_trace_rec_init(rec, cc ? VNEURON_TRACE_CC : dma ? VNEURON_TRACE_DMA :
			  VNEURON_TRACE_INSN, engine);
	rec->opcode = dma ? 0 : (uint16_t)ev->opcode;
	rec->pc = ev->pc;
	rec->model_start_ps = ev->start_ps;
	rec->model_end_ps = ev->end_ps;
	rec->host_ns = ev->host_ns;
	rec->exec_seq = (uint32_t)ev->exec_seq;
	rec->elements = ev->elements > 0xffffffffull ? 0xffffffffu : (uint32_t)ev->elements;
	rec->flops = ev->flops;
	rec->bytes = ev->bytes > 0xffffffffull ? 0xffffffffu : (uint32_t)ev->bytes;
	if (ev->wait_sem != VN_EVT_NO_WAIT) {
		rec->sem_wait = (uint16_t)ev->wait_sem;
		rec->sem_value = ev->wait_value;
	}
	if (sig) {
		rec->sem_signal = (uint16_t)__builtin_ctzll(sig);
		sig &= sig - 1;
	}
	if (dma) {
		rec->dma_queue = (uint16_t)ev->dma_queue;
		rec->dma_desc = (uint16_t)ev->dma_desc;
	}
	if (cc) {
		rec->count = ev->cc_latest_ps;
		rec->elements = ev->cc_members;
		rec->dma_queue = (uint16_t)ev->cc_rank;
		rec->dma_desc = (uint16_t)ev->cc_last;
	}
	for (; sig; sig &= sig - 1) {
		rec = &out[n++];
		vn_trace_rec_init(rec, VNEURON_TRACE_SEM, engine);
		rec->pc = ev->pc;
		rec->model_start_ps = ev->end_ps;
		rec->model_end_ps = ev->end_ps;
		rec->host_ns = ev->host_ns;
		rec->exec_seq = (uint32_t)ev->exec_seq;
		rec->sem_signal = (uint16_t)__builtin_ctzll(sig);
		if (dma)
			rec->dma_queue = (uint16_t)ev->dma_queue;
	}
	return n;
}

/* vn_trace_event() writes every field of its records as the uapi says, byte for byte. */
TEST(event_records_carry_every_field)
{
	struct vneuron_trace_record want[8];
	const struct vneuron_trace_record *recs;
	struct vn_event ev = {
		.exec_seq = 0x123456789ull, .opcode = VNEF_OP_MULTIPLY_MOVING, .pc = 77,
		.start_ps = 1000, .end_ps = 5000, .host_ns = 99, .elements = 1ull << 33,
		.bytes = 4096, .flops = 1ull << 40, .wait_sem = 5, .wait_value = 3,
		.signal_mask = (1ull << 2) | (1ull << 9) | (1ull << 63), .dma_queue = ~0u,
		.dma_desc = ~0u, .cc_rank = 3, .cc_members = 4, .cc_last = 1,
		.cc_latest_ps = 4500,
	};
	static const uint32_t streams[] = { 0, 2, VNEF_ENGINES + 5, VNEF_STREAM_CC };
	struct tring t;
	unsigned int i;
	int n;

	AEQ(0, tring_setup(&t, 8192, VNEURON_TRACE_MODE_STOP, 4, 0));
	for (i = 0; i < 4; i++) {
		ev.stream = streams[i];
		ev.dma_queue = ev.stream >= VNEF_ENGINES ? 5 : ~0u;
		ev.dma_desc = ev.stream >= VNEF_ENGINES ? 11 : ~0u;
		ev.wait_sem = i == 1 ? VN_EVT_NO_WAIT : 5;
		ev.signal_mask = i == 2 ? 0 : ev.signal_mask;
		n = spec_records(&ev, want);
		vn_trace_event(&t.prod, &ev);
		vn_trace_flush(&t.prod);
		AEQ(n, nd_ring_peek(&t.cons_r, &recs, 100));
		EXPECT_EQ(0, memcmp(want, recs, n * sizeof(want[0]))) TH_LOG("stream %u",
									     ev.stream);
		nd_ring_release(&t.cons_r, n);
		ev.signal_mask = (1ull << 2) | (1ull << 9) | (1ull << 63);
	}
	tring_free(&t);
}

/*
 * The profiler's replay keeps an event's record from vn_trace_event_words() and
 * vn_trace_rec_words() (core/vn_trace_event.h): the very bytes the ring gets, and
 * the SEM records' too (vn_trace_sem_words()).
 */
TEST(event_words_are_the_ring_records)
{
	static const uint32_t streams[] = { 1, 3, VNEF_ENGINES, VNEF_ENGINES + 15, VNEF_STREAM_CC };
	struct vn_event ev = {
		.exec_seq = 7, .opcode = VNEF_OP_MULTIPLY_MOVING, .pc = 0x12345,
		.start_ps = 10, .end_ps = 20, .host_ns = 30, .elements = 5ull << 32,
		.bytes = 3, .flops = 1ull << 50, .wait_sem = 2, .wait_value = 9,
		.signal_mask = (1ull << 4) | (1ull << 17), .cc_rank = 2, .cc_members = 8,
		.cc_last = 6, .cc_latest_ps = 15,
	};
	const struct vneuron_trace_record *recs;
	struct vneuron_trace_record want[2];
	struct vn_trace_words w;
	struct tring t;
	unsigned int i;

	AEQ(0, tring_setup(&t, 8192, VNEURON_TRACE_MODE_STOP, 4, 0));
	for (i = 0; i < ARRAY_SIZE(streams); i++) {
		ev.stream = streams[i];
		ev.dma_queue = ev.stream >= VNEF_ENGINES ? ev.stream - VNEF_ENGINES : ~0u;
		ev.dma_desc = ev.stream >= VNEF_ENGINES ? 40 + i : ~0u;
		memset(want, 0xa5, sizeof(want));
		vn_trace_event_words(&w, &ev);
		vn_trace_rec_words(&want[0], &w);
		vn_trace_sem_words(&w, &ev, 17);
		vn_trace_rec_words(&want[1], &w);
		vn_trace_event(&t.prod, &ev);
		vn_trace_flush(&t.prod);
		AEQ(2, nd_ring_peek(&t.cons_r, &recs, 100));
		EXPECT_EQ(0, memcmp(want, recs, sizeof(want))) TH_LOG("stream %u", ev.stream);
		nd_ring_release(&t.cons_r, 2);
	}
	tring_free(&t);
}

TEST(reserve_commit)
{
	const struct vneuron_trace_record *recs;
	struct vneuron_trace_record *slot;
	struct tring t;
	int i;

	AEQ(0, tring_setup(&t, 4096, VNEURON_TRACE_MODE_STOP, 4, 0));
	for (i = 0; i < 70; i++) {
		slot = vn_trace_reserve(&t.prod);
		if (i < 64) {
			ASSERT_NE(NULL, slot);
			mkrec(slot, i);
			vn_trace_commit(&t.prod);
		} else {
			AEQ(NULL, slot);
		}
	}
	vn_trace_flush(&t.prod);
	EQ(6, t.prod.ctrl->dropped);
	AEQ(64, nd_ring_peek(&t.cons_r, &recs, 100));
	for (i = 0; i < 64; i++)
		EQ(i, recseq(&recs[i]));
	EQ(0, nd_ring_release(&t.cons_r, 64));
	slot = vn_trace_reserve(&t.prod);
	ASSERT_NE(NULL, slot);
	mkrec(slot, 100);
	vn_trace_commit(&t.prod);
	vn_trace_flush(&t.prod);
	AEQ(2, nd_ring_peek(&t.cons_r, &recs, 100));
	EQ(VNEURON_TRACE_LOST, recs[0].kind);
	EQ(6, recs[0].count);
	EQ(100, recseq(&recs[1]));
	tring_free(&t);
}

/* Stop mode, consumer stopped: exactly the first ring-full is kept, the rest counted. */
TEST(stop_mode_exact_drops)
{
	struct vneuron_trace_record rec, out[128];
	struct tring t;
	int i, ok = 0, dropped = 0;

	AEQ(0, tring_setup(&t, 4096, VNEURON_TRACE_MODE_STOP, 8, 0));
	for (i = 0; i < 1000; i++) {
		mkrec(&rec, i);
		if (vn_trace_write(&t.prod, &rec))
			ok++;
		else
			dropped++;
	}
	vn_trace_flush(&t.prod);
	EQ(64, ok);
	EQ(936, dropped);
	EQ(936, nd_ring_dropped(&t.cons_r));
	AEQ(64, nd_ring_read(&t.cons_r, out, 128));
	for (i = 0; i < 64; i++)
		EQ(i, recseq(&out[i]));

	/* Room again: a LOST record with the count and the modeled span, then the record. */
	mkrec(&rec, 1000);
	ASSERT_TRUE(vn_trace_write(&t.prod, &rec));
	vn_trace_flush(&t.prod);
	AEQ(2, nd_ring_read(&t.cons_r, out, 128));
	EQ(VNEURON_TRACE_LOST, out[0].kind);
	EQ(936, out[0].count);
	EQ(64 * 1000, out[0].model_start_ps);
	EQ(999 * 1000 + 999, out[0].model_end_ps);
	EQ(VNEURON_TRACE_NO_SEM, out[0].sem_wait);
	EQ(1000, recseq(&out[1]));
	EQ(0, nd_ring_lost(&t.cons_r));
	tring_free(&t);
}

/* A LOST record needs its own slot: with one slot free, the record is dropped too. */
TEST(stop_mode_lost_record_needs_room)
{
	struct vneuron_trace_record rec, out[128];
	struct tring t;
	int i;

	AEQ(0, tring_setup(&t, 4096, VNEURON_TRACE_MODE_STOP, 8, 0));
	for (i = 0; i < 65; i++) {
		mkrec(&rec, i);
		vn_trace_write(&t.prod, &rec);
	}
	AEQ(1, nd_ring_read(&t.cons_r, out, 1));	/* one slot free */
	mkrec(&rec, 65);
	EXPECT_FALSE(vn_trace_write(&t.prod, &rec));
	EQ(2, nd_ring_dropped(&t.cons_r));
	AEQ(63, nd_ring_read(&t.cons_r, out, 128));
	mkrec(&rec, 66);
	EXPECT_TRUE(vn_trace_write(&t.prod, &rec));
	vn_trace_flush(&t.prod);
	AEQ(2, nd_ring_read(&t.cons_r, out, 128));
	EQ(2, out[0].count);
	EQ(66, recseq(&out[1]));
	tring_free(&t);
}

/* userspace owns consumer_pos: nonsense there means a full ring, never a bad write. */
TEST(stop_mode_bogus_consumer_position)
{
	struct vneuron_trace_record rec, out[8];
	struct tring t;
	int i;

	AEQ(0, tring_setup(&t, 4096, VNEURON_TRACE_MODE_STOP, 4, 0));
	for (i = 0; i < 60; i++) {
		mkrec(&rec, i);
		ASSERT_TRUE(vn_trace_write(&t.prod, &rec));
	}
	t.cons->consumer_pos = 1ull << 40;	/* ahead of anything written */
	for (i = 60; i < 70; i++) {
		mkrec(&rec, i);
		vn_trace_write(&t.prod, &rec);
	}
	EQ(6, nd_ring_dropped(&t.cons_r));
	t.cons->consumer_pos = 64 * 60 + 3;	/* unaligned: rounded down */
	mkrec(&rec, 70);
	EXPECT_TRUE(vn_trace_write(&t.prod, &rec));
	vn_trace_flush(&t.prod);
	EQ(64 * 66, t.prod.ctrl->producer_pos);
	/* A consumer attaching at that position reads 60..63, the LOST record and 70. */
	t.cons->consumer_pos = 64 * 60;
	AEQ(0, nd_ring_init(&t.cons_r, t.cons, t.map, t.map_len));
	AEQ(6, nd_ring_read(&t.cons_r, out, 8));	/* across the end of the ring */
	EQ(60, recseq(&out[0]));
	EQ(63, recseq(&out[3]));
	EQ(VNEURON_TRACE_LOST, out[4].kind);
	EQ(6, out[4].count);
	EQ(70, recseq(&out[5]));
	tring_free(&t);
}

/* Overwrite mode, consumer stopped: exactly the last ring-full survives, the rest lost. */
TEST(overwrite_mode_exact_losses)
{
	struct vneuron_trace_record rec, out[128];
	const struct vneuron_trace_record *recs;
	struct tring t;
	int i;

	AEQ(0, tring_setup(&t, 4096, VNEURON_TRACE_MODE_OVERWRITE, 8, 0));
	for (i = 0; i < 1024; i++) {
		mkrec(&rec, i);
		ASSERT_TRUE(vn_trace_write(&t.prod, &rec));
	}
	vn_trace_flush(&t.prod);
	EQ(1024 * REC, t.prod.ctrl->write_pos);
	AEQ(64, nd_ring_read(&t.cons_r, out, 128));
	EQ(960, nd_ring_lost(&t.cons_r));
	for (i = 0; i < 64; i++)
		EQ(960 + i, recseq(&out[i]));
	EQ(0, nd_ring_dropped(&t.cons_r));

	/* Zero-copy, with the producer lapping the consumer while it holds records. */
	for (i = 1024; i < 1056; i++) {
		mkrec(&rec, i);
		vn_trace_write(&t.prod, &rec);
	}
	vn_trace_flush(&t.prod);
	AEQ(32, nd_ring_peek(&t.cons_r, &recs, 128));
	EQ(1024, recseq(&recs[0]));
	for (i = 1056; i < 1104; i++) {	/* overwrites 16 of the 32 held */
		mkrec(&rec, i);
		vn_trace_write(&t.prod, &rec);
	}
	vn_trace_flush(&t.prod);
	EQ(16, nd_ring_release(&t.cons_r, 32));
	EQ(960 + 16, nd_ring_lost(&t.cons_r));
	AEQ(48, nd_ring_read(&t.cons_r, out, 128));
	EQ(1056, recseq(&out[0]));
	EQ(1103, recseq(&out[47]));
	tring_free(&t);
}

TEST(readable_for_poll)
{
	struct vneuron_trace_record rec, out[8];
	struct tring t;

	ASSERT_EQ(0, tring_setup(&t, 4096, VNEURON_TRACE_MODE_STOP, 4, 0));
	EXPECT_FALSE(vn_trace_readable(&t.prod));
	mkrec(&rec, 0);
	vn_trace_write(&t.prod, &rec);
	EXPECT_FALSE(vn_trace_readable(&t.prod));	/* written, not published */
	vn_trace_flush(&t.prod);
	EXPECT_TRUE(vn_trace_readable(&t.prod));
	AEQ(1, nd_ring_read(&t.cons_r, out, 8));
	EXPECT_FALSE(vn_trace_readable(&t.prod));
	tring_free(&t);
}

TEST(watermark_wakes)
{
	struct vneuron_trace_record rec;
	struct tring t;
	int i;

	/* Batches of 4 records, a wake-up every 16 records published. */
	AEQ(0, tring_setup(&t, 8192, VNEURON_TRACE_MODE_STOP, 4, 16 * REC));
	for (i = 0; i < 15; i++) {
		mkrec(&rec, i);
		vn_trace_write(&t.prod, &rec);
	}
	vn_trace_flush(&t.prod);
	EQ(0, t.wakes);		/* 15 published: under the watermark */
	mkrec(&rec, 15);
	vn_trace_write(&t.prod, &rec);
	vn_trace_flush(&t.prod);
	EQ(1, t.wakes);
	for (i = 16; i < 100; i++) {
		mkrec(&rec, i);
		vn_trace_write(&t.prod, &rec);
	}
	/* Published at 20, 24, ... 96: wake-ups at 32, 48, 64, 80, 96. */
	EQ(6, t.wakes);
	vn_trace_flush(&t.prod);
	EQ(6, t.wakes);
	vn_trace_stop(&t.prod);		/* the final flush always wakes */
	EQ(7, t.wakes);
	vn_trace_stop(&t.prod);		/* nothing new: no wake-up */
	EQ(7, t.wakes);
	tring_free(&t);
}

TEST(executor_events_to_records)
{
	struct vn_event ev = {
		.exec_seq = 3, .stream = VNEURON_ENGINE_SCALAR, .opcode = 9, .pc = 17,
		.start_ps = 1000, .end_ps = 2000, .host_ns = 55, .elements = 1ull << 40,
		.bytes = 4096, .flops = 1ull << 35, .wait_sem = 5, .wait_value = 2,
		.signal_mask = (1ull << 7) | (1ull << 63), .dma_queue = ~0u, .dma_desc = ~0u,
	};
	struct vneuron_trace_record out[8];
	struct tring t;

	AEQ(0, tring_setup(&t, 4096, VNEURON_TRACE_MODE_STOP, 0, 0));
	EQ(2, vn_trace_ring_of(VNEURON_ENGINE_SCALAR));
	EQ(4, vn_trace_ring_of(VNEF_STREAM_DMA(9)));
	vn_trace_event(&t.prod, &ev);
	ev.stream = VNEF_STREAM_DMA(9);
	ev.opcode = VN_EVT_OPCODE_DMA;
	ev.wait_sem = VN_EVT_NO_WAIT;
	ev.signal_mask = 0;
	ev.dma_queue = 9;
	ev.dma_desc = 300;
	ev.flops = 0;
	vn_trace_event(&t.prod, &ev);
	vn_trace_flush(&t.prod);
	AEQ(3, nd_ring_read(&t.cons_r, out, 8));

	EQ(VNEURON_TRACE_INSN, out[0].kind);
	EQ(VNEURON_ENGINE_SCALAR, out[0].engine);
	EQ(9, out[0].opcode);
	EQ(17, out[0].pc);
	EQ(1000, out[0].model_start_ps);
	EQ(2000, out[0].model_end_ps);
	EQ(55, out[0].host_ns);
	EQ(3, out[0].exec_seq);
	EQ(0xffffffffu, out[0].elements);	/* saturated */
	EQ(1ull << 35, out[0].flops);
	EQ(4096, out[0].bytes);
	EQ(5, out[0].sem_wait);
	EQ(2, out[0].sem_value);
	EQ(7, out[0].sem_signal);
	EQ(0, out[0].dma_queue);
	EQ(0, out[0].dma_desc);

	EQ(VNEURON_TRACE_SEM, out[1].kind);	/* the second semaphore signalled */
	EQ(63, out[1].sem_signal);
	EQ(2000, out[1].model_start_ps);
	EQ(VNEURON_TRACE_NO_SEM, out[1].sem_wait);

	EQ(VNEURON_TRACE_DMA, out[2].kind);
	EQ(VNEURON_TRACE_ENGINE_DMA, out[2].engine);
	EQ(0, out[2].opcode);
	EQ(9, out[2].dma_queue);
	EQ(300, out[2].dma_desc);
	EQ(VNEURON_TRACE_NO_SEM, out[2].sem_wait);
	EQ(VNEURON_TRACE_NO_SEM, out[2].sem_signal);
	tring_free(&t);
}

/* Capture's path: rings in both modes drained into a profile, read back. */
TEST(rings_to_profile)
{
	struct vntf_worker wk = { .nr_workers = 1, .hostname = "h" };
	static const struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vneuron_model model = { .name = "trn1" };
	struct vneuron_trace_record rec;
	const struct vntf_info *info;
	struct vntf_reader *rd;
	struct vntf_writer *w;
	struct vntf_chunk c;
	struct tring s, o;
	char *buf = NULL, err[256];
	uint64_t got[2] = { 0, 0 }, lost_rec = 0, last[2] = { 0, 0 };
	size_t len = 0;
	FILE *f;
	int i, ret;

	AEQ(0, tring_setup(&s, 4096, VNEURON_TRACE_MODE_STOP, 8, 0));
	AEQ(0, tring_setup(&o, 4096, VNEURON_TRACE_MODE_OVERWRITE, 8, 0));
	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	AEQ(0, vntf_writer_create(&w, f));
	AEQ(0, vntf_write_model(w, &model));
	AEQ(0, vntf_write_clock(w, &clk));
	AEQ(0, vntf_write_worker(w, &wk));
	wk.stream = 1;
	wk.mode = VNEURON_TRACE_MODE_OVERWRITE;
	AEQ(0, vntf_write_worker(w, &wk));

	for (i = 0; i < 100; i++) {		/* 64 kept, 36 dropped */
		mkrec(&rec, i);
		vn_trace_write(&s.prod, &rec);
	}
	vn_trace_flush(&s.prod);
	EQ(64, vntf_drain_ring(w, 0, &s.cons_r));
	for (i = 100; i < 110; i++) {		/* a LOST record, then 10 */
		mkrec(&rec, i);
		vn_trace_write(&s.prod, &rec);
	}
	vn_trace_stop(&s.prod);
	EQ(11, vntf_drain_ring(w, 0, &s.cons_r));
	EQ(0, vntf_drain_ring(w, 0, &s.cons_r));
	for (i = 0; i < 1000; i++) {		/* the last 64 survive */
		mkrec(&rec, i);
		vn_trace_write(&o.prod, &rec);
	}
	vn_trace_stop(&o.prod);
	EQ(64, vntf_drain_ring(w, 1, &o.cons_r));
	AEQ(0, vntf_write_ring_lost(w, 0, &s.cons_r));
	AEQ(0, vntf_write_ring_lost(w, 1, &o.cons_r));
	AEQ(0, vntf_writer_finish(w, 5));
	fclose(f);

	AEQ(0, vntf_open_mem(&rd, buf, len, err, sizeof(err)));
	while ((ret = vntf_next(rd, &c)) > 0) {
		for (i = 0; i < (int)c.count; i++) {
			if (c.recs[i].kind == VNEURON_TRACE_LOST) {
				lost_rec += c.recs[i].count;
				continue;
			}
			EXPECT_LE(0, recseq(&c.recs[i]));
			last[c.stream] = recseq(&c.recs[i]);
			got[c.stream]++;
		}
	}
	AEQ(0, ret);
	info = vntf_reader_info(rd);
	EQ(74, got[0]);
	EQ(109, last[0]);
	EQ(36, lost_rec);
	EQ(36, info->streams[0].dropped);
	EQ(0, info->streams[0].overwritten);
	EQ(64, got[1]);
	EQ(999, last[1]);
	EQ(936, info->streams[1].overwritten);
	vntf_close(rd);
	free(buf);
	tring_free(&s);
	tring_free(&o);
}

TEST_HARNESS_MAIN
