/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * TAP for the MPI test programs (tests/host/mpi/test_*.c): every process makes each
 * check, rank 0 prints one line for all of them.
 */
#ifndef MPI_TAP_H
#define MPI_TAP_H

#include <stdio.h>
#include <mpi.h>

static int me, nproc, ntest, nfail;

/* One TAP line on rank 0 for a check every process made. */
static void report(int ok, const char *name)
{
	int all;

	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	ntest++;
	if (!all)
		nfail++;
	if (!me)
		printf("%s %d %s\n", all ? "ok" : "not ok", ntest, name);
}

#endif /* MPI_TAP_H */
