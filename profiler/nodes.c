// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The figures of a multi-node profile (docs/metrics.md, "Nodes"): per node its busy and
 * collective time, which of its ranks' collectives cross nodes and who the others wait
 * for; the split of communication time between inter-node and intra-node groups.
 */
#include <string.h>

#include "metrics.h"

int vnp_cc_inter_node(const struct vnp_timeline *tl, const struct vnp_ev *e)
{
	const struct vnef_cc_instr *in = vnp_prog_cc(tl->prog, e->pc);
	unsigned int r = vnp_cc_rank(e), k, g, s, b, x, first, ranks;

	if (!tl->nr_nodes || e->core >= VNP_MAX_CORES)
		return 0;
	first = tl->node_first_rank[e->core];
	ranks = tl->node_ranks[e->core];
	g = in ? in->group_size : 0;
	s = g && in->group_stride ? in->group_stride : 1;
	if (!g) {		/* the whole communicator: ranks 0 .. members - 1 */
		g = vnp_cc_members(e);
		b = 0;
	} else {
		b = r - (r / s % g) * s;
	}
	for (k = 0; k < g; k++) {
		x = b + k * s;
		if (x < first || x - first >= ranks)
			return 1;
	}
	return 0;
}

/* A rank's node, or VNP_NO_RANK. */
static unsigned int rank_node(const struct vnp_timeline *tl, unsigned int rank)
{
	return rank < VNEF_CC_MAX_RANKS ? tl->rank_node[rank] : VNP_NO_RANK;
}

/* Host times on rank 0's clock: a node's clock minus its offset. */
static uint64_t on_rank0(uint64_t t, int64_t offset)
{
	if (offset >= 0)
		return t > (uint64_t)offset ? t - (uint64_t)offset : 1;
	return t + (uint64_t)-offset >= t ? t + (uint64_t)-offset : UINT64_MAX;
}

void vnp_nodes_compute(const struct vnp_timeline *tl, struct vnp_metrics *m)
{
	struct vnp_nodes *n = &m->nodes;
	unsigned int k, node, ln;
	size_t i;

	memset(n, 0, sizeof(*n));
	if (!tl->nr_nodes)
		return;
	n->nr_nodes = tl->nr_nodes;
	for (k = 0; k < tl->ncores && k < VNP_MAX_CORES; k++) {
		struct vnp_node_fig *f;
		unsigned int t = k * VNEF_STREAMS + VNEF_STREAM_CC;

		node = tl->core_node[k];
		if (node >= VNP_MAX_NODES)
			continue;
		f = &n->node[node];
		if (!f->cores++)
			n->seen++;
		f->busy_ps += m->core_compute_ps[k];
		if (tl->api_first_ns[k]) {
			uint64_t a = on_rank0(tl->api_first_ns[k], tl->host_offset_ns[k]);
			uint64_t z = on_rank0(tl->api_last_ns[k], tl->host_offset_ns[k]);

			if (!f->api_first_ns || a < f->api_first_ns)
				f->api_first_ns = a;
			if (z > f->api_last_ns)
				f->api_last_ns = z;
			f->api_error_ns = tl->host_error_ns[k];
		}
		for (i = tl->track_off[t]; i < tl->track_off[t + 1]; i++) {
			const struct vnp_ev *e = &tl->ev[i];
			uint64_t d = e->end - e->start;
			int inter;

			if (vnp_cc_op(e) == VNEF_CC_NOP)
				continue;
			inter = vnp_cc_inter_node(tl, e);
			f->cc_ps += d;
			f->cc_wait_ps += vnp_cc_wait(e);
			if (inter) {
				f->inter_ps += d;
				n->inter_ps += d;
				n->inter_xfer_ps += vnp_cc_xfer(e);
				n->inter_events++;
				ln = rank_node(tl, vnp_cc_last(e));
				if (ln != node && ln < VNP_MAX_NODES)
					n->node[ln].caused_ps += vnp_cc_wait(e);
			} else {
				n->intra_ps += d;
				n->intra_xfer_ps += vnp_cc_xfer(e);
				n->intra_events++;
			}
		}
	}
	for (i = 0; i < m->ncoll; i++) {
		const struct vnp_coll *c = &m->coll[i];

		if (c->op == VNEF_CC_NOP || !vnp_cc_inter_node(tl, &tl->ev[c->ev_last]))
			continue;
		n->inter_coll++;
		ln = rank_node(tl, c->last_rank);
		if (c->last_arrival > c->first_arrival && ln < VNP_MAX_NODES) {
			n->inter_late_coll++;
			n->node[ln].last++;
			n->node[ln].late_ps += c->last_arrival - c->first_arrival;
		}
	}
}
