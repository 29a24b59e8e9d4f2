// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Trace ring producer: set-up and the slow path (publish, room, drops, reservation).
 * The memory ordering is explained in docs/trace-buffer.md; in short:
 *  - data stores, then producer_pos with a release store: a consumer that reads
 *    producer_pos with an acquire load sees every record below it complete;
 *  - consumer_pos is read with an acquire load before reusing slots, pairing with the
 *    consumer's release store after its last read of them;
 *  - overwrite mode: write_pos is stored, then a release fence, then the slots are
 *    overwritten, so a consumer that copied a slot, fenced and then read write_pos knows
 *    whether its copy can have been torn.
 */
#include "vn_os.h"
#include "vn_trace.h"

#define VN_TRACE_REC	((u64)sizeof(struct vneuron_trace_record))

int vn_trace_ring_init(struct vn_trace_ring *r, struct vneuron_trace_consumer *cons,
		       struct vneuron_trace_ctrl *ctrl, void *data, u64 data_size,
		       const struct vn_trace_params *p, void (*wake)(void *arg), void *wake_arg)
{
	/* The default batch shrinks to fit small rings; an explicit one must fit. */
	u64 batch = p->batch ? p->batch : min_t(u64, VN_TRACE_DEFAULT_BATCH,
						 data_size / 2 / VN_TRACE_REC);
	u64 wm = p->watermark ? p->watermark : data_size / 2;

	if (!cons || !ctrl || !data)
		return -EINVAL;
	if (data_size < VNEURON_TRACE_MIN_RING || data_size > VNEURON_TRACE_MAX_RING ||
	    (data_size & (data_size - 1)))
		return -EINVAL;
	if (p->mode != VNEURON_TRACE_MODE_STOP && p->mode != VNEURON_TRACE_MODE_OVERWRITE)
		return -EINVAL;
	/* A batch may not fill half the ring, so publishing always leaves the consumer work. */
	if (batch > VN_TRACE_MAX_BATCH || batch * VN_TRACE_REC > data_size / 2)
		return -EINVAL;
	if (wm >= data_size || p->data_offset < sizeof(*ctrl))
		return -EINVAL;

	memset(r, 0, sizeof(*r));
	r->data = data;
	r->size = data_size;
	r->mask = data_size - 1;
	r->batch_bytes = batch * VN_TRACE_REC;
	r->watermark = wm;
	r->mode = p->mode;
	r->engine = p->engine;
	r->room_end = data_size;
	r->ctrl = ctrl;
	r->cons = cons;
	r->wake = wake;
	r->wake_arg = wake_arg;
	/* stop = 0 sends the first write through the slow path, which sets the limits. */

	cons->consumer_pos = 0;
	memset(ctrl, 0, sizeof(*ctrl));
	ctrl->magic = VNEURON_TRACE_CTRL_MAGIC;
	ctrl->version = VNEURON_TRACE_VERSION;
	ctrl->record_size = VN_TRACE_REC;
	ctrl->mode = p->mode;
	ctrl->data_offset = p->data_offset;
	ctrl->data_size = data_size;
	ctrl->watermark = wm;
	ctrl->batch = batch;
	ctrl->core = p->core;
	ctrl->engine = p->engine;
	ctrl->start_host_ns = p->start_host_ns;
	return 0;
}

static void vn_trace_publish(struct vn_trace_ring *r)
{
	if (r->head == r->pub)
		return;
	/* Pairs with the consumer's acquire load: the records below head are complete. */
	vn_store_release(&r->ctrl->producer_pos, r->head);
	r->pub = r->head;
	if (r->wake && r->head - r->wake_pos >= r->watermark) {
		r->wake_pos = r->head;
		r->wake(r->wake_arg);
	}
}

/* Overwrite mode: announce the slots about to be reused before touching them. */
static void vn_trace_reserve_batch(struct vn_trace_ring *r)
{
	r->resv = r->head + r->batch_bytes;
	/* Release: a consumer that sees this also sees the head published just before. */
	vn_store_release(&r->ctrl->write_pos, r->resv);
	/* The data stores below must not become visible before write_pos. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	r->stop = r->resv;
}

static void vn_trace_drop(struct vn_trace_ring *r, const u64 *span)
{
	if (!r->pending_lost)
		r->lost_start_ps = span ? span[0] : 0;
	if (span)
		r->lost_end_ps = span[1];
	r->pending_lost++;
	r->dropped++;
	WRITE_ONCE(r->ctrl->dropped, r->dropped);
	/* Let the consumer see what is there, so it can make room. */
	vn_trace_publish(r);
	r->stop = r->head;
}

static void vn_trace_put_lost(struct vn_trace_ring *r)
{
	struct vneuron_trace_record *l;

	l = (struct vneuron_trace_record *)(r->data + (r->head & r->mask));
	vn_trace_rec_init(l, VNEURON_TRACE_LOST, r->engine);
	l->model_start_ps = r->lost_start_ps;
	l->model_end_ps = r->lost_end_ps;
	l->host_ns = vn_time_ns();
	l->count = r->pending_lost;
	r->head += VN_TRACE_REC;
	r->pending_lost = 0;
}

bool vn_trace_slow_span(struct vn_trace_ring *r, const u64 *span)
{
	u64 need, tail;

	if (r->mode == VNEURON_TRACE_MODE_OVERWRITE) {
		vn_trace_publish(r);
		vn_trace_reserve_batch(r);
		return true;
	}

	if (r->head - r->pub >= r->batch_bytes)
		vn_trace_publish(r);
	/* A pending LOST record goes first, in the same room check as the record. */
	need = (r->pending_lost ? 2 : 1) * VN_TRACE_REC;
	if (r->room_end - r->head < need) {
		/* Pairs with the consumer's release store: it is done with the slots below. */
		tail = vn_load_acquire(&r->cons->consumer_pos);
		/*
		 * userspace owns this value: anything outside [head - size, head] (behind
		 * what was overwritten, or ahead of what exists) counts as a full ring.
		 */
		if (r->head - tail > r->size)
			r->room_end = r->head;
		else
			r->room_end = (tail & ~(VN_TRACE_REC - 1)) + r->size;
	}
	if (r->room_end - r->head < need) {
		vn_trace_drop(r, span);
		return false;
	}
	if (r->pending_lost)
		vn_trace_put_lost(r);
	r->stop = min(r->room_end, r->pub + r->batch_bytes);
	return true;
}

bool vn_trace_slow_put(struct vn_trace_ring *r, u64 start, u64 end)
{
	u64 span[2] = { start, end };

	return vn_trace_slow_span(r, span);
}

void vn_trace_flush(struct vn_trace_ring *r)
{
	vn_trace_publish(r);
	if (r->mode == VNEURON_TRACE_MODE_OVERWRITE) {
		/* Nothing beyond head is being written now: the exact bound, for the reader. */
		r->resv = r->head;
		vn_store_release(&r->ctrl->write_pos, r->head);
		r->stop = r->head;
	}
	/* Stop mode: stop stays within the room known and a batch past the old pub. */
}

void vn_trace_stop(struct vn_trace_ring *r)
{
	vn_trace_flush(r);
	if (r->wake && r->wake_pos != r->head) {
		r->wake_pos = r->head;
		r->wake(r->wake_arg);
	}
}
