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

#include "neurondev.h"

struct ex_opts {
	int host;			/* run on the host backend, not the device */
	unsigned int device;		/* /dev/vneuronN */
	unsigned int core;
	const char *write_vnef;		/* write the program there too */
	int quiet;
};

/* A host buffer bound to a program tensor by name; out: read back after the run. */
struct ex_buf {
	const char *name;
	void *data;
	uint64_t size;
	int out;
};

struct ex_ctx;

/*
 * Consume argv[*i] (and its value) if it is a common option, moving *i past it. 1 if
 * consumed, 0 if not, -1 on a bad value (message printed).
 */
int ex_common_arg(struct ex_opts *o, int argc, char **argv, int *i);
extern const char ex_common_help[];

/* Finish the builder, write --write-vnef, open the device or host core and load. */
int ex_open(const struct ex_opts *o, struct nd_builder *b, struct ex_ctx **cp);
/* Bind, run once, read outputs back. Modeled time of the run in *model_ps if not NULL. */
int ex_run(struct ex_ctx *c, const struct ex_buf *bufs, unsigned int n, uint64_t *model_ps);
void ex_close(struct ex_ctx *c);
const char *ex_where(const struct ex_ctx *c);	/* "/dev/vneuron0 core 0" or "host" */

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
