// SPDX-License-Identifier: GPL-2.0
/*
 * devices: fault events into a bounded table of devices, then a verdict
 * for each. The question is always the same: do this device's faults look
 * like a device that decodes fewer address bits than its driver claims,
 * which is what the SAC trick hides?
 *
 * A fault address "cut" to k bits (flt_cut_bits(), farm/common/faults.c)
 * is the fingerprint; k is how many bits the device really decodes.
 *
 * An IOMMU that reports no fault leaves only the damage: the farm agent's
 * result that found the data corrupted while the device had DMA addresses
 * above 4 GiB (result.c) makes the same verdict.
 */
#include <stdio.h>
#include <string.h>

#include "triage.h"

#define FOUR_GIB	(1ULL << 32)

static struct tri_device *new_device(struct triage *t)
{
	struct tri_device *d;

	if (t->n_dev == TRI_DEVICES) {
		t->dropped++;
		return NULL;
	}
	d = &t->dev[t->n_dev++];
	memset(d, 0, sizeof(*d));
	return d;
}

/* The device at PCI address @bdf, a new one if need be; NULL: table full. */
struct tri_device *tri_device_at(struct triage *t, uint32_t bdf)
{
	struct tri_device *d;
	unsigned int i;

	for (i = 0; i < t->n_dev; i++)
		if (t->dev[i].has_bdf && t->dev[i].bdf == bdf)
			return &t->dev[i];
	d = new_device(t);
	if (d) {
		d->has_bdf = true;
		d->bdf = bdf;
	}
	return d;
}

/* A fault that names no PCI device: one entry per family and stream. */
static struct tri_device *device_by_id(struct triage *t,
				       const struct flt_line *l)
{
	struct tri_device *d;
	unsigned int i;

	for (i = 0; i < t->n_dev; i++) {
		d = &t->dev[i];
		if (!d->has_bdf && d->family == l->family &&
		    d->has_id == l->has_id && (!l->has_id || d->id == l->id))
			return d;
	}
	d = new_device(t);
	if (d) {
		d->family = l->family;
		d->has_id = l->has_id;
		d->id = l->id;
	}
	return d;
}

static void add_address(struct tri_device *d, uint64_t addr)
{
	unsigned int i, k = flt_cut_bits(addr);

	d->with_addr++;
	if (addr >= FOUR_GIB)
		d->above_4g++;
	if (k) {
		d->cut++;
		if (k > d->cut_bits)
			d->cut_bits = k;
	}
	for (i = 0; i < d->n_addrs; i++)
		if (d->addrs[i] == addr)
			return;
	if (d->n_addrs < TRI_ADDRS)
		d->addrs[d->n_addrs++] = addr;
	else
		d->unlisted++;
}

static void add_fault(struct triage *t, const struct flt_event *ev)
{
	const struct flt_line *l = &ev->l;
	struct tri_device *d;

	t->fam[l->family].faults++;
	d = l->has_dev ? tri_device_at(t, l->dev) : device_by_id(t, l);
	if (!d)
		return;
	t->fam[l->family].last_dev = (int)(d - t->dev);
	if (!d->faults++) {
		d->first_line = ev->no;
		d->family = l->family;
		d->bdf_from_id = l->dev_from_id;
		d->has_id = l->has_id;
		d->id = l->id;
		d->has_code = l->has_code;
		d->code = l->code;
		snprintf(d->type, sizeof(d->type), "%s", l->type);
	}
	if (ev->no > d->last_line)
		d->last_line = ev->no;
	if (ev->no < d->first_line)	/* records complete out of order */
		d->first_line = ev->no;
	if (l->kind == FLT_DMAR_INTR)
		d->intr++;
	if (!l->page_fault)
		return;
	d->page_faults++;
	if (l->has_addr)
		add_address(d, l->addr);
}

static void add_suppressed(struct triage *t, const struct flt_line *l)
{
	struct tri_family *f = &t->fam[l->family];

	f->suppressed += l->value;
	if (f->last_dev >= 0)
		t->dev[f->last_dev].suppressed += l->value;
	else
		f->unattributed += l->value;
}

static void add_adaptive(struct triage *t, const struct flt_event *ev)
{
	const struct flt_line *l = &ev->l;
	struct tri_device *d;

	if (!l->has_dev)
		return;
	if (l->has_pci_id)
		tri_add_id(t, l->dev, l->vendor, l->device, TRI_ID_SERIES, NULL);
	d = tri_device_at(t, l->dev);
	if (!d || d->adaptive_line)
		return;
	d->adaptive_line = ev->no;
	d->adaptive_bits = (unsigned int)l->value;
}

void tri_event(const struct flt_event *ev, void *arg)
{
	struct triage *t = arg;
	const struct flt_line *l = &ev->l;

	switch (l->kind) {
	case FLT_DMAR_STATUS:
		t->fam[l->family].status++;
		t->fam[l->family].overflows += l->lost;
		break;
	case FLT_SUPPRESSED:
		add_suppressed(t, l);
		break;
	case FLT_OVERFLOW:
		t->fam[l->family].overflows++;
		break;
	case FLT_ADAPTIVE:
		add_adaptive(t, ev);
		break;
	default:
		if (flt_is_fault_line(l->kind))
			add_fault(t, ev);
		break;
	}
}

bool tri_adaptive_first(const struct tri_device *d)
{
	return d->adaptive_line && d->faults && d->adaptive_line < d->first_line;
}

static enum tri_verdict verdict(const struct tri_device *d)
{
	if (d->silent.above_4g)
		return TRI_SAC;	/* corrupted data above 4 GiB, unreported */
	if (!d->faults && d->silent.results)
		return TRI_OTHER;	/* corrupted data, not above 4 GiB */
	if (!d->faults)
		return d->adaptive_line ? TRI_ADAPTIVE : TRI_NONE;
	if (d->cut || d->above_4g || tri_adaptive_first(d))
		return TRI_SAC;
	if (d->intr == d->faults)
		return TRI_OTHER;	/* interrupt remapping, not DMA */
	return d->with_addr ? TRI_OTHER : TRI_UNKNOWN;
}

void tri_finish(struct triage *t)
{
	struct tri_device *d;
	unsigned int i;

	for (i = 0; i < t->n_dev; i++) {
		d = &t->dev[i];
		d->pci = d->has_bdf ? tri_find_id(t, d->bdf) : NULL;
		d->verdict = verdict(d);
	}
}

bool tri_found(const struct triage *t)
{
	const struct tri_family *f;
	unsigned int i;

	for (i = 0; i < t->n_dev; i++)
		if (t->dev[i].verdict != TRI_NONE)
			return true;
	for (i = 0; i < FLT_FAM_COUNT; i++) {
		f = &t->fam[i];
		if (f->faults || f->status || f->suppressed || f->overflows)
			return true;
	}
	return t->dropped;
}

bool tri_wants_entry(const struct tri_device *d)
{
	return d->verdict == TRI_SAC || d->verdict == TRI_UNKNOWN;
}

/* "vvvv:dddd:sac,...": every device that wants one, each ID once. */
unsigned int tri_entries(const struct triage *t, char *buf, size_t size)
{
	const struct tri_device *d;
	unsigned int i, n = 0;
	char one[16];
	size_t len = 0;

	buf[0] = '\0';
	for (i = 0; i < t->n_dev && n < TRI_ENTRIES; i++) {
		d = &t->dev[i];
		if (!tri_wants_entry(d) || !d->pci)
			continue;
		snprintf(one, sizeof(one), "%04x:%04x:sac", d->pci->vendor,
			 d->pci->device);
		if (strstr(buf, one) || len + strlen(one) + 2 > size)
			continue;
		len += snprintf(buf + len, size - len, "%s%s", n ? "," : "", one);
		n++;
	}
	return n;
}
