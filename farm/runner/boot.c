// SPDX-License-Identifier: GPL-2.0
/* The boot methods a workload's "boot" field can name: see boot.h. */
#include <string.h>

#include "boot.h"

static const struct boot_method *const boot_methods[] = {
	&boot_agent_initramfs,
	&boot_installed,
};

const struct boot_method *boot_method_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(boot_methods); i++)
		if (!strcmp(boot_methods[i]->name, name))
			return boot_methods[i];
	return NULL;
}
