// SPDX-License-Identifier: GPL-2.0 OR MIT
/* summary-text (fits an 80-column terminal) and summary-json. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "../format/vntf.h"

/* Prints text wrapped at 78 columns, every line starting with indent. */
static void wrap(FILE *f, const char *indent, const char *first, const char *s)
{
	size_t col, ind = strlen(indent);
	int space = first[0] && first[strlen(first) - 1] != ' ';

	fputs(first, f);
	col = strlen(first);
	while (*s) {
		size_t w = strcspn(s, " ");

		if (col > ind && col + 1 + w > 78) {
			fprintf(f, "\n%s", indent);
			col = ind;
			space = 0;
		}
		if (space) {
			fputc(' ', f);
			col++;
		}
		fwrite(s, 1, w, f);
		col += w;
		space = 1;
		s += w;
		while (*s == ' ')
			s++;
	}
	fputc('\n', f);
}

/* A series squeezed into 60 columns of " .:-=+*#%@", by the maximum of each column. */
static void sparkline(FILE *f, const char *label, const double *v, unsigned int n,
		      double vmax)
{
	static const char levels[] = " .:-=+*#%@";
	unsigned int cols = n < 60 ? n : 60, c, i;

	fprintf(f, "%s|", label);
	for (c = 0; c < cols; c++) {
		unsigned int lo = c * n / cols, hi = (c + 1) * n / cols;
		double x = 0;

		for (i = lo; i < hi; i++)
			x = v[i] > x ? v[i] : x;
		fputc(levels[x <= 0 ? 0 : 1 + (int)(x / vmax * 8.999)], f);
	}
	fputs("|\n", f);
}

static const char *group_name(const struct vnp_view *v, int scope, uint32_t i, char *buf,
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
		group_name(v, scope, i, name, sizeof(name));
		if (strlen(name) > 28)
			memmove(name, name + strlen(name) - 28, 29);
		/* 78 columns with the longest class, communication-bound */
		fprintf(f, "  %-28s %7llu %5.1f%% %11s  %s\n", name,
			(unsigned long long)g[i].count, vnp_pct(g[i].instr_ps, all),
			vnp_fmt_time(g[i].active_ps, t1, sizeof(t1)),
			scope ? vnp_class_name(v->a->scope[i].cls) : "");
	}
	free(idx);
	return 0;
}

/* "k.c:42" and "mlp/fc1" of a stream's entry, "" where the debug table says nothing. */
static void entry_loc(const struct vnp_timeline *tl, unsigned int stream, uint32_t pc,
		      char *src, size_t srclen, const char **scope)
{
	const struct vnp_loc *loc = vnp_prog_loc(tl->prog, stream, pc);

	vnp_prog_line(tl->prog, loc ? loc->line : VNP_NONE, src, srclen);
	*scope = vnp_prog_scope(tl->prog, loc ? loc->scope : VNP_NONE);
}

/* "NAME count (time); ..." of the nonzero counts into buf; a unit of time is unit_ps. */
static void count_list(char *buf, size_t len, const char *(*name)(unsigned int),
		       const uint64_t *count, const uint64_t *time, uint64_t unit_ps,
		       unsigned int n)
{
	size_t k = 0;
	unsigned int i;
	char t1[32];

	buf[0] = 0;
	for (i = 0; i < n && k < len; i++)
		if (count[i])
			k += (size_t)snprintf(buf + k, len - k, "%s%s %llu (%s)", k ? "; " : "",
					      name(i), (unsigned long long)count[i],
					      vnp_fmt_time(time[i] * unit_ps, t1, sizeof(t1)));
}

/*
 * One line of "Device faults": "exec 0, DMA q3 desc 2, k.c:42 in mlp/fc1, at 1.234 us:
 * DMA chunk outside SBUF: partition 131, bytes 0..63".
 */
static void faults_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	char line[768], what[160], src[300], sn[32], op[40], t1[32], first[32];
	const char *scope;
	size_t i;

	if (!tl->nfaults)
		return;
	fprintf(f, "\nDevice faults (%zu): the executor refused an access and ended the "
		"execution\n", tl->nfaults);
	for (i = 0; i < tl->nfaults; i++) {
		const struct vnp_fault *x = &tl->faults[i];
		uint32_t opc = vnp_fault_opcode(tl, x);
		char core[16] = "";

		entry_loc(tl, x->stream, x->pc, src, sizeof(src), &scope);
		op[0] = 0;
		if (opc != VNP_NONE && opc != VNP_OP_DMA)
			snprintf(op, sizeof(op), " (%s)", vnp_opcode_name(opc));
		if (tl->ncores > 1)
			snprintf(core, sizeof(core), "core %u ", x->core);
		snprintf(line, sizeof(line), "%sexec %u, %s %s %u%s%s%s%s%s, at %s: %s", core,
			 x->exec, vnp_stream_name(x->stream, sn, sizeof(sn)),
			 vnp_stream_is_dma(x->stream) ? "desc" : "pc", x->pc, op, *src ? ", " : "",
			 src, *scope ? " in " : "", scope,
			 vnp_fmt_time(x->time - tl->t0, t1, sizeof(t1)),
			 vnp_fault_what(tl, x, what, sizeof(what)));
		snprintf(first, sizeof(first), "  %zu.", i + 1);
		wrap(f, "     ", first, line);
	}
}

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

/* Collectives by total wait, most first (the load-imbalance table). */
static const struct vnp_coll *sort_coll;

static int cmp_coll_wait(const void *x, const void *y)
{
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;

	return vnp_cmp(sort_coll[j].wait_ps, sort_coll[i].wait_ps) ?: vnp_cmp(i, j);
}

/* Indices of m->coll by wait, most first; NULL without memory (or collectives). */
static uint32_t *coll_by_wait(const struct vnp_metrics *m)
{
	uint32_t *idx = m->ncoll ? malloc(m->ncoll * sizeof(*idx)) : NULL, i;

	if (!idx)
		return NULL;
	for (i = 0; i < m->ncoll; i++)
		idx[i] = i;
	sort_coll = m->coll;
	qsort(idx, m->ncoll, sizeof(*idx), cmp_coll_wait);
	return idx;
}

static double gbps(double bytes, uint64_t ps)
{
	return ps ? bytes / ((double)ps * 1e-12) / 1e9 : 0;
}

/*
 * "Collectives": the totals, one row per opcode (count, bytes, transfer time, algbw and
 * busbw as nccl-tests define them), the collectives whose ranks waited longest for
 * their last member, and the ranks.
 */
static int collectives_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_metrics *m = v->m;
	char t1[32], t2[32], t3[32], b1[32], name[64];
	uint32_t *idx, i, k;
	unsigned int op, r;

	if (!m->cc_events)
		return 0;
	fprintf(f, "\nCollectives (CC-core): %u over %u rank%s, %s of CC-core time (all "
		"ranks)\n", m->ncoll, m->cc_nranks, m->cc_nranks == 1 ? "" : "s",
		vnp_fmt_time(m->unit[VNP_UNIT_CC].active_ps, t1, sizeof(t1)));
	fprintf(f, "  transfers %s, overlapping compute %s (%.1f%%)\n",
		vnp_fmt_time(m->cc_xfer_ps, t1, sizeof(t1)),
		vnp_fmt_time(m->cc_overlap_ps, t2, sizeof(t2)),
		vnp_pct(m->cc_overlap_ps, m->cc_xfer_ps));
	fprintf(f, "  waits for the last rank to arrive %s (load imbalance)\n",
		vnp_fmt_time(m->cc_wait_ps, t2, sizeof(t2)));
	if (m->ncoll)
		fprintf(f, "  %-15s %6s %11s %12s %12s %12s\n", "op", "count", "bytes", "time",
			"algbw GB/s", "busbw GB/s");
	for (op = 0; op < VNEF_CC_OP_COUNT; op++) {
		const struct vnp_cc_op *o = &m->cc_op[op];

		if (!o->count)
			continue;
		fprintf(f, "  %-15s %6llu %11s %12s %12.2f %12.2f\n", vnp_opcode_name(VNP_OP_CC + op),
			(unsigned long long)o->count, vnp_fmt_bytes((double)o->bytes, b1, sizeof(b1)),
			vnp_fmt_time(o->time_ps, t1, sizeof(t1)), gbps((double)o->bytes, o->time_ps),
			gbps(o->bus_bytes, o->time_ps));
	}
	idx = coll_by_wait(m);
	if (m->ncoll && !idx)
		return -ENOMEM;
	if (m->ncoll && m->coll[idx[0]].wait_ps) {
		fprintf(f, "  load imbalance (top %u of %u by the others' wait)\n",
			m->ncoll < v->top ? m->ncoll : v->top, m->ncoll);
		fprintf(f, "    %-34s %6s %12s %14s\n", "collective", "last", "late by",
			"others waited");
		for (k = 0; k < m->ncoll && k < v->top; k++) {
			const struct vnp_coll *x = &m->coll[idx[k]];

			if (!x->wait_ps)
				break;
			snprintf(name, sizeof(name), "%s pc %u exec %u", vnp_opcode_name(VNP_OP_CC +
				 x->op), x->pc, x->round);
			fprintf(f, "    %-34s %6u %12s %14s\n", name, x->last_rank,
				vnp_fmt_time(x->last_arrival - x->first_arrival, t1, sizeof(t1)),
				vnp_fmt_time(x->wait_ps, t2, sizeof(t2)));
		}
	}
	free(idx);
	for (r = 0, i = 0; r < m->cc_nranks; r++) {
		const struct vnp_cc_rank *x = &m->cc_rank[r];

		if (!x->count)
			continue;
		if (!i++)
			fprintf(f, "  %-6s %11s %14s %14s\n", "rank", "last at", "others waited",
				"it waited");
		snprintf(name, sizeof(name), "%llu/%llu", (unsigned long long)x->last,
			 (unsigned long long)x->count);
		fprintf(f, "  %-6u %11s %14s %14s\n", r, name,
			vnp_fmt_time(x->caused_ps, t1, sizeof(t1)),
			vnp_fmt_time(x->waited_ps, t3, sizeof(t3)));
	}
	return 0;
}

/* The executions compared (more than one): spreads and outliers. */
static void exec_stats_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_exec_stats *xs = &v->m->xs;
	char t1[32], t2[32], t3[32], t4[32], line[512], head[96];
	unsigned int m, i;
	size_t n;

	if (xs->n < 2)
		return;
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
		return;
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
		wrap(f, "    ", head, line);
	}
}

/*
 * A multi-node profile's nodes (docs/metrics.md, "Nodes"): per node its cores, busy
 * and collective time, the others' waits for it and its API calls on rank 0's clock;
 * then collective time in groups that cross nodes against groups within one.
 */
void vnp_nodes_text(FILE *f, const struct vnp_nodes *n)
{
	uint64_t api0 = UINT64_MAX, cc = n->inter_ps + n->intra_ps;
	char t1[32], t2[32], t3[32], t4[32], t5[32], api[80];
	unsigned int k;

	if (!n->nr_nodes)
		return;
	for (k = 0; k < VNP_MAX_NODES; k++)
		if (n->node[k].api_first_ns && n->node[k].api_first_ns < api0)
			api0 = n->node[k].api_first_ns;
	fprintf(f, "\nNodes: %u of %u in the profile\n", n->seen, n->nr_nodes);
	fprintf(f, "  %-5s %5s %12s %12s %12s %12s %14s  %s\n", "node", "cores", "busy",
		"collectives", "inter-node", "its waits", "others waited", "host API calls "
		"(rank 0's clock)");
	for (k = 0; k < VNP_MAX_NODES; k++) {
		const struct vnp_node_fig *x = &n->node[k];

		if (!x->cores)
			continue;
		if (x->api_first_ns)
			snprintf(api, sizeof(api), "+%.3f..+%.3f ms +-%.3f us",
				 (double)(x->api_first_ns - api0) / 1e6,
				 (double)(x->api_last_ns - api0) / 1e6,
				 (double)x->api_error_ns / 1e3);
		else
			snprintf(api, sizeof(api), "-");
		fprintf(f, "  %-5u %5u %12s %12s %12s %12s %14s  %s\n", k, x->cores,
			vnp_fmt_time(x->busy_ps, t1, sizeof(t1)),
			vnp_fmt_time(x->cc_ps, t2, sizeof(t2)),
			vnp_fmt_time(x->inter_ps, t3, sizeof(t3)),
			vnp_fmt_time(x->cc_wait_ps, t4, sizeof(t4)),
			vnp_fmt_time(x->caused_ps, t5, sizeof(t5)), api);
	}
	fprintf(f, "  communication: inter-node %s (%.1f%%, %llu events, %s moving data), "
		"intra-node %s (%llu events, %s moving data)\n",
		vnp_fmt_time(n->inter_ps, t1, sizeof(t1)), vnp_pct(n->inter_ps, cc),
		(unsigned long long)n->inter_events,
		vnp_fmt_time(n->inter_xfer_ps, t2, sizeof(t2)),
		vnp_fmt_time(n->intra_ps, t3, sizeof(t3)), (unsigned long long)n->intra_events,
		vnp_fmt_time(n->intra_xfer_ps, t4, sizeof(t4)));
}

int vnp_nodes_summary_text(FILE *f, const struct vnp_nodes *n, uint64_t core_ps,
			   const char *program_path, unsigned int nfiles)
{
	int s = vnp_nodes_straggler(n, core_ps);
	char t1[32];

	fprintf(f, "vneuron-profile: %s, %u profiles (node figures from a streaming pass: "
		"docs/scaling.md)\n", program_path, nfiles);
	vnp_nodes_text(f, n);
	if (s >= 0)
		fprintf(f, "  straggler node: %d (other nodes' ranks waited for it %llu times, "
			"%s, %.1f%% of the workers' time)\n", s,
			(unsigned long long)n->node[s].last,
			vnp_fmt_time(n->node[s].caused_ps, t1, sizeof(t1)),
			vnp_pct(n->node[s].caused_ps, core_ps));
	else
		fprintf(f, "  straggler node: none (docs/profiler.md, straggler-node)\n");
	return ferror(f) ? -EIO : 0;
}

/* Ranges by device time, the most first; ties by id. */
static const struct vnp_range_stat *sort_ranges;

static int cmp_range(const void *x, const void *y)
{
	const struct vnp_range_stat *a = &sort_ranges[*(const uint32_t *)x];
	const struct vnp_range_stat *b = &sort_ranges[*(const uint32_t *)y];

	return a->device_ps != b->device_ps ? (a->device_ps > b->device_ps ? -1 : 1) :
	       vnp_cmp(*(const uint32_t *)x, *(const uint32_t *)y);
}

/* Range ids 0..nranges (nranges: no range) with executions, by device time: their count. */
static uint32_t ranges_sorted(const struct vnp_metrics *m, uint32_t *ix)
{
	uint32_t i, n = 0;

	for (i = 0; i <= m->nranges; i++)
		if (m->range[i].execs || m->range[i].all_execs)
			ix[n++] = i;
	sort_ranges = m->range;
	qsort(ix, n, sizeof(*ix), cmp_range);
	return n;
}

/*
 * Range-layer pairs by range, each range's layers as a tree: a layer after its parent,
 * siblings the longest span first; "no scope" last.
 */
static const struct vnp_metrics *sort_m;

/* Layer l's ancestor at depth d (l itself at its own depth). */
static uint32_t layer_at(const struct vnp_metrics *m, uint32_t l, uint32_t d)
{
	while (l < m->nlayers && m->layer[l].depth > d)
		l = m->layer[l].parent;
	return l;
}

static uint64_t layer_span(const struct vnp_metrics *m, uint32_t range, uint32_t l)
{
	uint32_t k = vnp_range_layer(m, range, l);

	return k == VNP_NONE ? 0 : m->rs[k].g.span_ps;
}

static int cmp_rs(const void *x, const void *y)
{
	const struct vnp_metrics *m = sort_m;
	const struct vnp_range_layer *a = &m->rs[*(const uint32_t *)x];
	const struct vnp_range_layer *b = &m->rs[*(const uint32_t *)y];
	uint32_t la = a->layer, lb = b->layer, d, da, db, pa, pb;

	if (a->range != b->range)
		return vnp_cmp(a->range, b->range);
	if (la >= m->nlayers || lb >= m->nlayers)
		return vnp_cmp(la >= m->nlayers, lb >= m->nlayers);
	da = m->layer[la].depth;
	db = m->layer[lb].depth;
	for (d = 1; d <= da && d <= db; d++) {
		pa = layer_at(m, la, d);
		pb = layer_at(m, lb, d);
		if (pa != pb)
			return vnp_cmp(layer_span(m, a->range, pb), layer_span(m, a->range, pa)) ?:
			       vnp_cmp(pa, pb);
	}
	return vnp_cmp(da, db);
}

/* m->rs's indexes so sorted (malloc()ed; NULL if there are none or no memory). */
static uint32_t *rs_sorted(const struct vnp_metrics *m)
{
	uint32_t *ix = m->nrs ? malloc(m->nrs * sizeof(*ix)) : NULL, i;

	if (!ix)
		return NULL;
	for (i = 0; i < m->nrs; i++)
		ix[i] = i;
	sort_m = m;
	qsort(ix, m->nrs, sizeof(*ix), cmp_rs);
	return ix;
}

/* The first of range r's pairs in ix (sorted), m->nrs if it has none. */
static uint32_t rs_first(const struct vnp_metrics *m, const uint32_t *ix, uint32_t r)
{
	uint32_t i;

	for (i = 0; ix && i < m->nrs && m->rs[ix[i]].range != r; i++)
		;
	return ix ? i : m->nrs;
}

static const char *layer_name(const struct vnp_metrics *m, uint32_t l)
{
	return l < m->nlayers ? m->layer[l].name : "(no scope)";
}

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
	uint32_t i = rs_first(m, ix, r), k, n, shown = 0, top = v->top ? v->top : 10;
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
		const char *full = layer_name(m, x->layer), *last = strrchr(full, '/');
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

/* The time axis: the host clock's mapping error (docs/profiler.md "One clock"). */
static void clock_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	char t1[32], t2[32];

	if (!tl->host_clock)
		return;
	if (tl->map_unplaced == tl->nexec) {
		fprintf(f, "\nClock: host (no execution has an EXEC_START host time: laid out "
			"one after another)\n");
		return;
	}
	fprintf(f, "\nClock: host (executions at their EXEC_START host time; mapping error "
		"median %s, max %s", vnp_fmt_time(tl->map_err_median, t1, sizeof(t1)),
		vnp_fmt_time(tl->map_err_max, t2, sizeof(t2)));
	if (tl->map_unplaced)
		fprintf(f, "; %llu without a host time, placed after the one before",
			(unsigned long long)tl->map_unplaced);
	fprintf(f, ")\n");
}

/*
 * Application ranges (docs/profiler.md): per range, the executions launched in it as the
 * innermost range (self) and with it open (all), device time, flops, bytes, class.
 */
static void ranges_text(FILE *f, const struct vnp_view *v)
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
		return;
	ix = malloc((m->nranges + 1) * sizeof(*ix));
	if (!ix)
		return;
	rs = rs_sorted(m);
	n = ranges_sorted(m, ix);
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
}

int vnp_summary_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	const struct vnp_metrics *m = v->m;
	const struct vnp_analysis *a = v->a;
	char t1[32], t2[32], t3[32], b1[32], b2[32], line[512];
	unsigned int u, q, op, i;

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
	if (tl->lost || tl->malformed)
		fprintf(f, "  WARNING: %llu records lost in capture, %llu malformed records "
			"skipped: figures are incomplete\n", (unsigned long long)tl->lost,
			(unsigned long long)tl->malformed);
	if (*statuses(tl, line, sizeof(line)))
		fprintf(f, "  executions ended: %s\n", line);
	faults_text(f, v);

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
	fprintf(f, "  arithmetic intensity %s, ridge point %.1f flop/B\n", line, m->ridge);
	fprintf(f, "  TensorE flops %llu (transposes %llu), other engines' flops %llu\n",
		(unsigned long long)m->hw_flops, (unsigned long long)m->transpose_flops,
		(unsigned long long)m->other_flops);
	wrap(f, "    ", "  bound:", a->whole.label);
	wrap(f, "    ", "    why:", a->whole.why);
	if (a->cp.len_ps)
		fprintf(f, "  critical path %s over %llu entries, %llu semaphore waits crossed\n",
			vnp_fmt_time(a->cp.len_ps, t1, sizeof(t1)),
			(unsigned long long)a->cp.nev, (unsigned long long)a->cp.sem_hops);

	exec_stats_text(f, v);

	fprintf(f, "\nEngine  %7s %11s %7s %11s %11s  %s\n", "instr", "active", "active%",
		"instr time", "sem waits", "top opcode");
	for (u = 0; u < VNEF_ENGINES; u++) {
		const struct vnp_unit *x = &m->unit[u];
		unsigned int best = 0;

		for (op = 1; op < VNEF_OP_COUNT; op++)
			if (x->op_ps[op] > x->op_ps[best])
				best = op;
		fprintf(f, "  %-7s %7llu %11s %6.1f%% %11s %11s  %.15s\n", vnp_engine_name(u),
			(unsigned long long)x->count, vnp_fmt_time(x->active_ps, t1, sizeof(t1)),
			vnp_pct(x->active_ps, m->core_ps), vnp_fmt_time(x->instr_ps, t2, sizeof(t2)),
			vnp_fmt_time(x->wait_ps, t3, sizeof(t3)),
			x->count ? vnp_opcode_name(best) : "-");
	}
	for (u = 0; u < VNEF_ENGINES; u++) {
		char ops[1024];

		count_list(ops, sizeof(ops), vnp_opcode_name, m->unit[u].op_count,
			   m->unit[u].op_ps, 1, VNEF_OP_COUNT);
		if (!*ops)
			continue;
		snprintf(line, sizeof(line), "  %s:", vnp_engine_name(u));
		wrap(f, "    ", line, ops);
	}

	fprintf(f, "\nDMA: %llu descriptors, %s, average %s, active %.1f%%\n",
		(unsigned long long)m->dma_count, vnp_fmt_bytes((double)m->dma_bytes, b1, sizeof(b1)),
		vnp_fmt_bytes(m->avg_dma_bytes, b2, sizeof(b2)), m->dma_active_pct);
	fprintf(f, "  HBM read %s, written %s",
		vnp_fmt_bytes((double)m->hbm_read, b1, sizeof(b1)),
		vnp_fmt_bytes((double)m->hbm_write, b2, sizeof(b2)));
	fprintf(f, "\n  SBUF read %s, written %s",
		vnp_fmt_bytes((double)m->mem_read[VNEF_MEM_SBUF], b1, sizeof(b1)),
		vnp_fmt_bytes((double)m->mem_write[VNEF_MEM_SBUF], b2, sizeof(b2)));
	if (m->mem_read[VNEF_MEM_PSUM] || m->mem_write[VNEF_MEM_PSUM])
		fprintf(f, "; PSUM read %s, written %s",
			vnp_fmt_bytes((double)m->mem_read[VNEF_MEM_PSUM], b1, sizeof(b1)),
			vnp_fmt_bytes((double)m->mem_write[VNEF_MEM_PSUM], b2, sizeof(b2)));
	fputc('\n', f);
	/* the viewer labels its counters with the same figures (docs/metrics.md) */
	fprintf(f, "  throughput avg %.2f GB/s, peak %.2f GB/s (bins of %s)\n",
		m->tput_avg / 1e9, m->tput_peak / 1e9, vnp_fmt_time(m->bin_ps, t1, sizeof(t1)));
	fprintf(f, "  pending DMA avg %.2f, peak %.2f\n", m->pending_avg, m->pending_peak);
	if (m->dma_count && m->tput_peak > 0) {
		sparkline(f, "  throughput ", m->tput, m->nbins, m->tput_peak);
		sparkline(f, "  pending    ", m->pending, m->nbins, m->pending_peak);
	}
	for (q = 0; q < VNEF_DMA_QUEUES; q++) {
		const struct vnp_unit *x = &m->queue[q];

		if (!x->count)
			continue;
		fprintf(f, "  q%-2u %7llu desc %12s active %5.1f%%\n", q,
			(unsigned long long)x->count, vnp_fmt_bytes((double)x->bytes, b1, sizeof(b1)),
			vnp_pct(x->active_ps, m->core_ps));
	}
	if (collectives_text(f, v))
		return -ENOMEM;
	vnp_nodes_text(f, &m->nodes);
	if (groups_text(f, v, 1) || groups_text(f, v, 0))
		return -ENOMEM;
	count_list(line, sizeof(line), vnp_api_name, tl->api_calls, tl->api_ns, 1000,
		   VNP_API_KINDS);
	if (*line) {
		fputc('\n', f);
		wrap(f, "    ", "Host API calls (count, host time):", line);
	}
	clock_text(f, v);
	ranges_text(f, v);

	fprintf(f, "\nAdvice (%u finding%s)\n", a->n, a->n == 1 ? "" : "s");
	if (!a->n)
		fprintf(f, "  none: no rule found evidence of a problem\n");
	for (i = 0; i < a->n; i++) {
		snprintf(line, sizeof(line), "  %u. [%s] ", i + 1, vnp_rule_id(a->f[i].rule));
		wrap(f, "     ", line, a->f[i].title);
		wrap(f, "     ", "     evidence:", a->f[i].evidence);
		wrap(f, "     ", "     advice:", a->f[i].advice);
		wrap(f, "     ", "     gain:", a->f[i].gain);
	}
	return ferror(f) ? -EIO : 0;
}

/* --- summary-json --------------------------------------------------------------------- */

/* ,"key":x, a member after its object's first; without a key, x alone (in an array). */
static void jnum(FILE *f, const char *key, double x)
{
	if (key)
		fprintf(f, ",\"%s\":", key);
	if (isnan(x) || isinf(x))
		fputs("null", f);
	else
		fprintf(f, "%.6g", x);
}

/* Exactly (round trip): a figure the viewer prints as the text summary does. */
static void jnum_exact(FILE *f, const char *key, double x)
{
	if (key)
		fprintf(f, ",\"%s\":", key);
	if (isnan(x) || isinf(x))
		fputs("null", f);
	else
		fprintf(f, "%.17g", x);
}

/* ,"key":"x", x escaped. */
static void jstr(FILE *f, const char *key, const char *x)
{
	fprintf(f, ",\"%s\":", key);
	vnp_json_str(f, x);
}

static void jnums(FILE *f, const double *v, unsigned int n)
{
	unsigned int i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		if (i)
			fputc(',', f);
		jnum(f, NULL, v[i]);
	}
	fputc(']', f);
}

/*
 * {"NAME":{"count":C,"KEY":T},...} of the nonzero counts, or {"NAME":C,...} without
 * times.
 */
static void json_counts(FILE *f, const char *(*name)(unsigned int), const uint64_t *count,
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

static void unit_json(FILE *f, const struct vnp_unit *x, uint64_t total)
{
	fprintf(f, "{\"count\":%llu,\"active_ps\":%llu", (unsigned long long)x->count,
		(unsigned long long)x->active_ps);
	jnum(f, "active_pct", vnp_pct(x->active_ps, total));
	fprintf(f, ",\"instr_ps\":%llu,\"flops\":%llu,\"bytes\":%llu,\"sem_wait_ps\":%llu,"
		"\"sem_waits\":%llu,\"first_ps\":%llu,\"last_ps\":%llu,\"opcodes\":",
		(unsigned long long)x->instr_ps, (unsigned long long)x->flops,
		(unsigned long long)x->bytes, (unsigned long long)x->wait_ps,
		(unsigned long long)x->waits, (unsigned long long)x->first,
		(unsigned long long)x->last);
	json_counts(f, vnp_opcode_name, x->op_count, x->op_ps, "ps", VNEF_OP_COUNT);
	fputc('}', f);
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
		vnp_json_str(f, group_name(v, scope, i, name, sizeof(name)));
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
		jnum(f, "hfu",
			 span ? (double)x->flops / (m->peak_flops * (double)span * 1e-12) : 0);
		fputs(",\"engine_ps\":{", f);
		for (u = 0; u < VNP_UNITS; u++)
			fprintf(f, "%s\"%s\":%llu", u ? "," : "", vnp_engine_name(u),
				(unsigned long long)x->unit_ps[u]);
		fputc('}', f);
		if (scope) {
			fprintf(f, ",\"class\":\"%s\"", vnp_class_name(v->a->scope[i].cls));
			jstr(f, "label", v->a->scope[i].label);
			fprintf(f, ",\"span_ps\":%llu", (unsigned long long)x->span_ps);
			jstr(f, "why", v->a->scope[i].why);
		}
		fputc('}', f);
	}
	fputs("]", f);
}

/* The ERROR records (docs/profiler.md, "Device faults"), in time order. */
static void faults_json(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	const struct vnp_prog *p = tl->prog;
	char what[160], sn[32];
	size_t i;

	fputc('[', f);
	for (i = 0; i < tl->nfaults; i++) {
		const struct vnp_fault *x = &tl->faults[i];
		uint32_t opc = vnp_fault_opcode(tl, x);

		fprintf(f, "%s\n {\"core\":%u,\"exec\":%u,\"engine\":\"%s\",\"stream\":%u,",
			i ? "," : "", x->core, x->exec, vnp_stream_name(x->stream, sn, sizeof(sn)),
			x->stream);
		if (vnp_stream_is_dma(x->stream))
			fprintf(f, "\"queue\":%u,", x->stream - VNEF_ENGINES);
		fprintf(f, "\"pc\":%u,", x->pc);
		if (opc != VNP_NONE)
			fprintf(f, "\"opcode\":\"%s\",", vnp_opcode_name(opc));
		fprintf(f, "\"reason\":\"%s\",\"reason_code\":%u,\"memory\":\"%s\","
			"\"index\":%u,\"offset\":%llu,\"length\":%u,\"time_ps\":%llu,"
			"\"exec_time_ps\":%llu", vnp_fault_reason_id(x->reason), x->reason,
			x->mem ? vnp_mem_name(x->mem) : "none", x->index,
			(unsigned long long)x->offset, x->len, (unsigned long long)x->time,
			(unsigned long long)x->model_ps);
		if (x->mem == VNEF_MEM_HBM && p && p->tensors && x->index < p->ntensors) {
			jstr(f, "tensor_name", vnp_prog_str(p, p->tensors[x->index].name_off));
		}
		vnp_json_loc(f, p, vnp_prog_loc(p, x->stream, x->pc));
		jstr(f, "what", vnp_fault_what(tl, x, what, sizeof(what)));
		fputc('}', f);
	}
	fputc(']', f);
}

/* At most this many collectives in summary-json's list (the longest waits first). */
#define VNP_JSON_MAX_COLL	100000

/* ,"nodes":{...} of a multi-node profile (docs/metrics.md, "Nodes"); nothing otherwise. */
static void nodes_json(FILE *f, const struct vnp_nodes *n)
{
	unsigned int k, first = 1;

	if (!n->nr_nodes)
		return;
	fprintf(f, ",\n\"nodes\":{\"count\":%u,\"seen\":%u,\"inter_node_ps\":%llu,"
		"\"intra_node_ps\":%llu,\"inter_node_transfer_ps\":%llu,"
		"\"intra_node_transfer_ps\":%llu,\"inter_node_events\":%llu,"
		"\"intra_node_events\":%llu,\"inter_node_waits\":%llu,\"per_node\":[",
		n->nr_nodes, n->seen, (unsigned long long)n->inter_ps,
		(unsigned long long)n->intra_ps, (unsigned long long)n->inter_xfer_ps,
		(unsigned long long)n->intra_xfer_ps, (unsigned long long)n->inter_events,
		(unsigned long long)n->intra_events, (unsigned long long)n->inter_waits);
	for (k = 0; k < VNP_MAX_NODES; k++) {
		const struct vnp_node_fig *x = &n->node[k];

		if (!x->cores)
			continue;
		fprintf(f, "%s{\"node\":%u,\"cores\":%u,\"busy_ps\":%llu,\"collective_ps\":%llu,"
			"\"wait_ps\":%llu,\"inter_node_ps\":%llu,\"waited_for\":%llu,"
			"\"others_waited_ps\":%llu,\"api_first_ns\":%llu,\"api_last_ns\":%llu,"
			"\"clock_offset_ns\":%lld,\"clock_error_ns\":%llu}", first ? "" : ",", k,
			x->cores,
			(unsigned long long)x->busy_ps, (unsigned long long)x->cc_ps,
			(unsigned long long)x->cc_wait_ps, (unsigned long long)x->inter_ps,
			(unsigned long long)x->last, (unsigned long long)x->caused_ps,
			(unsigned long long)x->api_first_ns, (unsigned long long)x->api_last_ns,
			(long long)x->clock_offset_ns, (unsigned long long)x->api_error_ns);
		first = 0;
	}
	fputs("]}", f);
}

static int collectives_json(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	const struct vnp_metrics *m = v->m;
	const struct vnp_critpath *cp = &v->a->cp;
	uint32_t *idx = coll_by_wait(m), k;
	unsigned int op, r, first = 1;

	if (m->ncoll && !idx)
		return -ENOMEM;
	fprintf(f, "{\"count\":%u,\"events\":%llu,\"ranks\":%u,\"time_ps\":%llu,"
		"\"transfer_ps\":%llu,\"wait_ps\":%llu,\"overlap_ps\":%llu",
		m->ncoll, (unsigned long long)m->cc_events, m->cc_nranks,
		(unsigned long long)m->unit[VNP_UNIT_CC].active_ps,
		(unsigned long long)m->cc_xfer_ps, (unsigned long long)m->cc_wait_ps,
		(unsigned long long)m->cc_overlap_ps);
	jnum(f, "overlap_pct", m->cc_xfer_ps ? vnp_pct(m->cc_overlap_ps, m->cc_xfer_ps) : NAN);
	fprintf(f, ",\"critical_path_transfer_ps\":%llu,\"critical_path_wait_ps\":%llu,"
		"\"ops\":{", (unsigned long long)cp->unit_ps[VNP_UNIT_CC],
		(unsigned long long)cp->cc_wait_ps);
	for (op = 0; op < VNEF_CC_OP_COUNT; op++) {
		const struct vnp_cc_op *o = &m->cc_op[op];

		if (!o->count)
			continue;
		fprintf(f, "%s\"%s\":{\"count\":%llu,\"bytes\":%llu,\"time_ps\":%llu,"
			"\"wait_ps\":%llu", first ? "" : ",",
			vnp_opcode_name(VNP_OP_CC + op), (unsigned long long)o->count,
			(unsigned long long)o->bytes, (unsigned long long)o->time_ps,
			(unsigned long long)o->wait_ps);
		jnum(f, "algbw",
			 o->time_ps ? (double)o->bytes / ((double)o->time_ps * 1e-12) : NAN);
		jnum(f, "busbw", o->time_ps ? o->bus_bytes / ((double)o->time_ps * 1e-12) : NAN);
		fputc('}', f);
		first = 0;
	}
	fputs("},\"list\":[", f);
	for (k = 0; k < m->ncoll && k < VNP_JSON_MAX_COLL; k++) {
		const struct vnp_coll *x = &m->coll[idx[k]];
		uint64_t t = x->end - x->last_arrival;

		fprintf(f, "%s\n {\"op\":\"%s\",\"pc\":%u,\"exec\":%u,\"members\":%u,"
			"\"seen\":%u,\"last_rank\":%u,\"late_ps\":%llu,\"wait_ps\":%llu,"
			"\"first_arrival_ps\":%llu,\"last_arrival_ps\":%llu,\"end_ps\":%llu,"
			"\"transfer_ps\":%llu,\"bytes\":%llu", k ? "," : "",
			vnp_opcode_name(VNP_OP_CC + x->op), x->pc, x->round, x->members, x->seen,
			x->last_rank, (unsigned long long)(x->last_arrival - x->first_arrival),
			(unsigned long long)x->wait_ps, (unsigned long long)x->first_arrival,
			(unsigned long long)x->last_arrival, (unsigned long long)x->end,
			(unsigned long long)t, (unsigned long long)x->size);
		jnum(f, "algbw", t ? vnp_coll_algbw(x) : NAN);
		jnum(f, "busbw", t ? vnp_coll_busbw(x) : NAN);
		vnp_json_loc(f, tl->prog, vnp_prog_loc(tl->prog, VNEF_STREAM_CC, x->pc));
		fputc('}', f);
	}
	free(idx);
	fputs("],\"by_rank\":[", f);
	for (r = 0, first = 1; r < m->cc_nranks; r++) {
		const struct vnp_cc_rank *x = &m->cc_rank[r];
		uint64_t comp = 0;
		unsigned int c;

		if (!x->count)
			continue;
		for (c = 0; c < tl->ncores && c < VNP_MAX_CORES; c++)
			if (tl->cc_rank[c] == r)
				comp += m->core_compute_ps[c];
		fprintf(f, "%s{\"rank\":%u,\"core\":%u,\"count\":%llu,\"last\":%llu,"
			"\"late_ps\":%llu,\"caused_wait_ps\":%llu,\"waited_ps\":%llu,"
			"\"compute_ps\":%llu,\"critical_path_wait_ps\":%llu}", first ? "" : ",", r,
			x->core, (unsigned long long)x->count, (unsigned long long)x->last,
			(unsigned long long)x->late_ps, (unsigned long long)x->caused_ps,
			(unsigned long long)x->waited_ps, (unsigned long long)comp,
			(unsigned long long)cp->cc_wait_rank[r]);
		first = 0;
	}
	fputs("]}", f);
	return 0;
}

static void spread_json(FILE *f, const struct vnp_spread *s)
{
	fprintf(f, "{\"min\":%llu,\"median\":%llu,\"max\":%llu,\"mad\":%llu}",
		(unsigned long long)s->min, (unsigned long long)s->median,
		(unsigned long long)s->max, (unsigned long long)s->mad);
}

/* "execution_stats": the spreads (ps) and the outliers. */
static void exec_stats_json(FILE *f, const struct vnp_view *v)
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
		jstr(f, "worker", v->labels && v->labels[o->core] ? v->labels[o->core] : "");
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
	uint32_t i = rs_first(m, ix, r), k;
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
			vnp_json_str(f, layer_name(m, x->layer));
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
		jstr(f, "class", c ? vnp_class_name(c->cls) : "");
		jstr(f, "label", c ? c->label : "");
		fputc('}', f);
	}
	fputc(']', f);
}

/* "launch_gaps": per core; "ranges": every range with executions, by device time. */
static void ranges_json(FILE *f, const struct vnp_view *v)
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
	rs = rs_sorted(m);
	n = ix ? ranges_sorted(m, ix) : 0;
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
		jstr(f, "class", v->a && v->a->range ? vnp_class_name(v->a->range[ix[i]].cls) : "");
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
}

int vnp_summary_json(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	const struct vnp_metrics *m = v->m;
	const struct vnp_analysis *a = v->a;
	unsigned int u, w, s, i;
	char line[32];
	int first;

	fputs("{\"program\":", f);
	vnp_json_str(f, tl->prog && tl->prog->name ? tl->prog->name : "");
	jstr(f, "model", tl->model.name);
	jstr(f, "backend", vnp_tl_backend(tl));
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
	jnum(f, NULL, m->peak_flops);
	jnum(f, "hbm_bandwidth", m->hbm_bw);
	fprintf(f, ",\"hardware_flops\":%llu,\"transpose_flops\":%llu,\"other_flops\":%llu,"
		"\"model_flops\":%llu", (unsigned long long)m->hw_flops,
		(unsigned long long)m->transpose_flops, (unsigned long long)m->other_flops,
		(unsigned long long)tl->model_flops);
	jnum(f, "hfu", m->hfu);
	jnum(f, "mfu", m->mfu < 0 ? NAN : m->mfu);
	jnum(f, "mbu", m->mbu);
	jnum(f, "arithmetic_intensity", m->ai);
	jnum(f, "ridge_point", m->ridge);
	fprintf(f, ",\"busy_ps\":%llu,\"compute_ps\":%llu,\"dma_compute_overlap_ps\":%llu,"
		"\"tensor_idle_while_busy_ps\":%llu,\n\"class\":\"%s\"",
		(unsigned long long)m->busy_ps, (unsigned long long)m->compute_ps,
		(unsigned long long)m->dma_compute_ps, (unsigned long long)m->tensor_idle_ps,
		vnp_class_name(a->whole.cls));
	jstr(f, "class_why", a->whole.why);
	jstr(f, "class_label", a->whole.label);
	fprintf(f, ",\"bound_unit\":");
	if (a->whole.unit == VNP_BOUND_HBM)
		fputs("\"HBM\"", f);
	else if (a->whole.unit < VNEF_STREAMS)
		vnp_json_str(f, vnp_stream_name(a->whole.unit, line, sizeof(line)));
	else
		fputs("null", f);
	fprintf(f, ",\"critical_path_ps\":%llu,\"critical_path_ps_by_stream\":{",
		(unsigned long long)a->cp.len_ps);
	for (u = 0, first = 1; u < VNEF_STREAMS; u++) {
		if (!a->cp.stream_ps[u])
			continue;
		fprintf(f, "%s\"%s\":%llu", first ? "" : ",",
			vnp_stream_name(u, line, sizeof(line)), (unsigned long long)a->cp.stream_ps[u]);
		first = 0;
	}
	fputc('}', f);
	fputs(",\n\"engines\":{", f);
	for (u = 0; u < VNP_UNITS; u++) {
		fprintf(f, "%s\n \"%s\":", u ? "," : "", vnp_engine_name(u));
		unit_json(f, &m->unit[u], m->core_ps);
	}
	fputs("},\n\"engine_overlap_ps\":{", f);
	first = 1;
	for (u = 0; u < VNP_UNITS; u++)
		for (w = u + 1; w < VNP_UNITS; w++) {
			fprintf(f, "%s\"%s+%s\":%llu", first ? "" : ",", vnp_engine_name(u),
				vnp_engine_name(w), (unsigned long long)m->overlap_ps[u][w]);
			first = 0;
		}
	fprintf(f, "},\n\"dma\":{\"count\":%llu,\"bytes\":%llu", (unsigned long long)m->dma_count,
		(unsigned long long)m->dma_bytes);
	jnum(f, "average_bytes", m->avg_dma_bytes);
	jnum(f, "active_pct", m->dma_active_pct);
	fprintf(f, ",\"hbm_read\":%llu,\"hbm_write\":%llu,\"read\":{",
		(unsigned long long)m->hbm_read, (unsigned long long)m->hbm_write);
	for (u = 0; u < 4; u++)
		fprintf(f, "%s\"%s\":%llu", u ? "," : "", u ? vnp_mem_name(u) : "unknown",
			(unsigned long long)m->mem_read[u]);
	fputs("},\"written\":{", f);
	for (u = 0; u < 4; u++)
		fprintf(f, "%s\"%s\":%llu", u ? "," : "", u ? vnp_mem_name(u) : "unknown",
			(unsigned long long)m->mem_write[u]);
	fputs("},\"queues\":{", f);
	first = 1;
	for (u = 0; u < VNEF_DMA_QUEUES; u++) {
		if (!m->queue[u].count)
			continue;
		fprintf(f, "%s\"%u\":", first ? "" : ",", u);
		unit_json(f, &m->queue[u], m->core_ps);
		first = 0;
	}
	fprintf(f, "},\n\"series\":{\"bin_ps\":%llu", (unsigned long long)m->bin_ps);
	jnum_exact(f, "throughput_peak_bytes_per_s", m->tput_peak);
	jnum_exact(f, "throughput_avg_bytes_per_s", m->tput_avg);
	jnum_exact(f, "pending_peak", m->pending_peak);
	jnum_exact(f, "pending_avg", m->pending_avg);
	fputs(",\"throughput_bytes_per_s\":", f);
	jnums(f, m->tput, m->nbins);
	fputs(",\"pending\":", f);
	jnums(f, m->pending, m->nbins);
	fputs("}},\n\"collectives\":", f);
	if (collectives_json(f, v))
		return -ENOMEM;
	nodes_json(f, &m->nodes);
	fputs(",\n\"semaphore_waits\":[", f);
	first = 1;
	for (w = 0; w < VNEF_STREAMS; w++)
		for (s = 0; s <= VNEF_STREAMS; s++) {
			char n1[32], n2[32];

			if (!m->wait_n[w][s])
				continue;
			fprintf(f, "%s{\"waiter\":\"%s\",\"signaller\":\"%s\",\"count\":%llu,"
				"\"ps\":%llu}", first ? "" : ",", vnp_stream_name(w, n1, sizeof(n1)),
				s < VNEF_STREAMS ? vnp_stream_name(s, n2, sizeof(n2)) : "?",
				(unsigned long long)m->wait_n[w][s],
				(unsigned long long)m->wait_ps[w][s]);
			first = 0;
		}
	fputs("],\n\"api_calls\":", f);
	json_counts(f, vnp_api_name, tl->api_calls, tl->api_ns, "host_ns", VNP_API_KINDS);
	ranges_json(f, v);
	fputs(",\n\"exec_status\":", f);
	json_counts(f, vnp_exec_status_name, tl->exec_status, NULL, NULL, VNP_EXEC_STATUSES);
	exec_stats_json(f, v);
	fputs(",\n\"faults\":", f);
	faults_json(f, v);
	fputs(",\n\"scopes\":", f);
	groups_json(f, v, 1);
	fputs(",\n\"lines\":", f);
	groups_json(f, v, 0);
	fputs(",\n\"advice\":[", f);
	for (i = 0; i < a->n; i++) {
		fprintf(f, "%s\n {\"rule\":\"%s\"", i ? "," : "", vnp_rule_id(a->f[i].rule));
		jnum(f, "impact", a->f[i].impact);
		jstr(f, "title", a->f[i].title);
		jstr(f, "evidence", a->f[i].evidence);
		jstr(f, "advice", a->f[i].advice);
		fprintf(f, ",\"saved_ps\":%.0f,\"replayed\":%s", a->f[i].saved_ps,
			a->f[i].replayed ? "true" : "false");
		if (a->f[i].replayed)
			fprintf(f, ",\"before_ps\":%llu,\"after_ps\":%llu",
				(unsigned long long)a->f[i].before_ps,
				(unsigned long long)a->f[i].after_ps);
		jstr(f, "gain", a->f[i].gain);
		fputc('}', f);
	}
	fputs("]}\n", f);
	return ferror(f) ? -EIO : 0;
}
