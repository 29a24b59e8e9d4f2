// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Trace rings of vneuron.ko (kmod/trace.c): capture of libneurondev's ready-made kernels
 * through mmap, records against the program and against an untraced host run, both
 * modes' loss accounting, two profilers at once, every refused TRACE_START/STOP and
 * mmap, and closing the file while its rings are mapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vnprog.h"
#include "vneuron_trace.h"
#include "neurondev.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define MAXREC		(1u << 20)
#define NSTREAMS	(VNEF_ENGINES + VNEF_DMA_QUEUES)

struct image {
	void *img;
	size_t size;
	uint32_t len[NSTREAMS];		/* entries per stream */
	uint64_t in_bytes, out_bytes;
	const char *in, *in2, *out;
	uint64_t in2_bytes;
};

static int build(struct image *im, int matmul)
{
	struct nd_builder *b;
	unsigned int s;
	int ret;

	memset(im, 0, sizeof(*im));
	if (nd_builder_new(matmul ? "mm" : "exp", &b))
		return -1;
	if (matmul) {
		ret = nd_kernel_matmul(b, 256, 256, 512, ND_FP32, ND_FP32);
		im->in = "A";
		im->in_bytes = 256 * 256 * 4;
		im->in2 = "B";
		im->in2_bytes = 256 * 512 * 4;
		im->out = "C";
		im->out_bytes = 256 * 512 * 4;
	} else {
		ret = nd_kernel_exp(b, 256, 512, 1);
		im->in = "in";
		im->in_bytes = 256 * 512 * 4;
		im->out = "out";
		im->out_bytes = 256 * 512 * 4;
	}
	for (s = 0; !ret && s < NSTREAMS; s++)
		im->len[s] = nd_builder_stream_len(b, s);
	if (!ret)
		ret = nd_builder_finish(b, &im->img, &im->size);
	nd_builder_free(b);
	return ret;
}

/* A device file's loaded program with its buffers. */
struct runner {
	struct nd_device *dev;
	struct nd_program *prog;
	struct nd_mem *m[3];
	struct nd_bind b[3];
	unsigned int nb;
};

static int runner_init(struct runner *r, const struct image *im)
{
	struct nd_error e;

	memset(r, 0, sizeof(*r));
	if (nd_open(0, &r->dev, &e) || nd_program_load(r->dev, im->img, im->size, &r->prog, NULL))
		return -1;
	if (nd_mem_alloc(r->dev, im->in_bytes, &r->m[0]) ||
	    nd_mem_alloc(r->dev, im->out_bytes, &r->m[1]))
		return -1;
	r->b[0] = (struct nd_bind){ im->in, r->m[0] };
	r->b[1] = (struct nd_bind){ im->out, r->m[1] };
	r->nb = 2;
	if (im->in2) {
		if (nd_mem_alloc(r->dev, im->in2_bytes, &r->m[2]))
			return -1;
		r->b[2] = (struct nd_bind){ im->in2, r->m[2] };
		r->nb = 3;
	}
	return 0;
}

static int runner_run(struct runner *r, unsigned int core, struct nd_run_result *res)
{
	return nd_run(r->prog, core, r->b, r->nb, 0, res);
}

static void runner_free(struct runner *r)
{
	if (r->prog)
		nd_program_unload(r->prog);
	nd_close(r->dev);
}

/* A trace session and its consumers. */
struct tsess {
	struct nd_trace *t;
	unsigned int nr;
	struct nd_ring ring[8];
};

static int tsess_start(struct tsess *ts, struct nd_device *dev, unsigned int core,
		       uint32_t mode, uint64_t size)
{
	struct nd_trace_opts o = { .mode = mode, .ring_size = size };
	unsigned int i;

	memset(ts, 0, sizeof(*ts));
	if (nd_trace_start(dev, core, &o, &ts->t))
		return -1;
	ts->nr = nd_trace_nr_rings(ts->t);
	/* the four engines, the DMA worker, the CC-core */
	if (ts->nr != VNEF_ENGINES + 2)
		return -1;
	for (i = 0; i < ts->nr; i++) {
		if (nd_trace_ring(ts->t, i, &ts->ring[i]))
			return -1;
	}
	return 0;
}

/* Every record published so far on every ring, appended to recs (ring index in ringof). */
static size_t drain(struct tsess *ts, struct vneuron_trace_record *recs, uint8_t *ringof,
		    size_t have)
{
	unsigned int i;
	ssize_t n;

	for (i = 0; i < ts->nr; i++) {
		while (have < MAXREC &&
		       (n = nd_ring_read(&ts->ring[i], recs + have, MAXREC - have)) > 0) {
			memset(ringof + have, i, n);
			have += n;
		}
	}
	return have;
}

struct tally {
	uint64_t insn[VNEF_ENGINES], dma[VNEF_DMA_QUEUES], sem, start, end, lost, other;
	uint64_t per_ring[8];		/* every record but LOST */
	uint64_t end_model_ps;
	int bad;
};

static void tally(struct tally *t, const struct vneuron_trace_record *r, const uint8_t *ringof,
		  size_t n)
{
	size_t i;
	unsigned int w;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++) {
		const uint64_t *q = (const uint64_t *)&r[i];

		/* No kernel address: no word looks like one (0xffff8... and up). */
		for (w = 0; w < 8; w++)
			if (q[w] >= 0xffff800000000000ull)
				t->bad++;
		if (r[i].kind != VNEURON_TRACE_LOST)
			t->per_ring[ringof[i]]++;
		switch (r[i].kind) {
		case VNEURON_TRACE_INSN:
			if (r[i].engine >= VNEF_ENGINES || ringof[i] != r[i].engine)
				t->bad++;
			else
				t->insn[r[i].engine]++;
			break;
		case VNEURON_TRACE_DMA:
			if (r[i].engine != VNEURON_TRACE_ENGINE_DMA ||
			    r[i].dma_queue >= VNEF_DMA_QUEUES || ringof[i] != VNEF_ENGINES)
				t->bad++;
			else
				t->dma[r[i].dma_queue]++;
			break;
		case VNEURON_TRACE_SEM:
			t->sem++;
			break;
		case VNEURON_TRACE_EXEC_START:
			t->start++;
			break;
		case VNEURON_TRACE_EXEC_END:
			t->end++;
			t->end_model_ps = r[i].model_end_ps;
			if (r[i].opcode != VNEURON_EXEC_OK)
				t->bad++;
			break;
		case VNEURON_TRACE_LOST:
			t->lost += r[i].count;
			break;
		default:
			t->other++;
			break;
		}
	}
}

static int cmp_ev(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	int i;

	for (i = 0; i < 4; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

FIXTURE(tr)
{
	struct image exp, mm;
	struct nd_device *tdev;		/* the profiler's file */
	struct runner run;		/* the workload's file */
	struct vneuron_info info;
	struct vneuron_trace_record *recs;
	uint8_t *ringof;
};

FIXTURE_SETUP(tr)
{
	struct nd_error e;

	ASSERT_EQ(0, nd_open(0, &self->tdev, &e)) TH_LOG("%s", e.msg);
	ASSERT_EQ(0, nd_info(self->tdev, &self->info));
	if (!(self->info.caps & VNEURON_CAP_TRACE))
		SKIP(return, "no trace rings in this module");
	ASSERT_EQ(0, build(&self->exp, 0));
	ASSERT_EQ(0, build(&self->mm, 1));
	ASSERT_EQ(0, runner_init(&self->run, &self->exp)) TH_LOG("%s",
		self->run.dev ? nd_device_error(self->run.dev) : "open");
	self->recs = calloc(MAXREC, sizeof(*self->recs));
	self->ringof = calloc(MAXREC, 1);
	ASSERT_NE(NULL, self->recs);
	ASSERT_NE(NULL, self->ringof);
}

FIXTURE_TEARDOWN(tr)
{
	runner_free(&self->run);
	nd_close(self->tdev);
	free(self->exp.img);
	free(self->mm.img);
	free(self->recs);
	free(self->ringof);
}

/* Capture one execution of an image; counts against the program, times against the host. */
static void capture_check(struct __test_metadata *_metadata, FIXTURE_DATA(tr) *self,
			  const struct image *im)
{
	struct nd_host_tensor ht[3];
	struct nd_run_result rd, rh;
	const struct nd_event *ev;
	struct runner run;
	struct tsess ts;
	struct tally t;
	struct nd_host *h;
	struct nd_error e;
	uint64_t (*a)[4], (*b)[4];
	size_t n, nev, i, k = 0;
	unsigned int s;

	ASSERT_EQ(0, runner_init(&run, im)) TH_LOG("%s", nd_device_error(run.dev));
	ASSERT_EQ(0, tsess_start(&ts, self->tdev, 0, VNEURON_TRACE_MODE_STOP, 1 << 20))
		TH_LOG("%s", nd_device_error(self->tdev));
	ASSERT_EQ(0, runner_run(&run, 0, &rd)) TH_LOG("%s", nd_device_error(run.dev));
	/* The execution's end published everything: no TRACE_STOP needed to see it all. */
	n = drain(&ts, self->recs, self->ringof, 0);
	ASSERT_EQ(0, nd_trace_stop(ts.t));
	EXPECT_EQ(n, drain(&ts, self->recs, self->ringof, n));
	tally(&t, self->recs, self->ringof, n);
	EXPECT_EQ(0, t.bad);
	EXPECT_EQ(0, t.other);
	EXPECT_EQ(0, t.lost);
	EXPECT_EQ(1, t.start);
	EXPECT_EQ(1, t.end);
	EXPECT_EQ(rd.model_ps, t.end_model_ps);
	for (s = 0; s < VNEF_ENGINES; s++)
		EXPECT_EQ(im->len[s], t.insn[s]) TH_LOG("engine %u", s);
	for (s = 0; s < VNEF_DMA_QUEUES; s++)
		EXPECT_EQ(im->len[VNEF_ENGINES + s], t.dma[s]) TH_LOG("queue %u", s);
	for (s = 0; s < ts.nr; s++) {
		EXPECT_EQ(0, nd_ring_dropped(&ts.ring[s]));
		EXPECT_EQ(0, nd_ring_lost(&ts.ring[s]));
	}

	/* Modeled times equal an untraced run's (the host backend's events). */
	ht[0] = (struct nd_host_tensor){ im->in, calloc(1, im->in_bytes), im->in_bytes };
	ht[1] = (struct nd_host_tensor){ im->out, calloc(1, im->out_bytes), im->out_bytes };
	ht[2] = (struct nd_host_tensor){ im->in2, calloc(1, im->in2_bytes + 1), im->in2_bytes };
	ASSERT_EQ(0, nd_host_open(&self->info.model, &h, &e)) TH_LOG("%s", e.msg);
	nd_host_record(h, 1);
	ASSERT_EQ(0, nd_host_run(h, im->img, im->size, ht, im->in2 ? 3 : 2, 0, &rh))
		TH_LOG("%s", nd_host_error(h));
	EXPECT_EQ(rh.model_ps, rd.model_ps);
	ev = nd_host_events(h, &nev);
	a = calloc(nev + 1, sizeof(*a));
	b = calloc(n + 1, sizeof(*b));
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	for (i = 0; i < nev; i++) {
		a[i][0] = ev[i].stream;
		a[i][1] = ev[i].pc;
		a[i][2] = ev[i].start_ps;
		a[i][3] = ev[i].end_ps;
	}
	for (i = 0; i < n; i++) {
		const struct vneuron_trace_record *r = &self->recs[i];

		if (r->kind != VNEURON_TRACE_INSN && r->kind != VNEURON_TRACE_DMA)
			continue;
		b[k][0] = r->kind == VNEURON_TRACE_DMA ? VNEF_ENGINES + r->dma_queue : r->engine;
		b[k][1] = r->pc;
		b[k][2] = r->model_start_ps;
		b[k][3] = r->model_end_ps;
		k++;
	}
	ASSERT_EQ(nev, k);
	qsort(a, nev, sizeof(*a), cmp_ev);
	qsort(b, k, sizeof(*b), cmp_ev);
	EXPECT_EQ(0, memcmp(a, b, k * sizeof(*a)));
	free(a);
	free(b);
	for (i = 0; i < 3; i++)
		free(ht[i].data);
	nd_host_close(h);
	nd_trace_free(ts.t);
	runner_free(&run);
}

TEST_F(tr, capture_exp)
{
	capture_check(_metadata, self, &self->exp);
}

TEST_F(tr, capture_matmul)
{
	capture_check(_metadata, self, &self->mm);
}

/* Executions that overflow a 64-record ring: 256 records on the busiest ring at least. */
static unsigned int overflow_execs(const struct image *im)
{
	uint32_t busiest = 0, dma = 0;
	unsigned int s;

	for (s = 0; s < VNEF_ENGINES; s++)
		busiest = im->len[s] > busiest ? im->len[s] : busiest;
	for (s = 0; s < VNEF_DMA_QUEUES; s++)
		dma += im->len[VNEF_ENGINES + s];
	busiest = dma > busiest ? dma : busiest;
	return 2 + 256 / (busiest ? busiest : 1);
}

/* Per-ring totals of nexec executions with a ring big enough for all. */
static void reference(struct __test_metadata *_metadata, FIXTURE_DATA(tr) *self,
		      unsigned int nexec, uint64_t *per_ring)
{
	struct nd_run_result r;
	struct tsess ts;
	struct tally t;
	size_t n = 0;
	int i;

	ASSERT_EQ(0, tsess_start(&ts, self->tdev, 0, VNEURON_TRACE_MODE_STOP, 16 << 20));
	for (i = 0; i < (int)nexec; i++) {
		ASSERT_EQ(0, runner_run(&self->run, 0, &r));
		n = drain(&ts, self->recs, self->ringof, n);
	}
	nd_trace_free(ts.t);
	tally(&t, self->recs, self->ringof, n);
	ASSERT_EQ(0, t.lost);
	ASSERT_EQ(nexec, t.end);
	memcpy(per_ring, t.per_ring, sizeof(t.per_ring));
}

/*
 * Stop mode with a ring of 64 records: executions after the first run with nobody reading.
 * Every ring's received records plus its dropped count equal the reference, and the
 * LOST records in the stream add up to the count (none pending after the stop: the last
 * drop is reported when room came back, or is still pending and counted as dropped).
 */
TEST_F(tr, stop_mode_drops_exactly)
{
	unsigned int nexec = overflow_execs(&self->exp);
	uint64_t ref[8], dropped = 0;
	struct nd_run_result r;
	struct tsess ts;
	struct tally t;
	unsigned int i;
	size_t n;

	reference(_metadata, self, nexec, ref);
	ASSERT_EQ(0, tsess_start(&ts, self->tdev, 0, VNEURON_TRACE_MODE_STOP, 4096));
	ASSERT_EQ(0, runner_run(&self->run, 0, &r));
	n = drain(&ts, self->recs, self->ringof, 0);	/* the drainer then stops reading */
	for (i = 1; i < nexec; i++)
		ASSERT_EQ(0, runner_run(&self->run, 0, &r));
	ASSERT_EQ(0, nd_trace_stop(ts.t));
	n = drain(&ts, self->recs, self->ringof, n);
	tally(&t, self->recs, self->ringof, n);
	EXPECT_EQ(0, t.bad);
	for (i = 0; i < ts.nr; i++) {
		uint64_t d = nd_ring_dropped(&ts.ring[i]);

		EXPECT_EQ(ref[i], t.per_ring[i] + d) TH_LOG("ring %u", i);
		EXPECT_EQ(d, ts.ring[i].ctrl->dropped);
		dropped += d;
	}
	EXPECT_LT(0, dropped);		/* the small rings did overflow */
	EXPECT_GE(dropped, t.lost);
	nd_trace_free(ts.t);
}

/*
 * Overwrite mode, nobody reading during the executions: the ring keeps the newest
 * records; received plus counted as overwritten equals the reference, per ring.
 */
TEST_F(tr, overwrite_mode_counts_overwritten)
{
	unsigned int nexec = overflow_execs(&self->exp);
	uint64_t ref[8], lost = 0;
	struct nd_run_result r;
	struct tsess ts;
	struct tally t;
	unsigned int i;
	size_t n;

	reference(_metadata, self, nexec, ref);
	ASSERT_EQ(0, tsess_start(&ts, self->tdev, 0, VNEURON_TRACE_MODE_OVERWRITE, 4096));
	for (i = 0; i < nexec; i++)
		ASSERT_EQ(0, runner_run(&self->run, 0, &r));
	ASSERT_EQ(0, nd_trace_stop(ts.t));
	n = drain(&ts, self->recs, self->ringof, 0);
	tally(&t, self->recs, self->ringof, n);
	EXPECT_EQ(0, t.bad);
	EXPECT_EQ(0, t.lost);		/* no LOST records in overwrite mode */
	for (i = 0; i < ts.nr; i++) {
		EXPECT_EQ(ref[i], t.per_ring[i] + nd_ring_lost(&ts.ring[i])) TH_LOG("ring %u", i);
		EXPECT_EQ(0, nd_ring_dropped(&ts.ring[i]));
		EXPECT_GE(4096 / 64, t.per_ring[i]);
		lost += nd_ring_lost(&ts.ring[i]);
	}
	EXPECT_LT(0, lost);
	EXPECT_LE(1, t.end);		/* the last execution's end survived */
	nd_trace_free(ts.t);
}

/* Two profilers, two cores, at once; a third start on a traced core is refused. */
TEST_F(tr, two_profilers_two_cores)
{
	struct nd_device *t2;
	struct nd_trace *busy;
	struct nd_run_result r;
	struct tsess a, b;
	struct tally ta, tb;
	struct nd_error e;
	size_t n;

	if (self->info.core_count < 2)
		SKIP(return, "one core");
	ASSERT_EQ(0, nd_open(0, &t2, &e));
	ASSERT_EQ(0, tsess_start(&a, self->tdev, 0, VNEURON_TRACE_MODE_STOP, 1 << 20));
	ASSERT_EQ(0, tsess_start(&b, t2, 1, VNEURON_TRACE_MODE_STOP, 1 << 20));
	EXPECT_EQ(-EBUSY, nd_trace_start(t2, 0, NULL, &busy));
	EXPECT_EQ(-EBUSY, nd_trace_start(self->tdev, 1, NULL, &busy));
	ASSERT_EQ(0, runner_run(&self->run, 0, &r));
	ASSERT_EQ(0, runner_run(&self->run, 1, &r));
	ASSERT_EQ(0, runner_run(&self->run, 1, &r));
	n = drain(&a, self->recs, self->ringof, 0);
	tally(&ta, self->recs, self->ringof, n);
	n = drain(&b, self->recs, self->ringof, 0);
	tally(&tb, self->recs, self->ringof, n);
	EXPECT_EQ(1, ta.end);
	EXPECT_EQ(2, tb.end);
	EXPECT_EQ(2 * ta.insn[VNEURON_ENGINE_SCALAR], tb.insn[VNEURON_ENGINE_SCALAR]);
	EXPECT_EQ(1, a.ring[0].ctrl->core == 0 && b.ring[0].ctrl->core == 1);
	nd_trace_free(a.t);
	nd_trace_free(b.t);
	nd_close(t2);
}

/*
 * TRACE_STOP while an execution runs waits for it: the execution is traced to its end
 * (its EXEC_END is there), the core is free once STOP returns, and executions queued
 * behind it run untraced.
 */
TEST_F(tr, stop_while_running)
{
	struct nd_run_result r;
	struct nd_trace *again;
	struct tsess ts;
	struct tally t;
	uint64_t id[3];
	size_t n;
	int i;

	ASSERT_EQ(0, tsess_start(&ts, self->tdev, 0, VNEURON_TRACE_MODE_STOP, 1 << 20));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, nd_exec(self->run.prog, 0, self->run.b, self->run.nb, 0, &id[i]));
	/* Whatever is running now (the first, or the second) ends traced. */
	ASSERT_EQ(0, nd_trace_stop(ts.t));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, nd_wait(self->run.dev, id[i], ND_WAIT_FOREVER, &r));
		EXPECT_EQ(VNEURON_EXEC_OK, r.result);
	}
	n = drain(&ts, self->recs, self->ringof, 0);
	tally(&t, self->recs, self->ringof, n);
	EXPECT_EQ(0, t.bad);
	EXPECT_EQ(t.start, t.end);	/* every traced execution is complete */
	EXPECT_GE(2, t.end);		/* the third was queued behind STOP */
	EXPECT_EQ(t.end * self->exp.len[VNEURON_ENGINE_SCALAR], t.insn[VNEURON_ENGINE_SCALAR]);
	ASSERT_EQ(0, nd_trace_start(self->tdev, 0, NULL, &again));
	nd_trace_free(again);
	nd_trace_free(ts.t);
}

/* poll(): nothing before an execution, POLLIN after, nothing once drained. */
TEST_F(tr, poll_wakes_drainer)
{
	struct nd_run_result r;
	struct tsess ts;

	ASSERT_EQ(0, tsess_start(&ts, self->tdev, 0, VNEURON_TRACE_MODE_STOP, 1 << 20));
	EXPECT_EQ(0, nd_trace_poll(self->tdev, 0));
	ASSERT_EQ(0, runner_run(&self->run, 0, &r));
	EXPECT_EQ(1, nd_trace_poll(self->tdev, 1000));
	drain(&ts, self->recs, self->ringof, 0);
	EXPECT_EQ(0, nd_trace_poll(self->tdev, 0));
	nd_trace_free(ts.t);
}

static int tstart(int fd, struct vneuron_trace_start *s)
{
	return ioctl(fd, VNEURON_IOCTL_TRACE_START, s) ? -errno : 0;
}

static int tstop(int fd, uint32_t core, uint32_t flags)
{
	struct vneuron_trace_stop s = { .core = core, .flags = flags };

	return ioctl(fd, VNEURON_IOCTL_TRACE_STOP, &s) ? -errno : 0;
}

TEST_F(tr, bad_start_and_stop)
{
	int fd = nd_device_fd(self->tdev);
	struct vneuron_trace_start ok = { .ring_size = 1 << 16 }, s;
	int fd2 = open("/dev/vneuron0", O_RDWR);

	ASSERT_LE(0, fd2);
#define BAD(field, val, err) do { s = ok; s.field = (val); \
	EXPECT_EQ(err, tstart(fd, &s)) TH_LOG(#field " = " #val); } while (0)
	BAD(flags, 1, -EINVAL);
	BAD(pad, 1, -EINVAL);
	BAD(mode, 2, -EINVAL);
	BAD(core, self->info.core_count, -EINVAL);
	BAD(core, ~0u, -EINVAL);
	BAD(ring_size, 0, -EINVAL);
	BAD(ring_size, 2048, -EINVAL);
	BAD(ring_size, 3 << 12, -EINVAL);
	BAD(ring_size, VNEURON_TRACE_MAX_RING * 2, -EINVAL);
	BAD(ring_size, 1ull << 40, -EINVAL);
	BAD(watermark, 1 << 16, -EINVAL);
	BAD(watermark, 100, -EINVAL);
#undef BAD
	/* A larger struct with a non-zero tail is refused (copy_struct_from_user). */
	{
		struct { struct vneuron_trace_start s; uint64_t extra; } big = { ok, 1 };

		EXPECT_EQ(-E2BIG, ioctl(fd, _IOWR(VNEURON_IOCTL_BASE, 0x20, big), &big) ? -errno : 0);
	}
	/* Unreadable argument; readable but not writable: the started session is undone. */
	EXPECT_EQ(-EFAULT, ioctl(fd, VNEURON_IOCTL_TRACE_START, (void *)8) ? -errno : 0);
	{
		struct vneuron_trace_start *ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
						      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ASSERT_NE(MAP_FAILED, ro);
		*ro = ok;
		ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
		EXPECT_EQ(-EFAULT, tstart(fd, ro));
		EXPECT_EQ(-ENOENT, tstop(fd, 0, 0));	/* nothing left running */
		munmap(ro, 4096);
	}
	EXPECT_EQ(-EINVAL, tstop(fd, 0, 1));
	EXPECT_EQ(-EINVAL, tstop(fd, self->info.core_count, 0));
	EXPECT_EQ(-ENOENT, tstop(fd, 0, 0));		/* not started */
	s = ok;
	ASSERT_EQ(0, tstart(fd, &s));
	EXPECT_EQ(VNEF_ENGINES + 2, s.nr_rings);		/* engines, DMA, CC-core */
	EXPECT_EQ(1 << 15, s.watermark);		/* the default, answered */
	EXPECT_EQ(4096 + (1 << 16), s.ring_len);
	s = ok;
	EXPECT_EQ(-EBUSY, tstart(fd, &s));		/* again, same file */
	s = ok;
	EXPECT_EQ(-EBUSY, tstart(fd2, &s));		/* another file */
	EXPECT_EQ(-ENOENT, tstop(fd2, 0, 0));		/* not its session */
	EXPECT_EQ(0, tstop(fd, 0, 0));
	EXPECT_EQ(-ENOENT, tstop(fd, 0, 0));		/* already stopped */
	s = ok;
	EXPECT_EQ(0, tstart(fd2, &s));			/* free again */
	close(fd2);					/* closing stops it */
	s = ok;
	EXPECT_EQ(0, tstart(fd, &s));
	EXPECT_EQ(0, tstop(fd, 0, 0));
}

TEST_F(tr, bad_mmap)
{
	int fd = nd_device_fd(self->tdev);
	struct vneuron_trace_start s = { .ring_size = 1 << 16 };
	int fd2 = open("/dev/vneuron0", O_RDWR);
	off_t ring1, ctl;
	void *p;

	ASSERT_LE(0, fd2);
	/* Before any start: nothing there. */
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, (off_t)VNEURON_MMAP_TRACE_BASE);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, tstart(fd, &s));
	ring1 = (off_t)(s.mmap_offset + s.ring_stride);
	ctl = ring1 + (off_t)s.consumer_len;
	/* Writable data or control page. */
	p = mmap(NULL, s.ring_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, ctl);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EACCES, errno);
	/* Read-only, then mprotect() to write: refused. */
	p = mmap(NULL, s.ring_len, PROT_READ, MAP_SHARED, fd, ctl);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, 4096, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(p, s.ring_len);
	/* Beyond the ring, in the middle of one, beyond the consumer page, past the rings. */
	p = mmap(NULL, s.ring_len + 4096, PROT_READ, MAP_SHARED, fd, ctl);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, ctl + 4096);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, ring1);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
		 (off_t)(s.mmap_offset + s.nr_rings * s.ring_stride));
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* A private copy of the consumer page would never reach the producer. */
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, ring1);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* Another file cannot map this file's rings. */
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd2, ctl);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* The consumer page is writable. */
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, ring1);
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, 4096);
	EXPECT_EQ(0, tstop(fd, 0, 0));
	close(fd2);
}

/*
 * Closing the fd while its rings are mapped: the mappings keep the file open, so the
 * session goes on and the core stays taken; unmapping the last one releases the file,
 * which stops the session and frees the core. Nothing leaks (slub_debug, the guest's
 * module unload).
 */
TEST_F(tr, close_while_mapped)
{
	struct vneuron_trace_start s = { .ring_size = 1 << 16 }, s2 = s;
	int tfd = nd_device_fd(self->tdev);
	struct nd_run_result r;
	struct nd_ring ring;
	struct tally t;
	void *cons, *ctrl;
	size_t n = 0;
	ssize_t k;
	int fd = open("/dev/vneuron0", O_RDWR);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tstart(fd, &s));
	cons = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)s.mmap_offset);
	ctrl = mmap(NULL, s.ring_len, PROT_READ, MAP_SHARED, fd,
		    (off_t)(s.mmap_offset + s.consumer_len));
	ASSERT_NE(MAP_FAILED, cons);
	ASSERT_NE(MAP_FAILED, ctrl);
	ASSERT_EQ(0, runner_run(&self->run, 0, &r));
	close(fd);
	EXPECT_EQ(-EBUSY, tstart(tfd, &s2));		/* the file lives in its mappings */
	ASSERT_EQ(0, runner_run(&self->run, 0, &r));
	ASSERT_EQ(0, nd_ring_init(&ring, cons, ctrl, s.ring_len));
	while ((k = nd_ring_read(&ring, self->recs + n, MAXREC - n)) > 0)
		n += k;
	memset(self->ringof, 0, n);
	tally(&t, self->recs, self->ringof, n);
	EXPECT_EQ(2, t.start);
	EXPECT_EQ(2, t.end);
	EXPECT_EQ(2 * self->exp.len[0], t.insn[0]);
	munmap(cons, 4096);
	EXPECT_EQ(-EBUSY, tstart(tfd, &s2));
	/* Reading the read-only mapping after the last close of the fd is fine. */
	EXPECT_EQ(VNEURON_TRACE_CTRL_MAGIC, ((struct vneuron_trace_ctrl *)ctrl)->magic);
	munmap(ctrl, s.ring_len);
	/* The last mapping went: the file is released, the core free again. */
	s2 = (struct vneuron_trace_start){ .ring_size = 1 << 16 };
	EXPECT_EQ(0, tstart(tfd, &s2));
	EXPECT_EQ(0, tstop(tfd, 0, 0));
}

/* Execution on a traced core by a file that then dies mid-capture: nothing leaks. */
TEST_F(tr, fork_and_exit_while_mapped)
{
	struct vneuron_trace_start s = { .ring_size = 1 << 16 };
	int fd = open("/dev/vneuron0", O_RDWR), st;
	void *ctrl;
	pid_t pid;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tstart(fd, &s));
	ctrl = mmap(NULL, s.ring_len, PROT_READ, MAP_SHARED, fd,
		    (off_t)(s.mmap_offset + s.consumer_len));
	ASSERT_NE(MAP_FAILED, ctrl);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		/* The child shares the mapping and the file, then exits without cleaning up. */
		struct nd_run_result r;

		_exit(runner_run(&self->run, 0, &r) ? 1 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(0, WEXITSTATUS(st));
	close(fd);
	EXPECT_EQ(VNEURON_TRACE_CTRL_MAGIC, ((struct vneuron_trace_ctrl *)ctrl)->magic);
	munmap(ctrl, s.ring_len);
}

TEST_HARNESS_MAIN
