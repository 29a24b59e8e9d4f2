// SPDX-License-Identifier: GPL-2.0
/*
 * Programs of an open file: PROGRAM_LOAD copies a .vnef image into the kernel, has the
 * device core validate it (core/program.c) and keeps it in the file's table; UNLOAD and
 * release drop it. Programs are refcounted by the core: each submitted execution holds
 * its own reference, so unloading never disturbs one.
 */
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "file.h"
#include "main.h"
#include "program.h"
#include "vn_os.h"
#include "vn_program.h"

static void vnk_program_drop(struct vnk_file *vf, struct vn_program *p)
{
	atomic_dec(&vf->nr_progs);
	atomic64_sub(p->size, &vf->prog_bytes);
	atomic64_dec(&vnk_counters.programs);
	vn_program_put(p);
}

/* The image into kernel memory in pieces: a scheduling point and a kill check each. */
static int vnk_copy_image(void *img, u64 uptr, u64 size)
{
	u64 done = 0;

	while (done < size) {
		size_t n = min_t(u64, size - done, VNK_COPY_CHUNK);

		if (copy_from_user(img + done, u64_to_user_ptr(uptr + done), n))
			return -EFAULT;
		done += n;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

int vnk_program_load_ioctl(struct vnk_file *vf, void *data)
{
	struct vneuron_program_load *arg = data;
	struct vn_prog_error pe = { .section = ~0u, .index = ~0u };
	struct vn_program *p;
	u64 size = arg->image_size;
	void *img;
	u32 handle;
	int ret;

	arg->handle = 0;
	arg->check = VNEF_CHK_OK;
	arg->section = ~0u;
	arg->index = ~0u;
	arg->tensor_count = 0;
	memset(arg->msg, 0, sizeof(arg->msg));
	if (arg->flags)
		return -EINVAL;
	if (!size) {
		arg->check = VNEF_CHK_SIZE;
		strscpy(arg->msg, "empty image", sizeof(arg->msg));
		return -EINVAL;
	}
	if (size > VNEF_MAX_IMAGE_BYTES)
		return -E2BIG;
	if (atomic_inc_return(&vf->nr_progs) > vnk_limits.max_programs) {
		ret = -ENOSPC;
		goto err_count;
	}
	if (atomic64_add_return(size, &vf->prog_bytes) > vnk_limits.max_program_bytes) {
		ret = -ENOSPC;
		goto err_bytes;
	}
	/* A private copy (charged, may fail): the user's buffer may change under us. */
	img = vn_vzalloc(size);
	if (!img) {
		ret = -ENOMEM;
		goto err_bytes;
	}
	ret = vnk_copy_image(img, arg->image_ptr, size);
	if (ret) {
		vn_vfree(img);
		goto err_bytes;
	}
	/* The program keeps the copy, or frees it. */
	ret = vn_program_adopt(img, size, &p, &pe);
	if (ret) {
		if (ret == -EINVAL) {
			arg->check = pe.check;
			arg->section = pe.section;
			arg->index = pe.index;
			strscpy(arg->msg, pe.msg ? pe.msg : "invalid", sizeof(arg->msg));
		}
		goto err_bytes;
	}
	ret = xa_alloc_cyclic(&vf->progs, &handle, p, XA_LIMIT(1, VNK_HANDLE_LIMIT),
			      &vf->next_prog, GFP_KERNEL_ACCOUNT);
	if (ret < 0) {
		vn_program_put(p);
		ret = ret == -EBUSY ? -ENOSPC : ret;
		goto err_bytes;
	}
	atomic64_inc(&vnk_counters.programs);
	arg->handle = handle;
	arg->tensor_count = p->tensor_count;
	return 0;

err_bytes:
	atomic64_sub(size, &vf->prog_bytes);
err_count:
	atomic_dec(&vf->nr_progs);
	return ret;
}

void vnk_program_load_undo(struct vnk_file *vf, void *data)
{
	const struct vneuron_program_load *arg = data;
	struct vn_program *p = xa_erase(&vf->progs, arg->handle);

	if (p)
		vnk_program_drop(vf, p);
}

int vnk_program_unload_ioctl(struct vnk_file *vf, void *data)
{
	const struct vneuron_program_unload *arg = data;
	struct vn_program *p;

	if (arg->flags)
		return -EINVAL;
	p = xa_erase(&vf->progs, arg->handle);
	if (!p)
		return -ENOENT;
	vnk_program_drop(vf, p);
	return 0;
}

struct vn_program *vnk_program_get(struct vnk_file *vf, u32 handle)
{
	struct vn_program *p;

	xa_lock(&vf->progs);
	p = xa_load(&vf->progs, handle);
	if (p)
		vn_program_get(p);
	xa_unlock(&vf->progs);
	return p;
}

void vnk_program_release_all(struct vnk_file *vf)
{
	struct vn_program *p;
	unsigned long idx;

	xa_for_each(&vf->progs, idx, p) {
		xa_erase(&vf->progs, idx);
		vnk_program_drop(vf, p);
	}
}
