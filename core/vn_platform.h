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
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <linux/types.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define check_mul_overflow(a, b, d)	__builtin_mul_overflow(a, b, d)
#define min(a, b)		((a) < (b) ? (a) : (b))
#define max(a, b)		((a) > (b) ? (a) : (b))
#define min_t(t, a, b)		((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)		((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define __maybe_unused		__attribute__((unused))
#define fallthrough		__attribute__((fallthrough))
#endif

/* Release/acquire for the trace rings, the same on both sides of the mmap. */
#define vn_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define vn_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)

#endif /* VN_PLATFORM_H */
