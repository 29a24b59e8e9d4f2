/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libvnmpi: host communicators across MPI processes (issue 14, first slice). Each MPI
 * process of an MPI communicator stands for one node with nlocal ranks of its own
 * (host cores, each a host handle in a thread, as nd_host_comm_new() gives); the global
 * rank of local rank i of process p is p * nlocal + i, and its node is p.
 *
 * Every process holds the whole communicator (core/vn_comm.h), the ranks of the other
 * processes marked remote. A proxy thread waits until the local ranks all stand at a
 * collective, exchanges their arguments, arrival times and inputs with every other
 * process (MPI_Allgather: bytes only, no arithmetic in MPI), and posts the remote ranks'
 * arrivals with their staged inputs. The local core then reduces every rank's data in rank
 * order, as on one machine, so results are bit-identical to a C loop over ranks 0..n-1
 * and the modeled completion is the same on every process.
 *
 * Kept out of libvnprog and libneurondev: only programs built with mpicc link it
 * (build/{rel,san}/libvnmpi.a, docs/development.md).
 *
 * Not yet (later slices of issue 14): a node that dies or never reaches a collective
 * leaves the others' proxies blocked in MPI (their local ranks still end at their time
 * limit, but nd_mpi_comm_free() then waits for the proxy); the device's network queue.
 */
#ifndef VNMPI_H
#define VNMPI_H

#include <stdint.h>
#include <mpi.h>

#include "vnprog.h"

struct nd_mpi_comm;

/*
 * Collective over mc (every process calls it, with the same nlocal; device[i] the device
 * of local rank i on this node, NULL: all on device 0). MPI must be initialised at
 * MPI_THREAD_SERIALIZED at least: the proxy thread calls MPI while the local ranks run,
 * so the caller must not call MPI on any communicator between nd_mpi_comm_new() and
 * nd_mpi_comm_free() while a collective may be in flight. Collectives of a communicator
 * spanning processes must use every rank (group_size 0). 0, -EINVAL, -ENOMEM,
 * -EPROTONOSUPPORT (thread level), -EIO (MPI failed).
 */
int nd_mpi_comm_new(MPI_Comm mc, unsigned int nlocal, const uint32_t *device,
		    struct nd_mpi_comm **cp);
/* The host communicator: bind local rank i with nd_host_set_comm(h, it, first + i). */
struct nd_host_comm *nd_mpi_comm_host(struct nd_mpi_comm *c);
/* The global rank of local rank 0; the node (MPI process) and the node count. */
unsigned int nd_mpi_comm_first(const struct nd_mpi_comm *c);
unsigned int nd_mpi_comm_node(const struct nd_mpi_comm *c);
unsigned int nd_mpi_comm_nodes(const struct nd_mpi_comm *c);
/* Collectives the proxy completed. */
uint64_t nd_mpi_comm_collectives(const struct nd_mpi_comm *c);
/*
 * Stops the proxy (between collectives) and frees c: 0, or the proxy's error (-EIO an
 * MPI failure, -EINVAL arguments that differ between nodes, -EPIPE the communicator broke).
 */
int nd_mpi_comm_free(struct nd_mpi_comm *c);

#endif /* VNMPI_H */
