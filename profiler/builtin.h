/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The commands of vneuron-profile (profiler/main.c dispatches them by name): each takes
 * its argv (argv[0] is the command's name) and returns the exit status docs/profiler.md
 * documents. Below them everything returns 0 or -errno; only a cmd_* function turns an
 * error into an exit status.
 */
#ifndef VNP_BUILTIN_H
#define VNP_BUILTIN_H

#include <stdint.h>
#include <stdio.h>

#include "vnprofile.h"

/* Exit statuses. */
#define VNP_EXIT_OK	0
#define VNP_EXIT_INPUT	1	/* bad input, or a failed execution */
#define VNP_EXIT_USAGE	2
#define VNP_EXIT_SYSTEM	3	/* device, memory or write error */
#define VNP_EXIT_REGRESSION 4	/* diff --fail-on: B slower than allowed */

struct option;
/*
 * After getopt_long() refused argv[optind - 1]: "did you mean '--output-format'?" on
 * stderr when an option of lo, or its last word, is within two edits (a typo, two
 * letters swapped) of it.
 */
void vnp_cli_did_you_mean(const struct option *lo, int argc, char **argv);

int cmd_view(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_help(int argc, char **argv);

struct nd_host_comm;
struct nd_device;
struct nd_comm_id;

/*
 * capture across nodes (issue 14): vneuron-profile capture [--host]
 * --collectives-workers-per-node N run under an MPI launcher hands itself over to
 * vneuron-profile-mpi (profiler/mpi/, built with mpicc: vneuron-profile never links MPI),
 * which measures this process's place and clock and runs the capture with these hooks.
 * This process is node `node` of nr_nodes (one MPI process a node), the local-th of the
 * nodes on its machine; comm_new() makes the host communicator of its nlocal workers
 * spanning every node's (--host), comm_new_dev() the module's on dev (its id in *id:
 * the workers join it), *first the global rank of its local rank 0 (collective: every
 * node calls one of them once, -ECANCELED if another node failed before it came);
 * comm_free() ends it, 0 or -errno.
 */
struct vnp_cap_nodes {
	uint32_t node, nr_nodes;
	uint32_t local;			/* nodes on this machine before this one */
	int64_t clock_offset_ns;	/* this host's CLOCK_MONOTONIC minus node 0's */
	uint64_t clock_error_ns;	/* bound of |true offset - clock_offset_ns| */
	void *ctx;
	int (*comm_new)(void *ctx, unsigned int nlocal, const uint32_t *dev,
			struct nd_host_comm **hc, unsigned int *first);
	int (*comm_new_dev)(void *ctx, struct nd_device *dev, unsigned int nlocal,
			    const uint32_t *device, struct nd_comm_id *id, unsigned int *first);
	int (*comm_free)(void *ctx);
};

/* cmd_capture() as one node of an MPI job (vneuron-profile-mpi). */
int cmd_capture_nodes(int argc, char **argv, const struct vnp_cap_nodes *nodes);

/*
 * The library's messages go to stderr from now on, each line headed by prefix (a
 * string constant: "vneuron-profile: ", "vneuron-profile capture: ").
 */
void vnp_cli_messages(const char *prefix);

/*
 * SIGINT and SIGTERM from now on only note the signal (SA_RESTART: a running execution
 * finishes), so a capture stops after it and still writes a complete profile; one the
 * process was started with ignored stays ignored. vnp_signalled() is the signal caught
 * (the first), or 0.
 */
void vnp_catch_signals(void);
int vnp_signalled(void);

/* The manual page (vneuron-profile --help), whose body is view's (builtin-view.c). */
void vnp_usage(FILE *f);
extern const char vnp_view_manual[];

/*
 * A number option's value: decimal, 0x hex or 0 octal, at most max; with suffixes, K
 * (k, KiB), M (MiB) and G (GiB) multiply by 2^10, 2^20 and 2^30. 0, or -EINVAL (not
 * such a number) or -ERANGE (above max).
 */
int vnp_parse_uint(const char *s, uint64_t max, int suffixes, uint64_t *v);
/*
 * A size as the summaries print it ("191.1 KiB"; B, KiB, MiB, GiB), for the commands, which
 * reach only libvnprofile's public header, not its model's formatters.
 */
const char *vnp_cli_size(double bytes, char *buf, size_t len);

#endif /* VNP_BUILTIN_H */
