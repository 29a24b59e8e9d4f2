// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Ready-made kernels written with the builder: the end-to-end tests, the examples and
 * the profiler's demos share them. Each declares its own tensors and returns the
 * builder's first error, so a caller checks once.
 */
#include <errno.h>
#include <string.h>

#include "vnprog_int.h"

#define P 128u

static uint32_t rows_in(uint32_t rows, uint32_t p)
{
	return rows - p < P ? rows - p : P;
}

int nd_kernel_exp(struct nd_builder *b, uint32_t rows, uint32_t cols, int double_buffer)
{
	const uint64_t shape[] = { rows, cols };
	struct nd_tensor *in, *out;
	struct nd_tile *ti[2], *to[2];
	uint32_t p, i = 0;

	if (!b)
		return -EINVAL;
	if (!rows || !cols)
		return nd_berr(b, EINVAL, "exp kernel: empty tensor [%u x %u]", rows, cols);
	in = nd_input(b, "in", ND_FP32, 2, shape);
	out = nd_output(b, "out", ND_FP32, 2, shape);
	ti[0] = nd_sbuf(b, "in_tile", ND_FP32, P, cols);
	to[0] = nd_sbuf(b, "out_tile", ND_FP32, P, cols);
	ti[1] = double_buffer ? nd_sbuf(b, "in_tile", ND_FP32, P, cols) : ti[0];
	to[1] = double_buffer ? nd_sbuf(b, "out_tile", ND_FP32, P, cols) : to[0];
	if (b->first_err)
		return b->first_err;
	nd_scope_push(b, "tensor_exp_kernel");
	for (p = 0; p < rows; p += P, i ^= 1) {
		/* the last tile is masked to the rows that exist */
		uint32_t np = rows_in(rows, p);

		nd_load(b, ND_QUEUE_AUTO, nd_part(ti[i], 0, np, 0, cols), nd_hbm_rows(in, p, 0));
		nd_activate(b, nd_part(to[i], 0, np, 0, cols), nd_part(ti[i], 0, np, 0, cols),
			    ND_ACT_EXP, 1.0f, 0.0f);
		nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(out, p, 0), nd_part(to[i], 0, np, 0, cols));
	}
	nd_scope_pop(b);
	return b->first_err;
}

/*
 * dst[:, j*128 .. +128] = src[:, j*128 .. +128]^T for every 128-column block of a
 * [128 x k] SBUF tile, through PSUM: the stationary operands of a matmul by A. The
 * PSUM tile pt may be narrower than k: the blocks then go through it in chunks.
 */
static void transpose_blocks(struct nd_builder *b, struct nd_tile *src, struct nd_tile *pt,
			     struct nd_tile *dst, uint32_t k)
{
	uint32_t w = pt->free < k ? pt->free : k, c, j;

	nd_scope_push(b, "transpose");
	for (c = 0; c < k; c += w) {
		for (j = 0; j < w / P; j++)
			nd_transpose(b, nd_part(pt, 0, P, j * P, P),
				     nd_part(src, 0, P, c + j * P, P), 0);
		nd_copy(b, ND_VECTOR, nd_part(dst, 0, P, c, w), nd_part(pt, 0, P, 0, w));
	}
	nd_scope_pop(b);
}

/* acc [128 x nb] = at^T . B[:, n0 .. +nb], K-accumulated over 128-row blocks of B. */
static void matmul_acc(struct nd_builder *b, struct nd_tile *acc, struct nd_tile *at,
		       struct nd_tile *const *bt, uint32_t k, uint32_t n0, uint32_t nb)
{
	uint32_t j;

	for (j = 0; j < k / P; j++)
		nd_matmul(b, nd_part(acc, 0, P, 0, nb), nd_part(at, 0, P, j * P, P),
			  nd_part(bt[j], 0, P, n0, nb), j > 0);
}

#define MAX_KB	12	/* K up to 1536: two [128 x K] fp32 transposes fill 12 of 16 KiB of PSUM */
/* matmul: K up to 2048, its A blocks transposed through PSUM 1024 columns at a time */
#define MM_MAX_KB	16
#define MM_PT_COLS	1024u

int nd_kernel_matmul(struct nd_builder *b, uint32_t m, uint32_t k, uint32_t n,
		     enum nd_dtype dt, enum nd_dtype out_dt)
{
	const uint64_t sa[] = { m, k }, sb[] = { k, n }, sc[] = { m, n };
	struct nd_tile *bt[MM_MAX_KB], *a[2], *pt[2], *at[2], *acc[2], *c[2];
	uint32_t nb = n < VNEF_MM_MAX_N ? n : VNEF_MM_MAX_N, mi, nj, j, i = 0;
	struct nd_tensor *A, *B, *C;

	if (!b)
		return -EINVAL;
	if (!m || !k || !n || m % P || k % P || k / P > MM_MAX_KB || n % nb)
		return nd_berr(b, EINVAL, "matmul kernel: [%u x %u] . [%u x %u]: M and K must be "
			       "multiples of 128, K <= %u, N <= 512 or a multiple of 512", m, k, k,
			       n, MM_MAX_KB * P);
	A = nd_input(b, "A", dt, 2, sa);
	B = nd_input(b, "B", dt, 2, sb);
	C = nd_output(b, "C", out_dt, 2, sc);
	nd_scope_push(b, "matmul");
	nd_scope_push(b, "load_b");
	for (j = 0; j < k / P; j++) {
		bt[j] = nd_sbuf(b, "b", dt, P, n);
		nd_load(b, ND_QUEUE_SPREAD, nd_whole(bt[j]), nd_hbm_rows(B, j * P, 0));
	}
	nd_scope_pop(b);
	for (j = 0; j < 2; j++) {
		a[j] = nd_sbuf(b, "a", dt, P, k);
		pt[j] = nd_psum(b, "a_t", ND_FP32, P, k > MAX_KB * P ? MM_PT_COLS : k);
		at[j] = nd_sbuf(b, "a_t_sb", dt, P, k);
		acc[j] = nd_psum(b, "acc", ND_FP32, P, nb);
		c[j] = nd_sbuf(b, "c", out_dt, P, nb);
	}
	if (b->first_err)
		return b->first_err;
	/* A-side tiles and the accumulator alternate, so block i+1 overlaps block i */
	for (mi = 0; mi < m / P; mi++) {
		nd_load(b, ND_QUEUE_SPREAD, nd_whole(a[mi & 1]), nd_hbm_rows(A, mi * P, 0));
		transpose_blocks(b, a[mi & 1], pt[mi & 1], at[mi & 1], k);
		for (nj = 0; nj < n / nb; nj++, i ^= 1) {
			matmul_acc(b, acc[i], at[mi & 1], bt, k, nj * nb, nb);
			nd_copy(b, ND_SCALAR, nd_whole(c[i]), nd_whole(acc[i]));
			nd_store(b, ND_QUEUE_SPREAD, nd_hbm_rows(C, mi * P, nj * nb), nd_whole(c[i]));
		}
	}
	nd_scope_pop(b);
	return b->first_err;
}

int nd_kernel_softmax(struct nd_builder *b, uint32_t rows, uint32_t cols)
{
	const uint64_t shape[] = { rows, cols };
	struct nd_tensor *in, *out;
	struct nd_tile *x, *e, *mx, *s;
	uint32_t p;

	if (!b)
		return -EINVAL;
	if (!rows || !cols)
		return nd_berr(b, EINVAL, "softmax kernel: empty tensor [%u x %u]", rows, cols);
	in = nd_input(b, "x", ND_FP32, 2, shape);
	out = nd_output(b, "y", ND_FP32, 2, shape);
	x = nd_sbuf(b, "x", ND_FP32, P, cols);
	e = nd_sbuf(b, "e", ND_FP32, P, cols);
	mx = nd_sbuf(b, "max", ND_FP32, P, 1);
	s = nd_sbuf(b, "sum", ND_FP32, P, 1);
	if (b->first_err)
		return b->first_err;
	nd_scope_push(b, "softmax");
	for (p = 0; p < rows; p += P) {
		uint32_t np = rows_in(rows, p);
		struct nd_tv vx = nd_part(x, 0, np, 0, cols), ve = nd_part(e, 0, np, 0, cols);
		struct nd_tv vm = nd_part(mx, 0, np, 0, 1), vs = nd_part(s, 0, np, 0, 1);

		nd_load(b, ND_QUEUE_AUTO, vx, nd_hbm_rows(in, p, 0));
		nd_reduce(b, vm, vx, ND_MAX);
		nd_tensor_scalar(b, ND_VECTOR, vm, vm, ND_MUL, -1.0f, 0);
		/* e = exp(x - max), then e / sum(e) */
		nd_activate_column(b, ve, vx, ND_ACT_EXP, 1.0f, vm);
		nd_reduce(b, vs, ve, ND_ADD);
		nd_activate(b, vs, vs, ND_ACT_RECIPROCAL, 1.0f, 0.0f);
		nd_tensor_column(b, ND_VECTOR, ve, ve, ND_MUL, vs, 0);
		nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(out, p, 0), ve);
	}
	nd_scope_pop(b);
	return b->first_err;
}

int nd_kernel_layernorm(struct nd_builder *b, uint32_t rows, uint32_t cols,
			const float *gamma, const float *beta, float eps)
{
	const uint64_t shape[] = { rows, cols }, vec[] = { cols };
	struct nd_tensor *in, *g, *be, *out;
	struct nd_tile *x, *sq, *gt, *bt, *mean, *var;
	uint32_t p;

	if (!b)
		return -EINVAL;
	if (!rows || !cols || !gamma || !beta)
		return nd_berr(b, EINVAL, "layernorm kernel: empty tensor or no gamma/beta");
	in = nd_input(b, "x", ND_FP32, 2, shape);
	g = nd_const(b, "gamma", ND_FP32, 1, vec, gamma);
	be = nd_const(b, "beta", ND_FP32, 1, vec, beta);
	out = nd_output(b, "y", ND_FP32, 2, shape);
	x = nd_sbuf(b, "x", ND_FP32, P, cols);
	sq = nd_sbuf(b, "sq", ND_FP32, P, cols);
	gt = nd_sbuf(b, "gamma", ND_FP32, P, cols);
	bt = nd_sbuf(b, "beta", ND_FP32, P, cols);
	mean = nd_sbuf(b, "mean", ND_FP32, P, 1);
	var = nd_sbuf(b, "var", ND_FP32, P, 1);
	if (b->first_err)
		return b->first_err;
	nd_scope_push(b, "layernorm");
	/* gamma and beta on every partition: an HBM partition stride of 0 */
	nd_load(b, ND_QUEUE_AUTO, nd_whole(gt), (struct nd_hbm){ .tensor = g, .fstride = 1 });
	nd_load(b, ND_QUEUE_AUTO, nd_whole(bt), (struct nd_hbm){ .tensor = be, .fstride = 1 });
	for (p = 0; p < rows; p += P) {
		uint32_t np = rows_in(rows, p);
		struct nd_tv vx = nd_part(x, 0, np, 0, cols), vq = nd_part(sq, 0, np, 0, cols);
		struct nd_tv vm = nd_part(mean, 0, np, 0, 1), vv = nd_part(var, 0, np, 0, 1);

		nd_load(b, ND_QUEUE_AUTO, vx, nd_hbm_rows(in, p, 0));
		nd_reduce(b, vm, vx, ND_ADD);
		nd_tensor_scalar(b, ND_VECTOR, vm, vm, ND_MUL, 1.0f / (float)cols, 0);
		nd_tensor_column(b, ND_VECTOR, vx, vx, ND_SUB, vm, 0);
		nd_activate(b, vq, vx, ND_ACT_SQUARE, 1.0f, 0.0f);
		nd_reduce(b, vv, vq, ND_ADD);
		/* rstd = 1 / sqrt(sum / cols + eps) */
		nd_activate(b, vv, vv, ND_ACT_RSQRT, 1.0f / (float)cols, eps);
		nd_tensor_column(b, ND_VECTOR, vx, vx, ND_MUL, vv, 0);
		nd_tensor_tensor(b, ND_GPSIMD, vx, vx, nd_part(gt, 0, np, 0, cols), ND_MUL);
		nd_tensor_tensor(b, ND_GPSIMD, vx, vx, nd_part(bt, 0, np, 0, cols), ND_ADD);
		nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(out, p, 0), vx);
	}
	nd_scope_pop(b);
	return b->first_err;
}

int nd_kernel_mlp(struct nd_builder *b, uint32_t d_in, uint32_t hidden, uint32_t d_out,
		  enum nd_dtype dt)
{
	const uint64_t sx[] = { P, d_in }, s1[] = { d_in, hidden }, s2[] = { hidden, d_out };
	const uint64_t sy[] = { P, d_out };
	struct nd_tile *w1[MAX_KB], *w2[MAX_KB], *x, *xt, *h, *ht, *pt, *acc1, *acc2, *y;
	struct nd_tensor *X, *W1, *W2, *Y;
	uint32_t j;

	if (!b)
		return -EINVAL;
	if (!d_in || !hidden || !d_out || d_in % P || hidden % P || d_in / P > MAX_KB ||
	    hidden > VNEF_MM_MAX_N || d_out > VNEF_MM_MAX_N)
		return nd_berr(b, EINVAL, "mlp kernel: d_in and hidden must be multiples of 128, "
			       "hidden and d_out at most 512 (%u, %u, %u)", d_in, hidden, d_out);
	X = nd_input(b, "x", dt, 2, sx);
	W1 = nd_input(b, "w1", dt, 2, s1);
	W2 = nd_input(b, "w2", dt, 2, s2);
	Y = nd_output(b, "y", ND_FP32, 2, sy);
	x = nd_sbuf(b, "x", dt, P, d_in);
	xt = nd_sbuf(b, "x_t", dt, P, d_in);
	h = nd_sbuf(b, "h", dt, P, hidden);
	ht = nd_sbuf(b, "h_t", dt, P, hidden);
	pt = nd_psum(b, "t", ND_FP32, P, d_in > hidden ? d_in : hidden);
	acc1 = nd_psum(b, "acc1", ND_FP32, P, hidden);
	acc2 = nd_psum(b, "acc2", ND_FP32, P, d_out);
	y = nd_sbuf(b, "y", ND_FP32, P, d_out);
	for (j = 0; j < d_in / P; j++)
		w1[j] = nd_sbuf(b, "w1", dt, P, hidden);
	for (j = 0; j < hidden / P; j++)
		w2[j] = nd_sbuf(b, "w2", dt, P, d_out);
	if (b->first_err)
		return b->first_err;

	nd_scope_push(b, "mlp");
	nd_load(b, ND_QUEUE_AUTO, nd_whole(x), nd_hbm_rows(X, 0, 0));
	for (j = 0; j < d_in / P; j++)
		nd_load(b, ND_QUEUE_AUTO, nd_whole(w1[j]), nd_hbm_rows(W1, j * P, 0));
	for (j = 0; j < hidden / P; j++)
		nd_load(b, ND_QUEUE_AUTO, nd_whole(w2[j]), nd_hbm_rows(W2, j * P, 0));

	nd_scope_push(b, "fc1");
	transpose_blocks(b, x, pt, xt, d_in);
	matmul_acc(b, acc1, xt, w1, d_in, 0, hidden);
	nd_scope_pop(b);
	nd_activate(b, nd_whole(h), nd_whole(acc1), ND_ACT_RELU, 1.0f, 0.0f);

	nd_scope_push(b, "fc2");
	transpose_blocks(b, h, pt, ht, hidden);
	matmul_acc(b, acc2, ht, w2, hidden, 0, d_out);
	nd_copy(b, ND_VECTOR, nd_whole(y), nd_whole(acc2));
	nd_scope_pop(b);
	nd_store(b, ND_QUEUE_AUTO, nd_hbm_rows(Y, 0, 0), nd_whole(y));
	nd_scope_pop(b);
	return b->first_err;
}
