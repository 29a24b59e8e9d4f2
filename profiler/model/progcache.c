// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What the per-event readers take from the program, copied once at finish: a DMA
 * descriptor's memories and bytes (9 bytes of its 100+), an instruction's cost inputs
 * (16 bytes of its 100+). Read per event (metrics, analysis, the writers), the
 * program's own tables missed the cache at every read with 100 M events. The copy is
 * used only while tl->prog is the program it came from.
 */
#include <errno.h>
#include <stdlib.h>

#include "timeline.h"
#include "vn_isa.h"

void vnp_tl_prog_copy_free(struct vnp_timeline *tl)
{
	unsigned int q;

	for (q = 0; q < VNEF_DMA_QUEUES; q++) {
		free(tl->desc_mem[q]);
		free(tl->desc_n[q]);
		tl->desc_mem[q] = NULL;
		tl->desc_n[q] = NULL;
		tl->desc_len[q] = 0;
	}
	for (q = 0; q < VNEF_ENGINES; q++) {
		free(tl->instr_cost[q]);
		tl->instr_cost[q] = NULL;
		tl->instr_len[q] = 0;
	}
	tl->desc_prog = NULL;
}

static int desc_copy(struct vnp_timeline *tl, const struct vnp_prog *p, unsigned int q)
{
	uint32_t n = p->desc[q] ? p->ndesc[q] : 0, k;

	if (!n)
		return 0;
	tl->desc_mem[q] = malloc(n);
	tl->desc_n[q] = malloc((size_t)n * sizeof(*tl->desc_n[q]));
	if (!tl->desc_mem[q] || !tl->desc_n[q])
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		const struct vnef_dma_desc *d = &p->desc[q][k];
		unsigned int src = d->src.mem <= VNEF_MEM_HBM ? d->src.mem : 0;
		unsigned int dst = d->dst.mem <= VNEF_MEM_HBM ? d->dst.mem : 0;

		tl->desc_mem[q][k] = (uint8_t)(src | dst << 2);
		tl->desc_n[q][k] = (uint64_t)d->count[0] * d->count[1] * d->chunk_bytes;
	}
	tl->desc_len[q] = n;
	return 0;
}

/* As vnp_ev_fixed() reads an instruction (profiler/model/metrics.c). */
void vnp_instr_cost_of(unsigned int eng, const struct vnef_instr *in, struct vnp_instr_cost *c)
{
	const struct vn_opcode_info *info = vn_opcode_info(in->opcode);

	c->n = 0;
	c->opcode = in->opcode;
	c->per_elem = 0;
	if (eng == VNEURON_ENGINE_TENSOR) {
		c->n = in->opcode == VNEF_OP_TRANSPOSE ? in->src0.partitions :
		       (uint64_t)in->src0.count[0] * in->src0.count[1];
	} else if (info && (info->cost == VN_COST_ELEMENTWISE || info->cost == VN_COST_REDUCE)) {
		const struct vnef_ap *a = info->cost == VN_COST_REDUCE ? &in->src0 : &in->dst;

		c->per_elem = 1;
		c->n = (uint64_t)a->count[0] * a->count[1] * info->inputs;
		if (eng == VNEURON_ENGINE_GPSIMD)
			c->n *= a->partitions;
	}
}

static int instr_copy(struct vnp_timeline *tl, const struct vnp_prog *p, unsigned int eng)
{
	uint32_t n = p->instr[eng] ? p->ninstr[eng] : 0, k;

	if (!n)
		return 0;
	tl->instr_cost[eng] = malloc((size_t)n * sizeof(*tl->instr_cost[eng]));
	if (!tl->instr_cost[eng])
		return -ENOMEM;
	for (k = 0; k < n; k++)
		vnp_instr_cost_of(eng, &p->instr[eng][k], &tl->instr_cost[eng][k]);
	tl->instr_len[eng] = n;
	return 0;
}

int vnp_tl_prog_copy(struct vnp_timeline *tl)
{
	const struct vnp_prog *p = tl->prog;
	unsigned int k;

	vnp_tl_prog_copy_free(tl);
	if (!p)
		return 0;
	for (k = 0; k < VNEF_DMA_QUEUES; k++)
		if (desc_copy(tl, p, k))
			goto nomem;
	for (k = 0; k < VNEF_ENGINES; k++)
		if (instr_copy(tl, p, k))
			goto nomem;
	tl->desc_prog = p;
	return 0;
nomem:
	vnp_tl_prog_copy_free(tl);
	return -ENOMEM;
}

int vnp_tl_desc(const struct vnp_timeline *tl, const struct vnp_ev *e, unsigned int *src,
		unsigned int *dst, uint64_t *n)
{
	unsigned int q = (unsigned int)e->stream - VNEF_ENGINES, m;

	if (!tl->prog || tl->desc_prog != tl->prog)
		return -1;
	/* as vnp_prog_desc(): none for a queue out of range or past its end */
	if (q >= VNEF_DMA_QUEUES || e->pc >= tl->desc_len[q])
		return 0;
	m = tl->desc_mem[q][e->pc];
	*src = m & 3;
	*dst = m >> 2;
	*n = tl->desc_n[q][e->pc];
	return 1;
}

int vnp_tl_instr(const struct vnp_timeline *tl, const struct vnp_ev *e,
		 const struct vnp_instr_cost **c)
{
	if (!tl->prog || tl->desc_prog != tl->prog)
		return -1;
	/* as vnp_prog_instr() */
	if (e->stream >= VNEF_ENGINES || e->pc >= tl->instr_len[e->stream])
		return 0;
	*c = &tl->instr_cost[e->stream][e->pc];
	return 1;
}
