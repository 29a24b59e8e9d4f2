// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * `vneuron-profile capture` without the kernel (view_util.h): its profile path checked
 * first, --host's profile the model's own (per model, per worker, under --max-size), the
 * DMA series in text and JSON alike, signals caught, the output file committed without
 * ever replacing another's, examples' .vnef never overwritten, --host-clock.
 */
#include "view_util.h"

/*
 * Issue 12: capture checks its profile path before anything else (no device needed):
 * -s naming the program, or an existing profile, is refused and the file intact; with
 * --force-overwrite a bad input still leaves the old profile as it was.
 */
TEST_F(view, capture_never_loses_a_file)
{
	char keep[160];

	snprintf(keep, sizeof(keep), "%s/keep.vnef", self->dir);
	ASSERT_EQ(0, link(self->naive_prog, keep));
	EXPECT_EQ(2, profiler(&self->out, "capture -n %s -s %s", self->naive_prog,
			      self->naive_prog));
	EXPECT_NE(NULL, strstr(self->out, "would overwrite the input"));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "capture --force-overwrite -n %s -s %s",
			      self->naive_prog, keep));
	free(self->out);
	EXPECT_EQ(0, same_bytes(self->naive_prog, keep));
	/* an input file as the profile */
	EXPECT_EQ(2, profiler(&self->out, "capture --force-overwrite -n %s -s %s x %s",
			      self->naive_prog, self->naive_prof, self->naive_prof));
	free(self->out);
	/* an existing profile */
	EXPECT_EQ(2, profiler(&self->out, "capture -n %s -s %s x /nonexist.npy",
			      self->naive_prog, self->tiled_prof));
	EXPECT_NE(NULL, strstr(self->out, "exists; use --force-overwrite"));
	free(self->out);
	EXPECT_EQ(1, profiler(&self->out, "capture --force-overwrite -n %s -s %s x "
			      "/nonexist.npy", self->naive_prog, self->tiled_prof));
	free(self->out);
	self->out = NULL;
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s -o /dev/null", self->tiled_prog,
			      self->tiled_prof));
	/* the application form too */
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "capture -s %s -- true", self->tiled_prof));
}

/* The number after key ("\"total_time_ps\":") in a JSON text, or ~0 if absent. */
static unsigned long long json_num(const char *json, const char *key)
{
	const char *p = strstr(json, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : ~0ull;
}

/*
 * Issue 12: `capture --host` runs the program on the host backend (no module) and
 * writes a profile whose modeled figures are the model's own: the same as the fixture's
 * profile, built from the host executor's events directly, and the same on a second
 * capture; the profile says it came from the host backend, and view prints that.
 */
TEST_F(view, host_capture_matches_the_model)
{
	static const char *const keys[] = {
		"\"total_time_ps\":", "\"event_count\":", "\"instruction_count\":",
		"\"dma_count\":", "\"core_time_ps\":", "\"critical_path_ps\":",
	};
	char prof[160], prof2[160], err[256];
	char *ref = NULL, *host = NULL, *host2 = NULL;
	struct vntf_reader *r;
	struct vntf_chunk c;
	unsigned int i;

	snprintf(prof, sizeof(prof), "%s/host.vntf", self->dir);
	snprintf(prof2, sizeof(prof2), "%s/host2.vntf", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "capture --host -q -n %s -s %s", self->tiled_prog,
			      prof));
	free(self->out);
	self->out = NULL;
	ASSERT_EQ(0, profiler(&self->out, "capture --host -q -n %s -s %s", self->tiled_prog,
			      prof2));
	ASSERT_EQ(0, profiler(&ref, "view -n %s -s %s -f summary-json", self->tiled_prog,
			      self->tiled_prof));
	ASSERT_EQ(0, profiler(&host, "view -n %s -s %s -f summary-json", self->tiled_prog,
			      prof));
	ASSERT_EQ(0, profiler(&host2, "view -n %s -s %s -f summary-json", self->tiled_prog,
			      prof2));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		EXPECT_NE(~0ull, json_num(host, keys[i]));
		EXPECT_EQ(json_num(ref, keys[i]), json_num(host, keys[i])) {
			TH_LOG("%s differs from the model's", keys[i]);
		}
	}
	EXPECT_NE(NULL, strstr(host, "\"backend\":\"host\""));
	/* two host captures: the same summary, byte for byte (no host time in it) */
	EXPECT_STREQ(host, host2);
	free(ref);
	free(host);
	free(host2);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->tiled_prog, prof));
	EXPECT_NE(NULL, strstr(self->out, "captured on the host backend"));
	/* the backend section (type 12), optional, and the execution records */
	ASSERT_EQ(0, vntf_open_file(&r, prof, err, sizeof(err)));
	while (vntf_next(r, &c) > 0)
		;
	EXPECT_EQ(VNTF_BACKEND_HOST, vntf_reader_info(r)->backend);
	EXPECT_TRUE(vntf_reader_info(r)->complete);
	EXPECT_EQ(1, vntf_reader_info(r)->version_minor);
	vntf_close(r);
	/* what --host cannot do is said, status 2 */
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "capture --host --core 1 -n %s -s %s/x.vntf",
			      self->tiled_prog, self->dir));
	EXPECT_NE(NULL, strstr(self->out, "--host runs on host threads"));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "capture --host -s %s/x.vntf -- true", self->dir));
	EXPECT_NE(NULL, strstr(self->out, "--host runs a program"));
}

/*
 * Issue 29: `capture --max-size BYTES` says the size it expects, stops at the limit
 * after the running execution, and leaves a valid profile within it, marked truncated,
 * that view calls PARTIAL; a bad size is refused with the reason, status 2.
 */
TEST_F(view, capture_max_size)
{
	static const char *const bad[] = { "10K", "12Q", "-1", "", "99999999999999999999" };
	char prof[160], err[256];
	struct vntf_reader *r;
	struct vntf_chunk c;
	struct stat st;
	unsigned int i;

	snprintf(prof, sizeof(prof), "%s/cut.vntf", self->dir);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(2, profiler(&self->out, "capture --host -n %s -s %s --max-size '%s'",
				      self->tiled_prog, prof, bad[i]));
		EXPECT_NE(NULL, strstr(self->out, "give a size in bytes of at least 64K, with "
				       "an optional suffix K, M or G")) TH_LOG("%s", self->out);
		free(self->out);
		EXPECT_NE(0, access(prof, F_OK));
	}
	ASSERT_EQ(0, profiler(&self->out, "capture --host -n %s -s %s -N 400 --max-size 64K",
			      self->tiled_prog, prof)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "capture: about ")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "expected for 400 executions")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "--max-size 64.0 KiB stops it after about"))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "of 400 at --max-size 65536")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "marked truncated")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, stat(prof, &st));
	EXPECT_GE(65536, st.st_size);
	ASSERT_EQ(0, vntf_open_file(&r, prof, err, sizeof(err)));
	while (vntf_next(r, &c) > 0)
		;
	EXPECT_TRUE(vntf_reader_info(r)->complete) TH_LOG("%s", vntf_error(r));
	EXPECT_EQ(65536, vntf_reader_info(r)->max_bytes);
	EXPECT_LT(0, vntf_reader_info(r)->cut_records);
	vntf_close(r);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->tiled_prog, prof));
	EXPECT_NE(NULL, strstr(self->out, "PARTIAL: the capture stopped writing at its "
			       "--max-size")) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->tiled_prog,
			      prof));
	EXPECT_NE(NULL, strstr(self->out, "\"partial\":true,\"salvaged_files\":0,"
			       "\"cut_records\":"));
	free(self->out);
	/* small and without a limit: no estimate, not partial */
	ASSERT_EQ(0, profiler(&self->out, "capture --host -n %s -s %s -N 5 --force-overwrite",
			      self->tiled_prog, prof));
	EXPECT_EQ(NULL, strstr(self->out, "expected for")) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->tiled_prog,
			      prof));
	EXPECT_NE(NULL, strstr(self->out, "\"partial\":false,\"salvaged_files\":0,"
			       "\"cut_records\":0"));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "capture --help"));
	EXPECT_NE(NULL, strstr(self->out, "--max-size BYTES"));
}

/*
 * Issue 28: `capture --host --model NAME` runs on that model, the profile records it and
 * view uses its peaks; diff of two models says so before any figure, with the speed
 * ratio and each model's utilisations; a bad --model is refused naming the valid ones.
 */
TEST_F(view, host_capture_per_model)
{
	static const char *const models[] = { "trn1", "trn2", "trn3" };
	char prof[3][160], want[96];
	char *js = NULL, *p, *q;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		snprintf(prof[i], sizeof(prof[i]), "%s/%s.vntf", self->dir, models[i]);
		free(self->out);
		ASSERT_EQ(0, profiler(&self->out, "capture --host --model %s -q -n %s -s %s",
				      models[i], self->tiled_prog, prof[i])) TH_LOG("%s", self->out);
		free(js);
		ASSERT_EQ(0, profiler(&js, "view -n %s -s %s -f summary-json", self->tiled_prog,
				      prof[i]));
		snprintf(want, sizeof(want), "\"model\":\"%s\"", models[i]);
		EXPECT_NE(NULL, strstr(js, want)) TH_LOG("%s", js);
	}
	/* trn3's TensorE peak (the last summary): 128 x 128 x 2 flops at 2.4 GHz */
	EXPECT_NE(NULL, strstr(js, "\"peak_flops\":7.86432e+13")) TH_LOG("%s", js);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->tiled_prog, prof[1]));
	EXPECT_NE(NULL, strstr(self->out, "model trn2: TensorE 78.6 TFLOP/s, HBM 362 GB/s"))
		TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "diff -n %s %s %s", self->tiled_prog, prof[0],
			      prof[1]));
	p = strstr(self->out, "different device models: A ran on trn1, B on trn2");
	q = strstr(self->out, "total time");
	ASSERT_NE(NULL, p) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, q);
	EXPECT_LT(p, q) TH_LOG("the models are said before any figure");
	EXPECT_NE(NULL, strstr(self->out, "on trn2 than A on trn1; TensorE utilisation "))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "utilisation per model                 trn1"))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "of 91.8 and 78.6 TFLOP/s")) TH_LOG("%s", self->out);
	/* the same model: no such note */
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "diff -n %s %s %s", self->tiled_prog, prof[1],
			      prof[1]));
	EXPECT_EQ(NULL, strstr(self->out, "different device models"));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "capture --host --model trn9 -n %s -s %s/x.vntf",
			      self->tiled_prog, self->dir));
	EXPECT_NE(NULL, strstr(self->out, "--model: unknown model 'trn9' (the models are trn1, "
			       "trn2, trn3)")) TH_LOG("%s", self->out);
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "capture --model trn2 -n %s -s %s/x.vntf",
			      self->tiled_prog, self->dir));
	EXPECT_NE(NULL, strstr(self->out, "--model trn2 is for --host")) TH_LOG("%s", self->out);
	free(js);
}

/*
 * Issue 12: `capture --host --collectives-worker-count 4` runs the ranks as threads of
 * one host communicator: every worker's streams are in the profile with its rank, the
 * collectives meet (CC records on every rank), and a second capture gives the same
 * summary.
 */
TEST_F(view, host_capture_workers)
{
	char prog[160], prof[160], err[256];
	char *a = NULL, *b = NULL;
	struct vntf_reader *r;
	struct vntf_chunk c;
	unsigned int ranks = 0, i;
	uint64_t cc = 0;

	if (access("build/bin/example-mlp-dp", X_OK))
		SKIP(return, "build/bin/example-mlp-dp is not built (make)");
	snprintf(prog, sizeof(prog), "%s/dp.vnef", self->dir);
	snprintf(prof, sizeof(prof), "%s/dp.vntf", self->dir);
	snprintf(err, sizeof(err), "build/bin/example-mlp-dp -q --host --steps 2 --write-vnef %s "
		 "> /dev/null", prog);
	ASSERT_EQ(0, system(err));
	ASSERT_EQ(0, profiler(&self->out, "capture --host -q -n %s -s %s "
			      "--collectives-worker-count 4", prog, prof));
	ASSERT_EQ(0, profiler(&a, "view -n %s -s %s", prog, prof));
	EXPECT_NE(NULL, strstr(a, "4 cores")) TH_LOG("%s", a);
	EXPECT_NE(NULL, strstr(a, "over 4 ranks")) TH_LOG("%s", a);
	ASSERT_EQ(0, vntf_open_file(&r, prof, err, sizeof(err)));
	while (vntf_next(r, &c) > 0)
		for (i = 0; i < c.count; i++)
			cc += c.recs[i].kind == VNEURON_TRACE_CC;
	for (i = 0; i < vntf_reader_info(r)->nr_streams; i++) {
		const struct vntf_worker *w = &vntf_reader_info(r)->streams[i].worker;

		EXPECT_EQ(4, w->nr_workers);
		ranks |= 1u << w->worker;
		/* placed as the module places them: two cores a device */
		EXPECT_EQ(w->worker / 2, w->device);
		EXPECT_EQ(w->worker % 2, w->core);
	}
	EXPECT_EQ(VNTF_BACKEND_HOST, vntf_reader_info(r)->backend);
	vntf_close(r);
	EXPECT_EQ(0xfu, ranks);
	EXPECT_LT(0, (int64_t)cc);
	EXPECT_EQ(0, cc % 4);			/* each collective on every rank */
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "capture --host -q --force-overwrite -n %s -s %s "
			      "--collectives-worker-count 4", prog, prof));
	ASSERT_EQ(0, profiler(&b, "view -n %s -s %s", prog, prof));
	EXPECT_STREQ(a, b);
	free(a);
	free(b);
}

/*
 * Issue 12: the text summary and the web viewer give the same DMA peaks. The viewer
 * labels its counters with summary-json dma.series peaks (profiler/web/viewer.js,
 * counterLabel()), so: the text's "peak X GB/s (bins of T)" and "pending ... peak Y"
 * are the JSON's figures printed the same way, at the JSON's bin size, and the peaks
 * are the highest bins of the series the viewer draws (tests/browser checks the page).
 */
TEST_F(view, dma_series_text_and_json_agree)
{
	char *json = NULL, want[128], bins[32], path[160], cmd[512];
	const char *p;
	double tpk, ppk;

	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --bins 37", self->tiled_prog,
			      self->tiled_prof));
	ASSERT_EQ(0, profiler(&json, "view -n %s -s %s --bins 37 -f summary-json",
			      self->tiled_prog, self->tiled_prof));
	p = strstr(json, "\"throughput_peak_bytes_per_s\":");
	ASSERT_NE(NULL, p);
	tpk = strtod(strchr(p, ':') + 1, NULL);
	p = strstr(json, "\"pending_peak\":");
	ASSERT_NE(NULL, p);
	ppk = strtod(strchr(p, ':') + 1, NULL);
	EXPECT_LT(0, tpk);
	EXPECT_LT(0, ppk);
	p = strstr(json, "\"bin_ps\":");
	ASSERT_NE(NULL, p);
	snprintf(want, sizeof(want), "peak %.2f GB/s (bins of %s)", tpk / 1e9,
		 vnp_fmt_time(strtoull(p + 9, NULL, 10), bins, sizeof(bins)));
	EXPECT_NE(NULL, strstr(self->out, want)) TH_LOG("want '%s' in the text", want);
	snprintf(want, sizeof(want), "pending DMA avg ");
	p = strstr(self->out, want);
	ASSERT_NE(NULL, p);
	snprintf(want, sizeof(want), ", peak %.2f\n", ppk);
	EXPECT_NE(NULL, strstr(p, want)) TH_LOG("want '%s' after 'pending DMA avg'", want);
	/* the peaks are the series' highest bins, 37 of them */
	snprintf(path, sizeof(path), "%s/s.json", self->dir);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --bins 37 -f summary-json -o %s",
			      self->tiled_prog, self->tiled_prof, path));
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; s = json.load(open(sys.argv[1]))"
		 "[\"dma\"][\"series\"]; t, q = s[\"throughput_bytes_per_s\"], s[\"pending\"]; "
		 "near = lambda a, b: abs(a - b) <= 1e-5 * b; sys.exit(not (len(t) == len(q) == 37 and "
		 "near(max(t), s[\"throughput_peak_bytes_per_s\"]) and near(max(q), "
		 "s[\"pending_peak\"])))' %s", path);
	EXPECT_EQ(0, system(cmd));
	free(json);
}

/*
 * Issue 12: SIGINT and SIGTERM during capture's program form are noted, not fatal, so
 * the run stops after the running execution and writes the end section (the device
 * part runs only in the guest; this is the handler capture installs, profiler/options.c).
 */
TEST(capture_signals_are_caught)
{
	struct sigaction old;

	EXPECT_EQ(0, vnp_signalled());
	/* an ignored signal stays ignored (a background job's SIGINT, nohup's SIGHUP) */
	signal(SIGINT, SIG_IGN);
	vnp_catch_signals();
	ASSERT_EQ(0, sigaction(SIGINT, NULL, &old));
	EXPECT_TRUE(old.sa_handler == SIG_IGN);
	EXPECT_EQ(0, raise(SIGINT));
	EXPECT_EQ(0, vnp_signalled());
	/* from here as a foreground run has them, whoever started the test */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	vnp_catch_signals();
	EXPECT_EQ(0, raise(SIGINT));
	EXPECT_EQ(SIGINT, vnp_signalled());
	EXPECT_EQ(0, raise(SIGTERM));
	EXPECT_EQ(SIGINT, vnp_signalled());	/* the first one counts */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

/* Issue 12: the output helper's interrupted path: the old file stays, no temporary. */
TEST(outfile_abort_keeps_the_old_file)
{
	char dir[] = "/tmp/vnp_out_XXXXXX", path[64], msg[256], line[32] = "";
	struct nd_outfile o;
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.vntf", dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("old\n", f);
	fclose(f);
	EXPECT_EQ(-EEXIST, nd_out_open(&o, path, NULL, 0, 0, msg, sizeof(msg)));
	ASSERT_EQ(0, nd_out_open(&o, path, NULL, 0, ND_OUT_FORCE, msg, sizeof(msg)));
	fputs("half a new profile", o.f);
	EXPECT_EQ(2, files_in(dir));
	nd_out_abort(&o);
	EXPECT_EQ(1, files_in(dir));
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	EXPECT_NE(NULL, fgets(line, sizeof(line), f));
	fclose(f);
	EXPECT_STREQ("old\n", line);
	/* committed: replaced whole, with the old file's mode */
	ASSERT_EQ(0, chmod(path, 0640));
	ASSERT_EQ(0, nd_out_open(&o, path, NULL, 0, ND_OUT_FORCE, msg, sizeof(msg)));
	fputs("new\n", o.f);
	EXPECT_EQ(0, nd_out_commit(&o));
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	EXPECT_NE(NULL, fgets(line, sizeof(line), f));
	fclose(f);
	EXPECT_STREQ("new\n", line);
	{
		struct stat st;

		ASSERT_EQ(0, stat(path, &st));
		EXPECT_EQ(0640, st.st_mode & 0777);
	}
	EXPECT_EQ(1, files_in(dir));
	unlink(path);
	rmdir(dir);
}

/* The first line of path, or "" */
static const char *first_line(const char *path, char *line, size_t len)
{
	FILE *f = fopen(path, "r");

	line[0] = '\0';
	if (f) {
		if (!fgets(line, (int)len, f))
			line[0] = '\0';
		fclose(f);
	}
	return line;
}

/*
 * Issue 12: a file created at the output's path between the check and the commit (by
 * someone else) is kept: without --force-overwrite the commit never replaces
 * (renameat2(RENAME_NOREPLACE), or link() + unlink() where that is missing), says so,
 * and keeps the output under its temporary name; with it, the file is replaced.
 */
TEST(outfile_commit_never_replaces_a_newcomer)
{
	static const unsigned int how[] = { 0, ND_OUT_LINK };
	char dir[] = "/tmp/vnp_out_XXXXXX", path[64], msg[512], line[32], kept[128];
	struct nd_outfile o;
	unsigned int i;
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.vntf", dir);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, nd_out_open(&o, path, NULL, 0, how[i], msg, sizeof(msg)));
		fputs("ours\n", o.f);
		f = fopen(path, "wx");		/* someone else's, meanwhile */
		ASSERT_NE(NULL, f);
		fputs("theirs\n", f);
		fclose(f);
		EXPECT_EQ(-EEXIST, nd_out_commit(&o));
		EXPECT_STREQ("theirs\n", first_line(path, line, sizeof(line)));
		ASSERT_NE(NULL, o.kept);
		snprintf(kept, sizeof(kept), "%s", o.kept);
		EXPECT_STREQ("ours\n", first_line(kept, line, sizeof(line)));
		nd_out_strerror(&o, -EEXIST, msg, sizeof(msg));
		EXPECT_NE(NULL, strstr(msg, "was created by someone else")) TH_LOG("%s", msg);
		EXPECT_NE(NULL, strstr(msg, kept)) TH_LOG("%s", msg);
		nd_out_release(&o);
		EXPECT_EQ(2, files_in(dir));
		unlink(kept);
		unlink(path);
		/* nothing there: committed the same way */
		ASSERT_EQ(0, nd_out_open(&o, path, NULL, 0, how[i], msg, sizeof(msg)));
		fputs("ours\n", o.f);
		EXPECT_EQ(0, nd_out_commit(&o));
		EXPECT_STREQ("ours\n", first_line(path, line, sizeof(line)));
		EXPECT_EQ(1, files_in(dir));
		unlink(path);
	}
	/* --force-overwrite: replaced */
	ASSERT_EQ(0, nd_out_open(&o, path, NULL, 0, ND_OUT_FORCE, msg, sizeof(msg)));
	fputs("ours\n", o.f);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("theirs\n", f);
	fclose(f);
	EXPECT_EQ(0, nd_out_commit(&o));
	EXPECT_STREQ("ours\n", first_line(path, line, sizeof(line)));
	EXPECT_EQ(1, files_in(dir));
	unlink(path);
	/* nd_out_write(): the same, in one call */
	EXPECT_EQ(0, nd_out_write(path, "a\n", 2, 0, msg, sizeof(msg)));
	EXPECT_EQ(-EEXIST, nd_out_write(path, "b\n", 2, 0, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "use --force-overwrite")) TH_LOG("%s", msg);
	EXPECT_STREQ("a\n", first_line(path, line, sizeof(line)));
	EXPECT_EQ(0, nd_out_write(path, "b\n", 2, ND_OUT_FORCE, msg, sizeof(msg)));
	EXPECT_STREQ("b\n", first_line(path, line, sizeof(line)));
	unlink(path);
	rmdir(dir);
}

/*
 * Issue 12: the examples' --write-vnef goes through the output helper: an existing file
 * is refused before anything runs (status 2, the file intact), --force-overwrite
 * replaces it.
 */
TEST(examples_write_vnef_never_overwrites)
{
	char dir[] = "/tmp/vnp_ex_XXXXXX", path[64], *out = NULL, line[32];
	FILE *f;

	if (access("build/bin/example-exp", X_OK))
		SKIP(return, "build/bin/example-exp is not built (make)");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/e.vnef", dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("keep\n", f);
	fclose(f);
	snprintf(line, sizeof(line), "%s", "");
	{
		char cmd[256];
		int st;

		snprintf(cmd, sizeof(cmd), "build/bin/example-exp -q --host --variant naive "
			 "--write-vnef %s 2>&1", path);
		f = popen(cmd, "r");
		ASSERT_NE(NULL, f);
		out = calloc(1, 4096);
		ASSERT_NE(NULL, out);
		if (!fread(out, 1, 4095, f))
			out[0] = '\0';
		st = pclose(f);
		EXPECT_EQ(2, WEXITSTATUS(st));
		EXPECT_NE(NULL, strstr(out, "exists; use --force-overwrite")) TH_LOG("%s", out);
		EXPECT_STREQ("keep\n", first_line(path, line, sizeof(line)));
		snprintf(cmd, sizeof(cmd), "build/bin/example-exp -q --host --variant naive "
			 "--write-vnef %s --force-overwrite > /dev/null", path);
		EXPECT_EQ(0, system(cmd));
		EXPECT_NE(0, strcmp("keep\n", first_line(path, line, sizeof(line))));
		EXPECT_EQ(1, files_in(dir));
	}
	free(out);
	unlink(path);
	rmdir(dir);
}

/* Issue 16, "One clock": view --clock host on an application's profile, and its errors. */
TEST_F(view, host_clock_option)
{
	static const unsigned int prog[3] = { 0, 0, 0 };
	char app[160], pf[200];

	snprintf(app, sizeof(app), "%s/clock.vntf", self->dir);
	ASSERT_EQ(0, capture_app(app, prog, 3, 1, 99));
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --clock host", self->naive_prog,
			      app));
	/* the host backend's EXEC_START records carry no host time: said so */
	EXPECT_NE(NULL, strstr(self->out, "\nClock: host (no execution has an EXEC_START "
			       "host time"));
	if (getenv("VNP_DUMP"))
		fputs(self->out, stderr);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --clock host -f summary-json",
			      self->naive_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "\"clock\":{\"axis\":\"host\",\"host_base_ns\":"));
	free(self->out);
	snprintf(pf, sizeof(pf), "%s/clock.pftrace", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --clock host -f perfetto -o %s",
			      self->naive_prog, app, pf));
	free(self->out);
	/* the default is the modeled clock */
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->naive_prog,
			      app));
	EXPECT_NE(NULL, strstr(self->out, "\"clock\":{\"axis\":\"model\"}"));
	EXPECT_EQ(NULL, strstr(self->out, "Clock: host"));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s --clock wall", self->naive_prog,
			      app));
	EXPECT_NE(NULL, strstr(self->out, "--clock needs host or model"));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view --help"));
	EXPECT_NE(NULL, strstr(self->out, "--clock CLOCK"));
	EXPECT_NE(NULL, strstr(self->out, "--web-detail N"));
	free(self->out);
	/* the web viewer's summary-level threshold: 1..2^32-1 events */
	{
		static const char *const bad[] = { "0", "x", "4294967296", "-1", "" };
		unsigned int i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -f html "
					      "--web-detail '%s'", self->naive_prog, app, bad[i]));
			EXPECT_NE(NULL, strstr(self->out, "--web-detail needs 1..4294967295 events"))
				TH_LOG("%s: %s", bad[i], self->out);
			free(self->out);
		}
	}
	self->out = NULL;
}

/*
 * --memory-limit holds while reading: a hostile profile (every instruction record its
 * own shape, so the timeline takes far more than the estimate of 20 bytes a record) passes
 * the estimate made from its size, then the store outgrows the limit and the command
 * stops with the refusal; with room it is read whole.
 */
TEST_F(view, memory_limit_holds_while_reading)
{
	enum { N = 4 * 65536 };
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_worker wk = { .stream = 0, .nr_workers = 1, .ring_size = 1 << 20,
				  .engine = 0 };
	struct vneuron_trace_record *r = calloc(N, sizeof(*r));
	struct vntf_program prog;
	struct vntf_writer *w;
	char path[160];
	size_t size, i;
	void *img;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, build(0, &img, &size));
	identity(img, size, "exp", &prog);
	free(img);
	for (i = 0; i < N; i++) {
		r[i].kind = VNEURON_TRACE_INSN;
		r[i].opcode = VNEF_OP_COPY;
		r[i].exec_seq = 1;
		r[i].model_start_ps = i * 1000;
		r[i].model_end_ps = i * 1000 + 500;
		r[i].flops = i + 1;		/* a shape of its own */
		r[i].bytes = (uint32_t)i;
		r[i].sem_wait = VNEURON_TRACE_NO_SEM;
		r[i].sem_signal = VNEURON_TRACE_NO_SEM;
	}
	snprintf(path, sizeof(path), "%s/hostile.vntf", self->dir);
	ASSERT_EQ(0, vntf_writer_open(&w, path));
	ASSERT_EQ(0, vntf_write_model(w, &vn_model_trn1));
	ASSERT_EQ(0, vntf_write_clock(w, &clk));
	ASSERT_EQ(0, vntf_write_program(w, &prog, NULL, 0));
	ASSERT_EQ(0, vntf_write_worker(w, &wk));
	ASSERT_EQ(0, vntf_write_records(w, 0, r, N));
	ASSERT_EQ(0, vntf_writer_finish(w, 1));
	free(r);
	/* 16 MiB of records: the estimate, 5 MiB, fits in 8 */
	EXPECT_NE(0, profiler(&self->out, "view -n %s -s %s --memory-limit 8M",
			      self->naive_prog, path));
	EXPECT_NE(NULL, strstr(self->out, "the timeline outgrew --memory-limit (8.0 MiB) at "))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "raise it to read the profiles whole"));
	free(self->out);
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s --memory-limit 1G",
			      self->naive_prog, path)) TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "outgrew"));
}

TEST_HARNESS_MAIN
