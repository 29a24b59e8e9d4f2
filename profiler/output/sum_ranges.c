// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The host side of an application's profile (docs/capture.md, "Application ranges",
 * "Launch gaps"; docs/profiler.md, "One clock"): API calls, the host clock's mapping error, launch gaps,
 * the ranges by device time and each range's device time by the program's layers.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"

static int cmp_u64_desc(const void *x, const void *y)
{
	return vnp_cmp(*(const uint64_t *)y, *(const uint64_t *)x);
}

/*
 * Range r's device time by layer, as a tree ("fc1  41.0% of its device time, memory-bound"):
 * the layers whose span is among the top v->top (ties kept; a parent's span is at least
 * its children's, so every shown layer's parent is shown).
 */
static void range_layers_text(FILE *f, const struct vnp_view *v, const uint32_t *ix,
			      uint32_t r)
{
	const struct vnp_metrics *m = v->m;
	uint32_t i = vnp_rs_first(m, ix, r), k, n, shown = 0, top = v->top ? v->top : 10;
	uint64_t *spans, cut;
	char name[160], t1[32];

	for (n = 0; i + n < m->nrs && m->rs[ix[i + n]].range == r; n++)
		;
	if (!n)
		return;
	spans = malloc(n * sizeof(*spans));
	if (!spans)
		return;
	for (k = 0; k < n; k++)
		spans[k] = m->rs[ix[i + k]].g.span_ps;
	qsort(spans, n, sizeof(*spans), cmp_u64_desc);
	cut = spans[(n < top ? n : top) - 1];
	free(spans);
	for (k = 0; k < n; k++) {
		const struct vnp_range_layer *x = &m->rs[ix[i + k]];
		const char *full = vnp_layer_name(m, x->layer), *last = strrchr(full, '/');
		unsigned int depth = x->layer < m->nlayers ? m->layer[x->layer].depth : 1;

		if (x->g.span_ps < cut)
			continue;
		shown++;
		snprintf(name, sizeof(name), "%*s%s", 2 * (depth > 8 ? 8 : depth - 1), "",
			 x->layer < m->nlayers && last ? last + 1 : full);
		fprintf(f, "      %-28.128s %5.1f%% of its device time (%s), %s\n", name,
			vnp_pct(x->g.span_ps, m->range[r].device_ps),
			vnp_fmt_time(x->g.span_ps, t1, sizeof(t1)),
			v->a && v->a->range_scope ? v->a->range_scope[ix[i + k]].label : "");
	}
	if (shown < n)
		fprintf(f, "      ... and %u more layers\n", n - shown);
}

static const char *range_label(const struct vnp_view *v, uint32_t i)
{
	return i < v->m->nranges ? vnp_range_name(v->tl, i) : "(no range)";
}

int vnp_api_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	char line[512];

	vnp_count_list(line, sizeof(line), vnp_api_name, tl->api_calls, tl->api_ns, 1000,
		   VNP_API_KINDS);
	if (*line) {
		fputc('\n', f);
		vnp_wrap(f, "    ", "Host API calls (count, host time):", line);
	}
	return 0;
}

/* The time axis: the host clock's mapping error (docs/profiler.md "One clock"). */
int vnp_clock_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	char t1[32], t2[32];

	if (!tl->host_clock)
		return 0;
	if (tl->map_unplaced == tl->nexec) {
		fprintf(f, "\nClock: host (no execution has an EXEC_START host time: laid out "
			"one after another)\n");
		return 0;
	}
	if (tl->host_slowdown >= VNP_HOST_SLOW) {
		/*
		 * Emulated: an execution's host span is its modeled span times the slowdown,
		 * so the span term of the error is the emulation, not the mapping's.
		 */
		fprintf(f, "\nClock: host (executions at their EXEC_START host time, device work "
			"on the model's clock inside each; the host clock runs %.0fx slower than "
			"the model here (emulated device: a median execution's host span over its "
			"modeled span), so device work fills 1/%.0f of each execution's host time; "
			"starts placed within median %s, max %s of their host time",
			tl->host_slowdown, tl->host_slowdown,
			vnp_fmt_time(tl->start_err_median, t1, sizeof(t1)),
			vnp_fmt_time(tl->start_err_max, t2, sizeof(t2)));
	} else {
		fprintf(f, "\nClock: host (executions at their EXEC_START host time; mapping "
			"error median %s, max %s", vnp_fmt_time(tl->map_err_median, t1, sizeof(t1)),
			vnp_fmt_time(tl->map_err_max, t2, sizeof(t2)));
	}
	if (tl->map_unplaced)
		fprintf(f, "; %llu without a host time, placed after the one before",
			(unsigned long long)tl->map_unplaced);
	fprintf(f, ")\n");
	if (tl->host_slowdown >= VNP_HOST_SLOW)
		fprintf(f, "  The modeled view per execution: 'view --clock model' lays the "
			"executions out back to back on the model's clock (in the html viewer: "
			"'Modeled view' steps through them).\n");
	return 0;
}

/*
 * Application ranges (docs/capture.md): per range, the executions launched in it as the
 * innermost range (self) and with it open (all), device time, flops, bytes, class.
 */
int vnp_ranges_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_metrics *m = v->m;
	const struct vnp_timeline *tl = v->tl;
	uint64_t dev = 0, held, ng, gaps;
	char t1[32], t2[32], b1[32];
	uint32_t *ix, *rs, n, i, k;

	if (m->held_ns) {
		fprintf(f, "\nLaunch gaps (host time between executions while the application held "
			"the core)\n");
		for (k = 0; k < tl->ncores; k++) {
			char core[16];

			gaps = vnp_tl_launch_gaps(tl, k, &held, &ng);
			snprintf(core, sizeof(core), "core %u", k);
			if (held)
				fprintf(f, "  %-16s %llu gaps, %s of %s held (%.1f%%)\n",
					v->labels && v->labels[k] ? v->labels[k] : core,
					(unsigned long long)ng, vnp_fmt_time(gaps * 1000, t1, sizeof(t1)),
					vnp_fmt_time(held * 1000, t2, sizeof(t2)), vnp_pct(gaps, held));
		}
	}
	if (!m->nranges)
		return 0;
	ix = malloc((m->nranges + 1) * sizeof(*ix));
	if (!ix)
		return 0;
	rs = vnp_rs_sorted(m);
	n = vnp_ranges_sorted(m, ix);
	for (i = 0; i <= m->nranges; i++)
		dev += m->range[i].device_ps;
	fprintf(f, "\nApplication ranges (%llu executions attributed; self: innermost range, "
		"all: open at launch; under each, its executions' device time by the "
		"program's layers: scope paths as a tree)\n", (unsigned long long)tl->rg.attributed);
	for (i = 0; i < n && i < (v->top ? v->top : 10); i++) {
		const struct vnp_range_stat *r = &m->range[ix[i]];

		fprintf(f, "  %-24.127s self %5.1f%% of device time, %llu exec, %s, %s, %s",
			range_label(v, ix[i]), vnp_pct(r->device_ps, dev),
			(unsigned long long)r->execs,
			vnp_fmt_time(r->device_ps, t1, sizeof(t1)),
			vnp_fmt_flops((double)r->self.flops, t2, sizeof(t2)),
			vnp_fmt_bytes((double)(r->self.hbm_read + r->self.hbm_write), b1,
				      sizeof(b1)));
		fprintf(f, " HBM; %s", v->a && v->a->range ? v->a->range[ix[i]].label : "");
		if (ix[i] < m->nranges)
			fprintf(f, "; all %5.1f%% (%llu exec)", vnp_pct(r->all_device_ps, dev),
				(unsigned long long)r->all_execs);
		if (r->gap_ns)
			fprintf(f, "; launch gaps before %s", vnp_fmt_time(r->gap_ns * 1000, t1,
									   sizeof(t1)));
		fputc('\n', f);
		range_layers_text(f, v, rs, ix[i]);
	}
	free(rs);
	free(ix);
	return 0;
}

/* ,"api_calls": the libneurondev calls of the API log by kind, count and host time. */
int vnp_api_json(FILE *f, const struct vnp_view *v)
{
	fputs(",\n\"api_calls\":", f);
	vnp_json_counts(f, vnp_api_name, v->tl->api_calls, v->tl->api_ns, "host_ns",
			VNP_API_KINDS);
	return 0;
}

static void range_group_json(FILE *f, const struct vnp_group *g)
{
	fprintf(f, "{\"flops\":%llu,\"hbm_bytes\":%llu,\"dma_bytes\":%llu,\"events\":%llu}",
		(unsigned long long)g->flops, (unsigned long long)(g->hbm_read + g->hbm_write),
		(unsigned long long)g->dma_bytes, (unsigned long long)g->count);
}

/* ,"layers":[...]: range r's device time by layer (all of them), in tree order. */
static void range_layers_json(FILE *f, const struct vnp_view *v, const uint32_t *ix,
			      uint32_t r)
{
	const struct vnp_metrics *m = v->m;
	uint32_t i = vnp_rs_first(m, ix, r), k;
	uint64_t work = 0;

	/* the work of the range's events once: the top layers' and "no scope" */
	for (k = i; k < m->nrs && m->rs[ix[k]].range == r; k++)
		if (m->rs[ix[k]].layer >= m->nlayers || m->layer[m->rs[ix[k]].layer].depth == 1)
			work += m->rs[ix[k]].g.instr_ps;
	fputs(",\"layers\":[", f);
	for (k = i; k < m->nrs && m->rs[ix[k]].range == r; k++) {
		const struct vnp_range_layer *x = &m->rs[ix[k]];
		const struct vnp_classification *c = v->a && v->a->range_scope ?
						     &v->a->range_scope[ix[k]] : NULL;

		fputs(k > i ? ",{\"layer\":" : "{\"layer\":", f);
		if (x->layer < m->nlayers)
			vnp_json_str(f, vnp_layer_name(m, x->layer));
		else
			fputs("null", f);
		fprintf(f, ",\"depth\":%u,\"span_ps\":%llu,\"device_share\":%.6g,\"instr_ps\":%llu,"
			"\"work_share\":%.6g,\"active_ps\":%llu,\"events\":%llu,\"flops\":%llu,"
			"\"hbm_bytes\":%llu",
			x->layer < m->nlayers ? m->layer[x->layer].depth : 0,
			(unsigned long long)x->g.span_ps,
			vnp_pct(x->g.span_ps, m->range[r].device_ps) / 100.0,
			(unsigned long long)x->g.instr_ps, vnp_pct(x->g.instr_ps, work) / 100.0,
			(unsigned long long)x->g.active_ps, (unsigned long long)x->g.count,
			(unsigned long long)x->g.flops,
			(unsigned long long)(x->g.hbm_read + x->g.hbm_write));
		vnp_jstr(f, "class", c ? vnp_class_name(c->cls) : "");
		vnp_jstr(f, "label", c ? c->label : "");
		fputc('}', f);
	}
	fputc(']', f);
}

/* "launch_gaps": per core; "ranges": every range with executions, by device time. */
int vnp_ranges_json(FILE *f, const struct vnp_view *v)
{
	const struct vnp_metrics *m = v->m;
	const struct vnp_timeline *tl = v->tl;
	uint64_t held, ng, gaps;
	uint32_t *ix, *rs, n, i;
	unsigned int k;

	fprintf(f, ",\n\"clock\":{\"axis\":\"%s\"", tl->host_clock ? "host" : "model");
	if (tl->host_clock)
		fprintf(f, ",\"host_base_ns\":%llu,\"map_error_median_ps\":%llu,"
			"\"map_error_max_ps\":%llu,\"unplaced\":%llu",
			(unsigned long long)tl->host_base_ns,
			(unsigned long long)tl->map_err_median,
			(unsigned long long)tl->map_err_max, (unsigned long long)tl->map_unplaced);
	if (tl->host_clock) {
		vnp_jnum(f, "host_slowdown", tl->host_slowdown > 0 ? tl->host_slowdown : NAN);
		fprintf(f, ",\"start_error_median_ps\":%llu,\"start_error_max_ps\":%llu",
			(unsigned long long)tl->start_err_median,
			(unsigned long long)tl->start_err_max);
	}
	fputc('}', f);
	fprintf(f, ",\n\"launch_gaps\":{\"gap_ns\":%llu,\"held_ns\":%llu,\"cores\":[",
		(unsigned long long)m->gap_ns, (unsigned long long)m->held_ns);
	for (k = 0; k < tl->ncores; k++) {
		gaps = vnp_tl_launch_gaps(tl, k, &held, &ng);
		fprintf(f, "%s{\"core\":%u,\"gaps\":%llu,\"gap_ns\":%llu,\"held_ns\":%llu}",
			k ? "," : "", k, (unsigned long long)ng, (unsigned long long)gaps,
			(unsigned long long)held);
	}
	fprintf(f, "]},\n\"ranges\":{\"attributed\":%llu,\"pushes\":%llu,\"marks\":%llu,"
		"\"bad\":%llu,\"list\":[", (unsigned long long)tl->rg.attributed,
		(unsigned long long)tl->rg.pushes, (unsigned long long)tl->rg.marks,
		(unsigned long long)tl->rg.bad);
	ix = malloc((m->nranges + 1) * sizeof(*ix));
	rs = vnp_rs_sorted(m);
	n = ix ? vnp_ranges_sorted(m, ix) : 0;
	for (i = 0; i < n; i++) {
		const struct vnp_range_stat *r = &m->range[ix[i]];

		fputs(i ? ",\n {\"name\":" : "\n {\"name\":", f);
		if (ix[i] < m->nranges)
			vnp_json_str(f, vnp_range_name(tl, ix[i]));
		else
			fputs("null", f);
		fprintf(f, ",\"execs\":%llu,\"device_ps\":%llu,\"all_execs\":%llu,"
			"\"all_device_ps\":%llu,\"gap_ns\":%llu,\"gaps\":%llu",
			(unsigned long long)r->execs, (unsigned long long)r->device_ps,
			(unsigned long long)r->all_execs, (unsigned long long)r->all_device_ps,
			(unsigned long long)r->gap_ns, (unsigned long long)r->gaps);
		vnp_jstr(f, "class", v->a && v->a->range ? vnp_class_name(v->a->range[ix[i]].cls) : "");
		fputs(",\"self\":", f);
		range_group_json(f, &r->self);
		fputs(",\"all\":", f);
		range_group_json(f, &r->all);
		range_layers_json(f, v, rs, ix[i]);
		fputc('}', f);
	}
	free(rs);
	free(ix);
	fputs("]}", f);
	return 0;
}
