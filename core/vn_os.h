/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The OS layer: everything the device core needs from its host. kmod/os.c implements it
 * with kernel primitives, core/os_user.c with pthreads for the host library. The core
 * sees only these opaque handles, so the same engine code runs in both.
 *
 * The rules are the kernel's, and the host layer checks them as lockdep and
 * DEBUG_ATOMIC_SLEEP do in a debug kernel (aborting with a message on the first
 * violation): a lock is never taken twice by one thread, locks of two classes are always
 * taken in the same order, only the owner drops a lock, nothing sleeps (lock, wait,
 * allocation, scheduling point) between vn_fpu_begin() and vn_fpu_end(), and FPU sections
 * do not nest.
 */
#ifndef VN_OS_H
#define VN_OS_H

#include "vn_platform.h"

/*
 * Memory. Allocations are made on behalf of the calling process: the kernel charges them
 * to its memory cgroup, and a large one that cannot be satisfied fails (NULL) without
 * invoking the OOM killer or warning in the log. Both may sleep. vn_vzalloc() is for
 * large, virtually contiguous areas.
 */
void *vn_zalloc(size_t size);
void vn_free(const void *p);
void *vn_vzalloc(size_t size);
void vn_vfree(const void *p);

/*
 * A sleeping lock. Each vn_lock_create() call site is its own lock class (as the kernel's
 * mutex_init() is): the class is what lock-order checking reasons about.
 */
struct vn_lock;
struct vn_lock *vn_lock_create_class(struct vn_lock_class *cls, const char *name);
#define vn_lock_create(name) ({						\
	static struct vn_lock_class __vn_lock_cls;			\
	vn_lock_create_class(&__vn_lock_cls, (name));			\
})
void vn_lock_destroy(struct vn_lock *l);
/*
 * The same in memory the caller provides (VN_OS_ALIGN-aligned, vn_lock_size() bytes),
 * ended by vn_lock_fini(): an object holding a lock is then one allocation.
 */
#define VN_OS_ALIGN	16
size_t vn_lock_size(void);
struct vn_lock *vn_lock_init_class(void *mem, struct vn_lock_class *cls, const char *name);
#define vn_lock_init(mem, name) ({					\
	static struct vn_lock_class __vn_lock_cls;			\
	vn_lock_init_class((mem), &__vn_lock_cls, (name));		\
})
void vn_lock_fini(struct vn_lock *l);
void vn_lock_take(struct vn_lock *l);
void vn_lock_drop(struct vn_lock *l);
/* Asserts that the calling thread holds l (lockdep_assert_held() in the kernel). */
void vn_lock_assert_held(struct vn_lock *l);

/*
 * A condition to wait on, used with a vn_lock held. Waits are interruptible by signals
 * in the kernel (-EINTR) and end at an absolute CLOCK_MONOTONIC deadline in ns
 * (-ETIMEDOUT; 0 means no deadline). Spurious wake-ups are allowed: callers re-check.
 */
struct vn_cond;
struct vn_cond *vn_cond_create_class(struct vn_lock_class *cls, const char *name);
#define vn_cond_create(name) ({						\
	static struct vn_lock_class __vn_cond_cls;			\
	vn_cond_create_class(&__vn_cond_cls, (name));			\
})
void vn_cond_destroy(struct vn_cond *c);
/* In memory the caller provides, as vn_lock_init(). */
size_t vn_cond_size(void);
struct vn_cond *vn_cond_init_class(void *mem, struct vn_lock_class *cls, const char *name);
#define vn_cond_init(mem, name) ({					\
	static struct vn_lock_class __vn_cond_cls;			\
	vn_cond_init_class((mem), &__vn_cond_cls, (name));		\
})
void vn_cond_fini(struct vn_cond *c);
int vn_cond_wait(struct vn_cond *c, struct vn_lock *l, u64 deadline_ns);
/* Like vn_cond_wait() but not interruptible; for worker threads. */
int vn_cond_wait_worker(struct vn_cond *c, struct vn_lock *l, u64 deadline_ns);
void vn_cond_broadcast(struct vn_cond *c);

/* Worker threads. fn runs until vn_thread_stop() is called and fn returns. */
struct vn_thread;
struct vn_thread *vn_thread_start(int (*fn)(void *arg), void *arg, const char *name);
void vn_thread_stop(struct vn_thread *t);	/* waits for fn to return */
void vn_thread_yield(void);		/* a scheduling point between bounded chunks */
/* How long a core's idle runner polls for work before it sleeps; 0: it sleeps at once. */
u64 vn_idle_spin_ns(void);
/* Whether no other thread waits to run on the calling thread's CPU. */
bool vn_thread_alone(void);

/*
 * In a caller's system call (program validation): a scheduling point, and whether the
 * caller has been killed, so long work neither hogs a CPU nor outlives its process.
 */
void vn_cond_resched(void);
bool vn_fatal_signal_pending(void);

/* CLOCK_MONOTONIC in ns. */
u64 vn_time_ns(void);

/* Floating point: only between these, in bounded chunks. No-ops on the host. */
void vn_fpu_begin(void);
void vn_fpu_end(void);

/*
 * The widest vector unit the FPU sections may use (VN_CPU_LEVEL bits): the CPU has it
 * and the OS saves its registers (XSAVE state) across them; or'ed with the extensions
 * of that unit the CPU has. The numerics choose their kernels by it.
 */
#define VN_CPU_SSE2	0u
#define VN_CPU_AVX2	1u
#define VN_CPU_AVX512	2u	/* AVX-512F */
#define VN_CPU_LEVEL	0xffu
#define VN_CPU_FMA	0x100u		/* with AVX2 or AVX-512 */
#define VN_CPU_BF16	0x200u		/* AVX512_BF16, with AVX-512 */
u32 vn_cpu_vector(void);

/*
 * A check that can only fail through a bug elsewhere (the executor's second line of
 * defence found an access the validator let through): the host build reports it and
 * aborts, so the fuzzers find it; the kernel never calls it (the execution ends with a
 * device-fault status instead).
 */
void vn_bug(const char *what, const char *detail);

#endif /* VN_OS_H */
