// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The MLP of example-mlp-train and example-mlp-dp (mlp.h): its training step as a
 * program and its synthetic data set.
 */
#include "mlp.h"

uint32_t mlp_drows(uint32_t j)
{
	return D - j * 128 < 128 ? D - j * 128 : 128;
}

/* A row range of the flat gradient tensor as an HBM view: rows of width cols from off. */
static struct nd_hbm grad_rows(struct nd_tensor *g, uint64_t off, uint64_t cols)
{
	return (struct nd_hbm){ .tensor = g, .offset = off, .pstride = cols, .fstride = 1 };
}

int mlp_build_step(struct nd_builder *b, uint32_t bl, uint32_t w)
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
		nd_load(b, ND_QUEUE_AUTO, nd_part(w1, 0, mlp_drows(j), j * H, H),
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
		nd_transpose(b, nd_part(pt, 0, mlp_drows(j), j * 128, bl),
			     nd_part(x, 0, bl, j * 128, mlp_drows(j)), 0);
	nd_copy(b, ND_VECTOR, nd_whole(xt), nd_whole(pt));
	nd_scope_pop(b);
	nd_scope_push(b, "matmul");
	for (j = 0; j < DB; j++)
		nd_matmul(b, nd_whole(acc_h), nd_part(xt, 0, mlp_drows(j), j * 128, bl),
			  nd_part(w1, 0, mlp_drows(j), j * H, H), j > 0);
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
		nd_matmul(b, nd_part(dw1, 0, mlp_drows(j), j * H, H),
			  nd_part(x, 0, bl, j * 128, mlp_drows(j)), nd_whole(dhp), 0);
	nd_partition_reduce(b, nd_whole(db1), nd_whole(dhp), ND_ADD);
	nd_scope_pop(b);
	nd_scope_pop(b);

	if (dp) {
		/* ---- the gradients to HBM, summed over the workers, and back ---- */
		nd_scope_push(b, "allreduce");
		nd_scope_push(b, "store");
		for (j = 0; j < DB; j++) {
			struct nd_tv tj = nd_part(tmp, 0, mlp_drows(j), j * H, H);

			nd_copy(b, ND_SCALAR, tj, nd_part(dw1, 0, mlp_drows(j), j * H, H));
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
			nd_load(b, ND_QUEUE_AUTO, nd_part(tmp, 0, mlp_drows(j), j * H, H),
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
		struct nd_tv wj = nd_part(w1, 0, mlp_drows(j), j * H, H);
		struct nd_tv tj = nd_part(tmp, 0, mlp_drows(j), j * H, H);

		nd_activate(b, tj, dp ? tj : nd_part(dw1, 0, mlp_drows(j), j * H, H),
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

void mlp_make_data(float *x, float *y)
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
	for (i = 0; i < NB * MLP_BATCH; i++) {
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
