// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Tiled matmul C = A . B (nd_kernel_matmul: A blocks transposed on TensorE, K
 * accumulated in PSUM, 128 x 512 output tiles double-buffered), square sizes 512, 1024
 * and 2048, bf16 or fp32 inputs, fp32 output, checked against a C reference.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static void usage(FILE *f)
{
	fprintf(f,
"NAME\n"
"    example-matmul - tiled matmul on TensorE, bf16 and fp32, 512 to 2048\n"
"\n"
"SYNOPSIS\n"
"    example-matmul [--size 512|1024|2048] [--dtype bf16|fp32|both] [--host]\n"
"                   [--device D] [--core C] [--write-vnef FILE] [-q]\n"
"\n"
"DESCRIPTION\n"
"    Builds C [N x N] fp32 = A [N x N] . B [N x N] with nd_kernel_matmul (scope\n"
"    matmul: load_b, transpose, then K-accumulated matmuls in PSUM per 128 x 512\n"
"    output tile), runs it and checks C against a C reference computed from the\n"
"    same (bf16-rounded) inputs, to within the fp32 accumulation error bound\n"
"    K u sum|a b| (every row for N <= 1024, every 8th row for 2048). Prints the\n"
"    modeled time and the TensorE throughput it implies.\n"
"\n"
"OPTIONS\n"
"    --size N            512 (default), 1024 or 2048 (2048 takes seconds on the\n"
"                        host and minutes in the emulated guest)\n"
"    --dtype T           bf16, fp32 or both (default both; --write-vnef needs one)\n"
"%s"
"\n"
"EXIT STATUS\n"
"    0 when C matches, 1 on a mismatch or error, 2 on bad usage.\n"
"\n"
"EXAMPLE\n"
"    example-matmul --host --size 1024\n"
"    example-matmul --dtype bf16 --write-vnef mm_bf16.vnef\n", ex_common_help);
}

static int run_one(const struct ex_opts *o, uint32_t n, enum nd_dtype dt, const float *a,
		   const float *bm)
{
	size_t nn = (size_t)n * n, esz = dt == ND_BF16 ? 2 : 4, i, j, k, bad = 0;
	size_t rstep = n > 1024 ? 8 : 1;
	void *ad = malloc(nn * esz), *bd = malloc(nn * esz);
	float *c = malloc(nn * 4), *ar = malloc(nn * 4), *br = malloc(nn * 4);
	double *ref = malloc(n * sizeof(double)), *mag = malloc(n * sizeof(double));
	const char *tn = dt == ND_BF16 ? "bf16" : "fp32";
	struct nd_builder *b = NULL;
	struct ex_ctx *ctx = NULL;
	char name[32];
	uint64_t ps = 0;
	double t0;
	int ret = -1;

	if (!ad || !bd || !c || !ar || !br || !ref || !mag)
		goto out;
	for (i = 0; i < nn; i++) {
		if (dt == ND_BF16) {
			((uint16_t *)ad)[i] = nd_fp32_to_bf16(a[i]);
			((uint16_t *)bd)[i] = nd_fp32_to_bf16(bm[i]);
			ar[i] = nd_bf16_to_fp32(((uint16_t *)ad)[i]);
			br[i] = nd_bf16_to_fp32(((uint16_t *)bd)[i]);
		} else {
			((float *)ad)[i] = ar[i] = a[i];
			((float *)bd)[i] = br[i] = bm[i];
		}
	}
	snprintf(name, sizeof(name), "matmul_%u_%s", n, tn);
	if (ex_builder_new(o, name, &b))
		goto out;
	if (nd_kernel_matmul(b, n, n, n, dt, ND_FP32)) {
		fprintf(stderr, "%s: %s\n", name, nd_builder_error(b));
		goto out;
	}
	if (ex_open(o, b, &ctx))
		goto out;
	{
		struct ex_buf bufs[] = {
			{ "A", ad, nn * esz, 0 }, { "B", bd, nn * esz, 0 }, { "C", c, nn * 4, 1 },
		};

		t0 = ex_now();
		if (ex_run(ctx, bufs, 3, &ps))
			goto out;
		t0 = ex_now() - t0;
	}
	for (i = 0; i < n; i += rstep) {
		for (j = 0; j < n; j++)
			ref[j] = mag[j] = 0;
		for (k = 0; k < n; k++) {
			double x = ar[i * n + k];
			const float *row = br + k * n;

			for (j = 0; j < n; j++) {
				ref[j] += x * row[j];
				mag[j] += fabs(x * row[j]);
			}
		}
		for (j = 0; j < n; j++) {
			double d = fabs(c[i * n + j] - ref[j]);

			if (!(d <= n * 6e-8 * mag[j] + 1e-6) && bad++ < 3)
				fprintf(stderr, "%s: C[%zu][%zu] = %g, want %g\n", name, i, j,
					c[i * n + j], ref[j]);
		}
	}
	if (bad) {
		fprintf(stderr, "%s: %zu elements differ\n", name, bad);
		goto out;
	}
	if (!o->quiet)
		printf("%-16s on %s: ok, modeled %.1f us (%.1f TFLOP/s), host %.2f s\n", name,
		       ex_where(ctx), (double)ps * 1e-6,
		       ps ? 2.0 * n * n * n / ((double)ps * 1e-12) * 1e-12 : 0.0, t0);
	else
		printf("%s: ok\n", name);
	ret = 0;
out:
	ex_close(ctx);
	nd_builder_free(b);
	free(ad);
	free(bd);
	free(c);
	free(ar);
	free(br);
	free(ref);
	free(mag);
	return ret;
}

struct matmul_args {
	int bf, fp;
	uint32_t n;
};

static int matmul_arg(void *ctx, const char *opt, const char *val)
{
	struct matmul_args *x = ctx;

	if (!strcmp(opt, "--dtype"))
		return ex_one_or_both(opt, val, "bf16", "fp32", &x->bf, &x->fp);
	if (strcmp(opt, "--size"))
		return 0;
	x->n = val ? (uint32_t)atoi(val) : 0;
	if (x->n != 512 && x->n != 1024 && x->n != 2048) {
		ex_bad_value(opt, "512, 1024 or 2048, not '%s'", val ? val : "");
		return -1;
	}
	return 2;
}

int main(int argc, char **argv)
{
	struct matmul_args x = { .bf = 1, .fp = 1, .n = 512 };
	struct ex_cmdline cl = { "example-matmul", usage, matmul_arg, &x };
	struct ex_opts o = { 0 };
	int bf, fp, r, ret = 0;
	uint32_t n;
	uint64_t seed = 3;
	float *a, *bm;
	size_t k;

	r = ex_parse_args(&o, &cl, argc, argv);
	if (r)
		return r > 0 ? 0 : 2;
	bf = x.bf;
	fp = x.fp;
	n = x.n;

	if (o.write_vnef && bf && fp) {
		fprintf(stderr, "example-matmul: --write-vnef needs --dtype bf16 or fp32\n");
		return 2;
	}
	a = malloc((size_t)n * n * 4);
	bm = malloc((size_t)n * n * 4);
	if (!a || !bm)
		return 1;
	for (k = 0; k < (size_t)n * n; k++) {
		a[k] = ex_uniform(&seed, -1.0f, 1.0f);
		bm[k] = ex_uniform(&seed, -1.0f, 1.0f);
	}
	if (bf && run_one(&o, n, ND_BF16, a, bm))
		ret = 1;
	if (!ret && fp && run_one(&o, n, ND_FP32, a, bm))
		ret = 1;
	free(a);
	free(bm);
	return ret;
}
