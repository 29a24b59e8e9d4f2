/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What every example shares: its command line (--host, --device, --core, --write-vnef),
 * running a built program on /dev/vneuronN or on the host backend with named buffers,
 * a seeded PRNG and result checks.
 */
#ifndef VN_EXAMPLES_COMMON_H
#define VN_EXAMPLES_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vnrun.h"

struct ex_opts {
	int host;			/* run on the host backend, not the device */
	unsigned int device;		/* /dev/vneuronN */
	unsigned int core;
	const char *write_vnef;		/* write the program there too */
	int force;			/* --force-overwrite: write_vnef may replace a file */
	int quiet;
	unsigned int time_limit_s;	/* --time-limit: per execution, 0 for the default */
};

/*
 * A host buffer bound to a program tensor by name (nd_runner_bind()): the runner reads
 * inputs from it and writes outputs into it; out says which, for the reader.
 */
struct ex_buf {
	const char *name;
	void *data;
	uint64_t size;
	int out;
};

struct ex_ctx;

/*
 * An example's command line: the common options, -h/--help (usage on stdout) and the
 * example's own options through own(): it gets the option and the next argument (NULL
 * if none) and returns how many it took (1 or 2), 0 for an option it does not know, or
 * -1 after ex_bad_value(). Messages start with name ("example-exp").
 */
struct ex_cmdline {
	const char *name;
	void (*usage)(FILE *f);
	int (*own)(void *ctx, const char *opt, const char *val);
	void *ctx;
};

/* 0: run; 1: --help was printed (exit 0); -1: bad usage, said on stderr (exit 2). */
int ex_parse_args(struct ex_opts *o, const struct ex_cmdline *cl, int argc, char **argv);
/* "NAME: OPT: what is wrong" on stderr. */
void ex_bad_value(const char *opt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A value naming a, b or "both": sets *has_a and *has_b; 2 (taken) or -1. */
int ex_one_or_both(const char *opt, const char *v, const char *a, const char *b, int *has_a,
		   int *has_b);
extern const char ex_common_help[];

/*
 * Finish the builder, write --write-vnef, open a runner (vnrun.h) on the device's core or
 * the host backend and load the program into it.
 */
int ex_open(const struct ex_opts *o, struct nd_builder *b, struct ex_ctx **cp);
/* Bind the buffers, run once. Modeled time of the run in *model_ps if not NULL. */
int ex_run(struct ex_ctx *c, const struct ex_buf *bufs, unsigned int n, uint64_t *model_ps);
void ex_close(struct ex_ctx *c);
const char *ex_where(const struct ex_ctx *c);	/* "/dev/vneuron0 core 0" or "host" */

/*
 * A group of ranks running one program together (SPMD, for collectives): one runner
 * with ranks (nd_runner_set_ranks()), rank r on core r % cores_per_device of
 * /dev/vneuron(D + r / cores_per_device), joined into one communicator, or with --host
 * a host core each, on a host communicator whose devices are laid out the same way.
 * --write-vnef is written once.
 */
struct ex_group;

int ex_group_open(const struct ex_opts *o, unsigned int nranks, unsigned int cores_per_device,
		  struct nd_builder *b, struct ex_group **gp);
/*
 * Run once on every rank at once, each in its own thread, rank r with bufs[r][0..n).
 * The slowest rank's modeled time in *model_ps if not NULL. A failing rank says so on
 * stderr (the others' runs end too); -1 then.
 */
int ex_group_run(struct ex_group *g, struct ex_buf *const *bufs, unsigned int n,
		 uint64_t *model_ps);
void ex_group_close(struct ex_group *g);

/* xorshift64*: the same numbers on every machine. */
uint64_t ex_rand(uint64_t *s);
float ex_uniform(uint64_t *s, float lo, float hi);	/* [lo, hi) */

/*
 * Compare got against want: |got - want| <= atol + rtol * |want| everywhere. Prints the
 * worst element and returns the number of mismatches.
 */
size_t ex_check(const char *what, const float *got, const float *want, size_t n,
		float atol, float rtol);
double ex_now(void);

#endif
