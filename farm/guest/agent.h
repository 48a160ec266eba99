/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sac-agent: the farm's guest-side PID 1. This header is the API the
 * workloads use; the protocol it speaks is farm/PROTOCOL.md.
 */
#ifndef SAC_AGENT_H
#define SAC_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

#include "../module/edu.h"	/* the edu device's IDs, shared with sac_edu */
#include "chain.h"		/* farm/common: the line chain, shared with the host */

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The kernel's spellings, so the guest code reads like kernel code. */
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
#define SAC_ATTR(x)	__attribute__((x))
#define __printf(a, b)	SAC_ATTR(__format__(__printf__, a, b))
#define __noreturn	SAC_ATTR(__noreturn__)

/* Every console line, prefix to newline, stays below this. */
#define SAC_LINE_MAX		4000
/* leaves room for "SAC <nonce> <kind> <seq> <mac> " */
#define SAC_JSON_MAX		3800
#define SAC_NONCE_LEN		16
#define SAC_NAME_MAX		32
#define SAC_REASON_MAX		256
#define SAC_DETAIL_MAX		256
#define SAC_MAX_METRICS		32
#define SAC_MAX_DETAILS		24
#define SAC_MAX_RUN		16

/* The command line: a bounded copy and the sac.* tokens inside it. */
#define SAC_CMDLINE_MAX		4096
#define SAC_MAX_PARAMS		64
#define SAC_VALUE_MAX		256

struct sac_param {
	char key[SAC_NAME_MAX * 2];	/* "blk.mib" for sac.blk.mib */
	char value[SAC_VALUE_MAX];
};

struct sac_cmdline {
	char nonce[SAC_NONCE_LEN + 1];	/* "none" until a valid one is seen */
	char run[SAC_MAX_RUN][SAC_NAME_MAX + 1];
	int nrun;
	char stall[SAC_NAME_MAX + 1];	/* empty: no stall */
	struct sac_param params[SAC_MAX_PARAMS];
	int nparams;
	int errors;			/* malformed sac.* tokens ignored */
	char first_error[128];
};

enum sac_status {
	SAC_PASS,
	SAC_FAIL,
	SAC_SKIP,
};

struct sac_metric {
	char name[SAC_NAME_MAX + 1];
	double value;
};

struct sac_detail {
	char name[SAC_NAME_MAX + 1];
	char value[SAC_DETAIL_MAX];
};

/*
 * One workload's verdict. Plain data with no pointers: a workload runs in
 * a child process and the whole struct travels back through a pipe.
 */
struct sac_result {
	char workload[SAC_NAME_MAX + 1];
	enum sac_status status;
	char reason[SAC_REASON_MAX];
	struct sac_metric metrics[SAC_MAX_METRICS];
	int nmetrics;
	struct sac_detail details[SAC_MAX_DETAILS];
	int ndetails;
	int dropped;		/* metrics/details that did not fit */
	const char *prefix;	/* put before metric and detail names, or NULL */
};

/* Result helpers. The first fail reason wins; skip never hides a fail. */
void sac_result_init(struct sac_result *r, const char *workload);
void sac_metric(struct sac_result *r, const char *name, double value);
void sac_detail(struct sac_result *r, const char *name, const char *fmt, ...) __printf(3, 4);
void sac_detail_words(struct sac_result *r, const char *name, FILE *f);
void sac_fail(struct sac_result *r, const char *fmt, ...) __printf(2, 3);
void sac_skip(struct sac_result *r, const char *fmt, ...) __printf(2, 3);
const char *sac_status_name(enum sac_status s);

/*
 * Workload parameters: sac.<workload>.<key>=VALUE on the command line.
 * sac_param() returns def when absent. sac_param_uint() parses a decimal
 * number in [min, max]; on bad input it fails the result, names the
 * parameter in the reason and returns -1.
 */
const char *sac_param(const struct sac_result *r, const char *key,
		      const char *def);
int sac_param_uint(struct sac_result *r, const char *key, unsigned long def,
		   unsigned long min, unsigned long max, unsigned long *out);
/* A 64-bit value derived from the job's nonce, for fresh data per job. */
u64 sac_nonce_seed(void);

/*
 * Load a kernel module from a file in the initramfs with finit_module(2)
 * (the guest has no insmod). Returns 0 or a negative errno.
 */
int sac_load_module(const char *path, const char *params);
/*
 * finit_module(2) flags for the file at @path: a compressed module
 * (.ko.xz, .ko.zst, .ko.gz, as distribution kernels ship them) is handed
 * to the kernel to decompress (CONFIG_MODULE_DECOMPRESS), as kmod does.
 */
int sac_module_init_flags(const char *path);
int sac_unload_module(const char *name);

#define SAC_PCI_DIR	"/sys/bus/pci/devices"

/*
 * Sysfs attribute @attr (may be "dir/file") of PCI device @bdf: read as
 * one line without its newline, or written; 0 or a negative errno.
 */
int sac_pci_attr(const char *bdf, const char *attr, char *buf, size_t size);
int sac_pci_write(const char *bdf, const char *attr, const char *text);
/* Write @text to the sysfs file @path; 0 or a negative errno. */
int sac_sysfs_write(const char *path, const char *text);
/* A hex sysfs attribute of PCI device @bdf (e.g. "vendor"); 0 if absent. */
unsigned long sac_pci_hex(const char *bdf, const char *attr);
/* Whether a driver is bound to PCI device @bdf. */
bool sac_pci_bound(const char *bdf);
/*
 * Binds PCI device @bdf to @driver by name (driver_override), whatever its
 * id table says; 0 or -errno.
 */
int sac_pci_bind(const char *bdf, const char *driver);
/*
 * The device vendor:device with the lowest PCI address among those bound
 * (or unbound) to a driver, into bdf; false when there is none.
 */
bool sac_pci_find(unsigned long vendor, unsigned long device, bool bound,
		  char *bdf, size_t cap);
/*
 * Calls fn with each record of the kernel log so far ("prefix,seq,...;
 * message" and its continuation lines); 0, or a negative errno when the
 * log cannot be opened.
 */
int sac_kmsg_each(void (*fn)(const char *rec, void *arg), void *arg);

/* A diagnostic console line (not a protocol line), one write(2). */
void sac_log(const char *fmt, ...) __printf(1, 2);
/* Monotonic time in seconds. */
double sac_now(void);

/*
 * JSON string escaping into dst (at most cap bytes, always terminated):
 * quotes, backslashes, control characters and bytes >= 0x80 are escaped,
 * so the output is plain ASCII and valid JSON even when cut. No escape
 * sequence is ever split. Returns the number of input bytes consumed.
 */
size_t sac_json_escape(char *dst, size_t cap, const char *src);

/*
 * A bounded JSON writer. Every open reserves room for its closer, so a
 * writer that ran out of room still closes into valid JSON; callers that
 * want whole items use sac_jw_mark()/sac_jw_rollback().
 */
#define SAC_JW_DEPTH 8

struct sac_jw {
	char *buf;
	size_t cap;		/* usable bytes, closers already reserved */
	size_t len;
	bool full;
	int depth;
	unsigned int items[SAC_JW_DEPTH];
	char closer[SAC_JW_DEPTH];
};

struct sac_jw_mark {
	size_t len;
	size_t cap;
	int depth;
	unsigned int items;
};

void sac_jw_init(struct sac_jw *w, char *buf, size_t size);
void sac_jw_open(struct sac_jw *w, const char *key, char brace);
void sac_jw_close(struct sac_jw *w);
void sac_jw_str(struct sac_jw *w, const char *key, const char *val);
void sac_jw_strcut(struct sac_jw *w, const char *key, const char *val,
		   size_t maxlen);
void sac_jw_int(struct sac_jw *w, const char *key, long long val);
void sac_jw_num(struct sac_jw *w, const char *key, double val);
void sac_jw_bool(struct sac_jw *w, const char *key, bool val);
struct sac_jw_mark sac_jw_mark(const struct sac_jw *w);
void sac_jw_rollback(struct sac_jw *w, struct sac_jw_mark m);
/* Closes whatever is open and returns the finished text. */
const char *sac_jw_finish(struct sac_jw *w);

/* Pure parts shared by the agent and the host unit test. */
void sac_cmdline_words(const char *text, size_t len,
		       void (*fn)(char *word, void *arg), void *arg);
int sac_cmdline_parse(struct sac_cmdline *c, const char *text, size_t len);
const char *sac_cmdline_get(const struct sac_cmdline *c, const char *key);
void sac_set_cmdline(const struct sac_cmdline *c);
const struct sac_cmdline *sac_get_cmdline(void);
/*
 * Builds "SAC <nonce> <kind> <seq> <mac> <json>\n" into line (SAC_LINE_MAX
 * bytes), the next line of chain c; returns its length.
 */
size_t sac_line(char *line, struct sac_chain *c, const char *nonce,
		const char *kind, const char *json);
void sac_result_json(struct sac_jw *w, const struct sac_result *r);

struct sac_pci {
	char bdf[16];		/* 0000:00:02.0 */
	char vendor[8];		/* 4 hex digits, no 0x */
	char device[8];
	int group;		/* -1: no IOMMU group */
	char domain[16];	/* DMA, DMA-FQ, identity, ... or none */
};

struct sac_identity {
	char uname[65];
	char arch[65];
	const char *sac;	/* "y", "n" or "unknown" */
	char cmdline[SAC_CMDLINE_MAX];
	struct sac_pci *pci;
	int npci;
};

/* The identity object; cuts the command line and the PCI list to fit. */
void sac_identity_json(struct sac_jw *w, const struct sac_identity *id);

/*
 * The state of a bool option in a .config text: "y" for NAME=y, "n" for
 * "# NAME is not set", "unknown" when it is absent or anything else.
 */
const char *sac_kconfig_state(const char *text, size_t len, const char *name);

/* gzip (RFC 1952) with DEFLATE (RFC 1951): *out is malloc'd. */
int sac_gunzip(const unsigned char *in, size_t inlen, unsigned char **out,
	       size_t *outlen, size_t maxout);

#endif /* SAC_AGENT_H */
