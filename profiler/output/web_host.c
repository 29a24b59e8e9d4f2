// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The web viewer's host rows (docs/viewer.md, "Host rows"): under --clock host, the
 * application's processes and threads with their ranges, API calls and marks, and each
 * execution's place, range stack and mapping error.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "web_priv.h"

/* By process, thread, start, then as logged (as the perfetto writer orders them). */
static int cmp_host_call(const void *x, const void *y)
{
	const struct vnp_call *a = *(const struct vnp_call *const *)x;
	const struct vnp_call *b = *(const struct vnp_call *const *)y;

	return vnp_cmp(a->pid, b->pid) ?: vnp_cmp(a->tid, b->tid) ?:
	       vnp_cmp(a->start, b->start) ?: vnp_cmp((uintptr_t)a, (uintptr_t)b);
}

/* The execution an EXEC call launched, as an index in tl->execs, or -1. */
static long long host_call_exec(const struct vnp_timeline *tl, const struct vnp_call *c)
{
	size_t x;

	if (c->kind != ND_API_EXEC - ND_API_MARKER || c->core >= VNP_MAX_CORES)
		return -1;
	x = vnp_tl_exec_index(tl, c->core, c->seq);
	return x == SIZE_MAX ? -1 : (long long)x;
}

struct host_range {
	uint64_t start, end;
	uint32_t name, parent;
};

/*
 * One thread's rows: "ranges" [start, end, level, name id, parent range or -1] in start
 * order, "calls" [start, end, kind, execution or -1, innermost open range or -1] and
 * "marks" [time, name id]; times in timeline ps. Ranges nest as the perfetto writer
 * replays them: a push that does not nest is left out, one at a depth already open
 * first closes it, and ranges still open end with the thread's last call.
 */
static void host_thread_json(FILE *f, const struct vnp_timeline *tl,
			     const struct vnp_call *const *cs, size_t n)
{
	struct host_range *rg = calloc(n + 1, sizeof(*rg));
	uint32_t open[ND_RANGE_MAX_DEPTH + 1], depth = 0, nr = 0;
	uint64_t last = 0;
	size_t i;
	int k;

	if (!rg) {
		fputs("\"ranges\":[],\"calls\":[],\"marks\":[]", f);
		return;
	}
	for (i = 0; i < n; i++) {
		const struct vnp_call *c = cs[i];
		uint64_t ps = vnp_tl_host_ps(tl, c->start), end = ps;

		if (c->start + c->dur >= c->start)
			end = vnp_tl_host_ps(tl, c->start + c->dur);
		if (c->kind + ND_API_MARKER == ND_API_RANGE_PUSH) {
			if (c->depth < 1 || c->depth > depth + 1 || c->depth > ND_RANGE_MAX_DEPTH)
				continue;
			for (; depth >= c->depth; depth--)
				rg[open[depth]].end = ps;
			rg[nr] = (struct host_range){ .start = ps, .end = UINT64_MAX,
						      .name = c->arg,
						      .parent = depth ? open[depth] : UINT32_MAX };
			open[++depth] = nr++;
		} else if (c->kind + ND_API_MARKER == ND_API_RANGE_POP) {
			for (; depth > c->depth; depth--)
				rg[open[depth]].end = ps;
		}
		last = end > last ? end : last;
	}
	for (; depth; depth--)
		rg[open[depth]].end = last;
	fputs("\"ranges\":[", f);
	for (i = 0; i < nr; i++) {
		uint32_t lvl = 0, p;

		for (p = rg[i].parent; p != UINT32_MAX; p = rg[p].parent)
			lvl++;
		fprintf(f, "%s[%llu,%llu,%u,%u,%lld]", i ? "," : "",
			(unsigned long long)rg[i].start,
			(unsigned long long)(rg[i].end == UINT64_MAX ? last : rg[i].end), lvl,
			rg[i].name, rg[i].parent == UINT32_MAX ? -1LL : (long long)rg[i].parent);
	}
	/* the calls again, each with the innermost range open at its start */
	fputs("],\"calls\":[", f);
	depth = 0;
	nr = 0;
	for (i = 0, k = 0; i < n; i++) {
		const struct vnp_call *c = cs[i];
		uint64_t ps = vnp_tl_host_ps(tl, c->start), end = ps;

		if (c->start + c->dur >= c->start)
			end = vnp_tl_host_ps(tl, c->start + c->dur);
		switch (c->kind + ND_API_MARKER) {
		case ND_API_RANGE_PUSH:
			if (c->depth < 1 || c->depth > depth + 1 || c->depth > ND_RANGE_MAX_DEPTH)
				break;
			depth = c->depth;
			open[depth] = nr++;
			break;
		case ND_API_RANGE_POP:
			if (c->depth < depth)
				depth = c->depth;
			break;
		case ND_API_MARK:
			break;
		default:
			fprintf(f, "%s[%llu,%llu,%u,%lld,%lld]", k++ ? "," : "",
				(unsigned long long)ps, (unsigned long long)end, c->kind,
				host_call_exec(tl, c), depth ? (long long)open[depth] : -1LL);
		}
	}
	fputs("],\"marks\":[", f);
	for (i = 0, k = 0; i < n; i++)
		if (cs[i]->kind + ND_API_MARKER == ND_API_MARK)
			fprintf(f, "%s[%llu,%u]", k++ ? "," : "",
				(unsigned long long)vnp_tl_host_ps(tl, cs[i]->start), cs[i]->arg);
	fputc(']', f);
	free(rg);
}

/*
 * "host" (the host clock with API calls only): the range names, the API call names by
 * kind, every execution as [core, exec, start, end, mapping error or -1, [its range
 * name ids, outermost first]] in tl->execs order, and per process its threads' rows.
 */
int vnp_web_host_json(FILE *f, const struct vnp_timeline *tl)
{
	const struct vnp_call **cs;
	size_t i, b;
	uint32_t k;

	if (!tl->host_clock || !tl->rg.ncalls)
		return 0;
	cs = malloc(tl->rg.ncalls * sizeof(*cs));
	if (!cs)
		return -ENOMEM;
	for (i = 0; i < tl->rg.ncalls; i++)
		cs[i] = &tl->rg.calls[i];
	qsort(cs, tl->rg.ncalls, sizeof(*cs), cmp_host_call);
	fputs(",\n\"host\":{\"names\":[", f);
	for (k = 0; k < tl->rg.nnames; k++) {
		if (k)
			fputc(',', f);
		vnp_json_str(f, vnp_range_name(tl, k));
	}
	fputs("],\"calls\":[", f);
	for (k = 0; k < VNP_API_KINDS; k++) {
		if (k)
			fputc(',', f);
		vnp_json_str(f, vnp_api_name(k));
	}
	fputs("],\n\"execs\":[", f);
	for (i = 0; i < tl->nexec; i++) {
		const struct vnp_exec *x = &tl->execs[i];
		const uint32_t *ids;
		unsigned int d = vnp_exec_ranges(tl, x, &ids), j;

		fprintf(f, "%s[%u,%u,%llu,%llu,%lld,[", i ? "," : "", (unsigned int)(x->key >> 32),
			(uint32_t)x->key, (unsigned long long)(x->lo + x->shift),
			(unsigned long long)(x->hi + x->shift),
			x->map_err == UINT64_MAX ? -1LL : (long long)x->map_err);
		for (j = 0; j < d; j++)
			fprintf(f, j ? ",%lld" : "%lld",
				ids[j] == UINT32_MAX ? -1LL : (long long)ids[j]);
		fputs("]]", f);
	}
	fputs("],\n\"procs\":[", f);
	for (b = 0; b < tl->rg.ncalls; b = i) {
		const struct vnp_call *c = cs[b];

		for (i = b; i < tl->rg.ncalls && cs[i]->pid == c->pid && cs[i]->tid == c->tid; i++)
			;
		if (!b || cs[b - 1]->pid != c->pid)
			fprintf(f, "%s{\"pid\":%u,\"threads\":[", b ? "]},\n" : "\n", c->pid);
		else
			fputc(',', f);
		fprintf(f, "{\"tid\":%u,", c->tid);
		host_thread_json(f, tl, cs + b, i - b);
		fputc('}', f);
	}
	fputs(tl->rg.ncalls ? "]}]}" : "]}", f);
	free(cs);
	return 0;
}
