/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Helpers of the guest tests of communicators and the network queue (comm_test,
 * netq_test, attack_test): the COMM_* ioctls as 0 or -errno, the device nodes, memory
 * both sides of a fork see.
 */
#ifndef COMM_UTIL_H
#define COMM_UTIL_H

#include <stdbool.h>
#include <sys/wait.h>

#include "kmod_test.h"

/* COMM_CREATE: the id and the registration's handle, each if asked for. */
static inline int comm_create(int fd, uint32_t nranks, uint8_t *id, uint32_t *handle)
{
	struct vneuron_comm_create a = { .nranks = nranks };
	int ret = vn_ioctl(fd, VNEURON_IOCTL_COMM_CREATE, &a);

	if (id)
		memcpy(id, a.id, VNEURON_COMM_ID_BYTES);
	if (handle)
		*handle = a.handle;
	return ret;
}

/* COMM_JOIN of rank on core: the rank's handle if asked for. */
static inline int comm_join(int fd, const uint8_t *id, uint32_t rank, uint32_t core,
			    uint32_t *handle)
{
	struct vneuron_comm_join j = { .rank = rank, .core = core };
	int ret;

	memcpy(j.id, id, VNEURON_COMM_ID_BYTES);
	ret = vn_ioctl(fd, VNEURON_IOCTL_COMM_JOIN, &j);
	if (handle)
		*handle = j.handle;
	return ret;
}

/* COMM_NODES: this machine is node, the ranks' nodes and devices in nodes[], devs[]. */
static inline int comm_nodes(int fd, uint32_t handle, uint32_t node, const uint32_t *nodes,
			     const uint32_t *devs, uint32_t nranks)
{
	struct vneuron_comm_nodes a = {
		.handle = handle, .node = node, .nodes = (uintptr_t)nodes,
		.devices = (uintptr_t)devs, .nranks = nranks,
	};

	return vn_ioctl(fd, VNEURON_IOCTL_COMM_NODES, &a);
}

static inline int comm_info(int fd, uint32_t handle, struct vneuron_comm_info *out)
{
	struct vneuron_comm_info a = { .handle = handle };
	int ret = vn_ioctl(fd, VNEURON_IOCTL_COMM_INFO, &a);

	if (out)
		*out = a;
	return ret;
}

static inline int comm_destroy(int fd, uint32_t handle)
{
	struct vneuron_comm_destroy d = { .handle = handle };

	return vn_ioctl(fd, VNEURON_IOCTL_COMM_DESTROY, &d);
}

static inline int open_dev(unsigned int n, int flags)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/vneuron%u", n);
	return open(path, flags | O_CLOEXEC);
}

static inline bool have_device(unsigned int n)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/vneuron%u", n);
	return access(path, F_OK) == 0;
}

/* Zeroed memory both sides of a fork see, or NULL. */
static inline void *shared(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0, n);
	return p;
}

/* A child's exit status, 128 + the signal that killed it, or -1. */
static inline int wait_exit(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#endif /* COMM_UTIL_H */
