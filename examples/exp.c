// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The tiled elementwise exp of the NKI profiler example: a [250, 512] fp32 tensor in
 * 128-partition tiles, the last one masked to 122 rows. Two versions: naive (one tile
 * buffer: every load waits for the previous tile's exp and store, so DMA and compute
 * never overlap) and pipelined (two buffers: tile i+1 loads while tile i computes).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define ROWS 250
#define COLS 512

static void usage(FILE *f)
{
	fprintf(f,
"NAME\n"
"    example-exp - the tiled exp kernel of the NKI profiler example, naive and pipelined\n"
"\n"
"SYNOPSIS\n"
"    example-exp [--variant naive|pipelined|both] [--host] [--device D] [--core C]\n"
"                [--write-vnef FILE] [-q]\n"
"\n"
"DESCRIPTION\n"
"    Builds out = exp(in) over a [250 x 512] fp32 tensor in tiles of 128 partitions\n"
"    (the last tile masked to 122 rows) with the program builder, in scope\n"
"    tensor_exp_kernel, runs it, checks every element against expf() on the host\n"
"    and prints the modeled time. naive uses one SBUF buffer per side, so each\n"
"    tile's load waits for the previous tile: the profiler flags 'DMA never overlaps\n"
"    compute'. pipelined double-buffers, so the next tile's DMA overlaps this tile's\n"
"    exp. both (the default) runs the two and prints the modeled speed-up.\n"
"\n"
"OPTIONS\n"
"    --variant V         naive, pipelined or both (default both; --write-vnef needs\n"
"                        one variant)\n"
"%s"
"\n"
"EXIT STATUS\n"
"    0 when every result matches, 1 on a mismatch or error, 2 on bad usage.\n"
"\n"
"EXAMPLE\n"
"    example-exp --host\n"
"    example-exp --variant naive --write-vnef exp_naive.vnef\n", ex_common_help);
}

static int run_variant(const struct ex_opts *o, int pipelined, const float *in, float *out,
		       const float *want, uint64_t *ps)
{
	struct ex_buf bufs[] = {
		{ "in", (void *)in, sizeof(float) * ROWS * COLS, 0 },
		{ "out", out, sizeof(float) * ROWS * COLS, 1 },
	};
	const char *name = pipelined ? "exp_pipelined" : "exp_naive";
	struct nd_builder *b;
	struct ex_ctx *c = NULL;
	int ret;

	ret = ex_builder_new(o, name, &b);
	if (ret)
		return ret;
	ret = nd_kernel_exp(b, ROWS, COLS, pipelined);
	if (ret) {
		fprintf(stderr, "%s: %s\n", name, nd_builder_error(b));
		goto out;
	}
	ret = ex_open(o, b, &c);
	if (ret)
		goto out;
	memset(out, 0, sizeof(float) * ROWS * COLS);
	ret = ex_run(c, bufs, 2, ps);
	if (ret)
		goto out;
	if (ex_check(name, out, want, (size_t)ROWS * COLS, 1e-6f, 1e-5f)) {
		ret = -1;
		goto out;
	}
	if (!o->quiet)
		printf("%-14s [%d x %d] fp32 on %s: ok, modeled %.3f us\n", name, ROWS, COLS,
		       ex_where(c), (double)*ps * 1e-6);
out:
	ex_close(c);
	nd_builder_free(b);
	return ret;
}

struct exp_args {
	int naive, piped;
};

static int exp_arg(void *ctx, const char *opt, const char *val)
{
	struct exp_args *x = ctx;

	if (!strcmp(opt, "--variant"))
		return ex_one_or_both(opt, val, "naive", "pipelined", &x->naive, &x->piped);
	return 0;
}

int main(int argc, char **argv)
{
	struct exp_args x = { .naive = 1, .piped = 1 };
	struct ex_cmdline cl = { "example-exp", usage, exp_arg, &x };
	struct ex_opts o = { 0 };
	int naive, piped, ret = 0, r;
	uint64_t seed = 2, ps[2] = { 0, 0 };
	float *in, *out, *want;
	size_t k, n = (size_t)ROWS * COLS;

	r = ex_parse_args(&o, &cl, argc, argv);
	if (r)
		return r > 0 ? 0 : 2;
	naive = x.naive;
	piped = x.piped;

	if (o.write_vnef && naive && piped) {
		fprintf(stderr, "example-exp: --write-vnef needs --variant naive or pipelined\n");
		return 2;
	}
	in = malloc(n * sizeof(float));
	out = malloc(n * sizeof(float));
	want = malloc(n * sizeof(float));
	if (!in || !out || !want)
		return 1;
	for (k = 0; k < n; k++) {
		in[k] = ex_uniform(&seed, -4.0f, 4.0f);
		want[k] = expf(in[k]);
	}
	if (naive && run_variant(&o, 0, in, out, want, &ps[0]))
		ret = 1;
	if (!ret && piped && run_variant(&o, 1, in, out, want, &ps[1]))
		ret = 1;
	if (!ret && naive && piped)
		printf("exp: naive %.3f us, pipelined %.3f us modeled: %.2fx faster pipelined\n",
		       (double)ps[0] * 1e-6, (double)ps[1] * 1e-6,
		       ps[1] ? (double)ps[0] / (double)ps[1] : 0.0);
	else if (!ret && o.quiet)
		printf("exp: ok\n");
	free(in);
	free(out);
	free(want);
	return ret;
}
