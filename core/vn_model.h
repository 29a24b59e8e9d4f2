/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The device model table: the figures every part of vneuron (driver, library, profiler)
 * uses for modeled costs and peaks. One entry per profile; "trn1" is the default.
 */
#ifndef VN_MODEL_H
#define VN_MODEL_H

#include "vn_platform.h"
#include "vneuron.h"

extern const struct vneuron_model vn_model_trn1;

/* The profile called @name, or NULL. */
const struct vneuron_model *vn_model_find(const char *name);

#endif /* VN_MODEL_H */
