// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The trace ring protocol with a producer and a consumer thread over millions of records
 * (core/trace.c against libneurondev/ring.c): the consumer checks order, loss, duplication
 * and torn records through each record's sequence number (tring_util.h).
 */
#include "tring_util.h"

/* --- Two threads ----------------------------------------------------------------- */

struct run {
	struct tring t;
	uint64_t n;			/* records the producer writes */
	int wait_for_room;		/* producer waits instead of dropping */
	int zero_copy;			/* consumer uses peek/release */
	int slow;			/* consumer pauses now and then */
	int done;			/* producer finished (and flushed) */
	/* consumer results */
	uint64_t got, lost_records_sum, errors, last;
	int64_t first_bad;
};

static void *producer(void *arg)
{
	struct run *u = arg;
	struct vneuron_trace_record rec;
	uint64_t i;

	for (i = 0; i < u->n; i++) {
		mkrec(&rec, i);
		if (u->wait_for_room) {
			while (u->t.prod.head + REC -
			       __atomic_load_n(&u->t.cons->consumer_pos, __ATOMIC_ACQUIRE) >
			       u->t.prod.size) {
				vn_trace_flush(&u->t.prod);
				sched_yield();
			}
		}
		vn_trace_write(&u->t.prod, &rec);
	}
	vn_trace_stop(&u->t.prod);
	__atomic_store_n(&u->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Checks one record against the stream so far. */
static void consume_one(struct run *u, const struct vneuron_trace_record *r, uint64_t *gap)
{
	int64_t s;

	if (r->kind == VNEURON_TRACE_LOST) {
		u->lost_records_sum += r->count;
		*gap += r->count;
		return;
	}
	s = recseq(r);
	if (s < 0) {
		if (u->first_bad < 0)
			u->first_bad = (int64_t)u->got;
		u->errors++;
		return;
	}
	/*
	 * Stop mode: the next record, or after a gap announced by the LOST record right
	 * before it. Overwrite mode: later than the last one (losses are counted apart).
	 */
	if (u->t.prod.mode == VNEURON_TRACE_MODE_STOP ? (uint64_t)s != u->last + *gap :
	    (uint64_t)s < u->last) {
		if (u->first_bad < 0)
			u->first_bad = s;
		u->errors++;
	}
	u->last = (uint64_t)s + 1;
	*gap = 0;
	u->got++;
}

static void *consumer(void *arg)
{
	struct run *u = arg;
	static __thread struct vneuron_trace_record buf[256], held[256];
	const struct vneuron_trace_record *recs;
	uint64_t gap = 0, rounds = 0;
	ssize_t n, i;
	size_t bad;
	int done;

	for (;;) {
		done = __atomic_load_n(&u->done, __ATOMIC_ACQUIRE);
		if (u->zero_copy) {
			n = nd_ring_peek(&u->t.cons_r, &recs, 256);
			if (n > 0) {
				/* Use the records in place (copy only to check them later). */
				memcpy(held, recs, n * sizeof(*recs));
				bad = nd_ring_release(&u->t.cons_r, n);
				for (i = bad; i < n; i++)
					consume_one(u, &held[i], &gap);
			}
		} else {
			n = nd_ring_read(&u->t.cons_r, buf, 256);
			for (i = 0; i < n; i++)
				consume_one(u, &buf[i], &gap);
		}
		if (n < 0) {
			u->errors++;
			return NULL;
		}
		if (!n) {
			if (done)
				break;
			sched_yield();
		}
		if (u->slow && ++rounds % 64 == 0)
			usleep(50);
	}
	return NULL;
}

static void run_pair(struct run *u)
{
	pthread_t p, c;

	u->first_bad = -1;
	pthread_create(&c, NULL, consumer, u);
	pthread_create(&p, NULL, producer, u);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
}

/* Stop mode with a producer that waits for room: nothing lost, duplicated or reordered. */
TEST(threads_stop_mode_no_loss)
{
	static struct run u;

	memset(&u, 0, sizeof(u));
	AEQ(0, tring_setup(&u.t, 64 * 1024, VNEURON_TRACE_MODE_STOP, 64, 0));
	/* about 1,000 trips round the ring; 4 M went past the 30 s limit at load 16 */
	u.n = 1000000;
	u.wait_for_room = 1;
	u.zero_copy = 1;
	run_pair(&u);
	EQ(0, u.errors) TH_LOG("first bad %lld", (long long)u.first_bad);
	EQ(u.n, u.got);
	EQ(u.n, u.last);
	EQ(0, nd_ring_dropped(&u.t.cons_r));
	EQ(0, nd_ring_lost(&u.t.cons_r));
	tring_free(&u.t);
}

/* Stop mode flat out with a slow consumer: every drop counted and placed in the stream. */
TEST(threads_stop_mode_drops_accounted)
{
	static struct run u;

	memset(&u, 0, sizeof(u));
	AEQ(0, tring_setup(&u.t, 4096, VNEURON_TRACE_MODE_STOP, 8, 0));
	u.n = 2000000;
	u.slow = 1;
	run_pair(&u);
	EQ(0, u.errors) TH_LOG("first bad %lld", (long long)u.first_bad);
	EXPECT_GT(nd_ring_dropped(&u.t.cons_r), 0u);
	/* Every record is received or dropped, and every drop but the trailing ones is
	 * announced by a LOST record (those wait for the next write). */
	EQ(u.n, u.got + nd_ring_dropped(&u.t.cons_r));
	EQ(nd_ring_dropped(&u.t.cons_r), u.lost_records_sum + u.t.prod.pending_lost);
	tring_free(&u.t);
}

/* A drainer that sleeps until the producer's wake-up, as a poll()er would. */
struct pollrun {
	struct tring t;
	pthread_mutex_t m;
	pthread_cond_t cv;
	uint64_t n, got, errors, wakes_seen;
	int wakes, done;
};

static void poll_wake(void *arg)
{
	struct pollrun *u = arg;

	pthread_mutex_lock(&u->m);
	u->wakes++;
	pthread_cond_signal(&u->cv);
	pthread_mutex_unlock(&u->m);
}

static void *poll_producer(void *arg)
{
	struct pollrun *u = arg;
	struct vneuron_trace_record rec;
	uint64_t i;

	for (i = 0; i < u->n; i++) {
		mkrec(&rec, i);
		while (u->t.prod.head + REC -
		       __atomic_load_n(&u->t.cons->consumer_pos, __ATOMIC_ACQUIRE) > u->t.prod.size) {
			vn_trace_flush(&u->t.prod);
			sched_yield();
		}
		vn_trace_write(&u->t.prod, &rec);
	}
	vn_trace_stop(&u->t.prod);
	pthread_mutex_lock(&u->m);
	u->done = 1;			/* as closing the file would: wake the drainer */
	pthread_cond_signal(&u->cv);
	pthread_mutex_unlock(&u->m);
	return NULL;
}

static void *poll_consumer(void *arg)
{
	struct pollrun *u = arg;
	static struct vneuron_trace_record buf[512];
	ssize_t n, i;
	int seen = 0, done = 0;

	for (;;) {
		/* poll(): readable, else sleep until a wake-up (or the end). */
		pthread_mutex_lock(&u->m);
		while (!vn_trace_readable(&u->t.prod) && u->wakes == seen && !u->done)
			pthread_cond_wait(&u->cv, &u->m);
		seen = u->wakes;
		done = u->done;
		pthread_mutex_unlock(&u->m);
		while ((n = nd_ring_read(&u->t.cons_r, buf, 512)) > 0) {
			for (i = 0; i < n; i++)
				if (recseq(&buf[i]) != (int64_t)u->got++)
					u->errors++;
		}
		if (n < 0)
			u->errors++;
		if (done && !vn_trace_readable(&u->t.prod))
			break;
	}
	u->wakes_seen = seen;
	return NULL;
}

TEST(threads_poll_wakeups)
{
	static struct pollrun u;
	pthread_t p, c;

	memset(&u, 0, sizeof(u));
	pthread_mutex_init(&u.m, NULL);
	pthread_cond_init(&u.cv, NULL);
	u.n = 1000000;
	ASSERT_EQ(0, tring_setup(&u.t, 64 * 1024, VNEURON_TRACE_MODE_STOP, 64, 16 * 1024));
	/* tring_setup() registered its own callback: route wake-ups to this drainer. */
	u.t.prod.wake = poll_wake;
	u.t.prod.wake_arg = &u;
	pthread_create(&c, NULL, poll_consumer, &u);
	pthread_create(&p, NULL, poll_producer, &u);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	EQ(0, u.errors);
	EQ(u.n, u.got);
	EQ(0, nd_ring_dropped(&u.t.cons_r));
	/*
	 * A wake-up needs 16 KiB (256 records) published since the last one, and comes at
	 * the first publish after that, at most a batch (64 records) later; plus the final.
	 */
	EXPECT_GE((int)(u.n / 256 + 1), u.wakes);
	EXPECT_LE((int)(u.n / (256 + 64)), u.wakes);
	tring_free(&u.t);
}

static void overwrite_pair(struct __test_metadata *_metadata, int zero_copy)
{
	static struct run u;

	memset(&u, 0, sizeof(u));
	AEQ(0, tring_setup(&u.t, 8192, VNEURON_TRACE_MODE_OVERWRITE, 16, 0));
	u.n = 2000000;
	u.slow = 1;
	u.zero_copy = zero_copy;
	run_pair(&u);
	EQ(0, u.errors) TH_LOG("first bad %lld", (long long)u.first_bad);
	EXPECT_GT(nd_ring_lost(&u.t.cons_r), 0u);
	EQ(u.n, u.got + nd_ring_lost(&u.t.cons_r));
	EQ(u.n, u.last);		/* the last record always survives */
	EQ(0, nd_ring_dropped(&u.t.cons_r));
	tring_free(&u.t);
}

/* Overwrite mode, the producer laps a slow consumer: nothing torn, every loss counted. */
TEST(threads_overwrite_mode_read)
{
	overwrite_pair(_metadata, 0);
}

TEST(threads_overwrite_mode_zero_copy)
{
	overwrite_pair(_metadata, 1);
}

TEST_HARNESS_MAIN
