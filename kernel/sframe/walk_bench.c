// SPDX-License-Identifier: GPL-2.0
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
 * at a call site's first sample.  Every walker stores the return
 * addresses in the same array as its perf hook would: the frame-pointer
 * walkers one at a time through a bound check, as the stock walker calls
 * perf_callchain_store(); the SFrame walker all at once, as the module's
 * hook (unwind.c) has the walk fill perf's entry.  Nothing is counted in
 * the statistics.
 */
#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>

#include "sframe_unwind.h"
#include "user_regs.h"
#include "walk_user.h"

#define SFRAME_BENCH_MAX_DEPTH	256
#define SFRAME_BENCH_MAX_WALKS	1000000
#define SFRAME_BENCH_ROUNDS	4

struct sframe_bench_store {
	unsigned int n;
	unsigned int max;
};

/* Where the walkers store (under sframe_bench_lock). */
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
	struct sframe_walk w __uninitialized;
	unsigned int n;

	n = sframe_walk_user_into(regs, sframe_bench_ips, depth, &w, !cold);
	*rule_frames += w.sframe_steps;
	sframe_bench_cached_frames += w.cached_steps;
	return n;
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
 * The frame-pointer walkers follow frame records as the SFrame walk's
 * fallback does (core/walk_impl.h): at a word-aligned FP, the caller's FP and
 * the return address (sframe/arch.h), with the caller's frame above.
 */
#define SFRAME_BENCH_RECORD	(2 * SFRAME_ARCH_WORD)

static bool sframe_bench_fp_ok(u64 fp, u64 sp)
{
	return fp >= sp && !(fp & (SFRAME_ARCH_WORD - 1));
}

/*
 * The frame-pointer walk at its cheapest: per frame, one read of the
 * saved FP and the return address together, through the same primitive
 * as the SFrame walk, and the consumer's store.
 */
static unsigned int sframe_bench_fp(const struct pt_regs *regs,
				    unsigned int depth)
{
	u64 fp = sframe_user_fp(regs), sp = sframe_user_sp(regs);
	struct sframe_bench_store b = { .max = depth };
	u64 record[2];			/* saved FP, return address */

	for (;;) {
		if (!sframe_bench_fp_ok(fp, sp) ||
		    copy_from_user_nofault(record, (void __user *)fp,
					   sizeof(record)))
			break;
		sp = fp + SFRAME_BENCH_RECORD;
		fp = record[0];
		if (!sframe_bench_store(&b, record[1]))
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
	u64 fp = sframe_user_fp(regs), sp = sframe_user_sp(regs);
	struct sframe_bench_store b = { .max = depth };
	u64 next, ra;

	for (;;) {
		if (!sframe_bench_fp_ok(fp, sp) ||
		    copy_from_user_nofault(&next, (void __user *)fp,
					   sizeof(next)) ||
		    copy_from_user_nofault(&ra,
					   (void __user *)(fp + SFRAME_ARCH_WORD),
					   sizeof(ra)))
			break;
		sp = fp + SFRAME_BENCH_RECORD;
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

/**
 * sframe_bench_debugfs() - create the debugfs "bench" file
 * @dir: the module's debugfs directory
 *
 * Writing "WALKS DEPTH" to it walks the writer's own stack with each
 * walker; reading it gives the result.  Only in a build with
 * CONFIG_SFRAME_UNWIND_BENCH.
 */
void sframe_bench_debugfs(struct dentry *dir)
{
	debugfs_create_file("bench", 0600, dir, NULL, &sframe_bench_fops);
}
