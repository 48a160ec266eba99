// SPDX-License-Identifier: GPL-2.0
/*
 * triage-unit: TAP unit tests for the fault-line parser (farm/common/
 * faults.c), its record reader and triage's address analysis. Every line
 * here was written for this test in the format the kernel source prints
 * (6.1 and the older and newer variants); none is copied from a log.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "triage.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NO_CODE -1

static int test_no, failed;

static void check(int cond, const char *fmt, const char *what)
{
	printf("%sok %d - ", cond ? "" : "not ", ++test_no);
	printf(fmt, what);
	putchar('\n');
	failed += !cond;
}

struct line_case {
	const char *line;
	enum flt_kind kind;
	enum flt_family family;
	const char *bdf;	/* NULL: names no PCI device */
	unsigned long long addr;	/* 0: no address */
	int code;		/* reason / event ID, NO_CODE: none */
};

static const struct line_case lines[] = {
	/* Intel VT-d, 6.1 and newer */
	{ "[   12.345678] DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0xfffff000 [fault reason 0x06] PTE Read access is not set",
	  FLT_DMAR_FAULT, FLT_FAM_DMAR, "0000:00:02.0", 0xfffff000, 6 },
	{ "DMAR: [DMA Write NO_PASID] Request device [3a:00.1] fault addr 0x7ffff000 [fault reason 0x05] PTE Write access is not set",
	  FLT_DMAR_FAULT, FLT_FAM_DMAR, "0000:3a:00.1", 0x7ffff000, 5 },
	{ "DMAR: [DMA Read PASID 0x2] Request device [0001:17:00.0] fault addr 0x4000 [fault reason 0x06] PTE Read access is not set",
	  FLT_DMAR_FAULT, FLT_FAM_DMAR, "0001:17:00.0", 0x4000, 6 },
	{ "Dec 04 10:00:01 host kernel: DMAR: [DMA Read NO_PASID] Request device [0x00:0x02.0x0] fault addr 0xfffff000 [fault reason 0x06] PTE Read access is not set",
	  FLT_DMAR_FAULT, FLT_FAM_DMAR, "0000:00:02.0", 0xfffff000, 6 },
	/* 5.x: PASID ffffffff, no 0x */
	{ "> [    3.1] DMAR: [DMA Read] Request device [00:1f.6] PASID ffffffff fault addr fffa0000 [fault reason 06] PTE Read access is not set",
	  FLT_DMAR_FAULT, FLT_FAM_DMAR, "0000:00:1f.6", 0xfffa0000, 6 },
	/* the oldest: the reason on a line of its own */
	{ "DMAR:[DMA Write] Request device [02:00.0] fault addr 1234000 ",
	  FLT_DMAR_FAULT, FLT_FAM_DMAR, "0000:02:00.0", 0x1234000, NO_CODE },
	{ "DMAR:[fault reason 05] PTE Write access is not set",
	  FLT_DMAR_REASON, FLT_FAM_DMAR, NULL, 0, 5 },
	{ "[    1.1] DMAR: DRHD: handling fault status reg 2",
	  FLT_DMAR_STATUS, FLT_FAM_DMAR, NULL, 0, NO_CODE },
	{ "DMAR: [INTR-REMAP] Request device [f0:1f.0] fault index 0x1c [fault reason 0x25] Blocked a compatibility format interrupt request",
	  FLT_DMAR_INTR, FLT_FAM_DMAR, "0000:f0:1f.0", 0, 0x25 },
	{ "DMAR: Host address width 39", FLT_NONE, 0, NULL, 0, NO_CODE },
	{ "ACPI: DMAR 0x000000007A3F5000 0000A8 (v01 INTEL  EDK2)", FLT_NONE, 0, NULL, 0, NO_CODE },
	{ "DMAR-IR: Enabled IRQ remapping in x2apic mode", FLT_NONE, 0, NULL, 0, NO_CODE },

	/* AMD-Vi: 6.1 names the device first, or device= when it has no data */
	{ "ahci 0000:28:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x000d address=0x7fffff00000 flags=0x0000]",
	  FLT_AMD_EVENT, FLT_FAM_AMD, "0000:28:00.0", 0x7fffff00000, NO_CODE },
	{ "AMD-Vi: Event logged [IO_PAGE_FAULT device=0000:28:00.0 domain=0x000d address=0x7fffff00000 flags=0x0000]",
	  FLT_AMD_EVENT, FLT_FAM_AMD, "0000:28:00.0", 0x7fffff00000, NO_CODE },
	{ "AMD-Vi: Event logged [IO_PAGE_FAULT device=28:00.0 domain=0x000d address=0x00007fffff00000 flags=0x0000]",
	  FLT_AMD_EVENT, FLT_FAM_AMD, "0000:28:00.0", 0x7fffff00000, NO_CODE },
	/* 5.x: the prefix is the IOMMU's own PCI function, device= the culprit */
	{ "pci 0000:00:00.2: AMD-Vi: Event logged [IO_PAGE_FAULT device=05:00.0 domain=0x0000 address=0xfffff000 flags=0x0020]",
	  FLT_AMD_EVENT, FLT_FAM_AMD, "0000:05:00.0", 0xfffff000, NO_CODE },
	{ "xhci_hcd 0000:05:00.3: Event logged [IO_PAGE_FAULT domain=0x0008 address=0xffffffc0 flags=0x0020]",
	  FLT_AMD_EVENT, FLT_FAM_AMD, "0000:05:00.3", 0xffffffc0, NO_CODE },
	{ "AMD-Vi: Event logged [", FLT_AMD_EVENT, FLT_FAM_AMD, NULL, 0, NO_CODE },
	{ "IO_PAGE_FAULT device=28:00.0 domain=0x000d address=0x7fffff00000 flags=0x0000]",
	  FLT_AMD_TAIL, FLT_FAM_AMD, "0000:28:00.0", 0x7fffff00000, NO_CODE },
	{ "AMD-Vi: IOMMU event log overflow", FLT_OVERFLOW, FLT_FAM_AMD, NULL, 0, NO_CODE },

	/* Arm SMMUv3: the raw record, and the decoded line of newer kernels */
	{ "[    1.176086] arm-smmu-v3 9050000.smmuv3: event 0x10 received:",
	  FLT_SMMUV3_EVENT, FLT_FAM_SMMUV3, NULL, 0, 0x10 },
	{ "arm-smmu-v3 9050000.smmuv3: \t0x0000001000000010",
	  FLT_SMMUV3_WORD, FLT_FAM_SMMUV3, NULL, 0, NO_CODE },
	{ "arm-smmu-v3 9050000.smmuv3:      0x0000001000000010  ",
	  FLT_SMMUV3_WORD, FLT_FAM_SMMUV3, NULL, 0, NO_CODE },
	{ "arm-smmu-v3 arm-smmu-v3.0.auto: event: F_TRANSLATION client: 0000:00:02.0 sid: 0x10 ssid: 0x0 iova: 0xfffff000 ipa: 0x0",
	  FLT_SMMUV3_DECODED, FLT_FAM_SMMUV3, "0000:00:02.0", 0xfffff000, 0x10 },
	{ "arm-smmu-v3 9050000.smmuv3: event: F_TRANSLATION client: (unassigned sid) sid: 0x18 ssid: 0x0 iova: 0x7ffffff000 ipa: 0x0",
	  FLT_SMMUV3_DECODED, FLT_FAM_SMMUV3, "0000:00:03.0", 0x7ffffff000, 0x10 },
	{ "arm-smmu-v3 9050000.smmuv3: EVTQ overflow detected -- events lost",
	  FLT_OVERFLOW, FLT_FAM_SMMUV3, NULL, 0, NO_CODE },
	{ "arm-smmu-v3 9050000.smmuv3: ias 44-bit, oas 44-bit (features 0x00008305)",
	  FLT_NONE, 0, NULL, 0, NO_CODE },

	{ "arm-smmu 5000000.iommu: Unhandled context fault: fsr=0x402, iova=0xfffff000, fsynr=0x1, cbfrsynra=0x800, cb=3",
	  FLT_SMMU_CONTEXT, FLT_FAM_SMMU, NULL, 0xfffff000, NO_CODE },

	/* virtio-iommu (6.1's viommu_fault_handler) */
	{ "virtio_iommu virtio0: page fault from EP 16 at 0xfffff000 [R]",
	  FLT_VIRTIO_FAULT, FLT_FAM_VIRTIO, "0000:00:02.0", 0xfffff000, NO_CODE },
	{ "virtio_iommu virtio1: domain fault from EP 24",
	  FLT_VIRTIO_FAULT, FLT_FAM_VIRTIO, "0000:00:03.0", 0, NO_CODE },

	/* around the faults */
	{ "[   13.0] dmar_fault: 18 callbacks suppressed", FLT_SUPPRESSED, FLT_FAM_DMAR, NULL, 0, NO_CODE },
	{ "amd_iommu_report_page_fault: 7 callbacks suppressed", FLT_SUPPRESSED, FLT_FAM_AMD, NULL, 0, NO_CODE },
	{ "arm_smmu_evtq_thread: 3 callbacks suppressed", FLT_SUPPRESSED, FLT_FAM_SMMUV3, NULL, 0, NO_CODE },
	{ "viommu_fault_handler: 2 callbacks suppressed", FLT_SUPPRESSED, FLT_FAM_VIRTIO, NULL, 0, NO_CODE },
	{ "net_ratelimit: 4 callbacks suppressed", FLT_NONE, 0, NULL, 0, NO_CODE },
	{ "nvme 0000:01:00.0: Using 64-bit DMA addresses", FLT_ADAPTIVE, 0, "0000:01:00.0", 0, NO_CODE },
	{ "edu 0000:00:02.0: 32-bit IOVA space full, mapping above 4GB from now on; if the device then fails, its DMA mask is wider than it decodes: report it, and pin it first with iommu.sac_devices=1234:11e8:sac",
	  FLT_ADAPTIVE, 0, "0000:00:02.0", 0, NO_CODE },
	{ "", FLT_NONE, 0, NULL, 0, NO_CODE },
	{ "Event logged [", FLT_NONE, 0, NULL, 0, NO_CODE },
};

static void test_lines(void)
{
	char what[200], bdf[FLT_BDF_LEN];
	const struct line_case *c;
	struct flt_line l;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		c = &lines[i];
		snprintf(what, sizeof(what), "%.110s", c->line);
		flt_parse_line(c->line, &l);
		check(l.kind == c->kind && l.family == c->family, "kind: %s", what);
		if (c->kind == FLT_NONE)
			continue;
		check(c->bdf ? l.has_dev && !strcmp(flt_format_bdf(l.dev, bdf), c->bdf) :
		      !l.has_dev, "device: %s", what);
		check(c->addr ? l.has_addr && l.addr == c->addr : !l.has_addr,
		      "address: %s", what);
		if (c->code != NO_CODE)
			check(l.has_code && l.code == (unsigned int)c->code,
			      "reason/event: %s", what);
	}
}

static void test_fields(void)
{
	struct flt_line l;

	flt_parse_line("DMAR: DRHD: handling fault status reg 3", &l);
	check(l.lost, "%s", "DMAR status 3: the overflow bit says records were lost");
	flt_parse_line("dmar_fault: 18 callbacks suppressed", &l);
	check(l.value == 18, "%s", "suppressed: the count");
	flt_parse_line("nvme 0000:01:00.0: Using 48-bit DMA addresses", &l);
	check(l.value == 48, "%s", "adaptive: the bits");
	flt_parse_line("edu 0000:00:02.0: 32-bit IOVA space full, ... iommu.sac_devices=1234:11e8:sac", &l);
	check(l.has_pci_id && l.vendor == 0x1234 && l.device == 0x11e8, "%s",
	      "the series' fallback line: vendor:device");
	flt_parse_line("AMD-Vi: Event logged [ILLEGAL_DEV_TABLE_ENTRY device=0000:00:14.0 pasid=0x00000 address=0xfffff000 flags=0x0000]", &l);
	check(l.kind == FLT_AMD_EVENT && !l.page_fault, "%s",
	      "AMD-Vi: another event type is no page fault");
	flt_parse_line("virtio_iommu virtio1: domain fault from EP 24", &l);
	check(!l.page_fault && l.dev_from_id, "%s",
	      "virtio: a domain fault is no page fault; device from the endpoint");
	flt_parse_line("DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0x0 [fault reason 0x02] Present bit in context entry is clear", &l);
	check(!l.page_fault, "%s", "DMAR reason 2 (context entry) is no page fault");
}

static void test_classifier_lines(void)
{
	static const char *const yes[] = {
		"DMAR: DRHD: handling fault status reg 2",
		"DMAR-IR: [Firmware Bug]: ... fault",
		"DMAR: [INTR-REMAP] Request device [00:02.0] fault index 0x1 [fault reason 0x25] x",
		"AMD-Vi: Event logged [",
		"arm-smmu-v3 9050000.smmuv3: event 0x02 received:",
		"arm-smmu-v3 9050000.smmuv3: event: F_TRANSLATION client: 0000:00:02.0 sid: 0x10 ssid: 0x0 iova: 0x1000 ipa: 0x0",
		"arm-smmu 1.iommu: Unhandled context fault: fsr=0x402, iova=0x1000",
		"virtio_iommu virtio0: unknown fault from EP 3",
	};
	static const char *const no[] = {
		"arm-smmu-v3 9050000.smmuv3: \t0x0000000800000002",
		"IO_PAGE_FAULT device=28:00.0 domain=0x000d address=0x1 flags=0x0000]",
		"dmar_fault: 1 callbacks suppressed",
		"arm-smmu-v3 9050000.smmuv3: EVTQ overflow detected -- events lost",
		"nvme 0000:01:00.0: Using 64-bit DMA addresses",
	};
	struct flt_line l;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(yes); i++)
		check(flt_is_fault_line(flt_parse_line(yes[i], &l)),
		      "a fault line for the classifier: %s", yes[i]);
	for (i = 0; i < ARRAY_SIZE(no); i++)
		check(!flt_is_fault_line(flt_parse_line(no[i], &l)),
		      "not a fault line of its own: %s", no[i]);
}

static void test_bdf(void)
{
	static const struct {
		const char *s;
		const char *want;	/* NULL: refused */
	} cases[] = {
		{ "0000:28:00.0", "0000:28:00.0" }, { "28:00.0", "0000:28:00.0" },
		{ "0x00:0x02.0x0", "0000:00:02.0" }, { "ffff:ff:1f.7", "ffff:ff:1f.7" },
		{ "00:20.0", NULL }, { "00:02.8", NULL }, { "10:00:01 x", NULL },
		{ "100:00.0", NULL }, { "10000:00:00.0", NULL }, { ":00.0", NULL },
		{ "00:02.01", NULL },
	};
	char bdf[FLT_BDF_LEN];
	uint32_t dev;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *end = flt_parse_bdf(cases[i].s, &dev);

		check(cases[i].want ? end && !strcmp(flt_format_bdf(dev, bdf), cases[i].want) :
		      !end, "PCI address: %s", cases[i].s);
	}
}

/* ---- the reader ---- */

static struct flt_event got[8];
static unsigned int n_got;

static void sink(const struct flt_event *ev, void *arg)
{
	(void)arg;
	if (n_got < ARRAY_SIZE(got))
		got[n_got] = *ev;
	n_got++;
}

static void read_lines(const char *const *l, size_t n)
{
	struct flt_reader r;
	size_t i;

	n_got = 0;
	flt_reader_init(&r, sink, NULL);
	for (i = 0; i < n; i++)
		flt_reader_line(&r, l[i], i + 1);
	flt_reader_end(&r);
}

static void test_reader(void)
{
	static const char *const smmu[] = {
		"arm-smmu-v3 9050000.smmuv3: event 0x10 received:",
		"arm-smmu-v3 9050000.smmuv3: \t0x0000001000000010",
		"some other line",
		"arm-smmu-v3 9050000.smmuv3: \t0x0000020080000000",
		"arm-smmu-v3 9050000.smmuv3: \t0x0000007ffffff000",
		"arm-smmu-v3 9050000.smmuv3: \t0x0000000000000000",
	};
	static const char *const two[] = {
		"arm-smmu-v3 a.smmuv3: event 0x10 received:",
		"arm-smmu-v3 b.smmuv3: event 0x02 received:",
		"arm-smmu-v3 a.smmuv3: \t0x0000000800000010",
		"arm-smmu-v3 b.smmuv3: \t0x0000001800000002",
		"arm-smmu-v3 a.smmuv3: \t0x0",
		"arm-smmu-v3 a.smmuv3: \t0xfffff000",
	};
	static const char *const amd[] = {
		"[ 5.0] AMD-Vi: Event logged [",
		"[ 5.0] IO_PAGE_FAULT device=28:00.0 domain=0x000d address=0x7fffff00000 flags=0x0000]",
	};
	static const char *const dmar[] = {
		"DMAR:[DMA Read] Request device [02:00.0] fault addr fffff000 ",
		"DMAR:[fault reason 06] PTE Read access is not set",
		"DMAR: DRHD: handling fault status reg 2",
	};
	char bdf[FLT_BDF_LEN];

	read_lines(smmu, ARRAY_SIZE(smmu));
	check(n_got == 1 && got[0].no == 1 && got[0].l.kind == FLT_SMMUV3_EVENT &&
	      got[0].l.addr == 0x7ffffff000 && got[0].l.dev_from_id &&
	      !strcmp(flt_format_bdf(got[0].l.dev, bdf), "0000:00:02.0"), "%s",
	      "SMMUv3: header and four words are one event; StreamID 0x10 is 00:02.0, word 2 the address");
	read_lines(two, ARRAY_SIZE(two));
	check(n_got == 2 && got[0].l.id == 0x8 && got[0].l.addr == 0xfffff000 &&
	      got[1].l.id == 0x18 && !got[1].l.has_addr && got[1].l.code == 2,
	      "%s", "SMMUv3: two instances interleaved, one cut short, each its own record");
	read_lines(amd, ARRAY_SIZE(amd));
	check(n_got == 1 && got[0].no == 1 && got[0].l.kind == FLT_AMD_EVENT &&
	      got[0].l.has_dev && got[0].l.addr == 0x7fffff00000, "%s",
	      "AMD-Vi: a split event is one event, numbered by its head");
	read_lines(dmar, ARRAY_SIZE(dmar));
	check(n_got == 2 && got[0].l.kind == FLT_DMAR_FAULT && got[0].l.code == 6 &&
	      got[0].l.page_fault && got[1].l.kind == FLT_DMAR_STATUS, "%s",
	      "DMAR: the old reason line joins its record");
	read_lines(amd, 1);
	check(n_got == 1 && !got[0].l.has_dev, "%s",
	      "AMD-Vi: a head whose body never came is handed over alone");
}

static void test_cut_bits(void)
{
	static const struct {
		unsigned long long addr;
		unsigned int k;
	} cases[] = {
		{ 0xfffff000, 32 }, { 0xf0000000, 32 }, { 0xefffffff, 0 },
		{ 0x7fffff00000, 43 }, { 0x7ffffff000, 39 }, { 0xffffffff000, 44 },
		{ 0xfffffffff000, 0 }, { 0x12345000, 0 }, { 0x100001000, 0 }, { 0, 0 },
	};
	char what[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(what, sizeof(what), "0x%llx -> %u bits", cases[i].addr,
			 cases[i].k);
		check(flt_cut_bits(cases[i].addr) == cases[i].k, "cut IOVA: %s", what);
	}
}

int main(void)
{
	test_lines();
	test_fields();
	test_classifier_lines();
	test_bdf();
	test_reader();
	test_cut_bits();
	printf("1..%d\n", test_no);
	return failed ? 1 : 0;
}
