// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The web viewer: `view --output-format html` and `view --serve`. The page (profiler/output/web/)
 * is assembled into the binary; its data is one JSON object: the summary-json object, the
 * program's source lines and scopes, and per core the timeline rows as columns of numbers
 * (start deltas, durations, opcodes, pcs, operands), which parse far faster and smaller
 * than one object per event for a million-event profile. Each row also lists its device
 * faults, as indices into the summary's faults (the page draws them as red marks).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "../model/metrics.h"
#include "../model/layers.h"
#include "web.h"
#include "../util/log.h"

/* The page, built in from profiler/output/web/ (the Makefile makes web.o depend on them). */
#define VNP_INCBIN(sym, file)						\
	__asm__(".section .rodata\n"					\
		".global " #sym "_start\n"				\
		".global " #sym "_end\n"				\
		#sym "_start:\n"					\
		".incbin \"" file "\"\n"				\
		#sym "_end:\n"						\
		".byte 0\n"						\
		".previous\n")
VNP_INCBIN(vnp_web_page, "profiler/output/web/viewer.html");
VNP_INCBIN(vnp_web_css, "profiler/output/web/viewer.css");
VNP_INCBIN(vnp_web_js, "profiler/output/web/viewer.js");
extern const char vnp_web_page_start[], vnp_web_page_end[];
extern const char vnp_web_css_start[], vnp_web_css_end[];
extern const char vnp_web_js_start[], vnp_web_js_end[];

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

static int in_row(const struct vnp_ev *e, unsigned int stream, int op)
{
	return op_in_row(e->opcode, stream, op);
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

static void row_col(FILE *f, const struct vnp_view *v, const struct vnp_ev *ev,
		    size_t n, unsigned int stream, int op, enum col c, const uint8_t *on)
{
	const struct vnp_timeline *tl = v->tl;
	struct numbuf nb = { .f = f, .len = 1, .buf = "[" };
	uint64_t prev = tl->t0;
	int first = 1;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct vnp_ev *e = &ev[i];
		unsigned long long x;

		if (!in_row(e, stream, op))
			continue;
		switch (c) {
		case C_START:
			x = e->start - prev;	/* tracks are start-ordered */
			prev = e->start;
			break;
		case C_DUR:
			x = e->end - e->start;
			break;
		case C_OP:
			/* the page's ops: the opcodes, "DMA", then the collectives' */
			x = e->opcode == VNP_OP_DMA ? VNEF_OP_COUNT : vnp_ev_is_cc(e) ?
			    VNEF_OP_COUNT + 1 + vnp_cc_op(e) : e->opcode;
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
			uint32_t k = v->m ? vnp_cc_coll_of(v->m, (size_t)(e - tl->ev)) : VNP_NONE;
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
			x = on ? on[e - tl->ev] : 0;
			break;
		default:
			x = vnp_ev_wait(tl, e);
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
		     struct evpos *pos)
{
	static const char *const keys[] = { "s", "d", "o", "p", "e", "b", "f", "x", "w", "c",
					    "m", "cw", "g", "lr", "ab", "bb" };
	const struct vnp_timeline *tl = v->tl;
	unsigned int t = core * VNEF_STREAMS + stream;
	const struct vnp_ev *ev = tl->ev + tl->track_off[t];
	size_t n = vnp_tl_track_len(tl, t), cnt = 0, nf = 0, i;
	unsigned int c;

	for (i = 0; i < n; i++)
		cnt += in_row(&ev[i], stream, op);
	for (i = 0; i < tl->nfaults; i++)
		nf += fault_in_row(tl, &tl->faults[i], core, stream, op);
	/* engines always get their row; other TensorE ops and DMA queues when used or faulted */
	if (!cnt && !nf && (stream >= VNEF_ENGINES || op == -1))
		return;
	fprintf(f, "%s\n{\"name\":", *first ? "" : ",");
	*first = 0;
	vnp_json_str(f, name);
	fprintf(f, ",\"stream\":%u,\"dma\":%d,\"n\":%zu", stream, vnp_stream_is_dma(stream),
		cnt);
	if (stream == VNEF_STREAM_CC)
		fputs(",\"cc\":1", f);
	for (c = 0; c < sizeof(keys) / sizeof(keys[0]); c++) {
		/* DMA rows add their memories, the CC-core row its collectives' figures */
		if ((c == C_MEM && !vnp_stream_is_dma(stream)) ||
		    (c > C_MEM && stream != VNEF_STREAM_CC))
			continue;
		fprintf(f, ",\"%s\":", keys[c]);
		row_col(f, v, ev, n, stream, op, (enum col)c, pos->on);
	}
	if (pos->row) {
		size_t k = 0, base = (size_t)(ev - tl->ev);

		for (i = 0; i < n; i++)
			if (in_row(&ev[i], stream, op)) {
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
			const struct vnp_ev *e = &tl->ev[i], *g;
			size_t from;

			if (e->sem_wait == VNEURON_TRACE_NO_SEM || !vnp_ev_wait(tl, e))
				continue;
			g = vnp_ev_signaller(tl, e);
			if (!g)
				continue;
			from = (size_t)(g - tl->ev);
			fprintf(f, "%s[%u,%u,%u,%u]", n++ ? "," : "", pos->row[from], pos->idx[from],
				pos->row[i], pos->idx[i]);
		}
	}
	fputc(']', f);
}

/*
 * "execs": each execution's figures for the roofline chart: its time, TensorE flops
 * (transposes apart) and HBM bytes.
 */
static int execs_json(FILE *f, const struct vnp_timeline *tl)
{
	struct { uint64_t flops, tflops, hbm; } *x = calloc(tl->nexec + 1, sizeof(*x));
	size_t i;

	if (!x)
		return -ENOMEM;
	for (i = 0; i < tl->n; i++) {
		const struct vnp_ev *e = &tl->ev[i];
		uint64_t key = (uint64_t)e->core << 32 | e->exec;
		size_t lo = 0, hi = tl->nexec;
		unsigned int src, dst;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (tl->execs[mid].key < key)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == tl->nexec || tl->execs[lo].key != key)
			continue;
		if (e->opcode == VNP_OP_DMA) {
			vnp_ev_dma_mems(tl, e, &src, &dst);
			x[lo].hbm += (src == VNEF_MEM_HBM ? e->bytes : 0) +
				     (dst == VNEF_MEM_HBM ? e->bytes : 0);
		} else if (e->stream == VNEURON_ENGINE_TENSOR) {
			x[lo].flops += e->flops;
			if (e->opcode == VNEF_OP_TRANSPOSE)
				x[lo].tflops += e->flops;
		}
	}
	fputs(",\n\"execs\":[", f);
	for (i = 0; i < tl->nexec; i++)
		fprintf(f, "%s{\"core\":%llu,\"exec\":%llu,\"time_ps\":%llu,\"flops\":%llu,"
			"\"transpose_flops\":%llu,\"hbm_bytes\":%llu}", i ? "," : "",
			(unsigned long long)(tl->execs[i].key >> 32),
			(unsigned long long)(tl->execs[i].key & 0xffffffffu),
			(unsigned long long)(tl->execs[i].hi - tl->execs[i].lo),
			(unsigned long long)x[i].flops, (unsigned long long)x[i].tflops,
			(unsigned long long)x[i].hbm);
	fputc(']', f);
	free(x);
	return 0;
}

/* ==== host rows (docs/profiler.md "Host rows") ========================================== */

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
static int host_json(FILE *f, const struct vnp_timeline *tl)
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

/*
 * Core c's layers (layers.h) from ls->s[i]: "layers" [start, end, depth - 1, path] with
 * times from t0; the index of the next core's first.
 */
static size_t layers_json(FILE *f, const struct vnp_timeline *tl,
			  const struct vnp_layer_spans *ls, size_t i, unsigned int c)
{
	char path[300];
	size_t first = i;

	fputs(",\"layers\":[", f);
	for (; i < ls->n && ls->s[i].core == c; i++) {
		const struct vnp_layer_span *x = &ls->s[i];

		fprintf(f, "%s[%llu,%llu,%u,", i > first ? "," : "",
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
	struct vnp_layer_spans ls;
	size_t li = 0;
	unsigned int c, s, k, op;
	char name[48];
	int ret, first;

	fprintf(f, "{\"version\":1,\"t0\":%llu,\"t1\":%llu,\"ops\":[",
		(unsigned long long)tl->t0, (unsigned long long)tl->t1);
	for (op = 0; op <= VNEF_OP_COUNT; op++)
		fprintf(f, "%s\"%s\"", op ? "," : "",
			vnp_opcode_name(op == VNEF_OP_COUNT ? VNP_OP_DMA : op));
	for (op = 0; op < VNEF_CC_OP_COUNT; op++)
		fprintf(f, ",\"%s\"", vnp_opcode_name(VNP_OP_CC + op));
	fprintf(f, "],\"mems\":[\"?\",\"%s\",\"%s\",\"%s\"]", vnp_mem_name(VNEF_MEM_SBUF),
		vnp_mem_name(VNEF_MEM_PSUM), vnp_mem_name(VNEF_MEM_HBM));
	fputs(",\n\"summary\":", f);
	ret = vnp_summary_json(f, v);
	if (ret)
		return ret;
	prog_json(f, tl->prog);
	ret = execs_json(f, tl) ?: host_json(f, tl) ?:
	      vnp_layer_spans(tl, tl->ncores ? tl->ncores : 1, &ls);
	if (ret)
		return ret;
	/* without memory for the positions the page simply has no arrows */
	pos.row = malloc((tl->n + 1) * sizeof(*pos.row));
	pos.idx = malloc((tl->n + 1) * sizeof(*pos.idx));
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
		first = 1;
		pos.nrows = 0;
		for (s = 0; s < VNEF_STREAMS; s++) {
			if (s == VNEURON_ENGINE_TENSOR) {
				for (k = 0; k < sizeof(tensor_rows) / sizeof(tensor_rows[0]); k++)
					row_json(f, v, c, s, tensor_rows[k].name, tensor_rows[k].op,
						 &first, &pos);
				continue;
			}
			row_json(f, v, c, s, vnp_stream_name(s, name, sizeof(name)), -2, &first,
				 &pos);
		}
		fputc(']', f);
		li = layers_json(f, tl, &ls, li, c);
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
static int data_buf(const struct vnp_view *v, const char *const *labels, char **out,
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
	int ret = data_buf(v, labels, &buf, &len);

	if (ret)
		return ret;
	if (fwrite(buf, 1, len, f) != len)
		ret = -EIO;
	free(buf);
	return ret;
}

/* The page with its markers replaced: <!--VN:CSS-->, <!--VN:JS-->, <!--VN:DATA-->. */
static void page(FILE *f, const char *data, size_t len)
{
	const char *p = vnp_web_page_start, *end = vnp_web_page_end, *mk;

	while (p < end && (mk = memmem(p, (size_t)(end - p), "<!--VN:", 7))) {
		fwrite(p, 1, (size_t)(mk - p), f);
		if (!strncmp(mk, "<!--VN:CSS-->", 13)) {
			fputs("<style>\n", f);
			fwrite(vnp_web_css_start, 1, (size_t)(vnp_web_css_end - vnp_web_css_start),
			       f);
			fputs("</style>", f);
			p = mk + 13;
		} else if (!strncmp(mk, "<!--VN:JS-->", 12)) {
			fputs("<script>\n", f);
			fwrite(vnp_web_js_start, 1, (size_t)(vnp_web_js_end - vnp_web_js_start), f);
			fputs("</script>", f);
			p = mk + 12;
		} else if (!strncmp(mk, "<!--VN:DATA-->", 14)) {
			if (data) {
				fputs("<script type=\"application/json\" id=\"vn-data\">", f);
				fwrite(data, 1, len, f);
				fputs("</script>", f);
			}
			p = mk + 14;
		} else {
			fwrite(mk, 1, 7, f);
			p = mk + 7;
		}
	}
	if (p < end)
		fwrite(p, 1, (size_t)(end - p), f);
}

int vnp_web_html(FILE *f, const struct vnp_view *v, const char *const *labels)
{
	char *data;
	size_t len;
	int ret = data_buf(v, labels, &data, &len);

	if (ret)
		return ret;
	page(f, data, len);
	free(data);
	return ferror(f) ? -EIO : 0;
}

/* ==== the server ========================================================================= */

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void reply(int fd, const char *status, const char *type, const char *body,
		  size_t len, int head)
{
	char hdr[512];
	int n = snprintf(hdr, sizeof(hdr), "HTTP/1.1 %s\r\nContent-Type: %s\r\n"
			 "Content-Length: %zu\r\nCache-Control: no-store\r\n"
			 "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
			 status, type, len);

	if (send_all(fd, hdr, (size_t)n) == 0 && !head)
		send_all(fd, body, len);
}

/*
 * A loopback server answers only requests naming a loopback host: a web page elsewhere
 * could otherwise point a name of its own at 127.0.0.1 (DNS rebinding) and read the
 * profile. No Host header (HTTP/1.0) is accepted.
 */
static int host_ok(const char *req, int loopback)
{
	static const char *const ok[] = { "127.0.0.1", "localhost", "[::1]" };
	const char *h = strcasestr(req, "\nHost:");
	size_t n, i;

	if (!loopback || !h)
		return 1;
	h += 6;
	h += strspn(h, " \t");
	n = strcspn(h, "\r\n");
	if (n && h[0] != '[')
		n = strcspn(h, ":\r\n");
	else if (n)
		n = strcspn(h, "]\r\n") + (h[strcspn(h, "]\r\n")] == ']');
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (strlen(ok[i]) == n && !strncasecmp(h, ok[i], n))
			return 1;
	return 0;
}

/* One request per connection: GET / (the page), GET /data.json; HEAD of either. */
static void serve_one(int fd, const char *pg, size_t pglen, const char *data, size_t dlen,
		      int loopback)
{
	struct timeval tv = { .tv_sec = 5 };
	char req[4096], method[8], path[256];
	size_t n = 0;
	int head;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	while (n < sizeof(req) - 1) {
		ssize_t r = recv(fd, req + n, sizeof(req) - 1 - n, 0);

		if (r < 0 && errno == EINTR && !stop_sig)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
		req[n] = 0;
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			break;
	}
	req[n] = 0;
	if (sscanf(req, "%7s %255s", method, path) != 2) {
		reply(fd, "400 Bad Request", "text/plain", "bad request\n", 12, 0);
		return;
	}
	head = !strcmp(method, "HEAD");
	if (strcmp(method, "GET") && !head) {
		reply(fd, "405 Method Not Allowed", "text/plain", "GET only\n", 9, 0);
		return;
	}
	if (!host_ok(req, loopback)) {
		reply(fd, "403 Forbidden", "text/plain", "this server answers loopback names only\n",
		      40, 0);
		return;
	}
	path[strcspn(path, "?#")] = 0;
	if (!strcmp(path, "/") || !strcmp(path, "/index.html"))
		reply(fd, "200 OK", "text/html; charset=utf-8", pg, pglen, head);
	else if (!strcmp(path, "/data.json"))
		reply(fd, "200 OK", "application/json", data, dlen, head);
	else
		reply(fd, "404 Not Found", "text/plain", "not found\n", 10, head);
}

/*
 * A thread per connection, so a browser's idle speculative connection cannot hold the
 * next request up; the page and data are read-only while any runs.
 */
#define VNP_WEB_MAX_CONNS	32

struct conn {
	int fd, loopback;
	const char *pg, *data;
	size_t pglen, dlen;
};

static pthread_mutex_t conn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t conn_done = PTHREAD_COND_INITIALIZER;
static unsigned int conns;

static void *conn_thread(void *arg)
{
	struct conn *c = arg;

	serve_one(c->fd, c->pg, c->pglen, c->data, c->dlen, c->loopback);
	close(c->fd);
	free(c);
	pthread_mutex_lock(&conn_lock);
	conns--;
	pthread_cond_broadcast(&conn_done);
	pthread_mutex_unlock(&conn_lock);
	return NULL;
}

static void conn_start(const struct conn *tmpl, int fd)
{
	struct conn *c = malloc(sizeof(*c));
	pthread_attr_t at;
	pthread_t th;
	sigset_t all, old;
	int ret = -1;

	if (c) {
		*c = *tmpl;
		c->fd = fd;
		pthread_mutex_lock(&conn_lock);
		if (conns < VNP_WEB_MAX_CONNS) {
			conns++;
			pthread_attr_init(&at);
			pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
			/* SIGINT and SIGTERM stay with the accepting thread */
			sigfillset(&all);
			pthread_sigmask(SIG_BLOCK, &all, &old);
			ret = pthread_create(&th, &at, conn_thread, c);
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			pthread_attr_destroy(&at);
			if (ret)
				conns--;
		}
		pthread_mutex_unlock(&conn_lock);
	}
	if (ret) {	/* too many at once, or no thread: answer here */
		serve_one(fd, tmpl->pg, tmpl->pglen, tmpl->data, tmpl->dlen, tmpl->loopback);
		close(fd);
		free(c);
	}
}

int vnp_web_serve(const struct vnp_view *v, const char *const *labels, const char *addr,
		  unsigned int port)
{
	struct sigaction sa = { .sa_handler = on_stop }, old_int, old_term;
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char *data = NULL, *pg = NULL, host[INET6_ADDRSTRLEN + 2];
	size_t dlen, pglen = 0;
	int fd = -1, one = 1, v6, ret, loopback;
	struct conn tmpl;
	FILE *m;

	if (port > 65535) {
		vnp_err("--port %u: ports are 0..65535", port);
		return -EINVAL;
	}
	/* localhost is loopback by definition: no resolver asked */
	if (!strcmp(addr, "localhost"))
		addr = "127.0.0.1";
	v6 = strchr(addr, ':') != NULL;
	if (v6 ? inet_pton(AF_INET6, addr, &a6.sin6_addr) != 1 :
		 inet_pton(AF_INET, addr, &a4.sin_addr) != 1) {
		vnp_err("--bind %s: not localhost nor a numeric IPv4 or "
			"IPv6 address (the default, 127.0.0.1, is reachable from this machine "
			"only)", addr);
		return -EINVAL;
	}
	loopback = v6 ? IN6_IS_ADDR_LOOPBACK(&a6.sin6_addr) :
			(ntohl(a4.sin_addr.s_addr) >> 24) == 127;
	ret = data_buf(v, labels, &data, &dlen);
	if (ret) {
		vnp_err("out of memory");
		return ret;
	}
	m = open_memstream(&pg, &pglen);
	if (!m) {
		free(data);
		vnp_err("out of memory");
		return -ENOMEM;
	}
	page(m, NULL, 0);	/* no data inside: the page fetches data.json */
	if (fclose(m)) {
		free(data);
		free(pg);
		vnp_err("out of memory");
		return -ENOMEM;
	}

	a6.sin6_port = htons((uint16_t)port);
	a4.sin_port = htons((uint16_t)port);
	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		ret = -errno;
		vnp_err("socket: %s", strerror(errno));
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if ((v6 ? bind(fd, (struct sockaddr *)&a6, sizeof(a6)) :
		  bind(fd, (struct sockaddr *)&a4, sizeof(a4))) || listen(fd, 16)) {
		ret = -errno;
		if (errno == EADDRINUSE)
			vnp_err("port %u on %s is already in use; choose "
				"another with --port N (or --port 0 for any free port)", port,
				addr);
		else if (errno == EACCES)
			vnp_err("port %u on %s: permission denied (ports "
				"below 1024 need privileges)", port, addr);
		else
			vnp_err("cannot listen on %s port %u: %s", addr,
				port, strerror(errno));
		goto out;
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		ret = -errno;
		goto out;
	}
	port = ntohs(v6 ? ((struct sockaddr_in6 *)&ss)->sin6_port :
		      ((struct sockaddr_in *)&ss)->sin_port);
	snprintf(host, sizeof(host), v6 ? "[%s]" : "%s", addr);
	stop_sig = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	printf("vneuron-profile: serving the viewer at http://%s:%u/ (Ctrl-C to stop)\n", host,
	       port);
	fflush(stdout);
	tmpl = (struct conn){ .loopback = loopback, .pg = pg, .pglen = pglen, .data = data,
			      .dlen = dlen };
	ret = 0;
	while (!stop_sig) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int c;

		if (poll(&p, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			vnp_err("poll: %s", strerror(errno));
			break;
		}
		c = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (c < 0)
			continue;	/* the client went away, or EINTR */
		conn_start(&tmpl, c);
	}
	/* answers under way finish (their sockets time out in 5 s) before the data goes */
	pthread_mutex_lock(&conn_lock);
	while (conns)
		pthread_cond_wait(&conn_done, &conn_lock);
	pthread_mutex_unlock(&conn_lock);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (!ret)
		vnp_log(VNPROFILE_INFO, "stopped");
out:
	if (fd >= 0)
		close(fd);
	free(data);
	free(pg);
	return ret;
}
