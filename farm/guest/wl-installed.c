// SPDX-License-Identifier: GPL-2.0
/*
 * Workloads of an installed system (boot method "installed"; the agent
 * runs as its service sac-job.service):
 *
 *   installed-boot  the system came up as a user's does: systemd is
 *                   PID 1 and the root is the ext4 of the image's disk,
 *                   which initramfs-tools found and mounted; it lists
 *                   the modules the system loaded (make release-modules
 *                   keeps those of Debian's stock kernel)
 *   installed-fw    the "GPU" (edu, farm/module/sac_fwload.c) that udev
 *                   loaded a driver for by modalias accepted its firmware;
 *                   its fw_status line is the evidence. Reaching here at
 *                   all means the boot did not stall waiting for it.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workloads.h"

#define STATUS_MAX 256

/* 0 and the first line of path in buf, or -1. */
static int first_line(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	int bad;

	if (!f)
		return -1;
	bad = !fgets(buf, cap, f);
	fclose(f);
	if (bad)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static void check_root(struct sac_result *r)
{
	FILE *m = setmntent("/proc/mounts", "r");
	struct mntent *e;

	if (!m) {
		sac_fail(r, "cannot read /proc/mounts");
		return;
	}
	while ((e = getmntent(m)))
		if (!strcmp(e->mnt_dir, "/"))
			break;
	if (!e)
		sac_fail(r, "nothing is mounted on /");
	else if (strcmp(e->mnt_type, "ext4"))
		sac_fail(r, "the root is %s on %s, not the image's ext4",
			 e->mnt_type, e->mnt_fsname);
	else
		sac_detail(r, "root", "%s", e->mnt_fsname);
	endmntent(m);
}

/*
 * The loaded modules: make release-modules keeps those Debian's stock
 * kernel loads, the list a release kernel is trimmed to.
 */
static void report_modules(struct sac_result *r)
{
	FILE *f = fopen("/proc/modules", "r");

	if (!f) {
		sac_fail(r, "cannot read /proc/modules");
		return;
	}
	sac_detail_words(r, "modules", f);
	fclose(f);
}

void wl_installed_boot(struct sac_result *r)
{
	char init[64] = "";

	if (first_line("/proc/1/comm", init, sizeof(init)))
		sac_fail(r, "cannot read /proc/1/comm");
	else if (strcmp(init, "systemd"))
		sac_fail(r, "PID 1 is %s, not systemd", init);
	check_root(r);
	sac_detail(r, "init", "%s", init);
	report_modules(r);
	sac_metric(r, "uptime_s", sac_now());
}

void wl_installed_fw(struct sac_result *r)
{
	char status[STATUS_MAX], bdf[NAME_MAX + 1];

	/* sac_fwload stays bound only to a card that took its firmware */
	if (!sac_pci_find(EDU_VENDOR_ID, EDU_DEVICE_ID, true, bdf, sizeof(bdf))) {
		if (!sac_pci_find(EDU_VENDOR_ID, EDU_DEVICE_ID, false, bdf,
				  sizeof(bdf))) {
			sac_skip(r, "no edu device");
			return;
		}
		sac_detail(r, "device", "%s", bdf);
		sac_fail(r, "%s has no fw_status: no driver took it (firmware never accepted)",
			 bdf);
		return;
	}
	sac_detail(r, "device", "%s", bdf);
	if (sac_pci_attr(bdf, "fw_status", status, sizeof(status))) {
		sac_fail(r, "%s has no fw_status: its driver is not sac_fwload", bdf);
		return;
	}
	sac_detail(r, "fw_status", "%s", status);
	if (strncmp(status, "accepted", 8))
		sac_fail(r, "firmware not accepted: %s", status);
}
