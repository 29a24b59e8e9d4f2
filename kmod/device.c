// SPDX-License-Identifier: GPL-2.0
/* Devices: per-device state, the char devices /dev/vneuronN and the vneuron class. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "compat.h"
#include "vn_model.h"
#include "vneuron_drv.h"

static struct class *vn_class;
static dev_t vn_devt;
static unsigned int vn_devt_count;	/* minors in the region, for unregistering it */
static struct vn_device *vn_devs;
unsigned int vn_device_count;

static void vn_device_destroy(struct vn_device *vdev)
{
	unsigned int i;

	for (i = 0; i < vdev->core_count; i++)
		vn_sysfs_del_core(&vdev->cores[i]);
	vn_cores_stop(vdev);
	if (vdev->dev)
		device_destroy(vn_class, vn_devt + vdev->index);
	if (vdev->cdev_added)
		cdev_del(&vdev->cdev);
}

static int vn_device_init(struct vn_device *vdev, unsigned int index, unsigned int cores,
			  unsigned int hbm_mb)
{
	const struct vneuron_model *model = &vn_model_trn1;
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
	/* Only now: vn_device_destroy() walks core_count cores. */
	vdev->core_count = cores;
	for (i = 0; i < cores; i++) {
		vdev->cores[i].vdev = vdev;
		vdev->cores[i].index = i;
	}
	vn_cores_init(vdev);

	cdev_init(&vdev->cdev, &vn_fops);
	vdev->cdev.owner = THIS_MODULE;
	ret = cdev_add(&vdev->cdev, vn_devt + index, 1);
	if (ret)
		return ret;
	vdev->cdev_added = true;
	vdev->dev = device_create_with_groups(vn_class, NULL, vn_devt + index, vdev,
					      vn_device_groups, "vneuron%u", index);
	if (IS_ERR(vdev->dev)) {
		ret = PTR_ERR(vdev->dev);
		vdev->dev = NULL;
		return ret;
	}
	for (i = 0; i < cores; i++) {
		ret = vn_sysfs_add_core(&vdev->cores[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The nodes' mode where no udev rule sets one (devtmpfs, a bare system): owner and group
 * only, never 0666. The DKMS package's udev rule gives them the group "vneuron".
 */
static char *vn_devnode(VN_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0660;
	return NULL;
}

int vn_devices_create(unsigned int devices, unsigned int cores, unsigned int hbm_mb)
{
	unsigned int i;
	int ret;

	vn_devs = kcalloc(devices, sizeof(*vn_devs), GFP_KERNEL);
	if (!vn_devs)
		return -ENOMEM;
	ret = alloc_chrdev_region(&vn_devt, 0, devices, "vneuron");
	if (ret)
		goto err_free;
	vn_devt_count = devices;
	vn_class = vn_class_create("vneuron");
	if (IS_ERR(vn_class)) {
		ret = PTR_ERR(vn_class);
		goto err_region;
	}
	vn_class->devnode = vn_devnode;
	vn_device_count = devices;
	for (i = 0; i < devices; i++) {
		ret = vn_device_init(&vn_devs[i], i, cores, hbm_mb);
		if (ret) {
			/* The failed one is partly set up: tear it down too. */
			vn_device_count = i + 1;
			goto err_devices;
		}
	}
	return 0;

err_devices:
	vn_devices_destroy();
	return ret;
err_region:
	unregister_chrdev_region(vn_devt, vn_devt_count);
err_free:
	kfree(vn_devs);
	vn_devs = NULL;
	return ret;
}

/* Only at unload or failed load: no file is open (each holds a module reference). */
void vn_devices_destroy(void)
{
	unsigned int i;

	for (i = vn_device_count; i-- > 0;) {
		vn_device_destroy(&vn_devs[i]);
		kfree(vn_devs[i].cores);
	}
	class_destroy(vn_class);
	unregister_chrdev_region(vn_devt, vn_devt_count);
	kfree(vn_devs);
	vn_devs = NULL;
	vn_device_count = 0;
}
