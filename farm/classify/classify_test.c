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
	{ "[    1.373359] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)",
	  CLS_PANIC },
	{ "[    2.1] BUG: kernel NULL pointer dereference, address: 0000000000000000", CLS_OOPS },
	{ "[    2.1] Oops: 0002 [#1] PREEMPT SMP NOPTI", CLS_OOPS },
	{ "[    2.1] WARNING: CPU: 0 PID: 1 at drivers/iommu/dma-iommu.c:700 iommu_dma_alloc_iova+0x1/0x2",
	  CLS_OOPS },
	{ "[    2.1] Unable to handle kernel NULL pointer dereference at virtual address 0000000000000008",
	  CLS_OOPS },
	{ "[    1.160738] DMAR: DRHD: handling fault status reg 2", CLS_FAULT },
	{ "[    1.161036] DMAR: [DMA Read NO_PASID] Request device [00:02.0] fault addr 0xfffff000 [fault reason 0x06] PTE Read access is not set",
	  CLS_FAULT },
	{ "[    1.1] DMAR: [INTR-REMAP] Request device [00:02.0] fault index 0x1 [fault reason 0x25] Blocked an interrupt request due to source-id verification failure",
	  CLS_FAULT },
	{ "[    1.1] vfio-pci 0000:00:02.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0001 address=0xfffff000 flags=0x0000]",
	  CLS_FAULT },
	{ "[    1.1] arm-smmu-v3 9050000.smmuv3: event 0x10 received:", CLS_FAULT },
	{ "[    1.1] virtio_iommu virtio0: page fault from EP 16 at 0xfffff000 [R]", CLS_FAULT },
	{ "qemu: hardware error: EDU: DMA range 0x0000000000040800-0x0000000000041000 out of bounds (0x0000000000040000-0x0000000000040fff)!",
	  CLS_QEMU_CRASH },
	{ "qemu-system-x86_64: ../hw/pci/pci.c:1: pci_foo: Assertion `x' failed.", CLS_QEMU_CRASH },
	{ "qemu-system-x86_64: terminating on signal 15 from pid 1234 (timeout)", CLS_QEMU_CRASH },
	{ "qemu-system-x86_64: -device nope: 'nope' is not a valid device model name",
	  CLS_QEMU_MSG },
	/* informative, never a verdict */
	{ "EDU: clamping DMA 0x0000fffffffff000 to 0x00000000fffff000!", CLS_NONE },
	{ "qemu-system-x86_64: vtd_iommu_translate: detected translation failure (dev=00:02:00, iova=0xfffff000)",
	  CLS_QEMU_MSG },
	{ "qemu-system-x86_64: warning: TCG doesn't support requested feature: CPUID.01H:ECX.vmx [bit 5]",
	  CLS_NONE },
	{ "[    0.008000] DMAR-IR: Enabled IRQ remapping in xapic mode", CLS_NONE },
	{ "[    0.595344] DMAR: Intel(R) Virtualization Technology for Directed I/O", CLS_NONE },
	{ "[    0.1] arm-smmu-v3 9050000.smmuv3: ias 44-bit, oas 44-bit (features 0x00008305)",
	  CLS_NONE },
	{ "[    0.1] DEBUG: something else", CLS_NONE },
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

static json_t *run(const char *log, size_t len, const char *status)
{
	static const char *const w[] = { "w1" };
	struct cls_job job = {
		.nonce = "0123456789abcdef", .workloads = w, .n_workloads = 1,
		.log = log, .log_len = len, .status = status,
		.status_len = status ? strlen(status) : 0,
		.log_name = "log", .status_name = "status",
	};

	return cls_classify(&job);
}

static const char *outcome(json_t *r)
{
	return json_string_value(json_object_get(r, "outcome"));
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
	test_names();
	test_bounds();
	printf("1..%d\n", test_no);
	return failed ? 1 : 0;
}
