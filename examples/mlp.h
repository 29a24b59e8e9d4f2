/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The MLP example-mlp-train and example-mlp-dp train (mlp.c): 784 -> 128 (relu) -> 10,
 * softmax cross-entropy, backward and SGD, fp32, on a synthetic MNIST-shaped data set.
 */
#ifndef VN_EXAMPLES_MLP_H
#define VN_EXAMPLES_MLP_H

#include <stdint.h>

#include "common.h"

#define MLP_BATCH	128	/* the (global) batch */
#define D	784		/* 28 x 28 inputs */
#define H	128
#define C	10
#define DB	((D + 127) / 128)	/* 128-row blocks of D, the last one 16 rows */
#define NB	4		/* (global) batches in the data set */
#define LR	0.5f

/* The gradients and the loss, one flat buffer: what example-mlp-dp's all_reduce adds. */
#define G_W1	0
#define G_B1	(G_W1 + D * H)
#define G_W2	(G_B1 + H)
#define G_B2	(G_W2 + H * C)
#define G_LOSS	(G_B2 + C)
#define NG	(G_LOSS + 1)

struct params {
	float w1[D * H], b1[H], w2[H * C], b2[C];
};

/* Rows of D's block j: 128, the last 16. */
uint32_t mlp_drows(uint32_t j);
/*
 * One training step of batch bl on one worker of w, with scopes so a profile shows the
 * layers (mlp/load, fc1, fc2, loss, backward, sgd). With w > 1 the gradients (of the
 * worker's mean loss) go to HBM, an all_reduce adds them over the workers, and the
 * update is lr / w times the sum; with w == 1 there is no collective. The builder's
 * status.
 */
int mlp_build_step(struct nd_builder *b, uint32_t bl, uint32_t w);
/*
 * The data set: ten prototypes of 28x28 pixels (strokes of random rows and columns),
 * NB * MLP_BATCH noisy copies in x (rows of D) with one-hot labels in y (rows of C).
 */
void mlp_make_data(float *x, float *y);

#endif /* VN_EXAMPLES_MLP_H */
