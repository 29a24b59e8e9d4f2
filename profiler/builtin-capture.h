/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * `vneuron-profile capture` (docs/capture.md), one file per part: its options
 * and the dispatch (builtin-capture.c), the program form (builtin-capture-program.c), the
 * program form with collectives workers (builtin-capture-workers.c), the application form
 * (builtin-capture-app.c), and the program read and the workers' run with its inputs
 * (builtin-capture-run.c). The tracing is libvnprofile's capture (vnprofile.h).
 */
#ifndef VNP_BUILTIN_CAPTURE_H
#define VNP_BUILTIN_CAPTURE_H

#include <stdint.h>
#include <time.h>

#include "builtin.h"
#include "neurondev.h"
#include "vnprofile.h"
#include "vnprog.h"

#define CAP_MAX_CORES	VNPROFILE_CAPTURE_MAX_TARGETS
#define CAP_MAX_DEVICES	16
#define MAX_INPUTS	64
/* --host places workers as the module does by default: two cores a device */
#define HOST_CORES_PER_DEVICE	2
/* A FILE with {rank}: each worker's own file */
#define RANK_TAG	"{rank}"
/* -s with workers on several nodes: each node's profile, the tag replaced by its number */
#define NODE_TAG	"{node}"
/* --max-size: the smallest limit (a profile's header and closing sections fit well) */
#define CAP_MIN_SIZE	(64u << 10)
/* capture says the size it expects when it reaches this, or with --max-size */
#define CAP_SAY_SIZE	(64ull << 20)

/* A NAME FILE pair: the file (with workers, {rank}: each worker's) of an input. */
struct cap_input {
	const char *name, *path;
};

/* --node ID/COUNT, --clock-offset NS[+-ERR]: the profile's node section. */
struct cap_node {
	uint32_t node, nr_nodes;
	uint32_t first_rank, ranks, world_size;
	int64_t clock_offset_ns;
	uint64_t clock_error_ns;
};

struct cap_opts {
	const char *program, *profile;
	unsigned int num_exec, nth, device, nr_cores, cores[CAP_MAX_CORES];
	int device_given;
	unsigned int workers, per_node;		/* --collectives-*; 0: not given */
	int have_node, have_offset;
	struct cap_node node;
	int ignore_errors, quiet, help, force, host;
	uint64_t max_bytes;			/* --max-size; 0: none */
	const struct vneuron_model *model;	/* --model: the host cores' (NULL: trn1) */
	unsigned int lnc;			/* --lnc: 1, or 2 (a logical core; --host) */
	struct nd_trace_opts trace;
	unsigned int nr_inputs;
	struct cap_input inputs[MAX_INPUTS];
	char **app;
	/*
	 * Several nodes (--collectives-workers-per-node under mpirun): in vneuron-profile,
	 * exec_mpi hands the capture over to vneuron-profile-mpi; there, nodes says where
	 * this process stands, rank_base is the global rank of its worker 0 ({rank} in
	 * input files) and profile_buf this node's profile name.
	 */
	const struct vnp_cap_nodes *nodes;
	int exec_mpi;
	unsigned int rank_base;
	char profile_buf[4096];
};

/* A message of capture's own, as the library's are printed (vnp_cli_messages()). */
void cap_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * After a device open failed with ret: when there is no device (no module loaded), the
 * --host form of the command ("vneuron-profile capture --host -n P -s S ...").
 */
void cap_host_hint(const struct cap_opts *o, int ret);

/*
 * builtin-capture.c: the profile, tracing targets[n] (NULL, 0: every core of every
 * device from --device on), with capture's inputs, --force-overwrite, -q, the ring
 * options and the node section; image (may be NULL) gives its program identity.
 * vnprofile_capture_open()'s return.
 */
int cap_open(const struct cap_opts *o, const struct vnprofile_target *targets,
	     unsigned int n, unsigned int flags, const void *image, size_t size,
	     struct vnprofile_capture **c);

/* The forms: each returns capture's exit status. */
int cap_program(struct cap_opts *o);
int cap_workers(struct cap_opts *o);
int cap_app(const struct cap_opts *o);

/* builtin-capture-program.c, for the workers too. */
static inline uint64_t cap_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* On a terminal, runs longer than a second show their progress five times a second. */
void cap_progress(const struct vnprofile_capture *c, unsigned int i, unsigned int n,
		  uint64_t t0, uint64_t *last, int done);
/* SIGINT or SIGTERM ended the run early: said, and 128+signal. */
int cap_stopped_by_signal(void);

/*
 * builtin-capture-run.c: the program through the kernel's loader (its identity in the
 * profile, capture's message), and its run on libvnprog's runner (vnrun.h), both forms.
 */
struct vn_program;
struct nd_runner;

/* The program, validated by the kernel's own loader. 0 or -errno (said). */
int cap_prog_open(const char *path, struct vn_program **p);
const void *cap_prog_image(const struct vn_program *p, size_t *size);
void cap_prog_free(struct vn_program *p);
/* Every NAME FILE pair names an input tensor of the program: 0 or -ENOENT (said). */
int cap_check_inputs(const struct vn_program *p, const struct cap_opts *o);
/*
 * The program loaded on the runner (what the kernel refuses is bad input), every NAME
 * FILE pair's file bound to its input for rank (the first pair of a name; a .npy of the
 * tensor's element count or raw bytes of its size; ND_BIND_* flags more) or, with a
 * reader (cap_read_inputs()), to the bytes it read; the other inputs zeros. 0, or
 * -errno (said) with *status the exit status.
 */
int cap_load(struct nd_runner *r, const struct vn_program *p, const struct cap_opts *o,
	     unsigned int rank, unsigned int flags, struct nd_runner *reader, int *status);
/*
 * A device run's inputs, read before the device is touched: *reader, a host runner of
 * ranks ranks numbered from first that is never run, with the program loaded and the
 * files bound as cap_load() binds them. 0, or -errno (said) with *status.
 */
int cap_read_inputs(const struct vn_program *p, const struct cap_opts *o, unsigned int ranks,
		    unsigned int first, unsigned int flags, struct nd_runner **reader,
		    int *status);
/* The runner's message, its ranks called workers as capture calls them. */
void cap_runner_err(struct nd_runner *r);

/* A capture's executions on the runner. */
struct cap_run {
	struct nd_runner *r;
	struct nd_runner *reader;	/* a device run's inputs (cap_read_inputs()) */
	struct vnprofile_capture *cap;
	const struct cap_opts *o;
	int tty, stopped, err;
	int estimated, cut;		/* the size estimate said; stopped at --max-size */
	unsigned int seen, failed;	/* executions seen; the ranks' that did not end OK */
	uint64_t t0, last;
	uint64_t base_bytes;		/* the profile's size before the first record */
	uint64_t first_bytes;		/* ... after the first execution */
};

/*
 * Runs the program --num-exec times on every rank at once, tracing all executions or
 * the --profile-nth-exec one; a failed execution stops the runs unless
 * --ignore-exec-errors. 0 or -errno (said); cr->failed counts the executions that did
 * not end OK.
 */
int cap_run_execs(struct cap_run *cr, const struct cap_opts *o);

#endif /* VNP_BUILTIN_CAPTURE_H */
