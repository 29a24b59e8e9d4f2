/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The consumer side of a trace ring (uapi/vneuron_trace.h, docs/trace-buffer.md): drains
 * records from a mapped consumer page, control page and data area.
 *
 * Two ways to read:
 *  - vnp_ring_peek() + vnp_ring_release(): zero-copy, pointers into the ring. Safe in
 *    stop mode (the producer never writes slots the consumer has not released). In
 *    overwrite mode the producer may reuse the slots while they are in use:
 *    vnp_ring_release() says how many of them may have been overwritten.
 *  - vnp_ring_read(): copies into a caller buffer (what a read() system call would do)
 *    and, in overwrite mode, discards copies that raced with the producer, so what it
 *    returns is always intact.
 * Every record the consumer misses is counted: vnp_ring_lost() for records overwritten
 * before they were read (overwrite mode), the control page's dropped count for records
 * the producer could not store (stop mode, also announced by LOST records in the stream).
 */
#ifndef VNP_RING_H
#define VNP_RING_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vneuron_trace.h"

struct vnp_ring {
	struct vneuron_trace_consumer *cons;
	const struct vneuron_trace_ctrl *ctrl;
	const unsigned char *data;
	uint64_t size;
	uint64_t mask;
	uint64_t tail;		/* our position; published to cons->consumer_pos */
	uint64_t peek_pos;	/* start of the records handed out by peek */
	uint64_t peek_n;
	uint64_t lost;		/* overwrite mode: records overwritten before we read them */
	uint32_t mode;
};

/*
 * Attaches to a ring: cons is the writable consumer page, ctrl the read-only mapping of
 * ctrl_len bytes (control page then data). Validates the control page. 0 or -EINVAL
 * (bad magic, version, record size, mode or sizes, data outside the mapping).
 */
int vnp_ring_init(struct vnp_ring *r, struct vneuron_trace_consumer *cons,
		  const void *ctrl, size_t ctrl_len);

/*
 * Up to max records from the consumer position, contiguous in the ring (a batch stops at
 * the end of the data area; the next call returns the rest). *recs points into the
 * ring. Returns the count (0: nothing new) or -EIO if the producer position is
 * impossible (not a record boundary, behind us, or in stop mode more than a ring ahead).
 */
ssize_t vnp_ring_peek(struct vnp_ring *r, const struct vneuron_trace_record **recs, size_t max);

/*
 * Done with the n first records of the last peek: they are released to the producer.
 * Returns how many of them (from the first) may have been overwritten while in use
 * (always 0 in stop mode); they are added to vnp_ring_lost().
 */
size_t vnp_ring_release(struct vnp_ring *r, size_t n);

/* Copies up to max intact records into buf; count, 0 or -EIO as vnp_ring_peek(). */
ssize_t vnp_ring_read(struct vnp_ring *r, struct vneuron_trace_record *buf, size_t max);

/* Records published but not yet consumed (overwrite mode: may exceed the ring). */
uint64_t vnp_ring_available(const struct vnp_ring *r);

static inline uint64_t vnp_ring_lost(const struct vnp_ring *r)
{
	return r->lost;
}

/* The producer's count of records dropped because the ring was full (stop mode). */
uint64_t vnp_ring_dropped(const struct vnp_ring *r);

struct vntf_writer;

/*
 * Capture's inner loop: moves everything published so far into a profile as one stream,
 * straight from the ring in stop mode (zero-copy), through vnp_ring_read() in overwrite
 * mode (so no torn record reaches the file). Returns the records written, or -errno
 * (-EIO: a corrupt ring; a writer error as vntf_write_records()).
 */
ssize_t vnp_ring_drain_vntf(struct vnp_ring *r, struct vntf_writer *w, uint32_t stream);

/* Writes the stream's lost section: the control page's dropped and our lost count. */
int vnp_ring_write_lost(const struct vnp_ring *r, struct vntf_writer *w, uint32_t stream);

#endif /* VNP_RING_H */
