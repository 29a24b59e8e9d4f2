/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel-version differences, in one place. */
#ifndef VNK_COMPAT_H
#define VNK_COMPAT_H

#include <linux/device.h>
#include <linux/mm.h>
#include <linux/version.h>

/* 6.4 dropped class_create()'s owner argument. */
#if KERNEL_VERSION(6, 4, 0) <= LINUX_VERSION_CODE
#define vnk_class_create(name)	class_create(name)
#else
#define vnk_class_create(name)	class_create(THIS_MODULE, name)
#endif

/* 6.2 made the device of a class's devnode() callback const. */
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
#define VNK_DEVNODE_CONST	const
#else
#define VNK_DEVNODE_CONST
#endif

/**
 * vnk_vma_clear_flags() - clear flags of a vma being set up by mmap()
 * @vma: the vma
 * @flags: VM_* bits to clear
 *
 * 6.3 made vma->vm_flags read-only behind vm_flags_{set,clear}().
 */
static inline void vnk_vma_clear_flags(struct vm_area_struct *vma, unsigned long flags)
{
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

/**
 * vnk_vma_set_flags() - set flags of a vma being set up by mmap()
 * @vma: the vma
 * @flags: VM_* bits to set
 */
static inline void vnk_vma_set_flags(struct vm_area_struct *vma, unsigned long flags)
{
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE
	vm_flags_set(vma, flags);
#else
	vma->vm_flags |= flags;
#endif
}

/*
 * 6.3 gave io_uring_cmd_done() and the task-work callback an issue_flags argument;
 * Debian's 6.1.y carries that change as a stable backport (6.1.192 has it; the first
 * 6.1.y with it was not pinned down here, older ones take the 3-argument form).
 */
#if KERNEL_VERSION(6, 3, 0) <= LINUX_VERSION_CODE || \
	(KERNEL_VERSION(6, 1, 192) <= LINUX_VERSION_CODE && \
	 KERNEL_VERSION(6, 2, 0) > LINUX_VERSION_CODE)
#define VNK_URING_ISSUE_FLAGS	1
#define vnk_uring_cmd_done(cmd, ret, res2, flags)	io_uring_cmd_done(cmd, ret, res2, flags)
#else
#define VNK_URING_ISSUE_FLAGS	0
#define vnk_uring_cmd_done(cmd, ret, res2, flags)	io_uring_cmd_done(cmd, ret, res2)
#endif

/*
 * crypto_memneq() lives in the crypto API (CONFIG_CRYPTO), which a minimal kernel (the
 * debug guest kernel, tools/debug-kernel) leaves out: then the same constant-time
 * comparison here (every byte looked at, no early exit, the result hidden from the
 * optimiser as lib's __crypto_memneq_generic() does).
 */
#if IS_ENABLED(CONFIG_CRYPTO)
#include <crypto/algapi.h>
#define vnk_memneq(a, b, size)	crypto_memneq(a, b, size)
#else
/**
 * vnk_memneq() - compare two secrets in constant time
 * @a: one
 * @b: the other
 * @size: bytes of each
 *
 * Return: 0 if equal, non-zero otherwise; the time does not depend on where they differ.
 */
static inline unsigned long vnk_memneq(const void *a, const void *b, size_t size)
{
	const u8 *x = a, *y = b;
	unsigned long neq = 0;

	while (size--) {
		neq |= *x++ ^ *y++;
		OPTIMIZER_HIDE_VAR(neq);
	}
	return neq;
}
#endif

#endif /* VNK_COMPAT_H */
