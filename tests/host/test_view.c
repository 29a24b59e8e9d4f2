// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * `vneuron-profile view` end to end, without the kernel: a kernel built with the program
 * builder runs on the host backend (the device core's executor), its events become trace
 * records in a .vntf written by the profile writer, and the command reads both files
 * (view_util.h). Checks the outputs, the advice on a naive and a tiled version of the same
 * kernel (seed 002's exp kernel: "no overlap between engines, no overlap between DMA and
 * compute"; the tiled version keeps every tile in its own buffers, so nothing waits for a
 * buffer to be released), and every input error: a program and profile that do not belong
 * together, a truncated profile, an unknown version, missing files and bad usage, each with
 * a message and a non-zero exit; outputs that never overwrite an input, and binary output
 * never to a terminal. Device faults: test_view_faults.c; applications:
 * test_view_app.c; capture: test_view_capture.c, test_view_lnc.c.
 */
#include "view_util.h"

TEST_F(view, naive_kernel_gets_the_seed_advice)
{
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->naive_prog,
			      self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "vneuron-profile: exp_naive"));
	EXPECT_NE(NULL, strstr(self->out, "[dma-no-overlap] DMA never overlaps compute"));
	EXPECT_NE(NULL, strstr(self->out, "[engines-no-overlap]"));
	EXPECT_NE(NULL, strstr(self->out, "exp/compute/exp"));
	EXPECT_NE(NULL, strstr(self->out, BUILD_FILE ":"));
	if (getenv("VNP_DUMP"))
		fputs(self->out, stderr);
	free(self->out);
	/* unwrapped in json: the seed's own finding */
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->naive_prog,
			      self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "the data is fully loaded before compute starts"));
}

TEST_F(view, tiled_kernel_overlaps)
{
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->tiled_prog,
			      self->tiled_prof));
	EXPECT_EQ(NULL, strstr(self->out, "[dma-no-overlap]"));
	EXPECT_EQ(NULL, strstr(self->out, "[engines-no-overlap]"));
	if (getenv("VNP_DUMP"))
		fputs(self->out, stderr);
}

TEST_F(view, every_output_format)
{
	char path[160], cmd[400];

	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --output-format summary-json",
			      self->naive_prog, self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "\"total_time_ps\":"));
	EXPECT_NE(NULL, strstr(self->out, "\"rule\":\"dma-no-overlap\""));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f json", self->naive_prog,
			      self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "\"events\":["));
	EXPECT_NE(NULL, strstr(self->out, "\"opcode\":\"ACTIVATE\""));
	EXPECT_NE(NULL, strstr(self->out, "\"scope\":\"exp/compute/"));
	EXPECT_NE(NULL, strstr(self->out, "\"src0\":{\"mem\":\"SBUF\""));
	EXPECT_NE(NULL, strstr(self->out, "\"src\":{\"mem\":\"HBM\",\"tensor\":\"x\""));
	free(self->out);
	/* both JSON outputs parse */
	snprintf(path, sizeof(path), "%s/t.json", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f json -o %s", self->tiled_prog,
			      self->tiled_prof, path));
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; d = json.load(open(sys.argv[1]));"
		 " sys.exit(len(d[\"events\"]) != d[\"summary\"][\"event_count\"])' %s", path);
	EXPECT_EQ(0, system(cmd));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json -o %s "
			      "--force-overwrite", self->naive_prog, self->naive_prof, path));
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s",
		 path);
	EXPECT_EQ(0, system(cmd));
	free(self->out);
	snprintf(path, sizeof(path), "%s/t.pftrace", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f perfetto --output-file %s",
			      self->naive_prog, self->naive_prof, path));
	snprintf(cmd, sizeof(cmd), "protoc -Itests/perfetto --decode=perfetto.protos.Trace "
		 "tests/perfetto/trace.proto < %s > /dev/null", path);
	EXPECT_EQ(0, system(cmd));
}

TEST_F(view, lost_records_are_reported)
{
	char path[160];
	void *img;
	size_t size;

	ASSERT_EQ(0, build(0, &img, &size));
	snprintf(path, sizeof(path), "%s/lost.vntf", self->dir);
	ASSERT_EQ(0, capture(img, size, path, 1, 0));
	free(img);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->naive_prog, path));
	/* max(5 announced, 7 dropped) + 2 overwritten */
	EXPECT_NE(NULL, strstr(self->out, "WARNING: 9 records lost in capture"));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->naive_prog,
			      path));
	EXPECT_NE(NULL, strstr(self->out, "\"lost_records\":9,"));
}

TEST_F(view, program_and_profile_must_belong_together)
{
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->tiled_prog,
			      self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "do not belong together"));
	EXPECT_NE(NULL, strstr(self->out, "sha256"));
}

TEST_F(view, truncated_profile)
{
	char path[160];
	struct stat st;
	void *buf;
	FILE *f;

	ASSERT_EQ(0, stat(self->naive_prof, &st));
	buf = malloc((size_t)st.st_size);
	f = fopen(self->naive_prof, "rb");
	ASSERT_EQ(1, fread(buf, (size_t)st.st_size, 1, f));
	fclose(f);
	snprintf(path, sizeof(path), "%s/cut.vntf", self->dir);
	/* cut in the middle of the records, and just before the end section */
	ASSERT_EQ(0, write_file(path, buf, (size_t)st.st_size / 2));
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prog, path));
	EXPECT_NE(NULL, strstr(self->out, path));
	free(self->out);
	ASSERT_EQ(0, write_file(path, buf, (size_t)st.st_size - 8));
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prog, path));
	EXPECT_NE(NULL, strstr(self->out, path));
	free(self->out);
	/* an unknown major version */
	((struct vntf_file_header *)buf)->version_major = 99;
	ASSERT_EQ(0, write_file(path, buf, (size_t)st.st_size));
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prog, path));
	EXPECT_NE(NULL, strstr(self->out, "99"));
	self->out[0] = 0;
	free(buf);
}

TEST_F(view, bad_program_and_usage)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/garbage.vnef", self->dir);
	ASSERT_EQ(0, write_file(path, "not a program at all", 20));
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", path, self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "invalid program"));
	free(self->out);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s/none.vnef -s %s", self->dir,
			      self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "No such file"));
	free(self->out);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s/none.vntf", self->naive_prog,
			      self->dir));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s", self->naive_prog));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -f xml", self->naive_prog,
			      self->naive_prof));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "frobnicate"));
	free(self->out);
	EXPECT_EQ(0, profiler(&self->out, "--help"));
	EXPECT_NE(NULL, strstr(self->out, "--output-format"));
}

/* Issue 12: view -o never writes over one of its inputs, whatever the name. */
TEST_F(view, output_never_overwrites_an_input)
{
	char keep[160], alias[160];
	int n;

	snprintf(keep, sizeof(keep), "%s/keep.vntf", self->dir);
	snprintf(alias, sizeof(alias), "%s/alias.vntf", self->dir);
	ASSERT_EQ(0, link(self->naive_prof, keep));
	ASSERT_EQ(0, symlink(self->naive_prof, alias));
	n = files_in(self->dir);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -o %s", self->naive_prog,
			      self->naive_prof, self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "would overwrite the input"));
	free(self->out);
	/* the same file under another name (a hard link, a symlink), even when forced */
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -o %s --force-overwrite",
			      self->naive_prog, self->naive_prof, alias));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -f json -o %s --force-overwrite",
			      self->naive_prog, alias, keep));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -o %s --force-overwrite",
			      self->naive_prog, self->naive_prof, self->naive_prog));
	free(self->out);
	self->out = NULL;
	/* the profile and the program intact, no temporary file left */
	EXPECT_EQ(0, same_bytes(self->naive_prof, keep));
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s -o /dev/null", self->naive_prog,
			      self->naive_prof));
	EXPECT_EQ(n, files_in(self->dir));
}

/* Issue 12: an existing output only with --force-overwrite; a failed run leaves it. */
TEST_F(view, existing_output_needs_force_overwrite)
{
	char path[160], bad[160];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/old.txt", self->dir);
	snprintf(bad, sizeof(bad), "%s/bad.vntf", self->dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("the user's file\n", f);
	fclose(f);
	f = fopen(bad, "w");
	ASSERT_NE(NULL, f);
	fputs("not a profile\n", f);
	fclose(f);
	n = files_in(self->dir);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -o %s", self->naive_prog,
			      self->naive_prof, path));
	EXPECT_NE(NULL, strstr(self->out, "exists; use --force-overwrite"));
	free(self->out);
	/* a bad input with --force-overwrite: refused, the old output kept */
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s -o %s --force-overwrite",
			      self->naive_prog, bad, path));
	free(self->out);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	{
		char line[64] = "";

		EXPECT_NE(NULL, fgets(line, sizeof(line), f));
		EXPECT_STREQ("the user's file\n", line);
	}
	fclose(f);
	/* replaced with it */
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s -o %s --force-overwrite",
			      self->naive_prog, self->naive_prof, path));
	free(self->out);
	self->out = NULL;
	{
		char *txt = NULL;
		size_t len = 0;

		ASSERT_EQ(0, nd_read_file(path, 1 << 20, (void **)&txt, &len));
		txt = realloc(txt, len + 1);
		txt[len] = 0;
		EXPECT_NE(NULL, strstr(txt, "vneuron-profile: exp_naive"));
		free(txt);
	}
	EXPECT_EQ(n, files_in(self->dir));
	/* a directory that does not exist: a failed write, status 3 */
	EXPECT_EQ(3, profiler(&self->out, "view -n %s -s %s -o %s/no/such/x.txt",
			      self->naive_prog, self->naive_prof, self->dir));
}

/* Issue 12: a profile cut short is refused, and read by --salvage with a report. */
TEST_F(view, truncated_profile_salvaged)
{
	char cut[160], out[200];
	struct stat st;
	void *img;
	size_t size, at;
	FILE *f;

	ASSERT_EQ(0, nd_read_file(self->tiled_prof, 1 << 26, &img, &size));
	snprintf(cut, sizeof(cut), "%s/cut.vntf", self->dir);
	/* as a crash leaves it: the end section and half of the last section gone */
	f = fopen(cut, "wb");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(size - 100, fwrite(img, 1, size - 100, f));
	fclose(f);
	free(img);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->tiled_prog, cut));
	EXPECT_NE(NULL, strstr(self->out, "truncated file"));
	EXPECT_NE(NULL, strstr(self->out, "--salvage reads every complete record"));
	free(self->out);
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s --salvage", self->tiled_prog, cut));
	EXPECT_NE(NULL, strstr(self->out, "salvaged "));
	EXPECT_NE(NULL, strstr(self->out, "could not be read (truncated file"));
	EXPECT_NE(NULL, strstr(self->out, "vneuron-profile: exp_tiled"));
	/* partial data said loudly (issue 29): text, JSON, Perfetto, HTML */
	EXPECT_NE(NULL, strstr(self->out, "PARTIAL: 1 file cut short, salvaged"));
	free(self->out);
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s --salvage -f summary-json",
			      self->tiled_prog, cut));
	EXPECT_NE(NULL, strstr(self->out, "\"partial\":true,\"salvaged_files\":1"));
	free(self->out);
	snprintf(out, sizeof(out), "%s/cut.pftrace", self->dir);
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s --salvage -f perfetto -o %s",
			      self->tiled_prog, cut, out));
	EXPECT_EQ(1, file_has(out, "(PARTIAL: salvaged profile)"));
	free(self->out);
	snprintf(out, sizeof(out), "%s/cut.html", self->dir);
	if (!profiler(&self->out, "view -n %s -s %s --salvage -f html -o %s", self->tiled_prog,
		      cut, out))
		EXPECT_EQ(1, file_has(out, "\"partial\":true"));
	free(self->out);
	/* cut before the first event record: a partial profile, but no class from nothing */
	for (at = 64; at < size - 100; at += 16) {
		ASSERT_EQ(0, truncate(cut, (off_t)at));
		self->out = NULL;
		if (profiler(&self->out, "view -n %s -s %s --salvage -f summary-json",
			     self->tiled_prog, cut) == 0 &&
		    strstr(self->out, "\"event_count\":0,"))
			break;
		free(self->out);
		self->out = NULL;
		ASSERT_EQ(0, nd_read_file(self->tiled_prof, 1 << 26, &img, &size));
		f = fopen(cut, "wb");
		ASSERT_NE(NULL, f);
		ASSERT_EQ(size - 100, fwrite(img, 1, size - 100, f));
		fclose(f);
		free(img);
	}
	ASSERT_NE(NULL, self->out);
	EXPECT_NE(NULL, strstr(self->out, "\"partial\":true"));
	EXPECT_NE(NULL, strstr(self->out, "\"class\":\"idle\""));
	EXPECT_NE(NULL, strstr(self->out, "\"class_label\":\"none (partial profile: no events "
			       "read)\""));
	EXPECT_EQ(NULL, strstr(self->out, "latency-bound"));
	free(self->out);
	/* cut between sections: no end section; the whole profile still read */
	ASSERT_EQ(0, stat(self->tiled_prof, &st));
	ASSERT_EQ(0, truncate(cut, 0));
	ASSERT_EQ(0, nd_read_file(self->tiled_prof, 1 << 26, &img, &size));
	f = fopen(cut, "wb");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(size - 40, fwrite(img, 1, size - 40, f));	/* the end section: 16 + 24 */
	fclose(f);
	free(img);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->tiled_prog, cut));
	EXPECT_NE(NULL, strstr(self->out, "no end section"));
	free(self->out);
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s --salvage -f summary-json",
			      self->tiled_prog, cut));
	EXPECT_NE(NULL, strstr(self->out, "the 0 bytes from offset"));
	EXPECT_NE(NULL, strstr(self->out, "\"total_time_ps\":"));
	free(self->out);
	/* cut inside the header: nothing to salvage */
	ASSERT_EQ(0, truncate(cut, 20));
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s --salvage", self->tiled_prog, cut));
}

/* Issue 12, smaller things: a missing profile named once; -n and -s swapped said. */
TEST_F(view, messages_name_the_mistake)
{
	char none[160], twice[400];

	/* issue 29: a mistyped long option gets the one it resembles */
	EXPECT_EQ(2, profiler(&self->out, "view --fromat text"));
	EXPECT_NE(NULL, strstr(self->out, "did you mean '--output-format'?")) TH_LOG("%s", self->out);
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view --salvge"));
	EXPECT_NE(NULL, strstr(self->out, "did you mean '--salvage'?")) TH_LOG("%s", self->out);
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view --zzzzzz"));
	EXPECT_EQ(NULL, strstr(self->out, "did you mean")) TH_LOG("%s", self->out);
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "diff --fial-on 3 a b"));
	EXPECT_NE(NULL, strstr(self->out, "did you mean '--fail-on'?")) TH_LOG("%s", self->out);
	free(self->out);

	snprintf(none, sizeof(none), "%s/nothere.vntf", self->dir);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prog, none));
	snprintf(twice, sizeof(twice), "%s: %s", none, none);
	EXPECT_NE(NULL, strstr(self->out, "nothere.vntf: No such file"));
	EXPECT_EQ(NULL, strstr(self->out, twice));
	free(self->out);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prof,
			      self->naive_prog));
	EXPECT_NE(NULL, strstr(self->out, "is a profile (.vntf): -n takes the program"));
	free(self->out);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prog,
			      self->naive_prog));
	EXPECT_NE(NULL, strstr(self->out, "bad magic"));
	EXPECT_NE(NULL, strstr(self->out, "is a program (.vnef): -s takes the profile"));
}

/* Runs argv on a pseudo-terminal: its exit status, its output in out. */
static int on_tty(char *const argv[], char *out, size_t outlen)
{
	size_t len = 0;
	ssize_t n;
	pid_t pid;
	int fd, st;

	pid = forkpty(&fd, NULL, NULL, NULL);
	if (pid < 0)
		return -1;
	if (!pid) {
		execv(argv[0], argv);
		_exit(127);
	}
	for (;;) {
		n = read(fd, out + len, outlen - 1 - len);
		if (n <= 0)
			break;	/* EIO once the child has gone */
		len += (size_t)n;
		if (len == outlen - 1)
			break;
	}
	out[len] = 0;
	close(fd);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Issue 12: perfetto and html are never written to a terminal. */
TEST_F(view, binary_output_not_to_a_terminal)
{
	char out[1 << 16];
	char *pf[] = { PROFILER, "view", "-n", self->naive_prog, "-s", self->naive_prof,
		       "-f", "perfetto", NULL };
	char *html[] = { PROFILER, "view", "-n", self->naive_prog, "-s", self->naive_prof,
			 "-f", "html", NULL };
	char *text[] = { PROFILER, "view", "-n", self->naive_prog, "-s", self->naive_prof,
			 NULL };

	EXPECT_EQ(2, on_tty(pf, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "not written to a terminal"));
	EXPECT_EQ(2, on_tty(html, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "not written to a terminal"));
	EXPECT_EQ(0, on_tty(text, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "vneuron-profile: exp_naive"));
	/* redirected, it is written */
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s -f perfetto > /dev/null",
			      self->naive_prog, self->naive_prof));
}

TEST_HARNESS_MAIN
