// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Where this process stands, from MPI (vnmpi.h, nd_mpi_place()): its rank and the size
 * of the communicator, and its node by VNEURON_NODE: processes that share memory
 * (MPI_Comm_split_type()), every process its own node, or numbers given.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vnmpi.h"
#include "nd_error.h"

_Static_assert(ND_PLACE_MAX == 65536, "the size node_mode() parses against");

enum { MODE_BAD, MODE_SHARED, MODE_PROCESS, MODE_GIVEN };
/* What each process sends the others: its mode, its given node, its node's lowest rank. */
enum { P_MODE, P_NODE, P_LEADER, P_WORDS };

/* This process's VNEURON_NODE: a mode and, for MODE_GIVEN, its node. */
static int node_mode(int *node, struct nd_error *err)
{
	const char *s = getenv("VNEURON_NODE");
	struct nd_place pl;

	*node = 0;
	if (!s || !strcmp(s, "shared"))
		return MODE_SHARED;
	if (!strcmp(s, "process"))
		return MODE_PROCESS;
	/* a number: checked as a node of a job of at most ND_PLACE_MAX processes */
	if (nd_place_parse(NULL, "65536", s, NULL, &pl, err))
		return MODE_BAD;
	*node = (int)pl.node;
	return MODE_GIVEN;
}

static int by_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The distinct values of v[0..n) in order into v, their number returned. */
static int distinct(int *v, int n)
{
	int i, k = 0;

	qsort(v, (size_t)n, sizeof(*v), by_int);
	for (i = 0; i < n; i++)
		if (!k || v[i] != v[k - 1])
			v[k++] = v[i];
	return k;
}

int nd_mpi_place(MPI_Comm mc, struct nd_place *pl, struct nd_error *err)
{
	int me, size, mine[P_WORDS], *all = NULL, *ids = NULL, q, k, bad = -1, ret = -EIO;
	struct nd_error perr = { 0 };
	MPI_Comm sh;

	if (!pl)
		return nd_seterr(err, EINVAL, "no place to fill in");
	if (MPI_Comm_rank(mc, &me) != MPI_SUCCESS || MPI_Comm_size(mc, &size) != MPI_SUCCESS)
		return nd_seterr(err, EIO, "MPI_Comm_rank or MPI_Comm_size failed");
	/* Every process takes every step, whatever its VNEURON_NODE: none is left waiting. */
	mine[P_MODE] = node_mode(&mine[P_NODE], &perr);
	if (MPI_Comm_split_type(mc, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &sh) != MPI_SUCCESS)
		return nd_seterr(err, EIO, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed");
	q = MPI_Allreduce(&me, &mine[P_LEADER], 1, MPI_INT, MPI_MIN, sh);
	MPI_Comm_free(&sh);
	if (q != MPI_SUCCESS)
		return nd_seterr(err, EIO, "MPI_Allreduce over the shared-memory node failed");
	all = malloc((size_t)size * P_WORDS * sizeof(*all));
	ids = malloc((size_t)size * sizeof(*ids));
	/* Every process has room for the gather, or every one stops here. */
	q = all && ids;
	if (MPI_Allreduce(MPI_IN_PLACE, &q, 1, MPI_INT, MPI_LAND, mc) != MPI_SUCCESS) {
		nd_seterr(err, EIO, "MPI_Allreduce failed");
		goto out;
	}
	if (!q) {
		ret = nd_seterr(err, ENOMEM, "out of memory (here or on another process) for "
				"%d processes", size);
		goto out;
	}
	if (MPI_Allgather(mine, P_WORDS, MPI_INT, all, P_WORDS, MPI_INT, mc) != MPI_SUCCESS) {
		nd_seterr(err, EIO, "MPI_Allgather of the nodes failed");
		goto out;
	}
	for (q = 0; q < size && bad < 0; q++)
		if (all[q * P_WORDS + P_MODE] == MODE_BAD ||
		    all[q * P_WORDS + P_MODE] != all[P_MODE])
			bad = q;
	if (bad >= 0) {
		if (bad == me && perr.code)
			ret = nd_seterr(err, EINVAL, "VNEURON_NODE: %s", perr.msg);
		else
			ret = nd_seterr(err, EINVAL, "VNEURON_NODE of process %d is bad or unlike "
					"process 0's (\"shared\", \"process\" or a number on every "
					"process)", bad);
		goto out;
	}
	pl->rank = (uint32_t)me;
	pl->size = (uint32_t)size;
	switch (all[P_MODE]) {
	case MODE_PROCESS:
		pl->node = (uint32_t)me;
		pl->nodes = (uint32_t)size;
		break;
	case MODE_SHARED:
	case MODE_GIVEN:
		/* nodes numbered in the order of their lowest rank, or as given */
		k = all[P_MODE] == MODE_SHARED ? P_LEADER : P_NODE;
		for (q = 0; q < size; q++)
			ids[q] = all[q * P_WORDS + k];
		pl->nodes = (uint32_t)distinct(ids, size);
		for (q = 0; ids[q] != mine[k]; q++)
			;
		pl->node = (uint32_t)q;
		if (k == P_NODE && ids[pl->nodes - 1] != (int)pl->nodes - 1) {
			ret = nd_seterr(err, EINVAL, "VNEURON_NODE: the nodes given are not 0..%u "
					"(every node needs a process)", pl->nodes - 1);
			goto out;
		}
		break;
	}
	ret = 0;
out:
	free(all);
	free(ids);
	return ret;
}
