// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Running one engine instruction: the FPU sections around the numerics in *_fp.c
 * (bounded steps, a yield and a stop check between them) and the modeled cost.
 * Integer only: this file is not built with floating point.
 */
#include "core_internal.h"

int vn_engine_ctx_init(struct vn_fp_ctx *x, u8 *sbuf, u8 *psum)
{
	u32 i;

	memset(x, 0, sizeof(*x));
	x->sbuf = sbuf;
	x->psum = psum;
	x->stat = vn_vzalloc(sizeof(u32) * VNEF_MM_MAX_K * VNEF_MM_MAX_M);
	x->mov = vn_vzalloc(sizeof(u32) * VNEF_MM_MAX_K * VN_MM_LD);
	x->out = vn_vzalloc(sizeof(u32) * VNEF_PARTITIONS * VN_MM_LD);
	for (i = 0; i < ARRAY_SIZE(x->seg); i++)
		x->seg[i] = vn_vzalloc(sizeof(u32) * VN_FP_SEG);
	if (!x->stat || !x->mov || !x->out || !x->seg[0] || !x->seg[1] || !x->seg[2]) {
		vn_engine_ctx_free(x);
		return -ENOMEM;
	}
#ifndef __KERNEL__
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		x->simd = VN_SIMD_AVX512;
	else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		x->simd = VN_SIMD_AVX2;
#endif
	return 0;
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

int vn_engine_run(struct vn_core *c, u32 engine, const struct vnef_instr *in)
{
	struct vn_fp_ctx *x = &c->fp[engine];
	struct vn_fp_cursor cur = { 0 };
	bool done;

	switch (in->opcode) {
	case VNEF_OP_NOP:
		return 0;
	case VNEF_OP_LOAD_STATIONARY:
	case VNEF_OP_MULTIPLY_MOVING:
	case VNEF_OP_TRANSPOSE:
		vn_fpu_begin();
		vn_fp_tensor(x, in);
		vn_fpu_end();
		return 0;
	default:
		break;
	}
	for (;;) {
		vn_fpu_begin();
		if (in->opcode == VNEF_OP_ACTIVATE)
			done = vn_fp_act_step(x, in, &cur);
		else
			done = vn_fp_vector_step(x, in, &cur);
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

#define VN_STATIC_CYCLES	64	/* VectorE/ScalarE/GpSimdE per-instruction overhead */

u64 vn_engine_cost(const struct vn_core *c, u32 engine, const struct vnef_instr *in,
		   struct vn_event *ev)
{
	const struct vneuron_model *m = &c->m;
	const struct vnef_ap *a = &in->src0, *d = &in->dst;
	u64 f, p, cyc, nin = 1, lanes;

	ev->flags = 0;
	ev->hbm_read = 0;
	ev->hbm_write = 0;
	ev->flops = 0;
	ev->bytes = ap_bytes(d) + ap_bytes(a) + ap_bytes(&in->src1);
	if (in->opcode == VNEF_OP_NOP) {
		ev->elements = 0;
		return 0;
	}
	if (engine == VNEURON_ENGINE_TENSOR) {
		u32 slow = a->dtype == VNEF_DT_FP32 ? 4 : 1;	/* fp32 at a quarter rate */
		u64 k = a->partitions, n = (u64)a->count[0] * a->count[1];

		switch (in->opcode) {
		case VNEF_OP_LOAD_STATIONARY:
			ev->elements = ap_elems(a);
			return cycles_ps(max_t(u64, n, 64) * slow, m->tensor_khz);
		case VNEF_OP_MULTIPLY_MOVING:
			if (c->fp[engine].stat_fp32)
				slow = 4;
			ev->elements = ap_elems(d);
			ev->flops = 2 * k * c->fp[engine].stat_m * n;
			return cycles_ps(max_t(u64, n, 64) * slow, m->tensor_khz);
		default:	/* TRANSPOSE: input as stationary, identity [P x P] moving */
			ev->elements = ap_elems(d);
			ev->flops = 2 * k * n * k;
			ev->flags = VN_EVT_F_TRANSPOSE;
			return cycles_ps(max_t(u64, k, 64) * slow, m->tensor_khz);
		}
	}

	/* The widest free axis the engine walks, per partition. */
	if (in->opcode == VNEF_OP_REDUCE || in->opcode == VNEF_OP_PARTITION_REDUCE) {
		f = (u64)a->count[0] * a->count[1];
		p = a->partitions;
	} else {
		f = (u64)d->count[0] * d->count[1];
		p = d->partitions;
	}
	if (in->opcode == VNEF_OP_TENSOR_TENSOR)
		nin = 2;
	ev->elements = p * f;
	ev->flops = p * f;
	if (engine == VNEURON_ENGINE_GPSIMD) {
		/* 8 cores x 512 bits = 128 fp32 lanes over all partitions */
		lanes = (u64)(m->gpsimd_cores ? m->gpsimd_cores : 1) * 16;
		cyc = VN_STATIC_CYCLES + (p * f * nin + lanes - 1) / lanes;
		return cycles_ps(cyc, m->gpsimd_khz);
	}
	cyc = VN_STATIC_CYCLES + f * nin;
	return cycles_ps(cyc, engine == VNEURON_ENGINE_SCALAR ? m->scalar_khz : m->vector_khz);
}
