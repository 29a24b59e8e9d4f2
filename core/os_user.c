// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The OS layer for the host library: pthreads and libc. Never built into the module.
 *
 * It checks the kernel's rules as a debug kernel would (core/vn_os.h), so the host tests
 * and fuzzers catch what lockdep and DEBUG_ATOMIC_SLEEP catch in the guest: recursive
 * locking, two lock classes taken in both orders, a lock dropped by a thread that does
 * not hold it, sleeping in an FPU section, nested or unbalanced FPU sections. A violation
 * prints what happened and aborts. Like lockdep, the order check reasons about classes
 * (vn_lock_create() call sites), so an inversion is found even if it never deadlocks.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "vn_os.h"

#define VN_MAX_CLASSES	64	/* vn_lock_create() call sites */
#define VN_MAX_HELD	16	/* locks one thread holds at once */

struct vn_lock {
	pthread_mutex_t m;
	pthread_t owner;
	bool owned;
	struct vn_lock_class *cls;
	const char *name;
};

/* What the calling thread holds, and whether it is in an FPU section. */
static __thread struct vn_lock *vn_held[VN_MAX_HELD];
static __thread unsigned int vn_nheld;
static __thread unsigned int vn_in_fpu;

/* after[a] has bit b once a lock of class b was taken while one of class a was held. */
static pthread_mutex_t vn_order_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t vn_after[VN_MAX_CLASSES];
static const char *vn_class_name[VN_MAX_CLASSES];
static int vn_nclasses;

/* FPU sections begun by any thread: host tests check that long instructions are split. */
unsigned long vn_os_fpu_sections;
/* Scheduling points of system-call work (validation): host tests check they come often. */
unsigned long vn_os_resched_points;

static void vn_die(const char *what, const char *a, const char *b)
{
	fprintf(stderr, "vneuron core: %s%s%s%s%s\n", what, a ? ": " : "", a ? a : "",
		b ? " / " : "", b ? b : "");
	abort();
}

void vn_bug(const char *what, const char *detail)
{
	vn_die(what, detail, NULL);
}

static void vn_might_sleep(const char *what)
{
	if (vn_in_fpu)
		vn_die("sleeping in an FPU section", what, NULL);
}

/* The class's number, from 1; 0 once the table is full (order checks then skip it). */
static int vn_class_id(struct vn_lock_class *cls, const char *name)
{
	int id = __atomic_load_n(&cls->id, __ATOMIC_ACQUIRE);

	if (id)
		return id;
	pthread_mutex_lock(&vn_order_lock);
	if (!cls->id && vn_nclasses < VN_MAX_CLASSES) {
		vn_class_name[vn_nclasses] = name;
		__atomic_store_n(&cls->id, ++vn_nclasses, __ATOMIC_RELEASE);
	}
	id = cls->id;
	pthread_mutex_unlock(&vn_order_lock);
	return id;
}

/* Record "held before l" for every held lock; die on the reverse order seen before. */
static void vn_check_order(struct vn_lock *l)
{
	int b, a;
	unsigned int i;
	bool known = true;

	if (!vn_nheld)
		return;		/* no order to record */
	b = vn_class_id(l->cls, l->name);
	if (!b)
		return;
	/*
	 * Edges are only ever added, each under vn_order_lock after checking its reverse:
	 * if every edge is known already, nothing new can be learnt, and the global lock
	 * (taken by every worker at every lock, so contended) is not needed.
	 */
	for (i = 0; i < vn_nheld && known; i++) {
		a = vn_class_id(vn_held[i]->cls, vn_held[i]->name);
		known = a && a != b &&
			(__atomic_load_n(&vn_after[a - 1], __ATOMIC_ACQUIRE) & (1ull << (b - 1)));
	}
	if (known)
		return;
	pthread_mutex_lock(&vn_order_lock);
	for (i = 0; i < vn_nheld; i++) {
		a = vn_class_id(vn_held[i]->cls, vn_held[i]->name);
		if (!a)
			continue;
		if (a == b) {
			pthread_mutex_unlock(&vn_order_lock);
			vn_die("two locks of one class nested", vn_held[i]->name, l->name);
		}
		if (vn_after[b - 1] & (1ull << (a - 1))) {
			pthread_mutex_unlock(&vn_order_lock);
			vn_die("lock order inversion", vn_class_name[a - 1], vn_class_name[b - 1]);
		}
		__atomic_or_fetch(&vn_after[a - 1], 1ull << (b - 1), __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&vn_order_lock);
}

/*
 * Whether this thread holds l, asked without holding it: owned is stored after owner
 * (release) and loaded before it (acquire), so seeing another thread's owned never comes
 * with this thread's stale owner from an earlier hold.
 */
static bool vn_held_by_me(struct vn_lock *l)
{
	return __atomic_load_n(&l->owned, __ATOMIC_ACQUIRE) &&
	       pthread_equal(__atomic_load_n(&l->owner, __ATOMIC_RELAXED), pthread_self());
}

static void vn_note_taken(struct vn_lock *l)
{
	__atomic_store_n(&l->owner, pthread_self(), __ATOMIC_RELAXED);
	__atomic_store_n(&l->owned, true, __ATOMIC_RELEASE);
	if (vn_nheld == VN_MAX_HELD)
		vn_die("too many locks held", l->name, NULL);
	vn_held[vn_nheld++] = l;
}

static void vn_note_dropped(struct vn_lock *l)
{
	unsigned int i;

	if (!vn_held_by_me(l))
		vn_die("dropping a lock this thread does not hold", l->name, NULL);
	for (i = 0; i < vn_nheld && vn_held[i] != l; i++)
		;
	if (i == vn_nheld)
		vn_die("dropping a lock missing from the held list", l->name, NULL);
	vn_held[i] = vn_held[--vn_nheld];
	__atomic_store_n(&l->owned, false, __ATOMIC_RELAXED);
}

void *vn_zalloc(size_t size)
{
	vn_might_sleep("allocation");
	return calloc(1, size ? size : 1);
}

void vn_free(const void *p)
{
	free((void *)p);
}

/*
 * Large areas (a core's SBUF, 24 MiB, and PSUM) in transparent huge pages where the
 * system allows them on request: TensorE reads rows a partition apart, each in a 4 KiB
 * page of its own otherwise, and the TLB misses cost more than the copies.
 */
#define VN_HUGE_MIN	(4ul << 20)

void *vn_vzalloc(size_t size)
{
	uintptr_t a, e;
	void *p;

	vn_might_sleep("allocation");
	p = calloc(1, size ? size : 1);
	if (p && size >= VN_HUGE_MIN) {
		a = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
		e = ((uintptr_t)p + size) & ~(uintptr_t)4095;
		madvise((void *)a, e - a, MADV_HUGEPAGE);	/* advice only */
	}
	return p;
}

void vn_vfree(const void *p)
{
	free((void *)p);
}

size_t vn_lock_size(void)
{
	return sizeof(struct vn_lock);
}

struct vn_lock *vn_lock_init_class(void *mem, struct vn_lock_class *cls, const char *name)
{
	struct vn_lock *l = mem;

	*l = (struct vn_lock){ .cls = cls, .name = name };
	pthread_mutex_init(&l->m, NULL);
	return l;
}

void vn_lock_fini(struct vn_lock *l)
{
	if (!l)
		return;
	if (l->owned)
		vn_die("destroying a held lock", l->name, NULL);
	pthread_mutex_destroy(&l->m);
}

struct vn_lock *vn_lock_create_class(struct vn_lock_class *cls, const char *name)
{
	void *mem = malloc(sizeof(struct vn_lock));

	return mem ? vn_lock_init_class(mem, cls, name) : NULL;
}

void vn_lock_destroy(struct vn_lock *l)
{
	vn_lock_fini(l);
	free(l);
}

void vn_lock_take(struct vn_lock *l)
{
	vn_might_sleep(l->name);
	if (vn_held_by_me(l))
		vn_die("recursive locking", l->name, NULL);
	vn_check_order(l);
	pthread_mutex_lock(&l->m);
	vn_note_taken(l);
}

void vn_lock_drop(struct vn_lock *l)
{
	vn_note_dropped(l);
	pthread_mutex_unlock(&l->m);
}

void vn_lock_assert_held(struct vn_lock *l)
{
	if (!vn_held_by_me(l))
		vn_die("lock not held", l->name, NULL);
}

struct vn_cond {
	pthread_cond_t c;
};

size_t vn_cond_size(void)
{
	return sizeof(struct vn_cond);
}

struct vn_cond *vn_cond_init_class(void *mem, struct vn_lock_class *cls, const char *name)
{
	struct vn_cond *c = mem;
	pthread_condattr_t a;

	(void)cls;
	(void)name;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&c->c, &a);
	pthread_condattr_destroy(&a);
	return c;
}

void vn_cond_fini(struct vn_cond *c)
{
	if (c)
		pthread_cond_destroy(&c->c);
}

struct vn_cond *vn_cond_create_class(struct vn_lock_class *cls, const char *name)
{
	void *mem = malloc(sizeof(struct vn_cond));

	return mem ? vn_cond_init_class(mem, cls, name) : NULL;
}

void vn_cond_destroy(struct vn_cond *c)
{
	vn_cond_fini(c);
	free(c);
}

int vn_cond_wait(struct vn_cond *c, struct vn_lock *l, u64 deadline_ns)
{
	struct timespec ts;
	int r = 0;

	vn_might_sleep("condition wait");
	vn_lock_assert_held(l);
	if (deadline_ns && vn_time_ns() >= deadline_ns)
		return -ETIMEDOUT;
	vn_note_dropped(l);
	if (!deadline_ns) {
		pthread_cond_wait(&c->c, &l->m);
	} else {
		ts.tv_sec = deadline_ns / 1000000000ull;
		ts.tv_nsec = deadline_ns % 1000000000ull;
		if (pthread_cond_timedwait(&c->c, &l->m, &ts) == ETIMEDOUT)
			r = -ETIMEDOUT;
	}
	vn_note_taken(l);
	return r;
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
};

static void *vn_thread_main(void *p)
{
	struct vn_thread *t = p;

	t->fn(t->arg);
	if (vn_nheld)
		vn_die("thread ends holding a lock", vn_held[0]->name, NULL);
	if (vn_in_fpu)
		vn_die("thread ends inside an FPU section", NULL, NULL);
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

/*
 * Never on the host: a futex wake-up costs a few microseconds there, and a polling
 * runner takes a CPU the submitting thread needs (the host's empty run went from 8.5
 * to 10-20 us on a loaded two-core machine).
 */
u64 vn_idle_spin_ns(void)
{
	return 0;
}

bool vn_thread_alone(void)
{
	return true;	/* not asked: the runner never polls here */
}

void vn_thread_stop(struct vn_thread *t)
{
	if (!t)
		return;
	vn_might_sleep("thread stop");
	pthread_join(t->tid, NULL);
	free(t);
}

/*
 * Like the kernel's cond_resched(), give the CPU away only when this thread has had it
 * for a while (VN_YIELD_AFTER_NS since its last yield): the executor calls this between
 * every two steps of an instruction, and a sched_yield() each time handed the CPU to
 * other processes many times a millisecond on a busy machine.
 */
#define VN_YIELD_AFTER_NS	500000

static __thread u64 vn_last_yield;

void vn_thread_yield(void)
{
	u64 now;

	vn_might_sleep("scheduling point");
	now = vn_time_ns();
	if (now - vn_last_yield < VN_YIELD_AFTER_NS)
		return;
	vn_last_yield = now;
	sched_yield();
}

void vn_cond_resched(void)
{
	vn_might_sleep("scheduling point");
	__atomic_add_fetch(&vn_os_resched_points, 1, __ATOMIC_RELAXED);
}

bool vn_fatal_signal_pending(void)
{
	return false;
}

u64 vn_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

void vn_fpu_begin(void)
{
	if (vn_in_fpu)
		vn_die("nested FPU section", NULL, NULL);
	vn_in_fpu = 1;
	__atomic_add_fetch(&vn_os_fpu_sections, 1, __ATOMIC_RELAXED);
}

bool vn_cpu_prefetchw;

/* Before main(): the trace rings' producers test it at every record (vn_prefetchw()). */
__attribute__((constructor)) static void vn_cpu_prefetchw_init(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	/* CPUID 0x80000001: ECX bit 8, PRFCHW (3DNowPrefetch). */
	if (__get_cpuid(0x80000001, &a, &b, &c, &d))
		vn_cpu_prefetchw = c & (1u << 8);
#endif
}

u32 vn_cpu_vector(void)
{
#if defined(__x86_64__) || defined(__i386__)
	u32 fma;

	__builtin_cpu_init();
	fma = __builtin_cpu_supports("fma") ? VN_CPU_FMA : 0;
	if (__builtin_cpu_supports("avx512f"))
		return VN_CPU_AVX512 | fma |
		       (__builtin_cpu_supports("avx512bf16") ? VN_CPU_BF16 : 0);
	if (__builtin_cpu_supports("avx2"))
		return VN_CPU_AVX2 | fma;
#endif
	return VN_CPU_SSE2;
}

void vn_fpu_end(void)
{
	if (!vn_in_fpu)
		vn_die("FPU section ended twice", NULL, NULL);
	vn_in_fpu = 0;
}
