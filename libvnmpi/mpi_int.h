/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libvnmpi's insides, shared by its files: the communicator (mpi_comm.c: set-up, the
 * proxy and the exchange of every rank's inputs) and the reduce-scatter + all-gather of
 * an all-reduce across host nodes (rsag.c).
 */
#ifndef VNMPI_INT_H
#define VNMPI_INT_H

#include <pthread.h>
#include <stddef.h>

#include "neurondev.h"
#include "vnmpi.h"
#include "vn_comm.h"

/* A reduce-scatter + all-gather in progress (rsag.c). */
struct vnmpi_rsag {
	int on;				/* this collective is one */
	int started;			/* the locals held, the slices on their way */
	int reduced;			/* this node's slice reduced, sent */
	unsigned int agree;		/* peers whose header matches ours */
	int last;			/* the last of them: one rank of it not posted yet */
	unsigned int slices_in;		/* peers whose slices of ours came */
	unsigned int gathered;		/* peers whose reduced slice came */
	uint64_t deadline_ns;		/* the local ranks' earliest time limit, 0: none */
	size_t esize;			/* bytes per element */
	const struct vn_cc_args *la[VN_COMM_MAX_RANKS];	/* the local ranks' */
};

/* Header words before the arrivals. */
enum { H_OK, H_OP, H_REDUCE, H_DTYPE, H_GSIZE, H_GSTRIDE, H_SHIFT, H_COUNT, H_ALGO, H_WORDS };
/* A break message: the rank that failed, its error (negated), the ranks it found missing. */
enum { B_RANK, B_ERR, B_MISSING, B_WORDS };
enum { TAG_HDR = 1, TAG_DATA, TAG_BREAK, TAG_GATHER };
/*
 * A peer's requests of one collective: header and inputs each way (a reduce-scatter's
 * slices, rsag.c, in the data ones), and a reduce-scatter's all-gather each way.
 */
enum { R_HDR_IN, R_DATA_IN, R_HDR_OUT, R_DATA_OUT, R_AG_IN, R_AG_OUT, R_PER_PEER };

/* Between collectives the proxy looks at the other nodes' break messages this often. */
#define IDLE_POLL_NS	1000000ull
/* How long the proxy's last act, taking back its requests, may take. */
#define CLEANUP_NS	1000000000ull
/* How long nd_mpi_comm_free() waits for the proxy before abandoning it. */
#define FREE_WAIT_S	10
/* Stopped with a collective done here, how long its sends may still take (< FREE_WAIT_S). */
#define SENDS_AFTER_STOP_NS	5000000000ull

struct nd_mpi_comm {
	MPI_Comm mc;			/* a duplicate of the caller's, errors returned */
	int nproc, me;
	unsigned int nlocal, first, n;
	struct nd_host_comm *hc;
	struct vn_comm *cm;		/* the host communicator's core, or NULL */
	struct nd_device *dev;		/* the device whose queue is served, or NULL */
	nd_comm_id id;
	struct nd_mem *dstage;		/* the device's stage, mapped at stage */
	struct nd_netq_ring *ring;	/* the device's queue as a ring, or NULL: ioctls */
	uint64_t nq_req;		/* the device request out */
	unsigned int peers_in;		/* peers whose inputs came, this collective */
	uint64_t arr[VN_COMM_MAX_RANKS];	/* the device request's arrivals */
	struct vn_cc_args la[VN_COMM_MAX_RANKS];	/* the device's local ranks' */
	pthread_t proxy;
	int stop;			/* atomic: the proxy ends */
	int err;			/* the proxy's error, read after it ended */
	int told;			/* the other nodes were sent a break message */
	int abandoned;			/* requests left to MPI: their buffers are kept */
	int held;			/* the host's local ranks held while staged */
	uint64_t collectives;		/* atomic */
	uint64_t *hdr;			/* nproc x (H_WORDS + nlocal) */
	unsigned char *stage;		/* n inputs in rank order */
	size_t stage_cap;
	unsigned char **drain;		/* per peer: the inputs of a peer that disagreed */
	MPI_Datatype *qtype;		/* per peer: one of its ranks' inputs, this collective */
	MPI_Datatype *stype;		/* per peer: our slices for it (reduce-scatter) */
	/* nproc x R_PER_PEER, then the break receive, then nproc break sends */
	MPI_Request *req;
	uint64_t brk_in[B_WORDS], brk_out[B_WORDS];
	struct vn_cc_args ra[VN_COMM_MAX_RANKS];
	struct vnmpi_rsag rs;		/* this collective's reduce-scatter, if it is one */
};

static inline size_t hwords(const struct nd_mpi_comm *c)
{
	return H_WORDS + c->nlocal;
}


/* mpi_comm.c */
void vnmpi_lc_break(struct nd_mpi_comm *c, u32 rank, int err, u64 missing);
int vnmpi_broke_here(struct nd_mpi_comm *c);
int vnmpi_mpi_failed(struct nd_mpi_comm *c, int q);
int vnmpi_data_in(struct nd_mpi_comm *c, int q, size_t inb);
/* Local ranks [from, to) of peer q arrive at the host communicator (their inputs staged). */
int vnmpi_post(struct nd_mpi_comm *c, int q, size_t inb, unsigned int from, unsigned int to);

/* rsag.c */
int vnmpi_rsag_wanted(const struct nd_mpi_comm *c, const uint64_t *mine, size_t inb);
int vnmpi_rsag_header(struct nd_mpi_comm *c, int q, size_t inb);
int vnmpi_rsag_step(struct nd_mpi_comm *c, const struct vn_cc_pending *p, size_t inb,
		    int *active);
int vnmpi_rsag_done(struct nd_mpi_comm *c, int q, int kind, size_t inb);
int vnmpi_rsag_finish(struct nd_mpi_comm *c, size_t inb);
void vnmpi_rsag_free_types(struct nd_mpi_comm *c);

#endif /* VNMPI_INT_H */
