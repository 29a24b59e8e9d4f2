// SPDX-License-Identifier: GPL-2.0
/* vneuron.ko: module parameters, load and unload. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>

#include "dev_core.h"
#include "device.h"
#include "genl.h"
#include "main.h"
#include "share.h"
#include "sysfs.h"
#include "vn_model.h"
#include "vn_program.h"

static unsigned int devices = 1;
module_param(devices, uint, 0444);
MODULE_PARM_DESC(devices, "Number of devices /dev/vneuronN (1..16, default 1)");

/* The device model (core/model.c); cores per device default to its own. */
static char *model = "trn1";
module_param(model, charp, 0444);
MODULE_PARM_DESC(model, "Device model: trn1 (NeuronCore-v2, default), trn2 (-v3) or trn3 (-v4)");

/* cores: 0 is refused when given, so whether it was given is kept apart. */
static unsigned int cores;
static bool cores_given;

static int vnk_cores_set(const char *val, const struct kernel_param *kp)
{
	cores_given = true;
	return param_set_uint(val, kp);
}

static const struct kernel_param_ops vnk_cores_ops = {
	.set = vnk_cores_set,
	.get = param_get_uint,
};

module_param_cb(cores, &vnk_cores_ops, &cores, 0444);
MODULE_PARM_DESC(cores, "NeuronCores per device (1..8, default the model's: trn1 2, trn2 and trn3 8)");

static unsigned int hbm_mb = 256;
module_param(hbm_mb, uint, 0444);
MODULE_PARM_DESC(hbm_mb, "Host memory backing each device's HBM, in MiB (1..4096, default 256)");

/* Per-file limits (docs/uapi.md); GET_INFO reports them in bytes. */
static unsigned int max_programs = 256;
module_param(max_programs, uint, 0444);
MODULE_PARM_DESC(max_programs, "Programs one open file may hold (1..65535, default 256)");

static unsigned int max_program_mb = 256;
module_param(max_program_mb, uint, 0444);
MODULE_PARM_DESC(max_program_mb,
		 "MiB of program images one open file may hold (1..65536, default 256)");

static unsigned int max_execs = 1024;
module_param(max_execs, uint, 0444);
MODULE_PARM_DESC(max_execs,
		 "Executions of one open file submitted and not yet reaped (1..65536, default 1024)");

static unsigned int max_exec_mb = 1024;
module_param(max_exec_mb, uint, 0444);
MODULE_PARM_DESC(max_exec_mb,
		 "MiB of core-provided scratch and semaphore tables of one file's executions (1..65536, default 1024)");

static unsigned int max_trace_mb = 1536;
module_param(max_trace_mb, uint, 0444);
MODULE_PARM_DESC(max_trace_mb,
		 "MiB of trace rings one open file may hold (1..65536, default 1536: six 256 MiB rings)");

#ifdef VNEURON_TEST_HOOKS
/* Test builds only (tools/check's fault phase): validator checks to skip. */
module_param_named(test_skip_checks, vn_test_skip_checks, uint, 0644);
MODULE_PARM_DESC(test_skip_checks, "TEST BUILD: validator range checks to skip (bits)");
#endif

struct vnk_mod_counters vnk_counters;
struct vneuron_limits vnk_limits;

static int vnk_check_param(const char *name, unsigned int val, unsigned int lo, unsigned int hi)
{
	if (val >= lo && val <= hi)
		return 0;
	pr_err("%s=%u is out of range (%u..%u)\n", name, val, lo, hi);
	return -EINVAL;
}

/* The model @model names, or NULL after a log line naming the valid ones. */
static const struct vneuron_model *vnk_model_param(void)
{
	const struct vneuron_model *m = vn_model_find(model ? model : "");
	char names[64] = "";
	size_t n = 0;
	u32 i;

	if (m)
		return m;
	for (i = 0; i < vn_model_count(); i++)
		n += scnprintf(names + n, sizeof(names) - n, "%s%.*s", i ? ", " : "",
			       (int)sizeof(vn_model_at(i)->name), vn_model_at(i)->name);
	pr_err("model=%s is not a device model (%s)\n", model ? model : "", names);
	return NULL;
}

static int __init vneuron_init(void)
{
	const struct vneuron_model *m = vnk_model_param();
	int ret;

	if (!m)
		return -EINVAL;
	if (!cores_given)
		cores = min_t(u32, vn_model_gen(m)->cores_per_device, VNK_MAX_CORES);
	ret = vnk_check_param("devices", devices, 1, VNK_MAX_DEVICES);
	if (!ret)
		ret = vnk_check_param("cores", cores, 1, VNK_MAX_CORES);
	if (!ret)
		ret = vnk_check_param("hbm_mb", hbm_mb, 1, VNK_MAX_HBM_MB);
	if (!ret)
		ret = vnk_check_param("max_programs", max_programs, 1, 65535);
	if (!ret)
		ret = vnk_check_param("max_program_mb", max_program_mb, 1, 65536);
	if (!ret)
		ret = vnk_check_param("max_execs", max_execs, 1, 65536);
	if (!ret)
		ret = vnk_check_param("max_exec_mb", max_exec_mb, 1, 65536);
	if (!ret)
		ret = vnk_check_param("max_trace_mb", max_trace_mb, 1, 65536);
	if (ret)
		return ret;
	vnk_limits = (struct vneuron_limits){
		.max_programs = max_programs,
		.max_execs = max_execs,
		.max_program_bytes = (u64)max_program_mb << 20,
		.max_exec_bytes = (u64)max_exec_mb << 20,
		.max_trace_bytes = (u64)max_trace_mb << 20,
	};

	vnk_shares_init(devices * cores, cores, hbm_mb);

	ret = vnk_workqueue_init();
	if (ret)
		return ret;
	vnk_sysfs_init();
	ret = vnk_devices_create(m, devices, cores, hbm_mb);
	if (ret) {
		vnk_workqueue_exit();
		return ret;
	}
	ret = vnk_genl_init();
	if (ret) {
		pr_err("cannot register the generic netlink family: %d\n", ret);
		vnk_devices_destroy();
		vnk_workqueue_exit();
		return ret;
	}
	vnk_debugfs_init();
	return 0;
}

static void __exit vneuron_exit(void)
{
	vnk_debugfs_exit();
	vnk_genl_exit();
	vnk_devices_destroy();
	vnk_workqueue_exit();
}

module_init(vneuron_init);
module_exit(vneuron_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(VNEURON_VERSION);
MODULE_DESCRIPTION("vneuron: a virtual ML accelerator modelled on the NeuronCore");
