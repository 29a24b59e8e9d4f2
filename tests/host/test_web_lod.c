// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The web viewer's summary level (profiler/output/web_lod.c): past the threshold the
 * data carries bins instead of events; a window's answer keeps the page's rows with the
 * window's events only (and what started before it and still runs), or says it holds
 * too many; the /events query parser refuses every malformed, duplicated, unknown,
 * overflowing or out-of-range parameter with a message naming it.
 */
#include <errno.h>
#include <stdio.h>

#include "vnp_synth.h"
#include "../../profiler/output/web_priv.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

/* Times in ns: LoadStationary 0-10, MultiplyMoving 10-50 and 50-90, VectorE 90-120. */
static struct synth *make(void)
{
	struct synth *s = synth_new();

	synth_insn(s, 0, VNEF_OP_LOAD_STATIONARY, 0, 10, 0);
	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 10, 50, 1000);
	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 50, 90, 1000);
	synth_insn(s, 1, VNEF_OP_TENSOR_TENSOR, 90, 120, 0);
	return s;
}

static char *data(struct synth *s)
{
	struct vnp_view v = { .tl = &s->tl, .m = &s->m, .a = &s->a, .top = 10 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (vnp_web_data(f, &v, NULL)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

static char *window(struct synth *s, unsigned int core, uint64_t t0, uint64_t t1)
{
	struct vnp_view v = { .tl = &s->tl, .m = &s->m, .a = &s->a, .top = 10 };
	struct vnp_web_win w = { .core = core, .t0 = t0, .t1 = t1 };
	struct vnp_web_index *ix = vnp_web_index(&s->tl);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int ret = f && ix ? vnp_web_window_json(f, &v, ix, &w) : -ENOMEM;

	if (f)
		fclose(f);
	free(ix);
	if (ret) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Element k of the JSON array of numbers at a ("\"x\":[1,2,...]"), or -1. */
static long long nth(const char *a, unsigned int k)
{
	char *end;

	if (!a || !(a = strchr(a, '[')))
		return -1;
	for (a++; k; k--) {
		a = strchr(a, ',');
		if (!a)
			return -1;
		a++;
	}
	return strtoll(a, &end, 10);
}

static unsigned int count(const char *s, const char *what)
{
	unsigned int n = 0;

	while (s && (s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

TEST(small_profiles_keep_their_events)
{
	struct synth *s = make();
	char *d;

	ASSERT_EQ(0, synth_run(s, 0));
	d = data(s);
	ASSERT_NE(NULL, d);
	EXPECT_EQ(NULL, strstr(d, "\"lod\""));
	EXPECT_EQ(NULL, strstr(d, "\"bins\""));
	EXPECT_NE(NULL, strstr(d, "\"name\":\"TensorE MultiplyMoving\",\"stream\":0,\"dma\":0,"
			       "\"n\":2,\"s\":[10000,40000]")) TH_LOG("%s", d);
	free(d);
	synth_free(s);
}

TEST(past_the_threshold_rows_carry_bins)
{
	struct synth *s = make();
	char *d, *p;

	ASSERT_EQ(0, synth_run(s, 0));
	vnp_web_detail_events = 3;
	d = data(s);
	vnp_web_detail_events = VNP_WEB_DETAIL_EVENTS;
	ASSERT_NE(NULL, d);
	/* 120 ns in 4096 bins of 30 ps (120000 / 4096 + 1) */
	EXPECT_NE(NULL, strstr(d, "\"lod\":{\"bins\":4096,\"bin_ps\":30,\"events\":4,"
			       "\"threshold\":3,")) TH_LOG("%.300s", d);
	p = strstr(d, "\n\"cores\":[");
	ASSERT_NE(NULL, p);
	EXPECT_EQ(NULL, strstr(p, "\"s\":["));	/* no event columns in the rows */
	p = strstr(d, "\"name\":\"TensorE MultiplyMoving\"");
	ASSERT_NE(NULL, p);
	EXPECT_NE(NULL, strstr(p, "\"n\":2,\"bins\":{\"b\":[")) TH_LOG("%.200s", p);
	/* busy from 10 ns on: bin 333 (9990..10020 ps) holds 20 ps, the next 30, none before */
	EXPECT_EQ(0, nth(strstr(p, "\"b\":["), 332));
	EXPECT_EQ(20, nth(strstr(p, "\"b\":["), 333));
	EXPECT_EQ(30, nth(strstr(p, "\"b\":["), 334));
	EXPECT_EQ(1, nth(strstr(p, "\"k\":["), 333));	/* one started there */
	EXPECT_EQ(0, nth(strstr(p, "\"k\":["), 334));
	EXPECT_EQ(VNEF_OP_MULTIPLY_MOVING, nth(strstr(p, "\"o\":["), 333));
	free(d);
	synth_free(s);
}

TEST(a_window_holds_what_overlaps_it)
{
	struct synth *s = make();
	char *w, *p, *d;

	ASSERT_EQ(0, synth_run(s, 0));
	/* 60-70 ns: the second MultiplyMoving (50-90) runs through it; LoadStationary not */
	w = window(s, 0, 60000, 70000);
	ASSERT_NE(NULL, w);
	EXPECT_EQ(0, strncmp(w, "{\"core\":0,\"t0\":60000,\"t1\":70000,\"n\":1,", 38))
		TH_LOG("%s", w);
	p = strstr(w, "\"name\":\"TensorE MultiplyMoving\"");
	ASSERT_NE(NULL, p);
	/* what started before 60 ns but may still run (the track's longest, 40 ns, back) */
	EXPECT_NE(NULL, strstr(p, "\"n\":1,\"s\":[50000],\"d\":[40000]")) TH_LOG("%s", w);
	p = strstr(w, "\"name\":\"TensorE LoadStationary\"");
	ASSERT_NE(NULL, p);
	EXPECT_NE(NULL, strstr(p, "\"n\":0,\"s\":[]")) TH_LOG("%s", w);
	/* the page's rows, no more: no "TensorE other", no DMA queue without events */
	d = data(s);
	ASSERT_NE(NULL, d);
	EXPECT_EQ(count(strstr(d, "\n\"cores\":["), "{\"name\":"), count(w, "{\"name\":"));
	EXPECT_EQ(NULL, strstr(w, "TensorE other"));
	free(d);
	free(w);
	/* the rows are the page's, whatever the window */
	w = window(s, 0, 100000, 120000);
	ASSERT_NE(NULL, w);
	EXPECT_NE(NULL, strstr(w, "\"name\":\"VectorE\",\"stream\":1,\"dma\":0,\"n\":1,\"s\":[90000]"))
		TH_LOG("%s", w);
	free(w);
	vnp_web_window_max = 1;
	w = window(s, 0, 0, 120000);
	vnp_web_window_max = VNP_WEB_WINDOW_MAX;
	ASSERT_NE(NULL, w);
	EXPECT_STREQ("{\"too_many\":4,\"max\":1}\n", w);
	free(w);
	synth_free(s);
}

TEST(window_query_parsing)
{
	static const struct { const char *q, *why; } bad[] = {
		{ "", "missing" },
		{ "core=0&t0=1", "all needed" },
		{ "core=0&t0=1&t1=2&x=1", "unknown parameter" },
		{ "core=0&t0=1&t1=2&", "ends with" },
		{ "&core=0&t0=1&t1=2", "unknown parameter" },
		{ "core=0&&t0=1&t1=2", "unknown parameter" },
		{ "core=0&t0=1&t0=1&t1=2", "twice" },
		{ "Core=0&t0=1&t1=2", "unknown parameter" },
		{ "core0=0&t0=1&t1=2", "unknown parameter" },
		{ "core&t0=1&t1=2", "decimal" },
		{ "core=&t0=1&t1=2", "decimal" },
		{ "core=0&t0=-1&t1=2", "decimal" },
		{ "core=0&t0=+1&t1=2", "decimal" },
		{ "core=0&t0=1e3&t1=2", "decimal" },
		{ "core=0&t0=%31&t1=2", "decimal" },
		{ "core=0&t0= 1&t1=2", "decimal" },
		{ "core=0&t0=0x1&t1=2", "decimal" },
		{ "core=0&t0=1&t1=18446744073709551616", "decimal" },
		{ "core=0&t0=1&t1=000000000000000000001", "decimal" },
		{ "core=0&t0=1&t1=99999999999999999999", "decimal" },
		{ "core=2&t0=1&t1=2", "no such core" },
		{ "core=4294967296&t0=1&t1=2", "no such core" },
		{ "core=0&t0=2&t1=2", "t0 < t1" },
		{ "core=0&t0=3&t1=2", "t0 < t1" },
		{ "core=0&t0=0&t1=1001", "t0 < t1" },
		{ "core=0&t0=0&t1=18446744073709551615", "t0 < t1" },
	};
	struct vnp_web_win w = { 0 };
	const char *why;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		EXPECT_EQ(-EINVAL, vnp_web_parse_window(bad[i].q, 2, 1000, &w, &why))
			TH_LOG("%s", bad[i].q);
		EXPECT_NE(NULL, why);
		if (why)
			EXPECT_NE(NULL, strstr(why, bad[i].why)) TH_LOG("%s: %s", bad[i].q, why);
	}
	why = NULL;
	EXPECT_EQ(-EINVAL, vnp_web_parse_window(NULL, 2, 1000, &w, &why));
	EXPECT_NE(NULL, why);
	EXPECT_EQ(0, vnp_web_parse_window("t1=1000&core=1&t0=0", 2, 1000, &w, &why));
	EXPECT_EQ(1u, w.core);
	EXPECT_EQ(0u, w.t0);
	EXPECT_EQ(1000u, w.t1);
	EXPECT_EQ(0, vnp_web_parse_window("core=0&t0=00000000000000000007&t1=8", 1, 1000, &w,
					  &why));
	EXPECT_EQ(7u, w.t0);
}

TEST_HARNESS_MAIN
