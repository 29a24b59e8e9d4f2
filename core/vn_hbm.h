/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Device memory bookkeeping, OS-independent: the per-device HBM budget (bytes backed
 * by host memory), peak tracking, device-address assignment, and the range check
 * used by every copy and mmap.
 *
 * Not thread-safe on its own: the caller serialises every call on one struct vn_hbm
 * (vneuron.ko uses a spinlock; none of these functions sleeps or allocates).
 */
#ifndef VN_HBM_H
#define VN_HBM_H

#include "vn_platform.h"

/* Budget granularity: one host page backs each started 4 KiB of a buffer. */
#define VN_HBM_ALIGN		4096ULL
/* Device addresses start here, so 0 is never a valid buffer address. */
#define VN_HBM_BASE		0x100000000ULL

/* A buffer's place in the device address space; embedded in the buffer. */
struct vn_hbm_extent {
	u64 addr;
	u64 size;			/* aligned size, as charged to the budget */
	struct vn_hbm_extent *next;	/* address order */
};

struct vn_hbm {
	u64 total;			/* budget in bytes */
	u64 used;			/* charged now */
	u64 peak;			/* largest @used seen */
	u64 space;			/* size of the device address space */
	u64 count;			/* live extents */
	struct vn_hbm_extent *head;	/* live extents in address order */
};

/*
 * @total: the budget; @space: the size of the address space buffers are placed in
 * (the modeled HBM, at least @total). -EINVAL if either is unusable.
 */
int vn_hbm_init(struct vn_hbm *h, u64 total, u64 space);

/* @size rounded up to VN_HBM_ALIGN, or 0 if that overflows or @size is 0. */
u64 vn_hbm_aligned(u64 size);

/*
 * Charge @size bytes (rounded up to VN_HBM_ALIGN) and give @e an address: first fit
 * in address order. -EINVAL for size 0, -ENOMEM if the budget or the address space
 * cannot hold it.
 */
int vn_hbm_reserve(struct vn_hbm *h, struct vn_hbm_extent *e, u64 size);

/* Undo vn_hbm_reserve() for @e (which must be live in @h). */
void vn_hbm_release(struct vn_hbm *h, struct vn_hbm_extent *e);

/* The live extent containing device address @addr, or NULL. */
struct vn_hbm_extent *vn_hbm_find(const struct vn_hbm *h, u64 addr);

/*
 * The one range check for copies and maps: 0 if [@offset, @offset + @size) lies
 * inside an object of @obj_size bytes; -EINVAL if @size is 0, the sum overflows or
 * the range ends beyond the object.
 */
int vn_range_check(u64 obj_size, u64 offset, u64 size);

#endif /* VN_HBM_H */
