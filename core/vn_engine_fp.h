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
#define __builtin_shufflevector(a, b, ...)	(a)
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

/* vn_fp_ctx.features: what else the CPU has (vn_cpu_vector()), and a check's outcome */
#define VN_FP_FMA		0x1u	/* FMA, with AVX2 or AVX-512 */
#define VN_FP_BF16		0x2u	/* AVX512_BF16 (VDPBF16PS) */
#define VN_FP_DP_TESTED		0x4u	/* vn_mm_dp_selftest() ran ... */
#define VN_FP_DP_OK		0x8u	/* ... and VDPBF16PS gives the rule's bits */
#define VN_FP_FMA_TESTED	0x10u	/* the FMA kernel was timed against multiply-add ... */
#define VN_FP_FMA_OK		0x20u	/* ... and is faster (not so under QEMU's TCG) */
#define VN_FP_SSE_TESTED	0x40u	/* SSE2's kernel was timed against simd's ... */
#define VN_FP_SSE_OK		0x80u	/* ... and is much faster: TensorE uses SSE2 only */

/*
 * TensorE's packed operands (core/vn_mm_fp.h): the stationary in groups of VN_MM_SB
 * outputs, the moving operand in panels of VN_MM_PW columns, each fp32 and as bf16 pairs
 * (half the rows). A group or panel is 64 bytes longer than its rows, so that the rows of
 * successive ones fall in other cache sets (4 KiB apart they would all share a few).
 */
#define VN_MM_SB		8
#define VN_MM_PW		32
#define VN_MM_GROUP		(VNEF_MM_MAX_K * VN_MM_SB + 16)
#define VN_MM_PAIR_GROUP	(VNEF_MM_MAX_K / 2 * VN_MM_SB + 16)
#define VN_MM_PANEL		(VNEF_MM_MAX_K * VN_MM_PW + 16)
#define VN_MM_PAIR_PANEL	(VNEF_MM_MAX_K / 2 * VN_MM_PW + 16)
#define VN_MM_GROUPS		(VNEF_MM_MAX_M / VN_MM_SB)
#define VN_MM_PANELS		(VN_MM_LD / VN_MM_PW)
#define VN_MM_STAT_WORDS	(VN_MM_GROUPS * (VN_MM_GROUP + VN_MM_PAIR_GROUP))
#define VN_MM_MOV_WORDS		(VN_MM_PANELS * (VN_MM_PANEL + VN_MM_PAIR_PANEL))

/* Per-engine state and buffers, allocated with the core (no allocation while running). */
struct vn_fp_ctx {
	u8 *sbuf;
	u8 *psum;
	float *stat;		/* VN_MM_STAT_WORDS: the stationary, packed */
	float *mov;		/* VN_MM_MOV_WORDS: moving panels; [128][VN_MM_LD] for TRANSPOSE */
	float *out;		/* [128][VN_MM_LD] */
	float *seg[3];		/* [VN_FP_SEG] each */
	u32 stat_k, stat_m;
	u32 stat_fp32;		/* stationary loaded from fp32: quarter rate */
	u32 stat_exact;		/* its products are exact (vn_mm_exact()) */
	u32 simd;		/* VN_SIMD_*: the widest vectors the kernels may use */
	u32 features;		/* VN_FP_* */
	u32 pid;		/* the running execution's program id (PROGRAM_ID) */
	const char *mm_ran;	/* the kernels of the last MULTIPLY_MOVING step */
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
/* The name of the TensorE kernels x uses for any operands, or for exact products. */
const char *vn_fp_mm_kernels(struct vn_fp_ctx *x, bool exact_products);

#endif /* VN_ENGINE_FP_H */
