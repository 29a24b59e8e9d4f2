// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The summaries' head and "Overall": program, model, counts, backend, how the executions
 * ended; utilisation, intensity, flops, the class and the critical path.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"
#include "../format/vntf.h"

/* "2 OK, 1 FAULT" when some execution did not end OK; "" otherwise. */
static const char *statuses(const struct vnp_timeline *tl, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = 0;
	for (i = 1; i < VNP_EXEC_STATUSES; i++)
		if (tl->exec_status[i])
			break;
	if (i == VNP_EXEC_STATUSES)
		return buf;
	for (i = 0; i < VNP_EXEC_STATUSES && n < len; i++)
		if (tl->exec_status[i])
			n += (size_t)snprintf(buf + n, len - n, "%s%llu %s", n ? ", " : "",
					      (unsigned long long)tl->exec_status[i],
					      vnp_exec_status_name(i));
	return buf;
}

/*
 * "logical core 0 (LNC=2): core 0 (program id 0), core 1 (program id 1)": each logical
 * core of the profile once, its physical cores in order.
 */
static void lcores_text(FILE *f, const struct vnp_timeline *tl)
{
	unsigned int c, k, p, n;

	for (c = 0; c < tl->ncores && c < VNP_MAX_CORES; c++) {
		if (!tl->lcore[c])
			continue;
		for (k = 0; k < c && tl->lcore[k] != tl->lcore[c]; k++)
			;
		if (k < c)
			continue;	/* said with its first slot */
		fprintf(f, "  logical core %u (LNC=2):", tl->pcore[c] / 2u);
		n = 0;
		for (p = 0; p < 2; p++)
			for (k = c; k < tl->ncores && k < VNP_MAX_CORES; k++)
				if (tl->lcore[k] == tl->lcore[c] && (tl->pcore[k] & 1u) == p)
					fprintf(f, "%s core %u (program id %u)", n++ ? "," : "",
						tl->pcore[k], p);
		fputc('\n', f);
	}
}

/*
 * summary-json's "logical_cores", only where a profile has some (docs/capture.md, "Logical
 * cores")
 */
static void lcores_json(FILE *f, const struct vnp_timeline *tl)
{
	unsigned int c, k, p, n, nl = 0;

	for (c = 0; c < tl->ncores && c < VNP_MAX_CORES; c++) {
		if (!tl->lcore[c])
			continue;
		for (k = 0; k < c && tl->lcore[k] != tl->lcore[c]; k++)
			;
		if (k < c)
			continue;
		fprintf(f, "%s{\"logical_core\":%u,\"lnc\":2,\"cores\":[",
			nl++ ? "," : ",\"logical_cores\":[", tl->pcore[c] / 2u);
		n = 0;
		for (p = 0; p < 2; p++)
			for (k = c; k < tl->ncores && k < VNP_MAX_CORES; k++)
				if (tl->lcore[k] == tl->lcore[c] && (tl->pcore[k] & 1u) == p)
					fprintf(f, "%s%u", n++ ? "," : "", tl->pcore[k]);
		fputs("]}", f);
	}
	if (nl)
		fputc(']', f);
}

int vnp_head_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	const struct vnp_metrics *m = v->m;
	char line[512];

	fprintf(f, "vneuron-profile: %s\n",
		tl->prog && tl->prog->name && *tl->prog->name ? tl->prog->name : "(unnamed program)");
	if (v->program_path || v->profile_path)
		fprintf(f, "  program %s, profile %s\n", v->program_path ? v->program_path : "-",
			v->profile_path ? v->profile_path : "-");
	fprintf(f, "  model %.16s: TensorE %.1f TFLOP/s, HBM %.0f GB/s per core; %u core%s, "
		"%llu exec%s\n", tl->model.name, m->peak_flops / 1e12 / (tl->ncores ? tl->ncores : 1),
		(double)tl->model.hbm_bw / 1e9, tl->ncores ? tl->ncores : 1,
		tl->ncores > 1 ? "s" : "", (unsigned long long)m->nexec, m->nexec == 1 ? "" : "s");
	if (tl->backends & ~1u)
		fprintf(f, "  captured on the %s backend%s\n", vnp_tl_backend(tl),
			tl->backends & (1u << VNTF_BACKEND_HOST) ?
			" (modeled figures are the module's; host times are this machine's)" : "");
	lcores_text(f, tl);
	if (tl->salvaged)
		fprintf(f, "  PARTIAL: %u file%s cut short, salvaged: figures cover only the "
			"records read\n", tl->salvaged, tl->salvaged == 1 ? "" : "s");
	if (tl->cut_files)
		fprintf(f, "  PARTIAL: the capture stopped writing at its --max-size, %llu records "
			"not written: figures cover only the records before it\n",
			(unsigned long long)tl->cut_records);
	if (tl->lost || tl->malformed)
		fprintf(f, "  WARNING: %llu records lost in capture, %llu malformed records "
			"skipped: figures are incomplete\n", (unsigned long long)tl->lost,
			(unsigned long long)tl->malformed);
	if (*statuses(tl, line, sizeof(line)))
		fprintf(f, "  executions ended: %s\n", line);
	return 0;
}

int vnp_overall_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_metrics *m = v->m;
	const struct vnp_analysis *a = v->a;
	char t1[32], line[512];

	fprintf(f, "\nOverall\n");
	fprintf(f, "  total_time   %-14s event_count %llu (%llu instructions, %llu DMA",
		vnp_fmt_time(m->total_ps, t1, sizeof(t1)), (unsigned long long)m->event_count,
		(unsigned long long)m->instr_count, (unsigned long long)m->dma_count);
	if (m->cc_events)
		fprintf(f, ", %llu CC", (unsigned long long)m->cc_events);
	fputs(")\n", f);
	fprintf(f, "  hfu          %6.2f%%        mfu %s", 100 * m->hfu,
		m->mfu < 0 ? "n/a (no model flops)" : "");
	if (m->mfu >= 0)
		fprintf(f, "%.2f%%", 100 * m->mfu);
	fprintf(f, "\n  mbu          %6.2f%%        busy (any engine or DMA) %.1f%%\n",
		100 * m->mbu, vnp_pct(m->busy_ps, m->core_ps));
	if (isinf(m->ai))
		snprintf(line, sizeof(line), "inf (no HBM traffic)");
	else
		snprintf(line, sizeof(line), "%.2f flop/B", m->ai);
	fprintf(f, "  arithmetic intensity %s (all engines), ridge point %.1f flop/B\n", line,
		m->ridge);
	/* each engine's roof: a VectorE kernel is compared with VectorE's, not TensorE's */
	fprintf(f, "  ridges, flop/B: TensorE %.1f, VectorE %.2f, ScalarE %.2f, GpSimdE %.2f\n",
		m->eng_ridge[0], m->eng_ridge[1], m->eng_ridge[2], m->eng_ridge[3]);
	fprintf(f, "  TensorE flops %llu (transposes %llu), other engines' flops %llu\n",
		(unsigned long long)m->hw_flops, (unsigned long long)m->transpose_flops,
		(unsigned long long)m->other_flops);
	vnp_wrap(f, "    ", "  bound:", a->whole.label);
	vnp_wrap(f, "    ", "    why:", a->whole.why);
	if (a->cp.len_ps && m->nexec > 1) {
		char t2[32], ranks[48] = "";

		/* per execution first: a sum over executions and ranks reads as one run */
		if (v->tl->ncores > 1)
			snprintf(ranks, sizeof(ranks), " on %u ranks", v->tl->ncores);
		snprintf(line, sizeof(line), "%s per execution (the longest%s), %s summed over "
			 "%llu executions%s; %llu entries, %llu semaphore waits crossed",
			 vnp_fmt_time(a->cp.max_ps, t1, sizeof(t1)),
			 v->tl->ncores > 1 ? ", the slowest rank's" : "",
			 vnp_fmt_time(a->cp.len_ps, t2, sizeof(t2)), (unsigned long long)m->nexec,
			 ranks, (unsigned long long)a->cp.nev, (unsigned long long)a->cp.sem_hops);
		vnp_wrap(f, "    ", "  critical path", line);
	} else if (a->cp.len_ps) {
		fprintf(f, "  critical path %s over %llu entries, %llu semaphore waits crossed\n",
			vnp_fmt_time(a->cp.len_ps, t1, sizeof(t1)),
			(unsigned long long)a->cp.nev, (unsigned long long)a->cp.sem_hops);
	}

	return 0;
}

int vnp_overall_json(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	const struct vnp_metrics *m = v->m;
	const struct vnp_analysis *a = v->a;
	unsigned int u;
	char line[32];
	int first;

	fputs("{\"program\":", f);
	vnp_json_str(f, tl->prog && tl->prog->name ? tl->prog->name : "");
	vnp_jstr(f, "model", tl->model.name);
	vnp_jstr(f, "backend", vnp_tl_backend(tl));
	lcores_json(f, tl);
	fprintf(f, ",\"partial\":%s,\"salvaged_files\":%u,\"cut_records\":%llu",
		tl->salvaged || tl->cut_files ? "true" : "false", tl->salvaged,
		(unsigned long long)tl->cut_records);
	fprintf(f, ",\"cores\":%u,\"executions\":%llu,\"lost_records\":%llu,"
		"\"malformed_records\":%llu,\n\"total_time_ps\":%llu,\"event_count\":%llu,"
		"\"instruction_count\":%llu,\"dma_count\":%llu,\"start_ps\":%llu,\"end_ps\":%llu,"
		"\"core_time_ps\":%llu,"
		"\n\"peak_flops\":", tl->ncores ? tl->ncores : 1, (unsigned long long)m->nexec,
		(unsigned long long)tl->lost, (unsigned long long)tl->malformed,
		(unsigned long long)m->total_ps, (unsigned long long)m->event_count,
		(unsigned long long)m->instr_count, (unsigned long long)m->dma_count,
		(unsigned long long)m->t0, (unsigned long long)m->t1,
		(unsigned long long)m->core_ps);
	vnp_jnum(f, NULL, m->peak_flops);
	vnp_jnum(f, "hbm_bandwidth", m->hbm_bw);
	fprintf(f, ",\"hardware_flops\":%llu,\"transpose_flops\":%llu,\"other_flops\":%llu,"
		"\"model_flops\":%llu", (unsigned long long)m->hw_flops,
		(unsigned long long)m->transpose_flops, (unsigned long long)m->other_flops,
		(unsigned long long)tl->model_flops);
	vnp_jnum(f, "hfu", m->hfu);
	vnp_jnum(f, "mfu", m->mfu < 0 ? NAN : m->mfu);
	vnp_jnum(f, "mbu", m->mbu);
	vnp_jnum(f, "arithmetic_intensity", m->ai);
	vnp_jnum(f, "ridge_point", m->ridge);
	fputs(",\"engine_peak_flops\":{", f);
	for (u = 0; u < VNEF_ENGINES; u++) {
		fprintf(f, "%s\"%s\":", u ? "," : "", vnp_engine_name(u));
		vnp_jnum(f, NULL, m->eng_peak[u]);
	}
	fputs("},\"engine_ridge_points\":{", f);
	for (u = 0; u < VNEF_ENGINES; u++) {
		fprintf(f, "%s\"%s\":", u ? "," : "", vnp_engine_name(u));
		vnp_jnum(f, NULL, m->eng_ridge[u]);
	}
	fputc('}', f);
	fprintf(f, ",\"busy_ps\":%llu,\"compute_ps\":%llu,\"dma_compute_overlap_ps\":%llu,"
		"\"tensor_idle_while_busy_ps\":%llu,\n\"class\":\"%s\"",
		(unsigned long long)m->busy_ps, (unsigned long long)m->compute_ps,
		(unsigned long long)m->dma_compute_ps, (unsigned long long)m->tensor_idle_ps,
		vnp_class_name(a->whole.cls));
	vnp_jstr(f, "class_why", a->whole.why);
	vnp_jstr(f, "class_label", a->whole.label);
	fprintf(f, ",\"bound_unit\":");
	if (a->whole.unit == VNP_BOUND_HBM)
		fputs("\"HBM\"", f);
	else if (a->whole.unit < VNEF_STREAMS)
		vnp_json_str(f, vnp_stream_name(a->whole.unit, line, sizeof(line)));
	else
		fputs("null", f);
	fprintf(f, ",\"critical_path_ps\":%llu,\"critical_path_max_exec_ps\":%llu,"
		"\"critical_path_ps_by_stream\":{", (unsigned long long)a->cp.len_ps,
		(unsigned long long)a->cp.max_ps);
	for (u = 0, first = 1; u < VNEF_STREAMS; u++) {
		if (!a->cp.stream_ps[u])
			continue;
		fprintf(f, "%s\"%s\":%llu", first ? "" : ",",
			vnp_stream_name(u, line, sizeof(line)), (unsigned long long)a->cp.stream_ps[u]);
		first = 0;
	}
	fputc('}', f);
	return 0;
}
