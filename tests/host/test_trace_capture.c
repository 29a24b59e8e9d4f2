// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Capture end to end on the host, as the kernel glue will do it: the executor's event
 * hook writes each event into the ring of the worker that ran it (core/trace_event.c),
 * a drainer thread moves the rings into a .vntf profile while the program runs, and the
 * profile read back holds every event, in order, with the modeled times the executor
 * reported, the same on two runs.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core_util.h"
#include "vn_model.h"
#include "vn_trace.h"
#include "neurondev.h"
#include "vnprog.h"
#include <poll.h>
#include <unistd.h>
#include "../../profiler/format/vntf.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define EQ(a, b)	EXPECT_EQ((int64_t)(a), (int64_t)(b))
#define AEQ(a, b)	ASSERT_EQ((int64_t)(a), (int64_t)(b))

#define PAGE		4096u
#define RING		(16u * 1024)
#define NR		VN_TRACE_RINGS_PER_CORE
#define MAXEV		4096

struct capture {
	struct vneuron_trace_consumer *cons[NR];
	unsigned char *map[NR];
	struct vn_trace_ring prod[NR];
	struct nd_ring cring[NR];
	struct vntf_writer *w;
	int stop, errors;
	/* what the hook saw, per ring, for comparison */
	struct vn_event ev[NR][MAXEV];
	uint32_t nev[NR];
};

static void hook(void *arg, const struct vn_event *ev)
{
	struct capture *c = arg;
	uint32_t r = vn_trace_ring_of(ev->stream);

	/* Each ring has one producer, the worker running ev->stream: no lock needed. */
	vn_trace_event(&c->prod[r], ev);
	vn_trace_flush(&c->prod[r]);	/* every event visible at once: the drainer races it */
	if (c->nev[r] < MAXEV)
		c->ev[r][c->nev[r]++] = *ev;
}

static void *drainer(void *arg)
{
	struct capture *c = arg;
	ssize_t n;
	int r, idle, stop;

	do {
		stop = __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE);
		idle = 1;
		for (r = 0; r < NR; r++) {
			n = vntf_drain_ring(c->w, r, &c->cring[r]);
			if (n < 0)
				c->errors++;
			if (n)
				idle = 0;
		}
		if (idle && !stop)
			sched_yield();
	} while (!stop || !idle);
	return NULL;
}

static int capture_setup(struct capture *c, FILE *f)
{
	static const struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_worker wk = { .nr_workers = 1, .ring_size = RING, .hostname = "host" };
	struct vn_trace_params p = { .mode = VNEURON_TRACE_MODE_STOP, .data_offset = PAGE };
	int r;

	memset(c, 0, sizeof(*c));
	if (vntf_writer_create(&c->w, f) || vntf_write_model(c->w, &vn_model_trn1) ||
	    vntf_write_clock(c->w, &clk))
		return -1;
	for (r = 0; r < NR; r++) {
		c->cons[r] = aligned_alloc(PAGE, PAGE);
		c->map[r] = aligned_alloc(PAGE, PAGE + RING);
		if (!c->cons[r] || !c->map[r])
			return -1;
		memset(c->cons[r], 0, PAGE);
		memset(c->map[r], 0, PAGE + RING);
		p.engine = r < VNEURON_ENGINE_COUNT ? (uint32_t)r : VNEURON_TRACE_ENGINE_DMA;
		if (vn_trace_ring_init(&c->prod[r], c->cons[r], (void *)c->map[r],
				       c->map[r] + PAGE, RING, &p, NULL, NULL) ||
		    nd_ring_init(&c->cring[r], c->cons[r], c->map[r], PAGE + RING))
			return -1;
		wk.stream = r;
		wk.engine = p.engine;
		if (vntf_write_worker(c->w, &wk))
			return -1;
	}
	return 0;
}

static void capture_free(struct capture *c)
{
	int r;

	for (r = 0; r < NR; r++) {
		free(c->cons[r]);
		free(c->map[r]);
	}
}

/*
 * The tiled 512x512x512 fp32 matmul of test_exec_kernels.c: two load queues, TensorE, a
 * store queue.
 */
static void build_matmul(struct vb *b)
{
	struct vnef_instr *in;
	struct vnef_dma_desc *d;
	uint32_t kt, mt;

	vb_init(b);
	vb_tensor(b, "at", VNEF_TENSOR_INPUT, VNEF_DT_FP32, 512, 512, NULL);
	vb_tensor(b, "b", VNEF_TENSOR_INPUT, VNEF_DT_FP32, 512, 512, NULL);
	vb_tensor(b, "c", VNEF_TENSOR_OUTPUT, VNEF_DT_FP32, 512, 512, NULL);
	for (kt = 0; kt < 4; kt++) {
		d = vb_load(b, 0, 0, kt * 128 * 2048, 2048, 128, 2048, VNEF_MEM_SBUF, 0, kt * 2048);
		d->signal_mask = 1ull << 0;
		d = vb_load(b, 1, 1, kt * 128 * 2048, 2048, 128, 2048, VNEF_MEM_SBUF, 0,
			    8192 + kt * 2048);
		d->signal_mask = 1ull << 1;
	}
	for (mt = 0; mt < 4; mt++) {
		for (kt = 0; kt < 4; kt++) {
			in = vb_op(b, VNEURON_ENGINE_TENSOR, VNEF_OP_LOAD_STATIONARY);
			in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, kt * 2048 + mt * 512,
					  128);
			if (!mt)
				VB_WAIT(in, 0, kt + 1);
			in = vb_op(b, VNEURON_ENGINE_TENSOR, VNEF_OP_MULTIPLY_MOVING);
			in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, 8192 + kt * 2048, 512);
			in->dst = vb_ap2(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 128, mt * 2048, 512);
			if (kt)
				in->flags |= VNEF_IF_ACCUMULATE;
			if (!mt)
				VB_WAIT(in, 1, kt + 1);
			if (kt == 3)
				in->signal_mask = (1ull << 2) | (1ull << 3);
		}
		d = vb_store(b, 2, 2, mt * 128 * 2048, 2048, 128, 2048, VNEF_MEM_PSUM, 0, mt * 2048);
		VB_WAIT(d, 2, mt + 1);
	}
}

/* Runs the matmul with tracing into a profile in memory; 0 or -1. */
static int run_traced(struct capture *c, char **buf, size_t *len)
{
	float *at = calloc(512 * 512, 4), *bm = calloc(512 * 512, 4), *cm = calloc(512 * 512, 4);
	struct vn_bind bi[3] = { { at, 1 << 20 }, { bm, 1 << 20 }, { cm, 1 << 20 } };
	struct vn_exec_status st;
	struct vn_core *core;
	uint64_t size;
	uint8_t *img;
	pthread_t d;
	struct vb b;
	FILE *f;
	int ret = -1, res, r;

	f = open_memstream(buf, len);
	if (!f || capture_setup(c, f) || vn_core_create(NULL, "traced", &core))
		return -1;
	pthread_create(&d, NULL, drainer, c);
	vn_core_set_hook(core, hook, c);
	build_matmul(&b);
	img = vb_finish(&b, &size);
	res = run_image(core, img, size, bi, b.nten, &st);
	free(img);
	vb_free(&b);
	vn_core_set_hook(core, NULL, NULL);
	vn_core_destroy(core);			/* the workers are gone: this thread may stop the rings */
	for (r = 0; r < NR; r++)
		vn_trace_stop(&c->prod[r]);
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	pthread_join(d, NULL);
	if (!res && st.result == VN_RES_OK && !c->errors) {
		for (r = 0; r < NR; r++)
			if (vntf_write_ring_lost(c->w, r, &c->cring[r]))
				break;
		ret = r == NR && !vntf_writer_finish(c->w, 1) ? 0 : -1;
	} else {
		vntf_writer_abort(c->w);
	}
	fclose(f);
	free(at);
	free(bm);
	free(cm);
	return ret;
}

static struct capture cap[2];

TEST(executor_to_profile)
{
	const struct vntf_info *info;
	struct vntf_reader *rd;
	struct vntf_chunk ch;
	char *buf[2] = { NULL, NULL }, err[256];
	size_t len[2];
	uint32_t got[NR] = { 0 }, i, r, sems = 0;
	int ret, run;

	for (run = 0; run < 2; run++)
		AEQ(0, run_traced(&cap[run], &buf[run], &len[run]));
	AEQ(0, vntf_open_mem(&rd, buf[0], len[0], err, sizeof(err))) TH_LOG("%s", err);
	while ((ret = vntf_next(rd, &ch)) > 0) {
		for (i = 0; i < ch.count; i++) {
			const struct vneuron_trace_record *x = &ch.recs[i];
			const struct vn_event *e;

			r = ch.stream;
			ASSERT_GT(NR, (int)r);
			if (x->kind == VNEURON_TRACE_SEM) {	/* the second signal (sem 3) */
				EQ(3, x->sem_signal);
				sems++;
				continue;
			}
			ASSERT_GT(cap[0].nev[r], got[r]);
			e = &cap[0].ev[r][got[r]++];
			EQ(r < 4 ? VNEURON_TRACE_INSN : VNEURON_TRACE_DMA, x->kind);
			EQ(e->pc, x->pc);
			EQ(e->start_ps, x->model_start_ps);
			EQ(e->end_ps, x->model_end_ps);
			EQ(e->flops, x->flops);
			EQ(e->exec_seq, x->exec_seq);
			if (r == 4)
				EQ(e->stream - VNEF_ENGINES, x->dma_queue);
		}
	}
	AEQ(0, ret) TH_LOG("%s", vntf_error(rd));
	info = vntf_reader_info(rd);
	AEQ(NR, info->nr_streams);
	for (r = 0; r < NR; r++) {
		EQ(cap[0].nev[r], got[r]);
		EQ(0, info->streams[r].dropped);
		EQ(0, info->streams[r].overwritten);
	}
	EQ(32, got[VNEURON_ENGINE_TENSOR]);	/* 16 LoadStationary + 16 MultiplyMoving */
	EQ(12, got[4]);				/* 8 loads + 4 stores */
	EQ(4, sems);
	vntf_close(rd);

	/* The modeled timeline is the same on the second run (host times differ). */
	for (r = 0; r < NR; r++) {
		AEQ(cap[0].nev[r], cap[1].nev[r]);
		for (i = 0; i < cap[0].nev[r]; i++) {
			EQ(cap[0].ev[r][i].start_ps, cap[1].ev[r][i].start_ps);
			EQ(cap[0].ev[r][i].end_ps, cap[1].ev[r][i].end_ps);
		}
	}
	for (run = 0; run < 2; run++) {
		capture_free(&cap[run]);
		free(buf[run]);
	}
}

/*
 * Issue 12: a host handle's trace session (libvnprog, capture --host) is the module's in
 * host memory: libneurondev's consumer attaches to its rings, an execution gives its
 * EXEC_START, an INSN or DMA record per event with the executor's modeled times, and
 * EXEC_END with the execution's modeled time; the eventfd wakes a drainer.
 */
TEST(host_trace_session)
{
	struct nd_trace_opts bad = { .ring_size = 5000 }, ok = { .ring_size = 64 * 1024 };
	uint64_t kinds[16] = { 0 }, model = 0, efd_count;
	const struct vneuron_trace_record *recs;
	static float x[250 * 512], y[250 * 512];
	struct nd_host_tensor t[] = { { "in", x, sizeof(x) }, { "out", y, sizeof(y) } };
	struct nd_host_trace *tr, *tr2;
	struct nd_run_result res;
	struct nd_builder *b;
	struct nd_host *h;
	struct nd_error err;
	struct nd_ring ring;
	struct pollfd pf;
	size_t size, nev;
	unsigned int i;
	ssize_t n, k;
	void *img;

	ASSERT_EQ(0, nd_builder_new("exp", &b));
	ASSERT_EQ(0, nd_kernel_exp(b, 250, 512, 1));
	ASSERT_EQ(0, nd_builder_finish(b, &img, &size));
	nd_builder_free(b);
	ASSERT_EQ(0, nd_host_open(NULL, &h, &err));
	EXPECT_EQ(-EINVAL, nd_host_trace_start(h, &bad, &tr));
	EXPECT_NE(NULL, strstr(nd_host_error(h), "ring size 5000"));
	ASSERT_EQ(0, nd_host_trace_start(h, &ok, &tr));
	EXPECT_EQ(-EBUSY, nd_host_trace_start(h, &ok, &tr2));
	AEQ(NR, nd_host_trace_nr_rings(tr));
	nd_host_record(h, 1);
	ASSERT_EQ(0, nd_host_run(h, img, size, t, 2, 0, &res)) TH_LOG("%s", nd_host_error(h));
	nd_host_events(h, &nev);
	pf = (struct pollfd){ .fd = nd_host_trace_fd(tr), .events = POLLIN };
	EXPECT_EQ(1, poll(&pf, 1, 0));		/* the execution's end woke it */
	EXPECT_EQ((ssize_t)sizeof(efd_count), read(pf.fd, &efd_count, sizeof(efd_count)));
	EXPECT_EQ(0, nd_host_trace_stop(tr));
	for (i = 0; i < NR; i++) {
		ASSERT_EQ(0, nd_host_trace_ring(tr, i, &ring));
		EQ(vn_trace_ring_engine(i), ring.ctrl->engine);
		while ((n = nd_ring_peek(&ring, &recs, 256)) > 0) {
			for (k = 0; k < n; k++) {
				kinds[recs[k].kind & 15]++;
				if (recs[k].kind == VNEURON_TRACE_EXEC_END)
					model = recs[k].model_end_ps;
			}
			nd_ring_release(&ring, (size_t)n);
		}
		EXPECT_EQ(0, n);
		EQ(0, nd_ring_dropped(&ring));
	}
	EQ(1, kinds[VNEURON_TRACE_EXEC_START]);
	EQ(1, kinds[VNEURON_TRACE_EXEC_END]);
	EQ(nev, kinds[VNEURON_TRACE_INSN] + kinds[VNEURON_TRACE_DMA]);
	EQ(res.model_ps, model);
	EXPECT_LT(0, (int64_t)model);
	nd_host_close(h);			/* frees the session too */
	free(img);
}

TEST_HARNESS_MAIN
