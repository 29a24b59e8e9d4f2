// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * capture's program form (docs/profiler.md, "capture"): the program run by libvnprog's
 * runner (vnrun.h) on one core of a device (the runner's own device file; libvnprofile
 * traces on another) or on the runner's host core (--host, traced through its trace
 * sink), --num-exec times, all traced or the --profile-nth-exec one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin-capture.h"
#include "vn_program.h"
#include "vnrun.h"

/* The program form's run: libvnprog's runner, the program loaded and its tensors bound. */
struct run {
	struct vn_program *prog;	/* validated by the kernel's loader; the identity */
	struct vnprofile_capture *cap;
	struct nd_runner *r;
	const struct cap_opts *o;
	/* between executions (run_each()) */
	int tty, stopped, err;
	unsigned int seen, failed;
	uint64_t t0, last;
};

/* "input 'x': x.npy: No such file or directory", as capture has always said it. */
static void bind_failed(struct run *r, const char *name)
{
	const char *msg = nd_runner_error(r->r);

	if (strstr(msg, "input '"))
		cap_err("%s", msg);
	else
		cap_err("input '%s': %s", name, msg);
}

/*
 * The runner on the program: loaded (what the kernel refuses is bad input), every NAME
 * FILE pair's file bound to its input (the first pair of a name; a .npy of the tensor's
 * element count, or raw bytes of its size), the other inputs zeros. 0 with *status
 * untouched, or -errno (said) with the exit status.
 */
static int run_bind(struct run *r, const struct cap_opts *o, int *status)
{
	const void *image;
	unsigned int i, k;
	size_t size;
	int ret;

	image = cap_prog_image(r->prog, &size);
	ret = nd_runner_load_image(r->r, image, size, o->program, NULL);
	if (ret) {
		cap_err("%s", nd_runner_error(r->r));
		*status = VNP_EXIT_INPUT;
		return ret;
	}
	for (i = 0; i < o->nr_inputs; i++) {
		for (k = 0; k < i; k++)
			if (!strcmp(o->inputs[k].name, o->inputs[i].name))
				break;
		if (k < i)
			continue;
		ret = nd_runner_bind_file(r->r, 0, o->inputs[i].name, o->inputs[i].path,
					  ND_BIND_INPUT | ND_BIND_ANY_SHAPE | ND_BIND_RAW |
					  ND_BIND_LITERAL);
		if (ret) {
			bind_failed(r, o->inputs[i].name);
			*status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
			return ret;
		}
	}
	ret = nd_runner_bind_zeros(r->r, 0, NULL);
	if (ret) {
		cap_err("%s", nd_runner_error(r->r));
		*status = VNP_EXIT_SYSTEM;
	}
	return ret;
}

static void run_free(struct run *r)
{
	/* the trace session before the host core it traces */
	vnprofile_capture_close(r->cap);
	nd_runner_close(r->r);
	cap_prog_free(r->prog);
}

void cap_progress(const struct vnprofile_capture *c, unsigned int i, unsigned int n,
		  uint64_t t0, uint64_t *last, int done)
{
	uint64_t t = cap_now_ns();

	if (!done && (t - t0 < 1000000000ull || t - *last < 200000000ull))
		return;
	if (!*last && done)
		return;		/* short run: nothing was shown */
	*last = t;
	fprintf(stderr, "\rexecution %u/%u, %llu records, %.1f s%s", i, n,
		(unsigned long long)vnprofile_capture_records(c), (double)(t - t0) / 1e9,
		done ? "\n" : "");
}

/* "execution 1 ended FAULT: access outside SBUF (reason 7) at DMA q3 desc 2" */
static void exec_failed(const struct nd_run_result *res, unsigned int i,
			const struct cap_opts *o)
{
	char where[48] = "", sn[32];

	if (res->stream < VNEF_STREAMS)
		snprintf(where, sizeof(where), " at %s %s %u",
			 vnprofile_stream_name(res->stream, sn, sizeof(sn)),
			 res->stream < VNEF_ENGINES ? "pc" : "desc", res->pc);
	/* FAULT: the profile's ERROR record says which access (view shows it) */
	cap_err("execution %u ended %s%s%s (reason %u)%s%s", i,
		vnprofile_exec_status_name(res->result),
		*vnprofile_exec_reason_name(res->reason) ? ": " : "",
		vnprofile_exec_reason_name(res->reason), res->reason, where,
		o->ignore_errors ? "; going on (--ignore-exec-errors)" : "");
}

/*
 * After execution i (the runner's nd_runner_set_each()): the --profile-nth-exec tracing
 * stopped after it and started before the next, a failure said (the runs stop unless
 * --ignore-exec-errors), the progress, a signal. Nonzero stops the runs.
 */
static int run_each(void *arg, unsigned int i, const struct nd_runner_exec *x,
		    unsigned int ranks)
{
	struct run *r = arg;
	const struct cap_opts *o = r->o;

	(void)ranks;
	r->seen = i;
	if (o->nth == i) {
		r->err = vnprofile_capture_stop(r->cap);
		if (r->err)
			return 1;
	}
	if (x[0].res.result != VNEURON_EXEC_OK) {
		if (r->tty && r->last)
			fputc('\n', stderr);
		exec_failed(&x[0].res, i, o);
		r->failed++;
		if (!o->ignore_errors)
			return r->stopped = 1;
	}
	if (r->tty)
		cap_progress(r->cap, i, o->num_exec, r->t0, &r->last, 0);
	if (vnp_signalled())
		return r->stopped = 1;
	if (o->nth == i + 1) {
		r->err = vnprofile_capture_start(r->cap);
		if (r->err)
			return 1;
	}
	return 0;
}

/*
 * Runs the program --num-exec times, tracing all executions or the --profile-nth-exec
 * one; a failed execution stops the runs unless --ignore-exec-errors. 0 or -errno
 * (said); r->failed counts the executions that did not end OK.
 */
static int run_execs(struct run *r, const struct cap_opts *o)
{
	int ret;

	r->o = o;
	r->tty = isatty(2) && !o->quiet;
	if (o->nth <= 1) {
		ret = vnprofile_capture_start(r->cap);
		if (ret)
			return ret;
	}
	nd_runner_set_each(r->r, run_each, r);
	r->t0 = cap_now_ns();
	ret = nd_runner_run(r->r, o->num_exec, ND_RUN_KEEP_GOING, NULL);
	if (r->err)
		return r->err;
	/* a failed execution was said by run_each(); one that could not run is said here */
	if (ret && !r->stopped && r->seen < o->num_exec) {
		const char *msg = nd_runner_error(r->r), *words = strstr(msg, ": ");

		/* on the host, capture has always said the backend's words alone */
		if (o->host && !strncmp(msg, "execution ", 10) && words)
			msg = words + 2;
		cap_err("%s", msg);
		return ret;
	}
	if (r->tty)
		cap_progress(r->cap, r->stopped ? r->seen : o->num_exec, o->num_exec, r->t0,
			     &r->last, 1);
	return 0;
}

int cap_stopped_by_signal(void)
{
	int sig = vnp_signalled();

	cap_err("stopped by %s after the running execution; the profile is complete",
		strsignal(sig));
	return 128 + sig;
}

/* --host: the host core the program runs on, traced as core 0 of device 0. */
static int open_host(struct run *r, const struct cap_opts *o, int *status)
{
	struct vnprofile_target t = { .device = 0, .core = 0 };
	struct nd_error e;
	const void *image;
	size_t size;
	int ret;

	*status = VNP_EXIT_SYSTEM;
	ret = nd_runner_open_host(NULL, &r->r, &e);
	if (ret) {
		cap_err("%s", e.msg);
		return ret;
	}
	ret = run_bind(r, o, status);
	if (ret)
		return ret;
	*status = VNP_EXIT_SYSTEM;
	t.host = nd_runner_host(r->r, 0);
	image = cap_prog_image(r->prog, &size);
	return cap_open(o, &t, 1, 0, image, size, &r->cap);
}

/* The program on the core given (or core 0), on a device file of the runner's own. */
static int open_device(struct run *r, const struct cap_opts *o, int *status)
{
	struct vnprofile_target t = { .device = o->device, .core = o->nr_cores ? o->cores[0] : 0 };
	struct nd_error e;
	const void *image;
	size_t size;
	int ret;

	/* the capture first: it says which core a device lacks, as --core */
	image = cap_prog_image(r->prog, &size);
	ret = cap_open(o, &t, 1, 0, image, size, &r->cap);
	if (ret) {
		*status = ret == -ERANGE ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
		return ret;
	}
	*status = VNP_EXIT_SYSTEM;
	ret = nd_runner_open_device(o->device, t.core, &r->r, &e);
	if (ret) {
		cap_err("%s", e.msg);
		return ret;
	}
	return run_bind(r, o, status);
}

/* Every input named is an input of the program: bad input before anything opens. */
static int check_inputs(const struct vn_program *p, const struct cap_opts *o)
{
	unsigned int i;
	int j;

	for (i = 0; i < o->nr_inputs; i++) {
		j = vn_program_tensor(p, o->inputs[i].name);
		if (j < 0 || p->tensors[j].kind != VNEF_TENSOR_INPUT) {
			cap_err("%s has no input tensor '%s'", o->program, o->inputs[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

int cap_program(struct cap_opts *o)
{
	struct run r = { 0 };
	int ret, status;

	ret = cap_prog_open(o->program, &r.prog);
	if (!ret)
		ret = check_inputs(r.prog, o);
	if (ret) {
		status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		goto out;
	}
	ret = o->host ? open_host(&r, o, &status) : open_device(&r, o, &status);
	if (ret)
		goto out;
	status = VNP_EXIT_SYSTEM;
	if (run_execs(&r, o))
		goto out;
	ret = vnprofile_capture_finish(r.cap, 0);
	status = ret ? VNP_EXIT_SYSTEM : r.failed ? VNP_EXIT_INPUT : VNP_EXIT_OK;
	if (!ret && vnp_signalled())
		status = cap_stopped_by_signal();
	if (r.failed && o->ignore_errors)
		cap_err("%u of %u executions failed", r.failed, o->num_exec);
out:
	run_free(&r);
	return status;
}
