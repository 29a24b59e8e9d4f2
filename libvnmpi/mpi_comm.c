// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host communicators across MPI processes (vnmpi.h): the proxy of the remote ranks.
 *
 * Per collective, every process sends the others, in one MPI_Allgather of u64, a header
 * (whether its local ranks agree, op, reduce, dtype, group size and stride, shift, count)
 * and its local ranks' arrival times, then in one MPI_Allgather of bytes its local
 * ranks' inputs, into a staging buffer of every rank's input in rank order. Host cost of
 * the transport: each process receives (n - nlocal) inputs and the core reduces all n on
 * one thread, against MPI_Allreduce's reduce-scatter + all-gather; the price of the
 * rank-order rule (tools/bench/mpi_allreduce.c measures it).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vnmpi.h"
#include "vn_comm.h"
#include "vneuron_program.h"

/* Header words before the arrivals. */
enum { H_OK, H_OP, H_REDUCE, H_DTYPE, H_GSIZE, H_GSTRIDE, H_SHIFT, H_COUNT, H_WORDS };

struct nd_mpi_comm {
	MPI_Comm mc;			/* a duplicate of the caller's, errors returned */
	int nproc, me;
	unsigned int nlocal, first, n;
	struct nd_host_comm *hc;
	struct vn_comm *cm;
	pthread_t proxy;
	int stop;			/* atomic: the proxy ends between collectives */
	int err;			/* the proxy's error, read after it ended */
	uint64_t collectives;		/* atomic */
	uint64_t *hdr;			/* nproc x (H_WORDS + nlocal) */
	unsigned char *stage;		/* n inputs in rank order */
	size_t stage_cap;
	struct vn_cc_args ra[VN_COMM_MAX_RANKS];
};

static size_t hwords(const struct nd_mpi_comm *c)
{
	return H_WORDS + c->nlocal;
}

/* Every local rank brings the same collective of the whole communicator. */
static int locals_agree(const struct nd_mpi_comm *c, const struct vn_cc_pending *p)
{
	const struct vn_cc_args *a0 = p->args[c->first], *a;
	unsigned int i;

	if (a0->group_size)
		return 0;
	for (i = 1; i < c->nlocal; i++) {
		a = p->args[c->first + i];
		if (a->op != a0->op || a->reduce != a0->reduce || a->dtype != a0->dtype ||
		    a->count != a0->count || a->group_size != a0->group_size ||
		    a->group_stride != a0->group_stride || a->shift != a0->shift)
			return 0;
	}
	return 1;
}

/* One collective: exchange, stage, post. 0 or -errno; the communicator broken on error. */
static int proxy_one(struct nd_mpi_comm *c, const struct vn_cc_pending *p)
{
	const struct vn_cc_args *a0 = p->args[c->first];
	size_t hw = hwords(c), inb, total;
	uint64_t *mine = c->hdr + (size_t)c->me * hw, *h0 = c->hdr, *h;
	struct vn_cc_result res;
	MPI_Datatype rank_in;
	unsigned int i, r;
	int q, ret = 0;

	mine[H_OK] = locals_agree(c, p);
	mine[H_OP] = a0->op;
	mine[H_REDUCE] = a0->reduce;
	mine[H_DTYPE] = a0->dtype;
	mine[H_GSIZE] = a0->group_size;
	mine[H_GSTRIDE] = a0->group_stride;
	mine[H_SHIFT] = a0->shift;
	mine[H_COUNT] = a0->count;
	for (i = 0; i < c->nlocal; i++)
		mine[H_WORDS + i] = p->arrive_ps[c->first + i];
	if (MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->hdr, (int)hw, MPI_UINT64_T,
			  c->mc) != MPI_SUCCESS)
		return -EIO;
	/* Every process sees the same headers, so every one decides the same. */
	for (q = 0; q < c->nproc; q++) {
		h = c->hdr + (size_t)q * hw;
		if (!h[H_OK] || memcmp(h + H_OP, h0 + H_OP, (H_WORDS - H_OP) * sizeof(*h)))
			return -EINVAL;
	}
	inb = vn_cc_in_bytes((u32)h0[H_OP], c->n, (u32)h0[H_DTYPE], h0[H_COUNT]);
	if (!inb || inb > INT_MAX || inb > SIZE_MAX / c->n)
		return -EINVAL;
	total = inb * c->n;
	if (total > c->stage_cap) {
		free(c->stage);
		c->stage = malloc(total);
		c->stage_cap = c->stage ? total : 0;
		if (!c->stage)
			return -ENOMEM;
	}
	for (i = 0; i < c->nlocal; i++)
		memcpy(c->stage + (size_t)(c->first + i) * inb, p->args[c->first + i]->in, inb);
	if (MPI_Type_contiguous((int)inb, MPI_BYTE, &rank_in) != MPI_SUCCESS)
		return -EIO;
	if (MPI_Type_commit(&rank_in) != MPI_SUCCESS ||
	    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->stage, (int)c->nlocal, rank_in,
			  c->mc) != MPI_SUCCESS)
		ret = -EIO;
	MPI_Type_free(&rank_in);
	if (ret)
		return ret;
	for (r = 0; r < c->n; r++) {
		if (r >= c->first && r < c->first + c->nlocal)
			continue;
		h = c->hdr + (size_t)(r / c->nlocal) * hw;
		c->ra[r] = (struct vn_cc_args){
			.op = (u32)h[H_OP], .reduce = (u32)h[H_REDUCE], .dtype = (u32)h[H_DTYPE],
			.group_size = (u32)h[H_GSIZE], .group_stride = (u32)h[H_GSTRIDE],
			.shift = (u32)h[H_SHIFT], .count = h[H_COUNT],
			.in = c->stage + (size_t)r * inb, .out = NULL,
		};
		/* The last post completes the collective: the locals are all waiting. */
		ret = vn_comm_arrive(c->cm, r, &c->ra[r], h[H_WORDS + r % c->nlocal], &res);
		if (ret)
			return ret;
	}
	__atomic_add_fetch(&c->collectives, 1, __ATOMIC_RELAXED);
	return 0;
}

static void *proxy_main(void *arg)
{
	struct nd_mpi_comm *c = arg;
	struct vn_cc_pending p;
	int ret;

	for (;;) {
		ret = vn_comm_proxy_wait(c->cm, 0, &c->stop, &p);
		if (ret == -EINTR) {
			ret = 0;
			break;
		}
		if (!ret)
			ret = proxy_one(c, &p);
		if (ret)
			break;
	}
	if (ret) {
		/* The local ranks' waits end (-EPIPE); the first remote rank is named. */
		vn_comm_break(c->cm, c->first ? 0 : c->nlocal, ret);
		c->err = ret;
	}
	return NULL;
}

int nd_mpi_comm_new(MPI_Comm mc, unsigned int nlocal, const uint32_t *device,
		    struct nd_mpi_comm **cp)
{
	uint32_t *dev_all = NULL;
	struct nd_mpi_comm *c;
	unsigned int r, mine = nlocal, lo, hi;
	int level, ret = -EIO;

	*cp = NULL;
	if (MPI_Query_thread(&level) != MPI_SUCCESS)
		return -EIO;
	if (level < MPI_THREAD_SERIALIZED)
		return -EPROTONOSUPPORT;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (MPI_Comm_dup(mc, &c->mc) != MPI_SUCCESS) {
		free(c);
		return -EIO;
	}
	MPI_Comm_set_errhandler(c->mc, MPI_ERRORS_RETURN);
	if (MPI_Comm_size(c->mc, &c->nproc) != MPI_SUCCESS ||
	    MPI_Comm_rank(c->mc, &c->me) != MPI_SUCCESS)
		goto fail;
	/* Every process must bring the same nlocal: agree on it first, all together. */
	if (MPI_Allreduce(&mine, &lo, 1, MPI_UNSIGNED, MPI_MIN, c->mc) != MPI_SUCCESS ||
	    MPI_Allreduce(&mine, &hi, 1, MPI_UNSIGNED, MPI_MAX, c->mc) != MPI_SUCCESS)
		goto fail;
	ret = -EINVAL;
	if (lo != hi || !nlocal || (uint64_t)nlocal * c->nproc > VN_COMM_MAX_RANKS)
		goto fail;
	c->nlocal = nlocal;
	c->n = nlocal * c->nproc;
	c->first = nlocal * c->me;
	ret = -ENOMEM;
	c->hdr = calloc((size_t)c->nproc, hwords(c) * sizeof(*c->hdr));
	dev_all = calloc(c->n, sizeof(*dev_all));
	if (!c->hdr || !dev_all)
		goto fail;
	/* Every process holds every rank's device, so the cost is the same everywhere. */
	for (r = 0; r < nlocal; r++)
		dev_all[c->first + r] = device ? device[r] : 0;
	ret = -EIO;
	if (MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dev_all, (int)nlocal,
			  MPI_UINT32_T, c->mc) != MPI_SUCCESS)
		goto fail;
	ret = nd_host_comm_new(c->n, dev_all, &c->hc);
	if (ret)
		goto fail;
	c->cm = nd_host_comm_core(c->hc);
	for (r = 0; r < c->n; r++) {
		vn_comm_set_node(c->cm, r, r / nlocal);
		if (r / nlocal != (unsigned int)c->me)
			vn_comm_set_remote(c->cm, r);
	}
	free(dev_all);
	dev_all = NULL;
	if (c->nproc > 1) {
		ret = -pthread_create(&c->proxy, NULL, proxy_main, c);
		if (ret)
			goto fail;
	}
	*cp = c;
	return 0;
fail:
	free(dev_all);
	nd_host_comm_free(c->hc);
	free(c->hdr);
	MPI_Comm_free(&c->mc);
	free(c);
	return ret;
}

struct nd_host_comm *nd_mpi_comm_host(struct nd_mpi_comm *c)
{
	return c->hc;
}

unsigned int nd_mpi_comm_first(const struct nd_mpi_comm *c)
{
	return c->first;
}

unsigned int nd_mpi_comm_node(const struct nd_mpi_comm *c)
{
	return (unsigned int)c->me;
}

unsigned int nd_mpi_comm_nodes(const struct nd_mpi_comm *c)
{
	return (unsigned int)c->nproc;
}

uint64_t nd_mpi_comm_collectives(const struct nd_mpi_comm *c)
{
	return __atomic_load_n(&c->collectives, __ATOMIC_RELAXED);
}

int nd_mpi_comm_free(struct nd_mpi_comm *c)
{
	int err;

	if (!c)
		return 0;
	if (c->nproc > 1) {
		__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
		pthread_join(c->proxy, NULL);
	}
	err = c->err;
	nd_host_comm_free(c->hc);
	free(c->hdr);
	free(c->stage);
	MPI_Comm_free(&c->mc);
	free(c);
	return err;
}
