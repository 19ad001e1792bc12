/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The walk of the current task's user stack, inline in each caller so
 * that the consumer of its return addresses is too: the walkers that
 * replace the kernel's (unwind.c; walk_user.c owns the step caches) and the
 * benchmark (walk_bench.c).
 */
#ifndef _SFRAME_WALK_USER_H
#define _SFRAME_WALK_USER_H

#include <linux/kernel.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>

#include "sframe_unwind.h"
#include "user_regs.h"

/*
 * Where a walk starts: the kernel's accessors, which take a non-const
 * pt_regs on some architectures.
 */
static __always_inline u64 sframe_user_ip(const struct pt_regs *regs)
{
	return instruction_pointer((struct pt_regs *)regs);
}

static __always_inline u64 sframe_user_sp(const struct pt_regs *regs)
{
	return user_stack_pointer((struct pt_regs *)regs);
}

static __always_inline u64 sframe_user_fp(const struct pt_regs *regs)
{
	return frame_pointer((struct pt_regs *)regs);
}

/*
 * The step caches (walk.h): one per CPU and interrupt level.  A walk is
 * interrupted on its CPU only by one of a higher level, so two walks
 * never share a table; @busy covers the exception, a walk started inside
 * another of its level (a BPF program on a function the walk calls),
 * which goes without.  Walks hold the CPU: preemption is off.
 */
#define SFRAME_CACHE_LEVELS	4	/* task, softirq, hardirq, NMI */

struct sframe_step_caches {
	struct sframe_step_cache level[SFRAME_CACHE_LEVELS];
	bool busy[SFRAME_CACHE_LEVELS];
};

extern struct sframe_step_caches __percpu *sframe_step_caches;

static __always_inline unsigned int sframe_cache_level(void)
{
	if (in_nmi())
		return 3;
	if (hardirq_count())
		return 2;
	return in_serving_softirq() ? 1 : 0;
}

/* This CPU's table for this level, marked busy; NULL if it is taken. */
static __always_inline struct sframe_step_caches *
sframe_cache_get(unsigned int level)
{
	struct sframe_step_caches *c;

	if (!sframe_step_caches)
		return NULL;
	c = this_cpu_ptr(sframe_step_caches);
	if (c->busy[level])
		return NULL;
	c->busy[level] = true;
	barrier();
	return c;
}

static __always_inline void sframe_cache_put(struct sframe_step_caches *c,
					     unsigned int level)
{
	barrier();
	if (c)
		c->busy[level] = false;
}

/*
 * A walk of the current task's user stack from @regs, as the two below
 * begin and end it.  Sections are used under RCU, which also lets module
 * unload wait for walks in flight.  @cache: step through this CPU's step
 * cache (only the benchmark's cold walk goes without).  Begin sets every
 * field of this and of the struct sframe_walk, so their callers declare
 * them __uninitialized: the kernel's zeroing of locals
 * (CONFIG_INIT_STACK_ALL_ZERO, Debian's kernels' choice) would write both
 * twice a sample.
 */
struct sframe_user_walk {
	struct sframe_user_ctx ctx;
	struct sframe_step_caches *caches;
	unsigned int level;
};

static __always_inline void sframe_user_walk_begin(struct sframe_user_walk *u,
						   const struct pt_regs *regs,
						   struct sframe_walk *w,
						   bool cache)
{
	u->ctx = (struct sframe_user_ctx){
		.cur = { .mm = current->mm },
		.regs = regs,
	};
	u->caches = NULL;
	u->level = sframe_cache_level();
	rcu_read_lock();
	preempt_disable_notrace();
	sframe_walk_start(w, &sframe_arch_native, sframe_user_ip(regs),
			  sframe_user_sp(regs), sframe_user_fp(regs),
			  NULL, &u->ctx);
	if (cache)
		u->caches = sframe_cache_get(u->level);
	if (u->caches)
		sframe_walk_cache(w, &u->caches->level[u->level]);
}

static __always_inline void sframe_user_walk_end(struct sframe_user_walk *u)
{
	sframe_cache_put(u->caches, u->level);
	preempt_enable_notrace();
	rcu_read_unlock();
}

/*
 * Walk the current task's user stack from @regs into the consumer's own
 * array: each caller's return address in @ips, @max at most, in one
 * sframe_walk_fill(), so that the table's loop is entered once a walk
 * and nothing is copied.  Return: how many were stored (@max: the walk
 * may go on).
 */
static __always_inline unsigned int
sframe_walk_user_into(const struct pt_regs *regs, u64 *ips, unsigned int max,
		      struct sframe_walk *w, bool cache)
{
	struct sframe_user_walk u __uninitialized;
	unsigned int n;

	sframe_user_walk_begin(&u, regs, w, cache);
	n = sframe_walk_fill(w, ips, max);
	sframe_user_walk_end(&u);
	return n;
}

/*
 * The same for a consumer that keeps its room to itself: each return
 * address handed to @store, one step at a time, until it says stop
 * (then return true) or the walk ends.
 */
static __always_inline bool
sframe_walk_user_each(const struct pt_regs *regs,
		      bool (*store)(void *cookie, u64 ip), void *cookie,
		      struct sframe_walk *w)
{
	struct sframe_user_walk u __uninitialized;
	bool full = false;
	u64 ip;

	sframe_user_walk_begin(&u, regs, w, true);
	while (!full && sframe_walk_fill(w, &ip, 1))
		full = !store(cookie, ip);
	sframe_user_walk_end(&u);
	return full;
}

#endif /* _SFRAME_WALK_USER_H */
