// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs: /sys/class/vneuron/vneuronN/{core_count,model_name,...} and per-core counters
 * in coreM/stats/<counter>/{total,present,peak}; debugfs: module-wide allocation counters.
 */
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/pid.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "dev_core.h"
#include "device.h"
#include "main.h"
#include "sysfs.h"

static struct vnk_device *vnk_dev_of(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static ssize_t core_count_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", vnk_dev_of(dev)->core_count);
}
static DEVICE_ATTR_RO(core_count);

static ssize_t model_name_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%.*s\n", (int)sizeof(vnk_dev_of(dev)->model->name),
			  vnk_dev_of(dev)->model->name);
}
static DEVICE_ATTR_RO(model_name);

static ssize_t peak_flops_bf16_show(struct device *dev, struct device_attribute *attr,
				    char *buf)
{
	return sysfs_emit(buf, "%llu\n", vnk_dev_of(dev)->model->peak_flops_bf16);
}
static DEVICE_ATTR_RO(peak_flops_bf16);

static ssize_t peak_flops_fp32_show(struct device *dev, struct device_attribute *attr,
				    char *buf)
{
	return sysfs_emit(buf, "%llu\n", vnk_dev_of(dev)->model->peak_flops_fp32);
}
static DEVICE_ATTR_RO(peak_flops_fp32);

static ssize_t hbm_bandwidth_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", vnk_dev_of(dev)->model->hbm_bw);
}
static DEVICE_ATTR_RO(hbm_bandwidth);

enum { VNK_HBM_TOTAL, VNK_HBM_USED, VNK_HBM_PEAK };

static ssize_t vnk_hbm_show(struct device *dev, char *buf, int which)
{
	struct vnk_device *vdev = vnk_dev_of(dev);
	u64 v;

	mutex_lock(&vdev->hbm_lock);
	v = which == VNK_HBM_TOTAL ? vdev->hbm.total :
	    which == VNK_HBM_USED ? vdev->hbm.used : vdev->hbm.peak;
	mutex_unlock(&vdev->hbm_lock);
	return sysfs_emit(buf, "%llu\n", v);
}

static ssize_t hbm_total_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return vnk_hbm_show(dev, buf, VNK_HBM_TOTAL);
}
static DEVICE_ATTR_RO(hbm_total);

static ssize_t hbm_used_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return vnk_hbm_show(dev, buf, VNK_HBM_USED);
}
static DEVICE_ATTR_RO(hbm_used);

static ssize_t hbm_peak_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return vnk_hbm_show(dev, buf, VNK_HBM_PEAK);
}
static DEVICE_ATTR_RO(hbm_peak);

static struct attribute *vnk_device_attrs[] = {
	&dev_attr_core_count.attr,
	&dev_attr_model_name.attr,
	&dev_attr_peak_flops_bf16.attr,
	&dev_attr_peak_flops_fp32.attr,
	&dev_attr_hbm_bandwidth.attr,
	&dev_attr_hbm_total.attr,
	&dev_attr_hbm_used.attr,
	&dev_attr_hbm_peak.attr,
	NULL,
};

static const struct attribute_group vnk_device_group = {
	.attrs = vnk_device_attrs,
};

const struct attribute_group *vnk_device_groups[] = {
	&vnk_device_group,
	NULL,
};

/*
 * Core directories are separate allocations freed by their kobject's release, so a
 * late kobject reference never touches the device. show() runs only while the file
 * exists, and files go before the device does.
 */
struct vnk_kobj {
	struct kobject kobj;
	struct vnk_dev_core *core;
};

/* core<N>/owner_pid: the process that claimed the core, in the reader's pid namespace. */
static ssize_t owner_pid_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct vnk_dev_core *core = container_of(kobj, struct vnk_kobj, kobj)->core;
	pid_t pid;

	if (mutex_lock_killable(&core->lock))
		return -EINTR;
	pid = core->owner_pid ? pid_vnr(core->owner_pid) : 0;
	mutex_unlock(&core->lock);
	return sysfs_emit(buf, "%d\n", pid);
}

static struct kobj_attribute vnk_owner_pid_attr = __ATTR_RO(owner_pid);

static void vnk_kobj_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct vnk_kobj, kobj));
}

static const struct kobj_type vnk_kobj_type = {
	.release = vnk_kobj_release,
	.sysfs_ops = &kobj_sysfs_ops,
};

enum { VNK_FIELD_TOTAL, VNK_FIELD_PRESENT, VNK_FIELD_PEAK, VNK_FIELD_COUNT };

static const char *const vnk_field_names[VNK_FIELD_COUNT] = {
	[VNK_FIELD_TOTAL] = "total",
	[VNK_FIELD_PRESENT] = "present",
	[VNK_FIELD_PEAK] = "peak",
};

/* One attribute per counter and field: the attribute says which one it reads. */
struct vnk_stat_attr {
	struct kobj_attribute ka;
	unsigned int stat;
	unsigned int field;
};

static struct vnk_stat_attr vnk_stat_attrs[VN_STAT_COUNT][VNK_FIELD_COUNT];
static struct attribute *vnk_stat_attr_ptrs[VN_STAT_COUNT][VNK_FIELD_COUNT + 1];
static struct attribute_group vnk_stat_group_defs[VN_STAT_COUNT];
static const struct attribute_group *vnk_stat_groups[VN_STAT_COUNT + 1];

static ssize_t vnk_stat_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct vnk_stat_attr *sa = container_of(attr, struct vnk_stat_attr, ka);
	struct vn_counter *c = &container_of(kobj, struct vnk_kobj, kobj)->core->stats.c[sa->stat];
	const u64 *f = sa->field == VNK_FIELD_TOTAL ? &c->total :
		       sa->field == VNK_FIELD_PRESENT ? &c->present : &c->peak;

	return sysfs_emit(buf, "%llu\n", vn_counter_read(f));
}

void vnk_sysfs_init(void)
{
	unsigned int s, f;

	for (s = 0; s < VN_STAT_COUNT; s++) {
		for (f = 0; f < VNK_FIELD_COUNT; f++) {
			struct vnk_stat_attr *sa = &vnk_stat_attrs[s][f];

			sysfs_attr_init(&sa->ka.attr);
			sa->ka.attr.name = vnk_field_names[f];
			sa->ka.attr.mode = 0444;
			sa->ka.show = vnk_stat_show;
			sa->stat = s;
			sa->field = f;
			vnk_stat_attr_ptrs[s][f] = &sa->ka.attr;
		}
		vnk_stat_group_defs[s].name = vn_stat_names[s];
		vnk_stat_group_defs[s].attrs = vnk_stat_attr_ptrs[s];
		vnk_stat_groups[s] = &vnk_stat_group_defs[s];
	}
}

static struct kobject *vnk_kobj_add(struct vnk_dev_core *core, struct kobject *parent,
				    const char *fmt, unsigned int n)
{
	struct vnk_kobj *k = kzalloc(sizeof(*k), GFP_KERNEL);

	if (!k)
		return NULL;
	k->core = core;
	if (kobject_init_and_add(&k->kobj, &vnk_kobj_type, parent, fmt, n)) {
		kobject_put(&k->kobj);
		return NULL;
	}
	return &k->kobj;
}

int vnk_sysfs_add_core(struct vnk_dev_core *core)
{
	int ret;

	core->kobj = vnk_kobj_add(core, &core->vdev->dev->kobj, "core%u", core->index);
	if (!core->kobj)
		return -ENOMEM;
	ret = sysfs_create_file(core->kobj, &vnk_owner_pid_attr.attr);
	if (ret)
		return ret;
	core->stats_kobj = vnk_kobj_add(core, core->kobj, "stats", 0);
	if (!core->stats_kobj)
		return -ENOMEM;
	ret = sysfs_create_groups(core->stats_kobj, vnk_stat_groups);
	if (ret)
		return ret;
	core->groups_added = true;
	kobject_uevent(core->kobj, KOBJ_ADD);
	kobject_uevent(core->stats_kobj, KOBJ_ADD);
	return 0;
}

void vnk_sysfs_del_core(struct vnk_dev_core *core)
{
	if (core->groups_added)
		sysfs_remove_groups(core->stats_kobj, vnk_stat_groups);
	core->groups_added = false;
	if (core->stats_kobj) {
		kobject_del(core->stats_kobj);
		kobject_put(core->stats_kobj);
		core->stats_kobj = NULL;
	}
	if (core->kobj) {
		sysfs_remove_file(core->kobj, &vnk_owner_pid_attr.attr);
		kobject_del(core->kobj);
		kobject_put(core->kobj);
		core->kobj = NULL;
	}
}

static struct dentry *vnk_debugfs;

static int vnk_debugfs_counters_show(struct seq_file *s, void *unused)
{
	seq_printf(s, "mem_objects %lld\n", atomic64_read(&vnk_counters.mem_objects));
	seq_printf(s, "mem_bytes %lld\n", atomic64_read(&vnk_counters.mem_bytes));
	seq_printf(s, "open_files %lld\n", atomic64_read(&vnk_counters.open_files));
	seq_printf(s, "programs %lld\n", atomic64_read(&vnk_counters.programs));
	seq_printf(s, "execs %lld\n", atomic64_read(&vnk_counters.execs));
	seq_printf(s, "comms %lld\n", atomic64_read(&vnk_counters.comms));
	seq_printf(s, "users %lld\n", atomic64_read(&vnk_counters.users));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vnk_debugfs_counters);

void vnk_debugfs_init(void)
{
	vnk_debugfs = debugfs_create_dir("vneuron", NULL);
	debugfs_create_file("counters", 0444, vnk_debugfs, NULL, &vnk_debugfs_counters_fops);
}

void vnk_debugfs_exit(void)
{
	debugfs_remove_recursive(vnk_debugfs);
}
