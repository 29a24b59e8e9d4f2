// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Whether a valid program fits a device model (docs/program-format.md, "The device
 * model"): what validation found the program needs (struct vn_prog_need) against the
 * model's figures, and the loader's forms for the default model.
 */
#include "vn_os.h"
#include "vn_isa.h"
#include "vn_model.h"
#include "vn_program.h"

void vn_prog_need_part(struct vn_program *p, u32 sec, u32 idx, u32 mem, u64 end,
		       u64 parts_end)
{
	struct vn_prog_need *n = &p->need;

	if (mem < VNEF_MEM_HBM && end > n->part_end[mem]) {
		n->part_end[mem] = end;
		n->part_sec[mem] = sec;
		n->part_idx[mem] = idx;
	}
	if (parts_end > n->partitions) {
		n->partitions = (u32)min_t(u64, parts_end, ~0u);
		n->partitions_sec = sec;
		n->partitions_idx = idx;
	}
}

void vn_prog_need_dtype(struct vn_program *p, u32 sec, u32 idx, u32 dt)
{
	struct vn_prog_need *n = &p->need;

	if (dt < VNEF_DT_COUNT && !(n->dtypes & (1u << dt))) {
		n->dtypes |= 1u << dt;
		n->dtype_sec[dt] = sec;
		n->dtype_idx[dt] = idx;
	}
}

int vn_program_load(const void *image, u64 size, struct vn_program **out,
		    struct vn_prog_error *err)
{
	return vn_program_load_for(NULL, image, size, out, err);
}

int vn_program_adopt(void *image, u64 size, struct vn_program **out,
		     struct vn_prog_error *err)
{
	return vn_program_adopt_for(NULL, image, size, out, err);
}

int vn_program_check(const void *image, u64 size, struct vn_prog_error *err)
{
	return vn_program_check_for(NULL, image, size, err);
}

static int misfit(struct vn_prog_error *err, u32 sec, u32 idx)
{
	if (err) {
		err->check = VNEF_CHK_MODEL;
		err->section = sec;
		err->index = idx;
		err->msg = err->text;
	}
	return -EINVAL;
}

#ifdef VNEURON_TEST_HOOKS
/* Test builds: with the validator's range checks off, so is the fit of the ranges. */
#define skip_ranges()	(vn_test_skip_checks & (VN_TEST_SKIP_DMA_RANGE | VN_TEST_SKIP_AP_RANGE))
#else
#define skip_ranges()	false
#endif

int vn_program_fits(const struct vn_program *p, const struct vneuron_model *m,
		    struct vn_prog_error *err)
{
	const struct vn_prog_need *n = &p->need;
	char *t = err ? err->text : NULL;
	size_t tn = err ? sizeof(err->text) : 0;
	u32 mem, dt;

	for (mem = VNEF_MEM_SBUF; mem <= VNEF_MEM_PSUM; mem++) {
		if (skip_ranges() || n->part_end[mem] <= vn_model_part_bytes(m, mem))
			continue;
		if (t)
			vn_snprintf(t, tn, "needs %llu %s bytes a partition, %.16s has %u",
				    (unsigned long long)n->part_end[mem], vn_mem_name(mem),
				    m->name, vn_model_part_bytes(m, mem));
		return misfit(err, n->part_sec[mem], n->part_idx[mem]);
	}
	if (!skip_ranges() && n->partitions > m->partitions) {
		if (t)
			vn_snprintf(t, tn, "needs %u partitions, %.16s has %u", n->partitions,
				    m->name, m->partitions);
		return misfit(err, n->partitions_sec, n->partitions_idx);
	}
	for (dt = 0; dt < VNEF_DT_COUNT; dt++) {
		if (!(n->dtypes & (1u << dt)) || vn_model_has_dtype(m, dt))
			continue;
		if (t)
			vn_snprintf(t, tn, "uses %s, a dtype %.16s lacks", vn_dtype_name(dt),
				    m->name);
		return misfit(err, n->dtype_sec[dt], n->dtype_idx[dt]);
	}
	if (n->tensor_bytes > m->hbm_modeled_bytes) {
		if (t)
			vn_snprintf(t, tn, "tensor of %llu bytes, %.16s has %llu of HBM",
				    (unsigned long long)n->tensor_bytes, m->name,
				    (unsigned long long)m->hbm_modeled_bytes);
		return misfit(err, n->tensor_sec, n->tensor_idx);
	}
	return 0;
}

const struct vneuron_model *vn_program_smallest_model(const struct vn_program *p)
{
	u32 i;

	for (i = 0; i < vn_model_count(); i++)
		if (!vn_program_fits(p, vn_model_at(i), NULL))
			return vn_model_at(i);
	return NULL;
}
