/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Per-core counters, shown in sysfs as core<N>/stats/<name>/{total,present,peak}:
 * total counts since the module was loaded, present since the core's last reset,
 * peak is the largest present seen. Updated locklessly by whoever does the work.
 */
#ifndef VN_STATS_H
#define VN_STATS_H

#include "vn_platform.h"
#include "vneuron_program.h"

enum vn_stat {
	VN_STAT_EXEC_OK,
	VN_STAT_EXEC_FAILED,
	VN_STAT_EXEC_TIMEDOUT,
	VN_STAT_BUSY_NS,
	VN_STAT_BYTES_MOVED,
	VN_STAT_FLOPS,
	VN_STAT_DEVICE_FAULTS,
	VN_STAT_COLLECTIVES,		/* CC-core instructions run (NOP excluded) */
	VN_STAT_COLLECTIVE_BYTES,	/* their inputs' bytes */
	VN_STAT_COUNT,
};

struct vn_counter {
	u64 total;
	u64 present;
	u64 peak;
};

/* Execution results counted apart (VN_RES_OK .. VN_RES_FAULT, core/vn_exec.h). */
#define VN_STATS_RESULTS	5

/*
 * A core's counters since the module was loaded: c[] in sysfs, the rest for telemetry
 * (kmod/genl.c). Writers bracket an execution's updates with vn_core_stats_begin() and
 * vn_core_stats_end(); vn_core_stats_read() retries until it has a copy no writer
 * touched while it read (one consistent snapshot, without a lock on the hot path).
 */
struct vn_core_stats {
	struct vn_counter c[VN_STAT_COUNT];
	u64 results[VN_STATS_RESULTS];
	u64 stream_busy_ps[VNEF_STREAMS];
	u64 model_ps;
	u64 host_ns;		/* host time the executions took */
	u64 hbm_read;
	u64 hbm_write;
	u64 instructions;
	u64 descriptors;
	u64 begin;		/* writers started */
	u64 end;		/* writers done */
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

static inline void vn_stat_add(u64 *field, u64 v)
{
	__atomic_fetch_add(field, v, __ATOMIC_RELAXED);
}

static inline void vn_core_stats_begin(struct vn_core_stats *s)
{
	__atomic_fetch_add(&s->begin, 1, __ATOMIC_SEQ_CST);
}

static inline void vn_core_stats_end(struct vn_core_stats *s)
{
	__atomic_fetch_add(&s->end, 1, __ATOMIC_RELEASE);
}

/* A copy of s; false if writers kept it changing through every try (copy is the last). */
bool vn_core_stats_read(const struct vn_core_stats *s, struct vn_core_stats *copy);

/* A core reset starts a new present period; totals and peaks stay. */
static inline void vn_core_stats_reset(struct vn_core_stats *s)
{
	int i;

	for (i = 0; i < VN_STAT_COUNT; i++)
		__atomic_store_n(&s->c[i].present, 0, __ATOMIC_RELAXED);
}

#endif /* VN_STATS_H */
