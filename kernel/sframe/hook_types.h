/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What attach.c assumes of each kernel function it hooks, checked against
 * the kernel's own declaration when the module is built: a walker it
 * replaces must take exactly its replacement's arguments, and an observed
 * function's arguments must be what its observer reads by position.  A
 * kernel that changes one stops the build here, naming the function.
 * Kbuild says which the headers declare (SFRAME_DECLARES_<function>);
 * an observed function none declares is checked against the running
 * kernel's BTF when the module loads (attach.c);
 * Documentation/design.rst, "The kernel functions it relies on", lists
 * them and what is checked where.
 */
#ifndef _SFRAME_HOOK_TYPES_H
#define _SFRAME_HOOK_TYPES_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/kconfig.h>
#include <linux/mm.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/stacktrace.h>

#include "sframe_unwind.h"

#define SFRAME_HOOK_TYPE(func, type)					\
	static_assert(__same_type(&(func), type),			\
		      #func "() changed: its hook would misread it")

/* Replaced walkers: the call goes on into ours with its arguments. */
#if defined(SFRAME_DECLARES_perf_callchain_user) && IS_ENABLED(CONFIG_PERF_EVENTS)
SFRAME_HOOK_TYPE(perf_callchain_user, typeof(&sframe_perf_callchain_user));
#endif
#if defined(SFRAME_HOOK_STACKTRACE) && IS_ENABLED(CONFIG_ARCH_STACKWALK) && \
	defined(SFRAME_DECLARES_arch_stack_walk_user)
SFRAME_HOOK_TYPE(arch_stack_walk_user,
		 typeof(&sframe_arch_stack_walk_user));
#endif
#if defined(SFRAME_HOOK_UNWIND_USER) && defined(SFRAME_DECLARES_unwind_user)
SFRAME_HOOK_TYPE(unwind_user, typeof(&sframe_unwind_user));
#endif

/* Observers: the arguments they read. */
#ifdef SFRAME_DECLARES_exit_mmap
SFRAME_HOOK_TYPE(exit_mmap, void (*)(struct mm_struct *));
#endif
#ifdef SFRAME_DECLARES_vm_area_free
SFRAME_HOOK_TYPE(vm_area_free, void (*)(struct vm_area_struct *));
#endif
#ifdef SFRAME_DECLARES_vma_set_page_prot
SFRAME_HOOK_TYPE(vma_set_page_prot, void (*)(struct vm_area_struct *));
#endif
#ifdef SFRAME_DECLARES_copy_vma
SFRAME_HOOK_TYPE(copy_vma,
		 struct vm_area_struct *(*)(struct vm_area_struct **,
					    unsigned long, unsigned long,
					    pgoff_t, bool *));
#endif
#ifdef SFRAME_DECLARES_perf_event_mmap
SFRAME_HOOK_TYPE(perf_event_mmap, void (*)(struct vm_area_struct *));
#endif
#ifdef SFRAME_DECLARES_perf_event_fork
SFRAME_HOOK_TYPE(perf_event_fork, void (*)(struct task_struct *));
#endif
#ifdef SFRAME_DECLARES_wake_up_new_task
SFRAME_HOOK_TYPE(wake_up_new_task, void (*)(struct task_struct *));
#endif

/*
 * Whether an observed function's prototype was asserted above.  attach.c
 * checks the others against the running kernel's BTF before hooking them.
 */
#define SFRAME_CHECKED_AT_BUILD(func)	__is_defined(SFRAME_DECLARES_##func)

#endif /* _SFRAME_HOOK_TYPES_H */
