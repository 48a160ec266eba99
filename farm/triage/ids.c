// SPDX-License-Identifier: GPL-2.0
/*
 * ids: the vendor:device table by PCI address, which every source of
 * IDs fills and the device report reads, and the small text helpers the
 * readers share (four hex digits, printable text, a farm agent line).
 */
#include <string.h>

#include "chain.h"
#include "triage.h"

static const char *const id_sources[] = {
	[TRI_ID_NONE] = "none",
	[TRI_ID_SERIES] = "the kernel's SAC fallback line",
	[TRI_ID_KERNEL] = "the kernel's PCI enumeration",
	[TRI_ID_IDENTITY] = "the farm agent's identity line",
	[TRI_ID_LSPCI] = "lspci",
};

const char *tri_id_source_name(enum tri_id_source source)
{
	return id_sources[source];
}

void tri_clean_text(char *dst, size_t size, const char *src, size_t n)
{
	size_t i, o = 0;

	for (i = 0; i < n && src[i] && o + 1 < size; i++) {
		unsigned char c = src[i];

		dst[o++] = c == '\t' ? ' ' : (c >= 0x20 && c < 0x7f) ? c : '?';
	}
	while (o && dst[o - 1] == ' ')
		o--;
	dst[o] = '\0';
}

/* Exactly four hex digits. */
bool tri_hex4(const char *s, uint16_t *v)
{
	unsigned int x = 0, i;
	int d;

	for (i = 0; i < 4; i++) {
		d = flt_hex_digit(s[i]);
		if (d < 0)
			return false;
		x = x << 4 | (unsigned int)d;
	}
	*v = (uint16_t)x;
	return true;
}

static unsigned int id_slot(const struct triage *t, uint32_t bdf)
{
	unsigned int n = 2 * TRI_IDS, h = (bdf * 2654435761u) % n;

	while (t->id_hash[h] && t->ids[t->id_hash[h] - 1].bdf != bdf)
		h = (h + 1) % n;
	return h;
}

const struct tri_id *tri_find_id(const struct triage *t, uint32_t bdf)
{
	unsigned int h = id_slot(t, bdf);

	return t->id_hash[h] ? &t->ids[t->id_hash[h] - 1] : NULL;
}

void tri_add_id(struct triage *t, uint32_t bdf, uint16_t vendor,
		uint16_t device, enum tri_id_source source, const char *name)
{
	unsigned int h = id_slot(t, bdf);
	struct tri_id *id;

	if (!t->id_hash[h]) {
		if (t->n_ids == TRI_IDS)
			return;
		id = &t->ids[t->n_ids++];
		memset(id, 0, sizeof(*id));
		id->bdf = bdf;
		t->id_hash[h] = (uint16_t)t->n_ids;
	}
	id = &t->ids[t->id_hash[h] - 1];
	if (source < id->source)
		return;
	id->vendor = vendor;
	id->device = device;
	id->source = source;
	if (name)
		tri_clean_text(id->name, sizeof(id->name), name, strlen(name));
}

/*
 * "SAC <16 hex> <kind> <seq> <mac> {...}" (farm/PROTOCOL.md), or an older
 * agent's "SAC <16 hex> <kind> {...}": the JSON object of a farm agent
 * line of that kind, its nonce into @nonce (TRI_NONCE + 1 bytes); NULL for
 * any other line, and for one longer than an agent writes. The mac is not
 * checked: a user's log comes without the job's key, so a line is only
 * as good as the log it is in.
 */
const char *tri_agent_line(const char *line, const char *kind, char *nonce)
{
	const char *p = strstr(line, "SAC "), *mac, *json;
	size_t n = strlen(kind);
	unsigned long seq;
	uint16_t unused;
	unsigned int i;

	if (!p || strlen(p) >= TRI_AGENT_MAX)
		return NULL;
	for (i = 0; i < TRI_NONCE; i += 4)
		if (!tri_hex4(p + 4 + i, &unused))
			return NULL;
	p += 4 + TRI_NONCE;
	if (p[0] != ' ' || strncmp(p + 1, kind, n) || p[1 + n] != ' ')
		return NULL;
	memcpy(nonce, p - TRI_NONCE, TRI_NONCE);
	nonce[TRI_NONCE] = '\0';
	json = p + 2 + n;
	json = sac_chain_fields(json, json + strlen(json), &seq, &mac) ?: json;
	return *json == '{' ? json : NULL;
}
