// SPDX-License-Identifier: GPL-2.0
/*
 * A small gzip/DEFLATE decoder (RFC 1951, RFC 1952) for /proc/config.gz.
 * The guest has no zlib and the arm64 cross toolchain has no static one,
 * and the input is the kernel's own, small and read once, so this favours
 * brevity over speed: canonical Huffman codes decoded a bit at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "agent.h"

#define MAX_BITS	15
#define MAX_LITLEN	288
#define MAX_DIST	30

struct inflate {
	const unsigned char *in;
	size_t inlen, pos;
	unsigned int bitbuf;
	int bitcnt;
	unsigned char *out;
	size_t outlen, outcap, maxout;
	int err;		/* first error, sticky */
};

struct huff {
	unsigned short count[MAX_BITS + 1];	/* codes of each length */
	unsigned short sym[MAX_LITLEN];		/* symbols in code order */
};

enum { ERR_FORMAT = -1, ERR_TOOBIG = -2, ERR_NOMEM = -3 };

static unsigned int bits(struct inflate *s, int n)
{
	unsigned int v;

	while (s->bitcnt < n) {
		if (s->pos == s->inlen) {
			s->err = ERR_FORMAT;	/* ran off the input */
			return 0;
		}
		s->bitbuf |= (unsigned int)s->in[s->pos++] << s->bitcnt;
		s->bitcnt += 8;
	}
	v = s->bitbuf & ((1U << n) - 1);
	s->bitbuf >>= n;
	s->bitcnt -= n;
	return v;
}

/* Canonical code from code lengths; an over-full code is an error. */
static int huff_build(struct huff *h, const unsigned char *len, int n)
{
	unsigned short offs[MAX_BITS + 1];
	int i, left = 1;

	memset(h->count, 0, sizeof(h->count));
	for (i = 0; i < n; i++)
		h->count[len[i]]++;
	for (i = 1; i <= MAX_BITS; i++) {
		left = (left << 1) - h->count[i];
		if (left < 0)
			return ERR_FORMAT;
	}
	offs[1] = 0;
	for (i = 1; i < MAX_BITS; i++)
		offs[i + 1] = offs[i] + h->count[i];
	for (i = 0; i < n; i++)
		if (len[i])
			h->sym[offs[len[i]]++] = i;
	return 0;
}

static int huff_decode(struct inflate *s, const struct huff *h)
{
	int code = 0, first = 0, index = 0, len;

	for (len = 1; len <= MAX_BITS; len++) {
		code |= bits(s, 1);
		if (s->err)
			return -1;
		if (code - first < h->count[len])
			return h->sym[index + code - first];
		index += h->count[len];
		first = (first + h->count[len]) << 1;
		code <<= 1;
	}
	s->err = ERR_FORMAT;	/* a code the tables do not have */
	return -1;
}

static int put_byte(struct inflate *s, unsigned char c)
{
	unsigned char *p;
	size_t cap;

	if (s->outlen == s->outcap) {
		if (s->outcap >= s->maxout)
			return s->err = ERR_TOOBIG;
		cap = s->outcap ? s->outcap * 2 : 65536;
		if (cap > s->maxout)
			cap = s->maxout;
		p = realloc(s->out, cap);
		if (!p)
			return s->err = ERR_NOMEM;
		s->out = p;
		s->outcap = cap;
	}
	s->out[s->outlen++] = c;
	return 0;
}

static int stored_block(struct inflate *s)
{
	unsigned int len, nlen;

	bits(s, s->bitcnt & 7);		/* to the byte boundary */
	len = bits(s, 16);
	nlen = bits(s, 16);
	if (s->err || (len ^ 0xffff) != nlen)
		return ERR_FORMAT;
	while (len--) {
		if (s->pos == s->inlen)
			return ERR_FORMAT;
		if (put_byte(s, s->in[s->pos++]))
			return s->err;
	}
	return 0;
}

static const unsigned short len_base[29] = {
	3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
	35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const unsigned char len_extra[29] = {
	0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
	3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const unsigned short dist_base[MAX_DIST] = {
	1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
	257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145,
	8193, 12289, 16385, 24577 };
static const unsigned char dist_extra[MAX_DIST] = {
	0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
	7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

/* Literals and back-references until the end-of-block symbol. */
static int codes(struct inflate *s, const struct huff *lit,
		 const struct huff *dist)
{
	int sym;
	size_t len, d;

	for (;;) {
		sym = huff_decode(s, lit);
		if (sym < 0)
			return s->err;
		if (sym < 256) {
			if (put_byte(s, sym))
				return s->err;
			continue;
		}
		if (sym == 256)
			return 0;
		sym -= 257;
		if (sym >= 29)
			return ERR_FORMAT;
		len = len_base[sym] + bits(s, len_extra[sym]);
		sym = huff_decode(s, dist);
		if (sym < 0 || sym >= MAX_DIST)
			return ERR_FORMAT;
		d = dist_base[sym] + bits(s, dist_extra[sym]);
		if (s->err || d > s->outlen)
			return ERR_FORMAT;	/* before the start */
		while (len--)
			if (put_byte(s, s->out[s->outlen - d]))
				return s->err;
	}
}

static int fixed_block(struct inflate *s)
{
	unsigned char len[MAX_LITLEN + MAX_DIST];
	struct huff lit, dist;
	int i;

	for (i = 0; i < MAX_LITLEN; i++)
		len[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
	for (i = 0; i < MAX_DIST; i++)
		len[MAX_LITLEN + i] = 5;
	huff_build(&lit, len, MAX_LITLEN);
	huff_build(&dist, len + MAX_LITLEN, MAX_DIST);
	return codes(s, &lit, &dist);
}

/* Reads hlit + hdist code lengths coded with the code-length code. */
static int read_lengths(struct inflate *s, const struct huff *clh,
			unsigned char *len, int total)
{
	int n = 0, sym, rep;
	unsigned char val;

	while (n < total) {
		sym = huff_decode(s, clh);
		if (sym < 0)
			return ERR_FORMAT;
		if (sym < 16) {
			len[n++] = sym;
			continue;
		}
		val = 0;
		if (sym == 16) {
			if (!n)
				return ERR_FORMAT;	/* nothing to repeat */
			val = len[n - 1];
			rep = 3 + bits(s, 2);
		} else if (sym == 17) {
			rep = 3 + bits(s, 3);
		} else {
			rep = 11 + bits(s, 7);
		}
		if (s->err || n + rep > total)
			return ERR_FORMAT;
		while (rep--)
			len[n++] = val;
	}
	return 0;
}

static int dynamic_block(struct inflate *s)
{
	static const unsigned char order[19] = {
		16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
	unsigned char len[MAX_LITLEN + MAX_DIST];
	struct huff lit, dist;
	int hlit, hdist, hclen, i;

	hlit = bits(s, 5) + 257;
	hdist = bits(s, 5) + 1;
	hclen = bits(s, 4) + 4;
	if (s->err || hlit > 286 || hdist > MAX_DIST)
		return ERR_FORMAT;
	memset(len, 0, 19);
	for (i = 0; i < hclen; i++)
		len[order[i]] = bits(s, 3);
	if (s->err || huff_build(&lit, len, 19))
		return ERR_FORMAT;
	if (read_lengths(s, &lit, len, hlit + hdist))
		return ERR_FORMAT;
	if (!len[256])
		return ERR_FORMAT;	/* no way to end the block */
	if (huff_build(&lit, len, hlit) ||
	    huff_build(&dist, len + hlit, hdist))
		return ERR_FORMAT;
	return codes(s, &lit, &dist);
}

static int inflate_blocks(struct inflate *s)
{
	int last, type, rc;

	do {
		last = bits(s, 1);
		type = bits(s, 2);
		if (s->err)
			return s->err;
		switch (type) {
		case 0:
			rc = stored_block(s);
			break;
		case 1:
			rc = fixed_block(s);
			break;
		case 2:
			rc = dynamic_block(s);
			break;
		default:
			rc = ERR_FORMAT;
		}
		if (rc)
			return rc;
	} while (!last);
	return 0;
}

static unsigned int crc32(const unsigned char *p, size_t n)
{
	static unsigned int table[256];
	unsigned int c;
	size_t i;
	int k;

	if (!table[1]) {
		for (i = 0; i < 256; i++) {
			c = i;
			for (k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320U ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	c = 0xffffffffU;
	for (i = 0; i < n; i++)
		c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffU;
}

static unsigned int le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (unsigned int)p[3] << 24;
}

/* Skips the gzip header; returns the offset of the DEFLATE data or -1. */
static long gzip_header(const unsigned char *in, size_t len)
{
	size_t pos = 10;
	unsigned char flg;

	if (len < 18 || in[0] != 0x1f || in[1] != 0x8b || in[2] != 8)
		return -1;
	flg = in[3];
	if (flg & 0xe0)
		return -1;		/* reserved flags */
	if (flg & 4) {			/* FEXTRA */
		pos += 2 + (in[10] | in[11] << 8);
		if (pos > len)
			return -1;
	}
	for (int f = 8; f <= 16; f <<= 1) {	/* FNAME, FCOMMENT */
		if (!(flg & f))
			continue;
		while (pos < len && in[pos])
			pos++;
		if (++pos > len)
			return -1;
	}
	if (flg & 2)			/* FHCRC */
		pos += 2;
	return pos + 8 <= len ? (long)pos : -1;
}

int sac_gunzip(const unsigned char *in, size_t inlen, unsigned char **out,
	       size_t *outlen, size_t maxout)
{
	struct inflate s = { .in = in, .inlen = inlen, .maxout = maxout };
	long start = gzip_header(in, inlen);
	int rc;

	*out = NULL;
	*outlen = 0;
	if (start < 0)
		return ERR_FORMAT;
	s.pos = start;
	rc = inflate_blocks(&s);
	if (rc)
		goto fail;
	bits(&s, s.bitcnt & 7);
	rc = ERR_FORMAT;
	if (s.bitcnt || s.pos + 8 > inlen)
		goto fail;
	if (le32(in + s.pos) != crc32(s.out, s.outlen) ||
	    le32(in + s.pos + 4) != (unsigned int)s.outlen)
		goto fail;
	*out = s.out;
	*outlen = s.outlen;
	return 0;
fail:
	free(s.out);
	return rc;
}
