// SPDX-License-Identifier: GPL-2.0
/*
 * classify-unit: TAP unit tests for the line patterns and the record's
 * bounds. Each check names what it expected; run with prove or alone.
 */
#define _GNU_SOURCE	/* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chain.h"
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
		"[    3.2] BUG: KASAN: use-after-free in policy_show+0x4c/0x120",
		CLS_OOPS,
	},
	{ "[    3.2] WARNING: possible circular locking dependency detected", CLS_OOPS },
	{ "[    3.2] WARNING: suspicious RCU usage", CLS_OOPS },
	{
		"[    0.1] Spectre V2 : WARNING: Unprivileged eBPF is enabled with eIBRS on, data leaks possible via Spectre v2 BHB attacks!",
		CLS_NONE,
	},
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
	/* the farm's debug kernel (an O= build), tests/faults/ */
	{
		"[   11.018563] WARNING: CPU: 1 PID: 37 at ../../src/linux/kernel/dma/debug.c:984 check_unmap+0x509/0x1202",
		CLS_KERNEL_ERROR,
	},
	{
		"[    2.4] WARNING: CPU: 0 PID: 1 at /build/linux-6.1/kernel/dma/debug.c:984 check_unmap+0x1/0x2",
		CLS_KERNEL_ERROR,
	},
	{ "[    2.4] WARNING: CPU: 0 PID: 1 at drivers/mykernel/dma/debug.c:9 x+0x1/0x2",
	  CLS_OOPS },
	{ "[    2.4] WARNING: CPU: 0 PID: 1 at lib/x.c:9 kernel/dma/debug.c:9+0x1/0x2",
	  CLS_OOPS },
	{
		"[   11.0] WARNING: CPU: 1 PID: 37 at ../../build/module/x/sac_provoke.c:251 sac_provoke_init+0x208/0x1000 [sac_provoke]",
		CLS_OOPS,
	},
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
	{
		"[   11.0] WARNING: CPU: 1 PID: 37 at ../../src/linux/kernel/dma/debug.c:984 check_unmap+0x509/0x1202",
		"dma-api",
	},
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

/* The tests' job: its nonce and key. */
#define NONCE "0123456789abcdef"
static const uint8_t test_key[SAC_KEY_LEN] = { 0x5a, 0xc0, 0xff, 0xee };

/* Markers in a test log: kernel text the console spliced into a line. */
#define KSTART '\a'
#define KEND '\b'

/* A console line as a test writes it: its own text and what was spliced in. */
struct tline {
	char *text;		/* markers taken out */
	size_t n;
	size_t at[4];		/* where each splice goes */
	const char *splice[4];	/* its first byte, in the test's log */
	size_t len[4];
	int nsplice;
};

/* One line of @in, up to its newline outside the markers: its end. */
static const char *tline_read(const char *in, const char *end, struct tline *t)
{
	const char *p = in, *k;

	t->text = malloc(end - in + 1);
	if (!t->text)
		exit(2);
	t->n = 0;
	t->nsplice = 0;
	for (; p < end && *p != '\n'; p++) {
		if (*p != KSTART || t->nsplice == 4) {
			t->text[t->n++] = *p;
			continue;
		}
		k = memchr(p, KEND, end - p);
		if (!k)
			exit(2);
		t->at[t->nsplice] = t->n;
		t->splice[t->nsplice] = p + 1;
		t->len[t->nsplice++] = k - p - 1;
		p = k;
	}
	t->text[t->n] = '\0';
	return p;
}

/* A line "SAC NONCE <kind> [<seq> <mac> ]<json>": where its json is. */
static const char *tline_json(const struct tline *t, char *kind)
{
	const char *p = t->text + 4 + CLS_NONCE_LEN + 1, *end = t->text + t->n;
	const char *mac, *q;
	unsigned long seq;
	size_t k = 0;

	if (t->n < 4 + CLS_NONCE_LEN + 2 || strncmp(t->text, "SAC " NONCE " ", 21))
		return NULL;
	while (p + k < end && p[k] >= 'a' && p[k] <= 'z' && k < 16)
		k++;
	if (!k || p[k] != ' ')
		return NULL;
	memcpy(kind, p, k);
	kind[k] = '\0';
	q = sac_chain_fields(p + k + 1, end, &seq, &mac);
	return q ? q : p + k + 1;
}

/* The line with its splices put back, @text (agent lines chained) for its own. */
static void tline_write(FILE *out, const struct tline *t, const char *text,
			size_t n, size_t json_old, size_t json_new)
{
	size_t done = 0, at;
	int i;

	for (i = 0; i < t->nsplice; i++) {
		at = t->at[i] < json_old ? t->at[i] : t->at[i] + json_new - json_old;
		fwrite(text + done, 1, at - done, out);
		fwrite(t->splice[i], 1, t->len[i], out);
		done = at;
	}
	fwrite(text + done, 1, n - done, out);
}

/*
 * @in (@len bytes) with its agent lines of NONCE chained on @c as the
 * agent writes them, whether they came chained or not; other lines as
 * they are, spliced kernel text where it was. Returns a malloc'd log,
 * its length in *@outlen.
 */
static char *sign_with(struct sac_chain *c, const char *in, size_t len,
		       size_t *outlen)
{
	const char *end = in + len, *p = in, *json;
	char kind[17], line[CLS_LINE_MAX];
	struct tline t;
	char *buf;
	FILE *out = open_memstream(&buf, outlen);

	while (out && p < end) {
		p = tline_read(p, end, &t);
		json = tline_json(&t, kind);
		if (json && sac_chain_line(c, line, sizeof(line), NONCE, kind, json))
			tline_write(out, &t, line, strlen(line), json - t.text,
				    strlen(line) - strlen(json));
		else
			tline_write(out, &t, t.text, t.n, 0, 0);
		if (p < end)
			fputc(*p++, out);
		free(t.text);
	}
	if (!out || fclose(out))
		exit(2);
	return buf;
}

static char *sign(const char *in)
{
	struct sac_chain c;
	size_t n;

	sac_chain_init(&c, test_key, NONCE);
	return sign_with(&c, in, strlen(in), &n);
}

/* Classify @log as it is: its agent lines are chained already, or not. */
static json_t *run_raw(const char *log, size_t len, const char *status,
		       size_t gap_at, unsigned long long gap)
{
	static const char *const w[] = { "w1" };
	struct cls_job job = {
		.nonce = NONCE, .workloads = w, .n_workloads = 1,
		.log = log, .log_len = len, .status = status,
		.status_len = status ? strlen(status) : 0,
		.log_gap_at = gap_at, .log_gap = gap, .key = test_key,
		.log_name = "log", .status_name = "status", .key_name = "key",
	};

	return cls_classify(&job);
}

/* Classify @log with its agent lines chained first (lengths kept, if they were). */
static json_t *run_gap(const char *log, size_t len, const char *status,
		       size_t gap_at, unsigned long long gap)
{
	struct sac_chain c;
	size_t n;
	char *signed_log;
	json_t *r;

	sac_chain_init(&c, test_key, NONCE);
	signed_log = sign_with(&c, log, len, &n);
	r = run_raw(signed_log, n, status, gap_at, gap);
	free(signed_log);
	return r;
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
	if (r && (strcmp(outcome(r), want) || (key && !strstr(field(r, key), sub))))
		printf("#   got %s: %s\n", outcome(r), field(r, key ? key : "reason"));
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
	       " dmesg 2 ", "err-flood: one crit record, evidence the dmesg line");
	expect(run_mid(START RESULT,
		       "[    9.000000] INFO: task w1:7 blocked for more than 2 seconds.\n",
		       "event=timeout\nstage=poweroff\nqemu_status=signal:9\n"),
	       "hang", "reason", "; first kernel error: hung-task at line 3",
	       "a hang names the kernel error it saw");
}

/*
 * An installed system that stops coming up: systemd's status lines as
 * the serial console has them (colours, a spinner redrawn after \r).
 */
static void test_systemd(void)
{
#define SPIN "A start job is running for /dev/sac-fw0"
#define OK_BOX "[\033[0;32m  OK  \033[0m] "
#define SPIN_BOX1 "[\033[0m\033[0;31m*     \033[0m] "
#define SPIN_BOX2 "[\033[0;1;31m*\033[0m\033[0;31m*    \033[0m] "
	static const char *const lines[] = {
		"[    0.000000] Linux version 6.1.192-sac-server",
		"[    2.000000] DMAR: [DMA Read NO_PASID] Request device [00:03.0] fault addr 0xfffff000 [fault reason 0x06] PTE Read access is not set",
		OK_BOX "Reached target \033[0;1;39msysinit.target\033[0m - System Initialization.",
		"[    3.000000] sac_fwload 0000:00:03.0: firmware load failed after 5 tries",
		SPIN_BOX1 SPIN " (5s / no limit)\r\033[K" SPIN_BOX2 SPIN " (6s / no limit)",
		"         Expecting device \033[0;1;39mdev-sac\\x2dfw0.device\033[0m - /dev/sac-fw0...",
		OK_BOX "Finished \033[0;1;39me2scrub_reap.service\033[0m - Remove Stale Snapshots.",
	};
	static const char ok_line[] =
		OK_BOX "Reached target \033[0;1;39mbasic.target\033[0m - Basic System.";
	char log[1024] = "", out[256];
	size_t i;

	check(cls_systemd_line(ok_line, out, sizeof(out)) &&
	      !strcmp(out, "Reached target basic.target - Basic System."),
	      "systemd: a status line without its box and colours");
	check(!cls_systemd_line("[    1.000000] Starting kernel", out, sizeof(out)),
	      "systemd: a kernel line is none");
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		strcat(log, lines[i]);
		strcat(log, "\n");
	}
	expect(run(log, strlen(log),
		   "event=timeout\nstage=multi-user\nqemu_status=signal:9\n"),
	       "hang", "reason",
	       "last systemd line (line 7): Finished e2scrub_reap.service - Remove Stale Snapshots.; "
	       "still waiting (line 6): Expecting device dev-sac\\x2dfw0.device - /dev/sac-fw0...; "
	       "1 IOMMU fault line before it, first at line 2",
	       "systemd: a stalled boot is a hang quoting systemd's last word and the faults");
#undef SPIN
#undef OK_BOX
#undef SPIN_BOX1
#undef SPIN_BOX2
}

#define NOTICE "sac_edu 0000:00:03.0: Using 64-bit DMA addresses"

/* The SAC fallback notices: recognised with their device, quoted. */
static void test_notice(void)
{
	const char *p;

	p = cls_sac_notice("[    1.500000] " NOTICE);
	check(p && !strcmp(p, NOTICE), "notice: the message past the printk time");
	check(!!cls_sac_notice(NOTICE), "notice: without a printk time");
	check(!cls_sac_notice("[    1.5] nvme: Using 64-bit DMA addresses"),
	      "notice: a driver alone names no device");
	check(!cls_sac_notice("[    1.500000] sac_edu x: Using 64-bit DMA"),
	      "notice: a cut line is not one");
	expect(run_mid(START RESULT, "[    1.500000] " NOTICE "\n"
		       "[    1.600000] " NOTICE "\n", NULL),
	       "pass", "reason",
	       "; 2 SAC fallback notices, first at line 3: \"" NOTICE "\"",
	       "notice: counted and quoted in the reason, even of a pass");
}

/* A fault at a top-of-range IOVA cut to k bits: the device's real width. */
static void test_cut(void)
{
	expect(run_mid(START RESULT,
		       "[    2.000000] DMAR: [DMA Read NO_PASID] Request device [00:03.0] fault addr 0xfffff000 [fault reason 0x06] PTE Read access is not set\n",
		       NULL),
	       "iommu-fault", "reason",
	       "1 at an address just below 2^32, a top-of-range IOVA cut to 32 bits: device 0000:00:03.0 decodes about 32 bits",
	       "cut: a DMAR fault at 0xfffff000 names a 32-bit device");
	expect(run_mid(START RESULT,
		       "[    2.000000] AMD-Vi: Event logged [IO_PAGE_FAULT device=28:00.0 domain=0x000b address=0x7fffff00000 flags=0x0000]\n",
		       NULL),
	       "iommu-fault", "reason", "device 0000:28:00.0 decodes about 43 bits",
	       "cut: the ASM1061 signature, an AMD-Vi fault at 0x7fffff00000, is 43 bits");
	expect(run_mid(START RESULT,
		       "[    2.000000] DMAR: [DMA Read NO_PASID] Request device [00:03.0] fault addr 0x12345000 [fault reason 0x06] PTE Read access is not set\n",
		       NULL),
	       "iommu-fault", "reason", "1 IOMMU fault line, first at line 3",
	       "cut: an address in the middle of the range says nothing of the width");
}

/* An agent result line with kernel text spliced in at "sta|tus". */
#define R1 N "result {\"workload\":\"w1\",\"sta"
#define R2 "tus\":\"pass\"}\n"
#define TS "[    2.000000] "
/* kernel text spliced into the agent line around it */
#define K(text) "\a" text "\b"
#define DMAR "DMAR: DRHD: handling fault status reg 2\n"

static void test_interleave(void)
{
	json_t *r;

	r = run_mid(START R1 K(TS "random: crng init done\n") R2, "", NULL);
	check(r && !strcmp(outcome(r), "pass") && count(r, "joined") == 1 &&
	      json_array_size(json_object_get(r, "results")) == 1,
	      "interleaved: a benign kernel line, the result rejoined: pass");
	json_decref(r);
	r = run_mid(START R1 K(TS DMAR) R2, "", NULL);
	check(r && !strcmp(outcome(r), "iommu-fault") &&
	      json_integer_value(json_object_get(r, "faults")) == 1 &&
	      json_array_size(json_object_get(r, "results")) == 1,
	      "interleaved: the fault inside counts, the result is kept");
	json_decref(r);
	expect(run_mid(START R1 K(TS "x\n" TS "nvme nvme0: I/O 12 QID 1 timeout, aborting\n") R2,
		       "", NULL), "kernel-error", "reason", "nvme-timeout at line 3",
	       "interleaved: two kernel records before the tail");
	expect(run_mid(START N "result {\"workload\":\"w1\",\"status\":\"pass\"}"
		       K(TS "nvme nvme0: Abort status: 0x0\n") "\n", "", NULL),
	       "kernel-error", "evidence", TS "nvme nvme0: Abort status",
	       "interleaved after the object's end: both halves judged");
	expect(run_mid(START "SAC 01234567" K(TS "x\n") "89abcdef result " PASS_OBJ,
		       "", NULL), "pass", NULL, NULL,
	       "interleaved inside the nonce: rejoined, pass");
	r = run_mid(START "SA" K(TS "nvme nvme0: Abort status: 0x0\n") "C 0123456789abcdef result "
		    PASS_OBJ, "", NULL);
	check(r && !strcmp(outcome(r), "kernel-error") && count(r, "joined") == 1 &&
	      json_array_size(json_object_get(r, "results")) == 1,
	      "interleaved inside \"SAC \": rejoined, the kernel part counts");
	json_decref(r);
	expect(run_mid(START "SA" TS "nvme nvme0: Abort status: 0x0\n", "", NULL),
	       "kernel-error", NULL, NULL, "a cut \"SAC \", no tail: the kernel part counts");
	expect(run_mid(START R1 K(TS "x\n\"") R2, "", NULL), "infra-error",
	       "reason", "SAC result line has no JSON object",
	       "interleaved, no tail fits: infra-error as before");
	expect(run_mid(START R1 K(TS DMAR "\"") R2, "", NULL), "iommu-fault",
	       NULL, NULL, "interleaved, no tail fits: the fault still counts");
	r = run_mid(START R1 K(DMAR) R2, "", NULL);
	check(r && !strcmp(outcome(r), "iommu-fault") && count(r, "joined") == 1,
	      "interleaved without a printk time: split at DMAR:, rejoined");
	json_decref(r);
	r = run_mid(START R1 K(DMAR "\"") R2, "", NULL);
	check(r && !strcmp(outcome(r), "infra-error") &&
	      !json_integer_value(json_object_get(r, "faults")),
	      "without a printk time and no tail: agent text is not a fault");
	json_decref(r);
}

/* Line @i (from 0) of @log, with its newline: where it starts, its length. */
static const char *nth_line(const char *log, int i, size_t *n)
{
	const char *p = log, *nl;

	while (i-- > 0 && (nl = strchr(p, '\n')))
		p = nl + 1;
	nl = strchr(p, '\n');
	*n = nl ? (size_t)(nl - p + 1) : strlen(p);
	return p;
}

/* @log's lines in @order: "0213" swaps the middle two, "013" drops one. */
static char *reorder(const char *log, const char *order)
{
	char *out = malloc(strlen(log) * 2 + 1);
	const char *line;
	size_t n, len = 0;

	if (!out)
		exit(2);
	for (; *order; order++) {
		line = nth_line(log, *order - '0', &n);
		memcpy(out + len, line, n);
		len += n;
	}
	out[len] = '\0';
	return out;
}

/* @log with @text put in at byte @at. */
static char *insert_at(const char *log, size_t at, const char *text)
{
	char *out = malloc(strlen(log) + strlen(text) + 1);

	if (!out)
		exit(2);
	memcpy(out, log, at);
	strcpy(out + at, text);
	strcat(out, log + at);
	return out;
}

static json_t *run_signed(char *log)
{
	json_t *r = run_raw(log, strlen(log), DONE_ST, 0, 0);

	free(log);
	return r;
}

#define DMESG N "dmesg {\"err\":0}\n"
#define MAC0 "0000000000000000000000000000000000000000000000000000000000000000"

/* The chained start, result, dmesg and done lines in another order. */
static const struct {
	const char *order, *outcome, *reason, *what;
} reorders[] = {
	{ "0123", "pass", "", "chain: the agent's four lines in order: pass" },
	{ "023", "infra-error",
	  "line 2: SAC dmesg line has sequence 2 where 1 was due: 1 line before it missing",
	  "chain: the result suppressed: caught at the next line" },
	{ "0213", "infra-error", "line 2: SAC dmesg line has sequence 2 where 1 was due",
	  "chain: two lines swapped: caught" },
	{ "01123", "infra-error",
	  "line 3: SAC result line has sequence 1 where 2 was due: repeated or out of order",
	  "chain: a line repeated: caught" },
	{ "012", "infra-error", "the guest stopped before the agent's done",
	  "chain: no done line to seal it: infra-error" },
};

/* A suppressed, reordered, inserted, altered or replayed line is caught. */
static void test_chain(void)
{
	char *good = sign(START RESULT DMESG DONE), *other, *log;
	static const struct cls_job keyless = {
		.nonce = NONCE, .log = "", .status = DONE_ST,
		.status_len = sizeof(DONE_ST) - 1, .key_name = "jobs/x/key",
	};
	struct sac_chain c;
	const char *line;
	size_t n, i;

	for (i = 0; i < ARRAY_SIZE(reorders); i++)
		expect(run_signed(reorder(good, reorders[i].order)),
		       reorders[i].outcome, "reason", reorders[i].reason,
		       reorders[i].what);
	line = nth_line(good, 3, &n);
	expect(run_signed(insert_at(good, line + n - good - 2, " ")),
	       "infra-error", "reason", "line 4: SAC done line's mac does not verify",
	       "chain: the done line altered: caught");
	expect(run_signed(insert_at(good, nth_line(good, 1, &n) - good,
				    N "result 1 " MAC0 " " PASS_OBJ)),
	       "infra-error", "reason",
	       "line 2: SAC result line's mac does not verify: not line 1 of this job's agent's chain (forged",
	       "chain: a forged result with the nonce and the next seq: caught");
	log = sign(START N "result {\"workload\":\"w1\",\"status\":\"fail\"}\n" DMESG DONE);
	memcpy(strstr(log, "\"fail\""), "\"pass\"", 6);
	expect(run_signed(log), "infra-error", "reason",
	       "line 2: SAC result line's mac does not verify",
	       "chain: a fail result turned into a pass (mac kept): caught");
	sac_chain_init(&c, (const uint8_t *)"another job's key, 32 bytes long", NONCE);
	other = sign_with(&c, good, strlen(good), &n);
	line = nth_line(other, 1, &n);
	log = reorder(good, "0");
	log = realloc(log, strlen(good) + 1);
	strncat(log, line, n);
	strcat(log, nth_line(good, 2, &n));
	expect(run_signed(log), "infra-error", "reason",
	       "line 2: SAC result line's mac does not verify",
	       "chain: a line replayed from another job with the same nonce: caught");
	expect(run_signed(other), "infra-error", "reason",
	       "line 1: SAC start line's mac does not verify",
	       "chain: another job's whole log: caught at its first line");
	expect(run_signed(sign(START RESULT DMESG DONE RESULT)), "infra-error",
	       "reason", "line 5: SAC line after done", "chain: a line after done: caught");
	log = strdup(START RESULT DONE);
	expect(run_signed(log), "infra-error", "reason",
	       "line 1: SAC start line has no sequence number and mac",
	       "chain: an unchained (old agent's) line: refused");
	expect(cls_classify(&keyless), "infra-error", "reason",
	       "key file jobs/x/key is missing", "chain: no key file: infra-error");
	/* the console splits a line inside its mac: rejoined, and it verifies */
	line = strstr(good, " result 1 ") + 20;
	log = insert_at(good, line - good, TS "random: crng init done\n");
	expect(run_signed(log), "pass", NULL, NULL,
	       "chain: kernel text inside a mac: rejoined, pass");
	free(good);
}

#define HUNG_FLOOD "flood\nconsole.exp: 100 bytes dropped\nflood\n" \
	"[  245.1] INFO: task w1:7 blocked for more than 120 seconds.\n"

static void test_flood(void)
{
	static const char tail[] = "[   60.0] Kernel panic - not syncing: Fatal exception\n";
	static const char st[] = DONE_ST "log_dropped=100\n";
	char log[1024], *head = sign(START RESULT "flood line\nflo");
	size_t at;

	/* the gap's offset in the log as chained */
	at = (size_t)snprintf(log, sizeof(log), "%s", head);
	free(head);
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

	r = run("unit\xe2\x80\xa6 ok \xe2\x80 cut\n", 18, NULL);
	check(!strcmp(json_string_value(json_object_get(r, "last_line")),
		      "unit\xe2\x80\xa6 ok ?? cut"),
	      "valid UTF-8 kept, a cut sequence shown as '?'");
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
	test_notice();
	test_systemd();
	test_cut();
	test_flood();
	test_chain();
	printf("1..%d\n", test_no);
	return failed ? 1 : 0;
}
