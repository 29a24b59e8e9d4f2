/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* libneurondev internals shared by its source files; not installed. */
#ifndef ND_INTERNAL_H
#define ND_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "neurondev.h"

#define ND_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Fill an nd_error (may be NULL) and return -code. */
int nd_seterr(struct nd_error *e, int code, const char *fmt, ...) ND_PRINTF(3, 4);
int nd_vseterr(struct nd_error *e, int code, const char *fmt, va_list ap);

struct nd_mem {
	struct nd_device *dev;
	struct nd_mem *next;		/* the device's list, under dev->lock */
	uint32_t handle;
	uint64_t size;
	uint64_t mmap_offset;
	uint64_t device_addr;
	void *map;			/* mmap()ed view, made on first nd_mem_map() */
};

struct nd_device {
	int fd;
	char path[64];
	struct vneuron_info info;
	pthread_mutex_t lock;		/* protects err and mems */
	struct nd_error err;
	struct nd_mem *mems;
};

/* Record an error on the device handle and return -code. */
int nd_dev_err(struct nd_device *dev, int code, const char *fmt, ...) ND_PRINTF(3, 4);

#endif /* ND_INTERNAL_H */
