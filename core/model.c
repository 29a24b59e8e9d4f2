// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The device models: NeuronCore-v2 (trn1), -v3 (trn2) and -v4 (trn3), from AWS's public
 * Trainium documentation. docs/isa.md ("Device models") gives each figure's source, or
 * says it is our choice and why; tests/host/test_model.c compares that table with this
 * one. Peaks are per core: TensorE does one bf16 multiply-add (2 flops) per processing
 * element per cycle; fp32 inputs take tensor_fp32_passes cycles, fp8 in double-row mode
 * tensor_fp8_rows rows a cycle. Device figures are divided evenly among the cores.
 */
#include "vn_model.h"
#include "vneuron_program.h"

#define VN_KIB		1024ULL
#define VN_GIB		(1024ULL * 1024 * 1024)
#define VN_GB		1000000000ULL

/* 2 flops per multiply-add, 128 x 128 processing elements, at khz */
#define VN_PEAK(khz, rows_x2, passes)	(2ULL * 128 * 128 * (khz) * 1000 * (rows_x2) / 2 / (passes))

#define VN_DT(d)		(1u << (d))
#define VN_DTYPES_V2		(VN_DT(VNEF_DT_FP32) | VN_DT(VNEF_DT_BF16) | \
				 VN_DT(VNEF_DT_FP8_E4M3) | VN_DT(VNEF_DT_FP8_E5M2))

#define VN_DTYPES_FP8_V4	(VN_DT(VNEF_DT_FP8_E4M3) | VN_DT(VNEF_DT_FP8_E5M2) | \
				 VN_DT(VNEF_DT_FP8_E4M3FN))

#define VN_TRN1_KHZ	2800000ULL
#define VN_TRN23_KHZ	2400000ULL

const struct vneuron_model vn_model_trn1 = {
	.name = "trn1",
	.tensor_rows = 128,
	.tensor_cols = 128,
	.tensor_khz = VN_TRN1_KHZ,
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
	.hbm_bw = 820 * VN_GB / 2,
	.hbm_modeled_bytes = 32 * VN_GIB / 2,
	.peak_flops_bf16 = VN_PEAK(VN_TRN1_KHZ, 2, 1),
	.peak_flops_fp32 = VN_PEAK(VN_TRN1_KHZ, 2, 4),
};

const struct vneuron_model vn_model_trn2 = {
	.name = "trn2",
	.tensor_rows = 128,
	.tensor_cols = 128,
	.tensor_khz = VN_TRN23_KHZ,
	.vector_lanes = 128,
	.vector_khz = 960000,
	.scalar_lanes = 128,
	.scalar_khz = 1200000,
	.gpsimd_cores = 8,
	.gpsimd_khz = 1200000,
	.partitions = 128,
	.sbuf_partition_bytes = 224 * VN_KIB,
	.psum_partition_bytes = 16 * VN_KIB,
	.psum_bank_bytes = 2 * VN_KIB,
	.dma_engines = 16,
	.dma_desc_overhead_ns = 64,
	/* 3.5 TB/s of DMA over the device's 128 engines */
	.dma_engine_bw = 3500 * VN_GB / 128,
	.hbm_bw = 2900 * VN_GB / 8,
	.hbm_modeled_bytes = 96 * VN_GIB / 8,
	.peak_flops_bf16 = VN_PEAK(VN_TRN23_KHZ, 2, 1),
	.peak_flops_fp32 = VN_PEAK(VN_TRN23_KHZ, 2, 4),
};

const struct vneuron_model vn_model_trn3 = {
	.name = "trn3",
	.tensor_rows = 128,
	.tensor_cols = 128,
	.tensor_khz = VN_TRN23_KHZ,
	.vector_lanes = 128,
	.vector_khz = 1200000,
	.scalar_lanes = 128,
	.scalar_khz = 1200000,
	.gpsimd_cores = 8,
	.gpsimd_khz = 1200000,
	.partitions = 128,
	.sbuf_partition_bytes = 256 * VN_KIB,
	.psum_partition_bytes = 16 * VN_KIB,
	.psum_bank_bytes = 2 * VN_KIB,
	.dma_engines = 16,
	.dma_desc_overhead_ns = 64,
	.dma_engine_bw = 4900 * VN_GB / 128,
	.hbm_bw = 4900 * VN_GB / 8,
	.hbm_modeled_bytes = 144 * VN_GIB / 8,
	.peak_flops_bf16 = VN_PEAK(VN_TRN23_KHZ, 2, 1),
	.peak_flops_fp32 = VN_PEAK(VN_TRN23_KHZ, 2, 4),
};

/*
 * Collective hops (assumptions: AWS publishes no per-hop figure): between two cores of
 * a device half the device's DMA bandwidth, between two devices half its NeuronLink
 * bandwidth (a ring step sends on one link and receives on another); 1 and 2 us a hop.
 */
static const struct vn_model_entry {
	const struct vneuron_model *m;
	struct vneuron_model_gen g;
} vn_models[] = {
	{ &vn_model_trn1, {
		.generation = "NeuronCore-v2",
		.cores_per_device = 2,
		.lnc = 1,
		.dtypes = VN_DTYPES_V2,
		.tensor_fp32_passes = 4,
		.tensor_fp8_rows = 1,
		.perf_dtypes = 0,
		.vector_copy_rate = 1,
		.vector_tt_rate = 1,
		.scalar_copy_rate = 1,
		.cc_cores = 6,
		.cc_intra_latency_ns = 1000,
		.cc_inter_latency_ns = 2000,
		.cc_intra_bw = 1000 * VN_GB / 2,
		.cc_inter_bw = 384 * VN_GB / 2,
		.link_bw = 384 * VN_GB,
		.hbm_device_bytes = 32 * VN_GIB,
		.hbm_device_bw = 820 * VN_GB,
		.dma_device_bw = 1000 * VN_GB,
		.peak_flops_fp8 = VN_PEAK(VN_TRN1_KHZ, 2, 1),
	} },
	{ &vn_model_trn2, {
		.generation = "NeuronCore-v3",
		.cores_per_device = 8,
		.lnc = 2,
		.dtypes = VN_DTYPES_V2,
		.tensor_fp32_passes = 4,
		.tensor_fp8_rows = 2,
		.perf_dtypes = VN_DT(VNEF_DT_BF16),
		.vector_copy_rate = 4,
		.vector_tt_rate = 2,
		.scalar_copy_rate = 1,
		.cc_cores = 20,
		.cc_intra_latency_ns = 1000,
		.cc_inter_latency_ns = 2000,
		.cc_intra_bw = 3500 * VN_GB / 2,
		.cc_inter_bw = 1280 * VN_GB / 2,
		.link_bw = 1280 * VN_GB,
		.hbm_device_bytes = 96 * VN_GIB,
		.hbm_device_bw = 2900 * VN_GB,
		.dma_device_bw = 3500 * VN_GB,
		.peak_flops_fp8 = VN_PEAK(VN_TRN23_KHZ, 4, 1),
	} },
	{ &vn_model_trn3, {
		.generation = "NeuronCore-v4",
		.cores_per_device = 8,
		.lnc = 2,
		.dtypes = VN_DTYPES_V2 | VN_DT(VNEF_DT_FP8_E4M3FN),
		.tensor_fp32_passes = 4,
		.tensor_fp8_rows = 2,
		.perf_dtypes = VN_DT(VNEF_DT_BF16) | VN_DTYPES_FP8_V4,
		.vector_copy_rate = 4,
		.vector_tt_rate = 2,
		.scalar_copy_rate = 2,
		.cc_cores = 16,
		.cc_intra_latency_ns = 1000,
		.cc_inter_latency_ns = 2000,
		.cc_intra_bw = 4900 * VN_GB / 2,
		.cc_inter_bw = 2560 * VN_GB / 2,
		.link_bw = 2560 * VN_GB,
		.hbm_device_bytes = 144 * VN_GIB,
		.hbm_device_bw = 4900 * VN_GB,
		.dma_device_bw = 4900 * VN_GB,
		.peak_flops_fp8 = VN_PEAK(VN_TRN23_KHZ, 4, 1),
	} },
};

u32 vn_model_count(void)
{
	return ARRAY_SIZE(vn_models);
}

const struct vneuron_model *vn_model_at(u32 i)
{
	return i < ARRAY_SIZE(vn_models) ? vn_models[i].m : NULL;
}

static int model_index(const char *name)
{
	size_t i;

	if (!name)
		return -1;
	for (i = 0; i < ARRAY_SIZE(vn_models); i++)
		if (!strncmp(vn_models[i].m->name, name, sizeof(vn_models[i].m->name)))
			return (int)i;
	return -1;
}

const struct vneuron_model *vn_model_find(const char *name)
{
	int i = model_index(name);

	return i < 0 ? NULL : vn_models[i].m;
}

const struct vneuron_model_gen *vn_model_gen(const struct vneuron_model *m)
{
	int i = m ? model_index(m->name) : 0;

	return &vn_models[i < 0 ? 0 : i].g;
}

bool vn_model_has_dtype(const struct vneuron_model *m, u32 dtype)
{
	return dtype < 32 && (vn_model_gen(m)->dtypes & (1u << dtype));
}

u32 vn_model_part_bytes(const struct vneuron_model *m, u32 mem)
{
	if (mem == VNEF_MEM_PSUM)
		return m->psum_partition_bytes;
	return mem == VNEF_MEM_SBUF ? m->sbuf_partition_bytes : 0;
}
