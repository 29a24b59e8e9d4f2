// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Batched executions through io_uring: IORING_OP_URING_CMD with VNEURON_URING_CMD_EXEC
 * (docs/uapi.md, docs/libneurondev.md). liburing 2.3 has no helper for URING_CMD, so the
 * SQE is filled by hand. Each execution in flight owns a slot: its EXEC arguments, its
 * handle array and the status the module writes at completion stay there until the
 * CQE is reaped.
 */
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>

#include "apilog.h"
#include "nd_internal.h"

#define ND_URING_MAX_DEPTH	4096
#define ND_STATUS_UNSET		0xffffffffu

struct nd_uring_slot {
	struct vneuron_uring_cmd cmd;	/* copied into the SQE */
	struct vneuron_exec exec;
	struct vneuron_wait status;
	uint32_t *handles;
	uint32_t handles_cap;
	uint64_t user_data;
	uint32_t api_id;		/* its id in the API log (0: not logged) */
	uint32_t api_prog;		/* its program's */
	uint32_t next_free;		/* free list link, index + 1 (0: end) */
};

struct nd_uring {
	struct nd_device *dev;
	struct io_uring ring;
	unsigned int depth;
	unsigned int inflight;
	uint32_t free_head;		/* index + 1 of the first free slot, 0 if none */
	struct nd_uring_slot *slots;
};

int nd_uring_open(struct nd_device *dev, unsigned int depth, struct nd_uring **ringp)
{
	struct nd_uring *r;
	unsigned int i;
	int ret;

	if (ringp)
		*ringp = NULL;
	if (!dev || !ringp)
		return -EINVAL;
	if (!depth || depth > ND_URING_MAX_DEPTH)
		return nd_dev_err(dev, EINVAL, "io_uring depth %u: 1..%u", depth,
				  ND_URING_MAX_DEPTH);
	if (!(dev->info.caps & VNEURON_CAP_URING_CMD))
		return nd_dev_err(dev, EOPNOTSUPP, "%s: no EXEC through io_uring", dev->path);
	r = calloc(1, sizeof(*r));
	if (r)
		r->slots = calloc(depth, sizeof(*r->slots));
	if (!r || !r->slots) {
		free(r);
		return nd_dev_err(dev, ENOMEM, "out of memory");
	}
	/* The completion queue is twice as deep: with depth in flight it never overflows. */
	ret = io_uring_queue_init(depth, &r->ring, 0);
	if (ret < 0) {
		free(r->slots);
		free(r);
		return nd_dev_err(dev, -ret, "io_uring_queue_init(%u): %s", depth,
				  nd_strerror(-ret));
	}
	r->dev = dev;
	r->depth = depth;
	for (i = 0; i < depth; i++)
		r->slots[i].next_free = i + 2 <= depth ? i + 2 : 0;
	r->free_head = 1;
	*ringp = r;
	return 0;
}

/* The handle array of one execution, by tensor index, in the slot's own buffer. */
static int fill_handles(struct nd_uring *r, struct nd_uring_slot *s, const struct nd_uring_exec *e)
{
	uint32_t n = nd_program_tensor_count(e->prog);

	if (n + 1 > s->handles_cap) {
		uint32_t *h = realloc(s->handles, (n + 1) * sizeof(*h));

		if (!h)
			return nd_dev_err(r->dev, ENOMEM, "out of memory");
		s->handles = h;
		s->handles_cap = n + 1;
	}
	memset(s->handles, 0, (n + 1) * sizeof(*s->handles));
	return nd_bind_handles(e->prog, e->binds, e->count, s->handles);
}

static void fill_sqe(struct io_uring_sqe *sqe, int fd, const struct nd_uring_slot *s,
		     uint32_t index)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = VNEURON_URING_CMD_EXEC;
	sqe->user_data = index;
	memcpy(sqe->cmd, &s->cmd, sizeof(s->cmd));
}

/*
 * The API log's EXEC records of the queued executions, first the slot of the first of
 * them (the free list hands out slots in a chain from there).
 */
static void api_submitted(struct nd_uring *r, uint32_t first, unsigned int n, uint64_t t0)
{
	struct nd_uring_slot *s;
	uint32_t k = first;

	while (t0 && n--) {
		s = &r->slots[k];
		s->api_id = nd_api_uring_id(r->dev);
		nd_api_note_uring(r->dev, ND_API_EXEC, t0, s->api_prog, s->exec.core,
				  s->api_id, 0);
		k = s->next_free - 1;
	}
}

int nd_uring_submit_exec(struct nd_uring *r, const struct nd_uring_exec *ex, unsigned int n)
{
	unsigned int queued = 0, i;
	uint32_t first = 0, flags;
	uint64_t t0;
	int ret = 0, sub;

	if (!r || (n && !ex))
		return -EINVAL;
	t0 = nd_api_t0(r->dev);
	for (i = 0; i < n && r->free_head; i++) {
		const struct nd_uring_exec *e = &ex[i];
		uint32_t index = r->free_head - 1;
		struct nd_uring_slot *s = &r->slots[index];
		struct io_uring_sqe *sqe;

		if (!e->prog || nd_program_dev(e->prog) != r->dev) {
			ret = nd_dev_err(r->dev, EINVAL, "execution %u: %s", i,
					 e->prog ? "a program of another device" : "no program");
			break;
		}
		ret = nd_lnc_exec_flags(r->dev, e->prog, e->core, &flags);
		if (ret)
			break;
		ret = fill_handles(r, s, e);
		if (ret)
			break;
		sqe = io_uring_get_sqe(&r->ring);
		if (!sqe)
			break;
		s->exec = (struct vneuron_exec){
			.program = nd_program_handle(e->prog),
			.core = e->core,
			.mem_handles_ptr = (uintptr_t)s->handles,
			.mem_count = nd_program_tensor_count(e->prog),
			.flags = flags,
			.time_limit_ns = e->limit_ns,
		};
		memset(&s->status, 0, sizeof(s->status));
		s->status.status = ND_STATUS_UNSET;
		s->cmd.exec_ptr = (uintptr_t)&s->exec;
		s->cmd.status_ptr = (uintptr_t)&s->status;
		s->user_data = e->user_data;
		s->api_id = 0;
		s->api_prog = nd_program_api_id(e->prog);
		if (!queued)
			first = index;
		r->free_head = s->next_free;
		fill_sqe(sqe, r->dev->fd, s, index);
		queued++;
	}
	if (queued) {
		/* Queued SQEs are the kernel's from here on, whether this fails or not. */
		r->inflight += queued;
		do
			sub = io_uring_submit(&r->ring);
		while (sub == -EINTR);
		if (sub < 0)
			return nd_dev_err(r->dev, -sub, "io_uring_submit: %s", nd_strerror(-sub));
		api_submitted(r, first, queued, t0);
	}
	return queued || !ret ? (int)queued : ret;
}

static void take_cqe(struct nd_uring *r, const struct io_uring_cqe *cqe, struct nd_uring_done *d,
		     uint64_t t0)
{
	struct nd_uring_slot *s = &r->slots[cqe->user_data];

	d->user_data = s->user_data;
	d->ret = cqe->res;
	d->has_result = s->status.status != ND_STATUS_UNSET;
	memset(&d->res, 0, sizeof(d->res));
	if (d->has_result) {
		nd_result_from_wait(&s->status, &d->res);
		/* as WAIT's record: where it ran, for the profile to find its EXEC's */
		nd_api_note_uring(r->dev, ND_API_WAIT, t0, 0, s->status.core, s->api_id,
				  s->status.seq);
	}
	s->api_id = 0;
	s->next_free = r->free_head;
	r->free_head = cqe->user_data + 1;
	r->inflight--;
}

int nd_uring_reap(struct nd_uring *r, struct nd_uring_done *out, unsigned int max,
		  unsigned int min_wait)
{
	struct io_uring_cqe *cqe;
	unsigned int got = 0;
	uint64_t t0;
	int ret;

	if (!r || (max && !out))
		return -EINVAL;
	t0 = nd_api_t0(r->dev);
	if (min_wait > max || min_wait > r->inflight)
		return nd_dev_err(r->dev, EINVAL, "waiting for %u of %u in flight (max %u)",
				  min_wait, r->inflight, max);
	while (got < max) {
		if (got < min_wait) {
			ret = io_uring_wait_cqe_nr(&r->ring, &cqe, min_wait - got);
			if (ret < 0)
				return got ? (int)got : ret;
		} else if (io_uring_peek_cqe(&r->ring, &cqe)) {
			break;
		}
		if (cqe->user_data >= r->depth)
			return nd_dev_err(r->dev, EPROTO, "completion for unknown slot %llu",
					  (unsigned long long)cqe->user_data);
		take_cqe(r, cqe, &out[got++], t0);
		io_uring_cqe_seen(&r->ring, cqe);
	}
	return (int)got;
}

unsigned int nd_uring_inflight(const struct nd_uring *r)
{
	return r ? r->inflight : 0;
}

void nd_uring_close(struct nd_uring *r)
{
	struct nd_uring_done d;
	unsigned int i;
	int ret;

	if (!r)
		return;
	/* The module writes each status into a slot: keep them until the last CQE. */
	while (r->inflight) {
		ret = nd_uring_reap(r, &d, 1, 1);
		if (ret < 0 && ret != -EINTR)
			break;
	}
	io_uring_queue_exit(&r->ring);
	/* Cannot happen short of a broken ring: better leak the slots than be written. */
	if (r->inflight)
		return;
	for (i = 0; i < r->depth; i++)
		free(r->slots[i].handles);
	free(r->slots);
	free(r);
}
