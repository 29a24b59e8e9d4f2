// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Logical cores (LNC=2): a device handle's setting that makes its executions EXEC's
 * VNEURON_EXEC_LNC2 launches (docs/libneurondev.md, "Logical cores"). The module checks
 * every launch again; the library's checks are there for the words of the refusal.
 */
#include <errno.h>
#include <stdio.h>

#include "nd_internal.h"
#include "vn_model.h"
#include "vn_program.h"

int nd_lnc_check(const struct vneuron_info *info, unsigned int lnc, char *buf, size_t len)
{
	if (lnc != 1 && lnc != 2) {
		snprintf(buf, len, "LNC=%u: a logical core is 1 or 2 physical cores", lnc);
		return -EINVAL;
	}
	if (lnc == 1)
		return 0;
	if (info->uapi_version < 8 || !(info->caps & VNEURON_CAP_LNC)) {
		snprintf(buf, len, "LNC=2: this vneuron.ko (uapi %u) has no logical cores; "
			 "update the module", info->uapi_version);
		return -EOPNOTSUPP;
	}
	if (vn_model_gen(&info->model)->lnc < 2) {
		snprintf(buf, len, "LNC=2: model %.16s has no logical cores (LNC=2 needs trn2 "
			 "or trn3: the module's model parameter)", info->model.name);
		return -EOPNOTSUPP;
	}
	if (info->core_count < 2) {
		snprintf(buf, len, "LNC=2: the device has %u core, a logical core needs 2",
			 info->core_count);
		return -EOPNOTSUPP;
	}
	return 0;
}

int nd_lnc_core_check(const struct vneuron_info *info, unsigned int core, char *buf,
		      size_t len)
{
	if (core % 2) {
		snprintf(buf, len, "LNC=2: core %u is not a logical core's first physical core "
			 "(an even core)", core);
		return -EINVAL;
	}
	if (core >= info->core_count || info->core_count - core < 2) {
		snprintf(buf, len, "LNC=2: cores %u and %u: the device has %u cores", core,
			 core + 1, info->core_count);
		return -EINVAL;
	}
	return 0;
}

int nd_set_lnc(struct nd_device *dev, unsigned int lnc)
{
	char msg[ND_ERRMSG_MAX];
	int ret;

	if (!dev)
		return -EINVAL;
	ret = nd_lnc_check(&dev->info, lnc, msg, sizeof(msg));
	if (ret)
		return nd_dev_err(dev, -ret, "%s", msg);
	__atomic_store_n(&dev->lnc, lnc, __ATOMIC_RELAXED);
	return 0;
}

unsigned int nd_lnc(const struct nd_device *dev)
{
	unsigned int lnc = dev ? __atomic_load_n(&dev->lnc, __ATOMIC_RELAXED) : 0;

	return lnc ? lnc : 1;
}

int nd_lnc_exec_flags(struct nd_device *dev, const struct nd_program *prog,
		      unsigned int core, uint32_t *flags)
{
	const struct vn_program *vp = nd_program_vp(prog);
	char msg[ND_ERRMSG_MAX];
	int ret;

	*flags = 0;
	if (nd_lnc(dev) == 1)
		return 0;
	ret = nd_lnc_core_check(&dev->info, core, msg, sizeof(msg));
	if (ret)
		return nd_dev_err(dev, -ret, "%s", msg);
	/* A collective's rank is one physical core, not an instance of a logical one. */
	if (vp && vp->streams[VNEF_STREAM_CC].count)
		return nd_dev_err(dev, EOPNOTSUPP, "LNC=2: a program with collectives (a CC "
				  "stream) runs on a physical core, not on logical core %u",
				  core);
	*flags = VNEURON_EXEC_LNC2;
	return 0;
}
