// SPDX-License-Identifier: GPL-2.0
/*
 * context: what the log says around its faults. Which vendor:device sits
 * at a PCI address (lspci -nn, the farm agent's identity line, the
 * kernel's own enumeration), which kernel ran with which command line,
 * and how far systemd got. The farm agent's identity line is read here;
 * its results go on to result.c. The ID table and the helpers for text
 * and agent lines are ids.c's.
 */
#include <errno.h>
#include <string.h>

#include "triage.h"

/* "[vvvv:dddd]" */
static bool pci_id_at(const char *s, uint16_t *vendor, uint16_t *device)
{
	return s[0] == '[' && tri_hex4(s + 1, vendor) && s[5] == ':' &&
	       tri_hex4(s + 6, device) && s[10] == ']';
}

/* "pci 0000:00:02.0: [1234:11e8] type 00 class 0x00ff00" */
static void enumeration(struct triage *t, const char *line)
{
	const char *p = strstr(line, "pci ");
	uint16_t vendor, device;
	uint32_t bdf;

	p = p ? flt_parse_bdf(p + 4, &bdf) : NULL;
	if (p && p[0] == ':' && p[1] == ' ' && pci_id_at(p + 2, &vendor, &device))
		tri_add_id(t, bdf, vendor, device, TRI_ID_KERNEL, NULL);
}

static void copy_word(char *dst, size_t size, const char *p)
{
	tri_clean_text(dst, size, p, strcspn(p, " \t\""));
}

static void command_line(struct triage *t, const char *p)
{
	const char *q = strstr(p, "iommu.forcedac=");

	if (q && (q[15] == '0' || q[15] == '1'))
		t->ctx.forcedac = q[15] - '0';
	q = strstr(p, "iommu.sac_devices=");
	if (q)
		copy_word(t->ctx.cmdline_sac, sizeof(t->ctx.cmdline_sac), q + 18);
}

static void identity_pci(struct triage *t, json_t *pci)
{
	const char *bdf, *vendor, *device;
	uint16_t v, d;
	uint32_t dev;
	size_t i;
	json_t *e;

	json_array_foreach(pci, i, e) {
		bdf = json_string_value(json_object_get(e, "bdf"));
		vendor = json_string_value(json_object_get(e, "vendor"));
		device = json_string_value(json_object_get(e, "device"));
		if (!bdf || !vendor || !device || strlen(vendor) != 4 ||
		    strlen(device) != 4 || !tri_hex4(vendor, &v) || !tri_hex4(device, &d))
			continue;
		if (flt_parse_bdf(bdf, &dev) == bdf + strlen(bdf))
			tri_add_id(t, dev, v, d, TRI_ID_IDENTITY, NULL);
	}
}

static void agent_identity(struct triage *t, const char *line)
{
	char nonce[TRI_NONCE + 1];
	const char *p = tri_agent_line(line, "identity", nonce), *s;
	json_t *o;

	if (!p)
		return;
	o = json_loads(p, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(o))
		goto out;
	memcpy(t->ctx.nonce, nonce, sizeof(nonce));
	s = json_string_value(json_object_get(o, "uname"));
	if (s)
		copy_word(t->ctx.release, sizeof(t->ctx.release), s);
	s = json_string_value(json_object_get(o, "sac"));
	if (s)
		copy_word(t->ctx.sac, sizeof(t->ctx.sac), s);
	s = json_string_value(json_object_get(o, "cmdline"));
	if (s)
		command_line(t, s);
	identity_pci(t, json_object_get(o, "pci"));
out:
	json_decref(o);
}

/* "Reached target X." and "A start job is running for X (5s / 1min 30s)" */
static void systemd(struct triage *t, const char *line, unsigned long no)
{
	const char *p = strstr(line, "Reached target "), *end;
	struct tri_context *c = &t->ctx;

	if (p) {
		p += 15;
		end = p + strlen(p);
		while (end > p && (end[-1] == '.' || end[-1] == ' '))
			end--;
		tri_clean_text(c->target, sizeof(c->target), p, end - p);
		c->target_line = no;
		return;
	}
	p = strstr(line, "A start job is running for ");
	if (!p)
		return;
	p += 27;
	end = strstr(p, " (");
	tri_clean_text(c->job, sizeof(c->job), p, end ? (size_t)(end - p) : strlen(p));
	c->job_line = no;
}

void tri_context_line(struct triage *t, const char *line, unsigned long no)
{
	const char *p;

	enumeration(t, line);
	agent_identity(t, line);
	tri_result_line(t, line, no);
	systemd(t, line, no);
	p = strstr(line, "Linux version ");
	if (p)
		copy_word(t->ctx.release, sizeof(t->ctx.release), p + 14);
	p = strstr(line, "Kernel command line: ");
	if (p)
		command_line(t, p);
}

/* "28:00.0 SATA controller [0106]: ASMedia ... Controller [1b21:0612] (rev 02)" */
static int lspci_line(struct triage *t, const char *line)
{
	const char *p = line + strspn(line, " \t"), *s, *id = NULL, *name;
	uint16_t vendor, device;
	char text[80];
	uint32_t bdf;

	p = flt_parse_bdf(p, &bdf);
	if (!p || *p != ' ')
		return 0;
	for (s = p; (s = strchr(s, '[')); s++)
		if (pci_id_at(s, &vendor, &device))
			id = s;
	if (!id)
		return 0;
	pci_id_at(id, &vendor, &device);
	name = strstr(p, ": ");
	if (name && name < id)
		tri_clean_text(text, sizeof(text), name + 2, id - name - 2);
	else
		text[0] = '\0';
	tri_add_id(t, bdf, vendor, device, TRI_ID_LSPCI, text);
	return 1;
}

/* One line of @f into @buf, NUL and CR dropped, the rest of a long one too. */
static bool get_line(FILE *f, char *buf, size_t size)
{
	size_t n = 0;
	int c;

	while ((c = getc(f)) != EOF && c != '\n')
		if (c && c != '\r' && n + 1 < size)
			buf[n++] = (char)c;
	buf[n] = '\0';
	return c != EOF || n;
}

/* The number of devices read, -1 on a read error. */
int tri_read_lspci(struct triage *t, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	int n = 0, err;

	if (!f)
		return -1;
	while (get_line(f, line, sizeof(line)))
		n += lspci_line(t, line);
	err = ferror(f) ? errno : 0;
	fclose(f);
	errno = err;
	return err ? -1 : n;
}
