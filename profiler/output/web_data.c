// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The web viewer's data (docs/viewer.md): one JSON object, the
 * summary-json object, the program's source lines and scopes, and per core the timeline
 * rows as columns of numbers (start deltas, durations, opcodes, pcs, operands), which
 * parse far faster and smaller than one object per event for a million-event profile.
 * Each row also lists its device faults, as indices into the summary's faults (the page
 * draws them as red marks), each core its layers and its semaphore flows.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../model/layers.h"
#include "../model/metrics.h"
#include "web_priv.h"
#include "../util/sorted.h"

/* Sub-rows of TensorE, as the Neuron profiler shows it. */
static const struct {
	const char *name;
	int op;		/* -1: every other opcode */
} tensor_rows[] = {
	{ "TensorE LoadStationary", VNEF_OP_LOAD_STATIONARY },
	{ "TensorE MultiplyMoving", VNEF_OP_MULTIPLY_MOVING },
	{ "TensorE other", -1 },
};

/*
 * Whether an entry of this opcode belongs on a row of stream with op (a tensor_rows op,
 * or -2 for a row of the whole stream).
 */
static int op_in_row(uint32_t opcode, unsigned int stream, int op)
{
	if (stream != VNEURON_ENGINE_TENSOR || op == -2)
		return 1;
	if (op >= 0)
		return opcode == (uint32_t)op;
	return opcode != VNEF_OP_LOAD_STATIONARY && opcode != VNEF_OP_MULTIPLY_MOVING;
}

static int in_row(const struct vnp_timeline *tl, size_t i, unsigned int stream, int op)
{
	return op_in_row(vnp_tl_shape(tl, i)->opcode, stream, op);
}

/* A fault's row: on TensorE, its instruction's opcode's, MultiplyMoving if unknown. */
static int fault_in_row(const struct vnp_timeline *tl, const struct vnp_fault *f,
			unsigned int core, unsigned int stream, int op)
{
	uint32_t opc = vnp_fault_opcode(tl, f);

	if (f->core != core || f->stream != stream)
		return 0;
	return op_in_row(opc == VNP_NONE ? VNEF_OP_MULTIPLY_MOVING : opc, stream, op);
}

/*
 * One column of a row: which field of its events. C_MEM (DMA rows only): source memory
 * << 4 | destination memory, enum vnef_mem. The CC-core row's own columns: the wait for
 * the last member (ps), the group's size, the last member's rank, and the collective's
 * algbw and busbw (bytes/s, rounded).
 */
enum col { C_START, C_DUR, C_OP, C_PC, C_EL, C_BYTES, C_FLOPS, C_EXEC, C_WAIT, C_CRIT, C_MEM,
	   C_CCWAIT, C_GROUP, C_LAST, C_ALGBW, C_BUSBW };

/* Numbers go through a local buffer: fprintf() per value was most of the html's time. */
struct numbuf {
	FILE *f;
	size_t len;
	char buf[1 << 14];
};

static void nb_put(struct numbuf *b, unsigned long long x, int comma)
{
	char tmp[24];
	int n = 0;

	if (b->len > sizeof(b->buf) - 32) {
		fwrite(b->buf, 1, b->len, b->f);
		b->len = 0;
	}
	if (comma)
		b->buf[b->len++] = ',';
	do {
		tmp[n++] = (char)('0' + x % 10);
		x /= 10;
	} while (x);
	while (n)
		b->buf[b->len++] = tmp[--n];
}

static void row_col(FILE *f, const struct vnp_view *v, size_t base,
		    size_t n, unsigned int stream, int op, enum col c, const uint8_t *on)
{
	const struct vnp_timeline *tl = v->tl;
	struct numbuf nb = { .f = f, .len = 1, .buf = "[" };
	uint64_t prev = tl->t0;
	int first = 1;
	size_t i;

	for (i = 0; i < n; i++) {
		struct vnp_ev e_copy, *e = &e_copy;
		unsigned long long x;

		if (!in_row(tl, base + i, stream, op))
			continue;
		e_copy = vnp_tl_ev(tl, base + i);
		switch (c) {
		case C_START:
			x = e->start - prev;	/* tracks are start-ordered */
			prev = e->start;
			break;
		case C_DUR:
			x = e->end - e->start;
			break;
		case C_OP:
			x = vnp_web_op(e);
			break;
		case C_PC:
			x = e->pc;
			break;
		case C_EL:
			x = vnp_ev_is_cc(e) ? vnp_cc_members(e) : e->elements;
			break;
		case C_CCWAIT:
			x = vnp_cc_wait(e);
			break;
		case C_GROUP:
			x = vnp_cc_members(e);
			break;
		case C_LAST:
			x = vnp_cc_last(e);
			break;
		case C_ALGBW:
		case C_BUSBW: {
			uint32_t k = v->m ? vnp_cc_coll_of(v->m, base + i) : VNP_NONE;
			double bw = 0;

			if (k != VNP_NONE)
				bw = c == C_ALGBW ? vnp_coll_algbw(&v->m->coll[k]) :
				     vnp_coll_busbw(&v->m->coll[k]);
			x = (unsigned long long)(bw + 0.5);
			break;
		}
		case C_BYTES:
			x = e->bytes;
			break;
		case C_FLOPS:
			x = vnp_ev_is_cc(e) ? 0 : e->flops;
			break;
		case C_EXEC:
			x = e->exec;
			break;
		case C_MEM: {
			unsigned int src, dst;

			vnp_ev_dma_mems(tl, e, &src, &dst);
			x = (src & 15) << 4 | (dst & 15);
			break;
		}
		case C_CRIT:
			x = on ? on[base + i] : 0;
			break;
		default:
			x = vnp_ev_wait(tl, base + i);
			break;
		}
		nb_put(&nb, x, !first);
		first = 0;
	}
	nb.buf[nb.len++] = ']';
	fwrite(nb.buf, 1, nb.len, f);
}

/*
 * Where each event is in the page's rows (row of its core, index in the row), for the
 * semaphore flows; filled as the rows are written.
 */
struct evpos {
	uint32_t *row, *idx;
	uint32_t nrows;
	const uint8_t *on;		/* critical path flags, or NULL */
};

static void row_json(FILE *f, const struct vnp_view *v, unsigned int core,
		     unsigned int stream, const char *name, int op, int *first,
		     struct evpos *pos, const struct vnp_web_rows *rw)
{
	static const char *const keys[] = { "s", "d", "o", "p", "e", "b", "f", "x", "w", "c",
					    "m", "cw", "g", "lr", "ab", "bb" };
	const struct vnp_timeline *tl = v->tl;
	unsigned int t = core * VNEF_STREAMS + stream;
	size_t base = tl->track_off[t], n = vnp_tl_track_len(tl, t), cnt = 0, nf = 0, i;
	unsigned int c;

	if (rw && rw->win)	/* whether the row has events, not a pass over them */
		cnt = n && vnp_web_row_used(rw->ix, core, stream, op);
	else
		for (i = 0; i < n; i++)
			cnt += in_row(tl, base + i, stream, op);
	for (i = 0; i < tl->nfaults; i++)
		nf += fault_in_row(tl, &tl->faults[i], core, stream, op);
	/* engines always get their row; other TensorE ops and DMA queues when used or faulted */
	if (!cnt && !nf && (stream >= VNEF_ENGINES || op == -1))
		return;
	fprintf(f, "%s\n{\"name\":", *first ? "" : ",");
	*first = 0;
	vnp_json_str(f, name);
	if (rw && rw->win) {	/* a window's events only (web_lod.c) */
		i = vnp_web_win_slice(v->tl, t, rw, &n);
		base += i;
		for (i = 0, cnt = 0; i < n; i++)
			cnt += in_row(tl, base + i, stream, op);
	}
	fprintf(f, ",\"stream\":%u,\"dma\":%d,\"n\":%zu", stream, vnp_stream_is_dma(stream),
		cnt);
	if (stream == VNEF_STREAM_CC)
		fputs(",\"cc\":1", f);
	if (rw && rw->lod)	/* the summary level: bins instead of events */
		vnp_web_bins_json(f, v->tl, base, n, stream, op);
	for (c = 0; !(rw && rw->lod) && c < sizeof(keys) / sizeof(keys[0]); c++) {
		/* DMA rows add their memories, the CC-core row its collectives' figures */
		if ((c == C_MEM && !vnp_stream_is_dma(stream)) ||
		    (c > C_MEM && stream != VNEF_STREAM_CC))
			continue;
		fprintf(f, ",\"%s\":", keys[c]);
		row_col(f, v, base, n, stream, op, (enum col)c, pos->on);
	}
	if (pos->row) {
		size_t k = 0;

		for (i = 0; i < n; i++)
			if (in_row(tl, base + i, stream, op)) {
				pos->row[base + i] = pos->nrows;
				pos->idx[base + i] = (uint32_t)k++;
			}
	}
	pos->nrows++;
	/* device faults on this row: indices into summary.faults (same order) */
	fputs(",\"faults\":[", f);
	for (i = 0, nf = 0; i < tl->nfaults; i++)
		if (fault_in_row(tl, &tl->faults[i], core, stream, op))
			fprintf(f, "%s%zu", nf++ ? "," : "", i);
	fputs("]}", f);
}

/* Core c's rows, in the page's order (a window's answer keeps the same rows). */
static void rows_json(FILE *f, const struct vnp_view *v, unsigned int c, struct evpos *pos,
		      const struct vnp_web_rows *rw)
{
	unsigned int s, k;
	char name[48];
	int first = 1;

	pos->nrows = 0;
	for (s = 0; s < VNEF_STREAMS; s++) {
		if (s == VNEURON_ENGINE_TENSOR) {
			for (k = 0; k < sizeof(tensor_rows) / sizeof(tensor_rows[0]); k++)
				row_json(f, v, c, s, tensor_rows[k].name, tensor_rows[k].op, &first,
					 pos, rw);
			continue;
		}
		row_json(f, v, c, s, vnp_stream_name(s, name, sizeof(name)), -2, &first, pos,
			 rw);
	}
}

int vnp_web_window_rows(FILE *f, const struct vnp_view *v, const struct vnp_web_rows *rw)
{
	struct evpos pos = { .on = v->a ? v->a->cp.on : NULL };	/* no arrows: no row, idx */

	fputs("\"rows\":[", f);
	rows_json(f, v, rw->win->core, &pos, rw);
	fputc(']', f);
	return ferror(f) ? -EIO : 0;
}

static void prog_json(FILE *f, const struct vnp_prog *p)
{
	unsigned int s;
	uint32_t i;

	fputs(",\n\"lines\":[", f);
	for (i = 0; p && i < p->nlines; i++) {
		const char *file = vnp_prog_str(p, p->lines[i].file_off);
		char *buf;

		if (asprintf(&buf, "%s:%u", file, p->lines[i].line) < 0) {
			fputs(i ? ",\"\"" : "\"\"", f);
			continue;
		}
		if (i)
			fputc(',', f);
		vnp_json_str(f, buf);
		free(buf);
	}
	fputs("],\n\"scopes\":[", f);
	for (i = 0; p && i < p->nscopes; i++) {
		if (i)
			fputc(',', f);
		vnp_json_str(f, vnp_prog_scope(p, i));
	}
	/* per stream, per pc: line and scope ids, -1 if none */
	fputs("],\n\"loc\":[", f);
	for (s = 0; s < VNEF_STREAMS; s++) {
		unsigned int k;

		fputs(s ? ",{" : "{", f);
		for (k = 0; k < 2; k++) {
			fputs(k ? ",\"s\":[" : "\"l\":[", f);
			for (i = 0; p && p->loc[s] && i < p->nloc[s]; i++) {
				uint32_t x = k ? p->loc[s][i].scope : p->loc[s][i].line;

				if (x == VNP_NONE)
					fputs(i ? ",-1" : "-1", f);
				else
					fprintf(f, i ? ",%u" : "%u", x);
			}
			fputc(']', f);
		}
		fputc('}', f);
	}
	fputc(']', f);
}

/* At most this many semaphore flows a core in the page: arrows are for zoomed-in views. */
#define WEB_MAX_FLOWS	200000

/* "flows":[[from row, from index, to row, to index], ...] of core c's waits. */
static void flows_json(FILE *f, const struct vnp_timeline *tl, unsigned int c,
		       const struct evpos *pos)
{
	size_t n = 0, i;
	unsigned int s;

	fputs(",\"flows\":[", f);
	for (s = 0; s < VNEF_STREAMS && pos->row; s++) {
		unsigned int t = c * VNEF_STREAMS + s;

		for (i = tl->track_off[t]; i < tl->track_off[t + 1] && n < WEB_MAX_FLOWS; i++) {
			size_t from;

			if (vnp_tl_shape(tl, i)->sem_wait == VNEURON_TRACE_NO_SEM ||
			    !vnp_ev_wait(tl, i))
				continue;
			from = vnp_ev_signaller(tl, i);
			if (from == SIZE_MAX)
				continue;
			fprintf(f, "%s[%u,%u,%u,%u]", n++ ? "," : "", pos->row[from], pos->idx[from],
				pos->row[i], pos->idx[i]);
		}
	}
	fputc(']', f);
}

/*
 * "execs": each execution's figures for the roofline chart: its time, TensorE flops
 * (transposes apart), every engine's flops and HBM bytes.
 */
static int execs_json(FILE *f, const struct vnp_timeline *tl, size_t stride)
{
	struct { uint64_t flops, tflops, hbm, eng[VNEF_ENGINES]; } *x;
	size_t i;
	unsigned int u;

	x = calloc(tl->nexec + 1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	for (i = 0; i < tl->n; i++) {
		const struct vnp_ev e_copy = vnp_tl_ev(tl, i), *e = &e_copy;
		uint64_t key = (uint64_t)e->core << 32 | e->exec;
		size_t lo = VNP_LOWER_BOUND(tl->execs, tl->nexec, key, key);
		unsigned int src, dst;

		if (lo == tl->nexec || tl->execs[lo].key != key)
			continue;
		if (e->opcode == VNP_OP_DMA) {
			vnp_ev_dma_mems(tl, e, &src, &dst);
			x[lo].hbm += (src == VNEF_MEM_HBM ? e->bytes : 0) +
				     (dst == VNEF_MEM_HBM ? e->bytes : 0);
			continue;
		}
		if (e->stream < VNEF_ENGINES)
			x[lo].eng[e->stream] += e->flops;
		if (e->stream == VNEURON_ENGINE_TENSOR) {
			x[lo].flops += e->flops;
			if (e->opcode == VNEF_OP_TRANSPOSE)
				x[lo].tflops += e->flops;
		}
	}
	fputs(",\n\"execs\":[", f);
	for (i = 0; i < tl->nexec; i += stride) {
		fprintf(f, "%s{\"core\":%llu,\"exec\":%llu,\"time_ps\":%llu,\"flops\":%llu,"
			"\"transpose_flops\":%llu,\"hbm_bytes\":%llu,\"engine_flops\":{", i ? "," : "",
			(unsigned long long)(tl->execs[i].key >> 32),
			(unsigned long long)(tl->execs[i].key & 0xffffffffu),
			(unsigned long long)(tl->execs[i].hi - tl->execs[i].lo),
			(unsigned long long)x[i].flops, (unsigned long long)x[i].tflops,
			(unsigned long long)x[i].hbm);
		for (u = 0; u < VNEF_ENGINES; u++)
			fprintf(f, "%s\"%s\":%llu", u ? "," : "", vnp_engine_name(u),
				(unsigned long long)x[i].eng[u]);
		fputs("}}", f);
	}
	fputc(']', f);
	free(x);
	return 0;
}

/* ==== host rows (docs/viewer.md, "Host rows") ========================================== */

/*
 * Core c's layers (layers.h) from ls->s[i]: "layers" [start, end, depth - 1, path] with
 * times from t0; the index of the next core's first.
 */
static size_t layers_json(FILE *f, const struct vnp_timeline *tl,
			  const struct vnp_layer_spans *ls, size_t i, unsigned int c, uint64_t min_ps)
{
	char path[300];
	size_t k = 0;

	fputs(",\"layers\":[", f);
	for (; i < ls->n && ls->s[i].core == c; i++) {
		const struct vnp_layer_span *x = &ls->s[i];

		if (x->hi - x->lo < min_ps)	/* the summary level: a bin or longer */
			continue;
		fprintf(f, "%s[%llu,%llu,%u,", k++ ? "," : "",
			(unsigned long long)(x->lo - tl->t0), (unsigned long long)(x->hi - tl->t0),
			x->depth - 1u);
		snprintf(path, sizeof(path), "%.*s", (int)x->len, x->path);
		vnp_json_str(f, path);
		fputc(']', f);
	}
	fputc(']', f);
	return i;
}

static int data_raw(FILE *f, const struct vnp_view *v, const char *const *labels)
{
	struct evpos pos = { .on = v->a ? v->a->cp.on : NULL };
	const struct vnp_timeline *tl = v->tl;
	struct vnp_web_rows rw = { .lod = 1 };
	int lod = vnp_web_is_lod(tl);
	struct vnp_layer_spans ls;
	size_t li = 0;
	unsigned int c, op;
	char name[48];
	int ret;

	fprintf(f, "{\"version\":1,\"t0\":%llu,\"t1\":%llu,\"ops\":[",
		(unsigned long long)tl->t0, (unsigned long long)tl->t1);
	for (op = 0; op <= VNEF_OP_COUNT; op++)
		fprintf(f, "%s\"%s\"", op ? "," : "",
			vnp_opcode_name(op == VNEF_OP_COUNT ? VNP_OP_DMA : op));
	for (op = 0; op < VNEF_CC_OP_COUNT; op++)
		fprintf(f, ",\"%s\"", vnp_opcode_name(VNP_OP_CC + op));
	fprintf(f, "],\"mems\":[\"?\",\"%s\",\"%s\",\"%s\"]", vnp_mem_name(VNEF_MEM_SBUF),
		vnp_mem_name(VNEF_MEM_PSUM), vnp_mem_name(VNEF_MEM_HBM));
	if (lod)
		vnp_web_lod_json(f, tl);
	fputs(",\n\"summary\":", f);
	ret = vnp_summary_json(f, v);
	if (ret)
		return ret;
	prog_json(f, tl->prog);
	/* the summary level keeps at most VNP_WEB_BINS executions for the roofline */
	ret = execs_json(f, tl, lod ? tl->nexec / VNP_WEB_BINS + 1 : 1) ?:
	      vnp_web_host_json(f, tl) ?:
	      vnp_layer_spans(tl, tl->ncores ? tl->ncores : 1, &ls);
	if (ret)
		return ret;
	/* without memory for the positions the page simply has no arrows (nor at the summary level) */
	pos.row = lod ? NULL : malloc((tl->n + 1) * sizeof(*pos.row));
	pos.idx = lod ? NULL : malloc((tl->n + 1) * sizeof(*pos.idx));
	if (!pos.row || !pos.idx) {
		free(pos.row);
		free(pos.idx);
		pos.row = pos.idx = NULL;
	}
	fputs(",\n\"cores\":[", f);
	for (c = 0; c < (tl->ncores ? tl->ncores : 1); c++) {
		fputs(c ? ",\n{\"label\":" : "\n{\"label\":", f);
		if (labels && labels[c]) {
			vnp_json_str(f, labels[c]);
		} else {
			snprintf(name, sizeof(name), "core %u", c);
			vnp_json_str(f, name);
		}
		if (tl->cc_rank[c] != VNP_NO_RANK)
			fprintf(f, ",\"rank\":%u", tl->cc_rank[c]);
		fputs(",\"rows\":[", f);
		rows_json(f, v, c, &pos, lod ? &rw : NULL);
		fputc(']', f);
		li = layers_json(f, tl, &ls, li, c, lod ? vnp_web_bin_ps(tl) : 0);
		flows_json(f, tl, c, &pos);
		fputc('}', f);
	}
	fputs("]}\n", f);
	vnp_layer_spans_free(&ls);
	free(pos.row);
	free(pos.idx);
	return ferror(f) ? -EIO : 0;
}

/*
 * The data as it may sit inside a <script> element: '<' only occurs in JSON strings,
 * where \u003c is the same character, so no "</script>" or "<!--" can end it early.
 */
int vnp_web_data_buf(const struct vnp_view *v, const char *const *labels, char **out,
		     size_t *outlen)
{
	char *buf = NULL, *esc, *q;
	size_t len = 0, lt = 0, i;
	FILE *m = open_memstream(&buf, &len);
	int ret;

	if (!m)
		return -ENOMEM;
	ret = data_raw(m, v, labels);
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	if (ret) {
		free(buf);
		return ret;
	}
	for (i = 0; i < len; i++)
		lt += buf[i] == '<';
	if (!lt) {
		*out = buf;
		*outlen = len;
		return 0;
	}
	esc = malloc(len + 5 * lt + 1);
	if (!esc) {
		free(buf);
		return -ENOMEM;
	}
	for (i = 0, q = esc; i < len; i++) {
		if (buf[i] == '<') {
			memcpy(q, "\\u003c", 6);
			q += 6;
		} else {
			*q++ = buf[i];
		}
	}
	*q = 0;
	free(buf);
	*out = esc;
	*outlen = (size_t)(q - esc);
	return 0;
}

int vnp_web_data(FILE *f, const struct vnp_view *v, const char *const *labels)
{
	char *buf;
	size_t len;
	int ret = vnp_web_data_buf(v, labels, &buf, &len);

	if (ret)
		return ret;
	if (fwrite(buf, 1, len, f) != len)
		ret = -EIO;
	free(buf);
	return ret;
}
