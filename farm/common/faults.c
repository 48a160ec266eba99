// SPDX-License-Identifier: GPL-2.0
/*
 * faults: the one parser for the kernel's IOMMU log lines (faults.h).
 *
 * Each family has one function that finds its anchor in the line and
 * reads the fields after it; flt_parse_line() tries them in turn. The
 * reader below joins the lines of multi-line records into events.
 */
#include <string.h>
#include <stdio.h>

#include "faults.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FLT_STALE 8	/* lines the next part of a record may lag behind */

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

/* @p past the literal @s it starts with, or NULL. */
static const char *lit(const char *p, const char *s)
{
	size_t n = strlen(s);

	return p && !strncmp(p, s, n) ? p + n : NULL;
}

int flt_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* 1..@max hex digits after an optional 0x; the end of them, or NULL. */
static const char *scan_hex(const char *p, uint64_t *v, int max)
{
	uint64_t x = 0;
	int n = 0, d;

	if (!p)
		return NULL;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && flt_hex_digit(p[2]) >= 0)
		p += 2;
	for (; (d = flt_hex_digit(*p)) >= 0; p++) {
		if (++n > max)
			return NULL;
		x = x << 4 | (uint64_t)d;
	}
	if (!n)
		return NULL;
	*v = x;
	return p;
}

/* 1..@max decimal digits; the end of them, or NULL. */
static const char *scan_dec(const char *p, uint64_t *v, int max)
{
	uint64_t x = 0;
	int n = 0;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (++n > max)
			return NULL;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	if (!n)
		return NULL;
	*v = x;
	return p;
}

/* The value after "@key" where the key starts a field: "[device=". */
static const char *field(const char *p, const char *key)
{
	const char *start = p;
	size_t n = strlen(key);

	while ((p = strstr(p, key))) {
		if (p == start || p[-1] == ' ' || p[-1] == '[' || p[-1] == ',')
			return p + n;
		p += n;
	}
	return NULL;
}

static void copy_word(char *dst, size_t size, const char *p, const char *stop)
{
	size_t n = strcspn(p, stop);

	if (n >= size)
		n = size - 1;
	memcpy(dst, p, n);
	dst[n] = '\0';
}

const char *flt_parse_bdf(const char *s, uint32_t *dev)
{
	uint64_t f[3], fn;
	const char *p = s;
	int n = 0;

	for (;;) {
		p = scan_hex(p, &f[n], n ? 4 : 8);
		if (!p)
			return NULL;
		if (*p != ':' || ++n == 3)
			break;
		p++;
	}
	if (*p != ':')
		n++;
	if (n < 2 || *p != '.')
		return NULL;
	p = scan_hex(p + 1, &fn, 1);
	if (!p || fn > 7)
		return NULL;
	if ((n == 3 && f[0] > 0xffff) || f[n - 2] > 0xff || f[n - 1] > 0x1f)
		return NULL;
	*dev = (uint32_t)((n == 3 ? f[0] : 0) << 16 | f[n - 2] << 8 |
			  f[n - 1] << 3 | fn);
	return p;
}

char *flt_format_bdf(uint32_t dev, char *buf)
{
	snprintf(buf, FLT_BDF_LEN, "%04x:%02x:%02x.%x", dev >> 16,
		 (dev >> 8) & 0xff, (dev >> 3) & 0x1f, dev & 7);
	return buf;
}

/* The device name just before @at, as in "ahci 0000:28:00.0: @at". */
static bool bdf_before(const char *line, const char *at, uint32_t *dev)
{
	const char *end, *s;

	if (at - line < 3 || at[-1] != ' ' || at[-2] != ':')
		return false;
	end = at - 2;
	for (s = end; s > line && s[-1] != ' ' && s[-1] != '\t' &&
	     s[-1] != ']'; s--)
		;
	return flt_parse_bdf(s, dev) == end;
}

static void set_dev_from_id(struct flt_line *o, uint32_t id)
{
	o->id = id;
	o->has_id = true;
	if (id > 0xffff)
		return;
	o->dev = id;
	o->has_dev = true;
	o->dev_from_id = true;
}

/* ---- Intel VT-d ---- */

/* Reasons 4-7 and 0xc are about the page walk: an address was not mapped. */
static bool dmar_page_fault(const struct flt_line *o)
{
	return !o->has_code || (o->code >= 4 && o->code <= 7) || o->code == 0xc;
}

static void dmar_reason(const char *p, struct flt_line *o)
{
	uint64_t v;

	p = p ? strstr(p, "[fault reason ") : NULL;
	if (!p || !scan_hex(p + 14, &v, 2))
		return;
	o->code = (unsigned int)v;
	o->has_code = true;
}

/* "Request device [BDF]": the end of it, NULL when it is not there. */
static const char *dmar_device(const char *p, struct flt_line *o)
{
	p = strchr(p, ']');
	p = p ? lit(skip_blank(p + 1), "Request device [") : NULL;
	p = p ? flt_parse_bdf(p, &o->dev) : NULL;
	if (!p || *p != ']')
		return NULL;
	o->has_dev = true;
	return p + 1;
}

/* "[DMA Read NO_PASID] Request device [00:02.0] fault addr 0x.. [fault reason 0x06] .." */
static enum flt_kind dmar_dma(const char *p, struct flt_line *o)
{
	const char *q;

	strcpy(o->type, p[5] == 'R' ? "DMA Read" : "DMA Write");
	q = dmar_device(p, o);
	q = q ? strstr(q, "fault addr ") : NULL;
	if (q && scan_hex(skip_blank(q + 11), &o->addr, 16))
		o->has_addr = true;
	dmar_reason(q, o);
	o->page_fault = dmar_page_fault(o);
	return FLT_DMAR_FAULT;
}

static enum flt_kind parse_dmar(const char *line, struct flt_line *o)
{
	const char *p = strstr(line, "DMAR"), *q;

	if (!p)
		return FLT_NONE;
	o->family = FLT_FAM_DMAR;
	p = strstr(p, "DMAR-IR:");
	if (p && strstr(p + 8, "fault")) {
		strcpy(o->type, "INTR-REMAP");
		return FLT_DMAR_INTR;
	}
	p = strstr(line, "DMAR:");
	if (!p)
		return FLT_NONE;
	p = skip_blank(p + 5);
	q = lit(p, "DRHD: handling fault status reg ");
	if (q) {
		if (scan_hex(q, &o->value, 8))
			o->lost = o->value & 1;	/* PFO: records were dropped */
		return FLT_DMAR_STATUS;
	}
	if (lit(p, "[INTR-REMAP]")) {
		strcpy(o->type, "INTR-REMAP");
		dmar_reason(dmar_device(p, o), o);
		return FLT_DMAR_INTR;
	}
	if (lit(p, "[DMA Read") || lit(p, "[DMA Write"))
		return dmar_dma(p, o);
	if (lit(p, "[fault reason ")) {
		dmar_reason(p, o);
		return o->has_code ? FLT_DMAR_REASON : FLT_NONE;
	}
	return FLT_NONE;
}

/* ---- AMD-Vi ---- */

static void amd_fields(const char *p, struct flt_line *o)
{
	const char *q;

	q = field(p, "device=");
	if (q && flt_parse_bdf(q, &o->dev))
		o->has_dev = true;
	q = field(p, "address=");
	if (q && scan_hex(q, &o->addr, 16))
		o->has_addr = true;
	q = field(p, "flags=");
	if (q)
		scan_hex(q, &o->value, 8);
	o->page_fault = !strcmp(o->type, "IO_PAGE_FAULT");
}

/* The second half of an event split over two lines. */
static enum flt_kind amd_tail(const char *line, struct flt_line *o)
{
	const char *t = strstr(line, "IO_PAGE_FAULT ");

	if (!t || (!field(t, "device=") && !field(t, "address=")))
		return FLT_NONE;
	o->family = FLT_FAM_AMD;
	strcpy(o->type, "IO_PAGE_FAULT");
	amd_fields(t, o);
	return FLT_AMD_TAIL;
}

static enum flt_kind parse_amd(const char *line, struct flt_line *o)
{
	const char *e = strstr(line, "Event logged ["), *v, *body;

	if (!e)
		return amd_tail(line, o);
	v = strstr(line, "AMD-Vi:");
	body = skip_blank(e + 14);
	if (!v && !lit(body, "IO_PAGE_FAULT"))
		return FLT_NONE;
	o->family = FLT_FAM_AMD;
	copy_word(o->type, sizeof(o->type), body, " ]\t");
	amd_fields(body, o);
	/* 6.1 names the faulting device before the message */
	if (!o->has_dev && bdf_before(line, v && v < e ? v : e, &o->dev))
		o->has_dev = true;
	return FLT_AMD_EVENT;
}

static enum flt_kind parse_amd_overflow(const char *line, struct flt_line *o)
{
	if (!strstr(line, "IOMMU event log overflow"))
		return FLT_NONE;
	o->family = FLT_FAM_AMD;
	o->lost = true;
	return FLT_OVERFLOW;
}

/* ---- Arm SMMUv3 ---- */

static const char *const smmuv3_events[] = {
	[0x01] = "F_UUT",		[0x02] = "C_BAD_STREAMID",
	[0x03] = "F_STE_FETCH",		[0x04] = "C_BAD_STE",
	[0x05] = "F_BAD_ATS_TREQ",	[0x06] = "F_STREAM_DISABLED",
	[0x07] = "F_TRANSL_FORBIDDEN",	[0x08] = "C_BAD_SUBSTREAMID",
	[0x09] = "F_CD_FETCH",		[0x0a] = "C_BAD_CD",
	[0x0b] = "F_WALK_EABT",		[0x10] = "F_TRANSLATION",
	[0x11] = "F_ADDR_SIZE",		[0x12] = "F_ACCESS",
	[0x13] = "F_PERMISSION",	[0x20] = "F_TLB_CONFLICT",
	[0x21] = "F_CFG_CONFLICT",	[0x24] = "E_PAGE_REQUEST",
	[0x25] = "F_VMS_FETCH",
};

const char *flt_smmuv3_event_name(unsigned int id)
{
	return id < ARRAY_SIZE(smmuv3_events) ?
	       smmuv3_events[id] : NULL;
}

/* Translation, address size, access flag and permission faults. */
static void smmuv3_set_code(struct flt_line *o, unsigned int id)
{
	const char *name = flt_smmuv3_event_name(id);

	o->code = id;
	o->has_code = id != 0;
	o->page_fault = id >= 0x10 && id <= 0x13;
	if (name)
		snprintf(o->type, sizeof(o->type), "%s", name);
	else
		snprintf(o->type, sizeof(o->type), "event 0x%02x", id);
}

static unsigned int smmuv3_event_id(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(smmuv3_events); i++)
		if (smmuv3_events[i] && !strcmp(smmuv3_events[i], name))
			return i;
	return 0;
}

/* "event: F_TRANSLATION client: 0000:00:02.0 sid: 0x10 ssid: 0x0 iova: 0x.." */
static enum flt_kind smmuv3_decoded(const char *p, struct flt_line *o)
{
	char name[24];
	const char *q;
	uint64_t v;

	copy_word(name, sizeof(name), skip_blank(p), " \t");
	smmuv3_set_code(o, smmuv3_event_id(name));
	if (!o->code)
		snprintf(o->type, sizeof(o->type), "%s", name);
	q = strstr(p, "sid: ");
	if (q && scan_hex(q + 5, &v, 8))
		set_dev_from_id(o, (uint32_t)v);
	q = strstr(p, "client: ");
	if (q && flt_parse_bdf(q + 8, &o->dev)) {
		o->has_dev = true;
		o->dev_from_id = false;
	}
	q = strstr(p, "iova: ");
	if (q && scan_hex(q + 6, &o->addr, 16))
		o->has_addr = true;
	return FLT_SMMUV3_DECODED;
}

static enum flt_kind parse_smmuv3(const char *line, struct flt_line *o)
{
	const char *p = strstr(line, "arm-smmu-v3 "), *q;
	uint64_t v;

	if (!p)
		return FLT_NONE;
	p += 12;
	q = p + strcspn(p, " \t:");
	if (*q != ':')
		return FLT_NONE;
	copy_word(o->src, sizeof(o->src), p, " \t:");
	o->family = FLT_FAM_SMMUV3;
	p = skip_blank(q + 1);
	q = scan_hex(lit(p, "event 0x"), &v, 2);
	if (q && lit(q, " received")) {
		smmuv3_set_code(o, (unsigned int)v);
		return FLT_SMMUV3_EVENT;
	}
	if (lit(p, "event: "))
		return smmuv3_decoded(p + 7, o);
	q = lit(p, "0x") ? scan_hex(p, &o->value, 16) : NULL;
	if (q && !*skip_blank(q))
		return FLT_SMMUV3_WORD;
	if (strstr(p, "EVTQ overflow")) {
		o->lost = true;
		return FLT_OVERFLOW;
	}
	return FLT_NONE;
}

/* ---- Arm SMMU v1/v2 ---- */

static enum flt_kind parse_smmu(const char *line, struct flt_line *o)
{
	const char *p = strstr(line, "arm-smmu "), *q;
	uint64_t v;

	p = p ? strstr(p, "Unhandled context fault") : NULL;
	if (!p)
		return FLT_NONE;
	o->family = FLT_FAM_SMMU;
	strcpy(o->type, "context fault");
	o->page_fault = true;
	q = field(p, "iova=");
	if (q && scan_hex(q, &o->addr, 16))
		o->has_addr = true;
	q = field(p, "cbfrsynra=");
	if (q && scan_hex(q, &v, 8)) {
		o->id = (uint32_t)v;	/* a StreamID, rarely a RID here */
		o->has_id = true;
	}
	return FLT_SMMU_CONTEXT;
}

/* ---- virtio-iommu ---- */

/* "virtio_iommu virtio0: page fault from EP 16 at 0xfffff000 [R]" */
static enum flt_kind parse_virtio(const char *line, struct flt_line *o)
{
	const char *p = strstr(line, "virtio_iommu "), *f, *r;
	uint64_t v;

	f = p ? strstr(p, " fault from EP ") : NULL;
	if (!f)
		return FLT_NONE;
	o->family = FLT_FAM_VIRTIO;
	for (r = f; r > p && r[-1] != ' '; r--)
		;
	snprintf(o->type, sizeof(o->type), "%.*s fault",
		 (int)(f - r < 12 ? f - r : 12), r);
	o->page_fault = strncmp(r, "domain", 6) != 0;
	p = scan_dec(f + 15, &v, 10);
	if (!p)
		return FLT_VIRTIO_FAULT;
	/* the endpoint ID is the requester ID where the firmware maps 1:1 */
	set_dev_from_id(o, (uint32_t)v);
	p = lit(p, " at ");
	if (p && scan_hex(p, &o->addr, 16))
		o->has_addr = true;
	return FLT_VIRTIO_FAULT;
}

/* ---- around the faults ---- */

static const struct {
	const char *prefix;
	enum flt_family family;
} ratelimited[] = {
	{ "dmar", FLT_FAM_DMAR },
	{ "amd_iommu", FLT_FAM_AMD },
	{ "iommu_print_event", FLT_FAM_AMD },
	{ "arm_smmu_context_fault", FLT_FAM_SMMU },
	{ "arm_smmu", FLT_FAM_SMMUV3 },
	{ "viommu", FLT_FAM_VIRTIO },
};

/* "dmar_fault: 12 callbacks suppressed": the rate limit names its caller. */
static enum flt_kind parse_suppressed(const char *line, struct flt_line *o)
{
	const char *p = strstr(line, " callbacks suppressed"), *d, *f;
	size_t i;

	if (!p)
		return FLT_NONE;
	for (d = p; d > line && d[-1] >= '0' && d[-1] <= '9'; d--)
		;
	if (d == p || d - line < 3 || d[-1] != ' ' || d[-2] != ':' ||
	    !scan_dec(d, &o->value, 10))
		return FLT_NONE;
	for (f = d - 2; f > line && f[-1] != ' ' && f[-1] != ']'; f--)
		;
	for (i = 0; i < ARRAY_SIZE(ratelimited); i++) {
		if (!strncmp(f, ratelimited[i].prefix,
			     strlen(ratelimited[i].prefix))) {
			o->family = ratelimited[i].family;
			copy_word(o->src, sizeof(o->src), f, ":");
			return FLT_SUPPRESSED;
		}
	}
	return FLT_NONE;
}

/*
 * "nvme 0000:01:00.0: Using 64-bit DMA addresses" (newer mainline, not 6.1:
 * the 32-bit attempt failed once, the device left the trick for good), or
 * this project's series: "... 32-bit IOVA space full, mapping above 4GB
 * from now on; ... iommu.sac_devices=vvvv:dddd:sac".
 */
static enum flt_kind parse_adaptive(const char *line, struct flt_line *o)
{
	const char *p = strstr(line, "-bit DMA addresses"), *d, *q;
	uint64_t v;

	if (p) {
		for (d = p; d > line && d[-1] >= '0' && d[-1] <= '9'; d--)
			;
		if (d - line < 6 || strncmp(d - 6, "Using ", 6) ||
		    !scan_dec(d, &o->value, 3))
			return FLT_NONE;
		o->has_dev = bdf_before(line, d - 6, &o->dev);
		return FLT_ADAPTIVE;
	}
	p = strstr(line, "32-bit IOVA space full");
	if (!p)
		return FLT_NONE;
	o->has_dev = bdf_before(line, p, &o->dev);
	q = strstr(p, "iommu.sac_devices=");
	q = q ? scan_hex(q + 18, &v, 4) : NULL;
	if (!q || *q != ':')
		return FLT_ADAPTIVE;
	o->vendor = (uint16_t)v;
	if (scan_hex(q + 1, &v, 4)) {
		o->device = (uint16_t)v;
		o->has_pci_id = true;
	}
	return FLT_ADAPTIVE;
}

#define CUT_MIN_BITS	32	/* below this the trick itself would help nothing */
#define CUT_MAX_BITS	47	/* 48: the full width of a 4-level IOVA space */
#define CUT_SLACK_SHIFT	4	/* "just below": within the top 1/16 of 2^k */

unsigned int flt_cut_bits(uint64_t addr)
{
	unsigned int k;
	uint64_t top;

	if (!addr)
		return 0;
	k = 64 - (unsigned int)__builtin_clzll(addr);
	if (k < CUT_MIN_BITS || k > CUT_MAX_BITS)
		return 0;
	top = 1ULL << k;
	return top - addr <= top >> CUT_SLACK_SHIFT ? k : 0;
}

enum flt_kind flt_parse_line(const char *line, struct flt_line *out)
{
	static enum flt_kind (*const parsers[])(const char *, struct flt_line *) = {
		parse_dmar, parse_amd, parse_smmuv3, parse_smmu, parse_virtio,
		parse_suppressed, parse_adaptive, parse_amd_overflow,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(parsers); i++) {
		memset(out, 0, sizeof(*out));
		out->kind = parsers[i](line, out);
		if (out->kind != FLT_NONE)
			return out->kind;
	}
	memset(out, 0, sizeof(*out));
	return FLT_NONE;
}

bool flt_is_fault_line(enum flt_kind kind)
{
	return kind >= FLT_DMAR_STATUS && kind <= FLT_VIRTIO_FAULT;
}

const char *flt_family_name(enum flt_family family)
{
	static const char *const names[FLT_FAM_COUNT] = {
		[FLT_FAM_NONE] = "none",
		[FLT_FAM_DMAR] = "intel-dmar",
		[FLT_FAM_AMD] = "amd-vi",
		[FLT_FAM_SMMUV3] = "arm-smmu-v3",
		[FLT_FAM_SMMU] = "arm-smmu",
		[FLT_FAM_VIRTIO] = "virtio-iommu",
	};

	return family < FLT_FAM_COUNT ? names[family] : "none";
}

/* ---- the reader: records out of lines ---- */

void flt_reader_init(struct flt_reader *r, flt_sink_fn sink, void *arg)
{
	memset(r, 0, sizeof(*r));
	r->sink = sink;
	r->arg = arg;
}

static void emit(struct flt_reader *r, const struct flt_line *l,
		 unsigned long no)
{
	struct flt_event ev = { .l = *l, .no = no };

	r->sink(&ev, r->arg);
}

static void close_open(struct flt_reader *r, struct flt_open *o)
{
	if (!o->open)
		return;
	o->open = false;
	r->sink(&o->ev, r->arg);
}

static void open_record(struct flt_open *o, const struct flt_line *l,
			unsigned long no)
{
	o->ev.l = *l;
	o->ev.no = no;
	o->parts = 0;
	o->last = no;
	o->open = true;
}

static void expire(struct flt_reader *r, unsigned long no)
{
	size_t i;

	if (r->dmar.open && no - r->dmar.last > FLT_STALE)
		close_open(r, &r->dmar);
	if (r->amd.open && no - r->amd.last > FLT_STALE)
		close_open(r, &r->amd);
	for (i = 0; i < FLT_OPEN_SMMU; i++)
		if (r->smmu[i].open && no - r->smmu[i].last > FLT_STALE)
			close_open(r, &r->smmu[i]);
}

static void dmar_line(struct flt_reader *r, const struct flt_line *l,
		      unsigned long no)
{
	struct flt_line *open = &r->dmar.ev.l;

	if (l->kind == FLT_DMAR_REASON) {
		if (!r->dmar.open)
			return;
		open->code = l->code;
		open->has_code = true;
		open->page_fault = dmar_page_fault(open);
		close_open(r, &r->dmar);
		return;
	}
	close_open(r, &r->dmar);
	if (l->kind == FLT_DMAR_FAULT && !l->has_code)
		open_record(&r->dmar, l, no);	/* its reason may follow */
	else
		emit(r, l, no);
}

static void amd_line(struct flt_reader *r, const struct flt_line *l,
		     unsigned long no)
{
	struct flt_line merged;

	if (l->kind == FLT_AMD_TAIL && r->amd.open) {
		merged = *l;
		merged.kind = FLT_AMD_EVENT;
		if (!merged.has_dev && r->amd.ev.l.has_dev)
			merged.dev = r->amd.ev.l.dev;
		merged.has_dev |= r->amd.ev.l.has_dev;
		r->amd.open = false;
		emit(r, &merged, r->amd.ev.no);
		return;
	}
	close_open(r, &r->amd);
	if (l->kind == FLT_AMD_EVENT && !l->type[0]) {
		open_record(&r->amd, l, no);	/* a head alone: body next */
		return;
	}
	merged = *l;
	if (merged.kind == FLT_AMD_TAIL)
		merged.kind = FLT_AMD_EVENT;	/* its head was lost */
	emit(r, &merged, no);
}

static struct flt_open *smmu_find(struct flt_reader *r, const char *src)
{
	size_t i;

	for (i = 0; i < FLT_OPEN_SMMU; i++)
		if (r->smmu[i].open && !strcmp(r->smmu[i].ev.l.src, src))
			return &r->smmu[i];
	return NULL;
}

static struct flt_open *smmu_slot(struct flt_reader *r)
{
	struct flt_open *oldest = &r->smmu[0];
	size_t i;

	for (i = 0; i < FLT_OPEN_SMMU; i++) {
		if (!r->smmu[i].open)
			return &r->smmu[i];
		if (r->smmu[i].last < oldest->last)
			oldest = &r->smmu[i];
	}
	close_open(r, oldest);
	return oldest;
}

/* Event words: 0 holds the ID and StreamID, 2 the input address. */
static void smmu_word(struct flt_reader *r, struct flt_open *o, uint64_t w,
		      unsigned long no)
{
	struct flt_line *l = &o->ev.l;

	if (o->parts == 0) {
		set_dev_from_id(l, (uint32_t)(w >> 32));
		if (!l->has_code)
			smmuv3_set_code(l, (unsigned int)(w & 0xff));
	} else if (o->parts == 2 && l->page_fault) {
		l->addr = w;
		l->has_addr = true;
	}
	o->last = no;
	if (++o->parts == 4)
		close_open(r, o);
}

static void smmuv3_line(struct flt_reader *r, const struct flt_line *l,
			unsigned long no)
{
	struct flt_open *o = smmu_find(r, l->src);
	size_t i;

	if (l->kind == FLT_SMMUV3_WORD) {
		if (o)
			smmu_word(r, o, l->value, no);
		return;
	}
	if (l->kind == FLT_SUPPRESSED) {	/* names no instance */
		for (i = 0; i < FLT_OPEN_SMMU; i++)
			close_open(r, &r->smmu[i]);
	} else if (o) {
		close_open(r, o);
	}
	if (l->kind == FLT_SMMUV3_EVENT)
		open_record(smmu_slot(r), l, no);
	else
		emit(r, l, no);
}

void flt_reader_line(struct flt_reader *r, const char *line, unsigned long no)
{
	struct flt_line l;

	expire(r, no);
	if (flt_parse_line(line, &l) == FLT_NONE)
		return;
	/* a family's next line closes its open record, unless it continues it */
	switch (l.family) {
	case FLT_FAM_DMAR:
		dmar_line(r, &l, no);
		break;
	case FLT_FAM_AMD:
		amd_line(r, &l, no);
		break;
	case FLT_FAM_SMMUV3:
		smmuv3_line(r, &l, no);
		break;
	default:
		emit(r, &l, no);
		break;
	}
}

void flt_reader_end(struct flt_reader *r)
{
	size_t i;

	close_open(r, &r->dmar);
	close_open(r, &r->amd);
	for (i = 0; i < FLT_OPEN_SMMU; i++)
		close_open(r, &r->smmu[i]);
}
