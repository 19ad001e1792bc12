// SPDX-License-Identifier: GPL-2.0
/*
 * What the hooks (attach.c) see of an mm's executable mappings, turned
 * into changed windows of its entry (mms.c): mmap, munmap, mremap and
 * fork, from the mapping task's context, atomic; and the processes
 * already running when the module loads.
 */
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "kcompat.h"
#include "maps.h"
#include "window.h"

#define SFRAME_HOOK_GFP	(GFP_ATOMIC | __GFP_NOWARN)

/**
 * sframe_vma_mapped() - a mapping became executable
 * @vma: the mapping
 *
 * A mapping became executable: mmap, or mprotect adding PROT_EXEC.  Its
 * range becomes a changed window of its mm's entry, made if need be for a
 * file mapping and charged to the mapping task's owner.
 *
 * Context: the mapping task's context, atomic.
 */
void sframe_vma_mapped(struct vm_area_struct *vma)
{
	struct sframe_change c;

	if (!(vma->vm_flags & VM_EXEC))
		return;
	sframe_count(mmap_events);
	c = (struct sframe_change){
		.start = vma->vm_start, .end = vma->vm_end,
		.gfp = vma->vm_file ? SFRAME_HOOK_GFP : 0,
		.tgid = current->tgid,
		.uid = sframe_charge_owner(current_cred()),
		.mapped = vma,
	};
	sframe_mm_change(vma->vm_mm, &c);
}

/**
 * sframe_vma_freed() - a VMA went away
 * @vma: the VMA
 *
 * A VMA went away (munmap, MAP_FIXED, a merge).  Only one that is or was
 * over a range matters; a file VMA that lost PROT_EXEC may still be.
 *
 * Context: the mapping task's context, atomic.
 */
void sframe_vma_freed(struct vm_area_struct *vma)
{
	struct sframe_change c = {
		.start = vma->vm_start, .end = vma->vm_end,
		.uid = GLOBAL_ROOT_UID, .freed = vma,
	};
	struct sframe_mm *m;
	bool covers;

	if (!(vma->vm_flags & VM_EXEC) && !vma->vm_file)
		return;
	rcu_read_lock();
	m = sframe_mm_find(vma->vm_mm);
	covers = m && sframe_mm_covers(m, vma->vm_start, vma->vm_end);
	rcu_read_unlock();
	if (covers)
		sframe_mm_change(vma->vm_mm, &c);
}

/**
 * sframe_vma_moving() - mremap is moving an executable VMA
 * @vma: the VMA being moved
 * @addr: where it goes
 * @len: its length
 *
 * mremap is moving an executable VMA to [addr, addr + len): that becomes
 * a changed window of its mm's entry, made if need be for a file VMA.
 *
 * Context: the mapping task's context, atomic.
 */
void sframe_vma_moving(struct vm_area_struct *vma, unsigned long addr,
		       unsigned long len)
{
	struct sframe_change c;

	if (!(vma->vm_flags & VM_EXEC))
		return;
	c = (struct sframe_change){
		.start = addr, .end = addr + len,
		.gfp = vma->vm_file ? SFRAME_HOOK_GFP : 0,
		.tgid = current->tgid,
		.uid = sframe_charge_owner(current_cred()),
	};
	sframe_mm_change(vma->vm_mm, &c);
}

/**
 * sframe_mm_forked() - give a forked child its parent's map
 * @child: the new task
 *
 * @child was forked with its own mm, a copy of the current one: it gets
 * the parent's map and whatever the parent had still to rescan.  Unless
 * the parent has other threads: one of them may have changed the
 * parent's mappings after they were copied (dup_mmap(), early in
 * copy_process()) and before this hook (late in it), and the parent's
 * map may already show that change, which the child does not have.
 * That child scans its own mappings instead.  A lone thread changes
 * nothing meanwhile: it is in copy_process() itself.  Nothing is done
 * for a child sharing its parent's mm, or a parent with no entry.
 *
 * Context: the forking task's context, atomic.
 */
void sframe_mm_forked(struct task_struct *child)
{
	struct mm_struct *mm = child->mm, *parent_mm = current->mm;
	struct sframe_window pending;
	struct sframe_map *map;
	struct sframe_mm *pm, *m;

	if (!mm || !parent_mm || mm == parent_mm)
		return;
	pm = sframe_mm_get(parent_mm, 0, 0, GLOBAL_ROOT_UID);
	if (!pm)
		return;
	m = sframe_mm_alloc(mm, child->tgid, READ_ONCE(pm->uid),
			    SFRAME_HOOK_GFP);
	if (!m) {
		sframe_count(map_alloc_failed);
		goto out;
	}
	if (get_nr_threads(current) > 1) {
		map = NULL;
		pending = (struct sframe_window){ 0, TASK_SIZE_MAX };
		sframe_count(forks_rescanned);
	} else {
		spin_lock(&pm->lock);
		map = rcu_dereference_protected(pm->map,
						lockdep_is_held(&pm->lock));
		if (map)
			refcount_inc(&map->ref);
		pending = pm->changed;
		sframe_fresh_copy(m, pm);
		if (!sframe_window_empty(&pm->scanning))
			sframe_window_add(&pending, pm->scanning.start,
					  pm->scanning.end);
		spin_unlock(&pm->lock);
		sframe_count(forks_inherited);
	}
	RCU_INIT_POINTER(m->map, map);
	m->changed = pending;
	m = sframe_mm_publish(m);
	if (!sframe_window_empty(&pending))
		sframe_mm_queue_rescan(m);
	sframe_mm_put(m);
out:
	sframe_mm_put(pm);
}

/* ---- processes running at load ---- */

/**
 * sframe_mm_scan_tasks() - give every running process its map
 *
 * Give every process already running its map (a full rescan); kernel
 * threads have none.  The hooks are in place by then, so a process
 * started meanwhile is seen by them; the scan takes only as many
 * processes as it made room for, and none without memory for the list.
 *
 * Context: process context.
 */
void sframe_mm_scan_tasks(void)
{
	struct task_struct **tasks, *p;
	unsigned int n = 0, cap = 0, i;

	rcu_read_lock();
	for_each_process(p)
		cap++;
	rcu_read_unlock();
	cap += cap / 8 + 16;	/* processes started meanwhile */
	tasks = kvmalloc_array(cap, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return;

	rcu_read_lock();
	for_each_process(p) {
		if (n == cap)
			break;
		if (p->flags & PF_KTHREAD)
			continue;
		get_task_struct(p);
		tasks[n++] = p;
	}
	rcu_read_unlock();

	for (i = 0; i < n; i++) {
		struct mm_struct *mm = get_task_mm(tasks[i]);
		struct sframe_change c = {
			.end = TASK_SIZE_MAX, .gfp = GFP_KERNEL,
			.tgid = tasks[i]->tgid,
			.uid = sframe_task_charge_owner(tasks[i]),
		};

		if (mm) {
			sframe_mm_change(mm, &c);
			mmput(mm);
		}
		put_task_struct(tasks[i]);
	}
	kvfree(tasks);
}
