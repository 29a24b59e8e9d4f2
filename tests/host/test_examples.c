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

#define BIN "build/bin/"

/* Run cmd through the shell, its stdout and stderr into out; the exit status or -1. */
static int run(const char *cmd, char *out, size_t size)
{
	char full[1024];
	size_t n = 0;
	FILE *p;
	int st;

	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	p = popen(full, "r");
	if (!p)
		return -1;
	while (n + 1 < size && (st = fgetc(p)) != EOF)
		out[n++] = (char)st;
	while (fgetc(p) != EOF)
		;
	out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

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
	ASSERT_EQ(0, run(BIN "example-exp --host", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "exp_naive      [250 x 512] fp32 on the host backend: ok"));
	EXPECT_NE(NULL, strstr(out, "exp_pipelined  [250 x 512] fp32 on the host backend: ok"));
	EXPECT_NE(NULL, strstr(out, "faster pipelined"));
}

TEST_F(ex, matmul_all_sizes)
{
	static const char *const sizes[] = { "512", "1024", "2048" };
	char cmd[128];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		snprintf(cmd, sizeof(cmd), BIN "example-matmul --host --size %s", sizes[i]);
		ASSERT_EQ(0, run(cmd, out, sizeof(out))) TH_LOG("%s: %s", cmd, out);
		EXPECT_NE(NULL, strstr(out, "_bf16 ")) TH_LOG("%s", out);
		EXPECT_NE(NULL, strstr(out, "_fp32 ")) TH_LOG("%s", out);
	}
}

TEST_F(ex, mlp_train_learns)
{
	float first, last;
	char *p;

	ASSERT_EQ(0, run(BIN "example-mlp-train --host", out, sizeof(out))) TH_LOG("%s", out);
	p = strstr(out, "mlp-train: ok, loss ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	ASSERT_EQ(2, sscanf(p, "mlp-train: ok, loss %f -> %f", &first, &last));
	EXPECT_GT(first, 2.0f);
	EXPECT_LT(last, 0.5f * first);
}

TEST_F(ex, attention)
{
	ASSERT_EQ(0, run(BIN "example-attention --host", out, sizeof(out))) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "attention: [512 x 64] one head on the host backend: ok"));
}

TEST_F(ex, bad_usage)
{
	EXPECT_EQ(2, run(BIN "example-exp --variant fast", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "naive, pipelined or both"));
	EXPECT_EQ(2, run(BIN "example-exp --write-vnef /dev/null", out, sizeof(out)));
	EXPECT_EQ(2, run(BIN "example-matmul --size 300", out, sizeof(out)));
	EXPECT_EQ(2, run(BIN "example-mlp-train --steps 1", out, sizeof(out)));
	EXPECT_EQ(2, run(BIN "example-attention --bogus", out, sizeof(out)));
	EXPECT_EQ(2, run(BIN "example-exp --device x", out, sizeof(out)));
	EXPECT_EQ(2, run(BIN "vneuron-run", out, sizeof(out)));
	EXPECT_EQ(2, run(BIN "vneuron-run x.vnef --num-exec 0", out, sizeof(out)));
	EXPECT_EQ(2, run(BIN "vneuron-ls --device 99", out, sizeof(out)));
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
		EXPECT_EQ(0, run(cmd, out, sizeof(out))) TH_LOG("%s", cmd);
		EXPECT_NE(NULL, strstr(out, "SYNOPSIS")) TH_LOG("%s", cmd);
		EXPECT_NE(NULL, strstr(out, "EXIT STATUS")) TH_LOG("%s", cmd);
	}
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
	ASSERT_EQ(0, run(cmd, out, sizeof(out))) TH_LOG("%s", out);
	for (i = 0; i < 250 * 512; i++)
		in[i] = (float)(i % 13) * 0.25f - 1.5f;
	snprintf(path, sizeof(path), "%s/in.npy", self->dir);
	ASSERT_EQ(0, nd_npy_save(path, shape, 2, in, &err)) TH_LOG("%s", err.msg);

	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s/exp.vnef in %s --host --save-output "
		 "%s/res -N 2", self->dir, path, self->dir);
	ASSERT_EQ(0, run(cmd, out, sizeof(out))) TH_LOG("%s", out);
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
	EXPECT_EQ(1, run(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "has no input 'nope'; its inputs: in")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), "head -c 100 %s/in.npy > %s/bad.npy && " BIN "vneuron-run "
		 "%s/exp.vnef in %s/bad.npy --host", self->dir, self->dir, self->dir, self->dir);
	EXPECT_EQ(1, run(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "truncated .npy header")) TH_LOG("%s", out);
	snprintf(path, sizeof(path), "%s/small.npy", self->dir);
	ASSERT_EQ(0, nd_npy_save(path, shape, 1, in, &err));
	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s/exp.vnef in %s --host", self->dir, path);
	EXPECT_EQ(1, run(cmd, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "250 elements, input 'in' has 128000")) TH_LOG("%s", out);
	snprintf(cmd, sizeof(cmd), BIN "vneuron-run %s --host", path);
	EXPECT_EQ(1, run(cmd, out, sizeof(out)));
}

TEST_HARNESS_MAIN
