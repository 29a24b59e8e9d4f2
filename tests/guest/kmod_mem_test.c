// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron.ko in the guest: MEM_ALLOC/FREE/WRITE/READ and mmap of buffers, their
 * success paths and every validation failure.
 */
#include "kmod_test.h"

/* The 6.1 harness and its FIXTURE_* macros define functions without prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"

FIXTURE(mem) {
	int fd;
	struct vneuron_info info;
};

FIXTURE_SETUP(mem)
{
	self->fd = vn_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", VN_DEV, strerror(errno));
	memset(&self->info, 0, sizeof(self->info));
	ASSERT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_GET_INFO, &self->info));
}

FIXTURE_TEARDOWN(mem)
{
	close(self->fd);
	/* Whatever a test left, closing the file gave it all back. */
	EXPECT_EQ(0, vn_sysfs("hbm_used"));
}

TEST_F(mem, alloc_free)
{
	struct vneuron_mem_alloc a, b;
	int h;

	h = vn_alloc(self->fd, 100, &a);
	ASSERT_LT(0, h);
	EXPECT_EQ(0ULL, a.mmap_offset % PAGE);
	EXPECT_NE(0ULL, a.device_addr);
	EXPECT_GT(VNEURON_MMAP_TRACE_BASE, a.mmap_offset);
	ASSERT_LT(0, vn_alloc(self->fd, 5 * PAGE, &b));
	EXPECT_NE(a.handle, b.handle);
	EXPECT_NE(a.mmap_offset, b.mmap_offset);
	/* Device ranges never overlap. */
	EXPECT_TRUE(b.device_addr >= a.device_addr + PAGE || a.device_addr >= b.device_addr + 5 * PAGE);
	EXPECT_EQ(0, vn_free(self->fd, a.handle));
	EXPECT_EQ(0, vn_free(self->fd, b.handle));
}

TEST_F(mem, alloc_bad_args)
{
	struct vneuron_mem_alloc a = { .size = PAGE, .flags = 1 };

	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_MEM_ALLOC, &a));
	EXPECT_EQ(-EINVAL, vn_alloc(self->fd, 0, NULL));
	EXPECT_EQ(0, vn_sysfs("hbm_used"));
}

TEST_F(mem, alloc_too_large)
{
	EXPECT_EQ(-ENOMEM, vn_alloc(self->fd, self->info.max_alloc + 1, NULL));
	EXPECT_EQ(-ENOMEM, vn_alloc(self->fd, self->info.hbm_bytes + 1, NULL));
	EXPECT_EQ(-ENOMEM, vn_alloc(self->fd, UINT64_MAX, NULL));
	EXPECT_EQ(-ENOMEM, vn_alloc(self->fd, UINT64_MAX - PAGE + 2, NULL));
	EXPECT_EQ(-ENOMEM, vn_alloc(self->fd, 1ULL << 63, NULL));
}

/* MemAvailable in bytes, or 0. */
static unsigned long long mem_available(void)
{
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* The whole budget once, then nothing more; after a free it is all there again. */
TEST_F(mem, budget_exhaustion)
{
	int h, h2;

	if (self->info.hbm_bytes > mem_available() / 2)
		SKIP(return, "hbm_bytes %llu: more than this machine backs comfortably",
		     (unsigned long long)self->info.hbm_bytes);

	h = vn_alloc(self->fd, self->info.hbm_bytes, NULL);
	ASSERT_LT(0, h);
	EXPECT_EQ((long long)self->info.hbm_bytes, vn_sysfs("hbm_used"));
	EXPECT_EQ(-ENOMEM, vn_alloc(self->fd, 1, NULL));
	ASSERT_EQ(0, vn_free(self->fd, h));
	h = vn_alloc(self->fd, self->info.hbm_bytes / 2, NULL);
	ASSERT_LT(0, h);
	h2 = vn_alloc(self->fd, self->info.hbm_bytes / 2, NULL);
	ASSERT_LT(0, h2);
	EXPECT_EQ(-ENOMEM, vn_alloc(self->fd, PAGE, NULL));
	EXPECT_EQ(0, vn_free(self->fd, h2));
	EXPECT_EQ(0, vn_free(self->fd, h));
}

TEST_F(mem, bad_handles)
{
	char buf[16] = { 0 };
	struct vneuron_mem_free f = { 0 };
	int h;

	EXPECT_EQ(-ENOENT, vn_free(self->fd, 0));
	EXPECT_EQ(-ENOENT, vn_free(self->fd, 12345));
	EXPECT_EQ(-ENOENT, vn_free(self->fd, 0xffffffff));
	EXPECT_EQ(-ENOENT, vn_rw(self->fd, 1, 777, 0, buf, sizeof(buf)));
	EXPECT_EQ(-ENOENT, vn_rw(self->fd, 0, 0, 0, buf, sizeof(buf)));
	h = vn_alloc(self->fd, PAGE, NULL);
	ASSERT_LT(0, h);
	ASSERT_EQ(0, vn_free(self->fd, h));
	/* A freed handle is gone, and the next buffer does not reuse its number. */
	EXPECT_EQ(-ENOENT, vn_free(self->fd, h));
	EXPECT_EQ(-ENOENT, vn_rw(self->fd, 1, h, 0, buf, sizeof(buf)));
	EXPECT_EQ(-ENOENT, vn_rw(self->fd, 0, h, 0, buf, sizeof(buf)));
	EXPECT_NE(h, vn_alloc(self->fd, PAGE, NULL));
	/* MEM_FREE with flags is refused before the handle is looked at. */
	f.handle = h + 1;
	f.flags = 1;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_MEM_FREE, &f));
	f.flags = 0;
	EXPECT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_MEM_FREE, &f));
}

TEST_F(mem, write_read)
{
	unsigned char in[3 * 4096 + 17], out[sizeof(in)];
	int h = vn_alloc(self->fd, sizeof(in), NULL);

	ASSERT_LT(0, h);
	vn_fill(in, sizeof(in), 7);
	ASSERT_EQ(0, vn_rw(self->fd, 1, h, 0, in, sizeof(in)));
	memset(out, 0, sizeof(out));
	ASSERT_EQ(0, vn_rw(self->fd, 0, h, 0, out, sizeof(out)));
	EXPECT_EQ(0, memcmp(in, out, sizeof(in)));
	/* Unaligned pieces at offsets, up to the last byte. */
	ASSERT_EQ(0, vn_rw(self->fd, 1, h, 4095, "abc", 3));
	ASSERT_EQ(0, vn_rw(self->fd, 1, h, sizeof(in) - 1, "z", 1));
	memset(out, 0, sizeof(out));
	ASSERT_EQ(0, vn_rw(self->fd, 0, h, 4094, out, 5));
	EXPECT_EQ(in[4094], out[0]);
	EXPECT_EQ(0, memcmp(out + 1, "abc", 3));
	EXPECT_EQ(in[4098], out[4]);
	ASSERT_EQ(0, vn_rw(self->fd, 0, h, sizeof(in) - 1, out, 1));
	EXPECT_EQ('z', out[0]);
}

TEST_F(mem, rw_range_and_flags)
{
	struct vneuron_mem_rw rw;
	char buf[64] = { 0 };
	int h = vn_alloc(self->fd, 100, NULL);

	ASSERT_LT(0, h);
	EXPECT_EQ(0, vn_rw(self->fd, 1, h, 0, buf, 64));
	EXPECT_EQ(0, vn_rw(self->fd, 1, h, 36, buf, 64));
	/* Beyond the end of the buffer (not of its page): refused. */
	EXPECT_EQ(-EINVAL, vn_rw(self->fd, 1, h, 37, buf, 64));
	EXPECT_EQ(-EINVAL, vn_rw(self->fd, 0, h, 37, buf, 64));
	EXPECT_EQ(-EINVAL, vn_rw(self->fd, 0, h, 100, buf, 1));
	EXPECT_EQ(-EINVAL, vn_rw(self->fd, 0, h, 4096, buf, 1));
	/* Size 0 and offset + size overflowing. */
	EXPECT_EQ(-EINVAL, vn_rw(self->fd, 1, h, 0, buf, 0));
	EXPECT_EQ(-EINVAL, vn_rw(self->fd, 1, h, UINT64_MAX, buf, 2));
	EXPECT_EQ(-EINVAL, vn_rw(self->fd, 0, h, 2, buf, UINT64_MAX));
	EXPECT_EQ(-EINVAL, vn_rw(self->fd, 0, h, UINT64_MAX - 10, buf, 11));
	memset(&rw, 0, sizeof(rw));
	rw.handle = h;
	rw.size = 8;
	rw.user_ptr = (uintptr_t)buf;
	rw.flags = 1;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_MEM_WRITE, &rw));
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_MEM_READ, &rw));
	rw.flags = 0;
	EXPECT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_MEM_READ, &rw));
}

/* Memory handed out is zero, even where an earlier buffer was written and freed. */
TEST_F(mem, always_zeroed)
{
	size_t n = 1 << 20;
	unsigned char *buf = malloc(n);
	size_t i, nonzero = 0;
	int round, h;

	ASSERT_NE(NULL, buf);
	for (round = 0; round < 4; round++) {
		h = vn_alloc(self->fd, n, NULL);
		ASSERT_LT(0, h);
		memset(buf, 0xa5, n);
		ASSERT_EQ(0, vn_rw(self->fd, 0, h, 0, buf, n));
		for (i = 0; i < n; i++)
			nonzero += buf[i] != 0;
		memset(buf, 0xff, n);
		ASSERT_EQ(0, vn_rw(self->fd, 1, h, 0, buf, n));
		ASSERT_EQ(0, vn_free(self->fd, h));
	}
	EXPECT_EQ(0UL, nonzero);
	free(buf);
}

/* Copies larger than the kernel's chunk. */
TEST_F(mem, large_copy)
{
	size_t n = (8 << 20) + 123;
	unsigned char *in = malloc(n), *out = malloc(n);
	int h;

	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	h = vn_alloc(self->fd, n, NULL);
	ASSERT_LT(0, h);
	vn_fill(in, n, 3);
	ASSERT_EQ(0, vn_rw(self->fd, 1, h, 0, in, n));
	memset(out, 0, n);
	ASSERT_EQ(0, vn_rw(self->fd, 0, h, 0, out, n));
	EXPECT_EQ(0, memcmp(in, out, n));
	free(in);
	free(out);
}

/* @n buffers of one byte; the last handle, or the first error. */
static int alloc_many(int fd, unsigned int n)
{
	unsigned int i;
	int h = -EINVAL;

	for (i = 0; i < n; i++) {
		h = vn_alloc(fd, 1, NULL);
		if (h < 0)
			break;
	}
	return h;
}

/* Thousands of allocations: minutes on the debug kernel of a loaded emulated guest. */
TEST_F_TIMEOUT(mem, handle_limit, 600)
{
	int h = alloc_many(self->fd, self->info.max_mem_handles);

	ASSERT_LT(0, h);
	EXPECT_EQ(-ENOSPC, vn_alloc(self->fd, 1, NULL));
	ASSERT_EQ(0, vn_free(self->fd, h));
	EXPECT_LT(0, vn_alloc(self->fd, 1, NULL));
}

TEST_F(mem, mmap_coherence)
{
	struct vneuron_mem_alloc a;
	size_t n = 4 * PAGE;
	unsigned char in[4 * 4096], out[4 * 4096];
	unsigned char *p, *q;

	ASSERT_LT(0, vn_alloc(self->fd, n, &a));
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, a.mmap_offset);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap: %s", strerror(errno));
	/* Zero to start with, like any buffer. */
	EXPECT_EQ(0, p[0] | p[n - 1]);
	/* MEM_WRITE shows through the map ... */
	vn_fill(in, n, 11);
	ASSERT_EQ(0, vn_rw(self->fd, 1, a.handle, 0, in, n));
	EXPECT_EQ(0, memcmp(p, in, n));
	/* ... and stores through the map show in MEM_READ. */
	memset(p + PAGE, 0x3c, PAGE);
	p[n - 1] = 0x42;
	ASSERT_EQ(0, vn_rw(self->fd, 0, a.handle, 0, out, n));
	EXPECT_EQ(0, memcmp(out, in, PAGE));
	EXPECT_EQ(0x3c, out[PAGE]);
	EXPECT_EQ(0x3c, out[2 * PAGE - 1]);
	EXPECT_EQ(0x42, out[n - 1]);
	/* Two maps of one buffer are the same memory. */
	q = mmap(NULL, n, PROT_READ, MAP_SHARED, self->fd, a.mmap_offset);
	ASSERT_NE(MAP_FAILED, q);
	p[5] = 0x99;
	EXPECT_EQ(0x99, q[5]);
	munmap(q, n);
	EXPECT_EQ(0, munmap(p, n));
	EXPECT_EQ(0, vn_free(self->fd, a.handle));
}

TEST_F(mem, mmap_partial)
{
	struct vneuron_mem_alloc a;
	unsigned char in[6 * 4096];
	unsigned char *p;

	ASSERT_LT(0, vn_alloc(self->fd, sizeof(in), &a));
	vn_fill(in, sizeof(in), 5);
	ASSERT_EQ(0, vn_rw(self->fd, 1, a.handle, 0, in, sizeof(in)));
	/* Pages 2 and 3 only. */
	p = mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, self->fd, a.mmap_offset + 2 * PAGE);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_EQ(0, memcmp(p, in + 2 * PAGE, 2 * PAGE));
	EXPECT_EQ(0, munmap(p, 2 * PAGE));
	/* The last page, for a buffer whose size is not a page multiple. */
	p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd, a.mmap_offset + 5 * PAGE);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, memcmp(p, in + 5 * PAGE, PAGE));
	/* Unmapping half of a map leaves the other half working. */
	EXPECT_EQ(0, munmap(p, PAGE));
	p = mmap(NULL, 4 * PAGE, PROT_READ, MAP_SHARED, self->fd, a.mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, munmap(p + PAGE, 2 * PAGE));
	EXPECT_EQ(in[0], p[0]);
	EXPECT_EQ(in[3 * PAGE + 9], p[3 * PAGE + 9]);
	munmap(p, PAGE);
	munmap(p + 3 * PAGE, PAGE);
}

TEST_F(mem, mmap_out_of_range)
{
	struct vneuron_mem_alloc a;
	void *p;

	ASSERT_LT(0, vn_alloc(self->fd, 3 * PAGE + 10, &a));
	/* 4 pages back it; a fifth is beyond its end. */
	p = mmap(NULL, 4 * PAGE, PROT_READ, MAP_SHARED, self->fd, a.mmap_offset);
	EXPECT_NE(MAP_FAILED, p);
	munmap(p, 4 * PAGE);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 5 * PAGE, PROT_READ, MAP_SHARED, self->fd,
				   a.mmap_offset));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * PAGE, PROT_READ, MAP_SHARED, self->fd,
				   a.mmap_offset + 3 * PAGE));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd,
				   a.mmap_offset + 4 * PAGE));
	EXPECT_EQ(EINVAL, errno);
	/* Offsets that name no buffer: 0, a free handle's, the trace range. */
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd, 0));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd,
				   a.mmap_offset + (1ULL << 32)));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED, self->fd,
				   VNEURON_MMAP_TRACE_BASE));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(mem, mmap_protection)
{
	struct vneuron_mem_alloc a;
	unsigned char *p;

	ASSERT_LT(0, vn_alloc(self->fd, PAGE, &a));
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ | PROT_EXEC, MAP_SHARED, self->fd,
				   a.mmap_offset));
	EXPECT_EQ(EACCES, errno);
	/* Device memory is shared: private maps are refused, read-only ones too. */
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->fd,
				   a.mmap_offset));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, self->fd, a.mmap_offset));
	EXPECT_EQ(EINVAL, errno);
	/* A good map cannot be made executable later. */
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, a.mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, PAGE, PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);
	/* Nor grown past its buffer. */
	EXPECT_EQ(MAP_FAILED, mremap(p, PAGE, 2 * PAGE, 0));
	p[0] = 1;
	munmap(p, PAGE);
}

/* A map keeps its buffer after MEM_FREE and after close; the last unmap frees it. */
TEST_F(mem, mmap_outlives_free_and_close)
{
	struct vneuron_mem_alloc a;
	long long objs = vn_counter("mem_objects");
	unsigned char *p;
	int fd2 = vn_open();

	ASSERT_LE(0, fd2);
	ASSERT_LT(0, vn_alloc(fd2, 2 * PAGE, &a));
	ASSERT_EQ(0, vn_rw(fd2, 1, a.handle, PAGE, "keep", 4));
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, a.mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, vn_free(fd2, a.handle));
	/* The handle is gone, the memory is not. */
	EXPECT_EQ(-ENOENT, vn_rw(fd2, 0, a.handle, 0, p, 1));
	EXPECT_EQ(0, memcmp(p + PAGE, "keep", 4));
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd2, a.mmap_offset));
	EXPECT_EQ(EINVAL, errno);
	close(fd2);
	p[0] = 7;
	EXPECT_EQ(7, p[0]);
	if (objs >= 0)
		EXPECT_EQ(objs + 1, vn_counter("mem_objects"));
	EXPECT_EQ(2 * (long long)PAGE, vn_sysfs("hbm_used"));
	EXPECT_EQ(0, munmap(p, 2 * PAGE));
	EXPECT_EQ(0, vn_sysfs("hbm_used"));
	if (objs >= 0)
		EXPECT_EQ(objs, vn_counter("mem_objects"));
}

/* Pages dropped from a map come back from the buffer, not as zeroes or SIGBUS. */
TEST_F(mem, mmap_after_dontneed)
{
	struct vneuron_mem_alloc a;
	unsigned char *p;

	ASSERT_LT(0, vn_alloc(self->fd, 2 * PAGE, &a));
	p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, a.mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	memset(p, 0x77, 2 * PAGE);
	ASSERT_EQ(0, madvise(p, 2 * PAGE, MADV_DONTNEED));
	EXPECT_EQ(0x77, p[0]);
	EXPECT_EQ(0x77, p[2 * PAGE - 1]);
	ASSERT_EQ(0, vn_rw(self->fd, 1, a.handle, PAGE, "new", 3));
	EXPECT_EQ(0, memcmp(p + PAGE, "new", 3));
	munmap(p, 2 * PAGE);
}

/* A map of one buffer as the user memory of a copy into another. */
TEST_F(mem, copy_between_buffers_through_a_map)
{
	struct vneuron_mem_alloc a, b;
	unsigned char in[3 * 4096], out[3 * 4096];
	unsigned char *p;

	ASSERT_LT(0, vn_alloc(self->fd, sizeof(in), &a));
	ASSERT_LT(0, vn_alloc(self->fd, sizeof(in), &b));
	vn_fill(in, sizeof(in), 9);
	ASSERT_EQ(0, vn_rw(self->fd, 1, a.handle, 0, in, sizeof(in)));
	/* Not touched yet: the copy itself faults the pages in. */
	p = mmap(NULL, sizeof(in), PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, a.mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, vn_rw(self->fd, 1, b.handle, 0, p, sizeof(in)));
	ASSERT_EQ(0, vn_rw(self->fd, 0, b.handle, 0, out, sizeof(out)));
	EXPECT_EQ(0, memcmp(in, out, sizeof(in)));
	/* And the other way, into the map. */
	memset(p, 0, sizeof(in));
	ASSERT_EQ(0, vn_rw(self->fd, 0, b.handle, 0, p, sizeof(in)));
	EXPECT_EQ(0, memcmp(in, p, sizeof(in)));
	/* A buffer copied onto itself through its own map. */
	ASSERT_EQ(0, vn_rw(self->fd, 1, a.handle, 0, p + PAGE, PAGE));
	EXPECT_EQ(0, memcmp(p, in + PAGE, PAGE));
	munmap(p, sizeof(in));
}

/*
 * A read-only open owns nothing: it cannot allocate, copy or free, and maps nothing, not
 * even, read-only, a buffer another (writable) file of this process holds.
 */
TEST_F(mem, mmap_readonly_open)
{
	struct vneuron_mem_alloc a, r = { .size = PAGE };
	int ro = open(VN_DEV, O_RDONLY | O_CLOEXEC);
	char buf[2] = "ro";

	ASSERT_LE(0, ro);
	ASSERT_LT(0, vn_alloc(self->fd, PAGE, &a));
	EXPECT_EQ(-EBADF, vn_ioctl(ro, VNEURON_IOCTL_MEM_ALLOC, &r));
	EXPECT_EQ(0U, r.handle);
	EXPECT_EQ(-EBADF, vn_rw(ro, 1, a.handle, 0, buf, sizeof(buf)));
	EXPECT_EQ(-EBADF, vn_rw(ro, 0, a.handle, 0, buf, sizeof(buf)));
	EXPECT_EQ(-EBADF, vn_free(ro, a.handle));
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED, ro, a.mmap_offset));
	EXPECT_EQ(EACCES, errno);
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, PAGE, PROT_READ, MAP_SHARED, ro, 0));
	EXPECT_EQ(EACCES, errno);
	close(ro);
	/* Only the writable file's buffer is charged, and it is intact. */
	EXPECT_EQ((long long)PAGE, vn_sysfs("hbm_used"));
	EXPECT_EQ(0, vn_free(self->fd, a.handle));
}

/* Mapping costs nothing up front: a map of the whole budget, touched sparsely. */
TEST_F(mem, mmap_large_sparse)
{
	struct vneuron_mem_alloc a;
	uint64_t n = self->info.hbm_bytes / 2, off;
	unsigned char *p;
	unsigned char c;

	ASSERT_LT(0, vn_alloc(self->fd, n, &a));
	p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, a.mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	for (off = 0; off < n; off += n / 16)
		p[off] = (unsigned char)(off >> 12);
	for (off = 0; off < n; off += n / 16) {
		ASSERT_EQ(0, vn_rw(self->fd, 0, a.handle, off, &c, 1));
		EXPECT_EQ((unsigned char)(off >> 12), c);
	}
	munmap(p, n);
}

TEST_HARNESS_MAIN
