// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The device core's host throughput, side by side with the host's own:
 *
 *   BENCH tensore_matmul_gflops=X GFLOP/s   tiled fp32 512x512x512 matmul program
 *                                           (DMA in, 16 LoadStationary+MultiplyMoving,
 *                                           DMA out), executions back to back
 *   BENCH openblas_sgemm_gflops=Y GFLOP/s   cblas_sgemm 512^3, one thread
 *   BENCH tensore_vs_openblas=R ratio
 *   BENCH dma_gbps=X GB/s                   16 queues filling all of SBUF (24 MiB) from HBM
 *   BENCH memcpy_gbps=Y GB/s                memcpy of the same 24 MiB, one thread
 *   BENCH dma_vs_memcpy=R ratio
 *
 * Each figure is the best of a few timed runs in this one process. Host time is what
 * is measured here; the modeled clock is reported by the profiler, not by this bench.
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vn_exec.h"
#include "../../tests/host/vnef_build.h"

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

static struct vn_program *matmul_program(void)
{
	struct vnef_instr *in;
	struct vnef_dma_desc *d;
	uint32_t kt, mt;
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "at", VNEF_TENSOR_INPUT, VNEF_DT_FP32, 512, 512, NULL);
	vb_tensor(&b, "b", VNEF_TENSOR_INPUT, VNEF_DT_FP32, 512, 512, NULL);
	vb_tensor(&b, "c", VNEF_TENSOR_OUTPUT, VNEF_DT_FP32, 512, 512, NULL);
	for (kt = 0; kt < 4; kt++) {
		d = vb_load(&b, kt, 0, kt * 128 * 2048, 2048, 128, 2048, VNEF_MEM_SBUF, 0,
			    kt * 2048);
		d->signal_mask = 1ull << kt;
		d = vb_load(&b, 4 + kt, 1, kt * 128 * 2048, 2048, 128, 2048, VNEF_MEM_SBUF, 0,
			    8192 + kt * 2048);
		d->signal_mask = 1ull << (4 + kt);
	}
	for (mt = 0; mt < 4; mt++) {
		for (kt = 0; kt < 4; kt++) {
			in = vb_op(&b, VNEURON_ENGINE_TENSOR, VNEF_OP_LOAD_STATIONARY);
			in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128,
					  kt * 2048 + mt * 512, 128);
			if (!mt)
				VB_WAIT(in, kt, 1);
			in = vb_op(&b, VNEURON_ENGINE_TENSOR, VNEF_OP_MULTIPLY_MOVING);
			in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, 8192 + kt * 2048,
					  512);
			in->dst = vb_ap2(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 128, mt * 2048, 512);
			if (kt)
				in->flags |= VNEF_IF_ACCUMULATE;
			if (!mt)
				VB_WAIT(in, 4 + kt, 1);
			if (kt == 3)
				in->signal_mask = 1ull << 8;
		}
		d = vb_store(&b, 8 + mt, 2, mt * 128 * 2048, 2048, 128, 2048, VNEF_MEM_PSUM, 0,
			     mt * 2048);
		VB_WAIT(d, 8, mt + 1);
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

int main(void)
{
	const uint64_t sbuf = (uint64_t)VNEF_PARTITIONS * VNEF_SBUF_PART_BYTES;
	float *a = malloc(512 * 512 * 4), *bm = malloc(512 * 512 * 4), *c = malloc(512 * 512 * 4);
	uint8_t *src = malloc(sbuf), *dst = malloc(sbuf);
	struct vn_bind mb[3] = { { a, 1 << 20 }, { bm, 1 << 20 }, { c, 1 << 20 } };
	struct vn_bind db[1] = { { src, sbuf } };
	double best_te = 1e9, best_blas = 1e9, best_dma = 1e9, best_mc = 1e9, t;
	const double flops = 2.0 * 512 * 512 * 512;
	struct vn_program *mm, *dm;
	struct vn_core *core;
	int i, r;

	for (i = 0; i < 512 * 512; i++) {
		a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
		bm[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
	}
	memset(src, 0x5a, sbuf);
	memset(dst, 0, sbuf);
	if (vn_core_create(NULL, "bench", &core)) {
		fprintf(stderr, "bench_core: no core\n");
		return 1;
	}
	mm = matmul_program();
	dm = dma_program();

	openblas_set_num_threads(1);
	printf("# openblas core: %s\n", openblas_get_corename());
	run(core, mm, mb, 3, 2);		/* warm up */
	cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, 512, 512, 512, 1.0f, a, 512, bm,
		    512, 0.0f, c, 512);
	for (r = 0; r < RUNS; r++) {
		t = run(core, mm, mb, 3, MM_EXECS) / MM_EXECS;
		if (t < 0) {
			fprintf(stderr, "bench_core: matmul execution failed\n");
			return 1;
		}
		best_te = t < best_te ? t : best_te;
		t = now();
		for (i = 0; i < MM_EXECS; i++)
			cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, 512, 512, 512, 1.0f, a,
				    512, bm, 512, 0.0f, c, 512);
		t = (now() - t) / MM_EXECS;
		best_blas = t < best_blas ? t : best_blas;
	}

	run(core, dm, db, 1, 2);
	for (r = 0; r < RUNS; r++) {
		t = run(core, dm, db, 1, DMA_EXECS) / DMA_EXECS;
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

	printf("BENCH tensore_matmul_gflops=%.2f GFLOP/s\n", flops / best_te / 1e9);
	printf("BENCH openblas_sgemm_gflops=%.2f GFLOP/s\n", flops / best_blas / 1e9);
	printf("BENCH tensore_vs_openblas=%.3f ratio\n", best_blas / best_te);
	printf("BENCH dma_gbps=%.2f GB/s\n", sbuf / best_dma / 1e9);
	printf("BENCH memcpy_gbps=%.2f GB/s\n", sbuf / best_mc / 1e9);
	printf("BENCH dma_vs_memcpy=%.3f ratio\n", best_mc / best_dma);

	vn_program_put(mm);
	vn_program_put(dm);
	vn_core_destroy(core);
	free(a);
	free(bm);
	free(c);
	free(src);
	free(dst);
	return 0;
}
