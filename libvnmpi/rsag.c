// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The all-reduce of a host communicator across nodes as a reduce-scatter, then an
 * all-gather (vnmpi.h), as MPI_Allreduce moves it: 2 (n - 1) / n of the bytes a node
 * holds, not every node's inputs to every node, with the exact result.
 *
 * Node q owns slice q of the elements. Once every node's header came and agrees, this
 * node holds its local ranks at the collective (vn_comm_proxy_deliver(): they cannot
 * leave while their buffers are read and written), sends each peer its local ranks'
 * values of the peer's slice straight from their inputs, and receives every peer's
 * values of its own slice into the stage. It then reduces its slice over all n ranks in
 * rank order (vn_cc_reduce(), the rule of core/vn_comm.h: the same bits as one machine),
 * into its local ranks' outputs, and sends that slice to every peer, receiving theirs
 * into the first local rank's output (and copying them to the others'). An output that
 * is its rank's input is received into only after the slice it held went out. Then the
 * remote ranks are posted; the collective completes without the core moving anything,
 * at the modeled time of one machine.
 *
 * Failures are the proxy's (mpi_comm.c): a break message, an MPI error or a stop ends it
 * as any collective; the local ranks' earliest time limit, which cannot fire while they
 * are held, is kept by the proxy, naming the nodes whose slices had not come.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "mpi_int.h"
#include "vn_os.h"
#include "vneuron_program.h"

/* Elements [lo, hi) of slice q of count over nproc nodes. */
static void slice(const struct nd_mpi_comm *c, u64 count, int q, u64 *lo, u64 *hi)
{
	u64 n = (u64)c->nproc, i = (u64)q;

	*lo = count / n * i + (i < count % n ? i : count % n);
	*hi = *lo + count / n + (i < count % n);
}

static u64 count_of(const struct nd_mpi_comm *c)
{
	return c->hdr[(size_t)c->me * hwords(c) + H_COUNT];
}

static MPI_Request *req(struct nd_mpi_comm *c, int q, int kind)
{
	return &c->req[(size_t)q * R_PER_PEER + kind];
}

int vnmpi_rsag_wanted(const struct nd_mpi_comm *c, const uint64_t *mine, size_t inb)
{
	return !c->dev && mine[H_OK] && mine[H_OP] == VN_CC_ALL_REDUCE && !mine[H_GSIZE] &&
	       mine[H_COUNT] >= (u64)c->nproc && inb && c->nproc > 1;
}

/*
 * Peer q's header came and agrees: its ranks arrive, so that a local time limit names
 * only the nodes that never came, but for one rank of the last peer, which arrives when
 * the outputs are written (vnmpi_rsag_finish()), completing the collective.
 */
int vnmpi_rsag_header(struct nd_mpi_comm *c, int q, size_t inb)
{
	if (++c->rs.agree < (unsigned int)c->nproc - 1)
		return vnmpi_post(c, q, inb, 0, c->nlocal);
	c->rs.last = q;
	return vnmpi_post(c, q, inb, 0, c->nlocal - 1);
}

/*
 * Every header agrees: the local ranks held, each peer's slices sent and this node's
 * received. 0 or -errno (the communicator broken).
 */
static int begin(struct nd_mpi_comm *c, const struct vn_cc_pending *p, size_t inb)
{
	u64 count = count_of(c), lo, hi, mlo, mhi;
	MPI_Aint disp[VN_COMM_MAX_RANKS];
	int len[VN_COMM_MAX_RANKS], q, ret;
	unsigned int i;

	ret = vn_comm_proxy_deliver(c->cm, &c->rs.deadline_ns);
	if (ret == -EINVAL) {
		/* local arguments the core refuses: as its own check would, everyone breaks */
		vnmpi_lc_break(c, c->first, -EINVAL, 0);
		vnmpi_broke_here(c);
		return -EINVAL;
	}
	if (ret)
		return vnmpi_broke_here(c) ? -EPIPE : ret;
	c->held = 1;
	c->rs.started = 1;
	c->rs.esize = inb / count;
	for (i = 0; i < c->nlocal; i++)
		c->rs.la[i] = p->args[c->first + i];
	slice(c, count, c->me, &mlo, &mhi);
	for (q = 0; q < c->nproc; q++) {
		if (q == c->me)
			continue;
		slice(c, count, q, &lo, &hi);
		for (i = 0; i < c->nlocal; i++) {
			len[i] = (int)((hi - lo) * c->rs.esize);
			if (MPI_Get_address((const u8 *)c->rs.la[i]->in + lo * c->rs.esize,
					    &disp[i]) != MPI_SUCCESS)
				return vnmpi_mpi_failed(c, q);
		}
		/* ours of q's slice, straight from the inputs; q's of ours into the stage */
		if (MPI_Type_create_hindexed((int)c->nlocal, len, disp, MPI_BYTE,
					     &c->stype[q]) != MPI_SUCCESS ||
		    MPI_Type_commit(&c->stype[q]) != MPI_SUCCESS ||
		    MPI_Type_create_hvector((int)c->nlocal, (int)((mhi - mlo) * c->rs.esize),
					    (MPI_Aint)inb, MPI_BYTE, &c->qtype[q]) != MPI_SUCCESS ||
		    MPI_Type_commit(&c->qtype[q]) != MPI_SUCCESS ||
		    MPI_Isend(MPI_BOTTOM, 1, c->stype[q], q, TAG_DATA, c->mc,
			      req(c, q, R_DATA_OUT)) != MPI_SUCCESS ||
		    MPI_Irecv(c->stage + (size_t)q * c->nlocal * inb, 1, c->qtype[q], q,
			      TAG_DATA, c->mc, req(c, q, R_DATA_IN)) != MPI_SUCCESS)
			return vnmpi_mpi_failed(c, q);
	}
	return 0;
}

/* This node's slice over every rank in rank order, into the local outputs, then sent. */
static int reduce(struct nd_mpi_comm *c, size_t inb)
{
	const struct vn_cc_args *a0 = c->rs.la[0];
	const void *in[VN_COMM_MAX_RANKS];
	void *out[VN_COMM_MAX_RANKS];
	u64 lo, hi, off;
	unsigned int r, i;
	int q;

	slice(c, count_of(c), c->me, &lo, &hi);
	off = lo * c->rs.esize;
	for (r = 0; r < c->n; r++) {
		if (r >= c->first && r < c->first + c->nlocal)
			in[r] = (const u8 *)c->rs.la[r - c->first]->in + off;
		else
			in[r] = c->stage + (size_t)r * inb;
	}
	for (i = 0; i < c->nlocal; i++)
		out[i] = (u8 *)c->rs.la[i]->out + off;
	vn_cc_reduce(a0->reduce, a0->dtype, out, c->nlocal, in, c->n, 0, hi - lo);
	c->rs.reduced = 1;
	for (q = 0; q < c->nproc; q++)
		if (q != c->me &&
		    MPI_Isend(out[0], (int)((hi - lo) * c->rs.esize), MPI_BYTE, q, TAG_GATHER,
			      c->mc, req(c, q, R_AG_OUT)) != MPI_SUCCESS)
			return vnmpi_mpi_failed(c, q);
	return 0;
}

int vnmpi_rsag_step(struct nd_mpi_comm *c, const struct vn_cc_pending *p, size_t inb,
		    int *active)
{
	u64 missing = 0;
	unsigned int i;
	int ret = 0, q;

	if (!c->rs.started && c->rs.agree == (unsigned int)c->nproc - 1) {
		ret = begin(c, p, inb);
		*active = 1;
	}
	if (!ret && c->rs.started && !c->rs.reduced &&
	    c->rs.slices_in == (unsigned int)c->nproc - 1) {
		ret = reduce(c, inb);
		*active = 1;
	}
	if (ret || !c->rs.started || !c->rs.deadline_ns || vn_time_ns() < c->rs.deadline_ns)
		return ret;
	/* The local ranks' time limit, which they cannot keep while held: as they would. */
	for (q = 0; q < c->nproc; q++)
		for (i = 0; q != c->me && i < c->nlocal; i++)
			if (*req(c, q, R_DATA_IN) != MPI_REQUEST_NULL ||
			    *req(c, q, R_AG_IN) != MPI_REQUEST_NULL)
				missing |= 1ull << (q * c->nlocal + i);
	vnmpi_lc_break(c, c->first, -ETIMEDOUT, missing);
	return vnmpi_broke_here(c);
}

int vnmpi_rsag_done(struct nd_mpi_comm *c, int q, int kind, size_t inb)
{
	u64 lo, hi;
	void *dst;
	unsigned int i;

	slice(c, count_of(c), q, &lo, &hi);
	switch (kind) {
	case R_DATA_IN:
		c->rs.slices_in++;
		break;
	case R_DATA_OUT:
		/* our slice of q went: q's reduced slice may now land where it was */
		dst = (u8 *)c->rs.la[0]->out + lo * c->rs.esize;
		if (MPI_Irecv(dst, (int)((hi - lo) * c->rs.esize), MPI_BYTE, q, TAG_GATHER,
			      c->mc, req(c, q, R_AG_IN)) != MPI_SUCCESS)
			return vnmpi_mpi_failed(c, q);
		break;
	case R_AG_IN:
		for (i = 1; i < c->nlocal; i++)
			memcpy((u8 *)c->rs.la[i]->out + lo * c->rs.esize,
			       (const u8 *)c->rs.la[0]->out + lo * c->rs.esize,
			       (hi - lo) * c->rs.esize);
		c->rs.gathered++;
		break;
	}
	(void)inb;
	return 0;
}

int vnmpi_rsag_finish(struct nd_mpi_comm *c, size_t inb)
{
	if (!c->rs.reduced || c->rs.gathered != (unsigned int)c->nproc - 1)
		return -EIO;	/* cannot be: every request completed */
	return vnmpi_post(c, c->rs.last, inb, c->nlocal - 1, c->nlocal);
}

void vnmpi_rsag_free_types(struct nd_mpi_comm *c)
{
	int q;

	for (q = 0; q < c->nproc; q++)
		if (c->stype[q] != MPI_DATATYPE_NULL)
			MPI_Type_free(&c->stype[q]);
}
