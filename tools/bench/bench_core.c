// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The device core's host throughput, side by side with the host's own:
 *
 *   BENCH tensore_matmul_gflops=X GFLOP/s    tiled fp32 512x512x512 matmul program (DMA
 *                                            in, LoadStationary + MultiplyMoving, DMA
 *                                            out), executions back to back
 *   BENCH openblas_best_sgemm_gflops=Y       cblas_sgemm 512^3, OpenBLAS's best kernel
 *                                            here, one thread (tools/bench/bench_blas.h)
 *   BENCH tensore_vs_best_openblas=R ratio   X / Y (issue 30: >= 0.9)
 *   BENCH tensore_1024_..., tensore_1024_vs_best_openblas   the same at 1024^3
 *   BENCH openblas_sgemm_gflops, tensore_vs_openblas        against the environment's
 *                                            (or Haswell's) kernel: the earlier figures
 *   BENCH cpu_muladd_vs_fma=R ratio          this CPU's throughput of 512-bit (else
 *                                            256-bit) multiply-then-add pairs over FMAs:
 *                                            the ceiling of fp32 TensorE against sgemm,
 *                                            whose rule rounds product and sum apart
 *   BENCH tensore_amx_bf16_rule=B bool      whether AMX-BF16's TDPBF16PS gives TensorE's
 *                                            rule's bits here (1), not (0; TensorE does
 *                                            not use it), or there is no AMX (-1); a
 *                                            "# tensore kernels" line names the kernels a
 *                                            fresh context chooses for fp32 and bf16
 *   BENCH dma_gbps=X GB/s                    16 queues filling all of SBUF (24 MiB) from HBM
 *   BENCH memcpy_gbps=Y GB/s                 memcpy of the same 24 MiB, one thread
 *   BENCH dma_vs_memcpy=R ratio
 *
 * The matmul figures are medians of batches alternating with the baselines' children;
 * DMA and memcpy the best of a few runs. Host time is what is measured here; the
 * modeled clock is reported by the profiler, not by this bench.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vn_exec.h"
#include "vn_internal.h"
#include "vn_mm_fp.h"
#include "vn_os.h"
#include "../../tests/host/vnef_build.h"
#include "bench_blas.h"
#include "bench_median.h"

#define RUNS	5
#define MM_EXECS	10
#define DMA_EXECS	10

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static struct vn_program *load(struct vb *b)
{
	struct vn_prog_error err;
	struct vn_program *p;
	uint64_t size;
	uint8_t *img = vb_finish(b, &size);

	vb_free(b);
	if (vn_program_load(img, size, &p, &err)) {
		fprintf(stderr, "bench_core: program rejected: %s\n", err.msg);
		exit(1);
	}
	free(img);
	return p;
}

/* Run n executions back to back; seconds for all, or -1 on a failed execution. */
static double run(struct vn_core *c, struct vn_program *p, struct vn_bind *bi, uint32_t nb,
		  int n)
{
	struct vn_exec *ex[16];
	struct vn_exec_status st;
	double t = now();
	int i, bad = 0;

	for (i = 0; i < n; i++)
		if (vn_exec_submit(c, p, bi, nb, 0, NULL, NULL, &ex[i]))
			return -1;
	for (i = 0; i < n; i++) {
		vn_exec_wait(ex[i], 0);
		vn_exec_status(ex[i], &st);
		bad |= st.result != VN_RES_OK;
		vn_exec_put(ex[i]);
	}
	t = now() - t;
	return bad ? -1 : t;
}

/*
 * C = AT^T . B, n x n (512 or 1024), AT given transposed: K tiles of AT and B in SBUF
 * (queues kt and 8 + kt, semaphores kt and 8 + kt), then for each 128-row block mt and
 * 512-column block nt the K LoadStationary + MultiplyMoving into a PSUM bank (signal 16),
 * stored on queue 15 (signal 17). Eight banks: block i waits until block i - 8 is stored.
 */
static struct vn_program *matmul_program(uint32_t n)
{
	const uint32_t row = n * 4, tiles = n / 128, cols = n / 512;
	uint32_t kt, mt, nt, i = 0;
	struct vnef_instr *in;
	struct vnef_dma_desc *d;
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "at", VNEF_TENSOR_INPUT, VNEF_DT_FP32, n, n, NULL);
	vb_tensor(&b, "b", VNEF_TENSOR_INPUT, VNEF_DT_FP32, n, n, NULL);
	vb_tensor(&b, "c", VNEF_TENSOR_OUTPUT, VNEF_DT_FP32, n, n, NULL);
	for (kt = 0; kt < tiles; kt++) {
		d = vb_load(&b, kt, 0, (uint64_t)kt * 128 * row, row, 128, row, VNEF_MEM_SBUF, 0,
			    kt * row);
		d->signal_mask = 1ull << kt;
		d = vb_load(&b, 8 + kt, 1, (uint64_t)kt * 128 * row, row, 128, row,
			    VNEF_MEM_SBUF, 0, (tiles + kt) * row);
		d->signal_mask = 1ull << (8 + kt);
	}
	for (mt = 0; mt < tiles; mt++) {
		for (nt = 0; nt < cols; nt++, i++) {
			for (kt = 0; kt < tiles; kt++) {
				in = vb_op(&b, VNEURON_ENGINE_TENSOR, VNEF_OP_LOAD_STATIONARY);
				in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128,
						  kt * row + mt * 512, 128);
				if (!i)
					VB_WAIT(in, kt, 1);
				else if (!kt && i >= 8)
					VB_WAIT(in, 17, i - 7);	/* its bank stored */
				in = vb_op(&b, VNEURON_ENGINE_TENSOR, VNEF_OP_MULTIPLY_MOVING);
				in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128,
						  (tiles + kt) * row + nt * 2048, 512);
				in->dst = vb_ap2(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 128,
						 i % 8 * 2048, 512);
				if (kt)
					in->flags |= VNEF_IF_ACCUMULATE;
				if (!i)
					VB_WAIT(in, 8 + kt, 1);
				if (kt == tiles - 1)
					in->signal_mask = 1ull << 16;
			}
			d = vb_store(&b, 15, 2, (uint64_t)mt * 128 * row + nt * 2048, row, 128, 2048,
				     VNEF_MEM_PSUM, 0, i % 8 * 2048);
			VB_WAIT(d, 16, i + 1);
			d->signal_mask = 1ull << 17;
		}
	}
	return load(&b);
}

/* 16 queues, each 8 partitions x 192 KiB of SBUF from a 24 MiB HBM tensor. */
static struct vn_program *dma_program(void)
{
	struct vnef_dma_desc *d;
	struct vb b;
	uint32_t q;

	vb_init(&b);
	vb_tensor(&b, "src", VNEF_TENSOR_INPUT, VNEF_DT_FP32, 128, VNEF_SBUF_PART_BYTES / 4,
		  NULL);
	for (q = 0; q < VNEF_DMA_QUEUES; q++) {
		d = vb_load(&b, q, 0, (uint64_t)q * 8 * VNEF_SBUF_PART_BYTES, VNEF_SBUF_PART_BYTES,
			    8, VNEF_SBUF_PART_BYTES, VNEF_MEM_SBUF, q * 8, 0);
		(void)d;
	}
	return load(&b);
}

/* ---- the baselines' children: sgemm n^3 with A transposed, as the program ---- */

struct sg {
	int n;
	float *a, *b, *c;
};

static void *blas_setup(const char *name)
{
	static struct sg sg;
	int i;

	sg.n = !strcmp(name, "sgemm512") ? 512 : !strcmp(name, "sgemm1024") ? 1024 : 0;
	if (!sg.n)
		return NULL;
	sg.a = malloc(sizeof(float) * sg.n * sg.n);
	sg.b = malloc(sizeof(float) * sg.n * sg.n);
	sg.c = malloc(sizeof(float) * sg.n * sg.n);
	if (!sg.a || !sg.b || !sg.c)
		return NULL;
	for (i = 0; i < sg.n * sg.n; i++) {
		sg.a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
		sg.b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
	}
	return &sg;
}

static void blas_run(void *ctx)
{
	struct sg *g = ctx;

	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, g->n, g->n, g->n, 1.0f, g->a, g->n,
		    g->b, g->n, 0.0f, g->c, g->n);
}

/*
 * TensorE's n^3 matmul against sgemm in the best and the override children, RUNS
 * alternating batches: the medians' GFLOP/s into g[0..2].
 */
static void matmul_vs(struct vn_core *core, struct blas_child *kids, uint32_t n, double *g)
{
	const double flops = 2.0 * n * n * n;
	const int execs = n == 512 ? MM_EXECS : MM_EXECS / 4;
	float *a = malloc((size_t)n * n * 4), *bm = malloc((size_t)n * n * 4);
	float *c = malloc((size_t)n * n * 4);
	struct vn_bind mb[3] = { { a, (size_t)n * n * 4 }, { bm, (size_t)n * n * 4 },
				 { c, (size_t)n * n * 4 } };
	struct vn_program *mm = matmul_program(n);
	double t[3][RUNS];
	char name[16];
	uint32_t i;
	int r, k;

	for (i = 0; i < n * n; i++) {
		a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
		bm[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
	}
	snprintf(name, sizeof(name), "sgemm%u", n);
	for (k = 0; k < 2; k++)
		if (blas_child_select(&kids[k], name) || blas_child_batch(&kids[k], 1) < 0) {
			fprintf(stderr, "bench_core: a baseline child failed\n");
			exit(1);
		}
	run(core, mm, mb, 3, 1);		/* warm up */
	for (r = 0; r < RUNS; r++) {
		t[0][r] = run(core, mm, mb, 3, execs) / execs;
		if (t[0][r] < 0) {
			fprintf(stderr, "bench_core: matmul execution failed\n");
			exit(1);
		}
		for (k = 0; k < 2; k++)
			t[1 + k][r] = blas_child_batch(&kids[k], execs);
	}
	for (k = 0; k < 3; k++)
		g[k] = flops / median(t[k], RUNS) / 1e9;
	vn_program_put(mm);
	free(a);
	free(bm);
	free(c);
}

/*
 * Throughput of independent multiply-then-add pairs over FMAs, 512-bit where the CPU has
 * AVX-512, else 256-bit: the rate TensorE's fp32 rule allows against sgemm's.
 */
#define VEC_LOOP(NAME, TGT, W, BODY)						\
static __attribute__((target(TGT), noinline)) double NAME(void)		\
{									\
	float __attribute__((vector_size(W))) a[12], c[12], b;		\
	double t;							\
	long n;								\
	int i;								\
									\
	memset(&b, 0, sizeof(b));					\
	b += 1.0000001f;						\
	for (i = 0; i < 12; i++) {					\
		memset(&a[i], 0, sizeof(a[i]));				\
		a[i] += (float)i;					\
		c[i] = a[i] * 0.5f;					\
	}								\
	t = now();							\
	for (n = 0; n < 4000000; n++) {					\
		_Pragma("GCC unroll 12")				\
		for (i = 0; i < 12; i++) {				\
			BODY;						\
		}							\
	}								\
	t = now() - t;							\
	for (i = 1; i < 12; i++)					\
		a[0] += a[i] + c[i];					\
	__asm__ volatile("" : : "x"(a[0]));				\
	return t;							\
}

VEC_LOOP(fma512, "avx512f,fma", 64, __asm__("vfmadd231ps %2, %1, %0" : "+v"(a[i]) : "v"(b), "v"(c[i])))
VEC_LOOP(muladd512, "avx512f", 64, c[i] = c[i] * b; __asm__("" : "+v"(c[i])); a[i] = a[i] + c[i])
VEC_LOOP(fma256, "avx2,fma", 32, __asm__("vfmadd231ps %2, %1, %0" : "+v"(a[i]) : "v"(b), "v"(c[i])))
VEC_LOOP(muladd256, "avx2", 32, c[i] = c[i] * b; __asm__("" : "+v"(c[i])); a[i] = a[i] + c[i])

/* The kernels a fresh TensorE context chooses here (each engine's does so at first use). */
static void tensore_kernels(void)
{
	static const char *const amx[] = { "absent", "not the rule's bits, unused",
					   "the rule's bits (element k high)",
					   "the rule's bits (element k low)" };
	u8 *sb = calloc(VNEF_PARTITIONS, VNEF_SBUF_PART_BYTES);
	u8 *ps = calloc(VNEF_PARTITIONS, VNEF_PSUM_PART_BYTES);
	struct vn_fp_ctx x;
	u32 v, mism;

	if (!sb || !ps || vn_engine_ctx_init(&x, sb, ps)) {
		fprintf(stderr, "bench_core: no TensorE context\n");
		exit(1);
	}
	printf("# tensore kernels: any operands %s, exact products (bf16) %s\n",
	       vn_fp_mm_kernels(&x, false), vn_fp_mm_kernels(&x, true));
	vn_engine_ctx_free(&x);
	free(sb);
	free(ps);
	v = vn_mm_amx_check(&mism);
	printf("# amx-bf16 (TDPBF16PS): %s; %u of 768 check outputs off the rule\n", amx[v], mism);
	printf("BENCH tensore_amx_bf16_rule=%d bool\n", v == VN_AMX_ABSENT ? -1 :
	       v >= VN_AMX_HIGH_FIRST);
}

static double muladd_vs_fma(void)
{
	double f[RUNS], m[RUNS];
	u32 cpu = vn_cpu_vector();
	bool w512 = (cpu & VN_CPU_LEVEL) >= VN_CPU_AVX512;
	int r;

	if (!(cpu & VN_CPU_FMA))
		return 0;
	for (r = 0; r < RUNS; r++) {
		f[r] = w512 ? fma512() : fma256();
		m[r] = w512 ? muladd512() : muladd256();
	}
	return median(f, RUNS) / median(m, RUNS);
}

int main(int argc, char **argv)
{
	char *self[] = { "/proc/self/exe", BLAS_CHILD_ARG, NULL };
	const uint64_t sbuf = (uint64_t)VNEF_PARTITIONS * VNEF_SBUF_PART_BYTES;
	uint8_t *src = malloc(sbuf), *dst = malloc(sbuf);
	struct vn_bind db[1] = { { src, sbuf } };
	double best_dma = 1e9, best_mc = 1e9, t, g512[3], g1024[3];
	struct blas_child kids[2];
	const char *core, *over;
	struct vn_program *dm;
	struct vn_core *vc;
	char why[512];
	int i, r;

	if (argc > 1 && !strcmp(argv[1], BLAS_CHILD_ARG))
		return blas_child_main(0);
	if (argc > 1 && !strcmp(argv[1], BLAS_PROBE_ARG))
		return blas_child_main(1);
	memset(src, 0x5a, sbuf);
	memset(dst, 0, sbuf);
	if (vn_core_create(NULL, "bench", &vc)) {
		fprintf(stderr, "bench_core: no core\n");
		return 1;
	}
	blas_pick(&core, &over, why, sizeof(why));
	if (blas_child_start(&kids[0], self, core) || blas_child_start(&kids[1], self, over) ||
	    !kids[0].ok || !kids[1].ok) {
		fprintf(stderr, "bench_core: the OpenBLAS baselines failed or computed wrong\n");
		return 1;
	}
	printf("# openblas best: %s%s (%s); checked\n", kids[0].core,
	       core ? ", forced" : ", its own choice", why);
	printf("# openblas override: %s (OPENBLAS_CORETYPE=%s); checked\n", kids[1].core, over);
	matmul_vs(vc, kids, 512, g512);
	matmul_vs(vc, kids, 1024, g1024);
	blas_child_stop(&kids[0]);
	blas_child_stop(&kids[1]);

	dm = dma_program();
	run(vc, dm, db, 1, 2);
	for (r = 0; r < RUNS; r++) {
		t = run(vc, dm, db, 1, DMA_EXECS) / DMA_EXECS;
		if (t < 0) {
			fprintf(stderr, "bench_core: DMA execution failed\n");
			return 1;
		}
		best_dma = t < best_dma ? t : best_dma;
		t = now();
		for (i = 0; i < DMA_EXECS; i++) {
			memcpy(dst, src, sbuf);
			__asm__ volatile("" : : "r"(dst) : "memory");
		}
		t = (now() - t) / DMA_EXECS;
		best_mc = t < best_mc ? t : best_mc;
	}

	printf("BENCH tensore_matmul_gflops=%.2f GFLOP/s\n", g512[0]);
	printf("BENCH openblas_best_sgemm_gflops=%.2f GFLOP/s\n", g512[1]);
	printf("BENCH tensore_vs_best_openblas=%.3f ratio\n", g512[0] / g512[1]);
	printf("BENCH tensore_1024_matmul_gflops=%.2f GFLOP/s\n", g1024[0]);
	printf("BENCH openblas_best_sgemm_1024_gflops=%.2f GFLOP/s\n", g1024[1]);
	printf("BENCH tensore_1024_vs_best_openblas=%.3f ratio\n", g1024[0] / g1024[1]);
	printf("BENCH openblas_sgemm_gflops=%.2f GFLOP/s\n", g512[2]);
	printf("BENCH tensore_vs_openblas=%.3f ratio\n", g512[0] / g512[2]);
	printf("BENCH cpu_muladd_vs_fma=%.2f ratio\n", muladd_vs_fma());
	tensore_kernels();
	printf("BENCH dma_gbps=%.2f GB/s\n", sbuf / best_dma / 1e9);
	printf("BENCH memcpy_gbps=%.2f GB/s\n", sbuf / best_mc / 1e9);
	printf("BENCH dma_vs_memcpy=%.3f ratio\n", best_mc / best_dma);

	vn_program_put(dm);
	vn_core_destroy(vc);
	free(src);
	free(dst);
	return 0;
}
