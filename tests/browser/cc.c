// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The collectives' page in the browser: a data-parallel program runs as 4 workers of one
 * communicator on the host backend (threads); the CC-core rows of their tabs, a
 * collective's hover text (group, last rank, algbw, busbw), the search by collective and
 * the Summary tab's collectives tables.
 */
#include "browser.h"

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


/* The collectives' page: the CC-core rows, a collective's hover text, the summary. */
void cc_checks(void)
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
