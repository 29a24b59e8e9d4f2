/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Synthetic profiles of a multi-node run for the view tests and the merge benchmark: one
 * .vntf per node, written with the profiler's writer, each with its node section, one
 * stream per worker (global rank) and a schedule every rank can compute alone: before
 * collective i each rank computes (a run of TensorE instructions), arrives, waits for
 * the last and transfers. Collectives 0..colls-1 span the whole communicator; the next
 * intra ones have groups of one node's ranks (the program's group_size = per_node).
 * The ranks of node `straggler` compute late_ns longer. Times in ns.
 */
#ifndef VNP_NODES_SYNTH_H
#define VNP_NODES_SYNTH_H

#include <errno.h>
#include <string.h>

#include "vn_model.h"
#include "../../profiler/format/prog.h"
#include "../../profiler/format/vntf.h"

#define NSYNTH_WORK_NS	100000ull	/* compute before each collective */
#define NSYNTH_XFER_NS	20000ull	/* each collective's transfer */
#define NSYNTH_MAX_CC	64

struct nsynth {
	unsigned int node, nr_nodes, per_node;
	unsigned int colls, intra;	/* whole-communicator, then intra-node collectives */
	unsigned int straggler;		/* the late node, or ~0u */
	uint64_t late_ns;
	int64_t offset_ns;		/* the node's host clock - rank 0's */
	uint8_t hash;			/* the program identity's hash bytes */
	int no_node;			/* leave the node section out */
	uint64_t insns;			/* TensorE instructions per worker (spread evenly) */
};

/* The program's collective stream for o (the view needs it for the groups). */
static inline uint32_t nsynth_cc(const struct nsynth *o, struct vnef_cc_instr *cc)
{
	uint32_t i, n = o->colls + o->intra;

	for (i = 0; i < n && i < NSYNTH_MAX_CC; i++) {
		memset(&cc[i], 0, sizeof(cc[i]));
		cc[i].opcode = VNEF_CC_ALL_REDUCE;
		cc[i].count = 1024;
		if (i >= o->colls) {
			cc[i].group_size = (uint16_t)o->per_node;
			cc[i].group_stride = 1;
		}
	}
	return n < NSYNTH_MAX_CC ? n : NSYNTH_MAX_CC;
}

/* One worker's record stream, written in chunks. 0 or -errno. */
static inline int nsynth_worker(struct vntf_writer *w, const struct nsynth *o, unsigned int rank)
{
	unsigned int world = o->nr_nodes * o->per_node, ncc = o->colls + o->intra, i;
	struct vneuron_trace_record buf[512], *r;
	uint64_t t = 0, per = ncc ? o->insns / ncc : 0, k, late, last_t;
	size_t n = 0;
	int ret;

#define NSYNTH_PUT() do {							\
		if (n == 512) {							\
			ret = vntf_write_records(w, rank, buf, n);		\
			if (ret)						\
				return ret;					\
			n = 0;							\
		}								\
		r = &buf[n++];							\
		memset(r, 0, sizeof(*r));					\
		r->sem_wait = VNEURON_TRACE_NO_SEM;				\
		r->sem_signal = VNEURON_TRACE_NO_SEM;				\
	} while (0)

	NSYNTH_PUT();
	r->kind = VNEURON_TRACE_EXEC_START;
	r->engine = VNEURON_TRACE_ENGINE_CORE;
	/* an API call at the same instant of rank 0's clock on every node */
	NSYNTH_PUT();
	r->kind = VNEURON_TRACE_MARKER;
	r->engine = VNEURON_TRACE_ENGINE_CORE;
	r->opcode = ND_API_EXEC;
	r->host_ns = (uint64_t)(1000000000ll + o->offset_ns);
	r->count = 5000;
	for (i = 0; i < ncc; i++) {
		unsigned int inter = i < o->colls, b, lastr;
		uint64_t work = NSYNTH_WORK_NS + (o->node == o->straggler ? o->late_ns : 0);

		/* the group's last: the straggler's first rank in it, else the group's first */
		b = inter ? 0 : o->node * o->per_node;
		lastr = b;
		late = 0;
		if (o->straggler < o->nr_nodes && (inter || o->straggler == o->node)) {
			lastr = inter ? o->straggler * o->per_node : b;
			late = o->late_ns;
		}
		for (k = 0; k < per; k++) {
			NSYNTH_PUT();
			r->kind = VNEURON_TRACE_INSN;
			r->engine = 0;
			r->opcode = VNEF_OP_MULTIPLY_MOVING;
			r->pc = (uint32_t)k;
			r->model_start_ps = (t + work * k / per) * 1000;
			r->model_end_ps = (t + work * (k + 1) / per) * 1000;
			r->flops = 1000;
			r->elements = 128;
			r->bytes = 512;
		}
		last_t = t + NSYNTH_WORK_NS + late;
		NSYNTH_PUT();
		r->kind = VNEURON_TRACE_CC;
		r->engine = VNEURON_TRACE_ENGINE_CC;
		r->opcode = VNEF_CC_ALL_REDUCE;
		r->pc = i;
		r->model_start_ps = (t + work) * 1000;
		r->count = last_t * 1000;
		r->model_end_ps = (last_t + NSYNTH_XFER_NS) * 1000;
		r->elements = inter ? world : o->per_node;
		r->dma_queue = (uint16_t)rank;
		r->dma_desc = (uint16_t)lastr;
		r->bytes = 4096;
		t = last_t + NSYNTH_XFER_NS;
	}
	NSYNTH_PUT();
	r->kind = VNEURON_TRACE_EXEC_END;
	r->engine = VNEURON_TRACE_ENGINE_CORE;
	r->model_start_ps = t * 1000;
	r->model_end_ps = t * 1000;
#undef NSYNTH_PUT
	return vntf_write_records(w, rank, buf, n);
}

/* The node's profile at path. 0 or -errno. */
static inline int nsynth_write(const char *path, const struct nsynth *o)
{
	struct vntf_clock clk = { .host_start_ns = 1, .model_unit_ps = 1 };
	struct vntf_program p = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32,
				  .image_size = 4096 };
	struct vntf_node nd = { .node = o->node, .nr_nodes = o->nr_nodes,
				.first_rank = o->node * o->per_node, .ranks = o->per_node,
				.world_size = o->nr_nodes * o->per_node,
				.clock_offset_ns = o->offset_ns, .clock_error_ns = 2000 };
	struct vntf_writer *w;
	unsigned int k;
	int ret;

	memset(p.hash, o->hash, sizeof(p.hash));
	strcpy(p.name, "nodes");
	snprintf(nd.hostname, sizeof(nd.hostname), "host%u", o->node);
	ret = vntf_writer_open(&w, path);
	if (ret)
		return ret;
	ret = vntf_write_model(w, &vn_model_trn1) ?: vntf_write_clock(w, &clk) ?:
	      vntf_write_program(w, &p, NULL, 0) ?: (o->no_node ? 0 : vntf_write_node(w, &nd));
	for (k = 0; !ret && k < o->per_node; k++) {
		struct vntf_worker wk = { .stream = nd.first_rank + k, .core = 0,
					  .worker = nd.first_rank + k,
					  .nr_workers = nd.world_size, .ring_size = 1 << 20 };

		if (o->no_node) {
			wk.worker = k;
			wk.nr_workers = o->per_node;
		}
		strcpy(wk.hostname, nd.hostname);
		ret = vntf_write_worker(w, &wk);
	}
	for (k = 0; !ret && k < o->per_node; k++)
		ret = nsynth_worker(w, o, nd.first_rank + k);
	if (ret) {
		vntf_writer_abort(w);
		return ret;
	}
	return vntf_writer_finish(w, 2);
}

#endif /* VNP_NODES_SYNTH_H */
