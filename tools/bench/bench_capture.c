// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Capture overhead on the host build: wall time of a workload (executions of the
 * pipelined exp kernel on one core) with capture on, over the same workload with capture
 * off, measured side by side in one run (rounds alternate, the best of each kept).
 * "On" is what the kernel glue does (kmod/trace.c): the executor's event hook writes
 * each event into its worker's ring, the edge hook writes execution records and
 * publishes the rings, a drainer thread woken at the watermark moves the records into a
 * .vntf writer (to /dev/null). Prints `BENCH capture_overhead_host=R ratio`.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vn_exec.h"
#include "vn_model.h"
#include "vnprog.h"
#include "vn_program.h"
#include "vn_trace.h"
#include "neurondev.h"
#include "../../profiler/format/vntf.h"

#define PAGE	4096u
#define RING	(4u << 20)
#define NR	VN_TRACE_RINGS_PER_CORE

struct glue {
	struct vn_trace_ring prod[NR];
	struct nd_ring cons[NR];
	void *mem[NR];
	struct vntf_writer *w;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int kick, stop;
	uint64_t records, exec_seq;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The producer's wake-up: what wake_up_interruptible() is to the kernel glue. */
static void wake(void *arg)
{
	struct glue *g = arg;

	pthread_mutex_lock(&g->lock);
	g->kick = 1;
	pthread_cond_signal(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static void hook(void *arg, const struct vn_event *ev)
{
	struct glue *g = arg;

	vn_trace_event(&g->prod[vn_trace_ring_of(ev->stream)], ev);
}

static bool edge(void *arg, const struct vn_exec_status *st, bool end)
{
	struct glue *g = arg;
	struct vneuron_trace_record rec;
	unsigned int i;

	vn_trace_rec_init(&rec, end ? VNEURON_TRACE_EXEC_END : VNEURON_TRACE_EXEC_START,
			  VNEURON_TRACE_ENGINE_CORE);
	rec.exec_seq = (uint32_t)st->seq;
	rec.model_end_ps = end ? st->model_ps : 0;
	vn_trace_write(&g->prod[0], &rec);
	if (!end)
		return true;
	for (i = 0; i < NR; i++)
		vn_trace_flush(&g->prod[i]);
	wake(g);
	return true;
}

static void *drainer(void *arg)
{
	struct glue *g = arg;
	ssize_t n, total;
	int stop, i;

	for (;;) {
		pthread_mutex_lock(&g->lock);
		while (!g->kick && !g->stop)
			pthread_cond_wait(&g->cond, &g->lock);
		g->kick = 0;
		stop = g->stop;
		pthread_mutex_unlock(&g->lock);
		do {
			total = 0;
			for (i = 0; i < NR; i++) {
				n = vntf_drain_ring(g->w, i, &g->cons[i]);
				if (n > 0)
					total += n;
			}
			g->records += total;
		} while (total);
		if (stop)
			return NULL;
	}
}

static int glue_init(struct glue *g, FILE *f)
{
	struct vn_trace_params p = { .mode = VNEURON_TRACE_MODE_STOP, .data_offset = PAGE };
	struct vntf_worker wk = { .nr_workers = 1, .ring_size = RING };
	struct vntf_clock clk = { .model_unit_ps = 1 };
	int i;

	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	if (vntf_writer_create(&g->w, f) || vntf_write_model(g->w, &vn_model_trn1) ||
	    vntf_write_clock(g->w, &clk))
		return -1;
	for (i = 0; i < NR; i++) {
		unsigned char *m = aligned_alloc(PAGE, 2 * PAGE + RING);

		if (!m)
			return -1;
		memset(m, 0, 2 * PAGE + RING);
		g->mem[i] = m;
		p.engine = i < VNEURON_ENGINE_COUNT ? (uint32_t)i : VNEURON_TRACE_ENGINE_DMA;
		if (vn_trace_ring_init(&g->prod[i], (void *)m, (void *)(m + PAGE), m + 2 * PAGE,
				       RING, &p, wake, g) ||
		    nd_ring_init(&g->cons[i], (void *)m, m + PAGE, PAGE + RING))
			return -1;
		wk.stream = i;
		wk.engine = p.engine;
		if (vntf_write_worker(g->w, &wk))
			return -1;
	}
	return 0;
}

static double run(struct vn_core *c, struct vn_program *p, struct vn_bind *bi, int n)
{
	struct vn_exec_status st;
	struct vn_exec *ex;
	double t0 = now();
	int i;

	for (i = 0; i < n; i++) {
		if (vn_exec_submit(c, p, bi, p->tensor_count, 0, NULL, NULL, &ex) ||
		    vn_exec_wait(ex, 0))
			return -1;
		vn_exec_status(ex, &st);
		vn_exec_put(ex);
		if (st.result != VN_RES_OK)
			return -1;
	}
	return now() - t0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 40, r, i;
	double off = 1e30, on = 1e30, t;
	struct vn_bind bi[8] = { { 0 } };
	struct vn_prog_error perr;
	struct vn_program *p;
	struct nd_builder *b;
	struct vn_core *core;
	pthread_t thr;
	struct glue g;
	size_t size;
	void *img;
	FILE *f;

	if (nd_builder_new("exp", &b) || nd_kernel_exp(b, 1024, 2048, 1) ||
	    nd_builder_finish(b, &img, &size) || vn_program_load(img, size, &p, &perr)) {
		fprintf(stderr, "bench_capture: cannot build the workload\n");
		return 1;
	}
	nd_builder_free(b);
	for (i = 0; i < (int)p->tensor_count && i < 8; i++) {
		bi[i].size = p->tensors[i].size;
		bi[i].ptr = calloc(1, bi[i].size);
	}
	f = fopen("/dev/null", "wb");
	if (!f || vn_core_create(NULL, "bench", &core) || glue_init(&g, f)) {
		fprintf(stderr, "bench_capture: setup failed\n");
		return 1;
	}
	run(core, p, bi, 2);	/* warm-up */
	for (r = 0; r < 5; r++) {
		t = run(core, p, bi, n);
		if (t < 0)
			return 1;
		off = t < off ? t : off;
		g.stop = 0;
		pthread_create(&thr, NULL, drainer, &g);
		vn_core_set_hooks(core, hook, edge, &g);
		t = run(core, p, bi, n);
		vn_core_set_hooks(core, NULL, NULL, NULL);
		pthread_mutex_lock(&g.lock);
		g.stop = 1;
		pthread_cond_signal(&g.cond);
		pthread_mutex_unlock(&g.lock);
		pthread_join(thr, NULL);
		if (t < 0)
			return 1;
		on = t < on ? t : on;
	}
	for (i = 0; i < NR; i++)
		if (nd_ring_dropped(&g.cons[i]))
			fprintf(stderr, "bench_capture: ring %d dropped %llu records\n", i,
				(unsigned long long)nd_ring_dropped(&g.cons[i]));
	printf("BENCH capture_overhead_host=%.3f ratio\n", on / off);
	printf("BENCH capture_host_records_per_exec=%.0f records\n",
	       (double)g.records / (5.0 * n));
	printf("BENCH capture_host_exec_ms=%.3f ms\n", off / n * 1e3);
	vntf_writer_abort(g.w);
	fclose(f);
	vn_core_destroy(core);
	vn_program_put(p);
	for (i = 0; i < NR; i++)
		free(g.mem[i]);
	for (i = 0; i < 8; i++)
		free(bi[i].ptr);
	free(img);
	return 0;
}
