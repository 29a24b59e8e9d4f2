// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Telemetry without the module (the host cannot load it; tests/guest/telemetry_test.c
 * covers the family): nd_telemetry_open()'s message when the family is absent, the
 * utilisation arithmetic of nd_tel_core_rates(), event names, and vneuron-top's and
 * vneuron-monitor's usage errors. Run from the top of the tree after `make`.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* the harness defines fixture functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"
#include "neurondev.h"
#include "run_util.h"

#define BIN "build/bin/"

TEST(open_without_module)
{
	struct nd_telemetry *t = (void *)1;
	struct nd_error err;
	int ret;

	ret = nd_telemetry_open(&t, &err);
	if (!ret) {
		nd_telemetry_close(t);
		SKIP(return, "the vneuron module is loaded here");
	}
	EXPECT_EQ(-ENOENT, ret);
	EXPECT_EQ(-ENOENT, err.code);
	EXPECT_STREQ("the vneuron module is not loaded (no generic netlink family 'vneuron')",
		     err.msg);
	EXPECT_EQ(NULL, t);
	EXPECT_EQ(-EINVAL, nd_telemetry_open(NULL, NULL));
	/* NULL handles are refused, not dereferenced */
	nd_telemetry_close(NULL);
	EXPECT_EQ(-1, nd_telemetry_fd(NULL));
	EXPECT_EQ(-EINVAL, nd_telemetry_subscribe(NULL));
	EXPECT_EQ(-EINVAL, nd_telemetry_cores(NULL, -1, NULL));
}

TEST(rates)
{
	struct nd_tel_core a = { .device = 1, .core = 2 }, b;
	struct nd_tel_rates r;

	a.timestamp_ns = 1000000000;
	a.exec_ok = 10;
	a.model_ps = 5000000;
	a.busy_ns = 100000000;		/* modeled ns, summed over the streams */
	a.stream_busy_ps[VNEURON_ENGINE_VECTOR] = 1000000;
	a.stream_busy_ps[VNEF_STREAM_DMA(3)] = 2000000;
	b = a;
	b.timestamp_ns += 500000000;		/* half a second later */
	b.exec_ok += 40;
	b.exec_fault += 10;
	b.model_ps += 8000000;			/* 8 us modeled */
	b.busy_ns += 20000;			/* 20 us of stream time in 8 us */
	b.stream_busy_ps[VNEURON_ENGINE_VECTOR] += 2000000;
	b.stream_busy_ps[VNEURON_ENGINE_TENSOR] += 8000000;
	b.stream_busy_ps[VNEF_STREAM_DMA(3)] += 6000000;
	b.stream_busy_ps[VNEF_STREAM_DMA(5)] += 4000000;
	b.bytes += 1000;
	b.flops += 16000000;

	ASSERT_EQ(0, nd_tel_core_rates(&a, &b, &r));
	EXPECT_EQ(50, r.execs);
	EXPECT_EQ(10, r.faults);
	EXPECT_EQ(8000000, r.model_ps);
	EXPECT_EQ(100, (int)(r.execs_per_s + 0.5));
	EXPECT_EQ(250, (int)(r.streams_busy * 100 + 0.5));
	EXPECT_EQ(100, (int)(r.engine[VNEURON_ENGINE_TENSOR] * 100 + 0.5));
	EXPECT_EQ(25, (int)(r.engine[VNEURON_ENGINE_VECTOR] * 100 + 0.5));
	EXPECT_EQ(0, (int)(r.engine[VNEURON_ENGINE_SCALAR] * 100 + 0.5));
	EXPECT_EQ(75, (int)(r.dma_queue[3] * 100 + 0.5));
	EXPECT_EQ(50, (int)(r.dma_queue[5] * 100 + 0.5));
	EXPECT_EQ(75, (int)(r.dma * 100 + 0.5));	/* the busiest queue */
	EXPECT_EQ(2000, (int)(r.bytes_per_s + 0.5));
	EXPECT_EQ(2000, (int)(r.model_flops * 1e-9 + 0.5));	/* 16 MFLOP in 8 us */

	/* nothing ran: no division by zero, everything 0 */
	ASSERT_EQ(0, nd_tel_core_rates(&a, &a, &r));
	EXPECT_EQ(0, r.execs);
	EXPECT_EQ(0, (int)(r.engine[0] * 100));
	EXPECT_EQ(0, (int)(r.streams_busy * 100));
	/* not the same core */
	b.core = 3;
	EXPECT_EQ(-EINVAL, nd_tel_core_rates(&a, &b, &r));
}

TEST(event_names)
{
	EXPECT_STREQ("exec_start", nd_tel_event_name(VNEURON_EVENT_EXEC_START));
	EXPECT_STREQ("exec_end", nd_tel_event_name(VNEURON_EVENT_EXEC_END));
	EXPECT_STREQ("fault", nd_tel_event_name(VNEURON_EVENT_FAULT));
	EXPECT_STREQ("claim", nd_tel_event_name(VNEURON_EVENT_CORE_CLAIM));
	EXPECT_STREQ("release", nd_tel_event_name(VNEURON_EVENT_CORE_RELEASE));
	EXPECT_STREQ("reset", nd_tel_event_name(VNEURON_EVENT_RESET));
	EXPECT_STREQ("trace_start", nd_tel_event_name(VNEURON_EVENT_TRACE_START));
	EXPECT_STREQ("trace_stop", nd_tel_event_name(VNEURON_EVENT_TRACE_STOP));
	EXPECT_STREQ("error", nd_tel_event_name(VNEURON_EVENT_ERROR));
	EXPECT_STREQ("dropped", nd_tel_event_name(VNEURON_EVENT_DROPPED));
	EXPECT_STREQ("?", nd_tel_event_name(VNEURON_EVENT_UNSPEC));
	EXPECT_STREQ("?", nd_tel_event_name(__VNEURON_EVENT_MAX));
}

TEST(tools_usage)
{
	char out[16384];

	if (access(BIN "vneuron-top", X_OK) || access(BIN "vneuron-monitor", X_OK))
		SKIP(return, "build/bin not built: run make first");
	EXPECT_EQ(0, run_out(BIN "vneuron-top --help", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "modeled time it was busy"));
	EXPECT_EQ(0, run_out(BIN "vneuron-monitor --help", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "--listen"));
	EXPECT_EQ(2, run_out(BIN "vneuron-top -d 0", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "vneuron-top -b x", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "vneuron-top extra", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "vneuron-monitor -i 0.01", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "vneuron-monitor --listen-any", out, sizeof(out)));
	EXPECT_EQ(2, run_out(BIN "vneuron-monitor --listen 127.0.0.1:99999", out, sizeof(out)));
	/* not loopback: refused before anything else */
	EXPECT_EQ(2, run_out(BIN "vneuron-monitor --listen 0.0.0.0:0", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "not a loopback address")) TH_LOG("%s", out);
	if (access("/sys/module/vneuron", F_OK)) {
		EXPECT_EQ(1, run_out(BIN "vneuron-top -b 1", out, sizeof(out)));
		EXPECT_NE(NULL, strstr(out, "the vneuron module is not loaded")) TH_LOG("%s", out);
		EXPECT_EQ(1, run_out(BIN "vneuron-monitor -n 1", out, sizeof(out)));
		EXPECT_NE(NULL, strstr(out, "the vneuron module is not loaded")) TH_LOG("%s", out);
	}
}

TEST_HARNESS_MAIN
