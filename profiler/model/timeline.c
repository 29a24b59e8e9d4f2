// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A profile's records as a timeline: events kept per track (core x stream), executions
 * laid out back to back, all tracks walked merged in start order; and the names and
 * formatting the outputs share. The program side (pc -> source line and scope) is
 * prog.c.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "neurondev.h"
#include "timeline.h"
#include "timeline_priv.h"
#include "vn_isa.h"
#include "../format/vntf.h"

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
	tl->shapes_try = VNP_SHAPES_TRY;
	for (i = 0; i < VNEF_MAX_SEMS; i++)
		tl->sig_stream[i] = VNP_NONE;
	for (i = 0; i < VNP_MAX_CORES; i++) {
		tl->cc_rank[i] = VNP_NO_RANK;
		tl->rg.core_slot[i] = (uint16_t)i;
	}
}

static void see_core(struct vnp_timeline *tl, unsigned int core)
{
	if (core + 1 > tl->ncores)
		tl->ncores = core + 1;
}

static uint64_t exec_key(unsigned int core, uint32_t exec)
{
	return (uint64_t)core << 32 | exec;
}

static size_t exec_slot(uint64_t key, size_t cap)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/*
 * The executions by key at twice the table's size (a profile can hold millions: a
 * search of the list per new one would be quadratic). 0 or -ENOMEM.
 */
static int exec_rehash(struct vnp_timeline *tl)
{
	size_t cap = tl->exec_hash_cap ? tl->exec_hash_cap * 2 : 256, i, k;
	uint32_t *h;

	if (cap > SIZE_MAX / sizeof(*h) || tl->nexec >= UINT32_MAX)
		return -ENOMEM;
	h = calloc(cap, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (i = 0; i < tl->nexec; i++) {
		for (k = exec_slot(tl->execs[i].key, cap); h[k]; k = (k + 1) & (cap - 1))
			;
		h[k] = (uint32_t)i + 1;
	}
	free(tl->exec_hash);
	tl->exec_hash = h;
	tl->exec_hash_cap = cap;
	return 0;
}

/* The execution of (core, exec), added if new; NULL without memory. */
static struct vnp_exec *note_exec(struct vnp_timeline *tl, unsigned int core, uint32_t exec)
{
	uint64_t key = exec_key(core, exec);
	struct vnp_exec *x;
	uint32_t j;
	size_t k;

	if (tl->nexec && tl->execs[tl->last_exec].key == key)
		return &tl->execs[tl->last_exec];
	if ((tl->nexec + 1 > tl->exec_hash_cap / 2) && exec_rehash(tl))
		return NULL;
	for (k = exec_slot(key, tl->exec_hash_cap); (j = tl->exec_hash[k]);
	     k = (k + 1) & (tl->exec_hash_cap - 1))
		if (tl->execs[j - 1].key == key) {
			tl->last_exec = j - 1;
			return &tl->execs[j - 1];
		}
	if (vnp_grow((void **)&tl->execs, tl->nexec, &tl->nexecs_cap, sizeof(*x), 16))
		return NULL;
	x = tl->execs;
	tl->last_exec = tl->nexec;
	tl->exec_hash[k] = (uint32_t)tl->nexec + 1;
	x[tl->nexec] = (struct vnp_exec){ .key = key, .lo = UINT64_MAX };
	return &x[tl->nexec++];
}

/* Widens an execution to [lo, hi] (UINT64_MAX or 0 to leave a side). */
static void widen(struct vnp_exec *x, uint64_t lo, uint64_t hi)
{
	if (lo < x->lo)
		x->lo = lo;
	if (hi > x->hi)
		x->hi = hi;
}

static int add_marker(struct vnp_timeline *tl, unsigned int core,
		      const struct vneuron_trace_record *r, uint32_t id)
{
	struct vnp_marker *m;

	if (vnp_grow((void **)&tl->markers, tl->nmarkers, &tl->markers_cap, sizeof(*m), 64))
		return -ENOMEM;
	m = tl->markers;
	m[tl->nmarkers++] = (struct vnp_marker){
		.time = r->model_start_ps, .value = r->count, .id = id,
		.exec = r->exec_seq, .core = (uint8_t)core };
	see_core(tl, core);
	return 0;
}

/*
 * An ERROR record, kept apart from the events: it is not work the core did. Placed on
 * its execution like an event (and it widens the execution if it lies outside).
 */
static int add_fault(struct vnp_timeline *tl, unsigned int core, unsigned int stream,
		     const struct vneuron_trace_record *r, struct vnp_exec *x)
{
	struct vnp_fault *f;

	if (vnp_grow((void **)&tl->faults, tl->nfaults, &tl->faults_cap, sizeof(*f), 8))
		return -ENOMEM;
	f = tl->faults;
	f[tl->nfaults++] = (struct vnp_fault){
		.time = r->model_start_ps, .model_ps = r->model_start_ps, .offset = r->count,
		.pc = r->pc, .exec = r->exec_seq, .index = r->sem_value, .len = r->bytes,
		.reason = r->opcode, .mem = (uint8_t)r->elements, .stream = (uint8_t)stream,
		.core = (uint8_t)core };
	widen(x, r->model_start_ps, r->model_start_ps);
	see_core(tl, core);
	return 0;
}

/* The stream of a record of an engine, a DMA queue or the CC engine, or VNP_NONE. */
static unsigned int rec_stream(const struct vneuron_trace_record *r)
{
	if (r->engine < VNEF_ENGINES)
		return r->engine;
	if (r->engine == VNEURON_TRACE_ENGINE_DMA && r->dma_queue < VNEF_DMA_QUEUES)
		return VNEF_STREAM_DMA(r->dma_queue);
	if (r->engine == VNEURON_TRACE_ENGINE_CC)
		return VNEF_STREAM_CC;
	return VNP_NONE;
}

/* uapi/vneuron_trace.h says what a CC record holds */
bool vnp_cc_record_ok(const struct vneuron_trace_record *r)
{
	return r->engine == VNEURON_TRACE_ENGINE_CC && r->opcode < VNEF_CC_OP_COUNT &&
	       r->model_start_ps <= r->count && r->count <= r->model_end_ps &&
	       r->elements >= 1 && r->elements <= VNEF_CC_MAX_RANKS &&
	       r->dma_queue < VNEF_CC_MAX_RANKS && r->dma_desc < VNEF_CC_MAX_RANKS;
}

/* The span of a core's API calls on its host's clock (saturating). */
static void note_api(struct vnp_timeline *tl, unsigned int core,
		     const struct vneuron_trace_record *r)
{
	uint64_t end = r->host_ns + r->count >= r->host_ns ? r->host_ns + r->count : UINT64_MAX;

	if (!r->host_ns)
		return;
	if (!tl->api_first_ns[core] || r->host_ns < tl->api_first_ns[core])
		tl->api_first_ns[core] = r->host_ns;
	if (end > tl->api_last_ns[core])
		tl->api_last_ns[core] = end;
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
		struct vnp_ev ev, *e;
		unsigned int stream, t;
		int ret;

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
		case VNEURON_TRACE_CC:
			if (!vnp_cc_record_ok(r))
				goto bad;
			stream = VNEF_STREAM_CC;
			break;
		case VNEURON_TRACE_LOST:
			tl->lost += r->count;
			if (add_marker(tl, core, r, VNP_MARKER_LOST))
				return -ENOMEM;
			continue;
		case VNEURON_TRACE_EXEC_START:
			x = note_exec(tl, core, r->exec_seq);
			if (!x)
				return -ENOMEM;
			widen(x, r->model_start_ps, 0);
			if (r->host_ns)
				x->host_lo = r->host_ns;
			continue;
		case VNEURON_TRACE_EXEC_END:
			if (r->model_end_ps < r->model_start_ps)
				goto bad;
			x = note_exec(tl, core, r->exec_seq);
			if (!x)
				return -ENOMEM;
			widen(x, UINT64_MAX, r->model_end_ps);
			if (r->host_ns)
				x->host_hi = r->host_ns;
			x->end_status = (uint16_t)(r->opcode < UINT16_MAX ? r->opcode + 1 : UINT16_MAX);
			x->end_reason = (uint16_t)r->elements;
			tl->exec_status[r->opcode < VNP_EXEC_STATUSES - 1 ? r->opcode :
					VNP_EXEC_STATUSES - 1]++;
			continue;
		case VNEURON_TRACE_ERROR:
			if (r->opcode < VNEURON_REASON_FAULT_SBUF ||
			    r->opcode > VNEURON_REASON_FAULT_STATE || r->elements > VNEF_MEM_HBM ||
			    r->model_end_ps < r->model_start_ps)
				goto bad;
			stream = rec_stream(r);
			if (stream == VNP_NONE)
				goto bad;
			x = note_exec(tl, core, r->exec_seq);
			if (!x || add_fault(tl, core, stream, r, x))
				return -ENOMEM;
			continue;
		case VNEURON_TRACE_MARKER:
			if (r->opcode >= ND_API_MARKER) {
				unsigned int k = r->opcode - ND_API_MARKER;

				if (k >= VNP_API_KINDS)
					k = 0;
				tl->api_calls[k]++;
				tl->api_ns[k] += r->count;
				if (core < VNP_MAX_CORES)
					note_api(tl, core, r);
				if (vnp_rg_add(tl, r))
					return -ENOMEM;
				continue;
			}
			if (add_marker(tl, core, r, r->opcode))
				return -ENOMEM;
			continue;
		case VNEURON_TRACE_SEM:
			/* a further semaphore its instruction or descriptor signalled */
			stream = rec_stream(r);
			if (r->sem_signal < VNEF_MAX_SEMS && stream != VNP_NONE)
				tl->sig_stream[r->sem_signal] = stream;
			continue;
		default:
			goto bad;
		}
		if (r->model_end_ps < r->model_start_ps)
			goto bad;
		x = note_exec(tl, core, r->exec_seq);
		if (!x)
			return -ENOMEM;
		widen(x, r->model_start_ps, r->model_end_ps);
		x->has_cc |= stream == VNEF_STREAM_CC;
		t = core * VNEF_STREAMS + stream;
		e = &ev;
		e->start = r->model_start_ps;
		e->end = r->model_end_ps;
		e->flops = r->kind == VNEURON_TRACE_INSN ? r->flops : 0;
		e->pc = r->pc;
		e->bytes = r->bytes;
		e->elements = r->elements;
		e->exec = r->exec_seq;
		e->opcode = r->kind == VNEURON_TRACE_DMA ? VNP_OP_DMA : r->opcode;
		if (r->kind == VNEURON_TRACE_CC) {
			e->flops = r->count - r->model_start_ps;
			e->elements = r->elements | (uint32_t)r->dma_desc << 8 |
				      (uint32_t)r->dma_queue << 16;
			e->opcode = (uint16_t)(VNP_OP_CC + r->opcode);
			if (tl->cc_rank[core] == VNP_NO_RANK)
				tl->cc_rank[core] = r->dma_queue;
			tl->ncc++;
		}
		e->sem_wait = r->sem_wait;
		e->sem_signal = r->sem_signal;
		e->stream = (uint8_t)stream;
		e->core = (uint8_t)core;
		ret = vnp_tl_push(tl, t, e);
		if (ret)
			return ret;
		if (r->sem_signal < VNEF_MAX_SEMS)
			tl->sig_stream[r->sem_signal] = stream;
		see_core(tl, core);
		continue;
bad:
		tl->malformed++;
	}
	return 0;
}

static int cmp_exec(const void *a, const void *b)
{
	return vnp_cmp(((const struct vnp_exec *)a)->key, ((const struct vnp_exec *)b)->key);
}

/* Once the executions are sorted: the execution of (core, exec), or NULL. */
static const struct vnp_exec *find_exec(const struct vnp_timeline *tl, unsigned int core,
					uint32_t exec)
{
	struct vnp_exec key = { .key = exec_key(core, exec) };

	return tl->nexec ? bsearch(&key, tl->execs, tl->nexec, sizeof(key), cmp_exec) : NULL;
}

size_t vnp_tl_exec_index(const struct vnp_timeline *tl, unsigned int core, uint32_t exec)
{
	const struct vnp_exec *x = find_exec(tl, core, exec);

	return x ? (size_t)(x - tl->execs) : SIZE_MAX;
}

const struct vnp_exec *vnp_tl_exec(const struct vnp_timeline *tl, unsigned int core,
				   uint32_t exec)
{
	return find_exec(tl, core, exec);
}

static uint64_t shift_of(const struct vnp_timeline *tl, unsigned int core, uint32_t exec)
{
	const struct vnp_exec *x = find_exec(tl, core, exec);

	return x ? x->shift : 0;
}

/*
 * Sorts the executions and lays those of each core out back to back in exec_seq order
 * (see struct vnp_exec), shifting their events, markers and faults. Executions with
 * collectives go in rounds: the k-th such execution of every core is round k (whatever
 * ran before it on each core), the executions of a round share one shift, so that the
 * ranks' modeled clocks stay aligned (a collective completes at the same modeled time on
 * every member), and a round starts once every core is done with what came before it.
 * Executions without collectives go where they came on their core.
 */
static int layout_execs(struct vnp_timeline *tl)
{
	size_t b[VNP_MAX_CORES] = { 0 }, e[VNP_MAX_CORES] = { 0 }, p[VNP_MAX_CORES];
	uint64_t cur[VNP_MAX_CORES] = { 0 }, sh;
	unsigned int c, nc = 0;
	size_t i, k;
	int moved = 0, more;
	unsigned int t;
	uint32_t round = 0;

	free(tl->exec_hash);		/* no more adds; the list is sorted by key */
	tl->exec_hash = NULL;
	tl->exec_hash_cap = 0;
	if (!tl->nexec)
		return 0;
	qsort(tl->execs, tl->nexec, sizeof(*tl->execs), cmp_exec);
	for (i = 0; i < tl->nexec; i++) {
		struct vnp_exec *x = &tl->execs[i];

		if (x->lo == UINT64_MAX)	/* only an EXEC_END */
			x->lo = x->hi;
		if (x->hi < x->lo)
			x->hi = x->lo;
		c = (unsigned int)(x->key >> 32);
		if (!i || c != (tl->execs[i - 1].key >> 32)) {
			round = 0;		/* a new core */
			b[c] = i;
			nc = c + 1;
		}
		e[c] = i + 1;
		x->round = x->has_cc || !tl->ncc ? round++ : VNP_NONE;
	}
	if (tl->host_clock) {
		if (vnp_tl_host_layout(tl))
			return -ENOMEM;
		goto apply;
	}
	for (c = 0; c < nc; c++)
		p[c] = b[c];
	for (more = tl->ncc != 0; more;) {
		uint64_t start = 0, lo = UINT64_MAX;

		/* each core up to its next execution with collectives */
		more = 0;
		for (c = 0; c < nc; c++) {
			while (p[c] < e[c] && !tl->execs[p[c]].has_cc)
				cur[c] = vnp_tl_place(&tl->execs[p[c]++], cur[c]);
			if (p[c] == e[c])
				continue;
			more = 1;
			start = cur[c] > start ? cur[c] : start;
			lo = tl->execs[p[c]].lo < lo ? tl->execs[p[c]].lo : lo;
		}
		if (!more)
			break;
		sh = start > lo ? start - lo : 0;
		for (c = 0; c < nc; c++) {
			struct vnp_exec *x;

			if (p[c] == e[c])
				continue;
			x = &tl->execs[p[c]++];
			x->shift = x->hi + sh < x->hi ? 0 : sh;
			cur[c] = x->hi + x->shift;
		}
	}
	/* the rest (all, without collectives) one after another on its core */
	for (c = 0; c < nc; c++)
		while (p[c] < e[c])
			cur[c] = vnp_tl_place(&tl->execs[p[c]++], cur[c]);
apply:
	for (i = 0; i < tl->nexec; i++)
		moved |= tl->execs[i].shift != 0;
	if (!moved)
		return 0;
	for (t = 0; t < VNP_TRACKS && tl->tb; t++) {
		struct vnp_track_build *tb = &tl->tb[t];

		/* a track's events come an execution at a time: its runs */
		for (i = 0; i < tb->nrun; i++) {
			size_t end = i + 1 < tb->nrun ? tb->run[i + 1].first : tb->n;

			sh = shift_of(tl, t / VNEF_STREAMS, tb->run[i].exec);
			for (k = tb->run[i].first; k < end; k++)
				tb->ev[k].start += sh;
		}
	}
	for (k = 0; k < tl->nmarkers; k++)
		tl->markers[k].time += shift_of(tl, tl->markers[k].core, tl->markers[k].exec);
	for (k = 0; k < tl->nfaults; k++)
		tl->faults[k].time += shift_of(tl, tl->faults[k].core, tl->faults[k].exec);
	return 0;
}

static int cmp_fault(const void *a, const void *b)
{
	const struct vnp_fault *x = a, *y = b;

	return vnp_cmp(x->time, y->time) ?: vnp_cmp(x->core, y->core) ?:
	       vnp_cmp(x->stream, y->stream);
}

const char *vnp_tl_backend(const struct vnp_timeline *tl)
{
	uint32_t b = tl->backends & ~1u;	/* profiles that say */

	if (!b)
		return "unknown";
	return b & (b - 1) ? "mixed" : vntf_backend_name((uint32_t)__builtin_ctz(b));
}

uint64_t vnp_tl_exec_start(const struct vnp_timeline *tl, unsigned int core, uint32_t exec)
{
	const struct vnp_exec *x = find_exec(tl, core, exec);

	return x ? x->lo + x->shift : tl->t0;
}

uint32_t vnp_tl_exec_round(const struct vnp_timeline *tl, unsigned int core, uint32_t exec)
{
	const struct vnp_exec *x = find_exec(tl, core, exec);

	return x ? x->round : 0;
}

/* Queues the program gives descriptors (else: that ran something); they share HBM. */
static unsigned int queues_used(const struct vnp_timeline *tl, unsigned int core)
{
	unsigned int q, n = 0;

	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		if (tl->prog ? tl->prog->ndesc[q] != 0 :
		    vnp_tl_track_len(tl, core * VNEF_STREAMS + VNEF_STREAM_DMA(q)) != 0)
			n++;
	return n;
}

/*
 * Lays out the executions (shifting the events' starts), then sorts the tracks that
 * arrived out of order and joins them into one array (vnp_tl_pack(), events.c).
 */
int vnp_tl_finish(struct vnp_timeline *tl)
{
	size_t i;
	unsigned int t;

	if (tl->finished)
		return 0;
	if (layout_execs(tl) || vnp_rg_finish(tl))
		return -ENOMEM;
	for (i = 0; i < tl->nexec; i++) {
		if (tl->execs[i].lo + tl->execs[i].shift < tl->t0)
			tl->t0 = tl->execs[i].lo + tl->execs[i].shift;
		if (tl->execs[i].hi + tl->execs[i].shift > tl->t1)
			tl->t1 = tl->execs[i].hi + tl->execs[i].shift;
	}
	if (vnp_tl_pack(tl))
		return -ENOMEM;
	if (tl->nfaults)
		qsort(tl->faults, tl->nfaults, sizeof(*tl->faults), cmp_fault);
	if (tl->t0 == UINT64_MAX)
		tl->t0 = 0;
	if (tl->t1 < tl->t0)
		tl->t1 = tl->t0;
	for (t = 0; t < VNP_MAX_CORES; t++)
		tl->dma_queues[t] = (uint8_t)queues_used(tl, t);
	if (vnp_tl_prog_copy(tl))
		return -ENOMEM;
	tl->finished = 1;
	return 0;
}

void vnp_tl_free(struct vnp_timeline *tl)
{
	vnp_tl_store_free(tl);
	free(tl->markers);
	free(tl->faults);
	free(tl->execs);
	free(tl->exec_hash);
	vnp_rg_free(tl);
	vnp_tl_prog_copy_free(tl);
	memset(tl, 0, sizeof(*tl));
}

void vnp_ev_dma_mems(const struct vnp_timeline *tl, const struct vnp_ev *e,
		     unsigned int *src, unsigned int *dst)
{
	const struct vnef_dma_desc *d = NULL;
	uint64_t n;
	int have;

	if (e->opcode == VNP_OP_DMA && tl->prog) {
		have = vnp_tl_desc(tl, e, src, dst, &n);
		if (have >= 0) {
			if (!have)
				*src = *dst = 0;
			return;
		}
		d = vnp_prog_desc(tl->prog, e->stream - VNEF_ENGINES, e->pc);
	}
	*src = d && d->src.mem <= VNEF_MEM_HBM ? d->src.mem : 0;
	*dst = d && d->dst.mem <= VNEF_MEM_HBM ? d->dst.mem : 0;
}

/* ------------------------------------------------------------------------------------ */
/* Names and formatting                                                                   */

/* Names come from the one ISA table (core/vn_isa.h) and libneurondev's status table. */
const char *vnp_engine_name(unsigned int engine)
{
	if (engine < VNEF_ENGINES)
		return vn_engine_name(engine);
	return engine == VNEF_ENGINES + 1 ? VN_CC_ENGINE_NAME : "DMA";
}

const char *vnp_opcode_name(unsigned int opcode)
{
	if (opcode == VNP_OP_DMA)
		return "DMA";
	if (opcode >= VNP_OP_CC)
		return vn_cc_opcode_name(opcode - VNP_OP_CC);
	return vn_opcode_name(opcode);
}

const char *vnp_api_name(unsigned int kind)
{
	return nd_api_call_name(ND_API_MARKER + kind);
}

const char *vnp_exec_status_name(unsigned int status)
{
	return nd_exec_result_id(status);
}

const char *vnp_exec_reason_name(unsigned int reason)
{
	return nd_exec_reason_name(reason);
}

const char *vnp_fault_reason_id(unsigned int reason)
{
	if (reason < VNEURON_REASON_FAULT_SBUF || reason > VNEURON_REASON_FAULT_STATE)
		return "?";
	return nd_exec_reason_id(reason);
}

uint32_t vnp_fault_opcode(const struct vnp_timeline *tl, const struct vnp_fault *f)
{
	const struct vnef_cc_instr *cc;
	const struct vnef_instr *in;

	if (f->stream == VNEF_STREAM_CC) {
		cc = vnp_prog_cc(tl->prog, f->pc);
		return cc && cc->opcode < VNEF_CC_OP_COUNT ? VNP_OP_CC + cc->opcode : VNP_NONE;
	}
	if (f->stream >= VNEF_ENGINES)
		return VNP_OP_DMA;
	in = vnp_prog_instr(tl->prog, f->stream, f->pc);
	return in && in->opcode < VNEF_OP_COUNT ? in->opcode : VNP_NONE;
}

const char *vnp_fault_what(const struct vnp_timeline *tl, const struct vnp_fault *f,
			   char *buf, size_t len)
{
	const char *what = f->stream == VNEF_STREAM_CC ? "collective buffer" :
			   f->stream >= VNEF_ENGINES ? "DMA chunk" : "operand";
	unsigned long long off = f->offset, last = off + f->len - 1;
	unsigned int mem = f->mem;

	/* the memory the reason names when the record leaves it out */
	if (!mem && f->reason >= VNEURON_REASON_FAULT_SBUF &&
	    f->reason <= VNEURON_REASON_FAULT_HBM)
		mem = f->reason - VNEURON_REASON_FAULT_SBUF + VNEF_MEM_SBUF;
	if (f->reason == VNEURON_REASON_FAULT_SEM) {
		snprintf(buf, len, "semaphore %u value %llu beyond its table", f->index, off);
	} else if (f->reason == VNEURON_REASON_FAULT_STATE || !mem) {
		snprintf(buf, len, "%s", f->stream == VNEF_STREAM_CC ?
			 "a collective the CC-core cannot run" : f->stream >= VNEF_ENGINES ?
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
	return mem >= VNEF_MEM_SBUF && mem <= VNEF_MEM_HBM ? vn_mem_name(mem) : "?";
}

const char *vnp_stream_name(unsigned int stream, char *buf, size_t len)
{
	if (stream < VNEF_ENGINES)
		snprintf(buf, len, "%s", vn_engine_name(stream));
	else if (stream == VNEF_STREAM_CC)
		snprintf(buf, len, "%s", VN_CC_ENGINE_NAME);
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

const char *vnp_fmt_flops(double n, char *buf, size_t len)
{
	if (n < 1e3)
		snprintf(buf, len, "%.0f flop", n);
	else if (n < 1e6)
		snprintf(buf, len, "%.1f kflop", n / 1e3);
	else if (n < 1e9)
		snprintf(buf, len, "%.1f Mflop", n / 1e6);
	else if (n < 1e12)
		snprintf(buf, len, "%.2f Gflop", n / 1e9);
	else
		snprintf(buf, len, "%.2f Tflop", n / 1e12);
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
