/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The validator tests' shared part (test_program_*.c): a base program using every
 * section, its load, and names for its sections and instructions.
 */
#ifndef PROGRAM_UTIL_H
#define PROGRAM_UTIL_H

#include "core_util.h"
#include "vn_model.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#define SB	VNEF_MEM_SBUF
#define PS	VNEF_MEM_PSUM
#define F32	VNEF_DT_FP32
#define B16	VNEF_DT_BF16
#define TE	VNEURON_ENGINE_TENSOR
#define VE	VNEURON_ENGINE_VECTOR
#define SE	VNEURON_ENGINE_SCALAR
#define GE	VNEURON_ENGINE_GPSIMD

/* A valid program using every section and every engine. */
static inline void base(struct vb *b)
{
	static const float k[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct vnef_instr *in;
	struct vnef_dma_desc *d;
	float one = 1.0f;

	vb_init(b);
	b->name_off = vb_str(b, "base");
	vb_tensor(b, "x", VNEF_TENSOR_INPUT, F32, 4, 8, NULL);
	vb_tensor(b, "y", VNEF_TENSOR_OUTPUT, F32, 4, 8, NULL);
	vb_tensor(b, "k", VNEF_TENSOR_CONST, F32, 8, 0, k);
	d = vb_load(b, 0, 0, 0, 32, 4, 32, SB, 0, 0);		/* q0[0] */
	d->signal_mask = 1;
	in = vb_op(b, VE, VNEF_OP_TENSOR_TENSOR);		/* V[0] */
	in->src0 = vb_ap2(SB, F32, 0, 4, 0, 8);
	in->src1 = vb_ap2(SB, F32, 0, 4, 0, 8);
	in->dst = vb_ap2(SB, F32, 0, 4, 64, 8);
	VB_WAIT(in, 0, 1);
	in = vb_op(b, VE, VNEF_OP_TENSOR_SCALAR);		/* V[1] */
	in->op = VNEF_ALU_MUL;
	in->src0 = vb_ap2(SB, F32, 0, 4, 64, 8);
	in->dst = vb_ap2(SB, F32, 0, 4, 64, 8);
	memcpy(&in->imm[0], &one, 4);
	in->signal_mask = 2;
	in = vb_op(b, TE, VNEF_OP_LOAD_STATIONARY);		/* T[0] */
	in->src0 = vb_ap2(SB, F32, 0, 4, 0, 4);
	in = vb_op(b, TE, VNEF_OP_MULTIPLY_MOVING);		/* T[1] */
	in->src0 = vb_ap2(SB, B16, 0, 4, 256, 8);
	in->dst = vb_ap2(PS, F32, 0, 4, 0, 8);
	in = vb_op(b, SE, VNEF_OP_ACTIVATE);			/* S[0] */
	in->op = VNEF_ACT_EXP;
	in->src0 = vb_ap2(SB, F32, 0, 4, 64, 8);
	in->dst = vb_ap2(SB, F32, 0, 4, 128, 8);
	memcpy(&in->imm[0], &one, 4);
	VB_WAIT(in, 1, 1);
	in->signal_mask = 4;
	in = vb_op(b, GE, VNEF_OP_IOTA);			/* G[0] */
	in->dst = vb_ap2(SB, F32, 0, 128, 512, 16);
	in->imm[2] = 1;
	d = vb_store(b, 1, 1, 0, 32, 4, 32, SB, 0, 128);	/* q1[0] */
	VB_WAIT(d, 2, 1);
	vb_debug(b, VE, 0, "model.py", 12, "mlp/fc1/add");
	vb_debug(b, VNEF_STREAM_DMA(1), 0, "model.py", 20, "mlp/out");
}

static inline int load(uint8_t *img, uint64_t size, struct vn_prog_error *err)
{
	return vn_program_check(img, size, err);
}

/* Section order of base(): strtab, tensors, const, instr T V S G, dma q0 q1, debug. */
#define S_STR	0
#define S_TEN	1
#define S_CONST	2
#define S_T	3
#define S_V	4
#define S_S	5
#define S_G	6
#define S_Q0	7
#define S_Q1	8
#define S_DBG	9

#define V0	(b.in[VE][0])
#define V1	(b.in[VE][1])
#define T0	(b.in[TE][0])
#define T1	(b.in[TE][1])
#define S0	(b.in[SE][0])
#define G0	(b.in[GE][0])
#define Q0	(b.dd[0][0])
#define Q1	(b.dd[1][0])

#endif /* PROGRAM_UTIL_H */
