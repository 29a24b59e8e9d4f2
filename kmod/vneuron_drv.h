/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vneuron.ko internals: devices, per-file contexts, memory objects.
 *
 * Lock order (outermost first; see docs/uapi.md):
 *   mm->mmap_lock (held by the mm around mmap(), munmap(), faults in user copies)
 *   -> vn_device.hbm_lock (mutex: HBM budget, peak and device addresses; a mutex
 *      because first-fit walks every live buffer of the device)
 *   vn_file.mems xa_lock (spinlock: handle table) is innermost and nests nothing:
 *      lookups take a reference under it and drop it after.
 * No vneuron lock is held across copy_{to,from}_user(). A buffer's last reference may
 * go in a vma close (under mmap_lock); freeing it takes hbm_lock, as ordered above.
 * Memory objects are refcounted: the handle table holds one reference, each mapping
 * (vma) one, each ioctl in progress one.
 */
#ifndef VNEURON_DRV_H
#define VNEURON_DRV_H

#include <linux/atomic.h>
#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/xarray.h>

#include "vneuron.h"
#include "hbm.h"
#include "stats.h"

#define VN_MAX_DEVICES		16
#define VN_MAX_CORES		8
#define VN_MAX_HBM_MB		4096
/* Live buffers per open file, and the handle numbers they cycle through. */
#define VN_MAX_MEM_HANDLES	4096
#define VN_HANDLE_LIMIT		65535
/*
 * A buffer's mmap offset is its handle << VN_MMAP_HANDLE_SHIFT: the low bits address
 * up to 4 GiB (VN_MAX_HBM_MB) inside it, and every offset stays below
 * VNEURON_MMAP_TRACE_BASE.
 */
#define VN_MMAP_HANDLE_SHIFT	32
/* User copies go in chunks of this size, with a resched and fatal-signal check between. */
#define VN_COPY_CHUNK		SZ_1M

struct vn_device;

struct vn_core {
	struct vn_device *vdev;
	unsigned int index;
	struct vn_core_stats stats;
	struct kobject *kobj;		/* core<N> */
	struct kobject *stats_kobj;	/* core<N>/stats */
	bool groups_added;
};

struct vn_device {
	unsigned int index;
	unsigned int core_count;
	const struct vneuron_model *model;
	struct cdev cdev;
	bool cdev_added;
	struct device *dev;
	struct mutex hbm_lock;		/* protects hbm */
	struct vn_hbm hbm;
	struct vn_core *cores;
};

/* One per open file: owns every object created through it. */
struct vn_file {
	struct vn_device *vdev;
	struct xarray mems;		/* handle -> struct vn_mem */
	u32 next_handle;		/* xa_alloc_cyclic cursor */
	atomic_t nr_mems;
};

/* A device buffer: zeroed host pages mapped into the kernel (and into users by mmap). */
struct vn_mem {
	struct kref ref;
	struct vn_device *vdev;
	void *vaddr;			/* vmalloc space; what the core computes on */
	u64 size;			/* as asked */
	u32 handle;
	struct vn_hbm_extent ext;	/* device address and charged size */
};

/* Module-wide allocation counters, shown in debugfs; tests expect them to drain to 0. */
struct vn_counters {
	atomic64_t mem_objects;
	atomic64_t mem_bytes;
	atomic64_t open_files;
};

extern struct vn_counters vn_counters;
extern unsigned int vn_device_count;

/* device.c */
int vn_devices_create(unsigned int devices, unsigned int cores, unsigned int hbm_mb);
void vn_devices_destroy(void);

/* file.c */
extern const struct file_operations vn_fops;

/* mem.c */
int vn_mem_alloc(struct vn_file *vf, struct vneuron_mem_alloc *arg);
int vn_mem_free(struct vn_file *vf, const struct vneuron_mem_free *arg);
int vn_mem_rw(struct vn_file *vf, const struct vneuron_mem_rw *arg, bool write);
int vn_mem_mmap(struct vn_file *vf, struct vm_area_struct *vma);
/* A buffer of @vf by handle, with a reference the caller drops with vn_mem_put(). */
struct vn_mem *vn_mem_get(struct vn_file *vf, u32 handle);
void vn_mem_put(struct vn_mem *m);
void vn_mem_release_all(struct vn_file *vf);

/* sysfs.c */
extern const struct attribute_group *vn_device_groups[];
void vn_sysfs_init(void);
int vn_sysfs_add_core(struct vn_core *core);
void vn_sysfs_del_core(struct vn_core *core);
void vn_debugfs_init(void);
void vn_debugfs_exit(void);

#endif /* VNEURON_DRV_H */
