// SPDX-License-Identifier: GPL-2.0
/* The console stage sequence, declared once: see stages.h. */
#include <stdlib.h>
#include <string.h>

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
	/*
	 * systemd announces itself once it runs from the root disk, after
	 * initramfs-tools found and mounted it; multi-user.target is what
	 * the user's services wait for, and the agent's unit waits for it.
	 */
	{ .name = "systemd", .mark = "Welcome to .*!", .timeout = "systemd",
	  .boot = "installed" },
	{ .name = "multi-user", .mark = "Reached target .*Multi-User System",
	  .timeout = "multi-user", .boot = "installed" },
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

bool stage_in(const struct stage *s, const char *boot)
{
	return !s->boot || !strcmp(s->boot, boot);
}

size_t stages_of(const char *boot, const struct stage **seq)
{
	size_t i, n = 0;

	for (i = 0; i < n_stages && n < STAGES_MAX; i++)
		if (stage_in(&stages[i], boot))
			seq[n++] = &stages[i];
	return n;
}

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
