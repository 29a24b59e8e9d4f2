// SPDX-License-Identifier: GPL-2.0 OR MIT
#include "vn_stats.h"

const char *const vn_stat_names[VN_STAT_COUNT] = {
	[VN_STAT_EXEC_OK] = "executions_ok",
	[VN_STAT_EXEC_FAILED] = "executions_failed",
	[VN_STAT_EXEC_TIMEDOUT] = "executions_timed_out",
	[VN_STAT_BUSY_NS] = "busy_time_ns",
	[VN_STAT_BYTES_MOVED] = "bytes_moved",
	[VN_STAT_FLOPS] = "flops",
	[VN_STAT_DEVICE_FAULTS] = "device_faults",
	[VN_STAT_COLLECTIVES] = "collectives",
	[VN_STAT_COLLECTIVE_BYTES] = "collective_bytes",
};

bool vn_core_stats_read(const struct vn_core_stats *s, struct vn_core_stats *copy)
{
	const u64 *src = (const u64 *)s;
	u64 *dst = (u64 *)copy;
	u64 end, begin;
	size_t i;
	int tries;

	for (tries = 0; tries < 16; tries++) {
		end = __atomic_load_n(&s->end, __ATOMIC_ACQUIRE);
		for (i = 0; i < sizeof(*s) / sizeof(u64); i++)
			dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		begin = __atomic_load_n(&s->begin, __ATOMIC_RELAXED);
		/* No writer in progress when we started, and none started since. */
		if (begin == end)
			return true;
	}
	return false;
}
