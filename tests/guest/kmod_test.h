/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Helpers shared by the guest tests of vneuron.ko (tests/guest/kmod_*_test.c). */
#ifndef KMOD_TEST_H
#define KMOD_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "vneuron.h"
#include "vneuron_trace.h"

#define VN_DEV		"/dev/vneuron0"
#define VN_SYSFS	"/sys/class/vneuron/vneuron0"
#define VN_COUNTERS	"/sys/kernel/debug/vneuron/counters"
#define PAGE		4096UL

static inline int vn_open(void)
{
	return open(VN_DEV, O_RDWR | O_CLOEXEC);
}

/* An ioctl's result as 0 or -errno. */
static inline int vn_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static inline int vn_alloc(int fd, uint64_t size, struct vneuron_mem_alloc *out)
{
	struct vneuron_mem_alloc a = { .size = size };
	int ret = vn_ioctl(fd, VNEURON_IOCTL_MEM_ALLOC, &a);

	if (out)
		*out = a;
	return ret ? ret : (int)a.handle;
}

static inline int vn_free(int fd, uint32_t handle)
{
	struct vneuron_mem_free f = { .handle = handle };

	return vn_ioctl(fd, VNEURON_IOCTL_MEM_FREE, &f);
}

static inline int vn_rw(int fd, int write, uint32_t handle, uint64_t offset, void *buf,
			uint64_t size)
{
	struct vneuron_mem_rw rw = {
		.handle = handle,
		.offset = offset,
		.size = size,
		.user_ptr = (uintptr_t)buf,
	};

	return vn_ioctl(fd, write ? VNEURON_IOCTL_MEM_WRITE : VNEURON_IOCTL_MEM_READ, &rw);
}

/* A module-wide counter from debugfs (mem_objects, mem_bytes, open_files), or -1. */
static inline long long vn_counter(const char *name)
{
	char key[64];
	long long v, ret = -1;
	FILE *f = fopen(VN_COUNTERS, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", key, &v) == 2)
		if (!strcmp(key, name))
			ret = v;
	fclose(f);
	return ret;
}

/*
 * A counter once it reads want, or what it reads after 5 s: a completion reaches user
 * space (an io_uring CQE) from the submitter's task while the executor's worker may
 * still hold its reference to the execution for a moment.
 */
static inline long long vn_counter_settled(const char *name, long long want)
{
	long long v = vn_counter(name);
	int i;

	for (i = 0; i < 500 && v != want; i++) {
		usleep(10000);
		v = vn_counter(name);
	}
	return v;
}

/* A number from a sysfs file under VN_SYSFS, or -1. */
static inline long long vn_sysfs(const char *rel)
{
	char path[512];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", VN_SYSFS, rel);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static inline void vn_fill(void *buf, size_t n, unsigned int seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 31 + (i >> 8));
}

/* ---- programs, executions and trace rings through the raw ioctls ---- */

/* PROGRAM_LOAD: 0 or -errno; the kernel's report (check, msg) in *out if given. */
static inline int vn_prog_load(int fd, const void *img, uint64_t size, uint32_t *handle,
			       struct vneuron_program_load *out)
{
	struct vneuron_program_load a = { .image_ptr = (uintptr_t)img, .image_size = size };
	int ret = vn_ioctl(fd, VNEURON_IOCTL_PROGRAM_LOAD, &a);

	if (handle)
		*handle = a.handle;
	if (out)
		*out = a;
	return ret;
}

/* EXEC of prog on core with n buffer handles; the exec id in *id. */
static inline int vn_exec_on(int fd, uint32_t prog, uint32_t core, const uint32_t *h,
			     uint32_t n, uint64_t limit_ns, uint64_t *id)
{
	struct vneuron_exec e = {
		.program = prog,
		.core = core,
		.mem_handles_ptr = (uintptr_t)h,
		.mem_count = n,
		.time_limit_ns = limit_ns,
	};
	int ret = vn_ioctl(fd, VNEURON_IOCTL_EXEC, &e);

	if (id)
		*id = e.exec_id;
	return ret;
}

/* WAIT until the absolute CLOCK_MONOTONIC timeout_ns (VNEURON_WAIT_FOREVER: no limit). */
static inline int vn_wait_for(int fd, uint64_t id, uint64_t timeout_ns, struct vneuron_wait *w)
{
	struct vneuron_wait x = { .exec_id = id, .timeout_ns = timeout_ns };
	int ret = vn_ioctl(fd, VNEURON_IOCTL_WAIT, &x);

	if (w)
		*w = x;
	return ret;
}

/* EXEC and WAIT: 0 with the status in *w, or the -errno of either. */
static inline int vn_run_on(int fd, uint32_t prog, uint32_t core, const uint32_t *h, uint32_t n,
			    struct vneuron_wait *w)
{
	uint64_t id;
	int ret = vn_exec_on(fd, prog, core, h, n, 0, &id);

	return ret ? ret : vn_wait_for(fd, id, VNEURON_WAIT_FOREVER, w);
}

static inline uint64_t vn_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The pid sysfs shows as the owner of a core (0: none), or -1. */
static inline long long vn_owner_pid(unsigned int core)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "core%u/owner_pid", core);
	return vn_sysfs(rel);
}

/* Ring 0 of a trace session (EXEC_START, EXEC_END, ERROR), mapped read-only. */
struct vn_ring0 {
	void *map;
	size_t len;
	const struct vneuron_trace_ctrl *ctrl;
	const struct vneuron_trace_record *rec;
};

static inline int vn_ring0_map(int fd, const struct vneuron_trace_start *s, struct vn_ring0 *r)
{
	r->len = s->ring_len;
	r->map = mmap(NULL, s->ring_len, PROT_READ, MAP_SHARED, fd,
		      (off_t)(s->mmap_offset + s->consumer_len));
	if (r->map == MAP_FAILED)
		return -errno;
	r->ctrl = r->map;
	r->rec = (const void *)((const char *)r->map + r->ctrl->data_offset);
	return 0;
}

static inline void vn_ring0_unmap(struct vn_ring0 *r)
{
	munmap(r->map, r->len);
}

/*
 * Records published so far. The tests' rings never wrap: nobody consumes, so in stop
 * mode the producer drops what does not fit and record i stays at slot i.
 */
static inline size_t vn_ring0_count(const struct vn_ring0 *r)
{
	uint64_t pos = __atomic_load_n(&r->ctrl->producer_pos, __ATOMIC_ACQUIRE);

	if (pos > r->ctrl->data_size)
		pos = r->ctrl->data_size;
	return pos / VNEURON_TRACE_RECORD_SIZE;
}

/* Write a string to a file (sysfs, cgroupfs): 0 or -errno. */
static inline int vn_write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != strlen(val))
		ret = -EIO;
	close(fd);
	return ret;
}

/* The first number in a file, or -1. */
static inline long long vn_read_num(const char *path)
{
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

#endif /* KMOD_TEST_H */
