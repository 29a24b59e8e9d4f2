// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A 64 MiB fp32 all-reduce across MPI processes (libvnmpi: each process a node with one
 * rank), against Open MPI's own MPI_Allreduce of the same bytes, side by side in one run,
 * best of a few. tools/bench.sh runs it under `mpirun -np 2` and `-np 4`:
 *
 *   BENCH mpi_allreduce_64mib_Nr_ms=X ms          ours: every rank done (barrier to barrier)
 *   BENCH mpi_allreduce_64mib_Nr_mpi_ms=Y ms      MPI_Allreduce, MPI_SUM of MPI_FLOAT
 *   BENCH mpi_allreduce_64mib_Nr_vs_mpi=R ratio   our throughput over MPI's: Y / X
 *
 * Ours is a reduce-scatter and an all-gather (libvnmpi/rsag.c), as MPI_Allreduce's, moving
 * 2 (n - 1) / n of the bytes; each node reduces its slice over the ranks in rank order, for
 * results bit-identical to a C loop (checked), where MPI_Allreduce may add in any order.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnmpi.h"
#include "vn_comm.h"
#include "vneuron_program.h"
#include "bench_median.h"

#define RUNS	5

static float val(u32 rank, u64 i)
{
	return (float)(i % 1000) * 0.5f + (float)rank * 0.25f;
}

/* What went wrong on this rank, and why cm broke if it did (cm may be NULL), on stderr: 1. */
static int fail(int me, struct vn_comm *cm, const char *what, int val)
{
	struct vn_comm_state st;

	fprintf(stderr, "mpi_allreduce: rank %d: %s (%d)", me, what, val);
	if (cm)
		vn_comm_state(cm, &st);
	if (cm && st.broken)
		fprintf(stderr, ": broken by rank %u (%d), missing %#llx", st.failed_rank,
			st.failure, (unsigned long long)st.missing);
	fputc('\n', stderr);
	return 1;
}

int main(int argc, char **argv)
{
	const u64 bytes = 64ull << 20, count = bytes / 4;
	double ours[RUNS], mpi[RUNS], t;
	struct vn_cc_result res;
	struct nd_mpi_comm *c;
	struct vn_comm *cm;
	struct vn_cc_args a;
	int me, np, level, bad = 0, any, run, ret;
	float *in, *out, want;
	u64 i;
	u32 r;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	in = malloc(bytes);
	out = malloc(bytes);
	if (!in || !out || nd_mpi_comm_new(MPI_COMM_WORLD, 1, NULL, &c)) {
		fprintf(stderr, "mpi_allreduce: setup failed\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	cm = nd_host_comm_core(nd_mpi_comm_host(c));
	for (i = 0; i < count; i++)
		in[i] = val((u32)me, i);
	memset(out, 0, bytes);
	a = (struct vn_cc_args){ .op = VN_CC_ALL_REDUCE, .reduce = VN_CC_SUM,
				 .dtype = VNEF_DT_FP32, .count = count, .in = in, .out = out };
	for (run = 0; run < RUNS; run++) {
		/* The proxy is idle between collectives: these MPI calls are ours. */
		MPI_Barrier(MPI_COMM_WORLD);
		t = MPI_Wtime();
		ret = vn_comm_collective(cm, nd_mpi_comm_first(c), &a, 0, 0, NULL, &res);
		if (ret)
			bad = fail(me, cm, "run", ret);
		MPI_Barrier(MPI_COMM_WORLD);
		ours[run] = MPI_Wtime() - t;
		MPI_Barrier(MPI_COMM_WORLD);
		t = MPI_Wtime();
		MPI_Allreduce(in, out, (int)count, MPI_FLOAT, MPI_SUM,
			      MPI_COMM_WORLD);
		MPI_Barrier(MPI_COMM_WORLD);
		mpi[run] = MPI_Wtime() - t;
	}
	/* Ours once more, checked against the rank-order loop. */
	ret = vn_comm_collective(cm, nd_mpi_comm_first(c), &a, 0, 0, NULL, &res);
	if (ret)
		bad = fail(me, cm, "checked run", ret);
	for (i = 0; !bad && i < count; i++) {
		want = val(0, i);
		for (r = 1; r < (u32)np; r++)
			want += val(r, i);
		if (memcmp(&want, &out[i], 4))
			bad = fail(me, cm, "result not exact", (int)i);
	}
	ret = nd_mpi_comm_free(c);
	if (ret)
		bad = fail(me, NULL, "nd_mpi_comm_free", ret);
	MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
	if (!me && !any) {
		printf("BENCH mpi_allreduce_64mib_%dr_ms=%.1f ms\n", np, median(ours, RUNS) * 1e3);
		printf("BENCH mpi_allreduce_64mib_%dr_mpi_ms=%.1f ms\n", np, median(mpi, RUNS) * 1e3);
		printf("BENCH mpi_allreduce_64mib_%dr_vs_mpi=%.2f ratio\n", np,
		       median(mpi, RUNS) / median(ours, RUNS));
	}
	if (!me && any)
		fprintf(stderr, "mpi_allreduce: the all-reduce failed or was not exact\n");
	free(in);
	free(out);
	MPI_Finalize();
	return any ? 1 : 0;
}
