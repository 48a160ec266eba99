// SPDX-License-Identifier: GPL-2.0
/*
 * SHA-256 and HMAC-SHA256: see sha256.h. Written for clarity, not
 * speed: the farm hashes a few kilobytes of agent lines per job. Words
 * are loaded and stored big-endian with shifts, so the code is the same
 * on every host and guest arch.
 */
#include <string.h>

#include "sha256.h"

/* Round constants: 32 bits of the fractions of the cube roots of primes. */
static const uint32_t k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5,
	0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
	0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
	0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
	0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, unsigned int n)
{
	return x >> n | x << (32 - n);
}

static uint32_t load_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* The message schedule of one block: 16 words in, 64 out. */
static void schedule(uint32_t *w, const uint8_t *block)
{
	uint32_t s0, s1;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = load_be32(block + 4 * i);
	for (i = 16; i < 64; i++) {
		s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ w[i - 15] >> 3;
		s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10;
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
}

static void compress(uint32_t *h, const uint8_t *block)
{
	uint32_t w[64], v[8], t1, t2, ch, maj;
	int i;

	schedule(w, block);
	memcpy(v, h, sizeof(v));
	for (i = 0; i < 64; i++) {
		ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
		t1 = v[7] + (ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25)) +
		     ch + k[i] + w[i];
		t2 = (ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22)) + maj;
		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += v[i];
}

void sha256_init(struct sha256 *s)
{
	/* 32 bits of the fractions of the square roots of the first 8 primes */
	static const uint32_t h0[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, h0, sizeof(h0));
	s->bytes = 0;
	s->n = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t take;

	s->bytes += len;
	while (len) {
		take = SHA256_BLOCK - s->n;
		if (take > len)
			take = len;
		memcpy(s->buf + s->n, p, take);
		s->n += take;
		p += take;
		len -= take;
		if (s->n < SHA256_BLOCK)
			return;
		compress(s->h, s->buf);
		s->n = 0;
	}
}

/* The padding: 0x80, zeros, then the message's length in bits. */
void sha256_final(struct sha256 *s, uint8_t *digest)
{
	uint64_t bits = s->bytes * 8;
	int i;

	s->buf[s->n++] = 0x80;
	if (s->n > SHA256_BLOCK - 8) {
		memset(s->buf + s->n, 0, SHA256_BLOCK - s->n);
		compress(s->h, s->buf);
		s->n = 0;
	}
	memset(s->buf + s->n, 0, SHA256_BLOCK - 8 - s->n);
	for (i = 0; i < 8; i++)
		s->buf[SHA256_BLOCK - 1 - i] = bits >> (8 * i);
	compress(s->h, s->buf);
	for (i = 0; i < 8; i++)
		store_be32(digest + 4 * i, s->h[i]);
	explicit_bzero(s, sizeof(*s));
}

/* A key longer than a block is hashed first; a shorter one zero-padded. */
void hmac_sha256_init(struct hmac_sha256 *h, const uint8_t *key,
		      size_t keylen)
{
	uint8_t k0[SHA256_BLOCK] = { 0 }, pad[SHA256_BLOCK];
	struct sha256 s;
	int i;

	if (keylen > SHA256_BLOCK) {
		sha256_init(&s);
		sha256_update(&s, key, keylen);
		sha256_final(&s, k0);
	} else if (keylen) {
		memcpy(k0, key, keylen);
	}
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k0[i] ^ 0x36;
	sha256_init(&h->inner);
	sha256_update(&h->inner, pad, sizeof(pad));
	for (i = 0; i < SHA256_BLOCK; i++)
		pad[i] = k0[i] ^ 0x5c;
	sha256_init(&h->outer);
	sha256_update(&h->outer, pad, sizeof(pad));
	explicit_bzero(k0, sizeof(k0));
	explicit_bzero(pad, sizeof(pad));
}

void hmac_sha256_update(struct hmac_sha256 *h, const void *data, size_t len)
{
	sha256_update(&h->inner, data, len);
}

void hmac_sha256_final(struct hmac_sha256 *h, uint8_t *mac)
{
	uint8_t inner[SHA256_LEN];

	sha256_final(&h->inner, inner);
	sha256_update(&h->outer, inner, sizeof(inner));
	sha256_final(&h->outer, mac);
	explicit_bzero(inner, sizeof(inner));
}
