/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vneuron.ko internals: devices, per-file contexts, memory objects.
 *
 * Lock order (outermost first; see docs/uapi.md):
 *   mm->mmap_lock (held by the mm around mmap(), munmap(), faults in user copies)
 *   -> vn_device.hbm_lock (mutex: HBM budget, peak and device addresses; a mutex
 *      because first-fit walks every live buffer of the device)
 *   vn_file.mems, .progs, .execs xa_locks (spinlocks: handle tables) and
 *      vn_file.done_lock (spinlock: completion count for poll) are innermost and nest
 *      nothing: lookups take a reference under them and drop it after.
 *   The executor's locks (core/exec.h: core lock, then execution lock) are taken only
 *   inside core calls; completion callbacks (vn_exec_done) run with none of them held
 *   and may drop buffer references (hbm_lock) and take done_lock.
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
#include <linux/poll.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/sizes.h>
#include <linux/xarray.h>

#include "vneuron.h"
#include "vneuron_trace.h"
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

/* Per open file: loaded programs, their total image bytes, unreaped executions. */
#define VN_MAX_PROGRAMS		256
#define VN_MAX_PROGRAM_BYTES	(256ULL << 20)
#define VN_MAX_EXECS		1024

struct vn_device;
struct vn_core;		/* the executor, core/exec.h */

struct vn_dev_core {
	struct vn_device *vdev;
	unsigned int index;
	/*
	 * Its executor (engine and DMA kthreads, SBUF and PSUM: 26 MiB), made on first
	 * use by vn_dev_core_exec(), so a 16-device, 8-core load costs nothing up front.
	 * Set once under exec_lock, read with acquire; NULL until then.
	 */
	struct vn_core *exec_core;
	struct mutex exec_lock;		/* creating exec_core */
	struct mutex reset_lock;	/* one RESET of this core at a time */
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
	struct vn_dev_core *cores;
};

/*
 * One per open file: owns every object created through it. Refcounted: the file holds
 * one reference and each execution not yet completed one, so a completion arriving
 * after close still finds its file.
 */
struct vn_file {
	struct kref ref;
	struct vn_device *vdev;
	struct xarray mems;		/* handle -> struct vn_mem */
	u32 next_handle;		/* xa_alloc_cyclic cursor */
	atomic_t nr_mems;
	struct xarray progs;		/* handle -> struct vn_program */
	u32 next_prog;
	atomic_t nr_progs;
	atomic64_t prog_bytes;
	struct xarray execs;		/* exec id -> struct vn_kexec, until reaped by WAIT */
	u32 next_exec;
	atomic_t nr_execs;
	spinlock_t done_lock;		/* protects nr_done and every vn_kexec's flags */
	unsigned int nr_done;		/* completed and not yet reaped: poll() readiness */
	wait_queue_head_t done_wq;	/* completions (poll, WAIT's last step) */
	struct vn_trace_file *trace;	/* trace sessions (kmod/trace.c), or NULL */
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
struct vn_mod_counters {
	atomic64_t mem_objects;
	atomic64_t mem_bytes;
	atomic64_t open_files;
	atomic64_t programs;
	atomic64_t execs;		/* submitted and not yet freed */
};

extern struct vn_mod_counters vn_counters;
extern unsigned int vn_device_count;

/* device.c */
int vn_devices_create(unsigned int devices, unsigned int cores, unsigned int hbm_mb);
void vn_devices_destroy(void);

/* file.c */
extern const struct file_operations vn_fops;
void vn_file_put(struct vn_file *vf);

/* exec.c */
void vn_cores_init(struct vn_device *vdev);
void vn_cores_stop(struct vn_device *vdev);
/* A core's executor, created on first use; NULL if that fails (-ENOMEM). */
struct vn_core *vn_dev_core_exec(struct vn_dev_core *core);
int vn_core_reset_ioctl(struct vn_file *vf, const struct vneuron_reset *arg);
int vn_program_load_ioctl(struct vn_file *vf, struct vneuron_program_load *arg);
void vn_program_load_undo(struct vn_file *vf, struct vneuron_program_load *arg);
int vn_program_unload_ioctl(struct vn_file *vf, const struct vneuron_program_unload *arg);
int vn_exec_ioctl(struct vn_file *vf, struct vneuron_exec *arg);
void vn_exec_undo(struct vn_file *vf, struct vneuron_exec *arg);
int vn_wait_ioctl(struct vn_file *vf, struct vneuron_wait *arg);
__poll_t vn_exec_poll(struct vn_file *vf, struct file *filp, poll_table *wait);
void vn_exec_release_all(struct vn_file *vf);
struct vn_kexec;
typedef void (*vn_kexec_notify_fn)(struct vn_kexec *kx, void *arg);
int vn_exec_async(struct vn_file *vf, const struct vneuron_exec *arg,
		  vn_kexec_notify_fn notify, void *notify_arg);
void vn_kexec_result(struct vn_kexec *kx, struct vneuron_wait *w);
void vn_kexec_release(struct vn_kexec *kx);

/* uring.c */
struct io_uring_cmd;
int vn_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags);

/* trace.c */
struct vn_trace_file;
int vn_trace_start_ioctl(struct vn_file *vf, struct vneuron_trace_start *arg);
void vn_trace_start_undo(struct vn_file *vf, struct vneuron_trace_start *arg);
int vn_trace_stop_ioctl(struct vn_file *vf, const struct vneuron_trace_stop *arg);
int vn_trace_mmap(struct vn_file *vf, struct vm_area_struct *vma);
__poll_t vn_trace_poll(struct vn_file *vf, struct file *filp, poll_table *wait);
void vn_trace_release_all(struct vn_file *vf);

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
int vn_sysfs_add_core(struct vn_dev_core *core);
void vn_sysfs_del_core(struct vn_dev_core *core);
void vn_debugfs_init(void);
void vn_debugfs_exit(void);

#endif /* VNEURON_DRV_H */
