// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest out-of-tree module: proof that a linux-headers package
 * is enough to build against its kernel. Never loaded on the host.
 */
#include <linux/init.h>
#include <linux/module.h>

static int __init hello_init(void)
{
	pr_info("hello from %s\n", KBUILD_MODNAME);
	return 0;
}

static void __exit hello_exit(void)
{
}

module_init(hello_init);
module_exit(hello_exit);
MODULE_DESCRIPTION("linux-sac headers test module");
MODULE_LICENSE("GPL");
