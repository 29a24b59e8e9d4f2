// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The same program on the device (vneuron.ko) and on the host backend (libvncore):
 * the outputs agree and the modeled duration is the same, since both run core/.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

static void fill(float *x, size_t n, uint64_t s)
{
	size_t i;

	for (i = 0; i < n; i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		x[i] = (float)((double)(s >> 40) / (double)(1ull << 23) - 1.0);
	}
}

FIXTURE(ex)
{
	struct nd_device *dev;
	struct vneuron_info info;
};

FIXTURE_SETUP(ex)
{
	struct nd_error err;

	ASSERT_EQ(0, nd_open(0, &self->dev, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, nd_info(self->dev, &self->info));
	if (!(self->info.caps & VNEURON_CAP_EXEC))
		SKIP(return, "the device has no EXEC");
}

FIXTURE_TEARDOWN(ex)
{
	nd_close(self->dev);
}

/*
 * Run an image with two fp32 tensors (in, out of n elements each) both ways. exact: the
 * outputs must be bit-identical (no FMA-sensitive arithmetic in the kernel).
 */
static void both_ways(struct __test_metadata *_metadata, struct nd_device *dev,
		      const void *img, size_t size, const char *in_name,
		      const char *out_name, size_t n, double tol)
{
	float *x = malloc(n * 4), *yh = malloc(n * 4), *yd = malloc(n * 4);
	struct nd_host_tensor ht[] = { { in_name, x, n * 4 }, { out_name, yh, n * 4 } };
	struct nd_run_result rh, rd;
	struct nd_program *prog;
	struct nd_mem *mi, *mo;
	struct nd_error err;
	size_t i, bad = 0;

	ASSERT_NE(NULL, x);
	ASSERT_NE(NULL, yh);
	ASSERT_NE(NULL, yd);
	fill(x, n, n);
	ASSERT_EQ(0, nd_run_on_host(img, size, ht, 2, &rh, &err)) TH_LOG("%s", err.msg);

	ASSERT_EQ(0, nd_mem_alloc(dev, n * 4, &mi));
	ASSERT_EQ(0, nd_mem_alloc(dev, n * 4, &mo));
	ASSERT_EQ(0, nd_mem_write(mi, 0, x, n * 4));
	ASSERT_EQ(0, nd_program_load(dev, img, size, &prog, NULL))
		TH_LOG("%s", nd_device_error(dev));
	{
		struct nd_bind b[] = { { in_name, mi }, { out_name, mo } };

		ASSERT_EQ(0, nd_run(prog, 0, b, 2, 0, &rd)) TH_LOG("%s", nd_device_error(dev));
	}
	ASSERT_EQ(0, nd_mem_read(mo, 0, yd, n * 4));
	EXPECT_EQ(rh.model_ps, rd.model_ps);
	for (i = 0; i < n; i++) {
		int ok = tol == 0 ? !memcmp(&yh[i], &yd[i], 4) :
				    fabs((double)yh[i] - yd[i]) <= tol * (fabs(yh[i]) + 1);

		if (!ok && bad++ < 5)
			TH_LOG("element %zu: host %.9g, device %.9g", i, yh[i], yd[i]);
	}
	EXPECT_EQ(0, bad);
	TH_LOG("modeled %.2f us on both; host backend %.2f ms, device %.2f ms (guest time)",
	       rd.model_ps / 1e6, rh.host_ns / 1e6, rd.host_ns / 1e6);
	EXPECT_EQ(0, nd_program_unload(prog));
	nd_mem_free(mi);
	nd_mem_free(mo);
	free(x);
	free(yh);
	free(yd);
}

TEST_F(ex, exp_kernel_same_both_ways)
{
	struct nd_builder *b;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("exp", &b));
	ASSERT_EQ(0, nd_kernel_exp(b, 250, 512, 1));
	ASSERT_EQ(0, nd_builder_finish(b, &img, &size));
	both_ways(_metadata, self->dev, img, size, "in", "out", 250 * 512, 0);
	nd_builder_free(b);
	free(img);
}

TEST_F(ex, softmax_same_both_ways)
{
	struct nd_builder *b;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("softmax", &b));
	ASSERT_EQ(0, nd_kernel_softmax(b, 200, 256));
	ASSERT_EQ(0, nd_builder_finish(b, &img, &size));
	both_ways(_metadata, self->dev, img, size, "x", "y", 200 * 256, 0);
	nd_builder_free(b);
	free(img);
}

TEST_F(ex, rejected_image_names_the_check)
{
	struct nd_load_error le;
	struct nd_builder *b;
	struct nd_program *prog;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("exp", &b));
	ASSERT_EQ(0, nd_kernel_exp(b, 128, 64, 0));
	ASSERT_EQ(0, nd_builder_finish(b, &img, &size));
	((uint32_t *)img)[1] = 99;	/* version */
	EXPECT_EQ(-EINVAL, nd_program_load(self->dev, img, size, &prog, &le));
	EXPECT_EQ(VNEF_CHK_VERSION, le.check);
	EXPECT_NE(NULL, strstr(nd_device_error(self->dev), "version"));
	nd_builder_free(b);
	free(img);
}

TEST_HARNESS_MAIN
