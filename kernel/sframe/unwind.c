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
#include <linux/debugfs.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>

#include "sframe_unwind.h"
#include "user_regs.h"

bool sframe_enabled = true;
DEFINE_PER_CPU(struct sframe_stats, sframe_stats);

/* The interrupted frame's registers, by DWARF number. */
static bool sframe_user_reg(void *ctx, unsigned int reg, u64 *val)
{
	return sframe_regs_dwarf(((struct sframe_user_ctx *)ctx)->regs, reg,
				 val);
}

/* The walk compares its read callback with this and then reads inline. */
int sframe_user_read(void *ctx, u64 addr, u64 *val, unsigned int n)
{
	return sframe_user_read_inline(addr, val, n);
}

static const struct sframe_walk_ops sframe_user_ops = {
	.read = sframe_user_read,
	.lookup = sframe_user_lookup,
	.reg = sframe_user_reg,
};

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

static struct sframe_step_caches __percpu *sframe_step_caches;

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

int sframe_step_cache_init(void)
{
	sframe_step_caches = alloc_percpu(struct sframe_step_caches);
	return sframe_step_caches ? 0 : -ENOMEM;
}

/* Once no walk can be running. */
void sframe_step_cache_exit(void)
{
	free_percpu(sframe_step_caches);
	sframe_step_caches = NULL;
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

/* The same, counted in the statistics (per CPU: a sample's CPU only). */
static __always_inline void
sframe_walk_user(const struct pt_regs *regs, unsigned int max,
		 unsigned int batch, bool (*store)(void *cookie, u64 ip),
		 void *cookie)
{
	u64 start = local_clock(), ns;
	struct sframe_walk w;
	bool full;

	full = sframe_walk_user_raw(regs, max, batch, store, cookie, &w, true);

	ns = local_clock() - start;
	if (ns > this_cpu_read(sframe_stats.walk_ns_max))
		this_cpu_write(sframe_stats.walk_ns_max, ns);
	sframe_count_add(walk_ns_total, ns);
	sframe_count(samples);
	sframe_count_add(frames_sframe, w.sframe_steps);
	sframe_count_add(frames_cached, w.cached_steps);
	sframe_count_add(frames_fp, w.fp_steps);
	sframe_count_add(frames_fp_fallback, w.fp_fallback_steps);
	sframe_count_add(frames_signal, w.signal_steps);
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

/*
 * Replaces perf_callchain_user(); same contract.  Only for tasks the walk
 * knows (attach.c): 32-bit ones keep the stock walker.
 */
void sframe_perf_callchain_user(struct perf_callchain_entry_ctx *entry,
				struct pt_regs *regs)
{
	if (sframe_regs_in_guest(regs))
		return;

	perf_callchain_store(entry, sframe_user_ip(regs));
	sframe_walk_user(regs, entry->max_stack > entry->nr ?
			       entry->max_stack - entry->nr : 0,
			 SFRAME_WALK_BATCH, sframe_perf_store, entry);
}

#ifdef CONFIG_USER_STACKTRACE_SUPPORT
struct sframe_consume {
	stack_trace_consume_fn fn;
	void *cookie;
};

static bool sframe_stacktrace_store(void *cookie, u64 ip)
{
	struct sframe_consume *c = cookie;

	return c->fn(c->cookie, ip);
}

/* Replaces arch_stack_walk_user(); same contract, same tasks as above. */
void sframe_arch_stack_walk_user(stack_trace_consume_fn consume_entry,
				 void *cookie, const struct pt_regs *regs)
{
	struct sframe_consume c = { .fn = consume_entry, .cookie = cookie };

	if (!consume_entry(cookie, sframe_user_ip(regs)))
		return;
	/* How many it takes is the consumer's secret: one frame at a time. */
	sframe_walk_user(regs, UINT_MAX, 1, sframe_stacktrace_store, &c);
}
#endif

#ifdef SFRAME_HOOK_UNWIND_USER
struct sframe_trace_store {
	struct unwind_stacktrace *trace;
	unsigned int max;
};

static bool sframe_trace_store(void *cookie, u64 ip)
{
	struct sframe_trace_store *t = cookie;

	t->trace->entries[t->trace->nr++] = ip;
	return t->trace->nr < t->max;
}

/*
 * Replaces unwind_user(), the walk of the deferred unwinder (7.x): it runs
 * in task context just before the return to user space, for perf events
 * with defer_callchain.  Same contract and tasks as above; the walk is
 * the same as in a sample, so a page not present ends it instead of
 * being faulted in.
 */
int sframe_unwind_user(struct unwind_stacktrace *trace,
		       unsigned int max_entries)
{
	struct sframe_trace_store t = { .trace = trace, .max = max_entries };
	struct pt_regs *regs = task_pt_regs(current);

	trace->nr = 0;
	if (!max_entries)
		return -EINVAL;
	if ((current->flags & PF_KTHREAD) || !user_mode(regs))
		return 0;
	if (sframe_trace_store(&t, sframe_user_ip(regs)))
		sframe_walk_user(regs, max_entries - trace->nr,
				 SFRAME_WALK_BATCH, sframe_trace_store, &t);
	return 0;
}
#endif

/*
 * debugfs "bench": the per-frame cost of the SFrame walk against plain
 * frame-pointer walks, on the writer's own user stack.  A program built
 * with both frame pointers and SFrame descends some frames, then writes
 * "WALKS DEPTH" here (with a raw syscall, so the first frame is its own);
 * each walker walks the captured registers WALKS times, DEPTH frames at
 * most, and reading the file gives the result, with how many of the
 * SFrame walker's frames were stepped by an SFrame rule (fewer while the
 * writer's section is not in use yet).  The SFrame walk is timed twice:
 * as in a profile, where the same call sites come back sample after
 * sample and the step cache knows them, and cold, without the cache, as
 * at a call site's first sample.  Every walker hands each return address
 * to the same consumer, which stores it as perf's does.  Nothing is
 * counted in the statistics.
 */
#define SFRAME_BENCH_MAX_DEPTH	256
#define SFRAME_BENCH_MAX_WALKS	1000000
#define SFRAME_BENCH_ROUNDS	4

struct sframe_bench_store {
	unsigned int n;
	unsigned int max;
};

/* Where the consumer stores (under sframe_bench_lock). */
static u64 sframe_bench_ips[SFRAME_BENCH_MAX_DEPTH];

static bool sframe_bench_store(void *cookie, u64 ip)
{
	struct sframe_bench_store *b = cookie;

	sframe_bench_ips[b->n] = ip;
	return ++b->n < b->max;
}

/*
 * Frames the SFrame walkers stepped by a rule, not by a fallback, and of
 * the cached walker's, those stepped from the cache.
 */
static u64 sframe_bench_rule_frames;
static u64 sframe_bench_cold_rule_frames;
static u64 sframe_bench_cached_frames;

/* The SFrame walker, through the step cache or @cold. */
static __always_inline unsigned int
sframe_bench_walk(const struct pt_regs *regs, unsigned int depth, bool cold,
		  u64 *rule_frames)
{
	struct sframe_bench_store b = { .max = depth };
	struct sframe_walk w;

	sframe_walk_user_raw(regs, depth, SFRAME_WALK_BATCH, sframe_bench_store,
			     &b, &w, !cold);
	*rule_frames += w.sframe_steps;
	sframe_bench_cached_frames += w.cached_steps;
	return b.n;
}

static unsigned int sframe_bench_sframe(const struct pt_regs *regs,
					unsigned int depth)
{
	return sframe_bench_walk(regs, depth, false, &sframe_bench_rule_frames);
}

static unsigned int sframe_bench_cold(const struct pt_regs *regs,
				      unsigned int depth)
{
	return sframe_bench_walk(regs, depth, true,
				 &sframe_bench_cold_rule_frames);
}

/*
 * The frame-pointer walk at its cheapest: per frame, one read of the
 * saved FP and the return address together, through the same primitive
 * as the SFrame walk, and the consumer's store.
 */
static unsigned int sframe_bench_fp(const struct pt_regs *regs,
				    unsigned int depth)
{
	unsigned long fp = sframe_user_fp(regs), sp = sframe_user_sp(regs);
	struct sframe_bench_store b = { .max = depth };
	unsigned long frame[2];

	for (;;) {
		if (fp < sp || (fp & 7) ||
		    copy_from_user_nofault(frame, (void __user *)fp,
					   sizeof(frame)))
			break;
		sp = fp + 16;
		fp = frame[0];
		if (!sframe_bench_store(&b, frame[1]))
			break;
	}
	return b.n;
}

/*
 * The stock walker's access pattern: the saved FP and the return address
 * read one word at a time (it uses __get_user() twice per frame).
 */
static unsigned int sframe_bench_fp2(const struct pt_regs *regs,
				     unsigned int depth)
{
	unsigned long fp = sframe_user_fp(regs), sp = sframe_user_sp(regs);
	struct sframe_bench_store b = { .max = depth };
	unsigned long next, ra;

	for (;;) {
		if (fp < sp || (fp & 7) ||
		    copy_from_user_nofault(&next, (void __user *)fp,
					   sizeof(next)) ||
		    copy_from_user_nofault(&ra, (void __user *)(fp + 8),
					   sizeof(ra)))
			break;
		sp = fp + 16;
		fp = next;
		if (!sframe_bench_store(&b, ra))
			break;
	}
	return b.n;
}

static DEFINE_MUTEX(sframe_bench_lock);
static char sframe_bench_result[480];

typedef unsigned int (*sframe_bench_walker)(const struct pt_regs *regs,
					     unsigned int depth);

/* The walkers compared, in the order of their results. */
static const sframe_bench_walker sframe_bench_walkers[] = {
	sframe_bench_sframe, sframe_bench_fp, sframe_bench_fp2,
	sframe_bench_cold,
};

static u64 sframe_bench_time(sframe_bench_walker walk,
			     const struct pt_regs *regs, unsigned int walks,
			     unsigned int depth, u64 *frames)
{
	u64 t, total = 0;
	unsigned int i;

	for (i = 0; i < walks; i++) {
		t = ktime_get_ns();
		*frames += walk(regs, depth);
		total += ktime_get_ns() - t;
		if (!(i & 255))
			cond_resched();
	}
	return total;
}

/* Picoseconds per frame, and walker @a's cost relative to @k's, in 1/1000. */
static u64 sframe_bench_ps(const u64 *ns, const u64 *frames, unsigned int k)
{
	return div64_u64(ns[k] * 1000, frames[k]);
}

static u64 sframe_bench_ratio(const u64 *ns, const u64 *frames,
			      unsigned int a, unsigned int k)
{
	u64 div = ns[k] * frames[a];

	return div ? div64_u64(ns[a] * 1000 * frames[k], div) : 0;
}

static ssize_t sframe_bench_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	const struct pt_regs *regs = task_pt_regs(current);
	u64 ns[ARRAY_SIZE(sframe_bench_walkers)] = { 0 };
	u64 fr[ARRAY_SIZE(sframe_bench_walkers)] = { 0 };
	unsigned int walks, depth, i, k;
	u64 warm = 0;
	char buf[32];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	if (sscanf(buf, "%u %u", &walks, &depth) != 2 || !walks ||
	    walks > SFRAME_BENCH_MAX_WALKS || !depth ||
	    depth > SFRAME_BENCH_MAX_DEPTH)
		return -EINVAL;
	if (!sframe_regs_walkable(regs))
		return -EOPNOTSUPP;

	mutex_lock(&sframe_bench_lock);
	/* Warm them up, then alternate in rounds against drift. */
	for (k = 0; k < ARRAY_SIZE(sframe_bench_walkers); k++)
		sframe_bench_time(sframe_bench_walkers[k], regs, 16, depth,
				  &warm);
	walks = DIV_ROUND_UP(walks, SFRAME_BENCH_ROUNDS);
	sframe_bench_rule_frames = 0;
	sframe_bench_cold_rule_frames = 0;
	sframe_bench_cached_frames = 0;
	for (i = 0; i < SFRAME_BENCH_ROUNDS; i++)
		for (k = 0; k < ARRAY_SIZE(sframe_bench_walkers); k++)
			ns[k] += sframe_bench_time(sframe_bench_walkers[k],
						   regs, walks, depth, &fr[k]);
	if (!fr[0] || !fr[1] || !fr[2] || !fr[3]) {
		snprintf(sframe_bench_result, sizeof(sframe_bench_result),
			 "error: no frames (sframe %llu, fp %llu, fp2 %llu, cold %llu)\n",
			 fr[0], fr[1], fr[2], fr[3]);
	} else {
		snprintf(sframe_bench_result, sizeof(sframe_bench_result),
			 "walks %u sframe_frames %llu sframe_rule_frames %llu sframe_cached_frames %llu fp_frames %llu fp2_frames %llu cold_frames %llu cold_rule_frames %llu sframe_ps_per_frame %llu fp_ps_per_frame %llu fp2_ps_per_frame %llu cold_ps_per_frame %llu ratio_milli %llu ratio2_milli %llu cold_ratio_milli %llu cold_ratio2_milli %llu\n",
			 walks * SFRAME_BENCH_ROUNDS, fr[0],
			 sframe_bench_rule_frames, sframe_bench_cached_frames,
			 fr[1], fr[2], fr[3], sframe_bench_cold_rule_frames,
			 sframe_bench_ps(ns, fr, 0), sframe_bench_ps(ns, fr, 1),
			 sframe_bench_ps(ns, fr, 2), sframe_bench_ps(ns, fr, 3),
			 sframe_bench_ratio(ns, fr, 0, 1),
			 sframe_bench_ratio(ns, fr, 0, 2),
			 sframe_bench_ratio(ns, fr, 3, 1),
			 sframe_bench_ratio(ns, fr, 3, 2));
	}
	mutex_unlock(&sframe_bench_lock);
	return len;
}

static ssize_t sframe_bench_read(struct file *file, char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&sframe_bench_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, sframe_bench_result,
				      strlen(sframe_bench_result));
	mutex_unlock(&sframe_bench_lock);
	return ret;
}

static const struct file_operations sframe_bench_fops = {
	.owner = THIS_MODULE,
	.write = sframe_bench_write,
	.read = sframe_bench_read,
	.llseek = default_llseek,
};

void sframe_bench_debugfs(struct dentry *dir)
{
	debugfs_create_file("bench", 0600, dir, NULL, &sframe_bench_fops);
}
