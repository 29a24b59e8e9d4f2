// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The web viewer's data for a 1 M-instruction timeline: the size of the html page and the
 * time to write it (timeline, metrics and analysis are built first and not timed).
 *
 *   BENCH web_html_1m_mb=X MB          BENCH web_html_1m_s=X s
 *   BENCH web_html_1m_bytes_per_event=X B
 *
 * The page's own load, render and zoom times for such a profile come from the browser
 * test (tools/check browser), which prints them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vn_model.h"
#include "../../profiler/output/web.h"

#define N	1000000u

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
	struct vneuron_trace_record *r = calloc(N, sizeof(*r));
	struct vnp_timeline tl;
	struct vnp_metrics m;
	struct vnp_analysis a;
	struct vnp_view v;
	char *buf = NULL;
	size_t len = 0, i;
	uint64_t t = 0;
	double t0, t1;
	FILE *f;

	if (!r)
		return 1;
	/* a busy core: LoadStationary, MultiplyMoving, the other engines, four DMA queues */
	for (i = 0; i < N; i++) {
		unsigned int k = i % 6;

		r[i].sem_wait = VNEURON_TRACE_NO_SEM;
		r[i].sem_signal = VNEURON_TRACE_NO_SEM;
		r[i].pc = (uint32_t)(i / 6 % 4096);
		r[i].model_start_ps = t + k * 7000;
		r[i].model_end_ps = t + k * 7000 + 30000 + i % 977;
		r[i].elements = 65536;
		r[i].bytes = 262144;
		if (k < 5) {
			r[i].kind = VNEURON_TRACE_INSN;
			r[i].engine = (uint8_t)(k < 2 ? 0 : k - 1);
			r[i].opcode = (uint16_t)(k == 0 ? VNEF_OP_LOAD_STATIONARY :
						 k == 1 ? VNEF_OP_MULTIPLY_MOVING :
						 VNEF_OP_TENSOR_SCALAR);
			r[i].flops = k == 1 ? 16777216 : 65536;
		} else {
			r[i].kind = VNEURON_TRACE_DMA;
			r[i].engine = VNEURON_TRACE_ENGINE_DMA;
			r[i].dma_queue = (uint16_t)(i / 6 % 4);
			r[i].dma_desc = (uint16_t)r[i].pc;
		}
		if (k == 5)
			t += 75000;
	}
	vnp_tl_init(&tl, &vn_model_trn1, NULL);
	if (vnp_tl_add(&tl, 0, r, N) || vnp_tl_finish(&tl) || vnp_metrics_compute(&tl, 0, &m) ||
	    vnp_analyze(&tl, &m, &a)) {
		fprintf(stderr, "bench_web: out of memory\n");
		return 1;
	}
	v = (struct vnp_view){ .tl = &tl, .m = &m, .a = &a, .top = 10 };
	f = open_memstream(&buf, &len);
	if (!f)
		return 1;
	t0 = now();
	if (vnp_web_html(f, &v, NULL) || fclose(f)) {
		fprintf(stderr, "bench_web: writing the page failed\n");
		return 1;
	}
	t1 = now();
	printf("BENCH web_html_1m_mb=%.1f MB\n", (double)len / 1e6);
	printf("BENCH web_html_1m_s=%.2f s\n", t1 - t0);
	printf("BENCH web_html_1m_bytes_per_event=%.1f B\n", (double)len / N);
	free(buf);
	vnp_analysis_free(&a);
	vnp_metrics_free(&m);
	vnp_tl_free(&tl);
	free(r);
	return 0;
}
