// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Data-parallel training of example-mlp-train's MLP (784 -> 128 (relu) -> 10, fp32,
 * SGD) on W workers (default 4: 2 devices x 2 cores): each worker takes its shard of
 * the global batch of 128, computes the gradients of its shard, and an all_reduce
 * (sum) on the collective engine adds them up before every worker applies the same
 * update (the sum scaled by 1/W). The loss of every step is compared with one worker
 * running example-mlp-train's step on the whole global batch.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlp.h"

#define GB	MLP_BATCH	/* global batch */
#define MAX_W	8

/* The tolerance of the loss against one worker's: |dp - one| <= ATOL + RTOL |one|. */
#define ATOL	1e-5f
#define RTOL	1e-5f
/* and of the final weights */
#define WATOL	1e-5f
#define WRTOL	1e-4f

static void usage(FILE *f)
{
	fprintf(f,
"NAME\n"
"    example-mlp-dp - data-parallel MLP training with an all_reduce of the gradients\n"
"\n"
"SYNOPSIS\n"
"    example-mlp-dp [--steps N] [--workers W] [--cores-per-device C] [--host]\n"
"                   [--device D] [--write-vnef FILE] [-q]\n"
"\n"
"DESCRIPTION\n"
"    Trains example-mlp-train's MLP (784 -> 128 (relu) -> 10, fp32, softmax\n"
"    cross-entropy, SGD with lr 0.5) on its data (512 synthetic images, global\n"
"    batches of 128 in turn) with W workers, each a core and a rank of one\n"
"    communicator running the same step program (SPMD). Worker r takes rows\n"
"    r 128/W .. (r + 1) 128/W - 1 of each global batch and, per step:\n"
"\n"
"      forward, loss, backward   example-mlp-train's step on its 128/W rows,\n"
"                                the gradients of its shard's mean loss\n"
"      allreduce                 the gradients (dW1, db1, dW2, db2) and the\n"
"                                loss into one HBM tensor, an all_reduce (sum)\n"
"                                of it in place on the collective engine, and\n"
"                                back into SBUF\n"
"      sgd                       w += -(lr / W) x the sum: the global batch's\n"
"                                mean gradient, the same update on every worker\n"
"\n"
"    Every step's weights are the previous step's outputs of worker 0, and the\n"
"    workers' updated weights must be equal bit for bit. The same training runs\n"
"    on one worker with the whole global batch (example-mlp-train's program), and\n"
"    the two losses are printed side by side: each step's must agree within\n"
"    1e-5 + 1e-5 relative (the sums are associated differently; the measured\n"
"    difference is printed), as must the final weights within 1e-5 + 1e-4\n"
"    relative. Ranks are laid out as devices x cores per device: rank r is core\n"
"    r mod C of device r / C.\n"
"\n"
"OPTIONS\n"
"    --steps N           training steps (default 50, at least 2)\n"
"    --workers W         1, 2, 4 (default) or 8: 128 / W rows each\n"
"    --cores-per-device C\n"
"                        cores of one device the workers use (default 2)\n"
"%s"
"\n"
"    With --device D the workers are cores of /dev/vneuronD, D+1, ...; --core\n"
"    is ignored (the layout decides) but picks the core of the one-worker run.\n"
"    --write-vnef writes the workers' step program.\n"
"\n"
"EXIT STATUS\n"
"    0 when the losses agree and the workers' weights are equal, 1 otherwise, 2 on\n"
"    bad usage.\n"
"\n"
"EXAMPLE\n"
"    example-mlp-dp --host\n"
"    example-mlp-dp --host --workers 8 --cores-per-device 4 --steps 20\n",
		ex_common_help);
}

struct dp_args {
	int steps;
	uint32_t workers, cpd;
};

static int dp_arg(void *ctx, const char *opt, const char *val)
{
	struct dp_args *a = ctx;
	char *end = NULL;
	long v = val && *val ? strtol(val, &end, 10) : 0;

	if (!val || !*val || *end)
		v = 0;
	if (!strcmp(opt, "--steps")) {
		if (v < 2 || v > 100000) {
			ex_bad_value(opt, "2..100000, not '%s'", val ? val : "");
			return -1;
		}
		a->steps = (int)v;
	} else if (!strcmp(opt, "--workers")) {
		if (v != 1 && v != 2 && v != 4 && v != 8) {
			ex_bad_value(opt, "1, 2, 4 or 8, not '%s'", val ? val : "");
			return -1;
		}
		a->workers = (uint32_t)v;
	} else if (!strcmp(opt, "--cores-per-device")) {
		if (v < 1 || v > 64) {
			ex_bad_value(opt, "a number of cores from 1 to 64, not '%s'",
				     val ? val : "");
			return -1;
		}
		a->cpd = (uint32_t)v;
	} else {
		return 0;
	}
	return 2;
}

static float max_diff(const float *a, const float *b, size_t n, float atol, float rtol,
		      size_t *bad)
{
	float worst = 0;
	size_t i;

	*bad = 0;
	for (i = 0; i < n; i++) {
		float d = fabsf(a[i] - b[i]);

		if (!(d <= worst))
			worst = d;
		if (!(d <= atol + rtol * fabsf(b[i])))
			(*bad)++;
	}
	return worst;
}

int main(int argc, char **argv)
{
	static struct params one[2], dp[2], outs[MAX_W];
	struct dp_args a = { .steps = 50, .workers = 4, .cpd = 2 };
	struct ex_cmdline cl = { "example-mlp-dp", usage, dp_arg, &a };
	struct ex_opts o = { 0 };
	struct ex_buf bufs[MAX_W][11], *rb[MAX_W];
	struct nd_builder *b1 = NULL, *bw = NULL;
	struct ex_ctx *c1 = NULL;
	struct ex_group *g = NULL;
	float *x = NULL, *y = NULL, *loss1 = NULL, lossw[MAX_W], l0 = 0, maxd = 0, wd;
	uint64_t seed = 11, ps1 = 0, psw = 0;
	double t1 = 0, tw = 0, t;
	uint32_t w, bl, r, ndev;
	int i, st, ret = 1, bad = 0;
	size_t nbad;

	ret = ex_parse_args(&o, &cl, argc, argv);
	if (ret)
		return ret > 0 ? 0 : 2;
	ret = 1;
	w = a.workers;
	bl = GB / w;

	x = malloc(sizeof(float) * NB * GB * D);
	y = malloc(sizeof(float) * NB * GB * C);
	loss1 = malloc(sizeof(float) * (size_t)a.steps);
	if (!x || !y || !loss1)
		goto out;
	mlp_make_data(x, y);
	/* example-mlp-train's initial weights */
	for (i = 0; i < D * H; i++)
		one[0].w1[i] = ex_uniform(&seed, -1.0f, 1.0f) / sqrtf(D);
	for (i = 0; i < H * C; i++)
		one[0].w2[i] = ex_uniform(&seed, -1.0f, 1.0f) / sqrtf(H);
	dp[0] = one[0];

	/* the data-parallel step on every worker, and one worker's on the global batch */
	if (ex_builder_new(&o, "mlp_dp_step", &bw) || ex_builder_new(&o, "mlp_train_step", &b1))
		goto out;
	if (mlp_build_step(bw, bl, w) || mlp_build_step(b1, GB, 1)) {
		fprintf(stderr, "example-mlp-dp: build: %s%s\n", nd_builder_error(bw),
			nd_builder_error(b1));
		goto out;
	}
	ndev = (w + a.cpd - 1) / a.cpd;
	if (!o.quiet) {
		printf("mlp-dp: %d -> %d -> %d, fp32, global batch %d on %u worker%s (%u device%s "
		       "x %u cores, %u rows each), %d steps on ", D, H, C, GB, w,
		       w == 1 ? "" : "s", ndev, ndev == 1 ? "" : "s", w < a.cpd ? w : a.cpd, bl,
		       a.steps);
		if (o.host)
			printf("the host backend\n");
		else if (ndev == 1)
			printf("/dev/vneuron%u\n", o.device);
		else
			printf("/dev/vneuron%u..%u\n", o.device, o.device + ndev - 1);
	}

	/*
	 * One worker on the whole global batch first, then the workers: on a device the
	 * one-worker run would otherwise share a core with a rank of the communicator.
	 */
	{
		struct ex_opts o1 = o;

		o1.write_vnef = NULL;
		if (ex_open(&o1, b1, &c1))
			goto out;
	}
	for (st = 0; st < a.steps; st++) {
		struct params *in1 = &one[st & 1], *out1 = &one[(st + 1) & 1];
		const float *xb = x + (size_t)(st % NB) * GB * D, *yb = y + (st % NB) * GB * C;
		struct ex_buf b1s[] = {
			{ "x", (void *)xb, sizeof(float) * GB * D, 0 },
			{ "y", (void *)yb, sizeof(float) * GB * C, 0 },
			{ "w1", in1->w1, sizeof(in1->w1), 0 },
			{ "b1", in1->b1, sizeof(in1->b1), 0 },
			{ "w2", in1->w2, sizeof(in1->w2), 0 },
			{ "b2", in1->b2, sizeof(in1->b2), 0 },
			{ "w1_out", out1->w1, sizeof(out1->w1), 1 },
			{ "b1_out", out1->b1, sizeof(out1->b1), 1 },
			{ "w2_out", out1->w2, sizeof(out1->w2), 1 },
			{ "b2_out", out1->b2, sizeof(out1->b2), 1 },
			{ "loss", &loss1[st], sizeof(loss1[st]), 1 },
		};

		char range[32];

		snprintf(range, sizeof(range), "one-worker step %d", st + 1);
		nd_range_push(range);
		t = ex_now();
		if (ex_run(c1, b1s, 11, &ps1))
			goto out;
		t1 += ex_now() - t;
		nd_range_pop();
	}
	ex_close(c1);
	c1 = NULL;

	if (ex_group_open(&o, w, a.cpd, bw, &g))
		goto out;
	for (st = 0; st < a.steps; st++) {
		struct params *inw = &dp[st & 1], *outw = &dp[(st + 1) & 1];
		const float *xb = x + (size_t)(st % NB) * GB * D, *yb = y + (st % NB) * GB * C;
		float d;

		for (r = 0; r < w; r++) {
			struct params *ow = r ? &outs[r] : outw;
			const float *xr = xb + (size_t)r * bl * D, *yr = yb + (size_t)r * bl * C;
			struct ex_buf rbufs[] = {
				{ "x", (void *)xr, sizeof(float) * bl * D, 0 },
				{ "y", (void *)yr, sizeof(float) * bl * C, 0 },
				{ "w1", inw->w1, sizeof(inw->w1), 0 },
				{ "b1", inw->b1, sizeof(inw->b1), 0 },
				{ "w2", inw->w2, sizeof(inw->w2), 0 },
				{ "b2", inw->b2, sizeof(inw->b2), 0 },
				{ "w1_out", ow->w1, sizeof(ow->w1), 1 },
				{ "b1_out", ow->b1, sizeof(ow->b1), 1 },
				{ "w2_out", ow->w2, sizeof(ow->w2), 1 },
				{ "b2_out", ow->b2, sizeof(ow->b2), 1 },
				{ "loss", &lossw[r], sizeof(lossw[r]), 1 },
			};

			memcpy(bufs[r], rbufs, sizeof(rbufs));
			rb[r] = bufs[r];
		}
		t = ex_now();
		if (ex_group_run(g, rb, 11, &psw))
			goto out;
		tw += ex_now() - t;
		for (r = 1; r < w; r++) {
			if (lossw[r] != lossw[0] || memcmp(&outs[r], outw, sizeof(*outw))) {
				fprintf(stderr, "example-mlp-dp: step %d: worker %u's loss or "
					"weights differ from worker 0's\n", st + 1, r);
				bad++;
			}
		}
		d = fabsf(lossw[0] - loss1[st]);
		if (!(d <= maxd))
			maxd = d;
		if (!st)
			l0 = lossw[0];
		if (!(d <= ATOL + RTOL * fabsf(loss1[st]))) {
			fprintf(stderr, "example-mlp-dp: step %d: loss %.7f on %u workers, %.7f on "
				"one: differs by %.3g\n", st + 1, lossw[0], w, loss1[st], d);
			bad++;
		}
		if (!o.quiet && (st < 3 || st % 10 == 9 || st == a.steps - 1))
			printf("  step %3d  loss %.6f  (one worker %.6f, difference %.2g)\n",
			       st + 1, lossw[0], loss1[st], d);
		if (bad)
			break;
	}
	if (bad)
		goto out;
	wd = max_diff(dp[a.steps & 1].w1, one[a.steps & 1].w1, D * H, WATOL, WRTOL, &nbad);
	if (nbad) {
		fprintf(stderr, "example-mlp-dp: w1: %zu weights differ from one worker's (at "
			"most by %.3g)\n", nbad, wd);
		goto out;
	}
	wd = fmaxf(wd, max_diff(dp[a.steps & 1].w2, one[a.steps & 1].w2, H * C, WATOL, WRTOL,
				&nbad));
	if (nbad) {
		fprintf(stderr, "example-mlp-dp: w2: %zu weights differ from one worker's\n", nbad);
		goto out;
	}
	if (a.steps >= 10 && !(lossw[0] < 0.5f * l0)) {
		fprintf(stderr, "example-mlp-dp: the loss did not fall enough: %.5f -> %.5f\n",
			l0, lossw[0]);
		goto out;
	}
	printf("mlp-dp: ok, loss %.4f -> %.4f in %d steps on %u worker%s, one worker %.4f -> "
	       "%.4f; max loss difference %.3g (tolerance %g + %g relative), max weight "
	       "difference %.3g\n", l0, lossw[0], a.steps, w, w == 1 ? "" : "s", loss1[0],
	       loss1[a.steps - 1], maxd, ATOL, RTOL, wd);
	if (!o.quiet)
		printf("  a step: modeled %.2f us on %u worker%s, %.2f us on one; host %.1f ms, "
		       "%.1f ms\n", (double)psw * 1e-6, w, w == 1 ? "" : "s", (double)ps1 * 1e-6,
		       tw * 1e3 / a.steps, t1 * 1e3 / a.steps);
	ret = 0;
out:
	ex_group_close(g);
	ex_close(c1);
	nd_builder_free(bw);
	nd_builder_free(b1);
	free(x);
	free(y);
	free(loss1);
	return ret;
}
