// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Collectives (docs/metrics.md, "Collectives"): totals, per opcode with algbw and busbw,
 * the load imbalance (who arrived last, the others' waits), per rank; in JSON every
 * collective too.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"

/* Collectives by total wait, most first (the load-imbalance table). */
static const struct vnp_coll *sort_coll;

static int cmp_coll_wait(const void *x, const void *y)
{
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;

	return vnp_cmp(sort_coll[j].wait_ps, sort_coll[i].wait_ps) ?: vnp_cmp(i, j);
}

/* Indices of m->coll by wait, most first; NULL without memory (or collectives). */
uint32_t *vnp_coll_by_wait(const struct vnp_metrics *m)
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

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * No rank waited for another (a deterministic run): instead of zeros, how far apart
 * the members of each collective arrived, min/median/max over the collectives.
 */
static void arrival_spread(FILE *f, const struct vnp_metrics *m)
{
	char t1[32], t2[32], t3[32];
	uint64_t *d;
	uint32_t i;

	fputs("  no load imbalance: no rank waited for another\n", f);
	d = m->ncoll ? malloc(m->ncoll * sizeof(*d)) : NULL;
	if (d) {
		for (i = 0; i < m->ncoll; i++)
			d[i] = m->coll[i].last_arrival - m->coll[i].first_arrival;
		qsort(d, m->ncoll, sizeof(*d), cmp_u64);
		fprintf(f, "  arrival spread per collective: min %s, median %s, max %s\n",
			vnp_fmt_time(d[0], t1, sizeof(t1)),
			vnp_fmt_time(d[m->ncoll / 2], t2, sizeof(t2)),
			vnp_fmt_time(d[m->ncoll - 1], t3, sizeof(t3)));
	}
	free(d);
}

/*
 * "Collectives": the totals, one row per opcode (count, bytes, transfer time, algbw and
 * busbw as nccl-tests define them), the collectives whose ranks waited longest for
 * their last member, and the ranks.
 */
int vnp_collectives_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_metrics *m = v->m;
	char t1[32], t2[32], t3[32], b1[32], name[64];
	uint32_t *idx, i, k;
	unsigned int op, r;

	if (!m->cc_events)
		return 0;
	fprintf(f, "\nCollectives (CC-core): %u over %u rank%s; CC-core time %s, summed over "
		"them\n", m->ncoll, m->cc_nranks, m->cc_nranks == 1 ? "" : "s",
		vnp_fmt_time(m->unit[VNP_UNIT_CC].active_ps, t1, sizeof(t1)));
	fprintf(f, "  transfers %s (summed), overlapping compute %s (%.1f%%)\n",
		vnp_fmt_time(m->cc_xfer_ps, t1, sizeof(t1)),
		vnp_fmt_time(m->cc_overlap_ps, t2, sizeof(t2)),
		vnp_pct(m->cc_overlap_ps, m->cc_xfer_ps));
	if (m->cc_wait_ps)
		fprintf(f, "  load imbalance: waits for the last rank %s, summed over the "
			"ranks\n", vnp_fmt_time(m->cc_wait_ps, t2, sizeof(t2)));
	else
		arrival_spread(f, m);
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
	idx = vnp_coll_by_wait(m);
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
	/* the ranks' waits: only when some rank waited */
	for (r = 0, i = 0; m->cc_wait_ps && r < m->cc_nranks; r++) {
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

/* At most this many collectives in summary-json's list (the longest waits first). */
#define VNP_JSON_MAX_COLL	100000

int vnp_collectives_json(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	const struct vnp_metrics *m = v->m;
	const struct vnp_critpath *cp = &v->a->cp;
	uint32_t *idx = vnp_coll_by_wait(m), k;
	unsigned int op, r, first = 1;

	if (m->ncoll && !idx)
		return -ENOMEM;
	fprintf(f, ",\n\"collectives\":{\"count\":%u,\"events\":%llu,\"ranks\":%u,\"time_ps\":%llu,"
		"\"transfer_ps\":%llu,\"wait_ps\":%llu,\"overlap_ps\":%llu",
		m->ncoll, (unsigned long long)m->cc_events, m->cc_nranks,
		(unsigned long long)m->unit[VNP_UNIT_CC].active_ps,
		(unsigned long long)m->cc_xfer_ps, (unsigned long long)m->cc_wait_ps,
		(unsigned long long)m->cc_overlap_ps);
	vnp_jnum(f, "overlap_pct", m->cc_xfer_ps ? vnp_pct(m->cc_overlap_ps, m->cc_xfer_ps) : NAN);
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
		vnp_jnum(f, "algbw",
			 o->time_ps ? (double)o->bytes / ((double)o->time_ps * 1e-12) : NAN);
		vnp_jnum(f, "busbw", o->time_ps ? o->bus_bytes / ((double)o->time_ps * 1e-12) : NAN);
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
		vnp_jnum(f, "algbw", t ? vnp_coll_algbw(x) : NAN);
		vnp_jnum(f, "busbw", t ? vnp_coll_busbw(x) : NAN);
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
