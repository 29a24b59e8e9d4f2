// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The program identity: SHA-256 through OpenSSL's libcrypto, not a hand-written one.
 * Here because both the API log (a loaded image's identity) and the profiler use it.
 */
#include <openssl/evp.h>
#include <stdlib.h>

#include "nd_sha256.h"

void nd_sha256(const void *data, size_t len, uint8_t out[32])
{
	unsigned int n = 32;

	/* Fails only on allocation failure inside libcrypto; a wrong identity is worse. */
	if (!EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) || n != 32)
		abort();
}
