/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vneuron.ko internals: devices, their cores, per-file contexts, memory objects.
 *
 * Security model (docs/uapi.md): a read-only file may only GET_INFO; a core belongs to
 * one file at a time, claimed by its first EXEC (others get -EBUSY) and released when
 * that file goes; only the owner (or CAP_SYS_ADMIN) resets it; tracing sees the
 * executions of owners the tracer may ptrace (or all, with CAP_PERFMON).
 *
 * Lock order (outermost first; see docs/uapi.md):
 *   mm->mmap_lock (held by the mm around mmap(), munmap(), faults in user copies)
 *   -> vn_dev_core.lock (mutex: a core's owner, claim, executor and trace session)
 *   -> the executor's locks (core/vn_exec.h: core lock, then execution lock), taken only
 *      inside core calls
 *   vn_device.hbm_lock (mutex: HBM budget, peak and device addresses; a mutex because
 *      first-fit walks every live buffer of the device) nests inside mmap_lock only.
 *   vn_file.mems, .progs, .execs xa_locks (spinlocks: handle tables),
 *      vn_file.done_lock (spinlock: completions for poll and the live list for flush)
 *      and vn_trace_file.lock are innermost and nest nothing: lookups take a reference
 *      under them and drop it after.
 *   Completion callbacks (vn_kexec_done) run with no vneuron lock held and may drop
 *   buffer references (hbm_lock) and take done_lock. The executor's end hooks (trace
 *   edge and gone) run under its core lock and take only spinlocks and wait-queue locks.
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
#include "vn_hbm.h"
#include "vn_stats.h"

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

/* Per-file limits, from the module parameters (kmod/main.c); GET_INFO reports them. */
extern struct vneuron_limits vn_limits;

struct vn_device;
struct vn_core;		/* the executor, core/vn_exec.h */

/*
 * A core's executor (engine and DMA kthreads, SBUF and PSUM: 26 MiB) and who uses it:
 * the owner's claim and each trace session hold a reference. The last one frees it from
 * the module's workqueue, so a released core costs nothing and nobody waits for the
 * workers to stop. Made (and charged) in the context of whoever needs it first.
 */
struct vn_kcore {
	struct kref ref;
	struct vn_core *ec;
	struct vn_dev_core *core;
	struct work_struct free_work;
};

struct vn_tsession;

struct vn_dev_core {
	struct vn_device *vdev;
	unsigned int index;
	struct mutex lock;		/* everything below but stats and kobjects */
	struct vn_file *owner;		/* the file whose executions run here, or NULL */
	u64 claim;			/* the owner's claim id (never reused), or 0 */
	struct pid *owner_pid;		/* the claimer's thread group (sysfs owner_pid) */
	struct vn_kcore *kc;		/* the executor while anyone uses it, or NULL */
	struct vn_tsession *tsession;	/* the trace session of this core, or NULL */
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
 * one reference, each execution not yet completed one and each trace session one, so a
 * completion arriving after close still finds its file, and limits stay charged until
 * the memory they count is freed.
 */
struct vn_file {
	struct kref ref;
	struct vn_device *vdev;
	bool writable;			/* opened with FMODE_WRITE */
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
	atomic64_t exec_bytes;		/* max_exec_bytes: scratch and semaphore tables */
	atomic64_t trace_bytes;		/* max_trace_bytes: ring memory of its sessions */
	spinlock_t done_lock;		/* nr_done, live and every vn_kexec's flags */
	unsigned int nr_done;		/* completed and not yet reaped: poll() readiness */
	struct list_head live;		/* executions not yet completed, for flush() */
	wait_queue_head_t done_wq;	/* completions (poll, WAIT's last step) */
	wait_queue_head_t trace_wq;	/* trace rings (poll, TRACE_STOP): lives with vf */
	unsigned long owned;		/* bit i: owns core i (under each core's lock) */
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

/* dev_core.c: cores, their owners and executors */
void vn_cores_init(struct vn_device *vdev);
void vn_cores_stop(struct vn_device *vdev);
int vn_workqueue_init(void);
void vn_workqueue_exit(void);
/*
 * The core's executor for an execution of vf: claims the core for vf if nobody owns it
 * (zeroing its on-chip state for the new owner), ERR_PTR(-EBUSY) if another file does.
 * Valid while vf owns the core, i.e. until vf is released.
 */
struct vn_core *vn_dev_core_claim(struct vn_file *vf, struct vn_dev_core *core);
/* vf's release: its cores are free again (their executors go when unused). */
void vn_dev_core_release_all(struct vn_file *vf);
/* A reference on the core's executor, made if needed; under core->lock. */
struct vn_kcore *vn_kcore_get(struct vn_dev_core *core);
void vn_kcore_put(struct vn_kcore *kc);
int vn_core_reset_ioctl(struct vn_file *vf, const struct vneuron_reset *arg);

/* exec.c: programs and executions */
int vn_program_load_ioctl(struct vn_file *vf, struct vneuron_program_load *arg);
void vn_program_load_undo(struct vn_file *vf, struct vneuron_program_load *arg);
int vn_program_unload_ioctl(struct vn_file *vf, const struct vneuron_program_unload *arg);
int vn_exec_ioctl(struct vn_file *vf, struct vneuron_exec *arg);
void vn_exec_undo(struct vn_file *vf, struct vneuron_exec *arg);
int vn_wait_ioctl(struct vn_file *vf, struct vneuron_wait *arg);
__poll_t vn_exec_poll(struct vn_file *vf, struct file *filp, poll_table *wait);
/* close() by a process: cancel its queued and running executions of this file. */
void vn_exec_flush(struct vn_file *vf);
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
/* A new owner claimed the core (under core->lock, in the claimer's context). */
void vn_trace_core_claimed(struct vn_dev_core *core);
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
