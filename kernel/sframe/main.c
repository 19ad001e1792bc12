// SPDX-License-Identifier: GPL-2.0
/*
 * sframe_unwind module entry.  This stage carries the SFrame format core,
 * which the section cache and the unwinder build on; it attaches to nothing.
 */
#include <linux/module.h>
#include <linux/init.h>

#include <sframe/sframe.h>

static int __init sframe_unwind_init(void)
{
	pr_info("sframe_unwind: SFrame v1-v3 format core loaded\n");
	return 0;
}

static void __exit sframe_unwind_exit(void)
{
}

module_init(sframe_unwind_init);
module_exit(sframe_unwind_exit);

MODULE_DESCRIPTION("SFrame user-space stack unwinding for perf, BPF and ftrace");
MODULE_LICENSE("GPL");
