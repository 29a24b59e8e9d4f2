// SPDX-License-Identifier: GPL-2.0
/* Open files: open, release, the ioctl dispatcher and mmap. */
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "vneuron_drv.h"

static int vn_open(struct inode *inode, struct file *filp)
{
	struct vn_device *vdev = container_of(inode->i_cdev, struct vn_device, cdev);
	struct vn_file *vf;

	vf = kzalloc(sizeof(*vf), GFP_KERNEL);
	if (!vf)
		return -ENOMEM;
	kref_init(&vf->ref);
	vf->vdev = vdev;
	vf->writable = filp->f_mode & FMODE_WRITE;
	INIT_LIST_HEAD(&vf->live);
	xa_init_flags(&vf->mems, XA_FLAGS_ALLOC1);
	atomic_set(&vf->nr_mems, 0);
	xa_init_flags(&vf->progs, XA_FLAGS_ALLOC1);
	xa_init_flags(&vf->execs, XA_FLAGS_ALLOC1);
	spin_lock_init(&vf->done_lock);
	init_waitqueue_head(&vf->done_wq);
	init_waitqueue_head(&vf->trace_wq);
	filp->private_data = vf;
	atomic64_inc(&vn_counters.open_files);
	return nonseekable_open(inode, filp);
}

static void vn_file_free(struct kref *ref)
{
	struct vn_file *vf = container_of(ref, struct vn_file, ref);

	xa_destroy(&vf->mems);
	xa_destroy(&vf->progs);
	xa_destroy(&vf->execs);
	kfree(vf);
	atomic64_dec(&vn_counters.open_files);
}

void vn_file_put(struct vn_file *vf)
{
	kref_put(&vf->ref, vn_file_free);
}

/*
 * Every close() of a descriptor of this file, exit included: the closing process's
 * executions end (kmod/exec.c), so none outlives its process, io_uring ones included.
 */
static int vn_flush(struct file *filp, fl_owner_t id)
{
	vn_exec_flush(filp->private_data);
	return 0;
}

/*
 * The last reference to the file: everything it owns goes. Running executions are
 * cancelled, not waited for (a killed process must not hang here); their completions
 * drop their buffers and the last file reference. Its cores are released (their
 * executors go once unused). Mappings keep their buffers.
 */
static int vn_release(struct inode *inode, struct file *filp)
{
	struct vn_file *vf = filp->private_data;

	vn_exec_release_all(vf);
	vn_trace_release_all(vf);
	vn_mem_release_all(vf);
	vn_dev_core_release_all(vf);
	vn_file_put(vf);
	return 0;
}

static int vn_get_info(struct vn_file *vf, void *data)
{
	struct vneuron_info *info = data;
	struct vn_device *vdev = vf->vdev;

	if (info->flags)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->uapi_version = VNEURON_UAPI_VERSION;
	info->caps = VNEURON_CAP_MEM | VNEURON_CAP_EXEC | VNEURON_CAP_BF16 |
		     VNEURON_CAP_TRACE | VNEURON_CAP_FAULT | VNEURON_CAP_LIMITS |
		     VNEURON_CAP_OWNERSHIP;
	if (IS_ENABLED(CONFIG_IO_URING))
		info->caps |= VNEURON_CAP_URING_CMD;
	info->device_index = vdev->index;
	info->device_count = vn_device_count;
	info->core_count = vdev->core_count;
	info->max_mem_handles = VN_MAX_MEM_HANDLES;
	mutex_lock(&vdev->hbm_lock);
	info->hbm_bytes = vdev->hbm.total;
	info->hbm_used = vdev->hbm.used;
	mutex_unlock(&vdev->hbm_lock);
	info->max_alloc = info->hbm_bytes;
	info->model = *vdev->model;
	info->limits = vn_limits;
	return 0;
}

static int vn_ioctl_mem_alloc(struct vn_file *vf, void *data)
{
	return vn_mem_alloc(vf, data);
}

/* MEM_ALLOC's result never reached the caller: nobody knows the handle, drop it. */
static void vn_undo_mem_alloc(struct vn_file *vf, void *data)
{
	struct vneuron_mem_alloc *arg = data;
	struct vneuron_mem_free f = { .handle = arg->handle };

	vn_mem_free(vf, &f);
}

static int vn_ioctl_mem_free(struct vn_file *vf, void *data)
{
	return vn_mem_free(vf, data);
}

static int vn_ioctl_mem_write(struct vn_file *vf, void *data)
{
	return vn_mem_rw(vf, data, true);
}

static int vn_ioctl_mem_read(struct vn_file *vf, void *data)
{
	return vn_mem_rw(vf, data, false);
}

static int vn_reset(struct vn_file *vf, void *data)
{
	return vn_core_reset_ioctl(vf, data);
}

static int vn_ioctl_program_load(struct vn_file *vf, void *data)
{
	return vn_program_load_ioctl(vf, data);
}

static void vn_undo_program_load(struct vn_file *vf, void *data)
{
	vn_program_load_undo(vf, data);
}

static int vn_ioctl_program_unload(struct vn_file *vf, void *data)
{
	return vn_program_unload_ioctl(vf, data);
}

static int vn_ioctl_exec(struct vn_file *vf, void *data)
{
	return vn_exec_ioctl(vf, data);
}

static void vn_undo_exec(struct vn_file *vf, void *data)
{
	vn_exec_undo(vf, data);
}

static int vn_ioctl_wait(struct vn_file *vf, void *data)
{
	return vn_wait_ioctl(vf, data);
}

static int vn_ioctl_trace_start(struct vn_file *vf, void *data)
{
	return vn_trace_start_ioctl(vf, data);
}

static void vn_undo_trace_start(struct vn_file *vf, void *data)
{
	vn_trace_start_undo(vf, data);
}

static int vn_ioctl_trace_stop(struct vn_file *vf, void *data)
{
	return vn_trace_stop_ioctl(vf, data);
}

union vn_ioctl_buf {
	struct vneuron_info info;
	struct vneuron_mem_alloc alloc;
	struct vneuron_mem_free free;
	struct vneuron_mem_rw rw;
	struct vneuron_reset reset;
	struct vneuron_program_load pload;
	struct vneuron_program_unload punload;
	struct vneuron_exec exec;
	struct vneuron_wait wait;
	struct vneuron_trace_start tstart;
	struct vneuron_trace_stop tstop;
};

struct vn_ioctl_desc {
	unsigned int cmd;
	unsigned int min_size;		/* the struct's size in uapi version 1 */
	unsigned int size;		/* its size now */
	int (*fn)(struct vn_file *vf, void *data);
	void (*undo)(struct vn_file *vf, void *data);	/* when copying out fails */
	bool read_only;			/* allowed on a file opened without FMODE_WRITE */
	bool out_on_einval;		/* -EINVAL has output too (which check failed) */
};

/* min_size and size 0: both are the size in the ioctl number. */
#define VN_IOCTL(c, f, u)	{ .cmd = (c), .fn = (f), .undo = (u) }

/* Version 1's GET_INFO ended before the limits. */
#define VN_INFO_V1_SIZE		offsetof(struct vneuron_info, limits)

/*
 * Structs only ever grow at the end: a caller may pass any size from its struct's
 * version-1 size up (copy_struct_from_user() zero-fills or checks the difference).
 */
static const struct vn_ioctl_desc vn_ioctls[] = {
	{ .cmd = VNEURON_IOCTL_GET_INFO, .min_size = VN_INFO_V1_SIZE,
	  .size = sizeof(struct vneuron_info), .fn = vn_get_info, .read_only = true },
	VN_IOCTL(VNEURON_IOCTL_MEM_ALLOC, vn_ioctl_mem_alloc, vn_undo_mem_alloc),
	VN_IOCTL(VNEURON_IOCTL_MEM_FREE, vn_ioctl_mem_free, NULL),
	VN_IOCTL(VNEURON_IOCTL_MEM_WRITE, vn_ioctl_mem_write, NULL),
	VN_IOCTL(VNEURON_IOCTL_MEM_READ, vn_ioctl_mem_read, NULL),
	VN_IOCTL(VNEURON_IOCTL_RESET, vn_reset, NULL),
	{ .cmd = VNEURON_IOCTL_PROGRAM_LOAD, .fn = vn_ioctl_program_load,
	  .undo = vn_undo_program_load, .out_on_einval = true },
	VN_IOCTL(VNEURON_IOCTL_PROGRAM_UNLOAD, vn_ioctl_program_unload, NULL),
	VN_IOCTL(VNEURON_IOCTL_EXEC, vn_ioctl_exec, vn_undo_exec),
	VN_IOCTL(VNEURON_IOCTL_WAIT, vn_ioctl_wait, NULL),
	VN_IOCTL(VNEURON_IOCTL_TRACE_START, vn_ioctl_trace_start, vn_undo_trace_start),
	VN_IOCTL(VNEURON_IOCTL_TRACE_STOP, vn_ioctl_trace_stop, NULL),
};

/* Everything of an ioctl number but its size. */
#define VN_IOC_SIZELESS(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

static long vn_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct vn_file *vf = filp->private_data;
	void __user *uarg = (void __user *)arg;
	const struct vn_ioctl_desc *d = NULL;
	union vn_ioctl_buf buf;
	unsigned int usize = _IOC_SIZE(cmd);
	unsigned int i, min_size, size;
	int ret;

	for (i = 0; i < ARRAY_SIZE(vn_ioctls); i++) {
		if (VN_IOC_SIZELESS(vn_ioctls[i].cmd) == VN_IOC_SIZELESS(cmd)) {
			d = &vn_ioctls[i];
			break;
		}
	}
	if (!d)
		return -ENOTTY;
	/* A read-only descriptor may only query (docs/uapi.md, security model). */
	if (!vf->writable && !d->read_only)
		return -EBADF;
	min_size = d->min_size ?: _IOC_SIZE(d->cmd);
	size = d->size ?: _IOC_SIZE(d->cmd);
	if (usize < min_size)
		return -EINVAL;
	/* Every ioctl takes input (flags at least); a larger struct must end in zeroes. */
	ret = copy_struct_from_user(&buf, size, uarg, usize);
	if (ret)
		return ret;
	ret = d->fn(vf, &buf);
	if (!(_IOC_DIR(cmd) & _IOC_READ))
		return ret;
	if (ret) {
		/* Best effort: the error stands whether or not the details arrive. */
		if (ret == -EINVAL && d->out_on_einval &&
		    copy_to_user(uarg, &buf, min(usize, size)))
			return -EFAULT;
		return ret;
	}
	if (copy_to_user(uarg, &buf, min(usize, size))) {
		if (d->undo)
			d->undo(vf, &buf);
		return -EFAULT;
	}
	return 0;
}

static int vn_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct vn_file *vf = filp->private_data;

	/* A read-only file owns no buffer and no ring: nothing to map. */
	if (!vf->writable)
		return -EACCES;
	if (vma->vm_pgoff >= VNEURON_MMAP_TRACE_BASE >> PAGE_SHIFT)
		return vn_trace_mmap(filp->private_data, vma);
	return vn_mem_mmap(filp->private_data, vma);
}

static __poll_t vn_poll(struct file *filp, poll_table *wait)
{
	return vn_exec_poll(filp->private_data, filp, wait) |
	       vn_trace_poll(filp->private_data, filp, wait);
}

const struct file_operations vn_fops = {
	.owner = THIS_MODULE,
	.open = vn_open,
	.flush = vn_flush,
	.release = vn_release,
	.unlocked_ioctl = vn_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = vn_mmap,
	.poll = vn_poll,
	.uring_cmd = vn_uring_cmd,
};
