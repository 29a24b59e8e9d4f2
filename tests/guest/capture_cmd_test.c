// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * `vneuron-profile capture` as users run it: a program with .npy and raw inputs, N
 * executions, the n-th only, overwrite mode, then `vneuron-profile view` on the result;
 * the application form around a program that uses libneurondev (this binary, re-run
 * with CAPTURE_TEST_APP set); every usage and input error with its exit status.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vnprog.h"
#include "../../profiler/format/vntf.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define ROWS	256
#define COLS	512

static char prof[PATH_MAX], dir[PATH_MAX], self_exe[PATH_MAX];

/* The application of the application form: two executions of the exp program. */
__attribute__((constructor)) static void app_mode(void)
{
	const char *img_path = getenv("CAPTURE_TEST_APP");
	struct nd_program *prog;
	struct nd_run_result r;
	struct nd_mem *in, *out;
	struct nd_device *dev;
	struct nd_error e;
	void *img;
	size_t size;
	int i;

	if (!img_path)
		return;
	if (!getenv("VNEURON_PROFILE") || nd_vnef_read(img_path, &img, &size, &e) ||
	    nd_open(0, &dev, &e) || nd_program_load(dev, img, size, &prog, NULL) ||
	    nd_mem_alloc(dev, ROWS * COLS * 4, &in) || nd_mem_alloc(dev, ROWS * COLS * 4, &out))
		_exit(10);
	for (i = 0; i < 2; i++) {
		struct nd_bind b[] = { { "in", in }, { "out", out } };

		if (nd_run(prog, 0, b, 2, 0, &r))
			_exit(11);
	}
	_exit(7);	/* capture passes this on */
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Records of a profile by kind; -1 if it does not read back complete. */
static int count(const char *path, uint64_t *kinds, uint64_t *lost)
{
	struct vntf_reader *r;
	struct vntf_chunk c;
	uint32_t i;
	int ret;

	memset(kinds, 0, 8 * sizeof(*kinds));
	if (vntf_open_file(&r, path, NULL, 0))
		return -1;
	while ((ret = vntf_next(r, &c)) == 1)
		for (i = 0; i < c.count; i++)
			kinds[c.recs[i].kind & 7]++;
	if (!ret && !vntf_reader_info(r)->complete)
		ret = -1;
	*lost = 0;
	for (i = 0; !ret && i < vntf_reader_info(r)->nr_streams; i++)
		*lost += vntf_reader_info(r)->streams[i].dropped +
			 vntf_reader_info(r)->streams[i].overwritten;
	vntf_close(r);
	return ret;
}

FIXTURE(cap)
{
	char vnef[PATH_MAX + 32], npy[PATH_MAX + 32], raw[PATH_MAX + 32], vntf[PATH_MAX + 32];
};

FIXTURE_SETUP(cap)
{
	struct vneuron_info info;
	struct nd_builder *b;
	struct nd_device *dev;
	struct nd_error e;
	char *slash;
	float *x;
	FILE *f;
	int i;

	ASSERT_EQ(0, nd_open(0, &dev, &e)) TH_LOG("%s", e.msg);
	ASSERT_EQ(0, nd_info(dev, &info));
	nd_close(dev);
	if (!(info.caps & VNEURON_CAP_TRACE))
		SKIP(return, "no trace rings in this module");
	ASSERT_LT(0, readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1));
	snprintf(prof, sizeof(prof), "%s", self_exe);
	slash = strstr(prof, "/build/rel/guest/");
	ASSERT_NE(NULL, slash);
	strcpy(slash, "/build/bin/vneuron-profile");
	snprintf(dir, sizeof(dir), "/tmp/capture_cmd_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(self->vnef, sizeof(self->vnef), "%s/exp.vnef", dir);
	snprintf(self->npy, sizeof(self->npy), "%s/in.npy", dir);
	snprintf(self->raw, sizeof(self->raw), "%s/in.raw", dir);
	snprintf(self->vntf, sizeof(self->vntf), "%s/exp.vntf", dir);
	ASSERT_EQ(0, nd_builder_new("exp", &b));
	ASSERT_EQ(0, nd_kernel_exp(b, ROWS, COLS, 1));
	ASSERT_EQ(0, nd_builder_write(b, self->vnef));
	nd_builder_free(b);
	x = calloc(ROWS * COLS, 4);
	ASSERT_NE(NULL, x);
	for (i = 0; i < ROWS * COLS; i++)
		x[i] = (float)(i % 13) / 13.0f;
	f = fopen(self->npy, "wb");
	ASSERT_NE(NULL, f);
	{
		char hdr[118];

		memset(hdr, ' ', sizeof(hdr));
		snprintf(hdr, sizeof(hdr), "{'descr': '<f4', 'fortran_order': False, "
			 "'shape': (%d, %d), }", ROWS, COLS);
		hdr[strlen(hdr)] = ' ';
		hdr[sizeof(hdr) - 1] = '\n';
		fwrite("\x93NUMPY\x01\x00\x76\x00", 1, 10, f);
		fwrite(hdr, 1, sizeof(hdr), f);
	}
	fwrite(x, 4, ROWS * COLS, f);
	fclose(f);
	f = fopen(self->raw, "wb");
	ASSERT_NE(NULL, f);
	fwrite(x, 4, ROWS * COLS, f);
	fclose(f);
	free(x);
}

FIXTURE_TEARDOWN(cap)
{
	if (dir[0])
		sh("rm -rf '%s'", dir);
}

TEST_F_TIMEOUT(cap, program_then_view, 600)
{
	uint64_t k[8], lost;

	ASSERT_EQ(0, sh("%s capture --force-overwrite -q -n %s -s %s in %s --num-exec 3", prof, self->vnef,
			self->vntf, self->npy));
	ASSERT_EQ(0, count(self->vntf, k, &lost));
	EXPECT_EQ(3, k[VNEURON_TRACE_EXEC_START]);
	EXPECT_EQ(3, k[VNEURON_TRACE_EXEC_END]);
	EXPECT_LT(0, k[VNEURON_TRACE_INSN]);
	EXPECT_LT(0, k[VNEURON_TRACE_DMA]);
	EXPECT_EQ(0, lost);
	EXPECT_EQ(0, sh("%s view -n %s -s %s -f summary-json -o %s/s.json", prof, self->vnef,
			self->vntf, dir));
	EXPECT_EQ(0, sh("%s view -n %s -s %s > %s/s.txt", prof, self->vnef, self->vntf, dir));
	EXPECT_EQ(0, sh("grep -q exp %s/s.txt", dir));
	/* Raw input, the 2nd of 3 only, overwrite mode, core 1 if there is one. */
	ASSERT_EQ(0, sh("%s capture --force-overwrite -q -n %s -s %s in %s -N 3 -k 2 --mode overwrite "
			"--ring-size 64K", prof, self->vnef, self->vntf, self->raw));
	ASSERT_EQ(0, count(self->vntf, k, &lost));
	EXPECT_EQ(1, k[VNEURON_TRACE_EXEC_END]);
	EXPECT_EQ(0, sh("%s view -n %s -s %s -o /dev/null", prof, self->vnef, self->vntf));
}

/*
 * Issue 12: SIGTERM (or Ctrl-C's SIGINT) during a long capture stops it after the
 * running execution with a complete profile that view reads, and status 128+signal.
 * (SIGTERM: a shell's background job ignores SIGINT, and capture keeps it ignored.)
 */
TEST_F_TIMEOUT(cap, signal_stops_cleanly, 600)
{
	uint64_t k[8], lost;

	EXPECT_EQ(128 + 15, sh("%s capture -q -n %s -s %s/sig.vntf -N 2000 & p=$!; sleep 5; "
			       "kill -TERM $p; wait $p", prof, self->vnef, dir));
	ASSERT_EQ(0, sh("ls %s/sig.vntf > /dev/null", dir));
	snprintf(self->vntf, sizeof(self->vntf), "%s/sig.vntf", dir);
	ASSERT_EQ(0, count(self->vntf, k, &lost));
	EXPECT_LT(0, k[VNEURON_TRACE_EXEC_END]);
	EXPECT_GT(2000, k[VNEURON_TRACE_EXEC_END]);
	EXPECT_EQ(k[VNEURON_TRACE_EXEC_START], k[VNEURON_TRACE_EXEC_END]);
	EXPECT_EQ(0, sh("%s view -n %s -s %s/sig.vntf -o /dev/null", prof, self->vnef, dir));
	/* the application form passes SIGTERM on and writes the profile */
	EXPECT_EQ(128 + 15, sh("%s capture -q -s %s/app.vntf -- sleep 60 & p=$!; sleep 3; "
			       "kill -TERM $p; wait $p", prof, dir));
	snprintf(self->vntf, sizeof(self->vntf), "%s/app.vntf", dir);
	EXPECT_EQ(0, count(self->vntf, k, &lost));
	/* no temporary file left */
	EXPECT_EQ(0, sh("! ls %s | grep -q tmp", dir));
}

/*
 * A tiny ring may lose records (whether it does depends on the drainer's luck): what
 * the profile holds plus what it says it lost equals a capture with a roomy ring.
 */
TEST_F_TIMEOUT(cap, lost_counted, 600)
{
	uint64_t k[8], big[8], lost, lost_big, kept = 0, all = 0;
	int i;

	ASSERT_EQ(0, sh("%s capture --force-overwrite -q -n %s -s %s -N 20", prof, self->vnef, self->vntf));
	ASSERT_EQ(0, count(self->vntf, big, &lost_big));
	EXPECT_EQ(0, lost_big);
	ASSERT_EQ(0, sh("%s capture --force-overwrite -n %s -s %s -N 20 --ring-size 4K -w 2048 2>%s/err",
			prof, self->vnef, self->vntf, dir));
	ASSERT_EQ(0, count(self->vntf, k, &lost));
	for (i = 1; i < 8; i++) {
		if (i == VNEURON_TRACE_LOST)
			continue;
		kept += k[i];
		all += big[i];
	}
	EXPECT_EQ(all, kept + lost);
	EXPECT_EQ(0, sh("grep -q records %s/err", dir));
}

TEST_F_TIMEOUT(cap, application_form, 600)
{
	uint64_t k[8], lost;

	EXPECT_EQ(7, sh("CAPTURE_TEST_APP=%s %s capture -q -s %s -- %s", self->vnef, prof,
			self->vntf, self_exe));
	ASSERT_EQ(0, count(self->vntf, k, &lost));
	EXPECT_EQ(2, k[VNEURON_TRACE_EXEC_END]);
	EXPECT_EQ(0, lost);
	/* The API calls: open, load, two allocs, two (exec, wait); the log file is gone. */
	EXPECT_EQ(8, k[VNEURON_TRACE_MARKER]);
	EXPECT_NE(0, sh("test -e %s.api", self->vntf));
	/*
	 * Issue 12: the API log is a new file of capture's own (mkstemp() next to the
	 * profile): a file or a symlink already at PROFILE.api is neither truncated nor
	 * followed, and the log is gone after the merge.
	 */
	ASSERT_EQ(0, sh("echo mine > %s/keep && ln -s %s/keep %s.api", dir, dir, self->vntf));
	EXPECT_EQ(7, sh("CAPTURE_TEST_APP=%s %s capture --force-overwrite -q -s %s -- %s",
			self->vnef, prof, self->vntf, self_exe));
	EXPECT_EQ(0, sh("test \"$(cat %s/keep)\" = mine && test -L %s.api", dir, self->vntf));
	EXPECT_EQ(0, sh("! ls %s.api.* 2>/dev/null", self->vntf));
	ASSERT_EQ(0, count(self->vntf, k, &lost));
	EXPECT_EQ(8, k[VNEURON_TRACE_MARKER]);
	EXPECT_EQ(0, sh("%s view -n %s -s %s -o /dev/null 2>/dev/null", prof, self->vnef,
			self->vntf));
	/* issue 12: the profile says which program ran (section 9): no guess, no warning */
	EXPECT_EQ(1, sh("%s view -n %s -s %s 2>&1 | grep -q 'no program identity'", prof,
			self->vnef, self->vntf));
	EXPECT_EQ(0, sh("%s view -n %s -s %s 2>/dev/null | grep -q '^Executions (2)'", prof,
			self->vnef, self->vntf));
	EXPECT_EQ(3, sh("%s capture --force-overwrite -q -s %s -- sh -c 'exit 3'", prof, self->vntf));
	EXPECT_EQ(127, sh("%s capture --force-overwrite -q -s %s -- /nonexistent 2>/dev/null", prof, self->vntf));
}

/*
 * Issue 12: `capture --host` runs the same program on the host backend (the device core
 * in threads, no module): every modeled figure is the module's, so the two profiles'
 * summaries are the same, bar the lines that name the files and the backend. Two
 * captures in the guest: minutes on the debug kernel.
 */
TEST_F_TIMEOUT(cap, host_backend_same_figures, 900)
{
	ASSERT_EQ(0, sh("%s capture -q -n %s -s %s/mod.vntf in %s -N 2", prof, self->vnef, dir,
			self->npy));
	ASSERT_EQ(0, sh("%s capture --host -q -n %s -s %s/host.vntf in %s -N 2", prof,
			self->vnef, dir, self->npy));
	ASSERT_EQ(0, sh("%s view -n %s -s %s/mod.vntf | grep -v '^  program \\|captured on' "
			"> %s/mod.txt", prof, self->vnef, dir, dir));
	ASSERT_EQ(0, sh("%s view -n %s -s %s/host.vntf | grep -v '^  program \\|captured on' "
			"> %s/host.txt", prof, self->vnef, dir, dir));
	EXPECT_EQ(0, sh("diff %s/mod.txt %s/host.txt", dir, dir));
	EXPECT_EQ(0, sh("%s view -n %s -s %s/mod.vntf | grep -q 'captured on the module "
			"backend'", prof, self->vnef, dir));
	EXPECT_EQ(0, sh("%s view -n %s -s %s/host.vntf | grep -q 'captured on the host "
			"backend'", prof, self->vnef, dir));
	/* the JSON summaries too, but for the backend */
	ASSERT_EQ(0, sh("%s view -n %s -s %s/mod.vntf -f summary-json | sed 's/\"backend\":"
			"\"[a-z]*\"//' > %s/mod.json", prof, self->vnef, dir, dir));
	ASSERT_EQ(0, sh("%s view -n %s -s %s/host.vntf -f summary-json | sed 's/\"backend\":"
			"\"[a-z]*\"//' > %s/host.json", prof, self->vnef, dir, dir));
	EXPECT_EQ(0, sh("cmp %s/mod.json %s/host.json", dir, dir));
}

/*
 * Issue 12: a core the device does not have is one mistake with one message, whichever
 * tool is told: vneuron-run -c 5 says what capture -c 5 says (the module's default of
 * 2 cores a device), with the same usage status.
 */
TEST_F(cap, bad_core_same_message_as_vneuron_run)
{
	char run[PATH_MAX + 16], *slash;

	snprintf(run, sizeof(run), "%s", prof);
	slash = strrchr(run, '/');
	ASSERT_NE(NULL, slash);
	strcpy(slash + 1, "vneuron-run");
	EXPECT_EQ(2, sh("%s capture -q -n %s -s %s/c.vntf -c 5 2> %s/cap.err", prof, self->vnef,
			dir, dir));
	EXPECT_EQ(2, sh("%s %s -c 5 2> %s/run.err", run, self->vnef, dir));
	EXPECT_EQ(0, sh("grep -q -- '--core 5: /dev/vneuron0 has 2 cores' %s/cap.err", dir));
	EXPECT_EQ(0, sh("grep -q -- '--core 5: /dev/vneuron0 has 2 cores' %s/run.err", dir));
	/* the same sentence, after each tool's name */
	EXPECT_EQ(0, sh("test \"$(sed 's/^[^:]*: //' %s/cap.err)\" = "
			"\"$(sed 's/^[^:]*: //' %s/run.err)\"", dir, dir));
}

/* Many short runs of the tool: minutes on the debug kernel under emulation. */
TEST_F_TIMEOUT(cap, errors, 600)
{
	EXPECT_EQ(0, sh("%s capture --force-overwrite --help | grep -q SYNOPSIS", prof));
	EXPECT_EQ(2, sh("%s capture --force-overwrite -n %s 2>/dev/null", prof, self->vnef));	/* no -s */
	EXPECT_EQ(2, sh("%s capture --force-overwrite -s %s 2>/dev/null", prof, self->vntf));	/* no -n */
	EXPECT_EQ(2, sh("%s capture --force-overwrite -n %s -s %s in 2>/dev/null", prof, self->vnef, self->vntf));
	EXPECT_EQ(2, sh("%s capture --force-overwrite -n %s -s %s --num-exec 0 2>/dev/null", prof, self->vnef,
			self->vntf));
	EXPECT_EQ(2, sh("%s capture --force-overwrite -n %s -s %s -N 2 -k 3 2>/dev/null", prof, self->vnef,
			self->vntf));
	EXPECT_EQ(2, sh("%s capture --force-overwrite -n %s -s %s --ring-size 5000 2>/dev/null", prof,
			self->vnef, self->vntf));
	EXPECT_EQ(2, sh("%s capture --force-overwrite -n %s -s %s --mode fast 2>/dev/null", prof, self->vnef,
			self->vntf));
	EXPECT_EQ(2, sh("%s capture --force-overwrite -n %s -s %s --core 7 2>/dev/null", prof, self->vnef,
			self->vntf));
	EXPECT_EQ(2, sh("%s capture --force-overwrite -n %s -s %s --bogus 2>/dev/null", prof, self->vnef,
			self->vntf));
	EXPECT_EQ(2, sh("%s capture --force-overwrite -n %s -s %s -- true 2>/dev/null", prof, self->vnef,
			self->vntf));
	EXPECT_EQ(2, sh("%s capture --force-overwrite -s %s -- 2>/dev/null", prof, self->vntf));
	EXPECT_EQ(1, sh("%s capture --force-overwrite -n %s/none.vnef -s %s 2>/dev/null", prof, dir, self->vntf));
	EXPECT_EQ(1, sh("%s capture --force-overwrite -n %s -s %s 2>/dev/null", prof, self->npy, self->vntf));
	EXPECT_EQ(1, sh("%s capture --force-overwrite -n %s -s %s nope %s 2>/dev/null", prof, self->vnef,
			self->vntf, self->npy));
	EXPECT_EQ(1, sh("%s capture --force-overwrite -n %s -s %s in %s 2>/dev/null", prof, self->vnef,
			self->vntf, self->vnef));	/* wrong size */
	EXPECT_EQ(1, sh("%s capture --force-overwrite -n %s -s %s in %s/none 2>/dev/null", prof, self->vnef,
			self->vntf, dir));
	EXPECT_EQ(3, sh("%s capture --force-overwrite -n %s -s %s/no/such/dir/x.vntf 2>/dev/null", prof,
			self->vnef, dir));
	/* The message names the problem. */
	EXPECT_EQ(0, sh("%s capture --force-overwrite -n %s -s %s nope %s 2>&1 | grep -q \"no input tensor 'nope'\"",
			prof, self->vnef, self->vntf, self->npy));
}

TEST_HARNESS_MAIN
