/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SHA-256 (FIPS 180-4): the program identity a .vntf profile records (libneurondev's). */
#ifndef VNP_SHA256_H
#define VNP_SHA256_H

#include "nd_sha256.h"

static inline void vnp_sha256(const void *data, size_t len, uint8_t out[32])
{
	nd_sha256(data, len, out);
}

#endif /* VNP_SHA256_H */
