// SPDX-License-Identifier: GPL-2.0
/*
 * The user-stack walkers that replace the kernel's: perf_callchain_user()
 * (perf -g, BPF user stacks) and arch_stack_walk_user() (ftrace
 * userstacktrace, stack_trace_save_user()).  They keep the stock walkers'
 * checks and walk with the SFrame step logic, reading the user stack only
 * through copy_from_user_nofault(), which also refuses when the sampled
 * task's mm is not the loaded one (nmi_uaccess_okay()).
 */
#include <linux/compat.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include "sframe_unwind.h"

struct sframe_user_ctx {
	struct mm_struct *mm;
	const struct pt_regs *regs;
};

static int sframe_user_read(void *ctx, u64 addr, u64 *val)
{
	unsigned long word;

	if (copy_from_user_nofault(&word, (const void __user *)addr,
				   sizeof(word)))
		return -EFAULT;
	*val = word;
	return 0;
}

static const struct sframe_section *sframe_user_lookup(void *ctx, u64 ip,
						       u64 *bias, bool *fp_ok)
{
	struct sframe_user_ctx *c = ctx;

	return sframe_cache_lookup(c->mm, ip, bias, fp_ok);
}

/* x86-64 DWARF register numbers 0-15 in pt_regs. */
static bool sframe_user_reg(void *ctx, unsigned int reg, u64 *val)
{
	const struct pt_regs *r = ((struct sframe_user_ctx *)ctx)->regs;
	const unsigned long dwarf_regs[] = {
		r->ax, r->dx, r->cx, r->bx, r->si, r->di, r->bp, r->sp,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
	};

	if (reg >= ARRAY_SIZE(dwarf_regs))
		return false;
	*val = dwarf_regs[reg];
	return true;
}

static const struct sframe_walk_ops sframe_user_ops = {
	.read = sframe_user_read,
	.lookup = sframe_user_lookup,
	.reg = sframe_user_reg,
};

/*
 * Walk the current task's user stack from @regs, handing each caller's
 * return address to @store until it says stop.  Sections are used under
 * RCU, which also lets module unload wait for walks in flight.
 */
static void sframe_walk_user(const struct pt_regs *regs,
			     bool (*store)(void *cookie, u64 ip), void *cookie)
{
	struct sframe_user_ctx ctx = { .mm = current->mm, .regs = regs };
	struct sframe_walk w;
	bool full = false;

	sframe_count(samples);
	rcu_read_lock();
	sframe_walk_start(&w, regs->ip, regs->sp, regs->bp, &sframe_user_ops,
			  &ctx);
	while (sframe_walk_next(&w)) {
		if (!store(cookie, w.ip)) {
			full = true;
			break;
		}
	}
	rcu_read_unlock();

	atomic64_add(w.sframe_steps, &sframe_stats.frames_sframe);
	atomic64_add(w.fp_steps, &sframe_stats.frames_fp);
	if (full)
		sframe_count(max_depth);
	else
		sframe_count(stops[w.stop]);
}

static bool sframe_perf_store(void *cookie, u64 ip)
{
	struct perf_callchain_entry_ctx *entry = cookie;

	return entry->nr < entry->max_stack && !perf_callchain_store(entry, ip);
}

#ifdef CONFIG_COMPAT
/* 32-bit tasks: the stock frame-pointer walk, flat segments only. */
static void sframe_perf_callchain_user32(struct perf_callchain_entry_ctx *entry,
					 const struct pt_regs *regs)
{
	u32 fp = regs->bp, frame[2];

	while (entry->nr < entry->max_stack) {
		if (copy_from_user_nofault(frame, compat_ptr(fp), sizeof(frame)))
			break;
		if (perf_callchain_store(entry, frame[1]))
			break;
		fp = frame[0];
	}
}
#else
static void sframe_perf_callchain_user32(struct perf_callchain_entry_ctx *entry,
					 const struct pt_regs *regs)
{
}
#endif

/* Replaces perf_callchain_user(); same contract. */
void sframe_perf_callchain_user(struct perf_callchain_entry_ctx *entry,
				struct pt_regs *regs)
{
	/* A vCPU thread sampled in guest mode: no host user stack to show. */
	if (current->flags & PF_VCPU)
		return;
	if (regs->flags & (X86_VM_MASK | PERF_EFLAGS_VM))
		return;

	perf_callchain_store(entry, regs->ip);
	if (!user_64bit_mode(regs)) {
		sframe_perf_callchain_user32(entry, regs);
		return;
	}
	sframe_walk_user(regs, sframe_perf_store, entry);
}

struct sframe_consume {
	stack_trace_consume_fn fn;
	void *cookie;
};

static bool sframe_stacktrace_store(void *cookie, u64 ip)
{
	struct sframe_consume *c = cookie;

	return c->fn(c->cookie, ip);
}

/* Replaces arch_stack_walk_user(); same contract. */
void sframe_arch_stack_walk_user(stack_trace_consume_fn consume_entry,
				 void *cookie, const struct pt_regs *regs)
{
	struct sframe_consume c = { .fn = consume_entry, .cookie = cookie };

	if (!consume_entry(cookie, regs->ip) ||
	    !user_64bit_mode((struct pt_regs *)regs))
		return;
	sframe_walk_user(regs, sframe_stacktrace_store, &c);
}
