// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Clock offsets between processes (vnmpi.h, nd_mpi_clock_offset()): ping-pong with the
 * root, one process at a time, the round trip with the shortest time kept. The root's
 * reading falls between the send and the receive of its round trip, so its offset from
 * their midpoint is at most half the round trip: the error bound.
 */
#include <errno.h>
#include <time.h>

#include "vnmpi.h"

#define ROUNDS		16
#define TAG_PING	1

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int nd_mpi_clock_offset(MPI_Comm mc, int root, int64_t *offset_ns, uint64_t *error_ns)
{
	int64_t t_send, t_recv, t_root, best_rtt = INT64_MAX, best_off = 0;
	int me, size, q, i, ret = 0;
	MPI_Comm cc;

	if (!offset_ns || !error_ns)
		return -EINVAL;
	if (MPI_Comm_rank(mc, &me) != MPI_SUCCESS || MPI_Comm_size(mc, &size) != MPI_SUCCESS)
		return -EIO;
	if (root < 0 || root >= size)
		return -EINVAL;
	/* Its own communicator: no message of the caller's can match these. */
	if (MPI_Comm_dup(mc, &cc) != MPI_SUCCESS)
		return -EIO;
	MPI_Comm_set_errhandler(cc, MPI_ERRORS_RETURN);
	for (q = 0; q < size && !ret; q++) {
		if (q == root || (me != root && me != q))
			continue;
		/* one round more than kept: the first warms the path up */
		for (i = 0; i <= ROUNDS && !ret; i++) {
			if (me == root) {
				if (MPI_Recv(NULL, 0, MPI_BYTE, q, TAG_PING, cc,
					     MPI_STATUS_IGNORE) != MPI_SUCCESS)
					ret = -EIO;
				t_root = now_ns();
				if (!ret && MPI_Send(&t_root, 1, MPI_INT64_T, q, TAG_PING,
						     cc) != MPI_SUCCESS)
					ret = -EIO;
				continue;
			}
			t_send = now_ns();
			if (MPI_Send(NULL, 0, MPI_BYTE, root, TAG_PING, cc) != MPI_SUCCESS ||
			    MPI_Recv(&t_root, 1, MPI_INT64_T, root, TAG_PING, cc,
				     MPI_STATUS_IGNORE) != MPI_SUCCESS) {
				ret = -EIO;
				break;
			}
			t_recv = now_ns();
			if (i && t_recv - t_send < best_rtt) {
				best_rtt = t_recv - t_send;
				/* halves first: no overflow */
				best_off = t_root - (t_send / 2 + t_recv / 2 +
						     (t_send % 2 + t_recv % 2) / 2);
			}
		}
	}
	MPI_Comm_free(&cc);
	if (ret)
		return ret;
	if (me == root) {
		*offset_ns = 0;
		*error_ns = 0;
	} else {
		*offset_ns = best_off;
		*error_ns = (uint64_t)(best_rtt + 1) / 2;
	}
	return 0;
}
