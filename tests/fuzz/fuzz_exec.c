// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: every program the validator accepts is executed on a core, with
 * each tensor bound to memory of exactly its declared size. Under ASan this checks
 * that validation really bounds every access the engines and DMA make; the executor's
 * own checks stay in their default abort mode, so a program the validator accepts but
 * the executor refuses crashes here too. Inputs are mutated with knowledge of the format
 * (vnef_mutator.h): boundary and wrapping values in counts, strides and partitions.
 * Collectives run on a communicator of one rank, a fresh one per input (a failed
 * collective breaks its communicator): their ranges are checked by the executor.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include "vn_comm.h"
#include "vn_exec.h"
#define VNM_LIBFUZZER
#include "vnef_mutator.h"

#define MAX_BOUND	(8u << 20)	/* skip programs whose tensors need more */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct vn_core *core;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vn_bind binds[VNEF_MAX_TENSORS] = { { 0 } };
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_exec *ex;
	uint64_t total = 0;
	uint32_t i;

	if (!core && vn_core_create(NULL, "fuzz", &core))
		abort();
	if (vn_program_load(data, size, &p, NULL))
		return 0;
	if (p->streams[VNEF_STREAM_CC].count) {
		struct vn_comm_params prm = { .nranks = 1, .intra = vn_cc_intra_device,
					      .inter = vn_cc_inter_device };
		struct vn_comm *cm;

		if (vn_comm_create(&prm, &cm))
			abort();
		vn_core_set_comm(core, cm, 0);	/* the core keeps a reference */
		vn_comm_put(cm);
	}
	for (i = 0; i < p->tensor_count; i++)
		total += p->tensors[i].size;
	if (total > MAX_BOUND || p->scratch_bytes > MAX_BOUND)
		goto out;
	for (i = 0; i < p->tensor_count; i++) {
		if (p->tensors[i].kind == VNEF_TENSOR_CONST ||
		    p->tensors[i].kind == VNEF_TENSOR_SCRATCH)
			continue;
		binds[i].size = p->tensors[i].size;
		binds[i].ptr = malloc(binds[i].size);
		if (!binds[i].ptr)
			goto free;
	}
	if (!vn_exec_submit(core, p, binds, p->tensor_count, 200ull * 1000 * 1000, NULL, NULL,
			    &ex)) {
		vn_exec_wait(ex, 0);
		vn_exec_status(ex, &st);
		if (st.state != VN_EXEC_DONE)
			__builtin_trap();
		vn_exec_put(ex);
	}
free:
	for (i = 0; i < p->tensor_count; i++)
		free(binds[i].ptr);
out:
	vn_program_put(p);
	return 0;
}
