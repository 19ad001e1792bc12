// SPDX-License-Identifier: GPL-2.0
/*
 * The watcher's sweep (SFRAME_IOC_REPORT_MAPPED): every executable file
 * the tracked processes map now, offered to the report queue
 * (events.c) through their file entries, as far as it has room.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "kcompat.h"
#include "maps.h"

/*
 * Offer every executable file @m's process maps now to
 * sframe_file_sweep(), charged to @m's owner: 0, or 1 once the report
 * queue is full.  A process
 * whose mmap_lock stays taken (a user can hold his own for long) is
 * passed over, counted: what it maps is reported when it maps it again,
 * or found mapped by another process.
 */
static int sframe_mm_sweep(struct sframe_mm *m, unsigned int sweep)
{
	struct sframe_window all = { 0, TASK_SIZE_MAX };
	kuid_t owner = READ_ONCE(m->uid);
	struct sframe_vma_snap *v;
	unsigned int nv, i;
	int ret;

	if (READ_ONCE(m->dead) || !mmget_not_zero(m->mm))
		return 0;
	ret = sframe_mm_snapshot(m->mm, &all, &v, &nv);
	mmput(m->mm);
	if (ret == -EBUSY) {
		sframe_count(sweep_mms_busy);
		return 0;
	}
	if (ret)
		sframe_count(map_alloc_failed);	/* what it got is swept */
	ret = 0;
	for (i = 0; i < nv; i++) {
		if (!ret &&
		    sframe_file_sweep(v[i].file, sweep, owner) == -ENOSPC)
			ret = 1;
		fput(v[i].file);
	}
	kfree(v);
	return ret;
}

/**
 * sframe_mms_sweep() - one call of a sweep over every tracked process
 * @sweep: the sweep's number, never 0
 *
 * One call of sweep @sweep over every process tracked now, each
 * executable file it maps offered to the report queue.  Processes that
 * come meanwhile report their own mappings.
 *
 * Context: process context, the watcher's SFRAME_IOC_REPORT_MAPPED.
 *
 * Return: 0 when each file was offered, 1 when the queue filled first,
 * -EINTR on a fatal signal, -ENOMEM if the processes could not be listed.
 */
int sframe_mms_sweep(unsigned int sweep)
{
	struct sframe_mm **mms;
	unsigned int n, i;
	int ret = 0;

	mms = sframe_mms_hold_all(&n);
	if (!mms)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!ret && fatal_signal_pending(current))
			ret = -EINTR;
		if (!ret)
			ret = sframe_mm_sweep(mms[i], sweep);
		sframe_mm_put(mms[i]);
		cond_resched();
	}
	kvfree(mms);
	return ret;
}
