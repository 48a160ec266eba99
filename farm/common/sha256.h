/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104), incremental. Plain C
 * with no allocation and no I/O: the host tools and the static guest
 * agent both build it (farm/common/chain.c is its user).
 */
#ifndef FARM_COMMON_SHA256_H
#define FARM_COMMON_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN	32	/* digest bytes */
#define SHA256_BLOCK	64	/* block bytes */

struct sha256 {
	uint32_t h[8];
	uint64_t bytes;			/* hashed so far */
	uint8_t buf[SHA256_BLOCK];	/* a partial block */
	size_t n;			/* bytes in buf */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t *digest);

struct hmac_sha256 {
	struct sha256 inner, outer;
};

void hmac_sha256_init(struct hmac_sha256 *h, const uint8_t *key,
		      size_t keylen);
void hmac_sha256_update(struct hmac_sha256 *h, const void *data,
			size_t len);
void hmac_sha256_final(struct hmac_sha256 *h, uint8_t *mac);

#endif /* FARM_COMMON_SHA256_H */
