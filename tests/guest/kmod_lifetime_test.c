// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron.ko in the guest: object lifetimes. Buffers belong to their file, die with it
 * (close, exit, SIGKILL), and no process reaches another's.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/wait.h>
#include <time.h>

#include "kmod_test.h"

/* The 6.1 harness and its FIXTURE_* macros define functions without prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"

static int wait_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

/* All module-wide counters back where nothing is open. */
#define EXPECT_DRAINED() do {						\
	EXPECT_EQ(0, vn_sysfs("hbm_used"));				\
	if (vn_counter("mem_objects") >= 0) {				\
		EXPECT_EQ(0, vn_counter("mem_objects"));		\
		EXPECT_EQ(0, vn_counter("mem_bytes"));			\
		EXPECT_EQ(0, vn_counter("open_files"));			\
	}								\
} while (0)

TEST(close_frees_everything)
{
	int fd = vn_open(), i;

	ASSERT_LE(0, fd);
	for (i = 0; i < 20; i++)
		ASSERT_LT(0, vn_alloc(fd, (i + 1) * 1000, NULL));
	EXPECT_LT(0, vn_sysfs("hbm_used"));
	close(fd);
	EXPECT_DRAINED();
}

/*
 * Child: its own file and buffer, then every handle number the parent has must fail
 * in it, as must the parent's mmap offsets. Exit status says which check failed.
 */
static int child_isolation(const struct vneuron_mem_alloc *theirs, int n)
{
	struct vneuron_mem_alloc mine;
	char buf[8] = "child", back[8] = "";
	int fd = vn_open(), i;
	void *p;

	if (fd < 0)
		return 10;
	if (vn_alloc(fd, PAGE, &mine) <= 0)
		return 11;
	if (vn_rw(fd, 1, mine.handle, 0, buf, sizeof(buf)) ||
	    vn_rw(fd, 0, mine.handle, 0, back, sizeof(back)) || memcmp(buf, back, sizeof(buf)))
		return 12;
	for (i = 0; i < n; i++) {
		if (theirs[i].handle == mine.handle)
			continue;
		if (vn_rw(fd, 0, theirs[i].handle, 0, buf, 1) != -ENOENT)
			return 13;
		if (vn_rw(fd, 1, theirs[i].handle, 0, buf, 1) != -ENOENT)
			return 14;
		if (vn_free(fd, theirs[i].handle) != -ENOENT)
			return 15;
		p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, theirs[i].mmap_offset);
		if (p != MAP_FAILED || errno != EINVAL)
			return 16;
	}
	if (vn_free(fd, mine.handle))
		return 17;
	close(fd);
	return 0;
}

TEST(two_processes)
{
	struct vneuron_mem_alloc a[4];
	char buf[8], back[8];
	pid_t pid[2];
	int fd = vn_open(), i, k;

	ASSERT_LE(0, fd);
	for (i = 0; i < 4; i++) {
		ASSERT_LT(0, vn_alloc(fd, PAGE, &a[i]));
		snprintf(buf, sizeof(buf), "p%d", i);
		ASSERT_EQ(0, vn_rw(fd, 1, a[i].handle, 0, buf, sizeof(buf)));
	}
	/* Two children at once, each with its own file, alongside the parent. */
	for (k = 0; k < 2; k++) {
		pid[k] = fork();
		ASSERT_LE(0, pid[k]);
		if (!pid[k]) {
			close(fd);
			_exit(child_isolation(a, 4));
		}
	}
	for (k = 0; k < 2; k++)
		EXPECT_EQ(0, wait_status(pid[k]));
	/* The parent's buffers are as it left them. */
	for (i = 0; i < 4; i++) {
		snprintf(buf, sizeof(buf), "p%d", i);
		ASSERT_EQ(0, vn_rw(fd, 0, a[i].handle, 0, back, sizeof(back)));
		EXPECT_EQ(0, memcmp(buf, back, sizeof(buf)));
	}
	close(fd);
	EXPECT_DRAINED();
}

/* A child that inherits the file shares it (same table): that is the fd's owner. */
TEST(fork_shares_file_and_maps)
{
	struct vneuron_mem_alloc a;
	unsigned char *p;
	pid_t pid;
	int fd = vn_open();

	ASSERT_LE(0, fd);
	ASSERT_LT(0, vn_alloc(fd, PAGE, &a));
	p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, a.mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		p[0] = 0x5a;
		_exit(vn_rw(fd, 1, a.handle, 1, "x", 1) ? 1 : 0);
	}
	EXPECT_EQ(0, wait_status(pid));
	EXPECT_EQ(0x5a, p[0]);
	EXPECT_EQ('x', p[1]);
	munmap(p, PAGE);
	close(fd);
	EXPECT_DRAINED();
}

/* SIGKILL while holding buffers, maps and a file: everything comes back. */
TEST(sigkill_frees_everything)
{
	long long objs0 = vn_counter("mem_objects");
	int ready[2];
	char c;
	pid_t pid;

	ASSERT_EQ(0, pipe(ready));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct vneuron_mem_alloc a;
		unsigned char *p;
		int fd = vn_open(), i;

		if (fd < 0)
			_exit(1);
		for (i = 0; i < 8; i++) {
			if (vn_alloc(fd, 64 * PAGE, &a) <= 0)
				_exit(2);
			p = mmap(NULL, 64 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
				 a.mmap_offset);
			if (p == MAP_FAILED)
				_exit(3);
			memset(p, i, 64 * PAGE);
			/* Half of them freed: held by the map alone. */
			if (i % 2 && vn_free(fd, a.handle))
				_exit(4);
		}
		/* And a second file, left open. */
		if (vn_open() < 0 || vn_alloc(fd, PAGE, NULL) <= 0)
			_exit(5);
		if (write(ready[1], "r", 1) != 1)
			_exit(6);
		for (;;)
			pause();
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(8 * 64 * (long long)PAGE + (long long)PAGE, vn_sysfs("hbm_used"));
	if (objs0 >= 0) {
		EXPECT_EQ(objs0 + 9, vn_counter("mem_objects"));
		EXPECT_EQ(2, vn_counter("open_files"));
	}
	ASSERT_EQ(0, kill(pid, SIGKILL));
	EXPECT_EQ(128 + SIGKILL, wait_status(pid));
	close(ready[0]);
	EXPECT_DRAINED();
}

/* Many short-lived processes allocating and dying in every way. */
TEST(churn)
{
	int round;

	for (round = 0; round < 30; round++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid) {
			struct vneuron_mem_alloc a;
			int fd = vn_open();
			void *p;

			if (fd < 0 || vn_alloc(fd, (round + 1) * PAGE, &a) <= 0)
				_exit(1);
			p = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, a.mmap_offset);
			if (p == MAP_FAILED)
				_exit(2);
			if (round % 3 == 0)
				abort();
			if (round % 3 == 1)
				close(fd);
			_exit(0);
		}
		wait_status(pid);
	}
	EXPECT_DRAINED();
}

/*
 * Threads of one process race MEM_FREE against copies and mmap of the same handles:
 * each call either works or says -ENOENT/-EINVAL, and nothing is used after free
 * (slub_debug in the guest poisons freed objects).
 */
struct race {
	int fd;
	atomic_int stop;
	atomic_uint last_handle;
	atomic_ullong last_offset;
	atomic_int bad;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* 3000 rounds, or 10 s of them on a slow guest (the debug kernel under emulation). */
static void *race_alloc_free(void *arg)
{
	struct race *r = arg;
	struct vneuron_mem_alloc a;
	double end = now_s() + 10;
	int i;

	for (i = 0; i < 3000 && now_s() < end; i++) {
		if (vn_alloc(r->fd, 2 * PAGE, &a) <= 0) {
			atomic_fetch_add(&r->bad, 1);
			continue;
		}
		atomic_store(&r->last_handle, a.handle);
		atomic_store(&r->last_offset, a.mmap_offset);
		if (vn_free(r->fd, a.handle))
			atomic_fetch_add(&r->bad, 1);
	}
	atomic_store(&r->stop, 1);
	return NULL;
}

static void *race_copy(void *arg)
{
	struct race *r = arg;
	char buf[2 * 4096];
	int ret;

	while (!atomic_load(&r->stop)) {
		unsigned int h = atomic_load(&r->last_handle);

		ret = vn_rw(r->fd, h & 1, h, 0, buf, sizeof(buf));
		if (ret && ret != -ENOENT)
			atomic_fetch_add(&r->bad, 1);
	}
	return NULL;
}

static void *race_map(void *arg)
{
	struct race *r = arg;
	unsigned char *p;

	while (!atomic_load(&r->stop)) {
		unsigned long long off = atomic_load(&r->last_offset);

		if (!off)
			continue;
		p = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, off);
		if (p == MAP_FAILED) {
			if (errno != EINVAL)
				atomic_fetch_add(&r->bad, 1);
			continue;
		}
		p[PAGE] = 1;
		munmap(p, 2 * PAGE);
	}
	return NULL;
}

TEST(race_free_copy_map)
{
	struct race r = { .fd = vn_open() };
	pthread_t t[4];

	ASSERT_LE(0, r.fd);
	ASSERT_EQ(0, pthread_create(&t[1], NULL, race_copy, &r));
	ASSERT_EQ(0, pthread_create(&t[2], NULL, race_copy, &r));
	ASSERT_EQ(0, pthread_create(&t[3], NULL, race_map, &r));
	ASSERT_EQ(0, pthread_create(&t[0], NULL, race_alloc_free, &r));
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	pthread_join(t[2], NULL);
	pthread_join(t[3], NULL);
	EXPECT_EQ(0, atomic_load(&r.bad));
	close(r.fd);
	EXPECT_DRAINED();
}

/*
 * Processes sharing one file start and stop tracing the same core as fast as they can:
 * TRACE_START must not look at its session once another process may have stopped it
 * and started the next (a use-after-free the guest fuzzer found under KASAN; the
 * debug-kernel phase runs this test on KASAN). Every call gives 0 or a documented errno.
 */
TEST(shared_file_trace_start_stop_race)
{
	int fd = vn_open(), i, status, bad = 0;
	pid_t kids[3];

	ASSERT_LE(0, fd);
	for (i = 0; i < 3; i++) {
		kids[i] = fork();
		ASSERT_LE(0, kids[i]);
		if (!kids[i]) {
			struct vneuron_trace_start ts;
			struct vneuron_trace_stop st = { .core = 0 };
			uint64_t end = vn_now_ns() + 3000000000ull;
			int r;

			while (vn_now_ns() < end) {
				ts = (struct vneuron_trace_start){ .core = 0, .ring_size = 1 << 16 };
				r = vn_ioctl(fd, VNEURON_IOCTL_TRACE_START, &ts);
				if (r && r != -EBUSY && r != -ENOSPC)
					_exit(1);
				if (!r && (!ts.nr_rings || !ts.watermark))
					_exit(2);
				r = vn_ioctl(fd, VNEURON_IOCTL_TRACE_STOP, &st);
				if (r && r != -ENOENT)
					_exit(3);
			}
			_exit(0);
		}
	}
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(kids[i], waitpid(kids[i], &status, 0));
		bad += !WIFEXITED(status) || WEXITSTATUS(status);
	}
	EXPECT_EQ(0, bad);
	close(fd);
}

TEST_HARNESS_MAIN
