// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The summary level (docs/viewer.md, "Large profiles"), one of browser_test's files
 * (its one browser session): the small profile past --web-detail 10 stands for a
 * 100 M-record one. The written page draws its rows' bins, keeps their counts, and
 * zoomed in says that detail needs --serve; the served page fetches a zoomed window's
 * events and draws them, and GET /events refuses bad parameters with 400 naming the
 * problem.
 */
#include "browser.h"

/* Pixels of lane `name` on its line y + h - 4 that are not (near) white. */
static long lane_ink(const char *name)
{
	char expr[640];

	snprintf(expr, sizeof(expr), "(()=>{const c=document.getElementById('canvas'),"
		 "g=c.getContext('2d'),l=vnViewer.lanes().find(x=>x.name==='%s'),"
		 "d=window.devicePixelRatio||1;if(!l)return -1;const im=g.getImageData(0,"
		 "Math.round((l.y+l.h-4)*d),c.width,1).data;let n=0;for(let i=0;i<im.length;"
		 "i+=4)if(im[i]<200||im[i+1]<200||im[i+2]<200)n++;return n;})()", name);
	return eval_long(expr);
}

/* GET events?QUERY from the served page: "STATUS BODY" (malloc()ed) or NULL. */
static char *events_get(const char *query)
{
	char expr[400];
	char *r = NULL;
	int i;

	snprintf(expr, sizeof(expr), "(window.vnT='',fetch('events?%s').then(r=>r.text().then("
		 "t=>{window.vnT=r.status+' '+t;})).catch(e=>{window.vnT='0 '+e;}),1)", query);
	free(eval(expr));
	for (i = 0; i < 100; i++) {
		r = eval("window.vnT");
		if (r && *r)
			return r;
		free(r);
		r = NULL;
		usleep(100000);
	}
	return NULL;
}

static void lod_served(const char *prog, const char *prof, const struct expect *ex)
{
	static const struct { const char *q, *why; } bad[] = {
		{ "core=0&t0=5&t1=1", "t0 < t1" },
		{ "core=99&t0=0&t1=1", "no such core" },
		{ "core=0&t0=-1&t1=1", "decimal numbers" },
		{ "core=0&t0=0&t1=99999999999999999999", "decimal numbers" },
		{ "core=0&t0=0&t1=1&tracks=1", "unknown parameter" },
		{ "core=0&t0=0", "all needed" },
		{ "", "missing the query" },
	};
	char line[512] = "", expr[400], *s, *url;
	unsigned int i;
	FILE *pf;
	pid_t pid;
	long k;
	int st;

	pid = serve_start(prog, prof, "10", &pf, line, sizeof(line));
	url = strstr(line, "http://127.0.0.1:");
	tap(url != NULL, "--serve --web-detail 10 prints its URL");
	if (!url)
		goto out;
	url[strcspn(url, " \n")] = 0;
	tap(open_page(url) == 0 && eval_long("vnViewer.lod()?1:0") == 1 &&
	    eval_long("vnViewer.lanes().filter(l=>l.kind==='row').every(l=>l.bins)?1:0") == 1,
	    "the served page of a profile past --web-detail shows bins");
	/* zoom to 100 bins around MultiplyMoving's first busy bin: a bin is 2 px or more */
	free(eval("(()=>{const L=vnViewer.lod(),r=vnViewer.data().cores[0].rows.find(x=>x.name"
		  "==='TensorE MultiplyMoving'),j=r.bins.k.findIndex(x=>x>0),t=j*L.bin_ps;"
		  "vnViewer.setRange(Math.max(0,t-50*L.bin_ps),t+50*L.bin_ps);return j;})()"));
	for (i = 0; i < 100 && eval_long("vnViewer.detail()?1:0") != 1; i++)
		usleep(100000);
	k = lane_of("TensorE MultiplyMoving");
	snprintf(expr, sizeof(expr), "(()=>{const l=vnViewer.lanes()[%ld];return l.bins||l.lod?"
		 "-1:l.shown;})()", k);
	tap(eval_long("vnViewer.detail()?1:0") == 1 && eval_long(expr) > 0 &&
	    eval_long("vnViewer.stats.fetches") >= 1,
	    "zoomed in below a bin, the page fetches the window's events: %ld MultiplyMoving "
	    "shown, %ld fetch(es), %.1f ms", eval_long(expr), eval_long("vnViewer.stats.fetches"),
	    eval_double("vnViewer.stats.lastFetchMs"));
	tap(lane_ink("TensorE MultiplyMoving") > 0, "and draws them (%ld pixels inked)",
	    lane_ink("TensorE MultiplyMoving"));
	screenshot("lod-window");
	/* zoomed out again, the bins come back */
	free(eval("vnViewer.resetZoom()"));
	tap(eval_long("vnViewer.detail()?1:0") == 0 &&
	    eval_long("vnViewer.lanes().filter(l=>l.kind==='row').every(l=>l.bins)?1:0") == 1,
	    "zoomed out, the rows show their bins again");
	snprintf(expr, sizeof(expr), "core=0&t0=0&t1=%ld", eval_long("vnViewer.total()"));
	s = events_get(expr);
	tap(s && !strncmp(s, "200 {\"core\":0,", 14) && strstr(s, "TensorE MultiplyMoving"),
	    "GET /events of a good window answers its rows: %.60s", s ? s : "(no answer)");
	free(s);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		s = events_get(bad[i].q);
		tap(s && !strncmp(s, "400 bad /events query: ", 23) && strstr(s, bad[i].why),
		    "GET /events?%s: %.*s", bad[i].q, s ? (int)strcspn(s, "\n") : 4,
		    s ? s : "none");
		free(s);
	}
out:
	kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	tap(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the --web-detail server stops cleanly");
	if (pf)
		fclose(pf);
	(void)ex;
}

void lod_checks(const char *prog, const char *prof, const struct expect *ex)
{
	char html[300], url[400];
	long k;

	snprintf(html, sizeof(html), "%s/lod.html", dir);
	if (run(PROFILER " view -n %s -s %s -f html --web-detail 10 -o %s", prog, prof, html))
		die("vneuron-profile -f html --web-detail 10");
	snprintf(url, sizeof(url), "file://%s", html);
	tap(open_page(url) == 0 && eval_long("vnViewer.lod()?1:0") == 1 &&
	    eval_long("vnViewer.lanes().filter(l=>l.kind==='row').every(l=>l.bins&&l.lod)?1:0") == 1,
	    "past --web-detail 10 the page's rows carry bins");
	tap(row_count("TensorE MultiplyMoving") == (long)ex->mm &&
	    row_count("TensorE LoadStationary") == (long)ex->ls,
	    "the rows keep their counts: MultiplyMoving %ld, LoadStationary %ld",
	    row_count("TensorE MultiplyMoving"), row_count("TensorE LoadStationary"));
	k = lane_ink("TensorE MultiplyMoving");
	tap(k > 0, "the bins draw (%ld pixels inked on MultiplyMoving's row)", k);
	screenshot("lod");
	free(eval("vnViewer.setRange(0, vnViewer.lod().bin_ps * 20)"));
	tap(eval_long("vnViewer.detail()?1:0") == 0 &&
	    eval_long("vnViewer.detailNote().includes('--serve')?1:0") == 1 &&
	    eval_long("document.getElementById('status').textContent.includes('--serve')?1:0") == 1,
	    "zoomed in below a bin, the written page says detail needs --serve");
	lod_served(prog, prof, ex);
}

/*
 * browser_test --measure URL (tools/bench/bench_web): the page's load and first render
 * as it reports them, the wall time to ready, and on a served summary level the time to
 * fetch and index a window of about 100,000 events (at most 100 bins) in the middle. Prints "MEASURE name=value" lines.
 */
int measure(const char *url)
{
	struct timespec a, b;
	int ok, i;

	snprintf(dir, sizeof(dir), "/tmp/vn-browser-XXXXXX");
	if (!mkdtemp(dir))
		die("temporary directory: %s", strerror(errno));
	if (cdp_start())
		die("chromium is missing: run 'make setup' (installs Debian's chromium)");
	attach();
	clock_gettime(CLOCK_MONOTONIC, &a);
	ok = open_page(url) == 0;
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (ok) {
		printf("MEASURE ready_ms=%.0f\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 +
						  (double)(b.tv_nsec - a.tv_nsec)) / 1e6);
		printf("MEASURE load_ms=%.0f\n", eval_double("vnViewer.stats.loadMs"));
		printf("MEASURE first_render_ms=%.1f\n", eval_double("vnViewer.stats.firstRenderMs"));
		if (eval_long("vnViewer.lod()&&!document.getElementById('vn-data')?1:0") == 1) {
			/* a view of ~50,000 events: the page fetches twice its width */
			free(eval("(()=>{const L=vnViewer.lod(),t=vnViewer.total()/2,h=Math.min(25,"
				  "25000*L.bins/L.events)*L.bin_ps;vnViewer.setRange(t-h,t+h);return 1;})()"));
			for (i = 0; i < 600 && eval_long("vnViewer.detail()?1:0") != 1; i++)
				usleep(100000);
			if (eval_long("vnViewer.detail()?1:0") == 1)
				printf("MEASURE window_fetch_ms=%.1f\nMEASURE window_events=%ld\n",
				       eval_double("vnViewer.stats.lastFetchMs"),
				       eval_long("vnViewer.detail().n"));
			else
				ok = 0;
		}
	}
	cdp_stop();
	run("rm -rf %s", dir);
	return ok ? 0 : 1;
}
