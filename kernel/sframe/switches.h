/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which of the kernel's user-stack walkers this kernel has, and so which
 * the module replaces: one switch each, derived here from the kernel's
 * configuration and Kbuild's probes, and tested as such elsewhere.
 */
#ifndef _SFRAME_SWITCHES_H
#define _SFRAME_SWITCHES_H

#include <linux/kconfig.h>

/*
 * arch_stack_walk_user(), the walk of ftrace's userstacktrace and of
 * stack_trace_save_user(): where the architecture has
 * USER_STACKTRACE_SUPPORT (x86-64 and arm64 6.12 have it, arm64 6.1 not).
 */
#ifdef CONFIG_USER_STACKTRACE_SUPPORT
#define SFRAME_HOOK_STACKTRACE
#endif

/*
 * unwind_user(), the deferred unwinder's walk (7.x): where the kernel
 * has <linux/unwind_user.h> (Kbuild's probe) and builds it.
 */
#if defined(SFRAME_HAVE_UNWIND_USER_H) && IS_ENABLED(CONFIG_UNWIND_USER)
#define SFRAME_HOOK_UNWIND_USER
#endif

#endif /* _SFRAME_SWITCHES_H */
