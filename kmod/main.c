// SPDX-License-Identifier: GPL-2.0
/* vneuron.ko: module parameters, load and unload. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "vneuron_drv.h"

static unsigned int devices = 1;
module_param(devices, uint, 0444);
MODULE_PARM_DESC(devices, "Number of devices /dev/vneuronN (1..16, default 1)");

static unsigned int cores = 2;
module_param(cores, uint, 0444);
MODULE_PARM_DESC(cores, "NeuronCores per device (1..8, default 2)");

static unsigned int hbm_mb = 256;
module_param(hbm_mb, uint, 0444);
MODULE_PARM_DESC(hbm_mb, "Host memory backing each device's HBM, in MiB (1..4096, default 256)");

struct vn_mod_counters vn_counters;

static int vn_check_param(const char *name, unsigned int val, unsigned int lo, unsigned int hi)
{
	if (val >= lo && val <= hi)
		return 0;
	pr_err("%s=%u is out of range (%u..%u)\n", name, val, lo, hi);
	return -EINVAL;
}

static int __init vneuron_init(void)
{
	int ret;

	ret = vn_check_param("devices", devices, 1, VN_MAX_DEVICES);
	if (!ret)
		ret = vn_check_param("cores", cores, 1, VN_MAX_CORES);
	if (!ret)
		ret = vn_check_param("hbm_mb", hbm_mb, 1, VN_MAX_HBM_MB);
	if (ret)
		return ret;

	vn_sysfs_init();
	ret = vn_devices_create(devices, cores, hbm_mb);
	if (ret)
		return ret;
	vn_debugfs_init();
	return 0;
}

static void __exit vneuron_exit(void)
{
	vn_debugfs_exit();
	vn_devices_destroy();
}

module_init(vneuron_init);
module_exit(vneuron_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(VNEURON_VERSION);
MODULE_DESCRIPTION("vneuron: a virtual ML accelerator modelled on the NeuronCore");
