// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Running a program: the package's one place that executes, called by Program.run()
 * with the GIL released and the arrays checked. The host backend runs on the arrays
 * themselves (no copy); the module gets one device buffer per input and output tensor,
 * kept with the program for its next runs, each input copied in once and each output
 * copied out once.
 *
 * Ctrl-C: a run in the main thread puts a SIGINT handler in front of Python's for its
 * duration. The handler only sets a flag (async-signal-safe) and calls Python's, which
 * marks the signal for Python; the run watches the flag while it waits and stops the
 * execution (the host backend cancels it, the module resets the core), returns -EINTR,
 * and Program.run() lets Python raise KeyboardInterrupt.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "runtime.h"
#include "vn_program.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static volatile sig_atomic_t sigint;
static struct sigaction sigint_prev;

static void on_sigint(int sig, siginfo_t *si, void *uc)
{
	sigint = 1;
	if (sigint_prev.sa_flags & SA_SIGINFO)
		sigint_prev.sa_sigaction(sig, si, uc);
	else if (sigint_prev.sa_handler != SIG_DFL && sigint_prev.sa_handler != SIG_IGN)
		sigint_prev.sa_handler(sig);
}

/*
 * Puts on_sigint in front of the SIGINT handler in place (Python's): 1, or 0 when there
 * is none to stand in front of (SIGINT ignored, or the default: the process ends).
 */
static int sigint_catch(void)
{
	struct sigaction sa;

	if (sigaction(SIGINT, NULL, &sigint_prev))
		return 0;
	if (!(sigint_prev.sa_flags & SA_SIGINFO) &&
	    (sigint_prev.sa_handler == SIG_DFL || sigint_prev.sa_handler == SIG_IGN))
		return 0;
	sa = sigint_prev;
	sa.sa_flags |= SA_SIGINFO;
	sa.sa_sigaction = on_sigint;
	sigint = 0;
	return !sigaction(SIGINT, &sa, NULL);
}

static void sigint_release(void)
{
	sigaction(SIGINT, &sigint_prev, NULL);
}

static int run_host(struct vnpy_program *p, void *const *data, struct vnpy_run_out *out,
		    uint64_t limit_ns, const volatile sig_atomic_t *cancel, int *ran, char *msg,
		    size_t len)
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
	nd_host_set_cancel(d->host, cancel);
	ret = nd_host_run(d->host, p->vp->image, p->vp->size, ht, n, limit_ns, &out->res);
	nd_host_set_cancel(d->host, NULL);
	if (ret == -EINTR)
		snprintf(msg, len, "interrupted (SIGINT): the run was stopped");
	else if (ret)
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

/*
 * Wait for execution id; with a cancel flag, look at it every 5 ms and, once it is set,
 * reset the core (the execution ends ABORTED at once) and give -EINTR.
 */
static int device_wait(struct vnpy_device *d, uint64_t id, const volatile sig_atomic_t *cancel,
		       struct nd_run_result *res)
{
	int ret, reset = 0;

	for (;;) {
		if (cancel && *cancel && !reset) {
			nd_reset(d->nd, d->core);
			reset = 1;
		}
		ret = nd_wait(d->nd, id, cancel && !reset ? mono_ns() + 5000000 :
			      ND_WAIT_FOREVER, res);
		/* a signal in this thread interrupts the wait: the flag says if it was ours */
		if (ret != -ETIMEDOUT && ret != -EINTR)
			break;
	}
	return ret ? ret : reset ? -EINTR : 0;
}

static int run_device(struct vnpy_program *p, void *const *data, struct vnpy_run_out *out,
		      uint64_t limit_ns, const volatile sig_atomic_t *cancel, int *ran,
		      char *msg, size_t len)
{
	struct nd_bind b[VNEF_MAX_TENSORS];
	struct vnpy_device *d = p->dev;
	unsigned int n = 0;
	uint64_t id;
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
	ret = nd_exec(p->nd, d->core, b, n, limit_ns, &id);
	if (!ret)
		ret = device_wait(d, id, cancel, &out->res);
	if (ret == -EINTR) {
		snprintf(msg, len, "interrupted (SIGINT): the run was stopped (core %u reset)",
			 d->core);
		goto out;
	}
	if (!ret && out->res.result != VNEURON_EXEC_OK) {
		*ran = 1;
		ret = nd_run_errno(&out->res);
		nd_run_describe(&out->res, msg, len);
		goto out;
	}
	if (ret) {
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
	     uint64_t limit_ns, int interruptible, int *ran, char *msg, size_t len)
{
	const volatile sig_atomic_t *cancel = NULL;
	struct vnpy_device *d = p->dev;
	uint64_t t0;
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
	if (interruptible && sigint_catch())
		cancel = &sigint;
	t0 = mono_ns();
	if (d->backend == VNPY_HOST)
		ret = run_host(p, data, out, limit_ns, cancel, ran, msg, len);
	else
		ret = run_device(p, data, out, limit_ns, cancel, ran, msg, len);
	out->host_s = (double)(mono_ns() - t0) * 1e-9;
	if (cancel)
		sigint_release();
	if (ret == -EINTR)
		__atomic_add_fetch(&vnpy_count.interrupted, 1, __ATOMIC_RELAXED);
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
