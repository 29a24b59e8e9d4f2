/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The device model table: the figures every part of vneuron (driver, library, profiler)
 * uses for modeled costs and peaks. One entry per generation: "trn1" (NeuronCore-v2, the
 * default), "trn2" (NeuronCore-v3), "trn3" (NeuronCore-v4). Every cost rule that differs
 * between them reads a figure of this table, never a model's name.
 */
#ifndef VN_MODEL_H
#define VN_MODEL_H

#include "vn_platform.h"
#include "vneuron.h"
#include "vneuron_program.h"

extern const struct vneuron_model vn_model_trn1;
extern const struct vneuron_model vn_model_trn2;
extern const struct vneuron_model vn_model_trn3;

/* The profile called @name, or NULL. */
const struct vneuron_model *vn_model_find(const char *name);
/* The models in table order (trn1 first), NULL past the last. */
u32 vn_model_count(void);
const struct vneuron_model *vn_model_at(u32 i);
/*
 * The generation figures of @m, found by its name (NULL or a name that is none: trn1's,
 * e.g. a profile of a model this build does not know).
 */
const struct vneuron_model_gen *vn_model_gen(const struct vneuron_model *m);
/* Whether @m has the enum vnef_dtype @dtype. */
bool vn_model_has_dtype(const struct vneuron_model *m, u32 dtype);
/* Bytes of one partition of @mem (VNEF_MEM_SBUF, VNEF_MEM_PSUM) on @m; 0 for others. */
u32 vn_model_part_bytes(const struct vneuron_model *m, u32 mem);
/*
 * The bytes of a partition of @mem a core of @m may touch: @m's, but no more SBUF than
 * a core allocates a partition (core/exec.c: VNEF_SBUF_PART_BYTES, trn1's, until the
 * allocation follows the model). The executor's own checks use it.
 */
static inline u32 vn_core_part_bytes(const struct vneuron_model *m, u32 mem)
{
	u32 b = vn_model_part_bytes(m, mem);

	if (mem == VNEF_MEM_SBUF && b > VNEF_SBUF_PART_BYTES)
		return VNEF_SBUF_PART_BYTES;
	return mem == VNEF_MEM_PSUM && b > VNEF_PSUM_PART_BYTES ? VNEF_PSUM_PART_BYTES : b;
}

#endif /* VN_MODEL_H */
