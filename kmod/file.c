// SPDX-License-Identifier: GPL-2.0
/*
 * Open files: open, flush, release, the ioctl table and its dispatcher, mmap and poll.
 * Every ioctl handler has the table's signature and is named by it directly.
 */
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "comm.h"
#include "dev_core.h"
#include "device.h"
#include "exec.h"
#include "file.h"
#include "main.h"
#include "mem.h"
#include "netq.h"
#include "netq_ring.h"
#include "program.h"
#include "share.h"
#include "trace.h"
#include "uring.h"
#include "vneuron_trace.h"

static int vnk_open(struct inode *inode, struct file *filp)
{
	struct vnk_device *vdev = container_of(inode->i_cdev, struct vnk_device, cdev);
	struct vnk_file *vf;

	vf = kzalloc(sizeof(*vf), GFP_KERNEL_ACCOUNT);
	if (!vf)
		return -ENOMEM;
	kref_init(&vf->ref);
	vf->vdev = vdev;
	vf->filp = filp;
	vf->writable = filp->f_mode & FMODE_WRITE;
	INIT_LIST_HEAD(&vf->live);
	xa_init_flags(&vf->mems, XA_FLAGS_ALLOC1);
	atomic_set(&vf->nr_mems, 0);
	xa_init_flags(&vf->progs, XA_FLAGS_ALLOC1);
	xa_init_flags(&vf->execs, XA_FLAGS_ALLOC1);
	spin_lock_init(&vf->done_lock);
	init_waitqueue_head(&vf->done_wq);
	init_waitqueue_head(&vf->trace_wq);
	vnk_comm_file_init(vf);
	filp->private_data = vf;
	atomic64_inc(&vnk_counters.open_files);
	return nonseekable_open(inode, filp);
}

static void vnk_file_free(struct kref *ref)
{
	struct vnk_file *vf = container_of(ref, struct vnk_file, ref);

	xa_destroy(&vf->mems);
	xa_destroy(&vf->progs);
	xa_destroy(&vf->execs);
	vnk_exec_free_spares(vf);
	kfree(vf);
	atomic64_dec(&vnk_counters.open_files);
}

void vnk_file_put(struct vnk_file *vf)
{
	kref_put(&vf->ref, vnk_file_free);
}

/*
 * Every close() of a descriptor of this file, exit included: the closing process's
 * executions end (kmod/exec.c), so none outlives its process, io_uring ones included.
 */
static int vnk_flush(struct file *filp, fl_owner_t id)
{
	vnk_exec_flush(filp->private_data);
	return 0;
}

/*
 * The last reference to the file: everything it owns goes. Running executions are
 * cancelled, not waited for (a killed process must not hang here); their completions
 * drop their buffers and the last file reference. Its cores are released (their
 * executors go once unused). Mappings keep their buffers.
 */
static int vnk_release(struct inode *inode, struct file *filp)
{
	struct vnk_file *vf = filp->private_data;

	vnk_exec_release_all(vf);
	/* Its ranks leave while it still owns their cores; peers' collectives end at once. */
	vnk_comm_release_all(vf);
	vnk_program_release_all(vf);
	vnk_trace_release_all(vf);
	vnk_mem_release_all(vf);
	vnk_dev_core_release_all(vf);
	vf->filp = NULL;
	vnk_file_put(vf);
	return 0;
}

static int vnk_get_info_ioctl(struct vnk_file *vf, void *data)
{
	struct vneuron_info *info = data;
	struct vnk_device *vdev = vf->vdev;

	if (info->flags)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->uapi_version = VNEURON_UAPI_VERSION;
	info->caps = VNEURON_CAP_MEM | VNEURON_CAP_EXEC | VNEURON_CAP_BF16 |
		     VNEURON_CAP_TRACE | VNEURON_CAP_FAULT | VNEURON_CAP_LIMITS |
		     VNEURON_CAP_OWNERSHIP | VNEURON_CAP_COLLECTIVES |
		     VNEURON_CAP_NETQ | VNEURON_CAP_NETQ_RING | VNEURON_CAP_SHARES |
		     VNEURON_CAP_LNC;
	if (IS_ENABLED(CONFIG_IO_URING))
		info->caps |= VNEURON_CAP_URING_CMD;
	info->device_index = vdev->index;
	info->device_count = vnk_device_count;
	info->core_count = vdev->core_count;
	info->max_mem_handles = VNK_MAX_MEM_HANDLES;
	mutex_lock(&vdev->hbm_lock);
	info->hbm_bytes = vdev->hbm.total;
	info->hbm_used = vdev->hbm.used;
	mutex_unlock(&vdev->hbm_lock);
	info->max_alloc = info->hbm_bytes;
	info->model = *vdev->model;
	info->limits = vnk_limits;
	vnk_share_report(info->shares, vdev->index, true);
	return 0;
}

union vnk_ioctl_buf {
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
	struct vneuron_comm_create ccreate;
	struct vneuron_comm_join cjoin;
	struct vneuron_comm_info cinfo;
	struct vneuron_comm_destroy cdestroy;
	struct vneuron_comm_nodes cnodes;
	struct vneuron_netq_wait nqwait;
	struct vneuron_netq_complete nqdone;
	struct vneuron_netq_ring_setup nqring;
	struct vneuron_netq_doorbell nqbell;
};

struct vnk_ioctl_desc {
	unsigned int cmd;
	unsigned int min_size;		/* the struct's size in uapi version 1 */
	unsigned int size;		/* its size now */
	int (*fn)(struct vnk_file *vf, void *data);
	void (*undo)(struct vnk_file *vf, void *data);	/* when copying out fails */
	bool read_only;			/* allowed on a file opened without FMODE_WRITE */
	bool out_on_einval;		/* -EINVAL has output too (which check failed) */
};

/* min_size and size 0: both are the size in the ioctl number. */
#define VNK_IOCTL(c, f, u)	{ .cmd = (c), .fn = (f), .undo = (u) }

/* Version 1's GET_INFO ended before the limits. */
#define VNK_INFO_V1_SIZE	offsetof(struct vneuron_info, limits)

/*
 * Structs only ever grow at the end: a caller may pass any size from its struct's
 * version-1 size up (copy_struct_from_user() zero-fills or checks the difference).
 */
static const struct vnk_ioctl_desc vnk_ioctls[] = {
	{ .cmd = VNEURON_IOCTL_GET_INFO, .min_size = VNK_INFO_V1_SIZE,
	  .size = sizeof(struct vneuron_info), .fn = vnk_get_info_ioctl, .read_only = true },
	VNK_IOCTL(VNEURON_IOCTL_MEM_ALLOC, vnk_mem_alloc_ioctl, vnk_mem_alloc_undo),
	VNK_IOCTL(VNEURON_IOCTL_MEM_FREE, vnk_mem_free_ioctl, NULL),
	VNK_IOCTL(VNEURON_IOCTL_MEM_WRITE, vnk_mem_write_ioctl, NULL),
	VNK_IOCTL(VNEURON_IOCTL_MEM_READ, vnk_mem_read_ioctl, NULL),
	VNK_IOCTL(VNEURON_IOCTL_RESET, vnk_reset_ioctl, NULL),
	{ .cmd = VNEURON_IOCTL_PROGRAM_LOAD, .fn = vnk_program_load_ioctl,
	  .undo = vnk_program_load_undo, .out_on_einval = true },
	VNK_IOCTL(VNEURON_IOCTL_PROGRAM_UNLOAD, vnk_program_unload_ioctl, NULL),
	VNK_IOCTL(VNEURON_IOCTL_EXEC, vnk_exec_ioctl, vnk_exec_undo),
	VNK_IOCTL(VNEURON_IOCTL_WAIT, vnk_wait_ioctl, NULL),
	VNK_IOCTL(VNEURON_IOCTL_TRACE_START, vnk_trace_start_ioctl, vnk_trace_start_undo),
	VNK_IOCTL(VNEURON_IOCTL_TRACE_STOP, vnk_trace_stop_ioctl, NULL),
	VNK_IOCTL(VNEURON_IOCTL_COMM_CREATE, vnk_comm_create_ioctl, vnk_comm_create_undo),
	VNK_IOCTL(VNEURON_IOCTL_COMM_JOIN, vnk_comm_join_ioctl, vnk_comm_join_undo),
	VNK_IOCTL(VNEURON_IOCTL_COMM_INFO, vnk_comm_info_ioctl, NULL),
	VNK_IOCTL(VNEURON_IOCTL_COMM_DESTROY, vnk_comm_destroy_ioctl, NULL),
	VNK_IOCTL(VNEURON_IOCTL_COMM_NODES, vnk_comm_nodes_ioctl, NULL),
	VNK_IOCTL(VNEURON_IOCTL_NETQ_WAIT, vnk_netq_wait_ioctl, vnk_netq_wait_undo),
	VNK_IOCTL(VNEURON_IOCTL_NETQ_COMPLETE, vnk_netq_complete_ioctl, NULL),
	VNK_IOCTL(VNEURON_IOCTL_NETQ_RING_SETUP, vnk_netq_ring_setup_ioctl,
		  vnk_netq_ring_setup_undo),
	VNK_IOCTL(VNEURON_IOCTL_NETQ_DOORBELL, vnk_netq_doorbell_ioctl, NULL),
};

/* Everything of an ioctl number but its size. */
#define VNK_IOC_SIZELESS(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

static long vnk_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct vnk_file *vf = filp->private_data;
	void __user *uarg = (void __user *)arg;
	const struct vnk_ioctl_desc *d = NULL;
	union vnk_ioctl_buf buf;
	unsigned int usize = _IOC_SIZE(cmd);
	unsigned int i, min_size, size;
	int ret;

	for (i = 0; i < ARRAY_SIZE(vnk_ioctls); i++) {
		if (VNK_IOC_SIZELESS(vnk_ioctls[i].cmd) == VNK_IOC_SIZELESS(cmd)) {
			d = &vnk_ioctls[i];
			break;
		}
	}
	if (!d)
		return -ENOTTY;
	/* A read-only descriptor may only query (docs/security.md). */
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

static int vnk_mmap(struct file *filp, struct vm_area_struct *vma)
{
	struct vnk_file *vf = filp->private_data;

	/* A read-only file owns no buffer and no ring: nothing to map. */
	if (!vf->writable)
		return -EACCES;
	if (vma->vm_pgoff >= VNEURON_MMAP_NETQ_BASE >> PAGE_SHIFT)
		return vnk_netq_mmap(vf, vma);
	if (vma->vm_pgoff >= VNEURON_MMAP_TRACE_BASE >> PAGE_SHIFT)
		return vnk_trace_mmap(vf, vma);
	return vnk_mem_mmap(vf, vma);
}

static __poll_t vnk_poll(struct file *filp, poll_table *wait)
{
	return vnk_exec_poll(filp->private_data, filp, wait) |
	       vnk_trace_poll(filp->private_data, filp, wait) |
	       vnk_netq_poll(filp->private_data, filp, wait);
}

const struct file_operations vnk_fops = {
	.owner = THIS_MODULE,
	.open = vnk_open,
	.flush = vnk_flush,
	.release = vnk_release,
	.unlocked_ioctl = vnk_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = vnk_mmap,
	.poll = vnk_poll,
	.uring_cmd = vnk_uring_cmd,
};
