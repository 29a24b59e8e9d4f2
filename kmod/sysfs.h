/* SPDX-License-Identifier: GPL-2.0 */
/* sysfs attributes of devices and cores, and debugfs (kmod/sysfs.c). */
#ifndef VNK_SYSFS_H
#define VNK_SYSFS_H

struct attribute_group;
struct vnk_dev_core;

/* The attributes of /sys/class/vneuron/vneuronN, for device_create_with_groups(). */
extern const struct attribute_group *vnk_device_groups[];

/**
 * vnk_sysfs_init() - set up the per-core counter attributes, once at load
 */
void vnk_sysfs_init(void);

/**
 * vnk_sysfs_add_core() - add core<M>/ (owner_pid) and core<M>/stats/ of a core
 * @core: the core, whose device's class device exists
 *
 * Return: 0 or a negative errno; vnk_sysfs_del_core() undoes a partial add too.
 */
int vnk_sysfs_add_core(struct vnk_dev_core *core);

/**
 * vnk_sysfs_del_core() - remove what vnk_sysfs_add_core() added, however far it got
 * @core: the core
 */
void vnk_sysfs_del_core(struct vnk_dev_core *core);

/**
 * vnk_debugfs_init() - add /sys/kernel/debug/vneuron/counters
 *
 * A diagnostic: failures are not errors.
 */
void vnk_debugfs_init(void);

/**
 * vnk_debugfs_exit() - remove the debugfs directory
 */
void vnk_debugfs_exit(void);

#endif /* VNK_SYSFS_H */
