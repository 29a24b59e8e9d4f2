/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Synthetic profiles for the view tests: trace records and a hand-made program (string
 * table, debug table, DMA descriptors) so the tests need neither the kernel nor the
 * executor. Times are given in ns and stored in ps.
 */
#ifndef VNP_SYNTH_H
#define VNP_SYNTH_H

#include <stdlib.h>
#include <string.h>

#include "vn_model.h"
#include "../../profiler/analysis/analyze.h"
#include "../../profiler/output/summary.h"

#define NS	1000ull
#define NOSEM	VNEURON_TRACE_NO_SEM

struct synth {
	struct vneuron_trace_record *r;
	size_t n, cap;
	/* the program */
	char strtab[4096];
	uint32_t strlen_;
	struct vnef_tensor tensors[4];
	struct vnef_dma_desc desc[VNEF_DMA_QUEUES][256];
	uint32_t ndesc[VNEF_DMA_QUEUES];
	struct vnef_debug debug[2048];
	uint32_t ndebug;
	uint32_t npc[VNEF_STREAMS];
	struct vnp_prog prog;
	struct vnp_timeline tl;
	struct vnp_metrics m;
	struct vnp_analysis a;
	uint64_t dma_off;	/* next distinct HBM range */
	const char *const *range_names;	/* application range names by id (NULL-ended) */
	int host_clock;			/* lay the timeline out on the host clock */
	size_t core1_from;		/* records from there on are core 1's (0: none) */
};

/* The offset of str in the string table, added once. */
static inline uint32_t synth_str(struct synth *s, const char *str)
{
	uint32_t off;

	if (!s->strlen_)
		s->strlen_ = 1;	/* byte 0 is the empty string */
	for (off = 1; off < s->strlen_; off += (uint32_t)strlen(s->strtab + off) + 1)
		if (!strcmp(s->strtab + off, str))
			return off;
	if (s->strlen_ + strlen(str) + 1 > sizeof(s->strtab))
		abort();
	memcpy(s->strtab + off, str, strlen(str) + 1);
	s->strlen_ += (uint32_t)strlen(str) + 1;
	return off;
}

static inline struct synth *synth_new(void)
{
	struct synth *s = calloc(1, sizeof(*s));

	s->strlen_ = 1;
	s->tensors[0].name_off = synth_str(s, "x");
	s->tensors[0].kind = VNEF_TENSOR_INPUT;
	s->tensors[0].dtype = VNEF_DT_FP32;
	s->tensors[0].rank = 1;
	s->tensors[0].shape[0] = 1 << 24;
	s->tensors[0].size = 4u << 24;
	s->tensors[1] = s->tensors[0];
	s->tensors[1].name_off = synth_str(s, "y");
	s->tensors[1].kind = VNEF_TENSOR_OUTPUT;
	return s;
}

static inline void synth_debug(struct synth *s, unsigned int stream, uint32_t pc,
			       const char *file, uint32_t line, const char *scope)
{
	struct vnef_debug *d;

	if (s->ndebug == sizeof(s->debug) / sizeof(s->debug[0]))
		abort();
	d = &s->debug[s->ndebug++];

	d->stream = stream;
	d->index = pc;
	d->file_off = file ? synth_str(s, file) : 0;
	d->line = line;
	d->scope_off = scope ? synth_str(s, scope) : 0;
}

static inline struct vneuron_trace_record *synth_rec(struct synth *s)
{
	struct vneuron_trace_record *r;

	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->r = realloc(s->r, s->cap * sizeof(*s->r));
	}
	r = &s->r[s->n++];
	memset(r, 0, sizeof(*r));
	r->sem_wait = NOSEM;
	r->sem_signal = NOSEM;
	return r;
}

/* An instruction on engine from t0 to t1 ns; returns its pc. */
static inline uint32_t synth_insn(struct synth *s, unsigned int engine, unsigned int op,
				  uint64_t t0, uint64_t t1, uint64_t flops)
{
	struct vneuron_trace_record *r = synth_rec(s);

	r->kind = VNEURON_TRACE_INSN;
	r->engine = (uint8_t)engine;
	r->opcode = (uint16_t)op;
	r->pc = s->npc[engine]++;
	r->model_start_ps = t0 * NS;
	r->model_end_ps = t1 * NS;
	r->flops = flops;
	r->elements = 128;
	r->bytes = 512;
	return r->pc;
}

/*
 * A DMA descriptor on queue q from t0 to t1 ns moving bytes from src to dst memory. An
 * HBM side reads or writes hbm_off of tensor 0 (src) or 1 (dst); hbm_off ~0 takes the
 * next distinct range.
 */
static inline uint32_t synth_dma(struct synth *s, unsigned int q, uint64_t t0, uint64_t t1,
				 uint32_t bytes, unsigned int src, unsigned int dst,
				 uint64_t hbm_off)
{
	struct vneuron_trace_record *r = synth_rec(s);
	struct vnef_dma_desc *d = &s->desc[q][s->ndesc[q]];

	if (hbm_off == ~0ull) {
		hbm_off = s->dma_off;
		s->dma_off += bytes;
	}
	memset(d, 0, sizeof(*d));
	d->chunk_bytes = bytes;
	d->count[0] = 1;
	d->count[1] = 1;
	d->src.mem = src;
	d->dst.mem = dst;
	if (src == VNEF_MEM_HBM) {
		d->src.tensor = 0;
		d->src.offset = hbm_off;
	}
	if (dst == VNEF_MEM_HBM) {
		d->dst.tensor = 1;
		d->dst.offset = hbm_off;
	}
	r->kind = VNEURON_TRACE_DMA;
	r->engine = VNEURON_TRACE_ENGINE_DMA;
	r->opcode = 0;
	r->dma_queue = (uint16_t)q;
	r->dma_desc = (uint16_t)s->ndesc[q];
	r->pc = s->ndesc[q]++;
	s->npc[VNEF_STREAM_DMA(q)]++;
	r->model_start_ps = t0 * NS;
	r->model_end_ps = t1 * NS;
	r->bytes = bytes;
	return r->pc;
}

static inline void synth_exec(struct synth *s, uint64_t t0, uint64_t t1)
{
	struct vneuron_trace_record *r = synth_rec(s);

	r->kind = VNEURON_TRACE_EXEC_START;
	r->engine = VNEURON_TRACE_ENGINE_CORE;
	r->model_start_ps = t0 * NS;
	r->model_end_ps = t0 * NS;
	r = synth_rec(s);
	r->kind = VNEURON_TRACE_EXEC_END;
	r->engine = VNEURON_TRACE_ENGINE_CORE;
	r->model_start_ps = t1 * NS;
	r->model_end_ps = t1 * NS;
}

/*
 * Execution seq of an application: one TensorE instruction of dur ns and flops, then its
 * EXEC_START and EXEC_END with the host times (ns) the kernel would give them.
 */
static inline void synth_app_exec(struct synth *s, uint32_t seq, uint64_t dur, uint64_t flops,
				  uint64_t host_lo, uint64_t host_hi)
{
	struct vneuron_trace_record *r;
	size_t first = s->n;

	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, dur, flops);
	synth_exec(s, 0, dur);
	for (r = &s->r[first]; r < s->r + s->n; r++)
		r->exec_seq = seq;
	s->r[s->n - 2].host_ns = host_lo;
	s->r[s->n - 1].host_ns = host_hi;
}

/*
 * An API-log record (neurondev.h, "The API log"): call by thread tid of process pid at
 * range depth; the caller fills in the rest.
 */
static inline struct vneuron_trace_record *synth_api(struct synth *s, unsigned int call,
						     uint32_t pid, uint32_t tid, uint32_t depth)
{
	struct vneuron_trace_record *r = synth_rec(s);

	r->kind = VNEURON_TRACE_MARKER;
	r->engine = VNEURON_TRACE_ENGINE_CORE;
	r->opcode = (uint16_t)call;
	r->elements = pid;
	r->model_start_ps = tid;
	r->dma_desc = (uint16_t)depth;
	return r;
}

/*
 * An ERROR record (a device fault, uapi/vneuron_trace.h) of entry pc of stream (engine
 * 0..3 or VNEF_STREAM_DMA(q)) at t ns of execution exec: reason VNEURON_REASON_FAULT_*,
 * memory, partition/tensor/semaphore index, byte offset (semaphore: value) and length.
 */
static inline struct vneuron_trace_record *
synth_fault(struct synth *s, uint32_t exec, unsigned int stream, uint32_t pc, uint64_t t,
	    unsigned int reason, unsigned int mem, uint32_t index, uint64_t offset, uint32_t len)
{
	struct vneuron_trace_record *r = synth_rec(s);

	r->kind = VNEURON_TRACE_ERROR;
	r->engine = stream < VNEF_ENGINES ? (uint8_t)stream : VNEURON_TRACE_ENGINE_DMA;
	if (stream >= VNEF_ENGINES) {
		r->dma_queue = (uint16_t)(stream - VNEF_ENGINES);
		r->dma_desc = (uint16_t)pc;
	}
	r->pc = pc;
	r->exec_seq = exec;
	r->opcode = (uint16_t)reason;
	r->elements = mem;
	r->sem_value = index;
	r->count = offset;
	r->bytes = len;
	r->model_start_ps = t * NS;
	r->model_end_ps = t * NS;
	return r;
}

/* Builds the program tables, the timeline, the metrics and the analysis. 0 or -errno. */
static inline int synth_run(struct synth *s, unsigned int nbins)
{
	unsigned int q;
	int ret;

	s->prog.strtab = s->strtab;
	s->prog.strtab_size = s->strlen_;
	s->prog.tensors = s->tensors;
	s->prog.ntensors = 2;
	for (q = 0; q < VNEF_DMA_QUEUES; q++) {
		s->prog.desc[q] = s->desc[q];
		s->prog.ndesc[q] = s->ndesc[q];
	}
	s->prog.debug = s->debug;
	s->prog.ndebug = s->ndebug;
	s->prog.name = "synthetic";
	ret = vnp_prog_index(&s->prog);
	if (ret)
		return ret;
	vnp_tl_init(&s->tl, &vn_model_trn1, &s->prog);
	for (q = 0; s->range_names && s->range_names[q]; q++)
		if (vnp_rg_add_name(&s->tl, s->range_names[q]))
			return -ENOMEM;
	s->tl.host_clock = s->host_clock;
	if (s->core1_from) {
		/* API records name the core they ran on: each its own slot */
		for (q = 0; q < VNP_MAX_CORES; q++)
			s->tl.rg.core_slot[q] = (uint16_t)q;
		ret = vnp_tl_add(&s->tl, 0, s->r, s->core1_from) ?:
		      vnp_tl_add(&s->tl, 1, s->r + s->core1_from, s->n - s->core1_from);
	} else {
		ret = vnp_tl_add(&s->tl, 0, s->r, s->n);
	}
	if (!ret)
		ret = vnp_tl_finish(&s->tl);
	if (!ret)
		ret = vnp_metrics_compute(&s->tl, nbins, &s->m);
	if (!ret)
		ret = vnp_analyze(&s->tl, &s->m, &s->a);
	return ret;
}

static inline void synth_free(struct synth *s)
{
	vnp_analysis_free(&s->a);
	vnp_metrics_free(&s->m);
	vnp_tl_free(&s->tl);
	/* the raw tables are ours: vnp_prog_free() only frees the derived ones here */
	vnp_prog_free(&s->prog);
	free(s->r);
	free(s);
}

/* Which rules fired, as a bit mask. */
static inline unsigned int synth_rules(const struct synth *s)
{
	unsigned int i, mask = 0;

	for (i = 0; i < s->a.n; i++)
		mask |= 1u << s->a.f[i].rule;
	return mask;
}

#endif /* VNP_SYNTH_H */
