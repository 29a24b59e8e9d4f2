// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Trace ring throughput: the producer's write path alone, then a producer thread and a
 * consumer thread over shared memory (MAP_SHARED, as the mmap of the rings will be),
 * the consumer reading either in place (zero-copy) or through a copy into a user buffer
 * (what a read() system call would do). Each figure is the best of a few runs, all in
 * this one process, so the ratio compares like with like.
 *
 *   BENCH trace_write_ns=X ns/record          (no consumer, overwrite mode, CPU time;
 *                                             a run of records through one writer)
 *   BENCH trace_put_ns=X ns/record            (the same, one vn_trace_put() per record)
 *   BENCH trace_off_ns=X ns/record            (tracing off: the engine's one branch)
 *   BENCH trace_drain_mmap_mrps=X Mrecords/s  (end to end, stop mode, no record lost)
 *   BENCH trace_drain_read_mrps=Y Mrecords/s
 *   BENCH trace_mmap_vs_read=R ratio
 *   BENCH trace_drain_mmap_cpu_mrps=X Mrecords/s  (per second of the busier thread's CPU)
 *   BENCH trace_drain_read_cpu_mrps=Y Mrecords/s
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "vn_trace.h"
#include "neurondev.h"

#define PAGE		4096u
#define REC		64u
/* Overridable with -D to explore; the defaults are what `make bench` reports. */
#ifndef RING_BYTES
#define RING_BYTES	(1u << 20)
#endif
#define WRITE_N		(20u * 1000 * 1000)
#define DRAIN_N		(30u * 1000 * 1000)
#define RUNS		5
#ifndef BATCH
#define BATCH		VN_TRACE_DEFAULT_BATCH	/* records per position update */
#endif
#ifndef PEEK_MAX
#define PEEK_MAX	256	/* records per zero-copy batch, = the read buffer */
#endif

struct shm_ring {
	struct vneuron_trace_consumer *cons;
	unsigned char *map;	/* control page + data */
	struct vn_trace_ring prod;
	struct nd_ring cons_r;
	int zero_copy;
	uint64_t sum;		/* what the consumer read, to check and to keep the reads */
	uint64_t got;
	double prod_cpu;	/* each thread's CPU time, waits included */
	double cons_cpu;
};

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double now_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static void *shm(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static void ring_setup(struct shm_ring *s, uint32_t mode)
{
	struct vn_trace_params p = {
		.mode = mode, .batch = BATCH, .data_offset = PAGE, .engine = VNEURON_ENGINE_TENSOR,
	};

	memset(s, 0, sizeof(*s));
	s->cons = shm(PAGE);
	s->map = shm(PAGE + RING_BYTES);
	if (vn_trace_ring_init(&s->prod, s->cons, (void *)s->map, s->map + PAGE, RING_BYTES,
			       &p, NULL, NULL) ||
	    nd_ring_init(&s->cons_r, s->cons, s->map, PAGE + RING_BYTES)) {
		fprintf(stderr, "bench_trace: ring set-up failed\n");
		exit(1);
	}
}

static void ring_free(struct shm_ring *s)
{
	munmap(s->cons, PAGE);
	munmap(s->map, PAGE + RING_BYTES);
}

/* One record as the engines write theirs (core/trace_event.c: vn_trace_wput()). */
static inline bool wput(struct vn_trace_writer *w, uint64_t i)
{
	return vn_trace_wput(w, vn_trace_w0(VNEURON_TRACE_INSN, VNEURON_ENGINE_TENSOR, 0,
					    (uint32_t)i),
			     i * 357, i * 357 + 714, 0, 0, i, 0,
			     vn_trace_w7(VNEURON_TRACE_NO_SEM, VNEURON_TRACE_NO_SEM, 0, 0));
}

/* The same record through vn_trace_put(): a writer per record, the head in memory between. */
static inline bool put(struct vn_trace_ring *r, uint64_t i)
{
	return vn_trace_put(r, vn_trace_w0(VNEURON_TRACE_INSN, VNEURON_ENGINE_TENSOR, 0,
					   (uint32_t)i),
			    i * 357, i * 357 + 714, 0, 0, i, 0,
			    vn_trace_w7(VNEURON_TRACE_NO_SEM, VNEURON_TRACE_NO_SEM, 0, 0));
}

/* per_put: one vn_trace_put() per record; else a run of records through one writer. */
static double bench_write(int per_put)
{
	struct vn_trace_writer w;
	struct shm_ring *s = calloc(1, sizeof(*s));	/* on the heap, as the engines' rings */
	double t;
	uint64_t i;

	if (!s)
		exit(1);
	ring_setup(s, VNEURON_TRACE_MODE_OVERWRITE);
	/* CPU time of this thread: the cost of a write, not the machine's other jobs. */
	t = clock_s(CLOCK_THREAD_CPUTIME_ID);
	if (per_put) {
		for (i = 0; i < WRITE_N; i++)
			put(&s->prod, i);
	} else {
		vn_trace_writer_begin(&w, &s->prod);
		for (i = 0; i < WRITE_N; i++)
			wput(&w, i);
		vn_trace_writer_end(&w);
	}
	vn_trace_stop(&s->prod);
	t = clock_s(CLOCK_THREAD_CPUTIME_ID) - t;
	ring_free(s);
	free(s);
	return t * 1e9 / WRITE_N;
}

/* Spin briefly, then give the CPU away: with 2 CPUs shared, a spinner can starve its peer. */
static void relax(unsigned int *spins)
{
	if (++*spins % 64)
		__builtin_ia32_pause();
	else
		sched_yield();
}

/* What an engine pays per instruction with tracing off: the test of its ring pointer. */
static double bench_off(void)
{
	struct vn_trace_ring *volatile ring_ptr = NULL;	/* as loaded from the engine */
	uint64_t i, work = 0;
	double t;

	t = clock_s(CLOCK_THREAD_CPUTIME_ID);
	for (i = 0; i < WRITE_N; i++) {
		struct vn_trace_ring *r = ring_ptr;

		if (vn_trace_on(r))
			put(r, i);
		work += i;
		__asm__ volatile("" : "+r"(work));	/* the loop is not optimised away */
	}
	t = clock_s(CLOCK_THREAD_CPUTIME_ID) - t;
	return t * 1e9 / WRITE_N;
}

static void *producer(void *arg)
{
	struct shm_ring *s = arg;
	struct vn_trace_ring *r = &s->prod;
	struct vn_trace_writer w;
	unsigned int spins = 0;
	uint64_t i;

	vn_trace_writer_begin(&w, r);
	for (i = 0; i < DRAIN_N; i++) {
		/*
		 * The bench wants every record: wait for room instead of dropping, looking at
		 * the consumer only when the producer's cached view says the ring is full.
		 */
		if (w.head >= w.stop) {
			vn_trace_writer_end(&w);
			while (r->room_end - r->head < REC &&
			       r->head + REC - __atomic_load_n(&r->cons->consumer_pos,
							       __ATOMIC_ACQUIRE) > r->size) {
				vn_trace_flush(r);
				relax(&spins);
			}
			vn_trace_writer_begin(&w, r);
		}
		wput(&w, i);
	}
	vn_trace_writer_end(&w);
	vn_trace_stop(r);
	s->prod_cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

static void *consumer(void *arg)
{
	static struct vneuron_trace_record buf[256];
	struct shm_ring *s = arg;
	const struct vneuron_trace_record *recs;
	uint64_t sum = 0, got = 0;
	unsigned int spins = 0;
	ssize_t n, i;

	while (got < DRAIN_N) {
		if (s->zero_copy) {
			n = nd_ring_peek(&s->cons_r, &recs, PEEK_MAX);
			for (i = 0; i < n; i++)
				sum += recs[i].flops;
			if (n > 0)
				nd_ring_release(&s->cons_r, n);
		} else {
			n = nd_ring_read(&s->cons_r, buf, 256);
			for (i = 0; i < n; i++)
				sum += buf[i].flops;
		}
		if (n < 0) {
			fprintf(stderr, "bench_trace: ring error %zd\n", n);
			exit(1);
		}
		if (!n)
			relax(&spins);
		got += n;
	}
	s->sum = sum;
	s->got = got;
	s->cons_cpu = clock_s(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

/*
 * The machine's ceiling for the drain: the same two threads and 1 MiB of shared memory,
 * no ring protocol. The producer copies a batch (as many records as the ring's default
 * batch) from a private buffer into the shared one and publishes its position; the
 * consumer copies each published batch out and publishes its own. Positions on pages
 * of their own, as the ring's. What any ring costs above this is its protocol.
 */
struct ceiling {
	unsigned char *buf;
	uint64_t *prod_pos;
	uint64_t *cons_pos;
	uint64_t sum;
};

#define CEIL_BATCH	(64u * REC)

static void *ceiling_producer(void *arg)
{
	static unsigned char src[CEIL_BATCH];
	struct ceiling *c = arg;
	unsigned int spins = 0;
	uint64_t pos;

	memset(src, 1, sizeof(src));
	for (pos = 0; pos < (uint64_t)DRAIN_N * REC; pos += CEIL_BATCH) {
		while (pos + CEIL_BATCH - __atomic_load_n(c->cons_pos, __ATOMIC_ACQUIRE) >
		       RING_BYTES)
			relax(&spins);
		memcpy(c->buf + pos % RING_BYTES, src, CEIL_BATCH);
		__atomic_store_n(c->prod_pos, pos + CEIL_BATCH, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void *ceiling_consumer(void *arg)
{
	static unsigned char dst[CEIL_BATCH];
	struct ceiling *c = arg;
	unsigned int spins = 0;
	uint64_t pos, sum = 0;

	for (pos = 0; pos < (uint64_t)DRAIN_N * REC; pos += CEIL_BATCH) {
		while (__atomic_load_n(c->prod_pos, __ATOMIC_ACQUIRE) < pos + CEIL_BATCH)
			relax(&spins);
		memcpy(dst, c->buf + pos % RING_BYTES, CEIL_BATCH);
		sum += dst[pos / CEIL_BATCH % CEIL_BATCH];
		__atomic_store_n(c->cons_pos, pos + CEIL_BATCH, __ATOMIC_RELEASE);
	}
	c->sum = sum;
	return NULL;
}

static double bench_ceiling(void)
{
	struct ceiling c;
	pthread_t p, q;
	double t;

	c.buf = shm(RING_BYTES);
	c.prod_pos = shm(PAGE);
	c.cons_pos = shm(PAGE);
	t = now_s();
	pthread_create(&q, NULL, ceiling_consumer, &c);
	pthread_create(&p, NULL, ceiling_producer, &c);
	pthread_join(p, NULL);
	pthread_join(q, NULL);
	t = now_s() - t;
	if (c.sum != (uint64_t)DRAIN_N * REC / CEIL_BATCH) {
		fprintf(stderr, "bench_trace: the ceiling's copy is wrong\n");
		exit(1);
	}
	munmap(c.buf, RING_BYTES);
	munmap(c.prod_pos, PAGE);
	munmap(c.cons_pos, PAGE);
	return DRAIN_N / t / 1e6;
}

/*
 * Records per second end to end (wall time); *cpu_mrps: per second of the busier thread's
 * CPU time, waits included: what the pair does while both have a CPU (both spin while they
 * wait, so with a CPU each the wall time is that thread's CPU time).
 */
static double bench_drain(int zero_copy, double *cpu_mrps)
{
	struct shm_ring s;
	pthread_t p, c;
	double t;

	ring_setup(&s, VNEURON_TRACE_MODE_STOP);
	s.zero_copy = zero_copy;
	t = now_s();
	pthread_create(&c, NULL, consumer, &s);
	pthread_create(&p, NULL, producer, &s);
	pthread_join(p, NULL);
	pthread_join(c, NULL);
	t = now_s() - t;
	if (s.got != DRAIN_N || s.sum != (uint64_t)DRAIN_N * (DRAIN_N - 1) / 2 ||
	    nd_ring_dropped(&s.cons_r)) {
		fprintf(stderr, "bench_trace: drained %llu records, wrong sum or drops\n",
			(unsigned long long)s.got);
		exit(1);
	}
	ring_free(&s);
	*cpu_mrps = DRAIN_N / (s.prod_cpu > s.cons_cpu ? s.prod_cpu : s.cons_cpu) / 1e6;
	return DRAIN_N / t / 1e6;
}

int main(void)
{
	double w = 1e9, pw = 1e9, off = 1e9, m = 0, rd = 0, mc = 0, rc = 0, ceil = 0, x, c;
	int i;

	for (i = 0; i < RUNS; i++) {
		x = bench_write(0);
		w = x < w ? x : w;
		x = bench_write(1);
		pw = x < pw ? x : pw;
		x = bench_off();
		off = x < off ? x : off;
		x = bench_drain(1, &c);
		m = x > m ? x : m;
		mc = c > mc ? c : mc;
		x = bench_drain(0, &c);
		rd = x > rd ? x : rd;
		rc = c > rc ? c : rc;
		x = bench_ceiling();
		ceil = x > ceil ? x : ceil;
	}
	printf("BENCH trace_write_ns=%.2f ns/record\n", w);
	printf("BENCH trace_put_ns=%.2f ns/record\n", pw);
	printf("BENCH trace_off_ns=%.2f ns/record\n", off);
	printf("BENCH trace_drain_mmap_mrps=%.1f Mrecords/s\n", m);
	printf("BENCH trace_drain_read_mrps=%.1f Mrecords/s\n", rd);
	printf("BENCH trace_mmap_vs_read=%.2f ratio\n", m / rd);
	printf("BENCH trace_drain_ceiling_mrps=%.1f Mrecords/s\n", ceil);
	printf("BENCH trace_drain_mmap_cpu_mrps=%.1f Mrecords/s\n", mc);
	printf("BENCH trace_drain_read_cpu_mrps=%.1f Mrecords/s\n", rc);
	return 0;
}
