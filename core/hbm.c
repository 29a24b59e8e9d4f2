// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Device memory bookkeeping; see hbm.h. */
#include "vn_hbm.h"

int vn_hbm_init(struct vn_hbm *h, u64 total, u64 space)
{
	u64 end;

	memset(h, 0, sizeof(*h));
	if (!total || total % VN_HBM_ALIGN || space < total || space % VN_HBM_ALIGN ||
	    check_add_overflow(VN_HBM_BASE, space, &end))
		return -EINVAL;
	h->total = total;
	h->space = space;
	return 0;
}

u64 vn_hbm_aligned(u64 size)
{
	u64 sum;

	if (!size || check_add_overflow(size, VN_HBM_ALIGN - 1, &sum))
		return 0;
	return sum & ~(VN_HBM_ALIGN - 1);
}

int vn_hbm_reserve(struct vn_hbm *h, struct vn_hbm_extent *e, u64 size)
{
	struct vn_hbm_extent **link = &h->head;
	u64 asize = vn_hbm_aligned(size);
	u64 addr = VN_HBM_BASE;
	u64 end = VN_HBM_BASE + h->space;

	if (!size)
		return -EINVAL;
	if (!asize || asize > h->total - h->used)
		return -ENOMEM;
	/* First fit: the gap before each live extent, then the space after the last. */
	while (*link) {
		if ((*link)->addr - addr >= asize)
			break;
		addr = (*link)->addr + (*link)->size;
		link = &(*link)->next;
	}
	if (!*link && end - addr < asize)
		return -ENOMEM;
	e->addr = addr;
	e->size = asize;
	e->next = *link;
	*link = e;
	h->used += asize;
	h->count++;
	if (h->used > h->peak)
		h->peak = h->used;
	return 0;
}

void vn_hbm_release(struct vn_hbm *h, struct vn_hbm_extent *e)
{
	struct vn_hbm_extent **link = &h->head;

	while (*link && *link != e)
		link = &(*link)->next;
	if (!*link)
		return;
	*link = e->next;
	e->next = NULL;
	h->used -= e->size;
	h->count--;
}

struct vn_hbm_extent *vn_hbm_find(const struct vn_hbm *h, u64 addr)
{
	struct vn_hbm_extent *e;

	for (e = h->head; e && e->addr <= addr; e = e->next)
		if (addr - e->addr < e->size)
			return e;
	return NULL;
}

int vn_range_check(u64 obj_size, u64 offset, u64 size)
{
	u64 end;

	if (!size || check_add_overflow(offset, size, &end) || end > obj_size)
		return -EINVAL;
	return 0;
}
