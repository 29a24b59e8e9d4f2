// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron-profile-mpi: MPI's side of `vneuron-profile capture [--host]
 * --collectives-workers-per-node N` under mpirun (issue 14). vneuron-profile never links
 * MPI; under an MPI launcher it execs this program with its own arguments
 * ("capture ..."). Here each MPI process is one node: MPI is started at
 * MPI_THREAD_MULTIPLE (libvnmpi's proxy thread needs it), the process's place comes from
 * nd_mpi_place() (one process a node: VNEURON_NODE=process on one machine), its host
 * clock's offset to rank 0's from nd_mpi_clock_offset(), and the capture itself is
 * profiler/builtin-capture.c's, its workers' communicator from nd_mpi_comm_new() (--host)
 * or nd_mpi_comm_new_dev() (the module: the kernel's network queue served over MPI).
 *
 * Nothing may hang on a node that failed: every process reaches the same collectives.
 * The capture calls comm_new() once it has read and checked everything; a process whose
 * capture ended before (bad input, existing profile) takes part in the same vote with
 * "failed", so the others stop there with -ECANCELED instead of waiting for it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnmpi.h"
#include "../builtin.h"

#define ME "vneuron-profile-mpi"

struct mpi_ctx {
	int voted;			/* took part in the vote before the communicator */
	struct nd_mpi_comm *comm;
	int stuck;			/* the proxy did not end: MPI must not be called */
};

/* The vote: every process says whether it is ready; 1 if all are. */
static int all_ready(struct mpi_ctx *x, int ready)
{
	int all = 0;

	x->voted = 1;
	if (MPI_Allreduce(&ready, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS)
		return 0;
	return all;
}

static int comm_new(void *ctx, unsigned int nlocal, const uint32_t *dev,
		    struct nd_host_comm **hc, unsigned int *first)
{
	struct mpi_ctx *x = ctx;
	int ret;

	if (!all_ready(x, 1))
		return -ECANCELED;
	ret = nd_mpi_comm_new(MPI_COMM_WORLD, nlocal, dev, &x->comm);
	if (ret)
		return ret;
	*hc = nd_mpi_comm_host(x->comm);
	*first = nd_mpi_comm_first(x->comm);
	return 0;
}

static int comm_new_dev(void *ctx, struct nd_device *dev, unsigned int nlocal,
			const uint32_t *device, struct nd_comm_id *id, unsigned int *first)
{
	struct mpi_ctx *x = ctx;
	int ret;

	if (!all_ready(x, 1))
		return -ECANCELED;
	ret = nd_mpi_comm_new_dev(MPI_COMM_WORLD, dev, nlocal, device, id, &x->comm);
	if (ret)
		return ret;
	*first = nd_mpi_comm_first(x->comm);
	return 0;
}

/*
 * How many processes of this job on this machine come before this one (MPI ranks that
 * share memory with it): the module capture's nodes on one machine take devices in
 * that order. 0, or -EIO.
 */
static int local_index(uint32_t *local)
{
	MPI_Comm shm;
	int r;

	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
				&shm) != MPI_SUCCESS)
		return -EIO;
	if (MPI_Comm_rank(shm, &r) != MPI_SUCCESS)
		r = -1;
	MPI_Comm_free(&shm);
	if (r < 0)
		return -EIO;
	*local = (uint32_t)r;
	return 0;
}

static int comm_free(void *ctx)
{
	struct mpi_ctx *x = ctx;
	int ret = nd_mpi_comm_free(x->comm);

	x->comm = NULL;
	if (ret == -ETIMEDOUT)
		x->stuck = 1;
	return ret;
}

/*
 * Where this process stands: one node per process, numbered as MPI ranks (the global
 * ranks of the workers are node-major), and its clock's offset to rank 0's. Collective;
 * every process fails alike. 0, or an exit status (said).
 */
static int place(struct vnp_cap_nodes *n)
{
	struct nd_error err = { 0 };
	struct nd_place pl;
	int64_t off;
	uint64_t bound;
	int mine, all = 0;

	if (nd_mpi_place(MPI_COMM_WORLD, &pl, &err)) {
		fprintf(stderr, ME ": %s\n", err.msg);
		return VNP_EXIT_USAGE;
	}
	if (pl.nodes != pl.size) {
		if (!pl.rank)
			fprintf(stderr, ME ": %u processes on %u node%s: a capture needs one "
				"process per node (mpirun -H HOST,... or --map-by node; on one "
				"machine, processes standing in for nodes need "
				"VNEURON_NODE=process)\n", pl.size, pl.nodes,
				pl.nodes == 1 ? "" : "s");
		return VNP_EXIT_USAGE;
	}
	/* the nodes' numbers must be the ranks' for the workers' global ranks to be */
	mine = pl.node == pl.rank;
	if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) {
		fprintf(stderr, ME ": MPI_Allreduce failed\n");
		return VNP_EXIT_SYSTEM;
	}
	if (!all) {
		if (!mine)
			fprintf(stderr, ME ": MPI rank %u is node %u (VNEURON_NODE): a capture "
				"numbers nodes as ranks; leave VNEURON_NODE unset or give "
				"process\n", pl.rank, pl.node);
		return VNP_EXIT_USAGE;
	}
	if (local_index(&n->local)) {
		fprintf(stderr, ME ": MPI_Comm_split_type failed\n");
		return VNP_EXIT_SYSTEM;
	}
	if (nd_mpi_clock_offset(MPI_COMM_WORLD, 0, &off, &bound)) {
		fprintf(stderr, ME ": measuring the clock offset to rank 0 failed\n");
		return VNP_EXIT_SYSTEM;
	}
	n->node = pl.node;
	n->nr_nodes = pl.nodes;
	/* rank 0's clock reads local + off: this clock minus rank 0's is -off */
	n->clock_offset_ns = -off;
	n->clock_error_ns = bound;
	return 0;
}

int main(int argc, char **argv)
{
	struct mpi_ctx x = { 0 };
	struct vnp_cap_nodes n = { .ctx = &x, .comm_new = comm_new,
				   .comm_new_dev = comm_new_dev, .comm_free = comm_free };
	int level = 0, st;

	if (argc < 2 || strcmp(argv[1], "capture")) {
		fprintf(stderr, ME ": the MPI side of 'vneuron-profile capture [--host] "
			"--collectives-workers-per-node N' under mpirun, which runs it; see "
			"'vneuron-profile capture --help', SEVERAL MACHINES\n");
		return VNP_EXIT_USAGE;
	}
	if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level) != MPI_SUCCESS) {
		fprintf(stderr, ME ": MPI_Init_thread failed\n");
		return VNP_EXIT_SYSTEM;
	}
	if (level < MPI_THREAD_MULTIPLE) {
		fprintf(stderr, ME ": this MPI gives thread level %d, the capture needs "
			"MPI_THREAD_MULTIPLE (%d)\n", level, MPI_THREAD_MULTIPLE);
		MPI_Finalize();
		return VNP_EXIT_SYSTEM;
	}
	st = place(&n);
	if (!st) {
		st = cmd_capture_nodes(argc - 1, argv + 1, &n);
		if (!x.voted)
			all_ready(&x, 0);	/* failed before the vote: the others stop */
	}
	if (x.stuck) {
		/* a proxy stuck inside MPI: end the job without calling MPI again */
		fprintf(stderr, ME ": the MPI proxy did not end; aborting\n");
		MPI_Abort(MPI_COMM_WORLD, st ? st : VNP_EXIT_SYSTEM);
	}
	MPI_Finalize();
	return st;
}
