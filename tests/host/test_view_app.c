// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * An application's profile in `vneuron-profile view` (view_util.h): the executions of two
 * programs, each with its own program's figures; the wrong program or none refused; the
 * execution statistics and the outlier rule.
 */
#include "view_util.h"

/*
 * Issue 12, "Profiles that say what ran": an application that ran two programs is viewed
 * with both, each execution with its own program's figures (as its own profile gives);
 * a missing one is refused with the list; a directory of programs does.
 */
TEST_F(view, application_of_two_programs)
{
	static const unsigned int prog[3] = { 0, 1, 0 };
	char app[160], a[160], n[160], t[160], dir[160], path[200], cmd[1200];
	struct two_programs tp;

	ASSERT_EQ(0, two_programs(&tp));
	snprintf(app, sizeof(app), "%s/app.vntf", self->dir);
	ASSERT_EQ(0, capture_app(app, prog, 3, 1, 99));

	ASSERT_EQ(0, profiler(&self->out, "view -n %s -n %s -s %s", self->naive_prog,
			      self->tiled_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "=== Program 1 of 2: \"exp_naive\""));
	EXPECT_NE(NULL, strstr(self->out, "=== Program 2 of 2: \"exp_tiled\""));
	EXPECT_NE(NULL, strstr(self->out, "naive.vnef), 2 executions ==="));
	EXPECT_NE(NULL, strstr(self->out, "tiled.vnef), 1 execution ==="));
	EXPECT_EQ(NULL, strstr(self->out, "records no program identity"));
	free(self->out);

	/* each program's figures: twice the naive run, once the tiled one */
	snprintf(a, sizeof(a), "%s/app.json", self->dir);
	snprintf(n, sizeof(n), "%s/naive.json", self->dir);
	snprintf(t, sizeof(t), "%s/tiled.json", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -n %s -s %s -f summary-json -o %s",
			      self->tiled_prog, self->naive_prog, app, a));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json -o %s",
			      self->naive_prog, self->naive_prof, n));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json -o %s",
			      self->tiled_prog, self->tiled_prof, t));
	snprintf(cmd, sizeof(cmd), "python3 -c '\n"
		 "import json, sys\n"
		 "a, n, t = (json.load(open(f)) for f in sys.argv[1:])\n"
		 "p = a[\"programs\"]\n"
		 "ok = len(p) == 2 and p[0][\"program\"] == \"exp_naive\" and "
		 "p[1][\"program\"] == \"exp_tiled\"\n"
		 "ok = ok and p[0][\"executions\"] == 2 and p[1][\"executions\"] == 1\n"
		 "ok = ok and p[0][\"event_count\"] == 2 * n[\"event_count\"]\n"
		 "ok = ok and p[1][\"event_count\"] == t[\"event_count\"]\n"
		 "ok = ok and p[1][\"total_time_ps\"] == t[\"total_time_ps\"]\n"
		 "ok = ok and p[0][\"hardware_flops\"] == 2 * n[\"hardware_flops\"]\n"
		 "ok = ok and len(p[1][\"scopes\"]) > 1 and p[1][\"scopes\"] == t[\"scopes\"]\n"
		 "sys.exit(not ok)' %s %s %s", a, n, t);
	EXPECT_EQ(0, system(cmd));
	free(self->out);

	/* one missing: refused, the profile's programs listed */
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "do not belong together: it ran 2 programs, 1 of "
			       "them not given"));
	EXPECT_NE(NULL, strstr(self->out, "\"exp_tiled\" ("));
	EXPECT_NE(NULL, strstr(self->out, "bytes, sha256 "));
	EXPECT_NE(NULL, strstr(self->out, "): missing"));
	snprintf(path, sizeof(path), "): %s", self->naive_prog);
	EXPECT_NE(NULL, strstr(self->out, path));
	free(self->out);

	/* a directory of programs (and something else) */
	snprintf(dir, sizeof(dir), "%s/progs", self->dir);
	ASSERT_EQ(0, mkdir(dir, 0700));
	snprintf(path, sizeof(path), "%s/b.vnef", dir);
	ASSERT_EQ(0, write_file(path, tp.img[0], tp.size[0]));
	snprintf(path, sizeof(path), "%s/a.vnef", dir);
	ASSERT_EQ(0, write_file(path, tp.img[1], tp.size[1]));
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	ASSERT_EQ(0, write_file(path, "notes", 5));
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", dir, app));
	EXPECT_NE(NULL, strstr(self->out, "=== Program 1 of 2: \"exp_naive\" (" ));
	EXPECT_NE(NULL, strstr(self->out, "progs/b.vnef), 2 executions ==="));
	EXPECT_NE(NULL, strstr(self->out, "progs/a.vnef), 1 execution ==="));
	free(self->out);

	/* the one-program outputs say they cannot show two */
	snprintf(path, sizeof(path), "%s/app.pftrace", self->dir);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -f perfetto -o %s", dir, app, path));
	EXPECT_NE(NULL, strstr(self->out, "ran 2 programs"));
	EXPECT_NE(0, access(path, F_OK));
	free(self->out);
	/* --only chooses one: by name, or by a prefix of its hash */
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f perfetto -o %s --only exp_tiled",
			      dir, app, path));
	EXPECT_EQ(0, access(path, F_OK));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --only exp_naive", dir, app));
	EXPECT_NE(NULL, strstr(self->out, "vneuron-profile: exp_naive\n"));
	EXPECT_NE(NULL, strstr(self->out, ", 2 execs\n"));
	EXPECT_EQ(NULL, strstr(self->out, "=== Program"));
	free(self->out);
	{
		struct vntf_program id;
		char h[16];
		int i;

		identity(tp.img[1], tp.size[1], "", &id);
		for (i = 0; i < 4; i++)
			sprintf(h + 2 * i, "%02x", id.hash[i]);
		ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --only %s", dir, app, h));
		EXPECT_NE(NULL, strstr(self->out, "vneuron-profile: exp_tiled\n"));
		free(self->out);
	}
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s --only nothing", dir, app));
	EXPECT_NE(NULL, strstr(self->out, "--only nothing: none of the programs shown"));
	free(self->out);

	/* diff compares one program's profiles: it says what this one ran */
	EXPECT_EQ(1, profiler(&self->out, "diff -n %s %s %s", self->naive_prog, app, app));
	EXPECT_NE(NULL, strstr(self->out, "it ran 2 programs, this command takes one:"));
	EXPECT_NE(NULL, strstr(self->out, "\"exp_tiled\" ("));
	two_programs_free(&tp);
}

/* A profile of one program viewed with another: refused, naming the one it ran. */
TEST_F(view, application_profile_with_the_wrong_program)
{
	static const unsigned int prog[2] = { 0, 0 };
	char app[160];

	snprintf(app, sizeof(app), "%s/app1.vntf", self->dir);
	ASSERT_EQ(0, capture_app(app, prog, 2, 1, 99));
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->tiled_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "it ran 1 program, 1 of them not given"));
	EXPECT_NE(NULL, strstr(self->out, "\"exp_naive\" ("));
	EXPECT_NE(NULL, strstr(self->out, "): missing"));
	free(self->out);
	/* the right one, and an extra one named on the command line: said, ignored */
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -n %s -s %s", self->naive_prog,
			      self->tiled_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "vneuron-profile: exp_naive\n"));
	EXPECT_NE(NULL, strstr(self->out, "tiled.vnef is not a program"));
	EXPECT_EQ(NULL, strstr(self->out, "=== Program"));
	free(self->out);
	/* diff: the program it ran, and another */
	EXPECT_EQ(0, profiler(&self->out, "diff -n %s %s %s", self->naive_prog, app, app));
	free(self->out);
	EXPECT_EQ(1, profiler(&self->out, "diff -n %s %s %s", self->tiled_prog, app, app));
	EXPECT_NE(NULL, strstr(self->out, "it ran 1 program, this command takes one:"));
	EXPECT_NE(NULL, strstr(self->out, "): missing"));
}

/* A profile from before section 9 (no identity): viewed as before, with one program. */
TEST_F(view, application_profile_without_identity)
{
	static const unsigned int prog[2] = { 0, 0 };
	char app[160];

	snprintf(app, sizeof(app), "%s/old.vntf", self->dir);
	ASSERT_EQ(0, capture_app(app, prog, 2, 0, 99));
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->naive_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "records no program identity; assuming"));
	EXPECT_NE(NULL, strstr(self->out, "2 execs"));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -n %s -s %s", self->naive_prog,
			      self->tiled_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "give the one program it ran (one -n), not 2"));
}

/* Per-execution statistics: a planted slow execution is marked, none otherwise. */
TEST_F(view, execution_statistics_and_outliers)
{
	static const unsigned int prog[5] = { 0, 0, 0, 0, 0 };
	char app[160];

	snprintf(app, sizeof(app), "%s/slow.vntf", self->dir);
	ASSERT_EQ(0, capture_app(app, prog, 5, 1, 3));
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->naive_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "\nExecutions (5): min"));
	EXPECT_NE(NULL, strstr(self->out, "\n  total "));
	EXPECT_NE(NULL, strstr(self->out, "OUTLIER worker 0 core 0 exec 3: total "));
	EXPECT_EQ(NULL, strstr(self->out, "exec 2: total"));
	if (getenv("VNP_DUMP"))
		fputs(self->out, stderr);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->naive_prog,
			      app));
	EXPECT_NE(NULL, strstr(self->out, "\"execution_stats\":{\"count\":5,"));
	EXPECT_NE(NULL, strstr(self->out, "\"outliers\":[{\"core\":0,\"worker\":\"worker 0 "
			       "core 0\",\"exec\":3,"));
	EXPECT_NE(NULL, strstr(self->out, "\"outlying\":[\"total\""));
	free(self->out);

	snprintf(app, sizeof(app), "%s/even.vntf", self->dir);
	ASSERT_EQ(0, capture_app(app, prog, 5, 1, 99));
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->naive_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "\nExecutions (5): min"));
	EXPECT_NE(NULL, strstr(self->out, "no outliers (beyond median +- max(3 x MAD, 10% of "
			       "median))"));
	EXPECT_EQ(NULL, strstr(self->out, "OUTLIER"));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->naive_prog,
			      app));
	EXPECT_NE(NULL, strstr(self->out, "\"outliers\":[]"));
}

/* The outlier rule itself: 3 x MAD, at least a tenth of the median, 3 executions. */
TEST(outlier_rule)
{
	struct vnp_spread s = { .min = 90, .median = 100, .max = 200, .mad = 0 };

	EXPECT_EQ(0, vnp_xs_outlier(&s, 5, 110));
	EXPECT_EQ(1, vnp_xs_outlier(&s, 5, 111));
	EXPECT_EQ(1, vnp_xs_outlier(&s, 5, 89));
	EXPECT_EQ(0, vnp_xs_outlier(&s, 2, 200));
	s.mad = 20;
	EXPECT_EQ(0, vnp_xs_outlier(&s, 5, 160));
	EXPECT_EQ(1, vnp_xs_outlier(&s, 5, 161));
	s.mad = UINT64_MAX;
	EXPECT_EQ(0, vnp_xs_outlier(&s, 5, UINT64_MAX));
}

TEST_HARNESS_MAIN
