// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The web viewer in a real browser: Debian's Chromium driven through the Chrome DevTools
 * Protocol over a pipe (--remote-debugging-pipe: commands on fd 3, replies and events on
 * fd 4, each message a JSON object ended by a NUL byte), so no websocket, no npm. A
 * kernel (exp as in seed 002, plus a matmul) runs on the host backend; its events are
 * written as a two-worker profile; vneuron-profile writes the html (and serves it); the
 * page is checked for its rows, summary, zoom, hover, search and tabs, a device fault's
 * red marker (worker 1 carries an ERROR record) and its hover text, with screenshots
 * in build/results/browser-*.png. Then a data-parallel program runs as 4 workers of one
 * communicator on the host backend (threads): the CC-core rows of their tabs, a
 * collective's hover text (group, last rank, algbw, busbw), the search by collective and
 * the Summary tab's collectives tables. The same profile past a lowered --web-detail
 * shows its summary level: bins, and served, a zoomed window's events (lod.c). Prints
 * TAP. A 1 M-instruction profile is loaded too and the page's own load, render and zoom
 * times printed (never asserted).
 *
 * One file, over 1,000 lines: one browser session (its start costs seconds) serves every
 * check, and the DevTools client it needs is small enough to live here.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vn_model.h"
#include "vnprog.h"
#include "../../profiler/format/sha256.h"
#include "../../profiler/model/timeline.h"
#include "../../profiler/format/vntf.h"

#define ROWS		128
#define COLS		2048
#define PROFILER	"build/bin/vneuron-profile"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define RESULTS		"build/results"
#define CHROMIUM	"/usr/bin/chromium"

static int ntest, nfail;
static char dir[256];
static int mm_line;		/* source line of the matmul */

static void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d ", ok ? "ok" : "not ok", ++ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	nfail += !ok;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("not ok %d ", ++ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n1..%d\n", ntest);
	exit(1);
}

/* ---- the profile ----------------------------------------------------------------------- */
static int build(void **img, size_t *size)
{
	uint64_t shx[2] = { ROWS, COLS }, sha[2] = { 128, 128 }, shb[2] = { 128, 512 };
	struct nd_tensor *x, *y, *a, *bm, *c;
	struct nd_tile *t, *u, *st, *mv, *ps, *o;
	struct nd_builder *b;
	int ret, k;

	if (nd_builder_new("exp_matmul", &b))
		return -ENOMEM;
	x = nd_input(b, "x", ND_FP32, 2, shx);
	a = nd_input(b, "a", ND_FP32, 2, sha);
	bm = nd_input(b, "b", ND_FP32, 2, shb);
	y = nd_output(b, "y", ND_FP32, 2, shx);
	c = nd_output(b, "c", ND_FP32, 2, shb);
	t = nd_sbuf(b, "t", ND_FP32, ROWS, COLS);
	u = nd_sbuf(b, "u", ND_FP32, ROWS, COLS);
	st = nd_sbuf(b, "st", ND_FP32, 128, 128);
	mv = nd_sbuf(b, "mv", ND_FP32, 128, 512);
	ps = nd_psum(b, "ps", ND_FP32, 128, 512);
	o = nd_sbuf(b, "o", ND_FP32, 128, 512);
	nd_scope_push(b, "exp");
	nd_load(b, 0, nd_whole(t), nd_hbm_rows(x, 0, 0));
	nd_activate(b, nd_whole(u), nd_whole(t), ND_ACT_EXP, 1.0f, 0.0f);
	nd_tensor_scalar(b, ND_VECTOR, nd_whole(t), nd_whole(u), ND_MUL, 2.0f, 0);
	nd_tensor_scalar(b, ND_GPSIMD, nd_whole(u), nd_whole(t), ND_ADD, 1.0f, 0);
	nd_store(b, 8, nd_hbm_rows(y, 0, 0), nd_whole(u));
	nd_scope_pop(b);
	nd_scope_push(b, "mm");
	nd_load(b, 1, nd_whole(st), nd_hbm_rows(a, 0, 0));
	nd_load(b, 2, nd_whole(mv), nd_hbm_rows(bm, 0, 0));
	for (k = 0; k < 4; k++) {
		mm_line = __LINE__ + 1;
		ret = nd_matmul(b, nd_whole(ps), nd_whole(st), nd_whole(mv), k > 0);
		if (ret)
			break;
	}
	nd_copy(b, ND_VECTOR, nd_whole(o), nd_whole(ps));
	nd_store(b, 9, nd_hbm_rows(c, 0, 0), nd_whole(o));
	nd_scope_pop(b);
	ret = nd_builder_finish(b, img, size);
	if (ret)
		fprintf(stderr, "# builder: %s\n", nd_builder_error(b));
	nd_builder_free(b);
	return ret;
}

static int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f)
		return -errno;
	if (fwrite(buf, 1, len, f) != len)
		ret = -EIO;
	if (fclose(f))
		ret = -EIO;
	return ret;
}

/* An executor event as the trace record the device would write for it. */
static void ev_record(const struct nd_event *e, uint32_t exec, struct vneuron_trace_record *r)
{
	memset(r, 0, sizeof(*r));
	r->pc = e->pc;
	r->exec_seq = exec;
	r->model_start_ps = e->start_ps;
	r->model_end_ps = e->end_ps;
	r->elements = (uint32_t)e->elements;
	r->bytes = (uint32_t)e->bytes;
	r->flops = e->flops;
	r->sem_wait = e->wait_sem == ~0u ? VNEURON_TRACE_NO_SEM : (uint16_t)e->wait_sem;
	r->sem_value = e->wait_value;
	r->sem_signal = VNEURON_TRACE_NO_SEM;
	if (e->stream < 4) {
		r->kind = VNEURON_TRACE_INSN;
		r->engine = (uint8_t)e->stream;
		r->opcode = (uint16_t)e->opcode;
	} else if (e->stream == VNEF_STREAM_CC) {
		/* uapi/vneuron_trace.h: what a CC record holds */
		r->kind = VNEURON_TRACE_CC;
		r->engine = VNEURON_TRACE_ENGINE_CC;
		r->opcode = (uint16_t)e->opcode;
		r->flops = 0;
		r->count = e->cc_latest_ps;
		r->elements = e->cc_members;
		r->dma_queue = (uint16_t)e->cc_rank;
		r->dma_desc = (uint16_t)e->cc_last;
	} else {
		r->kind = VNEURON_TRACE_DMA;
		r->engine = VNEURON_TRACE_ENGINE_DMA;
		r->dma_queue = (uint16_t)(e->stream - 4);
		r->dma_desc = (uint16_t)e->pc;
	}
}

/* Expected figures of worker 0, from the events themselves. */
struct expect {
	size_t ls, mm, per_stream[VNEF_STREAMS], at_line, nev;
};

/* The device fault worker 1 reports (FAULT_TEXT is how the viewer names it). */
#define FAULT_PARTITION	5
#define FAULT_TEXT	"operand outside PSUM partition 5 (offset 2048)"

/*
 * Runs the image on the host; writes its events as a profile of `workers` workers (the
 * same events each), repeated `reps` times as successive executions. With fault, worker
 * 1's ring 0 also has an ERROR record: VectorE's first instruction faulted on PSUM.
 */
static int capture(const void *img, size_t size, const char *path, unsigned int workers,
		   unsigned int reps, struct expect *ex, int fault)
{
	size_t bx = (size_t)ROWS * COLS * 4, nev, i;
	float *x = calloc(1, bx), *y = calloc(1, bx), *a = calloc(128 * 128, 4);
	float *bm = calloc(128 * 512, 4), *c = calloc(128 * 512, 4);
	struct nd_host_tensor ht[5] = { { "x", x, bx }, { "y", y, bx }, { "a", a, 128 * 128 * 4 },
					{ "b", bm, 128 * 512 * 4 }, { "c", c, 128 * 512 * 4 } };
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_program prog = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32 };
	struct vneuron_trace_record *recs = NULL;
	const struct nd_event *ev;
	struct nd_run_result res;
	struct nd_error err;
	struct vntf_writer *w = NULL;
	struct nd_host *h = NULL;
	struct vnp_prog p;
	char perr[256];
	unsigned int s, wk;
	int ret;

	ret = -ENOMEM;
	if (!x || !y || !a || !bm || !c)
		goto out;
	ret = nd_host_open(NULL, &h, &err);
	if (ret)
		goto out;
	nd_host_record(h, 1);
	ret = nd_host_run(h, img, size, ht, 5, 0, &res);
	if (ret) {
		fprintf(stderr, "# host run: %s\n", nd_host_error(h));
		goto out;
	}
	ev = nd_host_events(h, &nev);
	if (ex) {
		memset(ex, 0, sizeof(*ex));
		if (vnp_prog_load(&p, img, size, perr, sizeof(perr))) {
			fprintf(stderr, "# %s\n", perr);
			ret = -EINVAL;
			goto out;
		}
		for (i = 0; i < nev; i++) {
			const struct vnp_loc *l = vnp_prog_loc(&p, ev[i].stream, ev[i].pc);

			ex->per_stream[ev[i].stream]++;
			ex->ls += ev[i].stream == 0 && ev[i].opcode == VNEF_OP_LOAD_STATIONARY;
			ex->mm += ev[i].stream == 0 && ev[i].opcode == VNEF_OP_MULTIPLY_MOVING;
			if (l && l->line != VNP_NONE && p.lines[l->line].line == (uint32_t)mm_line &&
			    strstr(vnp_prog_str(&p, p.lines[l->line].file_off), "browser_test.c"))
				ex->at_line++;
		}
		ex->nev = nev;
		vnp_prog_free(&p);
	}
	recs = calloc(nev ? nev : 1, sizeof(*recs));
	if (!recs) {
		ret = -ENOMEM;
		goto out;
	}
	vnp_sha256(img, size, prog.hash);
	prog.image_size = size;
	snprintf(prog.name, sizeof(prog.name), "exp_matmul");
	ret = vntf_writer_open(&w, path);
	if (ret)
		goto out;
	ret = vntf_write_model(w, &vn_model_trn1) ?: vntf_write_clock(w, &clk) ?:
	      vntf_write_program(w, &prog, NULL, 0);
	for (wk = 0; wk < workers && !ret; wk++)
		for (s = 0; s < VNEF_STREAMS && !ret; s++) {
			struct vntf_worker vw = { .stream = wk * VNEF_STREAMS + s, .worker = wk,
						  .nr_workers = workers, .ring_size = 1 << 20,
						  .engine = s < 4 ? s : s == VNEF_STREAM_CC ?
							    VNEURON_TRACE_ENGINE_CC :
							    VNEURON_TRACE_ENGINE_DMA };

			ret = vntf_write_worker(w, &vw);
		}
	for (wk = 0; wk < workers && !ret; wk++) {
		unsigned int rep;

		for (rep = 0; rep < reps && !ret; rep++) {
			for (i = 0; i < nev; i++)
				ev_record(&ev[i], rep, &recs[i]);
			for (i = 0; i < nev && !ret; i++)
				ret = vntf_write_records(w, wk * VNEF_STREAMS + ev[i].stream,
							 &recs[i], 1);
		}
		if (fault && wk == 1 && !ret) {
			struct vneuron_trace_record fr = {
				.kind = VNEURON_TRACE_ERROR, .engine = VNEURON_ENGINE_VECTOR,
				.opcode = VNEURON_REASON_FAULT_PSUM, .elements = VNEF_MEM_PSUM,
				.sem_value = FAULT_PARTITION, .count = 2048,
				.sem_wait = VNEURON_TRACE_NO_SEM, .sem_signal = VNEURON_TRACE_NO_SEM,
			};

			for (i = 0; i < nev; i++)
				if (ev[i].stream == VNEURON_ENGINE_VECTOR) {
					fr.model_start_ps = fr.model_end_ps = ev[i].start_ps;
					break;
				}
			ret = vntf_write_records(w, wk * VNEF_STREAMS, &fr, 1);
		}
	}
	if (ret)
		vntf_writer_abort(w);
	else
		ret = vntf_writer_finish(w, 1);
out:
	if (h)
		nd_host_close(h);
	free(recs);
	free(x);
	free(y);
	free(a);
	free(bm);
	free(c);
	return ret;
}

/* ---- collectives: 4 workers of one communicator ---------------------------------------- */
#define CC_RANKS	4
#define CC_ROWS		256		/* two buckets of 128 rows */
#define CC_COLS		512

/* Each bucket: load, scale on VectorE, store the gradient, all-reduce it. */
static int cc_build(void **img, size_t *size)
{
	uint64_t sh[2] = { CC_ROWS, CC_COLS };
	struct nd_tensor *x, *g, *r;
	struct nd_tile *t, *u;
	struct nd_builder *b;
	unsigned int k;
	int ret;

	if (nd_builder_new("ddp", &b))
		return -ENOMEM;
	x = nd_input(b, "x", ND_FP32, 2, sh);
	g = nd_output(b, "grad", ND_FP32, 2, sh);
	r = nd_output(b, "reduced", ND_FP32, 2, sh);
	t = nd_sbuf(b, "t", ND_FP32, 128, CC_COLS);
	u = nd_sbuf(b, "u", ND_FP32, 128, CC_COLS);
	for (k = 0; k < 2; k++) {
		nd_scope_push(b, "bucket");
		nd_load(b, k, nd_whole(t), nd_hbm_rows(x, k * 128, 0));
		nd_tensor_scalar(b, ND_VECTOR, nd_whole(u), nd_whole(t), ND_MUL, 2.0f, 0);
		nd_store(b, 8 + k, nd_hbm_rows(g, k * 128, 0), nd_whole(u));
		nd_scope_pop(b);
		nd_scope_push(b, "allreduce");
		nd_collective(b, &(struct nd_cc){ .opcode = VNEF_CC_ALL_REDUCE, .src = g, .dst = r,
						  .src_offset = k * 128 * CC_COLS,
						  .dst_offset = k * 128 * CC_COLS,
						  .count = 128 * CC_COLS, .reduce = ND_ADD });
		nd_scope_pop(b);
	}
	ret = nd_builder_finish(b, img, size);
	if (ret)
		fprintf(stderr, "# builder: %s\n", nd_builder_error(b));
	nd_builder_free(b);
	return ret;
}

struct cc_rank {
	struct nd_host *h;
	const void *img;
	size_t size;
	float *x, *g, *r;
	int ret;
};

static void *cc_rank_run(void *arg)
{
	struct cc_rank *k = arg;
	size_t bytes = (size_t)CC_ROWS * CC_COLS * 4;
	struct nd_host_tensor ht[3] = { { "x", k->x, bytes }, { "grad", k->g, bytes },
					{ "reduced", k->r, bytes } };
	struct nd_run_result res;

	k->ret = nd_host_run(k->h, k->img, k->size, ht, 3, 0, &res);
	if (k->ret)
		fprintf(stderr, "# rank run: %s\n", nd_host_error(k->h));
	return NULL;
}

/*
 * Runs the image as CC_RANKS workers of one host communicator (2 per device, as the
 * module's default), each rank on its own thread, and writes their events as one
 * profile: a worker per rank, device r / 2, core r % 2. *ncc: collectives a worker ran.
 */
static int cc_capture(const void *img, size_t size, const char *path, size_t *ncc)
{
	static const uint32_t devs[CC_RANKS] = { 0, 0, 1, 1 };
	size_t bytes = (size_t)CC_ROWS * CC_COLS * 4, nev, i;
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_program prog = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32 };
	struct cc_rank rk[CC_RANKS];
	pthread_t th[CC_RANKS];
	struct nd_host_comm *comm = NULL;
	struct vntf_writer *w = NULL;
	struct nd_error err;
	unsigned int r, s;
	int ret;

	memset(rk, 0, sizeof(rk));
	*ncc = 0;
	ret = nd_host_comm_new(CC_RANKS, devs, &comm);
	for (r = 0; r < CC_RANKS && !ret; r++) {
		rk[r].img = img;
		rk[r].size = size;
		rk[r].x = calloc(1, bytes);
		rk[r].g = calloc(1, bytes);
		rk[r].r = calloc(1, bytes);
		if (!rk[r].x || !rk[r].g || !rk[r].r) {
			ret = -ENOMEM;
			break;
		}
		for (i = 0; i < bytes / 4; i++)
			rk[r].x[i] = (float)(r + 1);
		ret = nd_host_open(NULL, &rk[r].h, &err) ?:
		      nd_host_set_comm(rk[r].h, comm, r);
		if (!ret)
			nd_host_record(rk[r].h, 1);
	}
	for (r = 0; r < CC_RANKS && !ret; r++)
		ret = pthread_create(&th[r], NULL, cc_rank_run, &rk[r]);
	for (s = 0; s < r; s++) {
		pthread_join(th[s], NULL);
		if (!ret)
			ret = rk[s].ret;
	}
	/* the reduction of the ranks' 2 x (r + 1) */
	if (!ret && rk[0].r[0] != 20.0f) {
		fprintf(stderr, "# all-reduce gave %g, not 20\n", rk[0].r[0]);
		ret = -EIO;
	}
	if (!ret) {
		vnp_sha256(img, size, prog.hash);
		prog.image_size = size;
		snprintf(prog.name, sizeof(prog.name), "ddp");
		ret = vntf_writer_open(&w, path);
	}
	if (!ret)
		ret = vntf_write_model(w, &vn_model_trn1) ?: vntf_write_clock(w, &clk) ?:
		      vntf_write_program(w, &prog, NULL, 0);
	for (r = 0; r < CC_RANKS && !ret; r++)
		for (s = 0; s < VNEF_STREAMS && !ret; s++) {
			struct vntf_worker vw = { .stream = r * VNEF_STREAMS + s, .worker = r,
						  .nr_workers = CC_RANKS, .device = devs[r],
						  .core = r % 2, .ring_size = 1 << 20,
						  .engine = s < 4 ? s : s == VNEF_STREAM_CC ?
							    VNEURON_TRACE_ENGINE_CC :
							    VNEURON_TRACE_ENGINE_DMA };

			ret = vntf_write_worker(w, &vw);
		}
	for (r = 0; r < CC_RANKS && !ret; r++) {
		const struct nd_event *ev = nd_host_events(rk[r].h, &nev);

		for (i = 0; i < nev && !ret; i++) {
			struct vneuron_trace_record rec;

			ev_record(&ev[i], 0, &rec);
			ret = vntf_write_records(w, r * VNEF_STREAMS + ev[i].stream, &rec, 1);
			if (!r && ev[i].stream == VNEF_STREAM_CC)
				++*ncc;
		}
	}
	if (w) {
		if (ret)
			vntf_writer_abort(w);
		else
			ret = vntf_writer_finish(w, 1);
	}
	for (r = 0; r < CC_RANKS; r++) {
		if (rk[r].h)
			nd_host_close(rk[r].h);
		free(rk[r].x);
		free(rk[r].g);
		free(rk[r].r);
	}
	nd_host_comm_free(comm);
	return ret;
}

/* dir/name's contents, NUL-terminated (malloc()ed), or NULL. */
static char *slurp(const char *dir, const char *name)
{
	char path[320], *b = NULL;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && (b = calloc(1, n + 1))) {
		rewind(f);
		if (fread(b, 1, n, f) != (size_t)n) {
			free(b);
			b = NULL;
		}
	}
	if (f)
		fclose(f);
	return b;
}

static int run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- an application's profile: host rows (docs/viewer.md, "Host rows") ---------------- */

/*
 * Range names by id. The last is an attacker's: the page must show it as text (it
 * sets window.vnXss if it ever runs as HTML).
 */
#define XSS_NAME	"<img src=x onerror=window.vnXss=1>"
static const char *const app_names[] = { "step 1", "layer fc1", "layer fc2", XSS_NAME, "tick" };

struct app_log {
	struct vneuron_trace_record r[64];
	size_t n;
	uint64_t t;		/* host ns of the next call */
};

/* A call of thread tid of process pid leaving its range depth at depth, 20 ns long. */
static struct vneuron_trace_record *app_call(struct app_log *l, unsigned int call, uint32_t pid,
					     uint32_t tid, uint32_t depth)
{
	struct vneuron_trace_record *r = &l->r[l->n++];

	memset(r, 0, sizeof(*r));
	r->kind = VNEURON_TRACE_MARKER;
	r->engine = VNEURON_TRACE_ENGINE_CORE;
	r->opcode = (uint16_t)call;
	r->pc = (uint32_t)l->n;
	r->elements = pid;
	r->model_start_ps = tid;
	r->dma_desc = (uint16_t)depth;
	r->sem_wait = VNEURON_TRACE_NO_SEM;
	r->sem_signal = VNEURON_TRACE_NO_SEM;
	r->host_ns = l->t;
	r->count = 20;
	l->t += 100;
	return r;
}

static void app_range(struct app_log *l, uint32_t pid, uint32_t tid, uint32_t depth,
		      uint32_t name)
{
	app_call(l, name == UINT32_MAX ? ND_API_RANGE_POP : ND_API_RANGE_PUSH, pid, tid,
		 depth)->sem_value = name == UINT32_MAX ? 0 : name;
}

/*
 * An EXEC call launching execution seq of core (its host span [*lo, *hi) of span_ns from
 * the call), then its WAIT.
 */
static void app_launch(struct app_log *l, uint32_t pid, uint32_t tid, uint32_t depth,
		       unsigned int core, uint32_t seq, uint64_t span_ns, uint64_t *lo,
		       uint64_t *hi)
{
	static uint32_t exec_id = 1;
	struct vneuron_trace_record *r = app_call(l, ND_API_EXEC, pid, tid, depth);

	r->sem_value = exec_id;
	r->dma_queue = (uint16_t)core;
	*lo = l->t;
	*hi = l->t + span_ns;
	l->t += span_ns + 100;
	r = app_call(l, ND_API_WAIT, pid, tid, depth);
	r->sem_value = exec_id++;
	r->dma_queue = (uint16_t)core;
	r->exec_seq = seq;
}

/*
 * The image's events as an application's profile on the host clock: two workers (core
 * 0 and 1); process 4242 thread 7 runs step 1 > layer fc1 (core 0 exec 0) and step 1 >
 * layer fc2 (core 0 exec 1) and marks tick; its thread 8, in the attacker's range, core
 * 1 exec 0; process 5151 thread 7, in step 1, core 0 exec 2. Each execution's host span
 * is its modeled span, so the mapping is exact up to host_ns's granularity.
 */
static int app_capture(const void *img, size_t size, const char *path)
{
	static const struct { uint32_t core, seq; } runs[] = { { 0, 0 }, { 0, 1 }, { 1, 0 },
							      { 0, 2 } };
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_program prog = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32 };
	struct vneuron_trace_record rec;
	uint64_t lo[4], hi[4], span_ps = 0, span;
	struct app_log *l = calloc(1, sizeof(*l));
	size_t bx = (size_t)ROWS * COLS * 4;
	float *x = calloc(1, bx), *y = calloc(1, bx), *a = calloc(128 * 128, 4);
	float *bm = calloc(128 * 512, 4), *c = calloc(128 * 512, 4);
	struct nd_host_tensor ht[5] = { { "x", x, bx }, { "y", y, bx }, { "a", a, 128 * 128 * 4 },
					{ "b", bm, 128 * 512 * 4 }, { "c", c, 128 * 512 * 4 } };
	struct vntf_writer *w = NULL;
	const struct nd_event *ev;
	struct nd_run_result res;
	struct nd_host *h = NULL;
	struct nd_error err;
	size_t nev, i, k;
	unsigned int s, wk;
	int ret = -ENOMEM;

	if (!l || !x || !y || !a || !bm || !c)
		goto out;
	ret = nd_host_open(NULL, &h, &err);
	if (ret)
		goto out;
	nd_host_record(h, 1);
	ret = nd_host_run(h, img, size, ht, 5, 0, &res);
	if (ret) {
		fprintf(stderr, "# host run: %s\n", nd_host_error(h));
		goto out;
	}
	ev = nd_host_events(h, &nev);
	for (i = 0; i < nev; i++)
		span_ps = ev[i].end_ps > span_ps ? ev[i].end_ps : span_ps;
	span = span_ps / 1000 + 1;
	l->t = 1000000;
	app_range(l, 4242, 7, 1, 0);
	app_range(l, 4242, 7, 2, 1);
	app_launch(l, 4242, 7, 2, 0, 0, span, &lo[0], &hi[0]);
	app_range(l, 4242, 7, 1, UINT32_MAX);
	app_range(l, 4242, 7, 2, 2);
	app_launch(l, 4242, 7, 2, 0, 1, span, &lo[1], &hi[1]);
	app_range(l, 4242, 7, 1, UINT32_MAX);
	app_call(l, ND_API_MARK, 4242, 7, 1)->sem_value = 4;
	app_range(l, 4242, 7, 0, UINT32_MAX);
	app_range(l, 4242, 8, 1, 3);
	app_launch(l, 4242, 8, 1, 1, 0, span, &lo[2], &hi[2]);
	app_range(l, 4242, 8, 0, UINT32_MAX);
	app_range(l, 5151, 7, 1, 0);
	app_launch(l, 5151, 7, 1, 0, 2, span, &lo[3], &hi[3]);
	app_range(l, 5151, 7, 0, UINT32_MAX);

	vnp_sha256(img, size, prog.hash);
	prog.image_size = size;
	snprintf(prog.name, sizeof(prog.name), "exp_matmul");
	ret = vntf_writer_open(&w, path);
	if (ret)
		goto out;
	ret = vntf_write_model(w, &vn_model_trn1) ?: vntf_write_clock(w, &clk) ?:
	      vntf_write_program(w, &prog, NULL, 0);
	for (wk = 0; wk < 2 && !ret; wk++)
		for (s = 0; s < VNEF_STREAMS && !ret; s++) {
			struct vntf_worker vw = { .stream = wk * VNEF_STREAMS + s, .worker = wk,
						  .nr_workers = 2, .core = wk,
						  .ring_size = 1 << 20,
						  .engine = s < 4 ? s : s == VNEF_STREAM_CC ?
							    VNEURON_TRACE_ENGINE_CC :
							    VNEURON_TRACE_ENGINE_DMA };

			ret = vntf_write_worker(w, &vw);
		}
	for (k = 0; k < ARRAY_SIZE(app_names) && !ret; k++)
		ret = vntf_write_string(w, app_names[k], strlen(app_names[k]));
	for (k = 0; k < ARRAY_SIZE(runs) && !ret; k++) {
		uint32_t st = runs[k].core * VNEF_STREAMS;

		for (i = 0; i < nev && !ret; i++) {
			ev_record(&ev[i], runs[k].seq, &rec);
			ret = vntf_write_records(w, st + ev[i].stream, &rec, 1);
		}
		memset(&rec, 0, sizeof(rec));
		rec.kind = VNEURON_TRACE_EXEC_START;
		rec.engine = VNEURON_TRACE_ENGINE_CORE;
		rec.exec_seq = runs[k].seq;
		rec.sem_wait = VNEURON_TRACE_NO_SEM;
		rec.sem_signal = VNEURON_TRACE_NO_SEM;
		rec.host_ns = lo[k];
		if (!ret)
			ret = vntf_write_records(w, st, &rec, 1);
		rec.kind = VNEURON_TRACE_EXEC_END;
		rec.model_start_ps = span_ps;
		rec.model_end_ps = span_ps;
		rec.host_ns = hi[k];
		if (!ret)
			ret = vntf_write_records(w, st, &rec, 1);
	}
	if (!ret)
		ret = vntf_write_records(w, 0, l->r, l->n);
	if (ret)
		vntf_writer_abort(w);
	else
		ret = vntf_writer_finish(w, 1);
out:
	if (h)
		nd_host_close(h);
	free(l);
	free(x);
	free(y);
	free(a);
	free(bm);
	free(c);
	return ret;
}

/* ---- the browser ----------------------------------------------------------------------- */
static pid_t browser;
static int to_fd = -1, from_fd = -1;
static char *inbuf;
static size_t inlen, incap;
static int next_id = 1;
static char session[128];

static int cdp_start(void)
{
	int cmd[2], rep[2];
	char udd[300];

	if (access(CHROMIUM, X_OK)) {
		fprintf(stderr, "# %s not found: run 'make setup' (it installs Debian's chromium)\n",
			CHROMIUM);
		return -1;
	}
	snprintf(udd, sizeof(udd), "--user-data-dir=%s/chromium-profile", dir);
	if (pipe(cmd) || pipe(rep))
		return -1;
	browser = fork();
	if (browser < 0)
		return -1;
	if (!browser) {
		int devnull = open("/dev/null", O_WRONLY);

		/* fd 3: commands to the browser, fd 4: its replies */
		if (dup2(cmd[0], 10) < 0 || dup2(rep[1], 11) < 0 || dup2(10, 3) < 0 ||
		    dup2(11, 4) < 0)
			_exit(127);
		if (devnull >= 0) {
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		close(10);
		close(11);
		execl(CHROMIUM, "chromium", "--headless", "--no-sandbox", "--disable-gpu",
		      "--disable-quic", "--no-first-run", "--disable-background-networking",
		      "--disable-component-update", "--disable-sync", "--remote-debugging-pipe",
		      "--allow-file-access-from-files", "--hide-scrollbars", udd, (char *)NULL);
		_exit(127);
	}
	close(cmd[0]);
	close(rep[1]);
	to_fd = cmd[1];
	from_fd = rep[0];
	return 0;
}

static void cdp_stop(void)
{
	int st;

	if (browser <= 0)
		return;
	close(to_fd);
	close(from_fd);
	kill(browser, SIGTERM);
	waitpid(browser, &st, 0);
	browser = 0;
}

/* Sends one command; returns the reply (malloc()ed) or NULL. */
static char *cdp(const char *method, const char *params_fmt, ...)
{
	char *params = NULL, *msg = NULL, prefix[32];
	int id = next_id++, n;
	va_list ap;

	va_start(ap, params_fmt);
	if (vasprintf(&params, params_fmt, ap) < 0)
		params = NULL;
	va_end(ap);
	if (!params)
		return NULL;
	n = asprintf(&msg, "{\"id\":%d,%s%s%s\"method\":\"%s\",\"params\":%s}", id,
		     session[0] ? "\"sessionId\":\"" : "", session, session[0] ? "\"," : "",
		     method, params);
	free(params);
	if (n < 0)
		return NULL;
	if (write(to_fd, msg, (size_t)n + 1) != n + 1) {	/* with its NUL */
		free(msg);
		return NULL;
	}
	free(msg);
	snprintf(prefix, sizeof(prefix), "{\"id\":%d,", id);
	for (;;) {
		char *z = inlen ? memchr(inbuf, 0, inlen) : NULL;

		if (z) {
			size_t len = (size_t)(z - inbuf) + 1;
			char *m = NULL;

			if (!strncmp(inbuf, prefix, strlen(prefix)))
				m = strdup(inbuf);
			memmove(inbuf, inbuf + len, inlen - len);
			inlen -= len;
			if (m)
				return m;
			continue;
		}
		if (inlen + 65536 > incap) {
			char *nb = realloc(inbuf, incap * 2 + 65536);

			if (!nb)
				return NULL;
			inbuf = nb;
			incap = incap * 2 + 65536;
		}
		struct pollfd pf = { .fd = from_fd, .events = POLLIN };
		ssize_t r;

		/* a browser that stops answering fails the test instead of hanging it */
		if (poll(&pf, 1, 120000) <= 0) {
			fprintf(stderr, "# chromium did not answer %s within 120 s\n", method);
			return NULL;
		}
		r = read(from_fd, inbuf + inlen, incap - inlen);
		if (r <= 0)
			return NULL;
		inlen += (size_t)r;
	}
}

/* A JSON string value after "key":" in s, unescaped into a malloc()ed string. */
static char *json_str(const char *s, const char *key)
{
	char pat[64], *out, *q;
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	p = s ? strstr(s, pat) : NULL;
	if (!p)
		return NULL;
	p += strlen(pat);
	out = q = malloc(strlen(p) + 1);
	if (!out)
		return NULL;
	while (*p && *p != '"') {
		if (*p == '\\' && p[1]) {
			p++;
			switch (*p) {
			case 'n':
				*q++ = '\n';
				break;
			case 't':
				*q++ = '\t';
				break;
			case 'u':
				if (strlen(p) >= 5) {
					unsigned int c = 0;

					sscanf(p + 1, "%4x", &c);
					*q++ = c < 128 ? (char)c : '?';
					p += 4;
				}
				break;
			default:
				*q++ = *p;
			}
			p++;
			continue;
		}
		*q++ = *p++;
	}
	*q = 0;
	return out;
}

/* Evaluates expr in the page as String(expr); malloc()ed text or NULL. */
static char *eval(const char *expr)
{
	char *r, *v, *esc, *q;
	const char *p;

	esc = malloc(strlen(expr) * 2 + 1);
	if (!esc)
		return NULL;
	for (p = expr, q = esc; *p; p++) {
		if (*p == '"' || *p == '\\')
			*q++ = '\\';
		*q++ = *p == '\n' ? ' ' : *p;
	}
	*q = 0;
	r = cdp("Runtime.evaluate", "{\"expression\":\"String(%s)\",\"returnByValue\":true,"
		"\"awaitPromise\":true}", esc);
	free(esc);
	if (r && strstr(r, "\"exceptionDetails\""))
		fprintf(stderr, "# exception in %.200s: %.300s\n", expr, r);
	v = json_str(r, "value");
	free(r);
	return v;
}

static long eval_long(const char *expr)
{
	char *v = eval(expr);
	long x = v ? strtol(v, NULL, 10) : -1;

	free(v);
	return x;
}

static double eval_double(const char *expr)
{
	char *v = eval(expr);
	double x = v ? strtod(v, NULL) : -1;

	free(v);
	return x;
}

static void mouse(const char *type, double x, double y, int buttons)
{
	free(cdp("Input.dispatchMouseEvent", "{\"type\":\"%s\",\"x\":%.1f,\"y\":%.1f,"
		 "\"button\":\"%s\",\"buttons\":%d,\"clickCount\":1}", type, x, y,
		 buttons || strcmp(type, "mouseMoved") ? "left" : "none", buttons));
}

static void click(double x, double y)
{
	mouse("mouseMoved", x, y, 0);
	mouse("mousePressed", x, y, 1);
	mouse("mouseReleased", x, y, 0);
}

/* Clicks the middle of the element a selector names. */
static int click_el(const char *sel)
{
	char expr[512];
	double x, y;

	snprintf(expr, sizeof(expr), "(()=>{const r=document.querySelector('%s')"
		 ".getBoundingClientRect();return r.left+r.width/2;})()", sel);
	x = eval_double(expr);
	snprintf(expr, sizeof(expr), "(()=>{const r=document.querySelector('%s')"
		 ".getBoundingClientRect();return r.top+r.height/2;})()", sel);
	y = eval_double(expr);
	if (x < 0 || y < 0)
		return -1;
	click(x, y);
	return 0;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int screenshot(const char *name)
{
	char *r = cdp("Page.captureScreenshot", "{\"format\":\"png\"}"), *d, path[256];
	size_t n, i, o = 0;
	unsigned char *png;
	unsigned int acc = 0, bits = 0;
	int ret;

	d = json_str(r, "data");
	free(r);
	if (!d)
		return -1;
	n = strlen(d);
	png = malloc(n);
	if (!png) {
		free(d);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const char *c = strchr(b64, d[i]);

		if (!c || !d[i])
			continue;	/* padding */
		acc = acc << 6 | (unsigned int)(c - b64);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			png[o++] = (unsigned char)(acc >> bits);
		}
	}
	snprintf(path, sizeof(path), RESULTS "/browser-%s.png", name);
	ret = write_file(path, png, o);
	printf("# screenshot %s (%zu bytes)\n", path, o);
	free(png);
	free(d);
	return ret;
}

static int wait_ready(int seconds)
{
	int i;

	for (i = 0; i < seconds * 10; i++) {
		if (eval_long("document.body && document.body.dataset.ready === '1' ? 1 : 0") == 1)
			return 0;
		usleep(100000);
	}
	return -1;
}

static int open_page(const char *url)
{
	char *r;

	r = cdp("Page.navigate", "{\"url\":\"%s\"}", url);
	if (!r || strstr(r, "errorText")) {
		fprintf(stderr, "# navigate %s: %s\n", url, r ? r : "no reply");
		free(r);
		return -1;
	}
	free(r);
	return wait_ready(120);
}

/* Lane index of a row name in the current tab, or -1. */
static long lane_of(const char *name)
{
	char expr[256];

	snprintf(expr, sizeof(expr), "vnViewer.lanes().findIndex(l=>l.name==='%s')", name);
	return eval_long(expr);
}

static long row_count(const char *name)
{
	char expr[320];

	snprintf(expr, sizeof(expr), "(()=>{const e=[...document.querySelectorAll('.rowlabel')]"
		 ".find(d=>d.dataset.name==='%s');return e?e.dataset.count:-1;})()", name);
	return eval_long(expr);
}

static void type_search(const char *text)
{
	free(eval("(()=>{const s=document.getElementById('search');s.value='';"
		  "s.dispatchEvent(new Event('input'));return 1;})()"));
	click_el("#search");
	free(cdp("Input.insertText", "{\"text\":\"%s\"}", text));
}

/* Attaches to a fresh page of the browser started by cdp_start(). */
static void attach(void)
{
	char *s = cdp("Target.createTarget", "{\"url\":\"about:blank\"}");
	char *tid = json_str(s, "targetId"), *r;

	free(s);
	if (!tid)
		die("chromium did not answer over the pipe");
	r = cdp("Target.attachToTarget", "{\"targetId\":\"%s\",\"flatten\":true}", tid);
	free(tid);
	s = json_str(r, "sessionId");
	free(r);
	if (!s)
		die("attaching to the page");
	snprintf(session, sizeof(session), "%s", s);
	free(s);
	free(cdp("Page.enable", "{}"));
	free(cdp("Emulation.setDeviceMetricsOverride", "{\"width\":1500,\"height\":720,"
		 "\"deviceScaleFactor\":1,\"mobile\":false}"));
}

/* The collectives' page: the CC-core rows, a collective's hover text, the summary. */
/*
 * `view --serve --port 0` (with --web-detail N if detail) in a child: its pid, its
 * stdout in *pf, the line naming its URL in line ("" if none).
 */
static pid_t serve_start(const char *prog, const char *prof, const char *detail, FILE **pf,
			 char *line, size_t n)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		dup2(fds[1], 1);
		close(fds[0]);
		if (detail)
			execl(PROFILER, "vneuron-profile", "view", "-n", prog, "-s", prof, "--serve",
			      "--port", "0", "--web-detail", detail, (char *)NULL);
		else
			execl(PROFILER, "vneuron-profile", "view", "-n", prog, "-s", prof, "--serve",
			      "--port", "0", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	*pf = fdopen(fds[0], "r");
	if (!*pf || !fgets(line, (int)n, *pf))
		line[0] = 0;
	return pid;
}

/* The summary level of a profile past --web-detail: tests/browser/lod.c. */
#include "lod.c"

static void cc_checks(void)
{
	char prog[300], prof[300], html[300], url[400], expr[512], *s;
	size_t ncc = 0, size = 0;
	void *img = NULL;
	double x, y;
	long k, r;

	snprintf(prog, sizeof(prog), "%s/ddp.vnef", dir);
	snprintf(prof, sizeof(prof), "%s/ddp.vntf", dir);
	snprintf(html, sizeof(html), "%s/ddp.html", dir);
	if (cc_build(&img, &size) || write_file(prog, img, size) ||
	    cc_capture(img, size, prof, &ncc)) {
		tap(0, "collectives: the 4-worker profile");
		free(img);
		return;
	}
	free(img);
	tap(ncc == 2, "collectives: 4 workers ran %zu all-reduces each on the host backend", ncc);
	if (run(PROFILER " view -n %s -s %s -f html -o %s", prog, prof, html)) {
		tap(0, "vneuron-profile -f html of the 4 workers");
		return;
	}
	snprintf(url, sizeof(url), "file://%s", html);
	tap(open_page(url) == 0, "the collectives page loads");
	s = eval("[...document.querySelectorAll('.tab')].map(b=>b.textContent).join('|')");
	tap(s && !strcmp(s, "worker 0 core 0|worker 1 core 1|worker 2 core 0|worker 3 core 1|"
			 "Summary"), "a tab per worker: %s", s ? s : "?");
	free(s);
	/* each worker's tab has its CC-core row, last, with its collectives */
	for (r = 0, k = 0; r < CC_RANKS; r++) {
		snprintf(expr, sizeof(expr), ".tab[data-core=\"%ld\"]", r);
		click_el(expr);
		k += row_count("CC-core") == (long)ncc &&
		     lane_of("CC-core") == lane_of("DMA throughput") - 1;
	}
	tap(k == CC_RANKS, "every worker's tab has a CC-core row with its %zu collectives "
	    "(%ld of %d)", ncc, k, CC_RANKS);
	click_el(".tab[data-core=\"2\"]");
	k = lane_of("CC-core");
	snprintf(expr, sizeof(expr), "(()=>{const e=vnViewer.event(%ld,1),w=e.end-e.start;"
		 "vnViewer.setRange(Math.max(0,e.start-w),e.end+w);return e.op;})()", k);
	s = eval(expr);
	tap(s && !strcmp(s, "ALL_REDUCE"), "the CC-core row holds ALL_REDUCE: %s", s ? s : "?");
	free(s);
	snprintf(expr, sizeof(expr), "vnViewer.eventPoint(%ld,1).x", k);
	x = eval_double(expr);
	snprintf(expr, sizeof(expr), "vnViewer.eventPoint(%ld,1).y", k);
	y = eval_double(expr);
	mouse("mouseMoved", x, y, 0);
	s = eval("document.getElementById('tip').hidden?'':document.getElementById('tip').textContent");
	tap(s && strstr(s, "ALL_REDUCE   (CC-core, worker 2 core 0)") &&
	    strstr(s, "bytes    262144 (this rank's input)   group 4 ranks   rank 2") &&
	    strstr(s, "last to arrive: rank ") && strstr(s, "algbw ") && strstr(s, "busbw ") &&
	    strstr(s, "B/s") && strstr(s, "scope    allreduce"),
	    "hovering a collective shows its group, rank, last rank, algbw and busbw");
	if (s)
		printf("# collective: %s\n", s);
	free(s);
	screenshot("collectives");
	free(eval("vnViewer.resetZoom()"));
	type_search("all_reduce");
	k = eval_long("document.getElementById('matches').dataset.here");
	r = eval_long("document.getElementById('matches').dataset.total");
	tap(k == (long)ncc && r == (long)ncc * CC_RANKS, "search all_reduce finds %ld here, "
	    "%ld in all tabs", k, r);
	type_search("");
	click_el("#tab-summary");
	s = eval("(()=>{const t=document.getElementById('cc-ops'),r=document.getElementById("
		 "'cc-ranks');return (t?t.innerText:'-')+'|'+(r?r.rows.length:0)+'|'+"
		 "(document.getElementById('collectives')||{}).textContent;})()");
	tap(s && strstr(s, "ALL_REDUCE\t2\t") && strstr(s, "busbw") && strstr(s, "GB/s") &&
	    strstr(s, "|5|Collectives (2)"), "Summary tab: collectives per op with algbw and "
	    "busbw, a row per rank");
	if (s)
		printf("# %s\n", strtok(s, "\n"));
	free(s);
	free(eval("document.getElementById('collectives').scrollIntoView()"));
	screenshot("collectives-summary");
}

/* Clicks the middle of the first range box vnViewer.ranges() finds with a JS test of r. */
static int click_range(const char *test)
{
	char expr[512], *s;
	double x, y;
	int ok;

	snprintf(expr, sizeof(expr), "(()=>{const r=vnViewer.ranges().find(r=>%s);"
		 "return r?r.x+','+r.y:'';})()", test);
	s = eval(expr);
	ok = s && sscanf(s, "%lf,%lf", &x, &y) == 2;
	free(s);
	if (!ok)
		return -1;
	click(x, y);
	return 0;
}

/*
 * The application's page on the host clock: host rows (a group per process, a row per
 * thread, the ranges nested), the executions row, range -> executions -> source lines
 * and back, and a range name that is HTML shown as text.
 */
static void app_checks(const char *prog, const void *img, size_t size)
{
	char prof[300], html[300], url[400], expr[512], *s;
	double x, y;
	long k;

	snprintf(prof, sizeof(prof), "%s/app.vntf", dir);
	snprintf(html, sizeof(html), "%s/app.html", dir);
	if (app_capture(img, size, prof)) {
		tap(0, "host rows: the application's profile");
		return;
	}
	if (run(PROFILER " view -n %s -s %s --clock host -f html -o %s", prog, prof, html)) {
		tap(0, "vneuron-profile --clock host -f html of the application");
		return;
	}
	snprintf(url, sizeof(url), "file://%s", html);
	if (open_page(url)) {
		tap(0, "the application's page loads");
		return;
	}
	/*
	 * the host rows: a group per process, a row per thread, then core 0's executions,
	 * then its layers (11 scopes and prefixes an execution)
	 */
	s = eval("vnViewer.lanes().filter(l=>l.kind!=='row'&&l.kind!=='tput'&&l.kind!=='pending')"
		 ".map(l=>l.name+':'+l.n).join('|')");
	tap(s && !strcmp(s, "process 4242:2|thread 7:3|thread 8:1|process 5151:1|thread 7:1|"
			 "executions:3|layers:33") &&
	    lane_of("executions") == lane_of("layers") - 1 &&
	    lane_of("layers") == lane_of("TensorE LoadStationary") - 1,
	    "host rows above the device rows: %s", s ? s : "?");
	free(s);
	/* the ranges' boxes with their names and nesting (thread, level, name < parent) */
	s = eval("vnViewer.ranges().map(r=>r.pid+'/'+r.tid+' '+r.level+' '+r.name+' < '+r.parent)"
		 ".join('|')");
	tap(s && !strcmp(s, "4242/7 0 step 1 < null|4242/7 1 layer fc1 < step 1|"
			 "4242/7 1 layer fc2 < step 1|4242/8 0 " XSS_NAME " < null|"
			 "5151/7 0 step 1 < null"), "range boxes nest: %s", s ? s : "?");
	free(s);
	s = eval("document.getElementById('clock').textContent");
	tap(s && strstr(s, "clock: host") &&
	    strstr(s, "mapping error median 1.000 ns, max 1.000 ns"),
	    "the page says the clock and its mapping error: %s", s ? s : "?");
	free(s);
	screenshot("app");

	/* range -> its executions: a real click on layer fc2's box, then on step 1's */
	k = click_range("r.name==='layer fc2'");
	s = eval("JSON.stringify(vnViewer.selection())");
	tap(!k && s && !strcmp(s, "{\"kind\":\"range\",\"execs\":[\"core 0 exec 1\"]}") &&
	    eval_long("document.querySelectorAll('#sel .selexec').length") == 1,
	    "clicking layer fc2 selects and lists its execution: %s", s ? s : "?");
	free(s);
	k = click_range("r.name==='step 1'&&r.pid===4242");
	s = eval("JSON.stringify(vnViewer.selection())");
	tap(!k && s && !strcmp(s, "{\"kind\":\"range\",\"execs\":[\"core 0 exec 0\","
			       "\"core 0 exec 1\"]}"),
	    "clicking step 1 selects the executions of the ranges inside it too: %s", s ? s : "?");
	free(s);
	screenshot("app-range");
	/* -> an execution: zoomed to it, its range stack and its source lines */
	click_el("#sel .selexec[data-exec=\"1\"]");
	s = eval("JSON.stringify(vnViewer.selection())+' '+[...document.querySelectorAll("
		 "'#sel .selrange')].map(b=>b.textContent).join(' > ')");
	tap(s && !strcmp(s, "{\"kind\":\"exec\",\"execs\":[\"core 0 exec 1\"]} step 1 > layer fc2"),
	    "an execution from the list: its range stack: %s", s ? s : "?");
	free(s);
	snprintf(expr, sizeof(expr), "(()=>{const x=vnViewer.data().host.xs[1],r=vnViewer.range();"
		 "return r[0]<=x.st&&x.en<=r[1]&&r[1]-r[0]<(x.en-x.st)*1.2?1:0;})()");
	tap(eval_long(expr) == 1, "the timeline zoomed to the execution");
	snprintf(expr, sizeof(expr), "(()=>{const b=[...document.querySelectorAll('#sel .selline')]"
		 ".find(b=>/browser_test\\.c:%d$/.test(b.textContent));return b?b.closest('tr')"
		 ".children[1].textContent:'-';})()", mm_line);
	s = eval(expr);
	tap(s && atoi(s) > 0, "its source lines: the matmul's line with %s entries", s ? s : "?");
	free(s);
	snprintf(expr, sizeof(expr), "(()=>{const b=[...document.querySelectorAll('#sel .selline')]"
		 ".find(b=>/browser_test\\.c:%d$/.test(b.textContent));b.click();return document."
		 "getElementById('matches').dataset.here;})()", mm_line);
	k = eval_long(expr);
	tap(k > 0, "a source line outlines its instructions: %ld matches", k);
	type_search("");
	screenshot("app-exec");
	/* and back: the range stack's layer fc2 selects the range again */
	click_el("#sel .selrange[data-level=\"1\"]");
	s = eval("document.getElementById('sel').dataset.name+' '+"
		 "JSON.stringify(vnViewer.selection())");
	tap(s && !strcmp(s, "layer fc2 {\"kind\":\"range\",\"execs\":[\"core 0 exec 1\"]}"),
	    "back from the execution to its range: %s", s ? s : "?");
	free(s);
	/* an execution's box selects it too */
	snprintf(expr, sizeof(expr), "vnViewer.execPoint(0).x");
	x = eval_double(expr);
	y = eval_double("vnViewer.execPoint(0).y");
	click(x, y);
	s = eval("JSON.stringify(vnViewer.selection())");
	tap(s && !strcmp(s, "{\"kind\":\"exec\",\"execs\":[\"core 0 exec 0\"]}"),
	    "clicking an execution's box selects it: %s", s ? s : "?");
	free(s);
	/* the modeled view per execution: one click, the next one's modeled span in view */
	click_el("#modeled");
	s = eval("JSON.stringify(vnViewer.selection())+' '+"
		 "document.getElementById('modeled').textContent");
	snprintf(expr, sizeof(expr), "(()=>{const x=vnViewer.data().host.xs[1],r=vnViewer.range();"
		 "return r[0]<=x.st&&x.en<=r[1]&&r[1]-r[0]<(x.en-x.st)*1.2?1:0;})()");
	tap(s && !strncmp(s, "{\"kind\":\"exec\",\"execs\":[\"core 0 exec 1\"]} "
			  "Modeled view: exec 2/3 ", 65) && eval_long(expr) == 1,
	    "'Modeled view per execution' zooms to the next execution's modeled span: %s",
	    s ? s : "?");
	free(s);
	free(eval("vnViewer.resetZoom()"));

	/* a range name is the application's: shown as text, never run as HTML */
	k = click_range("r.tid===8");
	s = eval("document.getElementById('sel').textContent");
	tap(!k && s && strstr(s, XSS_NAME) &&
	    eval_long("document.querySelectorAll('img').length") == 0 &&
	    eval_long("window.vnXss===undefined?1:0") == 1,
	    "a range named %s is shown as text", XSS_NAME);
	free(s);
	snprintf(expr, sizeof(expr), "(()=>{const r=vnViewer.ranges().find(r=>r.tid===8);"
		 "return r.x+','+r.y;})()");
	s = eval(expr);
	if (s && sscanf(s, "%lf,%lf", &x, &y) == 2)
		mouse("mouseMoved", x, y, 0);
	free(s);
	s = eval("document.getElementById('tip').textContent");
	tap(s && strstr(s, "range    " XSS_NAME) &&
	    eval_long("window.vnXss===undefined?1:0") == 1 &&
	    eval_long("document.querySelectorAll('img').length") == 0,
	    "and as text in its hover");
	free(s);
	screenshot("app-xss");

	/* the Summary tab: device time by range, the attacker's name as text there too */
	click_el("#tab-summary");
	s = eval("(()=>{const t=document.getElementById('ranges-table');return t?[...t.rows]"
		 ".slice(1).map(r=>r.cells[0].textContent+':'+r.cells[2].textContent)"
		 ".join('|'):'-';})()");
	tap(s && strstr(s, "layer fc1:1") && strstr(s, "layer fc2:1") && strstr(s, XSS_NAME ":1") &&
	    eval_long("document.querySelectorAll('img').length") == 0,
	    "Summary tab: device time by range: %s", s ? s : "?");
	free(s);
	free(eval("document.getElementById('ranges').scrollIntoView()"));
	screenshot("app-summary");
	click_el(".tab[data-core=\"0\"]");

	/* the device rows alone: the toggle, and the modeled clock's page */
	click_el("#hostrows");
	k = eval_long("vnViewer.lanes().filter(l=>l.kind==='thread').length");
	click_el("#hostrows");
	tap(k == 0 && eval_long("vnViewer.lanes().filter(l=>l.kind==='thread').length") == 3,
	    "the host rows hide and come back");
	if (run(PROFILER " view -n %s -s %s -f html -o %s/app-model.html", prog, prof, dir)) {
		tap(0, "vneuron-profile -f html of the application on the modeled clock");
		return;
	}
	snprintf(url, sizeof(url), "file://%s/app-model.html", dir);
	s = open_page(url) ? NULL : eval("vnViewer.lanes().filter(l=>l.kind==='thread').length+' '+"
					 "document.getElementById('clock').textContent");
	tap(s && !strncmp(s, "0 clock: model", 14) && strstr(s, "--clock host") &&
	    eval_long("document.getElementById('modeled').hidden?1:0") == 1,
	    "on the modeled clock, no host rows and a pointer to them: %s", s ? s : "?");
	free(s);
}

/* browser_test --shot PAGE.html NAME: a screenshot of any viewer page, for looking at. */
static int shot(const char *page, const char *name)
{
	char url[PATH_MAX + 16], rp[PATH_MAX];

	snprintf(dir, sizeof(dir), "/tmp/vn-browser-XXXXXX");
	if (!mkdtemp(dir) || !realpath(page, rp))
		die("%s: %s", page, strerror(errno));
	if (cdp_start())
		die("chromium is missing: run 'make setup' (installs Debian's chromium)");
	attach();
	snprintf(url, sizeof(url), "file://%s", rp);
	tap(open_page(url) == 0, "%s loads", page);
	screenshot(name);
	cdp_stop();
	run("rm -rf %s", dir);
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}

int main(int argc, char **argv)
{
	char prog[300], prof[300], html[300], big_prof[300], big_html[300], url[400];
	char *s, *sj = NULL, *st = NULL, expr[512];
	struct expect ex;
	void *img = NULL;
	size_t size = 0;
	double w0, w1;
	long k;

	setvbuf(stdout, NULL, _IOLBF, 0);
	mkdir(RESULTS, 0755);
	if (argc == 4 && !strcmp(argv[1], "--shot"))
		return shot(argv[2], argv[3]);
	if (argc == 3 && !strcmp(argv[1], "--measure"))
		return measure(argv[2]);
	snprintf(dir, sizeof(dir), "/tmp/vn-browser-XXXXXX");
	if (!mkdtemp(dir))
		die("temporary directory: %s", strerror(errno));
	snprintf(prog, sizeof(prog), "%s/k.vnef", dir);
	snprintf(prof, sizeof(prof), "%s/k.vntf", dir);
	snprintf(html, sizeof(html), "%s/k.html", dir);
	snprintf(big_prof, sizeof(big_prof), "%s/big.vntf", dir);
	snprintf(big_html, sizeof(big_html), "%s/big.html", dir);
	if (build(&img, &size) || write_file(prog, img, size))
		die("making the program");
	/* browser_test --app: the application's page only (host rows, navigation) */
	if (argc == 2 && !strcmp(argv[1], "--app")) {
		if (cdp_start())
			die("chromium is missing: run 'make setup' (installs Debian's chromium)");
		attach();
		app_checks(prog, img, size);
		cdp_stop();
		free(img);
		if (!getenv("VN_KEEP"))
			run("rm -rf %s", dir);
		printf("1..%d\n", ntest);
		return nfail ? 1 : 0;
	}
	if (capture(img, size, prof, 2, 1, &ex, 1))
		die("making the profile");
	tap(ex.ls == 4 && ex.mm == 4 && ex.at_line == 8, "profile: %zu events, %zu LoadStationary, "
	    "%zu MultiplyMoving, %zu at the matmul's line", ex.nev, ex.ls, ex.mm, ex.at_line);
	if (run(PROFILER " view -n %s -s %s -f html -o %s", prog, prof, html))
		die("vneuron-profile -f html");
	if (run(PROFILER " view -n %s -s %s -f summary-json -o %s/s.json", prog, prof, dir))
		die("vneuron-profile -f summary-json");
	if (run(PROFILER " view -n %s -s %s -o %s/s.txt", prog, prof, dir))
		die("vneuron-profile -f summary-text");
	sj = slurp(dir, "s.json");
	if (!sj)
		die("reading the summary-json");
	st = slurp(dir, "s.txt");
	if (!st)
		die("reading the text summary");

	if (cdp_start())
		die("chromium is missing: run 'make setup' (installs Debian's chromium)");
	attach();
	snprintf(url, sizeof(url), "file://%s", html);
	tap(open_page(url) == 0, "the html page loads from %s", html);

	/* rows */
	tap(row_count("TensorE LoadStationary") == (long)ex.ls &&
	    row_count("TensorE MultiplyMoving") == (long)ex.mm,
	    "TensorE rows: LoadStationary %ld, MultiplyMoving %ld", row_count("TensorE LoadStationary"),
	    row_count("TensorE MultiplyMoving"));
	tap(row_count("VectorE") == (long)ex.per_stream[VNEURON_ENGINE_VECTOR] &&
	    row_count("ScalarE") == (long)ex.per_stream[VNEURON_ENGINE_SCALAR] &&
	    row_count("GpSimdE") == (long)ex.per_stream[VNEURON_ENGINE_GPSIMD],
	    "engine rows: VectorE %ld, ScalarE %ld, GpSimdE %ld", row_count("VectorE"),
	    row_count("ScalarE"), row_count("GpSimdE"));
	{
		int ok = 1, q;

		for (q = 0; q < VNEF_DMA_QUEUES; q++) {
			char name[32];
			long want = (long)ex.per_stream[VNEF_ENGINES + q], got;

			snprintf(name, sizeof(name), "DMA q%d", q);
			got = row_count(name);
			if (want ? got != want : got != -1) {
				printf("# %s: %ld rows, want %ld\n", name, got, want);
				ok = 0;
			}
		}
		tap(ok, "one row per DMA queue used, with its descriptor count");
	}
	/* the program's scopes as layers, a row above the engines' */
	s = eval("[...new Set(vnViewer.data().cores[0].layers.filter(r=>r[2]===0).map(r=>r[3]))]"
		 ".sort().join(',')");
	tap(lane_of("layers") >= 0 && lane_of("layers") < lane_of("TensorE LoadStationary") &&
	    row_count("layers") > 0 && s && !strcmp(s, "exp,mm"),
	    "a layers row above the engines: %ld boxes, outermost layers %s", row_count("layers"),
	    s ? s : "?");
	free(s);
	/*
	 * issue 29: exp's and mm's scopes overlap in time on one line; each name is drawn
	 * only where its box shows, so no two names on a line overlap, and exp (under mm
	 * until mm ends) still gets one
	 */
	s = eval("(()=>{const L=vnViewer.layerLabels(),by={};for(const x of L)"
		 "(by[x.depth]=by[x.depth]||[]).push(x);for(const d in by){const a=by[d]"
		 ".sort((p,q)=>p.x0-q.x0);for(let i=1;i<a.length;i++)if(a[i].x0<a[i-1].x1-0.01)"
		 "return 'overlap: '+a[i-1].name+' '+a[i].name;}return L.filter(x=>x.depth===0)"
		 ".map(x=>x.name).sort().join(',')+' '+L.length;})()");
	tap(s && !strncmp(s, "exp,mm ", 7), "layer names never overlap: %s", s ? s : "?");
	free(s);
	tap(lane_of("DMA throughput") > 0 && lane_of("pending DMA") > 0,
	    "DMA throughput and pending-DMA counter rows");
	/* issue 12: the counters' peaks are the text summary's, at its bin size, in its units */
	{
		char want_t[96] = "?", want_p[96] = "?", bins[32] = "", *tl, *pl;
		const char *q = strstr(st, "  throughput avg "), *r2 = strstr(st, "  pending DMA avg ");
		double pk = 0, pp = 0;

		if (q && (q = strstr(q, ", peak ")) && sscanf(q, ", peak %lf GB/s (bins of %31[^)])",
							      &pk, bins) == 2)
			snprintf(want_t, sizeof(want_t), "peak %.2f GB/s (bins of %s)", pk, bins);
		if (r2 && (r2 = strstr(r2, ", peak ")) && sscanf(r2, ", peak %lf", &pp) == 1)
			snprintf(want_p, sizeof(want_p), "peak %.2f (bins of %s)", pp, bins);
		tl = eval("document.querySelectorAll('.rowlabel.counter .count')[0].textContent");
		pl = eval("document.querySelectorAll('.rowlabel.counter .count')[1].textContent");
		tap(tl && pl && pk > 0 && !strcmp(tl, want_t) && !strcmp(pl, want_p),
		    "the counters say what the text summary says: '%s', '%s' (summary: '%s', '%s')",
		    tl ? tl : "?", pl ? pl : "?", want_t, want_p);
		free(tl);
		free(pl);
	}
	/* semaphore dependencies as arrows, the critical path as a dark red band */
	{
		long nf = eval_long("vnViewer.flows()");
		long drawn = eval_long("vnViewer.stats.flowsDrawn");
		long crit = eval_long("vnViewer.stats.critDrawn");

		tap(nf > 0 && drawn == nf, "semaphore flows drawn as arrows: %ld of %ld", drawn, nf);
		tap(crit > 0, "critical path marked on %ld entries", crit);
		s = eval("(()=>{const L=vnViewer.lanes(),cv=document.getElementById('canvas'),"
			 "rc=cv.getBoundingClientRect(),d=window.devicePixelRatio||1;"
			 "for(let k=0;k<L.length;k++){if(L[k].kind!=='row'||L[k].lod)continue;"
			 "for(let i=0;i<L[k].n;i++){const e=vnViewer.event(k,i);if(!e.crit)continue;"
			 "const p=vnViewer.eventPoint(k,i);if(p.x-rc.left<2)continue;"
			 "const q=cv.getContext('2d').getImageData(Math.round((p.x-rc.left)*d),"
			 "Math.round((L[k].y+L[k].h-4)*d),1,1).data;"
			 "return q[0]+','+q[1]+','+q[2]+' '+e.op;}}return '';})()");
		{
			int r = -1, g = -1, b = -1;

			if (s)
				sscanf(s, "%d,%d,%d", &r, &g, &b);
			tap(r > 150 && g < 60 && b < 60, "a critical-path entry's band is dark red: %s",
			    s ? s : "?");
		}
		free(s);
	}
	screenshot("timeline");

	/* drag to zoom */
	w0 = eval_double("vnViewer.range()[1]-vnViewer.range()[0]");
	{
		double cx = eval_double("document.getElementById('canvas').getBoundingClientRect().left");
		double cy = eval_double("document.getElementById('canvas').getBoundingClientRect().top");

		mouse("mouseMoved", cx + 300, cy + 60, 0);
		mouse("mousePressed", cx + 300, cy + 60, 1);
		mouse("mouseMoved", cx + 500, cy + 80, 1);
		mouse("mouseMoved", cx + 700, cy + 90, 1);
		mouse("mouseReleased", cx + 700, cy + 90, 0);
	}
	w1 = eval_double("vnViewer.range()[1]-vnViewer.range()[0]");
	tap(w1 > 0 && w1 < w0 * 0.5, "a drag zooms in: visible %.0f ps -> %.0f ps", w0, w1);
	screenshot("zoom");
	free(eval("vnViewer.resetZoom()"));
	tap(eval_double("vnViewer.range()[1]-vnViewer.range()[0]") == w0, "reset shows it all");

	/* hover over the first MultiplyMoving */
	k = lane_of("TensorE MultiplyMoving");
	snprintf(expr, sizeof(expr), "(()=>{const e=vnViewer.event(%ld,0),w=e.end-e.start;"
		 "vnViewer.setRange(Math.max(0,e.start-4*w),e.end+4*w);return 1;})()", k);
	free(eval(expr));
	snprintf(expr, sizeof(expr), "vnViewer.eventPoint(%ld,0).x", k);
	w0 = eval_double(expr);
	snprintf(expr, sizeof(expr), "vnViewer.eventPoint(%ld,0).y", k);
	w1 = eval_double(expr);
	mouse("mouseMoved", w0, w1, 0);
	s = eval("document.getElementById('tip').hidden?'':document.getElementById('tip').textContent");
	{
		char want[64];

		snprintf(want, sizeof(want), "browser_test.c:%d", mm_line);
		tap(s && strstr(s, "MULTIPLY_MOVING") && strstr(s, want) && strstr(s, "mm") &&
		    strstr(s, "flops"), "hover shows opcode, source line %s and scope", want);
		if (s)
			printf("# tooltip: %s\n", strtok(s, "\n"));
	}
	free(s);
	screenshot("hover");
	free(eval("vnViewer.resetZoom()"));

	/* search */
	type_search("MULTIPLY");
	k = eval_long("document.getElementById('matches').dataset.here");
	tap(k == (long)ex.mm, "search MULTIPLY finds %ld (want %zu)", k, ex.mm);
	/* Enter zooms to the first match */
	free(cdp("Input.dispatchKeyEvent", "{\"type\":\"keyDown\",\"key\":\"Enter\","
		 "\"code\":\"Enter\",\"windowsVirtualKeyCode\":13,\"text\":\"\\r\"}"));
	free(cdp("Input.dispatchKeyEvent", "{\"type\":\"keyUp\",\"key\":\"Enter\","
		 "\"code\":\"Enter\",\"windowsVirtualKeyCode\":13}"));
	snprintf(expr, sizeof(expr), "(()=>{const k=vnViewer.lanes().findIndex(l=>l.name==="
		 "'TensorE MultiplyMoving'),e=vnViewer.event(k,0),r=vnViewer.range();"
		 "return r[0]<=e.start&&e.end<=r[1]&&r[1]-r[0]<vnViewer.total()/4?1:0;})()");
	tap(eval_long(expr) == 1, "Enter in the search box zooms to the first match");
	free(eval("vnViewer.resetZoom()"));
	snprintf(expr, sizeof(expr), "/browser_test.c:%d$/", mm_line);
	type_search(expr);
	k = eval_long("document.getElementById('matches').dataset.here");
	tap(k == (long)ex.at_line, "search %s finds %ld (want %zu)", expr, k, ex.at_line);
	s = eval("document.getElementById('matches').textContent");
	printf("# matches: %s\n", s ? s : "?");
	free(s);
	screenshot("search");
	type_search("/^exp[/]/");
	k = eval_long("document.getElementById('matches').dataset.here");
	/* the exp scope: its load (q0), ACTIVATE, two TENSOR_SCALARs and its store (q8) */
	tap(k == (long)(ex.per_stream[VNEF_ENGINES] + 3 + ex.per_stream[VNEF_ENGINES + 8]),
	    "search /^exp[/]/ (a scope) finds %ld", k);
	if (k != (long)(ex.per_stream[VNEF_ENGINES] + 3 + ex.per_stream[VNEF_ENGINES + 8])) {
		s = eval("JSON.stringify(vnViewer.data().scopes)");
		printf("# scopes: %s\n", s ? s : "?");
		free(s);
	}

	/* worker tabs */
	click_el(".tab[data-core=\"1\"]");
	s = eval("document.querySelector('.tab.on').textContent + '|' + "
		 "document.querySelector('.axislabel').textContent");
	tap(s && !strcmp(s, "worker 1 core 0|worker 1 core 0"), "worker tab switches: %s",
	    s ? s : "?");
	free(s);
	tap(row_count("TensorE MultiplyMoving") == (long)ex.mm, "worker 1 has its rows");

	/* worker 1's device fault: a red mark on VectorE, its hover text, the title */
	s = eval("JSON.stringify(vnViewer.faults().map(f=>f.name))");
	tap(s && !strcmp(s, "[\"VectorE\"]"), "worker 1 shows one device fault, on VectorE: %s",
	    s ? s : "?");
	free(s);
	free(eval("vnViewer.resetZoom()"));
	w0 = eval_double("vnViewer.faults()[0].x");
	w1 = eval_double("vnViewer.faults()[0].y");
	/* the marker's top (a triangle) is red, whatever is drawn under it */
	k = eval_long("(()=>{const c=document.getElementById('canvas'),r=c.getBoundingClientRect(),"
		      "f=vnViewer.faults()[0],l=vnViewer.lanes()[f.lane],d=window.devicePixelRatio||1,"
		      "p=c.getContext('2d').getImageData(Math.round((f.x-r.left)*d),"
		      "Math.round((l.y+3)*d),1,1).data;return p[0]>200&&p[1]<90&&p[2]<90?1:0;})()");
	tap(k == 1, "the fault's marker is drawn in red");
	mouse("mouseMoved", w0, w1, 0);
	s = eval("document.getElementById('tip').hidden?'':document.getElementById('tip').textContent");
	tap(s && strstr(s, "device fault: " FAULT_TEXT) && strstr(s, "VectorE pc 0 (TENSOR_SCALAR)") &&
	    strstr(s, "memory PSUM"), "hovering the fault's marker describes it");
	if (s)
		printf("# fault tooltip: %s\n", strtok(s, "\n"));
	free(s);
	screenshot("fault");
	s = eval("document.getElementById('title').textContent");
	tap(s && strstr(s, "1 device fault"), "the title counts the device faults");
	free(s);
	free(eval("vnViewer.showCore(0)"));
	tap(eval_long("vnViewer.faults().length") == 0, "worker 0 has no fault mark");
	free(eval("vnViewer.showCore(1)"));

	/* summary */
	click_el("#tab-summary");
	s = eval("document.getElementById('summary').hidden ? '' : "
		 "document.getElementById('summary').innerText");
	{
		char *tt = json_str(sj, "class"), want[64], *p = sj;
		unsigned long long ps = 0;
		int ok = s != NULL, nadv = 0;
		const char *tp = strstr(sj, "\"total_time_ps\":");

		if (tp)
			ps = strtoull(tp + 16, NULL, 10);
		if (ps >= 1000000000ull)
			snprintf(want, sizeof(want), "%.3f ms", ps / 1e9);
		else if (ps >= 1000000ull)
			snprintf(want, sizeof(want), "%.3f us", ps / 1e6);
		else
			snprintf(want, sizeof(want), "%.3f ns", ps / 1e3);
		ok = ok && strstr(s, "total_time") && strstr(s, want);
		ok = ok && tt && strstr(s, tt);
		while ((p = strstr(p, "\"rule\":\""))) {
			char rule[64];

			p += 8;
			snprintf(rule, sizeof(rule), "%.*s", (int)strcspn(p, "\""), p);
			if (!strstr(s, rule)) {
				printf("# advice %s missing\n", rule);
				ok = 0;
			}
			nadv++;
		}
		tap(ok && nadv > 0, "Summary tab: total_time %s, class %s, %d advice rules",
		    want, tt ? tt : "?", nadv);
		tap(s && strstr(s, "Device faults (1)") && strstr(s, FAULT_TEXT),
		    "Summary tab lists the device fault");
		free(tt);
	}
	free(s);
	/*
	 * the roofline: HBM's slope and a roof per engine, a point per execution and per
	 * scope, labelled, each on its bounding engine's roof (the matmul's on TensorE's,
	 * the exp kernel's on another engine's)
	 */
	{
		long nceil = eval_long("document.querySelectorAll('#roofline .ceiling').length");
		long nexe = eval_long("document.querySelectorAll('#roofline circle.pt[data-kind=exec]').length");
		long nsc = eval_long("document.querySelectorAll('#roofline circle.pt[data-kind=scope]').length");
		long wexe = eval_long("vnViewer.data().execs.length");
		long wsc = eval_long("vnViewer.data().summary.scopes.filter(x=>x.span_ps>0).length");
		long lab = eval_long("(()=>{const t=document.getElementById('roofline').textContent;"
				     "return vnViewer.data().summary.scopes.every(x=>!(x.span_ps>0)||"
				     "t.includes(x.scope))&&['TensorE','VectorE','ScalarE','GpSimdE']"
				     ".every(e=>t.includes(e+' peak'))&&t.includes('HBM')?1:0;})()");
		char *engs = eval("[...new Set([...document.querySelectorAll('#roofline circle.pt')]"
				  ".map(c=>c.dataset.engine))].sort().join(',')");

		tap(nceil == 5 && nexe == wexe && wexe > 0 && nsc == wsc && lab == 1 && engs &&
		    strstr(engs, "TensorE") && strchr(engs, ','),
		    "roofline: %ld ceilings, %ld execution and %ld scope points, labelled, on the "
		    "roofs of %s", nceil, nexe, nsc, engs ? engs : "?");
		free(engs);
		free(eval("(()=>{const r=document.getElementById('roofline');if(r)r.scrollIntoView();"
			  "return 1;})()"));
		screenshot("roofline");
		free(eval("document.getElementById('summary').scrollTop=0"));
	}
	screenshot("summary");
	free(eval("(()=>{const a=document.querySelector('.advice');if(a)a.scrollIntoView();return 1;})()"));
	screenshot("advice");

	/* --serve */
	{
		char line[512] = "";
		FILE *pf;
		pid_t pid;
		int st;

		pid = serve_start(prog, prof, NULL, &pf, line, sizeof(line));
		s = strstr(line, "http://127.0.0.1:");
		tap(s != NULL, "--serve prints its URL: %.*s", (int)strcspn(line, "\n"), line);
		if (s) {
			struct timespec a, b;
			int ok;

			s[strcspn(s, " \n")] = 0;
			clock_gettime(CLOCK_MONOTONIC, &a);
			ok = open_page(s) == 0;
			clock_gettime(CLOCK_MONOTONIC, &b);
			printf("# served page ready in %.2f s\n", (double)(b.tv_sec - a.tv_sec) +
			       (b.tv_nsec - a.tv_nsec) / 1e9);
			tap(ok && row_count("TensorE MultiplyMoving") == (long)ex.mm,
			    "the served page loads its data over HTTP and renders its rows");
			screenshot("serve");
		}
		kill(pid, SIGTERM);
		waitpid(pid, &st, 0);
		tap(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the server stops cleanly on SIGTERM");
		if (pf)
			fclose(pf);
	}
	/* a busy port is a clear error */
	{
		struct sockaddr_in sa = { .sin_family = AF_INET,
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t sl = sizeof(sa);
		int ls = socket(AF_INET, SOCK_STREAM, 0), st = -1;

		if (ls >= 0 && !bind(ls, (struct sockaddr *)&sa, sizeof(sa)) && !listen(ls, 1) &&
		    !getsockname(ls, (struct sockaddr *)&sa, &sl))
			st = run("timeout 20 " PROFILER " view -n %s -s %s --serve --port %u "
				 ">%s/e.txt 2>&1", prog, prof, ntohs(sa.sin_port), dir);
		if (ls >= 0)
			close(ls);
		char p2[320], buf[512] = "";
		FILE *f;

		snprintf(p2, sizeof(p2), "%s/e.txt", dir);
		f = fopen(p2, "r");
		if (f) {
			if (!fgets(buf, sizeof(buf), f))
				buf[0] = 0;
			fclose(f);
		}
		tap(st == 1 && strstr(buf, "in use"),
		    "an unusable port is a clear error: %.*s", (int)strcspn(buf, "\n"), buf);
	}

	tap(run(PROFILER " view -n %s -s %s --port 5 >/dev/null 2>&1", prog, prof) == 2 &&
	    run(PROFILER " view -n %s -s %s --serve -o %s/x >/dev/null 2>&1", prog, prof, dir) == 2 &&
	    run(PROFILER " view -n %s -s %s --serve --port 70000 >/dev/null 2>&1", prog, prof) == 2 &&
	    run(PROFILER " view -n %s -s %s --serve --bind nosuch.invalid >/dev/null 2>&1", prog,
		prof) == 1, "bad --serve usage: --port without --serve, -o, port and address");

	lod_checks(prog, prof, &ex);
	cc_checks();
	app_checks(prog, img, size);

	/* a million instructions */
	{
		unsigned int reps = (unsigned int)(1000000 / ex.nev) + 1;
		struct timespec t0, t1;
		double gen;

		if (capture(img, size, big_prof, 1, reps, NULL, 0))
			die("the 1M profile");
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (run(PROFILER " view -n %s -s %s -f html -o %s", prog, big_prof, big_html))
			die("vneuron-profile -f html (1M)");
		clock_gettime(CLOCK_MONOTONIC, &t1);
		gen = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		snprintf(url, sizeof(url), "file://%s", big_html);
		k = open_page(url);
		tap(k == 0, "a %zu-event profile loads", ex.nev * reps);
		if (!k) {
			struct stat sb;

			stat(big_html, &sb);
			printf("# 1M: html %.1f MB written in %.2f s; page: load %.0f ms, first render "
			       "%.1f ms", sb.st_size / 1e6, gen, eval_double("vnViewer.stats.loadMs"),
			       eval_double("vnViewer.stats.firstRenderMs"));
			free(eval("vnViewer.setRange(vnViewer.total()*0.4, vnViewer.total()*0.45)"));
			printf(", zoom render %.1f ms", eval_double("vnViewer.stats.lastRenderMs"));
			free(eval("vnViewer.setRange(vnViewer.total()*0.4, vnViewer.total()*0.40001)"));
			printf(", deep zoom %.1f ms\n", eval_double("vnViewer.stats.lastRenderMs"));
			tap(eval_long("vnViewer.stats.renders") >= 3, "renders and zooms at 1M");
			free(eval("vnViewer.resetZoom()"));
			k = lane_of("TensorE MultiplyMoving");
			snprintf(expr, sizeof(expr), "(()=>{const r=document.getElementById('canvas')"
				 ".getBoundingClientRect(),l=vnViewer.lanes()[%ld];return r.left+r.width/2"
				 "+','+(r.top+l.y+l.h/2);})()", k);
			s = eval(expr);
			if (s && sscanf(s, "%lf,%lf", &w0, &w1) == 2)
				mouse("mouseMoved", w0, w1, 0);
			free(s);
			s = eval("document.getElementById('tip').hidden?'':"
				 "document.getElementById('tip').textContent");
			tap(s && strstr(s, "started here, busy") && strstr(s, "zoom in"),
			    "hovering an aggregated row tells what its pixel holds");
			free(s);
			screenshot("1m");
			free(eval("vnViewer.setRange(vnViewer.total()*0.4, vnViewer.total()*0.4003)"));
			screenshot("1m-zoom");
		}
	}
	cdp_stop();
	free(sj);
	free(st);
	free(img);
	run("rm -rf %s", dir);
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
