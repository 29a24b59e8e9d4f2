/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The only header in core/ that names an OS. It gives the core its integer types,
 * errno values, memcpy/memset and a few compiler helpers, from the kernel when built
 * into vneuron.ko and from libc when built into the host library.
 */
#ifndef VN_PLATFORM_H
#define VN_PLATFORM_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/compiler.h>
#include <linux/overflow.h>
#include <linux/minmax.h>
#include <linux/lockdep_types.h>
#include <linux/kernel.h>
#include <linux/prefetch.h>

/* A lock class: one per vn_lock_create() call site (core/vn_os.h). */
struct vn_lock_class {
	struct lock_class_key key;
};
#else
#include "vn_platform_user.h"

/* The host layer numbers the classes it sees, for its lock-order checks. */
struct vn_lock_class {
	int id;		/* 0 until first used */
};
#endif

/*
 * v = base + (n - 1) * step for a count n >= 1: the offset of the last of n items
 * step apart. False if n is 0 or the result does not fit 64 bits.
 */
static inline bool vn_last_of(u64 base, u64 n, u64 step, u64 *v)
{
	u64 span;

	return n && !check_mul_overflow(n - 1, step, &span) &&
	       !check_add_overflow(base, span, v);
}

/* A formatted message into a fixed buffer (the loader's error text). */
#define vn_snprintf(buf, n, ...)	snprintf(buf, n, __VA_ARGS__)

/*
 * A prefetch for writing: the line comes in owned (PREFETCHW), so the stores to it do not
 * wait for the other cores' copies to be invalidated. The kernel patches its prefetchw()
 * to PREFETCHW where the CPU has it; the host build chooses at run time the same way
 * (vn_platform_user.h).
 */
#ifdef __KERNEL__
#define vn_prefetchw(p)		prefetchw(p)
#define vn_prefetch(p)		prefetch(p)
#else
#define vn_prefetch(p)		__builtin_prefetch(p)
#endif

/* Release/acquire for the trace rings, the same on both sides of the mmap. */
#define vn_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define vn_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)

#endif /* VN_PLATFORM_H */
