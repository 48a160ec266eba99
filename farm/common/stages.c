// SPDX-License-Identifier: GPL-2.0
/* The console stage sequence, declared once: see stages.h. */
#include <stdlib.h>

#include "stages.h"
#include "util.h"

/*
 * After the last stage's mark QEMU itself must exit, within the same
 * timeout: power-off is done only when the guest is gone. A LAVA
 * monitor waits for its start line under its own timeout, so the boot
 * window covers the kernel and IOMMU stages together.
 */
const struct stage stages[] = {
	{ .name = "kernel", .mark = "Linux version", .timeout = "kernel" },
	{ .name = "iommu", .mark = "{iommu}", .timeout = "iommu",
	  .monitor = "boot", .window = { "Linux version", "{iommu}" } },
	{ .name = "agent", .mark = "^SAC {nonce} start( |$)",
	  .timeout = "agent", .monitor = "agent",
	  .window = { "SAC {nonce} start", "SAC {nonce} identity" } },
	{ .mark = "^SAC {nonce} result( |$)", .monitor = "workloads",
	  .window = { "SAC {nonce} begin", "SAC {nonce} dmesg" },
	  .cases = true },
	{ .name = "poweroff", .mark = "^SAC {nonce} done( |$)",
	  .timeout = "poweroff", .monitor = "poweroff",
	  .window = { "SAC {nonce} done", "reboot: Power down" } },
};
const size_t n_stages = ARRAY_SIZE(stages);

const char *stage_name(const struct stage *s, const char *workload)
{
	return s->name ? s->name : workload;
}

char *stage_expand(const char *tmpl, const char *nonce, const char *iommu)
{
	char *a = str_replace_all(tmpl, "{nonce}", nonce);
	char *b = str_replace_all(a, "{iommu}", iommu);

	free(a);
	return b;
}
