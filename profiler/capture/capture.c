// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Capture: trace sessions on a device, the drainer thread and the profile it writes. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "../util/log.h"
#include "../format/execprog.h"
#include "../format/sha256.h"
#include "vn_model.h"
#include "../format/vntf.h"

static int write_failed(struct vnp_capture *c)
{
	vnp_err("%s: cannot write the profile: %s", c->path,
		    strerror(vntf_writer_errno(c->w) ?: EINVAL));
	return -EIO;
}

int vnp_cap_open(struct vnp_capture *c, unsigned int device)
{
	struct nd_error e;
	int ret;

	c->device = device;
	ret = nd_open(device, &c->tdev, &e);
	if (ret) {
		vnp_err("%s", e.msg);
		return ret;
	}
	ret = nd_info(c->tdev, &c->info);
	if (ret) {
		vnp_err("%s", nd_device_error(c->tdev));
		return ret;
	}
	if (!(c->info.caps & VNEURON_CAP_TRACE)) {
		vnp_err("/dev/vneuron%u has no trace rings (VNEURON_CAP_TRACE)", device);
		return -EOPNOTSUPP;
	}
	c->ndev = 1;
	c->tdevs[0] = c->tdev;
	c->devnum[0] = device;
	c->core_count[0] = c->info.core_count;
	return 0;
}

int vnp_cap_add_device(struct vnp_capture *c, unsigned int device, int quiet_enoent)
{
	struct vneuron_info info;
	struct nd_device *d;
	struct nd_error e;
	unsigned int i;
	int ret;

	for (i = 0; i < c->ndev; i++)
		if (c->devnum[i] == device)
			return (int)i;
	if (c->ndev == VNP_CAP_MAX_DEVICES) {
		vnp_err("more than %u devices", VNP_CAP_MAX_DEVICES);
		return -E2BIG;
	}
	ret = nd_open(device, &d, &e);
	if (ret) {
		if (ret != -ENOENT || !quiet_enoent)
			vnp_err("%s", e.msg);
		return ret == -ENOENT ? -ENODEV : ret;
	}
	ret = nd_info(d, &info);
	if (ret) {
		vnp_err("%s", nd_device_error(d));
		nd_close(d);
		return ret;
	}
	if (!(info.caps & VNEURON_CAP_TRACE) ||
	    memcmp(&info.model, &c->info.model, sizeof(info.model))) {
		if (!(info.caps & VNEURON_CAP_TRACE))
			vnp_err("/dev/vneuron%u has no trace rings (VNEURON_CAP_TRACE)",
				    device);
		else
			vnp_err("/dev/vneuron%u models another device than /dev/vneuron%u",
				    device, c->device);
		nd_close(d);
		return -EINVAL;
	}
	c->tdevs[c->ndev] = d;
	c->devnum[c->ndev] = device;
	c->core_count[c->ndev] = info.core_count;
	return (int)c->ndev++;
}

int vnp_cap_all_cores(struct vnp_capture *c)
{
	unsigned int d, k;

	c->nr_cores = 0;
	for (d = 0; d < c->ndev; d++)
		for (k = 0; k < c->core_count[d] && c->nr_cores < VNP_CAP_MAX_CORES; k++) {
			c->core[c->nr_cores] = k;
			c->cdev[c->nr_cores++] = d;
		}
	return 0;
}

int vnp_cap_place(struct vnp_capture *c, const unsigned int *dev, const unsigned int *core,
		  unsigned int n, int workers)
{
	unsigned int i;

	if (n > VNP_CAP_MAX_CORES) {
		vnp_err("at most %u %s", VNP_CAP_MAX_CORES, workers ? "workers" : "cores");
		return -E2BIG;
	}
	for (i = 0; i < n; i++) {
		if (dev[i] >= c->ndev || core[i] >= c->core_count[dev[i]]) {
			vnp_err("%s %u: /dev/vneuron%u has no core %u", workers ? "worker" : "core",
				i, dev[i] < c->ndev ? c->devnum[dev[i]] : dev[i], core[i]);
			return -ERANGE;
		}
		c->core[i] = core[i];
		c->cdev[i] = dev[i];
		c->worker[i] = i;
	}
	c->nr_cores = n;
	c->nr_workers = workers ? n : 0;
	return 0;
}

int vnp_cap_use_hosts(struct vnp_capture *c, struct nd_host *const *hosts,
		      const unsigned int *device, const unsigned int *core, unsigned int n,
		      const struct vneuron_model *model, int workers, unsigned int lnc)
{
	unsigned int i, d, k, per = lnc == 2 ? 2 : 1;

	if (!n || n > VNP_CAP_MAX_CORES / per) {
		vnp_err("%u host cores: 1..%u can be traced", n * per, VNP_CAP_MAX_CORES);
		return -EINVAL;
	}
	if (per == 2 && workers) {
		vnp_err("LNC=2 host cores cannot be collectives workers");
		return -EINVAL;
	}
	c->host = 1;
	c->lnc = per;
	c->info.model = model ? *model : vn_model_trn1;
	c->info.core_count = 0;
	for (i = 0; i < n * per; i++) {
		k = i / per;
		for (d = 0; d < c->ndev && c->devnum[d] != device[k]; d++)
			;
		if (d == c->ndev) {
			if (c->ndev == VNP_CAP_MAX_DEVICES) {
				vnp_err("more than %u devices", VNP_CAP_MAX_DEVICES);
				return -E2BIG;
			}
			c->devnum[c->ndev++] = device[k];
		}
		if (per == 2 && (core[k] & 1)) {
			vnp_err("LNC=2: core %u is not a logical core's first (an even core)",
				core[k]);
			return -EINVAL;
		}
		c->hosts[i] = hosts[k];
		c->core[i] = core[k] + i % per;
		if (c->core[i] >= c->core_count[d])
			c->core_count[d] = c->core[i] + 1;
		if (c->core[i] >= c->info.core_count)
			c->info.core_count = c->core[i] + 1;
		c->cdev[i] = d;
		c->worker[i] = i;
	}
	c->device = c->devnum[0];
	c->nr_cores = n * per;
	c->nr_workers = workers ? n : 0;
	return 0;
}

int vnp_cap_cores(struct vnp_capture *c, const unsigned int *cores, unsigned int n)
{
	unsigned int i;

	if (!n) {
		n = c->info.core_count < VNP_CAP_MAX_CORES ? c->info.core_count :
							     VNP_CAP_MAX_CORES;
		for (i = 0; i < n; i++)
			c->core[i] = i;
		c->nr_cores = n;
		return 0;
	}
	if (n > VNP_CAP_MAX_CORES)
		return -E2BIG;
	for (i = 0; i < n; i++) {
		if (cores[i] >= c->info.core_count) {
			vnp_err("--core %u: /dev/vneuron%u has %u cores", cores[i], c->device,
				    c->info.core_count);
			return -ERANGE;
		}
		c->core[i] = cores[i];
	}
	c->nr_cores = n;
	return 0;
}

int vnp_cap_create(struct vnp_capture *c, const char *path, const struct vnp_prog *prog,
		   const char *const *inputs, unsigned int n, unsigned int flags)
{
	char msg[PATH_MAX * 2 + 128];
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_program vp = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32 };
	struct timespec res;
	const void *image;
	size_t size;
	int ret;

	c->path = path;
	ret = nd_out_open(&c->out, path, inputs, n, flags, msg, sizeof(msg));
	if (ret) {
		vnp_err("%s", msg);
		return ret;
	}
	ret = vntf_writer_create(&c->w, c->out.f);
	if (ret) {
		nd_out_abort(&c->out);
		vnp_err("%s: %s", path, strerror(-ret));
		return ret;
	}
	clock_getres(CLOCK_MONOTONIC, &res);
	clk.host_start_ns = vnp_now_ns(CLOCK_MONOTONIC);
	clk.realtime_start_ns = vnp_now_ns(CLOCK_REALTIME);
	clk.host_resolution_ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
	ret = vntf_write_model(c->w, &c->info.model) ?: vntf_write_clock(c->w, &clk) ?:
	      vntf_write_backend(c->w, c->host ? VNTF_BACKEND_HOST : VNTF_BACKEND_MODULE) ?:
	      (c->lnc == 2 ? vntf_write_lnc(c->w, 2) : 0);
	if (!ret && prog) {
		/* the identity view checks; the debug table as the image has it */
		image = vnp_prog_image(prog, &size);
		vnp_sha256(image, size, vp.hash);
		vp.image_size = size;
		snprintf(vp.name, sizeof(vp.name), "%s", prog->name ?: "");
		ret = vntf_write_program(c->w, &vp, prog->debug,
					 prog->ndebug * sizeof(*prog->debug));
	}
	return ret ? write_failed(c) : 0;
}

struct ring0 {
	struct vnp_capture *c;
	uint32_t stream;
};

/*
 * Ring 0 holds the executions' edges: an EXEC_START with an LNC (an application's own
 * launch on a logical core, VNEURON_EXEC_LNC2) gives the profile its logical-cores section,
 * if the file keeps it: past --max-size the writer keeps the batch's first records only.
 */
static int drain_ring0(void *arg, const struct vneuron_trace_record *recs, size_t n)
{
	struct ring0 *d = arg;
	uint64_t cut = vntf_writer_cut(d->c->w);
	size_t i, kept;
	int ret;

	ret = vntf_write_records(d->c->w, d->stream, recs, n);
	cut = vntf_writer_cut(d->c->w) - cut;
	kept = cut < n ? n - (size_t)cut : 0;
	for (i = 0; !ret && !d->c->saw_lnc2 && i < kept; i++)
		if (recs[i].kind == VNEURON_TRACE_EXEC_START && recs[i].opcode == 2)
			d->c->saw_lnc2 = 1;
	return ret;
}

static ssize_t drain_all(struct vnp_capture *c)
{
	ssize_t n, total = 0;
	unsigned int i, j;

	for (i = 0; i < c->nr_cores; i++) {
		for (j = 0; j < c->nr_rings[i]; j++) {
			struct ring0 d = { .c = c, .stream = i * VNP_CAP_MAX_RINGS };

			if (!j && c->lnc != 2)
				n = nd_ring_drain(&c->ring[i][0], drain_ring0, &d);
			else
				n = vntf_drain_ring(c->w, i * VNP_CAP_MAX_RINGS + j,
						    &c->ring[i][j]);
			if (n < 0)
				return n;
			total += n;
		}
	}
	return total;
}

/* Waits up to timeout_ms for any traced device's rings: > 0 ready, 0, or -errno. */
static int poll_all(struct vnp_capture *c, int timeout_ms)
{
	struct pollfd p[VNP_CAP_MAX_DEVICES > VNP_CAP_MAX_CORES ? VNP_CAP_MAX_DEVICES :
			VNP_CAP_MAX_CORES];
	unsigned int i;
	uint64_t v;
	int n;

	if (c->host) {
		for (i = 0; i < c->nr_cores; i++)
			p[i] = (struct pollfd){ .fd = nd_host_trace_fd(c->htr[i]), .events = POLLIN };
		n = poll(p, c->nr_cores, timeout_ms);
		if (n < 0)
			return -errno;
		/* eventfds: read to clear (nonblocking; one not ready says EAGAIN) */
		for (i = 0; n && i < c->nr_cores; i++)
			if ((p[i].revents & POLLIN) && read(p[i].fd, &v, sizeof(v)) < 0 &&
			    errno != EAGAIN)
				return -errno;
		return n;
	}
	if (c->ndev <= 1)
		return nd_trace_poll(c->tdev, timeout_ms);
	for (i = 0; i < c->ndev; i++)
		p[i] = (struct pollfd){ .fd = nd_device_fd(c->tdevs[i]), .events = POLLIN };
	n = poll(p, c->ndev, timeout_ms);
	if (n < 0)
		return -errno;
	for (i = 0; n && i < c->ndev; i++)
		if (p[i].revents & (POLLERR | POLLNVAL))
			return -EIO;
	return n;
}

static void *drainer(void *arg)
{
	struct vnp_capture *c = arg;
	ssize_t n;
	int stop, r;

	for (;;) {
		stop = __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE);
		n = drain_all(c);
		if (n < 0) {
			c->err = (int)n;
			break;
		}
		__atomic_add_fetch(&c->records, (uint64_t)n, __ATOMIC_RELAXED);
		/* Set after the rings were stopped: this pass saw their last records. */
		if (stop)
			break;
		if (!n) {
			r = poll_all(c, 50);
			if (r < 0 && r != -EINTR) {
				c->err = r;
				break;
			}
		}
	}
	return NULL;
}

int vnp_cap_start(struct vnp_capture *c, const struct nd_trace_opts *o)
{
	struct vntf_worker wk = { .device = c->device, .pid = (uint32_t)getpid(),
				  .nr_workers = 1 };
	unsigned int i, j;
	int ret;

	gethostname(wk.hostname, sizeof(wk.hostname) - 1);
	if (c->have_node && vntf_write_node(c->w, &c->node))
		return write_failed(c);
	for (i = 0; i < c->nr_cores; i++) {
		struct nd_device *d = c->tdevs[c->cdev[i]] ?: c->tdev;

		if (c->host && c->lnc == 2 && (i & 1)) {
			/* the logical core's second: its session came with the first's */
			c->htr[i] = nd_host_trace_instance(c->htr[i - 1], 1);
			if (!c->htr[i]) {
				vnp_err("host core %u: not a logical core (nd_host_set_lnc())", i);
				return -EINVAL;
			}
			c->nr_rings[i] = nd_host_trace_nr_rings(c->htr[i]);
		} else if (c->host) {
			ret = nd_host_trace_start(c->hosts[i], o, &c->htr[i]);
			if (ret) {
				vnp_err("host core %u: %s", i, nd_host_error(c->hosts[i]));
				return ret;
			}
			c->nr_rings[i] = nd_host_trace_nr_rings(c->htr[i]);
		} else {
			ret = nd_trace_start(d, c->core[i], o, &c->tr[i]);
			if (ret) {
				vnp_err("%s", nd_device_error(d));
				return ret;
			}
			c->nr_rings[i] = nd_trace_nr_rings(c->tr[i]);
		}
		if (c->nr_rings[i] > VNP_CAP_MAX_RINGS) {
			vnp_err("the device reports %u rings per core, this build handles %u",
				    c->nr_rings[i], VNP_CAP_MAX_RINGS);
			return -E2BIG;
		}
		for (j = 0; j < c->nr_rings[i]; j++) {
			if (c->host ? nd_host_trace_ring(c->htr[i], j, &c->ring[i][j]) :
				      nd_trace_ring(c->tr[i], j, &c->ring[i][j])) {
				vnp_err("core %u ring %u: the control page is not valid",
					    c->core[i], j);
				return -EINVAL;
			}
			wk.stream = i * VNP_CAP_MAX_RINGS + j;
			wk.device = c->ndev ? c->devnum[c->cdev[i]] : c->device;
			wk.core = c->core[i];
			wk.worker = c->nr_workers > 1 ? c->worker[i] : 0;
			wk.nr_workers = c->nr_workers > 1 ? c->nr_workers : 1;
			if (c->have_node) {
				/* the global rank: wk is reused for every ring, so set, not add */
				wk.worker += c->node.first_rank;
				wk.nr_workers = c->node.world_size;
			}
			wk.engine = c->ring[i][j].ctrl->engine;
			wk.mode = c->ring[i][j].ctrl->mode;
			wk.ring_size = c->ring[i][j].ctrl->data_size;
			if (vntf_write_worker(c->w, &wk))
				return write_failed(c);
		}
	}
	ret = pthread_create(&c->thr, NULL, drainer, c);
	if (ret) {
		vnp_err("cannot start the drainer thread: %s", strerror(ret));
		return -ret;
	}
	c->running = 1;
	return 0;
}

int vnp_cap_stop(struct vnp_capture *c)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < c->nr_cores; i++) {
		if (c->htr[i])
			nd_host_trace_stop(c->htr[i]);
		if (c->tr[i] && nd_trace_stop(c->tr[i])) {
			vnp_err("%s", nd_device_error(c->tdevs[c->cdev[i]] ?: c->tdev));
			ret = -EIO;
		}
	}
	if (c->running) {
		__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
		pthread_join(c->thr, NULL);
		c->running = 0;
		if (c->err) {
			vnp_err("draining the rings: %s", c->err == -EIO ?
				    "a ring's positions are corrupt" : strerror(-c->err));
			ret = c->err;
		}
	}
	return ret;
}

/* Range names met in an API log, to give each its id once (vntf_write_string()). */
#define NAME_SLOTS	(2 * VNTF_MAX_STRINGS)	/* power of two, half full at most */

struct api_names {
	uint32_t slot[NAME_SLOTS];	/* id + 1, 0 empty */
	char *name[VNTF_MAX_STRINGS];
	uint32_t n;
};

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (len--)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

/* The id of name (len bytes, clean), writing its string section the first time. */
static int name_id(struct api_names *t, struct vntf_writer *w, const char *name, size_t len,
		   uint32_t *id)
{
	uint32_t i = name_hash(name, len) & (NAME_SLOTS - 1);
	int err;

	for (; t->slot[i]; i = (i + 1) & (NAME_SLOTS - 1)) {
		const char *o = t->name[t->slot[i] - 1];

		if (strlen(o) == len && !memcmp(o, name, len)) {
			*id = t->slot[i] - 1;
			return 0;
		}
	}
	if (t->n == VNTF_MAX_STRINGS)
		return -E2BIG;
	t->name[t->n] = strndup(name, len);
	if (!t->name[t->n])
		return -ENOMEM;
	err = vntf_write_string(w, name, len);
	if (err) {
		free(t->name[t->n]);
		return err;
	}
	t->slot[i] = ++t->n;
	*id = t->n - 1;
	return 0;
}

struct api_merge {
	struct vntf_writer *w;
	const struct vntf_worker *wk;
	struct vneuron_trace_record buf[256];
	size_t n;
	int declared;
	uint64_t *records;
};

static int merge_flush(struct api_merge *m)
{
	int err;

	if (!m->n)
		return 0;
	if (!m->declared) {
		err = vntf_write_worker(m->w, m->wk);
		if (err)
			return err;
		m->declared = 1;
	}
	err = vntf_write_records(m->w, m->wk->stream, m->buf, m->n);
	if (!err)
		__atomic_add_fetch(m->records, m->n, __ATOMIC_RELAXED);
	m->n = 0;
	return err;
}

int vnp_api_log_merge(struct vntf_writer *w, FILE *f, const struct vntf_worker *wk,
		      uint64_t *records, uint64_t *skipped, struct vnp_execmap *map)
{
	struct api_merge m = { .w = w, .wk = wk, .records = records };
	struct vneuron_trace_record r, name[(ND_RANGE_NAME_MAX + 63) / 64];
	char clean[ND_RANGE_NAME_MAX + 1];
	struct api_names *t = calloc(1, sizeof(*t));
	size_t nr, len;
	uint32_t id = 0, i;
	int err = 0;

	if (!t)
		return -ENOMEM;
	*skipped = 0;
	while (!err && fread(&r, sizeof(r), 1, f) == 1) {
		/* Only what libneurondev writes there: API markers. */
		if (r.kind != VNEURON_TRACE_MARKER || r.opcode <= ND_API_MARKER) {
			++*skipped;
			continue;
		}
		/* program identities go to section 9 (map), not into the stream */
		if (map) {
			int k = vnp_execmap_note(map, &r);

			if (k < 0) {
				err = k;
				break;
			}
			if (k)
				continue;
		}
		if (r.opcode == ND_API_RANGE_PUSH || r.opcode == ND_API_MARK) {
			/* the name follows in ceil(bytes / 64) records */
			if (!r.bytes || r.bytes > ND_RANGE_NAME_MAX) {
				++*skipped;
				continue;
			}
			nr = (r.bytes + sizeof(r) - 1) / sizeof(r);
			if (fread(name, sizeof(r), nr, f) != nr) {
				++*skipped;
				break;		/* cut short: the application died mid-write */
			}
			len = nd_range_name_clean(clean, (const char *)name, r.bytes);
			if (!len) {
				++*skipped;
				continue;
			}
			err = merge_flush(&m) ?: name_id(t, w, clean, len, &id);
			if (err == -E2BIG) {
				/* past the names a profile holds: the range is lost, not the rest */
				++*skipped;
				err = 0;
				continue;
			}
			if (err)
				break;
			r.sem_value = id;
			r.bytes = (uint32_t)len;
		}
		m.buf[m.n++] = r;
		if (m.n == sizeof(m.buf) / sizeof(m.buf[0]))
			err = merge_flush(&m);
	}
	if (!err)
		err = merge_flush(&m);
	for (i = 0; i < t->n; i++)
		free(t->name[i]);
	free(t);
	return err;
}

int vnp_cap_merge_api(struct vnp_capture *c, const char *path, pid_t pid)
{
	struct vntf_worker wk = { .stream = VNP_CAP_API_STREAM,
				  .engine = VNEURON_TRACE_ENGINE_CORE, .pid = (uint32_t)pid,
				  .nr_workers = 1 };
	struct vnp_execmap map = { 0 };
	uint64_t skipped = 0;
	int ret;
	FILE *f = fopen(path, "rb");

	if (!f)
		return 0;
	gethostname(wk.hostname, sizeof(wk.hostname) - 1);
	if (c->have_node) {
		wk.worker = c->node.first_rank;
		wk.nr_workers = c->node.world_size;
	}
	ret = vnp_api_log_merge(c->w, f, &wk, &c->records, &skipped, &map);
	if (ret == -ENOMEM)
		vnp_err("%s: out of memory merging the API log", path);
	else if (ret)
		ret = write_failed(c);
	else if (skipped)
		vnp_err("%s: %llu records of the API log were not libneurondev's calls and "
			    "were left out", path, (unsigned long long)skipped);
	if (!ret) {
		/* section 9: which program each execution ran */
		ret = vnp_execmap_write(&map, c->w);
		if (ret == -ENOMEM)
			vnp_err("out of memory reading the API log");
		else if (ret)
			ret = write_failed(c);
	}
	vnp_execmap_free(&map);
	fclose(f);
	unlink(path);
	return ret;
}

/* Every ring's lost counts into the profile; their totals. */
static int write_lost(struct vnp_capture *c, uint64_t *dropped, uint64_t *overwritten)
{
	unsigned int i, j;

	*dropped = *overwritten = 0;
	for (i = 0; i < c->nr_cores; i++) {
		for (j = 0; j < c->nr_rings[i]; j++) {
			struct nd_ring *r = &c->ring[i][j];

			if (vntf_write_ring_lost(c->w, i * VNP_CAP_MAX_RINGS + j, r))
				return write_failed(c);
			*dropped += nd_ring_dropped(r);
			*overwritten += nd_ring_lost(r);
		}
	}
	return 0;
}

int vnp_cap_finish(struct vnp_capture *c, int quiet)
{
	uint64_t dropped, over;
	int ret = vnp_cap_stop(c) ?: write_lost(c, &dropped, &over);

	/* an application launched on logical cores: say so after its records (section 14) */
	if (!ret && c->saw_lnc2 && c->lnc != 2 && vntf_write_lnc(c->w, 2))
		ret = write_failed(c);

	if (ret) {
		vntf_writer_abort(c->w);
		c->w = NULL;
		nd_out_abort(&c->out);
		return ret;
	}
	if ((dropped || over) && quiet)
		vnp_warn("%llu records lost (%llu dropped on full rings, %llu overwritten before "
			 "they were read)", (unsigned long long)(dropped + over),
			 (unsigned long long)dropped, (unsigned long long)over);
	else if (dropped || over)
		vnp_warn("%llu records, %llu records lost (%llu dropped on full rings, %llu "
			 "overwritten before they were read)",
			 (unsigned long long)vnp_cap_records(c),
			 (unsigned long long)(dropped + over), (unsigned long long)dropped,
			 (unsigned long long)over);
	else if (!quiet && !vntf_writer_cut(c->w))
		vnp_log(VNPROFILE_INFO, "%llu records, none lost",
			(unsigned long long)vnp_cap_records(c));
	if (vntf_writer_cut(c->w))
		vnp_warn("%llu records written, then the profile reached its --max-size at "
			 "%llu bytes: %llu records were not written; it is complete up to there "
			 "and marked truncated", (unsigned long long)(vnp_cap_records(c) -
			 vntf_writer_cut(c->w)), (unsigned long long)vntf_writer_bytes(c->w),
			 (unsigned long long)vntf_writer_cut(c->w));
	ret = vntf_writer_finish(c->w, vnp_now_ns(CLOCK_MONOTONIC));
	c->w = NULL;
	if (ret) {
		nd_out_abort(&c->out);
		vnp_err("%s: cannot write the profile: %s", c->path, strerror(-ret));
		return ret;
	}
	ret = nd_out_commit(&c->out);
	if (ret) {
		char msg[PATH_MAX * 2 + 256];

		vnp_err("cannot write the profile: %s",
			    nd_out_strerror(&c->out, ret, msg, sizeof(msg)));
		nd_out_release(&c->out);
	}
	return ret;
}

void vnp_cap_close(struct vnp_capture *c)
{
	unsigned int i;

	if (c->w) {
		vnp_cap_stop(c);
		vntf_writer_abort(c->w);
		c->w = NULL;
	}
	nd_out_abort(&c->out);
	for (i = 0; i < c->nr_cores; i++)
		nd_trace_free(c->tr[i]);
	for (i = 0; i < VNP_CAP_MAX_CORES; i++)
		if (c->lnc != 2 || !(i & 1))	/* a second is freed with its first */
			nd_host_trace_free(c->htr[i]);
	for (i = 1; i < c->ndev; i++)
		nd_close(c->tdevs[i]);
	nd_close(c->tdev);
}
