// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron.ko in the guest: GET_INFO, RESET, sysfs, and the ioctl ABI rules every call
 * shares (struct size in the number, flags, unknown numbers, failed copies).
 */
#include <stddef.h>

#include "kmod_test.h"

/* The 6.1 harness and its FIXTURE_* macros define functions without prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"

/* An ioctl number like @cmd but carrying @size. */
static unsigned long resize(unsigned long cmd, unsigned int size)
{
	return _IOC(_IOC_DIR(cmd), _IOC_TYPE(cmd), _IOC_NR(cmd), size);
}

FIXTURE(dev) {
	int fd;
};

FIXTURE_SETUP(dev)
{
	self->fd = vn_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", VN_DEV, strerror(errno));
}

FIXTURE_TEARDOWN(dev)
{
	close(self->fd);
}

TEST_F(dev, get_info)
{
	struct vneuron_info info = { 0 };

	ASSERT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_GET_INFO, &info));
	EXPECT_EQ((__u32)VNEURON_UAPI_VERSION, info.uapi_version);
	EXPECT_TRUE(!!(info.caps & VNEURON_CAP_MEM));
	EXPECT_EQ(0U, info.device_index);
	EXPECT_LE(1U, info.device_count);
	EXPECT_EQ(vn_sysfs("core_count"), (long long)info.core_count);
	EXPECT_LE(1U, info.core_count);
	EXPECT_LE(1U, info.max_mem_handles);
	EXPECT_EQ(vn_sysfs("hbm_total"), (long long)info.hbm_bytes);
	EXPECT_LE(info.max_alloc, info.hbm_bytes);
	EXPECT_EQ(0ULL, info.hbm_used);
	EXPECT_STREQ("trn1", info.model.name);
	EXPECT_EQ(128U, info.model.tensor_rows);
	EXPECT_EQ(91750400000000ULL, info.model.peak_flops_bf16);
	EXPECT_EQ(info.model.peak_flops_bf16 / 4, info.model.peak_flops_fp32);
	EXPECT_EQ(16ULL << 30, info.model.hbm_modeled_bytes);
	EXPECT_EQ(0U, info.model.pad);
	EXPECT_EQ(0U, info.flags);
}

TEST_F(dev, get_info_flags)
{
	struct vneuron_info info = { .flags = 1 };

	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_GET_INFO, &info));
	info.flags = 0x80000000;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_GET_INFO, &info));
}

/* Version 1's struct vneuron_info ended before the limits (uapi 2 appended them). */
#define INFO_V1_SIZE	offsetof(struct vneuron_info, limits)

TEST_F(dev, struct_smaller_than_v1)
{
	struct vneuron_info info = { 0 };
	struct vneuron_mem_alloc a = { .size = 4096 };

	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, resize(VNEURON_IOCTL_GET_INFO, INFO_V1_SIZE - 8),
				    &info));
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, resize(VNEURON_IOCTL_GET_INFO, INFO_V1_SIZE - 1),
				    &info));
	/* Between version 1's size and today's: accepted (the version-1 caller). */
	EXPECT_EQ(0, vn_ioctl(self->fd, resize(VNEURON_IOCTL_GET_INFO, INFO_V1_SIZE), &info));
	EXPECT_EQ((__u32)VNEURON_UAPI_VERSION, info.uapi_version);
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, resize(VNEURON_IOCTL_GET_INFO, 0), &info));
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, resize(VNEURON_IOCTL_MEM_ALLOC, 8), &a));
	EXPECT_EQ(0, vn_sysfs("hbm_used"));
}

TEST_F(dev, struct_larger_zero_tail)
{
	struct {
		struct vneuron_info info;
		uint64_t tail[4];
	} big;
	struct {
		struct vneuron_mem_alloc a;
		uint64_t tail[2];
	} ba;

	memset(&big, 0, sizeof(big));
	ASSERT_EQ(0, vn_ioctl(self->fd, resize(VNEURON_IOCTL_GET_INFO, sizeof(big)), &big));
	EXPECT_STREQ("trn1", big.info.model.name);
	/* The kernel writes only what it knows; the caller's tail is left alone. */
	EXPECT_EQ(0ULL, big.tail[0] | big.tail[1] | big.tail[2] | big.tail[3]);

	memset(&ba, 0, sizeof(ba));
	ba.a.size = 4096;
	ASSERT_EQ(0, vn_ioctl(self->fd, resize(VNEURON_IOCTL_MEM_ALLOC, sizeof(ba)), &ba));
	EXPECT_NE(0U, ba.a.handle);
	EXPECT_EQ(0, vn_free(self->fd, ba.a.handle));
}

TEST_F(dev, struct_larger_nonzero_tail)
{
	struct {
		struct vneuron_info info;
		uint64_t tail[4];
	} big;
	struct {
		struct vneuron_mem_free f;
		uint32_t tail;
	} bf;
	int h;

	memset(&big, 0, sizeof(big));
	big.tail[3] = 1;
	EXPECT_EQ(-E2BIG, vn_ioctl(self->fd, resize(VNEURON_IOCTL_GET_INFO, sizeof(big)), &big));

	h = vn_alloc(self->fd, 4096, NULL);
	ASSERT_LT(0, h);
	bf.f.handle = h;
	bf.f.flags = 0;
	bf.tail = 0xff;
	EXPECT_EQ(-E2BIG, vn_ioctl(self->fd, resize(VNEURON_IOCTL_MEM_FREE, sizeof(bf)), &bf));
	/* Refused means not done: the buffer is still there. */
	bf.tail = 0;
	EXPECT_EQ(0, vn_ioctl(self->fd, resize(VNEURON_IOCTL_MEM_FREE, sizeof(bf)), &bf));
}

TEST_F(dev, unknown_ioctls)
{
	char buf[256] = { 0 };

	const int m = VNEURON_IOCTL_BASE;

	EXPECT_EQ(-ENOTTY, vn_ioctl(self->fd, _IOWR(m, 0x7f, struct vneuron_info), buf));
	/* The first number after the communicator ioctls (0x0a..0x0d) is unassigned. */
	EXPECT_EQ(-ENOTTY, vn_ioctl(self->fd, _IOWR(m, 0x0e, struct vneuron_reset), buf));
	/* A known number with another direction than its own. */
	EXPECT_EQ(-ENOTTY, vn_ioctl(self->fd, _IOR(m, 0x08, struct vneuron_exec), buf));
	/* Right number, wrong type letter or direction. */
	EXPECT_EQ(-ENOTTY, vn_ioctl(self->fd, _IOWR('W', 0x00, struct vneuron_info), buf));
	EXPECT_EQ(-ENOTTY, vn_ioctl(self->fd, _IOR(m, 0x00, struct vneuron_info), buf));
	EXPECT_EQ(-ENOTTY, vn_ioctl(self->fd, _IOWR(m, 0x02, struct vneuron_mem_free), buf));
	EXPECT_EQ(-ENOTTY, vn_ioctl(self->fd, _IO(m, 0x05), buf));
	/* uapi version 2's magic ('V', registered to others): its binaries get ENOTTY. */
	EXPECT_EQ(-ENOTTY, vn_ioctl(self->fd, _IOWR('V', 0x00, struct vneuron_info), buf));
	EXPECT_EQ(-ENOTTY, vn_ioctl(self->fd, _IOWR('V', 0x01, struct vneuron_mem_alloc), buf));
	EXPECT_EQ(-ENOTTY, vn_ioctl(self->fd, 0, buf));
}

TEST_F(dev, efault)
{
	struct vneuron_mem_alloc *ro;
	struct vneuron_info info;
	long long used = vn_sysfs("hbm_used");
	long long objs = vn_counter("mem_objects");
	char buf[64];
	int h;

	EXPECT_EQ(-EFAULT, vn_ioctl(self->fd, VNEURON_IOCTL_GET_INFO, NULL));
	EXPECT_EQ(-EFAULT, vn_ioctl(self->fd, VNEURON_IOCTL_GET_INFO, (void *)8));
	EXPECT_EQ(-EFAULT, vn_ioctl(self->fd, VNEURON_IOCTL_MEM_ALLOC, NULL));
	EXPECT_EQ(-EFAULT, vn_ioctl(self->fd, VNEURON_IOCTL_RESET, NULL));

	/* GET_INFO into read-only memory: the input reads fine, the output cannot land. */
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	ASSERT_EQ(0, mprotect(ro, PAGE, PROT_READ));
	EXPECT_EQ(-EFAULT, vn_ioctl(self->fd, VNEURON_IOCTL_GET_INFO, ro));

	/* MEM_ALLOC whose result cannot be written back: nothing may stay allocated. */
	ASSERT_EQ(0, mprotect(ro, PAGE, PROT_READ | PROT_WRITE));
	ro->size = 1 << 20;
	ASSERT_EQ(0, mprotect(ro, PAGE, PROT_READ));
	EXPECT_EQ(-EFAULT, vn_ioctl(self->fd, VNEURON_IOCTL_MEM_ALLOC, ro));
	EXPECT_EQ(used, vn_sysfs("hbm_used"));
	EXPECT_EQ(objs, vn_counter("mem_objects"));
	munmap(ro, PAGE);

	/* Copies from and to memory the process does not have. */
	h = vn_alloc(self->fd, 8192, NULL);
	ASSERT_LT(0, h);
	EXPECT_EQ(-EFAULT, vn_rw(self->fd, 1, h, 0, NULL, 64));
	EXPECT_EQ(-EFAULT, vn_rw(self->fd, 0, h, 0, NULL, 64));
	EXPECT_EQ(-EFAULT, vn_rw(self->fd, 0, h, 0, (void *)-4096L, 64));
	/* A user range that wraps the address space. */
	EXPECT_EQ(-EFAULT, vn_rw(self->fd, 1, h, 0, (void *)-32L, 64));
	EXPECT_EQ(0, vn_rw(self->fd, 0, h, 0, buf, sizeof(buf)));
	EXPECT_EQ(0, vn_free(self->fd, h));
	(void)info;
}

TEST_F(dev, reset)
{
	struct vneuron_reset r = { 0 };
	struct vneuron_info info = { 0 };

	ASSERT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_GET_INFO, &info));
	EXPECT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_RESET, &r));
	r.core = info.core_count - 1;
	EXPECT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_RESET, &r));
	r.core = info.core_count;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_RESET, &r));
	r.core = 0xffffffff;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_RESET, &r));
	r.core = 0;
	r.flags = 2;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_RESET, &r));
}

TEST(sysfs_layout)
{
	static const char *const stats[] = {
		"executions_ok", "executions_failed", "executions_timed_out",
		"busy_time_ns", "bytes_moved", "flops",
	};
	static const char *const fields[] = { "total", "present", "peak" };
	char path[256], name[32] = "";
	long long cores = vn_sysfs("core_count");
	FILE *fp;
	long long c;
	size_t s, f;

	ASSERT_LE(1, cores);
	EXPECT_EQ(91750400000000LL, vn_sysfs("peak_flops_bf16"));
	EXPECT_EQ(22937600000000LL, vn_sysfs("peak_flops_fp32"));
	EXPECT_EQ(410000000000LL, vn_sysfs("hbm_bandwidth"));
	EXPECT_LT(0, vn_sysfs("hbm_total"));
	EXPECT_EQ(0, vn_sysfs("hbm_used"));
	EXPECT_LE(0, vn_sysfs("hbm_peak"));
	fp = fopen(VN_SYSFS "/model_name", "r");
	ASSERT_NE(NULL, fp);
	ASSERT_EQ(1, fscanf(fp, "%31s", name));
	fclose(fp);
	EXPECT_STREQ("trn1", name);
	for (c = 0; c < cores; c++) {
		for (s = 0; s < sizeof(stats) / sizeof(stats[0]); s++) {
			for (f = 0; f < 3; f++) {
				snprintf(path, sizeof(path), "core%lld/stats/%s/%s", c, stats[s],
					 fields[f]);
				/* Readable numbers; other tests' executions move them. */
				EXPECT_LE(0, vn_sysfs(path)) TH_LOG("%s", path);
			}
		}
	}
	snprintf(path, sizeof(path), "core%lld/stats/flops/total", cores);
	EXPECT_EQ(-1, vn_sysfs(path));
}

TEST(hbm_used_in_sysfs)
{
	int fd = vn_open();
	long long before;
	int h;

	ASSERT_LE(0, fd);
	before = vn_sysfs("hbm_used");
	h = vn_alloc(fd, 3 * PAGE + 1, NULL);
	ASSERT_LT(0, h);
	/* Charged in whole pages. */
	EXPECT_EQ(before + 4 * (long long)PAGE, vn_sysfs("hbm_used"));
	EXPECT_LE(before + 4 * (long long)PAGE, vn_sysfs("hbm_peak"));
	close(fd);
	EXPECT_EQ(before, vn_sysfs("hbm_used"));
}

TEST(debugfs_counters)
{
	long long files = vn_counter("open_files");
	int fd;

	if (files < 0)
		SKIP(return, "no %s (debugfs not mounted?)", VN_COUNTERS);
	fd = vn_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(files + 1, vn_counter("open_files"));
	ASSERT_LT(0, vn_alloc(fd, 10000, NULL));
	EXPECT_LE(1, vn_counter("mem_objects"));
	EXPECT_LE(12288, vn_counter("mem_bytes"));
	close(fd);
	EXPECT_EQ(files, vn_counter("open_files"));
	EXPECT_EQ(0, vn_counter("mem_objects"));
	EXPECT_EQ(0, vn_counter("mem_bytes"));
}

TEST_HARNESS_MAIN
