// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The advice (docs/profiler.md, "Analysis and advice"): each finding in rank order with
 * its evidence, advice and gain (replayed or estimated).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"

int vnp_advice_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_analysis *a = v->a;
	char line[512];
	unsigned int i, nrep = 0;

	for (i = 0; i < a->n; i++)
		nrep += !!a->f[i].replayed;
	fprintf(f, "\nAdvice (%u finding%s", a->n, a->n == 1 ? "" : "s");
	if (a->n)
		fprintf(f, ": %u gain%s replayed, %u estimated", nrep, nrep == 1 ? "" : "s",
			a->n - nrep);
	fputs(")\n", f);
	if (!a->n)
		fprintf(f, "  none: no rule found evidence of a problem\n");
	for (i = 0; i < a->n; i++) {
		snprintf(line, sizeof(line), "  %u. [%s] ", i + 1, vnp_rule_id(a->f[i].rule));
		vnp_wrap(f, "     ", line, a->f[i].title);
		vnp_wrap(f, "     ", "     evidence:", a->f[i].evidence);
		vnp_wrap(f, "     ", "     advice:", a->f[i].advice);
		vnp_wrap(f, "     ", "     gain:", a->f[i].gain);
		/* the first finding's is the then: line below */
		if (i && a->f[i].then.cls != VNP_CLASS_NONE)
			vnp_wrap(f, "     ", "     after it:", a->f[i].then.text);
	}
	if (a->next[0])
		vnp_wrap(f, "    ", "  then:", a->next);
	return 0;
}

/* "then": the replayed program's second analysis after this finding's fix. */
static void then_json(FILE *f, const struct vnp_after *t)
{
	char n1[32];

	fputs(",\"then\":{", f);
	fprintf(f, "\"class\":\"%s\"", vnp_class_name(t->cls));
	vnp_jstr(f, "class_label", t->label);
	vnp_jstr(f, "fix", t->fix);
	vnp_jstr(f, "busiest", t->unit == VNP_NONE ? "" :
		 vnp_stream_name(t->unit, n1, sizeof(n1)));
	vnp_jstr(f, "first_rule", t->has_rule ? vnp_rule_id(t->rule) : "");
	vnp_jstr(f, "text", t->text);
	fputc('}', f);
}

int vnp_advice_json(FILE *f, const struct vnp_view *v)
{
	const struct vnp_analysis *a = v->a;
	unsigned int i;

	fputs(",\n\"advice\":[", f);
	for (i = 0; i < a->n; i++) {
		fprintf(f, "%s\n {\"rule\":\"%s\"", i ? "," : "", vnp_rule_id(a->f[i].rule));
		vnp_jnum(f, "impact", a->f[i].impact);
		vnp_jstr(f, "title", a->f[i].title);
		vnp_jstr(f, "evidence", a->f[i].evidence);
		vnp_jstr(f, "advice", a->f[i].advice);
		fprintf(f, ",\"saved_ps\":%.0f,\"replayed\":%s", a->f[i].saved_ps,
			a->f[i].replayed ? "true" : "false");
		if (a->f[i].replayed)
			fprintf(f, ",\"before_ps\":%llu,\"after_ps\":%llu",
				(unsigned long long)a->f[i].before_ps,
				(unsigned long long)a->f[i].after_ps);
		vnp_jstr(f, "gain", a->f[i].gain);
		if (a->f[i].then.cls != VNP_CLASS_NONE)
			then_json(f, &a->f[i].then);
		fputc('}', f);
	}
	fputc(']', f);
	if (a->next[0])
		vnp_jstr(f, "next_bound", a->next);
	return 0;
}
