// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libvnprofile: a view's figures (vnprofile.h, "Figures of a view"): the headline
 * numbers of summary-json, the findings, the core slots, and the executions and events
 * as arrays of fixed structs, the events in the json output's order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib.h"
#include "../util/log.h"

_Static_assert(sizeof(struct vnprofile_event) == 80, "vnprofile_event is 80 bytes");
_Static_assert(sizeof(struct vnprofile_exec) == 64, "vnprofile_exec is 64 bytes");
_Static_assert(VNPROFILE_ENGINE_DMA == VNP_UNIT_DMA && VNPROFILE_ENGINE_CC == VNP_UNIT_CC,
	       "engines are the metrics' units");
_Static_assert(VNPROFILE_OP_DMA == VNP_OP_DMA && VNPROFILE_OP_CC == VNP_OP_CC,
	       "opcodes are the timeline's");

void vnprofile_view_summary(const struct vnprofile_view *v, struct vnprofile_summary *s)
{
	const struct vnp_timeline *tl = &v->pf.tl;
	const struct vnp_metrics *m = &v->m;
	const struct vnp_analysis *a = &v->a;
	char *unit = ((struct vnprofile_view *)v)->bound_unit;

	memset(s, 0, sizeof(*s));
	s->program = tl->prog && tl->prog->name ? tl->prog->name : "";
	s->program_path = v->prog->path;
	s->model = tl->model.name;
	s->backend = vnp_tl_backend(tl);
	s->cores = tl->ncores ? tl->ncores : 1;
	s->executions = m->nexec;
	s->total_time_ps = m->total_ps;
	s->core_time_ps = m->core_ps;
	s->critical_path_ps = a->cp.len_ps;
	s->event_count = m->event_count;
	s->instruction_count = m->instr_count;
	s->dma_count = m->dma_count;
	s->collective_count = m->ncoll;
	s->hardware_flops = m->hw_flops;
	s->hbm_read_bytes = m->hbm_read;
	s->hbm_write_bytes = m->hbm_write;
	s->dma_bytes = m->dma_bytes;
	s->lost_records = tl->lost;
	s->malformed_records = tl->malformed;
	s->hfu = m->hfu;
	s->mfu = m->mfu;
	s->mbu = m->mbu;
	s->arithmetic_intensity = m->ai;
	s->ridge_point = m->ridge;
	s->class_id = vnp_class_name(a->whole.cls);
	s->class_label = a->whole.label;
	s->class_why = a->whole.why;
	if (a->whole.unit == VNP_BOUND_HBM)
		s->bound_unit = "HBM";
	else if (a->whole.unit < VNEF_STREAMS)
		s->bound_unit = vnp_stream_name(a->whole.unit, unit, sizeof(v->bound_unit));
	else
		s->bound_unit = "";
	s->findings = a->n;
}

int vnprofile_view_finding(const struct vnprofile_view *v, unsigned int i,
			   struct vnprofile_finding *f)
{
	const struct vnp_finding *x;

	if (i >= v->a.n)
		return -ERANGE;
	x = &v->a.f[i];
	*f = (struct vnprofile_finding){
		.rule = vnp_rule_id(x->rule), .title = x->title, .evidence = x->evidence,
		.advice = x->advice, .gain = x->gain, .impact = x->impact,
		.saved_ps = x->saved_ps, .replayed = x->replayed,
		.before_ps = x->replayed ? x->before_ps : 0,
		.after_ps = x->replayed ? x->after_ps : 0,
		.then_class = x->then.cls != VNP_CLASS_NONE ? vnp_class_name(x->then.cls) : NULL,
		.then = x->then.cls != VNP_CLASS_NONE ? x->then.text : NULL };
	return 0;
}

unsigned int vnprofile_view_cores(const struct vnprofile_view *v)
{
	return v->pf.nslots > v->pf.tl.ncores ? v->pf.nslots : v->pf.tl.ncores;
}

/* The rank of core slot i's worker, as the tabs name it. */
static uint32_t slot_worker(const struct vnp_profile *pf, unsigned int i)
{
	if (i >= pf->nslots)
		return 0;
	if (pf->nr_workers[i] <= 1 && pf->tl.cc_rank[i] != VNP_NO_RANK)
		return pf->tl.cc_rank[i];
	return pf->slot[i][1];
}

int vnprofile_view_core(const struct vnprofile_view *v, unsigned int i,
			struct vnprofile_core *c)
{
	const struct vnp_profile *pf = &v->pf;

	if (i >= vnprofile_view_cores(v))
		return -ERANGE;
	memset(c, 0, sizeof(*c));
	if (i < pf->nslots) {
		c->device = pf->slot[i][0];
		c->core = pf->slot[i][2];
		c->nr_workers = pf->nr_workers[i] ? pf->nr_workers[i] : 1;
		c->label = pf->labels[i];
	} else {
		c->nr_workers = 1;
		c->core = i;
	}
	c->worker = slot_worker(pf, i);
	c->node = pf->tl.nr_nodes ? pf->tl.core_node[i] : 0;
	if (!c->label)
		c->label = "";
	return 0;
}

const struct vnprofile_exec *vnprofile_view_execs(const struct vnprofile_view *cv, size_t *n)
{
	struct vnprofile_view *v = (struct vnprofile_view *)cv;
	const struct vnp_timeline *tl = &v->pf.tl;
	size_t i;

	*n = 0;
	if (!v->execs && tl->nexec) {
		v->execs = calloc(tl->nexec, sizeof(*v->execs));
		if (!v->execs) {
			vnp_err("out of memory");
			return NULL;
		}
		for (i = 0; i < tl->nexec; i++) {
			const struct vnp_exec *x = &tl->execs[i];
			struct vnprofile_exec *o = &v->execs[i];
			uint64_t lo = x->lo <= x->hi ? x->lo : x->hi;

			o->start_ps = lo + x->shift;
			o->end_ps = x->hi + x->shift;
			o->model_ps = x->hi - lo;
			o->host_start_ns = x->host_lo;
			o->host_end_ns = x->host_hi;
			o->exec = (uint32_t)x->key;
			o->round = x->round;
			o->core = (uint16_t)(x->key >> 32);
			o->worker = (uint16_t)slot_worker(&v->pf, o->core);
			o->status = x->end_status ? (uint16_t)(x->end_status - 1u) : VNPROFILE_STATUS_NONE;
			o->reason = x->end_reason;
		}
		v->nexecs = tl->nexec;
	}
	*n = v->nexecs;
	return v->execs;
}

/* Open addressing over the program's file names: string table offset -> string index. */
struct file_map {
	uint32_t *off, *idx;
	uint32_t mask;
};

static uint32_t file_index(struct file_map *fm, uint32_t off, const char **strings,
			   size_t *n, const struct vnp_prog *p)
{
	uint32_t h = (off * 2654435761u) & fm->mask;

	while (fm->idx[h] && fm->off[h] != off)
		h = (h + 1) & fm->mask;
	if (!fm->idx[h]) {
		fm->off[h] = off;
		fm->idx[h] = (uint32_t)*n;
		strings[(*n)++] = vnp_prog_str(p, off);
	}
	return fm->idx[h];
}

/*
 * The string table ("", the scopes, then the files) and each line id's file index,
 * once. 0 or -ENOMEM (said).
 */
static int build_strings(struct vnprofile_view *v)
{
	const struct vnp_prog *p = v->pf.tl.prog;
	uint32_t nscopes = p ? p->nscopes : 0, nlines = p ? p->nlines : 0, i;
	struct file_map fm = { 0 };
	size_t n = 0, slots = 16;

	if (v->strings)
		return 0;
	while (slots < 2 * (size_t)nlines)
		slots *= 2;
	v->strings = calloc(1 + (size_t)nscopes + nlines, sizeof(*v->strings));
	v->line_file = calloc(nlines + 1, sizeof(*v->line_file));
	fm.off = calloc(slots, sizeof(*fm.off));
	fm.idx = calloc(slots, sizeof(*fm.idx));
	fm.mask = (uint32_t)slots - 1;
	if (!v->strings || !v->line_file || !fm.off || !fm.idx) {
		free(fm.off);
		free(fm.idx);
		free(v->strings);
		free(v->line_file);
		v->strings = NULL;
		v->line_file = NULL;
		vnp_err("out of memory");
		return -ENOMEM;
	}
	v->strings[n++] = "";
	for (i = 0; i < nscopes; i++)
		v->strings[n++] = vnp_prog_scope(p, i);
	for (i = 0; i < nlines; i++)
		v->line_file[i] = file_index(&fm, p->lines[i].file_off, v->strings, &n, p);
	v->nstrings = n;
	free(fm.off);
	free(fm.idx);
	return 0;
}

/* One event as the json output gives it. */
static void fill_event(const struct vnprofile_view *v, const struct vnp_ev *e, size_t idx,
		       struct vnprofile_event *o)
{
	const struct vnp_timeline *tl = &v->pf.tl;
	const struct vnp_prog *p = tl->prog;
	const struct vnp_loc *loc = vnp_ev_loc(tl, e);
	int cc = vnp_ev_is_cc(e);

	memset(o, 0, sizeof(*o));
	o->start_ps = e->start;
	o->end_ps = e->end;
	o->flops = cc ? 0 : e->flops;
	o->wait_ps = e->sem_wait != VNEURON_TRACE_NO_SEM ? vnp_ev_wait(tl, idx) : 0;
	o->cc_wait_ps = cc ? vnp_cc_wait(e) : 0;
	o->bytes = e->bytes;
	o->elements = cc ? 0 : e->elements;
	o->pc = e->pc;
	o->exec = e->exec;
	if (loc && loc->line < p->nlines) {
		o->file = v->line_file[loc->line];
		o->line = p->lines[loc->line].line;
	}
	if (loc && loc->scope != VNP_NONE && loc->scope < p->nscopes)
		o->scope = 1 + loc->scope;
	o->opcode = e->opcode;
	o->worker = (uint16_t)slot_worker(&v->pf, e->core);
	o->sem_wait = e->sem_wait;
	o->sem_signal = e->sem_signal;
	o->core = e->core;
	o->stream = e->stream;
	o->engine = e->stream < VNEF_ENGINES ? e->stream : cc ? VNP_UNIT_CC : VNP_UNIT_DMA;
	o->queue = vnp_stream_is_dma(e->stream) ? (uint8_t)(e->stream - VNEF_ENGINES) :
						  VNPROFILE_NONE8;
}

const struct vnprofile_event *vnprofile_view_events(const struct vnprofile_view *cv,
						    size_t *n)
{
	struct vnprofile_view *v = (struct vnprofile_view *)cv;
	const struct vnp_timeline *tl = &v->pf.tl;
	struct vnp_iter *it;
	const struct vnp_ev *e;
	size_t k = 0;

	*n = 0;
	if (v->events || !tl->n) {
		*n = v->nevents;
		return v->events;
	}
	if (build_strings(v))
		return NULL;
	it = malloc(sizeof(*it));
	v->events = malloc(tl->n * sizeof(*v->events));
	if (!it || !v->events) {
		free(it);
		free(v->events);
		v->events = NULL;
		vnp_err("out of memory");
		return NULL;
	}
	vnp_iter_init(it, tl);
	while ((e = vnp_iter_next(it)) && k < tl->n)
		fill_event(v, e, it->idx, &v->events[k++]);
	free(it);
	v->nevents = k;
	*n = k;
	return v->events;
}

const char *const *vnprofile_view_strings(const struct vnprofile_view *cv, size_t *n)
{
	struct vnprofile_view *v = (struct vnprofile_view *)cv;

	*n = 0;
	if (build_strings(v))
		return NULL;
	*n = v->nstrings;
	return v->strings;
}

const char *vnprofile_opcode_name(unsigned int opcode)
{
	return opcode > 0xffff ? "?" : vnp_opcode_name(opcode);
}

const char *vnprofile_stream_name(unsigned int stream, char *buf, size_t len)
{
	return vnp_stream_name(stream, buf, len);
}

const char *vnprofile_engine_name(unsigned int engine)
{
	return engine < VNP_UNITS ? vnp_engine_name(engine) : "?";
}

const char *vnprofile_exec_status_name(unsigned int status)
{
	return vnp_exec_status_name(status);
}

const char *vnprofile_exec_reason_name(unsigned int reason)
{
	return vnp_exec_reason_name(reason);
}
