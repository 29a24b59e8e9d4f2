// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The program runner (vnrun.h): a program on the ranks of a device or of the host
 * backend, run n times. This file: the handle, its ranks and communicator, the program,
 * the runs and cancellation; the bindings are run_bind.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run_int.h"
#include "vn_model.h"

#define RN_POLL_NS	10000000ull	/* a device wait looks at the cancel flag this often */
#define RN_INTR		"interrupted (nd_runner_cancel())"

int rn_err(struct nd_runner *r, int code, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&r->err_lock);
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&r->err_lock);
	return code < 0 ? code : -code;
}

const char *rn_shape(char *buf, size_t len, const uint64_t *shape, unsigned int rank)
{
	size_t n = 0;
	unsigned int i;

	n += (size_t)snprintf(buf, len, "[");
	for (i = 0; i < rank && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%llu", i ? ", " : "",
				      (unsigned long long)shape[i]);
	if (n < len)
		snprintf(buf + n, len - n, "]");
	return buf;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

const char *nd_runner_error(const struct nd_runner *r)
{
	return r ? r->err : "no runner";
}

void nd_runner_error_copy(struct nd_runner *r, char *buf, size_t len)
{
	if (!buf || !len)
		return;
	if (!r) {
		snprintf(buf, len, "no runner");
		return;
	}
	pthread_mutex_lock(&r->err_lock);
	snprintf(buf, len, "%s", r->err);
	pthread_mutex_unlock(&r->err_lock);
}

const char *nd_runner_where(const struct nd_runner *r)
{
	return r ? r->where : "";
}

int nd_runner_is_host(const struct nd_runner *r)
{
	return r && r->host;
}

static void rn_host_where(struct nd_runner *r);
static int rn_dev_set_lnc(struct nd_runner *r, unsigned int lnc);

int nd_runner_set_lnc(struct nd_runner *r, unsigned int lnc)
{
	int ret = 0;

	if (!r)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	if (r->vp || r->ranks_set || r->nranks > 1)
		ret = rn_err(r, EBUSY, "set LNC before loading a program or setting ranks");
	else if (lnc != 1 && lnc != 2)
		ret = rn_err(r, EINVAL, "LNC=%u: a logical core is 1 or 2 physical cores", lnc);
	else if (!r->host)
		ret = rn_dev_set_lnc(r, lnc);
	else if (lnc > vn_model_gen(r->has_model ? &r->model : NULL)->lnc)
		ret = rn_err(r, EINVAL, "LNC=%u: model %.16s has no logical cores (LNC=2 needs "
			     "trn2 or trn3)", lnc, r->has_model ? r->model.name : "trn1");
	else if (r->rk && (ret = nd_host_set_lnc(r->rk[0].h, lnc)))
		rn_err(r, -ret, "%s", nd_host_error(r->rk[0].h));
	else
		r->lnc = lnc;
	if (!ret && r->rk && r->host)
		rn_host_where(r);
	pthread_mutex_unlock(&r->lock);
	return ret;
}

void nd_runner_set_limit(struct nd_runner *r, uint64_t limit_ns)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->limit_ns = limit_ns;
	pthread_mutex_unlock(&r->lock);
}

void nd_runner_set_each(struct nd_runner *r, nd_runner_each_fn fn, void *arg)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->each = fn;
	r->each_arg = arg;
	pthread_mutex_unlock(&r->lock);
}

void nd_runner_set_wait(struct nd_runner *r, nd_runner_wait_fn fn, void *arg)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->wait = fn;
	r->wait_arg = arg;
	pthread_mutex_unlock(&r->lock);
}

void nd_runner_cancel(struct nd_runner *r)
{
	if (r)
		__atomic_store_n(&r->cancel, 1, __ATOMIC_SEQ_CST);
}

/*
 * The host core's wait asks this first, then every few milliseconds (nd_host_set_stop());
 * a device's wait alike (exec_device()).
 */
int rn_host_stop(void *arg)
{
	struct nd_runner *r = arg;

	if (r->wait_due) {
		r->wait_due = 0;	/* once: LNC=2 waits for two executions */
		r->wait(r->wait_arg);
	}
	return __atomic_load_n(&r->cancel, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&r->stop, __ATOMIC_ACQUIRE);
}

/* ---- opening ---- */

static struct nd_runner *runner_new(void)
{
	struct nd_runner *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	pthread_mutex_init(&r->lock, NULL);
	pthread_mutex_init(&r->err_lock, NULL);
	return r;
}

int rn_dev_find(struct nd_runner *r, unsigned int index, unsigned int *di,
		    struct nd_error *e)
{
	struct vneuron_info info;
	struct rn_dev *d;
	unsigned int i;
	int ret;

	for (i = 0; i < r->ndev; i++) {
		if (r->dev[i].index == index) {
			*di = i;
			return 0;
		}
	}
	if (r->ndev == ND_RUNNER_MAX_RANKS)
		return nd_seterr(e, E2BIG, "more than %d devices", ND_RUNNER_MAX_RANKS);
	d = &r->dev[r->ndev];
	ret = nd_open(index, &d->dev, e);
	if (ret)
		return ret;
	ret = nd_info(d->dev, &info);
	if (ret) {
		nd_seterr(e, ret, "%s", nd_device_error(d->dev));
		nd_close(d->dev);
		d->dev = NULL;
		return ret;
	}
	d->index = index;
	d->cores = info.core_count;
	*di = r->ndev++;
	return 0;
}

/* "/dev/vneuron0 core 1", or with LNC=2 "/dev/vneuron0 logical core 2 (cores 2, 3)". */
static void rn_dev_where(struct nd_runner *r)
{
	const struct rn_rank *k = &r->rk[0];

	if (r->lnc > 1)
		snprintf(r->where, sizeof(r->where), "/dev/vneuron%u logical core %u (cores %u, "
			 "%u)", k->device, k->core, k->core, k->core + 1);
	else
		snprintf(r->where, sizeof(r->where), "/dev/vneuron%u core %u", k->device,
			 k->core);
}

/*
 * A device runner's LNC: the device handle's (nd_set_lnc(), a borrowed one's too), rank
 * 0's core a logical core's first. Called with r->lock held.
 */
static int rn_dev_set_lnc(struct nd_runner *r, unsigned int lnc)
{
	const struct rn_rank *k = &r->rk[0];
	const struct rn_dev *d = &r->dev[k->dev];
	int ret;

	if (lnc == 2 && (k->core % 2 || k->core + 1 >= d->cores))
		return rn_err(r, EINVAL, "LNC=2: core %u of /dev/vneuron%u is not a logical "
			      "core's first (an even core with the next on the device, which has "
			      "%u cores)", k->core, d->index, d->cores);
	ret = nd_set_lnc(d->dev, lnc);
	if (ret)
		return rn_err(r, -ret, "/dev/vneuron%u: %s", d->index, nd_device_error(d->dev));
	r->lnc = lnc;
	rn_dev_where(r);
	return 0;
}

/* A chosen model and LNC are named: "the host backend (trn2, LNC=2)". */
static void rn_host_where(struct nd_runner *r)
{
	snprintf(r->where, sizeof(r->where), "the host backend%s%.16s%s%s",
		 r->has_model || r->lnc > 1 ? " (" : "", r->has_model ? r->model.name : "",
		 r->lnc > 1 ? (r->has_model ? ", LNC=2" : "LNC=2") : "",
		 r->has_model || r->lnc > 1 ? ")" : "");
}

/* Rank 0 alone, on core `core` of device di (device) or a host core. */
static int rank0(struct nd_runner *r, unsigned int di, unsigned int core, struct nd_error *e)
{
	struct rn_rank *k;
	int ret;

	r->rk = calloc(1, sizeof(*r->rk));
	if (!r->rk)
		return nd_seterr(e, ENOMEM, "out of memory");
	r->nranks = 1;
	k = &r->rk[0];
	k->r = r;
	if (r->host) {
		ret = nd_host_open(r->has_model ? &r->model : NULL, &k->h, e);
		if (ret)
			return ret;
		nd_host_set_stop(k->h, rn_host_stop, r);
		if (r->lnc > 1 && (ret = nd_host_set_lnc(k->h, r->lnc)))
			return nd_seterr(e, ret, "%s", nd_host_error(k->h));
		rn_host_where(r);
		return 0;
	}
	if (core >= r->dev[di].cores)
		return nd_seterr(e, ERANGE, "core %u: /dev/vneuron%u has %u cores", core,
				 r->dev[di].index, r->dev[di].cores);
	k->dev = di;
	k->device = r->dev[di].index;
	k->core = core;
	/* a borrowed handle's launches may be logical already (nd_set_lnc()) */
	r->lnc = nd_lnc(r->dev[di].dev);
	rn_dev_where(r);
	return 0;
}

static int opened(struct nd_runner *r, int ret, struct nd_runner **rp)
{
	if (ret) {
		nd_runner_close(r);
		return ret;
	}
	*rp = r;
	return 0;
}

int nd_runner_open_device(unsigned int device, unsigned int core, struct nd_runner **rp,
			  struct nd_error *err)
{
	struct nd_runner *r;
	unsigned int di;
	int ret;

	if (!rp)
		return nd_seterr(err, EINVAL, "nd_runner_open_device: rp is NULL");
	*rp = NULL;
	r = runner_new();
	if (!r)
		return nd_seterr(err, ENOMEM, "out of memory");
	ret = rn_dev_find(r, device, &di, err);
	if (!ret)
		ret = rank0(r, di, core, err);
	return opened(r, ret, rp);
}

int nd_runner_open_dev(struct nd_device *dev, unsigned int core, struct nd_runner **rp,
		       struct nd_error *err)
{
	struct vneuron_info info;
	struct nd_runner *r;
	int ret;

	if (!rp || !dev)
		return nd_seterr(err, EINVAL, "nd_runner_open_dev: no device or no rp");
	*rp = NULL;
	ret = nd_info(dev, &info);
	if (ret)
		return nd_seterr(err, ret, "%s", nd_device_error(dev));
	r = runner_new();
	if (!r)
		return nd_seterr(err, ENOMEM, "out of memory");
	r->dev[0] = (struct rn_dev){ .index = info.device_index, .dev = dev, .borrowed = 1,
				     .cores = info.core_count };
	r->ndev = 1;
	return opened(r, rank0(r, 0, core, err), rp);
}

int nd_runner_open_host(const struct vneuron_model *m, struct nd_runner **rp,
			struct nd_error *err)
{
	struct nd_runner *r;

	if (!rp)
		return nd_seterr(err, EINVAL, "nd_runner_open_host: rp is NULL");
	*rp = NULL;
	r = runner_new();
	if (!r)
		return nd_seterr(err, ENOMEM, "out of memory");
	r->host = 1;
	if (m) {
		r->model = *m;
		r->has_model = 1;
	}
	return opened(r, rank0(r, 0, 0, err), rp);
}

/* ---- the program ---- */

static void unload(struct nd_runner *r)
{
	unsigned int i;

	for (i = 0; r->rk && i < r->nranks; i++)
		rn_bind_free(r, &r->rk[i]);
	for (i = 0; i < r->ndev; i++) {
		if (r->dev[i].prog)
			nd_program_unload(r->dev[i].prog);
		r->dev[i].prog = NULL;
	}
	if (r->vp)
		vn_program_put(r->vp);
	r->vp = NULL;
	free(r->image);
	free(r->name);
	free(r->path);
	r->image = NULL;
	r->name = NULL;
	r->path = NULL;
	r->size = 0;
}

void nd_runner_unload(struct nd_runner *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	unload(r);
	pthread_mutex_unlock(&r->lock);
}

/* Validates and loads image (the runner takes it), named name in messages. */
static int load(struct nd_runner *r, void *image, size_t size, const char *name,
		const char *path, struct nd_load_error *le)
{
	const struct vnef_header *hd = image;
	struct vn_prog_error pe = { 0 };
	struct nd_load_error dle;
	struct vn_program *vp;
	unsigned int i, k;
	int ret;

	ret = vn_program_load(image, size, &vp, &pe);
	if (ret) {
		char where[64] = "";

		if (le)
			*le = (struct nd_load_error){ .check = pe.check, .section = pe.section,
						      .index = pe.index };
		if (le && pe.msg)
			snprintf(le->msg, sizeof(le->msg), "%s", pe.msg);
		free(image);
		if (ret == -ENOMEM)
			return rn_err(r, ret, "out of memory loading %s", name ? name : "the program");
		if (pe.section != ~0u)
			snprintf(where, sizeof(where), " (section %u, entry %d)", pe.section,
				 (int)pe.index);
		return rn_err(r, ret, "%s: refused by the validator: %s check: %s%s",
			      name ? name : "the program", vn_check_name(pe.check),
			      pe.msg ? pe.msg : "", where);
	}
	unload(r);
	r->vp = vp;
	r->image = image;
	r->size = size;
	r->name = strdup(name ? name : vn_program_str(vp, hd->name_off));
	r->path = path ? strdup(path) : NULL;
	if (!r->name || (path && !r->path)) {
		unload(r);
		return rn_err(r, ENOMEM, "out of memory");
	}
	for (i = 0; i < r->nranks; i++) {
		r->rk[i].b = calloc(vp->tensor_count + 1, sizeof(*r->rk[i].b));
		if (!r->rk[i].b) {
			unload(r);
			return rn_err(r, ENOMEM, "out of memory");
		}
	}
	for (i = 0; !r->host && i < r->ndev; i++) {
		for (k = 0; k < r->nranks && r->rk[k].dev != i; k++)
			;
		if (k == r->nranks)
			continue;	/* no rank of ours on it */
		ret = nd_program_load(r->dev[i].dev, image, size, &r->dev[i].prog, &dle);
		if (ret) {
			if (le)
				*le = dle;
			ret = rn_err(r, ret, "%s: %s", r->name, nd_device_error(r->dev[i].dev));
			unload(r);
			return ret;
		}
	}
	return 0;
}

int nd_runner_load_file(struct nd_runner *r, const char *path, struct nd_load_error *le)
{
	struct nd_error e = { 0 };
	void *image;
	size_t size;
	int ret;

	if (le)
		memset(le, 0, sizeof(*le));
	if (!r || !path)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	ret = nd_vnef_read(path, &image, &size, &e);
	if (ret)
		rn_err(r, ret, "%s", e.msg);
	else
		ret = load(r, image, size, path, path, le);
	pthread_mutex_unlock(&r->lock);
	return ret;
}

int nd_runner_load_image(struct nd_runner *r, const void *image, size_t size,
			 const char *name, struct nd_load_error *le)
{
	void *copy;
	int ret;

	if (le)
		memset(le, 0, sizeof(*le));
	if (!r)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	if (!image || size < sizeof(struct vnef_header)) {
		ret = rn_err(r, EINVAL, "%s: %zu bytes is not a .vnef image", name ? name :
			     "the image", image ? size : 0);
	} else if (!(copy = malloc(size))) {
		ret = rn_err(r, ENOMEM, "out of memory");
	} else {
		memcpy(copy, image, size);
		ret = load(r, copy, size, name, NULL, le);
	}
	pthread_mutex_unlock(&r->lock);
	return ret;
}

const void *nd_runner_image(struct nd_runner *r, size_t *sizep)
{
	const void *image = NULL;

	if (sizep)
		*sizep = 0;
	if (!r)
		return NULL;
	pthread_mutex_lock(&r->lock);
	image = r->image;
	if (sizep)
		*sizep = r->size;
	pthread_mutex_unlock(&r->lock);
	return image;
}

int nd_runner_tensor_count(struct nd_runner *r)
{
	int n;

	if (!r)
		return -ENOENT;
	pthread_mutex_lock(&r->lock);
	n = r->vp ? (int)r->vp->tensor_count : -ENOENT;
	pthread_mutex_unlock(&r->lock);
	return n;
}

int nd_runner_tensor(struct nd_runner *r, unsigned int i, struct nd_runner_tensor *t)
{
	int ret;

	if (!r)
		return -ENOENT;
	pthread_mutex_lock(&r->lock);
	ret = rn_tensor_info(r, i, t);
	pthread_mutex_unlock(&r->lock);
	return ret;
}

int rn_tensor_info(struct nd_runner *r, unsigned int i, struct nd_runner_tensor *t)
{
	const struct vnef_tensor *vt;
	unsigned int d;

	if (!r->vp)
		return -ENOENT;
	if (i >= r->vp->tensor_count || !t)
		return -EINVAL;
	vt = rn_tensor(r, i);
	*t = (struct nd_runner_tensor){ .name = rn_tensor_name(r, i), .index = i,
					.kind = vt->kind, .dtype = vt->dtype, .rank = vt->rank,
					.elements = 1, .bytes = vt->size };
	for (d = 0; d < vt->rank && d < VNEF_MAX_RANK; d++) {
		t->shape[d] = vt->shape[d];
		t->elements *= vt->shape[d];
	}
	return 0;
}

/* ---- runs ---- */

/* An execution ended early by the runner: cancelled, or stopped for another rank. */
static int stop_err(struct nd_runner *r)
{
	return __atomic_load_n(&r->cancel, __ATOMIC_ACQUIRE) ? -EINTR : -ECANCELED;
}

/* Ends what this process runs on rank k's device file: the module cancels by file. */
static void dev_flush(struct nd_device *dev)
{
	int fd = fcntl(nd_device_fd(dev), F_DUPFD_CLOEXEC, 0);

	if (fd >= 0)
		close(fd);	/* the file's flush: this process's executions end CANCEL */
}

/* One execution on a device's core: submitted, then waited for a slice at a time. */
static void exec_device(struct nd_runner *r, struct rn_rank *k, struct nd_runner_exec *x)
{
	struct rn_dev *d = &r->dev[k->dev];
	uint64_t id, t0 = now_ns();
	int ret, flushed = 0;

	ret = nd_exec(d->prog, k->core, k->db, k->nt, r->limit_ns, &id);
	if (ret) {
		k->fail = ret;
		nd_device_error_copy(d->dev, k->msg, sizeof(k->msg));
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
		return;
	}
	for (;;) {
		if (!flushed && rn_host_stop(r)) {
			dev_flush(d->dev);
			flushed = 1;
		}
		ret = nd_wait(d->dev, id, now_ns() + RN_POLL_NS, &x->res);
		if (!ret)
			break;
		if (ret != -ETIMEDOUT && ret != -EINTR) {
			k->fail = ret;
			nd_device_error_copy(d->dev, k->msg, sizeof(k->msg));
			__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
			dev_flush(d->dev);	/* nothing of ours may run on unwaited */
			return;
		}
	}
	x->wall_ns = now_ns() - t0;
	x->done = 1;
	x->err = x->res.result == VNEURON_EXEC_OK ? 0 : -nd_run_errno(&x->res);
	if (flushed && x->res.result == VNEURON_EXEC_ABORTED)
		x->err = stop_err(r);
}

static void exec_host(struct nd_runner *r, struct rn_rank *k, struct nd_runner_exec *x)
{
	uint64_t t0 = now_ns();
	int ret;

	ret = nd_host_run(k->h, r->image, r->size, k->ht, k->nt, r->limit_ns, &x->res);
	x->wall_ns = now_ns() - t0;
	if (ret && x->res.result == VNEURON_EXEC_OK && ret != -EINTR) {
		/* it could not run: the handle says why */
		k->fail = ret;
		snprintf(k->msg, sizeof(k->msg), "%s", nd_host_error(k->h));
		__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
		return;
	}
	x->done = 1;
	x->err = ret == -EINTR ? stop_err(r) : ret;
}

static void exec_rank(struct rn_rank *k)
{
	struct nd_runner *r = k->r;

	k->fail = 0;
	memset(&k->last, 0, sizeof(k->last));
	/* one rank runs on the caller's thread (round_all()), where the function is called */
	if (r->nranks == 1)
		r->wait_due = r->wait != NULL;
	if (r->host)
		exec_host(r, k, &k->last);
	else
		exec_device(r, k, &k->last);
	if (r->nranks == 1)
		r->wait_due = 0;	/* not submitted: not called */
}

static void *rank_thread(void *arg)
{
	struct rn_rank *k = arg;
	char range[32];

	/* each rank's executions under its own range (ranges are per thread) */
	snprintf(range, sizeof(range), "rank %u", k->idx);
	nd_range_push(range);
	exec_rank(k);
	nd_range_pop();
	return NULL;
}

/* One execution on every rank at once. 0, or -errno for a thread that would not start. */
static int round_all(struct nd_runner *r)
{
	pthread_t th[ND_RUNNER_MAX_RANKS];
	unsigned int i, started;
	int e = 0;

	if (r->nranks == 1) {
		exec_rank(&r->rk[0]);
		return 0;
	}
	for (started = 0; started < r->nranks; started++) {
		e = pthread_create(&th[started], NULL, rank_thread, &r->rk[started]);
		if (e) {
			/* the ranks started meet nobody: stop them */
			__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
			break;
		}
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	if (e)
		return rn_err(r, e, "cannot start a thread for rank %u: %s", started,
			      strerror(e));
	return 0;
}

static const char *describe(struct nd_runner *r, unsigned int rank,
			    const struct nd_runner_exec *x, char *buf, size_t len)
{
	struct rn_rank *k;

	if (!x || rank >= r->nranks) {
		snprintf(buf, len, "no such execution");
		return buf;
	}
	k = &r->rk[rank];
	if (x->err == -EINTR)
		snprintf(buf, len, RN_INTR);
	else if (!x->done)
		snprintf(buf, len, "not run");
	else if (!r->host && k->comm && x->res.result != VNEURON_EXEC_OK)
		nd_comm_describe(k->comm, r->dev[k->dev].prog, &x->res, buf, len);
	else if (x->res.result == VNEURON_EXEC_OK)
		snprintf(buf, len, "ok");
	else
		nd_run_describe(&x->res, buf, len);
	return buf;
}

/* The runner whose each function runs on this thread (its lock held): it may describe. */
static __thread const struct nd_runner *rn_in_each;

const char *nd_runner_describe(struct nd_runner *r, unsigned int rank,
			       const struct nd_runner_exec *x, char *buf, size_t len)
{
	if (!buf || !len)
		return buf;
	if (!r) {
		snprintf(buf, len, "no such execution");
		return buf;
	}
	if (rn_in_each == r) {
		describe(r, rank, x, buf, len);
		return buf;
	}
	pthread_mutex_lock(&r->lock);
	describe(r, rank, x, buf, len);
	pthread_mutex_unlock(&r->lock);
	return buf;
}

/*
 * The failure of this execution to report: a rank that could not run, else the first
 * failed rank that was not only ended by another's failure (CC_PEER). -1 if none.
 */
static int first_failure(struct nd_runner *r)
{
	int peer = -1;
	unsigned int i;

	for (i = 0; i < r->nranks; i++)
		if (r->rk[i].fail)
			return (int)i;
	for (i = 0; i < r->nranks; i++) {
		const struct nd_runner_exec *x = &r->rk[i].last;

		if (!x->err)
			continue;
		if (x->res.reason != VNEURON_REASON_CC_PEER || x->err == -EINTR)
			return (int)i;
		if (peer < 0)
			peer = (int)i;
	}
	return peer;
}

/* Says what failed in execution `exec` (from 1) and returns its -errno. */
static int say_failure(struct nd_runner *r, unsigned int idx, unsigned int exec)
{
	struct rn_rank *k = &r->rk[idx];
	char who[32] = "", what[ND_ERRMSG_MAX];

	if (r->nranks > 1)
		snprintf(who, sizeof(who), "rank %u: ", idx);
	if (k->fail)
		return rn_err(r, k->fail, "%sexecution %u: %s", who, exec, k->msg);
	describe(r, idx, &k->last, what, sizeof(what));
	return rn_err(r, k->last.err, "%sexecution %u: %s", who, exec, what);
}

int nd_runner_run(struct nd_runner *r, unsigned int n, unsigned int flags,
		  struct nd_runner_exec *x)
{
	struct nd_runner_exec *own = NULL;
	unsigned int i, j;
	int ret = 0, f, intr = 0;

	if (!r)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	if (x && n)
		memset(x, 0, sizeof(*x) * n * r->nranks);
	if (!r->vp) {
		ret = rn_err(r, ENOENT, "no program loaded");
		goto out;
	}
	if (!n || (flags & ~ND_RUN_KEEP_GOING)) {
		ret = rn_err(r, EINVAL, "nd_runner_run: %u executions, flags %#x", n, flags);
		goto out;
	}
	ret = rn_comm_fix(r);
	if (!ret)
		ret = rn_bind_prepare(r);
	if (ret)
		goto out;
	if (r->each && !x) {
		/* the function's view of each execution */
		own = calloc(r->nranks, sizeof(*own));
		if (!own) {
			ret = rn_err(r, ENOMEM, "out of memory");
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		__atomic_store_n(&r->stop, 0, __ATOMIC_RELEASE);
		if (__atomic_load_n(&r->cancel, __ATOMIC_ACQUIRE)) {
			intr = 1;
			break;
		}
		ret = round_all(r);
		if (ret)
			break;
		for (j = 0; j < r->nranks; j++) {
			if (x)
				x[i * r->nranks + j] = r->rk[j].last;
			if (own)
				own[j] = r->rk[j].last;
			if (r->rk[j].last.err == -EINTR)
				intr = 1;
		}
		f = first_failure(r);
		if (f >= 0 && !ret)
			ret = say_failure(r, (unsigned int)f, i + 1);
		if (intr || (f >= 0 && r->rk[f].fail))
			break;
		if (r->each) {
			rn_in_each = r;
			f = r->each(r->each_arg, i + 1, own ? own : &x[i * r->nranks], r->nranks);
			rn_in_each = NULL;
			if (f)
				break;
			f = first_failure(r);
		}
		if (f >= 0 && !(flags & ND_RUN_KEEP_GOING))
			break;
	}
	if (intr)
		ret = rn_err(r, EINTR, RN_INTR);
	else if (!ret)
		ret = rn_bind_finish(r);
out:
	/* the run consumes a cancel, whether it came in time or not */
	__atomic_store_n(&r->cancel, 0, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&r->lock);
	free(own);
	return ret;
}

int nd_runner_result(struct nd_runner *r, unsigned int rank, struct nd_runner_exec *x)
{
	if (!r || !x || rank >= r->nranks)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	*x = r->rk[rank].last;
	pthread_mutex_unlock(&r->lock);
	return 0;
}

void nd_runner_close(struct nd_runner *r)
{
	unsigned int i;

	if (!r)
		return;
	unload(r);
	rn_comm_leave(r);
	for (i = 0; r->rk && i < r->nranks; i++)
		nd_host_close(r->rk[i].h);
	for (i = 0; i < r->ndev; i++)
		if (!r->dev[i].borrowed)
			nd_close(r->dev[i].dev);
	free(r->rk);
	pthread_mutex_destroy(&r->lock);
	pthread_mutex_destroy(&r->err_lock);
	free(r);
}
