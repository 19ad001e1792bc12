// SPDX-License-Identifier: GPL-2.0
/*
 * sframe_unwind module entry: parameters, debugfs statistics, and the
 * order in which the cache, the hooks and the walkers come and go.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "sframe_unwind.h"

static bool perf = true;
module_param(perf, bool, 0444);
MODULE_PARM_DESC(perf, "Replace perf_callchain_user() (perf -g, BPF user stacks)");

static bool stacktrace = true;
module_param(stacktrace, bool, 0444);
MODULE_PARM_DESC(stacktrace, "Replace arch_stack_walk_user() (ftrace userstacktrace)");

static bool deferred = true;
module_param(deferred, bool, 0444);
MODULE_PARM_DESC(deferred, "Replace unwind_user() (deferred user stacks, kernels that have it)");

module_param_named(enable, sframe_enabled, bool, 0644);
MODULE_PARM_DESC(enable, "Use SFrame (0: frame pointers only, like the stock kernel)");

module_param_named(max_cache_mb, sframe_max_cache_mb, uint, 0644);
MODULE_PARM_DESC(max_cache_mb, "Kernel memory for cached sections, MiB (default 256)");

module_param_named(max_user_mb, sframe_max_user_mb, uint, 0644);
MODULE_PARM_DESC(max_user_mb, "Kernel memory for the files one user maps, MiB (default 64; root: max_cache_mb only)");

module_param_named(idle_seconds, sframe_idle_seconds, uint, 0644);
MODULE_PARM_DESC(idle_seconds, "How long a file no process maps keeps its entry and the service's sidecar, seconds (default 30; 0: none)");

module_param_named(max_section_mb, sframe_max_section_mb, uint, 0644);
MODULE_PARM_DESC(max_section_mb, "Largest .sframe section accepted, MiB (default 64)");

static struct dentry *sframe_debugfs;

static void sframe_show(struct seq_file *s, const char *name, u64 v)
{
	seq_printf(s, "%s: %llu\n", name, v);
}

static int sframe_stats_show(struct seq_file *s, void *unused)
{
	struct sframe_stats sum, *st = &sum;
	unsigned int i;

	sframe_stats_sum(st);
	seq_printf(s, "files_cached: %ld\n", sframe_files_cached());
	seq_printf(s, "files_idle: %ld\n", sframe_files_idle());
	seq_printf(s, "kernel_bytes: %zu\n", sframe_charged_total());
	seq_printf(s, "mms_tracked: %ld\n", sframe_mms_tracked());
	sframe_show(s, "sections_loaded", st->sections_loaded);
	sframe_show(s, "files_without_sframe", st->files_without_sframe);
	sframe_show(s, "mmap_events", st->mmap_events);
	sframe_show(s, "ranges_added", st->ranges_added);
	sframe_show(s, "ranges_fresh", st->ranges_fresh);
	sframe_show(s, "fresh_slots_full", st->fresh_slots_full);
	sframe_show(s, "ranges_removed", st->ranges_removed);
	sframe_show(s, "map_alloc_failed", st->map_alloc_failed);
	sframe_show(s, "ranges_over_limit", st->ranges_over_limit);
	sframe_show(s, "forks_inherited", st->forks_inherited);
	sframe_show(s, "forks_rescanned", st->forks_rescanned);
	sframe_show(s, "rescans_retried", st->rescans_retried);
	sframe_show(s, "rescan_mms_busy", st->rescan_mms_busy);
	sframe_show(s, "files_refused", st->files_refused);
	sframe_show(s, "loads_waited", st->loads_waited);
	sframe_show(s, "files_reclaimed", st->files_reclaimed);
	sframe_show(s, "files_shrunk", st->files_shrunk);
	sframe_show(s, "sidecars_loaded", st->sidecars_loaded);
	sframe_show(s, "sidecars_rejected", st->sidecars_rejected);
	sframe_show(s, "sidecars_unloaded", st->sidecars_unloaded);
	sframe_show(s, "sidecars_released", st->sidecars_released);
	seq_printf(s, "events_pending: %ld\n", sframe_events_queued());
	sframe_show(s, "events_queued", st->events_queued);
	sframe_show(s, "events_dropped", st->events_dropped);
	sframe_show(s, "events_reads_refused", st->events_reads_refused);
	sframe_show(s, "sweep_reports", st->sweep_reports);
	sframe_show(s, "sweep_mms_busy", st->sweep_mms_busy);
	sframe_show(s, "samples", st->samples);
	sframe_show(s, "frames_sframe", st->frames_sframe);
	sframe_show(s, "frames_cached", st->frames_cached);
	sframe_show(s, "frames_record_cfa", st->frames_record_cfa);
	sframe_show(s, "frames_fp", st->frames_fp);
	sframe_show(s, "frames_fp_fallback", st->frames_fp_fallback);
	sframe_show(s, "frames_signal", st->frames_signal);
	sframe_show(s, "frames_epilogue", st->frames_epilogue);
	sframe_show(s, "frames_planted", st->frames_planted);
	sframe_show(s, "walk_ns_max", st->walk_ns_max);
	sframe_show(s, "walk_ns_total", st->walk_ns_total);
	sframe_show(s, "lookups_in_changed_range", st->lookups_in_changed_range);
	sframe_show(s, "lookups_fresh", st->lookups_fresh);
	sframe_show(s, "lookups_unread", st->lookups_unread);
	sframe_show(s, "lookups_without_section", st->lookups_without_section);
	sframe_show(s, "stop: max_stack", st->max_depth);
	for (i = SFRAME_STOP_OUTERMOST; i < SFRAME_NR_STOPS; i++) {
		seq_printf(s, "stop: %s: %llu\n", sframe_walk_stop_str(i),
			   st->stops[i]);
	}
	for (i = 1; i < SFRAME_NR_REASONS; i++) {
		seq_printf(s, "rejected: %s: %llu\n", sframe_reason_str(i),
			   st->rejected[i]);
	}
	for (i = 0; i < SFRAME_NR_LOAD_FAILS; i++) {
		seq_printf(s, "not loaded: %s: %llu\n", sframe_load_fail_names[i],
			   st->load_failed[i]);
	}
	sframe_show(s, "hooks_unchecked", st->hooks_unchecked);
	sframe_hooks_show(s);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sframe_stats);

static int sframe_maps_show(struct seq_file *s, void *unused)
{
	return sframe_cache_show_maps(s);
}
DEFINE_SHOW_ATTRIBUTE(sframe_maps);

static int sframe_files_show(struct seq_file *s, void *unused)
{
	return sframe_cache_show_files(s);
}
DEFINE_SHOW_ATTRIBUTE(sframe_files);

/* After the hooks are gone and no walk can be running. */
static void sframe_cache_exit(void)
{
	sframe_shrinker_exit();
	sframe_maps_exit();
	sframe_files_exit();
	sframe_budget_exit();
}

static int __init sframe_unwind_init(void)
{
	int ret;

	ret = sframe_files_init();
	if (!ret) {
		ret = sframe_shrinker_init();
		if (!ret)
			ret = sframe_step_cache_init();
		if (ret)
			sframe_cache_exit();
	}
	if (ret)
		return ret;
	sframe_debugfs = debugfs_create_dir("sframe_unwind", NULL);
	debugfs_create_file("stats", 0400, sframe_debugfs, NULL,
			    &sframe_stats_fops);
	debugfs_create_file("maps", 0400, sframe_debugfs, NULL,
			    &sframe_maps_fops);
	debugfs_create_file("files", 0400, sframe_debugfs, NULL,
			    &sframe_files_fops);
	sframe_bench_debugfs(sframe_debugfs);

	ret = sframe_attach(perf, stacktrace, deferred);
	if (!ret) {
		ret = sframe_sidecar_init();
		if (ret)
			sframe_detach();
	}
	if (ret) {
		debugfs_remove_recursive(sframe_debugfs);
		sframe_step_cache_exit();
		sframe_cache_exit();
		return ret;
	}
	pr_info("loaded (perf=%d stacktrace=%d deferred=%d)\n",
		perf, stacktrace, sframe_deferred_hooked());
	return 0;
}

static void __exit sframe_unwind_exit(void)
{
	sframe_sidecar_exit();
	sframe_detach();
	debugfs_remove_recursive(sframe_debugfs);
	sframe_step_cache_exit();
	sframe_cache_exit();
}

module_init(sframe_unwind_init);
module_exit(sframe_unwind_exit);

MODULE_DESCRIPTION("SFrame user-space stack unwinding for perf, BPF and ftrace");
MODULE_LICENSE("GPL");
