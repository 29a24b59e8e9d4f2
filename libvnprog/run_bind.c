// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The runner's bindings (vnrun.h): what each tensor of each rank is (the caller's
 * buffer, an input file, zeros, the runner's own buffer, an output file), the device
 * buffers behind them, and the output files written after a run (outfile.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run_int.h"

#define RANK_TAG	"{rank}"
#define CHUNK		65536u		/* elements converted at a time for an output file */

static void blob_put(struct rn_blob *b)
{
	if (b && !--b->refs) {
		free(b->data);
		free(b);
	}
}

static struct rn_blob *blob_new(void *data, uint64_t size)
{
	struct rn_blob *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->refs = 1;
	b->data = data;
	b->size = size;
	return b;
}

/* What the binding held goes; the runner's buffers stay (own, mem). */
static void unbind(struct rn_bind *b)
{
	blob_put(b->blob);
	free(b->path);
	b->blob = NULL;
	b->path = NULL;
	b->user = NULL;
	b->user_size = 0;
	b->flags = 0;
	b->written = 0;
	b->kind = RN_NONE;
}

void rn_bind_free(struct nd_runner *r, struct rn_rank *k)
{
	uint32_t i;

	for (i = 0; k->b && r->vp && i < r->vp->tensor_count; i++) {
		unbind(&k->b[i]);
		free(k->b[i].own);
		if (k->b[i].mem)
			nd_mem_free(k->b[i].mem);
	}
	free(k->b);
	free(k->ht);
	free(k->db);
	k->b = NULL;
	k->ht = NULL;
	k->db = NULL;
	k->nt = 0;
}

static const char *kind_name(uint32_t kind)
{
	return vn_tensor_kind_name(kind);
}

/* " a b" for the tensors of kind, into buf. */
static const char *names_of(struct nd_runner *r, uint32_t kind, char *buf, size_t len)
{
	size_t n = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < r->vp->tensor_count && n < len; i++)
		if (rn_tensor(r, i)->kind == kind)
			n += (size_t)snprintf(buf + n, len - n, " %s", rn_tensor_name(r, i));
	return n ? buf : " (none)";
}

/*
 * The tensor called name, which the caller may bind (an input only with input_only):
 * its index, or -errno said: "exp.vnef has no input 'y'; its inputs: a b".
 */
static int find(struct nd_runner *r, const char *name, int input_only)
{
	char ins[1024], outs[1024];
	int i;

	if (!r->vp)
		return rn_err(r, ENOENT, "no program loaded");
	i = name ? vn_program_tensor(r->vp, name) : -ENOENT;
	if (i >= 0 && input_only && rn_tensor(r, (uint32_t)i)->kind != VNEF_TENSOR_INPUT)
		i = -ENOENT;
	if (i < 0 && input_only)
		return rn_err(r, ENOENT, "%s has no input '%s'; its inputs:%s", r->name,
			      name ? name : "", names_of(r, VNEF_TENSOR_INPUT, ins, sizeof(ins)));
	if (i < 0)
		return rn_err(r, ENOENT, "%s has no tensor '%s'; its inputs:%s; its outputs:%s",
			      r->name, name ? name : "",
			      names_of(r, VNEF_TENSOR_INPUT, ins, sizeof(ins)),
			      names_of(r, VNEF_TENSOR_OUTPUT, outs, sizeof(outs)));
	if (rn_tensor(r, (uint32_t)i)->kind == VNEF_TENSOR_CONST)
		return rn_err(r, EINVAL, "tensor '%s' is a constant of %s; it cannot be bound",
			      name, r->name);
	return i;
}

int nd_runner_find(struct nd_runner *r, const char *name, struct nd_runner_tensor *t)
{
	int i;

	if (!r)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	i = r->vp && name ? vn_program_tensor(r->vp, name) : -ENOENT;
	if (i < 0 && r->vp)
		find(r, name, 0);	/* the message */
	else if (i < 0)
		rn_err(r, ENOENT, "no program loaded");
	else if (t)
		rn_tensor_info(r, (unsigned int)i, t);
	pthread_mutex_unlock(&r->lock);
	return i;
}

/* The ranks a call names: [*lo, *hi). -EINVAL said. */
static int ranks_of(struct nd_runner *r, unsigned int rank, unsigned int *lo, unsigned int *hi)
{
	if (rank == ND_RUNNER_ALL) {
		*lo = 0;
		*hi = r->nranks;
		return 0;
	}
	if (rank >= r->nranks)
		return rn_err(r, EINVAL, "rank %u: the runner has %u rank%s", rank, r->nranks,
			      r->nranks == 1 ? "" : "s");
	*lo = rank;
	*hi = rank + 1;
	return 0;
}

/* A file binding stays until unbound. */
static int check_rebind(struct nd_runner *r, const struct rn_bind *b, uint32_t i,
			const char *path)
{
	const struct vnef_tensor *t = rn_tensor(r, i);

	if (b->kind != RN_IN_FILE && b->kind != RN_OUT_FILE)
		return 0;
	if (path)
		return rn_err(r, EEXIST, "%s '%s' is bound twice (%s, then %s)",
			      kind_name(t->kind), rn_tensor_name(r, i), b->path, path);
	return rn_err(r, EEXIST, "%s '%s' is bound to %s; unbind it first", kind_name(t->kind),
		      rn_tensor_name(r, i), b->path);
}

int nd_runner_bind(struct nd_runner *r, unsigned int rank, const char *name, void *data,
		   uint64_t size)
{
	const struct vnef_tensor *t;
	unsigned int lo = 0, hi = 0, k;
	int i, ret;

	if (!r)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	ret = i = find(r, name, 0);
	if (i < 0 || (ret = ranks_of(r, rank, &lo, &hi)))
		goto out;
	t = rn_tensor(r, (uint32_t)i);
	ret = -EINVAL;
	if (!data) {
		rn_err(r, EINVAL, "%s '%s': no buffer", kind_name(t->kind), name);
		goto out;
	}
	if (size < t->size) {
		ret = rn_err(r, ENOSPC, "%s '%s' needs %llu bytes; the buffer has %llu",
			     kind_name(t->kind), name, (unsigned long long)t->size,
			     (unsigned long long)size);
		goto out;
	}
	if (hi - lo > 1 && t->kind != VNEF_TENSOR_INPUT) {
		rn_err(r, EINVAL, "%s '%s': %u ranks cannot write one buffer", kind_name(t->kind),
		       name, hi - lo);
		goto out;
	}
	for (k = lo; k < hi; k++) {
		ret = check_rebind(r, &r->rk[k].b[i], (uint32_t)i, NULL);
		if (ret)
			goto out;
	}
	for (k = lo; k < hi; k++) {
		struct rn_bind *b = &r->rk[k].b[i];

		unbind(b);
		b->kind = RN_USER;
		b->user = data;
		b->user_size = size;
	}
	ret = 0;
out:
	pthread_mutex_unlock(&r->lock);
	return ret;
}

/* path with {rank} replaced by rank, into buf. */
static int rank_path(struct nd_runner *r, const char *path, unsigned int rank,
		     unsigned int flags, char *buf, size_t len)
{
	const char *tag = flags & ND_BIND_LITERAL ? NULL : strstr(path, RANK_TAG);
	int n;

	if (!tag)
		n = snprintf(buf, len, "%s", path);
	else
		n = snprintf(buf, len, "%.*s%u%s", (int)(tag - path), path, rank,
			     tag + strlen(RANK_TAG));
	if (n < 0 || (size_t)n >= len)
		return rn_err(r, ENAMETOOLONG, "%s: too long a file name", path);
	return 0;
}

/* A tensor's shape as uint64_t (the uapi's __u64 may be another type). */
static void shape_of(const struct vnef_tensor *t, uint64_t *shape)
{
	unsigned int d;

	for (d = 0; d < VNEF_MAX_RANK; d++)
		shape[d] = d < t->rank ? t->shape[d] : 0;
}

/* An input file's bytes in the tensor's dtype: a .npy, or raw with ND_BIND_RAW. */
static int read_input(struct nd_runner *r, uint32_t i, const char *path, unsigned int flags,
		      struct rn_blob **bp)
{
	const struct vnef_tensor *t = rn_tensor(r, i);
	const char *name = rn_tensor_name(r, i);
	uint64_t n = 1, k;
	struct nd_error e = { 0 };
	struct nd_npy npy;
	uint8_t *file, *buf;
	uint64_t shape[VNEF_MAX_RANK];
	char fs[160], ts[160];
	void *raw;
	size_t len;
	int ret;

	for (k = 0; k < t->rank && k < VNEF_MAX_RANK; k++)
		n *= t->shape[k];
	ret = nd_read_file(path, VNEF_MAX_TENSOR_BYTES * 2 + 4096, &raw, &len);
	if (ret)
		return rn_err(r, ret, "%s: %s", path, ret == -EFBIG ? "larger than any tensor" :
			      nd_strerror(ret));
	file = raw;
	if ((flags & ND_BIND_RAW) && (len < 6 || memcmp(file, "\x93NUMPY", 6))) {
		if (len != t->size) {
			free(file);
			return rn_err(r, EINVAL, "input '%s': %s is %zu bytes of raw data, the "
				      "tensor %llu bytes (or give a .npy file)", name, path, len,
				      (unsigned long long)t->size);
		}
		*bp = blob_new(file, len);
		if (!*bp)
			free(file);
		return *bp ? 0 : rn_err(r, ENOMEM, "out of memory");
	}
	ret = nd_npy_parse(file, len, &npy, &e);
	if (ret) {
		free(file);
		return rn_err(r, ret, "%s: %s", path, e.msg);
	}
	rn_shape(fs, sizeof(fs), npy.shape, npy.ndim);
	shape_of(t, shape);
	rn_shape(ts, sizeof(ts), shape, t->rank);
	if (npy.count != n) {
		free(file);
		return rn_err(r, EINVAL, "%s: %llu elements, input '%s' has %llu (the file %s, "
			      "the tensor %s %s)", path, (unsigned long long)npy.count, name,
			      (unsigned long long)n, fs, vn_dtype_name(t->dtype), ts);
	}
	if (!(flags & ND_BIND_ANY_SHAPE) && strcmp(fs, ts)) {
		free(file);
		return rn_err(r, EINVAL, "%s: shape %s, input '%s' is %s %s (ND_BIND_ANY_SHAPE "
			      "takes any shape of %llu elements)", path, fs, name,
			      vn_dtype_name(t->dtype), ts, (unsigned long long)n);
	}
	buf = malloc(t->size ? t->size : 1);
	if (!buf) {
		free(file);
		return rn_err(r, ENOMEM, "out of memory for input '%s'", name);
	}
	for (k = 0; k < n; k++) {
		float f;

		memcpy(&f, file + npy.data_off + 4 * k, 4);
		if (t->dtype == VNEF_DT_BF16) {
			uint16_t h = nd_fp32_to_bf16(f);

			memcpy(buf + 2 * k, &h, 2);
		} else {
			memcpy(buf + 4 * k, &f, 4);
		}
	}
	free(file);
	*bp = blob_new(buf, t->size);
	if (!*bp)
		free(buf);
	return *bp ? 0 : rn_err(r, ENOMEM, "out of memory");
}

/* Every file the outputs must never overwrite: the program's and the input files. */
static unsigned int input_files(struct nd_runner *r, const char **in, unsigned int max)
{
	unsigned int n = 0, k;
	uint32_t i;

	if (r->path && n < max)
		in[n++] = r->path;
	for (k = 0; k < r->nranks; k++)
		for (i = 0; i < r->vp->tensor_count && n < max; i++)
			if (r->rk[k].b[i].kind == RN_IN_FILE)
				in[n++] = r->rk[k].b[i].path;
	return n;
}

#define MAX_INPUT_FILES	(1 + ND_RUNNER_MAX_RANKS * 16)

/* An output file: checked now (never an input, existing only with ND_BIND_FORCE). */
static int check_output(struct nd_runner *r, uint32_t i, const char *path, unsigned int flags)
{
	const char *in[MAX_INPUT_FILES];
	char msg[RN_ERRMAX - 64];
	unsigned int k, n;
	uint32_t j;
	int ret;

	for (k = 0; k < r->nranks; k++)
		for (j = 0; j < r->vp->tensor_count; j++)
			if (j != i && r->rk[k].b[j].kind == RN_OUT_FILE &&
			    !strcmp(r->rk[k].b[j].path, path))
				return rn_err(r, EINVAL, "%s: outputs '%s' and '%s' would both "
					      "write it", path, rn_tensor_name(r, j),
					      rn_tensor_name(r, i));
	n = input_files(r, in, MAX_INPUT_FILES);
	ret = nd_out_check(path, in, n, flags & ND_BIND_FORCE ? ND_OUT_FORCE : 0, msg,
			   sizeof(msg));
	return ret ? rn_err(r, ret, "%s", msg) : 0;
}

int nd_runner_bind_file(struct nd_runner *r, unsigned int rank, const char *name,
			const char *path, unsigned int flags)
{
	struct rn_blob *shared = NULL, *blob;
	char p[4096];
	unsigned int lo = 0, hi = 0, k;
	int i, ret, input;

	if (!r)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	ret = i = find(r, name, !!(flags & ND_BIND_INPUT));
	if (i < 0 || (ret = ranks_of(r, rank, &lo, &hi)))
		goto out;
	input = rn_tensor(r, (uint32_t)i)->kind == VNEF_TENSOR_INPUT;
	ret = -EINVAL;
	if (!path || !*path ||
	    (flags & ~(ND_BIND_FORCE | ND_BIND_ANY_SHAPE | ND_BIND_RAW | ND_BIND_INPUT |
		       ND_BIND_LITERAL)) ||
	    (!input && rn_tensor(r, (uint32_t)i)->kind != VNEF_TENSOR_OUTPUT)) {
		rn_err(r, EINVAL, "%s '%s': a file binds an input or an output (flags ND_BIND_*)",
		       kind_name(rn_tensor(r, (uint32_t)i)->kind), name);
		goto out;
	}
	if (!input && hi - lo > 1 && (!strstr(path, RANK_TAG) || (flags & ND_BIND_LITERAL))) {
		rn_err(r, EINVAL, "output '%s': %u ranks cannot write one file (put %s in %s)",
		       name, hi - lo, RANK_TAG, path);
		goto out;
	}
	for (k = lo; k < hi; k++) {
		ret = rank_path(r, path, r->rk[k].grank, flags, p, sizeof(p)) ?:
		      check_rebind(r, &r->rk[k].b[i], (uint32_t)i, p);
		if (ret)
			goto out;
	}
	for (k = lo; k < hi; k++) {
		struct rn_bind *b = &r->rk[k].b[i];
		char *dup;

		ret = rank_path(r, path, r->rk[k].grank, flags, p, sizeof(p));
		if (!ret && !input)
			ret = check_output(r, (uint32_t)i, p, flags);
		if (ret)
			goto out;
		blob = NULL;
		if (input && shared) {
			blob = shared;
			blob->refs++;
		} else if (input) {
			ret = read_input(r, (uint32_t)i, p, flags, &blob);
			if (ret)
				goto out;
			if (!strstr(path, RANK_TAG) || (flags & ND_BIND_LITERAL))
				shared = blob;
		}
		dup = strdup(p);
		if (!dup) {
			blob_put(blob);
			ret = rn_err(r, ENOMEM, "out of memory");
			goto out;
		}
		unbind(b);
		b->kind = input ? RN_IN_FILE : RN_OUT_FILE;
		b->path = dup;
		b->blob = blob;
		b->flags = flags;
		b->stale = input;
	}
	ret = 0;
out:
	pthread_mutex_unlock(&r->lock);
	return ret;
}

int nd_runner_bind_zeros(struct nd_runner *r, unsigned int rank, const char *name)
{
	struct rn_blob *z[VNEF_MAX_TENSORS] = { 0 };
	unsigned int lo = 0, hi = 0, k;
	uint32_t i, first = 0, end;
	int ret, idx;

	if (!r)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	ret = idx = name ? find(r, name, 1) : r->vp ? 0 : rn_err(r, ENOENT, "no program loaded");
	if (idx < 0 || (ret = ranks_of(r, rank, &lo, &hi)))
		goto out;
	if (name)
		first = (uint32_t)idx;
	end = name ? first + 1 : r->vp->tensor_count;
	for (k = lo; k < hi && name; k++) {
		ret = check_rebind(r, &r->rk[k].b[first], first, NULL);
		if (ret)
			goto out;
	}
	for (k = lo; k < hi; k++) {
		for (i = first; i < end; i++) {
			struct rn_bind *b = &r->rk[k].b[i];
			const struct vnef_tensor *t = rn_tensor(r, i);

			if (t->kind != VNEF_TENSOR_INPUT || (!name && b->kind != RN_NONE))
				continue;
			if (!z[i]) {
				void *data = calloc(1, t->size ? t->size : 1);

				z[i] = data ? blob_new(data, t->size) : NULL;
				if (!z[i]) {
					free(data);
					ret = rn_err(r, ENOMEM, "out of memory");
					goto out;
				}
			}
			z[i]->refs++;
			unbind(b);
			b->kind = RN_ZEROS;
			b->blob = z[i];
			b->stale = 1;
		}
	}
	ret = 0;
out:
	/* the bindings hold their references: drop the first ones */
	for (i = 0; i < VNEF_MAX_TENSORS; i++)
		blob_put(z[i]);
	pthread_mutex_unlock(&r->lock);
	return ret;
}

/* Device: the tensor's buffer, allocated on first use (zeroed by the device). */
static int dev_mem(struct nd_runner *r, struct rn_rank *k, uint32_t i)
{
	struct rn_bind *b = &k->b[i];
	struct nd_device *dev = r->dev[k->dev].dev;
	int ret;

	if (b->mem)
		return 0;
	ret = nd_mem_alloc(dev, rn_tensor(r, i)->size, &b->mem);
	if (ret)
		return rn_err(r, ret, "%s '%s' (%llu bytes): %s", kind_name(rn_tensor(r, i)->kind),
			      rn_tensor_name(r, i), (unsigned long long)rn_tensor(r, i)->size,
			      nd_device_error(dev));
	b->used = 0;
	b->map = NULL;
	return 0;
}

/* Device: the tensor's buffer, mapped. */
static int dev_map(struct nd_runner *r, struct rn_rank *k, uint32_t i)
{
	struct rn_bind *b = &k->b[i];
	int ret = dev_mem(r, k, i);

	if (ret || b->map)
		return ret;
	ret = nd_mem_map(b->mem, &b->map);
	return ret ? rn_err(r, ret, "%s", nd_device_error(r->dev[k->dev].dev)) : 0;
}

/* Host: the runner's own buffer of the tensor (zeroed when made). */
static int own(struct nd_runner *r, struct rn_bind *b, uint32_t i)
{
	uint64_t size = rn_tensor(r, i)->size;

	if (b->own)
		return 0;
	b->own = size <= SIZE_MAX ? calloc(1, size ? (size_t)size : 1) : NULL;
	return b->own ? 0 : rn_err(r, ENOMEM, "out of memory for tensor '%s'",
				   rn_tensor_name(r, i));
}

int nd_runner_data(struct nd_runner *r, unsigned int rank, const char *name, void **datap,
		   uint64_t *sizep)
{
	struct rn_rank *k;
	struct rn_bind *b;
	uint32_t i;
	int ret;

	if (!r || !datap)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	ret = find(r, name, 0);
	if (ret < 0)
		goto out;
	i = (uint32_t)ret;
	if (rank >= r->nranks) {
		ret = rn_err(r, EINVAL, "rank %u: the runner has %u", rank, r->nranks);
		goto out;
	}
	k = &r->rk[rank];
	b = &k->b[i];
	ret = r->host ? own(r, b, i) : dev_map(r, k, i);
	if (ret)
		goto out;
	*datap = r->host ? b->own : b->map;
	if (sizep)
		*sizep = rn_tensor(r, i)->size;
	if (b->kind == RN_OUT_FILE || b->kind == RN_OWN)
		goto out;
	/* a buffer that held another binding's bytes starts again from zeros */
	if (b->kind != RN_NONE)
		memset(*datap, 0, (size_t)rn_tensor(r, i)->size);
	unbind(b);
	b->kind = RN_OWN;
	b->used = 1;
out:
	pthread_mutex_unlock(&r->lock);
	return ret < 0 ? ret : 0;
}

int nd_runner_unbind(struct nd_runner *r, unsigned int rank, const char *name)
{
	unsigned int lo = 0, hi = 0, k;
	int i, ret;

	if (!r)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	ret = i = find(r, name, 0);
	if (i >= 0 && !(ret = ranks_of(r, rank, &lo, &hi)))
		for (k = lo; k < hi; k++)
			unbind(&r->rk[k].b[i]);
	pthread_mutex_unlock(&r->lock);
	return ret < 0 ? ret : 0;
}

int nd_runner_input(struct nd_runner *r, unsigned int rank, const char *name,
		    const void **datap, uint64_t *sizep)
{
	const struct rn_bind *b;
	int i, ret;

	if (!r || !datap)
		return -EINVAL;
	pthread_mutex_lock(&r->lock);
	ret = i = find(r, name, 1);
	if (i < 0)
		goto out;
	ret = rank == ND_RUNNER_ALL || rank >= r->nranks ?
	      rn_err(r, EINVAL, "rank %u: the runner has %u", rank, r->nranks) : 0;
	if (ret)
		goto out;
	b = &r->rk[rank].b[i];
	*datap = b->kind == RN_USER ? b->user : b->blob ? b->blob->data : NULL;
	if (!*datap) {
		ret = rn_err(r, ENOENT, "input '%s' is not bound to bytes (a buffer, a file, "
			     "zeros)", name);
		goto out;
	}
	if (sizep)
		*sizep = rn_tensor(r, (uint32_t)i)->size;
out:
	pthread_mutex_unlock(&r->lock);
	return ret < 0 ? ret : 0;
}

/* Host: this run's tensor list of rank k. */
static int prepare_host(struct nd_runner *r, struct rn_rank *k)
{
	uint32_t i;
	int ret;

	k->nt = 0;
	for (i = 0; i < r->vp->tensor_count; i++) {
		const struct vnef_tensor *t = rn_tensor(r, i);
		struct rn_bind *b = &k->b[i];
		struct nd_host_tensor *ht = &k->ht[k->nt];

		if (t->kind == VNEF_TENSOR_CONST ||
		    (t->kind == VNEF_TENSOR_SCRATCH && b->kind == RN_NONE))
			continue;	/* the image's, or the core's zeroed scratch */
		ht->name = rn_tensor_name(r, i);
		if (b->kind == RN_USER) {
			ht->data = b->user;
			ht->size = b->user_size;
		} else if (b->blob) {
			ht->data = b->blob->data;
			ht->size = b->blob->size;
		} else {
			ret = own(r, b, i);
			if (ret)
				return ret;
			ht->data = b->own;
			ht->size = t->size;
		}
		k->nt++;
	}
	return 0;
}

/* Device: this run's bindings of rank k, its inputs written (the one copy). */
static int prepare_device(struct nd_runner *r, struct rn_rank *k)
{
	struct nd_device *dev = r->dev[k->dev].dev;
	uint32_t i;
	int ret;

	k->nt = 0;
	for (i = 0; i < r->vp->tensor_count; i++) {
		const struct vnef_tensor *t = rn_tensor(r, i);
		struct rn_bind *b = &k->b[i];
		const void *src = NULL;

		if (t->kind == VNEF_TENSOR_CONST ||
		    (t->kind == VNEF_TENSOR_SCRATCH && b->kind == RN_NONE))
			continue;
		ret = dev_mem(r, k, i);
		if (ret)
			return ret;
		k->db[k->nt].name = rn_tensor_name(r, i);
		k->db[k->nt++].mem = b->mem;
		if (b->kind == RN_USER && t->kind != VNEF_TENSOR_OUTPUT)
			src = b->user;
		else if (b->blob && b->stale && (b->kind != RN_ZEROS || b->used))
			src = b->blob->data;
		b->stale = 0;
		if (!src)
			continue;
		ret = nd_mem_write(b->mem, 0, src, t->size);
		if (ret)
			return rn_err(r, ret, "%s '%s': %s", kind_name(t->kind),
				      rn_tensor_name(r, i), nd_device_error(dev));
		b->used = 1;
	}
	return 0;
}

int rn_bind_prepare(struct nd_runner *r)
{
	struct rn_rank *k;
	unsigned int j;
	uint32_t i;
	int ret;

	for (j = 0; j < r->nranks; j++) {
		k = &r->rk[j];
		for (i = 0; i < r->vp->tensor_count; i++) {
			if (rn_tensor(r, i)->kind != VNEF_TENSOR_INPUT || k->b[i].kind != RN_NONE)
				continue;
			if (r->nranks > 1)
				return rn_err(r, ENOENT, "input '%s' of rank %u is not bound; bind "
					      "it or give zeros", rn_tensor_name(r, i), j);
			return rn_err(r, ENOENT, "input '%s' is not bound; bind it or give zeros",
				      rn_tensor_name(r, i));
		}
		if (!k->ht && r->host)
			k->ht = calloc(r->vp->tensor_count + 1, sizeof(*k->ht));
		if (!k->db && !r->host)
			k->db = calloc(r->vp->tensor_count + 1, sizeof(*k->db));
		if (r->host ? !k->ht : !k->db)
			return rn_err(r, ENOMEM, "out of memory");
		ret = r->host ? prepare_host(r, k) : prepare_device(r, k);
		if (ret)
			return ret;
	}
	return 0;
}

/* An output tensor's bytes as a .npy of float32 through nd_out_open(). */
static int write_output(struct nd_runner *r, uint32_t i, const struct rn_bind *b,
			const void *data)
{
	const struct vnef_tensor *t = rn_tensor(r, i);
	const char *in[MAX_INPUT_FILES];
	char msg[RN_ERRMAX - 64];
	uint64_t n = t->size / vn_dtype_size(t->dtype), k, m, shape[VNEF_MAX_RANK];
	struct nd_outfile o;
	float *buf;
	int ret;

	buf = malloc(sizeof(*buf) * CHUNK);
	if (!buf)
		return rn_err(r, ENOMEM, "out of memory");
	ret = nd_out_open(&o, b->path, in, input_files(r, in, MAX_INPUT_FILES),
			  b->flags & ND_BIND_FORCE || b->written ? ND_OUT_FORCE : 0, msg,
			  sizeof(msg));
	if (ret) {
		free(buf);
		return rn_err(r, ret, "%s", msg);
	}
	shape_of(t, shape);
	ret = nd_npy_write_header(o.f, shape, t->rank);
	for (k = 0; !ret && k < n; k += m) {
		m = n - k < CHUNK ? n - k : CHUNK;
		if (t->dtype == VNEF_DT_BF16) {
			const uint16_t *h = (const uint16_t *)data + k;
			uint64_t e;

			for (e = 0; e < m; e++)
				buf[e] = nd_bf16_to_fp32(h[e]);
		} else {
			memcpy(buf, (const float *)data + k, m * 4);
		}
		if (fwrite(buf, 4, m, o.f) != m)
			ret = -EIO;
	}
	free(buf);
	if (ret) {
		nd_out_abort(&o);
		return rn_err(r, ret, "%s: write failed", b->path);
	}
	ret = nd_out_commit(&o);
	if (ret) {
		nd_out_strerror(&o, ret, msg, sizeof(msg));
		nd_out_release(&o);
		return rn_err(r, ret, "%s", msg);
	}
	return 0;
}

int rn_bind_finish(struct nd_runner *r)
{
	struct rn_rank *k;
	unsigned int j;
	uint32_t i;
	int ret;

	for (j = 0; j < r->nranks; j++) {
		k = &r->rk[j];
		for (i = 0; i < r->vp->tensor_count; i++) {
			const struct vnef_tensor *t = rn_tensor(r, i);
			struct rn_bind *b = &k->b[i];

			if (!r->host && b->kind == RN_USER && t->kind != VNEF_TENSOR_INPUT) {
				ret = nd_mem_read(b->mem, 0, b->user, t->size);
				if (ret)
					return rn_err(r, ret, "%s '%s': %s", kind_name(t->kind),
						      rn_tensor_name(r, i),
						      nd_device_error(r->dev[k->dev].dev));
			}
			if (b->kind != RN_OUT_FILE)
				continue;
			ret = r->host ? 0 : dev_map(r, k, i);
			if (!ret)
				ret = write_output(r, i, b, r->host ? b->own : b->map);
			if (ret)
				return ret;
			b->written = 1;
		}
	}
	return 0;
}
