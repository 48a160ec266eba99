// SPDX-License-Identifier: GPL-2.0
/*
 * result: the farm agent's "result" line as evidence. An IOMMU that does
 * not report a device's stray DMA (QEMU 7.2's AMD IOMMU model, with the
 * edu device) leaves no fault line: a device that decodes fewer address
 * bits than its driver claims only corrupts data. The edu workloads'
 * result (farm/guest/wl-edu.c) still says where its DMA went:
 *
 *   SAC <nonce> result {"workload":"edu-lying","status":"fail",
 *     "reason":"data-corruption: ...","metrics":{...},"details":{
 *     "dev0":"0000:00:03.0 ws=64 iova=0x..-0x.. above_4g=64 coh_tx=0x.. coh_rx=0x..",
 *     "dev0.xfer0":"stream size=64 dev_off=0x0 src=0x.. dst=0x.. wrong ..."}}
 *
 * Such a result counts for every device its details name, with the DMA
 * addresses above 4 GiB they list. Anything of another shape is ignored,
 * and so is a result under another nonce than the identity's (stale or
 * forged, as the classifier judges it).
 */
#include <string.h>

#include "triage.h"

#define FOUR_GIB	(1ULL << 32)
#define RESULT_DEVS	8	/* "devN" entries read from one result */
#define DEV_DIGITS	2	/* N of "devN" below 100 */
#define COUNT_DIGITS	9	/* "above_4g=N", "ws=N" below 10^9 */
#define HEX_DIGITS	16

struct result {
	const char *workload, *reason;
	unsigned long no;
};

struct result_dev {
	unsigned int n;			/* N of "devN" */
	struct tri_device *d;
};

/* The value of "@key" (ending in '=') in the space-separated @s, or NULL. */
static const char *field(const char *s, const char *key)
{
	size_t n = strlen(key);
	const char *p = s;

	while ((p = strstr(p, key))) {
		if (p == s || p[-1] == ' ')
			return p + n;
		p += n;
	}
	return NULL;
}

static bool field_end(const char *p)
{
	return !*p || *p == ' ';
}

/* A decimal count that ends its field. */
static bool count_at(const char *p, unsigned long *v)
{
	unsigned long x = 0;
	unsigned int i;

	if (!p)
		return false;
	for (i = 0; p[i] >= '0' && p[i] <= '9'; i++) {
		if (i == COUNT_DIGITS)
			return false;
		x = x * 10 + (unsigned long)(p[i] - '0');
	}
	if (!i || !field_end(p + i))
		return false;
	*v = x;
	return true;
}

/* "0x" and 1 to 16 hex digits: the end of them, or NULL. */
static const char *hex_at(const char *p, uint64_t *v)
{
	uint64_t x = 0;
	unsigned int i;
	int h;

	if (!p || p[0] != '0' || p[1] != 'x')
		return NULL;
	p += 2;
	for (i = 0; (h = flt_hex_digit(p[i])) >= 0; i++) {
		if (i == HEX_DIGITS)
			return NULL;
		x = x << 4 | (uint64_t)h;
	}
	if (!i)
		return NULL;
	*v = x;
	return p + i;
}

static void add_addr(struct tri_silent *s, uint64_t addr)
{
	unsigned int i;

	if (addr < FOUR_GIB)
		return;
	for (i = 0; i < s->n_addrs; i++)
		if (s->addrs[i] == addr)
			return;
	if (s->n_addrs < TRI_ADDRS)
		s->addrs[s->n_addrs++] = addr;
	else
		s->unlisted++;
}

/* "key=0x..": the address, if it is one above 4 GiB. */
static void addr_field(struct tri_silent *s, const char *v, const char *key)
{
	const char *p;
	uint64_t a;

	p = hex_at(field(v, key), &a);
	if (p && field_end(p))
		add_addr(s, a);
}

/* "iova=0xLO-0xHI": the working set's range. */
static void range_field(struct tri_silent *s, const char *v)
{
	const char *p;
	uint64_t lo, hi;

	p = hex_at(field(v, "iova="), &lo);
	if (!p || *p != '-')
		return;
	p = hex_at(p + 1, &hi);
	if (!p || !field_end(p))
		return;
	add_addr(s, lo);
	add_addr(s, hi);
}

static void count_result(struct tri_silent *s, const struct result *r,
			 unsigned long above, unsigned long ws)
{
	if (!s->results++) {
		s->first_line = r->no;
		tri_clean_text(s->workload, sizeof(s->workload), r->workload,
			       strlen(r->workload));
		tri_clean_text(s->reason, sizeof(s->reason), r->reason,
			       strlen(r->reason));
	}
	if (r->no > s->last_line)
		s->last_line = r->no;
	if (above >= s->above_4g) {
		s->above_4g = above;
		s->ws = ws;
	}
}

/* "devN": "<BDF> ws=N iova=LO-HI above_4g=N coh_tx=A coh_rx=A" */
static struct tri_device *result_device(struct triage *t, const char *v,
					const struct result *r)
{
	unsigned long above, ws;
	struct tri_device *d;
	const char *p;
	uint32_t bdf;

	p = flt_parse_bdf(v, &bdf);
	if (!p || *p != ' ' || !count_at(field(p, "above_4g="), &above))
		return NULL;
	if (!count_at(field(p, "ws="), &ws))
		ws = 0;
	d = tri_device_at(t, bdf);
	if (!d)
		return NULL;
	count_result(&d->silent, r, above, ws);
	range_field(&d->silent, p);
	addr_field(&d->silent, p, "coh_tx=");
	addr_field(&d->silent, p, "coh_rx=");
	return d;
}

/* Digits, at most @max of them, up to the end of @s: their end, or NULL. */
static const char *digits(const char *s, unsigned int max, unsigned int *v)
{
	unsigned int i, x = 0;

	if (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
		return NULL;	/* no leading zero: one name per device */
	for (i = 0; s[i] >= '0' && s[i] <= '9'; i++) {
		if (i == max)
			return NULL;
		x = x * 10 + (unsigned int)(s[i] - '0');
	}
	if (!i)
		return NULL;
	*v = x;
	return s + i;
}

/* "devN" (@xfer false) or "devN.xferM" (true): N, or -1 for another key. */
static int dev_key(const char *key, bool *xfer)
{
	const char *p;
	unsigned int n, m;

	if (strncmp(key, "dev", 3))
		return -1;
	p = digits(key + 3, DEV_DIGITS, &n);
	if (!p)
		return -1;
	*xfer = *p;
	if (!*p)
		return (int)n;
	if (strncmp(p, ".xfer", 5))
		return -1;
	p = digits(p + 5, COUNT_DIGITS, &m);
	return p && !*p ? (int)n : -1;
}

static struct tri_device *dev_of(const struct result_dev *devs,
				 unsigned int n_devs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n_devs; i++)
		if (devs[i].n == n)
			return devs[i].d;
	return NULL;
}

/* The devices first, then their transfers, in whatever order they came. */
static void read_details(struct triage *t, json_t *details,
			 const struct result *r)
{
	struct result_dev devs[RESULT_DEVS];
	unsigned int n_devs = 0;
	struct tri_device *d;
	const char *key, *v;
	json_t *val;
	bool xfer;
	int n;

	json_object_foreach(details, key, val) {
		n = dev_key(key, &xfer);
		v = json_string_value(val);
		if (n < 0 || xfer || !v || n_devs == RESULT_DEVS)
			continue;
		devs[n_devs].n = (unsigned int)n;
		devs[n_devs].d = result_device(t, v, r);
		if (devs[n_devs].d)
			n_devs++;
	}
	json_object_foreach(details, key, val) {
		n = dev_key(key, &xfer);
		v = json_string_value(val);
		d = n >= 0 && xfer && v ? dev_of(devs, n_devs, (unsigned int)n) : NULL;
		if (!d)
			continue;
		addr_field(&d->silent, v, "src=");
		addr_field(&d->silent, v, "dst=");
	}
}

static const char *string_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A failed workload whose reason is data corruption, with details. */
static json_t *corrupted_details(json_t *o, struct result *r)
{
	const char *status = string_of(o, "status");
	json_t *details = json_object_get(o, "details");

	r->workload = string_of(o, "workload");
	r->reason = string_of(o, "reason");
	if (!status || strcmp(status, "fail") || !r->workload || !r->reason ||
	    strncmp(r->reason, "data-corruption", 15) ||
	    !json_is_object(details))
		return NULL;
	return details;
}

void tri_result_line(struct triage *t, const char *line, unsigned long no)
{
	char nonce[TRI_NONCE + 1];
	const char *p = tri_agent_line(line, "result", nonce);
	struct result r = { .no = no };
	json_t *o, *details;

	if (!p || (t->ctx.nonce[0] && strcmp(nonce, t->ctx.nonce)))
		return;
	o = json_loads(p, JSON_REJECT_DUPLICATES, NULL);
	details = json_is_object(o) ? corrupted_details(o, &r) : NULL;
	if (details)
		read_details(t, details, &r);
	json_decref(o);
}
