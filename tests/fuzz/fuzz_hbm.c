// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target for the HBM bookkeeping the kernel runs on every MEM_ALLOC, MEM_FREE
 * and mmap: any sequence of reserve/release/find with sizes and offsets straight from
 * userspace. Checked against a simple model: extents stay in order and disjoint inside
 * the address space, used never exceeds the budget and equals the live sizes, peak is
 * the largest used, every lookup finds the right extent, and the range check agrees
 * with 128-bit arithmetic.
 */
#include <stdlib.h>
#include <string.h>

#include "vn_hbm.h"

#define SLOTS	32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t take(const uint8_t **p, size_t *n, size_t bytes)
{
	uint64_t v = 0;

	if (bytes > *n)
		bytes = *n;
	memcpy(&v, *p, bytes);
	*p += bytes;
	*n -= bytes;
	return v;
}

static void check_invariants(const struct vn_hbm *h, const struct vn_hbm_extent *slots,
			     const bool *live, uint64_t max_used)
{
	const struct vn_hbm_extent *e;
	uint64_t used = 0, count = 0, end = VN_HBM_BASE;
	int i;

	for (e = h->head; e; e = e->next) {
		if (e->addr < end || e->size == 0 || e->size % VN_HBM_ALIGN ||
		    e->addr + e->size > VN_HBM_BASE + h->space)
			abort();
		end = e->addr + e->size;
		used += e->size;
		count++;
	}
	for (i = 0; i < SLOTS; i++)
		if (live[i] && vn_hbm_find(h, slots[i].addr + slots[i].size - 1) != &slots[i])
			abort();
	if (used != h->used || count != h->count || used > h->total || h->peak != max_used)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vn_hbm_extent slots[SLOTS];
	bool live[SLOTS] = { false };
	uint64_t total, space, max_used = 0;
	struct vn_hbm h;

	total = take(&data, &size, 3) * VN_HBM_ALIGN;
	space = total + take(&data, &size, 3) * VN_HBM_ALIGN;
	if (vn_hbm_init(&h, total, space))
		return 0;
	while (size) {
		uint8_t op = take(&data, &size, 1);
		int i = op % SLOTS;
		uint64_t a = take(&data, &size, 8);
		uint64_t b = take(&data, &size, 8);
		int ret;

		switch (op >> 6) {
		case 0: /* reserve, or release if live */
			if (live[i]) {
				vn_hbm_release(&h, &slots[i]);
				live[i] = false;
				break;
			}
			/* Small sizes most of the time, so the budget fills. */
			if (op & 0x20)
				a %= 16 * VN_HBM_ALIGN;
			ret = vn_hbm_reserve(&h, &slots[i], a);
			if (!ret) {
				live[i] = true;
				if (slots[i].size < a || slots[i].size - a >= VN_HBM_ALIGN)
					abort();
			} else if (ret != -ENOMEM && !(ret == -EINVAL && a == 0)) {
				abort();
			}
			break;
		case 1: { /* the range check, against 128-bit arithmetic */
			uint64_t len = take(&data, &size, 8);
			unsigned __int128 end;

			if (op & 0x20) {
				a %= 1 << 20;
				b %= 1 << 20;
				len %= 1 << 20;
			}
			end = (unsigned __int128)b + len;
			ret = vn_range_check(a, b, len);
			if (ret != (len == 0 || end > a ? -EINVAL : 0))
				abort();
			break;
		}
		case 2: /* lookup of any address */
			if (vn_hbm_find(&h, a) && (a < VN_HBM_BASE || a >= VN_HBM_BASE + space))
				abort();
			break;
		default: /* release everything */
			for (i = 0; i < SLOTS; i++) {
				if (live[i])
					vn_hbm_release(&h, &slots[i]);
				live[i] = false;
			}
			break;
		}
		if (h.used > max_used)
			max_used = h.used;
		check_invariants(&h, slots, live, max_used);
	}
	return 0;
}
