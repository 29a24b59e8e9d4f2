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
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "vneuron_drv.h"
#include "vn_exec.h"

static struct workqueue_struct *vn_wq;
static atomic64_t vn_next_claim = ATOMIC64_INIT(0);

int vn_workqueue_init(void)
{
	vn_wq = alloc_workqueue("vneuron", WQ_UNBOUND, 0);
	return vn_wq ? 0 : -ENOMEM;
}

/* After the last file: waits for executors still being freed. */
void vn_workqueue_exit(void)
{
	destroy_workqueue(vn_wq);
}

void vn_cores_init(struct vn_device *vdev)
{
	unsigned int i;

	for (i = 0; i < vdev->core_count; i++)
		mutex_init(&vdev->cores[i].lock);
}

/* Unload: no file is open, so nothing is claimed or traced; flush the frees. */
void vn_cores_stop(struct vn_device *vdev)
{
	unsigned int i;

	flush_workqueue(vn_wq);
	for (i = 0; i < vdev->core_count; i++)
		WARN_ON(vdev->cores[i].kc);
}

static void vn_kcore_free_work(struct work_struct *w)
{
	struct vn_kcore *kc = container_of(w, struct vn_kcore, free_work);
	struct vn_dev_core *core = kc->core;

	mutex_lock(&core->lock);
	/* A newer executor may have taken its place already. */
	if (core->kc == kc)
		core->kc = NULL;
	mutex_unlock(&core->lock);
	/* Stops the workers; what its last users left (cancelled work) ends ABORTED. */
	vn_core_destroy(kc->ec);
	kfree(kc);
}

static void vn_kcore_release(struct kref *ref)
{
	struct vn_kcore *kc = container_of(ref, struct vn_kcore, ref);

	/* Any context, maybe an executor worker under its own lock: free from the queue. */
	queue_work(vn_wq, &kc->free_work);
}

void vn_kcore_put(struct vn_kcore *kc)
{
	kref_put(&kc->ref, vn_kcore_release);
}

struct vn_kcore *vn_kcore_get(struct vn_dev_core *core)
{
	struct vn_kcore *kc = core->kc;
	char name[16];

	lockdep_assert_held(&core->lock);
	if (kc && kref_get_unless_zero(&kc->ref))
		return kc;
	kc = kzalloc(sizeof(*kc), GFP_KERNEL_ACCOUNT);
	if (!kc)
		return NULL;
	snprintf(name, sizeof(name), "%u.%u", core->vdev->index, core->index);
	if (vn_core_create(core->vdev->model, name, &kc->ec)) {
		kfree(kc);
		return NULL;
	}
	vn_core_set_stats(kc->ec, &core->stats);
	vn_core_set_owner(kc->ec, core->claim);
	kref_init(&kc->ref);
	kc->core = core;
	INIT_WORK(&kc->free_work, vn_kcore_free_work);
	core->kc = kc;
	return kc;
}

struct vn_core *vn_dev_core_claim(struct vn_file *vf, struct vn_dev_core *core)
{
	struct vn_core *ec;
	struct vn_kcore *kc;

	if (mutex_lock_killable(&core->lock))
		return ERR_PTR(-EINTR);
	if (core->owner == vf) {
		ec = core->kc->ec;
		goto out;
	}
	if (core->owner) {
		ec = ERR_PTR(-EBUSY);
		goto out;
	}
	kc = vn_kcore_get(core);
	if (!kc) {
		ec = ERR_PTR(-ENOMEM);
		goto out;
	}
	core->owner = vf;
	core->claim = atomic64_inc_return(&vn_next_claim);
	core->owner_pid = get_pid(task_tgid(current));
	set_bit(core->index, &vf->owned);
	vn_core_set_owner(kc->ec, core->claim);
	vn_trace_core_claimed(core);
	ec = kc->ec;
out:
	mutex_unlock(&core->lock);
	return ec;
}

void vn_dev_core_release_all(struct vn_file *vf)
{
	struct vn_device *vdev = vf->vdev;
	unsigned int i;

	for (i = 0; i < vdev->core_count; i++) {
		struct vn_dev_core *core = &vdev->cores[i];
		struct vn_kcore *kc;

		if (!test_bit(i, &vf->owned))
			continue;
		/* Release cannot be interrupted: a short, bounded hold of the lock. */
		mutex_lock(&core->lock);
		kc = core->kc;
		core->owner = NULL;
		core->claim = 0;
		put_pid(core->owner_pid);
		core->owner_pid = NULL;
		clear_bit(i, &vf->owned);
		vn_core_set_owner(kc->ec, 0);
		vn_trace_core_claimed(core);
		mutex_unlock(&core->lock);
		vn_kcore_put(kc);
	}
}

/*
 * RESET: the owner's, or anyone's for a core nobody owns, or CAP_SYS_ADMIN's. It waits
 * for the running execution to notice the reset (within a bounded chunk of its work).
 */
int vn_core_reset_ioctl(struct vn_file *vf, const struct vneuron_reset *arg)
{
	struct vn_dev_core *core;
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
	if (core->kc)
		vn_core_reset(core->kc->ec);
	vn_core_stats_reset(&core->stats);
out:
	mutex_unlock(&core->lock);
	return ret;
}
