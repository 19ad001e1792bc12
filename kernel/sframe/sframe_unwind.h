/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Module-internal interfaces of sframe_unwind: the section cache, the
 * walkers that replace the kernel's, the function hooks, the statistics.
 */
#ifndef _SFRAME_UNWIND_H
#define _SFRAME_UNWIND_H

#include <linux/atomic.h>
#include <linux/mm_types.h>
#include <linux/perf_event.h>
#include <linux/stacktrace.h>

/* Kernels with the deferred user unwinder (7.x): its walk is hooked too. */
#if defined(SFRAME_HAVE_UNWIND_USER_H) && IS_ENABLED(CONFIG_UNWIND_USER)
#include <linux/unwind_user.h>
#define SFRAME_HOOK_UNWIND_USER
#endif

#include <sframe/sframe.h>
#include <sframe/walk.h>

/* Why a file's section was not cached (beyond the core's reasons). */
enum sframe_load_fail {
	SFRAME_LOAD_NOT_ELF,		/* not a 64-bit x86-64 ELF object */
	SFRAME_LOAD_READ,		/* reading the file failed */
	SFRAME_LOAD_TOO_BIG,		/* over the section size limit */
	SFRAME_LOAD_CACHE_FULL,		/* over the cache memory limit */
	SFRAME_LOAD_NOMEM,
	SFRAME_LOAD_ABI,		/* valid SFrame, but not AMD64 */
	SFRAME_NR_LOAD_FAILS
};

struct sframe_stats {
	atomic64_t samples;		/* walks started */
	atomic64_t frames_sframe;	/* frames found by SFrame rules */
	atomic64_t frames_fp;		/* frames found by frame pointers */
	atomic64_t stops[SFRAME_NR_STOPS];
	atomic64_t max_depth;		/* walks ended by max_stack */
	atomic64_t mmap_events;		/* executable file mappings seen */
	atomic64_t events_dropped;	/* mappings not queued (no memory) */
	atomic64_t sections_loaded;	/* sections validated and cached */
	atomic64_t files_without_sframe;
	atomic64_t rejected[SFRAME_NR_REASONS];
	atomic64_t load_failed[SFRAME_NR_LOAD_FAILS];
	atomic64_t ranges_added;
	atomic64_t ranges_removed;
	atomic64_t map_alloc_failed;
	atomic64_t frames_signal;	/* frames found through rt_sigframes */
	atomic64_t sidecars_loaded;
	atomic64_t sidecars_rejected;
	atomic64_t sidecars_unloaded;
	atomic64_t sections_not_flattened; /* left without a flat table */
};

extern struct sframe_stats sframe_stats;

#define sframe_count(field)	atomic64_inc(&sframe_stats.field)

/* cache.c; limits and switches are module parameters (main.c) */
extern unsigned int sframe_max_cache_mb;
extern unsigned int sframe_max_section_mb;
extern bool sframe_enabled;

int sframe_cache_init(void);
void sframe_cache_exit(void);
void sframe_cache_mapping(struct vm_area_struct *vma);
void sframe_cache_unmapping(struct vm_area_struct *vma);
void sframe_cache_drop_mm(struct mm_struct *mm);
void sframe_cache_scan_tasks(void);

/*
 * One walk's view of an mm's text ranges; zero it before the walk.  The
 * walk's context starts with it: see sframe_user_lookup() (walk.h).
 */
struct sframe_map;
struct sframe_cursor {
	struct mm_struct *mm;
	const struct sframe_map *map;	/* looked up on first use */
	bool map_found;
};

int sframe_cache_show_stats(struct seq_file *m);
int sframe_cache_show_maps(struct seq_file *m);
int sframe_cache_show_files(struct seq_file *m);
int sframe_cache_show_sidecars(struct seq_file *m);

struct sframe_sec;
struct sframe_file;
struct sframe_sec *sframe_sec_create(u8 *data, u32 size, u64 vaddr,
				     unsigned int options,
				     struct sframe_error *err);
void sframe_sec_free(struct sframe_sec *s);
bool sframe_cache_room(u64 bytes);
struct sframe_file *sframe_file_get(struct file *file);
char *sframe_path_dup(struct file *file);
int sframe_cache_set_sidecar(struct file *file, struct sframe_sec *s);
int sframe_cache_clear_sidecar(struct file *file);

/* sidecar.c */
int sframe_sidecar_init(void);
void sframe_sidecar_exit(void);
extern const char * const sframe_load_fail_names[SFRAME_NR_LOAD_FAILS];

/* unwind.c */
void sframe_perf_callchain_user(struct perf_callchain_entry_ctx *entry,
				struct pt_regs *regs);
void sframe_arch_stack_walk_user(stack_trace_consume_fn consume_entry,
				 void *cookie, const struct pt_regs *regs);
#ifdef SFRAME_HOOK_UNWIND_USER
int sframe_unwind_user(struct unwind_stacktrace *trace,
		       unsigned int max_entries);
#endif
void sframe_bench_debugfs(struct dentry *dir);

/* attach.c */
int sframe_attach(bool perf, bool stacktrace, bool deferred);
void sframe_detach(void);
bool sframe_deferred_hooked(void);

#endif /* _SFRAME_UNWIND_H */
