/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The critical path of each execution (docs/metrics.md, "Critical path"): from the entry
 * that ends last, back through the entry each one really waited for (the previous entry
 * of its stream, or the entry whose signal ended its semaphore wait) to the start. Its
 * length is the execution's time; the time of each unit on it says what to shorten.
 */
#ifndef VNP_CRITPATH_H
#define VNP_CRITPATH_H

#include "metrics.h"

struct vnp_critpath {
	uint64_t len_ps;			/* summed over executions */
	uint64_t max_ps;			/* the longest one execution's (slowest rank) */
	uint32_t max_core;			/* the core (rank) it ran on */
	/* path time per unit; a collective's is its transfer (cc_wait_ps: its wait) */
	uint64_t unit_ps[VNP_UNITS];
	uint64_t stream_ps[VNEF_STREAMS];	/* path time per stream (engine, queue, CC) */
	uint64_t cc_wait_ps;			/* collectives' waits for their last member */
	uint64_t cc_wait_rank[VNEF_CC_MAX_RANKS];	/* the same by the rank waited for */
	uint64_t fixed_ps[VNP_UNITS];		/* fixed entry costs on the path */
	uint64_t sem_hops;			/* semaphore waits the path crosses */
	uint8_t *on;				/* tl->n flags: the event is on a path */
	size_t *ev;				/* path events, in time order per execution */
	size_t nev;
};

/* 0 or -ENOMEM. An empty timeline gives an empty path. */
int vnp_critpath_compute(const struct vnp_timeline *tl, struct vnp_critpath *cp);
void vnp_critpath_free(struct vnp_critpath *cp);

/*
 * The event whose completion ended event i's semaphore wait (its signaller, an index),
 * or SIZE_MAX if i did not wait or the signal is not in the profile.
 */
size_t vnp_ev_signaller(const struct vnp_timeline *tl, size_t i);

/*
 * The unit that was really busy behind a wait: from event i's signaller back along the path
 * it depended on, the unit with the most time; its time in *busy_ps. VNP_NONE if none.
 * A stream id (engine 0..3, VNEF_STREAM_DMA(q), VNEF_STREAM_CC).
 */
uint32_t vnp_wait_root(const struct vnp_timeline *tl, size_t i, uint64_t *busy_ps);

#endif /* VNP_CRITPATH_H */
