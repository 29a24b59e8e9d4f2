// SPDX-License-Identifier: GPL-2.0
/*
 * The device core's OS layer (core/vn_os.h) on Linux kernel primitives.
 *
 * Every allocation is made for the process whose system call runs (program images,
 * executions, a core's executor made at its claim): charged to its memory cgroup, and
 * allowed to fail rather than invoke the OOM killer or warn (__GFP_RETRY_MAYFAIL,
 * __GFP_NOWARN), so a process in a small cgroup gets -ENOMEM and nobody else suffers.
 */
#include <linux/kthread.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/stat.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <asm/cpufeature.h>
#include <asm/fpu/api.h>

#include "vn_os.h"

#define VNK_GFP	(GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_RETRY_MAYFAIL)

void *vn_zalloc(size_t size)
{
	return kzalloc(size, VNK_GFP);
}

void vn_free(const void *p)
{
	kfree(p);
}

/*
 * Small areas (an execution's semaphore times, a small program) come from the slab:
 * a vmalloc per execution costs a page-table update and, at free, a TLB flush.
 * kvzalloc() falls back to vmalloc quietly for large or fragmented cases.
 */
void *vn_vzalloc(size_t size)
{
	if (size > INT_MAX)
		return __vmalloc(size, VNK_GFP | __GFP_ZERO);
	return kvzalloc(size, VNK_GFP);
}

void vn_vfree(const void *p)
{
	kvfree(p);
}

struct vn_lock {
	struct mutex m;	/* sleeping: engine work may take long */
};

size_t vn_lock_size(void)
{
	return sizeof(struct vn_lock);
}

/* Each call site's class is its own lockdep class (core/vn_os.h). */
struct vn_lock *vn_lock_init_class(void *mem, struct vn_lock_class *cls, const char *name)
{
	struct vn_lock *l = mem;

	__mutex_init(&l->m, name, &cls->key);
	return l;
}

void vn_lock_fini(struct vn_lock *l)
{
	if (l)
		mutex_destroy(&l->m);
}

struct vn_lock *vn_lock_create_class(struct vn_lock_class *cls, const char *name)
{
	struct vn_lock *l = kmalloc(sizeof(*l), VNK_GFP);

	return l ? vn_lock_init_class(l, cls, name) : NULL;
}

void vn_lock_destroy(struct vn_lock *l)
{
	vn_lock_fini(l);
	kfree(l);
}

void vn_lock_take(struct vn_lock *l)
{
	mutex_lock(&l->m);
}

void vn_lock_drop(struct vn_lock *l)
{
	mutex_unlock(&l->m);
}

void vn_lock_assert_held(struct vn_lock *l)
{
	lockdep_assert_held(&l->m);
}

struct vn_cond {
	struct wait_queue_head wq;
};

size_t vn_cond_size(void)
{
	return sizeof(struct vn_cond);
}

struct vn_cond *vn_cond_init_class(void *mem, struct vn_lock_class *cls, const char *name)
{
	struct vn_cond *c = mem;

	__init_waitqueue_head(&c->wq, name, &cls->key);
	return c;
}

/* A wait queue holds nothing to release. */
void vn_cond_fini(struct vn_cond *c)
{
}

struct vn_cond *vn_cond_create_class(struct vn_lock_class *cls, const char *name)
{
	struct vn_cond *c = kmalloc(sizeof(*c), VNK_GFP);

	return c ? vn_cond_init_class(c, cls, name) : NULL;
}

void vn_cond_destroy(struct vn_cond *c)
{
	kfree(c);
}

/*
 * prepare_to_wait() before dropping the lock: a broadcast made under the lock after
 * that point sets us runnable again, so no wake-up is lost.
 */
static int vnk_cond_sleep(struct vn_cond *c, struct vn_lock *l, u64 deadline_ns, int state)
{
	DEFINE_WAIT(w);
	long timeout = MAX_SCHEDULE_TIMEOUT;
	int ret = 0;

	if (deadline_ns) {
		u64 now = ktime_get_ns();

		if (now >= deadline_ns)
			return -ETIMEDOUT;
		timeout = nsecs_to_jiffies(deadline_ns - now) + 1;
	}
	prepare_to_wait(&c->wq, &w, state);
	mutex_unlock(&l->m);
	if (state == TASK_INTERRUPTIBLE && signal_pending(current))
		ret = -EINTR;
	/* PF_KTHREAD first: kthread_should_stop() WARNs and oopses on a user task. */
	else if (!(current->flags & PF_KTHREAD) || !kthread_should_stop())
		timeout = schedule_timeout(timeout);
	finish_wait(&c->wq, &w);
	mutex_lock(&l->m);
	if (!ret && state == TASK_INTERRUPTIBLE && signal_pending(current))
		ret = -EINTR;
	if (!ret && !timeout)
		ret = -ETIMEDOUT;
	return ret;
}

int vn_cond_wait(struct vn_cond *c, struct vn_lock *l, u64 deadline_ns)
{
	return vnk_cond_sleep(c, l, deadline_ns, TASK_INTERRUPTIBLE);
}

int vn_cond_wait_worker(struct vn_cond *c, struct vn_lock *l, u64 deadline_ns)
{
	return vnk_cond_sleep(c, l, deadline_ns, TASK_IDLE);
}

void vn_cond_broadcast(struct vn_cond *c)
{
	wake_up_all(&c->wq);
}

struct vn_thread {
	struct task_struct *task;
};

struct vn_thread *vn_thread_start(int (*fn)(void *arg), void *arg, const char *name)
{
	struct vn_thread *t = kmalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	t->task = kthread_create(fn, arg, "%s", name);
	if (IS_ERR(t->task)) {
		kfree(t);
		return NULL;
	}
	/* Hold the task before it runs: fn may return before vn_thread_stop() is called. */
	get_task_struct(t->task);
	wake_up_process(t->task);
	return t;
}

void vn_thread_stop(struct vn_thread *t)
{
	if (!t)
		return;
	kthread_stop(t->task);
	put_task_struct(t->task);
	kfree(t);
}

/*
 * Waking a sleeping kernel thread from another CPU is an IPI and, in an emulated guest,
 * a halted vCPU woken: tens of microseconds. Poll that long instead (docs/bench.md).
 */
u64 vn_idle_spin_ns(void)
{
	return 50 * NSEC_PER_USEC;
}

/* As KVM's halt polling: a poll must not keep a runnable task (the submitter) waiting. */
bool vn_thread_alone(void)
{
	return single_task_running();
}

void vn_thread_yield(void)
{
	cond_resched();
}

void vn_cond_resched(void)
{
	cond_resched();
}

bool vn_fatal_signal_pending(void)
{
	return fatal_signal_pending(current);
}

u64 vn_time_ns(void)
{
	return ktime_get_ns();
}

void vn_fpu_begin(void)
{
	kernel_fpu_begin();
}

void vn_fpu_end(void)
{
	kernel_fpu_end();
}

u32 vn_cpu_vector(void)
{
#ifdef CONFIG_X86
	u32 fma = boot_cpu_has(X86_FEATURE_FMA) ? VN_CPU_FMA : 0;

	if (boot_cpu_has(X86_FEATURE_AVX512F) &&
	    cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM | XFEATURE_MASK_AVX512,
			      NULL))
		return VN_CPU_AVX512 | fma |
		       (boot_cpu_has(X86_FEATURE_AVX512_BF16) ? VN_CPU_BF16 : 0);
	if (boot_cpu_has(X86_FEATURE_AVX2) &&
	    cpu_has_xfeatures(XFEATURE_MASK_SSE | XFEATURE_MASK_YMM, NULL))
		return VN_CPU_AVX2 | fma;
#endif
	return VN_CPU_SSE2;
}

/* Not called in the kernel: a fault ends the execution with a status (core/exec.c). */
void vn_bug(const char *what, const char *detail)
{
	pr_err_ratelimited("vneuron: %s: %s\n", what, detail);
}
