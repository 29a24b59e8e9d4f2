// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The examples' shared runner: device or host backend, options, PRNG, checks. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"

#define EX_MAX_BUFS 32

struct ex_ctx {
	int host;
	unsigned int core;
	char where[64];
	void *image;
	size_t size;
	struct nd_host *h;
	struct nd_device *dev;
	struct nd_program *prog;
	struct {
		const char *name;
		struct nd_mem *mem;
	} mem[EX_MAX_BUFS];
	unsigned int nmem;
};

const char ex_common_help[] =
"    --host              run on the host backend (the device core built into\n"
"                        libvncore) instead of /dev/vneuronD: no module needed\n"
"    --device D          use /dev/vneuronD (default 0)\n"
"    --core C            run on core C of the device (default 0)\n"
"    --write-vnef FILE   also write the program to FILE, e.g. for\n"
"                        'vneuron-profile capture -n FILE -s profile.vntf';\n"
"                        an existing FILE is refused (before anything runs)\n"
"                        unless --force-overwrite; FILE is written whole or\n"
"                        not at all (a temporary file renamed into place)\n"
"    --force-overwrite   let --write-vnef replace an existing FILE\n"
"    -q, --quiet         print only the result line\n"
"    -h, --help          this help\n";

static const char *ex_name = "example";

void ex_bad_value(const char *opt, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", ex_name, opt);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int parse_uint(const char *opt, const char *s, unsigned int *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = s ? strtoul(s, &end, 10) : 0;
	if (!s || !*s || *end || errno || x > 1024) {
		ex_bad_value(opt, "expects a number, got '%s'", s ? s : "");
		return -1;
	}
	*v = (unsigned int)x;
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

int ex_open(const struct ex_opts *o, struct nd_builder *b, struct ex_ctx **cp)
{
	struct nd_load_error le;
	struct nd_error err = { 0 };
	struct ex_ctx *c;
	int ret;

	*cp = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->host = o->host;
	c->core = o->core;
	ret = nd_builder_finish(b, &c->image, &c->size);
	if (ret) {
		fprintf(stderr, "%s: build: %s\n", ex_name, nd_builder_error(b));
		goto fail;
	}
	if (o->write_vnef) {
		char msg[PATH_MAX * 2 + 256];

		ret = nd_out_write(o->write_vnef, c->image, c->size, o->force ? ND_OUT_FORCE : 0,
				   msg, sizeof(msg));
		if (ret) {
			fprintf(stderr, "%s: --write-vnef %s\n", ex_name, msg);
			goto fail;
		}
		if (!o->quiet)
			printf("wrote %s (%zu bytes)\n", o->write_vnef, c->size);
	}
	if (c->host) {
		ret = nd_host_open(NULL, &c->h, &err);
		if (ret) {
			fprintf(stderr, "%s: host backend: %s\n", ex_name, err.msg);
			goto fail;
		}
		snprintf(c->where, sizeof(c->where), "the host backend");
	} else {
		ret = nd_open(o->device, &c->dev, &err);
		if (ret) {
			fprintf(stderr, "%s: %s (or run with --host)\n", ex_name, err.msg);
			goto fail;
		}
		ret = nd_program_load(c->dev, c->image, c->size, &c->prog, &le);
		if (ret) {
			fprintf(stderr, "%s: load: %s\n", ex_name, nd_device_error(c->dev));
			goto fail;
		}
		snprintf(c->where, sizeof(c->where), "/dev/vneuron%u core %u", o->device,
			 o->core);
	}
	*cp = c;
	return 0;
fail:
	ex_close(c);
	return ret;
}

static struct nd_mem *dev_mem(struct ex_ctx *c, const struct ex_buf *x)
{
	unsigned int i;

	for (i = 0; i < c->nmem; i++)
		if (!strcmp(c->mem[i].name, x->name) && nd_mem_size(c->mem[i].mem) >= x->size)
			return c->mem[i].mem;
	if (c->nmem == EX_MAX_BUFS)
		return NULL;
	if (nd_mem_alloc(c->dev, x->size, &c->mem[c->nmem].mem))
		return NULL;
	c->mem[c->nmem].name = x->name;
	return c->mem[c->nmem++].mem;
}

int ex_run(struct ex_ctx *c, const struct ex_buf *bufs, unsigned int n, uint64_t *model_ps)
{
	struct nd_host_tensor ht[EX_MAX_BUFS] = { 0 };
	struct nd_bind bind[EX_MAX_BUFS] = { 0 };
	struct nd_run_result res = { 0 };
	unsigned int i;
	int ret;

	if (n > EX_MAX_BUFS)
		return -E2BIG;
	if (c->host) {
		for (i = 0; i < n; i++)
			ht[i] = (struct nd_host_tensor){ bufs[i].name, bufs[i].data, bufs[i].size };
		ret = nd_host_run(c->h, c->image, c->size, ht, n, 0, &res);
		if (ret) {
			fprintf(stderr, "%s: run: %s\n", ex_name, nd_host_error(c->h));
			return ret;
		}
	} else {
		for (i = 0; i < n; i++) {
			bind[i].name = bufs[i].name;
			bind[i].mem = dev_mem(c, &bufs[i]);
			if (!bind[i].mem) {
				fprintf(stderr, "%s: alloc %s: %s\n", ex_name, bufs[i].name,
					nd_device_error(c->dev));
				return -ENOMEM;
			}
			if (!bufs[i].out) {
				ret = nd_mem_write(bind[i].mem, 0, bufs[i].data, bufs[i].size);
				if (ret)
					goto dev_err;
			}
		}
		ret = nd_run(c->prog, c->core, bind, n, 0, &res);
		if (ret)
			goto dev_err;
		for (i = 0; i < n; i++) {
			if (!bufs[i].out)
				continue;
			ret = nd_mem_read(bind[i].mem, 0, bufs[i].data, bufs[i].size);
			if (ret)
				goto dev_err;
		}
	}
	if (model_ps)
		*model_ps = res.model_ps;
	return 0;
dev_err:
	fprintf(stderr, "%s: run: %s\n", ex_name, nd_device_error(c->dev));
	return ret;
}

void ex_close(struct ex_ctx *c)
{
	if (!c)
		return;
	if (c->prog)
		nd_program_unload(c->prog);
	nd_close(c->dev);
	nd_host_close(c->h);
	free(c->image);
	free(c);
}

const char *ex_where(const struct ex_ctx *c)
{
	return c->where;
}

/* ---- groups of ranks ---- */

#define EX_MAX_RANKS 64

struct ex_group {
	unsigned int n;
	struct ex_ctx *rank[EX_MAX_RANKS];
	struct nd_comm *comm[EX_MAX_RANKS];
	/* the current run */
	struct ex_buf *const *bufs;
	unsigned int nbufs;
	uint64_t ps[EX_MAX_RANKS];
	int ret[EX_MAX_RANKS];
};

int ex_group_open(const struct ex_opts *o, unsigned int nranks, unsigned int cores_per_device,
		  struct nd_builder *b, struct ex_group **gp)
{
	uint32_t device[EX_MAX_RANKS];
	struct nd_host_comm *hc = NULL;
	struct ex_group *g;
	nd_comm_id id;
	unsigned int r;
	int ret;

	*gp = NULL;
	if (!nranks || nranks > EX_MAX_RANKS || !cores_per_device)
		return -EINVAL;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->n = nranks;
	for (r = 0; r < nranks; r++)
		device[r] = r / cores_per_device;
	if (o->host) {
		ret = nd_host_comm_new(nranks, device, &hc);
		if (ret) {
			fprintf(stderr, "%s: host communicator: %s\n", ex_name, strerror(-ret));
			goto fail;
		}
	}
	for (r = 0; r < nranks; r++) {
		struct ex_opts ro = *o;
		struct ex_ctx *c;

		ro.device = o->device + device[r];
		ro.core = r % cores_per_device;
		if (r)
			ro.write_vnef = NULL;
		ret = ex_open(&ro, b, &g->rank[r]);
		if (ret)
			goto fail;
		c = g->rank[r];
		if (o->host) {
			ret = nd_host_set_comm(c->h, hc, r);
			if (ret) {
				fprintf(stderr, "%s: rank %u: %s\n", ex_name, r,
					nd_host_error(c->h));
				goto fail;
			}
			snprintf(c->where, sizeof(c->where), "the host backend");
			continue;
		}
		if (!r && (ret = nd_comm_create(c->dev, nranks, &id))) {
			fprintf(stderr, "%s: communicator of %u ranks: %s\n", ex_name, nranks,
				nd_device_error(c->dev));
			goto fail;
		}
		ret = nd_comm_join(c->dev, &id, r, ro.core, &g->comm[r]);
		if (ret) {
			fprintf(stderr, "%s: rank %u: %s: %s\n", ex_name, r, c->where,
				nd_device_error(c->dev));
			goto fail;
		}
	}
	nd_host_comm_free(hc);
	*gp = g;
	return 0;
fail:
	nd_host_comm_free(hc);
	ex_group_close(g);
	return ret ? ret : -EINVAL;
}

struct ex_rank_arg {
	struct ex_group *g;
	unsigned int r;
};

static void *ex_rank_main(void *arg)
{
	struct ex_rank_arg *a = arg;
	struct ex_group *g = a->g;
	char range[32];

	/* each rank's thread marks its executions (application ranges are per thread) */
	snprintf(range, sizeof(range), "rank %u", a->r);
	nd_range_push(range);
	g->ret[a->r] = ex_run(g->rank[a->r], g->bufs[a->r], g->nbufs, &g->ps[a->r]);
	nd_range_pop();
	return NULL;
}

int ex_group_run(struct ex_group *g, struct ex_buf *const *bufs, unsigned int n,
		 uint64_t *model_ps)
{
	struct ex_rank_arg arg[EX_MAX_RANKS];
	pthread_t th[EX_MAX_RANKS];
	unsigned int r, started;
	uint64_t ps = 0;
	int ret = 0;

	g->bufs = bufs;
	g->nbufs = n;
	for (started = 0; started < g->n; started++) {
		arg[started] = (struct ex_rank_arg){ g, started };
		g->ps[started] = 0;
		if (pthread_create(&th[started], NULL, ex_rank_main, &arg[started]))
			break;
	}
	for (r = 0; r < started; r++)
		pthread_join(th[r], NULL);
	if (started < g->n) {
		fprintf(stderr, "%s: cannot start %u threads\n", ex_name, g->n);
		return -1;
	}
	for (r = 0; r < g->n; r++) {
		if (g->ret[r]) {
			fprintf(stderr, "%s: rank %u (%s) failed\n", ex_name, r, g->rank[r]->where);
			ret = -1;
		}
		if (g->ps[r] > ps)
			ps = g->ps[r];
	}
	if (model_ps)
		*model_ps = ps;
	return ret;
}

void ex_group_close(struct ex_group *g)
{
	unsigned int r;

	if (!g)
		return;
	for (r = 0; r < g->n; r++)
		nd_comm_destroy(g->comm[r]);
	/* rank 0's device registered the communicator: close it last */
	for (r = g->n; r-- > 0;)
		ex_close(g->rank[r]);
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
