/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The sections of the summaries (summary.c's tables, one file per topic: sum_*.c) and the
 * text and JSON helpers they share (text.c, json.c). Every section writer has the
 * table's signature: 0, or -ENOMEM. Not installed.
 */
#ifndef VNP_SECTION_H
#define VNP_SECTION_H

#include <stdint.h>
#include <stdio.h>

#include "summary.h"

/* A section of summary-text or summary-json: its name and writer. */
struct vnp_section {
	const char *name;
	int (*write)(FILE *f, const struct vnp_view *v);
};

/* summary-text's sections, in their files (sum_*.c). */
int vnp_head_text(FILE *f, const struct vnp_view *v);
int vnp_faults_text(FILE *f, const struct vnp_view *v);
int vnp_overall_text(FILE *f, const struct vnp_view *v);
int vnp_exec_stats_text(FILE *f, const struct vnp_view *v);
int vnp_engines_text(FILE *f, const struct vnp_view *v);
int vnp_dma_text(FILE *f, const struct vnp_view *v);
int vnp_collectives_text(FILE *f, const struct vnp_view *v);
int vnp_nodes_section_text(FILE *f, const struct vnp_view *v);
int vnp_scopes_text(FILE *f, const struct vnp_view *v);
int vnp_lines_text(FILE *f, const struct vnp_view *v);
int vnp_api_text(FILE *f, const struct vnp_view *v);
int vnp_clock_text(FILE *f, const struct vnp_view *v);
int vnp_ranges_text(FILE *f, const struct vnp_view *v);
int vnp_advice_text(FILE *f, const struct vnp_view *v);

/* summary-json's members: each writes ",\n\"key\":value", the first "{\"program\":...". */
int vnp_overall_json(FILE *f, const struct vnp_view *v);
int vnp_engines_json(FILE *f, const struct vnp_view *v);
int vnp_dma_json(FILE *f, const struct vnp_view *v);
int vnp_collectives_json(FILE *f, const struct vnp_view *v);
int vnp_nodes_json(FILE *f, const struct vnp_view *v);
int vnp_sem_waits_json(FILE *f, const struct vnp_view *v);
int vnp_api_json(FILE *f, const struct vnp_view *v);
int vnp_ranges_json(FILE *f, const struct vnp_view *v);
int vnp_exec_status_json(FILE *f, const struct vnp_view *v);
int vnp_exec_stats_json(FILE *f, const struct vnp_view *v);
int vnp_faults_json(FILE *f, const struct vnp_view *v);
int vnp_scopes_json(FILE *f, const struct vnp_view *v);
int vnp_lines_json(FILE *f, const struct vnp_view *v);
int vnp_advice_json(FILE *f, const struct vnp_view *v);

/* text.c */
/* Prints text wrapped at 78 columns, every line after the first starting with indent. */
void vnp_wrap(FILE *f, const char *indent, const char *first, const char *s);
/* A series squeezed into 60 columns of " .:-=+*#%@", by the maximum of each column. */
void vnp_sparkline(FILE *f, const char *label, const double *v, unsigned int n,
		   double vmax);
/* "k.c:42" and "mlp/fc1" of a stream's entry, "" where the debug table says nothing. */
void vnp_entry_loc(const struct vnp_timeline *tl, unsigned int stream, uint32_t pc,
		   char *src, size_t srclen, const char **scope);
/* "NAME count (time); ..." of the nonzero counts into buf; a unit of time is unit_ps. */
void vnp_count_list(char *buf, size_t len, const char *(*name)(unsigned int),
		    const uint64_t *count, const uint64_t *time, uint64_t unit_ps,
		    unsigned int n);

/* json.c */
/* ,"key":x (x alone without a key); infinite or undefined: null. */
void vnp_jnum(FILE *f, const char *key, double x);
/* The same, exactly (a round trip): a figure the viewer prints as the text does. */
void vnp_jnum_exact(FILE *f, const char *key, double x);
/* ,"key":"x", x escaped. */
void vnp_jstr(FILE *f, const char *key, const char *x);
/* [x,...] */
void vnp_jnums(FILE *f, const double *v, unsigned int n);
/* {"NAME":{"count":C,"KEY":T},...} of the nonzero counts, or {"NAME":C,...} without times. */
void vnp_json_counts(FILE *f, const char *(*name)(unsigned int), const uint64_t *count,
		     const uint64_t *time, const char *key, unsigned int n);

/* sum_engines.c: a unit's figures as JSON (the engines, the DMA queues). */
void vnp_unit_json(FILE *f, const struct vnp_unit *x, uint64_t total);
/* sum_collectives.c: indices of m->coll by wait, most first; NULL without memory. */
uint32_t *vnp_coll_by_wait(const struct vnp_metrics *m);
/* sum_groups.c: a scope's or a source line's name ("(no scope)", "(no line)"). */
const char *vnp_group_name(const struct vnp_view *v, int scope, uint32_t i, char *buf,
			   size_t len);
/* sum_layers.c: range ids with executions by device time (their count), ... */
uint32_t vnp_ranges_sorted(const struct vnp_metrics *m, uint32_t *ix);
/* ... the (range, layer) pairs by range, each as a tree (malloc()ed, or NULL), ... */
uint32_t *vnp_rs_sorted(const struct vnp_metrics *m);
/* ... the first of range r's pairs in them (m->nrs if none), and a layer's name. */
uint32_t vnp_rs_first(const struct vnp_metrics *m, const uint32_t *ix, uint32_t r);
const char *vnp_layer_name(const struct vnp_metrics *m, uint32_t l);

#endif /* VNP_SECTION_H */
