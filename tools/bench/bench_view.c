// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron-profile view: time and peak memory to turn a profile of 1 M, 10 M and 100 M
 * records into a summary (timeline + metrics + analysis + summary-text) and into a
 * Perfetto trace, reading the .vntf file as the command does. Each case runs in its own
 * child process; its peak memory is the child's ru_maxrss as wait4() reports it. Output
 * goes to /dev/null. The profiles are written in a directory of their own under $TMPDIR
 * (/tmp if unset), 6.4 GB for 100 M records, each deleted once measured.
 *
 *   BENCH view_summary_1m_s=X s        BENCH view_summary_1m_maxrss_mib=X MiB
 *   BENCH view_perfetto_1m_s=X s       BENCH view_perfetto_1m_maxrss_mib=X MiB
 *   ... and the same for 10m and 100m. Targets (issue 30): 100 M summarized in 30 s,
 *   its Perfetto trace in 60 s, each in 2 GiB. `bench_view 1m 10m` runs only those.
 *
 * For profiling: BENCH_VIEW_KEEP=DIR keeps the profile as DIR/bench_view_100m.vntf (and
 * so on), written only if missing and never deleted (delete it yourself);
 * BENCH_VIEW_ONLY=perfetto or summary runs only that case; BENCH_VIEW_SHOW=1 prints the
 * summary's phases and each child's CPU time.
 *
 * The records imitate a busy core: four engines and sixteen DMA queues, semaphore waits,
 * drained in chunks of 4096 records per ring interleaved as a capture would write them,
 * joined to a debug table of 4096 entries per stream in 64 scopes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vn_model.h"
#include "../../profiler/output/summary.h"
#include "../../profiler/format/vntf.h"

#define CHUNK		4096u
#define PCS		4096u
#define STREAMS		VNEF_STREAMS

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The next record of a stream; t[] is each stream's modeled time in ps. */
static void gen(struct vneuron_trace_record *r, unsigned int s, uint64_t k, uint64_t *t)
{
	memset(r, 0, sizeof(*r));
	r->sem_wait = VNEURON_TRACE_NO_SEM;
	r->sem_signal = VNEURON_TRACE_NO_SEM;
	r->pc = (uint32_t)(k % PCS);
	if (s < VNEF_ENGINES) {
		static const uint16_t ops[VNEF_ENGINES][2] = {
			{ VNEF_OP_LOAD_STATIONARY, VNEF_OP_MULTIPLY_MOVING },
			{ VNEF_OP_TENSOR_TENSOR, VNEF_OP_REDUCE },
			{ VNEF_OP_ACTIVATE, VNEF_OP_COPY },
			{ VNEF_OP_IOTA, VNEF_OP_TENSOR_SCALAR },
		};
		uint64_t d = 40000 + (k * 7919 % 13) * 10000;

		r->kind = VNEURON_TRACE_INSN;
		r->engine = (uint8_t)s;
		r->opcode = ops[s][k & 1];
		r->flops = s == 0 && (k & 1) ? 2ull * 128 * 128 * 512 : 0;
		r->elements = 65536;
		r->bytes = 262144;
		if (k % 8 == 3) {		/* a wait on the previous engine */
			r->sem_wait = (uint16_t)((s + 3) % VNEF_ENGINES);
			t[s] += 20000;
		}
		r->sem_signal = (uint16_t)s;
		r->model_start_ps = t[s];
		t[s] += d;
		r->model_end_ps = t[s];
	} else {
		r->kind = VNEURON_TRACE_DMA;
		r->engine = VNEURON_TRACE_ENGINE_DMA;
		r->dma_queue = (uint16_t)(s - VNEF_ENGINES);
		r->dma_desc = (uint16_t)r->pc;
		r->bytes = 65536;
		r->model_start_ps = t[s];
		t[s] += 2500000 + (k % 5) * 100000;
		r->model_end_ps = t[s];
		t[s] += 300000;
	}
}

static int write_profile(const char *path, uint64_t n)
{
	struct vneuron_trace_record *buf = malloc(CHUNK * sizeof(*buf));
	struct vntf_clock clk = { .model_unit_ps = 1 };
	uint64_t t[STREAMS] = { 0 }, k[STREAMS] = { 0 }, done = 0;
	struct vntf_writer *w;
	unsigned int s, i;
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = vntf_writer_open(&w, path);
	if (ret) {
		free(buf);
		return ret;
	}
	ret = vntf_write_model(w, &vn_model_trn1) ?: vntf_write_clock(w, &clk);
	for (s = 0; s < STREAMS && !ret; s++) {
		struct vntf_worker wk = {
			.stream = s, .core = 0, .nr_workers = 1, .ring_size = 1 << 20,
			.engine = s < VNEF_ENGINES ? s : VNEURON_TRACE_ENGINE_DMA,
		};

		ret = vntf_write_worker(w, &wk);
	}
	while (!ret && done < n) {
		for (s = 0; s < STREAMS && !ret && done < n; s++) {
			unsigned int m = n - done < CHUNK ? (unsigned int)(n - done) : CHUNK;

			for (i = 0; i < m; i++)
				gen(&buf[i], s, k[s]++, t);
			ret = vntf_write_records(w, s, buf, m);
			done += m;
		}
	}
	free(buf);
	if (ret) {
		vntf_writer_abort(w);
		return ret;
	}
	return vntf_writer_finish(w, 0);
}

static struct vnef_dma_desc descs[VNEF_DMA_QUEUES][PCS];
static struct vnef_tensor tensor;

/*
 * A program with a debug table (4096 entries per stream, 64 scopes, 256 lines) and DMA
 * descriptors: even queues load distinct 64 KiB ranges of HBM into SBUF, odd ones store.
 */
static int make_prog(struct vnp_prog *p, char **strtab, struct vnef_debug **dbg)
{
	size_t cap = 64 * 32 + 256 * 32 + 64, n = 1;
	uint32_t scope_off[64], file_off, s, i;
	char *st = calloc(1, cap);
	struct vnef_debug *d = calloc((size_t)STREAMS * PCS, sizeof(*d));

	if (!st || !d) {
		free(st);
		free(d);
		return -ENOMEM;
	}
	file_off = (uint32_t)n;
	n += (size_t)sprintf(st + n, "model.c") + 1;
	for (i = 0; i < 64; i++) {
		scope_off[i] = (uint32_t)n;
		n += (size_t)sprintf(st + n, "net/layer%u/op%u", i / 8, i % 8) + 1;
	}
	for (s = 0; s < STREAMS; s++)
		for (i = 0; i < PCS; i++) {
			struct vnef_debug *e = &d[s * PCS + i];

			e->stream = s;
			e->index = i;
			e->file_off = file_off;
			e->line = 100 + i % 256;
			e->scope_off = scope_off[i / 64];
		}
	memset(p, 0, sizeof(*p));
	tensor.name_off = scope_off[0];
	tensor.size = 65536ull * PCS * VNEF_DMA_QUEUES;
	for (s = 0; s < VNEF_DMA_QUEUES; s++) {
		for (i = 0; i < PCS; i++) {
			struct vnef_dma_desc *x = &descs[s][i];
			struct vnef_dma_ep *hbm = s & 1 ? &x->dst : &x->src;

			x->chunk_bytes = 65536;
			x->count[0] = 1;
			x->count[1] = 1;
			x->src.mem = s & 1 ? VNEF_MEM_SBUF : VNEF_MEM_HBM;
			x->dst.mem = s & 1 ? VNEF_MEM_HBM : VNEF_MEM_SBUF;
			hbm->offset = ((uint64_t)s * PCS + i) * 65536;
		}
		p->desc[s] = descs[s];
		p->ndesc[s] = PCS;
	}
	p->tensors = &tensor;
	p->ntensors = 1;
	p->name = "bench";
	p->strtab = st;
	p->strtab_size = (uint32_t)n;
	p->debug = d;
	p->ndebug = STREAMS * PCS;
	*strtab = st;
	*dbg = d;
	return vnp_prog_index(p);
}

static int run_case(const char *path, int perfetto, double *secs)
{
	struct vnp_prog prog;
	struct vnp_timeline tl;
	struct vnp_metrics m;
	struct vnp_analysis a;
	struct vntf_reader *r;
	struct vntf_chunk c;
	struct vnef_debug *dbg;
	char err[256], *st;
	double t0 = now(), tr, tf, tm, ta;
	FILE *out;
	int ret;

	ret = make_prog(&prog, &st, &dbg);
	if (ret)
		return ret;
	ret = vntf_open_file(&r, path, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "bench_view: %s\n", err);
		return ret;
	}
	vnp_tl_init(&tl, &vn_model_trn1, &prog);
	while ((ret = vntf_next(r, &c)) > 0) {
		if (!tl.n && vntf_reader_info(r)->have_model)
			tl.model = vntf_reader_info(r)->model;
		ret = vnp_tl_add(&tl, 0, c.recs, c.count);
		if (ret)
			break;
	}
	if (ret < 0) {
		fprintf(stderr, "bench_view: %s\n", vntf_error(r));
		return ret;
	}
	vntf_close(r);
	tr = now();
	ret = vnp_tl_finish(&tl);
	tf = now();
	ret = ret ?: vnp_metrics_compute(&tl, 0, &m);
	tm = now();
	ret = ret ?: vnp_analyze(&tl, &m, &a);
	if (ret)
		return ret;
	ta = now();
	out = fopen("/dev/null", "w");
	{
		struct vnp_view v = { .tl = &tl, .m = &m, .a = &a, .top = 10 };

		ret = perfetto ? vnp_perfetto(out, &v) : vnp_summary_text(out, &v);
	}
	fclose(out);
	*secs = now() - t0;
	if (getenv("BENCH_VIEW_SHOW")) {
		struct vnp_view v = { .tl = &tl, .m = &m, .a = &a, .top = 5 };

		if (!perfetto)
			vnp_summary_text(stderr, &v);
		fprintf(stderr, "read %.3f s, finish %.3f s, metrics %.3f s, analysis %.3f s, "
			"%s %.3f s\n", tr - t0, tf - tr, tm - tf, ta - tm,
			perfetto ? "perfetto" : "summary", *secs - (ta - t0));
	}
	vnp_analysis_free(&a);
	vnp_metrics_free(&m);
	vnp_tl_free(&tl);
	vnp_prog_free(&prog);
	free(st);
	free(dbg);
	return ret;
}

/* One case in a child so that ru_maxrss is its own. */
static int child_case(const char *path, const char *tag, int perfetto)
{
	const char *what = perfetto ? "perfetto" : "summary";
	struct rusage ru;
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		double secs = 0;
		int ret = run_case(path, perfetto, &secs);

		if (ret) {
			fprintf(stderr, "bench_view: %s %s failed: %s\n", what, tag,
				strerror(-ret));
			_exit(1);
		}
		printf("BENCH view_%s_%s_s=%.3f s\n", what, tag, secs);
		fflush(stdout);
		_exit(0);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -EIO;
	printf("BENCH view_%s_%s_maxrss_mib=%.1f MiB\n", what, tag, (double)ru.ru_maxrss / 1024.0);
	if (getenv("BENCH_VIEW_SHOW"))	/* CPU time: steadier than wall time on a busy machine */
		fprintf(stderr, "%s %s: cpu %.3f s (user %.3f, system %.3f)\n", what, tag,
			(double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
			(double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6,
			(double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6,
			(double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6);
	fflush(stdout);
	return 0;
}

static int wanted(int argc, char **argv, const char *tag)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], tag))
			return 1;
	return argc < 2;
}

int main(int argc, char **argv)
{
	static const struct { uint64_t n; const char *tag; } sizes[] = {
		{ 1000000, "1m" }, { 10000000, "10m" }, { 100000000, "100m" },
	};
	const char *tmp = getenv("TMPDIR"), *keep = getenv("BENCH_VIEW_KEEP");
	const char *only = getenv("BENCH_VIEW_ONLY") ? getenv("BENCH_VIEW_ONLY") : "";
	char dir[4096], path[4200];
	unsigned int i;
	int rc = 0;

	if (snprintf(dir, sizeof(dir), "%s/bench_view.XXXXXX", tmp && *tmp ? tmp : "/tmp") >=
	    (int)sizeof(dir) || !mkdtemp(dir)) {
		fprintf(stderr, "bench_view: cannot make a directory under %s\n",
			tmp && *tmp ? tmp : "/tmp");
		return 1;
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && !rc; i++) {
		if (!wanted(argc, argv, sizes[i].tag))
			continue;
		if (keep && *keep)	/* profiling: one profile kept, made once */
			snprintf(path, sizeof(path), "%s/bench_view_%s.vntf", keep, sizes[i].tag);
		else
			snprintf(path, sizeof(path), "%s/%s.vntf", dir, sizes[i].tag);
		if ((!keep || !*keep || access(path, R_OK)) && write_profile(path, sizes[i].n)) {
			fprintf(stderr, "bench_view: cannot write %s\n", path);
			rc = 1;
		} else if ((strcmp(only, "perfetto") && child_case(path, sizes[i].tag, 0)) ||
			   (strcmp(only, "summary") && child_case(path, sizes[i].tag, 1))) {
			rc = 1;
		}
		if (!keep || !*keep)
			unlink(path);
	}
	rmdir(dir);
	return rc;
}
