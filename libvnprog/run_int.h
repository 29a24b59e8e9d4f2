/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The runner's internals (run.c: the handle, ranks, programs, runs; run_bind.c: the
 * bindings and their files). Not installed.
 */
#ifndef RUN_INT_H
#define RUN_INT_H

#include <pthread.h>

#include "vnprog_int.h"
#include "vnrun.h"
#include "vn_program.h"

#define RN_ERRMAX	8704		/* two paths and words */

/* What a tensor of a rank is bound to. */
enum rn_kind {
	RN_NONE = 0,			/* inputs: nothing yet; others: the runner's own */
	RN_USER,			/* the caller's buffer */
	RN_IN_FILE,			/* an input read from a file (blob) */
	RN_ZEROS,			/* an input of zeros (blob) */
	RN_OWN,				/* the runner's own buffer (nd_runner_data()) */
	RN_OUT_FILE,			/* an output written to a file after each run */
};

/* Input bytes in the tensor's dtype, shared by the ranks that read them. */
struct rn_blob {
	int refs;
	void *data;
	uint64_t size;
};

/* One tensor of one rank. */
struct rn_bind {
	enum rn_kind kind;
	void *user;			/* RN_USER */
	uint64_t user_size;
	struct rn_blob *blob;		/* RN_IN_FILE, RN_ZEROS */
	char *path;			/* RN_IN_FILE, RN_OUT_FILE */
	unsigned int flags;		/* RN_OUT_FILE: ND_BIND_FORCE */
	void *own;			/* host: the runner's buffer */
	struct nd_mem *mem;		/* device: the tensor's buffer */
	void *map;			/* device: mem mapped (nd_runner_data(), files) */
	int stale;			/* device: mem must get the blob before the next run */
	int used;			/* device: mem was written since it was allocated */
	int written;			/* RN_OUT_FILE: the runner wrote the file: it may replace it */
};

/* A device file the ranks use. */
struct rn_dev {
	unsigned int index;		/* N of /dev/vneuronN */
	struct nd_device *dev;
	int borrowed;			/* the caller's (nd_runner_open_dev()) */
	unsigned int cores;
	struct nd_program *prog;	/* the program loaded on it */
};

struct rn_rank {
	struct nd_runner *r;
	unsigned int idx;		/* in the runner */
	unsigned int grank;		/* in the communicator: first + idx */
	unsigned int device, core;	/* where (host: the modeled device) */
	unsigned int dev;		/* device: index in r->dev */
	struct nd_host *h;		/* host */
	struct nd_comm *comm;		/* device: its communicator handle */
	struct rn_bind *b;		/* per tensor of the program */
	struct nd_host_tensor *ht;	/* host: this run's tensors */
	struct nd_bind *db;		/* device: this run's bindings */
	unsigned int nt;
	struct nd_runner_exec last;
	/* one execution of a run */
	unsigned int exec;		/* from 1 */
	int fail;			/* could not run: -errno, message in msg */
	char msg[ND_ERRMSG_MAX];
};

struct nd_runner {
	pthread_mutex_t lock;		/* every call but cancel */
	pthread_mutex_t err_lock;	/* err */
	char err[RN_ERRMAX];
	int cancel;			/* atomic: nd_runner_cancel() */
	int stop;			/* atomic: the execution in progress ends (cancel, a rank
					 * that could not run) */
	int host;
	unsigned int lnc;		/* physical cores of rank 0's logical core; 0 = 1 */
	int has_model;
	struct vneuron_model model;
	uint64_t limit_ns;
	nd_runner_each_fn each;		/* nd_runner_set_each() */
	void *each_arg;
	nd_runner_wait_fn wait;		/* nd_runner_set_wait() */
	void *wait_arg;
	int wait_due;			/* the execution in progress has not called it yet */
	char where[64];
	/* device files */
	unsigned int ndev;
	struct rn_dev dev[ND_RUNNER_MAX_RANKS];
	/* ranks */
	unsigned int nranks;
	struct rn_rank *rk;
	int ranks_set;
	unsigned int rank_flags;	/* ND_RANKS_* */
	int comm_mine;			/* the runner made the communicator: it may remake it */
	unsigned int first;
	struct nd_host_comm *hcomm;	/* host: the communicator (the runner's reference) */
	/* the program */
	struct vn_program *vp;
	void *image;
	size_t size;
	char *name;			/* in messages */
	char *path;			/* the file it came from, or NULL */
};

/* The message of r (under err_lock) and -code. */
int rn_err(struct nd_runner *r, int code, const char *fmt, ...) ND_PRINTF(3, 4);

/* Tensor i of the loaded program, and its name. */
static inline const struct vnef_tensor *rn_tensor(const struct nd_runner *r, uint32_t i)
{
	return &r->vp->tensors[i];
}

static inline const char *rn_tensor_name(const struct nd_runner *r, uint32_t i)
{
	return vn_program_str(r->vp, r->vp->tensors[i].name_off);
}

/* nd_runner_tensor() with r->lock held. */
int rn_tensor_info(struct nd_runner *r, unsigned int i, struct nd_runner_tensor *t);
/* "[250, 512]" */
const char *rn_shape(char *buf, size_t len, const uint64_t *shape, unsigned int rank);
/* The runner's file of /dev/vneuron<index> (*di: in r->dev), opened if it has none yet. */
int rn_dev_find(struct nd_runner *r, unsigned int index, unsigned int *di,
		struct nd_error *e);
/*
 * Whether the execution in progress must end (cancelled, or a rank could not run); the
 * waits ask it first once the execution is submitted, so it calls the wait function.
 */
int rn_host_stop(void *arg);

/* run_ranks.c */
/* Every rank leaves its communicator. */
void rn_comm_leave(struct nd_runner *r);
/* Before a run: a broken communicator of the runner's own is made again. */
int rn_comm_fix(struct nd_runner *r);

/* run_bind.c */
/* The bindings of a rank go (the runner's buffers too). */
void rn_bind_free(struct nd_runner *r, struct rn_rank *k);
/* Before a run: every input bound (-ENOENT said), device buffers ready and filled. */
int rn_bind_prepare(struct nd_runner *r);
/* After a run that ended OK: outputs into the caller's buffers (device), output files. */
int rn_bind_finish(struct nd_runner *r);

#endif /* RUN_INT_H */
