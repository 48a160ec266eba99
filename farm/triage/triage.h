/* SPDX-License-Identifier: GPL-2.0 */
/*
 * triage: from a user's kernel log to the iommu.sac_devices= entry that
 * fixes their machine. One pass over the log, line by line, in bounded
 * memory (scan.c): the fault records (farm/common/faults.c) go to a table
 * of devices (devices.c), the lines around them to the context (context.c),
 * the farm agent's data-corruption results to the same table (result.c);
 * at the end every device gets a verdict and the report is written as
 * text (report.c) or JSON (report_json.c).
 */
#ifndef FARM_TRIAGE_H
#define FARM_TRIAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <jansson.h>

#include "faults.h"

#define TRI_LINE_MAX	8192	/* a longer line is cut, and counted */
#define TRI_DEVICES	64	/* devices tracked; events past them counted */
#define TRI_ADDRS	16	/* distinct fault addresses kept per device */
#define TRI_IDS		1024	/* PCI addresses with a known vendor:device */
#define TRI_TEXT	120	/* a systemd target or job name, kept */
#define TRI_ENTRIES	16	/* entries iommu.sac_devices= takes */
#define TRI_AGENT_MAX	4000	/* a farm agent line is shorter: PROTOCOL.md */
#define TRI_NONCE	16	/* hex digits of the agent's nonce */

/* Where a vendor:device came from, weakest first. */
enum tri_id_source {
	TRI_ID_NONE,
	TRI_ID_SERIES,		/* the series' "32-bit IOVA space full" line */
	TRI_ID_KERNEL,		/* the kernel's "pci BDF: [vvvv:dddd]" */
	TRI_ID_IDENTITY,	/* the farm agent's identity line */
	TRI_ID_LSPCI,		/* --lspci */
};

struct tri_id {
	uint32_t bdf;
	uint16_t vendor, device;
	enum tri_id_source source;
	char name[80];		/* lspci's words for it, may be empty */
};

enum tri_verdict {
	TRI_NONE,
	TRI_SAC,	/* cut or high addresses, an adaptive trip, or data */
			/* corrupted at DMA addresses above 4 GiB: the trick */
	TRI_UNKNOWN,	/* faults with no address to judge */
	TRI_OTHER,	/* low addresses, not cut, or interrupts: another bug */
	TRI_ADAPTIVE,	/* left the 32-bit path, and no fault followed */
};

/*
 * The farm agent's results that found the data corrupted and named this
 * device: the evidence when the IOMMU reported no fault at all.
 */
struct tri_silent {
	unsigned long results;		/* 0: none */
	unsigned long first_line, last_line;
	unsigned long above_4g;		/* the largest "above_4g=N" named */
	unsigned long ws;		/* "ws=N" of that same result, 0: none */
	char workload[32];		/* the first result's */
	char reason[TRI_TEXT];
	uint64_t addrs[TRI_ADDRS];	/* distinct DMA addresses above 4 GiB */
	unsigned int n_addrs;
	unsigned long unlisted;
};

struct tri_device {
	enum flt_family family;
	bool has_bdf, bdf_from_id, has_id, has_code;
	uint32_t bdf, id;
	unsigned long faults, intr, page_faults, with_addr, above_4g, cut;
	unsigned long suppressed;
	unsigned int cut_bits;		/* the widest k a cut address matched */
	uint64_t addrs[TRI_ADDRS];	/* distinct, in order of appearance */
	unsigned int n_addrs;
	unsigned long unlisted;		/* addresses seen after the list filled */
	unsigned long first_line, last_line;
	char type[24];			/* the first fault's */
	unsigned int code;
	unsigned long adaptive_line;	/* 0: no adaptive notice */
	unsigned int adaptive_bits;
	struct tri_silent silent;
	const struct tri_id *pci;	/* resolved by tri_finish() */
	enum tri_verdict verdict;
};

struct tri_family {
	unsigned long faults, status, suppressed, overflows;
	unsigned long unattributed;	/* suppressed before any device faulted */
	int last_dev;			/* the device that faulted last, or -1 */
};

struct tri_context {
	char target[TRI_TEXT];		/* systemd's last "Reached target" */
	unsigned long target_line;
	char job[TRI_TEXT];		/* ... and last "A start job is running" */
	unsigned long job_line;
	char release[64];		/* "Linux version X" or the identity's uname */
	char sac[8];			/* the identity's "y", "n" or "unknown" */
	char nonce[TRI_NONCE + 1];	/* the identity's, "" before it */
	char cmdline_sac[TRI_TEXT];	/* iommu.sac_devices= on the command line */
	int forcedac;			/* iommu.forcedac= on it, -1 if absent */
};

struct triage {
	const char *input;
	unsigned long lines, cut_lines;
	struct tri_device dev[TRI_DEVICES];
	unsigned int n_dev;
	unsigned long dropped;		/* events of devices past the table */
	struct tri_family fam[FLT_FAM_COUNT];
	struct tri_id ids[TRI_IDS];
	unsigned int n_ids;
	uint16_t id_hash[2 * TRI_IDS];	/* index + 1 into ids, 0: free */
	struct tri_context ctx;
	struct flt_reader reader;
};

/* scan.c */
void tri_init(struct triage *t, const char *input);
int tri_read(struct triage *t, FILE *f);

/* devices.c */
struct tri_device *tri_device_at(struct triage *t, uint32_t bdf);
void tri_event(const struct flt_event *ev, void *arg);
void tri_finish(struct triage *t);
bool tri_found(const struct triage *t);
bool tri_adaptive_first(const struct tri_device *d);
bool tri_wants_entry(const struct tri_device *d);
unsigned int tri_entries(const struct triage *t, char *buf, size_t size);

/* context.c */
void tri_context_line(struct triage *t, const char *line, unsigned long no);
void tri_add_id(struct triage *t, uint32_t bdf, uint16_t vendor,
		uint16_t device, enum tri_id_source source, const char *name);
const struct tri_id *tri_find_id(const struct triage *t, uint32_t bdf);
int tri_read_lspci(struct triage *t, const char *path);
const char *tri_id_source_name(enum tri_id_source source);
void tri_clean_text(char *dst, size_t size, const char *src, size_t n);
const char *tri_agent_line(const char *line, const char *kind, char *nonce);
bool tri_hex4(const char *s, uint16_t *v);

/* result.c */
void tri_result_line(struct triage *t, const char *line, unsigned long no);

/* report.c, report_json.c */
const char *tri_verdict_name(enum tri_verdict v);
const char *tri_explain(const struct triage *t, const struct tri_device *d,
			char *buf, size_t size);
const char *tri_next_step(const struct tri_device *d, char *buf, size_t size);
void tri_report_text(const struct triage *t, FILE *out);
json_t *tri_report_json(const struct triage *t);

#endif /* FARM_TRIAGE_H */
