// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Running a program: the package's one place that executes, called by Program.run()
 * with the GIL released and the arrays checked. The host backend runs on the arrays
 * themselves (no copy); the module gets one device buffer per input and output tensor,
 * kept with the program for its next runs, each input copied in once and each output
 * copied out once.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "runtime.h"
#include "vn_program.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run_host(struct vnpy_program *p, void *const *data, struct vnpy_run_out *out,
		    uint64_t limit_ns, int *ran, char *msg, size_t len)
{
	struct nd_host_tensor ht[VNEF_MAX_TENSORS];
	struct vnpy_device *d = p->dev;
	unsigned int n = 0;
	uint32_t i;
	int ret;

	for (i = 0; i < p->ntensors; i++)
		if (p->tensors[i].bound)
			ht[n++] = (struct nd_host_tensor){ p->tensors[i].name, data[i],
							   p->tensors[i].size };
	pthread_mutex_lock(&d->host_lock);
	ret = nd_host_run(d->host, p->vp->image, p->vp->size, ht, n, limit_ns, &out->res);
	if (ret)
		snprintf(msg, len, "%s", nd_host_error(d->host));
	pthread_mutex_unlock(&d->host_lock);
	*ran = ret && out->res.result != VNEURON_EXEC_OK;
	return ret;
}

/* The device buffers of p's bound tensors, made at its first run. */
static int device_buffers(struct vnpy_program *p, char *msg, size_t len)
{
	uint32_t i;
	int ret;

	for (i = 0; i < p->ntensors; i++) {
		struct vnpy_tensor *t = &p->tensors[i];

		if (!t->bound || t->mem)
			continue;
		ret = nd_mem_alloc(p->dev->nd, t->size, &t->mem);
		if (!ret) {
			ret = nd_mem_map(t->mem, &t->map);
			if (ret) {
				nd_device_error_copy(p->dev->nd, msg, len);
				nd_mem_free(t->mem);
				t->mem = NULL;
				return ret;
			}
		} else {
			nd_device_error_copy(p->dev->nd, msg, len);
			return ret;
		}
		__atomic_add_fetch(&vnpy_count.buffers, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&vnpy_count.buffer_bytes, (long long)t->size, __ATOMIC_RELAXED);
	}
	return 0;
}

static int run_device(struct vnpy_program *p, void *const *data, struct vnpy_run_out *out,
		      uint64_t limit_ns, int *ran, char *msg, size_t len)
{
	struct nd_bind b[VNEF_MAX_TENSORS];
	struct vnpy_device *d = p->dev;
	unsigned int n = 0;
	uint32_t i;
	int ret;

	pthread_mutex_lock(&p->run_lock);
	ret = device_buffers(p, msg, len);
	if (ret)
		goto out;
	for (i = 0; i < p->ntensors; i++) {
		struct vnpy_tensor *t = &p->tensors[i];

		if (!t->bound)
			continue;
		/* An output starts as the array given: a program may read its outputs. */
		memcpy(t->map, data[i], t->size);
		b[n++] = (struct nd_bind){ t->name, t->mem };
	}
	ret = nd_run(p->nd, d->core, b, n, limit_ns, &out->res);
	if (ret) {
		*ran = out->res.result != VNEURON_EXEC_OK;
		if (*ran)
			nd_run_describe(&out->res, msg, len);
		else
			nd_device_error_copy(d->nd, msg, len);
		goto out;
	}
	for (i = 0; i < p->ntensors; i++)
		if (p->tensors[i].kind == VNEF_TENSOR_OUTPUT)
			memcpy(data[i], p->tensors[i].map, p->tensors[i].size);
out:
	pthread_mutex_unlock(&p->run_lock);
	return ret;
}

int vnpy_run(struct vnpy_program *p, void *const *data, struct vnpy_run_out *out,
	     uint64_t limit_ns, int *ran, char *msg, size_t len)
{
	struct vnpy_device *d = p->dev;
	double t0;
	int ret;

	memset(out, 0, sizeof(*out));
	*ran = 0;
	msg[0] = '\0';
	pthread_rwlock_rdlock(&d->life);
	if (d->closed || p->unloaded) {
		pthread_rwlock_unlock(&d->life);
		return -EBADF;
	}
	__atomic_add_fetch(&vnpy_count.runs, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&vnpy_count.running, 1, __ATOMIC_RELAXED);
	t0 = now_s();
	if (d->backend == VNPY_HOST)
		ret = run_host(p, data, out, limit_ns, ran, msg, len);
	else
		ret = run_device(p, data, out, limit_ns, ran, msg, len);
	out->host_s = now_s() - t0;
	__atomic_sub_fetch(&vnpy_count.running, 1, __ATOMIC_RELAXED);
	pthread_rwlock_unlock(&d->life);
	return ret;
}

void vnpy_run_release(struct vnpy_program *p)
{
	uint32_t i;

	for (i = 0; i < p->ntensors; i++) {
		struct vnpy_tensor *t = &p->tensors[i];

		if (!t->mem)
			continue;
		nd_mem_free(t->mem);
		t->mem = NULL;
		t->map = NULL;
		__atomic_sub_fetch(&vnpy_count.buffers, 1, __ATOMIC_RELAXED);
		__atomic_sub_fetch(&vnpy_count.buffer_bytes, (long long)t->size, __ATOMIC_RELAXED);
	}
}
