// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * capture's program run, both forms, on libvnprog's runner (vnrun.h): the program read
 * and validated by the kernel's own loader (core/program.c: its identity in the profile,
 * capture's message), its input files bound to the runner (.npy or raw, {rank} per
 * worker), and the executions with what capture does between them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "builtin-capture.h"
#include "vn_program.h"
#include "vnrun.h"

int cap_prog_open(const char *path, struct vn_program **p)
{
	struct vn_prog_error pe = { 0 };
	void *image = NULL;
	size_t size = 0;
	int ret;

	*p = NULL;
	ret = nd_read_file(path, VNEF_MAX_IMAGE_BYTES, &image, &size);
	if (ret) {
		cap_err("%s: %s", path, ret == -EFBIG ? "larger than a program can be" :
			strerror(-ret));
		return ret;
	}
	/* the loader keeps its own copy */
	ret = vn_program_load(image, size, p, &pe);
	free(image);
	if (ret)
		cap_err("%s: invalid program: %s (%s, section %d, entry %d)", path,
			pe.msg ? pe.msg : "rejected", vn_check_name(pe.check), (int)pe.section,
			(int)pe.index);
	return ret;
}

const void *cap_prog_image(const struct vn_program *p, size_t *size)
{
	*size = p ? p->size : 0;
	return p ? p->image : NULL;
}

void cap_prog_free(struct vn_program *p)
{
	if (p)
		vn_program_put(p);
}

int cap_check_inputs(const struct vn_program *p, const struct cap_opts *o)
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

void cap_runner_err(struct nd_runner *r)
{
	const char *msg = nd_runner_error(r), *rest;
	unsigned int n;
	int len = 0;

	/* "4 ranks need 2 more cores ...", "rank 1 on /dev/vneuron0 core 1: ..." */
	if (sscanf(msg, "%u ranks need %n", &n, &len) == 1 && len) {
		cap_err("%u workers need %s", n, msg + len);
		return;
	}
	rest = !strncmp(msg, "rank ", 5) ? msg + 5 : NULL;
	if (rest && sscanf(rest, "%u on %n", &n, &len) == 1 && len) {
		cap_err("worker %s", rest);
		return;
	}
	cap_err("%s", msg);
}

/* r's inputs bound to reader's bytes (cap_read_inputs()), the others zeros. */
static int bind_read(struct nd_runner *r, struct nd_runner *reader, const struct cap_opts *o)
{
	unsigned int i, k, n = nd_runner_ranks(r);
	const void *data;
	uint64_t size;
	int ret = 0;

	for (i = 0; i < o->nr_inputs && !ret; i++)
		for (k = 0; k < n && !ret; k++)
			ret = nd_runner_input(reader, k, o->inputs[i].name, &data, &size) ?:
			      nd_runner_bind(r, k, o->inputs[i].name, (void *)data, size);
	if (!ret)
		ret = nd_runner_bind_zeros(r, ND_RUNNER_ALL, NULL);
	if (ret)
		cap_err("%s", nd_runner_error(ret == -ENOENT ? reader : r));
	return ret;
}

int cap_load(struct nd_runner *r, const struct vn_program *p, const struct cap_opts *o,
	     unsigned int rank, unsigned int flags, struct nd_runner *reader, int *status)
{
	const void *image;
	unsigned int i, k;
	size_t size;
	int ret;

	image = cap_prog_image(p, &size);
	ret = nd_runner_load_image(r, image, size, o->program, NULL);
	if (ret) {
		cap_err("%s", nd_runner_error(r));
		*status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		return ret;
	}
	if (reader) {
		*status = VNP_EXIT_SYSTEM;
		return bind_read(r, reader, o);
	}
	for (i = 0; i < o->nr_inputs; i++) {
		const char *msg;

		for (k = 0; k < i; k++)
			if (!strcmp(o->inputs[k].name, o->inputs[i].name))
				break;
		if (k < i)
			continue;
		ret = nd_runner_bind_file(r, rank, o->inputs[i].name, o->inputs[i].path,
					  ND_BIND_INPUT | ND_BIND_ANY_SHAPE | ND_BIND_RAW | flags);
		if (!ret)
			continue;
		/* "input 'x': x.npy: No such file or directory", as capture has said it */
		msg = nd_runner_error(r);
		if (strstr(msg, "input '"))
			cap_err("%s", msg);
		else
			cap_err("input '%s': %s", o->inputs[i].name, msg);
		*status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		return ret;
	}
	ret = nd_runner_bind_zeros(r, rank, NULL);
	if (ret) {
		cap_err("%s", nd_runner_error(r));
		*status = VNP_EXIT_SYSTEM;
	}
	return ret;
}

int cap_read_inputs(const struct vn_program *p, const struct cap_opts *o, unsigned int ranks,
		    unsigned int first, unsigned int flags, struct nd_runner **reader,
		    int *status)
{
	struct nd_runner_ranks rk = { .count = ranks, .flags = ND_RANKS_NO_COMM,
				      .first = first };
	struct nd_error e;
	int ret;


	*status = VNP_EXIT_SYSTEM;
	/*
	 * It only reads: the widest model (every SBUF size and dtype of the others), so a
	 * program the device's model accepts is never refused here for trn1's limits.
	 */
	ret = nd_runner_open_host(nd_model_widest(), reader, &e);
	if (ret) {
		cap_err("%s", e.msg);
		return ret;
	}
	ret = ranks > 1 || first ? nd_runner_set_ranks(*reader, &rk) : 0;
	if (ret) {
		cap_err("%s", nd_runner_error(*reader));
		return ret;
	}
	return cap_load(*reader, p, o, ranks > 1 ? ND_RUNNER_ALL : 0, flags, NULL, status);
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

/* "worker 2: execution 1 ended ABORTED: collective 0 (ALL_REDUCE) ... rank 1 left" */
static void worker_failed(struct cap_run *cr, unsigned int w, unsigned int i,
			  const struct nd_runner_exec *x)
{
	const struct cap_opts *o = cr->o;
	char what[256];

	if (o->host)
		/* no module to ask: the status and reason */
		snprintf(what, sizeof(what), "%s (reason %u)",
			 vnprofile_exec_reason_name(x->res.reason), x->res.reason);
	else
		nd_runner_describe(cr->r, w, x, what, sizeof(what));
	cap_err("worker %u: execution %u ended %s: %s%s", w, i,
		vnprofile_exec_status_name(x->res.result), what,
		o->ignore_errors ? "; going on (--ignore-exec-errors)" : "");
}

/*
 * The size the run is heading for, said once when it is big or --max-size was given,
 * with where the limit will stop it: the bytes of executions 2 and 3 (the drainer may
 * still hold some of an execution's records when it ends: a difference between two
 * ends is steady), or of the first when there are fewer than 4, times --num-exec.
 */
static void size_estimate(struct cap_run *cr, unsigned int i)
{
	const struct cap_opts *o = cr->o;
	uint64_t now = vnprofile_capture_bytes(cr->cap), each, est;
	unsigned int over = o->num_exec < 4 ? 1 : 2;
	char a[32], b[32], c[32];

	if (i == 1)
		cr->first_bytes = now;
	if (cr->estimated || o->quiet || o->nth || i != (over == 1 ? 1 : 3) ||
	    i >= o->num_exec)
		return;
	cr->estimated = 1;
	each = (now - (over == 1 ? cr->base_bytes : cr->first_bytes)) / over;
	est = each && each > (UINT64_MAX - cr->base_bytes) / o->num_exec ? UINT64_MAX :
	      cr->base_bytes + each * o->num_exec;
	if (est < CAP_SAY_SIZE && !o->max_bytes)
		return;
	if (cr->tty && cr->last)
		fputc('\n', stderr);
	fprintf(stderr, "capture: about %s expected for %u executions (%s each, measured "
		"over %s)", vnp_cli_size((double)est, a, sizeof(a)), o->num_exec,
		vnp_cli_size((double)each, b, sizeof(b)),
		over == 1 ? "the first" : "the second and third");
	if (!o->max_bytes)
		fputs("; --max-size BYTES caps it\n", stderr);
	else if (est <= o->max_bytes)
		fputs(", within --max-size\n", stderr);
	else
		fprintf(stderr, "; --max-size %s stops it after about %llu\n",
			vnp_cli_size((double)o->max_bytes, c, sizeof(c)),
			(unsigned long long)((o->max_bytes - cr->base_bytes) / (each ? each : 1)));
}

/*
 * After execution i (nd_runner_set_each()): the --profile-nth-exec tracing stopped
 * after it and started before the next, each failure said (the runs stop unless
 * --ignore-exec-errors), the progress, a signal. Nonzero stops the runs.
 */
static int cap_each(void *arg, unsigned int i, const struct nd_runner_exec *x,
		    unsigned int ranks)
{
	struct cap_run *cr = arg;
	const struct cap_opts *o = cr->o;
	unsigned int w, bad = 0;

	cr->seen = i;
	if (o->nth == i) {
		cr->err = vnprofile_capture_stop(cr->cap);
		if (cr->err)
			return 1;
	}
	for (w = 0; w < ranks; w++) {
		if (x[w].res.result == VNEURON_EXEC_OK)
			continue;
		if (cr->tty && cr->last && !bad)
			fputc('\n', stderr);
		if (o->workers)
			worker_failed(cr, w, i, &x[w]);
		else
			exec_failed(&x[w].res, i, o);
		bad++;
	}
	cr->failed += bad;
	if (bad && !o->ignore_errors)
		return cr->stopped = 1;
	size_estimate(cr, i);
	if (cr->tty)
		cap_progress(cr->cap, i, o->num_exec, cr->t0, &cr->last, 0);
	if (vnp_signalled())
		return cr->stopped = 1;
	/* at --max-size: what runs next would not be written */
	if (o->max_bytes && vnprofile_capture_cut(cr->cap) && i < o->num_exec) {
		cr->cut = 1;
		return cr->stopped = 1;
	}
	if (o->nth == i + 1) {
		cr->err = vnprofile_capture_start(cr->cap);
		if (cr->err)
			return 1;
	}
	return 0;
}

int cap_run_execs(struct cap_run *cr, const struct cap_opts *o)
{
	int ret;

	cr->o = o;
	cr->tty = isatty(2) && !o->quiet;
	if (o->nth <= 1) {
		ret = vnprofile_capture_start(cr->cap);
		if (ret)
			return ret;
	}
	cr->base_bytes = vnprofile_capture_bytes(cr->cap);
	nd_runner_set_each(cr->r, cap_each, cr);
	cr->t0 = cap_now_ns();
	ret = nd_runner_run(cr->r, o->num_exec, ND_RUN_KEEP_GOING, NULL);
	if (cr->err)
		return cr->err;
	/* a failed execution was said by cap_each(); one that could not run is said here */
	if (ret && !cr->stopped && cr->seen < o->num_exec) {
		const char *msg = nd_runner_error(cr->r), *words = strstr(msg, ": ");

		if (o->workers) {
			cap_runner_err(cr->r);
			return ret;
		}
		/* on the host, capture has always said the backend's words alone */
		if (o->host && !strncmp(msg, "execution ", 10) && words)
			msg = words + 2;
		cap_err("%s", msg);
		return ret;
	}
	if (cr->tty)
		cap_progress(cr->cap, cr->stopped ? cr->seen : o->num_exec, o->num_exec, cr->t0,
			     &cr->last, 1);
	if (cr->cut)
		cap_err("stopped after execution %u of %u at --max-size %llu", cr->seen,
			o->num_exec, (unsigned long long)o->max_bytes);
	return 0;
}
