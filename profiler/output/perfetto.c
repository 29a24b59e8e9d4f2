// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A Perfetto trace written directly as protobuf (no SDK), with the field numbers of
 * Perfetto's public protos/perfetto/trace/ protos; tests/perfetto/trace.proto is the
 * subset used here. Layout:
 *   one process per core ("vneuron core N", or the worker's label; a node's or an LNC=2
 *   logical core's cores are tracks of its process, "logical core K (LNC=2)"), in it one
 *   thread track per row: TensorE LoadStationary, TensorE MultiplyMoving (and transposes),
 *   VectorE, ScalarE, GpSimdE, DMA q0..q15, CC-core (rows with no events are left out;
 *   a collective is a slice from the rank's arrival to its completion, and a flow
 *   links the slices of one collective across the ranks); counter tracks "DMA throughput
 *   (GB/s)" and "DMA pending" per core. MARKER and LOST records are instants on the
 *   core's process track; ERROR records (device faults) instants "device fault: ..." on
 *   the faulting engine's or DMA queue's track, which is then shown even if empty;
 *   with debug scopes, "layers D" tracks per core (layers.h), a track per depth and lane.
 * Slices must nest on a track, so events that overlap on one row (never expected from
 * the device, possible in a damaged profile) go to extra rows "NAME #2", ... chosen
 * greedily. Timestamps are nanoseconds (floored); exact picoseconds are in the args.
 * Event names, categories and argument names are interned (InternedData in the first
 * packet, which also clears the sequence's incremental state; events that use them set
 * SEQ_NEEDS_INCREMENTAL_STATE), which keeps an event to about 70 bytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/analyze.h"
#include "../model/layers.h"
#include "../model/metrics.h"
#include "perfetto_priv.h"
#include "../util/log.h"
#include "vn_isa.h"
#include "../util/sorted.h"


static uint64_t row_uuid(unsigned int core, unsigned int row, unsigned int lane)
{
	return pf_proc_uuid(core) + 1 + row * MAX_LANES + lane;
}

/* A node's process (multi-node profiles): above every core's uuid. */
static uint64_t node_uuid(unsigned int node)
{
	return pf_proc_uuid(VNP_MAX_CORES + 1) + ((uint64_t)node << 16);
}

/* A logical core's process (LNC=2 profiles): above the nodes', below the host's. */
static uint64_t lcore_uuid(unsigned int lcore)
{
	return (1ull << 40) + ((uint64_t)lcore << 16);
}

/* The DMA series cover the whole profile: one pair of counter tracks. */
static uint64_t counter_uuid(unsigned int which)
{
	return pf_proc_uuid(0) + 0xff00 + which;
}

/* A stream's row; TensorE's by opcode: LoadStationary, or MultiplyMoving for the rest. */
static unsigned int row_of(unsigned int stream, uint32_t opcode)
{
	if (stream == 0)
		return opcode == VNEF_OP_LOAD_STATIONARY ? 0 : 1;
	return stream + 1;
}

static unsigned int ev_row(const struct vnp_ev *e)
{
	return row_of(e->stream, e->opcode);
}

/* The row of a fault: by the program's opcode on TensorE (MultiplyMoving if unknown). */
static unsigned int fault_row(const struct vnp_timeline *tl, const struct vnp_fault *f)
{
	return row_of(f->stream, vnp_fault_opcode(tl, f));
}

static const char *row_name(unsigned int row, char *buf, size_t len)
{
	if (row == 0)
		return "TensorE LoadStationary";
	if (row == 1)
		return "TensorE MultiplyMoving";
	return vnp_stream_name(row - 1, buf, len);
}

/* A varint into room already made (pb_room). */
static inline uint8_t *put_varint(uint8_t *b, uint64_t v)
{
	while (v >= 0x80) {
		*b++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*b++ = (uint8_t)v;
	return b;
}

static void out_flush(struct pw *w)
{
	if (w->out.n && fwrite(w->out.b, 1, w->out.n, w->f) != w->out.n)
		w->err = -EIO;
	w->out.n = 0;
}

/* Frames the packet as Trace.packet and queues it for writing. */
static void emit(struct pw *w)
{
	if (w->pkt.oom || w->te.oom || w->sub.oom) {
		w->err = -ENOMEM;
		return;
	}
	pb_msg(&w->out, F_TRACE_PACKET, &w->pkt);
	if (w->out.oom)
		w->err = -ENOMEM;
	else if (w->out.n >= (1u << 20))
		out_flush(w);
	w->pkt.n = 0;
}

void pf_track_desc(struct pw *w, uint64_t uuid, uint64_t parent, const char *name,
		       int pid, int tid, int counter)
{
	struct pb *d = &w->te, *s = &w->sub;

	d->n = 0;
	s->n = 0;
	pb_uint(d, F_TD_UUID, uuid);
	/* a thread track belongs to its process through the pid; others name a parent */
	if (parent && !tid)
		pb_uint(d, F_TD_PARENT, parent);
	pb_str(d, F_TD_NAME, name);
	if (tid) {
		pb_uint(s, F_THD_PID, (uint64_t)pid);
		pb_uint(s, F_THD_TID, (uint64_t)tid);
		pb_str(s, F_THD_NAME, name);
		pb_msg(d, F_TD_THREAD, s);
	} else if (counter) {
		pb_uint(s, F_CD_UNIT, UNIT_COUNT);
		pb_msg(d, F_TD_COUNTER, s);
	} else {
		pb_uint(s, F_PD_PID, (uint64_t)pid);
		pb_str(s, F_PD_NAME, name);
		pb_msg(d, F_TD_PROCESS, s);
	}
	pb_uint(&w->pkt, F_PKT_SEQ_ID, SEQ_ID);
	pb_msg(&w->pkt, F_PKT_TRACK_DESC, d);
	emit(w);
}

/*
 * Interned strings (InternedData, emitted once in the first packet): event names, the
 * categories and the debug annotation names; events refer to them by iid.
 */
enum { A_PC = 1, A_DESC, A_SOURCE, A_SCOPE, A_START, A_DUR, A_EXEC, A_BYTES, A_ELEMENTS,
       A_FLOPS, A_SEM, A_WAIT, A_VALUE, A_REASON, A_MEM, A_INDEX, A_OFFSET, A_LEN, A_CRIT,
       A_GROUP, A_RANK, A_LAST, A_WAITED, A_XFER, A_SIZE, A_ALGBW, A_BUSBW, A_COUNT };
static const char *const ann_names[A_COUNT] = {
	[A_PC] = "pc", [A_DESC] = "desc", [A_SOURCE] = "source", [A_SCOPE] = "scope",
	[A_START] = "start_ps", [A_DUR] = "dur_ps", [A_EXEC] = "exec", [A_BYTES] = "bytes",
	[A_ELEMENTS] = "elements", [A_FLOPS] = "flops", [A_SEM] = "sem_wait",
	[A_WAIT] = "wait_ps", [A_VALUE] = "value", [A_REASON] = "reason", [A_MEM] = "memory",
	[A_INDEX] = "index", [A_OFFSET] = "offset", [A_LEN] = "length",
	[A_CRIT] = "critical_path", [A_GROUP] = "group", [A_RANK] = "rank",
	[A_LAST] = "last_rank", [A_WAITED] = "waited_ps", [A_XFER] = "transfer_ps",
	[A_SIZE] = "size", [A_ALGBW] = "algbw_GBps", [A_BUSBW] = "busbw_GBps",
};
/* Event categories, interned 1..7: the engines' mnemonics, then "dma", "fault", "cc". */
#define CAT_DMA		(VNEF_ENGINES + 1)
#define CAT_FAULT	(VNEF_ENGINES + 2)
#define CAT_CC		(VNEF_ENGINES + 3)

static const char *cat_name(unsigned int cat)
{
	if (cat <= VNEF_ENGINES)
		return vn_engine_mnemonic(cat - 1);
	return cat == CAT_DMA ? "dma" : cat == CAT_CC ? VN_CC_ENGINE_MNEMONIC : "fault";
}
#define IID_DMA_NAME	32	/* + src * 4 + dst; opcodes are opcode + 1 */
#define IID_CC_NAME	64	/* + enum vnef_cc_opcode */

static const char *dma_name(unsigned int src, unsigned int dst, char *buf, size_t len)
{
	if (src || dst)
		snprintf(buf, len, "DMA %s->%s", vnp_mem_name(src), vnp_mem_name(dst));
	else
		snprintf(buf, len, "DMA");
	return buf;
}

static void interned_entry(struct pw *w, unsigned int field, uint64_t iid, const char *name)
{
	w->sub.n = 0;
	pb_uint(&w->sub, F_IID, iid);
	pb_str(&w->sub, F_IID_NAME, name);
	pb_msg(&w->te, field, &w->sub);
}

static void interned_packet(struct pw *w)
{
	unsigned int i, s, d;
	char buf[32];

	w->te.n = 0;
	for (i = 1; i <= CAT_CC; i++)
		interned_entry(w, F_ID_CATEGORIES, i, cat_name(i));
	for (i = 0; i < VNEF_OP_COUNT; i++)
		interned_entry(w, F_ID_EVENT_NAMES, i + 1, vnp_opcode_name(i));
	for (i = 0; i < VNEF_CC_OP_COUNT; i++)
		interned_entry(w, F_ID_EVENT_NAMES, IID_CC_NAME + i,
			       vnp_opcode_name(VNP_OP_CC + i));
	for (s = 0; s < 4; s++)
		for (d = 0; d < 4; d++)
			interned_entry(w, F_ID_EVENT_NAMES, IID_DMA_NAME + s * 4 + d,
				       dma_name(s, d, buf, sizeof(buf)));
	for (i = 1; i < A_COUNT; i++)
		interned_entry(w, F_ID_ANN_NAMES, i, ann_names[i]);
	/* the first packet: clears the sequence's incremental state */
	pb_uint(&w->pkt, F_PKT_SEQ_ID, SEQ_ID);
	pb_uint(&w->pkt, F_PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	pb_msg(&w->pkt, F_PKT_INTERNED, &w->te);
	emit(w);
}

/*
 * DebugAnnotation { name_iid = 1; uint_value = 3 }, written straight into the event: at
 * most 1 + 1 + 1 + 5 + 1 + 10 bytes, room made once (the writer's most frequent call)
 */
static void ann_uint(struct pw *w, unsigned int iid, uint64_t v)
{
	uint8_t *b;

	if (pb_room(&w->te, 32))
		return;
	b = w->te.b + w->te.n;
	*b++ = F_TE_DEBUG << 3 | 2;
	b = put_varint(b, 1 + varint_len(iid) + 1 + varint_len(v));
	*b++ = F_DA_NAME_IID << 3;
	b = put_varint(b, iid);
	*b++ = F_DA_UINT << 3;
	b = put_varint(b, v);
	w->te.n = (size_t)(b - w->te.b);
}

static void ann_double(struct pw *w, unsigned int iid, double v)
{
	pb_varint(&w->te, F_TE_DEBUG << 3 | 2);
	pb_varint(&w->te, 1 + varint_len(iid) + 1 + 8);
	pb_uint(&w->te, F_DA_NAME_IID, iid);
	pb_double(&w->te, F_DA_DOUBLE, v);
}

static void ann_strn(struct pw *w, unsigned int iid, const char *v, size_t vl)
{
	pb_varint(&w->te, F_TE_DEBUG << 3 | 2);
	pb_varint(&w->te, 1 + varint_len(iid) + 1 + varint_len(vl) + vl);
	pb_uint(&w->te, F_DA_NAME_IID, iid);
	pb_bytes(&w->te, F_DA_STRING, v, vl);
}

static void ann_str(struct pw *w, unsigned int iid, const char *v)
{
	ann_strn(w, iid, v, strlen(v));
}

/* A source line's "file:line" (vnp_prog_line()), formatted once; the caches are p's. */
static void ann_line(struct pw *w, const struct vnp_prog *p, uint32_t line)
{
	char buf[300];

	if (!p || line >= p->nlines) {
		ann_str(w, A_SOURCE, vnp_prog_line(p, line, buf, sizeof(buf)));
		return;
	}
	if (!w->line_str)
		w->line_str = calloc(p->nlines, sizeof(*w->line_str));
	if (!w->line_len)
		w->line_len = calloc(p->nlines, sizeof(*w->line_len));
	if (!w->line_str || !w->line_len) {
		w->err = -ENOMEM;
		return;
	}
	if (!w->line_len[line]) {
		vnp_prog_line(p, line, buf, sizeof(buf));
		w->line_str[line] = strdup(buf);
		if (!w->line_str[line]) {
			w->err = -ENOMEM;
			return;
		}
		w->line_len[line] = (uint32_t)strlen(buf) + 1;
	}
	ann_strn(w, A_SOURCE, w->line_str[line], w->line_len[line] - 1);
}

static void ann_scope(struct pw *w, const struct vnp_prog *p, uint32_t scope)
{
	const char *s = vnp_prog_scope(p, scope);

	if (!p || scope >= p->nscopes) {
		ann_str(w, A_SCOPE, s);
		return;
	}
	if (!w->scope_len)
		w->scope_len = calloc(p->nscopes, sizeof(*w->scope_len));
	if (!w->scope_len) {
		w->err = -ENOMEM;
		return;
	}
	if (!w->scope_len[scope])
		w->scope_len[scope] = (uint32_t)strlen(s) + 1;
	ann_strn(w, A_SCOPE, s, w->scope_len[scope] - 1);
}

/* The source line and scope of an entry, as far as loc has them. */
static void ann_loc(struct pw *w, const struct vnp_prog *p, const struct vnp_loc *loc)
{
	if (loc && loc->line != VNP_NONE)
		ann_line(w, p, loc->line);
	if (loc && loc->scope != VNP_NONE)
		ann_scope(w, p, loc->scope);
}

void pf_packet_event(struct pw *w, uint64_t ps, int interned)
{
	uint64_t ts = ps / 1000;
	size_t len = 1 + varint_len(ts) + 1 + varint_len(SEQ_ID) + (interned ? 2 : 0) +
		     1 + varint_len(w->te.n) + w->te.n;
	uint8_t *b;

	/*
	 * The bytes pb_uint() and emit() would write, framed straight into the output: the
	 * packet is not built apart and copied (once per event)
	 */
	if (!w->pkt.n && !w->te.oom && !w->pkt.oom && !w->sub.oom) {
		if (pb_room(&w->out, 1 + 10 + len)) {
			w->err = -ENOMEM;
			return;
		}
		b = w->out.b + w->out.n;
		b = put_varint(b, F_TRACE_PACKET << 3 | 2);
		b = put_varint(b, len);
		b = put_varint(b, F_PKT_TIMESTAMP << 3);
		b = put_varint(b, ts);
		b = put_varint(b, F_PKT_SEQ_ID << 3);
		b = put_varint(b, SEQ_ID);
		if (interned) {
			b = put_varint(b, F_PKT_SEQ_FLAGS << 3);
			b = put_varint(b, SEQ_NEEDS_INCREMENTAL_STATE);
		}
		b = put_varint(b, F_PKT_TRACK_EVENT << 3 | 2);
		b = put_varint(b, w->te.n);
		memcpy(b, w->te.b, w->te.n);
		w->out.n = (size_t)(b + w->te.n - w->out.b);
		if (w->out.n >= (1u << 20))
			out_flush(w);
		return;
	}
	pb_uint(&w->pkt, F_PKT_TIMESTAMP, ps / 1000);
	pb_uint(&w->pkt, F_PKT_SEQ_ID, SEQ_ID);
	if (interned)
		pb_uint(&w->pkt, F_PKT_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	pb_msg(&w->pkt, F_PKT_TRACK_EVENT, &w->te);
	emit(w);
}

static void slice_end(struct pw *w, uint64_t ps, uint64_t uuid)
{
	w->te.n = 0;
	pb_uint(&w->te, F_TE_TYPE, TYPE_SLICE_END);
	pb_uint(&w->te, F_TE_TRACK, uuid);
	pf_packet_event(w, ps, 0);
}

static void counter(struct pw *w, uint64_t ps, uint64_t uuid, double value)
{
	w->te.n = 0;
	pb_uint(&w->te, F_TE_TYPE, TYPE_COUNTER);
	pb_uint(&w->te, F_TE_TRACK, uuid);
	pb_double(&w->te, F_TE_DOUBLE_COUNTER, value);
	pf_packet_event(w, ps, 0);
}


static int cmp_flow(const void *x, const void *y)
{
	const struct flow *a = x, *b = y;

	return vnp_cmp(a->from, b->from) ?: vnp_cmp(a->to, b->to);
}

/*
 * Every semaphore wait that held an entry back (docs/metrics.md, "Critical path"): a
 * flow from the signalling slice to the waiting one, id = the waiter's index + 1.
 */
static int flows_build(struct pw *w)
{
	const struct vnp_timeline *tl = w->v->tl;
	size_t i, n = 0, cap = 0;

	for (i = 0; i < tl->n; i++) {
		size_t s;
		struct flow *nf;

		if (vnp_tl_shape(tl, i)->sem_wait == VNEURON_TRACE_NO_SEM || !vnp_ev_wait(tl, i))
			continue;
		s = vnp_ev_signaller(tl, i);
		if (s == SIZE_MAX)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			nf = realloc(w->flows, cap * sizeof(*nf));
			if (!nf)
				return -ENOMEM;
			w->flows = nf;
		}
		w->flows[n++] = (struct flow){ .from = s, .to = i };
	}
	if (n)
		qsort(w->flows, n, sizeof(*w->flows), cmp_flow);
	w->nflows = n;
	w->flow_cur = malloc(VNP_TRACKS * sizeof(*w->flow_cur));
	if (!w->flow_cur)
		return -ENOMEM;
	for (i = 0; i < VNP_TRACKS; i++)
		w->flow_cur[i] = VNP_LOWER_BOUND(w->flows, n, from, tl->track_off[i]);
	return 0;
}

/*
 * The flows an event starts (as signaller) and ends (as waiter). A track's events come in
 * index order, so each track's cursor in the flows (sorted by signaller) only moves on:
 * no binary search per event, which missed the cache at every step with 100 M events.
 */
static void slice_flows(struct pw *w, const struct vnp_ev *e, size_t idx)
{
	const struct vnp_timeline *tl = w->v->tl;
	size_t *cur = &w->flow_cur[vnp_ev_track(e)], lo = *cur;

	while (lo < w->nflows && w->flows[lo].from < idx)
		lo++;
	for (; lo < w->nflows && w->flows[lo].from == idx; lo++)
		pb_fixed64(&w->te, F_TE_FLOW_IDS, w->flows[lo].to + 1);
	*cur = lo;
	if (e->sem_wait != VNEURON_TRACE_NO_SEM && vnp_ev_wait(tl, idx) &&
	    vnp_ev_signaller(tl, idx) != SIZE_MAX)
		pb_fixed64(&w->te, F_TE_TERM_FLOW_IDS, idx + 1);
}

/*
 * A collective: its arguments, and the flow that links its members' slices across the
 * ranks' tracks (id tl->n + 1 + its index in m->coll, after the semaphore flows' ids),
 * in start order, ending at the member that arrived last.
 */
static void cc_slice(struct pw *w, const struct vnp_ev *e, size_t idx)
{
	const struct vnp_timeline *tl = w->v->tl;
	const struct vnp_metrics *m = w->v->m;
	uint32_t k = vnp_cc_coll_of(m, idx);

	ann_uint(w, A_GROUP, vnp_cc_members(e));
	ann_uint(w, A_RANK, vnp_cc_rank(e));
	ann_uint(w, A_LAST, vnp_cc_last(e));
	ann_uint(w, A_WAITED, vnp_cc_wait(e));
	ann_uint(w, A_XFER, vnp_cc_xfer(e));
	if (k == VNP_NONE)
		return;
	ann_uint(w, A_SIZE, m->coll[k].size);
	if (m->coll[k].end > m->coll[k].last_arrival) {
		ann_double(w, A_ALGBW, vnp_coll_algbw(&m->coll[k]) / 1e9);
		ann_double(w, A_BUSBW, vnp_coll_busbw(&m->coll[k]) / 1e9);
	}
	if (m->coll[k].seen > 1)
		pb_fixed64(&w->te, m->coll[k].ev_last == idx ? F_TE_TERM_FLOW_IDS : F_TE_FLOW_IDS,
			   (uint64_t)tl->n + 1 + k);
}

static void slice_begin(struct pw *w, const struct vnp_ev *e, size_t idx, uint64_t uuid)
{
	const struct vnp_timeline *tl = w->v->tl;
	const struct vnp_analysis *a = w->v->a;

	w->te.n = 0;
	pb_uint(&w->te, F_TE_TYPE, TYPE_SLICE_BEGIN);
	pb_uint(&w->te, F_TE_TRACK, uuid);
	pb_uint(&w->te, F_TE_CATEGORY_IIDS, e->stream < VNEF_ENGINES ? e->stream + 1u :
		vnp_ev_is_cc(e) ? CAT_CC : CAT_DMA);
	if (vnp_ev_is_cc(e)) {
		pb_uint(&w->te, F_TE_NAME_IID, IID_CC_NAME + vnp_cc_op(e));
		ann_uint(w, A_PC, e->pc);
	} else if (e->opcode == VNP_OP_DMA) {
		unsigned int src, dst;

		vnp_ev_dma_mems(tl, e, &src, &dst);
		pb_uint(&w->te, F_TE_NAME_IID, IID_DMA_NAME + src * 4 + dst);
		ann_uint(w, A_DESC, e->pc);
	} else {
		pb_uint(&w->te, F_TE_NAME_IID, e->opcode + 1u);
		ann_uint(w, A_PC, e->pc);
	}
	ann_loc(w, tl->prog, vnp_ev_loc(tl, e));
	ann_uint(w, A_START, e->start);
	ann_uint(w, A_DUR, e->end - e->start);
	ann_uint(w, A_EXEC, e->exec);
	if (e->bytes)
		ann_uint(w, A_BYTES, e->bytes);
	if (e->elements && !vnp_ev_is_cc(e))
		ann_uint(w, A_ELEMENTS, e->elements);
	if (e->flops && !vnp_ev_is_cc(e))
		ann_uint(w, A_FLOPS, e->flops);
	if (vnp_ev_is_cc(e))
		cc_slice(w, e, idx);
	if (e->sem_wait != VNEURON_TRACE_NO_SEM) {
		ann_uint(w, A_SEM, e->sem_wait);
		ann_uint(w, A_WAIT, vnp_ev_wait(tl, idx));
	}
	if (a && a->cp.on && a->cp.on[idx])
		ann_uint(w, A_CRIT, 1);
	slice_flows(w, e, idx);
	pf_packet_event(w, e->start, 1);
}

/* pending ends: a binary min-heap on end time */
static void ends_push(struct pw *w, uint64_t end, uint64_t uuid)
{
	size_t i = w->nends++;

	while (i > 0 && w->ends[(i - 1) / 2].end > end) {
		w->ends[i] = w->ends[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	w->ends[i].end = end;
	w->ends[i].uuid = uuid;
}

static void ends_pop(struct pw *w)
{
	size_t i = 0, n = --w->nends;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && w->ends[c + 1].end < w->ends[c].end)
			c++;
		if (w->ends[n].end <= w->ends[c].end)
			break;
		w->ends[i] = w->ends[c];
		i = c;
	}
	w->ends[i] = w->ends[n];
}

/* Lane of an event on its row: the first whose last slice ended by its start. */
static int pick_lane(struct pw *w, const struct vnp_ev *e)
{
	size_t base = ((size_t)e->core * ROWS + ev_row(e)) * MAX_LANES;
	uint8_t *nl = &w->lanes[(size_t)e->core * ROWS + ev_row(e)];
	unsigned int l;

	for (l = 0; l < *nl; l++)
		if (w->lane_end[base + l] <= e->start)
			break;
	if (l == MAX_LANES)
		return -1;
	if (l == *nl)
		(*nl)++;
	w->lane_end[base + l] = e->end;
	return (int)l;
}

/*
 * A MARKER record: an instant on its core's process track, "marker ID" (value); a LOST
 * record: "LOST N records", where the capture dropped them.
 */
static void marker(struct pw *w, const struct vnp_marker *mk)
{
	char name[32];

	if (mk->id == VNP_MARKER_LOST)
		snprintf(name, sizeof(name), "LOST %llu records", (unsigned long long)mk->value);
	else
		snprintf(name, sizeof(name), "marker %u", mk->id);
	w->te.n = 0;
	pb_uint(&w->te, F_TE_TYPE, TYPE_INSTANT);
	pb_uint(&w->te, F_TE_TRACK, pf_proc_uuid(mk->core));
	pb_str(&w->te, F_TE_NAME, name);
	ann_uint(w, A_VALUE, mk->value);
	pf_packet_event(w, mk->time, 1);
}

/*
 * An ERROR record: an instant "device fault: what" on the faulting row's first lane, with
 * the entry, its source and the record's fields as arguments.
 */
static void fault(struct pw *w, const struct vnp_fault *f)
{
	const struct vnp_timeline *tl = w->v->tl;
	char what[160], name[200];

	snprintf(name, sizeof(name), "device fault: %s", vnp_fault_what(tl, f, what, sizeof(what)));
	w->te.n = 0;
	pb_uint(&w->te, F_TE_TYPE, TYPE_INSTANT);
	pb_uint(&w->te, F_TE_TRACK, row_uuid(f->core, fault_row(tl, f), 0));
	pb_uint(&w->te, F_TE_CATEGORY_IIDS, CAT_FAULT);
	pb_str(&w->te, F_TE_NAME, name);
	ann_uint(w, vnp_stream_is_dma(f->stream) ? A_DESC : A_PC, f->pc);
	ann_uint(w, A_EXEC, f->exec);
	ann_loc(w, tl->prog, vnp_prog_loc(tl->prog, f->stream, f->pc));
	ann_str(w, A_REASON, vnp_fault_reason_id(f->reason));
	ann_str(w, A_MEM, f->mem ? vnp_mem_name(f->mem) : "none");
	ann_uint(w, A_INDEX, f->index);
	ann_uint(w, A_OFFSET, f->offset);
	ann_uint(w, A_LEN, f->len);
	ann_uint(w, A_START, f->time);
	pf_packet_event(w, f->time, 1);
}

static int cmp_marker(const void *x, const void *y)
{
	const struct vnp_marker *a = *(const struct vnp_marker *const *)x;
	const struct vnp_marker *b = *(const struct vnp_marker *const *)y;

	/* equal times keep the timeline's order */
	return vnp_cmp(a->time, b->time) ?: vnp_cmp((uintptr_t)a, (uintptr_t)b);
}

/*
 * Everything due up to time t: slice ends, markers, faults and counter samples, in time
 * order (in that order at equal times).
 */
static void flush_until(struct pw *w, uint64_t t, unsigned int *bin)
{
	const struct vnp_metrics *m = w->v->m;
	const struct vnp_timeline *tl = w->v->tl;

	for (;;) {
		uint64_t tb = *bin < m->nbins ? m->t0 + *bin * m->bin_ps : UINT64_MAX;
		uint64_t te = w->nends ? w->ends[0].end : UINT64_MAX;
		uint64_t tm = w->next_mk < w->nmk ? w->mk[w->next_mk]->time : UINT64_MAX;
		uint64_t tf = w->next_fault < tl->nfaults ? tl->faults[w->next_fault].time :
			      UINT64_MAX;

		if (w->nends && te <= t && te <= tb && te <= tm && te <= tf) {
			slice_end(w, te, w->ends[0].uuid);
			ends_pop(w);
		} else if (w->next_mk < w->nmk && tm <= t && tm <= tb && tm <= tf) {
			marker(w, w->mk[w->next_mk++]);
		} else if (w->next_fault < tl->nfaults && tf <= t && tf <= tb) {
			fault(w, &tl->faults[w->next_fault++]);
		} else if (tb <= t && tb < UINT64_MAX) {
			if (m->dma_count) {
				counter(w, tb, counter_uuid(0), m->tput[*bin] / 1e9);
				counter(w, tb, counter_uuid(1), m->pending[*bin]);
			}
			(*bin)++;
		} else {
			return;
		}
		if (w->err)
			return;
	}
}


/*
 * Layers (profiler/layers.h): a track per depth ("layers 1" the outermost), a lane a
 * track, so that a track's slices never partially overlap, as Perfetto requires.
 */
#define LAYER_UUID	0x8000		/* above every row's uuid, below the executions' */

static uint64_t layer_uuid(unsigned int core, unsigned int depth, unsigned int lane)
{
	return pf_proc_uuid(core) + LAYER_UUID + (depth - 1) * VNP_LAYER_LANES + lane;
}

static int cmp_lay_start(const void *x, const void *y)
{
	const struct vnp_layer_span *a = x, *b = y;

	return vnp_cmp(a->lo, b->lo) ?: vnp_cmp(a->depth, b->depth);
}

static void layer_begin(struct pw *w, const struct vnp_layer_span *x)
{
	uint64_t uuid = layer_uuid(x->core, x->depth, x->lane);
	char path[300];
	const char *last;

	snprintf(path, sizeof(path), "%.*s", (int)x->len, x->path);
	last = strrchr(path, '/');
	w->te.n = 0;
	pb_uint(&w->te, F_TE_TYPE, TYPE_SLICE_BEGIN);
	pb_uint(&w->te, F_TE_TRACK, uuid);
	pb_str(&w->te, F_TE_NAME, last ? last + 1 : path);
	ann_str(w, A_SCOPE, path);
	ann_uint(w, A_EXEC, x->exec);
	pf_packet_event(w, x->lo, 1);
	ends_push(w, x->hi, uuid);
}

/* The layers' tracks; their slices left in start order in *ls. */
static int layer_rows(struct pw *w, const int *pids, const char (*pre)[64],
		      struct vnp_layer_spans *ls)
{
	unsigned int c = VNP_MAX_CORES, d = 0, nl = 0;
	char name[160];
	size_t i;

	if (vnp_layer_spans(w->v->tl, w->ncores, ls))
		return -ENOMEM;
	for (i = 0; i < ls->n; i++) {
		const struct vnp_layer_span *x = &ls->s[i];

		if (x->core != c || x->depth != d) {
			c = x->core;
			d = x->depth;
			nl = 0;
		}
		/* a span past the last lane is left out (layers.h): no track for it */
		if (x->lane != nl || x->lane >= VNP_LAYER_LANES)
			continue;
		nl++;
		if (x->lane)
			snprintf(name, sizeof(name), "%s%slayers %u #%u", pre[c],
				 *pre[c] ? ": " : "", d, x->lane + 1);
		else
			snprintf(name, sizeof(name), "%s%slayers %u", pre[c], *pre[c] ? ": " : "", d);
		pf_track_desc(w, layer_uuid(c, d, x->lane), pf_proc_uuid(c), name, pids[c],
			      (int)((c + 1) * 10000 + 5000 + (d - 1) * VNP_LAYER_LANES + x->lane), 0);
	}
	if (ls->n)
		qsort(ls->s, ls->n, sizeof(*ls->s), cmp_lay_start);
	return 0;
}

int vnp_perfetto(FILE *f, const struct vnp_view *v)
{
	const struct vnp_timeline *tl = v->tl;
	struct pw w = { .f = f, .v = v };
	unsigned int c, r, l, bin = 0;
	struct vnp_iter *it;
	const struct vnp_ev *e;
	char name[160], rn[64], lab[64];
	uint64_t skipped = 0;
	struct vnp_layer_spans ls = { 0 };
	size_t i, next_lay = 0;
	int *pids;
	char (*pres)[64];

	w.ncores = tl->ncores ? tl->ncores : 1;
	pids = calloc(w.ncores, sizeof(*pids));
	pres = calloc(w.ncores, sizeof(*pres));
	it = malloc(sizeof(*it));
	w.lane_end = calloc((size_t)w.ncores * ROWS * MAX_LANES, sizeof(*w.lane_end));
	w.lanes = calloc((size_t)w.ncores * ROWS, 1);
	w.ends = calloc((size_t)w.ncores * (ROWS * MAX_LANES + VNP_LAYER_DEPTHS * VNP_LAYER_LANES) + 1,
			sizeof(*w.ends));
	if (!pids || !pres || !it || !w.lane_end || !w.lanes || !w.ends || flows_build(&w)) {
		w.err = -ENOMEM;
		goto out;
	}
	/* pass 1: how many lanes each row needs (a row's order is its track's order) */
	for (i = 0; i < tl->n; i++) {
		const struct vnp_shape *sh = vnp_tl_shape(tl, i);
		/* what pick_lane() reads */
		struct vnp_ev ev = { .start = vnp_tl_start(tl, i), .end = vnp_tl_end(tl, i),
				     .opcode = sh->opcode, .stream = sh->stream, .core = sh->core };

		if (pick_lane(&w, &ev) < 0)
			skipped++;
	}
	/* a fault's row is shown even if its stream ran nothing */
	for (i = 0; i < tl->nfaults; i++) {
		uint8_t *nl = &w.lanes[(size_t)tl->faults[i].core * ROWS +
				       fault_row(tl, &tl->faults[i])];

		if (!*nl)
			*nl = 1;
	}

	interned_packet(&w);
	for (c = 0; c < w.ncores && !w.err; c++) {
		const char *pre = "";
		int pid = (int)c + 1;

		if (v->labels && v->labels[c])
			snprintf(lab, sizeof(lab), "%s", v->labels[c]);
		else
			snprintf(lab, sizeof(lab), "vneuron core %u", c);
		snprintf(name, sizeof(name), "%s%s%s%s", lab,
			 tl->prog && tl->prog->name && *tl->prog->name ? ": " : "",
			 tl->prog && tl->prog->name ? tl->prog->name : "",
			 tl->salvaged ? " (PARTIAL: salvaged profile)" :
			 tl->cut_files ? " (PARTIAL: cut at --max-size)" : "");
		if (tl->nr_nodes && c < VNP_MAX_CORES) {
			/* a process per node, each core's rows threads of it named by worker */
			unsigned int node = tl->core_node[c], k;

			for (k = 0; k < c && tl->core_node[k] != node; k++)
				;
			if (k == c) {
				char pn[32];

				snprintf(pn, sizeof(pn), "node %u", node);
				pf_track_desc(&w, node_uuid(node), 0, pn, (int)node + 1, 0, 0);
			}
			pf_track_desc(&w, pf_proc_uuid(c), node_uuid(node), name, 0, 0, 0);
			pid = (int)node + 1;
			pre = lab;
		} else if (c < VNP_MAX_CORES && tl->lcore[c]) {
			/* a process per logical core, its physical cores' rows threads of it */
			unsigned int lc = tl->lcore[c] - 1u, k;

			pid = VNP_MAX_CORES + 1 + (int)lc;	/* lc: the group, unique */
			for (k = 0; k < c && tl->lcore[k] != tl->lcore[c]; k++)
				;
			if (k == c) {
				char pn[64];

				snprintf(pn, sizeof(pn), "logical core %u (LNC=2)%s%s", tl->pcore[c] / 2u,
					 tl->prog && tl->prog->name && *tl->prog->name ? ": " : "",
					 tl->prog && tl->prog->name ? tl->prog->name : "");
				pf_track_desc(&w, lcore_uuid(lc), 0, pn, pid, 0, 0);
			}
			pf_track_desc(&w, pf_proc_uuid(c), lcore_uuid(lc), name, 0, 0, 0);
			pre = lab;
		} else {
			pf_track_desc(&w, pf_proc_uuid(c), 0, name, pid, 0, 0);
		}
		if (tl->host_clock) {
			snprintf(name, sizeof(name), "%s%sexecutions", pre, *pre ? ": " : "");
			pf_track_desc(&w, pf_exec_uuid(c), pf_proc_uuid(c), name, pid,
				      (int)((c + 1) * 10000), 0);
		}
		for (r = 0; r < ROWS; r++)
			for (l = 0; l < w.lanes[c * ROWS + r]; l++) {
				const char *row = row_name(r, rn, sizeof(rn));

				if (l)
					snprintf(name, sizeof(name), "%s%s%s #%u", pre,
						 *pre ? ": " : "", row, l + 1);
				else
					snprintf(name, sizeof(name), "%s%s%s", pre,
						 *pre ? ": " : "", row);
				pf_track_desc(&w, row_uuid(c, r, l), pf_proc_uuid(c), name, pid,
					      (int)((c + 1) * 10000 + r * MAX_LANES + l + 1), 0);
			}
		pids[c] = pid;
		snprintf(pres[c], sizeof(pres[c]), "%s", pre);
	}
	if (!w.err && layer_rows(&w, pids, (const char (*)[64])pres, &ls))
		w.err = -ENOMEM;
	/* the series are of the whole profile: under core 0, or on their own with more */
	if (v->m->dma_count && !w.err) {
		uint64_t parent = w.ncores > 1 ? 0 : pf_proc_uuid(0);

		pf_track_desc(&w, counter_uuid(0), parent, w.ncores > 1 ?
			      "DMA throughput (GB/s, all cores)" : "DMA throughput (GB/s)", 0, 0, 1);
		pf_track_desc(&w, counter_uuid(1), parent, w.ncores > 1 ?
			      "DMA pending (all cores)" : "DMA pending", 0, 0, 1);
	}
	/* markers in time order */
	if (tl->nmarkers) {
		w.mk = malloc(tl->nmarkers * sizeof(*w.mk));
		if (!w.mk) {
			w.err = -ENOMEM;
			goto out;
		}
		for (i = 0; i < tl->nmarkers; i++)
			w.mk[i] = &tl->markers[i];
		qsort(w.mk, tl->nmarkers, sizeof(*w.mk), cmp_marker);
		w.nmk = tl->nmarkers;
	}
	/* pass 2: the slices, in time order, ends before begins at the same time */
	memset(w.lanes, 0, (size_t)w.ncores * ROWS);
	memset(w.lane_end, 0, (size_t)w.ncores * ROWS * MAX_LANES * sizeof(*w.lane_end));
	vnp_iter_init(it, tl);
	while (!w.err && (e = vnp_iter_next(it))) {
		int lane = pick_lane(&w, e);
		uint64_t uuid;

		if (lane < 0)
			continue;
		for (; next_lay < ls.n && ls.s[next_lay].lo <= e->start && !w.err; next_lay++) {
			flush_until(&w, ls.s[next_lay].lo, &bin);
			if (ls.s[next_lay].lane < VNP_LAYER_LANES && !w.err)
				layer_begin(&w, &ls.s[next_lay]);
		}
		flush_until(&w, e->start, &bin);
		uuid = row_uuid(e->core, ev_row(e), (unsigned int)lane);
		slice_begin(&w, e, it->idx, uuid);
		ends_push(&w, e->end, uuid);
	}
	for (; next_lay < ls.n && !w.err; next_lay++) {
		flush_until(&w, ls.s[next_lay].lo, &bin);
		if (ls.s[next_lay].lane < VNP_LAYER_LANES && !w.err)
			layer_begin(&w, &ls.s[next_lay]);
	}
	if (!w.err)
		flush_until(&w, UINT64_MAX - 1, &bin);
	if (!w.err && v->m->dma_count) {
		counter(&w, tl->t1, counter_uuid(0), 0);
		counter(&w, tl->t1, counter_uuid(1), 0);
	}
	if (!w.err && tl->host_clock && pf_host_rows(&w))
		w.err = -ENOMEM;
	if (!w.err)
		out_flush(&w);
	if (skipped && !w.err)
		vnp_warn("%llu events overlapping more than %d deep on one row left out of the "
			 "trace", (unsigned long long)skipped, MAX_LANES);
out:
	vnp_layer_spans_free(&ls);
	free(pids);
	free(pres);
	free(it);
	if (w.line_str)
		for (i = 0; i < tl->prog->nlines; i++)
			free(w.line_str[i]);
	free(w.line_str);
	free(w.line_len);
	free(w.scope_len);
	free(w.flows);
	free(w.flow_cur);
	free(w.mk);
	free(w.lane_end);
	free(w.lanes);
	free(w.ends);
	free(w.pkt.b);
	free(w.te.b);
	free(w.sub.b);
	free(w.out.b);
	if (!w.err && fflush(f))
		w.err = -EIO;
	return w.err;
}
