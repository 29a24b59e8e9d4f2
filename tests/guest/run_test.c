// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The program runner (libvnprog/vnrun.h) on vneuron.ko: the same outputs and modeled
 * times as on the host backend, bit for bit, with the caller's buffers (one copy into
 * device memory), the runner's mapped device buffers (none), .npy files; ranks over the
 * module's communicator on two cores and, with devices=2, across devices; a runner on a
 * device handle the caller keeps; and a cancel from another thread during a long run
 * (the execution cancelled and reaped, -EINTR, then the handle runs again).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vnrun.h"
#include "../run_programs.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define ROWS	RP_ROWS
#define COLS	RP_COLS
#define N	(ROWS * COLS)
#define CN	RP_CN

static void fill(float *x, size_t n, uint32_t seed)
{
	uint32_t s = seed * 2654435761u + 12345;
	size_t i;

	for (i = 0; i < n; i++) {
		s = s * 1664525u + 1013904223u;
		x[i] = (float)((int32_t)(s >> 8) - (1 << 23)) / (float)(1 << (s % 23));
	}
}

/*
 * The same program and inputs on the host backend (ranks two to a modeled device, as the
 * module places them): outputs and modeled time.
 */
static int on_host(const void *img, size_t size, unsigned int nranks, float *const *x,
		   float *const *y, uint64_t *ps, const char *xn, const char *yn, uint64_t bytes)
{
	struct nd_runner_exec ex[4];
	struct nd_runner *r;
	struct nd_error err;
	unsigned int i;
	int ret;

	ret = nd_runner_open_host(NULL, &r, &err);
	if (ret)
		return ret;
	if (nranks > 1)
		ret = nd_runner_set_ranks(r, &(struct nd_runner_ranks){ .count = nranks,
					  .cores_per_device = 2 });
	ret = ret ?: nd_runner_load_image(r, img, size, NULL, NULL);
	for (i = 0; !ret && i < (nranks ? nranks : 1); i++)
		ret = nd_runner_bind(r, i, xn, x[i], bytes) ?:
		      nd_runner_bind(r, i, yn, y[i], bytes);
	ret = ret ?: nd_runner_run(r, 1, 0, ex);
	if (ret)
		fprintf(stderr, "# host: %s\n", nd_runner_error(r));
	*ps = ex[0].res.model_ps;
	nd_runner_close(r);
	return ret;
}

FIXTURE(dev)
{
	struct nd_device *dev;
	struct vneuron_info info;
	struct nd_runner *r;
	void *img;
	size_t size;
};

FIXTURE_SETUP(dev)
{
	struct nd_error err;

	ASSERT_EQ(0, nd_open(0, &self->dev, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, nd_info(self->dev, &self->info));
	self->img = rp_exp(&self->size);
	ASSERT_NE(NULL, self->img);
	ASSERT_EQ(0, nd_runner_open_device(0, 1, &self->r, &err)) TH_LOG("%s", err.msg);
	EXPECT_STREQ("/dev/vneuron0 core 1", nd_runner_where(self->r));
	EXPECT_EQ(0, nd_runner_is_host(self->r));
}

FIXTURE_TEARDOWN(dev)
{
	nd_runner_close(self->r);
	nd_close(self->dev);
	free(self->img);
}

/* Buffers, the mapped device memory and files: the host backend's bits each way. */
TEST_F_TIMEOUT(dev, equals_the_host_backend, 300)
{
	static float x[N], yh[N], yd[N];
	float *xs[] = { x }, *ys[] = { yh };
	struct nd_runner_exec ex[2];
	struct nd_npy np;
	struct nd_error err;
	uint64_t ps, size;
	void *data, *file;
	char path[] = "/tmp/vn_run_test_in.npy", out[] = "/tmp/vn_run_test_out.npy";
	static const uint64_t shape[] = { ROWS, COLS };

	fill(x, N, 7);
	ASSERT_EQ(0, on_host(self->img, self->size, 0, xs, ys, &ps, "in", "out",
			     sizeof(x)));
	ASSERT_EQ(0, nd_runner_load_image(self->r, self->img, self->size, NULL, NULL))
		TH_LOG("%s", nd_runner_error(self->r));
	EXPECT_EQ(NULL, nd_runner_host(self->r, 0));
	EXPECT_NE(NULL, nd_runner_device(self->r, 0));
	/* the caller's buffers: one copy in, one out */
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "in", x, sizeof(x)));
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "out", yd, sizeof(yd)));
	ASSERT_EQ(0, nd_runner_run(self->r, 2, 0, ex)) TH_LOG("%s", nd_runner_error(self->r));
	EXPECT_EQ(0, memcmp(yh, yd, sizeof(yd)));
	EXPECT_EQ(ps, ex[0].res.model_ps);
	EXPECT_EQ(ps, ex[1].res.model_ps);
	/* the device memory itself, mapped: written and read in place */
	ASSERT_EQ(0, nd_runner_data(self->r, 0, "in", &data, &size));
	EXPECT_EQ(sizeof(x), size);
	memcpy(data, x, sizeof(x));
	ASSERT_EQ(0, nd_runner_unbind(self->r, 0, "out"));
	ASSERT_EQ(0, nd_runner_run(self->r, 1, 0, ex)) TH_LOG("%s", nd_runner_error(self->r));
	ASSERT_EQ(0, nd_runner_data(self->r, 0, "out", &data, NULL));
	EXPECT_EQ(0, memcmp(yh, data, sizeof(yh)));
	/* .npy in and out */
	unlink(out);
	ASSERT_EQ(0, nd_npy_save(path, shape, 2, x, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, nd_runner_bind_file(self->r, 0, "in", path, 0));
	ASSERT_EQ(0, nd_runner_bind_file(self->r, 0, "out", out, 0));
	ASSERT_EQ(0, nd_runner_run(self->r, 1, 0, ex)) TH_LOG("%s", nd_runner_error(self->r));
	ASSERT_EQ(0, nd_npy_load(out, &np, &file, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0, memcmp(yh, (char *)file + np.data_off, sizeof(yh)));
	free(file);
	unlink(path);
	unlink(out);
	/* an execution that fails says how, with the module's words */
	nd_runner_set_limit(self->r, 1);
	EXPECT_EQ(-ETIMEDOUT, nd_runner_run(self->r, 1, 0, ex));
	EXPECT_NE(NULL, strstr(nd_runner_error(self->r), "execution 1: execution timeout"))
		TH_LOG("%s", nd_runner_error(self->r));
	EXPECT_EQ(-ETIMEDOUT, ex[0].err);
	nd_runner_set_limit(self->r, 0);
	EXPECT_EQ(0, nd_runner_run(self->r, 1, 0, ex)) TH_LOG("%s", nd_runner_error(self->r));
}

/* A runner on the caller's device handle; a core the device lacks. */
TEST_F(dev, on_a_device_handle)
{
	static float x[N], y[N];
	struct nd_runner *r;
	struct nd_error err;

	EXPECT_EQ(-ERANGE, nd_runner_open_device(0, 99, &r, &err));
	EXPECT_NE(NULL, strstr(err.msg, "core 99: /dev/vneuron0 has")) TH_LOG("%s", err.msg);
	EXPECT_EQ(-ERANGE, nd_runner_open_dev(self->dev, 99, &r, &err));
	ASSERT_EQ(0, nd_runner_open_dev(self->dev, 0, &r, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(self->dev, nd_runner_device(r, 0));
	ASSERT_EQ(0, nd_runner_load_image(r, self->img, self->size, NULL, NULL));
	ASSERT_EQ(0, nd_runner_bind_zeros(r, 0, NULL));
	ASSERT_EQ(0, nd_runner_bind(r, 0, "out", y, sizeof(y)));
	ASSERT_EQ(0, nd_runner_run(r, 1, 0, NULL)) TH_LOG("%s", nd_runner_error(r));
	EXPECT_EQ(1.0f, y[N - 1]);
	nd_runner_close(r);
	/* the handle is the caller's: still open */
	EXPECT_EQ(0, nd_info(self->dev, &self->info));
	(void)x;
}

/* Ranks over the module's communicator: two cores, and two devices when there are. */
TEST_F_TIMEOUT(dev, ranks, 300)
{
	static float x[4][CN], yd[4][CN], yh[4][CN];
	float *xs[4] = { x[0], x[1], x[2], x[3] }, *ys[4] = { yh[0], yh[1], yh[2], yh[3] };
	uint32_t dev4[4] = { 0, 0, 1, 1 }, core4[4] = { 0, 1, 0, 1 };
	struct nd_runner_exec ex[4];
	struct nd_runner_place pl;
	struct nd_runner *r;
	struct nd_error err;
	unsigned int i, n = self->info.device_count >= 2 ? 4 : 2;
	uint64_t ps;
	size_t size;
	void *img = rp_allreduce(&size);

	ASSERT_NE(NULL, img);
	for (i = 0; i < n; i++)
		fill(x[i], CN, i + 1);
	ASSERT_EQ(0, on_host(img, size, n, xs, ys, &ps, "x", "y", sizeof(x[0])));
	ASSERT_EQ(0, nd_runner_open_device(0, 0, &r, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, nd_runner_set_ranks(r, &(struct nd_runner_ranks){ .count = n }))
		TH_LOG("%s", nd_runner_error(r));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, nd_runner_place(r, i, &pl));
		EXPECT_EQ(dev4[i], pl.device);
		EXPECT_EQ(core4[i], pl.core);
	}
	ASSERT_EQ(0, nd_runner_load_image(r, img, size, NULL, NULL)) TH_LOG("%s",
									   nd_runner_error(r));
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, nd_runner_bind(r, i, "x", x[i], sizeof(x[i])));
		ASSERT_EQ(0, nd_runner_bind(r, i, "y", yd[i], sizeof(yd[i])));
	}
	ASSERT_EQ(0, nd_runner_run(r, 1, 0, ex)) TH_LOG("%s", nd_runner_error(r));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, memcmp(yh[i], yd[i], sizeof(yd[i]))) TH_LOG("rank %u", i);
		EXPECT_EQ(ps, ex[i].res.model_ps) TH_LOG("rank %u", i);
	}
	/* more ranks than cores */
	nd_runner_close(r);
	ASSERT_EQ(0, nd_runner_open_device(0, 0, &r, &err));
	EXPECT_EQ(-ENODEV, nd_runner_set_ranks(r, &(struct nd_runner_ranks){ .count = 64 }));
	EXPECT_NE(NULL, strstr(nd_runner_error(r), "64 ranks need")) TH_LOG("%s",
									    nd_runner_error(r));
	nd_runner_close(r);
	free(img);
}

/* A cancel during a long run: the execution cancelled in the module, -EINTR, usable. */
TEST_F_TIMEOUT(dev, cancel, 300)
{
	static float x[128 * 512], y[128 * 512];
	struct nd_runner_exec *ex = calloc(1000, sizeof(*ex));
	struct canceller c;
	pthread_t th;
	size_t size;
	void *img = rp_long(20000, &size);
	unsigned int i;

	ASSERT_NE(NULL, img);
	ASSERT_EQ(0, nd_runner_load_image(self->r, img, size, NULL, NULL));
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "x", x, sizeof(x)));
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "y", y, sizeof(y)));
	c = (struct canceller){ self->r, 500 };
	ASSERT_EQ(0, pthread_create(&th, NULL, cancel_later, &c));
	EXPECT_EQ(-EINTR, nd_runner_run(self->r, 1000, 0, ex));
	pthread_join(th, NULL);
	EXPECT_STREQ("interrupted (nd_runner_cancel())", nd_runner_error(self->r));
	for (i = 0; i < 1000 && ex[i].err != -EINTR; i++)
		;
	ASSERT_LT(i, 1000);
	EXPECT_EQ(VNEURON_EXEC_ABORTED, ex[i].res.result);
	EXPECT_EQ(VNEURON_REASON_CANCEL, ex[i].res.reason);
	/* nothing of it is left in the module: the next run is the only one */
	ASSERT_EQ(0, nd_runner_load_image(self->r, self->img, self->size, NULL, NULL));
	ASSERT_EQ(0, nd_runner_bind_zeros(self->r, 0, NULL));
	EXPECT_EQ(0, nd_runner_run(self->r, 2, 0, ex)) TH_LOG("%s", nd_runner_error(self->r));
	free(img);
	free(ex);
}

/* The same over ranks: the communicator breaks, the runner makes a new one. */
TEST_F_TIMEOUT(dev, cancel_ranks, 300)
{
	static float x[CN], y[2][CN];
	struct nd_runner_exec *ex = calloc(2 * 100000, sizeof(*ex));
	struct canceller c;
	struct nd_runner *r;
	struct nd_error err;
	pthread_t th;
	size_t size;
	void *img = rp_allreduce(&size);

	ASSERT_NE(NULL, img);
	fill(x, CN, 3);
	ASSERT_EQ(0, nd_runner_open_device(0, 0, &r, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, nd_runner_set_ranks(r, &(struct nd_runner_ranks){ .count = 2 }));
	ASSERT_EQ(0, nd_runner_load_image(r, img, size, NULL, NULL));
	ASSERT_EQ(0, nd_runner_bind(r, ND_RUNNER_ALL, "x", x, sizeof(x)));
	ASSERT_EQ(0, nd_runner_bind(r, 0, "y", y[0], sizeof(y[0])));
	ASSERT_EQ(0, nd_runner_bind(r, 1, "y", y[1], sizeof(y[1])));
	c = (struct canceller){ r, 500 };
	ASSERT_EQ(0, pthread_create(&th, NULL, cancel_later, &c));
	EXPECT_EQ(-EINTR, nd_runner_run(r, 100000, 0, ex));
	pthread_join(th, NULL);
	memset(y, 0, sizeof(y));
	EXPECT_EQ(0, nd_runner_run(r, 1, 0, ex)) TH_LOG("%s", nd_runner_error(r));
	EXPECT_EQ(0, memcmp(y[0], y[1], sizeof(y[0])));
	EXPECT_NE(0.0f, y[0][0]);
	nd_runner_close(r);
	free(img);
	free(ex);
}

TEST_HARNESS_MAIN
