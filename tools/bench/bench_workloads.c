// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Whole workloads on the host backend (nd_host_run: validation and execution on the
 * host build of the device core, as `vneuron-run --host` does), side by side with the
 * same computation in plain C over single-thread OpenBLAS, each OpenBLAS kernel in a
 * child process of its own environment (tools/bench/bench_blas.h), and for the MLP step
 * NumPy (tools/bench/mlp_numpy.py) on the best kernel, all alternating batches:
 *
 *   BENCH wl_NAME_host_us=X us            host backend, wall time per execution
 *   BENCH wl_NAME_best_blas_us=Y us       the same math in C + cblas_sgemm, OpenBLAS's
 *                                         best kernel on this CPU (one thread)
 *   BENCH wl_NAME_vs_best_blas=R ratio    X / Y (issue 30: <= 1.2 for attention and
 *                                         the matmuls)
 *   BENCH wl_NAME_override_blas_us=Y us   the same with the environment's (or Haswell's)
 *   BENCH wl_NAME_vs_override_blas=R      OPENBLAS_CORETYPE: the earlier issues' figures
 *   BENCH wl_mlp_step_numpy_us=Y us       NumPy's step on the best kernel
 *   BENCH wl_mlp_step_vs_numpy=R ratio    X / Y (issue 30: <= 1.5)
 *   BENCH wl_exp_c_us, wl_exp_vs_c        exp: an expf() loop in this process
 *   BENCH host_empty_run_us=X us      an empty program through nd_host_run
 *   BENCH host_empty_exec_us=X us     an empty program, loaded once, submit + wait
 *   BENCH host_2core_scaling=R x      matmul1024_fp32 executions per second on two host
 *                                     cores (one thread each) over one core
 *
 * With --device (tools/bench/guest-bench runs it so in the guest, with the module loaded),
 * each workload instead runs on /dev/vneuron0 (libneurondev: loaded once, tensors in
 * device memory written once, nd_run per execution) and on the host backend, alternating
 * in the same boot:
 *
 *   BENCH wl_NAME_guest_module_us=X us  the module, wall time per execution
 *   BENCH wl_NAME_guest_host_us=Y us    the host backend in the same guest
 *   BENCH wl_NAME_module_vs_host=R ratio X / Y
 *
 * NAME: mlp_step (examples/mlp-train.c: 784-128-10, batch 128, forward, backward, SGD),
 * attention (examples/attention.c: seq 512, head 64), matmul1024_fp32, matmul1024_bf16
 * (nd_kernel_matmul; the BLAS side widens bf16 to fp32, then sgemm) and exp (250 x 512,
 * nd_kernel_exp; the C side is an expf() loop). The programs of the two examples are
 * written by the example binaries (--write-vnef), so this bench runs what they run.
 * Each figure is the median of RUNS timed batches; baseline and candidate alternate.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vnprog.h"
#include "vn_exec.h"
#include "vn_program.h"
#include "bench_blas.h"
#include "bench_median.h"

#define RUNS	7

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng = 88172645463325252ull;

static float frand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (float)(rng >> 40) / (float)(1 << 24) - 0.5f;
}

/* ---- the host backend side ---- */

struct wl {
	const char *name;
	void *image;
	size_t size;
	struct nd_host_tensor t[16];
	unsigned int nt;
	int execs;		/* executions per timed batch */
	void (*blas)(struct wl *w);
	void *ctx;
};

static int runs = RUNS;		/* timed batches a figure is the median of */

/* --device: the module side of each workload, on core 0 of /dev/vneuron0. */
static struct nd_device *dev;

static void die(const char *what)
{
	fprintf(stderr, "bench_workloads: %s\n", what);
	exit(1);
}

/* Buffers for every input and output tensor of the image, inputs random. */
static void bind_all(struct wl *w)
{
	struct vn_prog_error pe;
	struct vn_program *p;
	uint32_t i, j;

	if (vn_program_load(w->image, w->size, &p, &pe))
		die(pe.msg);
	for (i = 0; i < p->tensor_count && w->nt < 16; i++) {
		const struct vnef_tensor *vt = &p->tensors[i];
		float *d;

		if (vt->kind != VNEF_TENSOR_INPUT && vt->kind != VNEF_TENSOR_OUTPUT)
			continue;
		d = aligned_alloc(64, (vt->size + 63) / 64 * 64);
		if (!d)
			die("out of memory");
		for (j = 0; j < vt->size / 4; j++)
			d[j] = vt->kind == VNEF_TENSOR_INPUT ? frand() : 0;
		w->t[w->nt].name = strdup(vn_program_str(p, vt->name_off));
		w->t[w->nt].data = d;
		w->t[w->nt].size = vt->size;
		w->nt++;
	}
	vn_program_put(p);
}

/* One side of a comparison: a timed batch of w's executions, seconds per execution. */
typedef double (*batch_fn)(struct wl *w, void *arg);

static double host_batch(struct wl *w, void *arg)
{
	struct nd_host *h = arg;
	double t = now();
	int i;

	for (i = 0; i < w->execs; i++)
		if (nd_host_run(h, w->image, w->size, w->t, w->nt, 0, NULL)) {
			fprintf(stderr, "bench_workloads: %s: %s\n", w->name, nd_host_error(h));
			exit(1);
		}
	return (now() - t) / w->execs;
}

/* In this process: the exp workload's C loop (no BLAS). */
static double c_batch(struct wl *w, void *arg)
{
	double t = now();
	int i;

	for (i = 0; i < w->execs; i++)
		w->blas(w);
	return (now() - t) / w->execs;
}

/* The baselines' children (bench_blas.h): best kernel, override, NumPy. */
enum { B_BEST, B_OVERRIDE, B_NUMPY, BASELINES };
static struct blas_child base[BASELINES];
static const char *const base_name[BASELINES] = { "best_blas", "override_blas", "numpy" };

static double child_batch(struct wl *w, void *arg)
{
	double t = blas_child_batch(arg, w->execs);

	if (t < 0)
		die("a baseline child failed");
	return t;
}

/* The program loaded, every tensor in device memory with the host side's data. */
struct dev_side {
	struct nd_program *prog;
	struct nd_mem *mem[16];
	struct nd_bind bind[16];
};

static void dev_setup(struct wl *w, struct dev_side *s)
{
	struct nd_load_error le;
	unsigned int i;

	if (nd_program_load(dev, w->image, w->size, &s->prog, &le))
		die(le.msg[0] ? le.msg : nd_device_error(dev));
	for (i = 0; i < w->nt; i++) {
		if (nd_mem_alloc(dev, w->t[i].size, &s->mem[i]) ||
		    nd_mem_write(s->mem[i], 0, w->t[i].data, w->t[i].size))
			die(nd_device_error(dev));
		s->bind[i] = (struct nd_bind){ .name = w->t[i].name, .mem = s->mem[i] };
	}
}

static void dev_teardown(struct wl *w, struct dev_side *s)
{
	unsigned int i;

	for (i = 0; i < w->nt; i++)
		nd_mem_free(s->mem[i]);
	nd_program_unload(s->prog);
}

static double dev_batch(struct wl *w, void *arg)
{
	struct dev_side *s = arg;
	struct nd_run_result res;
	double t = now();
	char buf[128];
	int i;

	for (i = 0; i < w->execs; i++)
		if (nd_run(s->prog, 0, s->bind, w->nt, 0, &res)) {
			fprintf(stderr, "bench_workloads: %s on the module: %s\n", w->name,
				res.result ? nd_run_describe(&res, buf, sizeof(buf)) :
					     nd_device_error(dev));
			exit(1);
		}
	return (now() - t) / w->execs;
}

/*
 * The n sides of a comparison, alternating: each warmed up once, then `runs` timed
 * batches of each in turn; med[i] the medians.
 */
static void alternate(struct wl *w, int n, const batch_fn *f, void *const *arg, double *med)
{
	double t[BASELINES + 1][RUNS];
	int r, i;

	for (i = 0; i < n; i++)
		f[i](w, arg[i]);
	for (r = 0; r < runs; r++)
		for (i = 0; i < n; i++)
			t[i][r] = f[i](w, arg[i]);
	for (i = 0; i < n; i++)
		med[i] = median(t[i], runs);
}

/*
 * The host backend against the baselines that have the workload or, with --device, the
 * module against the host backend.
 */
static void measure(struct nd_host *h, struct wl *w)
{
	batch_fn f[BASELINES + 1] = { host_batch };
	void *arg[BASELINES + 1] = { h };
	int idx[BASELINES + 1], n = 1, i;
	double med[BASELINES + 1];
	struct dev_side s;

	if (dev) {
		w->execs = 1;	/* emulated: an MLP step takes a second, a matmul1024 half a minute */
		dev_setup(w, &s);
		f[1] = dev_batch;
		arg[1] = &s;
		alternate(w, 2, f, arg, med);
		dev_teardown(w, &s);
		printf("BENCH wl_%s_guest_module_us=%.1f us\n", w->name, med[1] * 1e6);
		printf("BENCH wl_%s_guest_host_us=%.1f us\n", w->name, med[0] * 1e6);
		printf("BENCH wl_%s_module_vs_host=%.2f ratio\n", w->name, med[1] / med[0]);
		fflush(stdout);
		return;
	}
	if (!strcmp(w->name, "exp")) {
		f[n] = c_batch;
		idx[n++] = -1;
	}
	for (i = 0; i < BASELINES; i++) {
		if (!base[i].pid || blas_child_select(&base[i], w->name))
			continue;
		f[n] = child_batch;
		arg[n] = &base[i];
		idx[n++] = i;
	}
	alternate(w, n, f, arg, med);
	printf("BENCH wl_%s_host_us=%.1f us\n", w->name, med[0] * 1e6);
	for (i = 1; i < n; i++) {
		const char *b = idx[i] < 0 ? "c" : base_name[idx[i]];

		printf("BENCH wl_%s_%s_us=%.1f us\n", w->name, b, med[i] * 1e6);
		printf("BENCH wl_%s_vs_%s=%.2f ratio\n", w->name, b, med[0] / med[i]);
	}
	fflush(stdout);
}

/* ---- the plain C + OpenBLAS side ---- */

/* MLP step, as examples/mlp-train.c's ref_step but over sgemm. */
#define MB	128
#define MD	784
#define MH	128
#define MC	10

struct mlp {
	float *x, *y, *w1, *b1, *w2, *b2;
	float h[MB * MH], z[MB * MC], dz[MB * MC], dh[MB * MH], dw1[MD * MH], dw2[MH * MC];
	float loss;
};

static void mlp_blas(struct wl *w)
{
	struct mlp *m = w->ctx;
	const float lr = 0.5f;
	double loss = 0;
	int i, j;

	for (i = 0; i < MB; i++)
		memcpy(m->h + i * MH, m->b1, sizeof(float) * MH);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, MB, MH, MD, 1, m->x, MD, m->w1,
		    MH, 1, m->h, MH);
	for (i = 0; i < MB * MH; i++)
		m->h[i] = m->h[i] > 0 ? m->h[i] : 0;
	for (i = 0; i < MB; i++)
		memcpy(m->z + i * MC, m->b2, sizeof(float) * MC);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, MB, MC, MH, 1, m->h, MH, m->w2,
		    MC, 1, m->z, MC);
	for (i = 0; i < MB; i++) {
		float *z = m->z + i * MC, mx = z[0], s = 0, ls;

		for (j = 1; j < MC; j++)
			mx = fmaxf(mx, z[j]);
		for (j = 0; j < MC; j++)
			s += expf(z[j] - mx);
		ls = logf(s);
		for (j = 0; j < MC; j++) {
			float lp = z[j] - mx - ls;

			loss -= m->y[i * MC + j] * lp;
			m->dz[i * MC + j] = (expf(lp) - m->y[i * MC + j]) / MB;
		}
	}
	m->loss = (float)(loss / MB);
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, MB, MH, MC, 1, m->dz, MC, m->w2, MC,
		    0, m->dh, MH);
	for (i = 0; i < MB * MH; i++)
		m->dh[i] = m->h[i] > 0 ? m->dh[i] : 0;
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, MH, MC, MB, 1, m->h, MH, m->dz, MC,
		    0, m->dw2, MC);
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, MD, MH, MB, 1, m->x, MD, m->dh, MH,
		    0, m->dw1, MH);
	/* SGD into fresh outputs, as the device step writes w1_out etc. */
	for (i = 0; i < MD * MH; i++)
		m->dw1[i] = m->w1[i] - lr * m->dw1[i];
	for (i = 0; i < MH * MC; i++)
		m->dw2[i] = m->w2[i] - lr * m->dw2[i];
	for (j = 0; j < MC; j++) {
		float a = 0;

		for (i = 0; i < MB; i++)
			a += m->dz[i * MC + j];
		m->z[j] = m->b2[j] - lr * a;
	}
	for (j = 0; j < MH; j++) {
		float a = 0;

		for (i = 0; i < MB; i++)
			a += m->dh[i * MH + j];
		m->h[j] = m->b1[j] - lr * a;
	}
}

/* Attention: S = Q K^T / sqrt(d), row softmax, O = P V, as examples/attention.c. */
#define AS	512
#define AD	64

struct att {
	float *q, *k, *v;
	float s[AS * AS], o[AS * AD];
};

static void att_blas(struct wl *w)
{
	struct att *a = w->ctx;
	int i, j;

	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, AS, AS, AD, 1.0f / sqrtf(AD), a->q,
		    AD, a->k, AD, 0, a->s, AS);
	for (i = 0; i < AS; i++) {
		float *r = a->s + i * AS, mx = r[0], sum = 0;

		for (j = 1; j < AS; j++)
			mx = fmaxf(mx, r[j]);
		for (j = 0; j < AS; j++) {
			r[j] = expf(r[j] - mx);
			sum += r[j];
		}
		sum = 1.0f / sum;
		for (j = 0; j < AS; j++)
			r[j] *= sum;
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, AS, AD, AS, 1, a->s, AS, a->v, AD,
		    0, a->o, AD);
}

#define MM	1024

struct mm {
	void *a, *b;
	int bf16;
	float *af, *bf, *c;
};

static void bf16_widen(const uint16_t *s, float *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t u = (uint32_t)s[i] << 16;

		memcpy(&d[i], &u, 4);
	}
}

static void mm_blas(struct wl *w)
{
	struct mm *m = w->ctx;
	const float *a = m->a, *b = m->b;

	if (m->bf16) {
		bf16_widen(m->a, m->af, MM * MM);
		bf16_widen(m->b, m->bf, MM * MM);
		a = m->af;
		b = m->bf;
	}
	cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, MM, MM, MM, 1, a, MM, b, MM, 0,
		    m->c, MM);
}

#define ER	250
#define EC	512

static void exp_blas(struct wl *w)
{
	float *in = w->t[0].data, *out = w->ctx;
	int i;

	for (i = 0; i < ER * EC; i++)
		out[i] = expf(in[i]);
	__asm__ volatile("" : : "r"(out) : "memory");
}

/* ---- programs ---- */

static struct nd_host_tensor *find(struct wl *w, const char *name)
{
	unsigned int i;

	for (i = 0; i < w->nt; i++)
		if (!strcmp(w->t[i].name, name))
			return &w->t[i];
	fprintf(stderr, "bench_workloads: %s has no tensor %s\n", w->name, name);
	exit(1);
}

/* Run an example binary to write its program; the image, or NULL if it cannot. */
static int from_example(struct wl *w, const char *example, const char *args)
{
	char path[64], cmd[512];
	struct nd_error err;
	int fd;

	snprintf(path, sizeof(path), "/tmp/bench-wl-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	/* our own placeholder from mkstemp(): replacing it is what we want */
	snprintf(cmd, sizeof(cmd), "%s %s --host -q --force-overwrite --write-vnef %s >/dev/null",
		 example, args, path);
	if (access(example, X_OK) || system(cmd) ||
	    nd_vnef_read(path, &w->image, &w->size, &err)) {
		fprintf(stderr, "bench_workloads: cannot run %s: skipping %s\n", example,
			w->name);
		unlink(path);
		return -1;
	}
	unlink(path);
	bind_all(w);
	return 0;
}

static int from_builder(struct wl *w, struct nd_builder *b)
{
	if (nd_builder_status(b) || nd_builder_finish(b, &w->image, &w->size))
		die(nd_builder_error(b));
	nd_builder_free(b);
	bind_all(w);
	return 0;
}

/* An empty program: fixed cost only. */
static void empty(struct nd_host *h)
{
	struct vn_exec_status st;
	struct vn_prog_error pe;
	struct vn_program *p;
	struct nd_builder *b;
	struct vn_core *c;
	struct vn_exec *ex;
	struct wl w = { .name = "empty", .execs = 2000 };
	double tr[RUNS], te[RUNS], t;
	int r, i;

	/* as tools/bench/guest_exec.c: one memset of one element */
	if (nd_builder_new("empty", &b) ||
	    nd_memset(b, ND_VECTOR, nd_whole(nd_sbuf(b, "t", ND_FP32, 1, 1)), 0.0f))
		die("no builder");
	from_builder(&w, b);
	if (vn_program_load(w.image, w.size, &p, &pe))
		die(pe.msg);
	if (vn_core_create(NULL, "bench", &c))
		die("no core");
	host_batch(&w, h);
	for (r = 0; r < RUNS; r++) {
		tr[r] = host_batch(&w, h);
		t = now();
		for (i = 0; i < w.execs; i++) {
			if (vn_exec_submit(c, p, NULL, 0, 0, NULL, NULL, &ex))
				die("submit failed");
			vn_exec_wait(ex, 0);
			vn_exec_status(ex, &st);
			if (st.result != VN_RES_OK)
				die("empty execution failed");
			vn_exec_put(ex);
		}
		te[r] = (now() - t) / w.execs;
	}
	printf("BENCH host_empty_run_us=%.2f us\n", median(tr, RUNS) * 1e6);
	printf("BENCH host_empty_exec_us=%.2f us\n", median(te, RUNS) * 1e6);
	vn_core_destroy(c);
	vn_program_put(p);
	free(w.image);
}

/* Two NeuronCores on the host: each its own nd_host, driven from its own thread. */
struct scale_arg {
	struct wl *w;
	struct nd_host *h;
	int n;
};

static void *scale_thread(void *p)
{
	struct scale_arg *a = p;
	int i;

	for (i = 0; i < a->n; i++)
		if (nd_host_run(a->h, a->w->image, a->w->size, a->w->t, a->w->nt, 0, NULL))
			die(nd_host_error(a->h));
	return NULL;
}

static void scaling(struct nd_host *h, struct wl *w)
{
	struct scale_arg a[2] = { { w, h, 4 }, { w, NULL, 4 } };
	double one[3], two[3], t;
	struct nd_error err;
	pthread_t th;
	int r;

	if (nd_host_open(NULL, &a[1].h, &err))
		die(err.msg);
	for (r = 0; r < 3; r++) {
		t = now();
		scale_thread(&a[0]);
		one[r] = a[0].n / (now() - t);
		t = now();
		if (pthread_create(&th, NULL, scale_thread, &a[1]))
			die("pthread_create");
		scale_thread(&a[0]);
		pthread_join(th, NULL);
		two[r] = 2 * a[0].n / (now() - t);
	}
	printf("BENCH host_2core_scaling=%.2f x\n", median(two, 3) / median(one, 3));
	nd_host_close(a[1].h);
}

/* ---- the baselines' children ---- */

static struct wl child_wl;

static void *blas_setup(const char *name)
{
	static struct mlp mlp;
	static struct att att;
	static struct mm mm;
	uint16_t *h;
	float **v;
	size_t i, n;

	child_wl = (struct wl){ .name = name };
	if (!strcmp(name, "mlp_step")) {
		float **p[] = { &mlp.x, &mlp.y, &mlp.w1, &mlp.b1, &mlp.w2, &mlp.b2 };
		const size_t sz[] = { MB * MD, MB * MC, MD * MH, MH, MH * MC, MC };

		for (i = 0; i < 6; i++) {
			v = p[i];
			*v = malloc(sizeof(float) * sz[i]);
			for (n = 0; *v && n < sz[i]; n++)
				(*v)[n] = frand();
		}
		child_wl.blas = mlp_blas;
		child_wl.ctx = &mlp;
	} else if (!strcmp(name, "attention")) {
		float **p[] = { &att.q, &att.k, &att.v };

		for (i = 0; i < 3; i++) {
			v = p[i];
			*v = malloc(sizeof(float) * AS * AD);
			for (n = 0; *v && n < AS * AD; n++)
				(*v)[n] = frand();
		}
		child_wl.blas = att_blas;
		child_wl.ctx = &att;
	} else if (!strncmp(name, "matmul1024_", 11)) {
		mm.bf16 = !strcmp(name, "matmul1024_bf16");
		mm.a = malloc(sizeof(float) * MM * MM);
		mm.b = malloc(sizeof(float) * MM * MM);
		mm.af = malloc(sizeof(float) * MM * MM);
		mm.bf = malloc(sizeof(float) * MM * MM);
		mm.c = malloc(sizeof(float) * MM * MM);
		if (!mm.a || !mm.b || !mm.af || !mm.bf || !mm.c)
			return NULL;
		for (n = 0; n < MM * MM; n++) {
			h = mm.bf16 ? (uint16_t *)mm.a : NULL;
			if (h) {
				h[n] = nd_fp32_to_bf16(frand());
				((uint16_t *)mm.b)[n] = nd_fp32_to_bf16(frand());
			} else {
				((float *)mm.a)[n] = frand();
				((float *)mm.b)[n] = frand();
			}
		}
		child_wl.blas = mm_blas;
		child_wl.ctx = &mm;
	} else {
		return NULL;
	}
	return &child_wl;
}

static void blas_run(void *ctx)
{
	struct wl *w = ctx;

	w->blas(w);
}

/* The best kernel's child, the override's, NumPy's on the best kernel. */
static void start_baselines(void)
{
	char *self[] = { "/proc/self/exe", BLAS_CHILD_ARG, NULL };
	char *py[] = { "/usr/bin/python3", "tools/bench/mlp_numpy.py", NULL };
	const char *core, *over;
	char why[512];
	int i;

	blas_pick(&core, &over, why, sizeof(why));
	if (blas_child_start(&base[B_BEST], self, core) ||
	    blas_child_start(&base[B_OVERRIDE], self, over))
		die("cannot start the OpenBLAS baselines");
	if (blas_child_start(&base[B_NUMPY], py, core)) {
		fprintf(stderr, "bench_workloads: no NumPy baseline (/usr/bin/python3 with numpy)\n");
		blas_child_stop(&base[B_NUMPY]);
	}
	printf("# openblas best: %s%s (%s); %s\n", base[B_BEST].core,
	       core ? ", forced" : ", its own choice", why,
	       base[B_BEST].ok ? "checked" : "WRONG RESULTS");
	printf("# openblas override: %s (OPENBLAS_CORETYPE=%s); %s\n", base[B_OVERRIDE].core,
	       over, base[B_OVERRIDE].ok ? "checked" : "WRONG RESULTS");
	if (base[B_NUMPY].pid)
		printf("# numpy: on %s, one thread\n", base[B_NUMPY].core);
	for (i = 0; i < B_NUMPY; i++)
		if (!base[i].ok)
			die("an OpenBLAS kernel computed wrong results (above)");
}

int main(int argc, char **argv)
{
	const char *only;
	struct nd_builder *b;
	struct nd_host *h;
	struct nd_error err;
	struct wl w;
	int i;

	if (argc > 1 && !strcmp(argv[1], BLAS_CHILD_ARG))
		return blas_child_main(0);
	if (argc > 1 && !strcmp(argv[1], BLAS_PROBE_ARG))
		return blas_child_main(1);
	if (argc > 1 && !strcmp(argv[1], "--device")) {
		if (nd_open(0, &dev, &err))
			die(err.msg);
		runs = 3;	/* the guest is emulated: fewer, still alternating */
		argc--;
		argv++;
	}
	only = argc > 1 ? argv[1] : NULL;
	if (!dev)
		start_baselines();
	printf("# host backend on the trn1 model\n");
	if (nd_host_open(NULL, &h, &err))
		die(err.msg);

	if (!dev && (!only || !strcmp(only, "empty")))
		empty(h);

	if (!only || !strcmp(only, "mlp_step")) {
		w = (struct wl){ .name = "mlp_step", .execs = 20 };
		if (!from_example(&w, "build/bin/example-mlp-train", "--steps 2"))
			measure(h, &w);
	}

	if (!only || !strcmp(only, "attention")) {
		w = (struct wl){ .name = "attention", .execs = 10 };
		if (!from_example(&w, "build/bin/example-attention", ""))
			measure(h, &w);
	}

	if (!only || !strcmp(only, "matmul")) {
		int d;

		for (d = 0; d < 2; d++) {
			w = (struct wl){ .name = d ? "matmul1024_bf16" : "matmul1024_fp32",
					 .execs = 3 };
			if (nd_builder_new(w.name, &b) ||
			    nd_kernel_matmul(b, MM, MM, MM, d ? ND_BF16 : ND_FP32, ND_FP32))
				die("matmul kernel");
			from_builder(&w, b);
			if (d) {
				/* sane bf16 inputs: the high halves of small floats */
				uint16_t *a = find(&w, "A")->data, *bb = find(&w, "B")->data;
				size_t n;

				for (n = 0; n < MM * MM; n++) {
					a[n] = nd_fp32_to_bf16(frand());
					bb[n] = nd_fp32_to_bf16(frand());
				}
			}
			measure(h, &w);
			if (!d && !dev && (!only || !strcmp(only, "matmul")))
				scaling(h, &w);
		}
	}

	if (!only || !strcmp(only, "exp")) {
		static float eout[ER * EC];

		w = (struct wl){ .name = "exp", .execs = 50, .blas = exp_blas, .ctx = eout };
		if (nd_builder_new("exp", &b) || nd_kernel_exp(b, ER, EC, 1))
			die("exp kernel");
		from_builder(&w, b);
		if (w.t[0].size != sizeof(eout) || strcmp(w.t[0].name, "in"))
			die("exp: unexpected tensors");
		measure(h, &w);
	}
	nd_host_close(h);
	if (dev)
		nd_close(dev);
	for (i = 0; i < BASELINES; i++)
		blas_child_stop(&base[i]);
	return 0;
}
