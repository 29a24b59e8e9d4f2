// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The web viewer's data: the size of the html page of a 1 M-instruction timeline and the
 * time to write it (timeline, metrics and analysis are built first and not timed); then
 * the summary level (docs/viewer.md, "Large profiles") of a 10 M one (100 M with
 * `bench_web 100m`): its page's size and writing time, and in headless Chromium
 * (build/rel/browser/browser_test --measure) the page's load and first render, and with
 * the page served (vnp_web_serve() in a child) the time to fetch and index a window of
 * about 100,000 events in the middle.
 *
 *   BENCH web_html_1m_mb=X MB          BENCH web_html_1m_s=X s
 *   BENCH web_html_1m_bytes_per_event=X B
 *   BENCH web_10m_html_mib=X MiB       BENCH web_10m_html_s=X s
 *   BENCH web_10m_load_ms=X ms         BENCH web_10m_first_render_ms=X ms
 *   BENCH web_window_fetch_ms=X ms     (and web_100m_* with `bench_web 100m`)
 *
 * The 1 M page's own load, render and zoom times come from the browser test (tools/check
 * browser), which prints them.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vn_model.h"
#include "../../profiler/output/web.h"

#define CHUNK	1000000u
#define BROWSER	"build/rel/browser/browser_test"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * Records i0.. of a busy core: LoadStationary, MultiplyMoving, the other engines, four
 * DMA queues; *t is the time of the next group of six.
 */
static void fill(struct vneuron_trace_record *r, size_t i0, size_t n, uint64_t *t)
{
	size_t j;

	memset(r, 0, n * sizeof(*r));
	for (j = 0; j < n; j++) {
		size_t i = i0 + j;
		unsigned int k = i % 6;

		r[j].sem_wait = VNEURON_TRACE_NO_SEM;
		r[j].sem_signal = VNEURON_TRACE_NO_SEM;
		r[j].pc = (uint32_t)(i / 6 % 4096);
		r[j].model_start_ps = *t + k * 7000;
		r[j].model_end_ps = *t + k * 7000 + 30000 + i % 977;
		r[j].elements = 65536;
		r[j].bytes = 262144;
		if (k < 5) {
			r[j].kind = VNEURON_TRACE_INSN;
			r[j].engine = (uint8_t)(k < 2 ? 0 : k - 1);
			r[j].opcode = (uint16_t)(k == 0 ? VNEF_OP_LOAD_STATIONARY :
						 k == 1 ? VNEF_OP_MULTIPLY_MOVING :
						 VNEF_OP_TENSOR_SCALAR);
			r[j].flops = k == 1 ? 16777216 : 65536;
		} else {
			r[j].kind = VNEURON_TRACE_DMA;
			r[j].engine = VNEURON_TRACE_ENGINE_DMA;
			r[j].dma_queue = (uint16_t)(i / 6 % 4);
			r[j].dma_desc = (uint16_t)r[j].pc;
		}
		if (k == 5)
			*t += 75000;
	}
}

struct built {
	struct vnp_timeline tl;
	struct vnp_metrics m;
	struct vnp_analysis a;
	struct vnp_view v;
};

/* The timeline of n records (added a chunk at a time), its metrics and analysis. */
static int build(struct built *b, size_t n)
{
	struct vneuron_trace_record *r = calloc(CHUNK, sizeof(*r));
	uint64_t t = 0;
	size_t i;
	int ret = 0;

	if (!r)
		return -1;
	vnp_tl_init(&b->tl, &vn_model_trn1, NULL);
	for (i = 0; i < n && !ret; i += CHUNK) {
		size_t k = n - i < CHUNK ? n - i : CHUNK;

		fill(r, i, k, &t);
		ret = vnp_tl_add(&b->tl, 0, r, k);
	}
	free(r);
	if (ret || vnp_tl_finish(&b->tl) || vnp_metrics_compute(&b->tl, 0, &b->m) ||
	    vnp_analyze(&b->tl, &b->m, &b->a))
		return -1;
	b->v = (struct vnp_view){ .tl = &b->tl, .m = &b->m, .a = &b->a, .top = 10 };
	return 0;
}

static void unbuild(struct built *b)
{
	vnp_analysis_free(&b->a);
	vnp_metrics_free(&b->m);
	vnp_tl_free(&b->tl);
}

/* browser_test --measure url: its "MEASURE name=value" lines as BENCH tag_name lines. */
static void measure(const char *url, const char *tag)
{
	char cmd[4300], line[256], name[64];
	double x;
	FILE *p;

	if (access(BROWSER, X_OK)) {
		printf("# bench_web: %s not built: no browser figures\n", BROWSER);
		return;
	}
	snprintf(cmd, sizeof(cmd), "timeout 900 " BROWSER " --measure '%s' 2>/dev/null", url);
	p = popen(cmd, "r");
	if (!p)
		return;
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "MEASURE %63[a-z_]=%lf", name, &x) == 2) {
			if (!strcmp(name, "window_fetch_ms"))
				printf("BENCH web_window_fetch_ms=%.1f ms\n", x);
			else if (!strcmp(name, "window_events"))
				printf("# window of %.0f events\n", x);
			else if (!strcmp(name, "load_ms") || !strcmp(name, "first_render_ms"))
				printf("BENCH web_%s_%s=%.1f ms\n", tag, name, x);
		}
	pclose(p);
}

/* The summary level of n records: its page's size and time, then in Chromium. */
static int summary_level(size_t n, const char *tag)
{
	const char *tmp = getenv("TMPDIR");
	char path[4096], url[4200], line[256] = "";
	struct built b;
	double t0, t1;
	long size;
	FILE *f;
	int fds[2];
	pid_t pid;

	if (build(&b, n)) {
		fprintf(stderr, "bench_web: out of memory for %s\n", tag);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/bench_web_%d.html", tmp && *tmp ? tmp : "/tmp",
		 (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	t0 = now();
	if (vnp_web_html(f, &b.v, NULL)) {
		fclose(f);
		unlink(path);
		fprintf(stderr, "bench_web: writing the page failed\n");
		return 1;
	}
	size = ftell(f);
	fclose(f);
	t1 = now();
	printf("BENCH web_%s_html_mib=%.2f MiB\n", tag, (double)size / (1 << 20));
	printf("BENCH web_%s_html_s=%.2f s\n", tag, t1 - t0);
	fflush(stdout);
	snprintf(url, sizeof(url), "file://%s", path);
	measure(url, tag);
	unlink(path);
	/* served: the window fetch */
	if (pipe(fds))
		return 1;
	fflush(stdout);
	pid = fork();
	if (!pid) {
		dup2(fds[1], 1);
		close(fds[0]);
		_exit(vnp_web_serve(&b.v, NULL, "127.0.0.1", 0) ? 1 : 0);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (f && fgets(line, sizeof(line), f) && strstr(line, "http://")) {
		char *u = strstr(line, "http://");

		u[strcspn(u, " \n")] = 0;
		snprintf(line + sizeof(line) - 32, 32, "%s_served", tag);
		measure(u, line + sizeof(line) - 32);
	}
	if (f)
		fclose(f);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	unbuild(&b);
	return 0;
}

int main(int argc, char **argv)
{
	const size_t N = 1000000;
	struct built b;
	char *buf = NULL;
	size_t len = 0;
	double t0, t1;
	FILE *f;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && !strcmp(argv[1], "100m"))
		return summary_level(100000000, "100m");
	if (build(&b, N)) {
		fprintf(stderr, "bench_web: out of memory\n");
		return 1;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		return 1;
	t0 = now();
	if (vnp_web_html(f, &b.v, NULL) || fclose(f)) {
		fprintf(stderr, "bench_web: writing the page failed\n");
		return 1;
	}
	t1 = now();
	printf("BENCH web_html_1m_mb=%.1f MB\n", (double)len / 1e6);
	printf("BENCH web_html_1m_s=%.2f s\n", t1 - t0);
	printf("BENCH web_html_1m_bytes_per_event=%.1f B\n", (double)len / N);
	free(buf);
	unbuild(&b);
	return summary_level(10000000, "10m");
}
