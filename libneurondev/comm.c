// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Communicators (docs/uapi.md, "Communicators"): COMM_CREATE, COMM_JOIN, COMM_INFO and
 * COMM_DESTROY, ids as text for passing between processes, and how an execution that
 * ended at a collective is told in words, with the ranks that never arrived or the one
 * that failed.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include "nd_internal.h"
#include "vn_isa.h"
#include "vn_program.h"

#define NO_RANK		VNEURON_COMM_NONE

struct nd_comm {
	struct nd_device *dev;
	struct nd_comm *next;		/* dev->comms, under dev->lock */
	uint32_t handle;
	uint32_t rank;			/* NO_RANK: a registration (nd_comm_create()) */
	uint32_t core;
	uint32_t nranks;
	nd_comm_id id;			/* registrations: for nd_comm_unregister() */
};

char *nd_comm_id_format(const nd_comm_id *id, char buf[ND_COMM_ID_STRLEN])
{
	static const char hex[] = "0123456789abcdef";
	unsigned int i;

	if (!id || !buf)
		return NULL;
	for (i = 0; i < ND_COMM_ID_BYTES; i++) {
		buf[2 * i] = hex[id->bytes[i] >> 4];
		buf[2 * i + 1] = hex[id->bytes[i] & 15];
	}
	buf[2 * ND_COMM_ID_BYTES] = '\0';
	return buf;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

int nd_comm_id_parse(const char *str, nd_comm_id *id)
{
	nd_comm_id tmp;
	unsigned int i;
	int hi, lo;

	if (!str || !id)
		return -EINVAL;
	while (is_space(*str))
		str++;
	for (i = 0; i < ND_COMM_ID_BYTES; i++) {
		hi = hex_digit(str[2 * i]);
		lo = hi < 0 ? -1 : hex_digit(str[2 * i + 1]);
		if (lo < 0)
			return -EINVAL;
		tmp.bytes[i] = (unsigned char)(hi << 4 | lo);
	}
	for (str += 2 * ND_COMM_ID_BYTES; *str; str++)
		if (!is_space(*str))
			return -EINVAL;
	*id = tmp;
	return 0;
}

static void comm_link(struct nd_device *dev, struct nd_comm *c)
{
	pthread_mutex_lock(&dev->lock);
	c->next = dev->comms;
	dev->comms = c;
	pthread_mutex_unlock(&dev->lock);
}

/* Out of dev's list; 0, or -ENOENT if it is not there (destroyed by another thread). */
static int comm_unlink(struct nd_device *dev, struct nd_comm *c)
{
	struct nd_comm **pp;
	int ret = -ENOENT;

	pthread_mutex_lock(&dev->lock);
	for (pp = &dev->comms; *pp; pp = &(*pp)->next) {
		if (*pp == c) {
			*pp = c->next;
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

static int comm_supported(struct nd_device *dev)
{
	if (dev->info.caps & VNEURON_CAP_COLLECTIVES)
		return 0;
	return nd_dev_err(dev, EOPNOTSUPP,
			  "%s: the module has no collectives (uapi version %u; communicators need 4)",
			  dev->path, dev->info.uapi_version);
}

/* The words for the errors every COMM_* call shares. */
static int comm_err(struct nd_device *dev, const char *what, int e)
{
	switch (e) {
	case ENOSPC:
		return nd_dev_err(dev, e, "%s: %s holds 64 communicator handles, the most one open file may",
				  what, dev->path);
	case EBADF:
		return nd_dev_err(dev, e, "%s: %s is open read-only", what, dev->path);
	default:
		return nd_dev_err(dev, e, "%s: %s", what, nd_strerror(e));
	}
}

int nd_comm_create(struct nd_device *dev, unsigned int nranks, nd_comm_id *id)
{
	struct vneuron_comm_create a = { .nranks = nranks };
	struct nd_comm *c;
	int e;

	if (id)
		memset(id, 0, sizeof(*id));
	if (!dev)
		return -EINVAL;
	if (!id)
		return nd_dev_err(dev, EINVAL, "nd_comm_create: id is NULL");
	if (comm_supported(dev))
		return -EOPNOTSUPP;
	if (!nranks || nranks > VNEF_CC_MAX_RANKS)
		return nd_dev_err(dev, EINVAL, "a communicator of %u ranks: 1 to %u", nranks,
				  VNEF_CC_MAX_RANKS);
	c = calloc(1, sizeof(*c));
	if (!c)
		return nd_dev_err(dev, ENOMEM, "out of memory");
	if (ioctl(dev->fd, VNEURON_IOCTL_COMM_CREATE, &a) < 0) {
		e = errno;
		free(c);
		if (e == EAGAIN)
			return nd_dev_err(dev, e, "COMM_CREATE: the module holds 256 communicators, its most; try again once some are gone");
		return comm_err(dev, "COMM_CREATE", e);
	}
	c->dev = dev;
	c->handle = a.handle;
	c->rank = NO_RANK;
	c->core = NO_RANK;
	c->nranks = nranks;
	memcpy(c->id.bytes, a.id, sizeof(c->id.bytes));
	memcpy(id->bytes, a.id, sizeof(id->bytes));
	comm_link(dev, c);
	return 0;
}

/* Drop the kernel's handle and free c, which is out of its device's list. */
static int comm_free(struct nd_comm *c)
{
	struct vneuron_comm_destroy d = { .handle = c->handle };
	int ret = 0;

	if (ioctl(c->dev->fd, VNEURON_IOCTL_COMM_DESTROY, &d) < 0)
		ret = comm_err(c->dev, "COMM_DESTROY", errno);
	memset(&c->id, 0, sizeof(c->id));
	free(c);
	return ret;
}

int nd_comm_unregister(struct nd_device *dev, const nd_comm_id *id)
{
	struct nd_comm *c, **pp;

	if (!dev || !id)
		return -EINVAL;
	pthread_mutex_lock(&dev->lock);
	for (pp = &dev->comms; (c = *pp); pp = &c->next) {
		if (c->rank == NO_RANK && !memcmp(c->id.bytes, id->bytes, sizeof(id->bytes))) {
			*pp = c->next;
			break;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	if (!c)
		return nd_dev_err(dev, ENOENT,
				  "nd_comm_unregister: %s did not create a communicator with this id",
				  dev->path);
	return comm_free(c);
}

int nd_comm_join(struct nd_device *dev, const nd_comm_id *id, unsigned int rank,
		 unsigned int core, struct nd_comm **commp)
{
	struct vneuron_comm_join j = { .rank = rank, .core = core };
	struct vneuron_comm_info info;
	struct nd_comm *c;
	int e;

	if (commp)
		*commp = NULL;
	if (!dev)
		return -EINVAL;
	if (!id || !commp)
		return nd_dev_err(dev, EINVAL, "nd_comm_join: %s is NULL", id ? "commp" : "id");
	if (comm_supported(dev))
		return -EOPNOTSUPP;
	if (core >= dev->info.core_count)
		return nd_dev_err(dev, EINVAL, "%s: join on core %u, but the device has %u",
				  dev->path, core, dev->info.core_count);
	if (rank >= VNEF_CC_MAX_RANKS)
		return nd_dev_err(dev, EINVAL, "rank %u: communicators have at most %u ranks",
				  rank, VNEF_CC_MAX_RANKS);
	c = calloc(1, sizeof(*c));
	if (!c)
		return nd_dev_err(dev, ENOMEM, "out of memory");
	memcpy(j.id, id->bytes, sizeof(j.id));
	if (ioctl(dev->fd, VNEURON_IOCTL_COMM_JOIN, &j) < 0) {
		e = errno;
		free(c);
		switch (e) {
		case ENOENT:
			/* Never the id itself in a message: it is the communicator's secret. */
			return nd_dev_err(dev, e, "COMM_JOIN as rank %u: no communicator has this id (a wrong id, or its creator closed its device or unregistered it)",
					  rank);
		case EEXIST:
			return nd_dev_err(dev, e, "COMM_JOIN: rank %u of the communicator has joined already",
					  rank);
		case EINVAL:
			return nd_dev_err(dev, e, "COMM_JOIN: rank %u is not a rank of the communicator (too large)",
					  rank);
		case EBUSY:
			return nd_dev_err(dev, e, "COMM_JOIN as rank %u: core %u of %s is owned by another open file, or bound to a communicator already",
					  rank, core, dev->path);
		default:
			return comm_err(dev, "COMM_JOIN", e);
		}
	}
	c->dev = dev;
	c->handle = j.handle;
	c->rank = rank;
	c->core = core;
	info = (struct vneuron_comm_info){ .handle = j.handle };
	if (ioctl(dev->fd, VNEURON_IOCTL_COMM_INFO, &info) == 0)
		c->nranks = info.nranks;
	comm_link(dev, c);
	*commp = c;
	return 0;
}

int nd_comm_info(struct nd_comm *c, struct nd_comm_info *out)
{
	struct vneuron_comm_info a;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!c || !out)
		return -EINVAL;
	a = (struct vneuron_comm_info){ .handle = c->handle };
	if (ioctl(c->dev->fd, VNEURON_IOCTL_COMM_INFO, &a) < 0)
		return comm_err(c->dev, "COMM_INFO", errno);
	*out = (struct nd_comm_info){
		.nranks = a.nranks,
		.rank = a.rank,
		.core = a.core,
		.joined = a.joined,
		.joined_mask = a.joined_mask,
		.broken = !!a.broken,
		.failed_rank = a.failed_rank,
		.failure = (int)a.failure,
		.missing = a.missing,
		.collectives = a.collectives,
	};
	return 0;
}

int nd_comm_destroy(struct nd_comm *c)
{
	if (!c)
		return 0;
	if (comm_unlink(c->dev, c))
		return -ENOENT;
	return comm_free(c);
}

void nd_comm_close_all(struct nd_device *dev)
{
	struct nd_comm *c;

	/* The module drops them at close anyway; this frees ours. */
	pthread_mutex_lock(&dev->lock);
	c = dev->comms;
	dev->comms = NULL;
	pthread_mutex_unlock(&dev->lock);
	while (c) {
		struct nd_comm *next = c->next;

		memset(&c->id, 0, sizeof(c->id));
		free(c);
		c = next;
	}
}

unsigned int nd_comm_rank(const struct nd_comm *c)
{
	return c ? c->rank : NO_RANK;
}

unsigned int nd_comm_size(const struct nd_comm *c)
{
	return c ? c->nranks : 0;
}

unsigned int nd_comm_core(const struct nd_comm *c)
{
	return c ? c->core : NO_RANK;
}

struct nd_device *nd_comm_device(const struct nd_comm *c)
{
	return c ? c->dev : NULL;
}

/* "2", "2, 3", ..., of a rank mask into buf (which has room for 64 ranks). */
static void rank_list(uint64_t mask, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int r;

	buf[0] = '\0';
	for (r = 0; r < 64 && n < len; r++) {
		if (!(mask >> r & 1))
			continue;
		n += (size_t)snprintf(buf + n, len - n, "%s%u", n ? ", " : "", r);
	}
}

/* Why the communicator broke, from its info, as "rank 1 left ..." */
static void broke_words(const struct nd_comm_info *in, char *buf, size_t len)
{
	char ranks[256];

	if (!in->broken || in->failed_rank == NO_RANK) {
		snprintf(buf, len, "another rank failed or left the communicator");
		return;
	}
	switch (in->failure) {
	case ETIMEDOUT:
		rank_list(in->missing, ranks, sizeof(ranks));
		if (in->missing)
			snprintf(buf, len, "rank %u gave up at its time limit: %s %s never arrived",
				 in->failed_rank, in->missing & (in->missing - 1) ? "ranks" : "rank",
				 ranks);
		else
			snprintf(buf, len, "rank %u gave up at its time limit", in->failed_rank);
		break;
	case EINVAL:
		snprintf(buf, len, "the ranks of rank %u's group disagreed on a collective",
			 in->failed_rank);
		break;
	case EINTR:
		snprintf(buf, len, "rank %u's execution was stopped while it waited",
			 in->failed_rank);
		break;
	default:
		snprintf(buf, len, "rank %u left the communicator or its execution ended early",
			 in->failed_rank);
		break;
	}
}

/* The words of a result that ended at a collective, with the communicator's info. */
static const char *describe(const struct nd_comm_info *in, const struct nd_program *prog,
			    const struct nd_run_result *r, char *buf, size_t len)
{
	const struct vn_program *vp = nd_program_vp(prog);
	char what[64], why[512], ranks[384];

	if (vp && r->pc < vp->streams[VNEF_STREAM_CC].count && vp->streams[VNEF_STREAM_CC].cc)
		snprintf(what, sizeof(what), "collective %u (%s)", r->pc,
			 vn_cc_opcode_name(vp->streams[VNEF_STREAM_CC].cc[r->pc].opcode));
	else
		snprintf(what, sizeof(what), "collective %u", r->pc);
	switch (r->reason) {
	case VNEURON_REASON_CC_MISSING:
		rank_list(in->missing, ranks, sizeof(ranks));
		if (in->missing)
			snprintf(why, sizeof(why), "%s %s never arrived (%s at the time limit)",
				 in->missing & (in->missing - 1) ? "ranks" : "rank", ranks,
				 nd_exec_result_name(r->result));
		else
			snprintf(why, sizeof(why), "ranks never arrived (%s at the time limit)",
				 nd_exec_result_name(r->result));
		break;
	case VNEURON_REASON_CC_PEER:
		broke_words(in, ranks, sizeof(ranks));
		snprintf(why, sizeof(why), "%s: %s", nd_exec_result_name(r->result), ranks);
		break;
	case VNEURON_REASON_CC_MISMATCH:
		snprintf(why, sizeof(why),
			 "%s: the ranks disagree on it (opcode, dtype, count, reduction or group), or its group does not fit the %u ranks",
			 nd_exec_result_name(r->result), in->nranks);
		break;
	default:
		snprintf(why, sizeof(why), "execution %s%s%s", nd_exec_result_name(r->result),
			 r->reason ? ": " : "", r->reason ? nd_exec_reason_name(r->reason) : "");
		break;
	}
	snprintf(buf, len, "%s on the %s: %s", what, VN_CC_ENGINE_NAME, why);
	return buf;
}

const char *nd_comm_describe(struct nd_comm *c, const struct nd_program *prog,
			     const struct nd_run_result *r, char *buf, size_t len)
{
	struct nd_comm_info in;

	if (!buf || !len)
		return buf;
	if (!r) {
		snprintf(buf, len, "no result");
		return buf;
	}
	if (r->result == VNEURON_EXEC_OK || r->stream != VNEURON_STREAM_CC || !c ||
	    nd_comm_info(c, &in))
		return nd_run_describe(r, buf, len);
	return describe(&in, prog, r, buf, len);
}

int nd_comm_describe_core(struct nd_device *dev, const struct nd_program *prog,
			  unsigned int core, const struct nd_run_result *r, char *buf,
			  size_t len)
{
	struct vneuron_comm_info a = { 0 };
	struct nd_comm_info in;
	struct nd_comm *c;
	int found = 0;

	if (!dev || r->result == VNEURON_EXEC_OK || r->stream != VNEURON_STREAM_CC)
		return 0;
	pthread_mutex_lock(&dev->lock);
	for (c = dev->comms; c; c = c->next) {
		if (c->rank != NO_RANK && c->core == core) {
			a.handle = c->handle;
			found = 1;
			break;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	/* Without a communicator (destroyed meanwhile), the stream and entry at least. */
	if (!found || ioctl(dev->fd, VNEURON_IOCTL_COMM_INFO, &a) < 0)
		memset(&a, 0, sizeof(a));
	in = (struct nd_comm_info){
		.nranks = a.nranks,
		.broken = !!a.broken,
		.failed_rank = found ? a.failed_rank : NO_RANK,
		.failure = (int)a.failure,
		.missing = a.missing,
	};
	describe(&in, prog, r, buf, len);
	return 1;
}

/* The handle of the registration dev holds for id, or 0. */
static uint32_t reg_handle(struct nd_device *dev, const nd_comm_id *id)
{
	uint32_t h = 0;
	struct nd_comm *c;

	pthread_mutex_lock(&dev->lock);
	for (c = dev->comms; c; c = c->next) {
		if (c->rank == NO_RANK && !memcmp(c->id.bytes, id->bytes, sizeof(id->bytes))) {
			h = c->handle;
			break;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return h;
}

int nd_comm_set_nodes(struct nd_device *dev, const nd_comm_id *id, unsigned int node,
		      const uint32_t *nodes, const uint32_t *devices, unsigned int nranks)
{
	struct vneuron_comm_nodes a = {
		.node = node, .nodes = (uintptr_t)nodes, .devices = (uintptr_t)devices,
		.nranks = nranks,
	};

	if (!dev)
		return -EINVAL;
	if (!(dev->info.caps & VNEURON_CAP_NETQ))
		return nd_dev_err(dev, EOPNOTSUPP,
				  "%s: the module has no network queue (uapi version %u; ranks on other nodes need 5)",
				  dev->path, dev->info.uapi_version);
	if (!id || !nodes || !devices)
		return nd_dev_err(dev, EINVAL, "nd_comm_set_nodes: an argument is NULL");
	a.handle = reg_handle(dev, id);
	if (!a.handle)
		return nd_dev_err(dev, ENOENT,
				  "nd_comm_set_nodes: %s did not create a communicator with this id",
				  dev->path);
	if (ioctl(dev->fd, VNEURON_IOCTL_COMM_NODES, &a) < 0) {
		if (errno == EBUSY)
			return nd_dev_err(dev, EBUSY, "COMM_NODES: a rank joined already, or the nodes were set");
		if (errno == EINVAL)
			return nd_dev_err(dev, EINVAL, "COMM_NODES: %u ranks, node %u: no rank of this node, or none of another",
					  nranks, node);
		return comm_err(dev, "COMM_NODES", errno);
	}
	return 0;
}

int nd_netq_wait(struct nd_device *dev, const nd_comm_id *id, struct nd_mem *stage,
		 uint64_t stage_size, uint64_t timeout_ns, uint64_t *arrivals,
		 struct nd_netq_req *req)
{
	struct vneuron_netq_wait a = { .timeout_ns = timeout_ns, .stage_size = stage_size,
				       .arrivals = (uintptr_t)arrivals };

	if (!dev || !id || !stage || !req)
		return -EINVAL;
	a.handle = reg_handle(dev, id);
	a.stage = stage->handle;
	if (ioctl(dev->fd, VNEURON_IOCTL_NETQ_WAIT, &a) < 0)
		return -errno;
	*req = (struct nd_netq_req){
		.id = a.id, .op = a.op, .reduce = a.reduce, .dtype = a.dtype, .shift = a.shift,
		.count = a.count, .rank_bytes = a.rank_bytes, .stage_need = a.stage_need,
		.local = a.local,
	};
	return 0;
}

int nd_netq_complete(struct nd_device *dev, const nd_comm_id *id, uint64_t req,
		     struct nd_mem *stage, const uint64_t *arrivals)
{
	struct vneuron_netq_complete a = { .id = req, .arrivals = (uintptr_t)arrivals };

	if (!dev || !id || !stage)
		return -EINVAL;
	a.handle = reg_handle(dev, id);
	a.stage = stage->handle;
	return ioctl(dev->fd, VNEURON_IOCTL_NETQ_COMPLETE, &a) < 0 ? -errno : 0;
}

int nd_netq_fail(struct nd_device *dev, const nd_comm_id *id, int err, unsigned int rank,
		 uint64_t missing)
{
	struct vneuron_netq_complete a = { .error = (uint32_t)err, .failed_rank = rank,
					   .missing = missing };

	if (!dev || !id || err <= 0)
		return -EINVAL;
	a.handle = reg_handle(dev, id);
	return ioctl(dev->fd, VNEURON_IOCTL_NETQ_COMPLETE, &a) < 0 ? -errno : 0;
}

/* ---- the network queue as a mapped ring ---- */

struct nd_netq_ring {
	struct nd_device *dev;
	uint32_t handle;
	struct vneuron_netq_ring_setup s;
	unsigned char *map;
	struct vneuron_netq_ctrl *ctl;
};

int nd_netq_ring_open(struct nd_device *dev, const nd_comm_id *id, struct nd_mem *stage,
		      uint64_t stage_size, struct nd_netq_ring **qp)
{
	struct nd_netq_ring *q;
	void *m;

	if (!dev || !id || !stage || !qp)
		return -EINVAL;
	*qp = NULL;
	if (!(dev->info.caps & VNEURON_CAP_NETQ_RING))
		return nd_dev_err(dev, EOPNOTSUPP,
				  "%s: the module has no network queue ring (uapi version %u; it needs 6)",
				  dev->path, dev->info.uapi_version);
	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->dev = dev;
	q->handle = reg_handle(dev, id);
	q->s = (struct vneuron_netq_ring_setup){
		.handle = q->handle, .entries = 4, .stage = stage->handle,
		.stage_size = stage_size,
	};
	if (ioctl(dev->fd, VNEURON_IOCTL_NETQ_RING_SETUP, &q->s) < 0) {
		int err = errno;

		free(q);
		return comm_err(dev, "NETQ_RING_SETUP", err);
	}
	m = mmap(NULL, q->s.mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
		 (off_t)q->s.mmap_offset);
	if (m == MAP_FAILED) {
		int err = errno;

		free(q);
		/* The ring stays set up unmapped: the registration can only be dropped. */
		return nd_dev_err(dev, err, "%s: mmap of the network queue ring: %s", dev->path,
				  strerror(err));
	}
	q->map = m;
	q->ctl = m;
	*qp = q;
	return 0;
}

int nd_netq_ring_next(struct nd_netq_ring *q, uint64_t timeout_ns, uint64_t *arrivals,
		      struct nd_netq_req *req)
{
	struct pollfd pfd = { .fd = q->dev->fd, .events = POLLIN };
	const struct vneuron_netq_req *d;
	struct vneuron_netq_req rq;
	struct timespec nap = { 0, 100000 };
	uint32_t tail, head;
	struct timespec ts;
	uint64_t now;
	int ms;

	for (;;) {
		tail = q->ctl->req_tail;
		/* Pairs with the kernel's release of req_head: the entry is written. */
		head = __atomic_load_n(&q->ctl->req_head, __ATOMIC_ACQUIRE);
		if (head != tail)
			break;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		if (now >= timeout_ns)
			return -ETIMEDOUT;
		ms = (int)((timeout_ns - now + 999999) / 1000000);
		if (poll(&pfd, 1, ms) < 0 && errno != EINTR)
			return -errno;
		/* Readable for a completed execution of this device: not ours to reap. */
		if (pfd.revents && head == __atomic_load_n(&q->ctl->req_head, __ATOMIC_ACQUIRE))
			nanosleep(&nap, NULL);
	}
	d = (const struct vneuron_netq_req *)(q->map + q->s.req_offset) +
	    (tail & (q->s.entries - 1));
	memcpy(&rq, d, sizeof(rq));
	/* The entry is read: the kernel may reuse it. */
	__atomic_store_n(&q->ctl->req_tail, tail + 1, __ATOMIC_RELEASE);
	*req = (struct nd_netq_req){
		.id = rq.id, .op = rq.op, .reduce = rq.reduce, .dtype = rq.dtype,
		.shift = rq.shift, .count = rq.count, .rank_bytes = rq.rank_bytes,
		.stage_need = rq.stage_need, .local = rq.local,
	};
	if (arrivals && rq.nranks <= VNEURON_NETQ_RING_RANKS)
		memcpy(arrivals, rq.arrive_ps, rq.nranks * sizeof(*arrivals));
	return 0;
}

/* c as the next completion, then the doorbell. */
static int ring_post(struct nd_netq_ring *q, const struct vneuron_netq_cpl *c)
{
	struct vneuron_netq_doorbell d = { .handle = q->handle };
	uint32_t head = q->ctl->cpl_head;

	memcpy((struct vneuron_netq_cpl *)(q->map + q->s.cpl_offset) +
	       (head & (q->s.entries - 1)), c, sizeof(*c));
	__atomic_store_n(&q->ctl->cpl_head, head + 1, __ATOMIC_RELEASE);
	return ioctl(q->dev->fd, VNEURON_IOCTL_NETQ_DOORBELL, &d) < 0 ? -errno : 0;
}

int nd_netq_ring_post(struct nd_netq_ring *q, uint64_t req, uint64_t mask,
		      const uint64_t *arrivals)
{
	struct vneuron_netq_cpl c = { .id = req, .ranks = mask };

	if (!q || !arrivals)
		return -EINVAL;
	memcpy(c.arrive_ps, arrivals, sizeof(c.arrive_ps));
	return ring_post(q, &c);
}

int nd_netq_ring_complete(struct nd_netq_ring *q, uint64_t req, const uint64_t *arrivals)
{
	return nd_netq_ring_post(q, req, 0, arrivals);
}

int nd_netq_ring_fail(struct nd_netq_ring *q, int err, unsigned int rank, uint64_t missing)
{
	struct vneuron_netq_cpl c = { .error = (uint32_t)err, .failed_rank = rank,
				      .missing = missing };

	if (!q || err <= 0)
		return -EINVAL;
	return ring_post(q, &c);
}

int nd_netq_ring_stage(struct nd_netq_ring *q, struct nd_mem *stage, uint64_t stage_size)
{
	struct vneuron_netq_doorbell d = { .flags = VNEURON_NETQ_DOORBELL_STAGE,
					   .stage_size = stage_size };

	if (!q || !stage)
		return -EINVAL;
	d.handle = q->handle;
	d.stage = stage->handle;
	return ioctl(q->dev->fd, VNEURON_IOCTL_NETQ_DOORBELL, &d) < 0 ? -errno : 0;
}

void nd_netq_ring_close(struct nd_netq_ring *q)
{
	if (!q)
		return;
	munmap(q->map, q->s.mmap_len);
	free(q);
}

int nd_comm_reg_info(struct nd_device *dev, const nd_comm_id *id, struct nd_comm_info *info)
{
	struct nd_comm c = { .dev = dev, .rank = NO_RANK };

	if (!dev || !id)
		return -EINVAL;
	c.handle = reg_handle(dev, id);
	return nd_comm_info(&c, info);
}
