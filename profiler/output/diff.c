// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The diff output (docs/profiler.md, "diff"): two analysed profiles side by side (the
 * same program or not), per execution: time, class, engines, DMA queues, scopes by
 * name and advice rules, B's change against A.
 */
#include <errno.h>
#include <string.h>

#include "summary.h"

/* A view's executions, at least 1: every figure below is per execution. */
static double nexec(const struct vnp_view *v)
{
	return v->m->nexec ? (double)v->m->nexec : 1;
}

/* "12.345 us" of a per-execution time in ps. */
static const char *us(double ps, char *buf, size_t len)
{
	snprintf(buf, len, "%.3f us", ps / 1e6);
	return buf;
}

/* One row: name, A, B, change; times per execution. */
static void row(FILE *f, const char *name, double a, double b)
{
	char t1[32], t2[32], t3[32];

	snprintf(t3, sizeof(t3), "%+.3f us", (b - a) / 1e6);
	fprintf(f, "  %-30s %12s %12s %11s", name, us(a, t1, sizeof(t1)), us(b, t2, sizeof(t2)),
		t3);
	if (a > 0)
		fprintf(f, " %+7.1f%%\n", 100 * (b - a) / a);
	else
		fprintf(f, " %8s\n", b > 0 ? "new" : "");
}

static const struct vnp_group *scope_of(const struct vnp_view *v, const char *name,
					uint32_t *id)
{
	uint32_t i;

	for (i = 0; i < v->m->nscopes; i++)
		if (!strcmp(vnp_prog_scope(v->tl->prog, i), name)) {
			*id = i;
			return &v->m->scope[i];
		}
	return NULL;
}

static void scopes(FILE *f, const struct vnp_view *a, const struct vnp_view *b)
{
	uint32_t i, j;
	const struct vnp_group *ga, *gb;

	fprintf(f, "\nScopes (time per execution: span; class A -> B)\n");
	for (i = 0; i < a->m->nscopes; i++) {
		const char *n = vnp_prog_scope(a->tl->prog, i);

		ga = &a->m->scope[i];
		gb = scope_of(b, n, &j);
		row(f, n, (double)ga->span_ps / nexec(a),
		    gb ? (double)gb->span_ps / nexec(b) : 0);
		fprintf(f, "  %-30s %s -> %s\n", "", vnp_class_name(a->a->scope[i].cls),
			gb ? vnp_class_name(b->a->scope[j].cls) : "(gone)");
	}
	for (j = 0; j < b->m->nscopes; j++) {
		const char *n = vnp_prog_scope(b->tl->prog, j);

		if (scope_of(a, n, &i))
			continue;
		row(f, n, 0, (double)b->m->scope[j].span_ps / nexec(b));
		fprintf(f, "  %-30s (new) -> %s\n", "", vnp_class_name(b->a->scope[j].cls));
	}
}

static const struct vnp_finding *rule_in(const struct vnp_view *v, unsigned int r)
{
	unsigned int i;

	for (i = 0; i < v->a->n; i++)
		if (v->a->f[i].rule == r)
			return &v->a->f[i];
	return NULL;
}

/* A unit's active share of the core-time, in percent. */
static double pct_of(uint64_t active, const struct vnp_metrics *m)
{
	return m->core_ps ? 100.0 * (double)active / (double)m->core_ps : 0;
}

/*
 * Profiles of different device models (issue 28): said before any figure, with the
 * speed ratio and each model's utilisations (shares of that model's peaks and time), the
 * figures that compare across generations: times alone are each model's own.
 */
static void models_differ(FILE *f, const struct vnp_view *a, const struct vnp_view *b)
{
	const struct vnp_metrics *ma = a->m, *mb = b->m;
	const char *na = a->tl->model.name, *nb = b->tl->model.name;
	double ta = (double)ma->total_ps / nexec(a), tb = (double)mb->total_ps / nexec(b);
	unsigned int u;

	fprintf(f, "  different device models: A ran on %.16s, B on %.16s: times are each "
		"model's own; compare the utilisations\n", na, nb);
	if (ta > 0 && tb > 0 && ta != tb)
		fprintf(f, "  B is %.2fx %s on %.16s than A on %.16s; TensorE utilisation "
			"%.1f%% -> %.1f%%, HBM bandwidth %.1f%% -> %.1f%%\n",
			ta > tb ? ta / tb : tb / ta, ta > tb ? "faster" : "slower", nb, na,
			100 * ma->hfu, 100 * mb->hfu, 100 * ma->mbu, 100 * mb->mbu);
	else
		fprintf(f, "  B takes as long on %.16s as A on %.16s; TensorE utilisation "
			"%.1f%% -> %.1f%%, HBM bandwidth %.1f%% -> %.1f%%\n", nb, na,
			100 * ma->hfu, 100 * mb->hfu, 100 * ma->mbu, 100 * mb->mbu);
	fprintf(f, "  %-30s %11.16s %11.16s\n", "utilisation per model", na, nb);
	fprintf(f, "  %-30s %10.1f%% %10.1f%%   of %.1f and %.1f TFLOP/s\n",
		"TensorE (hfu)", 100 * ma->hfu, 100 * mb->hfu, ma->peak_flops * 1e-12,
		mb->peak_flops * 1e-12);
	fprintf(f, "  %-30s %10.1f%% %10.1f%%   of %.0f and %.0f GB/s\n", "HBM bandwidth (mbu)",
		100 * ma->mbu, 100 * mb->mbu, ma->hbm_bw * 1e-9, mb->hbm_bw * 1e-9);
	for (u = 0; u < VNEF_ENGINES; u++)
		if (ma->unit[u].count || mb->unit[u].count)
			fprintf(f, "  %-30s %10.1f%% %10.1f%%   active\n", vnp_engine_name(u),
				pct_of(ma->unit[u].active_ps, ma),
				pct_of(mb->unit[u].active_ps, mb));
	fprintf(f, "  %-30s %10.1f%% %10.1f%%   active\n", "DMA (any queue)",
		ma->dma_active_pct, mb->dma_active_pct);
}

int vnp_diff_text(FILE *f, const struct vnp_view *a, const char *a_path,
		  const struct vnp_view *b, const char *b_path)
{
	const struct vnp_metrics *ma = a->m, *mb = b->m;
	double na = nexec(a), nb = nexec(b);
	unsigned int u, q, r;
	char n1[32];

	fprintf(f, "vneuron-profile diff: A %s (%s), B %s (%s)\n", a_path,
		a->tl->prog->name ? a->tl->prog->name : "?", b_path,
		b->tl->prog->name ? b->tl->prog->name : "?");
	if (strncmp(a->tl->model.name, b->tl->model.name, sizeof(a->tl->model.name)))
		models_differ(f, a, b);
	fprintf(f, "  %-30s %12s %12s %11s %8s\n", "per execution", "A", "B", "B - A", "change");
	row(f, "total time", (double)ma->total_ps / na, (double)mb->total_ps / nb);
	row(f, "critical path", (double)a->a->cp.len_ps / na, (double)b->a->cp.len_ps / nb);
	fprintf(f, "  class A: %s\n  class B: %s\n", a->a->whole.label, b->a->whole.label);
	fprintf(f, "  %-30s %.1f%% -> %.1f%%, mbu %.1f%% -> %.1f%%\n", "hfu", 100 * ma->hfu,
		100 * mb->hfu, 100 * ma->mbu, 100 * mb->mbu);
	fprintf(f, "\nEngines and DMA queues (active time per execution)\n");
	for (u = 0; u < VNEF_ENGINES; u++)
		if (ma->unit[u].count || mb->unit[u].count)
			row(f, vnp_engine_name(u), (double)ma->unit[u].active_ps / na,
			    (double)mb->unit[u].active_ps / nb);
	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		if (ma->queue[q].count || mb->queue[q].count)
			row(f, vnp_stream_name(VNEF_STREAM_DMA(q), n1, sizeof(n1)),
			    (double)ma->queue[q].active_ps / na,
			    (double)mb->queue[q].active_ps / nb);
	if (ma->ncoll || mb->ncoll) {
		/* collectives: their transfers and the waits for the last rank */
		row(f, "CC-core transfers", (double)ma->cc_xfer_ps / na,
		    (double)mb->cc_xfer_ps / nb);
		row(f, "CC-core waits for the last", (double)ma->cc_wait_ps / na,
		    (double)mb->cc_wait_ps / nb);
	}
	scopes(f, a, b);
	fprintf(f, "\nAdvice rules (time the fix would save per execution)\n");
	for (r = 0; r < VNP_RULE_COUNT; r++) {
		const struct vnp_finding *fa = rule_in(a, r), *fb = rule_in(b, r);

		if (!fa && !fb)
			continue;
		row(f, vnp_rule_id(r), fa ? fa->saved_ps / na : 0, fb ? fb->saved_ps / nb : 0);
		fprintf(f, "  %-30s %s\n", "", fa && fb ? "in both" : fa ? "fixed in B" : "new in B");
	}
	return ferror(f) ? -EIO : 0;
}
