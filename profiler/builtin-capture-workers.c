// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * capture's program form with collectives workers (docs/profiler.md, "Collectives
 * workers", "Several machines"): the program on N workers of one communicator, one core
 * each (devices filled from --device on, or host cores placed as on devices of two
 * cores), every execution queued on all of them at once, every worker's cores traced
 * into one profile; under mpirun (vneuron-profile-mpi) one node's workers of a
 * communicator spanning the nodes.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin-capture.h"

/* One worker (rank): its core, its communicator handle, its buffers. */
struct worker {
	unsigned int dev;		/* index of its device in the capture's and the run's */
	unsigned int core;
	struct nd_comm *comm;
	unsigned int nb;
	struct nd_bind *binds;
	struct nd_mem **mems;
	uint64_t id;			/* its execution in flight */
	int queued;
	struct nd_run_result res;
	/* --host: its host buffers, the thread running its execution, how that went */
	unsigned int nht;
	struct nd_host_tensor *ht;
	struct nd_host *h;
	const struct vn_program *prog;
	int ret;
};

struct wrun {
	struct vn_program *prog;
	struct vnprofile_capture *cap;
	/* the workers' device files, their numbers and cores */
	struct nd_device *dev[CAP_MAX_DEVICES];
	unsigned int ndev, devnum[CAP_MAX_DEVICES], core_count[CAP_MAX_DEVICES];
	struct nd_program *loaded[CAP_MAX_DEVICES];
	struct worker w[CAP_MAX_CORES];
	struct vnprofile_target t[CAP_MAX_CORES];	/* what is traced: each worker's core */
	unsigned int n;
	nd_comm_id id;
	int registered;
	struct nd_host_comm *hcomm;	/* --host: the host ranks' communicator */
	const struct vnp_cap_nodes *nodes;	/* hcomm spans the nodes: theirs to free */
};

/*
 * Opens /dev/vneuron<num> for running the workers, as device d of the run. 0, -ENODEV
 * (no such device; said unless quiet), or -errno (said).
 */
static int open_device(struct wrun *wr, unsigned int d, unsigned int num, int quiet)
{
	struct vneuron_info info;
	struct nd_error e;
	int ret;

	ret = nd_open(num, &wr->dev[d], &e);
	if (ret) {
		if (ret != -ENOENT || !quiet)
			cap_err("%s", e.msg);
		return ret == -ENOENT ? -ENODEV : ret;
	}
	ret = nd_info(wr->dev[d], &info);
	if (ret) {
		cap_err("%s", nd_device_error(wr->dev[d]));
		return ret;
	}
	wr->devnum[d] = num;
	wr->core_count[d] = info.core_count;
	if (d >= wr->ndev)
		wr->ndev = d + 1;
	return 0;
}

/*
 * Where the workers run: rank r on the r-th core counting from core 0 of /dev/vneuronD
 * on, device after device (each with its own core count), each a target to trace.
 * 0 or -errno (said).
 */
static int place_workers(struct wrun *wr, const struct cap_opts *o)
{
	unsigned int r, d = 0, k = 0;
	int ret;

	for (r = 0; r < o->workers; r++) {
		if (k == wr->core_count[d]) {
			/* this device is full: the next one */
			if (d + 1 == CAP_MAX_DEVICES) {
				cap_err("more than %u devices", CAP_MAX_DEVICES);
				return -E2BIG;
			}
			ret = open_device(wr, d + 1, wr->devnum[d] + 1, 1);
			if (ret == -ENODEV) {
				cap_err("%u workers need %u more core%s than /dev/vneuron%u.."
					"%u have (load the module with more devices or "
					"cores)", o->workers, o->workers - r,
					o->workers - r == 1 ? "" : "s", o->device, wr->devnum[d]);
				return -ENODEV;
			}
			if (ret)
				return ret;
			d++;
			k = 0;
		}
		wr->w[r].dev = d;
		wr->w[r].core = k;
		wr->t[r] = (struct vnprofile_target){ .device = wr->devnum[d], .core = k++ };
	}
	wr->n = o->workers;
	return 0;
}

static int nodes_comm_new(struct wrun *wr, const struct cap_opts *o, const uint32_t *dev);

/* The program on every worker's device, the communicator, each worker's buffers. */
static int workers_open(struct wrun *wr, const struct cap_opts *o)
{
	uint32_t dev[CAP_MAX_CORES];
	struct nd_load_error le;
	const void *image;
	unsigned int d, r;
	size_t size;
	int ret;

	image = cap_prog_image(wr->prog, &size);
	for (d = 0; d < wr->ndev; d++) {
		ret = nd_program_load(wr->dev[d], image, size, &wr->loaded[d], &le);
		if (ret) {
			cap_err("%s: %s", o->program, nd_device_error(wr->dev[d]));
			return -EINVAL;		/* the program is refused: bad input */
		}
	}
	if (o->nodes) {
		/* registered by MPI's proxy, which unregisters it when it ends */
		for (r = 0; r < wr->n; r++)
			dev[r] = wr->w[r].dev;
		ret = nodes_comm_new(wr, o, dev);
		if (ret)
			return ret == -EINVAL ? -EIO : ret;
	} else {
		ret = nd_comm_create(wr->dev[0], wr->n, &wr->id);
		if (ret) {
			cap_err("a communicator of %u ranks: %s", wr->n, ret == -EOPNOTSUPP ?
				    "the module has no collectives (VNEURON_CAP_COLLECTIVES)" :
				    nd_device_error(wr->dev[0]));
			return ret == -EINVAL ? -EIO : ret;
		}
		wr->registered = 1;
	}
	for (r = 0; r < wr->n; r++) {
		struct worker *w = &wr->w[r];

		ret = nd_comm_join(wr->dev[w->dev], &wr->id, o->rank_base + r, w->core,
				   &w->comm);
		if (ret) {
			cap_err("worker %u on /dev/vneuron%u core %u: %s", r, wr->devnum[w->dev],
				w->core, nd_device_error(wr->dev[w->dev]));
			return ret == -EINVAL ? -EIO : ret;
		}
		ret = cap_bind_tensors(wr->dev[w->dev], wr->prog, o, r, &w->nb, &w->binds,
				       &w->mems);
		if (ret)
			return ret == -EINVAL ? -EIO : ret;
	}
	if (wr->registered)
		nd_comm_unregister(wr->dev[0], &wr->id);
	wr->registered = 0;
	return 0;
}

/*
 * Several nodes: the communicator of this node's workers spanning every node's (MPI's
 * proxy, through o->nodes: host ranks with --host, else the module's on the first
 * device, whose id goes to wr->id), its first rank checked against the node section's.
 * 0 or -errno (said).
 */
static int nodes_comm_new(struct wrun *wr, const struct cap_opts *o, const uint32_t *dev)
{
	const struct vnp_cap_nodes *n = o->nodes;
	unsigned int first;
	int ret;

	if (o->host)
		ret = n->comm_new(n->ctx, wr->n, dev, &wr->hcomm, &first);
	else
		ret = n->comm_new_dev(n->ctx, wr->dev[0], wr->n, dev, &wr->id, &first);
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
	return 0;
}

/*
 * The communicator across nodes ends (before MPI does): 0, or the proxy's error (said:
 * a broken communicator, arguments that differ between nodes, MPI failing).
 */
static int nodes_comm_end(struct wrun *wr)
{
	unsigned int r;
	int ret;

	if (!wr->nodes)
		return 0;
	for (r = 0; r < wr->n; r++)
		if (wr->w[r].h)
			nd_host_set_comm(wr->w[r].h, NULL, 0);
	ret = wr->nodes->comm_free(wr->nodes->ctx);
	if (ret)
		cap_err("node %u: the communicator across nodes ended with an error: %s",
			    wr->nodes->node, strerror(-ret));
	wr->nodes = NULL;
	wr->hcomm = NULL;
	return ret;
}

/*
 * --host: the workers on host cores (placed as on devices of two cores, so two ranks of
 * one device exchange over the intra-device link as on the module), traced, one
 * communicator, each worker's buffers. 0 or -errno (said).
 */
static int host_workers_open(struct wrun *wr, const struct cap_opts *o)
{
	uint32_t dev[CAP_MAX_CORES];
	struct nd_error e;
	const void *image;
	unsigned int r;
	size_t size;
	int ret;

	wr->n = o->workers;
	for (r = 0; r < wr->n; r++) {
		ret = nd_host_open(NULL, &wr->w[r].h, &e);
		if (ret) {
			cap_err("%s", e.msg);
			return ret;
		}
		dev[r] = r / HOST_CORES_PER_DEVICE;
		wr->t[r] = (struct vnprofile_target){ .device = dev[r],
						      .core = r % HOST_CORES_PER_DEVICE,
						      .host = wr->w[r].h };
	}
	image = cap_prog_image(wr->prog, &size);
	ret = cap_open(o, wr->t, wr->n, VNPROFILE_CAPTURE_WORKERS, image, size, &wr->cap);
	if (ret)
		return ret;
	if (o->nodes) {
		ret = nodes_comm_new(wr, o, dev);
		if (ret)
			return ret;
	} else {
		ret = nd_host_comm_new(wr->n, dev, &wr->hcomm);
		if (ret) {
			cap_err("a host communicator of %u ranks: %s", wr->n, strerror(-ret));
			return ret;
		}
	}
	for (r = 0; r < wr->n; r++) {
		struct worker *w = &wr->w[r];

		w->prog = wr->prog;
		ret = nd_host_set_comm(w->h, wr->hcomm, o->rank_base + r) ?:
		      cap_host_tensors(wr->prog, o, r, &w->nht, &w->ht);
		if (ret)
			return ret;
	}
	return 0;
}

static void *host_worker_thread(void *arg)
{
	struct worker *w = arg;

	w->ret = cap_host_exec(w->h, w->prog, w->ht, w->nht, &w->res);
	return NULL;
}

/* --host: one execution on every worker at once, a thread each, as ranks run. */
static int host_workers_round(struct wrun *wr, unsigned int i)
{
	pthread_t thr[CAP_MAX_CORES];
	unsigned int r, started;
	int ret = 0, e;

	for (started = 0; started < wr->n; started++) {
		e = pthread_create(&thr[started], NULL, host_worker_thread, &wr->w[started]);
		if (e) {
			cap_err("execution %u: cannot start worker %u's thread: %s", i,
				    started, strerror(e));
			/* the ranks started meet nobody: a broken communicator ends them */
			ret = -e;
			break;
		}
	}
	for (r = 0; r < started; r++) {
		pthread_join(thr[r], NULL);
		if (wr->w[r].ret && !ret)
			ret = wr->w[r].ret;
	}
	return ret;
}

static void workers_free(struct wrun *wr)
{
	unsigned int r, d;

	for (r = 0; r < wr->n; r++) {
		struct worker *w = &wr->w[r];

		cap_host_tensors_free(w->ht, w->nht);
		if (w->h)
			nd_host_set_comm(w->h, NULL, 0);
		cap_unbind_tensors(w->nb, w->binds, w->mems);
		nd_comm_destroy(w->comm);
	}
	nd_host_comm_free(wr->hcomm);
	if (wr->registered)
		nd_comm_unregister(wr->dev[0], &wr->id);
	/* the trace sessions before the host cores they trace */
	vnprofile_capture_close(wr->cap);
	for (r = 0; r < wr->n; r++)
		nd_host_close(wr->w[r].h);
	for (d = 0; d < CAP_MAX_DEVICES; d++) {
		if (wr->loaded[d])
			nd_program_unload(wr->loaded[d]);
		nd_close(wr->dev[d]);
	}
	cap_prog_free(wr->prog);
}

/* "worker 2: execution 1 ended ABORTED: collective 0 (ALL_REDUCE) ... rank 1 left" */
static void worker_failed(struct wrun *wr, unsigned int r, unsigned int i,
			  const struct cap_opts *o)
{
	struct worker *w = &wr->w[r];
	char what[256];

	if (o->host)
		/* no module to ask: the status and reason */
		snprintf(what, sizeof(what), "%s (reason %u)",
			 vnprofile_exec_reason_name(w->res.reason), w->res.reason);
	else
		nd_comm_describe(w->comm, wr->loaded[w->dev], &w->res, what, sizeof(what));
	cap_err("worker %u: execution %u ended %s: %s%s", r, i,
		    vnprofile_exec_status_name(w->res.result), what,
		    o->ignore_errors ? "; going on (--ignore-exec-errors)" : "");
}

/*
 * Runs the program --num-exec times on every worker at once (each execution of a rank
 * meets the others' at its collectives), tracing all executions or the K-th of each
 * worker. A failed execution breaks the communicator, so the runs stop unless
 * --ignore-exec-errors (and then every later collective fails too). 0 or -errno (said);
 * *failed counts the workers' executions that did not end OK.
 */
static int workers_execs(struct wrun *wr, const struct cap_opts *o, unsigned int *failed)
{
	int tty = isatty(2) && !o->quiet, ret;
	uint64_t t0, last = 0;
	unsigned int i, r, bad;

	*failed = 0;
	if (!o->nth) {
		ret = vnprofile_capture_start(wr->cap);
		if (ret)
			return ret;
	}
	t0 = cap_now_ns();
	for (i = 1; i <= o->num_exec; i++) {
		if (o->nth == i) {
			ret = vnprofile_capture_start(wr->cap);
			if (ret)
				return ret;
		}
		ret = 0;
		for (r = 0; r < wr->n && !ret && !o->host; r++) {
			struct worker *w = &wr->w[r];

			ret = nd_exec(wr->loaded[w->dev], w->core, w->binds, w->nb, 0, &w->id);
			if (ret)
				cap_err("worker %u: execution %u: %s", r, i,
					    nd_device_error(wr->dev[w->dev]));
			w->queued = !ret;
		}
		if (o->host)
			ret = host_workers_round(wr, i);
		/* every queued execution is waited for, even after a failed submission */
		for (r = 0; r < wr->n; r++) {
			struct worker *w = &wr->w[r];
			int wret;

			if (!w->queued)
				continue;
			w->queued = 0;
			wret = nd_wait(wr->dev[w->dev], w->id, ND_WAIT_FOREVER, &w->res);
			if (wret && !ret) {
				cap_err("worker %u: execution %u: %s", r, i,
					    nd_device_error(wr->dev[w->dev]));
				ret = wret;
			}
		}
		if (ret)
			return ret;
		if (o->nth == i) {
			ret = vnprofile_capture_stop(wr->cap);
			if (ret)
				return ret;
		}
		for (r = 0, bad = 0; r < wr->n; r++) {
			if (wr->w[r].res.result == VNEURON_EXEC_OK)
				continue;
			if (tty && last && !bad)
				fputc('\n', stderr);
			worker_failed(wr, r, i, o);
			bad++;
		}
		*failed += bad;
		if (bad && !o->ignore_errors)
			break;
		if (tty)
			cap_progress(wr->cap, i, o->num_exec, t0, &last, 0);
		if (vnp_signalled())
			break;
	}
	if (tty)
		cap_progress(wr->cap, i > o->num_exec ? o->num_exec : i, o->num_exec, t0, &last, 1);
	return 0;
}

/*
 * Nodes on one machine (mpirun's processes standing in for nodes): the local-th takes
 * the devices after those of the nodes before it, each node as many as its workers
 * fill from --device on (devices of that one's core count). 0 or -errno (said).
 */
static int node_device(struct wrun *wr, struct cap_opts *o)
{
	unsigned int cores = wr->core_count[0];
	uint64_t first;
	int ret;

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
	nd_close(wr->dev[0]);
	wr->dev[0] = NULL;
	o->device = (unsigned int)first;
	ret = open_device(wr, 0, o->device, 0);
	if (ret != -ENODEV)
		return ret;
	cap_err("node %u, after %u other node%s on this machine: its workers take "
		"/dev/vneuron%u on, after theirs (load the module with devices for every "
		"node here)", o->nodes->node, o->nodes->local,
		o->nodes->local == 1 ? "" : "s", o->device);
	return -ENODEV;
}

/* The exit status of the program form with --collectives-worker-count. */
int cap_workers(struct cap_opts *o)
{
	struct wrun *wr = calloc(1, sizeof(*wr));
	unsigned int failed = 0;
	const void *image;
	size_t size;
	int ret, status = VNP_EXIT_SYSTEM;

	if (!wr) {
		cap_err("out of memory");
		return VNP_EXIT_SYSTEM;
	}
	ret = cap_prog_open(o->program, &wr->prog);
	if (ret) {
		status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		goto out;
	}
	ret = cap_read_inputs(wr->prog, o);
	if (ret) {
		status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		goto out;
	}
	if (o->host) {
		ret = host_workers_open(wr, o);
		if (ret)
			goto out;
		goto run;
	}
	ret = open_device(wr, 0, o->device, 0);
	if (ret) {
		cap_host_hint(o, ret);
		goto out;
	}
	if (o->nodes && o->nodes->local) {
		ret = node_device(wr, o);
		if (ret) {
			status = ret == -ERANGE ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
			goto out;
		}
	}
	ret = place_workers(wr, o);
	if (ret) {
		status = ret == -ENODEV || ret == -ERANGE ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
		goto out;
	}
	image = cap_prog_image(wr->prog, &size);
	if (cap_open(o, wr->t, wr->n, VNPROFILE_CAPTURE_WORKERS, image, size, &wr->cap))
		goto out;
	ret = workers_open(wr, o);
	if (ret) {
		status = ret == -EINVAL ? VNP_EXIT_INPUT : VNP_EXIT_SYSTEM;
		goto out;
	}
run:
	if (workers_execs(wr, o, &failed))
		goto out;
	ret = vnprofile_capture_finish(wr->cap, 0);
	status = ret ? VNP_EXIT_SYSTEM : failed ? VNP_EXIT_INPUT : VNP_EXIT_OK;
	if (!ret && vnp_signalled())
		status = cap_stopped_by_signal();
	if (failed && o->ignore_errors)
		cap_err("%u of %u executions failed", failed, o->num_exec * wr->n);
out:
	if (nodes_comm_end(wr) && status == VNP_EXIT_OK)
		status = VNP_EXIT_SYSTEM;
	cap_free_inputs(o);
	workers_free(wr);
	free(wr);
	return status;
}
