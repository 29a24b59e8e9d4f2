// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An MLP training step on the device: 784 -> 128 (relu) -> 10, softmax cross-entropy,
 * backward and SGD, batch 128, fp32. The program is one step; the host runs it 50 times
 * on a fixed synthetic MNIST-shaped data set (10 noisy class prototypes of 28x28
 * pixels from a seeded PRNG), feeding each step's updated weights to the next, and
 * checks the loss step by step against the same step in plain C.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlp.h"

#define B	MLP_BATCH	/* batch: on partitions */

/* The same step in plain C; returns the loss before the update. */
static float ref_step(struct params *P, const float *x, const float *y)
{
	static float h[B * H], z[B * C], dz[B * C], dh[B * H];
	double loss = 0;
	int i, j, k;

	for (i = 0; i < B; i++) {
		for (j = 0; j < H; j++) {
			float a = 0;

			for (k = 0; k < D; k++)
				a += x[i * D + k] * P->w1[k * H + j];
			a += P->b1[j];
			h[i * H + j] = a > 0 ? a : 0;
		}
		for (j = 0; j < C; j++) {
			float a = 0;

			for (k = 0; k < H; k++)
				a += h[i * H + k] * P->w2[k * C + j];
			z[i * C + j] = a + P->b2[j];
		}
	}
	for (i = 0; i < B; i++) {
		float mx = z[i * C], s = 0, ls;

		for (j = 1; j < C; j++)
			mx = fmaxf(mx, z[i * C + j]);
		for (j = 0; j < C; j++)
			s += expf(z[i * C + j] - mx);
		ls = logf(s);
		for (j = 0; j < C; j++) {
			float lp = z[i * C + j] - mx - ls;

			loss -= y[i * C + j] * lp;
			dz[i * C + j] = (expf(lp) - y[i * C + j]) / B;
		}
	}
	for (i = 0; i < B; i++)
		for (j = 0; j < H; j++) {
			float a = 0;

			for (k = 0; k < C; k++)
				a += dz[i * C + k] * P->w2[j * C + k];
			dh[i * H + j] = h[i * H + j] > 0 ? a : 0;
		}
	for (j = 0; j < H; j++)
		for (k = 0; k < C; k++) {
			float a = 0;

			for (i = 0; i < B; i++)
				a += h[i * H + j] * dz[i * C + k];
			P->w2[j * C + k] -= LR * a;
		}
	for (k = 0; k < C; k++) {
		float a = 0;

		for (i = 0; i < B; i++)
			a += dz[i * C + k];
		P->b2[k] -= LR * a;
	}
	for (k = 0; k < D; k++)
		for (j = 0; j < H; j++) {
			float a = 0;

			for (i = 0; i < B; i++)
				a += x[i * D + k] * dh[i * H + j];
			P->w1[k * H + j] -= LR * a;
		}
	for (j = 0; j < H; j++) {
		float a = 0;

		for (i = 0; i < B; i++)
			a += dh[i * H + j];
		P->b1[j] -= LR * a;
	}
	return (float)(loss / B);
}

static void usage(FILE *f)
{
	fprintf(f,
"NAME\n"
"    example-mlp-train - an MLP training step (forward, backward, SGD) on the device\n"
"\n"
"SYNOPSIS\n"
"    example-mlp-train [--steps N] [--host] [--device D] [--core C]\n"
"                      [--write-vnef FILE] [-q]\n"
"\n"
"DESCRIPTION\n"
"    Builds one training step of a 784 -> 128 (relu) -> 10 MLP, batch 128, fp32:\n"
"    forward (matmul + bias + relu, matmul + bias), log-softmax cross-entropy loss,\n"
"    backward (matmuls with TensorE transposes) and an SGD update (lr 0.5), in\n"
"    scopes mlp/load, mlp/fc1, mlp/fc2, mlp/loss, mlp/backward/..., mlp/sgd.\n"
"    Runs it N times (default 50) on a fixed synthetic MNIST-shaped data set (512\n"
"    noisy images of 10 class prototypes, from a seeded PRNG, 4 batches in turn),\n"
"    each step taking the weights the previous one wrote. Every step's loss is\n"
"    checked against the same step in plain C on the host (within 2e-3 + 1e-3\n"
"    relative), the final weights too, and (for 10 steps or more) the loss must\n"
"    fall to under half of the first step's.\n"
"\n"
"OPTIONS\n"
"    --steps N           training steps (default 50, at least 2)\n"
"%s"
"\n"
"EXIT STATUS\n"
"    0 when the run matches the reference and learns, 1 otherwise, 2 on bad usage.\n"
"\n"
"EXAMPLE\n"
"    example-mlp-train --host\n"
"    example-mlp-train --write-vnef mlp_step.vnef --steps 2\n", ex_common_help);
}

static int steps_arg(void *ctx, const char *opt, const char *val)
{
	int *steps = ctx;

	if (strcmp(opt, "--steps"))
		return 0;
	*steps = val ? atoi(val) : 0;
	if (*steps < 2 || *steps > 100000) {
		ex_bad_value(opt, "2..100000, not '%s'", val ? val : "");
		return -1;
	}
	return 2;
}

int main(int argc, char **argv)
{
	static struct params dev[2], ref;
	struct ex_opts o = { 0 };
	struct nd_builder *b = NULL;
	struct ex_ctx *c = NULL;
	float *x, *y, loss, l0 = 0, rl = 0, rl0 = 0;
	int steps = 50, i = 1, r, st, ret = 1, bad = 0;
	uint64_t seed = 11, ps = 0;
	double t0;
	struct ex_cmdline cl = { "example-mlp-train", usage, steps_arg, &steps };

	r = ex_parse_args(&o, &cl, argc, argv);
	if (r)
		return r > 0 ? 0 : 2;

	x = malloc(sizeof(float) * NB * B * D);
	y = malloc(sizeof(float) * NB * B * C);
	if (!x || !y)
		return 1;
	mlp_make_data(x, y);
	for (i = 0; i < D * H; i++)
		dev[0].w1[i] = ex_uniform(&seed, -1.0f, 1.0f) / sqrtf(D);
	for (i = 0; i < H * C; i++)
		dev[0].w2[i] = ex_uniform(&seed, -1.0f, 1.0f) / sqrtf(H);
	ref = dev[0];

	if (ex_builder_new(&o, "mlp_train_step", &b))
		goto out;
	if (mlp_build_step(b, B, 1)) {
		fprintf(stderr, "build: %s\n", nd_builder_error(b));
		goto out;
	}
	if (ex_open(&o, b, &c))
		goto out;
	if (!o.quiet)
		printf("mlp-train: %d -> %d -> %d, batch %d, fp32, %d steps on %s\n", D, H, C, B,
		       steps, ex_where(c));
	t0 = ex_now();
	for (st = 0; st < steps; st++) {
		struct params *in = &dev[st & 1], *out = &dev[(st + 1) & 1];
		const float *xb = x + (size_t)(st % NB) * B * D, *yb = y + (st % NB) * B * C;
		struct ex_buf bufs[] = {
			{ "x", (void *)xb, sizeof(float) * B * D, 0 },
			{ "y", (void *)yb, sizeof(float) * B * C, 0 },
			{ "w1", in->w1, sizeof(in->w1), 0 },
			{ "b1", in->b1, sizeof(in->b1), 0 },
			{ "w2", in->w2, sizeof(in->w2), 0 },
			{ "b2", in->b2, sizeof(in->b2), 0 },
			{ "w1_out", out->w1, sizeof(out->w1), 1 },
			{ "b1_out", out->b1, sizeof(out->b1), 1 },
			{ "w2_out", out->w2, sizeof(out->w2), 1 },
			{ "b2_out", out->b2, sizeof(out->b2), 1 },
			{ "loss", &loss, sizeof(loss), 1 },
		};

		char range[32];

		/* application ranges: a profile attributes the device's time to them */
		snprintf(range, sizeof(range), "step %d", st + 1);
		nd_range_push(range);
		nd_range_push("train step");
		if (ex_run(c, bufs, sizeof(bufs) / sizeof(bufs[0]), &ps))
			goto out;
		nd_range_pop();
		nd_range_push("reference on the host");
		rl = ref_step(&ref, xb, yb);
		nd_range_pop();
		nd_range_pop();
		if (!st)
			l0 = loss, rl0 = rl;
		if (!(fabsf(loss - rl) <= 2e-3f + 1e-3f * fabsf(rl))) {
			fprintf(stderr, "step %d: loss %.6f on the device, %.6f in the reference\n",
				st + 1, loss, rl);
			bad++;
		}
		if (!o.quiet && (st < 3 || st % 10 == 9 || st == steps - 1))
			printf("  step %3d  loss %.5f  (reference %.5f)\n", st + 1, loss, rl);
	}
	bad += ex_check("w1", dev[steps & 1].w1, ref.w1, D * H, 1e-3f, 1e-2f) != 0;
	bad += ex_check("w2", dev[steps & 1].w2, ref.w2, H * C, 1e-3f, 1e-2f) != 0;
	/* a short run (e.g. to write the program) need not learn yet */
	if (steps >= 10 && !(loss < 0.5f * l0)) {
		fprintf(stderr, "the loss did not fall enough: %.5f -> %.5f\n", l0, loss);
		bad++;
	}
	if (bad)
		goto out;
	printf("mlp-train: ok, loss %.4f -> %.4f in %d steps (reference %.4f -> %.4f); "
	       "modeled %.2f us a step, host %.1f ms a step\n", l0, loss, steps, rl0, rl,
	       (double)ps * 1e-6, (ex_now() - t0) * 1e3 / steps);
	ret = 0;
out:
	ex_close(c);
	nd_builder_free(b);
	free(x);
	free(y);
	return ret;
}
