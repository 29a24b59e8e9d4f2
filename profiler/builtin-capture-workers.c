// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * capture's program form with collectives workers (docs/capture.md, "Collectives
 * workers", "Several machines"): the program on N workers of one communicator, one core
 * each (devices filled from --device on, or host cores placed as on devices of the
 * model's cores), every execution run on all of them at once, every worker's core
 * traced into one profile; under mpirun (vneuron-profile-mpi) one node's workers of a communicator
 * spanning the nodes. The workers are the ranks of libvnprog's runner (vnrun.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin-capture.h"
#include "vnrun.h"

struct wrun {
	struct vn_program *prog;
	struct cap_run cr;
	struct vnprofile_target t[CAP_MAX_CORES];	/* what is traced: each worker's core */
	uint32_t dev[CAP_MAX_CORES];	/* each worker's device, counted from its first */
	unsigned int n;
	const struct vnp_cap_nodes *nodes;	/* a communicator spanning the nodes: theirs */
};

/*
 * Nodes on one machine (mpirun's processes standing in for nodes): the local-th takes
 * the devices after those of the nodes before it, each node as many as its workers
 * fill from --device on (devices of that one's core count); the runner reopened there.
 * 0 or -errno (said).
 */
static int node_device(struct wrun *wr, struct cap_opts *o)
{
	struct vneuron_info info;
	struct nd_error e;
	unsigned int cores;
	uint64_t first;
	int ret;

	ret = nd_info(nd_runner_device(wr->cr.r, 0), &info);
	if (ret) {
		cap_err("%s", nd_device_error(nd_runner_device(wr->cr.r, 0)));
		return ret;
	}
	cores = info.core_count;
	if (!cores) {
		cap_err("/dev/vneuron%u has no cores", o->device);
		return -ENODEV;
	}
	first = o->device + (uint64_t)o->nodes->local * ((o->workers + cores - 1) / cores);
	if (first > UINT_MAX) {
		cap_err("node %u: --device %u is too high for %u nodes here", o->nodes->node,
			o->device, o->nodes->local + 1);
		return -ERANGE;
	}
	nd_runner_close(wr->cr.r);
	wr->cr.r = NULL;
	o->device = (unsigned int)first;
	ret = nd_runner_open_device(o->device, 0, &wr->cr.r, &e);
	if (ret == -ENOENT)
		cap_err("node %u, after %u other node%s on this machine: its workers take "
			"/dev/vneuron%u on, after theirs (load the module with devices for every "
			"node here)", o->nodes->node, o->nodes->local,
			o->nodes->local == 1 ? "" : "s", o->device);
	else if (ret)
		cap_err("%s", e.msg);
	return ret == -ENOENT ? -ENODEV : ret;
}

/*
 * Where the workers run: rank r on the r-th core counting from core 0 of /dev/vneuronD
 * on, device after device (each with its own core count; on the host, devices of the
 * model's cores per device, as the module's default), each a target to trace. 0 or -errno (said).
 */
static int place_workers(struct wrun *wr, const struct cap_opts *o)
{
	struct nd_runner_ranks rk = { .count = o->workers,
				      .flags = o->nodes ? ND_RANKS_NO_COMM : 0,
				      .first = o->nodes ? o->rank_base : 0 };
	struct nd_runner_place pl;
	unsigned int r;
	int ret;

	ret = nd_runner_set_ranks(wr->cr.r, &rk);
	if (ret) {
		cap_runner_err(wr->cr.r);
		return ret;
	}
	for (r = 0; r < o->workers; r++) {
		ret = nd_runner_place(wr->cr.r, r, &pl);
		if (ret)
			return ret;
		wr->t[r] = (struct vnprofile_target){ .device = pl.device, .core = pl.core,
						      .host = nd_runner_host(wr->cr.r, r) };
		wr->dev[r] = pl.device - wr->t[0].device;
	}
	wr->n = o->workers;
	return 0;
}

/*
 * Several nodes: the communicator of this node's workers spanning every node's (MPI's
 * proxy, through o->nodes: host ranks with --host, else the module's on the first
 * device), its first rank checked against the node section's, the workers its ranks.
 * 0 or -errno (said).
 */
static int nodes_comm_new(struct wrun *wr, const struct cap_opts *o)
{
	const struct vnp_cap_nodes *n = o->nodes;
	struct nd_host_comm *hcomm = NULL;
	unsigned int first;
	nd_comm_id id;
	int ret;

	if (o->host)
		ret = n->comm_new(n->ctx, wr->n, wr->dev, &hcomm, &first);
	else
		ret = n->comm_new_dev(n->ctx, nd_runner_device(wr->cr.r, 0), wr->n, wr->dev, &id,
				      &first);
	if (ret == -ECANCELED) {
		cap_err("node %u: another node failed before the workers met (its error "
			    "above); stopping", n->node);
		return ret;
	}
	if (ret) {
		cap_err("node %u: a communicator of %u workers here across %u nodes: %s",
			    n->node, wr->n, n->nr_nodes, ret == -EOPNOTSUPP ?
			    "the module has no network queue (VNEURON_CAP_NETQ)" :
			    strerror(-ret));
		return ret;
	}
	wr->nodes = n;
	if (first != o->rank_base) {
		cap_err("node %u: MPI numbers its first worker %u, the profile %u", n->node,
			    first, o->rank_base);
		return -EPROTO;
	}
	ret = o->host ? nd_runner_set_host_comm(wr->cr.r, hcomm, first) :
			nd_runner_set_comm_id(wr->cr.r, &id, first);
	if (ret)
		cap_runner_err(wr->cr.r);
	return ret;
}

/*
 * The communicator across nodes ends (before MPI does): 0, or
 * the proxy's error (said: a broken communicator, arguments that differ between nodes,
 * MPI failing).
 */
static int nodes_comm_end(struct wrun *wr)
{
	int ret;

	if (!wr->nodes)
		return 0;
	ret = wr->nodes->comm_free(wr->nodes->ctx);
	if (ret)
		cap_err("node %u: the communicator across nodes ended with an error: %s",
			    wr->nodes->node, strerror(-ret));
	wr->nodes = NULL;
	return ret;
}

/*
 * The runner on the workers' cores, the capture tracing them, the communicator, the
 * program and its inputs. 0, or -errno (said) with *status.
 */
static int workers_open(struct wrun *wr, struct cap_opts *o, int *status)
{
	struct nd_error e;
	const void *image;
	size_t size;
	int ret;

	/* a device's workers: their inputs read before the devices are touched */
	if (!o->host) {
		ret = cap_read_inputs(wr->prog, o, o->workers, o->nodes ? o->rank_base : 0, 0,
				      &wr->cr.reader, status);
		if (ret)
			return ret;
	}
	*status = VNP_EXIT_SYSTEM;
	ret = o->host ? nd_runner_open_host(o->model, &wr->cr.r, &e) :
			nd_runner_open_device(o->device, 0, &wr->cr.r, &e);
	if (ret) {
		cap_err("%s", e.msg);
		cap_host_hint(o, ret);
		return ret;
	}
	if (!o->host && o->nodes && o->nodes->local) {
		ret = node_device(wr, o);
		if (ret) {
			*status = ret == -ERANGE ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
			return ret;
		}
	}
	ret = place_workers(wr, o);
	if (ret) {
		if (!o->host && (ret == -ENODEV || ret == -ERANGE))
			*status = VNP_EXIT_USAGE;
		return ret;
	}
	/* the inputs before the nodes meet ({rank}: each worker's global rank) */
	ret = cap_load(wr->cr.r, wr->prog, o, ND_RUNNER_ALL, 0, wr->cr.reader, status);
	if (ret)
		return ret;
	*status = VNP_EXIT_SYSTEM;
	image = cap_prog_image(wr->prog, &size);
	ret = cap_open(o, wr->t, wr->n, VNPROFILE_CAPTURE_WORKERS, image, size, &wr->cr.cap);
	if (ret || !o->nodes)
		return ret;
	return nodes_comm_new(wr, o);
}

/* The exit status of the program form with --collectives-worker-count. */
int cap_workers(struct cap_opts *o)
{
	struct wrun *wr = calloc(1, sizeof(*wr));
	int ret, status = VNP_EXIT_SYSTEM;

	if (!wr) {
		cap_err("out of memory");
		return VNP_EXIT_SYSTEM;
	}
	ret = cap_prog_open(o->program, &wr->prog);
	if (!ret)
		ret = cap_check_inputs(wr->prog, o);
	if (ret) {
		status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		goto out;
	}
	if (workers_open(wr, o, &status))
		goto out;
	status = VNP_EXIT_SYSTEM;
	if (cap_run_execs(&wr->cr, o))
		goto out;
	ret = vnprofile_capture_finish(wr->cr.cap, 0);
	status = ret ? VNP_EXIT_SYSTEM : wr->cr.failed ? VNP_EXIT_INPUT : VNP_EXIT_OK;
	if (!ret && vnp_signalled())
		status = cap_stopped_by_signal();
	if (wr->cr.failed && o->ignore_errors)
		cap_err("%u of %u executions failed", wr->cr.failed, o->num_exec * wr->n);
out:
	/*
	 * The nodes' communicator first (MPI's proxy uses the runner's first device file
	 * until it ends; the ranks hold their own references), then the trace sessions
	 * before the host cores they trace.
	 */
	if (nodes_comm_end(wr) && status == VNP_EXIT_OK)
		status = VNP_EXIT_SYSTEM;
	vnprofile_capture_close(wr->cr.cap);
	nd_runner_close(wr->cr.r);
	nd_runner_close(wr->cr.reader);
	cap_prog_free(wr->prog);
	free(wr);
	return status;
}
