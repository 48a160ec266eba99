/* SPDX-License-Identifier: GPL-2.0 */
/*
 * classify: one farm job's console log + console driver status file in,
 * one outcome record out (farm/PROTOCOL.md, "Outcomes").
 */
#ifndef SAC_CLASSIFY_H
#define SAC_CLASSIFY_H

#include <stddef.h>
#include <jansson.h>

/* A console line longer than this is cut and counted (PROTOCOL.md). */
#define CLS_LINE_MAX 4000

struct cls_job {
	const char *nonce;		/* 16 lower-case hex digits */
	const char *const *workloads;	/* asked for, in order */
	size_t n_workloads;
	const char *job_id;		/* may be NULL */
	const char *log;		/* NULL: the log file is missing */
	size_t log_len;
	const char *status;		/* NULL: the status file is missing */
	size_t status_len;
	const char *log_name;		/* for reasons */
	const char *status_name;
};

/* Line patterns, exposed for the unit tests. */
enum cls_kind {
	CLS_NONE,
	CLS_PANIC,
	CLS_OOPS,
	CLS_FAULT,
	CLS_QEMU_CRASH,	/* QEMU abort/assert/hw_error: decisive alone */
	CLS_QEMU_MSG,	/* any other QEMU diagnostic: evidence for an exit */
};

enum cls_kind cls_match_line(const char *line);
int cls_valid_nonce(const char *s);
int cls_valid_workload(const char *s);

/* The outcome record; NULL only when out of memory. */
json_t *cls_classify(const struct cls_job *job);

#endif
