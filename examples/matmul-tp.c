// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Tensor-parallel matmul: C = A . B with B's columns split across W workers (one core
 * each). Every worker runs the same program (SPMD) on its own shard of B: its columns
 * of C on TensorE, then an all_gather on the collective engine brings every shard to
 * every worker, and DMAs put them side by side into the full C. Checked on every
 * worker against a C reference; modeled and host time against one core doing it all.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define P		128u
#define MAX_WORKERS	16u

static void usage(FILE *f)
{
	fprintf(f,
"NAME\n"
"    example-matmul-tp - tensor-parallel matmul: column shards and an all_gather\n"
"\n"
"SYNOPSIS\n"
"    example-matmul-tp [--size 512|1024] [--workers W] [--cores-per-device C]\n"
"                      [--dtype bf16|fp32] [--host] [--device D]\n"
"                      [--write-vnef FILE] [-q]\n"
"\n"
"DESCRIPTION\n"
"    C [N x N] fp32 = A [N x N] . B [N x N] on W workers, each a core and a rank of\n"
"    one communicator, running the same program (SPMD). Worker w holds A and the\n"
"    columns w N/W .. (w + 1) N/W - 1 of B (its shard, bound as its input B) and:\n"
"\n"
"      matmul      computes its columns of C, C_w [N x N/W], on TensorE as\n"
"                  example-matmul does (A blocks transposed through PSUM,\n"
"                  K-accumulated matmuls), into the scratch tensor c_shard\n"
"      all_gather  gathers every worker's c_shard into gathered [W x N x N/W] on\n"
"                  the collective engine (the CC-core)\n"
"      assemble    sixteen HBM-to-HBM DMAs, each on a queue of its own and\n"
"                  each for 1/16 of the rows, put the shards side by side into\n"
"                  the output C [N x N] (shard w at columns w N/W..)\n"
"\n"
"    The workers run as threads, one per rank. Every worker's C is checked\n"
"    against a double-precision reference of the (bf16-rounded) inputs within\n"
"    the fp32 accumulation bound K u sum|a b|. Then one core runs the whole\n"
"    matmul (nd_kernel_matmul) for comparison: the modeled times (each worker's\n"
"    execution, the slowest one's) and the host's wall times are printed side\n"
"    by side. Ranks are laid out as devices x cores per device: rank r is core\n"
"    r mod C of device r / C (on the host backend the devices are modeled, and\n"
"    the all_gather between devices takes the model's inter-device link).\n"
"\n"
"OPTIONS\n"
"    --size N            512 (default) or 1024\n"
"    --workers W         workers (ranks), 1 to 16 dividing N (default 4)\n"
"    --cores-per-device C\n"
"                        cores of one device the workers use (default 2)\n"
"    --dtype T           bf16 or fp32 (default fp32) for A and B; C is fp32\n"
"%s"
"\n"
"    With --device D the workers are cores of /dev/vneuronD, D+1, ...; --core\n"
"    is ignored (the layout decides) but picks the core of the one-core run.\n"
"\n"
"EXIT STATUS\n"
"    0 when every worker's C matches, 1 on a mismatch or error, 2 on bad usage.\n"
"\n"
"EXAMPLE\n"
"    example-matmul-tp --host\n"
"    example-matmul-tp --host --size 1024 --workers 8 --dtype bf16\n", ex_common_help);
}

struct tp_args {
	uint32_t n, workers, cpd;
	enum nd_dtype dt;
};

/* acc [128 x nb] = at^T . B[:, n0 .. +nb], K-accumulated over 128-row blocks of B. */
static void matmul_acc(struct nd_builder *b, struct nd_tile *acc, struct nd_tile *at,
		       struct nd_tile *const *bt, uint32_t k, uint32_t n0, uint32_t nb)
{
	uint32_t j;

	for (j = 0; j < k / P; j++)
		nd_matmul(b, nd_part(acc, 0, P, 0, nb), nd_part(at, 0, P, j * P, P),
			  nd_part(bt[j], 0, P, n0, nb), j > 0);
}

/* One worker's program: its shard of C, the all_gather, the assembly of C. */
static int build_tp(struct nd_builder *b, const struct tp_args *x)
{
	uint32_t n = x->n, k = x->n, w = x->workers, nw = n / w;
	uint32_t nb = nw < 512 ? nw : 512, mi, nj, j, i = 0;
	const uint64_t sa[] = { n, k }, sb[] = { k, nw }, sc[] = { n, n };
	const uint64_t ss[] = { n, nw }, sg[] = { (uint64_t)w * n, nw };
	struct nd_tile *bt[1024 / P], *a[2], *pt[2], *at[2], *acc[2], *c[2];
	struct nd_tensor *A, *B, *C, *S, *G;

	A = nd_input(b, "A", x->dt, 2, sa);
	B = nd_input(b, "B", x->dt, 2, sb);
	C = nd_output(b, "C", ND_FP32, 2, sc);
	S = nd_scratch(b, "c_shard", ND_FP32, 2, ss);
	G = nd_scratch(b, "gathered", ND_FP32, 2, sg);

	nd_scope_push(b, "matmul_tp");
	nd_scope_push(b, "matmul");
	for (j = 0; j < k / P; j++) {
		bt[j] = nd_sbuf(b, "b", x->dt, P, nw);
		nd_load(b, ND_QUEUE_SPREAD, nd_whole(bt[j]), nd_hbm_rows(B, j * P, 0));
	}
	for (j = 0; j < 2; j++) {
		a[j] = nd_sbuf(b, "a", x->dt, P, k);
		pt[j] = nd_psum(b, "a_t", ND_FP32, P, k);
		at[j] = nd_sbuf(b, "a_t_sb", x->dt, P, k);
		acc[j] = nd_psum(b, "acc", ND_FP32, P, nb);
		c[j] = nd_sbuf(b, "c", ND_FP32, P, nb);
	}
	if (nd_builder_status(b))
		return nd_builder_status(b);
	/* A-side tiles and the accumulator alternate, so block mi+1 overlaps block mi */
	for (mi = 0; mi < n / P; mi++) {
		struct nd_tile *as = a[mi & 1], *ps = pt[mi & 1], *ts = at[mi & 1];

		nd_load(b, ND_QUEUE_SPREAD, nd_whole(as), nd_hbm_rows(A, mi * P, 0));
		for (j = 0; j < k / P; j++)
			nd_transpose(b, nd_part(ps, 0, P, j * P, P), nd_part(as, 0, P, j * P, P),
				     0);
		nd_copy(b, ND_VECTOR, nd_whole(ts), nd_whole(ps));
		for (nj = 0; nj < nw / nb; nj++, i ^= 1) {
			matmul_acc(b, acc[i], ts, bt, k, nj * nb, nb);
			nd_copy(b, ND_SCALAR, nd_whole(c[i]), nd_whole(acc[i]));
			nd_store(b, ND_QUEUE_SPREAD, nd_hbm_rows(S, mi * P, nj * nb),
				 nd_whole(c[i]));
		}
	}
	nd_scope_pop(b);

	nd_scope_push(b, "all_gather");
	nd_all_gather(b, G, S, (uint64_t)n * nw);
	nd_scope_pop(b);

	nd_scope_push(b, "assemble");
	/*
	 * Sixteen row blocks, one DMA each on its own queue: within a block, row i of
	 * every shard after the other (count[0] over the shards), so each DMA writes one
	 * contiguous range of C and the sixteen neither overlap nor wait for each other.
	 */
	for (j = 0; j < 16; j++) {
		uint64_t rows = n / 16, r0 = (uint64_t)j * rows;
		struct nd_dma_xfer xf = {
			.chunk_bytes = nw * 4, .count = { w, (uint32_t)rows },
			.src = { .tensor = G, .offset = r0 * nw * 4,
				 .stride = { (uint64_t)n * nw * 4, (uint64_t)nw * 4 } },
			.dst = { .tensor = C, .offset = r0 * n * 4,
				 .stride = { (uint64_t)nw * 4, (uint64_t)n * 4 } },
		};

		nd_dma(b, (int)j, &xf);
	}
	nd_scope_pop(b);
	nd_scope_pop(b);
	return nd_builder_status(b);
}

/* Rows of C against a double reference within K u sum|a b|; mismatches. */
static size_t check_c(const char *what, const float *c, const float *ar, const float *br,
		      uint32_t n)
{
	double *ref = malloc(n * sizeof(double)), *mag = malloc(n * sizeof(double));
	size_t i, j, k, bad = 0;

	if (!ref || !mag) {
		free(ref);
		free(mag);
		return 1;
	}
	for (i = 0; i < n; i++) {
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
				fprintf(stderr, "example-matmul-tp: %s: C[%zu][%zu] = %g, "
					"want %g\n", what, i, j, c[i * n + j], ref[j]);
		}
	}
	free(ref);
	free(mag);
	return bad;
}

/* The whole matmul on one core, for comparison: modeled ps and host seconds. */
static int one_core(const struct ex_opts *o, const struct tp_args *x, void *ad, void *bd,
		    float *c, uint64_t *ps, double *secs)
{
	size_t nn = (size_t)x->n * x->n, esz = x->dt == ND_BF16 ? 2 : 4;
	struct ex_opts one = *o;
	struct nd_builder *b = NULL;
	struct ex_ctx *ctx = NULL;
	int ret = -1;

	one.write_vnef = NULL;
	if (ex_builder_new(o, "matmul_one_core", &b))
		return -1;
	if (nd_kernel_matmul(b, x->n, x->n, x->n, x->dt, ND_FP32)) {
		fprintf(stderr, "example-matmul-tp: %s\n", nd_builder_error(b));
		goto out;
	}
	if (ex_open(&one, b, &ctx))
		goto out;
	{
		struct ex_buf bufs[] = {
			{ "A", ad, nn * esz, 0 }, { "B", bd, nn * esz, 0 }, { "C", c, nn * 4, 1 },
		};

		*secs = ex_now();
		if (ex_run(ctx, bufs, 3, ps))
			goto out;
		*secs = ex_now() - *secs;
	}
	ret = 0;
out:
	ex_close(ctx);
	nd_builder_free(b);
	return ret;
}

static int tp_arg(void *ctx, const char *opt, const char *val)
{
	struct tp_args *x = ctx;
	char *end;
	unsigned long v;

	if (!strcmp(opt, "--dtype")) {
		if (val && !strcmp(val, "bf16")) {
			x->dt = ND_BF16;
		} else if (val && !strcmp(val, "fp32")) {
			x->dt = ND_FP32;
		} else {
			ex_bad_value(opt, "bf16 or fp32, not '%s'", val ? val : "");
			return -1;
		}
		return 2;
	}
	if (strcmp(opt, "--size") && strcmp(opt, "--workers") && strcmp(opt, "--cores-per-device"))
		return 0;
	v = val && *val && *val != '-' ? strtoul(val, &end, 10) : 0;
	if (!val || !*val || *end)
		v = 0;
	if (!strcmp(opt, "--size")) {
		if (v != 512 && v != 1024) {
			ex_bad_value(opt, "512 or 1024, not '%s'", val ? val : "");
			return -1;
		}
		x->n = (uint32_t)v;
	} else if (!strcmp(opt, "--workers")) {
		if (!v || v > MAX_WORKERS) {
			ex_bad_value(opt, "a number of workers from 1 to %u, not '%s'", MAX_WORKERS,
				     val ? val : "");
			return -1;
		}
		x->workers = (uint32_t)v;
	} else {
		if (!v || v > 64) {
			ex_bad_value(opt, "a number of cores from 1 to 64, not '%s'",
				     val ? val : "");
			return -1;
		}
		x->cpd = (uint32_t)v;
	}
	return 2;
}

int main(int argc, char **argv)
{
	struct tp_args x = { .n = 512, .workers = 4, .cpd = 2, .dt = ND_FP32 };
	struct ex_cmdline cl = { "example-matmul-tp", usage, tp_arg, &x };
	struct ex_opts o = { 0 };
	struct ex_buf *bufs[MAX_WORKERS] = { 0 };
	struct nd_builder *b = NULL;
	struct ex_group *g = NULL;
	void *ad = NULL, *bd = NULL, *shard[MAX_WORKERS] = { 0 };
	float *ar = NULL, *br = NULL, *c[MAX_WORKERS] = { 0 }, *c1 = NULL;
	uint64_t seed = 3, ps = 0, ps1 = 0;
	size_t nn, esz, i, bad = 0;
	uint32_t n, w, nw, r, row, ndev;
	double secs, secs1 = 0;
	int ret = 1;
	char what[32], where[48];

	ret = ex_parse_args(&o, &cl, argc, argv);
	if (ret)
		return ret > 0 ? 0 : 2;
	ret = 1;
	n = x.n;
	w = x.workers;
	if (n % w) {
		fprintf(stderr, "example-matmul-tp: --workers %u does not divide --size %u\n", w,
			n);
		return 2;
	}
	nw = n / w;
	nn = (size_t)n * n;
	esz = x.dt == ND_BF16 ? 2 : 4;
	ad = malloc(nn * esz);
	bd = malloc(nn * esz);
	ar = malloc(nn * 4);
	br = malloc(nn * 4);
	c1 = malloc(nn * 4);
	if (!ad || !bd || !ar || !br || !c1)
		goto out;
	/* the same A and B as example-matmul's */
	for (i = 0; i < nn; i++) {
		ar[i] = ex_uniform(&seed, -1.0f, 1.0f);
		br[i] = ex_uniform(&seed, -1.0f, 1.0f);
		if (x.dt == ND_BF16) {
			((uint16_t *)ad)[i] = nd_fp32_to_bf16(ar[i]);
			((uint16_t *)bd)[i] = nd_fp32_to_bf16(br[i]);
			ar[i] = nd_bf16_to_fp32(((uint16_t *)ad)[i]);
			br[i] = nd_bf16_to_fp32(((uint16_t *)bd)[i]);
		} else {
			((float *)ad)[i] = ar[i];
			((float *)bd)[i] = br[i];
		}
	}
	/* worker r's shard: columns r nw .. + nw of B, row-major [n x nw] */
	for (r = 0; r < w; r++) {
		shard[r] = malloc((size_t)n * nw * esz);
		c[r] = malloc(nn * 4);
		bufs[r] = calloc(3, sizeof(struct ex_buf));
		if (!shard[r] || !c[r] || !bufs[r])
			goto out;
		for (row = 0; row < n; row++)
			memcpy((char *)shard[r] + (size_t)row * nw * esz,
			       (char *)bd + ((size_t)row * n + (size_t)r * nw) * esz, nw * esz);
		memset(c[r], 0xff, nn * 4);	/* NaN: an element never written fails */
		bufs[r][0] = (struct ex_buf){ "A", ad, nn * esz, 0 };
		bufs[r][1] = (struct ex_buf){ "B", shard[r], (uint64_t)n * nw * esz, 0 };
		bufs[r][2] = (struct ex_buf){ "C", c[r], nn * 4, 1 };
	}

	if (ex_builder_new(&o, "matmul_tp", &b))
		goto out;
	if (build_tp(b, &x)) {
		fprintf(stderr, "example-matmul-tp: %s\n", nd_builder_error(b));
		goto out;
	}
	if (ex_group_open(&o, w, x.cpd, b, &g))
		goto out;
	secs = ex_now();
	if (ex_group_run(g, bufs, 3, &ps))
		goto out;
	secs = ex_now() - secs;
	for (r = 0; r < w; r++) {
		snprintf(what, sizeof(what), "worker %u", r);
		bad += check_c(what, c[r], ar, br, n);
		if (bad)
			break;
	}
	if (bad) {
		fprintf(stderr, "example-matmul-tp: C differs on worker %u\n", r);
		goto out;
	}
	/* on a device the one-core run would otherwise share a core with a rank */
	ex_group_close(g);
	g = NULL;
	if (one_core(&o, &x, ad, bd, c1, &ps1, &secs1))
		goto out;
	ndev = (w + x.cpd - 1) / x.cpd;
	if (o.host)
		snprintf(where, sizeof(where), "the host backend");
	else if (ndev == 1)
		snprintf(where, sizeof(where), "/dev/vneuron%u", o.device);
	else
		snprintf(where, sizeof(where), "/dev/vneuron%u..%u", o.device,
			 o.device + ndev - 1);
	if (o.quiet) {
		printf("matmul-tp: ok\n");
	} else {
		printf("matmul-tp: [%u x %u] . [%u x %u] %s on %u workers (%u device%s x %u "
		       "cores) on %s: ok, C checked on every worker\n", n, n, n, n,
		       x.dt == ND_BF16 ? "bf16" : "fp32", w, ndev, ndev == 1 ? "" : "s",
		       w < x.cpd ? w : x.cpd, where);
		printf("  %u worker%s: modeled %8.1f us (shards of [%u x %u], all_gather, "
		       "assembly), host %7.2f ms\n", w, w == 1 ? " " : "s", (double)ps * 1e-6,
		       n, nw, secs * 1e3);
		printf("  one core:   modeled %8.1f us, host %7.2f ms\n", (double)ps1 * 1e-6,
		       secs1 * 1e3);
		printf("  speedup:    modeled %.2fx, host %.2fx\n",
		       ps ? (double)ps1 / (double)ps : 0.0, secs > 0 ? secs1 / secs : 0.0);
	}
	ret = 0;
out:
	ex_group_close(g);
	nd_builder_free(b);
	for (r = 0; r < MAX_WORKERS; r++) {
		free(shard[r]);
		free(c[r]);
		free(bufs[r]);
	}
	free(ad);
	free(bd);
	free(ar);
	free(br);
	free(c1);
	return ret;
}
