// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * capture's program form (docs/capture.md): the program run by libvnprog's
 * runner (vnrun.h) on one core of a device (the runner's own device file; libvnprofile
 * traces on another) or on the runner's host core (--host, traced through its trace
 * sink), --num-exec times, all traced or the --profile-nth-exec one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin-capture.h"
#include "vnrun.h"

/* The program form's run: libvnprog's runner, the program loaded and its tensors bound. */
struct run {
	struct vn_program *prog;	/* validated by the kernel's loader; the identity */
	struct cap_run cr;
};

static void run_free(struct run *r)
{
	/* the trace session before the host core it traces */
	vnprofile_capture_close(r->cr.cap);
	nd_runner_close(r->cr.r);
	nd_runner_close(r->cr.reader);
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
	fprintf(stderr, "\rexecution %u/%u, %llu records, %.1f MiB, %.1f s%s", i, n,
		(unsigned long long)vnprofile_capture_records(c),
		vnprofile_capture_bytes(c) / 1048576.0, (double)(t - t0) / 1e9, done ? "\n" : "");
}

int cap_stopped_by_signal(void)
{
	int sig = vnp_signalled();

	cap_err("stopped by %s after the running execution; the profile is complete",
		strsignal(sig));
	return 128 + sig;
}

/*
 * --host: the host core the program runs on, traced as core 0 of device 0; with --lnc 2
 * a logical core, its program ids traced as cores 0 and 1.
 */
static int open_host(struct run *r, const struct cap_opts *o, int *status)
{
	struct vnprofile_target t = { .device = 0, .core = 0 };
	struct nd_error e;
	const void *image;
	size_t size;
	int ret;

	*status = VNP_EXIT_SYSTEM;
	ret = nd_runner_open_host(o->model, &r->cr.r, &e);
	if (ret) {
		cap_err("%s", e.msg);
		return ret;
	}
	if (o->lnc > 1 && nd_runner_set_lnc(r->cr.r, o->lnc)) {
		*status = VNP_EXIT_INPUT;
		cap_err("--lnc: %s", nd_runner_error(r->cr.r));
		return -EINVAL;
	}
	ret = cap_load(r->cr.r, r->prog, o, 0, ND_BIND_LITERAL, NULL, status);
	if (ret)
		return ret;
	t.host = nd_runner_host(r->cr.r, 0);
	image = cap_prog_image(r->prog, &size);
	return cap_open(o, &t, 1, o->lnc > 1 ? VNPROFILE_CAPTURE_LNC2 : 0, image, size,
			&r->cr.cap);
}

/*
 * The program on the core given (or core 0), on a device file of the runner's own; with
 * --lnc 2 on the logical core of that even core and the next, both traced.
 */
static int open_device(struct run *r, const struct cap_opts *o, int *status)
{
	struct vnprofile_target t = { .device = o->device, .core = o->nr_cores ? o->cores[0] : 0 };
	struct nd_error e;
	const void *image;
	size_t size;
	int ret;

	/* the inputs before the device; the capture next: it says a core a device lacks */
	ret = cap_read_inputs(r->prog, o, 1, 0, ND_BIND_LITERAL, &r->cr.reader, status);
	if (ret)
		return ret;
	image = cap_prog_image(r->prog, &size);
	ret = cap_open(o, &t, 1, o->lnc > 1 ? VNPROFILE_CAPTURE_LNC2 : 0, image, size,
		       &r->cr.cap);
	if (ret) {
		cap_host_hint(o, ret);
		*status = ret == -ERANGE ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
		return ret;
	}
	*status = VNP_EXIT_SYSTEM;
	ret = nd_runner_open_device(o->device, t.core, &r->cr.r, &e);
	if (ret) {
		cap_err("%s", e.msg);
		cap_host_hint(o, ret);
		return ret;
	}
	/* LNC=2: the runner's device handle launches on the logical core (nd_set_lnc()) */
	if (o->lnc > 1 && nd_runner_set_lnc(r->cr.r, o->lnc)) {
		*status = VNP_EXIT_INPUT;
		cap_err("--lnc: %s", nd_runner_error(r->cr.r));
		return -EINVAL;
	}
	return cap_load(r->cr.r, r->prog, o, 0, 0, r->cr.reader, status);
}

int cap_program(struct cap_opts *o)
{
	struct run r = { 0 };
	int ret, status;

	ret = cap_prog_open(o->program, &r.prog);
	if (!ret)
		ret = cap_check_inputs(r.prog, o);
	if (ret) {
		status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		goto out;
	}
	ret = o->host ? open_host(&r, o, &status) : open_device(&r, o, &status);
	if (ret)
		goto out;
	status = VNP_EXIT_SYSTEM;
	if (cap_run_execs(&r.cr, o))
		goto out;
	ret = vnprofile_capture_finish(r.cr.cap, 0);
	status = ret ? VNP_EXIT_SYSTEM : r.cr.failed ? VNP_EXIT_INPUT : VNP_EXIT_OK;
	if (!ret && vnp_signalled())
		status = cap_stopped_by_signal();
	if (r.cr.failed && o->ignore_errors)
		cap_err("%u of %u executions failed", r.cr.failed, o->num_exec);
out:
	run_free(&r);
	return status;
}
