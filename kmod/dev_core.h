/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A device's cores (kmod/dev_core.c): who owns each, its executor while anyone uses it,
 * RESET.
 */
#ifndef VNK_DEV_CORE_H
#define VNK_DEV_CORE_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/seqlock.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>

#include "vn_stats.h"

/* Cores per device, at most (the cores module parameter). */
#define VNK_MAX_CORES		8

struct kobject;
struct pid;
struct vn_core;		/* the executor, core/vn_exec.h */
struct vnk_dev_core;
struct vnk_device;
struct vnk_file;
struct vnk_trace_session;
struct vnk_user;

/**
 * struct vnk_executor - a core's executor and who uses it
 * @ref: the owner's claim and each trace session hold one
 * @ec: the executor (core/vn_exec.h): engine and DMA kthreads, SBUF and PSUM (26 MiB)
 * @core: the core it runs
 * @free_work: frees it from the module's workqueue
 *
 * The last reference frees it from the module's workqueue, so a released core costs
 * nothing and nobody waits for the workers to stop. Made (and charged) in the context
 * of whoever needs it first.
 */
struct vnk_executor {
	struct kref ref;
	struct vn_core *ec;
	struct vnk_dev_core *core;
	struct work_struct free_work;
};

/**
 * struct vnk_dev_core - one core of a device
 * @vdev: its device
 * @index: M of coreM
 * @lock: protects @owner, @claim, @owner_pid, @executor and @tsession
 * @owner: the file whose executions run here, or NULL
 * @claim: the owner's claim id (never reused), or 0
 * @owner_pid: the claimer's thread group (sysfs owner_pid), or NULL
 * @owner_uid: the claimer's real uid
 * @user: the user charged for the claim (kmod/share.c)
 * @ev_seq: orders the publication of @ev_claim, @ev_pid and @ev_uid (written under
 *	@lock), so the monitor reads the three of one claim
 * @ev_claim: @claim, published for the executor's monitor (kmod/genl.c), which runs
 *	under the executor's lock and cannot take @lock
 * @ev_pid: the claimer's pid in the initial namespace, published with @ev_claim
 * @ev_uid: its real uid (init namespace), published with @ev_claim
 * @executor: the executor while anyone uses it, or NULL
 * @tsession: the trace session taking this core's new executions, or NULL
 * @stats: sysfs counters, updated lock-free by the executor
 * @kobj: sysfs core<M>
 * @stats_kobj: sysfs core<M>/stats
 * @groups_added: the counters' groups are in @stats_kobj
 */
struct vnk_dev_core {
	struct vnk_device *vdev;
	unsigned int index;
	struct mutex lock;		/* see @lock above */
	struct vnk_file *owner;
	u64 claim;
	struct pid *owner_pid;
	kuid_t owner_uid;
	struct vnk_user *user;
	seqcount_mutex_t ev_seq;
	u64 ev_claim;
	pid_t ev_pid;
	uid_t ev_uid;
	struct vnk_executor *executor;
	struct vnk_trace_session *tsession;
	struct vn_core_stats stats;
	struct kobject *kobj;
	struct kobject *stats_kobj;
	bool groups_added;
};

/**
 * vnk_workqueue_init() - make the module's workqueue, which frees unused executors
 *
 * Return: 0 or -ENOMEM.
 */
int vnk_workqueue_init(void);

/**
 * vnk_workqueue_exit() - destroy the module's workqueue
 *
 * After the last file: waits for executors still being freed.
 */
void vnk_workqueue_exit(void);

/**
 * vnk_cores_init() - initialise the cores of a device being made
 * @vdev: the device, with its cores allocated and numbered
 */
void vnk_cores_init(struct vnk_device *vdev);

/**
 * vnk_cores_stop() - wait for the cores' executors to be freed, at unload
 * @vdev: the device; no file is open, so nothing is claimed or traced
 */
void vnk_cores_stop(struct vnk_device *vdev);

/**
 * vnk_dev_core_claim() - the core's executor for an execution of @vf
 * @vf: the submitting file
 * @core: the core
 *
 * Claims the core for @vf if nobody owns it (a new claim id: the executor zeroes the
 * core's on-chip state before the new owner's first execution). Valid while @vf owns
 * the core, i.e. until @vf is released.
 *
 * Return: the executor, or ERR_PTR(-EBUSY) if another file owns the core, -EDQUOT (the
 * caller's user holds its share of cores), -EAGAIN (the free cores are the privileged
 * reserve), -ENOMEM, -EINTR (killed waiting for the core's lock).
 */
struct vn_core *vnk_dev_core_claim(struct vnk_file *vf, struct vnk_dev_core *core);

/**
 * vnk_dev_core_claim_pair() - the executors of a logical core's two physical cores
 * @vf: the caller's file
 * @core: the first of the two cores (@core[1] is the second)
 * @ec: out: their executors
 *
 * vnk_dev_core_claim() of both; if the second is refused, the first is given back
 * unless @vf owned it before, so a refused call claims nothing.
 *
 * Return: 0, or the second claim's error.
 */
int vnk_dev_core_claim_pair(struct vnk_file *vf, struct vnk_dev_core *core,
			    struct vn_core *ec[2]);

/**
 * vnk_dev_core_release_all() - @vf is released: its cores are free again
 * @vf: the file
 *
 * Their executors go once no trace session uses them either.
 */
void vnk_dev_core_release_all(struct vnk_file *vf);

/**
 * vnk_executor_get() - a reference on the core's executor, made if needed
 * @core: the core; the caller holds @core->lock
 *
 * Return: the executor, or NULL if it cannot be made.
 */
struct vnk_executor *vnk_executor_get(struct vnk_dev_core *core);

/**
 * vnk_executor_put() - drop a reference on an executor
 * @exr: the executor
 *
 * Any context: the last reference only queues the freeing.
 */
void vnk_executor_put(struct vnk_executor *exr);

/**
 * vnk_reset_ioctl() - VNEURON_IOCTL_RESET
 * @vf: the calling file
 * @data: struct vneuron_reset
 *
 * Return: 0, -EINVAL, -EPERM (another file owns the core, no CAP_SYS_ADMIN), -EINTR.
 */
int vnk_reset_ioctl(struct vnk_file *vf, void *data);

#endif /* VNK_DEV_CORE_H */
