/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Searching arrays sorted by a field, inline (the timeline's walks call it per event). */
#ifndef VNP_SORTED_H
#define VNP_SORTED_H

#include <stddef.h>

/*
 * The first index i in [0, n) with arr[i].field >= key, n if none: arr sorted by field
 * (a statement expression: each argument evaluated once).
 */
#define VNP_LOWER_BOUND(arr, n, field, key) ({				\
	__typeof__(&(arr)[0]) a_ = (arr);				\
	__typeof__(a_->field) k_ = (key);				\
	size_t lo_ = 0, hi_ = (n);					\
									\
	while (lo_ < hi_) {						\
		size_t mid_ = lo_ + (hi_ - lo_) / 2;			\
									\
		if (a_[mid_].field < k_)				\
			lo_ = mid_ + 1;					\
		else							\
			hi_ = mid_;					\
	}								\
	lo_;								\
})

#endif /* VNP_SORTED_H */
