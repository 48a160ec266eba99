// SPDX-License-Identifier: GPL-2.0
/*
 * Boot method "initramfs": the kernel image booted directly, with the
 * farm's agent as /init of an initramfs packed per kernel and workload
 * (initramfs.c); a job boots its own copy, with its key appended.
 */
#include <stdlib.h>
#include <unistd.h>

#include "boot.h"

/* The initrd's place in j->boot_images, as initramfs_prepare() packs them. */
#define INITRD 1

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

/* The job's initrd: the cached one with the key's archive after it. */
static char *initramfs_give_key(struct job *j)
{
	json_t *img = json_array_get(j->boot_images, INITRD);
	const char *base = jstr(img, "path", "");
	char *keyed = job_path(j, JOB_KEYED_IMAGE), *why = NULL;

	if (initramfs_keyed(base, keyed, j->key)) {
		why = xasprintf("cannot write %s from %s", keyed, base);
		unlink(keyed);
	} else {
		json_object_set_new(img, "path", json_string(keyed));
	}
	free(keyed);
	return why;
}

const struct boot_method boot_agent_initramfs = {
	.name = "initramfs",
	.prepare = initramfs_prepare,
	.give_key = initramfs_give_key,
};
