// SPDX-License-Identifier: GPL-2.0
/*
 * vmtest_probe: the smallest module the harness builds for a kernel whose
 * architecture the project's module does not support yet (arm64).  That
 * it loads proves the harness's build path: headers, compiler and
 * vermagic agree with the booted kernel.
 */
#include <linux/init.h>
#include <linux/module.h>
#include <linux/utsname.h>

static int __init vmtest_probe_init(void)
{
	pr_info("vmtest_probe: loaded on %s %s\n", init_utsname()->release,
		init_utsname()->machine);
	return 0;
}

static void __exit vmtest_probe_exit(void)
{
	pr_info("vmtest_probe: unloaded\n");
}

module_init(vmtest_probe_init);
module_exit(vmtest_probe_exit);
MODULE_DESCRIPTION("vmtest: proves the harness's module build path");
MODULE_LICENSE("GPL");
