/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The one-collective program of the network queue tests (tests/guest/netq_util.h and,
 * under mpirun, tests/host/mpi/test_mpi_netq.c), built with libvnprog. Header-only;
 * everything static.
 */
#ifndef VN_CC_PROGRAM_H
#define VN_CC_PROGRAM_H

#include <stddef.h>
#include <stdint.h>

#include "vnprog.h"

/*
 * op (its opcode, count, reduce, group and shift: src and dst are set here) from an fp32
 * input "in" of nin elements to an fp32 output "out" of nout: 0 and the image in *img,
 * which the caller frees; nonzero if the builder refused it.
 */
static inline int cc_program(const struct nd_cc *op, uint64_t nin, uint64_t nout, void **img,
			     size_t *size)
{
	struct nd_cc cc = *op;
	struct nd_builder *b;
	int ret;

	if (nd_builder_new("netq", &b))
		return -1;
	cc.src = nd_input(b, "in", ND_FP32, 1, &nin);
	cc.dst = nd_output(b, "out", ND_FP32, 1, &nout);
	nd_collective(b, &cc);
	ret = nd_builder_finish(b, img, size);
	nd_builder_free(b);
	return ret;
}

#endif
