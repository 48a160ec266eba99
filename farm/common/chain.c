// SPDX-License-Identifier: GPL-2.0
/* The agent's line chain: see chain.h and farm/PROTOCOL.md. */
#include <stdio.h>
#include <string.h>

#include "chain.h"

void sac_chain_init(struct sac_chain *c, const uint8_t *key,
		    const char *nonce)
{
	struct hmac_sha256 h;

	memcpy(c->key, key, SAC_KEY_LEN);
	/* The seed binds the chain to this job's nonce as well as its key. */
	hmac_sha256_init(&h, c->key, SAC_KEY_LEN);
	hmac_sha256_update(&h, nonce, strlen(nonce));
	hmac_sha256_final(&h, c->mac);
	c->seq = 0;
}

void sac_chain_wipe(struct sac_chain *c)
{
	explicit_bzero(c, sizeof(*c));
}

/* An HMAC under the chain's key, fed the last line's mac already. */
static void mac_begin(const struct sac_chain *c, struct hmac_sha256 *h)
{
	hmac_sha256_init(h, c->key, SAC_KEY_LEN);
	hmac_sha256_update(h, c->mac, sizeof(c->mac));
}

static void chain_next(struct sac_chain *c, const uint8_t *mac)
{
	memcpy(c->mac, mac, sizeof(c->mac));
	c->seq++;
}

size_t sac_chain_line(struct sac_chain *c, char *out, size_t cap,
		      const char *nonce, const char *kind, const char *json)
{
	char hex[SAC_MAC_HEX + 1];
	uint8_t mac[SHA256_LEN];
	struct hmac_sha256 h;
	int head, rest;

	head = snprintf(out, cap, "SAC %s %s %lu", nonce, kind, c->seq);
	if (head < 0 || (size_t)head >= cap)
		return 0;
	/* what the mac covers: the line without " <mac>" */
	mac_begin(c, &h);
	hmac_sha256_update(&h, out, head);
	hmac_sha256_update(&h, " ", 1);
	hmac_sha256_update(&h, json, strlen(json));
	hmac_sha256_final(&h, mac);
	sac_hex_encode(mac, sizeof(mac), hex);
	rest = snprintf(out + head, cap - head, " %s %s", hex, json);
	if (rest < 0 || (size_t)rest >= cap - head)
		return 0;
	chain_next(c, mac);
	return head + rest;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int hex_value(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

const char *sac_chain_fields(const char *p, const char *end,
			     unsigned long *seq, const char **mac)
{
	unsigned long v = 0;
	int i;

	for (i = 0; p + i < end && is_digit(p[i]); i++) {
		if (i == SAC_SEQ_DIGITS)
			return NULL;
		v = v * 10 + (unsigned long)(p[i] - '0');
	}
	/* one spelling per number: no leading zero */
	if (!i || (p[0] == '0' && i > 1) || p + i >= end || p[i] != ' ')
		return NULL;
	p += i + 1;
	if (end - p < SAC_MAC_HEX + 1 || p[SAC_MAC_HEX] != ' ')
		return NULL;
	for (i = 0; i < SAC_MAC_HEX; i++)
		if (hex_value(p[i]) < 0)
			return NULL;
	*seq = v;
	*mac = p;
	return p + SAC_MAC_HEX + 1;
}

/* Compares every byte, so the time taken says nothing of where they differ. */
static bool same_mac(const uint8_t *a, const uint8_t *b)
{
	uint8_t diff = 0;
	size_t i;

	for (i = 0; i < SHA256_LEN; i++)
		diff |= a[i] ^ b[i];
	return !diff;
}

enum sac_chain_verdict sac_chain_take(struct sac_chain *c, const char *line,
				      size_t n, unsigned long seq,
				      const char *mac)
{
	const char *tail = mac + SAC_MAC_HEX;
	uint8_t want[SHA256_LEN], got[SHA256_LEN];
	struct hmac_sha256 h;

	if (seq > c->seq)
		return SAC_CHAIN_GAP;
	if (seq < c->seq)
		return SAC_CHAIN_BACK;
	if (sac_hex_decode(mac, got, sizeof(got)))
		return SAC_CHAIN_BAD_MAC;
	/* the line up to the space before the mac, then from after it */
	mac_begin(c, &h);
	hmac_sha256_update(&h, line, mac - 1 - line);
	hmac_sha256_update(&h, tail, line + n - tail);
	hmac_sha256_final(&h, want);
	if (!same_mac(want, got))
		return SAC_CHAIN_BAD_MAC;
	chain_next(c, got);
	return SAC_CHAIN_OK;
}

void sac_hex_encode(const uint8_t *b, size_t n, char *out)
{
	static const char digit[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digit[b[i] >> 4];
		out[2 * i + 1] = digit[b[i] & 15];
	}
	out[2 * n] = '\0';
}

int sac_hex_decode(const char *s, uint8_t *out, size_t n)
{
	int hi, lo;
	size_t i;

	for (i = 0; i < n; i++) {
		hi = hex_value(s[2 * i]);
		lo = hi < 0 ? -1 : hex_value(s[2 * i + 1]);
		if (lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int sac_key_parse(const char *text, size_t len, uint8_t *key)
{
	if (len == SAC_KEY_HEX + 1 && text[SAC_KEY_HEX] == '\n')
		len--;
	if (len != SAC_KEY_HEX)
		return -1;
	return sac_hex_decode(text, key, SAC_KEY_LEN);
}
