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
 * Built from several files, each its subject (harness.c, profile.c, cdp.c, cc.c, app.c,
 * lod.c; browser.h declares what they share), into one binary: one browser session (its
 * start costs seconds) serves every check.
 */
#include "browser.h"

int ntest, nfail;
char dir[256];
int mm_line;		/* source line of the matmul */

/* The kernel: exp as in seed 002, then a matmul (its source line in mm_line). */
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
