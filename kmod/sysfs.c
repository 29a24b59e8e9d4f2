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

#include "vneuron_drv.h"

static struct vn_device *vn_dev_of(struct device *dev)
{
	return dev_get_drvdata(dev);
}

static ssize_t core_count_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", vn_dev_of(dev)->core_count);
}
static DEVICE_ATTR_RO(core_count);

static ssize_t model_name_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%.*s\n", (int)sizeof(vn_dev_of(dev)->model->name),
			  vn_dev_of(dev)->model->name);
}
static DEVICE_ATTR_RO(model_name);

static ssize_t peak_flops_bf16_show(struct device *dev, struct device_attribute *attr,
				    char *buf)
{
	return sysfs_emit(buf, "%llu\n", vn_dev_of(dev)->model->peak_flops_bf16);
}
static DEVICE_ATTR_RO(peak_flops_bf16);

static ssize_t peak_flops_fp32_show(struct device *dev, struct device_attribute *attr,
				    char *buf)
{
	return sysfs_emit(buf, "%llu\n", vn_dev_of(dev)->model->peak_flops_fp32);
}
static DEVICE_ATTR_RO(peak_flops_fp32);

static ssize_t hbm_bandwidth_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", vn_dev_of(dev)->model->hbm_bw);
}
static DEVICE_ATTR_RO(hbm_bandwidth);

enum { VN_HBM_TOTAL, VN_HBM_USED, VN_HBM_PEAK };

static ssize_t vn_hbm_show(struct device *dev, char *buf, int which)
{
	struct vn_device *vdev = vn_dev_of(dev);
	u64 v;

	mutex_lock(&vdev->hbm_lock);
	v = which == VN_HBM_TOTAL ? vdev->hbm.total :
	    which == VN_HBM_USED ? vdev->hbm.used : vdev->hbm.peak;
	mutex_unlock(&vdev->hbm_lock);
	return sysfs_emit(buf, "%llu\n", v);
}

static ssize_t hbm_total_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return vn_hbm_show(dev, buf, VN_HBM_TOTAL);
}
static DEVICE_ATTR_RO(hbm_total);

static ssize_t hbm_used_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return vn_hbm_show(dev, buf, VN_HBM_USED);
}
static DEVICE_ATTR_RO(hbm_used);

static ssize_t hbm_peak_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return vn_hbm_show(dev, buf, VN_HBM_PEAK);
}
static DEVICE_ATTR_RO(hbm_peak);

static struct attribute *vn_device_attrs[] = {
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

static const struct attribute_group vn_device_group = {
	.attrs = vn_device_attrs,
};

const struct attribute_group *vn_device_groups[] = {
	&vn_device_group,
	NULL,
};

/*
 * Core directories are separate allocations freed by their kobject's release, so a
 * late kobject reference never touches the device. show() runs only while the file
 * exists, and files go before the device does.
 */
struct vn_kobj {
	struct kobject kobj;
	struct vn_dev_core *core;
};

/* core<N>/owner_pid: the process that claimed the core, in the reader's pid namespace. */
static ssize_t owner_pid_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct vn_dev_core *core = container_of(kobj, struct vn_kobj, kobj)->core;
	pid_t pid;

	if (mutex_lock_killable(&core->lock))
		return -EINTR;
	pid = core->owner_pid ? pid_vnr(core->owner_pid) : 0;
	mutex_unlock(&core->lock);
	return sysfs_emit(buf, "%d\n", pid);
}

static struct kobj_attribute vn_owner_pid_attr = __ATTR_RO(owner_pid);

static void vn_kobj_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct vn_kobj, kobj));
}

static const struct kobj_type vn_kobj_type = {
	.release = vn_kobj_release,
	.sysfs_ops = &kobj_sysfs_ops,
};

enum { VN_FIELD_TOTAL, VN_FIELD_PRESENT, VN_FIELD_PEAK, VN_FIELD_COUNT };

static const char *const vn_field_names[VN_FIELD_COUNT] = {
	[VN_FIELD_TOTAL] = "total",
	[VN_FIELD_PRESENT] = "present",
	[VN_FIELD_PEAK] = "peak",
};

/* One attribute per counter and field: the attribute says which one it reads. */
struct vn_stat_attr {
	struct kobj_attribute ka;
	unsigned int stat;
	unsigned int field;
};

static struct vn_stat_attr vn_stat_attrs[VN_STAT_COUNT][VN_FIELD_COUNT];
static struct attribute *vn_stat_attr_ptrs[VN_STAT_COUNT][VN_FIELD_COUNT + 1];
static struct attribute_group vn_stat_group_defs[VN_STAT_COUNT];
static const struct attribute_group *vn_stat_groups[VN_STAT_COUNT + 1];

static ssize_t vn_stat_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct vn_stat_attr *sa = container_of(attr, struct vn_stat_attr, ka);
	struct vn_counter *c = &container_of(kobj, struct vn_kobj, kobj)->core->stats.c[sa->stat];
	const u64 *f = sa->field == VN_FIELD_TOTAL ? &c->total :
		       sa->field == VN_FIELD_PRESENT ? &c->present : &c->peak;

	return sysfs_emit(buf, "%llu\n", vn_counter_read(f));
}

void vn_sysfs_init(void)
{
	unsigned int s, f;

	for (s = 0; s < VN_STAT_COUNT; s++) {
		for (f = 0; f < VN_FIELD_COUNT; f++) {
			struct vn_stat_attr *sa = &vn_stat_attrs[s][f];

			sysfs_attr_init(&sa->ka.attr);
			sa->ka.attr.name = vn_field_names[f];
			sa->ka.attr.mode = 0444;
			sa->ka.show = vn_stat_show;
			sa->stat = s;
			sa->field = f;
			vn_stat_attr_ptrs[s][f] = &sa->ka.attr;
		}
		vn_stat_group_defs[s].name = vn_stat_names[s];
		vn_stat_group_defs[s].attrs = vn_stat_attr_ptrs[s];
		vn_stat_groups[s] = &vn_stat_group_defs[s];
	}
}

static struct kobject *vn_kobj_add(struct vn_dev_core *core, struct kobject *parent,
				   const char *fmt, unsigned int n)
{
	struct vn_kobj *k = kzalloc(sizeof(*k), GFP_KERNEL);

	if (!k)
		return NULL;
	k->core = core;
	if (kobject_init_and_add(&k->kobj, &vn_kobj_type, parent, fmt, n)) {
		kobject_put(&k->kobj);
		return NULL;
	}
	return &k->kobj;
}

int vn_sysfs_add_core(struct vn_dev_core *core)
{
	int ret;

	core->kobj = vn_kobj_add(core, &core->vdev->dev->kobj, "core%u", core->index);
	if (!core->kobj)
		return -ENOMEM;
	ret = sysfs_create_file(core->kobj, &vn_owner_pid_attr.attr);
	if (ret)
		return ret;
	core->stats_kobj = vn_kobj_add(core, core->kobj, "stats", 0);
	if (!core->stats_kobj)
		return -ENOMEM;
	ret = sysfs_create_groups(core->stats_kobj, vn_stat_groups);
	if (ret)
		return ret;
	core->groups_added = true;
	kobject_uevent(core->kobj, KOBJ_ADD);
	kobject_uevent(core->stats_kobj, KOBJ_ADD);
	return 0;
}

void vn_sysfs_del_core(struct vn_dev_core *core)
{
	if (core->groups_added)
		sysfs_remove_groups(core->stats_kobj, vn_stat_groups);
	core->groups_added = false;
	if (core->stats_kobj) {
		kobject_del(core->stats_kobj);
		kobject_put(core->stats_kobj);
		core->stats_kobj = NULL;
	}
	if (core->kobj) {
		sysfs_remove_file(core->kobj, &vn_owner_pid_attr.attr);
		kobject_del(core->kobj);
		kobject_put(core->kobj);
		core->kobj = NULL;
	}
}

static struct dentry *vn_debugfs;

static int vn_counters_show(struct seq_file *s, void *unused)
{
	seq_printf(s, "mem_objects %lld\n", atomic64_read(&vn_counters.mem_objects));
	seq_printf(s, "mem_bytes %lld\n", atomic64_read(&vn_counters.mem_bytes));
	seq_printf(s, "open_files %lld\n", atomic64_read(&vn_counters.open_files));
	seq_printf(s, "programs %lld\n", atomic64_read(&vn_counters.programs));
	seq_printf(s, "execs %lld\n", atomic64_read(&vn_counters.execs));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vn_counters);

/* /sys/kernel/debug/vneuron/counters; a diagnostic, so failures are not errors. */
void vn_debugfs_init(void)
{
	vn_debugfs = debugfs_create_dir("vneuron", NULL);
	debugfs_create_file("counters", 0444, vn_debugfs, NULL, &vn_counters_fops);
}

void vn_debugfs_exit(void)
{
	debugfs_remove_recursive(vn_debugfs);
}
