// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The OS layer for the host library: pthreads and libc. Never built into the module. */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "vn_os.h"

void *vn_zalloc(size_t size)
{
	return calloc(1, size ? size : 1);
}

void vn_free(const void *p)
{
	free((void *)p);
}

void *vn_vzalloc(size_t size)
{
	return calloc(1, size ? size : 1);
}

void vn_vfree(const void *p)
{
	free((void *)p);
}

struct vn_lock {
	pthread_mutex_t m;
};

struct vn_lock *vn_lock_create(void)
{
	struct vn_lock *l = malloc(sizeof(*l));

	if (l)
		pthread_mutex_init(&l->m, NULL);
	return l;
}

void vn_lock_destroy(struct vn_lock *l)
{
	if (!l)
		return;
	pthread_mutex_destroy(&l->m);
	free(l);
}

void vn_lock_take(struct vn_lock *l)
{
	pthread_mutex_lock(&l->m);
}

void vn_lock_drop(struct vn_lock *l)
{
	pthread_mutex_unlock(&l->m);
}

struct vn_cond {
	pthread_cond_t c;
};

struct vn_cond *vn_cond_create(void)
{
	struct vn_cond *c = malloc(sizeof(*c));
	pthread_condattr_t a;

	if (!c)
		return NULL;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&c->c, &a);
	pthread_condattr_destroy(&a);
	return c;
}

void vn_cond_destroy(struct vn_cond *c)
{
	if (!c)
		return;
	pthread_cond_destroy(&c->c);
	free(c);
}

int vn_cond_wait(struct vn_cond *c, struct vn_lock *l, u64 deadline_ns)
{
	struct timespec ts;

	if (!deadline_ns) {
		pthread_cond_wait(&c->c, &l->m);
		return 0;
	}
	if (vn_time_ns() >= deadline_ns)
		return -ETIMEDOUT;
	ts.tv_sec = deadline_ns / 1000000000ull;
	ts.tv_nsec = deadline_ns % 1000000000ull;
	return pthread_cond_timedwait(&c->c, &l->m, &ts) == ETIMEDOUT ? -ETIMEDOUT : 0;
}

int vn_cond_wait_worker(struct vn_cond *c, struct vn_lock *l, u64 deadline_ns)
{
	return vn_cond_wait(c, l, deadline_ns);
}

void vn_cond_broadcast(struct vn_cond *c)
{
	pthread_cond_broadcast(&c->c);
}

struct vn_thread {
	pthread_t tid;
	int (*fn)(void *arg);
	void *arg;
	volatile int stop;
};

static __thread struct vn_thread *vn_self;

static void *vn_thread_main(void *p)
{
	struct vn_thread *t = p;

	vn_self = t;
	t->fn(t->arg);
	return NULL;
}

struct vn_thread *vn_thread_start(int (*fn)(void *arg), void *arg, const char *name)
{
	struct vn_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->fn = fn;
	t->arg = arg;
	if (pthread_create(&t->tid, NULL, vn_thread_main, t)) {
		free(t);
		return NULL;
	}
	pthread_setname_np(t->tid, name);
	return t;
}

void vn_thread_stop(struct vn_thread *t)
{
	if (!t)
		return;
	__atomic_store_n(&t->stop, 1, __ATOMIC_RELEASE);
	pthread_join(t->tid, NULL);
	free(t);
}

bool vn_thread_should_stop(void)
{
	return vn_self && __atomic_load_n(&vn_self->stop, __ATOMIC_ACQUIRE);
}

void vn_thread_yield(void)
{
	sched_yield();
}

u64 vn_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

void vn_fpu_begin(void)
{
}

void vn_fpu_end(void)
{
}
