// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Loading a profile's records into a timeline and joining them with the program's debug
 * table (engine or DMA queue + pc -> source line and scope).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vn_program.h"
#include "timeline.h"

/* ------------------------------------------------------------------------------------ */
/* The program                                                                            */

const char *vnp_prog_str(const struct vnp_prog *p, uint32_t off)
{
	if (!p || !p->strtab || off >= p->strtab_size)
		return "";
	/* vnp_prog_index() checked that the table ends with a NUL. */
	return p->strtab + off;
}

const char *vnp_prog_scope(const struct vnp_prog *p, uint32_t scope)
{
	if (!p || scope >= p->nscopes)
		return "";
	return vnp_prog_str(p, p->scope_off[scope]);
}

const struct vnp_loc *vnp_prog_loc(const struct vnp_prog *p, unsigned int stream, uint32_t pc)
{
	if (stream >= VNEF_STREAMS || !p->loc[stream] || pc >= p->nloc[stream])
		return NULL;
	return &p->loc[stream][pc];
}

const struct vnef_dma_desc *vnp_prog_desc(const struct vnp_prog *p, unsigned int queue,
					  uint32_t pc)
{
	if (!p || queue >= VNEF_DMA_QUEUES || !p->desc[queue] || pc >= p->ndesc[queue])
		return NULL;
	return &p->desc[queue][pc];
}

const struct vnef_instr *vnp_prog_instr(const struct vnp_prog *p, unsigned int engine,
					uint32_t pc)
{
	if (!p || engine >= VNEF_ENGINES || !p->instr[engine] || pc >= p->ninstr[engine])
		return NULL;
	return &p->instr[engine][pc];
}

static const struct vnp_prog *cmp_prog;	/* qsort has no context argument */

static int cmp_str_off(const void *a, const void *b)
{
	return strcmp(vnp_prog_str(cmp_prog, *(const uint32_t *)a),
		      vnp_prog_str(cmp_prog, *(const uint32_t *)b));
}

static int cmp_line(const void *a, const void *b)
{
	const struct vnp_line *x = a, *y = b;
	int c = strcmp(vnp_prog_str(cmp_prog, x->file_off), vnp_prog_str(cmp_prog, y->file_off));

	if (c)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

static uint32_t find_scope(const struct vnp_prog *p, uint32_t off)
{
	const char *s = vnp_prog_str(p, off);
	uint32_t lo = 0, hi = p->nscopes;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(vnp_prog_str(p, p->scope_off[mid]), s);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return VNP_NONE;
}

static uint32_t find_line(const struct vnp_prog *p, uint32_t file_off, uint32_t line)
{
	struct vnp_line key = { file_off, line };
	uint32_t lo = 0, hi = p->nlines;

	cmp_prog = p;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = cmp_line(&p->lines[mid], &key);

		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return VNP_NONE;
}

int vnp_prog_index(struct vnp_prog *p)
{
	uint32_t s, i, n;

	if (p->strtab && (!p->strtab_size || p->strtab[p->strtab_size - 1]))
		return -EINVAL;
	for (i = 0; i < VNEF_MAX_SEMS; i++)
		p->sem_writer[i] = VNP_NONE;
	for (s = 0; s < VNEF_STREAMS; s++) {
		uint32_t cnt = s < VNEF_ENGINES ? p->ninstr[s] : p->ndesc[s - VNEF_ENGINES];

		for (i = 0; i < cnt; i++) {
			uint64_t mask = s < VNEF_ENGINES ? p->instr[s][i].signal_mask :
					p->desc[s - VNEF_ENGINES][i].signal_mask;
			uint32_t b;

			for (b = 0; b < VNEF_MAX_SEMS; b++)
				if (mask & (1ull << b))
					p->sem_writer[b] = s;
		}
	}
	if (!p->ndebug)
		return 0;
	p->scope_off = calloc(p->ndebug, sizeof(*p->scope_off));
	p->lines = calloc(p->ndebug, sizeof(*p->lines));
	if (!p->scope_off || !p->lines)
		return -ENOMEM;
	for (i = 0; i < p->ndebug; i++) {
		p->scope_off[i] = p->debug[i].scope_off;
		p->lines[i].file_off = p->debug[i].file_off;
		p->lines[i].line = p->debug[i].line;
	}
	cmp_prog = p;
	qsort(p->scope_off, p->ndebug, sizeof(*p->scope_off), cmp_str_off);
	qsort(p->lines, p->ndebug, sizeof(*p->lines), cmp_line);
	for (i = 0, n = 0; i < p->ndebug; i++)
		if (!n || cmp_str_off(&p->scope_off[n - 1], &p->scope_off[i]))
			p->scope_off[n++] = p->scope_off[i];
	p->nscopes = n;
	for (i = 0, n = 0; i < p->ndebug; i++)
		if (!n || cmp_line(&p->lines[n - 1], &p->lines[i]))
			p->lines[n++] = p->lines[i];
	p->nlines = n;

	for (i = 0; i < p->ndebug; i++) {
		const struct vnef_debug *d = &p->debug[i];

		s = d->stream;
		if (s >= VNEF_STREAMS)
			return -EINVAL;
		if (d->index >= VNEF_MAX_INSTRS)
			return -EINVAL;
		if (d->index >= p->nloc[s]) {
			uint32_t nn = d->index + 1, k;
			struct vnp_loc *l;

			if (nn < 2 * p->nloc[s])
				nn = 2 * p->nloc[s];
			l = realloc(p->loc[s], (size_t)nn * sizeof(*l));
			if (!l)
				return -ENOMEM;
			for (k = p->nloc[s]; k < nn; k++)
				l[k] = (struct vnp_loc){ VNP_NONE, VNP_NONE };
			p->loc[s] = l;
			p->nloc[s] = nn;
		}
		p->loc[s][d->index].scope = d->scope_off ? find_scope(p, d->scope_off) : VNP_NONE;
		p->loc[s][d->index].line = d->file_off || d->line ?
					   find_line(p, d->file_off, d->line) : VNP_NONE;
	}
	return 0;
}

int vnp_prog_load(struct vnp_prog *p, const void *image, size_t size, char *err,
		  size_t errlen)
{
	struct vn_prog_error pe = { 0 };
	struct vn_program *vp = NULL;
	unsigned int s;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = vn_program_load(image, size, &vp, &pe);
	if (ret) {
		snprintf(err, errlen, "invalid program: %s (%s, section %d, entry %d)",
			 pe.msg ? pe.msg : "rejected", vn_check_name(pe.check),
			 (int)pe.section, (int)pe.index);
		return ret;
	}
	p->owner = vp;
	p->strtab = vp->strtab;
	p->strtab_size = vp->strtab_size;
	p->tensors = vp->tensors;
	p->ntensors = vp->tensor_count;
	p->debug = vp->debug;
	p->ndebug = vp->debug_count;
	for (s = 0; s < VNEF_ENGINES; s++) {
		p->instr[s] = vp->streams[s].instr;
		p->ninstr[s] = vp->streams[s].count;
	}
	for (s = 0; s < VNEF_DMA_QUEUES; s++) {
		p->desc[s] = vp->streams[VNEF_STREAM_DMA(s)].desc;
		p->ndesc[s] = vp->streams[VNEF_STREAM_DMA(s)].count;
	}
	if (size >= sizeof(struct vnef_header))
		p->name = vnp_prog_str(p, ((const struct vnef_header *)vp->image)->name_off);
	ret = vnp_prog_index(p);
	if (ret) {
		snprintf(err, errlen, "program debug table: %s", strerror(-ret));
		vnp_prog_free(p);
	}
	return ret;
}

void vnp_prog_free(struct vnp_prog *p)
{
	unsigned int s;

	for (s = 0; s < VNEF_STREAMS; s++)
		free(p->loc[s]);
	free(p->scope_off);
	free(p->lines);
	if (p->owner)
		vn_program_put(p->owner);
	memset(p, 0, sizeof(*p));
}

/* ------------------------------------------------------------------------------------ */
/* Building the timeline                                                                  */

void vnp_tl_init(struct vnp_timeline *tl, const struct vneuron_model *m,
		 const struct vnp_prog *prog)
{
	unsigned int i;

	memset(tl, 0, sizeof(*tl));
	tl->model = *m;
	tl->prog = prog;
	tl->t0 = UINT64_MAX;
	for (i = 0; i < VNEF_MAX_SEMS; i++)
		tl->sig_stream[i] = VNP_NONE;
}

/* The execution of (core, exec), added if new; NULL without memory. */
static struct vnp_exec *note_exec(struct vnp_timeline *tl, unsigned int core, uint32_t exec)
{
	uint64_t key = (uint64_t)core << 32 | exec;
	size_t i;

	if (tl->nexec && tl->execs[tl->last_exec].key == key)
		return &tl->execs[tl->last_exec];
	for (i = 0; i < tl->nexec; i++)
		if (tl->execs[i].key == key) {
			tl->last_exec = i;
			return &tl->execs[i];
		}
	if (tl->nexec == tl->nexecs_cap) {
		size_t nc = tl->nexecs_cap ? 2 * tl->nexecs_cap : 16;
		struct vnp_exec *x = realloc(tl->execs, nc * sizeof(*x));

		if (!x)
			return NULL;
		tl->execs = x;
		tl->nexecs_cap = nc;
	}
	tl->last_exec = tl->nexec;
	tl->execs[tl->nexec] = (struct vnp_exec){ .key = key, .lo = UINT64_MAX };
	return &tl->execs[tl->nexec++];
}

static int add_marker(struct vnp_timeline *tl, unsigned int core,
		      const struct vneuron_trace_record *r)
{
	if (tl->nmarkers == tl->markers_cap) {
		size_t nc = tl->markers_cap ? 2 * tl->markers_cap : 64;
		struct vnp_marker *m = realloc(tl->markers, nc * sizeof(*m));

		if (!m)
			return -ENOMEM;
		tl->markers = m;
		tl->markers_cap = nc;
	}
	tl->markers[tl->nmarkers++] = (struct vnp_marker){
		.time = r->model_start_ps, .value = r->count, .id = r->opcode,
		.exec = r->exec_seq, .core = (uint8_t)core };
	if (core + 1 > tl->ncores)
		tl->ncores = core + 1;
	return 0;
}

/*
 * An ERROR record, kept apart from the events: it is not work the core did. Placed on
 * its execution like an event (and it widens the execution if it lies outside).
 */
static int add_fault(struct vnp_timeline *tl, unsigned int core, unsigned int stream,
		     const struct vneuron_trace_record *r, struct vnp_exec *x)
{
	if (tl->nfaults == tl->faults_cap) {
		size_t nc = tl->faults_cap ? 2 * tl->faults_cap : 8;
		struct vnp_fault *f = realloc(tl->faults, nc * sizeof(*f));

		if (!f)
			return -ENOMEM;
		tl->faults = f;
		tl->faults_cap = nc;
	}
	tl->faults[tl->nfaults++] = (struct vnp_fault){
		.time = r->model_start_ps, .model_ps = r->model_start_ps, .offset = r->count,
		.pc = r->pc, .exec = r->exec_seq, .index = r->sem_value, .len = r->bytes,
		.reason = r->opcode, .mem = (uint8_t)r->elements, .stream = (uint8_t)stream,
		.core = (uint8_t)core };
	if (r->model_start_ps < x->lo)
		x->lo = r->model_start_ps;
	if (r->model_start_ps > x->hi)
		x->hi = r->model_start_ps;
	if (core + 1 > tl->ncores)
		tl->ncores = core + 1;
	return 0;
}

int vnp_tl_add(struct vnp_timeline *tl, unsigned int core,
	       const struct vneuron_trace_record *recs, size_t n)
{
	size_t i;

	if (core >= VNP_MAX_CORES || tl->finished)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		const struct vneuron_trace_record *r = &recs[i];
		struct vnp_exec *x;
		struct vnp_ev *e;
		unsigned int stream, t;

		switch (r->kind) {
		case VNEURON_TRACE_INSN:
			if (r->engine >= VNEF_ENGINES || r->opcode >= VNEF_OP_COUNT)
				goto bad;
			stream = r->engine;
			break;
		case VNEURON_TRACE_DMA:
			if (r->engine != VNEURON_TRACE_ENGINE_DMA || r->dma_queue >= VNEF_DMA_QUEUES)
				goto bad;
			stream = VNEF_STREAM_DMA(r->dma_queue);
			break;
		case VNEURON_TRACE_LOST:
			tl->lost += r->count;
			if (add_marker(tl, core, r))
				return -ENOMEM;
			tl->markers[tl->nmarkers - 1].id = VNP_MARKER_LOST;
			continue;
		case VNEURON_TRACE_EXEC_START:
			x = note_exec(tl, core, r->exec_seq);
			if (!x)
				return -ENOMEM;
			tl->exec_starts++;
			if (r->model_start_ps < x->lo)
				x->lo = r->model_start_ps;
			continue;
		case VNEURON_TRACE_EXEC_END:
			if (r->model_end_ps < r->model_start_ps)
				goto bad;
			x = note_exec(tl, core, r->exec_seq);
			if (!x)
				return -ENOMEM;
			if (r->model_end_ps > x->hi)
				x->hi = r->model_end_ps;
			tl->exec_status[r->opcode < VNP_EXEC_STATUSES - 1 ? r->opcode :
					VNP_EXEC_STATUSES - 1]++;
			continue;
		case VNEURON_TRACE_ERROR:
			if (r->opcode < VNEURON_REASON_FAULT_SBUF ||
			    r->opcode > VNEURON_REASON_FAULT_STATE || r->elements > VNEF_MEM_HBM ||
			    r->model_end_ps < r->model_start_ps)
				goto bad;
			if (r->engine < VNEF_ENGINES)
				stream = r->engine;
			else if (r->engine == VNEURON_TRACE_ENGINE_DMA &&
				 r->dma_queue < VNEF_DMA_QUEUES)
				stream = VNEF_STREAM_DMA(r->dma_queue);
			else
				goto bad;
			x = note_exec(tl, core, r->exec_seq);
			if (!x || add_fault(tl, core, stream, r, x))
				return -ENOMEM;
			continue;
		case VNEURON_TRACE_MARKER:
			if (r->opcode >= VNEURON_TRACE_API) {
				unsigned int k = r->opcode - VNEURON_TRACE_API;

				if (k >= VNP_API_KINDS)
					k = 0;
				tl->api_calls[k]++;
				tl->api_ns[k] += r->count;
				continue;
			}
			if (add_marker(tl, core, r))
				return -ENOMEM;
			continue;
		case VNEURON_TRACE_SEM:
			/* a further semaphore its instruction or descriptor signalled */
			if (r->sem_signal < VNEF_MAX_SEMS && r->engine < VNEF_ENGINES)
				tl->sig_stream[r->sem_signal] = r->engine;
			else if (r->sem_signal < VNEF_MAX_SEMS &&
				 r->engine == VNEURON_TRACE_ENGINE_DMA && r->dma_queue < VNEF_DMA_QUEUES)
				tl->sig_stream[r->sem_signal] = VNEF_STREAM_DMA(r->dma_queue);
			continue;
		default:
			goto bad;
		}
		if (r->model_end_ps < r->model_start_ps)
			goto bad;
		x = note_exec(tl, core, r->exec_seq);
		if (!x)
			return -ENOMEM;
		if (r->model_start_ps < x->lo)
			x->lo = r->model_start_ps;
		if (r->model_end_ps > x->hi)
			x->hi = r->model_end_ps;
		t = core * VNEF_STREAMS + stream;
		if (tl->tn[t] == tl->tcap[t]) {
			/* grow by half: large blocks are remapped, not copied */
			size_t nc = tl->tcap[t] ? tl->tcap[t] + tl->tcap[t] / 2 : 1024;

			e = realloc(tl->tev[t], nc * sizeof(*e));
			if (!e)
				return -ENOMEM;
			tl->tev[t] = e;
			tl->tcap[t] = nc;
		}
		e = &tl->tev[t][tl->tn[t]++];
		tl->n++;
		e->start = r->model_start_ps;
		e->end = r->model_end_ps;
		e->flops = r->kind == VNEURON_TRACE_INSN ? r->flops : 0;
		e->pc = r->pc;
		e->bytes = r->bytes;
		e->elements = r->elements;
		e->exec = r->exec_seq;
		e->opcode = r->kind == VNEURON_TRACE_DMA ? VNP_OP_DMA : r->opcode;
		e->sem_wait = r->sem_wait;
		e->sem_signal = r->sem_signal;
		e->stream = (uint8_t)stream;
		e->core = (uint8_t)core;
		if (r->sem_signal < VNEF_MAX_SEMS)
			tl->sig_stream[r->sem_signal] = stream;
		if (core + 1 > tl->ncores)
			tl->ncores = core + 1;
		continue;
bad:
		tl->malformed++;
	}
	return 0;
}

static inline int ev_less(const struct vnp_ev *a, const struct vnp_ev *b)
{
	unsigned int ta = vnp_ev_track(a), tb = vnp_ev_track(b);

	if (ta != tb)
		return ta < tb;
	if (a->start != b->start)
		return a->start < b->start;
	if (a->exec != b->exec)
		return a->exec < b->exec;
	return a->pc < b->pc;
}

static inline void ev_swap(struct vnp_ev *a, struct vnp_ev *b)
{
	struct vnp_ev t = *a;

	*a = *b;
	*b = t;
}

static void sift_down(struct vnp_ev *v, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			return;
		if (c + 1 < n && ev_less(&v[c], &v[c + 1]))
			c++;
		if (!ev_less(&v[i], &v[c]))
			return;
		ev_swap(&v[i], &v[c]);
		i = c;
	}
}

static void heap_sort(struct vnp_ev *v, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (i = n; i-- > 1;) {
		ev_swap(&v[0], &v[i]);
		sift_down(v, 0, i);
	}
}

/*
 * In-place introsort: glibc's qsort may allocate a copy of the whole array (merge
 * sort), which would double the timeline's memory.
 */
static void sort_events(struct vnp_ev *v, size_t n, unsigned int depth)
{
	while (n > 16) {
		size_t mid = n / 2, i, j;
		struct vnp_ev pivot;

		if (!depth--) {
			heap_sort(v, n);
			return;
		}
		if (ev_less(&v[mid], &v[0]))
			ev_swap(&v[mid], &v[0]);
		if (ev_less(&v[n - 1], &v[0]))
			ev_swap(&v[n - 1], &v[0]);
		if (ev_less(&v[n - 1], &v[mid]))
			ev_swap(&v[n - 1], &v[mid]);
		pivot = v[mid];
		i = 0;
		j = n - 1;
		for (;;) {
			while (ev_less(&v[i], &pivot))
				i++;
			while (ev_less(&pivot, &v[j]))
				j--;
			if (i >= j)
				break;
			ev_swap(&v[i], &v[j]);
			i++;
			j--;
		}
		/* [0, j] <= pivot <= [j + 1, n): recurse on the smaller side. */
		if (j + 1 < n - j - 1) {
			sort_events(v, j + 1, depth);
			v += j + 1;
			n -= j + 1;
		} else {
			sort_events(v + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct vnp_ev t = v[i];
		size_t j = i;

		while (j > 0 && ev_less(&t, &v[j - 1])) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = t;
	}
}

/*
 * Joins the per-track arrays into one. Each track's pages are freed as soon as they are
 * copied and the new array's pages are touched only as they are written, so the peak
 * stays near one copy of the events. A track is sorted only if it arrived out of order
 * (a ring's records arrive in order).
 */
static int cmp_exec(const void *a, const void *b)
{
	const struct vnp_exec *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * Lays the executions of each core out back to back in exec_seq order (see struct
 * vnp_exec) and shifts their events. Returns whether any moved.
 */
static int layout_execs(struct vnp_timeline *tl)
{
	uint64_t cur = 0;
	size_t i, k;
	int moved = 0;
	unsigned int t;

	if (!tl->nexec)
		return 0;
	qsort(tl->execs, tl->nexec, sizeof(*tl->execs), cmp_exec);
	for (i = 0; i < tl->nexec; i++) {
		struct vnp_exec *x = &tl->execs[i];

		if (x->lo == UINT64_MAX)	/* only an EXEC_END */
			x->lo = x->hi;
		if (x->hi < x->lo)
			x->hi = x->lo;
		if (!i || (x->key >> 32) != (tl->execs[i - 1].key >> 32))
			cur = 0;		/* a new core */
		x->shift = cur > x->lo ? cur - x->lo : 0;
		if (x->hi + x->shift < x->hi)	/* no room left: keep the records' times */
			x->shift = 0;
		moved |= x->shift != 0;
		cur = x->hi + x->shift;
	}
	if (!moved)
		return 0;
	for (t = 0; t < VNP_TRACKS; t++) {
		uint64_t core = t / VNEF_STREAMS;

		for (k = 0; k < tl->tn[t]; k++) {
			struct vnp_ev *e = &tl->tev[t][k];
			uint64_t key = core << 32 | e->exec;
			size_t lo = 0, hi = tl->nexec;

			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (tl->execs[mid].key < key)
					lo = mid + 1;
				else
					hi = mid;
			}
			/* the event's execution is always there: events create it */
			e->start += tl->execs[lo].shift;
			e->end += tl->execs[lo].shift;
		}
	}
	for (k = 0; k < tl->nmarkers; k++) {
		uint64_t key = (uint64_t)tl->markers[k].core << 32 | tl->markers[k].exec;

		for (i = 0; i < tl->nexec; i++)
			if (tl->execs[i].key == key)
				tl->markers[k].time += tl->execs[i].shift;
	}
	for (k = 0; k < tl->nfaults; k++) {
		uint64_t key = (uint64_t)tl->faults[k].core << 32 | tl->faults[k].exec;

		for (i = 0; i < tl->nexec; i++)
			if (tl->execs[i].key == key)
				tl->faults[k].time += tl->execs[i].shift;
	}
	return 1;
}

static int cmp_fault(const void *a, const void *b)
{
	const struct vnp_fault *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

uint64_t vnp_tl_exec_start(const struct vnp_timeline *tl, unsigned int core, uint32_t exec)
{
	uint64_t key = (uint64_t)core << 32 | exec;
	size_t lo = 0, hi = tl->nexec;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (tl->execs[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < tl->nexec && tl->execs[lo].key == key)
		return tl->execs[lo].lo + tl->execs[lo].shift;
	return tl->t0;
}

int vnp_tl_finish(struct vnp_timeline *tl)
{
	size_t i, off = 0;
	unsigned int t;

	if (tl->finished)
		return 0;
	layout_execs(tl);
	for (i = 0; i < tl->nexec; i++) {
		if (tl->execs[i].lo + tl->execs[i].shift < tl->t0)
			tl->t0 = tl->execs[i].lo + tl->execs[i].shift;
		if (tl->execs[i].hi + tl->execs[i].shift > tl->t1)
			tl->t1 = tl->execs[i].hi + tl->execs[i].shift;
	}
	if (tl->n) {
		tl->ev = malloc(tl->n * sizeof(*tl->ev));
		if (!tl->ev)
			return -ENOMEM;
	}
	for (t = 0; t < VNP_TRACKS; t++) {
		struct vnp_ev *v = tl->tev[t];
		size_t n = tl->tn[t], sorted = 1;

		tl->track_off[t] = off;
		for (i = 1; i < n && sorted; i++)
			sorted = !ev_less(&v[i], &v[i - 1]);
		if (!sorted) {
			unsigned int depth = 0;

			for (i = n; i; i >>= 1)
				depth += 2;
			sort_events(v, n, depth);
		}
		if (n)
			memcpy(tl->ev + off, v, n * sizeof(*v));
		off += n;
		free(v);
		tl->tev[t] = NULL;
		tl->tn[t] = 0;
		tl->tcap[t] = 0;
	}
	tl->track_off[VNP_TRACKS] = off;
	if (tl->nfaults)
		qsort(tl->faults, tl->nfaults, sizeof(*tl->faults), cmp_fault);
	if (tl->t0 == UINT64_MAX)
		tl->t0 = 0;
	if (tl->t1 < tl->t0)
		tl->t1 = tl->t0;
	tl->finished = 1;
	return 0;
}

void vnp_tl_free(struct vnp_timeline *tl)
{
	unsigned int t;

	for (t = 0; t < VNP_TRACKS; t++)
		free(tl->tev[t]);
	free(tl->ev);
	free(tl->markers);
	free(tl->faults);
	free(tl->execs);
	memset(tl, 0, sizeof(*tl));
}

void vnp_ev_dma_mems(const struct vnp_timeline *tl, const struct vnp_ev *e,
		     unsigned int *src, unsigned int *dst)
{
	const struct vnef_dma_desc *d = NULL;

	if (e->opcode == VNP_OP_DMA && tl->prog)
		d = vnp_prog_desc(tl->prog, e->stream - VNEF_ENGINES, e->pc);
	*src = d && d->src.mem <= VNEF_MEM_HBM ? d->src.mem : 0;
	*dst = d && d->dst.mem <= VNEF_MEM_HBM ? d->dst.mem : 0;
}

/* ------------------------------------------------------------------------------------ */
/* Merged iteration: a binary heap of tracks keyed by their next event's start          */

static inline int it_less(const struct vnp_iter *it, unsigned int a, unsigned int b)
{
	const struct vnp_ev *x = &it->tl->ev[it->tl->track_off[a] + it->pos[a]];
	const struct vnp_ev *y = &it->tl->ev[it->tl->track_off[b] + it->pos[b]];

	if (x->start != y->start)
		return x->start < y->start;
	return a < b;
}

static void it_down(struct vnp_iter *it, unsigned int i)
{
	for (;;) {
		unsigned int c = 2 * i + 1, t;

		if (c >= it->nheap)
			return;
		if (c + 1 < it->nheap && it_less(it, it->heap[c + 1], it->heap[c]))
			c++;
		if (!it_less(it, it->heap[c], it->heap[i]))
			return;
		t = it->heap[i];
		it->heap[i] = it->heap[c];
		it->heap[c] = t;
		i = c;
	}
}

void vnp_iter_init(struct vnp_iter *it, const struct vnp_timeline *tl)
{
	unsigned int t;

	it->tl = tl;
	it->nheap = 0;
	for (t = 0; t < VNP_TRACKS; t++) {
		it->pos[t] = 0;
		if (vnp_tl_track_len(tl, t))
			it->heap[it->nheap++] = t;
	}
	for (t = it->nheap / 2; t-- > 0;)
		it_down(it, t);
}

const struct vnp_ev *vnp_iter_next(struct vnp_iter *it)
{
	const struct vnp_ev *e;
	unsigned int t;

	if (!it->nheap)
		return NULL;
	t = it->heap[0];
	e = &it->tl->ev[it->tl->track_off[t] + it->pos[t]];
	if (++it->pos[t] == vnp_tl_track_len(it->tl, t))
		it->heap[0] = it->heap[--it->nheap];
	it_down(it, 0);
	return e;
}

/* ------------------------------------------------------------------------------------ */
/* Names and formatting                                                                   */

static const char *const engine_names[] = { "TensorE", "VectorE", "ScalarE", "GpSimdE" };

static const char *const op_names[VNEF_OP_COUNT] = {
	"NOP", "LOAD_STATIONARY", "MULTIPLY_MOVING", "TRANSPOSE", "TENSOR_TENSOR",
	"TENSOR_SCALAR", "REDUCE", "COPY", "ACTIVATE", "MEMSET", "IOTA", "PARTITION_REDUCE",
};

const char *vnp_engine_name(unsigned int engine)
{
	return engine < VNEF_ENGINES ? engine_names[engine] : "DMA";
}

const char *vnp_opcode_name(unsigned int opcode)
{
	if (opcode == VNP_OP_DMA)
		return "DMA";
	return opcode < VNEF_OP_COUNT ? op_names[opcode] : "?";
}

const char *vnp_api_name(unsigned int kind)
{
	static const char *const names[VNP_API_KINDS] = {
		"other", "open", "close", "mem_alloc", "mem_free", "program_load", "exec", "wait",
	};

	return kind < VNP_API_KINDS ? names[kind] : "other";
}

const char *vnp_exec_status_name(unsigned int status)
{
	static const char *const names[] = { "OK", "ERROR", "TIMEOUT", "ABORTED", "FAULT" };

	return status < sizeof(names) / sizeof(names[0]) ? names[status] : "?";
}

const char *vnp_exec_reason_name(unsigned int reason)
{
	static const char *const names[] = {
		[VNEURON_REASON_NONE] = "",
		[VNEURON_REASON_DEADLOCK] = "deadlock",
		[VNEURON_REASON_TIME_LIMIT] = "time limit",
		[VNEURON_REASON_RESET] = "reset",
		[VNEURON_REASON_STOP] = "module unload",
		[VNEURON_REASON_NOMEM] = "out of scratch memory",
		[VNEURON_REASON_CANCEL] = "cancelled",
		[VNEURON_REASON_FAULT_SBUF] = "access outside SBUF",
		[VNEURON_REASON_FAULT_PSUM] = "access outside PSUM",
		[VNEURON_REASON_FAULT_HBM] = "access outside a bound HBM buffer",
		[VNEURON_REASON_FAULT_SEM] = "semaphore outside its table",
		[VNEURON_REASON_FAULT_STATE] = "operands the engine cannot hold",
	};

	return reason < sizeof(names) / sizeof(names[0]) ? names[reason] : "?";
}

const char *vnp_fault_reason_id(unsigned int reason)
{
	static const char *const ids[] = { "sbuf", "psum", "hbm", "semaphore", "state" };

	if (reason < VNEURON_REASON_FAULT_SBUF || reason > VNEURON_REASON_FAULT_STATE)
		return "?";
	return ids[reason - VNEURON_REASON_FAULT_SBUF];
}

uint32_t vnp_fault_opcode(const struct vnp_timeline *tl, const struct vnp_fault *f)
{
	const struct vnef_instr *in;

	if (f->stream >= VNEF_ENGINES)
		return VNP_OP_DMA;
	in = vnp_prog_instr(tl->prog, f->stream, f->pc);
	return in && in->opcode < VNEF_OP_COUNT ? in->opcode : VNP_NONE;
}

const char *vnp_fault_what(const struct vnp_timeline *tl, const struct vnp_fault *f,
			   char *buf, size_t len)
{
	const char *what = f->stream >= VNEF_ENGINES ? "DMA chunk" : "operand";
	unsigned long long off = f->offset, last = off + f->len - 1;
	unsigned int mem = f->mem;

	/* the memory the reason names when the record leaves it out */
	if (!mem && f->reason >= VNEURON_REASON_FAULT_SBUF &&
	    f->reason <= VNEURON_REASON_FAULT_HBM)
		mem = f->reason - VNEURON_REASON_FAULT_SBUF + VNEF_MEM_SBUF;
	if (f->reason == VNEURON_REASON_FAULT_SEM) {
		snprintf(buf, len, "semaphore %u value %llu beyond its table", f->index, off);
	} else if (f->reason == VNEURON_REASON_FAULT_STATE || !mem) {
		snprintf(buf, len, "%s", f->stream >= VNEF_ENGINES ?
			 "a DMA endpoint the queue cannot address" :
			 "operands the engine cannot hold");
	} else if (mem == VNEF_MEM_HBM) {
		const struct vnp_prog *p = tl->prog;
		const char *name = p && f->index < p->ntensors && p->tensors ?
				   vnp_prog_str(p, p->tensors[f->index].name_off) : "";

		if (!f->len)
			snprintf(buf, len, "%s of HBM tensor %u%s%s%s, which has no buffer bound",
				 what, f->index, *name ? " (" : "", name, *name ? ")" : "");
		else
			snprintf(buf, len, "%s outside HBM tensor %u%s%s%s: bytes %llu..%llu", what,
				 f->index, *name ? " (" : "", name, *name ? ")" : "", off,
				 last < off ? ~0ull : last);
	} else if (!f->len) {
		snprintf(buf, len, "%s outside %s partition %u (offset %llu)", what,
			 vnp_mem_name(mem), f->index, off);
	} else {
		snprintf(buf, len, "%s outside %s: partition %u, bytes %llu..%llu", what,
			 vnp_mem_name(mem), f->index, off, last < off ? ~0ull : last);
	}
	return buf;
}

const char *vnp_mem_name(unsigned int mem)
{
	switch (mem) {
	case VNEF_MEM_SBUF:
		return "SBUF";
	case VNEF_MEM_PSUM:
		return "PSUM";
	case VNEF_MEM_HBM:
		return "HBM";
	default:
		return "?";
	}
}

const char *vnp_stream_name(unsigned int stream, char *buf, size_t len)
{
	if (stream < VNEF_ENGINES)
		snprintf(buf, len, "%s", engine_names[stream]);
	else
		snprintf(buf, len, "DMA q%u", stream - VNEF_ENGINES);
	return buf;
}

const char *vnp_fmt_time(uint64_t ps, char *buf, size_t len)
{
	double v = (double)ps;

	if (ps < 1000ull)
		snprintf(buf, len, "%llu ps", (unsigned long long)ps);
	else if (ps < 1000000ull)
		snprintf(buf, len, "%.3f ns", v / 1e3);
	else if (ps < 1000000000ull)
		snprintf(buf, len, "%.3f us", v / 1e6);
	else if (ps < 1000000000000ull)
		snprintf(buf, len, "%.3f ms", v / 1e9);
	else
		snprintf(buf, len, "%.3f s", v / 1e12);
	return buf;
}

const char *vnp_fmt_bytes(double b, char *buf, size_t len)
{
	if (b < 1024)
		snprintf(buf, len, "%.0f B", b);
	else if (b < 1024.0 * 1024)
		snprintf(buf, len, "%.1f KiB", b / 1024);
	else if (b < 1024.0 * 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", b / (1024.0 * 1024));
	else
		snprintf(buf, len, "%.2f GiB", b / (1024.0 * 1024 * 1024));
	return buf;
}

void vnp_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	fputc('"', f);
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}
