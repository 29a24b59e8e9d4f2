// SPDX-License-Identifier: GPL-2.0
/* Memory objects: device buffers backed by zeroed host pages, per open file. */
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "vneuron_drv.h"

/* Page offsets inside one buffer's mmap window. */
#define VN_MMAP_PGOFF_MASK	((1UL << (VN_MMAP_HANDLE_SHIFT - PAGE_SHIFT)) - 1)

static void vn_mem_destroy(struct kref *ref)
{
	struct vn_mem *m = container_of(ref, struct vn_mem, ref);
	struct vn_device *vdev = m->vdev;

	vfree(m->vaddr);
	mutex_lock(&vdev->hbm_lock);
	vn_hbm_release(&vdev->hbm, &m->ext);
	mutex_unlock(&vdev->hbm_lock);
	atomic64_dec(&vn_counters.mem_objects);
	atomic64_sub(m->ext.size, &vn_counters.mem_bytes);
	kfree(m);
}

void vn_mem_put(struct vn_mem *m)
{
	kref_put(&m->ref, vn_mem_destroy);
}

struct vn_mem *vn_mem_get(struct vn_file *vf, u32 handle)
{
	struct vn_mem *m;

	xa_lock(&vf->mems);
	m = xa_load(&vf->mems, handle);
	if (m)
		kref_get(&m->ref);
	xa_unlock(&vf->mems);
	return m;
}

int vn_mem_alloc(struct vn_file *vf, struct vneuron_mem_alloc *arg)
{
	struct vn_device *vdev = vf->vdev;
	struct vn_mem *m;
	u32 handle;
	int ret;

	if (arg->flags || !arg->size)
		return -EINVAL;
	if (arg->size > vdev->hbm.total)
		return -ENOMEM;
	if (atomic_inc_return(&vf->nr_mems) > VN_MAX_MEM_HANDLES) {
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
	atomic64_inc(&vn_counters.mem_objects);
	atomic64_add(m->ext.size, &vn_counters.mem_bytes);

	/* Cycling handle numbers keeps a freed handle invalid for as long as possible. */
	ret = xa_alloc_cyclic(&vf->mems, &handle, m, XA_LIMIT(1, VN_HANDLE_LIMIT),
			      &vf->next_handle, GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		ret = ret == -EBUSY ? -ENOSPC : ret;
		vn_mem_put(m);
		goto err_count;
	}
	m->handle = handle;
	arg->handle = handle;
	arg->mmap_offset = (u64)handle << VN_MMAP_HANDLE_SHIFT;
	arg->device_addr = m->ext.addr;
	return 0;

err_release:
	mutex_lock(&vdev->hbm_lock);
	vn_hbm_release(&vdev->hbm, &m->ext);
	mutex_unlock(&vdev->hbm_lock);
err_free:
	kfree(m);
err_count:
	atomic_dec(&vf->nr_mems);
	return ret;
}

int vn_mem_free(struct vn_file *vf, const struct vneuron_mem_free *arg)
{
	struct vn_mem *m;

	if (arg->flags)
		return -EINVAL;
	m = xa_erase(&vf->mems, arg->handle);
	if (!m)
		return -ENOENT;
	atomic_dec(&vf->nr_mems);
	vn_mem_put(m);
	return 0;
}

int vn_mem_rw(struct vn_file *vf, const struct vneuron_mem_rw *arg, bool write)
{
	struct vn_mem *m;
	u64 done = 0;
	int ret;

	if (arg->flags)
		return -EINVAL;
	m = vn_mem_get(vf, arg->handle);
	if (!m)
		return -ENOENT;
	ret = vn_range_check(m->size, arg->offset, arg->size);
	/* No lock is held while copying: a fault may take mmap_lock. */
	while (!ret && done < arg->size) {
		size_t n = min_t(u64, arg->size - done, VN_COPY_CHUNK);
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
	vn_mem_put(m);
	return ret;
}

static void vn_vm_open(struct vm_area_struct *vma)
{
	struct vn_mem *m = vma->vm_private_data;

	kref_get(&m->ref);
}

static void vn_vm_close(struct vm_area_struct *vma)
{
	vn_mem_put(vma->vm_private_data);
}

/*
 * Pages go in on first touch (and again after MADV_DONTNEED): mmap() of a large buffer
 * costs nothing up front. vmf->pgoff carries the buffer's page in its low bits.
 */
static vm_fault_t vn_vm_fault(struct vm_fault *vmf)
{
	struct vn_mem *m = vmf->vma->vm_private_data;
	unsigned long pg = vmf->pgoff & VN_MMAP_PGOFF_MASK;
	struct page *page;

	if (pg >= PAGE_ALIGN(m->size) >> PAGE_SHIFT)
		return VM_FAULT_SIGBUS;
	page = vmalloc_to_page(m->vaddr + (pg << PAGE_SHIFT));
	get_page(page);
	vmf->page = page;
	return 0;
}

/* Every vma (fork and split copies included) holds a reference on its buffer. */
static const struct vm_operations_struct vn_vm_ops = {
	.open = vn_vm_open,
	.close = vn_vm_close,
	.fault = vn_vm_fault,
};

int vn_mem_mmap(struct vn_file *vf, struct vm_area_struct *vma)
{
	unsigned long pgoff = vma->vm_pgoff;
	unsigned long handle = pgoff >> (VN_MMAP_HANDLE_SHIFT - PAGE_SHIFT);
	unsigned long first = pgoff & VN_MMAP_PGOFF_MASK;
	struct vn_mem *m;
	int ret;

	/*
	 * Device memory is shared by nature: a private copy would silently diverge.
	 * VM_MAYSHARE, not VM_SHARED: a MAP_SHARED map of a read-only open lacks the latter.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EACCES;
	if (!handle || handle > VN_HANDLE_LIMIT)
		return -EINVAL;
	m = vn_mem_get(vf, handle);
	if (!m)
		return -EINVAL;
	ret = vn_range_check(PAGE_ALIGN(m->size), (u64)first << PAGE_SHIFT,
			     vma->vm_end - vma->vm_start);
	if (ret) {
		vn_mem_put(m);
		return ret;
	}
	/* No mprotect(PROT_EXEC) later, no growing by mremap(), no core dumps of it. */
	vn_vma_clear_flags(vma, VM_MAYEXEC);
	vn_vma_set_flags(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = m;	/* takes over our reference */
	vma->vm_ops = &vn_vm_ops;
	return 0;
}

void vn_mem_release_all(struct vn_file *vf)
{
	struct vn_mem *m;
	unsigned long idx;

	xa_for_each(&vf->mems, idx, m) {
		xa_erase(&vf->mems, idx);
		atomic_dec(&vf->nr_mems);
		vn_mem_put(m);
	}
}
