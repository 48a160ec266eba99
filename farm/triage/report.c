// SPDX-License-Identifier: GPL-2.0
/*
 * report: the verdicts in words, for a maintainer reading a bug report.
 * The last lines are stable for scripts: "suggest: <boot entry>" and
 * "quirk: <config line>", or "nothing SAC-related ...". A device the log
 * has no fault for, only the farm agent's data-corruption result, is
 * reported as such: family none, silent corruption.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "triage.h"
#include "util.h"

static const char *const verdicts[] = {
	[TRI_NONE] = "none",
	[TRI_SAC] = "sac",
	[TRI_UNKNOWN] = "unknown",
	[TRI_OTHER] = "other",
	[TRI_ADAPTIVE] = "adaptive",
};

const char *tri_verdict_name(enum tri_verdict v)
{
	return verdicts[v];
}

/* The kernel asked 32-bit IOVAs first: then 0xfffff000 is an ordinary IOVA. */
static bool trick_on(const struct triage *t)
{
	if (t->ctx.forcedac >= 0)
		return !t->ctx.forcedac;
	return !strcmp(t->ctx.sac, "y");
}

static size_t __printf(4, 5) add(char *buf, size_t size, size_t len,
				 const char *fmt, ...);

static size_t add(char *buf, size_t size, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (len >= size)
		return len;
	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	return n < 0 ? len : len + (size_t)n;
}

static void explain_sac(const struct triage *t, const struct tri_device *d,
			char *buf, size_t size)
{
	size_t len = add(buf, size, 0, "the SAC trick:");

	if (d->cut)
		len = add(buf, size, len,
			  " %lu of %lu fault addresses sit just below 2^%u, where a top-of-range IOVA lands when the device drops the bits above bit %u: the device decodes about %u bits;",
			  d->cut, d->with_addr, d->cut_bits, d->cut_bits - 1,
			  d->cut_bits);
	if (d->above_4g)
		len = add(buf, size, len, " %lu fault addresses are above 4 GiB;",
			  d->above_4g);
	if (d->silent.above_4g)
		len = add(buf, size, len,
			  " the farm agent's %s result (line %lu) found the data corrupted while %lu of the device's DMA buffers sat above 4 GiB, and %s;",
			  d->silent.workload, d->silent.first_line,
			  d->silent.above_4g,
			  d->faults ? "the IOMMU reported faults too" :
			  "no fault was reported (an IOMMU that does not report the device's stray DMA)");
	if (tri_adaptive_first(d))
		len = add(buf, size, len,
			  " the device left the 32-bit-first path (line %lu) before it faulted;",
			  d->adaptive_line);
	len = add(buf, size, len,
		  " its driver claims more address bits than the device decodes, so keep it on 32-bit IOVAs first");
	if (trick_on(t) && !d->above_4g && !d->silent.above_4g &&
	    d->cut_bits == 32)
		add(buf, size, len,
		    " (this kernel tries 32-bit IOVAs first already, so an address like this is also an ordinary IOVA: if the entry changes nothing, look for a DMA after unmap)");
}

static const char *unknown_hint(const struct tri_device *d)
{
	if (!strcmp(d->type, "C_BAD_STREAMID") || !strcmp(d->type, "C_BAD_STE") ||
	    !strcmp(d->type, "domain fault"))
		return "; such a fault means the IOMMU had no translation set up for the device at all, usually because no driver owned it when it did DMA";
	return "";
}

const char *tri_explain(const struct triage *t, const struct tri_device *d,
			char *buf, size_t size)
{
	switch (d->verdict) {
	case TRI_SAC:
		explain_sac(t, d, buf, size);
		break;
	case TRI_UNKNOWN:
		snprintf(buf, size,
			 "cannot tell: the faults (%s) carry no address to judge%s; if they began with a kernel that has the trick off, try the entry",
			 d->type[0] ? d->type : "no type", unknown_hint(d));
		break;
	case TRI_OTHER:
		if (!d->faults) {
			snprintf(buf, size,
				 "another bug: the farm agent's %s result (line %lu) found the data corrupted with no DMA buffer above 4 GiB; no SAC entry helps",
				 d->silent.workload, d->silent.first_line);
			break;
		}
		snprintf(buf, size, "%s",
			 d->intr == d->faults ?
			 "another bug: interrupt-remapping faults, not DMA addresses; no SAC entry helps" :
			 "another bug: the fault addresses are below 4 GiB and none is a cut top-of-range IOVA; no SAC entry helps");
		break;
	case TRI_ADAPTIVE:
		snprintf(buf, size,
			 "the device left the 32-bit-first path at line %lu and no fault followed: nothing to fix unless it misbehaves after that line",
			 d->adaptive_line);
		break;
	case TRI_NONE:
		snprintf(buf, size, "nothing");
		break;
	}
	return buf;
}

static void device_title(const struct tri_device *d, FILE *out)
{
	char bdf[FLT_BDF_LEN];

	if (d->has_bdf)
		fprintf(out, "device %s", flt_format_bdf(d->bdf, bdf));
	else
		fprintf(out, "device unknown");
	if (d->pci)
		fprintf(out, " [%04x:%04x]%s%s (from %s)", d->pci->vendor,
			d->pci->device, d->pci->name[0] ? " " : "", d->pci->name,
			tri_id_source_name(d->pci->source));
	if (d->family != FLT_FAM_NONE)
		fprintf(out, ", behind %s", flt_family_name(d->family));
	fputc('\n', out);
	if (d->bdf_from_id)
		fprintf(out, "  from id       0x%x, read as a PCI requester ID (bus << 8 | devfn), as firmware maps them 1:1\n",
			d->id);
	else if (!d->has_bdf && d->has_id)
		fprintf(out, "  stream        0x%x\n", d->id);
}

static void device_faults(const struct tri_device *d, FILE *out)
{
	unsigned int i;

	if (!d->faults)
		return;
	fprintf(out, "  faults        %lu, line %lu", d->faults, d->first_line);
	if (d->last_line != d->first_line)
		fprintf(out, " to %lu", d->last_line);
	fprintf(out, ", first %s", d->type[0] ? d->type : "(no type)");
	if (d->has_code)
		fprintf(out, " (code 0x%02x)", d->code);
	fprintf(out, "; %lu more suppressed by the rate limit\n", d->suppressed);
	fprintf(out, "  addresses     %u distinct", d->n_addrs);
	for (i = 0; i < d->n_addrs; i++)
		fprintf(out, "%s0x%" PRIx64, i ? ", " : ": ", d->addrs[i]);
	if (d->unlisted)
		fprintf(out, " (and %lu past the list)", d->unlisted);
	fprintf(out, "\n  above 4 GiB   %lu of %lu\n", d->above_4g, d->with_addr);
	if (d->cut)
		fprintf(out, "  cut IOVA      %lu of %lu: the device decodes about %u bits\n",
			d->cut, d->with_addr, d->cut_bits);
	else
		fprintf(out, "  cut IOVA      none\n");
}

static void device_silent(const struct tri_device *d, FILE *out)
{
	const struct tri_silent *s = &d->silent;
	unsigned int i;

	if (!s->results)
		return;
	if (!d->faults)
		fprintf(out, "  family        none (no fault reported: silent corruption)\n");
	fprintf(out, "  corruption    line %lu", s->first_line);
	if (s->results > 1)
		fprintf(out, " to %lu, %lu results", s->last_line, s->results);
	fprintf(out, ", %s: %s\n", s->workload, s->reason);
	fprintf(out, "  dma buffers   %lu", s->above_4g);
	if (s->ws)
		fprintf(out, " of %lu in its working set", s->ws);
	fprintf(out, " above 4 GiB\n");
	fprintf(out, "  dma addresses %u distinct above 4 GiB", s->n_addrs);
	for (i = 0; i < s->n_addrs; i++)
		fprintf(out, "%s0x%" PRIx64, i ? ", " : ": ", s->addrs[i]);
	if (s->unlisted)
		fprintf(out, " (and %lu past the list)", s->unlisted);
	fputc('\n', out);
}

static void device_adaptive(const struct tri_device *d, FILE *out)
{
	if (!d->adaptive_line)
		fprintf(out, "  adaptive      no \"Using N-bit DMA addresses\" notice for it\n");
	else
		fprintf(out, "  adaptive      line %lu (%u-bit)%s\n", d->adaptive_line,
			d->adaptive_bits,
			!d->faults ? "" : tri_adaptive_first(d) ?
			", before the faults" : ", after the first fault");
}

const char *tri_next_step(const struct tri_device *d, char *buf, size_t size)
{
	char bdf[FLT_BDF_LEN];

	if (!tri_wants_entry(d) || d->pci)
		return NULL;
	if (d->has_bdf)
		snprintf(buf, size,
			 "the log does not say what %s is: run `lspci -nn -s %s` on the machine and pass the output with --lspci",
			 flt_format_bdf(d->bdf, bdf), bdf);
	else
		snprintf(buf, size,
			 "the faults name no PCI device: find the device behind this %s %s (the firmware's IOMMU mapping), then its lspci -nn line",
			 flt_family_name(d->family), d->has_id ? "stream" : "unit");
	return buf;
}

static void device_next(const struct tri_device *d, FILE *out)
{
	char next[256];

	if (tri_next_step(d, next, sizeof(next))) {
		fprintf(out, "  next          %s\n", next);
		return;
	}
	if (!tri_wants_entry(d))
		return;
	fprintf(out, "  try           iommu.sac_devices=%04x:%04x:sac\n",
		d->pci->vendor, d->pci->device);
	fprintf(out, "  quirk         CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS=\"%04x:%04x:sac\"\n",
		d->pci->vendor, d->pci->device);
	if (d->cut_bits)
		fprintf(out, "  strict limit  %u bits: what a future iommu.sac_devices=%04x:%04x:bits=%u would hold it to (the series has no bits= yet: use :sac)\n",
			d->cut_bits, d->pci->vendor, d->pci->device, d->cut_bits);
}

static void device_report(const struct triage *t, const struct tri_device *d,
			  FILE *out)
{
	char why[1024];

	fputc('\n', out);
	device_title(d, out);
	device_faults(d, out);
	device_silent(d, out);
	device_adaptive(d, out);
	fprintf(out, "  verdict       %s: %s\n", tri_verdict_name(d->verdict),
		tri_explain(t, d, why, sizeof(why)));
	device_next(d, out);
}

static void families(const struct triage *t, FILE *out)
{
	const struct tri_family *f;
	unsigned int i;

	for (i = 1; i < FLT_FAM_COUNT; i++) {
		f = &t->fam[i];
		if (!f->faults && !f->status && !f->suppressed && !f->overflows)
			continue;
		fprintf(out, "%s: %lu fault records, %lu more suppressed by the rate limit (%lu before any device faulted), %lu fault status lines, %lu overflow marks (records lost)\n",
			flt_family_name(i), f->faults, f->suppressed,
			f->unattributed, f->status, f->overflows);
	}
	if (t->dropped)
		fprintf(out, "more than %d devices: %lu events of the rest were only counted\n",
			TRI_DEVICES, t->dropped);
}

static const char *sac_words(const char *sac)
{
	if (!strcmp(sac, "y"))
		return ", SAC trick on (farm identity)";
	if (!strcmp(sac, "n"))
		return ", SAC trick off (farm identity)";
	return "";
}

static void context(const struct triage *t, FILE *out)
{
	const struct tri_context *c = &t->ctx;

	if (c->release[0] || c->sac[0] || c->forcedac >= 0)
		fprintf(out, "kernel: %s%s%s%s%s\n",
			c->release[0] ? c->release : "(release not in the log)",
			sac_words(c->sac),
			c->forcedac < 0 ? "" : c->forcedac ? ", iommu.forcedac=1" : ", iommu.forcedac=0",
			c->cmdline_sac[0] ? ", iommu.sac_devices=" : "", c->cmdline_sac);
	if (c->target_line)
		fprintf(out, "boot: last target reached \"%s\" (line %lu)\n",
			c->target, c->target_line);
	if (c->job_line)
		fprintf(out, "boot: a start job was running for \"%s\" (line %lu)\n",
			c->job, c->job_line);
}

static void summary(const struct triage *t, FILE *out)
{
	unsigned int i, n[TRI_ADAPTIVE + 1] = { 0 };
	char entries[TRI_ENTRIES * 16], next[256];

	for (i = 0; i < t->n_dev; i++)
		n[t->dev[i].verdict]++;
	fprintf(out, "\nsummary: %u device(s) point at the SAC trick, %u cannot be judged, %u show another bug, %u only left the 32-bit path\n",
		n[TRI_SAC], n[TRI_UNKNOWN], n[TRI_OTHER], n[TRI_ADAPTIVE]);
	for (i = 0; i < t->n_dev; i++)
		if (tri_next_step(&t->dev[i], next, sizeof(next)))
			fprintf(out, "next: %s\n", next);
	if (!tri_entries(t, entries, sizeof(entries)))
		return;
	fprintf(out, "suggest: iommu.sac_devices=%s\n", entries);
	fprintf(out, "quirk: CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS=\"%s\"\n", entries);
}

void tri_report_text(const struct triage *t, FILE *out)
{
	unsigned int i;

	fprintf(out, "triage: %s: %lu lines", t->input, t->lines);
	if (t->cut_lines)
		fprintf(out, ", %lu cut at %d bytes", t->cut_lines, TRI_LINE_MAX);
	fputc('\n', out);
	context(t, out);
	if (!tri_found(t)) {
		fprintf(out, "nothing SAC-related in this log: no IOMMU fault, rate-limit or overflow line, no \"Using N-bit DMA addresses\" notice, and no farm data-corruption result naming a device\n");
		return;
	}
	families(t, out);
	for (i = 0; i < t->n_dev; i++)
		device_report(t, &t->dev[i], out);
	summary(t, out);
}
