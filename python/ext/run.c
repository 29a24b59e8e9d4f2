// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Running programs: the package's one place that executes, over libvnprog's program
 * runner (libvnprog/vnrun.h), the one vneuron-run, capture and the examples use.
 *
 * The host backend: one runner per Device (its one host core), into which a Program is
 * loaded when it runs after another one (the runner keeps one program); its tensors are
 * bound to the arrays themselves, so the core reads and writes them in place. The
 * module: one runner per Program over the Device's own device file
 * (nd_runner_open_dev()), its device buffers kept for the next runs; each input is
 * copied into device memory once a run and each output out of it once.
 *
 * Ctrl-C: a run in the main thread puts a SIGINT handler in front of Python's (left
 * there between runs, when it only passes signals on). During a run the handler calls
 * nd_runner_cancel() (async-signal-safe: it sets a flag) and Python's handler, which
 * marks the signal for Python; the runner stops the execution and returns -EINTR, and
 * Program.run() lets Python raise KeyboardInterrupt. Whether the handler is still in
 * front (signal.signal() replaces it) is looked at once the execution is submitted
 * (the runner's wait function), while the core works: not a system call before it.
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

/* ---- Ctrl-C ---- */

static struct nd_runner *volatile sigint_runner;	/* the main thread's run */
static struct sigaction sigint_prev;
static int sigint_front;	/* on_sigint was in front when last looked (main thread) */

static void on_sigint(int sig, siginfo_t *si, void *uc)
{
	struct nd_runner *r = sigint_runner;

	if (r)
		nd_runner_cancel(r);
	if (sigint_prev.sa_flags & SA_SIGINFO)
		sigint_prev.sa_sigaction(sig, si, uc);
	else if (sigint_prev.sa_handler != SIG_DFL && sigint_prev.sa_handler != SIG_IGN)
		sigint_prev.sa_handler(sig);
}

/*
 * Puts on_sigint in front of the SIGINT handler in place (Python's) for a run of r: 1,
 * or 0 when there is none to stand in front of (SIGINT ignored, or the default: the
 * process ends). It stays in front after the run (with no runner it only passes the
 * signal on), so a run costs one sigaction() call, not three; a handler set since
 * (signal.signal()) replaced it and is stood in front of anew.
 */
static int sigint_catch(struct nd_runner *r)
{
	struct sigaction cur, sa;

	sigint_front = 0;
	if (sigaction(SIGINT, NULL, &cur))
		return 0;
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigint) {
		sigint_runner = r;
		sigint_front = 1;
		return 1;
	}
	if (!(cur.sa_flags & SA_SIGINFO) &&
	    (cur.sa_handler == SIG_DFL || cur.sa_handler == SIG_IGN))
		return 0;
	sigint_prev = cur;
	sa = cur;
	sa.sa_flags |= SA_SIGINFO;
	sa.sa_sigaction = on_sigint;
	sigint_runner = r;
	if (sigaction(SIGINT, &sa, NULL)) {
		sigint_runner = NULL;
		return 0;
	}
	sigint_front = 1;
	return 1;
}

static void sigint_release(void)
{
	sigint_runner = NULL;
}

/* A run of run_locked() on this thread, as its runner's wait function sees it. */
struct run_wait {
	struct nd_runner *r;
	int interruptible;		/* the main thread's: SIGINT stops it */
	int counted;			/* in vnpy_count.running */
};

static __thread struct run_wait *run_waiting;

/*
 * The runner's wait function (nd_runner_set_wait()), on the thread of the run, its
 * execution submitted: on_sigint made sure of while the core works, then the run counted
 * as running (what another thread sees in counters(): SIGINT stops it from now on).
 */
static void run_wait_fn(void *unused)
{
	struct run_wait *w = run_waiting;

	if (!w || w->counted)
		return;
	if (w->interruptible)
		sigint_catch(w->r);
	__atomic_add_fetch(&vnpy_count.running, 1, __ATOMIC_RELAXED);
	w->counted = 1;
}

/* ---- opening and loading ---- */

int vnpy_run_open_host(struct vnpy_device *d, unsigned int lnc, char *msg, size_t len)
{
	struct nd_error err = { 0 };
	int ret = nd_runner_open_host(d->model, &d->runner, &err);

	if (ret) {
		snprintf(msg, len, "%s", err.msg);
		return ret;
	}
	if (lnc != 1) {
		ret = nd_runner_set_lnc(d->runner, lnc);
		if (ret) {
			snprintf(msg, len, "%s", nd_runner_error(d->runner));
			nd_runner_close(d->runner);
			d->runner = NULL;
			return ret;
		}
	}
	d->host = nd_runner_host(d->runner, 0);
	nd_runner_set_wait(d->runner, run_wait_fn, NULL);
	return 0;
}

void vnpy_run_close(struct vnpy_device *d)
{
	nd_runner_close(d->runner);
	d->runner = NULL;
	d->host = NULL;
	d->loaded = NULL;
}

int vnpy_run_load(struct vnpy_program *p, struct nd_load_error *le, char *msg, size_t len)
{
	struct vnpy_device *d = p->dev;
	struct nd_error err = { 0 };
	int ret;

	if (d->backend == VNPY_HOST)
		return 0;	/* loaded into the device's runner when it runs */
	ret = nd_runner_open_dev(d->nd, d->core, &p->r, &err);
	if (ret) {
		snprintf(msg, len, "%s", err.msg);
		return ret;
	}
	ret = nd_runner_load_image(p->r, p->vp->image, p->vp->size, NULL, le);
	if (ret) {
		nd_runner_error_copy(p->r, msg, len);
		nd_runner_close(p->r);
		p->r = NULL;
		return ret;
	}
	nd_runner_set_wait(p->r, run_wait_fn, NULL);
	return 0;
}

void vnpy_run_release(struct vnpy_program *p)
{
	struct vnpy_device *d = p->dev;

	if (d && d->loaded == p) {
		nd_runner_unload(d->runner);
		d->loaded = NULL;
	}
	nd_runner_close(p->r);
	p->r = NULL;
	if (p->buffers) {
		__atomic_sub_fetch(&vnpy_count.buffers, p->buffers, __ATOMIC_RELAXED);
		__atomic_sub_fetch(&vnpy_count.buffer_bytes, p->buffer_bytes, __ATOMIC_RELAXED);
		p->buffers = 0;
		p->buffer_bytes = 0;
	}
}

/* ---- running ---- */

/* The runner of p's runs, p loaded in it: the device's (host), or p's own (module). */
static int runner_of(struct vnpy_program *p, struct nd_runner **rp, char *msg, size_t len)
{
	struct vnpy_device *d = p->dev;
	uint32_t i;
	int ret;

	if (d->backend == VNPY_DEVICE) {
		*rp = p->r;
		return 0;
	}
	*rp = d->runner;
	if (d->loaded == p)
		return 0;
	d->loaded = NULL;
	for (i = 0; i < p->ntensors; i++)
		p->tensors[i].bound_to = NULL;	/* loading unbinds */
	ret = nd_runner_load_image(d->runner, p->vp->image, p->vp->size, NULL, NULL);
	if (ret) {
		nd_runner_error_copy(d->runner, msg, len);
		return ret;
	}
	d->loaded = p;
	return 0;
}

/* The device buffers the runner made for p's bound tensors, counted at its first run. */
static void count_buffers(struct vnpy_program *p)
{
	uint32_t i;

	if (p->dev->backend != VNPY_DEVICE || p->buffers)
		return;
	for (i = 0; i < p->ntensors; i++) {
		if (!p->tensors[i].bound)
			continue;
		p->buffers++;
		p->buffer_bytes += (long long)p->tensors[i].size;
	}
	__atomic_add_fetch(&vnpy_count.buffers, p->buffers, __ATOMIC_RELAXED);
	__atomic_add_fetch(&vnpy_count.buffer_bytes, p->buffer_bytes, __ATOMIC_RELAXED);
}

/* One execution of p on r, its tensors bound to data; the lock of p's runs held. */
static int run_locked(struct vnpy_program *p, void *const *data, struct vnpy_run_out *out,
		      uint64_t limit_ns, int interruptible, int *ran, char *msg, size_t len)
{
	struct nd_runner_exec x;
	struct run_wait w = { .interruptible = interruptible };
	struct nd_runner *r;
	int ret;
	uint32_t i;

	ret = runner_of(p, &r, msg, len);
	for (i = 0; !ret && i < p->ntensors; i++) {
		struct vnpy_tensor *t = &p->tensors[i];

		/* the runner keeps a binding: the same buffer as last run needs none */
		if (!t->bound || t->bound_to == data[i])
			continue;
		t->bound_to = NULL;
		ret = nd_runner_bind(r, 0, t->name, data[i], t->size);
		if (!ret)
			t->bound_to = data[i];
	}
	if (ret) {
		if (!msg[0])
			nd_runner_error_copy(r, msg, len);
		return ret;
	}
	nd_runner_set_limit(r, limit_ns);
	w.r = r;
	/*
	 * A Ctrl-C stops this run from its start: on_sigint was in front at the last run, or
	 * (the first run, or a handler put in front since) is made sure of now, one system
	 * call; the wait function looks again once the execution is submitted.
	 */
	if (interruptible && sigint_front)
		sigint_runner = r;
	else if (interruptible)
		sigint_catch(r);
	run_waiting = &w;
	ret = nd_runner_run(r, 1, 0, &x);
	run_waiting = NULL;
	if (w.counted)
		__atomic_sub_fetch(&vnpy_count.running, 1, __ATOMIC_RELAXED);
	if (interruptible)
		sigint_release();
	out->res = x.res;
	if (x.done)
		count_buffers(p);
	if (ret == -EINTR) {
		snprintf(msg, len, "interrupted (SIGINT): the run was stopped");
	} else if (ret && x.done && x.err) {
		*ran = 1;
		nd_runner_describe(r, 0, &x, msg, len);
	} else if (ret) {
		nd_runner_error_copy(r, msg, len);
	}
	return ret;
}

int vnpy_run(struct vnpy_program *p, void *const *data, struct vnpy_run_out *out,
	     uint64_t limit_ns, int interruptible, int *ran, char *msg, size_t len)
{
	struct vnpy_device *d = p->dev;
	pthread_mutex_t *lock;
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
	/* Binding and running are one step: the host core takes one program at a time. */
	lock = d->backend == VNPY_HOST ? &d->host_lock : &p->run_lock;
	t0 = mono_ns();
	pthread_mutex_lock(lock);
	ret = run_locked(p, data, out, limit_ns, interruptible, ran, msg, len);
	pthread_mutex_unlock(lock);
	out->host_s = (double)(mono_ns() - t0) * 1e-9;
	pthread_rwlock_unlock(&d->life);
	if (ret == -EINTR)
		__atomic_add_fetch(&vnpy_count.interrupted, 1, __ATOMIC_RELAXED);
	return ret;
}
