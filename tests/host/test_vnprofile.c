// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libvnprofile's public API (profiler/vnprofile.h) as a user of the library sees it:
 * a profile of a real kernel run on the host backend read through the API, its typed
 * figures, findings, executions and event array equal to what the json and
 * summary-json outputs say, programs in memory and in directories, every output
 * written atomically, the refusals with their messages, and a capture around host
 * handles. Only vnprofile.h and libvnprog's vnprog.h are used, as the Python package
 * does (vnp_kernel.h only writes the profiles).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vnprog.h"
#include "../../profiler/vnprofile.h"
#include "vnp_kernel.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

/* The same kernel with its ScalarE step doubled: another program. */
static const char chain2[] =
	".program \"chain2\"\n.tensor x input fp32 [128, 128]\n.tensor y output fp32 [128, 128]\n"
	".queue 0\n\tdma sbuf[0; 0, 1]@0x0, x@0x0[0, 512], 1 x 128 x 512 signal s0\n"
	".engine scalar\n"
	"\tactivate exp sbuf.fp32[0:128]@0x0[2048], sbuf.fp32[0:128]@0x0[2048], 1.0, 0.0 "
	"wait s0 >= 1\n"
	"\tactivate exp sbuf.fp32[0:128]@0x0[2048], sbuf.fp32[0:128]@0x0[2048], 1.0, 0.0 "
	"signal s1\n"
	".queue 1\n\tdma y@0x0[0, 512], sbuf[0; 0, 1]@0x0, 1 x 128 x 512 wait s1 >= 1\n";

/* Messages the library printed, one line each. */
static char said[16384];

static void collect(enum vnprofile_level level, const char *msg)
{
	size_t n = strlen(said);

	snprintf(said + n, sizeof(said) - n, "%d %s\n", (int)level, msg);
}

/* A whole output as a string (the caller frees it); NULL if it failed. */
static char *output(struct vnprofile *p, enum vnprofile_format fmt)
{
	char *buf;
	size_t len;

	return vnprofile_write_buf(p, fmt, &buf, &len) ? NULL : buf;
}

/* The number after "key": in s (from s on), or -1. */
static long long jnum(const char *s, const char *key)
{
	char k[64];
	const char *at;

	snprintf(k, sizeof(k), "\"%s\":", key);
	at = strstr(s, k);
	return at ? strtoll(at + strlen(k), NULL, 10) : -1;
}

/* The string after "key": in s into buf ("" if none; no escapes in these kernels). */
static const char *jstr(const char *s, const char *key, char *buf, size_t len)
{
	char k[64];
	const char *at, *end;

	buf[0] = 0;
	snprintf(k, sizeof(k), "\"%s\":\"", key);
	at = strstr(s, k);
	if (!at)
		return buf;
	at += strlen(k);
	end = strchr(at, '"');
	snprintf(buf, len, "%.*s", (int)(end - at), at);
	return buf;
}

FIXTURE(api) {
	char dir[64];
	char prog[128], prof[128], prog2[128], prof2[128];
};

FIXTURE_SETUP(api)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/vnp-api-XXXXXX");
	ASSERT_NE(mkdtemp(self->dir), NULL);
	ASSERT_EQ(kern_save(vnp_chain, self->dir, "chain"), 0);
	ASSERT_EQ(kern_save(chain2, self->dir, "chain2"), 0);
	snprintf(self->prog, sizeof(self->prog), "%s/chain.vnef", self->dir);
	snprintf(self->prof, sizeof(self->prof), "%s/chain.vntf", self->dir);
	snprintf(self->prog2, sizeof(self->prog2), "%s/chain2.vnef", self->dir);
	snprintf(self->prof2, sizeof(self->prof2), "%s/chain2.vntf", self->dir);
	said[0] = 0;
	vnprofile_set_print(collect);
}

FIXTURE_TEARDOWN(api)
{
	char cmd[128];

	vnprofile_set_print(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		perror("rm");
}

/* The profile of chain with its program, loaded, view 0 read. */
static struct vnprofile *open_chain(const char *prog, const char *prof,
				    const struct vnprofile_view **v)
{
	struct vnprofile_opts o = { .sz = sizeof(o), .profiles = &prof, .nprofiles = 1,
				    .programs = &prog, .nprograms = 1 };
	struct vnprofile *p;

	if (vnprofile_open(&p, &o))
		return NULL;
	if (vnprofile_load(p) || vnprofile_view(p, 0, v)) {
		vnprofile_close(p);
		return NULL;
	}
	return p;
}

TEST_F(api, figures_equal_the_summary_json)
{
	const struct vnprofile_view *v;
	struct vnprofile *p = open_chain(self->prog, self->prof, &v);
	struct vnprofile_summary s;
	struct vnprofile_finding f;
	char *json, buf[256];
	const char *at;
	unsigned int i;

	ASSERT_NE(p, NULL);
	EXPECT_EQ(vnprofile_nviews(p), 1);
	vnprofile_view_summary(v, &s);
	json = output(p, VNPROFILE_SUMMARY_JSON);
	ASSERT_NE(json, NULL);
	EXPECT_STREQ(s.program, "chain");
	EXPECT_STREQ(s.program_path, self->prog);
	EXPECT_EQ(s.total_time_ps, jnum(json, "total_time_ps"));
	EXPECT_EQ(s.critical_path_ps, jnum(json, "critical_path_ps"));
	EXPECT_EQ(s.event_count, jnum(json, "event_count"));
	EXPECT_EQ(s.executions, jnum(json, "executions"));
	EXPECT_EQ(s.dma_count, 2);
	EXPECT_EQ(s.event_count, 4);
	/* the chain is the whole execution: latency-bound, its path the total */
	EXPECT_STREQ(s.class_id, "latency-bound");
	EXPECT_STREQ(s.class_id, jstr(json, "class", buf, sizeof(buf)));
	EXPECT_STREQ(s.class_label, jstr(json, "class_label", buf, sizeof(buf)));
	EXPECT_EQ(s.critical_path_ps, s.total_time_ps);
	EXPECT_GT(s.findings, 0);
	/* the findings in the advice's order, with their gains */
	at = strstr(json, "\"advice\":[");
	ASSERT_NE(at, NULL);
	for (i = 0; i < s.findings; i++) {
		ASSERT_EQ(vnprofile_view_finding(v, i, &f), 0);
		at = strstr(at, "{\"rule\":");
		ASSERT_NE(at, NULL);
		EXPECT_STREQ(f.rule, jstr(at, "rule", buf, sizeof(buf)));
		EXPECT_EQ((long long)f.saved_ps, jnum(at, "saved_ps"));
		EXPECT_STREQ(f.gain, jstr(at, "gain", buf, sizeof(buf)));
		at++;
	}
	EXPECT_EQ(vnprofile_view_finding(v, s.findings, &f), -ERANGE);
	free(json);
	vnprofile_close(p);
}

TEST_F(api, events_equal_the_json_events)
{
	const struct vnprofile_view *v;
	struct vnprofile *p = open_chain(self->prog, self->prof, &v);
	const struct vnprofile_event *ev;
	const char *const *str;
	struct vnprofile_core c;
	size_t n, ns, i;
	char *json, buf[256], sn[32];
	const char *at;

	/* the layout docs/python.md's structured dtype relies on */
	EXPECT_EQ(sizeof(struct vnprofile_event), 80);
	EXPECT_EQ(offsetof(struct vnprofile_event, cc_wait_ps), 32);
	EXPECT_EQ(offsetof(struct vnprofile_event, bytes), 40);
	EXPECT_EQ(offsetof(struct vnprofile_event, scope), 64);
	EXPECT_EQ(offsetof(struct vnprofile_event, opcode), 68);
	EXPECT_EQ(offsetof(struct vnprofile_event, core), 76);
	EXPECT_EQ(offsetof(struct vnprofile_event, queue), 79);
	ASSERT_NE(p, NULL);
	ev = vnprofile_view_events(v, &n);
	str = vnprofile_view_strings(v, &ns);
	ASSERT_NE(ev, NULL);
	ASSERT_NE(str, NULL);
	EXPECT_EQ(n, 4);
	EXPECT_STREQ(str[0], "");
	/* a second call gives the same arrays */
	EXPECT_EQ(vnprofile_view_events(v, &i), ev);
	json = output(p, VNPROFILE_JSON);
	ASSERT_NE(json, NULL);
	at = strstr(json, "\"events\":[");
	ASSERT_NE(at, NULL);
	for (i = 0; i < n; i++) {
		at = strstr(at, "\n{\"core\":");
		ASSERT_NE(at, NULL);
		at++;
		EXPECT_EQ(ev[i].core, jnum(at, "core"));
		EXPECT_EQ(ev[i].pc, jnum(at, "pc"));
		EXPECT_EQ(ev[i].exec, jnum(at, "exec"));
		EXPECT_EQ(ev[i].start_ps, jnum(at, "start_ps"));
		EXPECT_EQ(ev[i].end_ps, jnum(at, "end_ps"));
		EXPECT_EQ(ev[i].bytes, jnum(at, "bytes"));
		EXPECT_EQ(ev[i].flops, jnum(at, "flops"));
		EXPECT_STREQ(vnprofile_opcode_name(ev[i].opcode), jstr(at, "opcode", buf, sizeof(buf)));
		EXPECT_STREQ(vnprofile_stream_name(ev[i].stream, sn, sizeof(sn)),
			     jstr(at, "engine", buf, sizeof(buf)));
		ASSERT_LT(ev[i].file, ns);
		ASSERT_LT(ev[i].scope, ns);
		EXPECT_STREQ(str[ev[i].file], jstr(at, "file", buf, sizeof(buf)));
		EXPECT_EQ(ev[i].line, jnum(at, "line"));
		EXPECT_STREQ(str[ev[i].scope], jstr(at, "scope", buf, sizeof(buf)));
		EXPECT_EQ(ev[i].engine == VNPROFILE_ENGINE_DMA, ev[i].queue != VNPROFILE_NONE8);
		EXPECT_EQ(ev[i].worker, 0);
		if (i)
			EXPECT_GE(ev[i].start_ps, ev[i - 1].start_ps);
	}
	/* the chain: load, scale on VectorE, exp on ScalarE, store; each waits for the last */
	EXPECT_STREQ(vnprofile_engine_name(ev[1].engine), "VectorE");
	EXPECT_STREQ(str[ev[2].scope], "chain/exp");
	EXPECT_EQ(ev[1].sem_wait, 0);
	EXPECT_EQ(ev[0].sem_wait, VNPROFILE_NONE16);
	EXPECT_EQ(ev[3].queue, 1);
	EXPECT_EQ(vnprofile_view_cores(v), 1);
	ASSERT_EQ(vnprofile_view_core(v, 0, &c), 0);
	EXPECT_STREQ(c.label, "worker 0 core 0");
	EXPECT_EQ(vnprofile_view_core(v, 1, &c), -ERANGE);
	free(json);
	vnprofile_close(p);
}

TEST_F(api, executions)
{
	const struct vnprofile_view *v;
	struct vnprofile *p = open_chain(self->prog, self->prof, &v);
	const struct vnprofile_exec *x;
	struct vnprofile_summary s;
	size_t n;

	ASSERT_NE(p, NULL);
	vnprofile_view_summary(v, &s);
	x = vnprofile_view_execs(v, &n);
	ASSERT_NE(x, NULL);
	ASSERT_EQ(n, s.executions);
	ASSERT_EQ(n, 1);
	EXPECT_EQ(x[0].exec, 1);
	EXPECT_EQ(x[0].core, 0);
	EXPECT_EQ(x[0].model_ps, x[0].end_ps - x[0].start_ps);
	EXPECT_EQ(x[0].model_ps, s.total_time_ps);
	/* kern_save writes no EXEC_END: no status */
	EXPECT_EQ(x[0].status, VNPROFILE_STATUS_NONE);
	EXPECT_STREQ(vnprofile_exec_status_name(0), "OK");
	vnprofile_close(p);
}

TEST_F(api, programs_in_memory_and_in_a_directory)
{
	const struct vnprofile_view *v, *w;
	struct vnprofile *p = open_chain(self->prog, self->prof, &v), *q, *d;
	struct vnprofile_summary a, b;
	struct vnprofile_image img = { .name = "chain (memory)" };
	struct vnprofile_opts o = { .sz = sizeof(o), .nprofiles = 1, .images = &img,
				    .nimages = 1 };
	const char *prof = self->prof, *dir = self->dir;
	char *t1, *t2;

	ASSERT_NE(p, NULL);
	o.profiles = &prof;
	ASSERT_EQ(nd_read_file(self->prog, 1 << 24, (void **)&img.data, &img.size), 0);
	ASSERT_EQ(vnprofile_open(&q, &o), 0);
	free((void *)img.data);		/* copied by open */
	ASSERT_EQ(vnprofile_load(q), 0);
	ASSERT_EQ(vnprofile_view(q, 0, &w), 0);
	vnprofile_view_summary(v, &a);
	vnprofile_view_summary(w, &b);
	EXPECT_EQ(a.total_time_ps, b.total_time_ps);
	EXPECT_EQ(a.findings, b.findings);
	EXPECT_STREQ(b.program_path, "chain (memory)");
	/* a directory of programs: the one the profile ran is found by its hash */
	o.images = NULL;
	o.nimages = 0;
	o.programs = &dir;
	o.nprograms = 1;
	ASSERT_EQ(vnprofile_open(&d, &o), 0);
	ASSERT_EQ(vnprofile_load(d), 0);
	t1 = output(p, VNPROFILE_SUMMARY_JSON);
	t2 = output(d, VNPROFILE_SUMMARY_JSON);
	ASSERT_NE(t1, NULL);
	ASSERT_NE(t2, NULL);
	EXPECT_STREQ(t1, t2);
	free(t1);
	free(t2);
	vnprofile_close(d);
	vnprofile_close(q);
	vnprofile_close(p);
}

TEST_F(api, refusals_say_why)
{
	struct vnprofile_opts o = { .sz = sizeof(o), .nprofiles = 1, .nprograms = 1 };
	const char *prof = self->prof, *other = self->prog2, *missing = "/nonexistent.vntf";
	const struct vnprofile_view *v;
	struct vnprofile *p;

	/* nothing to read */
	EXPECT_EQ(vnprofile_open(&p, &o), -EINVAL);
	EXPECT_EQ(p, NULL);
	EXPECT_NE(strstr(vnprofile_last_error(), "needs one or more profiles"), NULL);
	/* another program than the profile's */
	o.profiles = &prof;
	o.programs = &other;
	ASSERT_EQ(vnprofile_open(&p, &o), 0);
	EXPECT_EQ(vnprofile_load(p), -EINVAL);
	EXPECT_NE(strstr(vnprofile_last_error(), "do not belong together"), NULL);
	EXPECT_NE(strstr(said, "do not belong together"), NULL);
	/* the list of what it ran, the missing marked */
	EXPECT_NE(strstr(said, "\n  \"chain\" ("), NULL);
	EXPECT_NE(strstr(said, ": missing"), NULL);
	EXPECT_EQ(vnprofile_view(p, 0, &v), -ERANGE);
	vnprofile_close(p);
	/* a profile that is not there */
	o.profiles = &missing;
	o.programs = &other;
	ASSERT_EQ(vnprofile_open(&p, &o), 0);
	EXPECT_NE(vnprofile_load(p), 0);
	EXPECT_NE(strstr(vnprofile_last_error(), "/nonexistent.vntf"), NULL);
	EXPECT_EQ(vnprofile_nviews(p), 0);
	vnprofile_close(p);
	/* --only naming no program */
	o.profiles = &prof;
	o.programs = (const char *const[]){ self->prog };
	o.only = "nosuchprogram";
	ASSERT_EQ(vnprofile_open(&p, &o), 0);
	EXPECT_EQ(vnprofile_load(p), -EDOM);
	EXPECT_NE(strstr(vnprofile_last_error(), "--only nosuchprogram: none"), NULL);
	vnprofile_close(p);
	/* formats by name */
	enum vnprofile_format fmt;

	EXPECT_EQ(vnprofile_format_parse("perfetto", &fmt), 0);
	EXPECT_EQ(fmt, VNPROFILE_PERFETTO);
	EXPECT_EQ(vnprofile_format_parse("pdf", &fmt), -EINVAL);
	EXPECT_NE(strstr(vnprofile_last_error(), "unknown output format 'pdf'"), NULL);
	EXPECT_TRUE(vnprofile_format_binary(VNPROFILE_HTML));
	EXPECT_FALSE(vnprofile_format_binary(VNPROFILE_JSON));
}

TEST_F(api, write_file_is_atomic_and_never_replaces_an_input)
{
	const struct vnprofile_view *v;
	struct vnprofile *p = open_chain(self->prog, self->prof, &v);
	char path[160], *want, *got = NULL;
	size_t len;
	unsigned int fmt;
	struct stat st;

	ASSERT_NE(p, NULL);
	snprintf(path, sizeof(path), "%s/out", self->dir);
	for (fmt = 0; fmt < VNPROFILE_FORMATS; fmt++) {
		unlink(path);
		ASSERT_EQ(vnprofile_write_file(p, fmt, path, 0), 0);
		want = output(p, fmt);
		ASSERT_NE(want, NULL);
		ASSERT_EQ(nd_read_file(path, 1 << 28, (void **)&got, &len), 0);
		EXPECT_GT(len, 0);
		EXPECT_EQ(memcmp(got, want, len), 0);
		free(got);
		free(want);
	}
	/* an existing file stays without VNPROFILE_FORCE; replaced with it */
	EXPECT_EQ(vnprofile_write_file(p, VNPROFILE_SUMMARY_TEXT, path, 0), -EEXIST);
	ASSERT_EQ(stat(path, &st), 0);
	EXPECT_GT(st.st_size, 1000);		/* still the html */
	EXPECT_EQ(vnprofile_write_file(p, VNPROFILE_SUMMARY_TEXT, path, VNPROFILE_FORCE), 0);
	ASSERT_EQ(stat(path, &st), 0);
	EXPECT_LT(st.st_size, 20000);
	/* never an input, even with force */
	EXPECT_EQ(vnprofile_check_output(p, self->prof, 1), -EINVAL);
	EXPECT_EQ(vnprofile_write_file(p, VNPROFILE_JSON, self->prof, VNPROFILE_FORCE), -EINVAL);
	EXPECT_NE(strstr(vnprofile_last_error(), "would overwrite the input"), NULL);
	vnprofile_close(p);
}

TEST_F(api, diff_of_two_profiles)
{
	struct vnprofile_opts o = { .sz = sizeof(o), .nprofiles = 1, .nprograms = 1,
				    .flags = VNPROFILE_ONE_PROGRAM | VNPROFILE_NO_REPLAY };
	const struct vnprofile_view *v;
	struct vnprofile *a, *b;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	o.profiles = (const char *const[]){ self->prof };
	o.programs = (const char *const[]){ self->prog };
	ASSERT_EQ(vnprofile_open(&a, &o), 0);
	ASSERT_EQ(vnprofile_load(a) ?: vnprofile_view(a, 0, &v), 0);
	o.profiles = (const char *const[]){ self->prof2 };
	o.programs = (const char *const[]){ self->prog2 };
	ASSERT_EQ(vnprofile_open(&b, &o), 0);
	ASSERT_EQ(vnprofile_load(b) ?: vnprofile_view(b, 0, &v), 0);
	f = open_memstream(&buf, &len);
	ASSERT_NE(f, NULL);
	EXPECT_EQ(vnprofile_write_diff(f, a, "A.vntf", b, "B.vntf"), 0);
	fclose(f);
	EXPECT_NE(strstr(buf, "vneuron-profile diff: A A.vntf (chain), B B.vntf (chain2)"), NULL);
	EXPECT_NE(strstr(buf, "chain/scale"), NULL);
	EXPECT_NE(strstr(buf, "(gone)"), NULL);
	free(buf);
	vnprofile_close(a);
	vnprofile_close(b);
}

/* Binds the chain's tensors to zeroed buffers and runs it on h. */
static int run_chain(struct nd_host *h, const void *img, size_t size)
{
	static float x[128 * 128], y[128 * 128];
	struct nd_host_tensor t[2] = { { "x", x, sizeof(x) }, { "y", y, sizeof(y) } };
	struct nd_run_result res;

	return nd_host_run(h, img, size, t, 2, 0, &res);
}

TEST_F(api, capture_around_host_handles)
{
	struct vnprofile_target t = { .device = 0, .core = 0 };
	struct vnprofile_capture_opts o = { .sz = sizeof(o), .targets = &t, .ntargets = 1,
					    .flags = VNPROFILE_CAPTURE_QUIET };
	struct vnprofile_capture *c;
	const struct vnprofile_view *v;
	struct vnprofile_summary s;
	struct vnprofile *p;
	const struct vnprofile_exec *x;
	struct nd_error err;
	char path[160];
	void *img;
	size_t size, n;

	ASSERT_EQ(nd_read_file(self->prog, 1 << 24, &img, &size), 0);
	ASSERT_EQ(nd_host_open(NULL, &t.host, &err), 0);
	o.program = img;
	o.program_size = size;
	o.inputs = (const char *const[]){ self->prog };
	o.ninputs = 1;
	snprintf(path, sizeof(path), "%s/cap.vntf", self->dir);
	/* never the program, nor an existing file */
	EXPECT_EQ(vnprofile_capture_open(&c, self->prog, &o), -EINVAL);
	ASSERT_EQ(vnprofile_capture_open(&c, path, &o), 0);
	/* untraced before start */
	ASSERT_EQ(run_chain(t.host, img, size), 0);
	ASSERT_EQ(vnprofile_capture_start(c), 0);
	EXPECT_EQ(vnprofile_capture_start(c), -EBUSY);
	ASSERT_EQ(run_chain(t.host, img, size), 0);
	ASSERT_EQ(run_chain(t.host, img, size), 0);
	EXPECT_NE(access(path, F_OK), 0);	/* nothing under the name until finished */
	ASSERT_EQ(vnprofile_capture_finish(c, 0), 0);
	EXPECT_GT(vnprofile_capture_records(c), 0);
	vnprofile_capture_close(c);
	ASSERT_EQ(access(path, F_OK), 0);
	EXPECT_EQ(vnprofile_capture_open(&c, path, &o), -EEXIST);
	/* the host handle is the caller's: still usable */
	ASSERT_EQ(run_chain(t.host, img, size), 0);
	nd_host_close(t.host);
	p = open_chain(self->prog, path, &v);
	ASSERT_NE(p, NULL);
	vnprofile_view_summary(v, &s);
	EXPECT_EQ(s.executions, 2);
	EXPECT_EQ(s.event_count, 8);
	EXPECT_STREQ(s.backend, "host");
	x = vnprofile_view_execs(v, &n);
	ASSERT_EQ(n, 2);
	EXPECT_EQ(x[0].status, 0);
	EXPECT_EQ(x[1].status, 0);
	EXPECT_EQ(x[0].model_ps, x[1].model_ps);
	vnprofile_close(p);
	free(img);
}

/*
 * VNPROFILE_CAPTURE_LNC2 of device cores (logical cores launched with nd_set_lnc()): the
 * refusals that need no module, each said; tests/guest/lnc_test.c captures on one.
 */
TEST_F(api, lnc2_device_capture_refusals)
{
	struct vnprofile_target t[9] = { { .device = 0, .core = 0 } };
	struct vnprofile_capture_opts o = { .sz = sizeof(o), .targets = t, .ntargets = 1,
					    .flags = VNPROFILE_CAPTURE_QUIET |
						     VNPROFILE_CAPTURE_LNC2 };
	struct vnprofile_capture *c;
	char path[160];

	snprintf(path, sizeof(path), "%s/lnc.vntf", self->dir);
	o.ntargets = 0;
	EXPECT_EQ(vnprofile_capture_open(&c, path, &o), -EINVAL);
	EXPECT_NE(strstr(vnprofile_last_error(), "name the logical cores"), NULL)
		TH_LOG("%s", vnprofile_last_error());
	o.ntargets = 1;
	o.flags |= VNPROFILE_CAPTURE_WORKERS;
	EXPECT_EQ(vnprofile_capture_open(&c, path, &o), -EINVAL);
	EXPECT_NE(strstr(vnprofile_last_error(), "cannot be collectives workers"), NULL)
		TH_LOG("%s", vnprofile_last_error());
	o.flags &= ~VNPROFILE_CAPTURE_WORKERS;
	o.ntargets = 9;		/* 18 physical cores: past VNPROFILE_CAPTURE_MAX_TARGETS */
	EXPECT_EQ(vnprofile_capture_open(&c, path, &o), -E2BIG);
	EXPECT_NE(strstr(vnprofile_last_error(), "at most 8 logical cores"), NULL)
		TH_LOG("%s", vnprofile_last_error());
	EXPECT_NE(access(path, F_OK), 0);
}

TEST_HARNESS_MAIN
