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
};
