// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * summary-text (fits an 80-column terminal) and summary-json: each a table of sections
 * written in turn (one file per topic, section.h), so adding a section is its writer and
 * one line here (docs/development.md, "Adding an output").
 */
#include <errno.h>
#include <stdio.h>

#include "section.h"

/* summary-text, top to bottom. */
static const struct vnp_section text_sections[] = {
	{ "head", vnp_head_text },
	{ "faults", vnp_faults_text },
	{ "overall", vnp_overall_text },
	{ "executions", vnp_exec_stats_text },
	{ "engines", vnp_engines_text },
	{ "dma", vnp_dma_text },
	{ "collectives", vnp_collectives_text },
	{ "nodes", vnp_nodes_section_text },
	{ "scopes", vnp_scopes_text },
	{ "lines", vnp_lines_text },
	{ "api_calls", vnp_api_text },
	{ "clock", vnp_clock_text },
	{ "ranges", vnp_ranges_text },
	{ "advice", vnp_advice_text },
};

/* summary-json's members, in order: each writes ",\n\"key\":value" (the first opens). */
static const struct vnp_section json_sections[] = {
	{ "overall", vnp_overall_json },
	{ "engines", vnp_engines_json },
	{ "dma", vnp_dma_json },
	{ "collectives", vnp_collectives_json },
	{ "nodes", vnp_nodes_json },
	{ "semaphore_waits", vnp_sem_waits_json },
	{ "api_calls", vnp_api_json },
	{ "ranges", vnp_ranges_json },
	{ "exec_status", vnp_exec_status_json },
	{ "execution_stats", vnp_exec_stats_json },
	{ "faults", vnp_faults_json },
	{ "scopes", vnp_scopes_json },
	{ "lines", vnp_lines_json },
	{ "advice", vnp_advice_json },
};

#define NSECTIONS(t)	(sizeof(t) / sizeof((t)[0]))

static int write_sections(FILE *f, const struct vnp_view *v, const struct vnp_section *s,
			  size_t n)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = s[i].write(f, v);
		if (ret)
			return ret;
	}
	return 0;
}

int vnp_summary_text(FILE *f, const struct vnp_view *v)
{
	int ret = write_sections(f, v, text_sections, NSECTIONS(text_sections));

	return ret ?: ferror(f) ? -EIO : 0;
}

int vnp_summary_json(FILE *f, const struct vnp_view *v)
{
	int ret = write_sections(f, v, json_sections, NSECTIONS(json_sections));

	if (ret)
		return ret;
	fputs("}\n", f);
	return ferror(f) ? -EIO : 0;
}
