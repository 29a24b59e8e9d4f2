// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A group's totals (struct vnp_group: a scope, a source line, a range, a range's layer):
 * counts, times, their union and span per execution, flops and bytes, as the sweep
 * adds events in start order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "metrics_priv.h"
#include "vn_isa.h"

/* Closes the group's span in an execution of core k. */
void vnp_group_close(struct vnp_group *g, unsigned int k)
{
	if (g->ex_open & (1ull << k))
		g->span_ps += g->ex_last[k] - g->ex_first[k];
	g->ex_open &= ~(1ull << k);
}

void vnp_group_add(struct vnp_group *g, const struct vnp_ev *e, unsigned int unit,
		   int transpose, uint64_t hr, uint64_t hw, uint64_t fixed)
{
	uint64_t d = e->end - e->start;
	unsigned int k = e->core % VNP_MAX_CORES;

	if (!g->count) {
		g->first = e->start;
		g->last = e->end;
	}
	if (!(g->ex_open & (1ull << k)) || g->ex_seq[k] != e->exec) {
		vnp_group_close(g, k);
		g->ex_open |= 1ull << k;
		g->ex_seq[k] = e->exec;
		g->ex_first[k] = e->start;
		g->ex_last[k] = e->end;
	}
	g->ex_last[k] = u64max(g->ex_last[k], e->end);
	g->count++;
	g->instr_ps += d;
	/* a collective's part is its transfer: its wait is another rank's */
	g->unit_ps[unit] += unit == VNP_UNIT_CC ? vnp_cc_xfer(e) : d;
	g->fixed_ps[unit] += fixed;
	if (e->opcode == VNP_OP_DMA && e->stream >= VNEF_ENGINES)
		g->queue_ps[e->stream - VNEF_ENGINES] += d;
	g->last = u64max(g->last, e->end);
	/* union in start order */
	if (e->start >= g->cur_end)
		g->active_ps += d;
	else if (e->end > g->cur_end)
		g->active_ps += e->end - g->cur_end;
	g->cur_end = u64max(g->cur_end, e->end);
	if (unit == VNEURON_ENGINE_TENSOR)
		g->flops += e->flops;
	if (unit < VNEF_ENGINES && e->opcode != VNP_OP_DMA)
		g->eng_flops[unit] += e->flops;
	if (transpose)
		g->transpose_flops += e->flops;
	if (unit == VNP_UNIT_CC) {
		g->cc_count++;
		g->cc_wait_ps += vnp_cc_wait(e);
	}
	if (e->opcode == VNP_OP_DMA) {
		g->dma_bytes += e->bytes;
		g->dma_count++;
		g->hbm_read += hr;
		g->hbm_write += hw;
	}
}
