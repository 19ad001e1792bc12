// SPDX-License-Identifier: GPL-2.0
/*
 * The user-stack walkers that replace the kernel's: perf_callchain_user()
 * (perf -g, BPF user stacks) and arch_stack_walk_user() (ftrace
 * userstacktrace, stack_trace_save_user()).  They keep the stock walkers'
 * checks and walk with the SFrame step logic, reading the user stack only
 * through copy_from_user_nofault(), which also refuses when the sampled
 * task's mm is not the loaded one (nmi_uaccess_okay(), x86-64).  The
 * machine's part, reading its pt_regs, is sframe/arch/<arch>/user_regs.h.
 */
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched/clock.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>

#include "sframe_unwind.h"
#include "user_regs.h"
#include "walk_user.h"

/*
 * A walk begun at @start, counted in the statistics (per CPU: a sample's
 * CPU only); @full: the consumer's room ran out before the walk ended.
 */
static void sframe_walk_count(const struct sframe_walk *w, bool full,
			      u64 start)
{
	u64 ns = local_clock() - start;

	if (ns > this_cpu_read(sframe_stats.walk_ns_max))
		this_cpu_write(sframe_stats.walk_ns_max, ns);
	sframe_count_add(walk_ns_total, ns);
	sframe_count(samples);
	sframe_count_add(frames_sframe, w->sframe_steps);
	sframe_count_add(frames_cached, w->cached_steps);
	sframe_count_add(frames_record_cfa, w->record_cfa_steps);
	sframe_count_add(frames_fp, w->fp_steps);
	sframe_count_add(frames_fp_fallback, w->fp_fallback_steps);
	sframe_count_add(frames_signal, w->signal_steps);
	sframe_count_add(frames_epilogue, w->epilogue_steps);
	sframe_count_add(frames_planted, w->planted_steps);
	if (full)
		sframe_count(max_depth);
	else
		sframe_count(stops[w->stop]);
}

/* The user stack into the consumer's array, @room at most: how many. */
static __always_inline unsigned int
sframe_walk_user(const struct pt_regs *regs, u64 *ips, unsigned int room)
{
	u64 start = local_clock();
	struct sframe_walk w __uninitialized;
	unsigned int n;

	n = sframe_walk_user_into(regs, ips, room, &w, true);
	sframe_walk_count(&w, n == room, start);
	return n;
}

/**
 * sframe_perf_callchain_user() - replaces perf_callchain_user()
 * @entry: the callchain being filled
 * @regs: the sampled task's user registers
 *
 * Replaces perf_callchain_user(); same contract.  Only for tasks the walk
 * knows (attach.c): 32-bit ones keep the stock walker.  The walk fills
 * the entry as perf_callchain_store() would, within the same bound.
 * Nothing is stored for a guest's registers.
 *
 * Context: sample context, NMI included.
 */
void sframe_perf_callchain_user(struct perf_callchain_entry_ctx *entry,
				struct pt_regs *regs)
{
	struct perf_callchain_entry *chain = entry->entry;
	unsigned int room = 0, n;

	if (sframe_regs_in_guest(regs))
		return;

	perf_callchain_store(entry, sframe_user_ip(regs));
	if (entry->nr < entry->max_stack && !entry->contexts_maxed)
		room = entry->max_stack - entry->nr;
	n = sframe_walk_user(regs, chain->ip + chain->nr, room);
	chain->nr += n;
	entry->nr += n;
}

#ifdef SFRAME_HOOK_STACKTRACE
struct sframe_consume {
	stack_trace_consume_fn fn;
	void *cookie;
};

static bool sframe_stacktrace_store(void *cookie, u64 ip)
{
	struct sframe_consume *c = cookie;

	return c->fn(c->cookie, ip);
}

/**
 * sframe_arch_stack_walk_user() - replaces arch_stack_walk_user()
 * @consume_entry: takes each return address, and says whether to go on
 * @cookie: for @consume_entry
 * @regs: the current task's user registers
 *
 * Replaces arch_stack_walk_user(); same contract, same tasks as
 * sframe_perf_callchain_user().  How many entries the consumer takes is
 * its own: the walk hands it one frame at a time.
 */
void sframe_arch_stack_walk_user(stack_trace_consume_fn consume_entry,
				 void *cookie, const struct pt_regs *regs)
{
	struct sframe_consume c = { .fn = consume_entry, .cookie = cookie };
	u64 start;
	struct sframe_walk w __uninitialized;
	bool full;

	if (!consume_entry(cookie, sframe_user_ip(regs)))
		return;
	/* How many it takes is the consumer's secret: one frame at a time. */
	start = local_clock();
	full = sframe_walk_user_each(regs, sframe_stacktrace_store, &c, &w);
	sframe_walk_count(&w, full, start);
}
#endif

#ifdef SFRAME_HOOK_UNWIND_USER
/**
 * sframe_unwind_user() - replaces unwind_user()
 * @trace: filled with the current task's user stack
 * @max_entries: room in trace->entries
 *
 * Replaces unwind_user(), the walk of the deferred unwinder (7.x): it runs
 * in task context just before the return to user space, for perf events
 * with defer_callchain.  Same contract and tasks as
 * sframe_perf_callchain_user(); the walk is the same as in a sample, so a
 * page not present ends it instead of being faulted in.
 *
 * Context: task context, preemptible, before the return to user space.
 *
 * Return: 0, with trace->nr entries (none for a kernel thread or a task
 * not from user mode); -EINVAL if @max_entries is 0.
 */
int sframe_unwind_user(struct unwind_stacktrace *trace,
		       unsigned int max_entries)
{
	struct pt_regs *regs = task_pt_regs(current);

	trace->nr = 0;
	if (!max_entries)
		return -EINVAL;
	if ((current->flags & PF_KTHREAD) || !user_mode(regs))
		return 0;
	trace->entries[trace->nr++] = sframe_user_ip(regs);
	/* Its entries are unsigned long: a u64 on every machine walked. */
	BUILD_BUG_ON(sizeof(*trace->entries) != sizeof(u64));
	if (trace->nr < max_entries)
		trace->nr += sframe_walk_user(regs,
					      (u64 *)trace->entries + trace->nr,
					      max_entries - trace->nr);
	return 0;
}
#endif
