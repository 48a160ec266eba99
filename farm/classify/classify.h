/* SPDX-License-Identifier: GPL-2.0 */
/*
 * classify: one farm job's console log + console driver status file in,
 * one outcome record out (farm/PROTOCOL.md, "Outcomes").
 */
#ifndef SAC_CLASSIFY_H
#define SAC_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

/* A console line longer than this is cut and counted (PROTOCOL.md). */
#define CLS_LINE_MAX 4000
/* A job's nonce: this many lower-case hex digits. */
#define CLS_NONCE_LEN 16

/*
 * err-flood (PROTOCOL.md): the agent's dmesg counts say the kernel logged
 * more err records than this, or any crit, alert or emerg one. Farm jobs
 * so far logged at most 10 (an IOMMU fault storm, judged first), a clean
 * boot none to two.
 */
#define CLS_ERR_MAX 32

struct cls_job {
	const char *nonce;		/* 16 lower-case hex digits */
	const char *const *workloads;	/* asked for, in order */
	size_t n_workloads;
	const char *job_id;		/* may be NULL */
	const char *log;		/* NULL: the log file is missing */
	size_t log_len;
	/* log_gap bytes of the file were not read, at offset log_gap_at */
	size_t log_gap_at;
	unsigned long long log_gap;
	const char *status;		/* NULL: the status file is missing */
	size_t status_len;
	/* the job's key (SAC_KEY_LEN bytes): NULL, the key file is missing */
	const uint8_t *key;
	const char *log_name;		/* for reasons */
	const char *status_name;
	const char *key_name;
};

/* Line patterns, exposed for the unit tests. */
enum cls_kind {
	CLS_NONE,
	CLS_PANIC,
	CLS_OOPS,
	CLS_FAULT,
	CLS_KERNEL_ERROR,	/* cls_kernel_error() names its class */
	CLS_QEMU_CRASH,	/* QEMU abort/assert/hw_error: decisive alone */
	CLS_QEMU_MSG,	/* any other QEMU diagnostic: evidence for an exit */
};

enum cls_kind cls_match_line(const char *line);
/*
 * A device's notice that it left 32-bit IOVAs, naming it: adaptive SAC's
 * "<driver> <device>: Using <n>-bit DMA addresses" (mainline since v6.6,
 * our patch 0005 for 6.1) or our series' "... 32-bit IOVA space full"
 * (farm/common/faults.c parses both). Where the message starts in @line
 * (past a printk time), or NULL if it is not one.
 */
const char *cls_sac_notice(const char *line);
/*
 * A status line of systemd's (an installed system's boot): true, with
 * what it says in @out (no status box, no terminal escapes).
 */
bool cls_systemd_line(const char *line, char *out, size_t cap);
/* That line (as cls_systemd_line() gave it) says a job is waiting. */
bool cls_systemd_waits(const char *said);
/* "rcu-stall", "hung-task", ... or NULL (farm/PROTOCOL.md, kernel-error). */
const char *cls_kernel_error(const char *line);
/* A printk time "[    1.234567]" starts at @p. */
bool cls_stamp_at(const char *p, const char *end);
/* Where kernel text starts inside agent line @line, 0 for nowhere. */
size_t cls_kernel_split(const char *line, size_t n, bool *stamped);
int cls_valid_nonce(const char *s);
int cls_valid_workload(const char *s);

/* The outcome record; NULL only when out of memory. */
json_t *cls_classify(const struct cls_job *job);

#endif
