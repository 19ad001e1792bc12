/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the oldest kernels the module builds for (Debian 11's 5.10) lack,
 * in one place.  Kbuild tells which: a symbol missing from the target's
 * Module.symvers is not exported there (SFRAME_NO_<SYMBOL>).
 */
#ifndef _SFRAME_KCOMPAT_H
#define _SFRAME_KCOMPAT_H

#include <linux/ftrace.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>

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

#endif /* _SFRAME_KCOMPAT_H */
