// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The executor's control of executions: deadlocks, time limits, reset, cancel and
 * destroy, edge hooks, the queue's order, monitors and telemetry counters.
 */
#include "exec_core.h"

/* ---- faults ---- */

static void build_deadlock(struct vb *b)
{
	struct vnef_instr *in;

	vb_init(b);
	in = vb_op(b, VE, VNEF_OP_NOP);
	VB_WAIT(in, 1, 1);
	in->signal_mask = 1;
	in = vb_op(b, SE, VNEF_OP_NOP);
	VB_WAIT(in, 0, 1);
	in->signal_mask = 2;
}

TEST_F(ex, deadlock_is_detected_and_next_runs)
{
	struct vn_exec_status st;
	struct vn_counters cnt;
	struct vb b;

	build_deadlock(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_TIMEOUT, st.result);
	EXPECT_EQ(VN_REASON_DEADLOCK, st.reason);
	EXPECT_TRUE(st.stream == VE || st.stream == SE);
	EXPECT_EQ(0u, st.pc);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
	vn_core_counters(self->c, &cnt);
	EXPECT_EQ(1ull, cnt.exec_timeout);
	EXPECT_EQ(1ull, cnt.exec_ok);
}

TEST_F(ex, dma_deadlock_is_detected)
{
	struct vn_exec_status st;
	struct vnef_dma_desc *d;
	struct vnef_instr *in;
	struct vb b;

	vb_init(&b);
	d = vb_dma(&b, 5);
	VB_WAIT(d, 1, 1);
	d->chunk_bytes = 4;
	d->count[0] = d->count[1] = 1;
	d->src = vb_chip(SB, 0, 0, 0, 0, 0, 0);
	d->dst = vb_chip(SB, 1, 0, 0, 0, 0, 0);
	d->signal_mask = 1;
	in = vb_op(&b, GE, VNEF_OP_NOP);
	VB_WAIT(in, 0, 1);
	in->signal_mask = 2;
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_TIMEOUT, st.result);
	EXPECT_EQ(VN_REASON_DEADLOCK, st.reason);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
}

/* Many large instructions: long enough to be stopped midway. */
/* n ScalarE tanh over 128 x 16384 fp32 each (4000: far longer than any limit used). */
static uint8_t *build_long_n(uint64_t *size, uint32_t n)
{
	struct vnef_instr *in;
	float one = 1.0f;
	struct vb b;
	uint32_t i;

	vb_init(&b);
	for (i = 0; i < n; i++) {
		in = vb_op(&b, SE, VNEF_OP_ACTIVATE);
		in->op = VNEF_ACT_TANH;
		memcpy(&in->imm[0], &one, 4);
		in->src0 = vb_ap2(SB, F32, 0, 128, 0, 16384);
		in->dst = vb_ap2(SB, F32, 0, 128, 65536, 16384);
	}
	uint8_t *img = vb_finish(&b, size);

	vb_free(&b);
	return img;
}

static uint8_t *build_long(uint64_t *size)
{
	return build_long_n(size, 4000);
}

static void done_cb(struct vn_exec *e, void *arg)
{
	__atomic_add_fetch((int *)arg, 1, __ATOMIC_SEQ_CST);
}

TEST_F(ex, time_limit)
{
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_exec *e;
	uint64_t size;
	uint8_t *img = build_long(&size);
	struct vb b;

	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 20 * 1000000ull, NULL, NULL, &e));
	ASSERT_EQ(0, vn_exec_wait(e, 0));
	vn_exec_status(e, &st);
	EXPECT_EQ(VN_RES_TIMEOUT, st.result);
	EXPECT_EQ(VN_REASON_TIME_LIMIT, st.reason);
	vn_exec_put(e);
	vn_program_put(p);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
}

TEST_F(ex, time_limit_inside_one_instruction)
{
	struct vn_exec_status st;
	struct vnef_instr *in;
	struct vn_program *p;
	struct vn_exec *e;
	float one = 1.0f;
	uint64_t size;
	uint8_t *img;
	struct vb b;

	vb_init(&b);
	in = vb_op(&b, SE, VNEF_OP_ACTIVATE);
	in->op = VNEF_ACT_TANH;
	memcpy(&in->imm[0], &one, 4);
	in->src0 = vb_ap2(SB, VNEF_DT_BF16, 0, 128, 0, VNEF_MAX_FREE);
	in->dst = vb_ap2(SB, VNEF_DT_BF16, 0, 128, 0, VNEF_MAX_FREE);
	img = vb_finish(&b, &size);
	vb_free(&b);
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 2 * 1000000ull, NULL, NULL, &e));
	ASSERT_EQ(0, vn_exec_wait(e, 0));
	vn_exec_status(e, &st);
	EXPECT_EQ(VN_RES_TIMEOUT, st.result);
	EXPECT_EQ(VN_REASON_TIME_LIMIT, st.reason);
	EXPECT_EQ((uint32_t)SE, st.stream);
	EXPECT_EQ(0u, st.pc);
	vn_exec_put(e);
	vn_program_put(p);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
}

TEST_F(ex, reset_aborts_running_and_queued)
{
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_exec *e1, *e2;
	uint64_t size;
	uint8_t *img = build_long(&size);
	int calls = 0;
	struct vb b;

	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, done_cb, &calls, &e1));
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, done_cb, &calls, &e2));
	vn_core_sbuf(self->c, 7)[150000] = 0xab;
	usleep(20000);
	vn_core_reset(self->c);
	ASSERT_EQ(0, vn_exec_wait(e1, 0));
	ASSERT_EQ(0, vn_exec_wait(e2, 0));
	vn_exec_status(e1, &st);
	EXPECT_EQ(VN_RES_ABORTED, st.result);
	EXPECT_EQ(VN_REASON_RESET, st.reason);
	vn_exec_status(e2, &st);
	EXPECT_EQ(VN_RES_ABORTED, st.result);
	vn_exec_put(e1);
	vn_exec_put(e2);
	vn_program_put(p);
	/* the reset cleared SBUF */
	EXPECT_EQ(0, vn_core_sbuf(self->c, 7)[150000]);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
	usleep(1000);
	EXPECT_EQ(2, __atomic_load_n(&calls, __ATOMIC_SEQ_CST));
}

TEST_F(ex, cancel_running_and_queued)
{
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_exec *e1, *e2, *e3;
	uint64_t size;
	uint8_t *img = build_long(&size);
	struct vb b;

	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, NULL, NULL, &e1));
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, NULL, NULL, &e2));
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, NULL, NULL, &e3));
	vn_exec_cancel(e2);		/* queued: leaves the queue at once */
	vn_exec_status(e2, &st);
	EXPECT_EQ(VN_EXEC_DONE, st.state);
	EXPECT_EQ(VN_RES_ABORTED, st.result);
	EXPECT_EQ(VN_REASON_CANCEL, st.reason);
	usleep(10000);
	vn_exec_cancel(e1);		/* running: ends promptly */
	ASSERT_EQ(0, vn_exec_wait(e1, 0));
	vn_exec_status(e1, &st);
	EXPECT_EQ(VN_RES_ABORTED, st.result);
	EXPECT_EQ(VN_REASON_CANCEL, st.reason);
	vn_exec_cancel(e3);
	ASSERT_EQ(0, vn_exec_wait(e3, 0));
	vn_exec_cancel(e3);		/* done: nothing happens */
	vn_exec_put(e1);
	vn_exec_put(e2);
	vn_exec_put(e3);
	vn_program_put(p);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
}

TEST(destroy_stops_a_running_execution)
{
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_exec *e1, *e2;
	struct vn_core *c;
	uint64_t size;
	uint8_t *img = build_long(&size);
	int calls = 0;

	ASSERT_EQ(0, vn_core_create(NULL, "d", &c));
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	ASSERT_EQ(0, vn_exec_submit(c, p, NULL, 0, 0, done_cb, &calls, &e1));
	ASSERT_EQ(0, vn_exec_submit(c, p, NULL, 0, 0, done_cb, &calls, &e2));
	usleep(10000);
	vn_core_destroy(c);
	EXPECT_EQ(2, calls);
	vn_exec_status(e1, &st);
	EXPECT_EQ(VN_EXEC_DONE, st.state);
	EXPECT_EQ(VN_RES_ABORTED, st.result);
	EXPECT_EQ(VN_REASON_STOP, st.reason);
	vn_exec_status(e2, &st);
	EXPECT_EQ(VN_RES_ABORTED, st.result);
	vn_exec_put(e1);
	vn_exec_put(e2);
	vn_program_put(p);
}

/*
 * Destroyed at once: the execution is current (submitted to an idle core) but no worker
 * has picked it up, so destroy finishes it itself, under the core's lock as the end
 * hooks expect (the host layer aborts otherwise), with its gone hook called once.
 */
TEST(destroy_right_after_submit)
{
	static struct evlog l;
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_exec *e;
	struct vn_core *c;
	uint64_t size;
	uint8_t *img = build_long_n(&size, 4);
	int calls = 0, round;

	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	memset(&l, 0, sizeof(l));
	pthread_mutex_init(&l.m, NULL);
	for (round = 0; round < 20; round++) {
		ASSERT_EQ(0, vn_core_create(NULL, "d", &c));
		vn_core_set_hook(c, log_hook, &l);
		ASSERT_EQ(0, vn_exec_submit(c, p, NULL, 0, 0, done_cb, &calls, &e));
		vn_core_destroy(c);
		vn_exec_status(e, &st);
		EXPECT_EQ(VN_EXEC_DONE, st.state);
		EXPECT_TRUE(st.result == VN_RES_ABORTED || st.result == VN_RES_OK);
		vn_exec_put(e);
	}
	EXPECT_EQ(20, calls);
	vn_program_put(p);
}

struct edges {
	uint64_t seq[8];
	uint32_t result[8];
	int n;
	int events_at_end;
	struct evlog *log;
};

/* One observer: the event log, the edges seen, gone calls, and what to answer starts. */
struct observer {
	struct evlog *log;
	struct edges e;
	int gone;
	bool refuse;
};

static void obs_event(void *arg, const struct vn_event *ev)
{
	log_hook(((struct observer *)arg)->log, ev);
}

static bool obs_edge(void *arg, const struct vn_exec_status *st, bool end)
{
	struct observer *o = arg;
	struct edges *e = &o->e;

	if (!end && o->refuse)
		return false;
	if (e->n < 8) {
		e->seq[e->n] = st->seq | (end ? 1ull << 63 : 0);
		e->result[e->n] = st->result;
		e->n++;
	}
	if (end)
		e->events_at_end = o->log->n;
	return true;
}

static void obs_gone(void *arg)
{
	__atomic_add_fetch(&((struct observer *)arg)->gone, 1, __ATOMIC_SEQ_CST);
}

TEST_F(ex, edge_hook_and_unhook)
{
	static struct evlog l;
	struct observer o = { .log = &l };
	struct vn_exec_status st;
	struct vb b;

	memset(&l, 0, sizeof(l));
	pthread_mutex_init(&l.m, NULL);
	vn_core_set_hooks(self->c, obs_event, obs_edge, &o);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	build_deadlock(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	ASSERT_EQ(4, o.e.n);
	EXPECT_EQ(1ull, o.e.seq[0]);
	EXPECT_EQ(1ull | 1ull << 63, o.e.seq[1]);
	EXPECT_EQ((uint32_t)VN_RES_OK, o.e.result[1]);
	EXPECT_EQ(2ull, o.e.seq[2]);
	EXPECT_EQ(2ull | 1ull << 63, o.e.seq[3]);
	EXPECT_EQ((uint32_t)VN_RES_TIMEOUT, o.e.result[3]);
	EXPECT_EQ(2, o.e.events_at_end);	/* the first program's two entries, before its end */
	/* Nothing runs: gone is called before unhook returns. */
	EXPECT_TRUE(vn_core_unhook(self->c, &o, obs_gone));
	EXPECT_EQ(1, o.gone);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
	EXPECT_EQ(4, o.e.n);	/* unobserved */
	EXPECT_EQ(2u, l.n);
}

/* An observer that refuses an execution at its start sees none of it. */
TEST_F(ex, edge_hook_may_refuse_an_execution)
{
	static struct evlog l;
	struct observer o = { .log = &l, .refuse = true };
	struct vn_exec_status st;
	struct vb b;

	memset(&l, 0, sizeof(l));
	pthread_mutex_init(&l.m, NULL);
	vn_core_set_hooks(self->c, obs_event, obs_edge, &o);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(VN_RES_OK, st.result);
	EXPECT_EQ(0, o.e.n);
	EXPECT_EQ(0u, l.n);
	o.refuse = false;
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(2, o.e.n);
	EXPECT_EQ(2u, l.n);
	EXPECT_TRUE(vn_core_unhook(self->c, &o, obs_gone));
}

/*
 * Unhooking while an observed execution runs does not wait: the execution keeps its
 * hooks to its end (events and end edge delivered), gone runs once, at that end, and the
 * next execution is unobserved.
 */
TEST_F(ex, unhook_while_running_calls_gone_at_its_end)
{
	static struct evlog l;
	struct observer o = { .log = &l };
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_exec *e;
	uint64_t size;
	uint8_t *img = build_long_n(&size, 60);
	struct vb b;

	memset(&l, 0, sizeof(l));
	pthread_mutex_init(&l.m, NULL);
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	vn_core_set_hooks(self->c, obs_event, obs_edge, &o);
	ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, NULL, NULL, &e));
	while (!__atomic_load_n(&l.n, __ATOMIC_SEQ_CST))
		usleep(100);
	EXPECT_FALSE(vn_core_unhook(self->c, &o, obs_gone));
	EXPECT_EQ(0, __atomic_load_n(&o.gone, __ATOMIC_SEQ_CST));
	ASSERT_EQ(0, vn_exec_wait(e, 0));
	vn_exec_status(e, &st);
	EXPECT_EQ(VN_RES_OK, st.result);
	EXPECT_EQ(1, o.gone);
	ASSERT_EQ(2, o.e.n);		/* its start and its end */
	EXPECT_EQ(60, o.e.events_at_end);
	vn_exec_put(e);
	vn_program_put(p);
	build_small_ok(&b);
	ASSERT_EQ(0, run_b(self->c, &b, NULL, &st));
	EXPECT_EQ(2, o.e.n);
	EXPECT_EQ(1, o.gone);
}

TEST_F(ex, queue_runs_in_order_and_counts)
{
	struct vn_exec *e[8];
	struct vn_exec_status st;
	struct vn_counters cnt;
	struct vn_program *p;
	uint64_t size, seq = 0;
	uint8_t *img;
	struct vb b;
	int i;

	build_small_ok(&b);
	img = vb_finish(&b, &size);
	vb_free(&b);
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, NULL, NULL, &e[i]));
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, vn_exec_wait(e[i], 0));
		vn_exec_status(e[i], &st);
		EXPECT_EQ(VN_RES_OK, st.result);
		EXPECT_GT(st.seq, seq);
		seq = st.seq;
		vn_exec_put(e[i]);
	}
	vn_program_put(p);
	vn_core_counters(self->c, &cnt);
	EXPECT_EQ(8ull, cnt.exec_ok);
	EXPECT_EQ(16ull, cnt.instructions);
	EXPECT_GT(cnt.busy_ps[VE], 0ull);
}

/* The monitor sees every execution's start and end; telemetry counters add up. */
struct mon_log {
	int starts, ends;
	uint64_t last_seq;
	bool ordered;
};

static void mon_fn(void *arg, const struct vn_exec_status *st, bool end)
{
	struct mon_log *m = arg;

	if (!end) {
		m->starts++;
		m->ordered &= st->seq == m->last_seq + 1;
		m->last_seq = st->seq;
	} else {
		m->ends++;
		m->ordered &= st->seq == m->last_seq;
	}
}

TEST_F(ex, monitor_and_telemetry_counters)
{
	struct mon_log m = { .ordered = true };
	struct vn_core_stats stats = { 0 }, snap;
	struct vn_exec *e[4];
	struct vn_counters cnt;
	struct vn_program *p;
	uint64_t size, busy = 0;
	uint8_t *img;
	struct vb b;
	int i;

	vn_core_set_stats(self->c, &stats);
	vn_core_set_monitor(self->c, mon_fn, &m);
	build_small_ok(&b);
	img = vb_finish(&b, &size);
	vb_free(&b);
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	free(img);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, vn_exec_submit(self->c, p, NULL, 0, 0, NULL, NULL, &e[i]));
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, vn_exec_wait(e[i], 0));
		vn_exec_put(e[i]);
	}
	vn_program_put(p);
	vn_core_set_monitor(self->c, NULL, NULL);
	vn_core_set_stats(self->c, NULL);
	EXPECT_EQ(4, m.starts);
	EXPECT_EQ(4, m.ends);
	EXPECT_TRUE(m.ordered);
	ASSERT_TRUE(vn_core_stats_read(&stats, &snap));
	vn_core_counters(self->c, &cnt);
	EXPECT_EQ(4ull, snap.results[VN_RES_OK]);
	EXPECT_EQ(4ull, snap.c[VN_STAT_EXEC_OK].total);
	EXPECT_EQ(cnt.instructions, snap.instructions);
	EXPECT_EQ(cnt.descriptors, snap.descriptors);
	EXPECT_EQ(cnt.model_ps, snap.model_ps);
	EXPECT_GT(snap.host_ns, 0ull);
	for (i = 0; i < VNEF_STREAMS; i++) {
		EXPECT_EQ(cnt.busy_ps[i], snap.stream_busy_ps[i]);
		busy += snap.stream_busy_ps[i];
	}
	/* busy_time_ns is counted per execution, rounded down each time */
	EXPECT_GE(busy / 1000, snap.c[VN_STAT_BUSY_NS].total);
	EXPECT_LE(busy / 1000, snap.c[VN_STAT_BUSY_NS].total + 4);
	EXPECT_EQ(snap.begin, snap.end);
	/* A writer in progress makes a read fail rather than return a torn copy. */
	stats.begin++;
	EXPECT_FALSE(vn_core_stats_read(&stats, &snap));
}

TEST_HARNESS_MAIN
