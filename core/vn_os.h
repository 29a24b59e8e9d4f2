/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The OS layer: everything the device core needs from its host. kmod/os.c implements it
 * with kernel primitives, core/os_user.c with pthreads for the host library. The core
 * sees only these opaque handles, so the same engine code runs in both.
 */
#ifndef VN_OS_H
#define VN_OS_H

#include "vn_platform.h"

/* Memory. vn_alloc() may sleep; vn_valloc() is for large, virtually contiguous areas. */
void *vn_zalloc(size_t size);
void vn_free(const void *p);
void *vn_vzalloc(size_t size);
void vn_vfree(const void *p);

/* A sleeping lock. */
struct vn_lock;
struct vn_lock *vn_lock_create(void);
void vn_lock_destroy(struct vn_lock *l);
void vn_lock_take(struct vn_lock *l);
void vn_lock_drop(struct vn_lock *l);

/*
 * A condition to wait on, used with a vn_lock held. Waits are interruptible by signals
 * in the kernel (-EINTR) and end at an absolute CLOCK_MONOTONIC deadline in ns
 * (-ETIMEDOUT; 0 means no deadline). Spurious wake-ups are allowed: callers re-check.
 */
struct vn_cond;
struct vn_cond *vn_cond_create(void);
void vn_cond_destroy(struct vn_cond *c);
int vn_cond_wait(struct vn_cond *c, struct vn_lock *l, u64 deadline_ns);
/* Like vn_cond_wait() but not interruptible; for worker threads. */
int vn_cond_wait_worker(struct vn_cond *c, struct vn_lock *l, u64 deadline_ns);
void vn_cond_broadcast(struct vn_cond *c);

/* Worker threads. fn runs until vn_thread_stop() is called and fn returns. */
struct vn_thread;
struct vn_thread *vn_thread_start(int (*fn)(void *arg), void *arg, const char *name);
void vn_thread_stop(struct vn_thread *t);	/* waits for fn to return */
bool vn_thread_should_stop(void);
void vn_thread_yield(void);		/* a scheduling point between bounded chunks */

/* CLOCK_MONOTONIC in ns. */
u64 vn_time_ns(void);

/* Floating point: only between these, in bounded chunks. No-ops on the host. */
void vn_fpu_begin(void);
void vn_fpu_end(void);

#endif /* VN_OS_H */
