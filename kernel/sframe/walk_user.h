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

/* The module's walk callbacks (walk_user.c). */
extern const struct sframe_walk_ops sframe_user_ops;

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

/* Return addresses a walk hands over at most at once, from its stack. */
#define SFRAME_WALK_BATCH	16

/*
 * Walk the current task's user stack from @regs, handing each caller's
 * return address to @store until it says stop or @max were handed over
 * (then return true).  The walk steps @batch frames at a time, so
 * @batch - 1 beyond what @store takes at most.  Inline in each caller,
 * so that @store is too.  Sections are used under RCU, which also lets
 * module unload wait for walks in flight.  @cache: step through this
 * CPU's step cache (only the benchmark's cold walk goes without).
 */
static __always_inline bool
sframe_walk_user_raw(const struct pt_regs *regs, unsigned int max,
		     unsigned int batch, bool (*store)(void *cookie, u64 ip),
		     void *cookie, struct sframe_walk *w, bool cache)
{
	struct sframe_step_caches *caches = NULL;
	unsigned int level = sframe_cache_level();
	struct sframe_user_ctx ctx = {
		.cur = { .mm = current->mm },
		.regs = regs,
	};
	u64 ips[SFRAME_WALK_BATCH];
	unsigned int n, i, want;
	bool full = false;

	rcu_read_lock();
	preempt_disable_notrace();
	sframe_walk_start(w, &sframe_arch_native, sframe_user_ip(regs),
			  sframe_user_sp(regs), sframe_user_fp(regs),
			  &sframe_user_ops, &ctx);
	sframe_walk_strip_ra(w, sframe_regs_pac_bits());
	if (cache)
		caches = sframe_cache_get(level);
	if (caches)
		sframe_walk_cache(w, &caches->level[level]);
	for (;;) {
		want = min3(max, batch, (unsigned int)SFRAME_WALK_BATCH);
		n = sframe_walk_fill(w, ips, want);
		for (i = 0; i < n && !full; i++)
			full = !store(cookie, ips[i]);
		max -= n;
		if (full || n < want)
			break;
		if (!max) {
			full = true;
			break;
		}
	}
	sframe_cache_put(caches, level);
	preempt_enable_notrace();
	rcu_read_unlock();
	return full;
}

#endif /* _SFRAME_WALK_USER_H */
