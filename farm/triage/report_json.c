// SPDX-License-Identifier: GPL-2.0
/*
 * report_json: the same verdicts as one JSON object, for bug-tracker
 * bots. Every string in it was cleaned to printable ASCII on the way in
 * or is made here, so it is always valid JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "triage.h"

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

static json_t *line_or_null(unsigned long no)
{
	return no ? json_integer((json_int_t)no) : json_null();
}

static json_t *addresses(const struct tri_device *d)
{
	json_t *a = json_array();
	unsigned int i;

	for (i = 0; i < d->n_addrs; i++)
		json_array_append_new(a, hex(d->addrs[i]));
	return a;
}

/* The farm agent's data-corruption results for the device, or null. */
static json_t *silent(const struct tri_device *d)
{
	const struct tri_silent *s = &d->silent;
	json_t *o, *a;
	unsigned int i;

	if (!s->results)
		return json_null();
	a = json_array();
	for (i = 0; i < s->n_addrs; i++)
		json_array_append_new(a, hex(s->addrs[i]));
	o = json_pack("{s:I,s:I,s:I,s:s,s:s}",
		      "results", (json_int_t)s->results,
		      "first_line", (json_int_t)s->first_line,
		      "last_line", (json_int_t)s->last_line,
		      "workload", s->workload, "reason", s->reason);
	json_object_set_new(o, "above_4g", json_integer(s->above_4g));
	json_object_set_new(o, "working_set",
			    s->ws ? json_integer(s->ws) : json_null());
	json_object_set_new(o, "addresses", a);
	json_object_set_new(o, "addresses_unlisted", json_integer(s->unlisted));
	return o;
}

static json_t *pci_id(const struct tri_device *d)
{
	char id[16];

	if (!d->pci)
		return json_null();
	snprintf(id, sizeof(id), "%04x:%04x", d->pci->vendor, d->pci->device);
	return json_pack("{s:s,s:o,s:s}", "id", id, "name",
			 str_or_null(d->pci->name), "source",
			 tri_id_source_name(d->pci->source));
}

static json_t *suggestion(const struct tri_device *d)
{
	char entry[32], quirk[80], future[32];
	json_t *s;

	if (!tri_wants_entry(d) || !d->pci)
		return json_null();
	snprintf(entry, sizeof(entry), "%04x:%04x:sac", d->pci->vendor,
		 d->pci->device);
	snprintf(quirk, sizeof(quirk), "CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS=\"%s\"",
		 entry);
	s = json_pack("{s:s,s:o,s:s}", "entry", entry, "cmdline",
		      json_sprintf("iommu.sac_devices=%s", entry), "quirk", quirk);
	if (!d->cut_bits) {
		json_object_set_new(s, "strict_bits", json_null());
		json_object_set_new(s, "future_entry", json_null());
		return s;
	}
	snprintf(future, sizeof(future), "%04x:%04x:bits=%u", d->pci->vendor,
		 d->pci->device, d->cut_bits);
	json_object_set_new(s, "strict_bits", json_integer(d->cut_bits));
	json_object_set_new(s, "future_entry", json_string(future));
	return s;
}

static json_t *device(const struct triage *t, const struct tri_device *d)
{
	char bdf[FLT_BDF_LEN], why[1024], next[256];
	json_t *o;

	o = json_pack("{s:o,s:b,s:o,s:s,s:o}",
		      "bdf", d->has_bdf ? json_string(flt_format_bdf(d->bdf, bdf)) : json_null(),
		      "bdf_from_id", d->bdf_from_id,
		      "id", d->has_id ? hex(d->id) : json_null(),
		      "family", flt_family_name(d->family),
		      "pci", pci_id(d));
	json_object_set_new(o, "faults", json_integer(d->faults));
	json_object_set_new(o, "suppressed", json_integer(d->suppressed));
	json_object_set_new(o, "first_line", line_or_null(d->first_line));
	json_object_set_new(o, "last_line", line_or_null(d->last_line));
	json_object_set_new(o, "type", str_or_null(d->type));
	json_object_set_new(o, "code", d->has_code ? json_integer(d->code) : json_null());
	json_object_set_new(o, "addresses", addresses(d));
	json_object_set_new(o, "addresses_unlisted", json_integer(d->unlisted));
	json_object_set_new(o, "with_address", json_integer(d->with_addr));
	json_object_set_new(o, "above_4g", json_integer(d->above_4g));
	json_object_set_new(o, "cut", json_integer(d->cut));
	json_object_set_new(o, "decodes_bits",
			    d->cut_bits ? json_integer(d->cut_bits) : json_null());
	json_object_set_new(o, "silent_corruption", silent(d));
	json_object_set_new(o, "adaptive_line", line_or_null(d->adaptive_line));
	json_object_set_new(o, "adaptive_bits",
			    d->adaptive_line ? json_integer(d->adaptive_bits) : json_null());
	json_object_set_new(o, "adaptive_before_faults",
			    json_boolean(tri_adaptive_first(d)));
	json_object_set_new(o, "verdict", json_string(tri_verdict_name(d->verdict)));
	json_object_set_new(o, "explanation", json_string(tri_explain(t, d, why, sizeof(why))));
	json_object_set_new(o, "suggestion", suggestion(d));
	json_object_set_new(o, "next_step",
			    str_or_null(tri_next_step(d, next, sizeof(next))));
	return o;
}

static json_t *families(const struct triage *t)
{
	const struct tri_family *f;
	json_t *o = json_object();
	unsigned int i;

	for (i = 1; i < FLT_FAM_COUNT; i++) {
		f = &t->fam[i];
		if (!f->faults && !f->status && !f->suppressed && !f->overflows)
			continue;
		json_object_set_new(o, flt_family_name(i),
				    json_pack("{s:I,s:I,s:I,s:I,s:I}",
					      "faults", (json_int_t)f->faults,
					      "status_lines", (json_int_t)f->status,
					      "suppressed", (json_int_t)f->suppressed,
					      "suppressed_unattributed", (json_int_t)f->unattributed,
					      "overflows", (json_int_t)f->overflows));
	}
	return o;
}

static json_t *context(const struct triage *t)
{
	const struct tri_context *c = &t->ctx;

	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
			 "release", str_or_null(c->release),
			 "sac", str_or_null(c->sac),
			 "forcedac", c->forcedac >= 0 ? json_integer(c->forcedac) : json_null(),
			 "cmdline_sac_devices", str_or_null(c->cmdline_sac),
			 "last_target", str_or_null(c->target),
			 "last_target_line", line_or_null(c->target_line),
			 "start_job", str_or_null(c->job),
			 "start_job_line", line_or_null(c->job_line));
}

static json_t *overall(const struct triage *t)
{
	char entries[TRI_ENTRIES * 16];

	if (!tri_entries(t, entries, sizeof(entries)))
		return json_null();
	return json_pack("{s:o,s:o}",
			 "cmdline", json_sprintf("iommu.sac_devices=%s", entries),
			 "quirk", json_sprintf("CONFIG_IOMMU_DMA_PCI_SAC_QUIRKS=\"%s\"", entries));
}

json_t *tri_report_json(const struct triage *t)
{
	json_t *devs = json_array(), *o;
	unsigned int i;

	for (i = 0; i < t->n_dev; i++)
		json_array_append_new(devs, device(t, &t->dev[i]));
	o = json_pack("{s:i,s:o,s:I,s:I,s:b}", "format", 1,
		      "input", json_string(t->input),
		      "lines", (json_int_t)t->lines,
		      "cut_lines", (json_int_t)t->cut_lines,
		      "found", tri_found(t));
	json_object_set_new(o, "kernel", context(t));
	json_object_set_new(o, "families", families(t));
	json_object_set_new(o, "devices", devs);
	json_object_set_new(o, "devices_dropped_events", json_integer(t->dropped));
	json_object_set_new(o, "suggestion", overall(t));
	return o;
}
