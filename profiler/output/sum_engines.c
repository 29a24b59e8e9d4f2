// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The engines (docs/metrics.md): per engine its instructions, active time, waits and
 * top opcode, its time per opcode, the engines' overlaps, and the semaphore waits by
 * waiter and signaller.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "section.h"
#include "vn_isa.h"

int vnp_engines_text(FILE *f, const struct vnp_view *v)
{
	const struct vnp_metrics *m = v->m;
	char t1[32], t2[32], t3[32], line[512];
	unsigned int u, op;

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

		vnp_count_list(ops, sizeof(ops), vnp_opcode_name, m->unit[u].op_count,
			   m->unit[u].op_ps, 1, VNEF_OP_COUNT);
		if (!*ops)
			continue;
		snprintf(line, sizeof(line), "  %s:", vnp_engine_name(u));
		vnp_wrap(f, "    ", line, ops);
	}

	return 0;
}

void vnp_unit_json(FILE *f, const struct vnp_unit *x, uint64_t total)
{
	fprintf(f, "{\"count\":%llu,\"active_ps\":%llu", (unsigned long long)x->count,
		(unsigned long long)x->active_ps);
	vnp_jnum(f, "active_pct", vnp_pct(x->active_ps, total));
	fprintf(f, ",\"instr_ps\":%llu,\"flops\":%llu,\"bytes\":%llu,\"sem_wait_ps\":%llu,"
		"\"sem_waits\":%llu,\"first_ps\":%llu,\"last_ps\":%llu,\"opcodes\":",
		(unsigned long long)x->instr_ps, (unsigned long long)x->flops,
		(unsigned long long)x->bytes, (unsigned long long)x->wait_ps,
		(unsigned long long)x->waits, (unsigned long long)x->first,
		(unsigned long long)x->last);
	vnp_json_counts(f, vnp_opcode_name, x->op_count, x->op_ps, "ps", VNEF_OP_COUNT);
	fputc('}', f);
}

int vnp_engines_json(FILE *f, const struct vnp_view *v)
{
	const struct vnp_metrics *m = v->m;
	unsigned int u, w;
	int first;

	fputs(",\n\"engines\":{", f);
	for (u = 0; u < VNP_UNITS; u++) {
		fprintf(f, "%s\n \"%s\":", u ? "," : "", vnp_engine_name(u));
		vnp_unit_json(f, &m->unit[u], m->core_ps);
	}
	fputs("},\n\"engine_overlap_ps\":{", f);
	first = 1;
	for (u = 0; u < VNP_UNITS; u++)
		for (w = u + 1; w < VNP_UNITS; w++) {
			fprintf(f, "%s\"%s+%s\":%llu", first ? "" : ",", vnp_engine_name(u),
				vnp_engine_name(w), (unsigned long long)m->overlap_ps[u][w]);
			first = 0;
		}
	fputc('}', f);
	return 0;
}

/* ,"semaphore_waits": per waiter and signaller, their count and time. */
int vnp_sem_waits_json(FILE *f, const struct vnp_view *v)
{
	const struct vnp_metrics *m = v->m;
	unsigned int w, s;
	int first;

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
	fputc(']', f);
	return 0;
}
