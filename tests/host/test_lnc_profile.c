// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The profile of a logical core (LNC=2, docs/isa.md "Logical cores"): capture --host
 * --model trn2 --lnc 2 traces both instances (program ids 0 and 1 on host cores 0 and
 * 1), the profile says they are logical core 0, and view shows them under it (the
 * summary, summary-json, Perfetto's process names); --lnc's refusals; an LNC=1 profile
 * says nothing of logical cores.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#define PROFILER	"build/bin/vneuron-profile"
#define VNAS		"build/bin/vneuron-as"

/* Runs a command; its exit status, stdout+stderr in *out (malloc()ed). */
static int run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run(char **out, const char *fmt, ...)
{
	char cmd[2048], buf[4096];
	size_t len = 0, n;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	*out = calloc(1, 1);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0) {
		*out = realloc(*out, len + n + 1);
		memcpy(*out + len, buf, n);
		len += n;
		(*out)[len] = 0;
	}
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

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
	self->out = NULL;
	self->dir[0] = 0;
	if (access(PROFILER, X_OK) || access(VNAS, X_OK))
		SKIP(return, "%s or %s is not built (make)", PROFILER, VNAS);
	snprintf(self->dir, sizeof(self->dir), "/tmp/vnp_lnc_XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->prog, sizeof(self->prog), "%s/spmd.vnef", self->dir);
	snprintf(self->prof, sizeof(self->prof), "%s/spmd.vntf", self->dir);
	ASSERT_EQ(0, run(&self->out, VNAS " -o %s examples/vasm/spmd.vasm", self->prog))
		TH_LOG("%s", self->out);
	free(self->out);
	self->out = NULL;
}

FIXTURE_TEARDOWN(lnc)
{
	char cmd[128];

	free(self->out);
	if (self->dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
		if (system(cmd))
			fprintf(stderr, "# could not remove %s\n", self->dir);
	}
}

/* Both instances' events, and the logical core named in every view. */
TEST_F(lnc, capture_shows_both_cores_under_the_logical_one)
{
	char pf[160];

	ASSERT_EQ(0, run(&self->out, PROFILER " capture --host --model trn2 --lnc 2 -n %s -s %s",
			 self->prog, self->prof)) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, run(&self->out, PROFILER " view -n %s -s %s", self->prog, self->prof))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "; 2 cores, 2 execs")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "\n  logical core 0 (LNC=2): core 0 (program id 0), "
			       "core 1 (program id 1)\n")) TH_LOG("%s", self->out);
	/* each instance ran its PROGRAM_ID and its three DMAs on its own core */
	EXPECT_NE(NULL, strstr(self->out, "PROGRAM_ID 2 ")) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, run(&self->out, PROFILER " view -n %s -s %s -f json", self->prog,
			 self->prof));
	EXPECT_EQ(6, count(self->out, "\"core\":0,"));
	EXPECT_EQ(6, count(self->out, "\"core\":1,"));
	free(self->out);
	ASSERT_EQ(0, run(&self->out, PROFILER " view -n %s -s %s -f summary-json", self->prog,
			 self->prof));
	EXPECT_NE(NULL, strstr(self->out, ",\"logical_cores\":[{\"logical_core\":0,\"lnc\":2,"
			       "\"cores\":[0,1]}],")) TH_LOG("%s", self->out);
	free(self->out);
	snprintf(pf, sizeof(pf), "%s/spmd.pftrace", self->dir);
	ASSERT_EQ(0, run(&self->out, PROFILER " view -n %s -s %s -f perfetto -o %s", self->prog,
			 self->prof, pf));
	free(self->out);
	ASSERT_EQ(0, run(&self->out, "grep -c -a 'logical core 0 / core 1: spmd' %s", pf));
	free(self->out);
	ASSERT_EQ(0, run(&self->out, "grep -c -a 'logical core 0 / core 0: spmd' %s", pf));
	free(self->out);
	ASSERT_EQ(0, run(&self->out, "grep -c -a 'logical core 0 (LNC=2): spmd' %s", pf));
}

/* --lnc: 1 or 2, on the host, a model with logical cores, no workers; each said. */
TEST_F(lnc, lnc_refusals)
{
	static const struct { const char *args, *msg; int status; } bad[] = {
		{ "--host --lnc 2", "model trn1 has no logical cores", 1 },
		{ "--host --model trn2 --lnc 3", "--lnc '3': give 1 or 2", 2 },
		{ "--host --model trn2 --lnc 0", "--lnc '0': give 1 or 2", 2 },
		{ "--host --model trn2 --lnc x", "--lnc 'x': give 1 or 2", 2 },
		{ "--lnc 2", "--lnc 2 is for --host", 2 },
		{ "--host --model trn2 --lnc 2 --collectives-worker-count 2",
		  "it takes no collectives workers", 2 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(bad[i].status, run(&self->out, PROFILER " capture %s -n %s -s %s",
					      bad[i].args, self->prog, self->prof))
			TH_LOG("%s: %s", bad[i].args, self->out);
		EXPECT_NE(NULL, strstr(self->out, bad[i].msg)) TH_LOG("%s", self->out);
		EXPECT_NE(0, access(self->prof, F_OK));		/* no profile written */
		free(self->out);
		self->out = NULL;
	}
	ASSERT_EQ(0, run(&self->out, PROFILER " capture --help"));
	EXPECT_NE(NULL, strstr(self->out, "--lnc N"));
}

/* LNC=1 (the default, or --lnc 1): no logical core in any view. */
TEST_F(lnc, lnc1_says_nothing)
{
	ASSERT_EQ(0, run(&self->out, PROFILER " capture --host --model trn2 --lnc 1 -n %s -s %s",
			 self->prog, self->prof)) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, run(&self->out, PROFILER " view -n %s -s %s", self->prog, self->prof));
	EXPECT_NE(NULL, strstr(self->out, "; 1 core, 1 exec")) TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "logical core"));
	free(self->out);
	ASSERT_EQ(0, run(&self->out, PROFILER " view -n %s -s %s -f summary-json", self->prog,
			 self->prof));
	EXPECT_EQ(NULL, strstr(self->out, "logical_cores"));
}

TEST_HARNESS_MAIN
