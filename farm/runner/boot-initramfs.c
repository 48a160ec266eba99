// SPDX-License-Identifier: GPL-2.0
/*
 * Boot method "initramfs": the kernel image booted directly, with the
 * farm's agent as /init of an initramfs packed per kernel and workload
 * (initramfs.c).
 */
#include <stdlib.h>

#include "boot.h"

static char *initramfs_prepare(struct job *j)
{
	char *why = NULL;
	char *cpio = initramfs_get(j->k, j->w, &why);

	if (!cpio)
		return why;
	j->boot_images = json_pack("[{s:s, s:s, s:[s,s,s,s]}, {s:s, s:s, s:[s,s]}]",
				   "label", "kernel", "path", j->k->image,
				   "words", "-kernel", "{kernel}", "-append",
				   "{cmdline}",
				   "label", "initrd", "path", cpio,
				   "words", "-initrd", "{initrd}");
	free(cpio);
	return NULL;
}

const struct boot_method boot_agent_initramfs = {
	.name = "initramfs",
	.prepare = initramfs_prepare,
};
