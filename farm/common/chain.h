/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's line chain (farm/PROTOCOL.md, "Integrity"). Every agent
 * line is
 *
 *	SAC <nonce> <kind> <seq> <mac> <json>
 *
 * where seq counts the job's agent lines from 0 and mac is 64 hex digits
 * of HMAC-SHA256(key, previous mac || the line without " <mac>"); before
 * the first line the previous mac is HMAC-SHA256(key, nonce). The key is
 * the job's secret: the runner hands it to the agent in the initramfs,
 * never on the command line or the console. The agent writes lines with
 * sac_chain_line(), the classifier checks them with sac_chain_take().
 *
 * Plain C with no allocation and no I/O, built into the host tools and
 * the static guest agent alike.
 */
#ifndef FARM_COMMON_CHAIN_H
#define FARM_COMMON_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sha256.h"

#define SAC_KEY_LEN	32			/* bytes of a job's key */
#define SAC_KEY_HEX	(2 * SAC_KEY_LEN)	/* its hex digits in a key file */
#define SAC_MAC_HEX	(2 * SHA256_LEN)	/* a line's mac on the console */
#define SAC_SEQ_DIGITS	9			/* a seq has at most this many */
/* Where the agent finds its key: the runner's cpio archive puts it there. */
#define SAC_KEY_PATH	"/sac-key"

struct sac_chain {
	uint8_t key[SAC_KEY_LEN];
	uint8_t mac[SHA256_LEN];	/* the last line's, or the seed */
	unsigned long seq;		/* the next line's */
};

enum sac_chain_verdict {
	SAC_CHAIN_OK,		/* the next line: taken */
	SAC_CHAIN_GAP,		/* its seq is ahead: a line is missing */
	SAC_CHAIN_BACK,		/* its seq is behind: repeated or reordered */
	SAC_CHAIN_BAD_MAC,	/* the key did not write it after the last */
};

void sac_chain_init(struct sac_chain *c, const uint8_t *key,
		    const char *nonce);
void sac_chain_wipe(struct sac_chain *c);

/*
 * The next line, "SAC <nonce> <kind> <seq> <mac> <json>" without a line
 * end, into @out (@cap bytes, NUL-terminated); the chain moves on.
 * Returns its length, or 0 when it does not fit (the chain stays).
 */
size_t sac_chain_line(struct sac_chain *c, char *out, size_t cap,
		      const char *nonce, const char *kind, const char *json);

/*
 * "<seq> <mac> " at @p (up to @end): the seq, and where the mac's hex
 * starts. Returns what follows (the line's JSON), or NULL.
 */
const char *sac_chain_fields(const char *p, const char *end,
			     unsigned long *seq, const char **mac);

/*
 * Line @line (@n bytes, no line end) with @seq and the mac at @mac, both
 * as sac_chain_fields() found them: is it the chain's next line? Only
 * SAC_CHAIN_OK takes it and moves the chain on.
 */
enum sac_chain_verdict sac_chain_take(struct sac_chain *c, const char *line,
				      size_t n, unsigned long seq,
				      const char *mac);

/* @n bytes as 2n lower-case hex digits and a NUL. */
void sac_hex_encode(const uint8_t *b, size_t n, char *out);
/* 2n lower-case hex digits at @s into @n bytes: 0, or -1. */
int sac_hex_decode(const char *s, uint8_t *out, size_t n);
/* A key file's text, SAC_KEY_HEX digits and an optional newline: 0 or -1. */
int sac_key_parse(const char *text, size_t len, uint8_t *key);

#endif /* FARM_COMMON_CHAIN_H */
