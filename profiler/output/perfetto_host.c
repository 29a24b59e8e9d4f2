// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The Perfetto trace's host rows under --clock host (docs/profiler.md, "One clock"): per
 * core an "executions" track, per application process its threads with their ranges
 * (slices), API calls (slices) and marks (instants), and a flow from each EXEC call to
 * the execution it launched.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_priv.h"

/*
 * The host clock (docs/profiler.md "One clock"): an "executions" track per core, a
 * process per application process with a track per thread: its ranges (nested
 * slices), API calls (slices) and marks (instants); a flow from each EXEC call to the
 * execution it launched (id 1 << 63 | the execution's index in tl->execs). Written
 * after the device's events: the trace processor sorts by timestamp.
 */
/* An application process (thread 0) or its thread: above the nodes' uuids. */
static uint64_t host_uuid(size_t proc, size_t thread)
{
	return (1ull << 48) + ((uint64_t)proc << 24) + thread;
}

static uint64_t launch_flow(size_t exec)
{
	return 1ull << 63 | exec;
}

static void host_event(struct pw *w, uint64_t uuid, uint64_t ps, unsigned int type,
		       const char *name, uint64_t flow, int term)
{
	w->te.n = 0;
	pb_uint(&w->te, F_TE_TYPE, type);
	pb_uint(&w->te, F_TE_TRACK, uuid);
	if (name)
		pb_str(&w->te, F_TE_NAME, name);
	if (flow)
		pb_fixed64(&w->te, term ? F_TE_TERM_FLOW_IDS : F_TE_FLOW_IDS, flow);
	pf_packet_event(w, ps, 0);
}

/* By process, thread, start, then as logged. */
static int cmp_call(const void *x, const void *y)
{
	const struct vnp_call *a = *(const struct vnp_call *const *)x;
	const struct vnp_call *b = *(const struct vnp_call *const *)y;

	return vnp_cmp(a->pid, b->pid) ?: vnp_cmp(a->tid, b->tid) ?:
	       vnp_cmp(a->start, b->start) ?: vnp_cmp((uintptr_t)a, (uintptr_t)b);
}

/* The execution an EXEC call launched (index in tl->execs), SIZE_MAX if unknown. */
static size_t call_exec(const struct vnp_timeline *tl, const struct vnp_call *c)
{
	if (c->kind != ND_API_EXEC - ND_API_MARKER || c->core >= VNP_MAX_CORES)
		return SIZE_MAX;
	return vnp_tl_exec_index(tl, c->core, c->seq);
}

static void host_executions(struct pw *w, const uint8_t *launched)
{
	const struct vnp_timeline *tl = w->v->tl;
	char name[32];
	size_t i;

	for (i = 0; i < tl->nexec && !w->err; i++) {
		const struct vnp_exec *x = &tl->execs[i];
		unsigned int c = (unsigned int)(x->key >> 32);

		if (c >= w->ncores)
			continue;
		snprintf(name, sizeof(name), "exec %u", (uint32_t)x->key);
		host_event(w, pf_exec_uuid(c), x->lo + x->shift, TYPE_SLICE_BEGIN, name,
			   launched[i] ? launch_flow(i) : 0, 1);
		host_event(w, pf_exec_uuid(c), x->hi + x->shift, TYPE_SLICE_END, NULL, 0, 0);
	}
}

static void host_thread(struct pw *w, const struct vnp_call *const *cs, size_t n,
			uint64_t uuid)
{
	const struct vnp_timeline *tl = w->v->tl;
	uint32_t depth = 0;
	uint64_t last = 0;
	size_t i;

	for (i = 0; i < n && !w->err; i++) {
		const struct vnp_call *c = cs[i];
		uint64_t ps = vnp_tl_host_ps(tl, c->start), end = ps;
		size_t x;

		if (c->start + c->dur >= c->start)
			end = vnp_tl_host_ps(tl, c->start + c->dur);
		switch (c->kind + ND_API_MARKER) {
		case ND_API_RANGE_PUSH:
			if (c->depth < 1 || c->depth > depth + 1)
				break;		/* does not nest: left out, as ranges.c does */
			for (; depth >= c->depth; depth--)
				host_event(w, uuid, ps, TYPE_SLICE_END, NULL, 0, 0);
			host_event(w, uuid, ps, TYPE_SLICE_BEGIN, vnp_range_name(tl, c->arg), 0, 0);
			depth = c->depth;
			break;
		case ND_API_RANGE_POP:
			for (; depth > c->depth; depth--)
				host_event(w, uuid, ps, TYPE_SLICE_END, NULL, 0, 0);
			break;
		case ND_API_MARK:
			host_event(w, uuid, ps, TYPE_INSTANT, vnp_range_name(tl, c->arg), 0, 0);
			break;
		default:
			x = call_exec(tl, c);
			host_event(w, uuid, ps, TYPE_SLICE_BEGIN, vnp_api_name(c->kind),
				   x != SIZE_MAX ? launch_flow(x) : 0, 0);
			host_event(w, uuid, end, TYPE_SLICE_END, NULL, 0, 0);
		}
		last = end > last ? end : last;
	}
	/* ranges still open at the end of the log end with the thread's last call */
	for (; depth && !w->err; depth--)
		host_event(w, uuid, last, TYPE_SLICE_END, NULL, 0, 0);
}

int pf_host_rows(struct pw *w)
{
	const struct vnp_timeline *tl = w->v->tl;
	const struct vnp_call **cs = malloc((tl->rg.ncalls ? tl->rg.ncalls : 1) * sizeof(*cs));
	uint8_t *launched = calloc(tl->nexec ?: 1, 1);
	size_t i, b, proc = 0, th = 0;
	char name[48];

	if (!cs || !launched) {
		free(cs);
		free(launched);
		return -ENOMEM;
	}
	for (i = 0; i < tl->rg.ncalls; i++) {
		size_t x = call_exec(tl, &tl->rg.calls[i]);

		cs[i] = &tl->rg.calls[i];
		if (x != SIZE_MAX)
			launched[x] = 1;
	}
	qsort(cs, tl->rg.ncalls, sizeof(*cs), cmp_call);
	host_executions(w, launched);
	for (b = 0; b < tl->rg.ncalls && !w->err; b = i) {
		const struct vnp_call *c = cs[b];

		for (i = b; i < tl->rg.ncalls && cs[i]->pid == c->pid && cs[i]->tid == c->tid; i++)
			;
		if (!b || cs[b - 1]->pid != c->pid) {
			proc++;
			th = 0;
			snprintf(name, sizeof(name), "process %u", c->pid);
			pf_track_desc(w, host_uuid(proc, 0), 0, name, (int)c->pid, 0, 0);
		}
		if (!c->tid)
			continue;		/* no thread id: not a thread track */
		snprintf(name, sizeof(name), "thread %u", c->tid);
		pf_track_desc(w, host_uuid(proc, ++th), host_uuid(proc, 0), name, (int)c->pid,
			      (int)c->tid, 0);
		host_thread(w, cs + b, i - b, host_uuid(proc, th));
	}
	free(cs);
	free(launched);
	return 0;
}
