// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The runner's ranks (vnrun.h): where each runs (cores counted across devices, or host
 * cores on modeled devices), and their communicator, the runner's own (remade when it
 * broke) or the caller's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_int.h"
#include "vn_model.h"


/* ---- the communicator ---- */

/* Every rank leaves (device: its handle; host: unbound). */
void rn_comm_leave(struct nd_runner *r)
{
	unsigned int i;

	for (i = 0; r->rk && i < r->nranks; i++) {
		nd_comm_destroy(r->rk[i].comm);
		r->rk[i].comm = NULL;
		if (r->rk[i].h)
			nd_host_set_comm(r->rk[i].h, NULL, 0);
	}
	nd_host_comm_free(r->hcomm);
	r->hcomm = NULL;
}

/* Joins every rank to the communicator id (device). */
static int comm_join(struct nd_runner *r, const nd_comm_id *id)
{
	struct rn_rank *k;
	struct nd_device *dev;
	unsigned int i;
	int ret;

	for (i = 0; i < r->nranks; i++) {
		k = &r->rk[i];
		dev = r->dev[k->dev].dev;
		ret = nd_comm_join(dev, id, k->grank, k->core, &k->comm);
		if (ret)
			return rn_err(r, ret, "rank %u on /dev/vneuron%u core %u: %s", i, k->device,
				      k->core, nd_device_error(dev));
	}
	return 0;
}

/* A communicator of every rank, the runner's own. */
static int comm_make(struct nd_runner *r)
{
	uint32_t device[ND_RUNNER_MAX_RANKS];
	struct nd_device *dev0;
	nd_comm_id id;
	unsigned int i;
	int ret;

	r->comm_mine = 1;
	r->first = 0;
	if (r->host) {
		for (i = 0; i < r->nranks; i++)
			device[i] = r->rk[i].device;
		ret = nd_host_comm_new_model(r->has_model ? &r->model : NULL, r->nranks,
					     device, &r->hcomm);
		if (ret)
			return rn_err(r, ret, "a host communicator of %u ranks: %s", r->nranks,
				      nd_strerror(ret));
		for (i = 0; i < r->nranks; i++)
			nd_host_set_comm(r->rk[i].h, r->hcomm, i);
		return 0;
	}
	dev0 = r->dev[r->rk[0].dev].dev;
	ret = nd_comm_create(dev0, r->nranks, &id);
	if (ret)
		return rn_err(r, ret, "a communicator of %u ranks: %s", r->nranks,
			      ret == -EOPNOTSUPP ? "the module has no collectives "
			      "(VNEURON_CAP_COLLECTIVES)" : nd_device_error(dev0));
	ret = comm_join(r, &id);
	nd_comm_unregister(dev0, &id);
	return ret;
}

/* Before a run: a broken communicator of the runner's own is made again. */
int rn_comm_fix(struct nd_runner *r)
{
	struct nd_comm_info info;
	unsigned int i;
	int broken = 0;

	if (!r->comm_mine || (r->rank_flags & ND_RANKS_KEEP_BROKEN))
		return 0;
	if (r->host) {
		broken = r->hcomm && nd_host_comm_broken(r->hcomm);
	} else {
		for (i = 0; i < r->nranks && !broken; i++)
			broken = r->rk[i].comm && !nd_comm_info(r->rk[i].comm, &info) &&
				 info.broken;
	}
	if (!broken)
		return 0;
	rn_comm_leave(r);
	return comm_make(r);
}

int nd_runner_set_host_comm(struct nd_runner *r, struct nd_host_comm *c, unsigned int first)
{
	unsigned int i;
	int ret = 0;

	if (!r)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	if (!r->host || !c || !r->ranks_set || !(r->rank_flags & ND_RANKS_NO_COMM) ||
	    first > nd_host_comm_size(c) || r->nranks > nd_host_comm_size(c) - first) {
		ret = rn_err(r, EINVAL, "nd_runner_set_host_comm: a host runner's %u ranks set "
			     "with ND_RANKS_NO_COMM, from rank %u of a communicator of %u",
			     r->nranks, first, nd_host_comm_size(c));
		goto out;
	}
	rn_comm_leave(r);
	r->first = first;
	for (i = 0; i < r->nranks; i++) {
		r->rk[i].grank = first + i;
		nd_host_set_comm(r->rk[i].h, c, first + i);
	}
out:
	pthread_mutex_unlock(&r->lock);
	return ret;
}

int nd_runner_set_comm_id(struct nd_runner *r, const nd_comm_id *id, unsigned int first)
{
	unsigned int i;
	int ret;

	if (!r)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	if (r->host || !id || !r->ranks_set || !(r->rank_flags & ND_RANKS_NO_COMM)) {
		ret = rn_err(r, EINVAL, "nd_runner_set_comm_id: a device runner's ranks set with "
			     "ND_RANKS_NO_COMM");
		goto out;
	}
	rn_comm_leave(r);
	r->first = first;
	for (i = 0; i < r->nranks; i++)
		r->rk[i].grank = first + i;
	ret = comm_join(r, id);
	if (ret)
		rn_comm_leave(r);
out:
	pthread_mutex_unlock(&r->lock);
	return ret;
}

/* ---- ranks ---- */

/*
 * Where each rank goes (device): explicit, or counting cores from rank 0's. Opens the
 * devices. -ENODEV, -ERANGE (said).
 */
static int place(struct nd_runner *r, const struct nd_runner_ranks *rk, struct rn_rank *nk)
{
	unsigned int i, di = r->rk[0].dev, core = r->rk[0].core, cores;
	struct nd_error e;
	int ret;

	cores = rk->cores_per_device ? rk->cores_per_device : r->dev[di].cores;
	for (i = 0; i < rk->count; i++) {
		if (rk->device) {
			ret = rn_dev_find(r, rk->device[i], &di, &e);
			if (ret)
				return rn_err(r, ret, "rank %u: %s", i, e.msg);
			core = rk->core[i];
		} else if (core >= cores) {
			unsigned int next = r->dev[di].index + 1;

			ret = rn_dev_find(r, next, &di, &e);
			if (ret == -ENOENT)
				return rn_err(r, ENODEV, "%u ranks need %u more core%s than "
					      "/dev/vneuron%u..%u have (load the module with more "
					      "devices or cores)", rk->count, rk->count - i,
					      rk->count - i == 1 ? "" : "s", r->rk[0].device,
					      next - 1);
			if (ret)
				return rn_err(r, ret, "rank %u: %s", i, e.msg);
			cores = rk->cores_per_device ? rk->cores_per_device : r->dev[di].cores;
			core = 0;
		}
		if (core >= r->dev[di].cores)
			return rn_err(r, ERANGE, "rank %u: core %u: /dev/vneuron%u has %u cores", i,
				      core, r->dev[di].index, r->dev[di].cores);
		nk[i].dev = di;
		nk[i].device = r->dev[di].index;
		nk[i].core = core++;
	}
	return 0;
}

int nd_runner_set_ranks(struct nd_runner *r, const struct nd_runner_ranks *rk)
{
	unsigned int i, cpd;
	struct rn_rank *nk;
	struct nd_error e;
	int ret;

	if (!r)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	if (r->vp || r->ranks_set) {
		ret = rn_err(r, EBUSY, "set the ranks once, before loading a program");
		goto out;
	}
	if (r->lnc > 1) {
		ret = rn_err(r, EINVAL, "ranks: a logical core (LNC=2) runs one rank");
		goto out;
	}
	if (!rk || !rk->count || rk->count > ND_RUNNER_MAX_RANKS || !rk->device != !rk->core ||
	    (rk->flags & ~(ND_RANKS_NO_COMM | ND_RANKS_KEEP_BROKEN)) ||
	    (rk->first && !(rk->flags & ND_RANKS_NO_COMM)) ||
	    rk->first > UINT_MAX - rk->count) {
		ret = rn_err(r, EINVAL, "ranks: 1..%d, explicit devices and cores both or "
			     "neither, flags ND_RANKS_*, a first rank only with ND_RANKS_NO_COMM",
			     ND_RUNNER_MAX_RANKS);
		goto out;
	}
	nk = calloc(rk->count, sizeof(*nk));
	if (!nk) {
		ret = rn_err(r, ENOMEM, "out of memory");
		goto out;
	}
	nk[0] = r->rk[0];
	if (r->host) {
		/* host ranks to a modeled device: the model's cores, as the module's default */
		cpd = rk->cores_per_device ? rk->cores_per_device :
		      vn_model_gen(r->has_model ? &r->model : NULL)->cores_per_device;
		for (i = 0, ret = 0; i < rk->count && !ret; i++) {
			nk[i].device = rk->device ? rk->device[i] : i / cpd;
			nk[i].core = rk->core ? rk->core[i] : i % cpd;
			if (i && (ret = nd_host_open(r->has_model ? &r->model : NULL, &nk[i].h, &e)))
				rn_err(r, ret, "host core of rank %u: %s", i, e.msg);
			else if (i)
				nd_host_set_stop(nk[i].h, rn_host_stop, r);
		}
	} else {
		ret = place(r, rk, nk);
	}
	if (ret) {
		for (i = 1; i < rk->count; i++)
			nd_host_close(nk[i].h);
		free(nk);
		goto out;
	}
	for (i = 0; i < rk->count; i++) {
		nk[i].r = r;
		nk[i].idx = i;
		nk[i].grank = rk->first + i;
	}
	r->first = rk->first;
	free(r->rk);
	r->rk = nk;
	__atomic_store_n(&r->nranks, rk->count, __ATOMIC_RELEASE);
	r->ranks_set = 1;
	r->rank_flags = rk->flags;
	if (!r->host)
		snprintf(r->where, sizeof(r->where), "/dev/vneuron%u core %u", nk[0].device,
			 nk[0].core);
	ret = rk->flags & ND_RANKS_NO_COMM ? 0 : comm_make(r);
out:
	pthread_mutex_unlock(&r->lock);
	return ret;
}

unsigned int nd_runner_ranks(const struct nd_runner *r)
{
	/* set once, before a program: the count a caller sees never changes after */
	return r ? __atomic_load_n(&r->nranks, __ATOMIC_ACQUIRE) : 0;
}

int nd_runner_place(struct nd_runner *r, unsigned int rank, struct nd_runner_place *pl)
{
	int ret = -EINVAL;

	if (!r || !pl)
		return ret;
	pthread_mutex_lock(&r->lock);
	if (rank < r->nranks) {
		*pl = (struct nd_runner_place){ .device = r->rk[rank].device,
						.core = r->rk[rank].core,
						.rank = r->rk[rank].grank };
		ret = 0;
	}
	pthread_mutex_unlock(&r->lock);
	return ret;
}

struct nd_host *nd_runner_host(struct nd_runner *r, unsigned int rank)
{
	struct nd_host *h = NULL;

	if (!r)
		return NULL;
	pthread_mutex_lock(&r->lock);
	if (rank < r->nranks)
		h = r->rk[rank].h;
	pthread_mutex_unlock(&r->lock);
	return h;
}

struct nd_device *nd_runner_device(struct nd_runner *r, unsigned int rank)
{
	struct nd_device *dev = NULL;

	if (!r)
		return NULL;
	pthread_mutex_lock(&r->lock);
	if (!r->host && rank < r->nranks)
		dev = r->dev[r->rk[rank].dev].dev;
	pthread_mutex_unlock(&r->lock);
	return dev;
}
