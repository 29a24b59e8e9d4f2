/* SPDX-License-Identifier: GPL-2.0 */
/* Device buffers: zeroed host pages, per open file (kmod/mem.c). */
#ifndef VNK_MEM_H
#define VNK_MEM_H

#include <linux/kref.h>
#include <linux/types.h>

#include "vn_hbm.h"

/* Live buffers per open file (GET_INFO's max_mem_handles). */
#define VNK_MAX_MEM_HANDLES	4096

struct vm_area_struct;
struct vnk_device;
struct vnk_file;
struct vnk_user;

/**
 * struct vnk_mem - a device buffer: zeroed host pages mapped into the kernel
 * @ref: the handle table holds one, each mapping (vma) one, each ioctl in progress
 *	and each execution bound to it one
 * @vdev: the device whose HBM budget it is charged to
 * @vaddr: its pages in vmalloc space; what the core computes on
 * @size: bytes, as asked
 * @handle: its handle in its file's table
 * @ext: device address and charged size
 * @user: the user charged for its pages (kmod/share.c): its allocator's
 */
struct vnk_mem {
	struct kref ref;
	struct vnk_device *vdev;
	void *vaddr;
	u64 size;
	u32 handle;
	struct vn_hbm_extent ext;
	struct vnk_user *user;
};

/**
 * vnk_mem_alloc_ioctl() - VNEURON_IOCTL_MEM_ALLOC
 * @vf: the calling file
 * @data: struct vneuron_mem_alloc
 *
 * Return: 0, -EINVAL, -ENOMEM (the budget, or all of it but the privileged reserve),
 * -EDQUOT (the caller's user's share of the device's HBM), -ENOSPC.
 */
int vnk_mem_alloc_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_mem_alloc_undo() - MEM_ALLOC's result never reached the caller: free the buffer
 * @vf: the calling file
 * @data: struct vneuron_mem_alloc as vnk_mem_alloc_ioctl() filled it
 */
void vnk_mem_alloc_undo(struct vnk_file *vf, void *data);

/**
 * vnk_mem_free_ioctl() - VNEURON_IOCTL_MEM_FREE
 * @vf: the calling file
 * @data: struct vneuron_mem_free
 *
 * Return: 0, -EINVAL, -ENOENT.
 */
int vnk_mem_free_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_mem_write_ioctl() - VNEURON_IOCTL_MEM_WRITE: user memory into a buffer
 * @vf: the calling file
 * @data: struct vneuron_mem_rw
 *
 * Return: 0, -EINVAL, -ENOENT, -EFAULT, -EINTR.
 */
int vnk_mem_write_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_mem_read_ioctl() - VNEURON_IOCTL_MEM_READ: a buffer into user memory
 * @vf: the calling file
 * @data: struct vneuron_mem_rw
 *
 * Return: 0, -EINVAL, -ENOENT, -EFAULT, -EINTR.
 */
int vnk_mem_read_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_mem_mmap() - map a buffer of @vf (an offset below VNEURON_MMAP_TRACE_BASE)
 * @vf: the file
 * @vma: the new mapping
 *
 * Return: 0, -EINVAL (not shared, no such buffer, out of range), -EACCES (PROT_EXEC).
 */
int vnk_mem_mmap(struct vnk_file *vf, struct vm_area_struct *vma);

/**
 * vnk_mem_get() - a buffer of @vf by handle, with a reference
 * @vf: the file
 * @handle: the handle
 *
 * Return: the buffer, which the caller drops with vnk_mem_put(), or NULL.
 */
struct vnk_mem *vnk_mem_get(struct vnk_file *vf, u32 handle);

/**
 * vnk_mem_put() - drop a reference on a buffer
 * @m: the buffer; the last reference frees its pages and returns its budget
 *
 * Takes the device's hbm_lock: never under a vneuron lock but mmap_lock.
 */
void vnk_mem_put(struct vnk_mem *m);

/**
 * vnk_mem_release_all() - @vf is released: drop every buffer handle
 * @vf: the file
 *
 * Mappings and executions keep what they hold.
 */
void vnk_mem_release_all(struct vnk_file *vf);

#endif /* VNK_MEM_H */
