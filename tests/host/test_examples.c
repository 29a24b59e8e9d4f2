// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Every example on the host backend (build/bin/example-* --host), the tools' --help,
 * and vneuron-run on a program an example wrote, with .npy inputs and outputs. Run from
 * the top of the tree after `make` (tools/check does both).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* the harness defines fixture functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "vnprog.h"
#include "run_util.h"

#define BIN "build/bin/"

static char out[1 << 16];

FIXTURE(ex) {
	char dir[64];
};

FIXTURE_SETUP(ex)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/vn_examples_XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	if (access(BIN "example-exp", X_OK))
		SKIP(return, "build/bin/example-exp not built: run make first");
}

FIXTURE_TEARDOWN(ex)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		TH_LOG("could not remove %s", self->dir);
}

TEST_F(ex, exp_naive_and_pipelined)
{
	ASSERT_EQ(0, run_out(BIN "example-exp --host", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "exp_naive      [250 x 512] fp32 on the host backend: ok"));
	EXPECT_NE(NULL, strstr(out, "exp_pipelined  [250 x 512] fp32 on the host backend: ok"));
	EXPECT_NE(NULL, strstr(out, "faster pipelined"));
}

/* The modeled time of "NAME ... on the host backend (MODEL): ok, modeled T us" in out. */
static double modeled_us(const char *text, const char *model)
{
	char key[64];
	const char *p;
	double us = -1;

	snprintf(key, sizeof(key), "on the host backend (%s): ok, modeled ", model);
	p = strstr(text, key);
	if (p && sscanf(p + strlen(key), "%lf", &us) != 1)
		us = -1;
	return us;
}

/*
 * --model: the example is built for and runs on each model, says which, and the model's
 * figures give the time: trn3's faster engine clocks make exp faster than on trn1, trn2's
 * slower VectorE and ScalarE clocks slower (docs/isa.md, "Device models").
 */
TEST_F(ex, exp_per_model)
{
	static const char *const models[] = { "trn1", "trn2", "trn3" };
	double us[3];
	char cmd[160];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		snprintf(cmd, sizeof(cmd), BIN "example-exp --host --model %s --variant pipelined",
			 models[i]);
		ASSERT_EQ(0, run_out(cmd, out, sizeof(out))) TH_LOG("%s: %s", cmd, out);
		us[i] = modeled_us(out, models[i]);
		ASSERT_GT(us[i], 0.0) TH_LOG("%s", out);
	}
	EXPECT_GT(us[1], us[0]);
	EXPECT_LT(us[2], us[0]);
	/* without --model: trn1's figures, the same modeled time */
	ASSERT_EQ(0, run_out(BIN "example-exp --host --variant pipelined", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "on the host backend: ok")) TH_LOG("%s", out);
	ASSERT_EQ(0, run_out(BIN "example-matmul --host --model trn2", out, sizeof(out)))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "matmul_512_bf16  on the host backend (trn2): ok"))
		TH_LOG("%s", out);
}

TEST_F(ex, model_bad_usage)
{
	EXPECT_EQ(2, run_out(BIN "example-exp --host --model trn9", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "--model: unknown model 'trn9' (the models are trn1, "
			       "trn2, trn3)")) TH_LOG("%s", out);
	EXPECT_EQ(2, run_out(BIN "example-exp --host --model", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "expects a model name")) TH_LOG("%s", out);
	EXPECT_EQ(2, run_out(BIN "example-exp --model trn2", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "--model trn2 is for --host")) TH_LOG("%s", out);
	EXPECT_EQ(2, run_out(BIN "vneuron-run x.vnef --host --model TRN2", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "unknown model 'TRN2' (the models are trn1, trn2, trn3)"))
		TH_LOG("%s", out);
	EXPECT_EQ(2, run_out(BIN "vneuron-run x.vnef --model trn3", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "--model trn3 is for --host")) TH_LOG("%s", out);
	EXPECT_EQ(0, run_out(BIN "vneuron-run --help", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "--model NAME")) TH_LOG("%s", out);
}

TEST_F(ex, matmul_all_sizes)
{
	static const char *const sizes[] = { "512", "1024", "2048" };
	char cmd[128];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		snprintf(cmd, sizeof(cmd), BIN "example-matmul --host --size %s", sizes[i]);
		ASSERT_EQ(0, run_out(cmd, out, sizeof(out))) TH_LOG("%s: %s", cmd, out);
		EXPECT_NE(NULL, strstr(out, "_bf16 ")) TH_LOG("%s", out);
		EXPECT_NE(NULL, strstr(out, "_fp32 ")) TH_LOG("%s", out);
	}
}

TEST_F(ex, mlp_train_learns)
{
	float first, last;
	char *p;

	ASSERT_EQ(0, run_out(BIN "example-mlp-train --host", out, sizeof(out))) TH_LOG("%s", out);
	p = strstr(out, "mlp-train: ok, loss ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	ASSERT_EQ(2, sscanf(p, "mlp-train: ok, loss %f -> %f", &first, &last));
	EXPECT_GT(first, 2.0f);
	EXPECT_LT(last, 0.5f * first);
}

TEST_F(ex, attention)
{
	ASSERT_EQ(0, run_out(BIN "example-attention --host", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "attention: [512 x 64] one head on the host backend: ok"));
}

TEST_F(ex, bad_usage)
{
	EXPECT_EQ(2, run_out(BIN "example-exp --variant fast", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "naive, pipelined or both"));
	EXPECT_EQ(2, run_out(BIN "example-exp --write-vnef /dev/null", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "example-matmul --size 300", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "example-mlp-train --steps 1", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "example-attention --bogus", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "example-exp --device x", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "example-exp --host --time-limit 0", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "--time-limit: expects 1 to 3600 seconds, got '0'"));
	EXPECT_EQ(2, run_out(BIN "example-exp --host --time-limit 3601", out, sizeof(out)));
	EXPECT_EQ(0, run_out(BIN "example-exp --host -q --time-limit 60", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "vneuron-run", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "vneuron-run x.vnef --num-exec 0", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "vneuron-ls --device 99", out, sizeof(out)));
}

TEST_F(ex, help_of_every_tool)
{
	static const char *const tools[] = {
		"example-exp", "example-matmul", "example-mlp-train", "example-attention",
		"vneuron-run", "vneuron-ls",
	};
	char cmd[128];
	unsigned int i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		snprintf(cmd, sizeof(cmd), BIN "%s --help", tools[i]);
		EXPECT_EQ(0, run_out(cmd, out, sizeof(out))) TH_LOG("%s", cmd);
		EXPECT_NE(NULL, strstr(out, "SYNOPSIS")) TH_LOG("%s", cmd);
		EXPECT_NE(NULL, strstr(out, "EXIT STATUS")) TH_LOG("%s", cmd);
	}
}

/*
 * Issue 29: build/bin holds the tools and nothing else: their dependency files go to
 * build/rel/deps/bin/ (the Makefile's BIN_DEP), none beside them.
 */
TEST_F(ex, no_dependency_files_beside_the_tools)
{
	EXPECT_EQ(0, run_out("find build/bin -name '*.d' | grep -c . ; true", out, sizeof(out)));
	EXPECT_STREQ("0\n", out) TH_LOG("build/bin holds .d files");
	EXPECT_EQ(0, run_out("ls build/rel/deps/bin/example-exp.d", out, sizeof(out)))
		TH_LOG("%s", out);
}

/* A program built for trn2 runs with vneuron-run on the model --model names. */
TEST_F(ex, run_model)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), BIN "example-exp --host --model trn2 --variant naive -q "
		 "--write-vnef %s/exp.vnef", self->dir);
	ASSERT_EQ(0, run_out(cmd, out, sizeof(out))) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s/exp.vnef --host --model trn3", self->dir);
	ASSERT_EQ(0, run_out(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "exp.vnef on the host backend (trn3): 1 execution OK"))
		TH_LOG("%s", out);
}

/* An example writes its program; vneuron-run runs it with an .npy input. */
TEST_F(ex, vneuron_run_npy)
{
	const uint64_t shape[] = { 250, 512 };
	struct nd_error err = { 0 };
	static float in[250 * 512];
	char cmd[512], path[128];
	struct nd_npy npy;
	void *file;
	const float *o;
	size_t i, bad = 0;

	snprintf(cmd, sizeof(cmd), BIN "example-exp --host -q --variant pipelined "
		 "--write-vnef %s/exp.vnef", self->dir);
	ASSERT_EQ(0, run_out(cmd, out, sizeof(out))) TH_LOG("%s", out);
	for (i = 0; i < 250 * 512; i++)
		in[i] = (float)(i % 13) * 0.25f - 1.5f;
	snprintf(path, sizeof(path), "%s/in.npy", self->dir);
	ASSERT_EQ(0, nd_npy_save(path, shape, 2, in, &err)) TH_LOG("%s", err.msg);

	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s/exp.vnef in %s --host --save-output "
		 "%s/res -N 2", self->dir, path, self->dir);
	ASSERT_EQ(0, run_out(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "2 executions OK")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "out          [250 x 512] fp32: min")) TH_LOG("%s", out);
	snprintf(path, sizeof(path), "%s/res/out.npy", self->dir);
	ASSERT_EQ(0, nd_npy_load(path, &npy, &file, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(2u, npy.ndim);
	EXPECT_EQ(250u, npy.shape[0]);
	EXPECT_EQ(512u, npy.shape[1]);
	o = (const float *)((const char *)file + npy.data_off);
	for (i = 0; i < 250 * 512; i++)
		if (fabsf(o[i] - expf(in[i])) > 1e-5f * expf(in[i]))
			bad++;
	EXPECT_EQ(0u, bad);
	free(file);

	/* errors: an unknown input, a malformed .npy, the wrong element count */
	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s/exp.vnef nope %s/in.npy --host",
		 self->dir, self->dir);
	EXPECT_EQ(1, run_out(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "has no input 'nope'; its inputs: in")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "head -c 100 %s/in.npy > %s/bad.npy && " BIN "vneuron-run "
		 "%s/exp.vnef in %s/bad.npy --host", self->dir, self->dir, self->dir, self->dir);
	EXPECT_EQ(1, run_out(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "truncated .npy header")) TH_LOG("%s", out);
	snprintf(path, sizeof(path), "%s/small.npy", self->dir);
	ASSERT_EQ(0, nd_npy_save(path, shape, 1, in, &err));
	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s/exp.vnef in %s --host", self->dir, path);
	EXPECT_EQ(1, run_out(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "250 elements, input 'in' has 128000")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s --host", path);
	EXPECT_EQ(1, run_out(cmd, out, sizeof(out)));
}

/*
 * Issue 29, without the module: --write-vnef writes and exits 0, every tool that needs
 * the device names the --host form of the same command; and vneuron-run with a file but
 * no input name lists the program's inputs.
 */
TEST_F(ex, no_module_first_ten_minutes)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), BIN "example-exp --host -q --variant naive --write-vnef "
		 "%s/exp.vnef", self->dir);
	ASSERT_EQ(0, run_out(cmd, out, sizeof(out))) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s/exp.vnef %s/in.npy", self->dir,
		 self->dir);
	EXPECT_EQ(2, run_out(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "needs a NAME: inputs are NAME FILE pairs")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "exp.vnef's inputs: in (e.g. vneuron-run ")) TH_LOG("%s", out);
	if (!access("/dev/vneuron0", F_OK))
		SKIP(return, "a device is here: the no-module messages are not reachable");
	snprintf(cmd, sizeof(cmd), BIN "example-exp --variant naive --write-vnef %s/x.vnef",
		 self->dir);
	EXPECT_EQ(0, run_out(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "x.vnef; not run: /dev/vneuron0: no such device"));
	EXPECT_NE(NULL, strstr(out, "run it on the host backend: example-exp --host --variant "
			       "naive\n")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "%s/x.vnef", self->dir);
	EXPECT_EQ(0, access(cmd, R_OK));
	EXPECT_EQ(1, run_out(BIN "example-exp -q", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "host backend: example-exp --host -q\n")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s/x.vnef -N 2", self->dir);
	EXPECT_EQ(1, run_out(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "host backend: vneuron-run --host ")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), BIN "vneuron-profile capture -n %s/x.vnef -s %s/x.vntf",
		 self->dir, self->dir);
	EXPECT_EQ(3, run_out(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "capture on the host backend: vneuron-profile capture "
			       "--host -n ")) TH_LOG("%s", out);
}

/* Issue 29: the README's "No module here?" lines, run as written (in a folder of ours). */
TEST_F(ex, readme_no_module_path)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "set -e; sed -n '/^<!-- no-module -->$/,/^```$/p' README.md | "
		 "grep '^build/bin/' | sed 's#/tmp/#%s/#g' > %s/steps.sh; test -s %s/steps.sh; "
		 "bash -e %s/steps.sh", self->dir, self->dir, self->dir, self->dir);
	ASSERT_EQ(0, run_out(cmd, out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "faster pipelined")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Advice (")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "1 execution OK")) TH_LOG("%s", out);
}

/*
 * Issue 12: vneuron-run --save-output checks every output file before it runs (never an
 * input, an existing one only with --force-overwrite); and the smaller things: -N 0 and
 * an input bound twice say what is wrong, an example's errors name the example.
 */
TEST_F(ex, vneuron_run_never_loses_a_file)
{
	const uint64_t shape[] = { 250, 512 };
	struct nd_error err = { 0 };
	static float in[250 * 512];
	char cmd[768], path[128];

	snprintf(cmd, sizeof(cmd), BIN "example-exp --host -q --variant naive "
		 "--write-vnef %s/exp.vnef", self->dir);
	ASSERT_EQ(0, run_out(cmd, out, sizeof(out))) TH_LOG("%s", out);
	snprintf(path, sizeof(path), "%s/out.npy", self->dir);
	ASSERT_EQ(0, nd_npy_save(path, shape, 2, in, &err)) TH_LOG("%s", err.msg);
	/* the input file as the output (DIR/out.npy): refused, even forced */
	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s/exp.vnef in %s --host --save-output %s "
		 "--force-overwrite", self->dir, path, self->dir);
	EXPECT_EQ(2, run_out(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "would overwrite the input")) TH_LOG("%s", out);
	/* an existing output: refused before the run, then replaced with --force-overwrite */
	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s/exp.vnef --host -q --save-output %s",
		 self->dir, self->dir);
	EXPECT_EQ(2, run_out(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "out.npy exists; use --force-overwrite")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "OK"));
	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s/exp.vnef --host -q --save-output %s "
		 "--force-overwrite && [ $(ls -A %s | wc -l) = 2 ]", self->dir, self->dir,
		 self->dir);
	EXPECT_EQ(0, run_out(cmd, out, sizeof(out))) TH_LOG("%s", out);
	/* -N 0, an input bound twice */
	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s/exp.vnef -N 0 --host", self->dir);
	EXPECT_EQ(2, run_out(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "-N 0: run at least once")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "expects a number"));
	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s/exp.vnef in %s in %s --host", self->dir,
		 path, path);
	EXPECT_EQ(2, run_out(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "input 'in' is bound twice")) TH_LOG("%s", out);
	EXPECT_EQ(0, run_out(BIN "vneuron-run --help | grep -q -- --force-overwrite", out,
			 sizeof(out)));
	/* an example's error names it (no module here: the device is missing) */
	if (access("/dev/vneuron0", F_OK)) {
		EXPECT_NE(0, run_out(BIN "example-exp -q", out, sizeof(out)));
		EXPECT_EQ(0, strncmp(out, "example-exp: ", 13)) TH_LOG("%s", out);
	}
}

/*
 * vneuron-cc-bench, small: every collective from 1 KiB to 16 KiB over 4 ranks, checked;
 * the table parses, each row has the bus factor of its collective, and bad usage is 2.
 */
/* Average modeled busbw of vneuron-cc-bench's last line, or -1. */
static double avg_busbw(const char *text)
{
	const char *p = strstr(text, "# Avg bus bandwidth: ");
	double v = -1;

	if (p && sscanf(p, "# Avg bus bandwidth: %lf", &v) != 1)
		v = -1;
	return v;
}

/*
 * --model: the collectives run over that model's links (docs/isa.md): trn2's and trn3's
 * faster hops give a higher modeled busbw than trn1's, the results are still exact.
 */
TEST_F(ex, cc_bench_per_model)
{
	double bw[3];
	char cmd[160];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		snprintf(cmd, sizeof(cmd), BIN "vneuron-cc-bench -o all_reduce -b 1M -e 1M -i 1 "
			 "-w 0 --check --model trn%u", i + 1);
		ASSERT_EQ(0, run_out(cmd, out, sizeof(out))) TH_LOG("%s: %s", cmd, out);
		EXPECT_NE(NULL, strstr(out, "# check: 1 of 1 results match")) TH_LOG("%s", out);
		bw[i] = avg_busbw(out);
		ASSERT_GT(bw[i], 0.0) TH_LOG("%s", out);
	}
	EXPECT_NE(NULL, strstr(out, "host backend (trn3), fp32")) TH_LOG("%s", out);
	EXPECT_GT(bw[1], bw[0]);
	EXPECT_GT(bw[2], bw[0]);
	EXPECT_EQ(2, run_out(BIN "vneuron-cc-bench --model trn0", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "unknown model 'trn0' (the models are trn1, trn2, trn3)"))
		TH_LOG("%s", out);
	EXPECT_EQ(2, run_out(BIN "vneuron-cc-bench --model trn2 --device 0", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "is for the host backend")) TH_LOG("%s", out);
}

TEST_F(ex, cc_bench_small_checked)
{
	static const char *const ops[] = {
		"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "permute",
	};
	static const double factor[] = { 1.5, 0.75, 0.75, 0.75, 1.0 };
	unsigned int i, rows = 0;
	char *p, *line;

	ASSERT_EQ(0, run_out(BIN "vneuron-cc-bench -b 1K -e 16K --check -i 2", out, sizeof(out)))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "4 ranks (2 devices x 2 cores), host backend, fp32"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "# check: 15 of 15 results match the C reference"))
		TH_LOG("%s", out);
	for (i = 0; i < 5; i++) {
		char head[64];
		unsigned long long size, count, want = 1024;

		snprintf(head, sizeof(head), "# %s (bus factor", ops[i]);
		p = strstr(out, head);
		ASSERT_NE(NULL, p) TH_LOG("%s", head);
		line = strchr(strchr(p, '\n') + 1, '\n') + 1;	/* past the column heads */
		for (; want <= 16384; want *= 4) {
			double mus, ma, mb, hus, ha, hb;
			char type[8], check[8];

			ASSERT_EQ(10, sscanf(line, "%llu %llu %7s %lf %lf %lf %lf %lf %lf %7s",
					     &size, &count, type, &mus, &ma, &mb, &hus, &ha, &hb,
					     check)) TH_LOG("%s", line);
			EXPECT_EQ(want, size);
			EXPECT_EQ(want / 4, count);
			EXPECT_STREQ("fp32", type);
			EXPECT_STREQ("ok", check);
			EXPECT_GT(mus, 0.0);
			EXPECT_GT(hus, 0.0);
			/* algbw = size / time, busbw = algbw x factor (printed to 3 places) */
			EXPECT_LT(fabs(ma - size / (mus * 1e3)), 0.002 + 0.01 * ma);
			EXPECT_LT(fabs(mb - ma * factor[i]), 0.002 + 0.01 * mb);
			EXPECT_LT(fabs(hb - ha * factor[i]), 0.002 + 0.01 * hb);
			rows++;
			line = strchr(line, '\n') + 1;
		}
	}
	EXPECT_EQ(15u, rows);

	ASSERT_EQ(0, run_out(BIN "vneuron-cc-bench -b 1K -e 4K -d bf16 -n 3 --cores-per-device 1 "
			 "-o all_reduce,reduce_scatter --check -q", out, sizeof(out)))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "        1020         510  bf16")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "all_gather"));

	EXPECT_EQ(2, run_out(BIN "vneuron-cc-bench -d fp16", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "fp32 or bf16, not 'fp16'")) TH_LOG("%s", out);
	EXPECT_EQ(2, run_out(BIN "vneuron-cc-bench -o all_sum", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "unknown collective 'all_sum'")) TH_LOG("%s", out);
	EXPECT_EQ(2, run_out(BIN "vneuron-cc-bench -b 2K -e 1K", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "vneuron-cc-bench -n 0", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "vneuron-cc-bench -e 4Q", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "vneuron-cc-bench --host --device 0", out, sizeof(out)));
	EXPECT_EQ(0, run_out(BIN "vneuron-cc-bench --help", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "EXIT STATUS"));
	EXPECT_EQ(0, run_out(BIN "vneuron-cc-bench --version", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "vneuron-cc-bench ")) TH_LOG("%s", out);
}

/* Tensor parallel: B's columns on 4 (and 8) workers, an all_gather, C on every worker. */
TEST_F(ex, matmul_tp)
{
	double tp, one;
	char *p;

	ASSERT_EQ(0, run_out(BIN "example-matmul-tp --host", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "matmul-tp: [512 x 512] . [512 x 512] fp32 on 4 workers "
			       "(2 devices x 2 cores) on the host backend: ok")) TH_LOG("%s", out);
	p = strstr(out, "4 workers: modeled ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	ASSERT_EQ(1, sscanf(p, "4 workers: modeled %lf", &tp));
	p = strstr(out, "one core:   modeled ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	ASSERT_EQ(1, sscanf(p, "one core:   modeled %lf", &one));
	EXPECT_GT(tp, 0.0);
	EXPECT_GT(one, 0.0);
	ASSERT_EQ(0, run_out(BIN "example-matmul-tp --host --workers 8 --cores-per-device 4 "
			 "--dtype bf16", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "bf16 on 8 workers (2 devices x 4 cores)")) TH_LOG("%s", out);
	EXPECT_EQ(2, run_out(BIN "example-matmul-tp --workers 3", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "--workers 3 does not divide --size 512")) TH_LOG("%s", out);
	EXPECT_EQ(2, run_out(BIN "example-matmul-tp --size 2048", out, sizeof(out)));
	EXPECT_EQ(0, run_out(BIN "example-matmul-tp --help", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "EXIT STATUS"));
}

/*
 * Data parallel: 4 workers (2 devices x 2 cores) of 32 rows, gradients all_reduced;
 * every step's loss as one worker's on the global batch of 128, and it learns.
 */
TEST_F(ex, mlp_dp_matches_one_worker)
{
	float first, last, one_first, one_last, diff;
	char *p;

	ASSERT_EQ(0, run_out(BIN "example-mlp-dp --host", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "global batch 128 on 4 workers (2 devices x 2 cores, 32 rows "
			       "each), 50 steps on the host backend")) TH_LOG("%s", out);
	p = strstr(out, "mlp-dp: ok, loss ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	ASSERT_EQ(5, sscanf(p, "mlp-dp: ok, loss %f -> %f in 50 steps on 4 workers, one worker "
			    "%f -> %f; max loss difference %f", &first, &last, &one_first,
			    &one_last, &diff)) TH_LOG("%s", p);
	EXPECT_GT(first, 2.0f);
	EXPECT_LT(last, 0.5f * first);
	EXPECT_LE(diff, 1e-5f);
	EXPECT_LT(fabsf(first - one_first), 1e-4f);
	EXPECT_LT(fabsf(last - one_last), 1e-4f);

	ASSERT_EQ(0, run_out(BIN "example-mlp-dp --host --workers 8 --cores-per-device 4 --steps 4 "
			 "-q", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "in 4 steps on 8 workers")) TH_LOG("%s", out);
	EXPECT_EQ(2, run_out(BIN "example-mlp-dp --workers 3", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "1, 2, 4 or 8, not '3'")) TH_LOG("%s", out);
	EXPECT_EQ(2, run_out(BIN "example-mlp-dp --steps 1", out, sizeof(out)));
	EXPECT_EQ(0, run_out(BIN "example-mlp-dp --help", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "EXIT STATUS"));
}

TEST_HARNESS_MAIN
