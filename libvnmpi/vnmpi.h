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
 * process (nonblocking point to point: bytes only, no arithmetic in MPI), and posts each
 * remote node's ranks as its inputs come. The local core then reduces every rank's data
 * in rank order, as on one machine, so results are bit-identical to a C loop over ranks
 * 0..n-1 and the modeled completion is the same on every process. An all-reduce of host
 * nodes goes as MPI's does instead, a reduce-scatter + all-gather of slices, each node
 * reducing its slice over every rank in rank order (rsag.c): the same bits, 2 (n - 1) / n
 * of the bytes.
 *
 * Failures, as on one machine (core/vn_comm.h), and the proxy never blocks in MPI: it
 * tests its requests (MPI_ERRORS_RETURN on its own duplicate of the communicator) and
 * between tests looks at the stop flag, the communicator and the other nodes' break
 * messages.
 *  - A node that never comes to a collective: the others' ranks end at their own time
 *    limit, -ETIMEDOUT with the ranks of the nodes that did not come as missing (in an
 *    execution: TIMEOUT, CC_MISSING; vn_comm_state() names them). The first node to give
 *    up tells the others, which end the same way; the late node, when it comes, finds the
 *    communicator broken (-EPIPE: ABORTED, CC_PEER, the rank that gave up named). A node
 *    that comes before that break message reaches it may still complete the collective,
 *    exactly, with the inputs its peers sent before they gave up (MPI does not let a
 *    send be taken back).
 *  - A local rank that fails or leaves breaks the communicator on every node (-EPIPE,
 *    naming it). Nodes that disagree on a collective all break (-EPIPE; the proxy -EINVAL).
 *  - A node whose process dies: an MPI error about it breaks the communicator naming its
 *    first rank (-EPIPE on the others: ABORTED, CC_PEER), if the MPI library lets the
 *    survivors run on. Open MPI 4's mpirun does not: it ends the whole job once a process
 *    is killed or exits without MPI_Finalize(), printing "mpirun noticed that process
 *    rank P ... exited on signal 9" or "process rank P ... exiting improperly", with a
 *    non-zero status (tests/host/mpi/cc.sh checks it). Either way nothing hangs.
 *  - A peer that never takes what the proxy sent it: the proxy waits one second for its
 *    requests when it ends, then frees them (MPI_Request_free()) and leaves the buffers
 *    they use allocated. A proxy stuck inside MPI (a library that cannot recover from a
 *    dead peer) is abandoned by nd_mpi_comm_free() after 10 s: -ETIMEDOUT, the process
 *    should then end without calling MPI again (MPI_Abort() or exit).
 * nd_mpi_comm_new() itself is collective and blocking: every process must call it.
 *
 * Kept out of libvnprog and libneurondev: only programs built with mpicc link it
 * (build/{rel,san}/libvnmpi.a, docs/development.md).
 *
 * On the device (nd_mpi_comm_new_dev()), the same exchange serves a module
 * communicator's network queue (docs/uapi.md, "Ranks on other nodes"): the kernel holds
 * the local ranks at each collective while it copies their inputs into a stage buffer of
 * the device, which the proxy maps and sends from; the peers' inputs are received into
 * it and one NETQ_COMPLETE posts every remote rank, so the kernel reduces in rank order
 * and models the time exactly as on one machine. Failures as above; a proxy that stops
 * or whose process dies breaks the communicator (the module sees its file close).
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
 * MPI_THREAD_MULTIPLE: the proxy thread calls MPI at any time (between collectives it
 * looks for other nodes' break messages every millisecond) while the caller may too.
 * Collectives of a communicator spanning processes must use every rank (group_size 0).
 * 0, -EINVAL, -ENOMEM, -EPROTONOSUPPORT (thread level), -EIO (MPI failed).
 */
int nd_mpi_comm_new(MPI_Comm mc, unsigned int nlocal, const uint32_t *device,
		    struct nd_mpi_comm **cp);
/*
 * As nd_mpi_comm_new(), for ranks on devices: a communicator of nlocal ranks per process
 * created on dev, the ranks of the other processes declared remote (nd_comm_set_nodes(),
 * device[i] local rank i's device index on this node for the cost model), its id in
 * *id: join local rank i with nd_comm_join(dev, id, nd_mpi_comm_first(c) + i, core, ..)
 * (on dev or another device of this process). Needs at least two processes. 0, -EINVAL,
 * -EOPNOTSUPP (no network queue in the module), -ENOMEM, -EPROTONOSUPPORT, -EIO.
 */
int nd_mpi_comm_new_dev(MPI_Comm mc, struct nd_device *dev, unsigned int nlocal,
			const uint32_t *device, nd_comm_id *id, struct nd_mpi_comm **cp);
/* The host communicator (NULL for a device's): bind local rank i with nd_host_set_comm(h, it, first + i). */
struct nd_host_comm *nd_mpi_comm_host(struct nd_mpi_comm *c);
/* The global rank of local rank 0; the node (MPI process) and the node count. */
unsigned int nd_mpi_comm_first(const struct nd_mpi_comm *c);
unsigned int nd_mpi_comm_node(const struct nd_mpi_comm *c);
unsigned int nd_mpi_comm_nodes(const struct nd_mpi_comm *c);
/* Collectives the proxy completed. */
uint64_t nd_mpi_comm_collectives(const struct nd_mpi_comm *c);
/*
 * Stops the proxy and frees c: 0, or the proxy's error (-EIO an MPI failure, -EINVAL
 * arguments that differ between nodes, -EPIPE the communicator broke: a timeout, a
 * failed rank, here or on another node); -ETIMEDOUT if the proxy did not end within 10 s
 * (stuck in MPI: it and c are abandoned). Stopped inside a collective, this node leaves
 * it (the others end -EPIPE); stopped once its own ranks have the result, the proxy first
 * lets its inputs reach the slower nodes (for up to 5 s), so freeing right after the last
 * collective is safe.
 */
int nd_mpi_comm_free(struct nd_mpi_comm *c);

/*
 * Where this process stands (neurondev.h, struct nd_place), from MPI over mc; collective,
 * blocking. rank and size are mc's; the node by the environment variable VNEURON_NODE,
 * of one kind on every process:
 *  - unset or "shared": processes that share memory (MPI_Comm_split_type() with
 *    MPI_COMM_TYPE_SHARED) are one node, the nodes numbered in the order of their lowest
 *    rank: the real layout of a job over machines;
 *  - "process": every process its own node (node = rank), as processes on one machine
 *    standing in for nodes need (mpirun --oversubscribe, nd_mpi_comm_new()'s nodes);
 *  - a number: this process's node as given (the numbers used must be 0..nodes-1).
 * Programs without MPI are told the same by nd_place_parse() or nd_place_from_env().
 * 0; -EINVAL naming the value at fault (every process fails alike), -ENOMEM, -EIO.
 */
int nd_mpi_place(MPI_Comm mc, struct nd_place *pl, struct nd_error *err);

/*
 * The offset of this process's CLOCK_MONOTONIC to root's over mc (the root's clock reads
 * about local + *offset_ns), measured by ping-pong with the root: of 16 round trips the
 * shortest is kept, offset = t_root - (t_send + t_recv) / 2, and *error_ns = half that
 * round trip bounds |true offset - *offset_ns|. The root gets 0 and 0. Collective and
 * blocking, one process at a time; the same root on every process. 0, -EINVAL (root out
 * of range, NULL pointers), -EIO (MPI failed).
 */
int nd_mpi_clock_offset(MPI_Comm mc, int root, int64_t *offset_ns, uint64_t *error_ns);

#endif /* VNMPI_H */
