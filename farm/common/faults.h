/* SPDX-License-Identifier: GPL-2.0 */
/*
 * faults: the one parser for the kernel's IOMMU log lines. The classifier
 * asks it whether a console line is a fault line; triage reads whole
 * records (an SMMUv3 event spans five lines, an old AMD-Vi event two) and
 * the lines around them: rate-limit notes, queue overflows, the adaptive
 * "Using 64-bit DMA addresses" notice.
 *
 * A line is matched wherever its message starts, so timestamps, journal
 * and syslog prefixes, "> " quoting and the like need no stripping. The
 * formats are those of Linux 6.1 (drivers/iommu/intel/dmar.c,
 * drivers/iommu/amd/iommu.c, drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c,
 * drivers/iommu/virtio-iommu.c) plus the older and newer variants these
 * drivers have printed.
 */
#ifndef FARM_COMMON_FAULTS_H
#define FARM_COMMON_FAULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum flt_family {
	FLT_FAM_NONE,
	FLT_FAM_DMAR,		/* Intel VT-d */
	FLT_FAM_AMD,		/* AMD-Vi */
	FLT_FAM_SMMUV3,		/* Arm SMMUv3 */
	FLT_FAM_SMMU,		/* Arm SMMU v1/v2 */
	FLT_FAM_VIRTIO,		/* virtio-iommu */
	FLT_FAM_COUNT,
};

enum flt_kind {
	FLT_NONE,
	/* Fault lines: what the classifier counts. */
	FLT_DMAR_STATUS,	/* DMAR: DRHD: handling fault status reg 2 */
	FLT_DMAR_FAULT,		/* DMAR: [DMA Read NO_PASID] Request device [..] fault addr .. */
	FLT_DMAR_INTR,		/* DMAR: [INTR-REMAP] ..., or a DMAR-IR fault */
	FLT_AMD_EVENT,		/* AMD-Vi: Event logged [...], perhaps only its head */
	FLT_SMMUV3_EVENT,	/* arm-smmu-v3 X: event 0x10 received: */
	FLT_SMMUV3_DECODED,	/* arm-smmu-v3 X: event: F_TRANSLATION client: .. */
	FLT_SMMU_CONTEXT,	/* arm-smmu X: Unhandled context fault: .. */
	FLT_VIRTIO_FAULT,	/* virtio_iommu virtio0: page fault from EP 8 .. */
	/* Parts of records, and lines about faults. */
	FLT_DMAR_REASON,	/* the old second line: DMAR:[fault reason 06] .. */
	FLT_AMD_TAIL,		/* IO_PAGE_FAULT device=.. after a lone event head */
	FLT_SMMUV3_WORD,	/* one raw event word: arm-smmu-v3 X: 0x.. */
	FLT_SUPPRESSED,		/* dmar_fault: 12 callbacks suppressed */
	FLT_OVERFLOW,		/* EVTQ overflow detected, event log overflow */
	FLT_ADAPTIVE,		/* X 0000:28:00.0: Using 64-bit DMA addresses */
};

/* What one line says; which fields are set depends on the kind. */
struct flt_line {
	enum flt_kind kind;
	enum flt_family family;
	bool has_dev;		/* dev is a PCI address */
	bool dev_from_id;	/* ... read from a stream or endpoint ID */
	bool has_addr;
	bool has_id;		/* id: SMMU StreamID or virtio endpoint */
	bool has_code;		/* code: DMAR fault reason, SMMUv3 event ID */
	bool has_pci_id;	/* vendor:device named by the line itself */
	bool page_fault;	/* a DMA fault at an address (not interrupts, */
				/* not a missing stream table entry) */
	bool lost;		/* the hardware dropped fault records */
	uint32_t dev;		/* segment << 16 | bus << 8 | devfn */
	uint32_t id;
	uint64_t addr;		/* the faulting I/O virtual address */
	uint64_t value;		/* raw word, count suppressed, DMA bits, status */
	unsigned int code;
	uint16_t vendor, device;
	char type[24];		/* "DMA Read", "IO_PAGE_FAULT", "F_TRANSLATION" */
	char src[48];		/* the IOMMU instance, e.g. 9050000.smmuv3 */
};

/* Parses @line (NUL-terminated, no newline) into @out; returns its kind. */
enum flt_kind flt_parse_line(const char *line, struct flt_line *out);

/* A line the classifier counts as an IOMMU fault. */
bool flt_is_fault_line(enum flt_kind kind);

/*
 * The IOVA allocator hands out addresses top-down from a device's DMA
 * limit, so a device that drops every address bit above bit k-1 turns
 * the first IOVAs it gets into addresses just below 2^k: 0xfffffffff000
 * becomes 0xfffff000 for k = 32, and an ASM1061-like part that decodes 43
 * bits faults at 0x7fffff00000. For a fault address "cut" like that, k:
 * how many bits the device really decodes; 0 for any other address.
 */
unsigned int flt_cut_bits(uint64_t addr);

/* "intel-dmar", "amd-vi", "arm-smmu-v3", "arm-smmu", "virtio-iommu". */
const char *flt_family_name(enum flt_family family);

/* The SMMUv3 event name of @id ("F_TRANSLATION"), NULL if unknown. */
const char *flt_smmuv3_event_name(unsigned int id);

/*
 * A PCI address at @s: [[0x]SSSS:][0x]BB:[0x]DD.[0x]F. Returns the end of
 * it, NULL when there is none; @dev as in struct flt_line.
 */
const char *flt_parse_bdf(const char *s, uint32_t *dev);

/* "0000:00:02.0": @buf holds at least FLT_BDF_LEN bytes. */
#define FLT_BDF_LEN 16
char *flt_format_bdf(uint32_t dev, char *buf);

/* ---- records: lines joined into events ---- */

/*
 * One event: a fault with every line of its record merged into @l (kind
 * is the record's first line's), or a line that stands alone (status,
 * suppressed, overflow, adaptive). @no is the first line's number.
 */
struct flt_event {
	struct flt_line l;
	unsigned long no;
};

typedef void (*flt_sink_fn)(const struct flt_event *ev, void *arg);

#define FLT_OPEN_SMMU 4		/* SMMUv3 instances with a record open */

struct flt_open {
	struct flt_event ev;
	unsigned int parts;	/* SMMUv3 words seen */
	unsigned long last;	/* line number of the last part */
	bool open;
};

struct flt_reader {
	flt_sink_fn sink;
	void *arg;
	struct flt_open dmar;	/* a record waiting for its reason line */
	struct flt_open amd;	/* an event head waiting for its body */
	struct flt_open smmu[FLT_OPEN_SMMU];
};

void flt_reader_init(struct flt_reader *r, flt_sink_fn sink, void *arg);

/*
 * Feeds line number @no. Events go to the sink in the order their records
 * complete; a record whose lines stop coming is handed over partial.
 */
void flt_reader_line(struct flt_reader *r, const char *line, unsigned long no);

/* Hands over every open record. */
void flt_reader_end(struct flt_reader *r);

/* The value of one hex digit, or -1. */
int flt_hex_digit(char c);

#endif /* FARM_COMMON_FAULTS_H */
