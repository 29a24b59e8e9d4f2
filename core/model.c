// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * NeuronCore-v2 figures from AWS's public Trainium documentation (trn1). Peaks are per
 * core: TensorE does one bf16 multiply-add (2 flops) per PE per cycle, fp32 inputs run
 * at a quarter of that rate.
 */
#include "vn_model.h"

#define VN_KIB		1024ULL
#define VN_GIB		(1024ULL * 1024 * 1024)
#define VN_TRN1_TENSOR_HZ	2800000000ULL

const struct vneuron_model vn_model_trn1 = {
	.name = "trn1",
	.tensor_rows = 128,
	.tensor_cols = 128,
	.tensor_khz = 2800000,
	.vector_lanes = 128,
	.vector_khz = 1120000,
	.scalar_lanes = 128,
	.scalar_khz = 1400000,
	.gpsimd_cores = 8,
	.gpsimd_khz = 1400000,
	.partitions = 128,
	.sbuf_partition_bytes = 192 * VN_KIB,
	.psum_partition_bytes = 16 * VN_KIB,
	.psum_bank_bytes = 2 * VN_KIB,
	.dma_engines = 16,
	/*
	 * Descriptor fetch and setup: a choice, not a published figure. 64 ns makes a
	 * 2 KiB descriptor reach about half an engine's 27 GiB/s, so tiny transfers show up.
	 */
	.dma_desc_overhead_ns = 64,
	.dma_engine_bw = 27 * VN_GIB,
	.hbm_bw = 410000000000ULL,
	.hbm_modeled_bytes = 16 * VN_GIB,
	.peak_flops_bf16 = 2ULL * 128 * 128 * VN_TRN1_TENSOR_HZ,
	.peak_flops_fp32 = 2ULL * 128 * 128 * VN_TRN1_TENSOR_HZ / 4,
};

static const struct vneuron_model *const vn_models[] = {
	&vn_model_trn1,
};

const struct vneuron_model *vn_model_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(vn_models); i++)
		if (!strncmp(vn_models[i]->name, name, sizeof(vn_models[i]->name)))
			return vn_models[i];
	return NULL;
}
