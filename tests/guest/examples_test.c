// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Every example on /dev/vneuron0 (the module's workers, not the host backend), each
 * checked against its host C reference by the example itself, and vneuron-ls and
 * vneuron-run against the loaded module. The 2048 matmul stays host-only
 * (tests/host/test_examples.c): under software emulation it takes minutes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vneuron.h"

/* the harness defines fixture functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "../host/run_util.h"

#define BIN "build/bin/"

static char out[1 << 16];

/* Software emulation is 10-50x slower than the host: minutes, not the default 30 s. */
FIXTURE(dev) {
	int unused;
};

FIXTURE_SETUP(dev)
{
}

FIXTURE_TEARDOWN(dev)
{
}

/* cmd's exit status, its output (both streams) in out */
static int run(const char *cmd)
{
	return run_out(cmd, out, sizeof(out));
}

TEST_F_TIMEOUT(dev, vneuron_ls, 600)
{
	ASSERT_EQ(0, run(BIN "vneuron-ls")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "/dev/vneuron0")) TH_LOG("%s", out);
	{
		/* issue 29: the table's lines are as wide as its border (CAPABILITIES wraps) */
		const char *p = out, *nl;
		size_t width = strcspn(out, "\n"), lines = 0;

		for (; *p == '+' || *p == '|'; p = nl + 1, lines++) {
			nl = strchr(p, '\n');
			ASSERT_NE(NULL, nl);
			EXPECT_EQ(width, (size_t)(nl - p)) TH_LOG("%.*s", (int)(nl - p), p);
		}
		/* border, header, border, a device with its caps on two lines or more, border */
		EXPECT_LE(6u, lines) TH_LOG("%s", out);
	}
	{
		char want[64];

		/* vneuron-ls reports the module's version: the one this tree's uapi has. */
		snprintf(want, sizeof(want), "uapi: module version %d,", VNEURON_UAPI_VERSION);
		EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	}
	ASSERT_EQ(0, run(BIN "vneuron-ls --json"));
	EXPECT_NE(NULL, strstr(out, "\"loaded\": true")) TH_LOG("%s", out);
	EXPECT_EQ(1, run(BIN "vneuron-ls --device 9"));
}

TEST_F_TIMEOUT(dev, exp_naive_and_pipelined, 600)
{
	ASSERT_EQ(0, run(BIN "example-exp")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "exp_naive      [250 x 512] fp32 on /dev/vneuron0 core 0: ok"));
	EXPECT_NE(NULL, strstr(out, "faster pipelined"));
	/* the other core */
	ASSERT_EQ(0, run(BIN "example-exp --core 1 --variant pipelined")) TH_LOG("%s", out);
}

TEST_F_TIMEOUT(dev, matmul_512_and_1024, 600)
{
	ASSERT_EQ(0, run(BIN "example-matmul --size 512 --time-limit 120")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "matmul_512_bf16  on /dev/vneuron0 core 0: ok"));
	EXPECT_NE(NULL, strstr(out, "matmul_512_fp32  on /dev/vneuron0 core 0: ok"));
	/*
	 * The debug kernel under emulation (VN_GUEST_SLOW, set by tools/check) runs the
	 * numerics many times slower: 1024 would pass its 30 s limit there. It checks the
	 * driver on the 512 case; the Debian kernel's run checks 1024.
	 */
	if (getenv("VN_GUEST_SLOW"))
		return;
	/* emulated, on a loaded host, 1024^3 may take longer than the default 30 s */
	ASSERT_EQ(0, run(BIN "example-matmul --size 1024 --dtype bf16 --time-limit 600"))
		TH_LOG("%s", out);
}

TEST_F_TIMEOUT(dev, attention, 600)
{
	ASSERT_EQ(0, run(BIN "example-attention --time-limit 600")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "on /dev/vneuron0 core 0: ok"));
}

TEST_F_TIMEOUT(dev, mlp_train_learns, 600)
{
	ASSERT_EQ(0, run(BIN "example-mlp-train --steps 20 --time-limit 600")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "mlp-train: ok, loss 2.28")) TH_LOG("%s", out);
}

TEST_F_TIMEOUT(dev, vneuron_run, 600)
{
	ASSERT_EQ(0, run(BIN "example-exp -q --host --variant naive --write-vnef "
			 "/tmp/vn_guest_exp.vnef"));
	ASSERT_EQ(0, run(BIN "vneuron-run /tmp/vn_guest_exp.vnef -N 2 --core 1 "
			 "--save-output /tmp/vn_guest_out")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "on /dev/vneuron0 core 1: 2 executions OK"));
	EXPECT_NE(NULL, strstr(out, "min 1 max 1 mean 1")) TH_LOG("%s", out);
	EXPECT_EQ(0, access("/tmp/vn_guest_out/out.npy", R_OK));
	EXPECT_EQ(1, run(BIN "vneuron-run /tmp/vn_guest_exp.vnef --device 7"));
	EXPECT_NE(NULL, strstr(out, "/dev/vneuron7")) TH_LOG("%s", out);
	unlink("/tmp/vn_guest_out/out.npy");
	rmdir("/tmp/vn_guest_out");
	unlink("/tmp/vn_guest_exp.vnef");
}

TEST_HARNESS_MAIN
