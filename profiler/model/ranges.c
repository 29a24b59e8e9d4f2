// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Application ranges (timeline.h, docs/capture.md "Application ranges"): the API
 * stream's RANGE_PUSH / RANGE_POP records replayed per (pid, thread), each EXEC call's
 * stack of open ranges kept, and at finish each execution tied to its EXEC call through
 * the WAIT call that names its core and sequence number.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

static void *grow(void *arr, size_t n, size_t *cap, size_t size)
{
	size_t nc;
	void *p;

	if (n < *cap)
		return arr;
	nc = *cap ? *cap + *cap / 2 : 64;
	p = reallocarray(arr, nc, size);
	if (p)
		*cap = nc;
	return p;
}

static struct vnp_range_thread *thread_of(struct vnp_ranges *g, uint32_t pid, uint32_t tid)
{
	struct vnp_range_thread *t;
	size_t i;

	for (i = g->nth; i--;)
		if (g->th[i].pid == pid && g->th[i].tid == tid)
			return &g->th[i];
	if (g->nth == VNP_RANGE_THREADS)
		return NULL;
	t = grow(g->th, g->nth, &g->thcap, sizeof(*t));
	if (!t)
		return NULL;
	g->th = t;
	t = &t[g->nth++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->snap = UINT32_MAX;
	return t;
}

/* The pool offset of t's current stack, copied there once per change. */
static int snapshot(struct vnp_ranges *g, struct vnp_range_thread *t, uint32_t *off)
{
	uint32_t *p;
	size_t need = g->npool + t->depth;

	if (t->snap != UINT32_MAX || !t->depth) {
		*off = t->depth ? t->snap : 0;
		return 0;
	}
	if (need > UINT32_MAX)
		return -ENOMEM;
	if (need > g->poolcap) {
		size_t nc = need + need / 2 + 64;

		p = reallocarray(g->pool, nc, sizeof(*p));
		if (!p)
			return -ENOMEM;
		g->pool = p;
		g->poolcap = nc;
	}
	memcpy(g->pool + g->npool, t->name, t->depth * sizeof(*t->name));
	t->snap = (uint32_t)g->npool;
	g->npool = need;
	*off = t->snap;
	return 0;
}

/* The timeline core of an EXEC or WAIT record's (device, core); VNP_MAX_CORES if none. */
static uint16_t api_core(const struct vnp_ranges *g, const struct vneuron_trace_record *r)
{
	unsigned int i;

	for (i = 0; i < g->nmap; i++)
		if (g->map_dev[i] == r->model_end_ps && g->map_core[i] == r->dma_queue)
			return g->map_slot[i];
	return r->dma_queue < VNP_MAX_CORES ? g->core_slot[r->dma_queue] : VNP_MAX_CORES;
}

/* Keeps the record as a call for the host rows (not PROGRAM_ID: a load's identity). */
static int add_call(struct vnp_ranges *g, const struct vneuron_trace_record *r)
{
	struct vnp_call *c;
	unsigned int k = r->opcode - ND_API_MARKER;

	if (r->opcode == ND_API_PROGRAM_ID)
		return 0;
	c = grow(g->calls, g->ncalls, &g->callcap, sizeof(*c));
	if (!c)
		return -ENOMEM;
	g->calls = c;
	g->calls[g->ncalls++] = (struct vnp_call){
		.start = r->host_ns, .dur = r->count, .pid = r->elements,
		.tid = (uint32_t)r->model_start_ps,
		.arg = r->opcode == ND_API_RANGE_PUSH || r->opcode == ND_API_MARK ?
		       r->sem_value + g->id_base : r->sem_value,
		.kind = (uint16_t)(k < VNP_API_KINDS ? k : 0),
		.depth = (uint16_t)(r->dma_desc <= ND_RANGE_MAX_DEPTH ? r->dma_desc : 0),
		.core = r->opcode == ND_API_WAIT ? api_core(g, r) : VNP_MAX_CORES,
		.seq = r->exec_seq,
	};
	return 0;
}

int vnp_rg_add(struct vnp_timeline *tl, const struct vneuron_trace_record *r)
{
	struct vnp_ranges *g = &tl->rg;
	struct vnp_range_thread *t;
	struct vnp_api_link *l;
	uint32_t d = r->dma_desc, off;
	size_t ci = g->ncalls;
	int ret = add_call(g, r);

	if (ret)
		return ret;
	switch (r->opcode) {
	case ND_API_RANGE_PUSH: case ND_API_RANGE_POP: case ND_API_EXEC: case ND_API_WAIT:
		break;
	case ND_API_MARK:
		g->marks++;
		return 0;
	default:
		return 0;
	}
	t = thread_of(g, r->elements, (uint32_t)r->model_start_ps);
	if (!t) {
		if (g->nth < VNP_RANGE_THREADS)
			return -ENOMEM;
		g->bad++;
		return 0;
	}
	switch (r->opcode) {
	case ND_API_RANGE_PUSH:
		g->pushes++;
		/* the depth after the push: one deeper than the stack replayed so far */
		if (d < 1 || d > ND_RANGE_MAX_DEPTH || d > t->depth + 1) {
			g->bad++;
			return 0;
		}
		t->name[d - 1] = r->sem_value + g->id_base;
		t->depth = d;
		t->snap = UINT32_MAX;
		return 0;
	case ND_API_RANGE_POP:
		g->pops++;
		if (d >= t->depth) {
			g->bad++;
			return 0;
		}
		t->depth = d;
		t->snap = UINT32_MAX;
		return 0;
	}
	if (snapshot(g, t, &off))
		return -ENOMEM;
	l = grow(g->ln, g->nln, &g->lncap, sizeof(*l));
	if (!l)
		return -ENOMEM;
	g->ln = l;
	g->ln[g->nln++] = (struct vnp_api_link){
		.pid = r->elements, .exec_id = r->sem_value, .call = (uint32_t)ci,
		.core = api_core(g, r),
		.seq = r->exec_seq, .stack = off, .depth = (uint16_t)t->depth,
		.wait = r->opcode == ND_API_WAIT, .uring = r->sem_signal == ND_API_URING,
	};
	return 0;
}

int vnp_rg_add_name(struct vnp_timeline *tl, const char *name)
{
	struct vnp_ranges *g = &tl->rg;
	char **nn = reallocarray(g->names, g->nnames + 1, sizeof(*nn));

	if (!nn)
		return -ENOMEM;
	g->names = nn;
	nn[g->nnames] = strdup(name);
	if (!nn[g->nnames])
		return -ENOMEM;
	g->nnames++;
	return 0;
}

static int cmp_link(const void *a, const void *b)
{
	const struct vnp_api_link *x = a, *y = b;

	return vnp_cmp(x->pid, y->pid) ?: vnp_cmp(x->uring, y->uring) ?:
	       vnp_cmp(x->exec_id, y->exec_id) ?: vnp_cmp(x->wait, y->wait);
}

int vnp_rg_finish(struct vnp_timeline *tl)
{
	struct vnp_ranges *g = &tl->rg;
	size_t i, k;

	/* names the records use must be in the profile */
	for (i = 0; i < g->npool; i++)
		if (g->pool[i] >= g->nnames) {
			g->pool[i] = UINT32_MAX;
			g->bad++;
		}
	if (!g->nln)
		return 0;
	qsort(g->ln, g->nln, sizeof(*g->ln), cmp_link);
	for (i = 0; i + 1 < g->nln; i++) {
		const struct vnp_api_link *e = &g->ln[i], *w = &g->ln[i + 1];
		struct vnp_exec *x;

		if (e->wait || !w->wait || e->pid != w->pid || e->exec_id != w->exec_id ||
		    e->uring != w->uring || w->core >= VNP_MAX_CORES)
			continue;
		x = (struct vnp_exec *)vnp_tl_exec(tl, w->core, w->seq);
		if (!x)
			continue;
		x->rdepth = e->depth;
		x->rstack = e->stack;
		g->calls[e->call].core = (uint16_t)w->core;
		g->calls[e->call].seq = w->seq;
		g->attributed++;
	}
	/* what is left is not needed after finish */
	for (k = 0; k < g->nth; k++)
		g->th[k].snap = UINT32_MAX;
	free(g->ln);
	g->ln = NULL;
	g->nln = g->lncap = 0;
	return 0;
}

void vnp_rg_free(struct vnp_timeline *tl)
{
	uint32_t i;

	for (i = 0; i < tl->rg.nnames; i++)
		free(tl->rg.names[i]);
	free(tl->rg.names);
	free(tl->rg.th);
	free(tl->rg.ln);
	free(tl->rg.pool);
	free(tl->rg.calls);
}

const char *vnp_range_name(const struct vnp_timeline *tl, uint32_t id)
{
	return id < tl->rg.nnames ? tl->rg.names[id] : "?";
}

unsigned int vnp_exec_ranges(const struct vnp_timeline *tl, const struct vnp_exec *x,
			     const uint32_t **ids)
{
	*ids = x->rdepth ? tl->rg.pool + x->rstack : NULL;
	return x->rdepth;
}

uint64_t vnp_tl_launch_gaps(const struct vnp_timeline *tl, unsigned int core, uint64_t *held,
			    uint64_t *n)
{
	uint64_t gaps = 0, first = 0, last = 0;
	const struct vnp_exec *prev = NULL;
	size_t i;

	*n = 0;
	*held = 0;
	/*
	 * Only an application's profile (it logged EXEC calls): in the program form the
	 * gaps are capture's own, and a user has nothing to learn from them.
	 */
	if (!tl->api_calls[ND_API_EXEC - ND_API_MARKER])
		return 0;
	for (i = 0; i < tl->nexec; i++) {
		const struct vnp_exec *x = &tl->execs[i];

		if (x->key >> 32 != core || !x->host_lo || !x->host_hi)
			continue;
		if (!first)
			first = x->host_lo;
		if (x->host_hi > last)
			last = x->host_hi;
		if (prev && x->host_lo > prev->host_hi) {
			gaps += x->host_lo - prev->host_hi;
			++*n;
		}
		prev = x;
	}
	*held = last > first ? last - first : 0;
	return gaps;
}
