// SPDX-License-Identifier: GPL-2.0
/* Devices: per-device state, the char devices /dev/vneuronN and the vneuron class. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "compat.h"
#include "dev_core.h"
#include "device.h"
#include "file.h"
#include "sysfs.h"
#include "vn_model.h"

static struct class *vnk_class;
static dev_t vnk_devt;
static unsigned int vnk_devt_count;	/* minors in the region, for unregistering it */
static struct vnk_device *vnk_devs;
unsigned int vnk_device_count;

static void vnk_device_destroy(struct vnk_device *vdev)
{
	unsigned int i;

	for (i = 0; i < vdev->core_count; i++)
		vnk_sysfs_del_core(&vdev->cores[i]);
	vnk_cores_stop(vdev);
	if (vdev->dev)
		device_destroy(vnk_class, vnk_devt + vdev->index);
	if (vdev->cdev_added)
		cdev_del(&vdev->cdev);
}

static int vnk_device_init(struct vnk_device *vdev, const struct vneuron_model *model,
			   unsigned int index, unsigned int cores, unsigned int hbm_mb)
{
	unsigned int i;
	int ret;

	vdev->index = index;
	vdev->model = model;
	mutex_init(&vdev->hbm_lock);
	/* Buffers are placed in the modeled HBM of all cores; the budget is what is backed. */
	ret = vn_hbm_init(&vdev->hbm, (u64)hbm_mb << 20,
			  max_t(u64, (u64)hbm_mb << 20, model->hbm_modeled_bytes * cores));
	if (ret)
		return ret;
	vdev->cores = kcalloc(cores, sizeof(*vdev->cores), GFP_KERNEL);
	if (!vdev->cores)
		return -ENOMEM;
	/* Only now: vnk_device_destroy() walks core_count cores. */
	vdev->core_count = cores;
	for (i = 0; i < cores; i++) {
		vdev->cores[i].vdev = vdev;
		vdev->cores[i].index = i;
	}
	vnk_cores_init(vdev);

	cdev_init(&vdev->cdev, &vnk_fops);
	vdev->cdev.owner = THIS_MODULE;
	ret = cdev_add(&vdev->cdev, vnk_devt + index, 1);
	if (ret)
		return ret;
	vdev->cdev_added = true;
	vdev->dev = device_create_with_groups(vnk_class, NULL, vnk_devt + index, vdev,
					      vnk_device_groups, "vneuron%u", index);
	if (IS_ERR(vdev->dev)) {
		ret = PTR_ERR(vdev->dev);
		vdev->dev = NULL;
		return ret;
	}
	for (i = 0; i < cores; i++) {
		ret = vnk_sysfs_add_core(&vdev->cores[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The nodes' mode where no udev rule sets one (devtmpfs, a bare system): owner and group
 * only, never 0666. The DKMS package's udev rule gives them the group "vneuron".
 */
static char *vnk_devnode(VNK_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0660;
	return NULL;
}

int vnk_devices_create(const struct vneuron_model *model, unsigned int devices,
		       unsigned int cores, unsigned int hbm_mb)
{
	unsigned int i;
	int ret;

	vnk_devs = kcalloc(devices, sizeof(*vnk_devs), GFP_KERNEL);
	if (!vnk_devs)
		return -ENOMEM;
	ret = alloc_chrdev_region(&vnk_devt, 0, devices, "vneuron");
	if (ret)
		goto err_free;
	vnk_devt_count = devices;
	vnk_class = vnk_class_create("vneuron");
	if (IS_ERR(vnk_class)) {
		ret = PTR_ERR(vnk_class);
		goto err_region;
	}
	vnk_class->devnode = vnk_devnode;
	vnk_device_count = devices;
	for (i = 0; i < devices; i++) {
		ret = vnk_device_init(&vnk_devs[i], model, i, cores, hbm_mb);
		if (ret) {
			/* The failed one is partly set up: tear it down too. */
			vnk_device_count = i + 1;
			goto err_devices;
		}
	}
	return 0;

err_devices:
	vnk_devices_destroy();
	return ret;
err_region:
	unregister_chrdev_region(vnk_devt, vnk_devt_count);
err_free:
	kfree(vnk_devs);
	vnk_devs = NULL;
	return ret;
}

struct vnk_device *vnk_device_get(unsigned int index)
{
	return index < vnk_device_count ? &vnk_devs[index] : NULL;
}

void vnk_devices_destroy(void)
{
	unsigned int i;

	for (i = vnk_device_count; i-- > 0;) {
		vnk_device_destroy(&vnk_devs[i]);
		kfree(vnk_devs[i].cores);
	}
	class_destroy(vnk_class);
	unregister_chrdev_region(vnk_devt, vnk_devt_count);
	kfree(vnk_devs);
	vnk_devs = NULL;
	vnk_device_count = 0;
}
