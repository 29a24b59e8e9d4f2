// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An application's page in the browser (docs/viewer.md, "Host rows"): its profile, written
 * here, and the page on the host clock: host rows, the executions row, navigation between
 * ranges, executions and source lines, and a range name that is HTML shown as text.
 */
#include "browser.h"

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
void app_checks(const char *prog, const void *img, size_t size)
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
