/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the oldest kernels the module builds for (Debian 11's 5.10) lack,
 * and what differs between the ways ftrace hands a callback the traced
 * function's registers or a module registers a shrinker, in one place.  Kbuild tells which: a symbol
 * missing from the target's Module.symvers is not exported there
 * (SFRAME_NO_<SYMBOL>).
 */
#ifndef _SFRAME_KCOMPAT_H
#define _SFRAME_KCOMPAT_H

#include <linux/ftrace.h>
#include <linux/mm.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

/*
 * Charge allocations to @memcg from here on; returns the one to restore.
 * Task context only (the module calls it from work items).  Where the
 * per-CPU variable set_active_memcg() uses in interrupts is not exported
 * (5.10), set the task's own field, which is all it does in a task.
 */
static inline struct mem_cgroup *sframe_set_active_memcg(struct mem_cgroup *memcg)
{
#if defined(SFRAME_NO_INT_ACTIVE_MEMCG) && defined(CONFIG_MEMCG)
	struct mem_cgroup *old = current->active_memcg;

	current->active_memcg = memcg;
	return old;
#else
	return set_active_memcg(memcg);
#endif
}

/*
 * The top of every task's user address space, the end of a window that
 * covers all of it.  arm64 names it from 5.11 on; before, its largest
 * task size is TASK_SIZE_64 (the running kernel's VA size).
 */
#ifndef TASK_SIZE_MAX
#define TASK_SIZE_MAX	TASK_SIZE_64
#endif

/*
 * Free @ops' filter.  Where ftrace_free_filter() is not exported (5.10),
 * resetting the filter to nothing frees its hash all the same.
 */
static inline void sframe_ftrace_free_filter(struct ftrace_ops *ops)
{
#ifdef SFRAME_NO_FTRACE_FREE_FILTER
	ftrace_set_filter(ops, NULL, 0, 1);
#else
	ftrace_free_filter(ops);
#endif
}

/*
 * The VMAs of an mm from @start on, under its mmap_lock: the VMA iterator
 * from 6.1, the VMA list before.
 */
#ifdef VMA_ITERATOR
#define SFRAME_VMA_ITER(it, mm, start)	VMA_ITERATOR(it, mm, start)
#define sframe_for_each_vma_range(it, vma, end) \
	for_each_vma_range(it, vma, end)
#else
struct sframe_vma_iter {
	struct mm_struct *mm;
	unsigned long start;
};

#define SFRAME_VMA_ITER(it, mm_, start_) \
	struct sframe_vma_iter it = { .mm = (mm_), .start = (start_) }
#define sframe_for_each_vma_range(it, vma, end)			\
	for ((vma) = find_vma((it).mm, (it).start);			\
	     (vma) && (vma)->vm_start < (end); (vma) = (vma)->vm_next)
#endif

/*
 * The traced function's registers as an ftrace callback has them: a
 * struct pt_regs where ftrace saves them all (DYNAMIC_FTRACE_WITH_REGS:
 * x86-64, arm64 before 6.2), else the struct ftrace_regs of
 * DYNAMIC_FTRACE_WITH_ARGS (arm64 from 6.2), which holds the arguments,
 * SP, FP, LR and the PC ftrace returns to.  Opaque: only the helpers
 * below look inside.
 */
struct sframe_hook_regs;

#if defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#define SFRAME_FTRACE_OPS_FL_REGS	FTRACE_OPS_FL_SAVE_REGS
#define SFRAME_HOOK_REGS		struct pt_regs
#define sframe_hook_get_arg		regs_get_kernel_argument
#define sframe_hook_set_pc		instruction_pointer_set

#ifdef SFRAME_HAVE_FTRACE_REGS
#define SFRAME_FTRACE_CALLBACK_REGS	struct ftrace_regs
#define sframe_hook_callback_regs	ftrace_get_regs
#else
/* Before 5.11, callbacks get the pt_regs themselves. */
#define SFRAME_FTRACE_CALLBACK_REGS	struct pt_regs
#define sframe_hook_callback_regs(regs)	(regs)
#endif
#elif defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS)
#define SFRAME_FTRACE_OPS_FL_REGS	0
#define SFRAME_HOOK_REGS		struct ftrace_regs
#define sframe_hook_get_arg		ftrace_regs_get_argument
#define sframe_hook_set_pc		ftrace_regs_set_instruction_pointer
#define SFRAME_FTRACE_CALLBACK_REGS	struct ftrace_regs
#define sframe_hook_callback_regs(fregs) (fregs)
#else
/*
 * Neither: a callback sees no registers, so it can neither read the
 * traced function's arguments nor send it elsewhere.  No kernel the
 * module targets is built so; say why rather than build a module that
 * could do nothing.
 */
#error "sframe_unwind needs DYNAMIC_FTRACE_WITH_REGS or DYNAMIC_FTRACE_WITH_ARGS: ftrace hands callbacks no registers here"
#endif

/* What a callback was handed: NULL if ftrace saved no registers. */
#define sframe_hook_regs(regs) \
	((struct sframe_hook_regs *)sframe_hook_callback_regs(regs))

/* Argument @n of the traced function, at its entry. */
static inline unsigned long sframe_hook_arg(struct sframe_hook_regs *r,
					    unsigned int n)
{
	return sframe_hook_get_arg((SFRAME_HOOK_REGS *)r, n);
}

/* Make the traced function's call go to @ip instead. */
static inline void sframe_hook_set_ip(struct sframe_hook_regs *r,
				      unsigned long ip)
{
	sframe_hook_set_pc((SFRAME_HOOK_REGS *)r, ip);
}

typedef unsigned long (*sframe_shrink_fn)(struct shrinker *shrinker,
					  struct shrink_control *sc);

/*
 * A registered shrinker calling @count and @scan, named @name where the
 * kernel names them (6.0); NULL on failure.  From 6.7 the kernel allocates
 * shrinkers (shrinker_alloc()), before it the caller does.
 */
static inline struct shrinker *sframe_shrinker_register(sframe_shrink_fn count,
							sframe_shrink_fn scan,
							const char *name)
{
	struct shrinker *s;

#ifdef SFRAME_HAVE_SHRINKER_ALLOC
	s = shrinker_alloc(0, "%s", name);
#else
	s = kzalloc(sizeof(*s), GFP_KERNEL);
#endif
	if (!s)
		return NULL;
	s->count_objects = count;
	s->scan_objects = scan;
	s->seeks = DEFAULT_SEEKS;
#ifdef SFRAME_HAVE_SHRINKER_ALLOC
	shrinker_register(s);
#elif defined(SFRAME_HAVE_SHRINKER_NAME)
	if (register_shrinker(s, "%s", name)) {
		kfree(s);
		return NULL;
	}
#else
	if (register_shrinker(s)) {
		kfree(s);
		return NULL;
	}
#endif
	return s;
}

/* Unregister and free what sframe_shrinker_register() gave; NULL: none. */
static inline void sframe_shrinker_unregister(struct shrinker *s)
{
	if (!s)
		return;
#ifdef SFRAME_HAVE_SHRINKER_ALLOC
	shrinker_free(s);
#else
	unregister_shrinker(s);
	kfree(s);
#endif
}

#endif /* _SFRAME_KCOMPAT_H */
