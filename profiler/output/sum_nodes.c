// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Nodes of a multi-node profile (docs/metrics.md, "Nodes"): per node its cores, busy
 * and collective time, the others' waits for it and its host API calls; the inter/intra-
 * node split; the node summary of a run too big for a timeline (docs/scaling.md).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"

/*
 * A multi-node profile's nodes (docs/metrics.md, "Nodes"): per node its cores, busy
 * and collective time, the others' waits for it and its API calls on rank 0's clock;
 * then collective time in groups that cross nodes against groups within one.
 */
void vnp_nodes_text(FILE *f, const struct vnp_nodes *n)
{
	uint64_t api0 = UINT64_MAX, cc = n->inter_ps + n->intra_ps;
	char t1[32], t2[32], t3[32], t4[32], t5[32], api[80];
	unsigned int k;

	if (!n->nr_nodes)
		return;
	for (k = 0; k < VNP_MAX_NODES; k++)
		if (n->node[k].api_first_ns && n->node[k].api_first_ns < api0)
			api0 = n->node[k].api_first_ns;
	fprintf(f, "\nNodes: %u of %u in the profile (times summed over each node's cores and "
		"executions)\n", n->seen, n->nr_nodes);
	fprintf(f, "  %-5s %5s %12s %12s %12s %12s %14s  %s\n", "node", "cores", "busy",
		"collectives", "inter-node", "its waits", "others waited", "host API calls "
		"(rank 0's clock)");
	for (k = 0; k < VNP_MAX_NODES; k++) {
		const struct vnp_node_fig *x = &n->node[k];

		if (!x->cores)
			continue;
		if (x->api_first_ns)
			snprintf(api, sizeof(api), "+%.3f..+%.3f ms +-%.3f us",
				 (double)(x->api_first_ns - api0) / 1e6,
				 (double)(x->api_last_ns - api0) / 1e6,
				 (double)x->api_error_ns / 1e3);
		else
			snprintf(api, sizeof(api), "-");
		fprintf(f, "  %-5u %5u %12s %12s %12s %12s %14s  %s\n", k, x->cores,
			vnp_fmt_time(x->busy_ps, t1, sizeof(t1)),
			vnp_fmt_time(x->cc_ps, t2, sizeof(t2)),
			vnp_fmt_time(x->inter_ps, t3, sizeof(t3)),
			vnp_fmt_time(x->cc_wait_ps, t4, sizeof(t4)),
			vnp_fmt_time(x->caused_ps, t5, sizeof(t5)), api);
	}
	fprintf(f, "  communication: inter-node %s (%.1f%%, %llu events, %s moving data), "
		"intra-node %s (%llu events, %s moving data)\n",
		vnp_fmt_time(n->inter_ps, t1, sizeof(t1)), vnp_pct(n->inter_ps, cc),
		(unsigned long long)n->inter_events,
		vnp_fmt_time(n->inter_xfer_ps, t2, sizeof(t2)),
		vnp_fmt_time(n->intra_ps, t3, sizeof(t3)), (unsigned long long)n->intra_events,
		vnp_fmt_time(n->intra_xfer_ps, t4, sizeof(t4)));
}

int vnp_nodes_summary_text(FILE *f, const struct vnp_nodes *n, uint64_t core_ps,
			   const char *program_path, unsigned int nfiles)
{
	int s = vnp_nodes_straggler(n, core_ps);
	char t1[32];

	fprintf(f, "vneuron-profile: %s, %u profiles (node figures from a streaming pass: "
		"docs/scaling.md)\n", program_path, nfiles);
	vnp_nodes_text(f, n);
	if (s >= 0)
		fprintf(f, "  straggler node: %d (other nodes' ranks waited for it %llu times, "
			"%s, %.1f%% of the workers' time)\n", s,
			(unsigned long long)n->node[s].last,
			vnp_fmt_time(n->node[s].caused_ps, t1, sizeof(t1)),
			vnp_pct(n->node[s].caused_ps, core_ps));
	else
		fprintf(f, "  straggler node: none (docs/profiler.md, straggler-node)\n");
	return ferror(f) ? -EIO : 0;
}

int vnp_nodes_section_text(FILE *f, const struct vnp_view *v)
{
	vnp_nodes_text(f, &v->m->nodes);
	return 0;
}

/* ,"nodes":{...} of a multi-node profile (docs/metrics.md, "Nodes"); nothing otherwise. */
int vnp_nodes_json(FILE *f, const struct vnp_view *v)
{
	const struct vnp_nodes *n = &v->m->nodes;
	unsigned int k, first = 1;

	if (!n->nr_nodes)
		return 0;
	fprintf(f, ",\n\"nodes\":{\"count\":%u,\"seen\":%u,\"inter_node_ps\":%llu,"
		"\"intra_node_ps\":%llu,\"inter_node_transfer_ps\":%llu,"
		"\"intra_node_transfer_ps\":%llu,\"inter_node_events\":%llu,"
		"\"intra_node_events\":%llu,\"inter_node_waits\":%llu,\"per_node\":[",
		n->nr_nodes, n->seen, (unsigned long long)n->inter_ps,
		(unsigned long long)n->intra_ps, (unsigned long long)n->inter_xfer_ps,
		(unsigned long long)n->intra_xfer_ps, (unsigned long long)n->inter_events,
		(unsigned long long)n->intra_events, (unsigned long long)n->inter_waits);
	for (k = 0; k < VNP_MAX_NODES; k++) {
		const struct vnp_node_fig *x = &n->node[k];

		if (!x->cores)
			continue;
		fprintf(f, "%s{\"node\":%u,\"cores\":%u,\"busy_ps\":%llu,\"collective_ps\":%llu,"
			"\"wait_ps\":%llu,\"inter_node_ps\":%llu,\"waited_for\":%llu,"
			"\"others_waited_ps\":%llu,\"api_first_ns\":%llu,\"api_last_ns\":%llu,"
			"\"clock_offset_ns\":%lld,\"clock_error_ns\":%llu}", first ? "" : ",", k,
			x->cores,
			(unsigned long long)x->busy_ps, (unsigned long long)x->cc_ps,
			(unsigned long long)x->cc_wait_ps, (unsigned long long)x->inter_ps,
			(unsigned long long)x->last, (unsigned long long)x->caused_ps,
			(unsigned long long)x->api_first_ns, (unsigned long long)x->api_last_ns,
			(long long)x->clock_offset_ns, (unsigned long long)x->api_error_ns);
		first = 0;
	}
	fputs("]}", f);
	return 0;
}
