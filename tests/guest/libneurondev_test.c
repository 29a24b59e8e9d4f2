// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libneurondev's device calls against vneuron.ko in the guest: open, info, memory
 * round trips through ioctls and mmap, errors with messages, and nd_close() freeing
 * what is left.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "neurondev.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

FIXTURE(dev)
{
	struct nd_device *dev;
	struct vneuron_info info;
};

FIXTURE_SETUP(dev)
{
	struct nd_error err;

	ASSERT_EQ(0, nd_open(0, &self->dev, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, nd_info(self->dev, &self->info));
}

FIXTURE_TEARDOWN(dev)
{
	nd_close(self->dev);
}

TEST_F(dev, info)
{
	EXPECT_EQ(VNEURON_UAPI_VERSION, self->info.uapi_version);
	EXPECT_TRUE(self->info.caps & VNEURON_CAP_MEM);
	EXPECT_STREQ("trn1", self->info.model.name);
	EXPECT_EQ(128, self->info.model.partitions);
	EXPECT_LE(1, self->info.core_count);
	EXPECT_LE(0, nd_device_fd(self->dev));
}

TEST_F(dev, memory_round_trip)
{
	struct nd_mem *m;
	uint8_t buf[8192], back[8192];
	uint8_t *map;
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	ASSERT_EQ(0, nd_mem_alloc(self->dev, sizeof(buf), &m)) TH_LOG("%s",
								       nd_device_error(self->dev));
	EXPECT_EQ(sizeof(buf), nd_mem_size(m));
	EXPECT_NE(0, nd_mem_handle(m));
	/* zeroed by the device */
	ASSERT_EQ(0, nd_mem_read(m, 0, back, sizeof(back)));
	for (i = 0; i < sizeof(back); i++)
		ASSERT_EQ(0, back[i]);
	ASSERT_EQ(0, nd_mem_write(m, 0, buf, sizeof(buf)));
	ASSERT_EQ(0, nd_mem_read(m, 0, back, sizeof(back)));
	EXPECT_EQ(0, memcmp(buf, back, sizeof(buf)));
	/* the mapping sees the same bytes, and writes through it are read back */
	ASSERT_EQ(0, nd_mem_map(m, (void **)&map)) TH_LOG("%s", nd_device_error(self->dev));
	EXPECT_EQ(0, memcmp(buf, map, sizeof(buf)));
	map[100] = 0xab;
	ASSERT_EQ(0, nd_mem_read(m, 100, back, 1));
	EXPECT_EQ(0xab, back[0]);
	{
		void *again;

		ASSERT_EQ(0, nd_mem_map(m, &again));
		EXPECT_EQ((void *)map, again);
	}
	EXPECT_EQ(0, nd_mem_free(m));
}

TEST_F(dev, errors_name_the_problem)
{
	struct nd_mem *m;
	uint8_t b[16];
	char msg[ND_ERRMSG_MAX];

	ASSERT_EQ(0, nd_mem_alloc(self->dev, 4096, &m));
	EXPECT_EQ(-ERANGE, nd_mem_read(m, 4090, b, 16));
	EXPECT_NE(NULL, strstr(nd_device_error(self->dev), "outside the 4096-byte buffer"));
	EXPECT_EQ(-EINVAL, nd_mem_alloc(self->dev, 0, &m));
	nd_device_error_copy(self->dev, msg, sizeof(msg));
	EXPECT_NE(NULL, strstr(msg, "allocation of 0 bytes"));
	EXPECT_EQ(-EINVAL, nd_reset(self->dev, 1000));
	EXPECT_NE(NULL, strstr(nd_device_error(self->dev), "reset of core 1000"));
	EXPECT_EQ(0, nd_reset(self->dev, 0)) TH_LOG("%s", nd_device_error(self->dev));
}

TEST_F(dev, too_large_allocation)
{
	struct nd_mem *m;

	if (!self->info.max_alloc || self->info.max_alloc == ~0ull)
		SKIP(return, "no allocation limit reported");
	EXPECT_EQ(-E2BIG, nd_mem_alloc(self->dev, self->info.max_alloc + 1, &m));
	EXPECT_NE(NULL, strstr(nd_device_error(self->dev), "largest allocation"));
}

/* nd_close() frees what the caller left allocated. */
TEST(close_frees_leftovers)
{
	struct vneuron_info before, after;
	struct nd_device *d1, *d2;
	struct nd_mem *m;
	int i;

	ASSERT_EQ(0, nd_open(0, &d1, NULL));
	ASSERT_EQ(0, nd_info(d1, &before));
	ASSERT_EQ(0, nd_open(0, &d2, NULL));
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, nd_mem_alloc(d2, 65536, &m));
	ASSERT_EQ(0, nd_info(d1, &after));
	EXPECT_LE(before.hbm_used + 8 * 65536, after.hbm_used);
	nd_close(d2);
	ASSERT_EQ(0, nd_info(d1, &after));
	EXPECT_EQ(before.hbm_used, after.hbm_used);
	nd_close(d1);
}

/* One handle, several threads allocating, writing, reading and freeing at once. */
struct worker {
	struct nd_device *dev;
	int id, errors;
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	uint8_t buf[4096], back[4096];
	struct nd_mem *m;
	int i;

	for (i = 0; i < 200; i++) {
		memset(buf, w->id * 16 + i, sizeof(buf));
		if (nd_mem_alloc(w->dev, sizeof(buf), &m)) {
			w->errors++;
			continue;
		}
		if (nd_mem_write(m, 0, buf, sizeof(buf)) || nd_mem_read(m, 0, back, sizeof(back)) ||
		    memcmp(buf, back, sizeof(buf)))
			w->errors++;
		/* every other buffer is left for nd_close() */
		if (i & 1 && nd_mem_free(m))
			w->errors++;
	}
	return NULL;
}

TEST(threads_share_a_handle)
{
	struct vneuron_info before, after;
	struct worker w[4];
	pthread_t th[4];
	struct nd_device *d, *probe;
	int i;

	ASSERT_EQ(0, nd_open(0, &probe, NULL));
	ASSERT_EQ(0, nd_info(probe, &before));
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	for (i = 0; i < 4; i++) {
		w[i].dev = d;
		w[i].id = i;
		w[i].errors = 0;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, worker_fn, &w[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, w[i].errors);
	}
	nd_close(d);
	ASSERT_EQ(0, nd_info(probe, &after));
	EXPECT_EQ(before.hbm_used, after.hbm_used);
	nd_close(probe);
}

TEST(missing_device)
{
	struct nd_device *d;
	struct nd_error err;

	EXPECT_EQ(-ENOENT, nd_open(200, &d, &err));
	EXPECT_STREQ("/dev/vneuron200: no such device; is vneuron.ko loaded?", err.msg);
}

TEST_HARNESS_MAIN
