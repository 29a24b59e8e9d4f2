// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The profile of a logical core (LNC=2, docs/isa.md "Logical cores"): capture --host
 * --model trn2 --lnc 2 traces both instances (program ids 0 and 1 on host cores 0 and
 * 1), the profile says they are logical core 0, and view shows them under it (the
 * summary, summary-json, Perfetto's names); --lnc's refusals; an LNC=1 profile says
 * nothing of logical cores.
 */
#include "view_util.h"

/* How many times what occurs in s. */
static unsigned int count(const char *s, const char *what)
{
	unsigned int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

FIXTURE(lnc) {
	char dir[64], prog[128], prof[128];
	char *out;
};

FIXTURE_SETUP(lnc)
{
	void *text, *img;
	size_t len, size;

	self->out = NULL;
	self->dir[0] = 0;
	if (access(PROFILER, X_OK))
		SKIP(return, "%s is not built (make)", PROFILER);
	snprintf(self->dir, sizeof(self->dir), "/tmp/vnp_lnc_XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->prog, sizeof(self->prog), "%s/spmd.vnef", self->dir);
	snprintf(self->prof, sizeof(self->prof), "%s/spmd.vntf", self->dir);
	ASSERT_EQ(0, nd_read_file("examples/vasm/spmd.vasm", 1 << 20, &text, &len));
	ASSERT_EQ(0, nd_asm(text, len, "spmd.vasm", 0, &img, &size, NULL, stderr));
	ASSERT_EQ(0, write_file(self->prog, img, size));
	free(text);
	free(img);
}

FIXTURE_TEARDOWN(lnc)
{
	teardown(self->out, self->dir);
}

/* Both instances' events, and the logical core named in every view. */
TEST_F(lnc, capture_shows_both_cores_under_the_logical_one)
{
	char pf[160];

	ASSERT_EQ(0, profiler(&self->out, "capture --host --model trn2 --lnc 2 -n %s -s %s",
			 self->prog, self->prof)) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->prog, self->prof))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "; 2 cores, 2 execs")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "\n  logical core 0 (LNC=2): core 0 (program id 0), "
			       "core 1 (program id 1)\n")) TH_LOG("%s", self->out);
	/* each instance ran its PROGRAM_ID and its three DMAs on its own core */
	EXPECT_NE(NULL, strstr(self->out, "PROGRAM_ID 2 ")) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f json", self->prog,
			 self->prof));
	EXPECT_EQ(6, count(self->out, "\"core\":0,"));
	EXPECT_EQ(6, count(self->out, "\"core\":1,"));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->prog,
			 self->prof));
	EXPECT_NE(NULL, strstr(self->out, ",\"logical_cores\":[{\"logical_core\":0,\"lnc\":2,"
			       "\"cores\":[0,1]}],")) TH_LOG("%s", self->out);
	free(self->out);
	snprintf(pf, sizeof(pf), "%s/spmd.pftrace", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f perfetto -o %s", self->prog,
			 self->prof, pf));
	free(self->out);
	self->out = NULL;
	EXPECT_EQ(1, file_has(pf, "logical core 0 (LNC=2): spmd"));
	EXPECT_EQ(1, file_has(pf, "logical core 0 / core 0: spmd"));
	EXPECT_EQ(1, file_has(pf, "logical core 0 / core 1: spmd"));
}

/* --lnc: 1 or 2, on the host, a model with logical cores, no workers; each said. */
TEST_F(lnc, lnc_refusals)
{
	static const struct { const char *args, *msg; int status; } bad[] = {
		{ "--host --lnc 2", "model trn1 has no logical cores", 1 },
		{ "--host --model trn2 --lnc 3", "--lnc '3': give 1 or 2", 2 },
		{ "--host --model trn2 --lnc 0", "--lnc '0': give 1 or 2", 2 },
		{ "--host --model trn2 --lnc x", "--lnc 'x': give 1 or 2", 2 },
		/* on a device (no module here): refused by the open, not by --lnc */
		{ "--lnc 2", "/dev/vneuron0: no such device", 3 },
		{ "--host --model trn2 --lnc 2 --collectives-worker-count 2",
		  "it takes no collectives workers", 2 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(bad[i].status, profiler(&self->out, "capture %s -n %s -s %s",
					      bad[i].args, self->prog, self->prof))
			TH_LOG("%s: %s", bad[i].args, self->out);
		EXPECT_NE(NULL, strstr(self->out, bad[i].msg)) TH_LOG("%s", self->out);
		EXPECT_NE(0, access(self->prof, F_OK));		/* no profile written */
		free(self->out);
		self->out = NULL;
	}
	/* an application launches its own logical cores */
	EXPECT_EQ(2, profiler(&self->out, "capture --lnc 2 -s %s -- true", self->prof));
	EXPECT_NE(NULL, strstr(self->out, "--lnc 2 is for the program form (-n)"))
		TH_LOG("%s", self->out);
	free(self->out);
	self->out = NULL;
	ASSERT_EQ(0, profiler(&self->out, "capture --help"));
	EXPECT_NE(NULL, strstr(self->out, "--lnc N"));
}

/* LNC=1 (the default, or --lnc 1): no logical core in any view. */
TEST_F(lnc, lnc1_says_nothing)
{
	ASSERT_EQ(0, profiler(&self->out, "capture --host --model trn2 --lnc 1 -n %s -s %s",
			 self->prog, self->prof)) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->prog, self->prof));
	EXPECT_NE(NULL, strstr(self->out, "; 1 core, 1 exec")) TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "logical core"));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->prog,
			 self->prof));
	EXPECT_EQ(NULL, strstr(self->out, "logical_cores"));
}

TEST_HARNESS_MAIN
