// SPDX-License-Identifier: GPL-2.0
/*
 * classify-unit: TAP unit tests for the line patterns and the record's
 * bounds. Each check names what it expected; run with prove or alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classify.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static int test_no, failed;

static void check(int cond, const char *what)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++test_no, what);
	failed += !cond;
}

struct line_case {
	const char *line;
	enum cls_kind want;
};

/* Real kernel and QEMU lines (see tests/data/console/README.md). */
static const struct line_case lines[] = {
	{
		"[    1.373359] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)",
		CLS_PANIC,
	},
	{ "[    2.1] BUG: kernel NULL pointer dereference, address: 0000000000000000", CLS_OOPS },
	{ "[    2.1] Oops: 0002 [#1] PREEMPT SMP NOPTI", CLS_OOPS },
	{
		"[    2.1] WARNING: CPU: 0 PID: 1 at drivers/iommu/dma-iommu.c:700 iommu_dma_alloc_iova+0x1/0x2",
		CLS_OOPS,
	},
	{
		"[    2.1] Unable to handle kernel NULL pointer dereference at virtual address 0000000000000008",
		CLS_OOPS,
	},
	{ "[    1.160738] DMAR: DRHD: handling fault status reg 2", CLS_FAULT },
	{
		"[    1.161036] DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0xfffff000 [fault reason 0x06] PTE Read access is not set",
		CLS_FAULT,
	},
	{
		"[    1.1] DMAR: [INTR-REMAP] Request device [00:02.0] fault index 0x1 [fault reason 0x25] Blocked an interrupt request due to source-id verification failure",
		CLS_FAULT,
	},
	{
		"[    1.1] vfio-pci 0000:00:02.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0001 address=0xfffff000 flags=0x0000]",
		CLS_FAULT,
	},
	{ "[    1.1] arm-smmu-v3 9050000.smmuv3: event 0x10 received:", CLS_FAULT },
	{ "[    1.1] virtio_iommu virtio0: page fault from EP 16 at 0xfffff000 [R]", CLS_FAULT },
	{
		"qemu: hardware error: EDU: DMA range 0x0000000000040800-0x0000000000041000 out of bounds (0x0000000000040000-0x0000000000040fff)!",
		CLS_QEMU_CRASH,
	},
	{ "qemu-system-x86_64: ../hw/pci/pci.c:1: pci_foo: Assertion `x' failed.", CLS_QEMU_CRASH },
	{ "qemu-system-x86_64: terminating on signal 15 from pid 1234 (timeout)", CLS_QEMU_CRASH },
	{ "qemu-system-x86_64: -device nope: 'nope' is not a valid device model name",
	  CLS_QEMU_MSG },
	/* informative, never a verdict */
	{ "EDU: clamping DMA 0x0000fffffffff000 to 0x00000000fffff000!", CLS_NONE },
	{
		"qemu-system-x86_64: vtd_iommu_translate: detected translation failure (dev=00:02:00, iova=0xfffff000)",
		CLS_QEMU_MSG,
	},
	{
		"qemu-system-x86_64: warning: TCG doesn't support requested feature: CPUID.01H:ECX.vmx [bit 5]",
		CLS_NONE,
	},
	{ "[    0.008000] DMAR-IR: Enabled IRQ remapping in xapic mode", CLS_NONE },
	{ "[    0.595344] DMAR: Intel(R) Virtualization Technology for Directed I/O", CLS_NONE },
	{ "[    0.1] arm-smmu-v3 9050000.smmuv3: ias 44-bit, oas 44-bit (features 0x00008305)",
	  CLS_NONE },
	{ "[    0.1] DEBUG: something else", CLS_NONE },
	/* kernel-error: see kerr_lines for the class each names */
	{ "[   24.0] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [kworker/0:2:41]",
	  CLS_KERNEL_ERROR },
	{ "[    2.4] WARNING: CPU: 0 PID: 57 at kernel/dma/debug.c:984 check_unmap+0x6a1/0x8a0",
	  CLS_KERNEL_ERROR },
	{ "[    2.4] BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 33s!",
	  CLS_OOPS },
	{ "[    2.4] Kernel panic - not syncing: softlockup: hung tasks", CLS_PANIC },
};

struct kerr_case {
	const char *line;
	const char *class;	/* NULL: not a kernel error */
};

/* Linux 6.1's formats (lines.c names the files) and newer ones. */
static const struct kerr_case kerr_lines[] = {
	{ "[   25.4] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:", "rcu-stall" },
	{ "[   25.4] rcu: INFO: rcu_preempt self-detected stall on CPU", "rcu-stall" },
	{
		"[   25.4] rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 0-... } 21 jiffies s: 109 root: 0x1/.",
		"rcu-stall",
	},
	{ "[   25.4] INFO: rcu_tasks detected stalls on tasks:", "rcu-stall" },
	{ "[  245.1] INFO: task kworker/0:2:41 blocked for more than 120 seconds.",
	  "hung-task" },
	{ "[   24.0] watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [sac-agent:1]",
	  "soft-lockup" },
	{ "[   24.0] NMI watchdog: Watchdog detected hard LOCKUP on cpu 0", "hard-lockup" },
	{ "[   33.4] nvme nvme0: I/O 12 QID 1 timeout, aborting", "nvme-timeout" },
	{ "[   33.4] nvme nvme0: I/O 12 (Write) QID 1 timeout, aborting", "nvme-timeout" },
	{ "[   63.5] nvme nvme0: I/O 12 QID 1 timeout, reset controller", "nvme-timeout" },
	{ "[   63.5] nvme nvme0: I/O 7 QID 0 timeout, completion polled", "nvme-timeout" },
	{ "[   33.4] nvme nvme0: Abort status: 0x0", "nvme-timeout" },
	{
		"[   33.4] nvme nvme0: I/O tag 12 (100c) opcode 0x1 (I/O Cmd) QID 1 timeout, aborting req_op:WRITE(1) size:4096",
		"nvme-timeout",
	},
	{ "[    0.9] sac_edu: probe of 0000:00:02.0 failed with error -5", "probe-failed" },
	{ "[    0.9] sac_edu 0000:00:02.0: probe with driver sac_edu failed with error -12",
	  "probe-failed" },
	{
		"[    2.4] DMA-API: sac_edu 0000:00:02.0: device driver frees DMA memory with different size [device address=0x00000000fffff000] [map size=4096 bytes] [unmap size=2048 bytes]",
		"dma-api",
	},
	{
		"[    2.4] DMA-API: nvme 0000:00:03.0: device driver failed to check map error[device address=0x00000000fffff000] [size=4096 bytes] [mapped as single]",
		"dma-api",
	},
	{
		"[    2.4] DMA-API: virtio-pci 0000:00:04.0: mapping sg segment longer than device claims to support [len=65536] [max=4096]",
		"dma-api",
	},
	{ "[    2.4] DMA-API: exceeded 7 overlapping mappings of cacheline 0x0000000001234560",
	  "dma-api" },
	/* near misses */
	{
		"[    0.1] rcu: RCU calculated value of scheduler-enlistment delay is 25 jiffies.",
		NULL,
	},
	{ "[    0.1] rcu: INFO: rcu_sched stall ended", NULL },
	{ "[    0.9] nvme nvme0: 1/0/0 default/read/poll queues", NULL },
	{ "[    0.9] nvme nvme0: I/O 12 QID 1 completed", NULL },
	{ "[    0.2] DMA-API: preallocated 65536 debug entries", NULL },
	{ "[    0.2] DMA-API: debugging out of memory - disabling", NULL },
	{ "[    2.4] WARNING: CPU: 0 PID: 1 at drivers/iommu/dma-iommu.c:700 x+0x1/0x2", NULL },
	{ "[    1.1] INFO: task sac-agent:1 is running", NULL },
	{ "[    1.1] hung_task: blocked tasks", NULL },
};

static void test_lines(void)
{
	char what[200];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		snprintf(what, sizeof(what), "kind %d: %.120s", lines[i].want,
			 lines[i].line);
		check(cls_match_line(lines[i].line) == lines[i].want, what);
	}
}

static void test_kerr_lines(void)
{
	const char *got;
	char what[200];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kerr_lines); i++) {
		const struct kerr_case *c = &kerr_lines[i];

		got = cls_kernel_error(c->line);
		snprintf(what, sizeof(what), "%s: %.110s",
			 c->class ? c->class : "none", c->line);
		check(c->class ? got && !strcmp(got, c->class) : !got, what);
		if (c->class)
			check(cls_match_line(c->line) == CLS_KERNEL_ERROR,
			      "  ... and its kind is kernel-error");
	}
}

static void test_names(void)
{
	check(cls_valid_nonce("0123456789abcdef"), "nonce: 16 hex digits");
	check(!cls_valid_nonce("0123456789ABCDEF"), "nonce: upper case refused");
	check(!cls_valid_nonce("0123456789abcde"), "nonce: 15 digits refused");
	check(!cls_valid_nonce("0123456789abcdef0"), "nonce: 17 digits refused");
	check(cls_valid_workload("edu-lying"), "workload: edu-lying");
	check(!cls_valid_workload("../x"), "workload: path refused");
	check(!cls_valid_workload(""), "workload: empty refused");
}

static json_t *run_gap(const char *log, size_t len, const char *status,
		       size_t gap_at, unsigned long long gap)
{
	static const char *const w[] = { "w1" };
	struct cls_job job = {
		.nonce = "0123456789abcdef", .workloads = w, .n_workloads = 1,
		.log = log, .log_len = len, .status = status,
		.status_len = status ? strlen(status) : 0,
		.log_gap_at = gap_at, .log_gap = gap,
		.log_name = "log", .status_name = "status",
	};

	return cls_classify(&job);
}

static json_t *run(const char *log, size_t len, const char *status)
{
	return run_gap(log, len, status, 0, 0);
}

static const char *outcome(json_t *r)
{
	return json_string_value(json_object_get(r, "outcome"));
}

static const char *field(json_t *r, const char *key)
{
	const char *v = json_string_value(json_object_get(r, key));

	return v ? v : "";
}

static json_int_t count(json_t *r, const char *key)
{
	return json_integer_value(json_object_get(json_object_get(r, "counts"),
						  key));
}

#define N "SAC 0123456789abcdef "
#define START N "start {}\n"
#define PASS_OBJ "{\"workload\":\"w1\",\"status\":\"pass\"}\n"
#define RESULT N "result " PASS_OBJ
#define LEVELS "{\"emerg\":0,\"alert\":0,\"crit\":%d,\"err\":%d,\"warn\":9}\n"
#define DONE N "done {\"results\":1}\n"
#define DONE_ST "event=done\nstage=poweroff\nqemu_status=0\n"

/* Classify a passing job with @mid between its result and its done. */
static json_t *run_mid(const char *head, const char *mid, const char *status)
{
	char log[8192];

	snprintf(log, sizeof(log), "%s%s%s", head, mid, DONE);
	return run(log, strlen(log), status ? status : DONE_ST);
}

/* @want outcome, and @re (a substring) in field @key. */
static void expect(json_t *r, const char *want, const char *key,
		   const char *sub, const char *what)
{
	check(r && !strcmp(outcome(r), want) &&
	      (!key || strstr(field(r, key), sub)), what);
	if (r && strcmp(outcome(r), want))
		printf("#   got %s: %s\n", outcome(r), field(r, "reason"));
	json_decref(r);
}

static void test_err_flood(void)
{
	static const char lv[] = N "dmesg " LEVELS;
	char mid[256];

	snprintf(mid, sizeof(mid), lv, 0, CLS_ERR_MAX);
	expect(run_mid(START RESULT, mid, NULL), "pass", NULL, NULL,
	       "err-flood: err at the limit is a pass");
	snprintf(mid, sizeof(mid), lv, 0, CLS_ERR_MAX + 1);
	expect(run_mid(START RESULT, mid, NULL), "kernel-error", "reason",
	       "err-flood: the kernel logged 33 err", "err-flood: one err past the limit");
	snprintf(mid, sizeof(mid), lv, 1, 0);
	expect(run_mid(START RESULT, mid, NULL), "kernel-error", "evidence",
	       " dmesg {", "err-flood: one crit record, evidence the dmesg line");
	expect(run_mid(START RESULT,
		       "[    9.000000] INFO: task w1:7 blocked for more than 2 seconds.\n",
		       "event=timeout\nstage=poweroff\nqemu_status=signal:9\n"),
	       "hang", "reason", "; first kernel error: hung-task at line 3",
	       "a hang names the kernel error it saw");
}

/* An agent result line with kernel text spliced in at "sta|tus". */
#define R1 N "result {\"workload\":\"w1\",\"sta"
#define R2 "tus\":\"pass\"}\n"
#define TS "[    2.000000] "
#define DMAR "DMAR: DRHD: handling fault status reg 2\n"

static void test_interleave(void)
{
	json_t *r;

	r = run_mid(START R1 TS "random: crng init done\n" R2, "", NULL);
	check(r && !strcmp(outcome(r), "pass") && count(r, "joined") == 1 &&
	      json_array_size(json_object_get(r, "results")) == 1,
	      "interleaved: a benign kernel line, the result rejoined: pass");
	json_decref(r);
	r = run_mid(START R1 TS DMAR R2, "", NULL);
	check(r && !strcmp(outcome(r), "iommu-fault") &&
	      json_integer_value(json_object_get(r, "faults")) == 1 &&
	      json_array_size(json_object_get(r, "results")) == 1,
	      "interleaved: the fault inside counts, the result is kept");
	json_decref(r);
	expect(run_mid(START R1 TS "x\n" TS "nvme nvme0: I/O 12 QID 1 timeout, aborting\n" R2,
		       "", NULL), "kernel-error", "reason", "nvme-timeout at line 3",
	       "interleaved: two kernel records before the tail");
	expect(run_mid(START N "result {\"workload\":\"w1\",\"status\":\"pass\"}"
		       TS "nvme nvme0: Abort status: 0x0\n\n", "", NULL),
	       "kernel-error", "evidence", TS "nvme nvme0: Abort status",
	       "interleaved after the object's end: both halves judged");
	expect(run_mid(START "SAC 01234567" TS "x\n89abcdef result " PASS_OBJ,
		       "", NULL), "pass", NULL, NULL,
	       "interleaved inside the nonce: rejoined, pass");
	r = run_mid(START "SA" TS "nvme nvme0: Abort status: 0x0\nC 0123456789abcdef result "
		    PASS_OBJ, "", NULL);
	check(r && !strcmp(outcome(r), "kernel-error") && count(r, "joined") == 1 &&
	      json_array_size(json_object_get(r, "results")) == 1,
	      "interleaved inside \"SAC \": rejoined, the kernel part counts");
	json_decref(r);
	expect(run_mid(START "SA" TS "nvme nvme0: Abort status: 0x0\n", "", NULL),
	       "kernel-error", NULL, NULL, "a cut \"SAC \", no tail: the kernel part counts");
	expect(run_mid(START R1 TS "x\n\"" R2, "", NULL), "infra-error",
	       "reason", "SAC result line has no JSON object",
	       "interleaved, no tail fits: infra-error as before");
	expect(run_mid(START R1 TS DMAR "\"" R2, "", NULL), "iommu-fault",
	       NULL, NULL, "interleaved, no tail fits: the fault still counts");
	r = run_mid(START R1 DMAR R2, "", NULL);
	check(r && !strcmp(outcome(r), "iommu-fault") && count(r, "joined") == 1,
	      "interleaved without a printk time: split at DMAR:, rejoined");
	json_decref(r);
	r = run_mid(START R1 DMAR "\"" R2, "", NULL);
	check(r && !strcmp(outcome(r), "infra-error") &&
	      !json_integer_value(json_object_get(r, "faults")),
	      "without a printk time and no tail: agent text is not a fault");
	json_decref(r);
}

#define HUNG_FLOOD "flood\nconsole.exp: 100 bytes dropped\nflood\n" \
	"[  245.1] INFO: task w1:7 blocked for more than 120 seconds.\n"

static void test_flood(void)
{
	static const char tail[] = "[   60.0] Kernel panic - not syncing: Fatal exception\n";
	static const char st[] = DONE_ST "log_dropped=100\n";
	char log[512];
	size_t at;

	at = (size_t)snprintf(log, sizeof(log), "%s%s", START RESULT, "flood line\nflo");
	snprintf(log + at, sizeof(log) - at, "od line\n%s", tail);
	expect(run_gap(log, strlen(log), DONE_ST, at, 1000000), "panic",
	       "evidence", "Kernel panic", "read gap: the panic at the end still counts");
	snprintf(log + at, sizeof(log) - at, "od line\n%s", DONE);
	expect(run_gap(log, strlen(log), DONE_ST, at, 1000000), "log-flood",
	       "reason", "1000000 bytes dropped (classifier read limit) after line 4",
	       "read gap: nothing decisive is log-flood");
	snprintf(log + at, sizeof(log) - at, "x\n%s", TS DMAR DONE);
	expect(run_gap(log, strlen(log), DONE_ST, at, 1), "iommu-fault", NULL,
	       NULL, "read gap: a fault in the tail wins");
	expect(run_mid(START RESULT, HUNG_FLOOD, st), "log-flood", "reason",
	       "(console.exp cap) after line 3; no panic, oops or IOMMU fault in the head",
	       "console.exp cap: log-flood, with where and why");
	expect(run_mid(START RESULT, HUNG_FLOOD, st), "log-flood", "reason",
	       "tail kept; first kernel error: hung-task at line 6",
	       "console.exp cap: log-flood, naming the kernel error");
	expect(run_mid(START RESULT, "flood\nconsole.exp: 100 bytes dropped\n", st),
	       "log-flood", "evidence", "flood", "console.exp cap: evidence is the flood");
	expect(run_mid(START RESULT, "console.exp: 100 bytes dropped\n", NULL),
	       "pass", NULL, NULL, "a marker the status does not vouch for: ignored");
	expect(run_mid(START RESULT, "console.exp: 100 bytes dropped\n",
		       DONE_ST "log_dropped=1e3\n"), "infra-error", "reason",
	       "log_dropped is not a number", "log_dropped not a number: infra-error");
}

static void test_bounds(void)
{
	static const char done[] = "event=done\nstage=poweroff\nqemu_status=0\n";
	size_t n = 3 * CLS_LINE_MAX;
	char *log = malloc(n + 400);
	json_t *r, *c;
	int len;

	if (!log)
		exit(2);
	memset(log, 'A', n);
	len = n + sprintf(log + n, "SAC 0123456789abcdef result {}\n"
			  "SAC 0123456789abcdef start {}\n"
			  "x\r\n");
	log[10] = '\0';
	r = run(log, len, done);
	c = json_object_get(r, "counts");
	check(json_integer_value(json_object_get(c, "cut")) == 1,
	      "a 12000-byte line is cut once");
	check(json_integer_value(json_object_get(c, "lines")) == 3,
	      "its tail does not become a line of its own");
	check(!strcmp(json_string_value(json_object_get(r, "last_line")), "x"),
	      "CR dropped from last_line");
	check(!strcmp(outcome(r), "workload-fail") &&
	      json_array_size(json_object_get(r, "results")) == 0,
	      "a result hidden past the cut is not taken: workload-fail");
	json_decref(r);

	r = run("garbage\xff\x01 here\n", 14, NULL);
	check(!strcmp(outcome(r), "infra-error"), "no status file: infra-error");
	check(!!strstr(json_string_value(json_object_get(r, "reason")), "status"),
	      "reason names the status file");
	check(!strcmp(json_string_value(json_object_get(r, "last_line")),
		      "garbage?? here"), "unprintable bytes shown as '?'");
	json_decref(r);

	r = run("", 0, "event=done\nbogus\n");
	check(!strcmp(outcome(r), "infra-error") &&
	      strstr(json_string_value(json_object_get(r, "reason")), "status:2"),
	      "malformed status file: infra-error naming its line");
	json_decref(r);
	free(log);
}

int main(void)
{
	test_lines();
	test_kerr_lines();
	test_names();
	test_bounds();
	test_err_flood();
	test_interleave();
	test_flood();
	printf("1..%d\n", test_no);
	return failed ? 1 : 0;
}
