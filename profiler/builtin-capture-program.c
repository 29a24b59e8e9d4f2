// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * capture's program form (docs/profiler.md, "capture"): the program on one core of a
 * device (its own device file; libvnprofile traces on another) or on a host handle
 * (--host), run --num-exec times, all traced or the --profile-nth-exec one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin-capture.h"

/* The program form's run: the program on a device file of its own, its tensors' buffers. */
struct run {
	struct vn_program *prog;
	struct vnprofile_capture *cap;
	struct nd_device *dev;
	struct nd_program *loaded;
	unsigned int nb;
	struct nd_bind *binds;
	struct nd_mem **mems;
	/* --host: the host core and its buffers instead of device memory */
	struct nd_host *host;
	unsigned int nht;
	struct nd_host_tensor *ht;
};

/* The program on a device file of its own. 0 or -errno (said). */
static int run_open(struct run *r, const struct cap_opts *o)
{
	struct nd_error e;
	int ret = nd_open(o->device, &r->dev, &e);

	if (ret) {
		cap_err("%s", e.msg);
		cap_host_hint(o, ret);
	}
	return ret;
}

/* Loads the program on the device: what the kernel refuses is bad input. */
static int run_load(struct run *r, const struct cap_opts *o)
{
	struct nd_load_error le;
	const void *image;
	size_t size;
	int ret;

	image = cap_prog_image(r->prog, &size);
	ret = nd_program_load(r->dev, image, size, &r->loaded, &le);
	if (ret)
		cap_err("%s: %s", o->program, nd_device_error(r->dev));
	return ret;
}

static void run_free(struct run *r)
{
	cap_host_tensors_free(r->ht, r->nht);
	cap_unbind_tensors(r->nb, r->binds, r->mems);
	if (r->loaded)
		nd_program_unload(r->loaded);
	nd_close(r->dev);
	vnprofile_capture_close(r->cap);
	nd_host_close(r->host);
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
 * Runs the program --num-exec times, tracing all executions or the --profile-nth-exec
 * one; a failed execution stops the runs unless --ignore-exec-errors. 0 or -errno
 * (said); *failed counts the executions that did not end OK.
 */
static int run_execs(struct run *r, const struct cap_opts *o, unsigned int *failed)
{
	int tty = isatty(2) && !o->quiet, ret;
	uint64_t t0, last = 0;
	unsigned int i;

	*failed = 0;
	if (!o->nth) {
		ret = vnprofile_capture_start(r->cap);
		if (ret)
			return ret;
	}
	t0 = cap_now_ns();
	for (i = 1; i <= o->num_exec; i++) {
		struct nd_run_result res;
		uint64_t id;

		if (o->nth == i) {
			ret = vnprofile_capture_start(r->cap);
			if (ret)
				return ret;
		}
		if (o->host) {
			ret = cap_host_exec(r->host, r->prog, r->ht, r->nht, &res);
		} else {
			ret = nd_exec(r->loaded, o->nr_cores ? o->cores[0] : 0, r->binds, r->nb, 0,
				      &id) ?: nd_wait(r->dev, id, ND_WAIT_FOREVER, &res);
			if (ret)
				cap_err("execution %u: %s", i, nd_device_error(r->dev));
		}
		if (ret)
			return ret;
		if (o->nth == i) {
			ret = vnprofile_capture_stop(r->cap);
			if (ret)
				return ret;
		}
		if (res.result != VNEURON_EXEC_OK) {
			if (tty && last)
				fputc('\n', stderr);
			exec_failed(&res, i, o);
			++*failed;
			if (!o->ignore_errors)
				break;
		}
		if (tty)
			cap_progress(r->cap, i, o->num_exec, t0, &last, 0);
		if (vnp_signalled())
			break;
	}
	if (tty)
		cap_progress(r->cap, i > o->num_exec ? o->num_exec : i, o->num_exec, t0, &last, 1);
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
static int open_host(struct run *r, const struct cap_opts *o)
{
	struct vnprofile_target t = { .device = 0, .core = 0 };
	struct nd_error e;
	const void *image;
	size_t size;
	int ret;

	ret = nd_host_open(NULL, &r->host, &e);
	if (ret) {
		cap_err("%s", e.msg);
		return ret;
	}
	t.host = r->host;
	image = cap_prog_image(r->prog, &size);
	return cap_open(o, &t, 1, 0, image, size, &r->cap);
}

int cap_program(struct cap_opts *o)
{
	struct vnprofile_target t = { .device = o->device, .core = o->nr_cores ? o->cores[0] : 0 };
	struct run r = { 0 };
	unsigned int failed = 0;
	const void *image;
	size_t size;
	int ret, status;

	ret = cap_prog_open(o->program, &r.prog);
	if (ret) {
		status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		goto out;
	}
	ret = cap_read_inputs(r.prog, o);
	if (ret) {
		status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		goto out;
	}
	status = VNP_EXIT_SYSTEM;
	if (o->host) {
		/* the host backend: nothing to open or load, buffers in this process */
		if (open_host(&r, o) || cap_host_tensors(r.prog, o, 0, &r.nht, &r.ht) ||
		    run_execs(&r, o, &failed))
			goto out;
		goto finish;
	}
	/* one core: the one given, or core 0 */
	image = cap_prog_image(r.prog, &size);
	ret = cap_open(o, &t, 1, 0, image, size, &r.cap);
	if (ret) {
		cap_host_hint(o, ret);
		status = ret == -ERANGE ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
		goto out;
	}
	if (run_open(&r, o))
		goto out;
	if (run_load(&r, o)) {
		status = VNP_EXIT_INPUT;
		goto out;
	}
	if (cap_bind_tensors(r.dev, r.prog, o, 0, &r.nb, &r.binds, &r.mems) ||
	    run_execs(&r, o, &failed))
		goto out;
finish:
	ret = vnprofile_capture_finish(r.cap, 0);
	status = ret ? VNP_EXIT_SYSTEM : failed ? VNP_EXIT_INPUT : VNP_EXIT_OK;
	if (!ret && vnp_signalled())
		status = cap_stopped_by_signal();
	if (failed && o->ignore_errors)
		cap_err("%u of %u executions failed", failed, o->num_exec);
out:
	cap_free_inputs(o);
	run_free(&r);
	return status;
}
