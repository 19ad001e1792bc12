/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module-internal interfaces of sframe_unwind: the section cache, the
 * walkers that replace the kernel's, the function hooks, the statistics.
 */
#ifndef _SFRAME_UNWIND_H
#define _SFRAME_UNWIND_H

#include <linux/percpu.h>
#include <linux/mm_types.h>
#include <linux/perf_event.h>
#include <linux/stacktrace.h>

#include "switches.h"
#ifdef SFRAME_HOOK_UNWIND_USER
#include <linux/unwind_user.h>
#endif

#include <sframe/sframe.h>
#include <sframe/walk.h>

/* Why a file's section was not cached (beyond the core's reasons). */
enum sframe_load_fail {
	SFRAME_LOAD_NOT_ELF,		/* not a 64-bit ELF object of this machine */
	SFRAME_LOAD_READ,		/* reading the file failed */
	SFRAME_LOAD_TOO_BIG,		/* over the section size limit */
	SFRAME_LOAD_CACHE_FULL,		/* over the cache memory limit */
	SFRAME_LOAD_USER_FULL,		/* over the mapping user's limit */
	SFRAME_LOAD_NOT_CACHED,		/* may-hang filesystem, page not cached */
	SFRAME_LOAD_NOMEM,
	SFRAME_LOAD_ABI,		/* valid SFrame, not this machine's ABI */
	SFRAME_LOAD_NOT_REGULAR,	/* a device node: never opened nor read */
	SFRAME_LOAD_SHORT,		/* shorter than its ELF headers say */
	SFRAME_NR_LOAD_FAILS
};

/* Event counts, per CPU: a sample touches no line another CPU writes. */
struct sframe_stats {
	u64 samples;			/* walks started */
	u64 frames_sframe;		/* frames found by SFrame rules */
	u64 frames_cached;		/* of those, by the step cache */
	u64 frames_record_cfa;		/* of those, CFA from a frame record */
	u64 frames_fp;			/* frames found by frame pointers */
	u64 frames_fp_fallback;		/* of those, where SFrame had none */
	u64 frames_signal;		/* frames found through rt_sigframes */
	u64 frames_epilogue;		/* through a plain epilogue's code */
	u64 frames_planted;		/* of frames_fp, IPs a runtime planted */
	u64 stops[SFRAME_NR_STOPS];
	u64 max_depth;			/* walks ended by max_stack */
	u64 walk_ns_max;		/* the longest walk (a maximum, not a sum) */
	u64 walk_ns_total;		/* time in walks, for the mean per walk */
	u64 lookups_in_changed_range;	/* no rule: mapping changed, not rescanned */
	u64 lookups_fresh;		/* of those, answered by a fresh range */
	u64 lookups_unread;		/* in a file not read (yet) */
	u64 lookups_without_section;	/* in one read: no section, no sidecar */
	u64 mmap_events;		/* executable mappings seen */
	u64 forks_inherited;		/* children given their parent's map */
	u64 forks_rescanned;		/* of a threaded parent: scanned */
	u64 ranges_added;
	u64 ranges_fresh;		/* mappings published by their hook */
	u64 fresh_slots_full;		/* ...not: the mm had no slot free */
	u64 ranges_removed;
	u64 ranges_over_limit;		/* VMAs past SFRAME_MAX_RANGES */
	u64 map_alloc_failed;
	u64 rescans_retried;		/* later: the mm's mmap_lock was taken */
	u64 rescan_mms_busy;		/* given up after retries, until a change */
	u64 files_refused;		/* no entry: memory or a limit */
	u64 loads_waited;		/* behind the owner's running ones */
	u64 files_reclaimed;		/* entries freed with their last mapping */
	u64 files_shrunk;		/* idle ones freed under memory pressure */
	u64 events_reads_refused;	/* a watcher read by another user */
	u64 sections_loaded;		/* sections validated and cached */
	u64 files_without_sframe;
	u64 rejected[SFRAME_NR_REASONS];
	u64 load_failed[SFRAME_NR_LOAD_FAILS];
	u64 sidecars_loaded;
	u64 events_queued;		/* files reported to the sidecar service */
	u64 events_dropped;		/* not reported: queue full, no memory */
	u64 sweep_reports;		/* of them, by SFRAME_IOC_REPORT_MAPPED */
	u64 sweep_mms_busy;		/* passed over: mmap_lock held */
	u64 sidecars_rejected;
	u64 sidecars_unloaded;
	u64 sidecars_released;		/* while-mapped ones, with their entry */
	u64 hooks_unchecked;		/* observers left off: prototype unchecked */
};

DECLARE_PER_CPU(struct sframe_stats, sframe_stats);

#define sframe_count(field)		this_cpu_inc(sframe_stats.field)
#define sframe_count_add(field, n)	this_cpu_add(sframe_stats.field, n)

void sframe_stats_sum(struct sframe_stats *sum);	/* stats.c */

/* Limits and switches, module parameters (main.c) */
extern unsigned int sframe_max_cache_mb;	/* budget.c */
extern unsigned int sframe_max_user_mb;		/* budget.c */
extern unsigned int sframe_max_section_mb;	/* load.c */
extern unsigned int sframe_idle_seconds;	/* files.c */
extern bool sframe_enabled;			/* stats.c */

/* An address window [start, end); empty when start >= end. */
struct sframe_window {
	u64 start;
	u64 end;
};

/* One walk's view of an mm's text ranges; zero it before the walk. */
struct sframe_map;
struct sframe_mm;
struct sframe_cursor {
	struct mm_struct *mm;
	const struct sframe_map *map;	/* looked up on first use */
	const struct sframe_mm *m;	/* its entry, read under seq */
	unsigned int seq;
	struct sframe_window changed;	/* no rules in these: see mms.c */
	struct sframe_window scanning;
	bool map_found;
};

/*
 * A walk's context (walk_user.h): what sframe_user_lookup() and the register
 * callback use.
 */
struct sframe_user_ctx {
	struct sframe_cursor cur;
	const struct pt_regs *regs;
};

/* walk_lookup.c: the walk's lookup, which walk_user.c's walk calls */
void sframe_user_lookup(void *ctx, u64 ip, struct sframe_where *where);

/* mm_events.c: the hooks' entry points, the running processes */
void sframe_vma_mapped(struct vm_area_struct *vma);
void sframe_vma_freed(struct vm_area_struct *vma);
void sframe_vma_moving(struct vm_area_struct *vma, unsigned long addr,
		       unsigned long len);
void sframe_mm_forked(struct task_struct *child);
void sframe_mm_scan_tasks(void);

/* mms.c: the exit_mmap hook, teardown, debugfs */
void sframe_mm_exit(struct mm_struct *mm);
void sframe_maps_exit(void);
long sframe_mms_tracked(void);
int sframe_cache_show_maps(struct seq_file *m);

/* sweep.c */
int sframe_mms_sweep(unsigned int sweep);

/* files.c */
struct sframe_sec;
struct sframe_file;
int sframe_files_init(void);
void sframe_files_exit(void);
long sframe_files_cached(void);
long sframe_files_idle(void);
unsigned long sframe_files_reclaim_oldest(unsigned long count);
int sframe_cache_show_files(struct seq_file *m);
int sframe_cache_show_sidecars(struct seq_file *m);

/* shrink.c */
int sframe_shrinker_init(void);
void sframe_shrinker_exit(void);

/* path.c */
char *sframe_path_dup(struct file *file);

/* bind.c */
struct sframe_file *sframe_cache_sidecar_entry(struct file *file,
					       kuid_t *owner);
int sframe_cache_set_sidecar(struct file *file, struct sframe_file *sf,
			     struct sframe_sec *s, const u8 *build_id,
			     u32 build_id_size);
int sframe_cache_clear_sidecar(struct file *file);
bool sframe_cache_has_sidecar(struct file *file);

/* budget.c */
size_t sframe_charged_total(void);
void sframe_budget_exit(void);

/* sidecar.c */
int sframe_sidecar_init(void);
void sframe_sidecar_exit(void);

/* events.c */
unsigned int sframe_events_need_sidecar(struct file *file, u32 flags,
					kuid_t owner);
int sframe_events_offer(struct file *file, u32 flags, kuid_t owner,
			unsigned int *gen);
unsigned int sframe_events_current(void);
int sframe_events_watch(int (*sweep)(unsigned int sweep));
long sframe_events_queued(void);

/* load.c */
extern const char * const sframe_load_fail_names[SFRAME_NR_LOAD_FAILS];

/* unwind.c */
void sframe_perf_callchain_user(struct perf_callchain_entry_ctx *entry,
				struct pt_regs *regs);
#ifdef SFRAME_HOOK_STACKTRACE
void sframe_arch_stack_walk_user(stack_trace_consume_fn consume_entry,
				 void *cookie, const struct pt_regs *regs);
#endif
#ifdef SFRAME_HOOK_UNWIND_USER
int sframe_unwind_user(struct unwind_stacktrace *trace,
		       unsigned int max_entries);
#endif

/* walk_user.c */
int sframe_step_cache_init(void);
void sframe_step_cache_exit(void);

/* walk_bench.c, in a build with CONFIG_SFRAME_UNWIND_BENCH */
#ifdef SFRAME_UNWIND_BENCH
void sframe_bench_debugfs(struct dentry *dir);
#else
static inline void sframe_bench_debugfs(struct dentry *dir)
{
}
#endif

/* attach.c */
int sframe_attach(bool perf, bool stacktrace, bool deferred);
void sframe_detach(void);
bool sframe_deferred_hooked(void);
void sframe_hooks_show(struct seq_file *s);

#endif /* _SFRAME_UNWIND_H */
