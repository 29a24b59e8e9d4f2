// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The executions compared (docs/metrics.md, "Per execution"): spreads of each one's
 * total time and engines' active time, the outliers, how the executions ended.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"

/* The executions compared (more than one): spreads and outliers. */
int vnp_exec_stats_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_exec_stats *xs = &v->m->xs;
	char t1[32], t2[32], t3[32], t4[32], line[512], head[96];
	unsigned int m, i;
	size_t n;

	if (xs->n < 2)
		return 0;
	fprintf(f, "\nExecutions (%llu): %-12s %-12s %-12s %s\n", (unsigned long long)xs->n,
		"min", "median", "max", "MAD");
	for (m = 0; m < VNP_XS_METRICS; m++) {
		if (m != VNP_XS_TOTAL && !xs->s[m].max)
			continue;
		fprintf(f, "  %-16s %-12s %-12s %-12s %s\n", vnp_xs_name(m),
			vnp_fmt_time(xs->s[m].min, t1, sizeof(t1)),
			vnp_fmt_time(xs->s[m].median, t2, sizeof(t2)),
			vnp_fmt_time(xs->s[m].max, t3, sizeof(t3)),
			vnp_fmt_time(xs->s[m].mad, t4, sizeof(t4)));
	}
	if (xs->n < VNP_XS_MIN_EXECS)
		return 0;
	if (!xs->nout)
		fprintf(f, "  no outliers (beyond median +- max(3 x MAD, 10%% of median))\n");
	for (i = 0; i < xs->nout; i++) {
		const struct vnp_xs_outlier *o = &xs->out[i];

		n = 0;
		line[0] = 0;
		for (m = 0; m < VNP_XS_METRICS; m++)
			if (o->which & 1u << m)
				n += (size_t)snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
						      "%s%s %s (median %s)", n ? ", " : "",
						      vnp_xs_name(m),
						      vnp_fmt_time(o->value[m], t1, sizeof(t1)),
						      vnp_fmt_time(xs->s[m].median, t2, sizeof(t2)));
		snprintf(head, sizeof(head), "  OUTLIER %s exec %u:",
			 v->labels && v->labels[o->core] ? v->labels[o->core] : "core", o->exec);
		vnp_wrap(f, "    ", head, line);
	}
	return 0;
}

static void spread_json(FILE *f, const struct vnp_spread *s)
{
	fprintf(f, "{\"min\":%llu,\"median\":%llu,\"max\":%llu,\"mad\":%llu}",
		(unsigned long long)s->min, (unsigned long long)s->median,
		(unsigned long long)s->max, (unsigned long long)s->mad);
}

/* ,"exec_status": EXEC_END records by status. */
int vnp_exec_status_json(FILE *f, const struct vnp_view *v)
{
	fputs(",\n\"exec_status\":", f);
	vnp_json_counts(f, vnp_exec_status_name, v->tl->exec_status, NULL, NULL,
			VNP_EXEC_STATUSES);
	return 0;
}

/* "execution_stats": the spreads (ps) and the outliers. */
int vnp_exec_stats_json(FILE *f, const struct vnp_view *v)
{
	const struct vnp_exec_stats *xs = &v->m->xs;
	unsigned int m, i, first;

	fprintf(f, ",\n\"execution_stats\":{\"count\":%llu,\"outlier_rule\":"
		"\"|x - median| > max(3 * MAD, median / 10), with at least %d executions\","
		"\"total_ps\":", (unsigned long long)xs->n, VNP_XS_MIN_EXECS);
	spread_json(f, &xs->s[VNP_XS_TOTAL]);
	fputs(",\"engine_active_ps\":{", f);
	for (m = 1; m < VNP_XS_METRICS; m++) {
		fprintf(f, "%s\"%s\":", m > 1 ? "," : "", vnp_xs_name(m));
		spread_json(f, &xs->s[m]);
	}
	fputs("},\"outliers\":[", f);
	for (i = 0; i < xs->nout; i++) {
		const struct vnp_xs_outlier *o = &xs->out[i];

		fprintf(f, "%s{\"core\":%u", i ? "," : "", o->core);
		vnp_jstr(f, "worker", v->labels && v->labels[o->core] ? v->labels[o->core] : "");
		fprintf(f, ",\"exec\":%u,\"total_ps\":%llu,\"engine_active_ps\":{", o->exec,
			(unsigned long long)o->value[VNP_XS_TOTAL]);
		for (m = 1; m < VNP_XS_METRICS; m++)
			fprintf(f, "%s\"%s\":%llu", m > 1 ? "," : "", vnp_xs_name(m),
				(unsigned long long)o->value[m]);
		fputs("},\"outlying\":[", f);
		for (m = 0, first = 1; m < VNP_XS_METRICS; m++)
			if (o->which & 1u << m) {
				fprintf(f, "%s\"%s\"", first ? "" : ",", vnp_xs_name(m));
				first = 0;
			}
		fputs("]}", f);
	}
	fputs("]}", f);
	return 0;
}
