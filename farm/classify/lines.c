// SPDX-License-Identifier: GPL-2.0
/*
 * lines: what one console line says (farm/PROTOCOL.md, "Outcomes").
 * The formats are Linux 6.1's (file names below are under its tree) and
 * QEMU 7.2's; newer kernels' variants are named where they differ.
 */
#include <ctype.h>
#include <string.h>

#include "classify.h"
#include "faults.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* @word occurs in @line, not glued to a preceding identifier character. */
static bool has_word(const char *line, const char *word)
{
	const char *p = line;

	while ((p = strstr(p, word))) {
		if (p == line || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			return true;
		p++;
	}
	return false;
}

/* @a occurs in @line, and @b after it. */
static bool has_then(const char *line, const char *a, const char *b)
{
	const char *p = strstr(line, a);

	return p && strstr(p + strlen(a), b);
}

static bool is_panic(const char *l)
{
	return strstr(l, "Kernel panic - not syncing");
}

/*
 * lockdep's reports (kernel/locking/lockdep.c, kernel/rcu/): a header
 * "WARNING: possible circular locking dependency detected" and the like,
 * without the "CPU:" of a WARN(). Not every "WARNING: " is one: x86
 * prints "Spectre V2 : WARNING: Unprivileged eBPF ..." at boot.
 */
static bool is_lockdep(const char *l)
{
	static const char * const reports[] = {
		"WARNING: possible ", "WARNING: inconsistent lock state",
		"WARNING: suspicious RCU usage", "WARNING: bad unlock balance",
		"WARNING: held lock freed", "lock order detected",
		"WARNING: lock held when returning to user space",
		"WARNING: Nested lock was not taken",
	};
	size_t i;

	for (i = 0; i < sizeof(reports) / sizeof(reports[0]); i++)
		if (strstr(l, reports[i]))
			return true;
	return false;
}

static bool is_oops(const char *l)
{
	return has_word(l, "Oops:") || has_word(l, "BUG:") ||
	       strstr(l, "kernel BUG at ") || strstr(l, "WARNING: CPU: ") ||
	       strstr(l, "Unable to handle kernel") ||
	       strstr(l, "general protection fault") || is_lockdep(l);
}

/* Fault lines of every IOMMU family: the one parser, farm/common/faults.c. */
static bool is_iommu_fault(const char *l)
{
	struct flt_line fl;

	return flt_is_fault_line(flt_parse_line(l, &fl));
}

/*
 * QEMU's own words. Its vIOMMU models report guest faults on stderr too
 * ("qemu-system-x86_64: vtd_iommu_translate: detected translation
 * failure"), and edu reports clamping: those are diagnostics, not crashes.
 */
static bool is_qemu_crash(const char *l)
{
	return strstr(l, "qemu: hardware error:") || strstr(l, "qemu: fatal:") ||
	       strstr(l, "qemu: uncaught target signal") ||
	       has_then(l, "EDU: DMA range ", " out of bounds") ||
	       (has_then(l, "qemu-system-", ": terminating on signal")) ||
	       (has_then(l, "qemu-system-", "Assertion") &&
		strstr(l, "failed")) ||
	       has_then(l, "ERROR:", "assertion failed");
}

static bool is_qemu_msg(const char *l)
{
	return !strncmp(l, "qemu-system-", 12) && !strstr(l, ": warning:");
}

/* ---- kernel trouble short of a panic, an oops or an IOMMU fault ---- */

/*
 * kernel/rcu/tree_stall.h, tree_exp.h, tasks.h: "rcu: INFO: rcu_sched
 * detected stalls on CPUs/tasks:", "... rcu_preempt self-detected stall on
 * CPU", "... detected expedited stalls ...", "INFO: rcu_tasks detected
 * stalls on tasks:".
 */
static bool is_rcu_stall(const char *l)
{
	const char *p = strstr(l, "INFO: rcu_");

	return p && (strstr(p, "detected stall") ||
		     strstr(p, "detected expedited stall"));
}

/* kernel/hung_task.c: "INFO: task NAME:PID blocked for more than N seconds." */
static bool is_hung_task(const char *l)
{
	return has_then(l, "INFO: task ", " blocked for more than ");
}

/*
 * kernel/watchdog.c: "watchdog: BUG: soft lockup - CPU#0 stuck for 22s!
 * [comm:pid]". Its "BUG:" would make it an oops; the kernel recovers from
 * it, so it is this class instead (cls_match_line() asks here first).
 */
static bool is_soft_lockup(const char *l)
{
	return strstr(l, "BUG: soft lockup - CPU#");
}

/* kernel/watchdog_hld.c: "Watchdog detected hard LOCKUP on cpu 0". */
static bool is_hard_lockup(const char *l)
{
	return strstr(l, "Watchdog detected hard LOCKUP on cpu");
}

/*
 * drivers/nvme/host/pci.c: "nvme nvme0: I/O 12 QID 1 timeout, aborting",
 * "... (Write) QID 1 timeout, reset controller", "..., disable controller",
 * "..., completion polled" (a lost interrupt), "nvme nvme0: Abort status:
 * 0x0"; newer kernels: "I/O tag 12 (100c) opcode 0x1 (I/O Cmd) QID 1
 * timeout, aborting req_op:WRITE(1) size:4096".
 */
static bool is_nvme_timeout(const char *l)
{
	const char *p = strstr(l, "nvme");

	return p && (has_then(p, " QID ", " timeout, ") ||
		     strstr(p, "Abort status: 0x"));
}

/*
 * drivers/base/dd.c: 6.1 "sac_edu: probe of 0000:00:02.0 failed with error
 * -5"; newer kernels "sac_edu 0000:00:02.0: probe with driver sac_edu
 * failed with error -5". -ENODEV and -ENXIO ("rejects match") are not.
 */
static bool is_probe_failed(const char *l)
{
	return has_then(l, "probe of ", " failed with error ") ||
	       has_then(l, "probe with driver ", " failed with error ");
}

/*
 * "WARNING: CPU: 0 PID: 57 at kernel/dma/debug.c:984 check_unmap...", the
 * file as the build named it: "kernel/dma/debug.c" in the source tree, a
 * path ending in "/kernel/dma/debug.c" from an O= build directory
 * ("../../src/linux/kernel/dma/debug.c" in the farm's) or another tree.
 */
static bool is_dma_debug_warn(const char *l)
{
	const char *p = strstr(l, "WARNING: CPU: ");
	const char *file;
	size_t n;

	p = p ? strstr(p, " at ") : NULL;
	if (!p)
		return false;
	file = p + 4;
	n = strcspn(file, " ");
	p = strstr(file, "kernel/dma/debug.c:");
	return p && p < file + n && (p == file || p[-1] == '/');
}

/*
 * kernel/dma/debug.c: err_printk() is a WARN whose message is "DMA-API:
 * DRIVER DEVICE: device driver frees DMA memory with different size ...",
 * then the WARNING line at kernel/dma/debug.c: both lines are this class,
 * not an oops. Its own troubles ("debugging out of memory - disabling")
 * are not a driver's error.
 */
static bool is_dma_api(const char *l)
{
	const char *p = strstr(l, "DMA-API: ");

	if (!p)
		return is_dma_debug_warn(l);
	return strstr(p, " device driver ") || strstr(p, "mapping sg segment ") ||
	       strstr(p, "cacheline tracking EEXIST") ||
	       strstr(p, " overlapping mappings of cacheline ");
}

static const struct {
	const char *name;
	bool (*match)(const char *l);
} kernel_errors[] = {
	{ "rcu-stall", is_rcu_stall },
	{ "hung-task", is_hung_task },
	{ "soft-lockup", is_soft_lockup },
	{ "hard-lockup", is_hard_lockup },
	{ "nvme-timeout", is_nvme_timeout },
	{ "probe-failed", is_probe_failed },
	{ "dma-api", is_dma_api },
};

const char *cls_kernel_error(const char *l)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kernel_errors); i++)
		if (kernel_errors[i].match(l))
			return kernel_errors[i].name;
	return NULL;
}

enum cls_kind cls_match_line(const char *l)
{
	if (is_qemu_crash(l))
		return CLS_QEMU_CRASH;
	if (is_panic(l))
		return CLS_PANIC;
	if (cls_kernel_error(l))
		return CLS_KERNEL_ERROR;
	if (is_oops(l))
		return CLS_OOPS;
	if (is_iommu_fault(l))
		return CLS_FAULT;
	if (is_qemu_msg(l))
		return CLS_QEMU_MSG;
	return CLS_NONE;
}

/* ---- kernel text spliced into an agent line ---- */

static size_t digits(const char *p, const char *end)
{
	const char *q = p;

	while (q < end && isdigit((unsigned char)*q))
		q++;
	return q - p;
}

/* A printk time, "[    1.234567]", starts at @p. */
bool cls_stamp_at(const char *p, const char *end)
{
	size_t n;

	if (p >= end || *p++ != '[')
		return false;
	while (p < end && *p == ' ')
		p++;
	n = digits(p, end);
	if (!n || p + n >= end || p[n] != '.')
		return false;
	p += n + 1;
	return digits(p, end) == 6 && p + 6 < end && p[6] == ']';
}

const char *cls_sac_notice(const char *line)
{
	struct flt_line fl;
	const char *time_end;

	if (flt_parse_line(line, &fl) != FLT_ADAPTIVE || !fl.has_dev)
		return NULL;
	time_end = *line == '[' ? strchr(line, ']') : NULL;
	if (time_end)
		line = time_end + 1;
	while (*line == ' ')
		line++;
	return line;
}

/*
 * systemd's status lines on the console (src/core/job.c, unit.c in
 * systemd 252): "[  OK  ] Reached target ...", "[ *** ] A start job is
 * running for ... (5s / no limit)" redrawn in place, "         Starting
 * ...", "         Expecting device ...". What a person reads there is
 * what they quote.
 */
static const char *const systemd_says[] = {
	"Reached target ", "A start job is running for ",
	"A stop job is running for ", "Expecting device ", "Job ",
	"Starting ", "Started ", "Finished ",
	"Mounting ", "Mounted ", "Listening on ", "Dependency failed for ",
	"Failed to start ", "Timed out waiting for device ", "Stopping ",
	"Stopped ",
};

/*
 * @line without its terminal escapes, as a terminal would end up showing
 * it: a carriage return or an erase-line (systemd's spinner redraws with
 * both) starts it afresh.
 */
static void strip_terminal(const char *line, char *out, size_t cap)
{
	size_t o = 0;

	for (; *line && o + 1 < cap; line++) {
		if (*line == '\r') {
			o = 0;
			continue;
		}
		if (*line == '\033' && line[1] == '[') {
			for (line += 2; *line && !(*line >= '@' && *line <= '~');
			     line++)
				;
			if (!*line)
				break;
			if (*line == 'K')
				o = 0;
			continue;
		}
		if ((unsigned char)*line >= 0x20 && *line != 0x7f)
			out[o++] = *line;
	}
	out[o] = '\0';
}

bool cls_systemd_waits(const char *said)
{
	return !strncmp(said, "A start job is running for ", 27) ||
	       !strncmp(said, "Expecting device ", 17) ||
	       (!strncmp(said, "Job ", 4) && strstr(said, " running ("));
}

bool cls_systemd_line(const char *line, char *out, size_t cap)
{
	const char *text;
	size_t i;

	strip_terminal(line, out, cap);
	text = out;
	if (cls_stamp_at(text, text + strlen(text)))
		return false;	/* the kernel's */
	if (*text == '[') {
		text = strchr(text, ']');
		if (!text)
			return false;
		text++;
	}
	while (*text == ' ')
		text++;
	for (i = 0; i < ARRAY_SIZE(systemd_says); i++) {
		if (!strncmp(text, systemd_says[i], strlen(systemd_says[i]))) {
			memmove(out, text, strlen(text) + 1);
			return true;
		}
	}
	return false;
}

/* How kernel lines start when printk prints no time (printk.time=0). */
static const char *const kernel_starts[] = {
	"Kernel panic - not syncing", "BUG: ", "Oops: ", "WARNING: CPU: ",
	"Unable to handle kernel", "general protection fault", "INFO: task ",
	"rcu: INFO: ", "watchdog: ", "nvme nvme", "DMA-API: ", "DMAR: ",
	"DMAR-IR: ", "AMD-Vi: ", "arm-smmu-v3 ", "arm-smmu ", "virtio_iommu ",
	"------------[ cut here ]",
};

/*
 * Where kernel text starts inside agent line @line, or 0: the first
 * printk time past its first byte, else the first known kernel line
 * start past its "SAC " (*@stamped says which).
 */
size_t cls_kernel_split(const char *line, size_t n, bool *stamped)
{
	const char *end = line + n, *best = NULL, *p;
	size_t i;

	for (p = line + 1; p < end; p++) {
		p = memchr(p, '[', end - p);
		if (!p)
			break;
		if (cls_stamp_at(p, end)) {
			*stamped = true;
			return p - line;
		}
	}
	*stamped = false;
	if (n <= 4)
		return 0;
	for (i = 0; i < ARRAY_SIZE(kernel_starts); i++) {
		p = strstr(line + 4, kernel_starts[i]);
		if (p && (!best || p < best))
			best = p;
	}
	return best ? best - line : 0;
}
