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

#include "common.h"

#define B	128		/* batch: on partitions */
#define D	784		/* 28 x 28 inputs */
#define H	128
#define C	10
#define DB	((D + 127) / 128)	/* 128-row blocks of D, the last one 16 rows */
#define NB	4		/* batches in the data set */
#define LR	0.5f

static uint32_t drows(uint32_t j)
{
	return D - j * 128 < 128 ? D - j * 128 : 128;
}

/* Scopes so a profile shows the layers: mlp/fc1, mlp/fc2, loss, backward, sgd. */
static int build_step(struct nd_builder *b)
{
	const uint64_t sx[] = { B, D }, sy[] = { B, C }, sw1[] = { D, H }, sb1[] = { H };
	const uint64_t sw2[] = { H, C }, sb2[] = { C }, sl[] = { 1 };
	struct nd_tensor *X, *Y, *W1, *B1, *W2, *B2, *W1o, *B1o, *W2o, *B2o, *L;
	struct nd_tile *x, *xt, *w1, *b1, *h, *ht, *w2, *b2, *y, *z, *sh, *e, *p, *dz;
	struct nd_tile *mx, *s, *r, *l, *w2t, *dzt, *m, *dhp, *db1, *db2, *tmp, *tmp2;
	struct nd_tile *pt, *acc_h, *acc_o, *pt2, *dw2, *dh, *dw1;
	uint32_t j;

	X = nd_input(b, "x", ND_FP32, 2, sx);
	Y = nd_input(b, "y", ND_FP32, 2, sy);
	W1 = nd_input(b, "w1", ND_FP32, 2, sw1);
	B1 = nd_input(b, "b1", ND_FP32, 1, sb1);
	W2 = nd_input(b, "w2", ND_FP32, 2, sw2);
	B2 = nd_input(b, "b2", ND_FP32, 1, sb2);
	W1o = nd_output(b, "w1_out", ND_FP32, 2, sw1);
	B1o = nd_output(b, "b1_out", ND_FP32, 1, sb1);
	W2o = nd_output(b, "w2_out", ND_FP32, 2, sw2);
	B2o = nd_output(b, "b2_out", ND_FP32, 1, sb2);
	L = nd_output(b, "loss", ND_FP32, 1, sl);

	x = nd_sbuf(b, "x", ND_FP32, B, D);
	xt = nd_sbuf(b, "x_t", ND_FP32, 128, DB * 128);
	w1 = nd_sbuf(b, "w1", ND_FP32, 128, DB * H);
	b1 = nd_sbuf(b, "b1", ND_FP32, B, H);
	h = nd_sbuf(b, "h", ND_FP32, B, H);
	ht = nd_sbuf(b, "h_t", ND_FP32, H, B);
	w2 = nd_sbuf(b, "w2", ND_FP32, H, C);
	b2 = nd_sbuf(b, "b2", ND_FP32, B, C);
	y = nd_sbuf(b, "y", ND_FP32, B, C);
	z = nd_sbuf(b, "logits", ND_FP32, B, C);
	sh = nd_sbuf(b, "shifted", ND_FP32, B, C);
	e = nd_sbuf(b, "exp", ND_FP32, B, C);
	p = nd_sbuf(b, "probs", ND_FP32, B, C);
	dz = nd_sbuf(b, "dlogits", ND_FP32, B, C);
	mx = nd_sbuf(b, "max", ND_FP32, B, 1);
	s = nd_sbuf(b, "sum", ND_FP32, B, 1);
	r = nd_sbuf(b, "rowloss", ND_FP32, B, 1);
	l = nd_sbuf(b, "loss", ND_FP32, 1, 1);
	w2t = nd_sbuf(b, "w2_t", ND_FP32, C, H);
	dzt = nd_sbuf(b, "dlogits_t", ND_FP32, C, B);
	m = nd_sbuf(b, "relu_mask", ND_FP32, B, H);
	dhp = nd_sbuf(b, "dh_pre", ND_FP32, B, H);
	db1 = nd_sbuf(b, "db1", ND_FP32, 1, H);
	db2 = nd_sbuf(b, "db2", ND_FP32, 1, C);
	tmp = nd_sbuf(b, "step", ND_FP32, 128, DB * H);
	tmp2 = nd_sbuf(b, "step2", ND_FP32, 128, C);
	pt = nd_psum(b, "x_t_ps", ND_FP32, 128, DB * 128);
	acc_h = nd_psum(b, "h_ps", ND_FP32, B, H);
	pt2 = nd_psum(b, "t_ps", ND_FP32, 128, H);
	acc_o = nd_psum(b, "logits_ps", ND_FP32, B, C);
	dw2 = nd_psum(b, "dw2", ND_FP32, H, C);
	dh = nd_psum(b, "dh", ND_FP32, B, H);
	dw1 = nd_psum(b, "dw1", ND_FP32, 128, DB * H);
	if (nd_builder_status(b))
		return nd_builder_status(b);

	nd_scope_push(b, "mlp");
	/* ---- forward ---- */
	nd_scope_push(b, "load");
	nd_load(b, ND_QUEUE_SPREAD, nd_whole(x), nd_hbm_rows(X, 0, 0));
	for (j = 0; j < DB; j++)
		nd_load(b, ND_QUEUE_AUTO, nd_part(w1, 0, drows(j), j * H, H),
			nd_hbm_rows(W1, j * 128, 0));
	/* biases on every partition: an HBM partition stride of 0 */
	nd_load(b, ND_QUEUE_AUTO, nd_whole(b1), (struct nd_hbm){ .tensor = B1, .fstride = 1 });
	nd_load(b, ND_QUEUE_AUTO, nd_whole(w2), nd_hbm_rows(W2, 0, 0));
	nd_load(b, ND_QUEUE_AUTO, nd_whole(b2), (struct nd_hbm){ .tensor = B2, .fstride = 1 });
	nd_load(b, ND_QUEUE_AUTO, nd_whole(y), nd_hbm_rows(Y, 0, 0));
	nd_scope_pop(b);

	nd_scope_push(b, "fc1");
	nd_scope_push(b, "transpose_x");
	for (j = 0; j < DB; j++)
		nd_transpose(b, nd_part(pt, 0, drows(j), j * 128, B),
			     nd_part(x, 0, B, j * 128, drows(j)), 0);
	nd_copy(b, ND_VECTOR, nd_whole(xt), nd_whole(pt));
	nd_scope_pop(b);
	nd_scope_push(b, "matmul");
	for (j = 0; j < DB; j++)
		nd_matmul(b, nd_whole(acc_h), nd_part(xt, 0, drows(j), j * 128, B),
			  nd_part(w1, 0, drows(j), j * H, H), j > 0);
	nd_scope_pop(b);
	nd_scope_push(b, "bias_relu");
	nd_tensor_tensor(b, ND_VECTOR, nd_whole(h), nd_whole(acc_h), nd_whole(b1), ND_ADD);
	nd_activate(b, nd_whole(h), nd_whole(h), ND_ACT_RELU, 1.0f, 0.0f);
	nd_scope_pop(b);
	nd_scope_pop(b);

	nd_scope_push(b, "fc2");
	nd_transpose(b, nd_whole(pt2), nd_whole(h), 0);
	nd_copy(b, ND_VECTOR, nd_whole(ht), nd_whole(pt2));
	nd_matmul(b, nd_whole(acc_o), nd_whole(ht), nd_whole(w2), 0);
	nd_tensor_tensor(b, ND_VECTOR, nd_whole(z), nd_whole(acc_o), nd_whole(b2), ND_ADD);
	nd_scope_pop(b);

	/* ---- log-softmax, cross-entropy loss and its gradient ---- */
	nd_scope_push(b, "loss");
	nd_reduce(b, nd_whole(mx), nd_whole(z), ND_MAX);
	nd_tensor_column(b, ND_VECTOR, nd_whole(sh), nd_whole(z), ND_SUB, nd_whole(mx), 0);
	nd_activate(b, nd_whole(e), nd_whole(sh), ND_ACT_EXP, 1.0f, 0.0f);
	nd_reduce(b, nd_whole(s), nd_whole(e), ND_ADD);
	nd_activate(b, nd_whole(s), nd_whole(s), ND_ACT_LOG, 1.0f, 0.0f);
	nd_tensor_column(b, ND_VECTOR, nd_whole(sh), nd_whole(sh), ND_SUB, nd_whole(s), 0);
	nd_activate(b, nd_whole(p), nd_whole(sh), ND_ACT_EXP, 1.0f, 0.0f);
	/* loss = -sum(y * log p) / B */
	nd_tensor_tensor(b, ND_VECTOR, nd_whole(e), nd_whole(sh), nd_whole(y), ND_MUL);
	nd_reduce(b, nd_whole(r), nd_whole(e), ND_ADD);
	nd_partition_reduce(b, nd_whole(l), nd_whole(r), ND_ADD);
	nd_tensor_scalar(b, ND_VECTOR, nd_whole(l), nd_whole(l), ND_MUL, -1.0f / B, 0);
	nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(L, 0, 0), nd_whole(l));
	/* dlogits = (p - y) / B */
	nd_tensor_tensor(b, ND_VECTOR, nd_whole(dz), nd_whole(p), nd_whole(y), ND_SUB);
	nd_tensor_scalar(b, ND_VECTOR, nd_whole(dz), nd_whole(dz), ND_MUL, 1.0f / B, 0);
	nd_scope_pop(b);

	/* ---- backward ---- */
	nd_scope_push(b, "backward");
	nd_scope_push(b, "fc2");
	/* dW2 [H x C] = h^T . dlogits: the batch is the contraction */
	nd_matmul(b, nd_whole(dw2), nd_whole(h), nd_whole(dz), 0);
	nd_partition_reduce(b, nd_whole(db2), nd_whole(dz), ND_ADD);
	/* dh [B x H] = dlogits . W2^T */
	nd_transpose(b, nd_part(pt2, 0, C, 0, H), nd_whole(w2), 0);
	nd_copy(b, ND_VECTOR, nd_whole(w2t), nd_part(pt2, 0, C, 0, H));
	nd_transpose(b, nd_part(pt2, 0, C, 0, B), nd_whole(dz), 0);
	nd_copy(b, ND_VECTOR, nd_whole(dzt), nd_part(pt2, 0, C, 0, B));
	nd_matmul(b, nd_whole(dh), nd_whole(dzt), nd_whole(w2t), 0);
	nd_scope_pop(b);
	nd_scope_push(b, "relu");
	/* relu'(h): 1 where h > 0, h * 1e30 saturated at 1 */
	nd_tensor_scalar(b, ND_GPSIMD, nd_whole(m), nd_whole(h), ND_MUL, 1e30f, 0);
	nd_tensor_scalar(b, ND_GPSIMD, nd_whole(m), nd_whole(m), ND_MIN, 1.0f, 0);
	nd_tensor_tensor(b, ND_VECTOR, nd_whole(dhp), nd_whole(dh), nd_whole(m), ND_MUL);
	nd_scope_pop(b);
	nd_scope_push(b, "fc1");
	/* dW1 block j [dj x H] = x[:, block j]^T . dh_pre */
	for (j = 0; j < DB; j++)
		nd_matmul(b, nd_part(dw1, 0, drows(j), j * H, H),
			  nd_part(x, 0, B, j * 128, drows(j)), nd_whole(dhp), 0);
	nd_partition_reduce(b, nd_whole(db1), nd_whole(dhp), ND_ADD);
	nd_scope_pop(b);
	nd_scope_pop(b);

	/* ---- SGD: w += -lr * dw ---- */
	nd_scope_push(b, "sgd");
	for (j = 0; j < DB; j++) {
		struct nd_tv wj = nd_part(w1, 0, drows(j), j * H, H);
		struct nd_tv tj = nd_part(tmp, 0, drows(j), j * H, H);

		nd_activate(b, tj, nd_part(dw1, 0, drows(j), j * H, H), ND_ACT_IDENTITY, -LR,
			    0.0f);
		nd_tensor_tensor(b, ND_VECTOR, wj, wj, tj, ND_ADD);
		nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(W1o, j * 128, 0), wj);
	}
	nd_activate(b, nd_whole(tmp2), nd_whole(dw2), ND_ACT_IDENTITY, -LR, 0.0f);
	nd_tensor_tensor(b, ND_VECTOR, nd_whole(w2), nd_whole(w2), nd_whole(tmp2), ND_ADD);
	nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(W2o, 0, 0), nd_whole(w2));
	/* biases: partition 0 of the broadcast tiles */
	nd_tensor_scalar(b, ND_GPSIMD, nd_whole(db1), nd_whole(db1), ND_MUL, -LR, 0);
	nd_tensor_tensor(b, ND_GPSIMD, nd_part(b1, 0, 1, 0, H), nd_part(b1, 0, 1, 0, H),
			 nd_whole(db1), ND_ADD);
	nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(B1o, 0, 0), nd_part(b1, 0, 1, 0, H));
	nd_tensor_scalar(b, ND_GPSIMD, nd_whole(db2), nd_whole(db2), ND_MUL, -LR, 0);
	nd_tensor_tensor(b, ND_GPSIMD, nd_part(b2, 0, 1, 0, C), nd_part(b2, 0, 1, 0, C),
			 nd_whole(db2), ND_ADD);
	nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(B2o, 0, 0), nd_part(b2, 0, 1, 0, C));
	nd_scope_pop(b);
	nd_scope_pop(b);
	return nd_builder_status(b);
}

struct params {
	float w1[D * H], b1[H], w2[H * C], b2[C];
};

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

/* Ten prototypes of 28x28 pixels (strokes of random rows and columns), noisy copies. */
static void make_data(float *x, float *y)
{
	static float proto[C][D];
	uint64_t s = 6;
	int c, i, k, n;

	for (c = 0; c < C; c++)
		for (n = 0; n < 6; n++) {
			int a = (int)(ex_rand(&s) % 20) + 4, vert = (int)(ex_rand(&s) & 1);

			for (k = 4; k < 24; k++)
				proto[c][vert ? k * 28 + a : a * 28 + k] = 1.0f;
		}
	for (i = 0; i < NB * B; i++) {
		c = (int)(ex_rand(&s) % C);
		for (k = 0; k < D; k++) {
			float v = proto[c][k] * ex_uniform(&s, 0.5f, 1.0f) +
				  ex_uniform(&s, 0.0f, 0.3f);

			x[(size_t)i * D + k] = v;
		}
		for (k = 0; k < C; k++)
			y[i * C + k] = k == c;
	}
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
	make_data(x, y);
	for (i = 0; i < D * H; i++)
		dev[0].w1[i] = ex_uniform(&seed, -1.0f, 1.0f) / sqrtf(D);
	for (i = 0; i < H * C; i++)
		dev[0].w2[i] = ex_uniform(&seed, -1.0f, 1.0f) / sqrtf(H);
	ref = dev[0];

	if (nd_builder_new("mlp_train_step", &b))
		goto out;
	if (build_step(b)) {
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
