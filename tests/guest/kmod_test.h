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
#include <unistd.h>

#include "vneuron.h"

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

#endif /* KMOD_TEST_H */
