/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The Perfetto writer's state and track helpers (perfetto.c, perfetto_host.c). */
#ifndef VNP_PERFETTO_PRIV_H
#define VNP_PERFETTO_PRIV_H

#include "protobuf.h"
#include "summary.h"

#define ROWS		(1 + VNEF_STREAMS)	/* TensorE split in two */
#define MAX_LANES	64
#define SEQ_ID		1

/* TracePacket, TrackDescriptor, TrackEvent, DebugAnnotation... field numbers */
enum {
	F_TRACE_PACKET = 1,
	F_PKT_TIMESTAMP = 8,
	F_PKT_SEQ_ID = 10,
	F_PKT_TRACK_EVENT = 11,
	F_PKT_INTERNED = 12,
	F_PKT_SEQ_FLAGS = 13,
	F_ID_CATEGORIES = 1,		/* InternedData: EventCategory { iid = 1, name = 2 } */
	F_ID_EVENT_NAMES = 2,		/* EventName { iid = 1, name = 2 } */
	F_ID_ANN_NAMES = 3,		/* DebugAnnotationName { iid = 1, name = 2 } */
	F_IID = 1,
	F_IID_NAME = 2,
	F_PKT_TRACK_DESC = 60,
	F_TD_UUID = 1,
	F_TD_NAME = 2,
	F_TD_PROCESS = 3,
	F_TD_THREAD = 4,
	F_TD_PARENT = 5,
	F_TD_COUNTER = 8,
	F_PD_PID = 1,
	F_PD_NAME = 6,
	F_THD_PID = 1,
	F_THD_TID = 2,
	F_THD_NAME = 5,
	F_CD_UNIT = 3,
	F_TE_CATEGORY_IIDS = 3,
	F_TE_DEBUG = 4,
	F_TE_NAME_IID = 10,
	F_TE_TYPE = 9,
	F_TE_TRACK = 11,
	F_TE_CATEGORIES = 22,
	F_TE_NAME = 23,
	F_TE_DOUBLE_COUNTER = 44,
	F_TE_FLOW_IDS = 47,		/* repeated fixed64 */
	F_TE_TERM_FLOW_IDS = 48,
	F_DA_NAME_IID = 1,
	F_DA_UINT = 3,
	F_DA_DOUBLE = 5,
	F_DA_STRING = 6,
	F_DA_NAME = 10,
	TYPE_SLICE_BEGIN = 1,
	TYPE_SLICE_END = 2,
	TYPE_INSTANT = 3,
	TYPE_COUNTER = 4,
	SEQ_INCREMENTAL_STATE_CLEARED = 1,
	SEQ_NEEDS_INCREMENTAL_STATE = 2,
	UNIT_COUNT = 2,
};

struct pw {
	FILE *f;
	const struct vnp_view *v;
	struct pb pkt, te, sub, out;
	uint64_t *lane_end;		/* [core][row][lane] */
	uint8_t *lanes;			/* [core][row]: lanes used */
	struct { uint64_t end; uint64_t uuid; } *ends;	/* pending slice ends, a heap */
	size_t nends;
	unsigned int ncores;
	const struct vnp_marker **mk;	/* markers in time order */
	size_t nmk, next_mk;
	size_t next_fault;		/* the timeline's faults are in time order */
	/* semaphore flows: (signaller, waiter) event indices, by signaller */
	struct flow { size_t from, to; } *flows;
	size_t nflows;
	size_t *flow_cur;		/* per track: its next event's first flow */
	/*
	 * Each source line's "file:line" and each scope's length, made on first use (every
	 * event names both: formatting them per event was most of the writer's time)
	 */
	char **line_str;
	uint32_t *line_len, *scope_len;	/* 0: not yet; else length + 1 */
	int err;
};

/* A core's process track, and its executions track (--clock host). */
static inline uint64_t pf_proc_uuid(unsigned int core)
{
	return (uint64_t)(core + 1) << 16;
}

static inline uint64_t pf_exec_uuid(unsigned int core)
{
	return pf_proc_uuid(core) + 0xfe00;
}
/* A track's descriptor packet: a process, a thread of pid (tid) or a counter. */
void pf_track_desc(struct pw *w, uint64_t uuid, uint64_t parent, const char *name,
		       int pid, int tid, int counter);
/* The track event built in w->te as a packet at ps (interned: it uses interned names). */
void pf_packet_event(struct pw *w, uint64_t ps, int interned);
/* The host rows of --clock host (perfetto_host.c). 0 or -ENOMEM. */
int pf_host_rows(struct pw *w);

#endif /* VNP_PERFETTO_PRIV_H */
