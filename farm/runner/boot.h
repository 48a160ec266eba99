/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a guest boots. A boot method prepares what a job's guest boots
 * from and hands it over as images: each a file plus the QEMU words
 * that use it, with {label} standing for the file. The local engine
 * puts the paths in; a LAVA job deploys each image by URL and lets LAVA
 * put its copy in. The runner never asks which method it has.
 */
#ifndef FARM_BOOT_H
#define FARM_BOOT_H

#include "runner.h"

struct boot_method {
	const char *name;
	/*
	 * Whether the method can boot kernel k at all (NULL: every kernel).
	 * A kernel it cannot has no cells of the method's workloads, as a
	 * machine of another arch has none.
	 */
	bool (*boots)(const struct kernel *k);
	/*
	 * Makes the job bootable: sets j->boot_images to an array of
	 * {"label", "path", "words"}, in QEMU order. Returns NULL, or why
	 * the job cannot be set up (an infra-error; the caller frees it).
	 */
	char *(*prepare)(struct job *j);
	/*
	 * Hands a prepared job's guest its key, j->key (farm/PROTOCOL.md,
	 * "Integrity"), in the job's own copy of an image: the file
	 * JOB_KEYED_IMAGE in the job dir, which j->boot_images then names
	 * and whoever ends the job deletes. NULL, or why not (the caller
	 * frees it).
	 */
	char *(*give_key)(struct job *j);
};

/* The farm's static agent as /init of an initramfs (boot-initramfs.c). */
extern const struct boot_method boot_agent_initramfs;

/*
 * The kernel's .deb installed by dpkg into the farm's Debian image, booted
 * through initramfs-tools and systemd; the agent is a service of that
 * system (boot-installed.c).
 */
extern const struct boot_method boot_installed;

/* By the name a workload's "boot" field gives; NULL if unknown. */
const struct boot_method *boot_method_find(const char *name);

#endif /* FARM_BOOT_H */
