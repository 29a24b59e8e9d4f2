// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Collectives across MPI processes on the module (libvnmpi's nd_mpi_comm_new_dev(), the
 * device's network queue): run in the guest by tests/guest/netq_test.c under
 * `mpirun -np 2`, each process a node on its own /dev/vneuronN (N = its MPI rank modulo
 * the devices) with up to 2 ranks on its cores. Every collective's results against the
 * C reference over the ranks in rank order (cc_ref.h), bit for bit, and its modeled time
 * the same on every rank of every node and on a rerun. Rank 0 prints TAP. Without a
 * device (the host) it prints a skip and succeeds.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_tap.h"
#include "neurondev.h"
#include "vnmpi.h"
#include "vnprog.h"
#include "../cc_ref.h"
#include "../../cc_program.h"
#include "vneuron_program.h"

#define MAX_LOCAL	2

struct op {
	uint32_t opcode;	/* enum vnef_cc_opcode */
	uint32_t op;		/* enum vn_cc_op, for the reference */
	enum nd_alu reduce;
	uint64_t count;
	uint32_t shift;
	const char *name;
};

struct local {
	struct nd_device *dev;
	struct nd_program *prog;
	unsigned int core, rank;
	struct nd_mem *in, *out;
	uint64_t nin, nout;
	struct nd_run_result res;
	int ret;
};

static int all_chunks(uint32_t op)
{
	return op == VN_CC_REDUCE_SCATTER || op == VN_CC_ALL_TO_ALL;
}

static int build(const struct op *o, uint32_t n, void **img, size_t *size)
{
	uint64_t ni = all_chunks(o->op) ? n * o->count : o->count;
	uint64_t no = o->op == VN_CC_ALL_GATHER || o->op == VN_CC_ALL_TO_ALL ?
		      n * o->count : o->count;
	struct nd_cc cc = { .opcode = o->opcode, .count = o->count, .reduce = o->reduce,
			    .shift = o->shift };

	return cc_program(&cc, ni, no, img, size);
}

static void *rank_main(void *p)
{
	struct local *l = p;
	struct nd_bind binds[2] = { { "in", l->in }, { "out", l->out } };

	l->ret = nd_run(l->prog, l->core, binds, 2, 60000000000ull, &l->res);
	return NULL;
}

/*
 * One collective on the nl local ranks, n in all: 1 if every output is exact; the
 * modeled time (the same on every local rank, else 0) in *model.
 */
static int run_op(struct local *L, unsigned int nl, uint32_t n, const struct op *o,
		  uint64_t *model)
{
	pthread_t t[MAX_LOCAL];
	size_t size;
	void *img;
	float *x, *want;
	unsigned int i;
	uint64_t e;
	int ok = 1;

	*model = 0;
	if (build(o, n, &img, &size))
		return 0;
	for (i = 0; i < nl; i++) {
		struct local *l = &L[i];

		l->nin = all_chunks(o->op) ? n * o->count : o->count;
		l->nout = o->op == VN_CC_ALL_GATHER || o->op == VN_CC_ALL_TO_ALL ?
			  n * o->count : o->count;
		x = malloc(l->nin * sizeof(float));
		if (!x || nd_program_load(l->dev, img, size, &l->prog, NULL) ||
		    nd_mem_alloc(l->dev, l->nin * 4, &l->in) ||
		    nd_mem_alloc(l->dev, l->nout * 4, &l->out)) {
			free(x);
			free(img);
			return 0;
		}
		for (e = 0; e < l->nin; e++)
			x[e] = cc_val(l->rank, e);
		nd_mem_write(l->in, 0, x, l->nin * 4);
		free(x);
	}
	free(img);
	for (i = 0; i < nl; i++)
		pthread_create(&t[i], NULL, rank_main, &L[i]);
	for (i = 0; i < nl; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < nl; i++) {
		struct local *l = &L[i];
		struct cc_ref_in in = { 0 };

		x = malloc(l->nout * 4);
		want = malloc(l->nout * 4);
		if (l->ret || l->res.result || !x || !want ||
		    nd_mem_read(l->out, 0, x, l->nout * 4)) {
			if (!me || l->ret)
				printf("# %s rank %u: ret %d result %u reason %u\n", o->name,
				       l->rank, l->ret, l->res.result, l->res.reason);
			ok = 0;
		} else {
			cc_ref_out(want, l->nout, &in, o->op,
				   o->reduce == ND_MAX ? VN_CC_MAX : VN_CC_SUM, n, l->rank,
				   o->shift, o->count);
			if (memcmp(want, x, l->nout * 4)) {
				printf("# %s rank %u: output differs from the reference\n",
				       o->name, l->rank);
				ok = 0;
			}
		}
		if (!i)
			*model = l->res.model_ps;
		else if (*model != l->res.model_ps)
			*model = 0;
		free(x);
		free(want);
		nd_mem_free(l->in);
		nd_mem_free(l->out);
		nd_program_unload(l->prog);
	}
	return ok;
}

int main(int argc, char **argv)
{
	static const struct op ops[] = {
		{ VNEF_CC_ALL_REDUCE, VN_CC_ALL_REDUCE, ND_ADD, 10000, 0, "all-reduce sum" },
		{ VNEF_CC_ALL_REDUCE, VN_CC_ALL_REDUCE, ND_MAX, 1000, 0, "all-reduce max" },
		{ VNEF_CC_ALL_GATHER, VN_CC_ALL_GATHER, ND_ADD, 1000, 0, "all-gather" },
		{ VNEF_CC_REDUCE_SCATTER, VN_CC_REDUCE_SCATTER, ND_ADD, 1000, 0, "reduce-scatter" },
		{ VNEF_CC_ALL_TO_ALL, VN_CC_ALL_TO_ALL, ND_ADD, 500, 0, "all-to-all" },
		{ VNEF_CC_PERMUTE, VN_CC_PERMUTE, ND_ADD, 1000, 1, "permute by 1" },
	};
	struct local L[MAX_LOCAL];
	struct nd_mpi_comm *c = NULL;
	struct nd_comm *rk[MAX_LOCAL] = { 0 };
	struct nd_device *dev = NULL;
	uint32_t devidx[MAX_LOCAL];
	unsigned int nl, i, k, n, have, all_have;
	uint64_t m[2], lo, hi;
	nd_comm_id id;
	char name[96];
	int level, ret, ok;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &nproc);
	have = access("/dev/vneuron0", F_OK) == 0;
	MPI_Allreduce(&have, &all_have, 1, MPI_UNSIGNED, MPI_MIN, MPI_COMM_WORLD);
	if (!all_have) {
		if (!me)
			printf("1..0 # SKIP no /dev/vneuron0 (the module's network queue runs in the guest)\n");
		MPI_Finalize();
		return 0;
	}
	/* Node p on /dev/vneuron(p mod devices): its own device when there are enough. */
	ret = nd_open(0, &dev, NULL);
	if (!ret) {
		struct vneuron_info inf;
		unsigned int idx;

		nd_info(dev, &inf);
		idx = (unsigned int)me % (inf.device_count ? inf.device_count : 1);

		nl = inf.core_count < MAX_LOCAL ? inf.core_count : MAX_LOCAL;
		if (idx) {
			nd_close(dev);
			dev = NULL;
			ret = nd_open(idx, &dev, NULL);
		}
	} else {
		nl = 0;
	}
	MPI_Allreduce(MPI_IN_PLACE, &nl, 1, MPI_UNSIGNED, MPI_MIN, MPI_COMM_WORLD);
	ok = !ret && nl;
	report(ok, "every node opens its device");
	if (!ok)
		goto out;
	n = nl * (unsigned int)nproc;
	for (i = 0; i < nl; i++)
		devidx[i] = 0;
	ret = nd_mpi_comm_new_dev(MPI_COMM_WORLD, dev, nl, devidx, &id, &c);
	if (ret && !me)
		printf("# nd_mpi_comm_new_dev: %s\n", strerror(-ret));
	report(!ret, "nd_mpi_comm_new_dev on every node");
	if (ret)
		goto out;
	ok = 1;
	for (i = 0; i < nl; i++) {
		L[i] = (struct local){ .dev = dev, .core = i, .rank = nd_mpi_comm_first(c) + i };
		if (nd_comm_join(dev, &id, L[i].rank, i, &rk[i]))
			ok = 0;
	}
	report(ok, "every local rank joins");
	if (!ok)
		goto out;
	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
		ok = run_op(L, nl, n, &ops[k], &m[0]);
		ok &= run_op(L, nl, n, &ops[k], &m[1]);
		snprintf(name, sizeof(name), "%s across %d nodes of %u ranks: exact", ops[k].name,
			 nproc, nl);
		report(ok, name);
		MPI_Allreduce(&m[0], &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
		MPI_Allreduce(&m[0], &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
		if (!me)
			printf("# %s: modeled %llu ps\n", ops[k].name, (unsigned long long)lo);
		snprintf(name, sizeof(name), "%s: the same modeled time on every rank and rerun",
			 ops[k].name);
		report(m[0] && m[0] == m[1] && lo == hi, name);
	}
out:
	/* The proxy first: a rank that leaves breaks the communicator, which it would report. */
	ret = nd_mpi_comm_free(c);
	report(!ret, "the proxy ends cleanly");
	for (i = 0; i < MAX_LOCAL; i++)
		nd_comm_destroy(rk[i]);
	nd_close(dev);
	if (!me)
		printf("1..%d\n# Totals: pass:%d fail:%d\n", ntest, ntest - nfail, nfail);
	MPI_Finalize();
	return nfail ? 1 : 0;
}
