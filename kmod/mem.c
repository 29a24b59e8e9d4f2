// SPDX-License-Identifier: GPL-2.0
/* Memory objects: device buffers backed by zeroed host pages, per open file. */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "device.h"
#include "file.h"
#include "main.h"
#include "mem.h"
#include "share.h"

/*
 * A buffer's mmap offset is its handle << VNK_MMAP_HANDLE_SHIFT: the low bits address
 * up to 4 GiB (VNK_MAX_HBM_MB) inside it, and every offset stays below
 * VNEURON_MMAP_TRACE_BASE.
 */
#define VNK_MMAP_HANDLE_SHIFT	32
static_assert((u64)VNK_MAX_HBM_MB << 20 <= 1ULL << VNK_MMAP_HANDLE_SHIFT);
static_assert((u64)VNK_HANDLE_LIMIT << VNK_MMAP_HANDLE_SHIFT < VNEURON_MMAP_TRACE_BASE);

/* Page offsets inside one buffer's mmap window. */
#define VNK_MMAP_PGOFF_MASK	((1UL << (VNK_MMAP_HANDLE_SHIFT - PAGE_SHIFT)) - 1)

static void vnk_mem_destroy(struct kref *ref)
{
	struct vnk_mem *m = container_of(ref, struct vnk_mem, ref);
	struct vnk_device *vdev = m->vdev;

	vfree(m->vaddr);
	mutex_lock(&vdev->hbm_lock);
	vn_hbm_release(&vdev->hbm, &m->ext);
	mutex_unlock(&vdev->hbm_lock);
	vnk_share_uncharge_hbm(m->user, vdev->index, m->size);
	atomic64_dec(&vnk_counters.mem_objects);
	atomic64_sub(m->ext.size, &vnk_counters.mem_bytes);
	kfree(m);
}

void vnk_mem_put(struct vnk_mem *m)
{
	kref_put(&m->ref, vnk_mem_destroy);
}

struct vnk_mem *vnk_mem_get(struct vnk_file *vf, u32 handle)
{
	struct vnk_mem *m;

	xa_lock(&vf->mems);
	m = xa_load(&vf->mems, handle);
	if (m)
		kref_get(&m->ref);
	xa_unlock(&vf->mems);
	return m;
}

int vnk_mem_alloc_ioctl(struct vnk_file *vf, void *data)
{
	struct vneuron_mem_alloc *arg = data;
	struct vnk_device *vdev = vf->vdev;
	struct vnk_mem *m;
	u32 handle;
	int ret;

	if (arg->flags || !arg->size)
		return -EINVAL;
	if (arg->size > vdev->hbm.total)
		return -ENOMEM;
	if (atomic_inc_return(&vf->nr_mems) > VNK_MAX_MEM_HANDLES) {
		ret = -ENOSPC;
		goto err_count;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m) {
		ret = -ENOMEM;
		goto err_count;
	}
	kref_init(&m->ref);
	m->vdev = vdev;
	m->size = arg->size;
	/* The device's HBM is shared by its users: the caller's user's share. */
	m->user = vnk_share_charge_hbm(vdev->index, arg->size, vf->filp);
	if (IS_ERR(m->user)) {
		ret = PTR_ERR(m->user);
		kfree(m);
		goto err_count;
	}

	mutex_lock(&vdev->hbm_lock);
	ret = vn_hbm_reserve(&vdev->hbm, &m->ext, arg->size);
	mutex_unlock(&vdev->hbm_lock);
	if (ret)
		goto err_free;
	/*
	 * Zeroed pages the kernel can address and userspace can map. Not vmalloc_user():
	 * a failure here is an ordinary -ENOMEM for the caller, so no allocation-failure
	 * splat in the log and no OOM kill, and the pages count to the caller's memcg.
	 */
	m->vaddr = __vmalloc(m->ext.size, GFP_KERNEL_ACCOUNT | __GFP_ZERO | __GFP_NOWARN |
			     __GFP_RETRY_MAYFAIL);
	if (!m->vaddr) {
		ret = -ENOMEM;
		goto err_release;
	}
	atomic64_inc(&vnk_counters.mem_objects);
	atomic64_add(m->ext.size, &vnk_counters.mem_bytes);

	/* Cycling handle numbers keeps a freed handle invalid for as long as possible. */
	ret = xa_alloc_cyclic(&vf->mems, &handle, m, XA_LIMIT(1, VNK_HANDLE_LIMIT),
			      &vf->next_handle, GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		vnk_mem_put(m);
		goto err_count;
	}
	m->handle = handle;
	arg->handle = handle;
	arg->mmap_offset = (u64)handle << VNK_MMAP_HANDLE_SHIFT;
	arg->device_addr = m->ext.addr;
	return 0;

err_release:
	mutex_lock(&vdev->hbm_lock);
	vn_hbm_release(&vdev->hbm, &m->ext);
	mutex_unlock(&vdev->hbm_lock);
err_free:
	vnk_share_uncharge_hbm(m->user, vdev->index, m->size);
	kfree(m);
err_count:
	atomic_dec(&vf->nr_mems);
	return ret;
}

/* Drops a handle of the file. */
static int vnk_mem_drop(struct vnk_file *vf, u32 handle)
{
	struct vnk_mem *m = xa_erase(&vf->mems, handle);

	if (!m)
		return -ENOENT;
	atomic_dec(&vf->nr_mems);
	vnk_mem_put(m);
	return 0;
}

void vnk_mem_alloc_undo(struct vnk_file *vf, void *data)
{
	const struct vneuron_mem_alloc *arg = data;

	vnk_mem_drop(vf, arg->handle);
}

int vnk_mem_free_ioctl(struct vnk_file *vf, void *data)
{
	const struct vneuron_mem_free *arg = data;

	if (arg->flags)
		return -EINVAL;
	return vnk_mem_drop(vf, arg->handle);
}

static int vnk_mem_rw(struct vnk_file *vf, const struct vneuron_mem_rw *arg, bool write)
{
	struct vnk_mem *m;
	u64 done = 0;
	int ret;

	if (arg->flags)
		return -EINVAL;
	m = vnk_mem_get(vf, arg->handle);
	if (!m)
		return -ENOENT;
	ret = vn_range_check(m->size, arg->offset, arg->size);
	/* No lock is held while copying: a fault may take mmap_lock. */
	while (!ret && done < arg->size) {
		size_t n = min_t(u64, arg->size - done, VNK_COPY_CHUNK);
		void *kaddr = m->vaddr + arg->offset + done;
		void __user *uaddr = u64_to_user_ptr(arg->user_ptr + done);

		if (write ? copy_from_user(kaddr, uaddr, n) : copy_to_user(uaddr, kaddr, n)) {
			ret = -EFAULT;
			break;
		}
		done += n;
		if (done < arg->size) {
			if (fatal_signal_pending(current))
				ret = -EINTR;
			cond_resched();
		}
	}
	vnk_mem_put(m);
	return ret;
}

int vnk_mem_write_ioctl(struct vnk_file *vf, void *data)
{
	return vnk_mem_rw(vf, data, true);
}

int vnk_mem_read_ioctl(struct vnk_file *vf, void *data)
{
	return vnk_mem_rw(vf, data, false);
}

static void vnk_vm_open(struct vm_area_struct *vma)
{
	struct vnk_mem *m = vma->vm_private_data;

	kref_get(&m->ref);
}

static void vnk_vm_close(struct vm_area_struct *vma)
{
	vnk_mem_put(vma->vm_private_data);
}

/*
 * Pages go in on first touch (and again after MADV_DONTNEED): mmap() of a large buffer
 * costs nothing up front. vmf->pgoff carries the buffer's page in its low bits.
 */
static vm_fault_t vnk_vm_fault(struct vm_fault *vmf)
{
	struct vnk_mem *m = vmf->vma->vm_private_data;
	unsigned long pg = vmf->pgoff & VNK_MMAP_PGOFF_MASK;
	struct page *page;

	if (pg >= PAGE_ALIGN(m->size) >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	page = vmalloc_to_page(m->vaddr + (pg << PAGE_SHIFT));
	get_page(page);
	vmf->page = page;
	return 0;
}

/* Every vma (fork and split copies included) holds a reference on its buffer. */
static const struct vm_operations_struct vnk_vm_ops = {
	.open = vnk_vm_open,
	.close = vnk_vm_close,
	.fault = vnk_vm_fault,
};

int vnk_mem_mmap(struct vnk_file *vf, struct vm_area_struct *vma)
{
	unsigned long pgoff = vma->vm_pgoff;
	unsigned long handle = pgoff >> (VNK_MMAP_HANDLE_SHIFT - PAGE_SHIFT);
	unsigned long first = pgoff & VNK_MMAP_PGOFF_MASK;
	struct vnk_mem *m;
	int ret;

	/*
	 * Device memory is shared by nature: a private copy would silently diverge.
	 * VM_MAYSHARE, not VM_SHARED: a MAP_SHARED map of a read-only open lacks the latter.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EACCES;
	if (!handle || handle > VNK_HANDLE_LIMIT)
		return -EINVAL;
	m = vnk_mem_get(vf, handle);
	if (!m)
		return -EINVAL;
	ret = vn_range_check(PAGE_ALIGN(m->size), (u64)first << PAGE_SHIFT,
			     vma->vm_end - vma->vm_start);
	if (ret) {
		vnk_mem_put(m);
		return ret;
	}
	/* No mprotect(PROT_EXEC) later, no growing by mremap(), no core dumps of it. */
	vnk_vma_clear_flags(vma, VM_MAYEXEC);
	vnk_vma_set_flags(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = m;	/* takes over our reference */
	vma->vm_ops = &vnk_vm_ops;
	return 0;
}

void vnk_mem_release_all(struct vnk_file *vf)
{
	struct vnk_mem *m;
	unsigned long idx;

	xa_for_each(&vf->mems, idx, m)
		vnk_mem_drop(vf, idx);
}
