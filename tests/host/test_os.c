// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The host OS layer's checker (core/os_user.c): each rule of core/vn_os.h, broken once in
 * a forked child, must abort it with a message on stderr that names the problem; the
 * legitimate uses next to each rule must not. The checker is what makes the host tests
 * and fuzzers find what lockdep and DEBUG_ATOMIC_SLEEP would find in a debug kernel.
 */
#include <pthread.h>
#include "core_util.h"
#include "vn_os.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

/* Each call site of vn_lock_create() is its own lock class. */
static struct vn_lock *lock_a(void)
{
	return vn_lock_create("test.lock_a");
}

static struct vn_lock *lock_b(void)
{
	return vn_lock_create("test.lock_b");
}

static struct vn_lock *lock_c(void)
{
	return vn_lock_create("test.lock_c");
}

/* A child that must die of SIGABRT, saying all of want (NULL-terminated). */
static void expect_abort(struct __test_metadata *_metadata, void (*fn)(void *arg),
			 const char *const *want)
{
	char err[4096];
	int status = run_child(fn, NULL, err, sizeof(err));

	EXPECT_TRUE(aborted(status)) TH_LOG("status %#x, stderr: %s", status, err);
	EXPECT_NE(NULL, strstr(err, "vneuron core: ")) TH_LOG("stderr: %s", err);
	for (; *want; want++)
		EXPECT_NE(NULL, strstr(err, *want)) TH_LOG("want '%s', stderr: %s", *want, err);
}

/* A child that must exit 0 and say nothing. */
static void expect_fine(struct __test_metadata *_metadata, void (*fn)(void *arg))
{
	char err[4096];
	int status = run_child(fn, NULL, err, sizeof(err));

	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("status %#x, stderr: %s", status, err);
	EXPECT_STREQ("", err);
}

#define WANT(...)	((const char *const[]){ __VA_ARGS__, NULL })

/* ---- locks ---- */

static void take_twice(void *arg)
{
	struct vn_lock *l = lock_a();

	vn_lock_take(l);
	vn_lock_take(l);
}

TEST(recursive_lock_aborts)
{
	expect_abort(_metadata, take_twice, WANT("recursive locking", "test.lock_a"));
}

/* Two locks of one class (one call site) nested: lockdep calls this a possible deadlock. */
static void nest_one_class(void *arg)
{
	struct vn_lock *l1 = lock_a(), *l2 = lock_a();

	vn_lock_take(l1);
	vn_lock_take(l2);
}

TEST(same_class_nested_aborts)
{
	expect_abort(_metadata, nest_one_class, WANT("two locks of one class nested"));
}

/* A then B in one place, B then A later, in one thread: an inversion that never deadlocks. */
static void inversion(void *arg)
{
	struct vn_lock *a = lock_a(), *b = lock_b();

	vn_lock_take(a);
	vn_lock_take(b);
	vn_lock_drop(b);
	vn_lock_drop(a);
	vn_lock_take(b);
	vn_lock_take(a);
}

TEST(lock_order_inversion_aborts)
{
	expect_abort(_metadata, inversion,
		     WANT("lock order inversion", "test.lock_a", "test.lock_b"));
}

/* The order is by class: other locks of the same two classes, in the other order. */
static void inversion_other_instances(void *arg)
{
	struct vn_lock *a1 = lock_a(), *b1 = lock_b(), *a2 = lock_a(), *b2 = lock_b();

	vn_lock_take(a1);
	vn_lock_take(b1);
	vn_lock_drop(b1);
	vn_lock_drop(a1);
	vn_lock_take(b2);
	vn_lock_take(a2);
}

/* Three classes nested as A, B, C: C then A later reverses the recorded A -> C. */
static void inversion_three(void *arg)
{
	struct vn_lock *a = lock_a(), *b = lock_b(), *c = lock_c();

	/* A then B then C, all nested: records A->B, A->C, B->C */
	vn_lock_take(a);
	vn_lock_take(b);
	vn_lock_take(c);
	vn_lock_drop(c);
	vn_lock_drop(b);
	vn_lock_drop(a);
	/* C then A: the reverse of the recorded A->C */
	vn_lock_take(c);
	vn_lock_take(a);
}

TEST(lock_order_is_by_class)
{
	expect_abort(_metadata, inversion_other_instances, WANT("lock order inversion"));
	expect_abort(_metadata, inversion_three,
		     WANT("lock order inversion", "test.lock_c", "test.lock_a"));
}

static void drop_not_taken(void *arg)
{
	vn_lock_drop(lock_a());
}

/* A lock another thread holds: dropping it is still not ours to do. */
static pthread_mutex_t hold_m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hold_c = PTHREAD_COND_INITIALIZER;
static int held;

static void *holder(void *arg)
{
	vn_lock_take(arg);
	pthread_mutex_lock(&hold_m);
	held = 1;
	pthread_cond_signal(&hold_c);
	pthread_mutex_unlock(&hold_m);
	for (;;)
		pause();
	return NULL;
}

static struct vn_lock *held_elsewhere(void)
{
	struct vn_lock *l = lock_a();
	pthread_t t;

	pthread_create(&t, NULL, holder, l);
	pthread_mutex_lock(&hold_m);
	while (!held)
		pthread_cond_wait(&hold_c, &hold_m);
	pthread_mutex_unlock(&hold_m);
	return l;
}

static void drop_other_threads(void *arg)
{
	vn_lock_drop(held_elsewhere());
}

static void drop_twice(void *arg)
{
	struct vn_lock *l = lock_a();

	vn_lock_take(l);
	vn_lock_drop(l);
	vn_lock_drop(l);
}

TEST(drop_not_held_aborts)
{
	expect_abort(_metadata, drop_not_taken,
		     WANT("dropping a lock this thread does not hold", "test.lock_a"));
	expect_abort(_metadata, drop_other_threads,
		     WANT("dropping a lock this thread does not hold", "test.lock_a"));
	expect_abort(_metadata, drop_twice,
		     WANT("dropping a lock this thread does not hold", "test.lock_a"));
}

static void assert_not_held(void *arg)
{
	vn_lock_assert_held(lock_a());
}

static void assert_held_elsewhere(void *arg)
{
	vn_lock_assert_held(held_elsewhere());
}

static void assert_after_drop(void *arg)
{
	struct vn_lock *l = lock_a();

	vn_lock_take(l);
	vn_lock_drop(l);
	vn_lock_assert_held(l);
}

TEST(assert_held_aborts_when_not_held)
{
	expect_abort(_metadata, assert_not_held, WANT("lock not held", "test.lock_a"));
	expect_abort(_metadata, assert_held_elsewhere, WANT("lock not held", "test.lock_a"));
	expect_abort(_metadata, assert_after_drop, WANT("lock not held", "test.lock_a"));
}

/* Everything the rules allow: consistent order (twice), nesting classes, asserts, waits. */
static void legit_locking(void *arg)
{
	struct vn_lock *a = lock_a(), *b = lock_b(), *c = lock_c(), *a2 = lock_a();
	struct vn_cond *cv = vn_cond_create("test.cond");
	int i;

	for (i = 0; i < 2; i++) {
		vn_lock_take(a);
		vn_lock_assert_held(a);
		vn_lock_take(b);
		vn_lock_assert_held(b);
		vn_lock_assert_held(a);
		vn_lock_take(c);
		vn_lock_drop(c);
		vn_lock_drop(b);
		vn_lock_drop(a);
	}
	/* a prefix of the order, another instance of a class, out-of-order release */
	vn_lock_take(a2);
	vn_lock_take(c);
	vn_lock_drop(a2);
	vn_lock_drop(c);
	vn_lock_take(b);
	vn_lock_take(c);
	vn_lock_drop(b);
	vn_lock_drop(c);
	/* a wait drops and retakes its lock: still held after, with the order intact */
	vn_lock_take(a);
	if (vn_cond_wait(cv, a, vn_time_ns() + 1000000) != -ETIMEDOUT)
		_exit(2);
	vn_lock_assert_held(a);
	vn_lock_take(b);
	vn_lock_drop(b);
	vn_lock_drop(a);
	vn_cond_destroy(cv);
	vn_lock_destroy(a);
	vn_lock_destroy(a2);
	vn_lock_destroy(b);
	vn_lock_destroy(c);
}

TEST(legitimate_locking_does_not_abort)
{
	expect_fine(_metadata, legit_locking);
}

/* ---- FPU sections: nothing may sleep inside one ---- */

static void lock_in_fpu(void *arg)
{
	struct vn_lock *l = lock_a();

	vn_fpu_begin();
	vn_lock_take(l);
}

static void wait_in_fpu(void *arg)
{
	struct vn_lock *l = lock_a();
	struct vn_cond *cv = vn_cond_create("test.cond");

	vn_lock_take(l);
	vn_fpu_begin();
	vn_cond_wait(cv, l, vn_time_ns() + 1000000);
}

static void alloc_in_fpu(void *arg)
{
	vn_fpu_begin();
	vn_zalloc(16);
}

static void valloc_in_fpu(void *arg)
{
	vn_fpu_begin();
	vn_vzalloc(1 << 20);
}

static void yield_in_fpu(void *arg)
{
	vn_fpu_begin();
	vn_thread_yield();
}

static void resched_in_fpu(void *arg)
{
	vn_fpu_begin();
	vn_cond_resched();
}

TEST(sleeping_in_fpu_section_aborts)
{
	expect_abort(_metadata, lock_in_fpu, WANT("sleeping in an FPU section", "test.lock_a"));
	expect_abort(_metadata, wait_in_fpu,
		     WANT("sleeping in an FPU section", "condition wait"));
	expect_abort(_metadata, alloc_in_fpu, WANT("sleeping in an FPU section", "allocation"));
	expect_abort(_metadata, valloc_in_fpu, WANT("sleeping in an FPU section", "allocation"));
	expect_abort(_metadata, yield_in_fpu,
		     WANT("sleeping in an FPU section", "scheduling point"));
	expect_abort(_metadata, resched_in_fpu,
		     WANT("sleeping in an FPU section", "scheduling point"));
}

static void nested_fpu(void *arg)
{
	vn_fpu_begin();
	vn_fpu_begin();
}

static void end_without_begin(void *arg)
{
	vn_fpu_end();
}

static void end_twice(void *arg)
{
	vn_fpu_begin();
	vn_fpu_end();
	vn_fpu_end();
}

TEST(unbalanced_fpu_sections_abort)
{
	expect_abort(_metadata, nested_fpu, WANT("nested FPU section"));
	expect_abort(_metadata, end_without_begin, WANT("FPU section ended twice"));
	expect_abort(_metadata, end_twice, WANT("FPU section ended twice"));
}

/* Sections one after another, with locks and allocations between them, and a lock held
 * across one (a spinlock-like use: taken before, dropped after). */
static void legit_fpu(void *arg)
{
	struct vn_lock *l = lock_a();
	void *p;
	int i;

	for (i = 0; i < 3; i++) {
		vn_fpu_begin();
		vn_fpu_end();
		p = vn_zalloc(64);
		vn_free(p);
		vn_thread_yield();
	}
	vn_lock_take(l);
	vn_fpu_begin();
	vn_lock_assert_held(l);
	vn_fpu_end();
	vn_lock_drop(l);
	vn_lock_destroy(l);
}

TEST(legitimate_fpu_use_does_not_abort)
{
	unsigned long before = __atomic_load_n(&vn_os_fpu_sections, __ATOMIC_RELAXED);

	expect_fine(_metadata, legit_fpu);
	/* the section counter the TensorE tests read counts every begin */
	vn_fpu_begin();
	vn_fpu_end();
	EXPECT_EQ(before + 1, __atomic_load_n(&vn_os_fpu_sections, __ATOMIC_RELAXED));
}

/* ---- threads ---- */

static int hold_and_return(void *arg)
{
	vn_lock_take(arg);
	return 0;
}

static void thread_ends_holding(void *arg)
{
	struct vn_thread *t = vn_thread_start(hold_and_return, lock_a(), "test-holder");

	vn_thread_stop(t);
}

static int fpu_and_return(void *arg)
{
	vn_fpu_begin();
	return 0;
}

static void thread_ends_in_fpu(void *arg)
{
	vn_thread_stop(vn_thread_start(fpu_and_return, NULL, "test-fpu"));
}

TEST(worker_ending_in_a_bad_state_aborts)
{
	expect_abort(_metadata, thread_ends_holding,
		     WANT("thread ends holding a lock", "test.lock_a"));
	expect_abort(_metadata, thread_ends_in_fpu, WANT("thread ends inside an FPU section"));
}

TEST_HARNESS_MAIN
