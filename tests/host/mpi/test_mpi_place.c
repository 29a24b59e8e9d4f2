// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Where processes stand, from MPI (libvnmpi: nd_mpi_place(), nd_mpi_clock_offset()): run
 * by tests/host/mpi/place.sh under `mpirun -np P` on one machine. Every VNEURON_NODE
 * kind, its refusals on every process, and clock offsets within their error bound (on one
 * machine the clocks are one: the offset is 0 within the bound). Rank 0 prints TAP.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_tap.h"
#include "vnmpi.h"

/* nd_mpi_place() with VNEURON_NODE as given (NULL: unset) on this process. */
static int place(const char *node, struct nd_place *pl, struct nd_error *err)
{
	if (node)
		setenv("VNEURON_NODE", node, 1);
	else
		unsetenv("VNEURON_NODE");
	memset(err, 0, sizeof(*err));
	return nd_mpi_place(MPI_COMM_WORLD, pl, err);
}

static void places(void)
{
	struct nd_error err;
	struct nd_place pl;
	char num[16];
	int ret;

	ret = place(NULL, &pl, &err);
	report(!ret && pl.rank == (uint32_t)me && pl.size == (uint32_t)nproc && pl.node == 0 &&
	       pl.nodes == 1, "unset: rank and size from MPI, one machine one node");
	ret = place("shared", &pl, &err);
	report(!ret && pl.node == 0 && pl.nodes == 1, "\"shared\": the same");
	ret = place("process", &pl, &err);
	report(!ret && pl.node == (uint32_t)me && pl.nodes == (uint32_t)nproc,
	       "\"process\": every process its own node");
	/* given: even and odd ranks on nodes 0 and 1 */
	snprintf(num, sizeof(num), "%d", me % 2);
	ret = place(num, &pl, &err);
	report(!ret && pl.node == (uint32_t)(me % 2) && pl.nodes == 2 &&
	       pl.rank == (uint32_t)me, "a number: the node given");
	/* a gap: node 1 has no process */
	snprintf(num, sizeof(num), "%d", me ? 2 : 0);
	ret = place(num, &pl, &err);
	report(ret == -EINVAL && strstr(err.msg, "not 0..1"), "nodes given with a gap: -EINVAL");
	if (ret != -EINVAL)
		fprintf(stderr, "gap: %d %s\n", ret, err.msg);
	ret = place(me == nproc - 1 ? "abc" : "shared", &pl, &err);
	report(ret == -EINVAL &&
	       strstr(err.msg, me == nproc - 1 ? "VNEURON_NODE: the node 'abc' is not a decimal"
		      : "VNEURON_NODE of process"),
	       "a bad value on one process: -EINVAL on every one, that one naming it");
	if (ret != -EINVAL)
		fprintf(stderr, "bad: %d %s\n", ret, err.msg);
	ret = place(me ? "shared" : "process", &pl, &err);
	report(ret == -EINVAL, "kinds that differ between processes: -EINVAL on every one");
	unsetenv("VNEURON_NODE");
}

static void clocks(void)
{
	int64_t off = 1;
	uint64_t error = 1;
	int ret, ok;

	ret = nd_mpi_clock_offset(MPI_COMM_WORLD, 0, &off, &error);
	ok = !ret && (me ? (uint64_t)(off < 0 ? -off : off) <= error : off == 0 && error == 0);
	if (!ok)
		fprintf(stderr, "clock: process %d: %d, offset %lld, error %llu\n", me, ret,
			(long long)off, (unsigned long long)error);
	report(ok, "clock offset to process 0: |offset| <= error (one machine: one clock)");
	ret = nd_mpi_clock_offset(MPI_COMM_WORLD, nproc - 1, &off, &error);
	ok = !ret && (uint64_t)(off < 0 ? -off : off) <= error &&
	     (me != nproc - 1 || (off == 0 && error == 0));
	report(ok, "clock offset to the last process: the same");
	report(nd_mpi_clock_offset(MPI_COMM_WORLD, nproc, &off, &error) == -EINVAL &&
	       nd_mpi_clock_offset(MPI_COMM_WORLD, -1, &off, &error) == -EINVAL,
	       "clock offset: a root out of range is -EINVAL");
}

int main(int argc, char **argv)
{
	int level;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &nproc);
	if (!me)
		printf("TAP version 13\n");
	places();
	clocks();
	if (!me)
		printf("1..%d\n# Totals: pass:%d fail:%d\n", ntest, ntest - nfail, nfail);
	MPI_Finalize();
	return nfail ? 1 : 0;
}
