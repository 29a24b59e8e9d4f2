/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The view outputs: summaries, the full json event list and the Perfetto trace. */
#ifndef VNP_SUMMARY_H
#define VNP_SUMMARY_H

#include <stdio.h>

#include "../analysis/analyze.h"

struct vnp_view {
	const struct vnp_timeline *tl;
	const struct vnp_metrics *m;
	const struct vnp_analysis *a;
	const char *program_path;
	const char *profile_path;
	/* labels[core slot]: "worker 1 core 0" (NULL, or a NULL entry: "core N") */
	const char *const *labels;
	unsigned int top;		/* rows of the scope and line tables (text) */
};

/* The "Nodes" table of a multi-node profile (docs/metrics.md, "Nodes"). */
void vnp_nodes_text(FILE *f, const struct vnp_nodes *n);
/*
 * The summary of a run too big for the timeline: the node table and the straggler
 * node from vnp_nodes_scan(). 0 or -EIO.
 */
int vnp_nodes_summary_text(FILE *f, const struct vnp_nodes *n, uint64_t core_ps,
			   const char *program_path, unsigned int nfiles);
/* 0 or -EIO (a write failed). */
int vnp_summary_text(FILE *f, const struct vnp_view *v);
int vnp_summary_json(FILE *f, const struct vnp_view *v);
/* ,"file":"k.c","line":42,"scope":"mlp/fc1" of an entry, as far as loc has them. */
void vnp_json_loc(FILE *f, const struct vnp_prog *p, const struct vnp_loc *loc);
/* Every instruction and descriptor in start order, with its program entry. */
int vnp_json_events(FILE *f, const struct vnp_view *v);
/*
 * diff: B against A, per execution (docs/profiler.md, "diff"); the paths as the text
 * names the profiles. 0 or -EIO.
 */
int vnp_diff_text(FILE *f, const struct vnp_view *a, const char *a_path,
		  const struct vnp_view *b, const char *b_path);
/* A Perfetto trace (protobuf, Perfetto's trace.proto numbering). 0, -ENOMEM or -EIO. */
int vnp_perfetto(FILE *f, const struct vnp_view *v);

#endif /* VNP_SUMMARY_H */
