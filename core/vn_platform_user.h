/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The kernel's basic types and helpers for the host build of the core (libc only). */
#ifndef VN_PLATFORM_USER_H
#define VN_PLATFORM_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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

/*
 * PREFETCHW where the CPU has it (CPUID PRFCHW, read once at load by core/os_user.c):
 * a compiler targeting x86-64-v2 turns __builtin_prefetch(p, 1) into PREFETCHT0, which
 * brings a line shared, and a store to a line the consumer's core holds then waits for
 * a second transfer. Elsewhere, the compiler's prefetch for writing.
 */
extern bool vn_cpu_prefetchw;

static inline void vn_prefetchw(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	if (likely(vn_cpu_prefetchw)) {
		__asm__ volatile("prefetchw %0" : : "m"(*(const char *)p));
		return;
	}
#endif
	__builtin_prefetch(p, 1);
}

#endif /* VN_PLATFORM_USER_H */
