/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* SHA-256 (FIPS 180-4) of a program image: its identity in profiles. Not installed. */
#ifndef ND_SHA256_H
#define ND_SHA256_H

#include <stddef.h>
#include <stdint.h>

void nd_sha256(const void *data, size_t len, uint8_t out[32]);

#endif /* ND_SHA256_H */
