/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Capture (docs/capture.md, "How it runs"): traces cores of a vneuron device and writes
 * their records into a .vntf profile while a workload runs.
 *
 * The capture has its own device file, which traces (TRACE_START, ring mappings, poll());
 * the workload runs on another, so the drainer's poll() reports ring data only, never
 * the workload's completions. A drainer thread owns the profile writer from
 * vnp_cap_start() to vnp_cap_stop(); the caller writes the header sections before and
 * the lost counts and the end section after.
 *
 * With the host backend (vnp_cap_use_hosts(), capture --host) there is no device: each
 * traced core is a libvnprog host handle whose trace session has the same rings in host
 * memory (nd_host_trace_*()), drained the same way, the drainer woken by their eventfds.
 *
 * Every function returns 0 or -errno and has said why (util/log.h).
 */
#ifndef VNP_CAPTURE_H
#define VNP_CAPTURE_H

#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "neurondev.h"
#include "../format/vntf.h"
#include "../format/prog.h"
#include "vnprog.h"

struct vntf_writer;
struct vntf_worker;

#define VNP_CAP_MAX_DEVICES	16
#define VNP_CAP_MAX_CORES	16	/* traced cores, over all devices (a view's slots) */
#define VNP_CAP_MAX_RINGS	8
/* The stream of the application's API calls, after the rings' streams. */
#define VNP_CAP_API_STREAM	(VNP_CAP_MAX_CORES * VNP_CAP_MAX_RINGS)

struct vnp_capture {
	struct nd_device *tdev;		/* the first device's tracing file */
	unsigned int device;		/* N of its /dev/vneuronN */
	struct vneuron_info info;	/* its GET_INFO; every device has the same model */
	/* every device traced: a tracing file each (tdevs[0] is tdev) */
	unsigned int ndev;
	struct nd_device *tdevs[VNP_CAP_MAX_DEVICES];
	unsigned int devnum[VNP_CAP_MAX_DEVICES];
	unsigned int core_count[VNP_CAP_MAX_DEVICES];
	unsigned int nr_cores;
	unsigned int core[VNP_CAP_MAX_CORES];
	unsigned int cdev[VNP_CAP_MAX_CORES];	/* each core's device: an index of tdevs */
	/* collectives workers: each traced core's rank, of nr_workers (0: one worker) */
	unsigned int nr_workers;
	unsigned int worker[VNP_CAP_MAX_CORES];
	/*
	 * capture --node: the profile's node section; each worker section then names the
	 * global rank node.first_rank + the worker's own and world_size workers
	 */
	int have_node;
	struct vntf_node node;
	struct nd_trace *tr[VNP_CAP_MAX_CORES];
	/* the host backend (capture --host): the caller's host cores, no device file */
	int host;
	struct nd_host *hosts[VNP_CAP_MAX_CORES];
	struct nd_host_trace *htr[VNP_CAP_MAX_CORES];
	/*
	 * 2: LNC=2 (vnp_cap_use_hosts()): cores 2k, 2k + 1 are one host handle's program
	 * ids 0 and 1, htr[2k + 1] its htr[2k]'s instance 1 (freed with it)
	 */
	unsigned int lnc;
	/* the drainer saw an EXEC_START of a logical core's launch (an application's) */
	int saw_lnc2;
	unsigned int nr_rings[VNP_CAP_MAX_CORES];
	struct nd_ring ring[VNP_CAP_MAX_CORES][VNP_CAP_MAX_RINGS];
	const char *path;		/* the profile */
	struct nd_outfile out;		/* its temporary file until vnp_cap_finish() */
	struct vntf_writer *w;
	pthread_t thr;
	int running;
	int stop;			/* atomic: main -> drainer */
	int err;			/* drainer's error, after join */
	uint64_t records;		/* atomic: drained so far */
};

/* Opens /dev/vneuronN for tracing into a zeroed c. */
int vnp_cap_open(struct vnp_capture *c, unsigned int device);
/*
 * One more device to trace (after vnp_cap_open()): its index in c->tdevs. -ENODEV if
 * there is no /dev/vneuronN (said only if !quiet_enoent), -EINVAL for another device
 * model than the first's, -E2BIG past VNP_CAP_MAX_DEVICES.
 */
int vnp_cap_add_device(struct vnp_capture *c, unsigned int device, int quiet_enoent);
/* The cores to trace (n 0: all of the device's); -ERANGE for one it does not have. */
int vnp_cap_cores(struct vnp_capture *c, const unsigned int *cores, unsigned int n);
/*
 * Every core of every device opened (at most VNP_CAP_MAX_CORES): an application's
 * workers may use any of them.
 */
int vnp_cap_all_cores(struct vnp_capture *c);
/*
 * The cores to trace: core core[i] of device tdevs[dev[i]]; with workers, rank i runs
 * there and the profile says so in each stream's worker section (docs/profile-format.md,
 * "Workers").
 */
int vnp_cap_place(struct vnp_capture *c, const unsigned int *dev, const unsigned int *core,
		  unsigned int n, int workers);
/*
 * The host backend instead of vnp_cap_open(): the caller's handles (not closed
 * with c): hosts[i] stands for core core[i] of device device[i] of the model
 * (NULL: trn1); with workers, rank i. lnc 2 (no workers): each handle is a logical
 * core (nd_host_set_lnc()), hosts[i] traced as cores core[i] and core[i] + 1 (even
 * core[i]), the profile's logical-cores section says so.
 */
int vnp_cap_use_hosts(struct vnp_capture *c, struct nd_host *const *hosts,
		      const unsigned int *device, const unsigned int *core, unsigned int n,
		      const struct vneuron_model *model, int workers, unsigned int lnc);
/*
 * Creates the profile: device model, clocks and (if prog) the program's identity. It is
 * written to a temporary file in path's directory that vnp_cap_finish() renames to path
 * when complete (vnp_cap_close() before that removes it: an existing file stays as it
 * was); path is refused if it is one of the n inputs, or exists without ND_OUT_FORCE in
 * flags (nd_out_open(): -EINVAL, -EEXIST, said).
 */
int vnp_cap_create(struct vnp_capture *c, const char *path, const struct vnp_prog *prog,
		   const char *const *inputs, unsigned int n, unsigned int flags);
/* Starts tracing the cores, declares a stream per ring and starts the drainer. */
int vnp_cap_start(struct vnp_capture *c, const struct nd_trace_opts *o);
/* Stops the rings, lets the drainer take the rest, joins it. */
int vnp_cap_stop(struct vnp_capture *c);
/*
 * Moves the API call log an application's libneurondev wrote (VNEURON_PROFILE_API) into
 * the profile as one stream of MARKER records, and deletes it.
 */
int vnp_cap_merge_api(struct vnp_capture *c, const char *path, pid_t pid);
/*
 * The conversion itself: the log f into w as the records of stream wk->stream (declared
 * by its first records), each range name as a string section and its id in the
 * RANGE_PUSH and MARK records' sem_value (docs/profile-format.md). Records that are not
 * API calls, and names that cannot be read, are left out and counted in *skipped;
 * *records counts what was written. 0 or -errno (vntf_writer_errno() for -EIO).
 */
struct vnp_execmap;
int vnp_api_log_merge(struct vntf_writer *w, FILE *f, const struct vntf_worker *wk,
		      uint64_t *records, uint64_t *skipped, struct vnp_execmap *map);
/*
 * Stops tracing (if it runs) and completes the profile: every ring's lost counts and the
 * end section. Says how many records it holds and how many were lost (the loss even if
 * quiet).
 */
int vnp_cap_finish(struct vnp_capture *c, int quiet);
/* Stops what runs, drops an incomplete profile, frees everything. */
void vnp_cap_close(struct vnp_capture *c);

static inline uint64_t vnp_now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t vnp_cap_records(const struct vnp_capture *c)
{
	return __atomic_load_n(&c->records, __ATOMIC_RELAXED);
}

#endif /* VNP_CAPTURE_H */
