// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Trace ring consumer (neurondev.h). Ordering (docs/trace-buffer.md):
 *  - producer_pos: acquire load, then the records below it are complete;
 *  - consumer_pos: release store after the last read of the released records, so the
 *    producer (acquire load) cannot reuse a slot we are still reading;
 *  - overwrite mode: read records, acquire fence, then write_pos: if the producer had
 *    announced it would reuse a slot, the copy we made may be torn and is discarded.
 */
#include <errno.h>
#include <string.h>

#include "neurondev.h"

#define REC	((uint64_t)sizeof(struct vneuron_trace_record))

int nd_ring_init(struct nd_ring *r, struct vneuron_trace_consumer *cons,
		 const void *ctrl_map, size_t ctrl_len)
{
	const struct vneuron_trace_ctrl *c = ctrl_map;
	uint64_t head, tail;

	memset(r, 0, sizeof(*r));
	if (!cons || !c || ctrl_len < sizeof(*c))
		return -EINVAL;
	if (c->magic != VNEURON_TRACE_CTRL_MAGIC || c->version != VNEURON_TRACE_VERSION ||
	    c->record_size != REC)
		return -EINVAL;
	if (c->mode != VNEURON_TRACE_MODE_STOP && c->mode != VNEURON_TRACE_MODE_OVERWRITE)
		return -EINVAL;
	if (c->data_size < VNEURON_TRACE_MIN_RING || c->data_size > VNEURON_TRACE_MAX_RING ||
	    (c->data_size & (c->data_size - 1)))
		return -EINVAL;
	if (c->data_offset < sizeof(*c) || c->data_offset % REC ||
	    c->data_offset > ctrl_len || ctrl_len - c->data_offset < c->data_size)
		return -EINVAL;

	head = __atomic_load_n(&c->producer_pos, __ATOMIC_ACQUIRE);
	tail = __atomic_load_n(&cons->consumer_pos, __ATOMIC_RELAXED);
	if (tail % REC || tail > head)
		return -EINVAL;
	r->cons = cons;
	r->ctrl = c;
	r->data = (const unsigned char *)ctrl_map + c->data_offset;
	r->size = c->data_size;
	r->mask = c->data_size - 1;
	r->mode = c->mode;
	r->tail = tail;
	return 0;
}

/* The published head, checked; in overwrite mode also skips what was overwritten. */
static int ring_head(struct nd_ring *r, uint64_t *headp)
{
	uint64_t head, w = 0;

	/*
	 * Overwrite mode: write_pos first. The producer stores it (release) after publishing
	 * the head it reserves from, so the head we load next is at most a batch behind it.
	 * Loaded the other way round, a consumer preempted between the two loads would see
	 * a write_pos laps ahead of its head.
	 */
	if (r->mode == VNEURON_TRACE_MODE_OVERWRITE)
		w = __atomic_load_n(&r->ctrl->write_pos, __ATOMIC_ACQUIRE);
	/* Pairs with the producer's release store: records below head are complete. */
	head = __atomic_load_n(&r->ctrl->producer_pos, __ATOMIC_ACQUIRE);
	if (head % REC || head < r->tail)
		return -EIO;
	if (r->mode == VNEURON_TRACE_MODE_STOP) {
		if (head - r->tail > r->size)
			return -EIO;
	} else {
		if (w < head)
			w = head;
		if (w % REC || w - head > r->size / 2)
			return -EIO;
		if (w - r->tail > r->size) {
			r->lost += (w - r->size - r->tail) / REC;
			r->tail = w - r->size;
		}
	}
	*headp = head;
	return 0;
}

/* Overwrite mode: how many of n records read from pos may have been overwritten. */
static uint64_t ring_torn(struct nd_ring *r, uint64_t pos, uint64_t n)
{
	uint64_t w;

	if (r->mode != VNEURON_TRACE_MODE_OVERWRITE || !n)
		return 0;
	/* Our reads of the data come before the load of write_pos (smp_rmb()). */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	w = __atomic_load_n(&r->ctrl->write_pos, __ATOMIC_RELAXED);
	if (w <= pos + r->size)
		return 0;
	return (w - r->size - pos) / REC < n ? (w - r->size - pos) / REC : n;
}

static void ring_advance(struct nd_ring *r, uint64_t tail)
{
	r->tail = tail;
	/* Pairs with the producer's acquire load: we are done reading below tail. */
	__atomic_store_n(&r->cons->consumer_pos, tail, __ATOMIC_RELEASE);
}

ssize_t nd_ring_peek(struct nd_ring *r, const struct vneuron_trace_record **recs, size_t max)
{
	uint64_t head, n, contig;
	int err = ring_head(r, &head);

	if (err)
		return err;
	n = (head - r->tail) / REC;
	contig = (r->size - (r->tail & r->mask)) / REC;
	if (n > contig)
		n = contig;
	if (n > max)
		n = max;
	r->peek_pos = r->tail;
	r->peek_n = n;
	*recs = (const struct vneuron_trace_record *)(r->data + (r->tail & r->mask));
	return (ssize_t)n;
}

size_t nd_ring_release(struct nd_ring *r, size_t n)
{
	uint64_t bad;

	if (n > r->peek_n)
		n = r->peek_n;
	bad = ring_torn(r, r->peek_pos, n);
	r->lost += bad;
	r->peek_n = 0;
	if (n)
		ring_advance(r, r->peek_pos + n * REC);
	return bad;
}

ssize_t nd_ring_read(struct nd_ring *r, struct vneuron_trace_record *buf, size_t max)
{
	uint64_t head, n, first, off, bad, pos;
	int err, tries;

	for (tries = 0; tries < 16; tries++) {
		err = ring_head(r, &head);
		if (err)
			return err;
		pos = r->tail;
		n = (head - pos) / REC;
		if (n > max)
			n = max;
		if (!n)
			return 0;
		off = pos & r->mask;
		first = (r->size - off) / REC;
		if (first > n)
			first = n;
		memcpy(buf, r->data + off, first * REC);
		if (n > first)
			memcpy(buf + first, r->data, (n - first) * REC);
		bad = ring_torn(r, pos, n);
		ring_advance(r, pos + n * REC);
		if (bad < n) {
			if (bad) {
				memmove(buf, buf + bad, (n - bad) * REC);
				r->lost += bad;
			}
			return (ssize_t)(n - bad);
		}
		/* All of it raced with the producer: count it, try what is there now. */
		r->lost += bad;
	}
	return 0;
}

uint64_t nd_ring_available(const struct nd_ring *r)
{
	uint64_t head = __atomic_load_n(&r->ctrl->producer_pos, __ATOMIC_ACQUIRE);

	return head > r->tail ? (head - r->tail) / REC : 0;
}

uint64_t nd_ring_lost(const struct nd_ring *r)
{
	return r->lost;
}

uint64_t nd_ring_dropped(const struct nd_ring *r)
{
	return __atomic_load_n(&r->ctrl->dropped, __ATOMIC_RELAXED);
}

ssize_t nd_ring_drain(struct nd_ring *r,
		      int (*fn)(void *arg, const struct vneuron_trace_record *recs, size_t n),
		      void *arg)
{
	/* What was published on entry: a producer that keeps writing cannot hold us here. */
	uint64_t end = __atomic_load_n(&r->ctrl->producer_pos, __ATOMIC_ACQUIRE);
	struct vneuron_trace_record buf[256];
	const struct vneuron_trace_record *recs = NULL;
	ssize_t n, total = 0;
	int err;

	while (r->tail < end) {
		if (r->mode == VNEURON_TRACE_MODE_STOP) {
			n = nd_ring_peek(r, &recs, SIZE_MAX);
			if (n <= 0)
				return n < 0 ? n : total;
			err = fn(arg, recs, (size_t)n);
			nd_ring_release(r, err ? 0 : (size_t)n);
		} else {
			n = nd_ring_read(r, buf, sizeof(buf) / sizeof(buf[0]));
			if (n <= 0)
				return n < 0 ? n : total;
			err = fn(arg, buf, (size_t)n);
		}
		if (err)
			return err;
		total += n;
	}
	return total;
}
