// SPDX-License-Identifier: GPL-2.0
/*
 * Which mapped files are reported to the sidecar service's watcher
 * (events.c) beside the reports of their reads: a file read before the
 * watcher came and mapped again, and the files the watcher's sweep finds
 * mapped; once per watcher, and per sweep.
 */
#include <linux/fs.h>
#include <linux/spinlock.h>

#include "cache.h"

/**
 * sframe_file_mapped() - report a file mapped again to a watcher new to it
 * @sf: the file's entry
 * @file: the mapped file
 * @owner: whom the mapping mm is charged to
 *
 * @sf was mapped again through @file by an mm charged to @owner.  If its
 * read found something to report and the watcher now watching never
 * heard of it (it was read before that watcher came, and has stayed in
 * the cache: mapped, or idle), report it now, once per watcher, charged
 * to @owner: the caller may be the rescan's worker, whose credentials
 * are root's, not the mapper's.  Nothing is reported for a file with a
 * sidecar, or one being read.
 *
 * Context: process context, no lock held.
 */
void sframe_file_mapped(struct sframe_file *sf, struct file *file,
			kuid_t owner)
{
	unsigned int gen = sframe_events_current();
	struct file *own;
	u32 flags;

	if (!gen || READ_ONCE(sf->reported_gen) == gen)
		return;
	spin_lock(&sframe_files_lock);
	if (!sf->reportable || sf->loading || sf->reported_gen == gen ||
	    rcu_access_pointer(sf->sidecar)) {
		spin_unlock(&sframe_files_lock);
		return;
	}
	sf->reported_gen = gen;		/* one report per watcher */
	flags = sf->report_flags;
	spin_unlock(&sframe_files_lock);
	own = sframe_load_report_file(file);
	if (own) {
		sframe_events_need_sidecar(own, flags, owner);
		fput(own);
	}
}

/**
 * sframe_file_sweep() - report a file a sweep found mapped
 * @file: the mapped file
 * @sweep: the sweep's number
 * @owner: whom the mapping mm is charged to
 *
 * Sweep @sweep found @file mapped by an mm charged to @owner: report it,
 * charged to @owner, if its read found something to report, it has no
 * sidecar and this sweep has not reported it yet.  The mapper found now,
 * not the file's first loader, who may have stopped mapping it long ago:
 * the service's shares are for who uses a file.
 *
 * Context: process context, no lock held.
 *
 * Return: 0 (reported, or nothing to report); -ENOSPC when the queue has
 * no room, or -ENOMEM: it stays unreported, for the sweep's next call or
 * the next sweep.
 */
int sframe_file_sweep(struct file *file, unsigned int sweep, kuid_t owner)
{
	struct sframe_file_id now;
	struct sframe_file *sf;
	struct file *own;
	unsigned int gen;
	u32 flags;
	int ret;

	sframe_file_id_set(&now, sframe_real_inode(file));
	spin_lock(&sframe_files_lock);
	sf = sframe_file_find(&now);
	if (!sf || !sf->reportable || sf->loading || sf->swept == sweep ||
	    rcu_access_pointer(sf->sidecar)) {
		spin_unlock(&sframe_files_lock);
		return 0;
	}
	/* An idle entry hands over the list's reference. */
	if (!sframe_file_unidle(sf))
		refcount_inc(&sf->ref);
	flags = sf->report_flags;
	spin_unlock(&sframe_files_lock);
	own = sframe_load_report_file(file);
	ret = own ? sframe_events_offer(own, flags, owner, &gen) : 0;
	if (own && !ret) {
		sframe_count(sweep_reports);
		spin_lock(&sframe_files_lock);
		sf->swept = sweep;
		sf->reported_gen = gen;	/* a mapping need not report it again */
		spin_unlock(&sframe_files_lock);
	}
	if (own)
		fput(own);
	sframe_file_put(sf);
	return ret;
}
