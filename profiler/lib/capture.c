// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libvnprofile: capture (vnprofile.h, "Capture"): trace sessions on the cores of devices
 * or on host backend handles, the drainer thread, the profile it writes and an
 * application's API log merged into it, over capture.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../capture/capture.h"
#include "../util/log.h"
#include "../vnprofile.h"

struct vnprofile_capture {
	struct vnp_capture cap;
	struct nd_trace_opts trace;
	int quiet;
	bool started, finished;
	char *path;
	char *api;			/* the API log, until merged */
	struct vnp_prog prog;		/* the program's identity */
	bool have_prog;
};

/* Every core of every device from device on (the devices that exist). */
static int open_all(struct vnp_capture *c, unsigned int device)
{
	unsigned int d;
	int idx = 0, ret;

	ret = vnp_cap_open(c, device);
	if (ret)
		return ret;
	for (d = device + 1; d < device + VNP_CAP_MAX_DEVICES && idx >= 0; d++)
		idx = vnp_cap_add_device(c, d, 1);
	if (idx < 0 && idx != -ENODEV)
		return idx;
	return vnp_cap_all_cores(c);
}

/*
 * LNC=2 device targets: each a logical core's first physical core (even), traced with
 * the next one, the profile's logical-cores section saying they are one.
 */
static int open_lnc2_cores(struct vnp_capture *c, const struct vnprofile_capture_opts *o)
{
	unsigned int core[VNP_CAP_MAX_CORES], i;
	int ret;

	if (o->flags & VNPROFILE_CAPTURE_WORKERS) {
		vnp_err("LNC=2 cores cannot be collectives workers");
		return -EINVAL;
	}
	if (o->ntargets > VNP_CAP_MAX_CORES / 2) {
		vnp_err("LNC=2: at most %u logical cores can be traced, not %u",
			VNP_CAP_MAX_CORES / 2, o->ntargets);
		return -E2BIG;
	}
	ret = vnp_cap_open(c, o->targets[0].device);
	if (ret)
		return ret;
	for (i = 0; i < o->ntargets; i++) {
		if (o->targets[i].host || o->targets[i].device != o->targets[0].device) {
			vnp_err("LNC=2: the logical cores traced are of one device");
			return -EINVAL;
		}
		if (o->targets[i].core % 2 || o->targets[i].core >= c->info.core_count - 1 ||
		    c->info.core_count < 2) {
			vnp_err("LNC=2: core %u is not a logical core's first (an even core with "
				"the next on /dev/vneuron%u, which has %u cores)",
				o->targets[i].core, c->device, c->info.core_count);
			return -EINVAL;
		}
		core[2 * i] = o->targets[i].core;
		core[2 * i + 1] = o->targets[i].core + 1;
	}
	ret = vnp_cap_cores(c, core, 2 * o->ntargets);
	if (!ret)
		c->lnc = 2;
	return ret;
}

/* The targets: device cores, or host handles. */
static int open_targets(struct vnp_capture *c, const struct vnprofile_capture_opts *o)
{
	unsigned int dev[VNP_CAP_MAX_CORES], core[VNP_CAP_MAX_CORES], i;
	struct nd_host *hosts[VNP_CAP_MAX_CORES];
	int workers = !!(o->flags & VNPROFILE_CAPTURE_WORKERS), one_device = 1, idx, ret;

	if (!o->ntargets && (o->flags & VNPROFILE_CAPTURE_LNC2)) {
		vnp_err("LNC=2: name the logical cores to trace (targets)");
		return -EINVAL;
	}
	if (!o->ntargets && (o->flags & VNPROFILE_CAPTURE_ALL_DEVICES))
		return open_all(c, o->device);
	if (!o->ntargets)
		return vnp_cap_open(c, o->device) ?: vnp_cap_cores(c, NULL, 0);
	if (o->ntargets > VNP_CAP_MAX_CORES) {
		vnp_err("at most %u cores can be traced, not %u", VNP_CAP_MAX_CORES, o->ntargets);
		return -E2BIG;
	}
	if ((o->flags & VNPROFILE_CAPTURE_LNC2) && !o->targets[0].host)
		return open_lnc2_cores(c, o);
	for (i = 0; i < o->ntargets; i++) {
		if (!o->targets[i].host != !o->targets[0].host) {
			vnp_err("host handles and device cores cannot be traced together");
			return -EINVAL;
		}
		hosts[i] = o->targets[i].host;
		dev[i] = o->targets[i].device;
		core[i] = o->targets[i].core;
		one_device &= dev[i] == dev[0];
	}
	if (o->targets[0].host)
		return vnp_cap_use_hosts(c, hosts, dev, core, o->ntargets, o->model, workers,
					 o->flags & VNPROFILE_CAPTURE_LNC2 ? 2 : 1);
	ret = vnp_cap_open(c, dev[0]);
	if (ret)
		return ret;
	if (one_device && !workers)
		return vnp_cap_cores(c, core, o->ntargets);
	for (i = 0; i < o->ntargets; i++) {
		idx = vnp_cap_add_device(c, dev[i], 0);
		if (idx < 0)
			return idx;
		dev[i] = (unsigned int)idx;
	}
	return vnp_cap_place(c, dev, core, o->ntargets, workers);
}

int vnprofile_capture_open(struct vnprofile_capture **cp, const char *path,
			   const struct vnprofile_capture_opts *opts)
{
	struct vnprofile_capture_opts o = { 0 };
	struct vnprofile_capture *c;
	char err[512];
	int ret;

	*cp = NULL;
	if (!opts || opts->sz < offsetof(struct vnprofile_capture_opts, trace) || !path ||
	    (opts->ntargets && !opts->targets) || (opts->ninputs && !opts->inputs)) {
		vnp_err("a capture needs a profile path and its options");
		return -EINVAL;
	}
	memcpy(&o, opts, opts->sz < sizeof(o) ? opts->sz : sizeof(o));
	c = calloc(1, sizeof(*c));
	if (!c || !(c->path = strdup(path))) {
		free(c);
		vnp_err("out of memory");
		return -ENOMEM;
	}
	c->quiet = !!(o.flags & VNPROFILE_CAPTURE_QUIET);
	if (o.trace)
		c->trace = *o.trace;
	if (o.program) {
		ret = vnp_prog_load(&c->prog, o.program, o.program_size, err, sizeof(err));
		if (ret) {
			vnp_err("invalid program: %s", err);
			goto fail;
		}
		c->have_prog = true;
	}
	ret = open_targets(&c->cap, &o);
	if (ret)
		goto fail;
	if (o.flags & VNPROFILE_CAPTURE_NODE) {
		c->cap.have_node = 1;
		c->cap.node = (struct vntf_node){
			.node = o.node, .nr_nodes = o.nr_nodes, .first_rank = o.first_rank,
			.ranks = o.ranks ? o.ranks : o.ntargets ? o.ntargets : 1,
			.world_size = o.world_size, .clock_offset_ns = o.clock_offset_ns,
			.clock_error_ns = o.clock_error_ns };
		gethostname(c->cap.node.hostname, sizeof(c->cap.node.hostname) - 1);
	}
	ret = vnp_cap_create(&c->cap, c->path, c->have_prog ? &c->prog : NULL, o.inputs,
			     o.ninputs, o.flags & VNPROFILE_CAPTURE_FORCE ? ND_OUT_FORCE : 0);
	if (ret)
		goto fail;
	if (o.max_bytes)
		vntf_writer_set_limit(c->cap.w, o.max_bytes);
	*cp = c;
	return 0;
fail:
	vnprofile_capture_close(c);
	return ret;
}

int vnprofile_capture_start(struct vnprofile_capture *c)
{
	int ret;

	if (c->started) {
		vnp_err("the capture has started already");
		return -EBUSY;
	}
	ret = vnp_cap_start(&c->cap, &c->trace);
	if (!ret)
		c->started = true;
	return ret;
}

int vnprofile_capture_stop(struct vnprofile_capture *c)
{
	return vnp_cap_stop(&c->cap);
}

uint64_t vnprofile_capture_records(const struct vnprofile_capture *c)
{
	return vnp_cap_records(&c->cap);
}

uint64_t vnprofile_capture_cut(const struct vnprofile_capture *c)
{
	return c->cap.w ? vntf_writer_cut(c->cap.w) : 0;
}

uint64_t vnprofile_capture_bytes(const struct vnprofile_capture *c)
{
	return c->cap.w ? vntf_writer_bytes(c->cap.w) : 0;
}

int vnprofile_capture_api_log(struct vnprofile_capture *c, const char **path)
{
	size_t n = strlen(c->path) + sizeof(".api.XXXXXX");
	int fd, ret;

	*path = NULL;
	if (c->api) {
		*path = c->api;
		return 0;
	}
	c->api = malloc(n);
	if (!c->api) {
		vnp_err("out of memory");
		return -ENOMEM;
	}
	snprintf(c->api, n, "%s.api.XXXXXX", c->path);
	if (n > PATH_MAX) {
		vnp_err("%s: the name is too long", c->path);
		ret = -ENAMETOOLONG;
		goto fail;
	}
	/* O_EXCL: nothing that is there, a file or a symlink, is truncated or followed */
	fd = mkstemp(c->api);
	if (fd < 0) {
		ret = -errno;
		vnp_err("%s: cannot create the API log next to it: %s", c->path, strerror(-ret));
		goto fail;
	}
	close(fd);
	*path = c->api;
	return 0;
fail:
	free(c->api);
	c->api = NULL;
	return ret;
}

int vnprofile_capture_finish(struct vnprofile_capture *c, pid_t pid)
{
	int ret;

	if (c->finished) {
		vnp_err("the capture is finished already");
		return -EINVAL;
	}
	ret = vnp_cap_stop(&c->cap);
	if (!ret && c->api)
		ret = vnp_cap_merge_api(&c->cap, c->api, pid);	/* and removes it */
	if (c->api) {
		unlink(c->api);
		free(c->api);
		c->api = NULL;
	}
	if (!ret)
		ret = vnp_cap_finish(&c->cap, c->quiet);
	c->finished = true;
	return ret;
}

void vnprofile_capture_close(struct vnprofile_capture *c)
{
	if (!c)
		return;
	vnp_cap_close(&c->cap);
	if (c->api)
		unlink(c->api);
	free(c->api);
	if (c->have_prog)
		vnp_prog_free(&c->prog);
	free(c->path);
	free(c);
}
