// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Execution memory: one allocation per execution, and a core's spare executions reused by
 * its next submissions, so the steady state allocates nothing.
 */
#include "vn_sched.h"

/*
 * An execution of a program with at most this many tensors and semaphore increments
 * (most) is made in the pool's fixed size, and may be reused by any such program.
 */
#define VN_POOL_TENSORS	8
#define VN_POOL_SLOTS	64
#define VN_POOL_SPARES	64	/* per core (io_uring batches of 64): 2 KiB each */

static u64 align_up(u64 x, u64 a)
{
	return (x + a - 1) & ~(a - 1);
}

/* Where the lock, the condition, the binds and the semaphore times are. */
static u64 exec_lock_off(void)
{
	return align_up(sizeof(struct vn_exec), VN_OS_ALIGN);
}

static u64 exec_cond_off(void)
{
	return exec_lock_off() + align_up(vn_lock_size(), VN_OS_ALIGN);
}

static u64 exec_binds_off(void)
{
	return exec_cond_off() + align_up(vn_cond_size(), VN_OS_ALIGN);
}

/* A new execution's memory with room for tensors binds and slots semaphore times. */
static struct vn_exec *exec_alloc(u32 tensors, u64 slots)
{
	u64 times_off = exec_binds_off() + sizeof(struct vn_bind) * (u64)tensors;
	struct vn_exec *ex = vn_vzalloc(times_off + sizeof(u64) * slots);

	if (!ex)
		return NULL;
	ex->lock = vn_lock_init((u8 *)ex + exec_lock_off(), "vn_exec.lock");
	ex->cond = vn_cond_init((u8 *)ex + exec_cond_off(), "vn_exec.cond");
	ex->binds = (struct vn_bind *)((u8 *)ex + exec_binds_off());
	ex->sem_times = (u64 *)((u8 *)ex + times_off);
	return ex;
}

static void exec_free(struct vn_exec *ex)
{
	vn_cond_fini(ex->cond);
	vn_lock_fini(ex->lock);
	vn_vfree(ex);
}

static void pool_put(struct vn_exec_pool *pl)
{
	if (__atomic_sub_fetch(&pl->refs, 1, __ATOMIC_ACQ_REL))
		return;
	vn_lock_destroy(pl->lock);
	vn_free(pl);
}

/*
 * An execution for program p: a spare of the core's pool when p fits the pool's size,
 * all of it zeroed but its lock and condition (both idle: nobody held a reference).
 */
struct vn_exec *vn_exec_from_pool(struct vn_core *c, const struct vn_program *p, u64 slots)
{
	struct vn_exec_pool *pl = c->pool;
	struct vn_exec *ex = NULL;
	struct vn_lock *lock;
	struct vn_cond *cond;

	if (!pl || p->tensor_count > VN_POOL_TENSORS || slots > VN_POOL_SLOTS)
		return exec_alloc(p->tensor_count, slots);
	vn_lock_take(pl->lock);
	if (pl->spare) {
		ex = pl->spare;
		pl->spare = ex->next;
		pl->nspare--;
	}
	vn_lock_drop(pl->lock);
	if (ex) {
		lock = ex->lock;
		cond = ex->cond;
		memset(ex, 0, sizeof(*ex));
		memset((u8 *)ex + exec_binds_off(), 0,
		       sizeof(struct vn_bind) * VN_POOL_TENSORS + sizeof(u64) * VN_POOL_SLOTS);
		ex->lock = lock;
		ex->cond = cond;
		ex->binds = (struct vn_bind *)((u8 *)ex + exec_binds_off());
		ex->sem_times = (u64 *)(ex->binds + VN_POOL_TENSORS);
	} else {
		ex = exec_alloc(VN_POOL_TENSORS, VN_POOL_SLOTS);
		if (!ex)
			return NULL;
		__atomic_add_fetch(&pl->refs, 1, __ATOMIC_RELAXED);
	}
	ex->pool = pl;
	return ex;
}

/* The last reference is gone: back to its pool if it has room, else freed. */
void vn_exec_release(struct vn_exec *ex)
{
	struct vn_exec_pool *pl = ex->pool;

	if (pl) {
		vn_lock_take(pl->lock);
		if (!pl->closed && pl->nspare < VN_POOL_SPARES) {
			ex->next = pl->spare;
			pl->spare = ex;
			pl->nspare++;
			vn_lock_drop(pl->lock);
			return;
		}
		vn_lock_drop(pl->lock);
	}
	exec_free(ex);
	if (pl)
		pool_put(pl);
}

struct vn_exec_pool *vn_exec_pool_create(void)
{
	struct vn_exec_pool *pl = vn_zalloc(sizeof(*pl));

	if (!pl)
		return NULL;
	pl->refs = 1;
	pl->lock = vn_lock_create("vn_exec_pool.lock");
	if (!pl->lock) {
		vn_free(pl);
		return NULL;
	}
	return pl;
}

/* The core is going: free the spares; executions still out free themselves. */
void vn_exec_pool_close(struct vn_exec_pool *pl)
{
	struct vn_exec *ex, *next;

	if (!pl)
		return;
	vn_lock_take(pl->lock);
	pl->closed = true;
	ex = pl->spare;
	pl->spare = NULL;
	pl->nspare = 0;
	vn_lock_drop(pl->lock);
	for (; ex; ex = next) {
		next = ex->next;
		exec_free(ex);
		pool_put(pl);
	}
	pool_put(pl);
}
