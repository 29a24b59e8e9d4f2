// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * What the examples share: options, running a built program through libvnprog's runner
 * (vnrun.h) on a device or the host backend, alone or as ranks, a PRNG and checks.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

/* A runner with its program: one core, or ranks (ex_group). */
struct ex_ctx {
	struct nd_runner *r;
};

const char ex_common_help[] =
"    --host              run on the host backend (the device core built into\n"
"                        libvncore) instead of /dev/vneuronD: no module needed\n"
"    --model NAME        with --host, the device model: trn1 (NeuronCore-v2, the\n"
"                        default), trn2 (-v3) or trn3 (-v4); the program is built\n"
"                        for it and its figures give the modeled time\n"
"                        (docs/isa.md, \"Device models\"). A device has the model\n"
"                        its module was loaded with (insmod vneuron.ko model=NAME)\n"
"    --device D          use /dev/vneuronD (default 0)\n"
"    --core C            run on core C of the device (default 0)\n"
"    --write-vnef FILE   also write the program to FILE, e.g. for\n"
"                        'vneuron-profile capture -n FILE -s profile.vntf';\n"
"                        an existing FILE is refused (before anything runs)\n"
"                        unless --force-overwrite; FILE is written whole or\n"
"                        not at all (a temporary file renamed into place);\n"
"                        with no device (no module loaded) and no --host, the\n"
"                        program is written, not run, and the status is 0\n"
"    --force-overwrite   let --write-vnef replace an existing FILE\n"
"    --time-limit S      end an execution that runs longer than S seconds of host\n"
"                        time (default 30, the module's; 1..3600): for slow or\n"
"                        emulated machines\n"
"    -q, --quiet         print only the result line\n"
"    -h, --help          this help\n";

static const char *ex_name = "example";
/* The command line, for the --host form of the same command when there is no device. */
static int ex_argc;
static char **ex_argv;

/* "example-exp --host --variant naive ..." on stderr: the command again, on the host. */
static void host_form(void)
{
	int i;

	fprintf(stderr, "  without the module, run it on the host backend: %s --host", ex_name);
	for (i = 1; i < ex_argc; i++) {
		/* the program was written already: the host form only runs it */
		if (!strcmp(ex_argv[i], "--write-vnef") && i + 1 < ex_argc) {
			i++;
			continue;
		}
		if (strcmp(ex_argv[i], "--force-overwrite"))
			fprintf(stderr, " %s", ex_argv[i]);
	}
	fputc('\n', stderr);
}

/* Whether an open of the device failed because there is none (no module loaded). */
static int no_device(int ret)
{
	return ret == -ENOENT || ret == -ENXIO || ret == -ENODEV;
}

void ex_bad_value(const char *opt, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", ex_name, opt);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A decimal number up to max in *v: 0, or -1 if s is not one. */
static int to_uint(const char *s, unsigned long max, unsigned int *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = s ? strtoul(s, &end, 10) : 0;
	if (!s || !*s || *end || errno || x > max)
		return -1;
	*v = (unsigned int)x;
	return 0;
}

static int parse_uint(const char *opt, const char *s, unsigned int *v)
{
	if (to_uint(s, 1024, v)) {
		ex_bad_value(opt, "expects a number, got '%s'", s ? s : "");
		return -1;
	}
	return 0;
}

/* The common options: how many arguments they took (1 or 2), 0 if none, -1 if bad. */
static int common_arg(struct ex_opts *o, const char *a, const char *v)
{
	if (!strcmp(a, "--host")) {
		o->host = 1;
	} else if (!strcmp(a, "--force-overwrite")) {
		o->force = 1;
	} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
		o->quiet = 1;
	} else if (!strcmp(a, "--device") || !strcmp(a, "--core")) {
		return parse_uint(a, v, a[2] == 'd' ? &o->device : &o->core) ? -1 : 2;
	} else if (!strcmp(a, "--model")) {
		struct nd_error err = { 0 };

		if (nd_model_lookup(v, &o->model, &err)) {
			ex_bad_value(a, "%s", v ? err.msg : "expects a model name (trn1, trn2, trn3)");
			return -1;
		}
		return 2;
	} else if (!strcmp(a, "--time-limit")) {
		if (to_uint(v, 3600, &o->time_limit_s) || !o->time_limit_s) {
			ex_bad_value(a, "expects 1 to 3600 seconds, got '%s'", v ? v : "");
			return -1;
		}
		return 2;
	} else if (!strcmp(a, "--write-vnef")) {
		if (!v) {
			ex_bad_value(a, "expects a file name");
			return -1;
		}
		o->write_vnef = v;
		return 2;
	} else {
		return 0;
	}
	return 1;
}

int ex_parse_args(struct ex_opts *o, const struct ex_cmdline *cl, int argc, char **argv)
{
	char msg[PATH_MAX + 128];
	int i = 1, n;

	ex_name = cl->name;
	ex_argc = argc;
	ex_argv = argv;
	while (i < argc) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cl->usage(stdout);
			return 1;
		}
		n = common_arg(o, a, v);
		if (!n && cl->own)
			n = cl->own(cl->ctx, a, v);
		if (n < 0)
			return -1;
		if (!n) {
			fprintf(stderr, "%s: unknown argument '%s' (see --help)\n", ex_name, a);
			return -1;
		}
		i += n;
	}
	if (o->model && !o->host) {
		fprintf(stderr, "%s: --model %.16s is for --host: a device has the model its "
			"module was loaded with (vneuron-ls shows it)\n", ex_name, o->model->name);
		return -1;
	}
	/* the output is checked before anything runs: an existing file is someone's work */
	if (o->write_vnef && nd_out_check(o->write_vnef, NULL, 0, o->force ? ND_OUT_FORCE : 0,
					  msg, sizeof(msg))) {
		fprintf(stderr, "%s: --write-vnef %s\n", ex_name, msg);
		return -1;
	}
	return 0;
}

int ex_one_or_both(const char *opt, const char *v, const char *a, const char *b, int *has_a,
		   int *has_b)
{
	if (!v) {
		ex_bad_value(opt, "expects %s, %s or both", a, b);
		return -1;
	}
	*has_a = !strcmp(v, a) || !strcmp(v, "both");
	*has_b = !strcmp(v, b) || !strcmp(v, "both");
	if (!*has_a && !*has_b) {
		ex_bad_value(opt, "%s, %s or both, not '%s'", a, b, v);
		return -1;
	}
	return 2;
}

int ex_builder_new(const struct ex_opts *o, const char *name, struct nd_builder **bp)
{
	int ret = nd_builder_new(name, bp);

	if (ret || !o->model)
		return ret;
	ret = nd_builder_set_model(*bp, o->model->name);
	if (ret) {
		fprintf(stderr, "%s: %s\n", ex_name, nd_builder_error(*bp));
		nd_builder_free(*bp);
		*bp = NULL;
	}
	return ret;
}

/* Finish the builder, write --write-vnef, open the runner (ranks if nranks) and load. */
static int ctx_open(const struct ex_opts *o, unsigned int nranks, unsigned int cpd,
		    struct nd_builder *b, struct ex_ctx **cp)
{
	struct nd_error err = { 0 };
	struct ex_ctx *c;
	size_t size;
	void *image;
	int ret;

	*cp = NULL;
	ret = nd_builder_finish(b, &image, &size);
	if (ret) {
		fprintf(stderr, "%s: build: %s\n", ex_name, nd_builder_error(b));
		return ret;
	}
	if (o->write_vnef) {
		char msg[PATH_MAX * 2 + 256];

		ret = nd_out_write(o->write_vnef, image, size, o->force ? ND_OUT_FORCE : 0, msg,
				   sizeof(msg));
		if (ret) {
			fprintf(stderr, "%s: --write-vnef %s\n", ex_name, msg);
			free(image);
			return ret;
		}
		if (!o->quiet)
			printf("wrote %s (%zu bytes)\n", o->write_vnef, size);
	}
	c = calloc(1, sizeof(*c));
	ret = -ENOMEM;
	if (!c)
		goto out;
	/* ranks count cores from core 0 of the device */
	ret = o->host ? nd_runner_open_host(o->model, &c->r, &err) :
			nd_runner_open_device(o->device, nranks ? 0 : o->core, &c->r, &err);
	if (ret && o->write_vnef && !o->host && no_device(ret)) {
		/* the program is what was asked for: written, not run, and said so */
		fprintf(stderr, "%s: wrote %s; not run: %s\n", ex_name, o->write_vnef, err.msg);
		host_form();
		free(image);
		ex_close(c);
		exit(0);
	}
	if (ret) {
		fprintf(stderr, "%s: %s%s\n", ex_name, o->host ? "host backend: " : "", err.msg);
		if (!o->host && no_device(ret))
			host_form();
		goto out;
	}
	if (o->time_limit_s)
		nd_runner_set_limit(c->r, o->time_limit_s * 1000000000ull);
	if (nranks) {
		ret = nd_runner_set_ranks(c->r, &(struct nd_runner_ranks){
					  .count = nranks, .cores_per_device = cpd });
		if (ret) {
			fprintf(stderr, "%s: %u ranks: %s\n", ex_name, nranks,
				nd_runner_error(c->r));
			goto out;
		}
	}
	ret = nd_runner_load_image(c->r, image, size, NULL, NULL);
	if (ret)
		fprintf(stderr, "%s: load: %s\n", ex_name, nd_runner_error(c->r));
out:
	free(image);
	if (ret)
		ex_close(c);
	else
		*cp = c;
	return ret;
}

int ex_open(const struct ex_opts *o, struct nd_builder *b, struct ex_ctx **cp)
{
	return ctx_open(o, 0, 0, b, cp);
}

/* Bind rank's buffers (the runner reads inputs from and writes outputs into them). */
static int bind(struct ex_ctx *c, unsigned int rank, const struct ex_buf *bufs, unsigned int n)
{
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = nd_runner_bind(c->r, rank, bufs[i].name, bufs[i].data, bufs[i].size);
		if (ret) {
			fprintf(stderr, "%s: run: %s\n", ex_name, nd_runner_error(c->r));
			return ret;
		}
	}
	return 0;
}

int ex_run(struct ex_ctx *c, const struct ex_buf *bufs, unsigned int n, uint64_t *model_ps)
{
	struct nd_runner_exec x;
	int ret = bind(c, 0, bufs, n);

	if (ret)
		return ret;
	ret = nd_runner_run(c->r, 1, 0, &x);
	if (ret) {
		fprintf(stderr, "%s: run: %s\n", ex_name, nd_runner_error(c->r));
		return ret;
	}
	if (model_ps)
		*model_ps = x.res.model_ps;
	return 0;
}

void ex_close(struct ex_ctx *c)
{
	if (!c)
		return;
	nd_runner_close(c->r);
	free(c);
}

const char *ex_where(const struct ex_ctx *c)
{
	return nd_runner_where(c->r);
}

/* ---- groups of ranks: one runner with ranks ---- */

struct ex_group {
	struct ex_ctx *c;
};

int ex_group_open(const struct ex_opts *o, unsigned int nranks, unsigned int cores_per_device,
		  struct nd_builder *b, struct ex_group **gp)
{
	struct ex_group *g;
	int ret;

	*gp = NULL;
	if (!nranks || nranks > ND_RUNNER_MAX_RANKS || !cores_per_device)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	ret = ctx_open(o, nranks, cores_per_device, b, &g->c);
	if (ret) {
		free(g);
		return ret;
	}
	*gp = g;
	return 0;
}

int ex_group_run(struct ex_group *g, struct ex_buf *const *bufs, unsigned int n,
		 uint64_t *model_ps)
{
	struct nd_runner_exec x[ND_RUNNER_MAX_RANKS];
	unsigned int r, nr = nd_runner_ranks(g->c->r);
	struct nd_runner_place pl;
	char what[256];
	uint64_t ps = 0;

	for (r = 0; r < nr; r++)
		if (bind(g->c, r, bufs[r], n))
			return -1;
	if (!nd_runner_run(g->c->r, 1, 0, x)) {
		for (r = 0; r < nr; r++)
			ps = x[r].res.model_ps > ps ? x[r].res.model_ps : ps;
		if (model_ps)
			*model_ps = ps;
		return 0;
	}
	fprintf(stderr, "%s: run: %s\n", ex_name, nd_runner_error(g->c->r));
	for (r = 0; r < nr; r++) {
		if (!x[r].err || nd_runner_place(g->c->r, r, &pl))
			continue;
		nd_runner_describe(g->c->r, r, &x[r], what, sizeof(what));
		if (nd_runner_is_host(g->c->r))
			fprintf(stderr, "%s: rank %u (the host backend) failed: %s\n", ex_name, r,
				what);
		else
			fprintf(stderr, "%s: rank %u (/dev/vneuron%u core %u) failed: %s\n",
				ex_name, r, pl.device, pl.core, what);
	}
	return -1;
}

void ex_group_close(struct ex_group *g)
{
	if (!g)
		return;
	ex_close(g->c);
	free(g);
}

uint64_t ex_rand(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dull;
}

float ex_uniform(uint64_t *s, float lo, float hi)
{
	return lo + (hi - lo) * (float)((ex_rand(s) >> 40) * (1.0 / 16777216.0));
}

size_t ex_check(const char *what, const float *got, const float *want, size_t n,
		float atol, float rtol)
{
	size_t i, bad = 0, worst = 0;
	double wd = -1;

	for (i = 0; i < n; i++) {
		double d = fabs((double)got[i] - (double)want[i]);

		/* written so that a NaN counts as a mismatch and as the worst */
		if (!(d <= atol + rtol * fabs((double)want[i])))
			bad++;
		if (!(d <= wd)) {
			wd = d;
			worst = i;
		}
	}
	if (bad)
		fprintf(stderr, "%s: %zu of %zu elements differ; worst [%zu]: got %g, want %g\n",
			what, bad, n, worst, got[worst], want[worst]);
	return bad;
}

double ex_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
