/* SPDX-License-Identifier: GPL-2.0 */
/* Devices: /dev/vneuronN, their HBM budget and their cores (kmod/device.c). */
#ifndef VNK_DEVICE_H
#define VNK_DEVICE_H

#include <linux/cdev.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "vneuron.h"
#include "vn_hbm.h"

/* The largest hbm_mb: a buffer's mmap window (kmod/mem.c) addresses 4 GiB. */
#define VNK_MAX_HBM_MB		4096

struct device;
struct vnk_dev_core;

/**
 * struct vnk_device - one device, /dev/vneuronN
 * @index: N
 * @core_count: cores of the device (the cores module parameter)
 * @model: the device model's figures (core/model.c)
 * @cdev: the character device
 * @cdev_added: @cdev is registered
 * @dev: the class device (sysfs /sys/class/vneuron/vneuronN), or NULL
 * @hbm_lock: protects @hbm; a mutex because first-fit walks every live buffer
 * @hbm: the HBM budget, its peak and the device addresses of live buffers
 * @cores: @core_count cores
 */
struct vnk_device {
	unsigned int index;
	unsigned int core_count;
	const struct vneuron_model *model;
	struct cdev cdev;
	bool cdev_added;
	struct device *dev;
	struct mutex hbm_lock;		/* @hbm */
	struct vn_hbm hbm;
	struct vnk_dev_core *cores;
};

/* Devices made at load: GET_INFO's device_count. */
extern unsigned int vnk_device_count;

/**
 * vnk_devices_create() - make the devices, their nodes and sysfs directories
 * @model: the device model of every device (the module parameter model)
 * @devices: how many
 * @cores: cores per device
 * @hbm_mb: HBM budget per device, in MiB
 *
 * Return: 0, or a negative errno with everything undone.
 */
int vnk_devices_create(const struct vneuron_model *model, unsigned int devices,
		       unsigned int cores, unsigned int hbm_mb);

/**
 * vnk_devices_destroy() - remove every device
 *
 * Only at unload or a failed load: no file is open (each holds a module reference).
 */
void vnk_devices_destroy(void);

/**
 * vnk_device_get() - a device by its index
 * @index: N of /dev/vneuronN
 *
 * Return: the device (it lives as long as the module), or NULL past the last.
 */
struct vnk_device *vnk_device_get(unsigned int index);

#endif /* VNK_DEVICE_H */
