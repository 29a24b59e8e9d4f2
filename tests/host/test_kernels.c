// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * End-to-end kernels: built with the program builder, run on the host backend (the
 * device core's validator and executor), checked against plain C references in double
 * precision.
 *
 * Tolerances (u = 2^-24, the fp32 unit roundoff; b = 2^-8, bf16's):
 *   matmul, fp32 accumulation of K products: |c - ref| <= K u sum_k |a_ik b_kj|, the
 *     classic bound for a recursive sum (Higham, Accuracy and Stability, 3.1); bf16
 *     inputs are rounded before the reference sees them, a bf16 output adds b |ref|.
 *   exp: relative 4e-7 (a few ulp of the core's exp).
 *   softmax: relative 4e-6 (exp, a 512-term sum, a reciprocal and a product).
 *   layernorm: absolute 4e-5 on outputs of unit scale (two 512-term sums and rsqrt).
 * The modeled timeline is deterministic, so the timing assertions compare modeled
 * times, never host time.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog.h"

/*
 * The 6.1 harness (and its FIXTURE macros) define functions without prototypes, compare
 * its int expectations with unsigned values, and expand ASSERT_* to a for loop.
 */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#include "../test_data.h"

/* Build, report the builder's error, and hand back the image. */
static int finish(struct nd_builder *b, void **img, size_t *size)
{
	int ret = nd_builder_finish(b, img, size);

	if (ret)
		fprintf(stderr, "# builder: %s\n", nd_builder_error(b));
	return ret;
}

static int run(struct nd_host *h, const void *img, size_t size, struct nd_host_tensor *t,
	       unsigned int n, struct nd_run_result *res)
{
	int ret = nd_host_run(h, img, size, t, n, 0, res);

	if (ret)
		fprintf(stderr, "# host run: %s\n", nd_host_error(h));
	return ret;
}

/* ---------------------------------------------------------------------------- */
/* Tiled matmul: C [M x N] = A [M x K] . B [K x N], 128 x 512 output tiles.       */

#define MM 512

static void matmul_case(struct __test_metadata *_metadata, enum nd_dtype dt)
{
	const size_t n = (size_t)MM * MM;
	const size_t es = dt == ND_BF16 ? 2 : 4;
	float *a = xmalloc(n * 4), *bm = xmalloc(n * 4), *c = xmalloc(n * 4);
	void *ah = xmalloc(n * es), *bh = xmalloc(n * es), *ch = xmalloc(n * es);
	struct nd_host_tensor t[] = {
		{ "A", ah, n * es }, { "B", bh, n * es }, { "C", ch, n * es },
	};
	struct nd_builder *b;
	struct nd_host *h;
	struct nd_run_result res;
	const struct nd_event *ev;
	uint64_t flops = 0, tflops = 0;
	size_t size, i, j, k, nev, bad = 0;
	double worst = 0;
	void *img;

	fill(a, n, 1, 1.0f);
	fill(bm, n, 2, 1.0f);
	for (i = 0; i < n; i++) {
		if (dt == ND_BF16) {
			((uint16_t *)ah)[i] = nd_fp32_to_bf16(a[i]);
			((uint16_t *)bh)[i] = nd_fp32_to_bf16(bm[i]);
			/* the reference sees the rounded inputs */
			a[i] = nd_bf16_to_fp32(((uint16_t *)ah)[i]);
			bm[i] = nd_bf16_to_fp32(((uint16_t *)bh)[i]);
		} else {
			((float *)ah)[i] = a[i];
			((float *)bh)[i] = bm[i];
		}
	}
	memset(ch, 0xff, n * es);

	ASSERT_EQ(0, nd_builder_new(dt == ND_BF16 ? "matmul_bf16" : "matmul_fp32", &b));
	ASSERT_EQ(0, nd_kernel_matmul(b, MM, MM, MM, dt, dt));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_host_open(NULL, &h, NULL));
	nd_host_record(h, 1);
	ASSERT_EQ(0, run(h, img, size, t, 3, &res));

	for (i = 0; i < MM; i++) {
		for (j = 0; j < MM; j++) {
			double ref = 0, mag = 0, got, tol;

			for (k = 0; k < MM; k++) {
				ref += (double)a[i * MM + k] * bm[k * MM + j];
				mag += fabs((double)a[i * MM + k] * bm[k * MM + j]);
			}
			got = dt == ND_BF16 ? nd_bf16_to_fp32(((uint16_t *)ch)[i * MM + j]) :
					      ((float *)ch)[i * MM + j];
			tol = MM * FP32_U * mag + (dt == ND_BF16 ? BF16_U * fabs(ref) : 0);
			if (fabs(got - ref) > tol) {
				if (bad++ < 5)
					TH_LOG("C[%zu][%zu] = %g, ref %g, tol %g", i, j, got, ref,
					       tol);
			}
			if (mag > 0 && fabs(got - ref) / mag > worst)
				worst = fabs(got - ref) / mag;
		}
	}
	EXPECT_EQ(0, bad);
	TH_LOG("%s: worst |err| / sum|ab| = %.3g, modeled %.2f us", dt == ND_BF16 ? "bf16" :
	       "fp32", worst, res.model_ps / 1e6);

	/* TensorE work as modeled: 2 M N K flops of matmul plus the transposes. */
	ev = nd_host_events(h, &nev);
	for (i = 0; i < nev; i++) {
		if (ev[i].stream != ND_TENSOR)
			continue;
		if (ev[i].opcode == VNEF_OP_TRANSPOSE)
			tflops += ev[i].flops;
		else
			flops += ev[i].flops;
	}
	EXPECT_EQ(2ull * MM * MM * MM, flops);
	EXPECT_LT(0, tflops);

	nd_host_close(h);
	nd_builder_free(b);
	free(img);
	free(a);
	free(bm);
	free(c);
	free(ah);
	free(bh);
	free(ch);
}

TEST(matmul_512_fp32)
{
	matmul_case(_metadata, ND_FP32);
}

TEST(matmul_512_bf16)
{
	matmul_case(_metadata, ND_BF16);
}

/*
 * y = relu(x . w1) . w2 with scopes mlp/fc1 and mlp/fc2. Bound: with H_j = sum_i
 * |x_i w1_ij| >= |h_j|, |y_k - ref_k| <= (d_in + hidden + 1) u sum_j H_j |w2_jk|
 * (fc1's error carried through fc2, plus fc2's own).
 */
TEST(mlp_fp32_and_scopes)
{
	enum { DI = 256, HID = 512, DO = 384 };
	float *x = xmalloc(128 * DI * 4), *w1 = xmalloc(DI * HID * 4);
	float *w2 = xmalloc(HID * DO * 4), *y = xmalloc(128 * DO * 4);
	double *hh = xmalloc(HID * sizeof(double)), *mag = xmalloc(HID * sizeof(double));
	struct nd_host_tensor t[] = {
		{ "x", x, 128 * DI * 4 }, { "w1", w1, DI * HID * 4 },
		{ "w2", w2, HID * DO * 4 }, { "y", y, 128 * DO * 4 },
	};
	struct nd_run_result res;
	struct nd_error err;
	struct nd_builder *b;
	size_t size, r, i, j, k, bad = 0, tlen = 0;
	char *text = NULL;
	double worst = 0;
	void *img;
	FILE *f;

	fill(x, 128 * DI, 10, 1.0f);
	fill(w1, DI * HID, 11, 0.1f);
	fill(w2, HID * DO, 12, 0.1f);
	ASSERT_EQ(0, nd_builder_new("mlp", &b));
	ASSERT_EQ(0, nd_kernel_mlp(b, DI, HID, DO, ND_FP32));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_run_on_host(img, size, t, 4, &res, &err)) TH_LOG("%s", err.msg);
	for (r = 0; r < 128; r++) {
		for (j = 0; j < HID; j++) {
			hh[j] = 0;
			mag[j] = 0;
			for (i = 0; i < DI; i++) {
				hh[j] += (double)x[r * DI + i] * w1[i * HID + j];
				mag[j] += fabs((double)x[r * DI + i] * w1[i * HID + j]);
			}
			hh[j] = hh[j] > 0 ? hh[j] : 0;
		}
		for (k = 0; k < DO; k++) {
			double ref = 0, m = 0, got = y[r * DO + k];

			for (j = 0; j < HID; j++) {
				ref += hh[j] * w2[j * DO + k];
				m += mag[j] * fabs((double)w2[j * DO + k]);
			}
			if (fabs(got - ref) > (DI + HID + 1) * FP32_U * m && bad++ < 5)
				TH_LOG("y[%zu][%zu] = %g, ref %g", r, k, got, ref);
			if (m > 0 && fabs(got - ref) / m > worst)
				worst = fabs(got - ref) / m;
		}
	}
	EXPECT_EQ(0, bad);
	TH_LOG("mlp: worst |err| / bound magnitude = %.3g (tolerance %.3g)", worst,
	       (DI + HID + 1) * FP32_U);

	/* the layer paths of the debug table */
	f = open_memstream(&text, &tlen);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, nd_vnef_dump(img, size, f, &err));
	fclose(f);
	EXPECT_NE(NULL, strstr(text, " mlp/fc1/matmul\n"));
	EXPECT_NE(NULL, strstr(text, " mlp/fc2/matmul\n"));
	EXPECT_NE(NULL, strstr(text, " mlp/fc1/transpose/transpose\n"));
	EXPECT_NE(NULL, strstr(text, " mlp/relu\n"));
	free(text);
	nd_builder_free(b);
	free(img);
	free(x);
	free(w1);
	free(w2);
	free(y);
	free(hh);
	free(mag);
}

/* A non-square matmul with several N blocks, and the kernel's own argument checks. */
TEST(matmul_256x384x1024)
{
	enum { M = 256, K = 384, N = 1024 };
	float *a = xmalloc(M * K * 4), *bm = xmalloc(K * N * 4), *c = xmalloc(M * N * 4);
	struct nd_host_tensor t[] = {
		{ "A", a, M * K * 4 }, { "B", bm, K * N * 4 }, { "C", c, M * N * 4 },
	};
	struct nd_run_result res;
	struct nd_error err;
	struct nd_builder *b;
	size_t size, i, j, k, bad = 0;
	void *img;

	fill(a, M * K, 13, 1.0f);
	fill(bm, K * N, 14, 1.0f);
	ASSERT_EQ(0, nd_builder_new("mm", &b));
	ASSERT_EQ(0, nd_kernel_matmul(b, M, K, N, ND_FP32, ND_FP32));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_run_on_host(img, size, t, 3, &res, &err)) TH_LOG("%s", err.msg);
	for (i = 0; i < M; i++)
		for (j = 0; j < N; j++) {
			double ref = 0, mag = 0;

			for (k = 0; k < K; k++) {
				ref += (double)a[i * K + k] * bm[k * N + j];
				mag += fabs((double)a[i * K + k] * bm[k * N + j]);
			}
			if (fabs(c[i * N + j] - ref) > K * FP32_U * mag && bad++ < 5)
				TH_LOG("C[%zu][%zu] = %g, ref %g", i, j, c[i * N + j], ref);
		}
	EXPECT_EQ(0, bad);
	nd_builder_free(b);
	free(img);

	ASSERT_EQ(0, nd_builder_new("bad", &b));
	EXPECT_EQ(-EINVAL, nd_kernel_matmul(b, 100, 128, 128, ND_FP32, ND_FP32));
	EXPECT_NE(NULL, strstr(nd_builder_error(b), "multiples of 128"));
	nd_builder_free(b);
	free(a);
	free(bm);
	free(c);
}

/* ---------------------------------------------------------------------------- */
/* The NKI profiler blog's kernel: exp over [rows, 512] in 128-partition tiles.  */

TEST(exp_250x512_masked_last_tile)
{
	const size_t n = 250 * 512, guard = 4096;
	float *x = xmalloc(n * 4), *y = xmalloc((n + guard) * 4);
	struct nd_host_tensor t[] = { { "in", x, n * 4 }, { "out", y, (n + guard) * 4 } };
	struct nd_run_result res;
	double worst = 0;
	struct nd_error err;
	struct nd_builder *b;
	size_t size, i, bad = 0;
	void *img;

	fill(x, n, 3, 4.0f);
	for (i = 0; i < n + guard; i++)
		y[i] = -7.0f;
	ASSERT_EQ(0, nd_builder_new("tensor_exp_kernel", &b));
	ASSERT_EQ(0, nd_kernel_exp(b, 250, 512, 0));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_run_on_host(img, size, t, 2, &res, &err)) TH_LOG("%s", err.msg);
	for (i = 0; i < n; i++) {
		double ref = exp((double)x[i]);

		worst = fmax(worst, fabs(y[i] - ref) / ref);
		if (fabs(y[i] - ref) > 4e-7 * ref && bad++ < 5)
			TH_LOG("out[%zu] = %g, ref %g", i, y[i], ref);
	}
	EXPECT_EQ(0, bad);
	TH_LOG("exp: worst relative error %.3g (tolerance 4e-7)", worst);
	/* the mask kept the stores inside the 250 rows */
	for (i = n; i < n + guard; i++)
		ASSERT_EQ(-7.0f, y[i]);
	EXPECT_LT(0, res.model_ps);
	nd_builder_free(b);
	free(img);
	free(x);
	free(y);
}

/* ---------------------------------------------------------------------------- */
/* Row softmax and layernorm: rows on partitions, 512 features on the free axis. */

#define ROWS 256
#define FEAT 512

TEST(softmax_rows)
{
	const size_t n = ROWS * FEAT;
	float *x = xmalloc(n * 4), *y = xmalloc(n * 4);
	struct nd_host_tensor t[] = { { "x", x, n * 4 }, { "y", y, n * 4 } };
	struct nd_run_result res;
	struct nd_error err;
	struct nd_builder *b;
	size_t size, r, j, bad = 0;
	double worst = 0;
	void *img;

	fill(x, n, 4, 8.0f);
	ASSERT_EQ(0, nd_builder_new("softmax", &b));
	ASSERT_EQ(0, nd_kernel_softmax(b, ROWS, FEAT));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_run_on_host(img, size, t, 2, &res, &err)) TH_LOG("%s", err.msg);
	for (r = 0; r < ROWS; r++) {
		double mx = -INFINITY, sum = 0;

		for (j = 0; j < FEAT; j++)
			mx = fmax(mx, x[r * FEAT + j]);
		for (j = 0; j < FEAT; j++)
			sum += exp(x[r * FEAT + j] - mx);
		for (j = 0; j < FEAT; j++) {
			double ref = exp(x[r * FEAT + j] - mx) / sum;

			worst = fmax(worst, fabs(y[r * FEAT + j] - ref) / ref);
			if (fabs(y[r * FEAT + j] - ref) > 4e-6 * ref && bad++ < 5)
				TH_LOG("y[%zu][%zu] = %g, ref %g", r, j, y[r * FEAT + j], ref);
		}
	}
	EXPECT_EQ(0, bad);
	TH_LOG("softmax: worst relative error %.3g (tolerance 4e-6)", worst);
	nd_builder_free(b);
	free(img);
	free(x);
	free(y);
}

#define LN_EPS 1e-5f

TEST(layernorm_rows)
{
	const size_t n = ROWS * FEAT;
	float *x = xmalloc(n * 4), *y = xmalloc(n * 4), gamma[FEAT], beta[FEAT];
	struct nd_host_tensor t[] = { { "x", x, n * 4 }, { "y", y, n * 4 } };
	struct nd_run_result res;
	struct nd_error err;
	struct nd_builder *b;
	size_t size, r, j, bad = 0;
	double worst = 0;
	void *img;

	fill(x, n, 5, 3.0f);
	for (r = 0; r < ROWS; r++)		/* rows with different offsets */
		for (j = 0; j < FEAT; j++)
			x[r * FEAT + j] += (float)r / 16;
	fill(gamma, FEAT, 6, 1.0f);
	fill(beta, FEAT, 7, 0.5f);
	ASSERT_EQ(0, nd_builder_new("layernorm", &b));
	ASSERT_EQ(0, nd_kernel_layernorm(b, ROWS, FEAT, gamma, beta, LN_EPS));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_run_on_host(img, size, t, 2, &res, &err)) TH_LOG("%s", err.msg);
	for (r = 0; r < ROWS; r++) {
		double mean = 0, var = 0, rstd;

		for (j = 0; j < FEAT; j++)
			mean += x[r * FEAT + j];
		mean /= FEAT;
		for (j = 0; j < FEAT; j++)
			var += (x[r * FEAT + j] - mean) * (x[r * FEAT + j] - mean);
		rstd = 1 / sqrt(var / FEAT + LN_EPS);
		for (j = 0; j < FEAT; j++) {
			double ref = (x[r * FEAT + j] - mean) * rstd * gamma[j] + beta[j];

			worst = fmax(worst, fabs(y[r * FEAT + j] - ref));
			if (fabs(y[r * FEAT + j] - ref) > 4e-5 && bad++ < 5)
				TH_LOG("y[%zu][%zu] = %.8g, ref %.8g", r, j, y[r * FEAT + j], ref);
		}
	}
	EXPECT_EQ(0, bad);
	TH_LOG("layernorm: worst absolute error %.3g (tolerance 4e-5)", worst);
	nd_builder_free(b);
	free(img);
	free(x);
	free(y);
}

/* Free-axis patterns: a column broadcast along the free axis, and a transposing copy. */
TEST(strided_views)
{
	static const uint64_t shape[] = { 128, 32 };
	float x[128 * 32], y[128 * 32], z[128 * 32];
	struct nd_host_tensor t[] = {
		{ "x", x, sizeof(x) }, { "y", y, sizeof(y) }, { "z", z, sizeof(z) },
	};
	struct nd_tensor *X, *Y, *Z;
	struct nd_tile *a, *col, *o1, *o2;
	struct nd_run_result res;
	struct nd_error err;
	struct nd_builder *b;
	size_t size, p, i;
	void *img;

	fill(x, 128 * 32, 15, 1.0f);
	ASSERT_EQ(0, nd_builder_new("strided", &b));
	X = nd_input(b, "x", ND_FP32, 2, shape);
	Y = nd_output(b, "y", ND_FP32, 2, shape);
	Z = nd_output(b, "z", ND_FP32, 2, shape);
	a = nd_sbuf(b, "a", ND_FP32, 128, 32);
	col = nd_sbuf(b, "col", ND_FP32, 128, 1);
	o1 = nd_sbuf(b, "o1", ND_FP32, 128, 32);
	o2 = nd_sbuf(b, "o2", ND_FP32, 128, 32);
	nd_load(b, ND_QUEUE_AUTO, nd_whole(a), nd_hbm_rows(X, 0, 0));
	/* y = x + x[:, 0] broadcast (stride 0 over 32 elements) */
	nd_copy(b, ND_VECTOR, nd_whole(col), nd_part(a, 0, 128, 0, 1));
	nd_tensor_tensor(b, ND_VECTOR, nd_whole(o1), nd_whole(a),
			 nd_pattern(col, 0, 128, 0, 32, 0, 1, 0), ND_ADD);
	/* z = each partition's 4 x 8 row-major block, transposed to 8 x 4 */
	nd_copy(b, ND_GPSIMD, nd_whole(o2), nd_pattern(a, 0, 128, 0, 4, 8, 8, 1));
	nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(Y, 0, 0), nd_whole(o1));
	nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(Z, 0, 0), nd_whole(o2));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_run_on_host(img, size, t, 3, &res, &err)) TH_LOG("%s", err.msg);
	for (p = 0; p < 128; p++) {
		for (i = 0; i < 32; i++) {
			ASSERT_EQ(x[p * 32 + i] + x[p * 32], y[p * 32 + i]);
			/* z[r][c] (8 x 4) = x[c][r] (4 x 8) */
			ASSERT_EQ(x[p * 32 + (i % 4) * 8 + i / 4], z[p * 32 + i]);
		}
	}
	nd_builder_free(b);
	free(img);
}

/* ---------------------------------------------------------------------------- */
/* The modeled timeline                                                          */

static int same_timeline(const struct nd_event *a, size_t na, const struct nd_event *b,
			 size_t nb)
{
	size_t i;

	if (na != nb)
		return 0;
	for (i = 0; i < na; i++)
		if (a[i].stream != b[i].stream || a[i].pc != b[i].pc ||
		    a[i].opcode != b[i].opcode || a[i].start_ps != b[i].start_ps ||
		    a[i].end_ps != b[i].end_ps || a[i].bytes != b[i].bytes ||
		    a[i].flops != b[i].flops)
			return 0;
	return 1;
}

TEST(same_program_same_timeline)
{
	const size_t n = ROWS * FEAT;
	float *x = xmalloc(n * 4), *y = xmalloc(n * 4);
	struct nd_host_tensor t[] = { { "x", x, n * 4 }, { "y", y, n * 4 } };
	struct nd_run_result r1, r2, r3;
	struct nd_event *first;
	const struct nd_event *ev;
	struct nd_host *h1, *h2;
	struct nd_builder *b;
	size_t size, n1, n2;
	void *img;

	fill(x, n, 8, 2.0f);
	ASSERT_EQ(0, nd_builder_new("softmax", &b));
	ASSERT_EQ(0, nd_kernel_softmax(b, ROWS, FEAT));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_host_open(NULL, &h1, NULL));
	ASSERT_EQ(0, nd_host_open(NULL, &h2, NULL));
	nd_host_record(h1, 1);
	nd_host_record(h2, 1);

	ASSERT_EQ(0, run(h1, img, size, t, 2, &r1));
	ev = nd_host_events(h1, &n1);
	ASSERT_LT(0, n1);
	first = xmalloc(n1 * sizeof(*first));
	memcpy(first, ev, n1 * sizeof(*first));
	/* again on the same core, and on another one */
	ASSERT_EQ(0, run(h1, img, size, t, 2, &r2));
	ev = nd_host_events(h1, &n2);
	EXPECT_TRUE(same_timeline(first, n1, ev, n2));
	ASSERT_EQ(0, run(h2, img, size, t, 2, &r3));
	ev = nd_host_events(h2, &n2);
	EXPECT_TRUE(same_timeline(first, n1, ev, n2));
	EXPECT_EQ(r1.model_ps, r2.model_ps);
	EXPECT_EQ(r1.model_ps, r3.model_ps);

	free(first);
	nd_host_close(h1);
	nd_host_close(h2);
	nd_builder_free(b);
	free(img);
	free(x);
	free(y);
}

/* Modeled picoseconds during which a DMA queue and a compute engine both run. */
static uint64_t dma_compute_overlap(const struct nd_event *ev, size_t n)
{
	uint64_t total = 0;
	size_t i, j;

	for (i = 0; i < n; i++) {
		if (ev[i].stream < VNEF_ENGINES || ev[i].end_ps == ev[i].start_ps)
			continue;
		for (j = 0; j < n; j++) {
			uint64_t lo, hi;

			if (ev[j].stream >= VNEF_ENGINES)
				continue;
			lo = ev[i].start_ps > ev[j].start_ps ? ev[i].start_ps : ev[j].start_ps;
			hi = ev[i].end_ps < ev[j].end_ps ? ev[i].end_ps : ev[j].end_ps;
			if (hi > lo)
				total += hi - lo;
		}
	}
	return total;
}

static void exp_timeline(struct __test_metadata *_metadata, int double_buffer,
			 uint64_t *overlap, uint64_t *model_ps)
{
	const uint32_t rows = 1024;
	const size_t n = (size_t)rows * 512;
	float *x = xmalloc(n * 4), *y = xmalloc(n * 4);
	struct nd_host_tensor t[] = { { "in", x, n * 4 }, { "out", y, n * 4 } };
	struct nd_run_result res;
	const struct nd_event *ev;
	struct nd_builder *b;
	struct nd_host *h;
	size_t size, nev, i, bad = 0;
	void *img;

	fill(x, n, 9, 1.0f);
	ASSERT_EQ(0, nd_builder_new("exp", &b));
	ASSERT_EQ(0, nd_kernel_exp(b, rows, 512, double_buffer));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_host_open(NULL, &h, NULL));
	nd_host_record(h, 1);
	ASSERT_EQ(0, run(h, img, size, t, 2, &res));
	ev = nd_host_events(h, &nev);
	*overlap = dma_compute_overlap(ev, nev);
	*model_ps = res.model_ps;
	for (i = 0; i < n; i++)
		if (fabs(y[i] - exp((double)x[i])) > 4e-7 * exp((double)x[i]))
			bad++;
	EXPECT_EQ(0, bad);
	nd_host_close(h);
	nd_builder_free(b);
	free(img);
	free(x);
	free(y);
}

TEST(double_buffering_overlaps_dma_and_compute)
{
	uint64_t ov1, ov2, t1, t2;

	exp_timeline(_metadata, 0, &ov1, &t1);
	exp_timeline(_metadata, 1, &ov2, &t2);
	TH_LOG("single buffer: %.2f us, DMA/compute overlap %.2f us; double: %.2f us, "
	       "overlap %.2f us", t1 / 1e6, ov1 / 1e6, t2 / 1e6, ov2 / 1e6);
	/* one buffer serialises load, exp and store; two let them overlap */
	EXPECT_EQ(0, ov1);
	EXPECT_LT(0, ov2);
	EXPECT_LT(t2, t1);
}

TEST(host_binding_errors)
{
	static float x[128 * 512], y[128 * 512];
	struct nd_host_tensor ok[] = { { "in", x, sizeof(x) }, { "out", y, sizeof(y) } };
	struct nd_host_tensor t[2];
	struct nd_run_result res;
	struct nd_builder *b;
	struct nd_host *h;
	size_t size;
	void *img;

	memset(x, 0, sizeof(x));
	ASSERT_EQ(0, nd_builder_new("exp", &b));
	ASSERT_EQ(0, nd_kernel_exp(b, 128, 512, 0));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_host_open(NULL, &h, NULL));

	EXPECT_EQ(-EINVAL, nd_host_run(h, img, size, ok, 1, 0, &res));
	EXPECT_STREQ("output tensor 'out' is not bound", nd_host_error(h));
	memcpy(t, ok, sizeof(t));
	t[1].name = "nope";
	EXPECT_EQ(-EINVAL, nd_host_run(h, img, size, t, 2, 0, &res));
	EXPECT_STREQ("the program has no tensor 'nope'", nd_host_error(h));
	memcpy(t, ok, sizeof(t));
	t[1].size = 100;
	EXPECT_EQ(-EINVAL, nd_host_run(h, img, size, t, 2, 0, &res));
	EXPECT_STREQ("tensor 'out' needs 262144 bytes, bound to 100", nd_host_error(h));
	memcpy(t, ok, sizeof(t));
	t[1].name = "in";
	EXPECT_EQ(-EINVAL, nd_host_run(h, img, size, t, 2, 0, &res));
	EXPECT_STREQ("tensor 'in' is bound twice", nd_host_error(h));
	/*
	 * a corrupt image is refused by the validator, with its reason: changed in place at
	 * the same address, so the host's cache of the last validated image must notice
	 */
	((uint32_t *)img)[1] = 99;
	EXPECT_EQ(-EINVAL, nd_host_run(h, img, size, ok, 2, 0, &res));
	EXPECT_NE(NULL, strstr(nd_host_error(h), "version check"));
	((uint32_t *)img)[1] = VNEF_VERSION;
	EXPECT_EQ(0, nd_host_run(h, img, size, ok, 2, 0, &res));

	nd_host_close(h);
	nd_builder_free(b);
	free(img);
}

TEST_HARNESS_MAIN
