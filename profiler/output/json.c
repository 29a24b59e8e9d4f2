// SPDX-License-Identifier: GPL-2.0 OR MIT
/* JSON for the summaries and the event list: numbers, strings, counts, source locations. */
#include <math.h>
#include <stdio.h>

#include "section.h"

/* ,"key":x, a member after its object's first; without a key, x alone (in an array). */
void vnp_jnum(FILE *f, const char *key, double x)
{
	if (key)
		fprintf(f, ",\"%s\":", key);
	if (isnan(x) || isinf(x))
		fputs("null", f);
	else
		fprintf(f, "%.6g", x);
}

/* Exactly (round trip): a figure the viewer prints as the text summary does. */
void vnp_jnum_exact(FILE *f, const char *key, double x)
{
	if (key)
		fprintf(f, ",\"%s\":", key);
	if (isnan(x) || isinf(x))
		fputs("null", f);
	else
		fprintf(f, "%.17g", x);
}

/* ,"key":"x", x escaped. */
void vnp_jstr(FILE *f, const char *key, const char *x)
{
	fprintf(f, ",\"%s\":", key);
	vnp_json_str(f, x);
}

void vnp_jnums(FILE *f, const double *v, unsigned int n)
{
	unsigned int i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		vnp_jnum(f, NULL, v[i]);
	}
	fputc(']', f);
}

/*
 * {"NAME":{"count":C,"KEY":T},...} of the nonzero counts, or {"NAME":C,...} without
 * times.
 */
void vnp_json_counts(FILE *f, const char *(*name)(unsigned int), const uint64_t *count,
			const uint64_t *time, const char *key, unsigned int n)
{
	unsigned int i, first = 1;

	fputc('{', f);
	for (i = 0; i < n; i++) {
		if (!count[i])
			continue;
		fprintf(f, "%s\"%s\":", first ? "" : ",", name(i));
		if (time)
			fprintf(f, "{\"count\":%llu,\"%s\":%llu}", (unsigned long long)count[i],
				key, (unsigned long long)time[i]);
		else
			fprintf(f, "%llu", (unsigned long long)count[i]);
		first = 0;
	}
	fputc('}', f);
}

void vnp_json_loc(FILE *f, const struct vnp_prog *p, const struct vnp_loc *loc)
{
	if (loc && loc->line < p->nlines) {
		fputs(",\"file\":", f);
		vnp_json_str(f, vnp_prog_str(p, p->lines[loc->line].file_off));
		fprintf(f, ",\"line\":%u", p->lines[loc->line].line);
	}
	if (loc && loc->scope != VNP_NONE) {
		fputs(",\"scope\":", f);
		vnp_json_str(f, vnp_prog_scope(p, loc->scope));
	}
}
