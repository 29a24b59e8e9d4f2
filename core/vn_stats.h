/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Per-core counters, shown in sysfs as core<N>/stats/<name>/{total,present,peak}:
 * total counts since the module was loaded, present since the core's last reset,
 * peak is the largest present seen. Updated locklessly by whoever does the work.
 */
#ifndef VN_STATS_H
#define VN_STATS_H

#include "vn_platform.h"

enum vn_stat {
	VN_STAT_EXEC_OK,
	VN_STAT_EXEC_FAILED,
	VN_STAT_EXEC_TIMEDOUT,
	VN_STAT_BUSY_NS,
	VN_STAT_BYTES_MOVED,
	VN_STAT_FLOPS,
	VN_STAT_DEVICE_FAULTS,
	VN_STAT_COUNT,
};

struct vn_counter {
	u64 total;
	u64 present;
	u64 peak;
};

struct vn_core_stats {
	struct vn_counter c[VN_STAT_COUNT];
};

/* The sysfs directory name of each counter. */
extern const char *const vn_stat_names[VN_STAT_COUNT];

static inline void vn_counter_add(struct vn_counter *c, u64 v)
{
	u64 now, peak;

	__atomic_fetch_add(&c->total, v, __ATOMIC_RELAXED);
	now = __atomic_add_fetch(&c->present, v, __ATOMIC_RELAXED);
	peak = __atomic_load_n(&c->peak, __ATOMIC_RELAXED);
	while (now > peak &&
	       !__atomic_compare_exchange_n(&c->peak, &peak, now, false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

static inline u64 vn_counter_read(const u64 *field)
{
	return __atomic_load_n(field, __ATOMIC_RELAXED);
}

/* A core reset starts a new present period; totals and peaks stay. */
static inline void vn_core_stats_reset(struct vn_core_stats *s)
{
	int i;

	for (i = 0; i < VN_STAT_COUNT; i++)
		__atomic_store_n(&s->c[i].present, 0, __ATOMIC_RELAXED);
}

#endif /* VN_STATS_H */
