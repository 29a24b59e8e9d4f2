/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vneuron.ko module-wide state (kmod/main.c): the per-file limits the module parameters
 * set and the allocation counters debugfs shows. The objects are one per file of kmod/:
 * device, dev_core (a device's cores and their executors), file (an open file and the
 * ioctl table), mem, program, exec, trace, uring, comm, netq, netq_ring, genl, share,
 * sysfs; os.c is the device core's OS layer. The lock order is in file.h.
 */
#ifndef VNK_MAIN_H
#define VNK_MAIN_H

#include <linux/atomic.h>

#include "vneuron.h"

/* Devices the module makes, at most (the devices module parameter). */
#define VNK_MAX_DEVICES		16

/**
 * struct vnk_mod_counters - module-wide allocation counters
 * @mem_objects: live device buffers, those kept only by a mapping or execution included
 * @mem_bytes: their charged bytes
 * @open_files: files whose state is still allocated
 * @programs: loaded programs
 * @execs: executions submitted and not yet freed
 * @comms: communicators, from COMM_CREATE to their last reference (kmod/comm.c)
 * @users: users holding a charge of a shared resource (kmod/share.c)
 *
 * Shown in debugfs (vneuron/counters); tests expect each to drain to 0 once nothing is
 * open or mapped.
 */
struct vnk_mod_counters {
	atomic64_t mem_objects;
	atomic64_t mem_bytes;
	atomic64_t open_files;
	atomic64_t programs;
	atomic64_t execs;
	atomic64_t comms;
	atomic64_t users;
};

extern struct vnk_mod_counters vnk_counters;
/* Per-file limits, from the module parameters; GET_INFO reports them. */
extern struct vneuron_limits vnk_limits;

#endif /* VNK_MAIN_H */
