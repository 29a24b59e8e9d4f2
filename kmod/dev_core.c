// SPDX-License-Identifier: GPL-2.0
/*
 * A device's cores: who owns each (one open file at a time, as the Neuron driver gives a
 * NeuronCore to one process), their executors (core/vn_exec.h), made on first use and
 * freed once unused, and RESET.
 *
 * A core is claimed by the first EXEC of a file on it and released when that file is
 * released. Each claim gets an id never used before, which the executor stamps on every
 * execution: when an execution of a new owner starts, the executor zeroes SBUF, PSUM and
 * the semaphores first, so no owner sees another's data (core/exec.c). Ids, not file
 * pointers: a freed file's address may come back for a new one.
 */
#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "dev_core.h"
#include "device.h"
#include "file.h"
#include "genl.h"
#include "share.h"
#include "trace.h"
#include "vn_exec.h"
#include "vneuron_genl.h"

static struct workqueue_struct *vnk_wq;
static atomic64_t vnk_next_claim = ATOMIC64_INIT(0);

int vnk_workqueue_init(void)
{
	vnk_wq = alloc_workqueue("vneuron", WQ_UNBOUND, 0);
	return vnk_wq ? 0 : -ENOMEM;
}

void vnk_workqueue_exit(void)
{
	destroy_workqueue(vnk_wq);
}

void vnk_cores_init(struct vnk_device *vdev)
{
	unsigned int i;

	for (i = 0; i < vdev->core_count; i++) {
		mutex_init(&vdev->cores[i].lock);
		seqcount_mutex_init(&vdev->cores[i].ev_seq, &vdev->cores[i].lock);
	}
}

void vnk_cores_stop(struct vnk_device *vdev)
{
	unsigned int i;

	flush_workqueue(vnk_wq);
	for (i = 0; i < vdev->core_count; i++)
		WARN_ON(vdev->cores[i].executor);
}

static void vnk_executor_free_work(struct work_struct *w)
{
	struct vnk_executor *exr = container_of(w, struct vnk_executor, free_work);
	struct vnk_dev_core *core = exr->core;

	mutex_lock(&core->lock);
	/* A newer executor may have taken its place already. */
	if (core->executor == exr)
		core->executor = NULL;
	mutex_unlock(&core->lock);
	/* Stops the workers; what its last users left (cancelled work) ends ABORTED. */
	vn_core_destroy(exr->ec);
	kfree(exr);
}

static void vnk_executor_release(struct kref *ref)
{
	struct vnk_executor *exr = container_of(ref, struct vnk_executor, ref);

	/* Any context, maybe an executor worker under its own lock: free from the queue. */
	queue_work(vnk_wq, &exr->free_work);
}

void vnk_executor_put(struct vnk_executor *exr)
{
	kref_put(&exr->ref, vnk_executor_release);
}

struct vnk_executor *vnk_executor_get(struct vnk_dev_core *core)
{
	struct vnk_executor *exr = core->executor;
	char name[16];

	lockdep_assert_held(&core->lock);
	if (exr && kref_get_unless_zero(&exr->ref))
		return exr;
	exr = kzalloc(sizeof(*exr), GFP_KERNEL_ACCOUNT);
	if (!exr)
		return NULL;
	snprintf(name, sizeof(name), "%u.%u", core->vdev->index, core->index);
	if (vn_core_create(core->vdev->model, name, &exr->ec)) {
		kfree(exr);
		vnk_event_error(ENOMEM, "no memory for a core's executor");
		return NULL;
	}
	vn_core_set_stats(exr->ec, &core->stats);
	vn_core_set_monitor(exr->ec, vnk_event_exec, core);
	vn_core_set_owner(exr->ec, core->claim);
	kref_init(&exr->ref);
	exr->core = core;
	INIT_WORK(&exr->free_work, vnk_executor_free_work);
	core->executor = exr;
	return exr;
}

/* The owner's identity for events about its executions (vnk_event_exec()). */
static void vnk_publish_owner(struct vnk_dev_core *core)
{
	lockdep_assert_held(&core->lock);
	write_seqcount_begin(&core->ev_seq);
	WRITE_ONCE(core->ev_pid, pid_nr(core->owner_pid));
	WRITE_ONCE(core->ev_uid, from_kuid(&init_user_ns, core->owner_uid));
	WRITE_ONCE(core->ev_claim, core->claim);
	write_seqcount_end(&core->ev_seq);
}

struct vn_core *vnk_dev_core_claim(struct vnk_file *vf, struct vnk_dev_core *core)
{
	struct vn_core *ec;
	struct vnk_executor *exr;
	struct vnk_user *user;

	if (mutex_lock_killable(&core->lock))
		return ERR_PTR(-EINTR);
	if (core->owner == vf) {
		ec = core->executor->ec;
		goto out;
	}
	if (core->owner) {
		ec = ERR_PTR(-EBUSY);
		goto out;
	}
	/* The cores of every device are shared: the claimer's user's share. */
	user = vnk_share_charge(VNEURON_SHARE_CORES, vf->filp, NULL);
	if (IS_ERR(user)) {
		ec = ERR_CAST(user);
		goto out;
	}
	exr = vnk_executor_get(core);
	if (!exr) {
		vnk_share_uncharge(user, VNEURON_SHARE_CORES);
		ec = ERR_PTR(-ENOMEM);
		goto out;
	}
	core->owner = vf;
	core->user = user;
	core->claim = atomic64_inc_return(&vnk_next_claim);
	core->owner_pid = get_pid(task_tgid(current));
	core->owner_uid = current_uid();
	vnk_publish_owner(core);
	set_bit(core->index, &vf->owned);
	vn_core_set_owner(exr->ec, core->claim);
	vnk_trace_core_claimed(core);
	vnk_event_core(core, VNEURON_EVENT_CORE_CLAIM, task_tgid_nr(current), core->owner_uid);
	ec = exr->ec;
out:
	mutex_unlock(&core->lock);
	return ec;
}

/* Drop @vf's claim of @core (which @vf owns). */
static void vnk_dev_core_unclaim(struct vnk_file *vf, struct vnk_dev_core *core)
{
	struct vnk_executor *exr;

	/* Release cannot be interrupted: a short, bounded hold of the lock. */
	mutex_lock(&core->lock);
	exr = core->executor;
	vnk_event_core(core, VNEURON_EVENT_CORE_RELEASE, pid_nr(core->owner_pid),
		       core->owner_uid);
	core->owner = NULL;
	vnk_share_uncharge(core->user, VNEURON_SHARE_CORES);
	core->user = NULL;
	core->claim = 0;
	put_pid(core->owner_pid);
	core->owner_pid = NULL;
	vnk_publish_owner(core);
	clear_bit(core->index, &vf->owned);
	vn_core_set_owner(exr->ec, 0);
	vnk_trace_core_claimed(core);
	mutex_unlock(&core->lock);
	vnk_executor_put(exr);
}

int vnk_dev_core_claim_pair(struct vnk_file *vf, struct vnk_dev_core *core,
			    struct vn_core *ec[2])
{
	bool had = test_bit(core[0].index, &vf->owned);

	ec[0] = vnk_dev_core_claim(vf, &core[0]);
	if (IS_ERR(ec[0]))
		return PTR_ERR(ec[0]);
	ec[1] = vnk_dev_core_claim(vf, &core[1]);
	if (!IS_ERR(ec[1]))
		return 0;
	/* A refused call claims nothing: give back the first core if this call took it. */
	if (!had)
		vnk_dev_core_unclaim(vf, &core[0]);
	return PTR_ERR(ec[1]);
}

void vnk_dev_core_release_all(struct vnk_file *vf)
{
	struct vnk_device *vdev = vf->vdev;
	unsigned int i;

	for (i = 0; i < vdev->core_count; i++)
		if (test_bit(i, &vf->owned))
			vnk_dev_core_unclaim(vf, &vdev->cores[i]);
}

/*
 * RESET: the owner's, or anyone's for a core nobody owns, or CAP_SYS_ADMIN's. It waits
 * for the running execution to notice the reset (within a bounded chunk of its work).
 */
int vnk_reset_ioctl(struct vnk_file *vf, void *data)
{
	const struct vneuron_reset *arg = data;
	struct vnk_dev_core *core;
	int ret = 0;

	if (arg->flags || arg->core >= vf->vdev->core_count)
		return -EINVAL;
	core = &vf->vdev->cores[arg->core];
	if (mutex_lock_killable(&core->lock))
		return -EINTR;
	if (core->owner && core->owner != vf && !capable(CAP_SYS_ADMIN)) {
		ret = -EPERM;
		goto out;
	}
	/* A core without an executor has nothing to stop. */
	if (core->executor)
		vn_core_reset(core->executor->ec);
	vn_core_stats_reset(&core->stats);
	vnk_event_core(core, VNEURON_EVENT_RESET, task_tgid_nr(current), current_uid());
out:
	mutex_unlock(&core->lock);
	return ret;
}
