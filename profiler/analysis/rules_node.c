// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The rules of a multi-node profile (docs/profiler.md): a node whose ranks the other
 * nodes wait for at collectives (straggler-node), and communication dominated by
 * collectives whose groups cross nodes (inter-node-bound). Their evidence is the node
 * figures of the metrics (nodes.c).
 */
#include <errno.h>
#include <stdio.h>

#include "rule.h"
#include "vn_comm.h"

#define cat vnp_cat

/* The critical paths' waits for the ranks of a node. */
static uint64_t node_cp_wait(const struct vnp_rctx *c, unsigned int node)
{
	uint64_t sum = 0;
	unsigned int r;

	for (r = 0; r < VNEF_CC_MAX_RANKS; r++)
		if (c->tl->rank_node[r] == node)
			sum += c->cp->cc_wait_rank[r];
	return sum;
}

/*
 * One node's ranks arrive last at most inter-node collectives, late, and the other
 * nodes' ranks wait for them: that node is slower (more work, a slower host, a late
 * start, its input). Its ranks' waits leave the others' critical paths once balanced.
 */
static int rule_node_straggler(struct vnp_rctx *c)
{
	const struct vnp_nodes *n = &c->m->nodes;
	const struct vnp_node_fig *x;
	int best = vnp_nodes_straggler(n, c->m->core_ps);
	unsigned int k, others = 0;
	uint64_t other_busy = 0;
	struct vnp_finding *f;
	char t1[32], t2[32], t3[32];

	if (best < 0)
		return 0;
	x = &n->node[best];
	for (k = 0; k < VNP_MAX_NODES; k++)
		if (k != (unsigned int)best && n->node[k].cores) {
			other_busy += n->node[k].busy_ps / n->node[k].cores;
			others++;
		}
	f = vnp_add(c, VNP_RULE_NODE_STRAGGLER, (double)node_cp_wait(c, (unsigned int)best),
		    (double)x->caused_ps / (double)c->m->core_ps);
	if (!f)
		return -ENOMEM;
	snprintf(f->title, sizeof(f->title), "Node %d is the straggler: other nodes' ranks "
		 "wait for it %llu times at inter-node collectives, %.1f%% of the time", best,
		 (unsigned long long)x->last, vnp_pct(x->caused_ps, c->m->core_ps));
	cat(f->evidence, sizeof(f->evidence), "of the %llu waits at inter-node collectives, "
	    "%llu (>= %.0f%%) were for a rank of node %d, on average %s each; the other "
	    "nodes' ranks waited %s for it (%.1f%% of core time, >= %.0f%%).",
	    (unsigned long long)n->inter_waits, (unsigned long long)x->last,
	    100 * VNP_NODE_LAST_SHARE, best,
	    vnp_fmt_time(x->caused_ps / (x->last ? x->last : 1), t1, sizeof(t1)),
	    vnp_fmt_time(x->caused_ps, t2, sizeof(t2)), vnp_pct(x->caused_ps, c->m->core_ps),
	    100 * VNP_NODE_WAIT_FRAC);
	if (others && x->cores)
		cat(f->evidence, sizeof(f->evidence), " Its workers' engines computed %s each, "
		    "the other nodes' %s on average.",
		    vnp_fmt_time(x->busy_ps / x->cores, t1, sizeof(t1)),
		    vnp_fmt_time(other_busy / others, t3, sizeof(t3)));
	snprintf(f->advice, sizeof(f->advice), "Find why node %d is late: more work for its "
		 "ranks (give them a smaller share), a slower or busier host (its API calls, "
		 "other processes), a later start or slower input; when its ranks reach the "
		 "collectives with the others, the others' waits (%s) leave their critical paths.",
		 best, vnp_fmt_time(x->caused_ps, t1, sizeof(t1)));
	return vnp_settle(c, f, -ENOTSUP, 0, "rebalancing nodes is not a mechanical change");
}

/* vnp_where() predicate: collectives whose group crosses nodes. */
static int pred_inter(const struct vnp_timeline *tl, const struct vnp_ev *e, const void *arg)
{
	(void)arg;
	return vnp_ev_is_cc(e) && vnp_cc_op(e) != VNEF_CC_NOP && vnp_cc_inter_node(tl, e);
}

/*
 * Most of the communication time is in collectives whose groups cross nodes: the data
 * crosses the network between machines. Keeping groups within a node, or reducing
 * within each node first, moves the bulk onto the node's own links.
 */
static int rule_inter_node(struct vnp_rctx *c)
{
	const struct vnp_nodes *n = &c->m->nodes;
	uint64_t cc = n->inter_ps + n->intra_ps;
	struct vnp_finding *f;
	char t1[32], t2[32], t3[32], where[512];

	if (n->seen < 2 || !cc || (double)n->inter_ps < VNP_INTER_FRAC * (double)cc ||
	    (double)cc < VNP_INTER_MIN_FRAC * (double)c->m->core_ps)
		return 0;
	/* an estimate: half the inter-node transfers, per core, leave the path */
	f = vnp_add(c, VNP_RULE_INTER_NODE_BOUND,
		    (double)n->inter_xfer_ps / (2.0 * (c->tl->ncores ? c->tl->ncores : 1)),
		    (double)n->inter_ps / (double)c->m->core_ps);
	if (!f)
		return -ENOMEM;
	snprintf(f->title, sizeof(f->title), "Inter-node collectives take %.1f%% of the "
		 "communication time (%llu of %llu collective events cross nodes)",
		 vnp_pct(n->inter_ps, cc), (unsigned long long)n->inter_events,
		 (unsigned long long)(n->inter_events + n->intra_events));
	vnp_where(c->tl, pred_inter, NULL, where, sizeof(where));
	cat(f->evidence, sizeof(f->evidence), "collectives whose group holds ranks of more "
	    "than one node: %s of the ranks' time in collectives (%s moving data), against %s "
	    "in groups within a node (> %.0f%%); collectives are %.1f%% of core time.",
	    vnp_fmt_time(n->inter_ps, t1, sizeof(t1)),
	    vnp_fmt_time(n->inter_xfer_ps, t2, sizeof(t2)),
	    vnp_fmt_time(n->intra_ps, t3, sizeof(t3)),
	    100 * VNP_INTER_FRAC, vnp_pct(cc, c->m->core_ps));
	if (where[0])
		cat(f->evidence, sizeof(f->evidence), " Where: %s.", where);
	snprintf(f->advice, sizeof(f->advice), "Keep the bulk of the data within nodes: "
		 "reduce-scatter inside each node, all-reduce the shards across nodes (a group "
		 "of stride ranks-per-node) and all-gather inside the node again, or place the "
		 "ranks that exchange the most on one node; the inter-node transfers then carry "
		 "1/ranks-per-node of the bytes.");
	return vnp_settle(c, f, -ENOTSUP, 0, "regrouping collectives is not a mechanical change");
}

VNP_RULE_DEF(straggler_node, NODE_STRAGGLER, "straggler-node", rule_node_straggler,
	     "the waits at inter-node collectives per node waited for, their share of "
	     "core time, on the critical paths",
	     VNP_THR(VNP_NODE_LAST_SHARE) VNP_THR(VNP_NODE_WAIT_FRAC));

VNP_RULE_DEF(inter_node_bound, INTER_NODE_BOUND, "inter-node-bound", rule_inter_node,
	     "the collective time in groups that cross nodes against within one, the "
	     "collectives' share of core time",
	     VNP_THR(VNP_INTER_FRAC) VNP_THR(VNP_INTER_MIN_FRAC));
