// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Emulated collectives on the host: a 64 MiB fp32 all-reduce over 4 ranks (each a
 * thread, as each rank is a CC-core worker in the module), against memcpy of the same
 * 64 MiB on this machine, side by side in one process: medians of alternating runs.
 *
 *   BENCH cc_allreduce_64mib_4r_ms=X ms      wall time of one all-reduce (every rank done)
 *   BENCH cc_memcpy_64mib_ms=Y ms            memcpy of one rank's 64 MiB
 *   BENCH cc_allreduce_vs_memcpy=R ratio     X / Y
 *   BENCH cc_allgather_16mib_4r_ms=Z ms      all-gather of 16 MiB per rank (64 MiB out)
 *   BENCH cc_4memcpy_2t_vs_memcpy=C ratio    four memcpys of 64 MiB on two threads (two
 *                                            each, at once) over one memcpy
 *
 * The all-reduce reads 4 x 64 MiB and writes 4 x 64 MiB (every rank's result), in rank
 * order (the exactness rule of core/vn_comm.h): about 4 memcpys of traffic, shared among
 * the ranks' threads (each reduces ranges of elements, core/comm.c). The last line is
 * what plain code moves of the same traffic on two threads here, measured in every run:
 * the ratio R is read against it (C < 4 when two threads move more than one).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vn_comm.h"
#include "vneuron_program.h"
#include "bench_median.h"

#define RANKS	4
#define RUNS	5

struct rank_arg {
	struct vn_comm *cm;
	u32 rank;
	struct vn_cc_args a;
	int ret;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct copy_arg {
	void *const *dst;
	void *const *src;
	u64 bytes;
};

/* Two memcpys: what one of two threads does in the traffic ceiling. */
static void *copy_main(void *p)
{
	struct copy_arg *c = p;

	memcpy(c->dst[0], c->src[0], c->bytes);
	memcpy(c->dst[1], c->src[1], c->bytes);
	return NULL;
}

/* Four memcpys of bytes, two on each of two threads at once: the wall time. */
static double four_copies(void **out, void **in, u64 bytes)
{
	struct copy_arg c[2] = { { out, in, bytes }, { out + 2, in + 2, bytes } };
	pthread_t t;
	double t0 = now_s();

	if (pthread_create(&t, NULL, copy_main, &c[1]))
		return -1;
	copy_main(&c[0]);
	pthread_join(t, NULL);
	return now_s() - t0;
}

static void *rank_main(void *p)
{
	struct rank_arg *r = p;
	struct vn_cc_result res;

	r->ret = vn_comm_collective(r->cm, r->rank, &r->a, 0, 0, NULL, &res);
	return NULL;
}

/* One collective on every rank; the wall time until all are done, or < 0. */
static double run(struct vn_comm *cm, u32 op, u64 count, void **in, void **out)
{
	pthread_t t[RANKS];
	struct rank_arg r[RANKS];
	double t0;
	u32 k;

	for (k = 0; k < RANKS; k++)
		r[k] = (struct rank_arg){ .cm = cm, .rank = k,
			.a = { .op = op, .reduce = VN_CC_SUM, .dtype = VNEF_DT_FP32,
			       .count = count, .in = in[k], .out = out[k] } };
	t0 = now_s();
	for (k = 0; k < RANKS; k++)
		pthread_create(&t[k], NULL, rank_main, &r[k]);
	for (k = 0; k < RANKS; k++)
		pthread_join(t[k], NULL);
	t0 = now_s() - t0;
	for (k = 0; k < RANKS; k++)
		if (r[k].ret)
			return -1;
	return t0;
}

int main(void)
{
	static const u32 dev[RANKS] = { 0, 0, 1, 1 };
	struct vn_comm_params p = { .nranks = RANKS, .device = dev,
				    .intra = vn_cc_intra_device, .inter = vn_cc_inter_device };
	const u64 bytes = 64ull << 20, count = bytes / 4;
	double ar[RUNS], cp[RUNS], ag[RUNS], ce[RUNS], t;
	void *in[RANKS], *out[RANKS];
	struct vn_comm *cm;
	u32 k, i, j;

	for (k = 0; k < RANKS; k++) {
		in[k] = malloc(bytes);
		out[k] = malloc(bytes);
		if (!in[k] || !out[k])
			return 1;
		for (i = 0; i < count; i++)
			((float *)in[k])[i] = (float)(i % 1000) * 0.5f + (float)k;
		memset(out[k], 0, bytes);	/* fault the pages in before timing */
	}
	for (i = 0; i < RUNS; i++) {
		/* a communicator per run: one that failed would stay broken */
		if (vn_comm_create(&p, &cm))
			return 1;
		ar[i] = run(cm, VN_CC_ALL_REDUCE, count, in, out);
		if (ar[i] < 0) {
			fprintf(stderr, "bench_cc: the all-reduce failed\n");
			return 1;
		}
		ag[i] = run(cm, VN_CC_ALL_GATHER, count / RANKS, in, out);
		if (ag[i] < 0) {
			fprintf(stderr, "bench_cc: the all-gather failed\n");
			return 1;
		}
		vn_comm_put(cm);
		t = now_s();
		memcpy(out[0], in[1], bytes);
		cp[i] = now_s() - t;
		ce[i] = four_copies(out, in, bytes);
		if (ce[i] < 0)
			return 1;
	}
	/* the last all-reduce's result, against the rank-order loop */
	if (vn_comm_create(&p, &cm) || run(cm, VN_CC_ALL_REDUCE, count, in, out) < 0)
		return 1;
	vn_comm_put(cm);
	for (k = 0; k < RANKS; k++)
		for (i = 0; i < count; i++) {
			float want = ((float *)in[0])[i];

			for (j = 1; j < RANKS; j++)
				want += ((float *)in[j])[i];
			if (memcmp(&want, (float *)out[k] + i, 4)) {
				fprintf(stderr, "bench_cc: the all-reduce is not exact\n");
				return 1;
			}
		}
	printf("BENCH cc_allreduce_64mib_4r_ms=%.1f ms\n", median(ar, RUNS) * 1e3);
	printf("BENCH cc_memcpy_64mib_ms=%.1f ms\n", median(cp, RUNS) * 1e3);
	printf("BENCH cc_allreduce_vs_memcpy=%.2f ratio\n", median(ar, RUNS) / median(cp, RUNS));
	printf("BENCH cc_allgather_16mib_4r_ms=%.1f ms\n", median(ag, RUNS) * 1e3);
	printf("BENCH cc_4memcpy_2t_vs_memcpy=%.2f ratio\n", median(ce, RUNS) / median(cp, RUNS));
	for (k = 0; k < RANKS; k++) {
		free(in[k]);
		free(out[k]);
	}
	return 0;
}
