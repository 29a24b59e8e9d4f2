// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Single-head attention, sequence 512, head dimension 64, fp32:
 * O = softmax(Q K^T / sqrt(d)) V, 128 queries at a time. K^T is made once on TensorE;
 * per query block: Q^T (transpose), scores in one PSUM bank, a row softmax on
 * VectorE/ScalarE (normalised at the end), P^T (4 transposes) and P V accumulated
 * over 4 key blocks. Tiles alternate between query blocks so they pipeline.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define S	512
#define DH	64
#define KB	(S / 128)

static int build(struct nd_builder *b)
{
	const uint64_t sh[] = { S, DH };
	const float scale = 1.0f / sqrtf((float)DH);
	struct nd_tensor *Q, *K, *V, *O;
	struct nd_tile *kk, *vv, *kt, *pk, *q[2], *pq[2], *qt[2], *ps[2], *pe[2], *ptp[2];
	struct nd_tile *pts[2], *acc[2], *o[2], *mx[2], *sm[2];
	uint32_t i, j, t;

	Q = nd_input(b, "q", ND_FP32, 2, sh);
	K = nd_input(b, "k", ND_FP32, 2, sh);
	V = nd_input(b, "v", ND_FP32, 2, sh);
	O = nd_output(b, "o", ND_FP32, 2, sh);
	kk = nd_sbuf(b, "k", ND_FP32, 128, KB * DH);
	vv = nd_sbuf(b, "v", ND_FP32, 128, KB * DH);
	kt = nd_sbuf(b, "k_t", ND_FP32, DH, S);
	pk = nd_psum(b, "k_t_ps", ND_FP32, DH, S);
	for (t = 0; t < 2; t++) {
		q[t] = nd_sbuf(b, "q", ND_FP32, 128, DH);
		pq[t] = nd_psum(b, "q_t_ps", ND_FP32, DH, 128);
		qt[t] = nd_sbuf(b, "q_t", ND_FP32, DH, 128);
		ps[t] = nd_psum(b, "scores", ND_FP32, 128, S);
		pe[t] = nd_sbuf(b, "probs", ND_FP32, 128, S);
		ptp[t] = nd_psum(b, "probs_t_ps", ND_FP32, 128, S);
		pts[t] = nd_sbuf(b, "probs_t", ND_FP32, 128, S);
		acc[t] = nd_psum(b, "o_ps", ND_FP32, 128, DH);
		o[t] = nd_sbuf(b, "o", ND_FP32, 128, DH);
		mx[t] = nd_sbuf(b, "max", ND_FP32, 128, 1);
		sm[t] = nd_sbuf(b, "sum", ND_FP32, 128, 1);
	}
	if (nd_builder_status(b))
		return nd_builder_status(b);

	nd_scope_push(b, "attention");
	nd_scope_push(b, "load_kv");
	for (j = 0; j < KB; j++) {
		nd_load(b, ND_QUEUE_AUTO, nd_part(kk, 0, 128, j * DH, DH), nd_hbm_rows(K, j * 128, 0));
		nd_load(b, ND_QUEUE_AUTO, nd_part(vv, 0, 128, j * DH, DH), nd_hbm_rows(V, j * 128, 0));
	}
	nd_scope_pop(b);
	nd_scope_push(b, "k_transpose");
	for (j = 0; j < KB; j++)
		nd_transpose(b, nd_part(pk, 0, DH, j * 128, 128), nd_part(kk, 0, 128, j * DH, DH), 0);
	nd_copy(b, ND_VECTOR, nd_whole(kt), nd_whole(pk));
	nd_scope_pop(b);

	for (i = 0; i < S / 128; i++) {
		t = i & 1;
		nd_scope_push(b, "qk");
		nd_load(b, ND_QUEUE_AUTO, nd_whole(q[t]), nd_hbm_rows(Q, i * 128, 0));
		nd_transpose(b, nd_whole(pq[t]), nd_whole(q[t]), 0);
		nd_copy(b, ND_VECTOR, nd_whole(qt[t]), nd_whole(pq[t]));
		/* scores [128 x 512] = Q_i K^T: the head dimension is the contraction */
		nd_matmul(b, nd_whole(ps[t]), nd_whole(qt[t]), nd_whole(kt), 0);
		nd_scope_pop(b);

		nd_scope_push(b, "softmax");
		/* e = exp(scale * s - scale * max); the division waits until after P V */
		nd_reduce(b, nd_whole(mx[t]), nd_whole(ps[t]), ND_MAX);
		nd_tensor_scalar(b, ND_GPSIMD, nd_whole(mx[t]), nd_whole(mx[t]), ND_MUL, -scale, 0);
		nd_activate_column(b, nd_whole(pe[t]), nd_whole(ps[t]), ND_ACT_EXP, scale,
				   nd_whole(mx[t]));
		nd_reduce(b, nd_whole(sm[t]), nd_whole(pe[t]), ND_ADD);
		nd_activate(b, nd_whole(sm[t]), nd_whole(sm[t]), ND_ACT_RECIPROCAL, 1.0f, 0.0f);
		nd_scope_pop(b);

		nd_scope_push(b, "pv");
		for (j = 0; j < KB; j++)
			nd_transpose(b, nd_part(ptp[t], 0, 128, j * 128, 128),
				     nd_part(pe[t], 0, 128, j * 128, 128), 0);
		nd_copy(b, ND_SCALAR, nd_whole(pts[t]), nd_whole(ptp[t]));
		for (j = 0; j < KB; j++)
			nd_matmul(b, nd_whole(acc[t]), nd_part(pts[t], 0, 128, j * 128, 128),
				  nd_part(vv, 0, 128, j * DH, DH), j > 0);
		nd_tensor_column(b, ND_VECTOR, nd_whole(o[t]), nd_whole(acc[t]), ND_MUL,
				 nd_whole(sm[t]), 0);
		nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(O, i * 128, 0), nd_whole(o[t]));
		nd_scope_pop(b);
	}
	nd_scope_pop(b);
	return nd_builder_status(b);
}

static void reference(const float *q, const float *k, const float *v, float *o)
{
	static double s[S];
	int i, j, c;

	for (i = 0; i < S; i++) {
		double mx = -1e300, sum = 0;

		for (j = 0; j < S; j++) {
			double a = 0;

			for (c = 0; c < DH; c++)
				a += (double)q[i * DH + c] * k[j * DH + c];
			s[j] = a / sqrt((double)DH);
			mx = s[j] > mx ? s[j] : mx;
		}
		for (j = 0; j < S; j++) {
			s[j] = exp(s[j] - mx);
			sum += s[j];
		}
		for (c = 0; c < DH; c++) {
			double a = 0;

			for (j = 0; j < S; j++)
				a += s[j] * v[j * DH + c];
			o[i * DH + c] = (float)(a / sum);
		}
	}
}

static void usage(FILE *f)
{
	fprintf(f,
"NAME\n"
"    example-attention - single-head attention, sequence 512, on the device\n"
"\n"
"SYNOPSIS\n"
"    example-attention [--host] [--device D] [--core C] [--write-vnef FILE] [-q]\n"
"\n"
"DESCRIPTION\n"
"    Builds O = softmax(Q K^T / sqrt(64)) V for Q, K, V [512 x 64] fp32 in scopes\n"
"    attention/load_kv, attention/k_transpose, attention/qk, attention/softmax and\n"
"    attention/pv, 128 queries at a time, runs it and checks O against a\n"
"    double-precision C reference (within 1e-4 + 1e-3 relative).\n"
"\n"
"OPTIONS\n"
"%s"
"\n"
"EXIT STATUS\n"
"    0 when O matches, 1 on a mismatch or error, 2 on bad usage.\n"
"\n"
"EXAMPLE\n"
"    example-attention --host\n", ex_common_help);
}

int main(int argc, char **argv)
{
	static float q[S * DH], k[S * DH], v[S * DH], o[S * DH], want[S * DH];
	struct ex_cmdline cl = { "example-attention", usage, NULL, NULL };
	struct ex_opts opt = { 0 };
	struct nd_builder *b = NULL;
	struct ex_ctx *c = NULL;
	uint64_t seed = 5, ps = 0;
	int i = 1, r, ret = 1;

	r = ex_parse_args(&opt, &cl, argc, argv);
	if (r)
		return r > 0 ? 0 : 2;

	for (i = 0; i < S * DH; i++) {
		q[i] = ex_uniform(&seed, -2.0f, 2.0f);
		k[i] = ex_uniform(&seed, -2.0f, 2.0f);
		v[i] = ex_uniform(&seed, -1.0f, 1.0f);
	}
	reference(q, k, v, want);
	if (ex_builder_new(&opt, "attention", &b))
		goto out;
	if (build(b)) {
		fprintf(stderr, "build: %s\n", nd_builder_error(b));
		goto out;
	}
	if (ex_open(&opt, b, &c))
		goto out;
	{
		struct ex_buf bufs[] = {
			{ "q", q, sizeof(q), 0 }, { "k", k, sizeof(k), 0 },
			{ "v", v, sizeof(v), 0 }, { "o", o, sizeof(o), 1 },
		};

		if (ex_run(c, bufs, 4, &ps))
			goto out;
	}
	if (ex_check("attention", o, want, S * DH, 1e-4f, 1e-3f))
		goto out;
	printf("attention: [%d x %d] one head on %s: ok, modeled %.2f us\n", S, DH,
	       ex_where(c), (double)ps * 1e-6);
	ret = 0;
out:
	ex_close(c);
	nd_builder_free(b);
	return ret;
}
