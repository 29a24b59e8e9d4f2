// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The program runner (libvnprog/vnrun.h) on the host backend, cancelled: from another
 * thread during a long run (-EINTR, the execution in progress aborted, then the handle
 * runs again), before a run, and with ranks (every rank's execution ends, the
 * communicator is made again). The rest of the runner: test_run.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vnrun.h"
#include "vn_model.h"
#include "cc_ref.h"
#include "../run_programs.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define NR	4
#define CN	RP_CN

/* Of n executions, the one cancelled (ABORTED by the cancel), the others not run. */
static int cancelled_at(const struct nd_runner_exec *x, unsigned int n, unsigned int ranks)
{
	unsigned int i;

	for (i = 0; i < n * ranks; i++)
		if (x[i].err == -EINTR)
			return (int)(i / ranks);
	return -1;
}

/*
 * A cancel from another thread ends a long run at once with -EINTR (the execution in
 * progress aborted), and the handle runs again; a cancel before a run ends the next one.
 */
TEST(run_cancel)
{
	static float x[128 * 512], y[128 * 512];
	struct nd_runner_exec *ex = calloc(1000, sizeof(*ex));
	struct canceller c;
	struct nd_runner *r;
	struct nd_error err;
	pthread_t th;
	size_t size;
	void *img = rp_long(20000, &size);
	int at;

	ASSERT_NE(NULL, img);
	ASSERT_EQ(0, nd_runner_open_host(NULL, &r, &err));
	ASSERT_EQ(0, nd_runner_load_image(r, img, size, NULL, NULL));
	ASSERT_EQ(0, nd_runner_bind(r, 0, "x", x, sizeof(x)));
	ASSERT_EQ(0, nd_runner_bind(r, 0, "y", y, sizeof(y)));
	c = (struct canceller){ r, 200 };
	ASSERT_EQ(0, pthread_create(&th, NULL, cancel_later, &c));
	EXPECT_EQ(-EINTR, nd_runner_run(r, 1000, 0, ex));
	pthread_join(th, NULL);
	EXPECT_STREQ("interrupted (nd_runner_cancel())", nd_runner_error(r));
	at = cancelled_at(ex, 1000, 1);
	ASSERT_LE(0, at);
	EXPECT_EQ(VNEURON_EXEC_ABORTED, ex[at].res.result);
	EXPECT_EQ(VNEURON_REASON_CANCEL, ex[at].res.reason);
	EXPECT_EQ(0, ex[at + 1].done);
	/* a short program on the same handle now runs */
	free(img);
	img = rp_long(2, &size);
	ASSERT_EQ(0, nd_runner_load_image(r, img, size, NULL, NULL));
	ASSERT_EQ(0, nd_runner_bind_zeros(r, 0, "x"));
	EXPECT_EQ(0, nd_runner_run(r, 3, 0, ex)) TH_LOG("%s", nd_runner_error(r));
	/* a cancel between runs ends the next run before it starts, and only that one */
	nd_runner_cancel(r);
	EXPECT_EQ(-EINTR, nd_runner_run(r, 1, 0, ex));
	EXPECT_EQ(0, ex[0].done);
	EXPECT_EQ(0, nd_runner_run(r, 1, 0, ex));
	nd_runner_close(r);
	free(img);
	free(ex);
}

/* The same with ranks: every rank's execution ends, the communicator is made again. */
TEST(run_cancel_ranks)
{
	static float x[CN], y[NR][CN], ref[CN];
	const float *xs[NR] = { x, x, x, x };
	const struct cc_ref_in twice = { xs, 2.0f };
	struct nd_runner_exec *ex = calloc(100000 * NR, sizeof(*ex));
	struct canceller c;
	struct nd_runner *r;
	struct nd_error err;
	pthread_t th;
	size_t size, e;
	void *img = rp_allreduce(&size);
	unsigned int i;

	ASSERT_NE(NULL, img);
	ASSERT_NE(NULL, ex);
	cc_fill(x, CN, 5);
	ASSERT_EQ(0, nd_runner_open_host(NULL, &r, &err));
	ASSERT_EQ(0, nd_runner_set_ranks(r, &(struct nd_runner_ranks){ .count = NR }));
	ASSERT_EQ(0, nd_runner_load_image(r, img, size, NULL, NULL));
	ASSERT_EQ(0, nd_runner_bind(r, ND_RUNNER_ALL, "x", x, sizeof(x)));
	for (i = 0; i < NR; i++)
		ASSERT_EQ(0, nd_runner_bind(r, i, "y", y[i], sizeof(y[i])));
	c = (struct canceller){ r, 300 };
	ASSERT_EQ(0, pthread_create(&th, NULL, cancel_later, &c));
	EXPECT_EQ(-EINTR, nd_runner_run(r, 100000, 0, ex));
	pthread_join(th, NULL);
	EXPECT_STREQ("interrupted (nd_runner_cancel())", nd_runner_error(r));
	for (e = 0; e < CN; e++)
		ref[e] = cc_ref_reduce(&twice, VN_CC_SUM, NR, e) + 1.0f;
	memset(y, 0, sizeof(y));
	ASSERT_EQ(0, nd_runner_run(r, 1, 0, ex)) TH_LOG("%s", nd_runner_error(r));
	for (i = 0; i < NR; i++)
		EXPECT_EQ(0, memcmp(ref, y[i], sizeof(ref))) TH_LOG("rank %u", i);
	nd_runner_close(r);
	free(img);
	free(ex);
}

TEST_HARNESS_MAIN
