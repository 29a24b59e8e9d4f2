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

#include "common.h"

#define GB	128		/* global batch */
#define D	784		/* 28 x 28 inputs */
#define H	128
#define C	10
#define DB	((D + 127) / 128)	/* 128-row blocks of D, the last one 16 rows */
#define NB	4		/* global batches in the data set */
#define LR	0.5f
#define MAX_W	8

/* The gradients and the loss, one flat buffer: what the all_reduce adds up. */
#define G_W1	0
#define G_B1	(G_W1 + D * H)
#define G_W2	(G_B1 + H)
#define G_B2	(G_W2 + H * C)
#define G_LOSS	(G_B2 + C)
#define NG	(G_LOSS + 1)

/* The tolerance of the loss against one worker's: |dp - one| <= ATOL + RTOL |one|. */
#define ATOL	1e-5f
#define RTOL	1e-5f
/* and of the final weights */
#define WATOL	1e-5f
#define WRTOL	1e-4f

static uint32_t drows(uint32_t j)
{
	return D - j * 128 < 128 ? D - j * 128 : 128;
}

/* A row range of the flat gradient tensor as an HBM view: rows of width cols from off. */
static struct nd_hbm grad_rows(struct nd_tensor *g, uint64_t off, uint64_t cols)
{
	return (struct nd_hbm){ .tensor = g, .offset = off, .pstride = cols, .fstride = 1 };
}

/*
 * One training step of batch bl on one worker of w: example-mlp-train's step, built
 * the same way. With w > 1 the gradients (of the worker's mean loss) go to HBM, an
 * all_reduce adds them over the workers, and the update is lr / w times the sum;
 * with w == 1 the step is example-mlp-train's (no collective).
 */
static int build_step(struct nd_builder *b, uint32_t bl, uint32_t w)
{
	const uint64_t sx[] = { bl, D }, sy[] = { bl, C }, sw1[] = { D, H }, sb1[] = { H };
	const uint64_t sw2[] = { H, C }, sb2[] = { C }, sl[] = { 1 }, sg[] = { NG };
	struct nd_tensor *X, *Y, *W1, *B1, *W2, *B2, *W1o, *B1o, *W2o, *B2o, *L, *G = NULL;
	struct nd_tile *x, *xt, *w1, *b1, *h, *ht, *w2, *b2, *y, *z, *sh, *e, *p, *dz;
	struct nd_tile *mx, *s, *r, *l, *w2t, *dzt, *m, *dhp, *db1, *db2, *tmp, *tmp2;
	struct nd_tile *pt, *acc_h, *acc_o, *pt2, *dw2, *dh, *dw1;
	const float step = -LR / (float)w;
	const int dp = w > 1;
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
	if (dp)
		G = nd_scratch(b, "grads", ND_FP32, 1, sg);

	x = nd_sbuf(b, "x", ND_FP32, bl, D);
	xt = nd_sbuf(b, "x_t", ND_FP32, 128, DB * 128);
	w1 = nd_sbuf(b, "w1", ND_FP32, 128, DB * H);
	b1 = nd_sbuf(b, "b1", ND_FP32, bl, H);
	h = nd_sbuf(b, "h", ND_FP32, bl, H);
	ht = nd_sbuf(b, "h_t", ND_FP32, H, bl);
	w2 = nd_sbuf(b, "w2", ND_FP32, H, C);
	b2 = nd_sbuf(b, "b2", ND_FP32, bl, C);
	y = nd_sbuf(b, "y", ND_FP32, bl, C);
	z = nd_sbuf(b, "logits", ND_FP32, bl, C);
	sh = nd_sbuf(b, "shifted", ND_FP32, bl, C);
	e = nd_sbuf(b, "exp", ND_FP32, bl, C);
	p = nd_sbuf(b, "probs", ND_FP32, bl, C);
	dz = nd_sbuf(b, "dlogits", ND_FP32, bl, C);
	mx = nd_sbuf(b, "max", ND_FP32, bl, 1);
	s = nd_sbuf(b, "sum", ND_FP32, bl, 1);
	r = nd_sbuf(b, "rowloss", ND_FP32, bl, 1);
	l = nd_sbuf(b, "loss", ND_FP32, 1, 1);
	w2t = nd_sbuf(b, "w2_t", ND_FP32, C, H);
	dzt = nd_sbuf(b, "dlogits_t", ND_FP32, C, bl);
	m = nd_sbuf(b, "relu_mask", ND_FP32, bl, H);
	dhp = nd_sbuf(b, "dh_pre", ND_FP32, bl, H);
	db1 = nd_sbuf(b, "db1", ND_FP32, 1, H);
	db2 = nd_sbuf(b, "db2", ND_FP32, 1, C);
	tmp = nd_sbuf(b, "step", ND_FP32, 128, DB * H);
	tmp2 = nd_sbuf(b, "step2", ND_FP32, 128, C);
	pt = nd_psum(b, "x_t_ps", ND_FP32, 128, DB * 128);
	acc_h = nd_psum(b, "h_ps", ND_FP32, bl, H);
	pt2 = nd_psum(b, "t_ps", ND_FP32, 128, H);
	acc_o = nd_psum(b, "logits_ps", ND_FP32, bl, C);
	dw2 = nd_psum(b, "dw2", ND_FP32, H, C);
	dh = nd_psum(b, "dh", ND_FP32, bl, H);
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
		nd_transpose(b, nd_part(pt, 0, drows(j), j * 128, bl),
			     nd_part(x, 0, bl, j * 128, drows(j)), 0);
	nd_copy(b, ND_VECTOR, nd_whole(xt), nd_whole(pt));
	nd_scope_pop(b);
	nd_scope_push(b, "matmul");
	for (j = 0; j < DB; j++)
		nd_matmul(b, nd_whole(acc_h), nd_part(xt, 0, drows(j), j * 128, bl),
			  nd_part(w1, 0, drows(j), j * H, H), j > 0);
	nd_scope_pop(b);
	nd_scope_push(b, "bias_relu");
	nd_tensor_tensor(b, ND_VECTOR, nd_whole(h), nd_whole(acc_h), nd_whole(b1), ND_ADD);
	nd_activate(b, nd_whole(h), nd_whole(h), ND_ACT_RELU, 1.0f, 0.0f);
	nd_scope_pop(b);
	nd_scope_pop(b);

	nd_scope_push(b, "fc2");
	nd_transpose(b, nd_part(pt2, 0, H, 0, bl), nd_whole(h), 0);
	nd_copy(b, ND_VECTOR, nd_whole(ht), nd_part(pt2, 0, H, 0, bl));
	nd_matmul(b, nd_whole(acc_o), nd_whole(ht), nd_whole(w2), 0);
	nd_tensor_tensor(b, ND_VECTOR, nd_whole(z), nd_whole(acc_o), nd_whole(b2), ND_ADD);
	nd_scope_pop(b);

	/* ---- log-softmax, cross-entropy loss (the shard's mean) and its gradient ---- */
	nd_scope_push(b, "loss");
	nd_reduce(b, nd_whole(mx), nd_whole(z), ND_MAX);
	nd_tensor_column(b, ND_VECTOR, nd_whole(sh), nd_whole(z), ND_SUB, nd_whole(mx), 0);
	nd_activate(b, nd_whole(e), nd_whole(sh), ND_ACT_EXP, 1.0f, 0.0f);
	nd_reduce(b, nd_whole(s), nd_whole(e), ND_ADD);
	nd_activate(b, nd_whole(s), nd_whole(s), ND_ACT_LOG, 1.0f, 0.0f);
	nd_tensor_column(b, ND_VECTOR, nd_whole(sh), nd_whole(sh), ND_SUB, nd_whole(s), 0);
	nd_activate(b, nd_whole(p), nd_whole(sh), ND_ACT_EXP, 1.0f, 0.0f);
	/* loss = -sum(y * log p) / bl */
	nd_tensor_tensor(b, ND_VECTOR, nd_whole(e), nd_whole(sh), nd_whole(y), ND_MUL);
	nd_reduce(b, nd_whole(r), nd_whole(e), ND_ADD);
	nd_partition_reduce(b, nd_whole(l), nd_whole(r), ND_ADD);
	nd_tensor_scalar(b, ND_VECTOR, nd_whole(l), nd_whole(l), ND_MUL, -1.0f / (float)bl, 0);
	if (dp)
		nd_store(b, ND_QUEUE_AUTO, grad_rows(G, G_LOSS, 1), nd_whole(l));
	else
		nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(L, 0, 0), nd_whole(l));
	/* dlogits = (p - y) / bl */
	nd_tensor_tensor(b, ND_VECTOR, nd_whole(dz), nd_whole(p), nd_whole(y), ND_SUB);
	nd_tensor_scalar(b, ND_VECTOR, nd_whole(dz), nd_whole(dz), ND_MUL, 1.0f / (float)bl, 0);
	nd_scope_pop(b);

	/* ---- backward ---- */
	nd_scope_push(b, "backward");
	nd_scope_push(b, "fc2");
	/* dW2 [H x C] = h^T . dlogits: the batch is the contraction */
	nd_matmul(b, nd_whole(dw2), nd_whole(h), nd_whole(dz), 0);
	nd_partition_reduce(b, nd_whole(db2), nd_whole(dz), ND_ADD);
	/* dh [bl x H] = dlogits . W2^T */
	nd_transpose(b, nd_part(pt2, 0, C, 0, H), nd_whole(w2), 0);
	nd_copy(b, ND_VECTOR, nd_whole(w2t), nd_part(pt2, 0, C, 0, H));
	nd_transpose(b, nd_part(pt2, 0, C, 0, bl), nd_whole(dz), 0);
	nd_copy(b, ND_VECTOR, nd_whole(dzt), nd_part(pt2, 0, C, 0, bl));
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
			  nd_part(x, 0, bl, j * 128, drows(j)), nd_whole(dhp), 0);
	nd_partition_reduce(b, nd_whole(db1), nd_whole(dhp), ND_ADD);
	nd_scope_pop(b);
	nd_scope_pop(b);

	if (dp) {
		/* ---- the gradients to HBM, summed over the workers, and back ---- */
		nd_scope_push(b, "allreduce");
		nd_scope_push(b, "store");
		for (j = 0; j < DB; j++) {
			struct nd_tv tj = nd_part(tmp, 0, drows(j), j * H, H);

			nd_copy(b, ND_SCALAR, tj, nd_part(dw1, 0, drows(j), j * H, H));
			nd_store(b, ND_QUEUE_AUTO, grad_rows(G, G_W1 + j * 128 * H, H), tj);
		}
		nd_copy(b, ND_SCALAR, nd_whole(tmp2), nd_whole(dw2));
		nd_store(b, ND_QUEUE_AUTO, grad_rows(G, G_W2, C), nd_whole(tmp2));
		nd_store(b, ND_QUEUE_AUTO, grad_rows(G, G_B1, H), nd_whole(db1));
		nd_store(b, ND_QUEUE_AUTO, grad_rows(G, G_B2, C), nd_whole(db2));
		nd_scope_pop(b);
		nd_scope_push(b, "sum");
		nd_all_reduce(b, G, G, NG, ND_ADD);	/* in place */
		nd_scope_pop(b);
		nd_scope_push(b, "load");
		for (j = 0; j < DB; j++)
			nd_load(b, ND_QUEUE_AUTO, nd_part(tmp, 0, drows(j), j * H, H),
				grad_rows(G, G_W1 + j * 128 * H, H));
		nd_load(b, ND_QUEUE_AUTO, nd_whole(tmp2), grad_rows(G, G_W2, C));
		nd_load(b, ND_QUEUE_AUTO, nd_whole(db1), grad_rows(G, G_B1, H));
		nd_load(b, ND_QUEUE_AUTO, nd_whole(db2), grad_rows(G, G_B2, C));
		nd_load(b, ND_QUEUE_AUTO, nd_whole(l), grad_rows(G, G_LOSS, 1));
		/* the global batch's loss: the mean of the workers' means */
		nd_tensor_scalar(b, ND_VECTOR, nd_whole(l), nd_whole(l), ND_MUL, 1.0f / (float)w,
				 0);
		nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(L, 0, 0), nd_whole(l));
		nd_scope_pop(b);
		nd_scope_pop(b);
	}

	/* ---- SGD: w += -lr / w * sum of dw ---- */
	nd_scope_push(b, "sgd");
	for (j = 0; j < DB; j++) {
		struct nd_tv wj = nd_part(w1, 0, drows(j), j * H, H);
		struct nd_tv tj = nd_part(tmp, 0, drows(j), j * H, H);

		nd_activate(b, tj, dp ? tj : nd_part(dw1, 0, drows(j), j * H, H),
			    ND_ACT_IDENTITY, step, 0.0f);
		nd_tensor_tensor(b, ND_VECTOR, wj, wj, tj, ND_ADD);
		nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(W1o, j * 128, 0), wj);
	}
	nd_activate(b, nd_whole(tmp2), dp ? nd_whole(tmp2) : nd_whole(dw2), ND_ACT_IDENTITY,
		    step, 0.0f);
	nd_tensor_tensor(b, ND_VECTOR, nd_whole(w2), nd_whole(w2), nd_whole(tmp2), ND_ADD);
	nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(W2o, 0, 0), nd_whole(w2));
	/* biases: partition 0 of the broadcast tiles */
	nd_tensor_scalar(b, ND_GPSIMD, nd_whole(db1), nd_whole(db1), ND_MUL, step, 0);
	nd_tensor_tensor(b, ND_GPSIMD, nd_part(b1, 0, 1, 0, H), nd_part(b1, 0, 1, 0, H),
			 nd_whole(db1), ND_ADD);
	nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(B1o, 0, 0), nd_part(b1, 0, 1, 0, H));
	nd_tensor_scalar(b, ND_GPSIMD, nd_whole(db2), nd_whole(db2), ND_MUL, step, 0);
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

/* example-mlp-train's data: ten prototypes of 28x28 pixels (strokes), noisy copies. */
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
	for (i = 0; i < NB * GB; i++) {
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
	make_data(x, y);
	/* example-mlp-train's initial weights */
	for (i = 0; i < D * H; i++)
		one[0].w1[i] = ex_uniform(&seed, -1.0f, 1.0f) / sqrtf(D);
	for (i = 0; i < H * C; i++)
		one[0].w2[i] = ex_uniform(&seed, -1.0f, 1.0f) / sqrtf(H);
	dp[0] = one[0];

	/* the data-parallel step on every worker, and one worker's on the global batch */
	if (nd_builder_new("mlp_dp_step", &bw) || nd_builder_new("mlp_train_step", &b1))
		goto out;
	if (build_step(bw, bl, w) || build_step(b1, GB, 1)) {
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
