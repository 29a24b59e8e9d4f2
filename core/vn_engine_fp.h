/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The engines' numerics, implemented in the *_fp.c files (the only core files built
 * with floating point, which the compiler may use anywhere in them). Callers in non-FP
 * files (core/engine.c) bracket each call in vn_fpu_begin()/vn_fpu_end(); a step does
 * at most about VN_FP_CHUNK elements and the caller yields and checks for a stop
 * between steps. Operands were validated by core/program.c: no bound is checked here.
 */
#ifndef VN_ENGINE_FP_H
#define VN_ENGINE_FP_H

#include "vn_platform.h"
#include "vneuron_program.h"

#ifdef __CHECKER__
/* sparse knows neither GCC's vector types nor this: a cast, so the rest is checked */
#define __builtin_convertvector(x, type)	((type)(x))
#endif

#define VN_FP_SEG	2048		/* elements per gathered segment */
#define VN_FP_CHUNK	65536		/* elements between FPU sections */
#define VN_MM_LD	512		/* row stride of the moving and output buffers */
/*
 * TensorE multiply-adds between FPU sections: a full 128 x 128 x 512 MULTIPLY_MOVING
 * (8 Mi) runs in 16 sections of 32 columns. Steps are whole multiples of the widest
 * micro-kernel (32 columns), so the columns each kernel computes, and with them every
 * result bit, are those of one unsplit multiply.
 */
#define VN_MM_STEP_MACS	524288u		/* 2^19 */
#define VN_MM_STEP_COLS	32

#define VN_SIMD_SSE2	0
#define VN_SIMD_AVX2	1
#define VN_SIMD_AVX512	2

/* Per-engine state and buffers, allocated with the core (no allocation while running). */
struct vn_fp_ctx {
	u8 *sbuf;
	u8 *psum;
	float *stat;		/* [128][128]: stationary, k-major */
	float *mov;		/* [128][VN_MM_LD] */
	float *out;		/* [128][VN_MM_LD] */
	float *seg[3];		/* [VN_FP_SEG] each */
	u32 stat_k, stat_m;
	u32 stat_fp32;		/* stationary loaded from fp32: quarter rate */
	u32 simd;		/* VN_SIMD_*: the widest vectors the kernels may use */
};

/* Where a multi-step instruction continues; zeroed before its first step. */
struct vn_fp_cursor {
	u32 p;
	u32 j0;
	u32 acc;		/* reduction accumulator (fp32 bits) */
	u32 pad;
};

/* One step of a TensorE instruction (at most VN_MM_STEP_MACS); true when finished. */
bool vn_fp_tensor_step(struct vn_fp_ctx *x, const struct vnef_instr *in,
		       struct vn_fp_cursor *cur);
/* One step of a VectorE/GpSimdE or ScalarE instruction; true when it is finished. */
bool vn_fp_vector_step(struct vn_fp_ctx *x, const struct vnef_instr *in,
		       struct vn_fp_cursor *cur);
bool vn_fp_act_step(struct vn_fp_ctx *x, const struct vnef_instr *in,
		    struct vn_fp_cursor *cur);

#endif /* VN_ENGINE_FP_H */
