// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The figures of a multi-node profile (docs/metrics.md, "Nodes"): per node its engine
 * and collective time, which of its ranks' collectives cross nodes and who the others
 * wait for; the split of communication time between inter-node and intra-node groups.
 * Every figure is a sum over single records, so the same code serves the timeline
 * (vnp_nodes_compute()) and a streaming pass over files too many for one
 * (vnp_nodes_scan() in profile.c).
 */
#include <string.h>

#include "metrics.h"

int vnp_cc_spans_nodes(const struct vnp_prog *prog, uint32_t pc, unsigned int rank,
		       unsigned int members, unsigned int first, unsigned int ranks)
{
	const struct vnef_cc_instr *in = vnp_prog_cc(prog, pc);
	unsigned int k, g, s, b, x;

	if (!in || !members) {
		/* no instruction (another program): members consecutive ranks, a guess */
		g = members ? members : 1;
		s = 1;
		b = rank - rank % g;
	} else if (!in->group_size) {
		/* the whole communicator: ranks 0 .. members - 1 */
		g = members;
		s = 1;
		b = 0;
	} else {
		g = in->group_size;
		s = in->group_stride ? in->group_stride : 1;
		b = rank - (rank / s % g) * s;
	}
	for (k = 0; k < g; k++) {
		x = b + k * s;
		if (x < first || x - first >= ranks)
			return 1;
	}
	return 0;
}

int vnp_cc_inter_node(const struct vnp_timeline *tl, const struct vnp_ev *e)
{
	if (!tl->nr_nodes || e->core >= VNP_MAX_CORES)
		return 0;
	return vnp_cc_spans_nodes(tl->prog, e->pc, vnp_cc_rank(e), vnp_cc_members(e),
				  tl->node_first_rank[e->core], tl->node_ranks[e->core]);
}

/* Host times on rank 0's clock: a node's clock minus its offset. */
static uint64_t on_rank0(uint64_t t, int64_t offset)
{
	if (offset >= 0)
		return t > (uint64_t)offset ? t - (uint64_t)offset : 1;
	return t + (uint64_t)-offset >= t ? t + (uint64_t)-offset : UINT64_MAX;
}

void vnp_nodes_api(struct vnp_nodes *n, unsigned int node, uint64_t first_ns,
		   uint64_t last_ns, int64_t offset_ns, uint64_t error_ns)
{
	struct vnp_node_fig *f;
	uint64_t a, z;

	if (node >= VNP_MAX_NODES)
		return;
	f = &n->node[node];
	/* the node's, whether it made calls or not */
	f->clock_offset_ns = offset_ns;
	f->api_error_ns = error_ns;
	if (!first_ns)
		return;
	a = on_rank0(first_ns, offset_ns);
	z = on_rank0(last_ns, offset_ns);
	if (!f->api_first_ns || a < f->api_first_ns)
		f->api_first_ns = a;
	if (z > f->api_last_ns)
		f->api_last_ns = z;
}

void vnp_nodes_cc(struct vnp_nodes *n, const struct vnp_prog *prog, const uint16_t *rank_node,
		  const struct vnp_node_cc *c)
{
	struct vnp_node_fig *f;
	uint64_t d = c->end - c->start;
	unsigned int ln;

	if (c->node >= VNP_MAX_NODES || c->op == VNEF_CC_NOP)
		return;
	f = &n->node[c->node];
	f->cc_ps += d;
	f->cc_wait_ps += c->wait;
	if (!vnp_cc_spans_nodes(prog, c->pc, c->rank, c->members, c->first, c->ranks)) {
		n->intra_ps += d;
		n->intra_xfer_ps += d - c->wait;
		n->intra_events++;
		return;
	}
	f->inter_ps += d;
	n->inter_ps += d;
	n->inter_xfer_ps += d - c->wait;
	n->inter_events++;
	if (!c->wait)
		return;
	/* this rank waited at an inter-node collective: for whom? */
	n->inter_waits++;
	ln = c->last < VNEF_CC_MAX_RANKS ? rank_node[c->last] : VNP_NO_RANK;
	if (ln != c->node && ln < VNP_MAX_NODES) {
		n->node[ln].last++;
		n->node[ln].caused_ps += c->wait;
	}
}

void vnp_nodes_compute(const struct vnp_timeline *tl, struct vnp_metrics *m)
{
	struct vnp_nodes *n = &m->nodes;
	unsigned int k, s;
	size_t i;

	memset(n, 0, sizeof(*n));
	if (!tl->nr_nodes)
		return;
	n->nr_nodes = tl->nr_nodes;
	for (k = 0; k < tl->ncores && k < VNP_MAX_CORES; k++) {
		unsigned int node = tl->core_node[k], t = k * VNEF_STREAMS + VNEF_STREAM_CC;
		struct vnp_node_fig *f;

		if (node >= VNP_MAX_NODES)
			continue;
		f = &n->node[node];
		if (!f->cores++)
			n->seen++;
		for (s = 0; s < VNEF_ENGINES; s++) {
			unsigned int te = k * VNEF_STREAMS + s;

			for (i = tl->track_off[te]; i < tl->track_off[te + 1]; i++)
				f->busy_ps += vnp_tl_dur(tl, i);
		}
		vnp_nodes_api(n, node, tl->api_first_ns[k], tl->api_last_ns[k],
			      tl->host_offset_ns[k], tl->host_error_ns[k]);
		for (i = tl->track_off[t]; i < tl->track_off[t + 1]; i++) {
			const struct vnp_ev e_copy = vnp_tl_ev(tl, i), *e = &e_copy;
			struct vnp_node_cc c = {
				.node = node, .first = tl->node_first_rank[k],
				.ranks = tl->node_ranks[k], .op = vnp_cc_op(e), .pc = e->pc,
				.rank = vnp_cc_rank(e), .members = vnp_cc_members(e),
				.last = vnp_cc_last(e), .start = e->start, .end = e->end,
				.wait = vnp_cc_wait(e),
			};

			vnp_nodes_cc(n, tl->prog, tl->rank_node, &c);
		}
	}
}

int vnp_nodes_straggler(const struct vnp_nodes *n, uint64_t core_ps)
{
	unsigned int k, best = 0;

	if (n->seen < 2 || !n->inter_waits || !core_ps)
		return -1;
	for (k = 1; k < VNP_MAX_NODES; k++)
		if (n->node[k].caused_ps > n->node[best].caused_ps)
			best = k;
	if ((double)n->node[best].last < VNP_NODE_LAST_SHARE * (double)n->inter_waits ||
	    (double)n->node[best].caused_ps < VNP_NODE_WAIT_FRAC * (double)core_ps)
		return -1;
	return (int)best;
}
