/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SHA-256 (FIPS 180-4): the program identity a .vntf profile records. */
#ifndef VNP_SHA256_H
#define VNP_SHA256_H

#include <stddef.h>
#include <stdint.h>

void vnp_sha256(const void *data, size_t len, uint8_t out[32]);

#endif /* VNP_SHA256_H */
