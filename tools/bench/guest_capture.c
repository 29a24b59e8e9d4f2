// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Guest benchmark: capture overhead through vneuron.ko. Wall time of N executions of the
 * pipelined exp kernel with a capture running (TRACE_START on the core, a drainer
 * thread woken by poll() moving the mapped rings into a .vntf writer to /dev/null) over
 * the same N without, side by side, best of 5 rounds each. Prints
 * `BENCH capture_overhead_guest=R ratio`. Run by tools/bench/guest-bench.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vnprog.h"
#include "vneuron_trace.h"
#include "neurondev.h"
#include "../../profiler/format/vntf.h"

struct drain {
	struct nd_device *tdev;
	struct nd_ring ring[8];
	unsigned int nr;
	struct vntf_writer *w;
	int stop;
	uint64_t records;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *drainer(void *arg)
{
	struct drain *d = arg;
	ssize_t n, total;
	unsigned int i;
	int stop;

	for (;;) {
		stop = __atomic_load_n(&d->stop, __ATOMIC_ACQUIRE);
		total = 0;
		for (i = 0; i < d->nr; i++) {
			n = vntf_drain_ring(d->w, i, &d->ring[i]);
			total += n > 0 ? n : 0;
		}
		d->records += total;
		if (stop)
			return NULL;
		if (!total)
			nd_trace_poll(d->tdev, 50);
	}
}

static double run(struct nd_program *p, struct nd_bind *b, int n)
{
	struct nd_run_result r;
	double t0 = now();
	int i;

	for (i = 0; i < n; i++)
		if (nd_run(p, 0, b, 2, 0, &r))
			return -1;
	return now() - t0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, r;
	double off = 1e30, on = 1e30, t;
	struct vneuron_trace_start st;
	struct nd_device *dev, *tdev;
	struct nd_program *prog;
	struct nd_mem *in, *out;
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vneuron_info info;
	struct nd_builder *b;
	struct nd_error e;
	struct drain d;
	pthread_t thr;
	size_t size;
	void *img;
	FILE *f;
	unsigned int i;

	if (nd_builder_new("exp", &b) || nd_kernel_exp(b, 512, 2048, 1) ||
	    nd_builder_finish(b, &img, &size) || nd_open(0, &dev, &e) || nd_open(0, &tdev, &e) ||
	    nd_info(tdev, &info) || nd_program_load(dev, img, size, &prog, NULL) ||
	    nd_mem_alloc(dev, 512 * 2048 * 4, &in) || nd_mem_alloc(dev, 512 * 2048 * 4, &out)) {
		fprintf(stderr, "guest_capture: setup failed\n");
		return 1;
	}
	nd_builder_free(b);
	f = fopen("/dev/null", "wb");
	{
		struct nd_bind bind[2] = { { "in", in }, { "out", out } };

		run(prog, bind, 1);	/* warm-up */
		for (r = 0; r < 5; r++) {
			struct nd_trace *tr;

			t = run(prog, bind, n);
			if (t < 0)
				return 1;
			off = t < off ? t : off;
			memset(&d, 0, sizeof(d));
			d.tdev = tdev;
			if (nd_trace_start(tdev, 0, NULL, &tr) || vntf_writer_create(&d.w, f) ||
			    vntf_write_model(d.w, &info.model) || vntf_write_clock(d.w, &clk)) {
				fprintf(stderr, "guest_capture: %s\n", nd_device_error(tdev));
				return 1;
			}
			st = *nd_trace_params(tr);
			d.nr = st.nr_rings;
			for (i = 0; i < d.nr; i++) {
				struct vntf_worker wk = { .stream = i, .nr_workers = 1,
							  .ring_size = st.ring_size };

				if (nd_trace_ring(tr, i, &d.ring[i]) ||
				    vntf_write_worker(d.w, &wk))
					return 1;
			}
			pthread_create(&thr, NULL, drainer, &d);
			t = run(prog, bind, n);
			nd_trace_stop(tr);
			__atomic_store_n(&d.stop, 1, __ATOMIC_RELEASE);
			pthread_join(thr, NULL);
			for (i = 0; i < d.nr; i++)
				if (nd_ring_dropped(&d.ring[i]))
					fprintf(stderr, "guest_capture: ring %u dropped records\n", i);
			vntf_writer_abort(d.w);
			nd_trace_free(tr);
			if (t < 0)
				return 1;
			on = t < on ? t : on;
		}
	}
	printf("BENCH capture_overhead_guest=%.3f ratio\n", on / off);
	printf("BENCH capture_guest_records_per_exec=%.0f records\n", (double)d.records / n);
	printf("BENCH capture_guest_exec_ms=%.3f ms\n", off / n * 1e3);
	fclose(f);
	nd_program_unload(prog);
	nd_close(dev);
	nd_close(tdev);
	free(img);
	return 0;
}
