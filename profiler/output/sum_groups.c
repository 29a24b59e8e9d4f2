// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Scopes and source lines (docs/metrics.md): the top ones by time in the text, all of
 * them in JSON with their figures, scopes with their class.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"

const char *vnp_group_name(const struct vnp_view *v, int scope, uint32_t i, char *buf,
			      size_t len)
{
	const struct vnp_prog *p = v->tl->prog;

	if (scope)
		snprintf(buf, len, "%s", i < v->m->nscopes ? vnp_prog_scope(p, i) : "(no scope)");
	else if (i < v->m->nlines)
		vnp_prog_line(p, i, buf, len);
	else
		snprintf(buf, len, "(no line)");
	return buf;
}

static const struct vnp_group *sort_groups;

static int cmp_group(const void *x, const void *y)
{
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;

	/* most time first */
	return vnp_cmp(sort_groups[j].instr_ps, sort_groups[i].instr_ps) ?: vnp_cmp(i, j);
}

static int groups_text(FILE *f, const struct vnp_view *v, int scope)
{
	const struct vnp_metrics *m = v->m;
	const struct vnp_group *g = scope ? m->scope : m->line;
	uint32_t n = (scope ? m->nscopes : m->nlines) + 1, i, k, *idx, used = 0;
	uint64_t all = 0;
	char name[256], t1[32];

	idx = malloc(n * sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (g[i].count)
			idx[used++] = i;
		all += g[i].instr_ps;
	}
	if (!used || (used == 1 && idx[0] == n - 1)) {
		free(idx);
		return 0;
	}
	sort_groups = g;
	qsort(idx, used, sizeof(*idx), cmp_group);
	fprintf(f, "\n%s (top %u of %u, by instruction + DMA time)\n",
		scope ? "Scopes" : "Source lines", used < v->top ? used : v->top, used);
	fprintf(f, "  %-28s %7s %6s %11s  %s\n", scope ? "scope" : "line", "count", "time%",
		"active", scope ? "class" : "");
	for (k = 0; k < used && k < v->top; k++) {
		i = idx[k];
		vnp_group_name(v, scope, i, name, sizeof(name));
		/*
		 * too long for the column: a scope path keeps its start (the outer layers
		 * name it), a source line its end (the file's name and the line number)
		 */
		if (strlen(name) > 28 && scope) {
			memcpy(name + 25, "...", 4);
		} else if (strlen(name) > 28) {
			memmove(name + 3, name + strlen(name) - 25, 26);
			memcpy(name, "...", 3);
		}
		/* 78 columns with the longest class, communication-bound */
		fprintf(f, "  %-28s %7llu %5.1f%% %11s  %s\n", name,
			(unsigned long long)g[i].count, vnp_pct(g[i].instr_ps, all),
			vnp_fmt_time(g[i].active_ps, t1, sizeof(t1)),
			scope ? vnp_class_name(v->a->scope[i].cls) : "");
	}
	free(idx);
	return 0;
}

int vnp_scopes_text(FILE *f, const struct vnp_view *v)
{
	return groups_text(f, v, 1);
}

int vnp_lines_text(FILE *f, const struct vnp_view *v)
{
	return groups_text(f, v, 0);
}

static void groups_json(FILE *f, const struct vnp_view *v, int scope)
{
	const struct vnp_metrics *m = v->m;
	const struct vnp_group *g = scope ? m->scope : m->line;
	uint32_t n = (scope ? m->nscopes : m->nlines) + 1, i, first = 1, u;
	char name[512];

	fputc('[', f);
	for (i = 0; i < n; i++) {
		const struct vnp_group *x = &g[i];
		uint64_t span = x->count ? x->span_ps : 0;

		if (!x->count)
			continue;
		fputs(first ? "\n  {" : ",\n  {", f);
		first = 0;
		fputs(scope ? "\"scope\":" : "\"line\":", f);
		vnp_json_str(f, vnp_group_name(v, scope, i, name, sizeof(name)));
		fprintf(f, ",\"count\":%llu,\"instr_ps\":%llu,\"active_ps\":%llu,\"first_ps\":%llu,"
			"\"last_ps\":%llu,\"tensor_flops\":%llu,\"transpose_flops\":%llu,"
			"\"hbm_read\":%llu,\"hbm_write\":%llu,\"dma_bytes\":%llu,"
			"\"dma_count\":%llu",
			(unsigned long long)x->count, (unsigned long long)x->instr_ps,
			(unsigned long long)x->active_ps, (unsigned long long)x->first,
			(unsigned long long)x->last, (unsigned long long)x->flops,
			(unsigned long long)x->transpose_flops, (unsigned long long)x->hbm_read,
			(unsigned long long)x->hbm_write, (unsigned long long)x->dma_bytes,
			(unsigned long long)x->dma_count);
		vnp_jnum(f, "hfu",
			 span ? (double)x->flops / (m->peak_flops * (double)span * 1e-12) : 0);
		fputs(",\"engine_flops\":{", f);
		for (u = 0; u < VNEF_ENGINES; u++)
			fprintf(f, "%s\"%s\":%llu", u ? "," : "", vnp_engine_name(u),
				(unsigned long long)x->eng_flops[u]);
		fputc('}', f);
		fputs(",\"engine_ps\":{", f);
		for (u = 0; u < VNP_UNITS; u++)
			fprintf(f, "%s\"%s\":%llu", u ? "," : "", vnp_engine_name(u),
				(unsigned long long)x->unit_ps[u]);
		fputc('}', f);
		if (scope) {
			fprintf(f, ",\"class\":\"%s\"", vnp_class_name(v->a->scope[i].cls));
			vnp_jstr(f, "label", v->a->scope[i].label);
			fprintf(f, ",\"span_ps\":%llu", (unsigned long long)x->span_ps);
			vnp_jstr(f, "why", v->a->scope[i].why);
		}
		fputc('}', f);
	}
	fputs("]", f);
}

int vnp_scopes_json(FILE *f, const struct vnp_view *v)
{
	fputs(",\n\"scopes\":", f);
	groups_json(f, v, 1);
	return 0;
}

int vnp_lines_json(FILE *f, const struct vnp_view *v)
{
	fputs(",\n\"lines\":", f);
	groups_json(f, v, 0);
	return 0;
}
