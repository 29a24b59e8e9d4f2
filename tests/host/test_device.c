// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libneurondev device access on the host, where no module is loaded: every failure must
 * come back as -errno with a message naming the problem. The guest test
 * tests/guest/libneurondev_test.c covers the same calls against the real device.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nd_internal.h"
#include "vn_model.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

TEST(open_missing_index)
{
	struct nd_device *dev = (void *)1;
	struct nd_error err;

	ASSERT_EQ(-ENOENT, nd_open(250, &dev, &err));
	EXPECT_EQ(NULL, dev);
	EXPECT_EQ(-ENOENT, err.code);
	EXPECT_STREQ("/dev/vneuron250: no such device; is vneuron.ko loaded?", err.msg);
}

TEST(open_device0_when_absent)
{
	struct nd_device *dev = NULL;
	struct nd_error err;

	if (access("/dev/vneuron0", F_OK) == 0)
		SKIP(return, "/dev/vneuron0 exists here");
	ASSERT_EQ(-ENOENT, nd_open(0, &dev, &err));
	EXPECT_STREQ("/dev/vneuron0: no such device; is vneuron.ko loaded?", err.msg);
	/* err is optional */
	ASSERT_EQ(-ENOENT, nd_open(0, &dev, NULL));
}

TEST(open_not_vneuron)
{
	struct nd_device *dev = NULL;
	struct nd_error err;

	/* A character device that does not know our ioctls. */
	ASSERT_EQ(-ENOTTY, nd_open_path("/dev/null", &dev, &err));
	EXPECT_EQ(NULL, dev);
	EXPECT_NE(NULL, strstr(err.msg, "/dev/null: not a vneuron device"));
}

TEST(open_regular_file)
{
	char path[] = "/tmp/nd_test_XXXXXX";
	struct nd_device *dev = NULL;
	struct nd_error err;
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_EQ(-ENOTTY, nd_open_path(path, &dev, &err));
	EXPECT_NE(NULL, strstr(err.msg, "not a character device"));
	unlink(path);
}

TEST(open_bad_arguments)
{
	struct nd_device *dev = NULL;
	struct nd_error err;
	char longpath[200];

	EXPECT_EQ(-EINVAL, nd_open_path(NULL, &dev, &err));
	EXPECT_EQ(-EINVAL, nd_open_path("", &dev, &err));
	EXPECT_EQ(-EINVAL, nd_open(0, NULL, &err));
	EXPECT_NE(NULL, strstr(err.msg, "devp is NULL"));
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	EXPECT_EQ(-ENAMETOOLONG, nd_open_path(longpath, &dev, &err));
}

TEST(null_handles)
{
	char buf[64];

	nd_close(NULL);
	EXPECT_EQ(-EINVAL, nd_info(NULL, NULL));
	EXPECT_EQ(-EINVAL, nd_reset(NULL, 0));
	EXPECT_EQ(-EINVAL, nd_mem_alloc(NULL, 4096, NULL));
	EXPECT_EQ(0, nd_mem_free(NULL));
	EXPECT_EQ(-EINVAL, nd_mem_write(NULL, 0, buf, 1));
	EXPECT_EQ(-EINVAL, nd_mem_read(NULL, 0, buf, 1));
	EXPECT_EQ(-1, nd_device_fd(NULL));
	nd_device_error_copy(NULL, buf, sizeof(buf));
	EXPECT_STREQ("no device handle", buf);
}

TEST(strerror_names)
{
	EXPECT_STREQ("success", nd_strerror(0));
	EXPECT_STREQ(nd_strerror(ENOENT), nd_strerror(-ENOENT));
	EXPECT_NE(NULL, strstr(nd_strerror(-ENOMEM), "memory"));
	EXPECT_STREQ("unknown error", nd_strerror(-100000));
}

/*
 * LNC=2 through the library (lnc.c): the refusals, worded, before any device call.
 * nd_set_lnc() and the launch use these checks on the handle's GET_INFO.
 */
static struct vneuron_info lnc_info(const struct vneuron_model *m, unsigned int cores)
{
	struct vneuron_info info = {
		.uapi_version = VNEURON_UAPI_VERSION, .caps = VNEURON_CAP_LNC,
		.core_count = cores, .model = *m,
	};

	return info;
}

TEST(lnc_refusals)
{
	struct vneuron_info info = lnc_info(&vn_model_trn2, 4);
	char msg[ND_ERRMSG_MAX];

	EXPECT_EQ(0, nd_lnc_check(&info, 1, msg, sizeof(msg)));
	EXPECT_EQ(0, nd_lnc_check(&info, 2, msg, sizeof(msg)));
	EXPECT_EQ(-EINVAL, nd_lnc_check(&info, 0, msg, sizeof(msg)));
	EXPECT_STREQ("LNC=0: a logical core is 1 or 2 physical cores", msg);
	EXPECT_EQ(-EINVAL, nd_lnc_check(&info, 4, msg, sizeof(msg)));
	EXPECT_EQ(-EINVAL, nd_lnc_check(&info, 0x80000002u, msg, sizeof(msg)));

	info = lnc_info(&vn_model_trn1, 2);
	EXPECT_EQ(0, nd_lnc_check(&info, 1, msg, sizeof(msg)));
	EXPECT_EQ(-EOPNOTSUPP, nd_lnc_check(&info, 2, msg, sizeof(msg)));
	EXPECT_STREQ("LNC=2: model trn1 has no logical cores (LNC=2 needs trn2 or trn3: the "
		     "module's model parameter)", msg);

	/* an older module: no VNEURON_EXEC_LNC2 */
	info = lnc_info(&vn_model_trn2, 8);
	info.uapi_version = 7;
	info.caps = 0;
	EXPECT_EQ(-EOPNOTSUPP, nd_lnc_check(&info, 2, msg, sizeof(msg)));
	EXPECT_STREQ("LNC=2: this vneuron.ko (uapi 7) has no logical cores; update the module",
		     msg);

	info = lnc_info(&vn_model_trn3, 1);
	EXPECT_EQ(-EOPNOTSUPP, nd_lnc_check(&info, 2, msg, sizeof(msg)));
	EXPECT_STREQ("LNC=2: the device has 1 core, a logical core needs 2", msg);
}

TEST(lnc_cores)
{
	struct vneuron_info info = lnc_info(&vn_model_trn2, 5);
	char msg[ND_ERRMSG_MAX];

	EXPECT_EQ(0, nd_lnc_core_check(&info, 0, msg, sizeof(msg)));
	EXPECT_EQ(0, nd_lnc_core_check(&info, 2, msg, sizeof(msg)));
	EXPECT_EQ(-EINVAL, nd_lnc_core_check(&info, 1, msg, sizeof(msg)));
	EXPECT_STREQ("LNC=2: core 1 is not a logical core's first physical core (an even core)",
		     msg);
	/* core 4 is the device's last: it has no pair */
	EXPECT_EQ(-EINVAL, nd_lnc_core_check(&info, 4, msg, sizeof(msg)));
	EXPECT_STREQ("LNC=2: cores 4 and 5: the device has 5 cores", msg);
	EXPECT_EQ(-EINVAL, nd_lnc_core_check(&info, 6, msg, sizeof(msg)));
	/* no wrap past UINT_MAX */
	EXPECT_EQ(-EINVAL, nd_lnc_core_check(&info, 0xfffffffeu, msg, sizeof(msg)));
}

TEST(lnc_null_handle)
{
	EXPECT_EQ(-EINVAL, nd_set_lnc(NULL, 2));
	EXPECT_EQ(1U, nd_lnc(NULL));
}

TEST_HARNESS_MAIN
