/* SPDX-License-Identifier: GPL-2.0 */
/* Telemetry over generic netlink (kmod/genl.c, uapi/vneuron_genl.h). */
#ifndef VNK_GENL_H
#define VNK_GENL_H

#include <linux/types.h>

struct vn_exec_status;
struct vnk_dev_core;

/**
 * vnk_genl_init() - register the family, once the devices exist (its dumps walk them)
 *
 * Return: 0 or a -errno of genl_register_family().
 */
int vnk_genl_init(void);

/**
 * vnk_genl_exit() - unregister the family, drop the subscribers and queued events
 */
void vnk_genl_exit(void);

/**
 * vnk_event_exec() - the executor's monitor: an execution started or ended
 * @arg: the core (struct vnk_dev_core)
 * @st: its status (final when @end)
 * @end: false at the start
 *
 * Under the executor's lock: queues the event, never sleeps.
 */
void vnk_event_exec(void *arg, const struct vn_exec_status *st, bool end);

/**
 * vnk_event_core() - a core was claimed, released or reset
 * @core: the core, its lock held
 * @type: VNEURON_EVENT_CORE_CLAIM, _CORE_RELEASE or _RESET
 * @pid: the process concerned (init namespace), 0 for none
 * @uid: its real uid
 */
void vnk_event_core(struct vnk_dev_core *core, u32 type, pid_t pid, kuid_t uid);

/**
 * vnk_event_trace() - a trace session started or stopped on a core
 * @core: the core
 * @type: VNEURON_EVENT_TRACE_START or _TRACE_STOP
 * @pid: the tracer (init namespace)
 * @uid: its real uid
 * @dropped: records the session's rings dropped (at the stop)
 */
void vnk_event_trace(struct vnk_dev_core *core, u32 type, pid_t pid, kuid_t uid, u64 dropped);

/**
 * vnk_event_error() - the module could not do something
 * @err: a positive errno
 * @msg: what failed (kept to 47 bytes)
 */
void vnk_event_error(int err, const char *msg);

#endif /* VNK_GENL_H */
