// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Trace control: TRACE_START/TRACE_STOP, the ring mappings and poll() of a device file
 * (uapi/vneuron_trace.h, docs/trace-buffer.md); ring.c consumes the mapped rings.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "nd_internal.h"

struct nd_trace_map {
	void *cons;
	void *ctrl;
};

struct nd_trace {
	struct nd_device *dev;
	unsigned int core;
	int stopped;
	struct vneuron_trace_start st;	/* as answered by the kernel */
	unsigned int nr;
	struct nd_trace_map map[];
};

static void unmap_all(struct nd_trace *t)
{
	unsigned int i;

	for (i = 0; i < t->nr; i++) {
		if (t->map[i].cons)
			munmap(t->map[i].cons, t->st.consumer_len);
		if (t->map[i].ctrl)
			munmap(t->map[i].ctrl, t->st.ring_len);
	}
}

int nd_trace_start(struct nd_device *dev, unsigned int core, const struct nd_trace_opts *o,
		   struct nd_trace **tp)
{
	struct vneuron_trace_start st = { .core = core };
	struct vneuron_trace_stop stop = { .core = core };
	struct nd_trace *t;
	unsigned int i;
	int e;

	if (!tp)
		return -EINVAL;
	*tp = NULL;
	if (!dev)
		return -EINVAL;
	st.mode = o ? o->mode : VNEURON_TRACE_MODE_STOP;
	st.ring_size = o && o->ring_size ? o->ring_size : ND_TRACE_DEFAULT_RING;
	st.watermark = o ? o->watermark : 0;
	if (ioctl(dev->fd, VNEURON_IOCTL_TRACE_START, &st) < 0) {
		e = errno;
		if (e == EBUSY)
			return nd_dev_err(dev, e, "TRACE_START on core %u: another profiler is "
					  "tracing that core", core);
		if (e == ENOTTY)
			return nd_dev_err(dev, e, "TRACE_START: this vneuron.ko has no tracing");
		return nd_dev_err(dev, e, "TRACE_START on core %u (ring %llu bytes, mode %u): %s",
				  core, (unsigned long long)st.ring_size, st.mode,
				  nd_strerror(e));
	}
	if (!st.nr_rings || st.nr_rings > 64) {
		ioctl(dev->fd, VNEURON_IOCTL_TRACE_STOP, &stop);
		return nd_dev_err(dev, EPROTO, "TRACE_START answered %u rings", st.nr_rings);
	}
	t = calloc(1, sizeof(*t) + st.nr_rings * sizeof(t->map[0]));
	if (!t) {
		ioctl(dev->fd, VNEURON_IOCTL_TRACE_STOP, &stop);
		return nd_dev_err(dev, ENOMEM, "out of memory");
	}
	t->dev = dev;
	t->core = core;
	t->st = st;
	t->nr = st.nr_rings;
	for (i = 0; i < t->nr; i++) {
		off_t off = (off_t)(st.mmap_offset + i * st.ring_stride);
		void *p;

		p = mmap(NULL, st.consumer_len, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd, off);
		if (p == MAP_FAILED)
			goto err;
		t->map[i].cons = p;
		p = mmap(NULL, st.ring_len, PROT_READ, MAP_SHARED, dev->fd,
			 off + (off_t)st.consumer_len);
		if (p == MAP_FAILED)
			goto err;
		t->map[i].ctrl = p;
	}
	*tp = t;
	return 0;
err:
	e = errno;
	unmap_all(t);
	free(t);
	ioctl(dev->fd, VNEURON_IOCTL_TRACE_STOP, &stop);
	return nd_dev_err(dev, e, "mapping trace ring %u of core %u: %s", i, core,
			  nd_strerror(e));
}

unsigned int nd_trace_nr_rings(const struct nd_trace *t)
{
	return t ? t->nr : 0;
}

int nd_trace_ring(const struct nd_trace *t, unsigned int i, struct nd_ring *r)
{
	if (!t || !r || i >= t->nr)
		return -EINVAL;
	return nd_ring_init(r, t->map[i].cons, t->map[i].ctrl, t->st.ring_len);
}

const struct vneuron_trace_start *nd_trace_params(const struct nd_trace *t)
{
	return t ? &t->st : NULL;
}

int nd_trace_poll(struct nd_device *dev, int timeout_ms)
{
	struct pollfd p = { .fd = dev ? dev->fd : -1, .events = POLLIN };
	int n;

	if (!dev)
		return -EINVAL;
	n = poll(&p, 1, timeout_ms);
	if (n < 0)
		return -errno;
	if (n && (p.revents & (POLLERR | POLLNVAL)))
		return -EIO;
	return n;
}

int nd_trace_stop(struct nd_trace *t)
{
	struct vneuron_trace_stop stop;

	if (!t)
		return -EINVAL;
	if (t->stopped)
		return 0;
	stop = (struct vneuron_trace_stop){ .core = t->core };
	if (ioctl(t->dev->fd, VNEURON_IOCTL_TRACE_STOP, &stop) < 0)
		return nd_dev_err(t->dev, errno, "TRACE_STOP on core %u: %s", t->core,
				  nd_strerror(errno));
	t->stopped = 1;
	return 0;
}

void nd_trace_free(struct nd_trace *t)
{
	if (!t)
		return;
	nd_trace_stop(t);
	unmap_all(t);
	free(t);
}
