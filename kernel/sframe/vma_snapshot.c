// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshots of an mm's executable file VMAs in a window, taken under its
 * mmap_lock, each file referenced: what the rescan and the sweep read of
 * an mm, and the only place the module takes that lock, never waiting.
 */
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "kcompat.h"
#include "maps.h"

#define SFRAME_MAX_RANGES	4096	/* executable file VMAs kept per mm */
#define SFRAME_LOCK_TRIES	5	/* of a busy mmap_lock, 1-2 ms apart */

/* The snapshot below, under @mm's mmap_lock. */
static int sframe_mm_snapshot_locked(struct mm_struct *mm,
				     const struct sframe_window *win,
				     struct sframe_vma_snap **out,
				     unsigned int *nr)
{
	struct sframe_vma_snap *v = NULL, *bigger;
	unsigned int n = 0, cap = 0;
	struct vm_area_struct *vma;
	int ret = 0;

	SFRAME_VMA_ITER(vmi, mm, win->start);

	sframe_for_each_vma_range(vmi, vma, win->end) {
		if (!(vma->vm_flags & VM_EXEC) || !vma->vm_file)
			continue;
		if (n == SFRAME_MAX_RANGES) {
			sframe_count(ranges_over_limit);
			break;
		}
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			bigger = krealloc(v, array_size(cap, sizeof(*v)), GFP_KERNEL);
			if (!bigger) {
				ret = -ENOMEM;
				break;
			}
			v = bigger;
		}
		v[n++] = (struct sframe_vma_snap){
			.start = vma->vm_start, .end = vma->vm_end,
			.pgoff = vma->vm_pgoff, .file = get_file(vma->vm_file),
		};
	}
	*out = v;
	*nr = n;
	return ret;
}

/**
 * sframe_mm_snapshot() - the executable file VMAs of an mm in a window
 * @mm: the mm, held by the caller (mmget())
 * @win: the window
 * @out: set to a new array of the VMAs, or NULL, for the caller to kfree()
 * @nr: set to how many it holds, SFRAME_MAX_RANGES at most (counted)
 *
 * The executable file VMAs of @mm overlapping @win, in address order, each
 * file referenced, for the caller to put.  Never sleeps on @mm's
 * mmap_lock: its owner can hold it for as long as he likes (a read of his
 * own /proc/PID/mem that faults on a page his FUSE server never sends,
 * with a munmap waiting behind it), and a worker or the service waiting
 * on it would be held with it, and rmmod behind them.
 *
 * Context: process context; sleeps between tries of the lock.
 *
 * Return: 0; -EBUSY if @mm's mmap_lock stays taken for SFRAME_LOCK_TRIES
 * tries (nothing in *@out); or -ENOMEM with what it got in *@out.
 */
int sframe_mm_snapshot(struct mm_struct *mm, const struct sframe_window *win,
		       struct sframe_vma_snap **out, unsigned int *nr)
{
	unsigned int tries = 0;
	int ret;

	*out = NULL;
	*nr = 0;
	while (!mmap_read_trylock(mm)) {
		if (++tries > SFRAME_LOCK_TRIES)
			return -EBUSY;
		usleep_range(1000, 2000);
	}
	ret = sframe_mm_snapshot_locked(mm, win, out, nr);
	mmap_read_unlock(mm);
	return ret;
}
