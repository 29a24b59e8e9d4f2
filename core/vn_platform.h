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
#include "vn_platform_user.h"
#endif

/* Release/acquire for the trace rings, the same on both sides of the mmap. */
#define vn_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define vn_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)

#endif /* VN_PLATFORM_H */
