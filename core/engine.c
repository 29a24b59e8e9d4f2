// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Running one engine instruction: the executor's own check of its operands, the FPU
 * sections around the numerics in *_fp.c (bounded steps, a yield and a stop check
 * between them) and the modeled cost. Integer only: this file is not built with
 * floating point.
 */
#include "vn_internal.h"
#include "vn_isa.h"
#include "vn_model.h"

int vn_engine_ctx_init(struct vn_fp_ctx *x, u8 *sbuf, u8 *psum)
{
	u32 i, cpu;

	memset(x, 0, sizeof(*x));
	x->sbuf = sbuf;
	x->psum = psum;
	x->stat = vn_vzalloc(sizeof(u32) * VN_MM_STAT_WORDS);
	x->mov = vn_vzalloc(sizeof(u32) * VN_MM_MOV_WORDS);
	x->out = vn_vzalloc(sizeof(u32) * VNEF_PARTITIONS * VN_MM_LD);
	for (i = 0; i < ARRAY_SIZE(x->seg); i++)
		x->seg[i] = vn_vzalloc(sizeof(u32) * VN_FP_SEG);
	if (!x->stat || !x->mov || !x->out || !x->seg[0] || !x->seg[1] || !x->seg[2]) {
		vn_engine_ctx_free(x);
		return -ENOMEM;
	}
	cpu = vn_cpu_vector();
	if (cpu & VN_CPU_FMA)
		x->features |= VN_FP_FMA;
	if (cpu & VN_CPU_BF16)
		x->features |= VN_FP_BF16;
	switch (cpu & VN_CPU_LEVEL) {
	case VN_CPU_AVX512:
		x->simd = VN_SIMD_AVX512;
		break;
	case VN_CPU_AVX2:
		x->simd = VN_SIMD_AVX2;
		break;
	default:
		x->simd = VN_SIMD_SSE2;
	}
	return 0;
}

/* A new owner's executions find nothing of the last one's in the engine's buffers. */
void vn_engine_ctx_scrub(struct vn_fp_ctx *x)
{
	u32 i;

	memset(x->stat, 0, sizeof(u32) * VN_MM_STAT_WORDS);
	memset(x->mov, 0, sizeof(u32) * VN_MM_MOV_WORDS);
	memset(x->out, 0, sizeof(u32) * VNEF_PARTITIONS * VN_MM_LD);
	for (i = 0; i < ARRAY_SIZE(x->seg); i++)
		memset(x->seg[i], 0, sizeof(u32) * VN_FP_SEG);
	x->stat_k = 0;
	x->stat_m = 0;
	x->stat_fp32 = 0;
	x->stat_exact = 0;
}

void vn_engine_ctx_free(struct vn_fp_ctx *x)
{
	u32 i;

	vn_vfree(x->stat);
	vn_vfree(x->mov);
	vn_vfree(x->out);
	for (i = 0; i < ARRAY_SIZE(x->seg); i++)
		vn_vfree(x->seg[i]);
	memset(x, 0, sizeof(*x));
}

/*
 * The executor's own check, written apart from the validator's (core/program.c) so that
 * one mistake cannot hide in both: for each operand the numerics will touch, that it
 * lies inside its memory and partition, and that it covers every partition and element
 * index the numerics will use with it (which follows from how *_fp.c walk operands).
 */

/* Describes an operand for a fault report. */
static bool ap_fault(const struct vnef_ap *a, struct vn_fault *f, u64 offset, u64 len)
{
	f->mem = a->mem == VNEF_MEM_SBUF || a->mem == VNEF_MEM_PSUM ? a->mem : VNEF_MEM_NONE;
	f->index = a->start_partition;
	f->offset = offset;
	f->len = len;
	return false;
}

/* The free size of an operand, or 0 if it is not one the engines can walk. */
static u64 ap_walk_free(const struct vnef_ap *a)
{
	u64 n = (u64)a->count[0] * a->count[1];

	return n <= VNEF_MAX_FREE ? n : 0;
}

/* Inside the core's SBUF or PSUM: partitions exist, every element within the partition. */
static bool ap_inside(const struct vn_core *c, const struct vnef_ap *a, struct vn_fault *f)
{
	u64 pbytes, es, i0, i1, last, end;

	if (a->mem != VNEF_MEM_SBUF && a->mem != VNEF_MEM_PSUM)
		return ap_fault(a, f, 0, 0);
	pbytes = vn_core_part_bytes(&c->m, a->mem);
	es = vn_dtype_size(a->dtype);
	if (!es || a->offset % es || !ap_walk_free(a) || !a->partitions)
		return ap_fault(a, f, a->offset, 0);
	if (a->start_partition + (u32)a->partitions > VNEF_PARTITIONS) {
		ap_fault(a, f, a->offset, es);
		f->index = a->start_partition + a->partitions - 1;
		return false;
	}
	/* Both products fit 64 bits (32 x 32); their sum and the rest are checked. */
	i0 = (u64)(a->count[0] - 1) * a->stride[0];
	i1 = (u64)(a->count[1] - 1) * a->stride[1];
	if (check_add_overflow(i0, i1, &last) || check_mul_overflow(last, es, &last) ||
	    check_add_overflow(last, (u64)a->offset, &last) ||
	    check_add_overflow(last, es, &end) || end > pbytes)
		return ap_fault(a, f, last, es);
	return true;
}

/* Inside, and covering partitions [0, p) and free elements [0, n) as the walk uses. */
static bool ap_covers(const struct vn_core *c, const struct vnef_ap *a, u64 p, u64 n,
		      struct vn_fault *f)
{
	if (!ap_inside(c, a, f))
		return false;
	if (a->partitions < p || ap_walk_free(a) < n) {
		ap_fault(a, f, a->offset, 0);
		f->mem = VNEF_MEM_NONE;		/* a shape the engine cannot walk */
		return false;
	}
	return true;
}

static bool state_fault(struct vn_fault *f)
{
	*f = (struct vn_fault){ .mem = VNEF_MEM_NONE };
	return false;
}

/*
 * Elementwise opcodes (the ISA table's cost class): dst [P x F] inside its memory, each
 * source the table says the instruction uses covering [P x F], a scalar or bias column
 * [P x 1]. A new elementwise opcode is checked here without a case of its own.
 */
static bool elementwise_check(const struct vn_core *c, const struct vnef_instr *in,
			      struct vn_fault *f)
{
	const struct vn_opcode_info *info = vn_opcode_info(in->opcode);
	u32 uses, imms, column = VNEF_IF_SCALAR_COLUMN | VNEF_IF_BIAS_COLUMN;
	u64 p, n;

	if (!info || info->cost != VN_COST_ELEMENTWISE)
		return state_fault(f);
	vn_opcode_uses(info, in->flags, &uses, &imms);
	if (!ap_inside(c, &in->dst, f))
		return false;
	p = in->dst.partitions;
	n = ap_walk_free(&in->dst);
	if ((uses & VN_USE_SRC0) && !ap_covers(c, &in->src0, p, n, f))
		return false;
	if (uses & VN_USE_SRC1)
		return ap_covers(c, &in->src1, p, in->flags & column ? 1 : n, f);
	return true;
}

bool vn_engine_check(const struct vn_core *c, u32 engine, const struct vnef_instr *in,
		     struct vn_fault *f)
{
	const struct vn_fp_ctx *x = &c->fp[engine];
	const struct vnef_ap *d = &in->dst, *a = &in->src0;
	u64 n;

	switch (in->opcode) {
	case VNEF_OP_NOP:
		return true;
	case VNEF_OP_LOAD_STATIONARY:
		/* rows k < partitions of the [128][128] stationary buffer, m < free */
		return ap_inside(c, a, f) && (ap_walk_free(a) <= VNEF_MM_MAX_M || state_fault(f));
	case VNEF_OP_MULTIPLY_MOVING:
		/* k < stat_k from src0, columns < free(src0) <= VN_MM_LD; rows m < stat_m */
		if (!x->stat_k || x->stat_k > VNEF_MM_MAX_K || x->stat_m > VNEF_MM_MAX_M)
			return state_fault(f);
		if (!ap_covers(c, a, x->stat_k, 1, f))
			return false;
		n = ap_walk_free(a);
		if (n > VN_MM_LD)
			return state_fault(f);
		return ap_covers(c, d, x->stat_m, n, f);
	case VNEF_OP_TRANSPOSE:
		/* out rows m < free(src0) <= 128, columns p < partitions(src0) <= 128 */
		if (!ap_inside(c, a, f))
			return false;
		n = ap_walk_free(a);
		if (n > VNEF_MM_MAX_M)
			return state_fault(f);
		return ap_covers(c, d, n, a->partitions, f);
	case VNEF_OP_REDUCE:
		/* every partition of src0 to element 0 of the same partition of dst */
		return ap_inside(c, a, f) && ap_covers(c, d, a->partitions, 1, f);
	case VNEF_OP_PARTITION_REDUCE:
		/* all partitions of src0 to partition 0 of dst, element by element */
		return ap_inside(c, a, f) && ap_covers(c, d, 1, ap_walk_free(a), f);
	default:
		return elementwise_check(c, in, f);
	}
}

int vn_engine_run(struct vn_core *c, u32 engine, const struct vnef_instr *in)
{
	struct vn_fp_ctx *x = &c->fp[engine];
	struct vn_fp_cursor cur = { 0 };
	bool done;

	if (in->opcode == VNEF_OP_NOP)
		return 0;
	for (;;) {
		vn_fpu_begin();
		switch (in->opcode) {
		case VNEF_OP_LOAD_STATIONARY:
		case VNEF_OP_MULTIPLY_MOVING:
		case VNEF_OP_TRANSPOSE:
			done = vn_fp_tensor_step(x, in, &cur);
			break;
		case VNEF_OP_ACTIVATE:
			done = vn_fp_act_step(x, in, &cur);
			break;
		default:
			done = vn_fp_vector_step(x, in, &cur);
		}
		vn_fpu_end();
		if (done)
			return 0;
		vn_thread_yield();
		if (vn_load_acquire(&c->abort))
			return -EINTR;
		if (vn_time_ns() > c->deadline_ns)
			return -ETIMEDOUT;
	}
}

static u64 cycles_ps(u64 cycles, u32 khz)
{
	return cycles * 1000000000ull / (khz ? khz : 1);
}

static u64 ap_elems(const struct vnef_ap *a)
{
	return (u64)a->partitions * a->count[0] * a->count[1];
}

static u64 ap_bytes(const struct vnef_ap *a)
{
	return a->mem ? ap_elems(a) * vn_dtype_size(a->dtype) : 0;
}

/*
 * Elements a lane takes per cycle: 1, or the generation's performance mode for opcodes
 * the ISA table marks, when every operand has a dtype the mode takes (AWS's NKI guides:
 * VectorE copies and tensor-scalar operations 4x on contiguous SBUF operands, 2x with
 * one in PSUM or strided; tensor-tensor 2x with both sources in SBUF; trn3's ScalarE
 * copies 2x).
 */
static u32 lane_rate(const struct vn_core *c, u32 engine, const struct vnef_instr *in,
		     const struct vn_opcode_info *info)
{
	const struct vnef_ap *ops[3] = { &in->dst, &in->src0, &in->src1 };
	const struct vneuron_model_gen *g;
	bool sbuf = true, contig = true;
	u32 i, rate;

	if (info->perf == VN_PERF_NONE || engine == VNEURON_ENGINE_GPSIMD ||
	    engine == VNEURON_ENGINE_TENSOR)
		return 1;
	g = vn_model_gen(&c->m);
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		if (!ops[i]->mem)
			continue;
		if (ops[i]->dtype >= 32 || !(g->perf_dtypes & (1u << ops[i]->dtype)))
			return 1;
		/* the destination of a tensor-tensor may be anywhere: its sources count */
		if (ops[i]->mem != VNEF_MEM_SBUF && (info->perf != VN_PERF_TT || i))
			sbuf = false;
		if (ops[i]->stride[0] != 1 && ops[i]->count[0] > 1)
			contig = false;
	}
	if (info->perf == VN_PERF_TT)
		rate = engine == VNEURON_ENGINE_VECTOR && sbuf ? g->vector_tt_rate : 1;
	else if (engine == VNEURON_ENGINE_VECTOR)
		rate = g->vector_copy_rate >> (!sbuf + !contig);
	else
		rate = sbuf ? g->scalar_copy_rate : 1;
	return max_t(u32, rate, 1);
}

/* TensorE cycles a column (or row) takes: the generation's fp32 passes, else 1. */
static u32 tensor_passes(const struct vn_core *c, bool fp32)
{
	return fp32 ? max_t(u32, vn_model_gen(&c->m)->tensor_fp32_passes, 1) : 1;
}

u64 vn_engine_cost(const struct vn_core *c, u32 engine, const struct vnef_instr *in,
		   struct vn_event *ev)
{
	const struct vn_opcode_info *info = vn_opcode_info(in->opcode);
	const struct vneuron_model *m = &c->m;
	const struct vnef_ap *a = &in->src0, *d = &in->dst;
	u64 f, p, cyc, lanes, rate, k = a->partitions, n = (u64)a->count[0] * a->count[1];
	bool fp32;

	ev->flags = 0;
	ev->hbm_read = 0;
	ev->hbm_write = 0;
	ev->flops = 0;
	ev->elements = 0;
	ev->bytes = ap_bytes(d) + ap_bytes(a) + ap_bytes(&in->src1);
	switch (info ? info->cost : VN_COST_NONE) {
	case VN_COST_STATIONARY:
		ev->elements = ap_elems(a);
		return cycles_ps(max_t(u64, n, 64) * tensor_passes(c, a->dtype == VNEF_DT_FP32),
				 m->tensor_khz);
	case VN_COST_MOVING:
		ev->elements = ap_elems(d);
		ev->flops = 2 * k * c->fp[engine].stat_m * n;
		fp32 = a->dtype == VNEF_DT_FP32 || c->fp[engine].stat_fp32;
		return cycles_ps(max_t(u64, n, 64) * tensor_passes(c, fp32), m->tensor_khz);
	case VN_COST_TRANSPOSE:
		/* the input as stationary, an identity [P x P] moving */
		ev->elements = ap_elems(d);
		ev->flops = 2 * k * n * k;
		ev->flags = VN_EVT_F_TRANSPOSE;
		return cycles_ps(max_t(u64, k, 64) * tensor_passes(c, a->dtype == VNEF_DT_FP32),
				 m->tensor_khz);
	case VN_COST_REDUCE:
		/* the widest free axis the engine walks, per partition: the source's */
		f = n;
		p = a->partitions;
		break;
	case VN_COST_ELEMENTWISE:
		f = (u64)d->count[0] * d->count[1];
		p = d->partitions;
		break;
	default:
		return 0;
	}
	ev->elements = p * f;
	ev->flops = p * f;
	if (engine == VNEURON_ENGINE_GPSIMD) {
		/* 8 cores x 512 bits = 128 fp32 lanes over all partitions */
		lanes = (u64)(m->gpsimd_cores ? m->gpsimd_cores : 1) * 16;
		cyc = VN_STATIC_CYCLES + (p * f * info->inputs + lanes - 1) / lanes;
		return cycles_ps(cyc, m->gpsimd_khz);
	}
	rate = lane_rate(c, engine, in, info);
	cyc = VN_STATIC_CYCLES + (f * info->inputs + rate - 1) / rate;
	return cycles_ps(cyc, engine == VNEURON_ENGINE_SCALAR ? m->scalar_khz : m->vector_khz);
}
