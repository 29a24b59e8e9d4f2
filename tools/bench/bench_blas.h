/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * OpenBLAS and NumPy baselines in child processes, for the benchmarks that compare with
 * them (docs/bench.md, "Baselines"). OpenBLAS reads OPENBLAS_CORETYPE and
 * OPENBLAS_L2_SIZE when it loads, and this environment may set them for old OpenBLAS
 * builds (Haswell kernels on AVX-512 CPUs), so each baseline runs in a child exec'd with
 * an environment of its own, one thread (OPENBLAS_NUM_THREADS=1):
 *
 *  - best: both variables removed, OpenBLAS's own choice of kernel; if a kernel this
 *    CPU supports (forced by name, one probe child each) computes right and runs sgemm
 *    faster, that one (OpenBLAS 0.3.21 does not know every CPU: on an Emerald Rapids Xeon
 *    its own choice is the SSE3 `Prescott`);
 *  - override: OPENBLAS_CORETYPE as this environment sets it, else Haswell: the figures
 *    of the issues before, kept for history.
 *
 * Every child first checks its kernel's sgemm (the three transposes the workloads use)
 * against a double-precision reference on the same inputs; a kernel that fails is not
 * used (best falls back to the override, and says so). A child serves the parent's
 * commands on a pipe: "w NAME" selects a workload, "r N" runs N executions of it and
 * answers "t SECONDS" (per execution), so parent and children alternate batches.
 *
 * The including program defines blas_setup(name) (the workload's data, once; NULL if it
 * has none) and blas_run(ctx) (one execution), and calls blas_child_main() when
 * started with BLAS_CHILD_ARG.
 */
#ifndef BENCH_BLAS_H
#define BENCH_BLAS_H

#include <cblas.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLAS_CHILD_ARG	"--blas-child"
#define BLAS_PROBE_ARG	"--blas-probe"

static void *blas_setup(const char *name);
static void blas_run(void *ctx);

struct blas_child {
	pid_t pid;
	FILE *to, *from;
	char core[64];		/* openblas_get_corename() in the child */
	int ok;			/* its sgemm checked right */
	double gflops;		/* probe: its sgemm 512^3 */
};

static double blas_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Starts argv[0] with its environment changed: OPENBLAS_L2_SIZE removed,
 * OPENBLAS_CORETYPE set to coretype or removed (NULL), one OpenBLAS thread. Reads its
 * first line: "ready CORE OK" or "probe CORE OK GFLOPS". 0, or -1.
 */
static int blas_child_start(struct blas_child *c, char *const argv[], const char *coretype)
{
	int in[2], out[2];
	char ok[8] = "";

	memset(c, 0, sizeof(*c));
	/* close-on-exec: a later child must not hold this one's pipes open */
	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return -1;
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (!c->pid) {
		unsetenv("OPENBLAS_L2_SIZE");
		if (coretype)
			setenv("OPENBLAS_CORETYPE", coretype, 1);
		else
			unsetenv("OPENBLAS_CORETYPE");
		setenv("OPENBLAS_NUM_THREADS", "1", 1);
		/* dup2() leaves the copies open across exec */
		dup2(in[0], 0);
		dup2(out[1], 1);
		/* a forced name OpenBLAS does not know makes it complain: not ours to show */
		if (!strcmp(argv[1], BLAS_PROBE_ARG) && !freopen("/dev/null", "w", stderr))
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->to = fdopen(in[1], "w");
	c->from = fdopen(out[0], "r");
	if (!c->to || !c->from ||
	    fscanf(c->from, " %*s %63s %7s", c->core, ok) != 2)
		return -1;
	c->ok = !strcmp(ok, "ok");
	if (!strcmp(argv[1], BLAS_PROBE_ARG) && fscanf(c->from, " %lf", &c->gflops) != 1)
		return -1;
	return 0;
}

static void blas_child_stop(struct blas_child *c)
{
	if (c->to)
		fclose(c->to);
	if (c->from)
		fclose(c->from);
	if (c->pid > 0)
		waitpid(c->pid, NULL, 0);
	memset(c, 0, sizeof(*c));
}

/* Selects workload name in the child: 0, or -1 if it has none. */
static int blas_child_select(struct blas_child *c, const char *name)
{
	char ans[8] = "";

	fprintf(c->to, "w %s\n", name);
	fflush(c->to);
	return fscanf(c->from, " %7s", ans) == 1 && !strcmp(ans, "ok") ? 0 : -1;
}

/* n executions of the selected workload in the child: seconds per execution, or -1. */
static double blas_child_batch(struct blas_child *c, int n)
{
	double t;

	fprintf(c->to, "r %d\n", n);
	fflush(c->to);
	if (fscanf(c->from, " t %lf", &t) != 1)
		return -1;
	return t;
}

/* ---- the child's side ---- */

static double blas_ref_err(int ta, int tb, int m, int n, int k, const float *a, const float *b,
			   const float *c)
{
	double worst = 0;
	int i, j, l;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			double s = 0, mag = 0;

			for (l = 0; l < k; l++) {
				double x = ta ? a[l * m + i] : a[i * k + l];
				double y = tb ? b[j * k + l] : b[l * n + j];

				s += x * y;
				mag += fabs(x * y);
			}
			/* the error an fp32 sum of k products may have, with some room */
			s = fabs(c[i * n + j] - s) / (mag * k * 0x1p-23 + 1e-30);
			if (s > worst || s != s)
				worst = s != s ? 1e30 : s;
		}
	return worst;
}

/*
 * sgemm against a double reference for the transposes the workloads use (NN, NT, TN),
 * on shapes with edges and on one of the bench's sizes: true if every output is within
 * an fp32 sum's error bound.
 */
static int blas_check(void)
{
	static const int shape[][3] = { { 67, 45, 123 }, { 128, 10, 784 }, { 256, 256, 256 } };
	unsigned int s, t, i;
	int ok = 1;

	for (s = 0; s < sizeof(shape) / sizeof(shape[0]); s++) {
		int m = shape[s][0], n = shape[s][1], k = shape[s][2];
		float *a = malloc(sizeof(float) * m * k), *b = malloc(sizeof(float) * k * n);
		float *c = malloc(sizeof(float) * m * n);

		if (!a || !b || !c)
			return 0;
		for (i = 0; i < (unsigned int)(m * k); i++)
			a[i] = (float)((i * 2654435761u) >> 8 & 0xffff) / 65536.0f - 0.5f;
		for (i = 0; i < (unsigned int)(k * n); i++)
			b[i] = (float)((i * 2246822519u) >> 8 & 0xffff) / 65536.0f - 0.5f;
		for (t = 0; t < 3; t++) {
			int ta = t == 2, tb = t == 1;

			cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
				    tb ? CblasTrans : CblasNoTrans, m, n, k, 1, a, ta ? m : k, b,
				    tb ? k : n, 0, c, n);
			if (blas_ref_err(ta, tb, m, n, k, a, b, c) > 1)
				ok = 0;
		}
		free(a);
		free(b);
		free(c);
	}
	return ok;
}

/* sgemm 512^3 (NN), GFLOP/s: the best of 5. */
static double blas_probe_gflops(void)
{
	const int n = 512;
	float *a = calloc((size_t)n * n, 4), *b = calloc((size_t)n * n, 4);
	float *c = calloc((size_t)n * n, 4);
	double best = 1e9, t;
	int r;

	if (!a || !b || !c)
		return 0;
	for (r = 0; r < n * n; r++) {
		a[r] = (float)(r % 13) / 13.0f;
		b[r] = (float)(r % 11) / 11.0f;
	}
	for (r = 0; r < 6; r++) {
		t = blas_now();
		cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1, a, n, b, n, 0,
			    c, n);
		t = blas_now() - t;
		if (r && t < best)
			best = t;
	}
	free(a);
	free(b);
	free(c);
	return 2.0 * n * n * n / best / 1e9;
}

/* The child: check, then serve commands on stdin (or, probing, report and end). */
static int blas_child_main(int probe)
{
	char cmd[8], name[64];
	void *ctx = NULL;
	double t;
	int n, i, ok;

	openblas_set_num_threads(1);
	ok = blas_check();
	printf("%s %s %s", probe ? "probe" : "ready", openblas_get_corename(), ok ? "ok" : "bad");
	if (probe) {
		printf(" %.2f\n", ok ? blas_probe_gflops() : 0.0);
		return 0;
	}
	printf("\n");
	fflush(stdout);
	while (scanf(" %7s", cmd) == 1) {
		if (!strcmp(cmd, "w") && scanf(" %63s", name) == 1) {
			ctx = blas_setup(name);
			printf("%s\n", ctx ? "ok" : "none");
		} else if (!strcmp(cmd, "r") && scanf(" %d", &n) == 1 && ctx && n > 0) {
			t = blas_now();
			for (i = 0; i < n; i++)
				blas_run(ctx);
			printf("t %.9f\n", (blas_now() - t) / n);
		} else {
			return 1;
		}
		fflush(stdout);
	}
	return 0;
}

/* ---- choosing the best kernel ---- */

/* Kernels OpenBLAS can be forced to, fastest first, with what they need of the CPU. */
static const struct {
	const char *name;
	const char *needs[3];
} blas_cores[] = {
	{ "SapphireRapids", { "avx512bf16", "amx-bf16", NULL } },
	{ "Cooperlake", { "avx512bf16", "avx512vl", NULL } },
	{ "SkylakeX", { "avx512bw", "avx512vl", NULL } },
	{ "Zen", { "avx2", "fma", NULL } },
	{ "Haswell", { "avx2", "fma", NULL } },
};

static int blas_cpu_has(const char *f)
{
	__builtin_cpu_init();
	/* __builtin_cpu_supports() takes string literals only */
	if (!strcmp(f, "avx2"))
		return __builtin_cpu_supports("avx2");
	if (!strcmp(f, "fma"))
		return __builtin_cpu_supports("fma");
	if (!strcmp(f, "avx512bw"))
		return __builtin_cpu_supports("avx512bw");
	if (!strcmp(f, "avx512vl"))
		return __builtin_cpu_supports("avx512vl");
	if (!strcmp(f, "avx512bf16"))
		return __builtin_cpu_supports("avx512bf16");
	if (!strcmp(f, "amx-bf16"))
		return __builtin_cpu_supports("amx-bf16");
	return 0;
}

/*
 * The best kernel's OPENBLAS_CORETYPE (NULL: OpenBLAS's own choice) into *core, a line
 * saying what was probed into why. The override's value into *override.
 */
static void blas_pick(const char **core, const char **override, char *why, size_t len)
{
	char *argv[] = { "/proc/self/exe", BLAS_PROBE_ARG, NULL };
	double own = 0, best = 0;
	const char *cand = NULL;
	struct blas_child c;
	unsigned int i, j;
	int n;

	*override = getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "Haswell";
	*core = NULL;
	n = snprintf(why, len, "probed sgemm 512^3:");
	if (!blas_child_start(&c, argv, NULL)) {
		n += snprintf(why + n, len - n, " own choice %s %.0f GFLOP/s%s", c.core, c.gflops,
			      c.ok ? "" : " (WRONG RESULTS)");
		own = c.ok ? c.gflops : 0;
	}
	blas_child_stop(&c);
	for (i = 0; i < sizeof(blas_cores) / sizeof(blas_cores[0]); i++) {
		for (j = 0; blas_cores[i].needs[j] && blas_cpu_has(blas_cores[i].needs[j]); j++)
			;
		if (blas_cores[i].needs[j] || blas_child_start(&c, argv, blas_cores[i].name)) {
			blas_child_stop(&c);
			continue;
		}
		/* a name this OpenBLAS does not know runs another kernel: not this one */
		if (!strcmp(c.core, blas_cores[i].name) && (size_t)n < len)
			n += snprintf(why + n, len - n, ", %s %.0f%s", c.core, c.gflops,
				      c.ok ? "" : " (WRONG RESULTS)");
		if (!strcmp(c.core, blas_cores[i].name) && c.ok && c.gflops > best) {
			best = c.gflops;
			cand = blas_cores[i].name;
		}
		blas_child_stop(&c);
	}
	/* forced only if clearly faster than OpenBLAS's own choice */
	if (cand && best > own * 1.1)
		*core = cand;
	if (!own && !cand)
		*core = *override;
	if ((size_t)n < len)
		snprintf(why + n, len - n, "%s", !own && !cand ?
			 "; no kernel checked right: the override's" : "");
}

#endif /* BENCH_BLAS_H */
