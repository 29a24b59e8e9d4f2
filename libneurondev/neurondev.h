/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * libneurondev: the userspace driver library of vneuron.
 *
 * Errors: every call that can fail returns 0 (or a non-negative value) on success and a
 * negative errno on failure, and records a message naming the problem in the handle it
 * was given (nd_device_error(), nd_builder_error()) or in the struct nd_error passed to
 * calls that have no handle yet. nd_strerror() names an errno value alone.
 *
 * The library has no global state: everything lives in handles.
 *
 * Threads: a device handle may be used by several threads at once (the kernel orders the
 * calls); its last-error message is kept per handle, so threads sharing a handle should
 * read it with nd_device_error_copy(). A memory object belongs to its device and may be
 * used from any thread except while it is being freed. A builder is not thread-safe: one
 * thread builds one program (use several builders for parallel builds).
 */
#ifndef NEURONDEV_H
#define NEURONDEV_H

#include <stddef.h>
#include <stdint.h>

#include "vneuron.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define ND_ERRMSG_MAX 256

/* An error for calls that have no handle to record it in (nd_open() and friends). */
struct nd_error {
	int code;			/* negative errno, 0 if none */
	char msg[ND_ERRMSG_MAX];
};

/* A static description of a (negative or positive) errno value. Never NULL. */
const char *nd_strerror(int err);

/* ---------------------------------------------------------------------------------- */
/* Device access: /dev/vneuronN through uapi/vneuron.h                                 */

struct nd_device;
struct nd_mem;

/*
 * Open /dev/vneuron<index> (nd_open) or a device node by path (nd_open_path) and check
 * that it is a vneuron device (GET_INFO). err may be NULL. A missing node gives -ENOENT
 * and "/dev/vneuron0: no such device; is vneuron.ko loaded?".
 */
int nd_open(unsigned int index, struct nd_device **devp, struct nd_error *err);
int nd_open_path(const char *path, struct nd_device **devp, struct nd_error *err);
/* Frees every memory object still allocated through dev, then closes it. NULL is fine. */
void nd_close(struct nd_device *dev);

int nd_device_fd(const struct nd_device *dev);
/* The message of the last failed call on dev ("" if none). See the thread note above. */
const char *nd_device_error(struct nd_device *dev);
void nd_device_error_copy(struct nd_device *dev, char *buf, size_t size);

/* GET_INFO, fresh from the device (hbm_used changes). */
int nd_info(struct nd_device *dev, struct vneuron_info *info);
/* Stop a core's work, fail what is queued and clear its state. */
int nd_reset(struct nd_device *dev, unsigned int core);

/* Device memory: zeroed by the device, freed by nd_mem_free() or nd_close(). */
int nd_mem_alloc(struct nd_device *dev, uint64_t size, struct nd_mem **memp);
int nd_mem_free(struct nd_mem *mem);
int nd_mem_write(struct nd_mem *mem, uint64_t offset, const void *src, uint64_t size);
int nd_mem_read(struct nd_mem *mem, uint64_t offset, void *dst, uint64_t size);
/* Map the buffer into this process (once; later calls return the same view). */
int nd_mem_map(struct nd_mem *mem, void **ptrp);
uint64_t nd_mem_size(const struct nd_mem *mem);
uint64_t nd_mem_device_addr(const struct nd_mem *mem);
uint32_t nd_mem_handle(const struct nd_mem *mem);

#if defined(__cplusplus)
}
#endif

#endif /* NEURONDEV_H */
