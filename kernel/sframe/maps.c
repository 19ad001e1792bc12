// SPDX-License-Identifier: GPL-2.0
/*
 * Per-mm maps from executable text ranges to file entries: created at an
 * mm's first executable file mapping or inherited at fork, kept equal to
 * the mm's executable VMAs by a per-mm rescan, dropped at exit_mmap, and
 * read by walks under RCU in any context, NMI included.
 * Documentation/design.rst has the rules.
 */
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "cache.h"
#include "kcompat.h"
#include "vdso.h"
#include "window.h"

#define SFRAME_MM_HASH_BITS	9
#define SFRAME_MAX_RANGES	4096	/* executable file VMAs kept per mm */
#define SFRAME_SWEEP_LOCK_TRIES	5	/* a sweep's tries of a busy mmap_lock */

struct sframe_range {
	u64 start;
	u64 end;
	u64 pgoff;
	struct sframe_file *file;	/* a reference */
};

/* Immutable once published; shared by an mm and its forked children. */
struct sframe_map {
	struct rcu_work free_work;
	refcount_t ref;
	unsigned int nr;
	struct sframe_range r[];
};

struct sframe_mm {
	struct hlist_node node;		/* sframe_mms; RCU */
	struct mm_struct *mm;		/* mmgrab()bed */
	pid_t tgid;
	kuid_t uid;			/* charged for the files it maps */
	refcount_t ref;			/* the hash, a queued rescan */
	bool dead;			/* unhashed at exit_mmap */
	spinlock_t lock;		/* the fields below; writers */
	seqcount_spinlock_t seq;	/* the fields below; walks */
	struct sframe_window changed;	/* not rescanned yet */
	struct sframe_window scanning;	/* being rescanned */
	struct sframe_map __rcu *map;
	struct work_struct rescan;
	struct rcu_work free_work;
};

/* What the rescan saw of one executable file VMA. */
struct sframe_vma_snap {
	u64 start;
	u64 end;
	u64 pgoff;
	struct file *file;
};

static DEFINE_HASHTABLE(sframe_mms, SFRAME_MM_HASH_BITS);
static DEFINE_SPINLOCK(sframe_mms_lock);
static atomic_long_t sframe_nr_mms;
static atomic_t sframe_frees_pending;	/* rcu_works queued, not run */

/* ---- maps ---- */

static void sframe_map_free_work(struct work_struct *work)
{
	struct sframe_map *map = container_of(to_rcu_work(work),
					      struct sframe_map, free_work);
	unsigned int i;

	for (i = 0; i < map->nr; i++)
		sframe_file_put(map->r[i].file);
	kvfree(map);
	atomic_dec(&sframe_frees_pending);
}

/* Drop a reference; the last frees the map after a grace period. */
static void sframe_map_put(struct sframe_map *map)
{
	if (!map || !refcount_dec_and_test(&map->ref))
		return;
	atomic_inc(&sframe_frees_pending);
	queue_rcu_work(sframe_wq, &map->free_work);
}

/* The index of the range covering @addr in @map, or -1. */
static int sframe_map_find(const struct sframe_map *map, u64 addr)
{
	unsigned int lo = 0, hi = map ? map->nr : 0;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (map->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < map->r[lo - 1].end ? lo - 1 : -1;
}

static bool sframe_range_in(const struct sframe_range *r,
			    const struct sframe_window *w)
{
	return r->start < w->end && w->start < r->end;
}

static bool sframe_map_overlaps(const struct sframe_map *map,
				const struct sframe_window *w)
{
	unsigned int i;

	for (i = 0; map && i < map->nr; i++) {
		if (sframe_range_in(&map->r[i], w))
			return true;
	}
	return false;
}

/* Widen @w to the whole of every range of @map it overlaps. */
static void sframe_window_widen(struct sframe_window *w,
				const struct sframe_map *map)
{
	unsigned int i;

	for (i = 0; map && !sframe_window_empty(w) && i < map->nr; i++) {
		if (sframe_range_in(&map->r[i], w))
			sframe_window_add(w, map->r[i].start, map->r[i].end);
	}
}

/*
 * The map after a rescan of @win: @old's ranges outside it, and @v's.
 * NULL when that is empty or cannot be had (counted): no range is better
 * than a stale one.
 */
static struct sframe_map *sframe_map_build(struct sframe_mm *m,
					   const struct sframe_map *old,
					   const struct sframe_window *win,
					   const struct sframe_vma_snap *v,
					   unsigned int nv)
{
	unsigned int i = 0, j = 0, n = 0, total = nv;
	struct sframe_map *map;
	size_t bytes;

	for (i = 0; old && i < old->nr; i++) {
		if (sframe_range_in(&old->r[i], win))
			sframe_count(ranges_removed);
		else
			total++;
	}
	if (!total)
		return NULL;
	bytes = struct_size(map, r, total);
	map = kvmalloc(bytes, GFP_KERNEL_ACCOUNT);
	if (!map) {
		sframe_count(map_alloc_failed);
		return NULL;
	}
	for (i = 0; (old && i < old->nr) || j < nv;) {
		const struct sframe_range *r = old && i < old->nr ?
					       &old->r[i] : NULL;
		struct sframe_file *sf;

		if (r && sframe_range_in(r, win)) {
			i++;
		} else if (r && (j == nv || r->start < v[j].start)) {
			sframe_file_hold(r->file);
			map->r[n++] = *r;
			i++;
		} else {
			sf = sframe_file_get(v[j].file, m->uid, m->mm);
			if (sf) {
				sframe_file_mapped(sf, v[j].file);
				map->r[n++] = (struct sframe_range){
					.start = v[j].start, .end = v[j].end,
					.pgoff = v[j].pgoff, .file = sf,
				};
				sframe_count(ranges_added);
			}
			j++;
		}
	}
	refcount_set(&map->ref, 1);
	INIT_RCU_WORK(&map->free_work, sframe_map_free_work);
	map->nr = n;
	return map;
}

/* ---- per-mm entries ---- */

static struct sframe_mm *sframe_mm_find(struct mm_struct *mm)
{
	struct sframe_mm *m;

	hash_for_each_possible_rcu(sframe_mms, m, node, (unsigned long)mm) {
		if (m->mm == mm)
			return m;
	}
	return NULL;
}

static struct sframe_mm *sframe_mm_find_locked(struct mm_struct *mm)
{
	struct sframe_mm *m;

	lockdep_assert_held(&sframe_mms_lock);
	hash_for_each_possible(sframe_mms, m, node, (unsigned long)mm) {
		if (m->mm == mm)
			return m;
	}
	return NULL;
}

static void sframe_mm_free(struct sframe_mm *m)
{
	sframe_map_put(rcu_dereference_protected(m->map, true));
	mmdrop(m->mm);
	kfree(m);
}

static void sframe_mm_free_work(struct work_struct *work)
{
	sframe_mm_free(container_of(to_rcu_work(work), struct sframe_mm,
				    free_work));
	atomic_dec(&sframe_frees_pending);
}

/* Drop a reference; the last frees @m after a grace period.  Any context. */
static void sframe_mm_put(struct sframe_mm *m)
{
	if (!refcount_dec_and_test(&m->ref))
		return;
	atomic_inc(&sframe_frees_pending);
	queue_rcu_work(sframe_wq, &m->free_work);
}

static void sframe_mm_rescan(struct work_struct *work);

static struct sframe_mm *sframe_mm_alloc(struct mm_struct *mm, pid_t tgid,
					 kuid_t uid, gfp_t gfp)
{
	struct sframe_mm *m;

	m = kzalloc(sizeof(*m), gfp | __GFP_ACCOUNT);
	if (!m)
		return NULL;
	m->mm = mm;
	mmgrab(mm);
	m->tgid = tgid;
	m->uid = uid;
	refcount_set(&m->ref, 1);
	spin_lock_init(&m->lock);
	seqcount_spinlock_init(&m->seq, &m->lock);
	INIT_WORK(&m->rescan, sframe_mm_rescan);
	INIT_RCU_WORK(&m->free_work, sframe_mm_free_work);
	return m;
}

/*
 * Publish @m as its mm's entry, unless the mm has one already; return a
 * reference to the one published.  @m's own reference becomes the hash's.
 */
static struct sframe_mm *sframe_mm_publish(struct sframe_mm *m)
{
	struct sframe_mm *old;

	spin_lock(&sframe_mms_lock);
	old = sframe_mm_find_locked(m->mm);
	if (old) {
		refcount_inc(&old->ref);
	} else {
		hash_add_rcu(sframe_mms, &m->node, (unsigned long)m->mm);
		atomic_long_inc(&sframe_nr_mms);
		refcount_inc(&m->ref);
	}
	spin_unlock(&sframe_mms_lock);
	if (!old)
		return m;
	sframe_mm_free(m);	/* never seen by anyone */
	return old;
}

/* A reference to @mm's entry; with @gfp, created if it has none. */
static struct sframe_mm *sframe_mm_get(struct mm_struct *mm, gfp_t gfp,
				       pid_t tgid, kuid_t uid)
{
	struct sframe_mm *m;

	rcu_read_lock();
	m = sframe_mm_find(mm);
	if (m && !refcount_inc_not_zero(&m->ref))
		m = NULL;
	rcu_read_unlock();
	if (m || !gfp)
		return m;
	m = sframe_mm_alloc(mm, tgid, uid, gfp);
	if (!m) {
		sframe_count(map_alloc_failed);
		return NULL;
	}
	return sframe_mm_publish(m);
}

static void sframe_mm_queue_rescan(struct sframe_mm *m)
{
	if (READ_ONCE(m->dead))
		return;
	refcount_inc(&m->ref);
	if (!queue_work(sframe_wq, &m->rescan))
		sframe_mm_put(m);
}

/* Does [start, end) touch a range of @m's map or a window?  RCU. */
static bool sframe_mm_covers(struct sframe_mm *m, u64 start, u64 end)
{
	struct sframe_window w = { start, end };
	/* A hint: a stale read costs a rescan, or one not needed. */
	struct sframe_window changed = data_race(m->changed);
	/* Likewise. */
	struct sframe_window scanning = data_race(m->scanning);

	return !sframe_window_empty(&changed) ||
	       !sframe_window_empty(&scanning) ||
	       sframe_map_overlaps(rcu_dereference(m->map), &w);
}

/*
 * [start, end) of @mm changed; with @gfp, create @mm's entry if it has
 * none.  From the hooks, under the mm's mmap_lock: no sleeping.
 */
static void sframe_mm_changed(struct mm_struct *mm, u64 start, u64 end,
			      gfp_t gfp, pid_t tgid, kuid_t uid)
{
	struct sframe_mm *m = sframe_mm_get(mm, gfp, tgid, uid);

	if (!m)
		return;
	spin_lock(&m->lock);
	write_seqcount_begin(&m->seq);
	sframe_window_add(&m->changed, start, end);
	write_seqcount_end(&m->seq);
	spin_unlock(&m->lock);
	sframe_mm_queue_rescan(m);
	sframe_mm_put(m);
}

#define SFRAME_HOOK_GFP	(GFP_ATOMIC | __GFP_NOWARN)

/* A mapping became executable: mmap, or mprotect adding PROT_EXEC. */
void sframe_vma_mapped(struct vm_area_struct *vma)
{
	if (!(vma->vm_flags & VM_EXEC))
		return;
	sframe_count(mmap_events);
	sframe_mm_changed(vma->vm_mm, vma->vm_start, vma->vm_end,
			  vma->vm_file ? SFRAME_HOOK_GFP : 0, current->tgid,
			  sframe_charge_owner(current_cred()));
}

/*
 * A VMA went away (munmap, MAP_FIXED, a merge).  Only one that is or was
 * over a range matters; a file VMA that lost PROT_EXEC may still be.
 */
void sframe_vma_freed(struct vm_area_struct *vma)
{
	struct sframe_mm *m;
	bool covers;

	if (!(vma->vm_flags & VM_EXEC) && !vma->vm_file)
		return;
	rcu_read_lock();
	m = sframe_mm_find(vma->vm_mm);
	covers = m && sframe_mm_covers(m, vma->vm_start, vma->vm_end);
	rcu_read_unlock();
	if (covers)
		sframe_mm_changed(vma->vm_mm, vma->vm_start, vma->vm_end, 0, 0,
				  GLOBAL_ROOT_UID);
}

/* mremap is moving an executable VMA to [addr, addr + len). */
void sframe_vma_moving(struct vm_area_struct *vma, unsigned long addr,
		       unsigned long len)
{
	if (!(vma->vm_flags & VM_EXEC))
		return;
	sframe_mm_changed(vma->vm_mm, addr, addr + len,
			  vma->vm_file ? SFRAME_HOOK_GFP : 0, current->tgid,
			  sframe_charge_owner(current_cred()));
}

/*
 * @child was forked with its own mm, a copy of the current one: it gets
 * the parent's map and whatever the parent had still to rescan.
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
	m = sframe_mm_alloc(mm, child->tgid, pm->uid, SFRAME_HOOK_GFP);
	if (!m) {
		sframe_count(map_alloc_failed);
		goto out;
	}
	spin_lock(&pm->lock);
	map = rcu_dereference_protected(pm->map, lockdep_is_held(&pm->lock));
	if (map)
		refcount_inc(&map->ref);
	pending = pm->changed;
	if (!sframe_window_empty(&pm->scanning))
		sframe_window_add(&pending, pm->scanning.start,
				  pm->scanning.end);
	spin_unlock(&pm->lock);
	RCU_INIT_POINTER(m->map, map);
	m->changed = pending;
	m = sframe_mm_publish(m);
	sframe_count(forks_inherited);
	if (!sframe_window_empty(&pending))
		sframe_mm_queue_rescan(m);
	sframe_mm_put(m);
out:
	sframe_mm_put(pm);
}

/* @mm is being torn down: its entry goes before any of its VMAs. */
void sframe_mm_exit(struct mm_struct *mm)
{
	struct sframe_mm *m;

	spin_lock(&sframe_mms_lock);
	m = sframe_mm_find_locked(mm);
	if (m) {
		hash_del_rcu(&m->node);
		WRITE_ONCE(m->dead, true);
		atomic_long_dec(&sframe_nr_mms);
	}
	spin_unlock(&sframe_mms_lock);
	if (m)
		sframe_mm_put(m);
}

/* ---- the rescan ---- */

/*
 * The executable file VMAs of @mm overlapping @win, files referenced;
 * the caller holds @mm's mmap_lock.
 */
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

static int sframe_mm_snapshot(struct mm_struct *mm,
			      const struct sframe_window *win,
			      struct sframe_vma_snap **out, unsigned int *nr)
{
	int ret;

	mmap_read_lock(mm);
	ret = sframe_mm_snapshot_locked(mm, win, out, nr);
	mmap_read_unlock(mm);
	return ret;
}

/*
 * The only writer of @m's map; a work item, so one at a time per mm, in
 * the order the changes came.
 */
static void sframe_mm_rescan(struct work_struct *work)
{
	struct sframe_mm *m = container_of(work, struct sframe_mm, rescan);
	struct sframe_map *old, *map;
	struct sframe_vma_snap *v = NULL;
	struct mem_cgroup *memcg, *prev;
	struct sframe_window win;
	unsigned int nv = 0, i;
	int ret;

	old = rcu_dereference_protected(m->map, true);
	spin_lock(&m->lock);
	write_seqcount_begin(&m->seq);
	win = m->changed;
	sframe_window_widen(&win, old);
	m->scanning = win;
	m->changed = (struct sframe_window){};
	write_seqcount_end(&m->seq);
	spin_unlock(&m->lock);

	map = old;
	if (!READ_ONCE(m->dead) && mmget_not_zero(m->mm)) {
		memcg = get_mem_cgroup_from_mm(m->mm);
		prev = sframe_set_active_memcg(memcg);
		ret = sframe_mm_snapshot(m->mm, &win, &v, &nv);
		if (ret)
			sframe_count(map_alloc_failed);
		if (ret)
			map = NULL;
		else if (nv || sframe_map_overlaps(old, &win))
			map = sframe_map_build(m, old, &win, v, nv);
		sframe_set_active_memcg(prev);
		mem_cgroup_put(memcg);
		mmput(m->mm);
	}

	spin_lock(&m->lock);
	write_seqcount_begin(&m->seq);
	rcu_assign_pointer(m->map, map);
	m->scanning = (struct sframe_window){};
	write_seqcount_end(&m->seq);
	spin_unlock(&m->lock);
	if (map != old)
		sframe_map_put(old);
	for (i = 0; i < nv; i++)
		fput(v[i].file);
	kfree(v);
	sframe_mm_put(m);
}

/* ---- walks ---- */

/* The walked mm's map and windows, as one consistent snapshot.  Any context. */
static void sframe_cursor_init(struct sframe_cursor *cur)
{
	struct sframe_mm *m = NULL;
	unsigned int seq;

	cur->map_found = true;
	if (READ_ONCE(sframe_enabled) && cur->mm)
		m = sframe_mm_find(cur->mm);
	if (!m)
		return;
	/* No retry loop: the walk may have interrupted the writer. */
	seq = raw_read_seqcount(&m->seq);
	if (seq & 1)
		return;
	cur->map = rcu_dereference(m->map);
	cur->changed = m->changed;
	cur->scanning = m->scanning;
	if (read_seqcount_retry(&m->seq, seq))
		cur->map = NULL;
}

/*
 * The section covering @ip in the walked mm and its load bias.  Any
 * context; the caller holds rcu_read_lock() for the whole walk, which
 * keeps the map the cursor remembers, its files and their sections alive.
 * An address in a window not yet rescanned has no section: its old
 * object may be gone; the range answered for stops at such a window.
 * This is the walk's lookup callback.
 */
void sframe_user_lookup(void *ctx, u64 ip, struct sframe_where *where)
{
	struct sframe_cursor *cur = &((struct sframe_user_ctx *)ctx)->cur;
	const struct sframe_sec *sec, *fill;
	const struct sframe_object *obj;
	const struct sframe_range *r;
	u64 bias;
	int i;

	if (sframe_vdso_lookup(cur->mm, ip, where))
		return;
	if (!cur->map_found)
		sframe_cursor_init(cur);
	if (sframe_window_has(&cur->changed, ip) ||
	    sframe_window_has(&cur->scanning, ip)) {
		sframe_count(lookups_in_changed_range);
		return;
	}
	i = sframe_map_find(cur->map, ip);
	if (i < 0)
		return;
	r = &cur->map->r[i];
	where->start = r->start;
	where->end = r->end;
	sframe_window_clip(&cur->changed, ip, &where->start, &where->end);
	sframe_window_clip(&cur->scanning, ip, &where->start, &where->end);
	sec = sframe_file_sec(r->file, &fill, &obj);
	if (!sec || !obj || !sframe_object_bias(obj, r->start, r->pgoff, &bias))
		return;
	where->sec = &sec->sec;
	where->fill = fill ? &fill->sec : NULL;
	where->bias = bias;
}

/* ---- processes running at load ---- */

/* Give every process already running its map (a full rescan). */
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

		if (mm) {
			sframe_mm_changed(mm, 0, TASK_SIZE_MAX, GFP_KERNEL,
					  tasks[i]->tgid,
					  sframe_task_charge_owner(tasks[i]));
			mmput(mm);
		}
		put_task_struct(tasks[i]);
	}
	kvfree(tasks);
}

/* ---- the watcher's sweep (SFRAME_IOC_REPORT_MAPPED) ---- */

/*
 * Offer every executable file @m's process maps now to
 * sframe_file_sweep(): 0, or 1 once the report queue is full.  A process
 * whose mmap_lock stays taken (a user can hold his own for long) is
 * passed over, counted: what it maps is reported when it maps it again,
 * or found mapped by another process.
 */
static int sframe_mm_sweep(struct sframe_mm *m, unsigned int sweep)
{
	struct sframe_window all = { 0, TASK_SIZE_MAX };
	struct sframe_vma_snap *v = NULL;
	unsigned int nv = 0, i, tries = 0;
	int ret = 0;

	if (READ_ONCE(m->dead) || !mmget_not_zero(m->mm))
		return 0;
	while (!mmap_read_trylock(m->mm)) {
		if (++tries > SFRAME_SWEEP_LOCK_TRIES) {
			sframe_count(sweep_mms_busy);
			mmput(m->mm);
			return 0;
		}
		usleep_range(1000, 2000);
	}
	if (sframe_mm_snapshot_locked(m->mm, &all, &v, &nv))
		sframe_count(map_alloc_failed);	/* what it got is swept */
	mmap_read_unlock(m->mm);
	mmput(m->mm);
	for (i = 0; i < nv; i++) {
		if (!ret && sframe_file_sweep(v[i].file, sweep) == -ENOSPC)
			ret = 1;
		fput(v[i].file);
	}
	kfree(v);
	return ret;
}

/*
 * One call of sweep @sweep over every process tracked now: 0 when each
 * file was offered, 1 when the queue filled first, -EINTR on a fatal
 * signal.  Processes that come meanwhile report their own mappings.
 */
int sframe_mms_sweep(unsigned int sweep)
{
	unsigned long cap = atomic_long_read(&sframe_nr_mms) + 16;
	struct sframe_mm **mms, *m;
	unsigned int bkt, n = 0, i;
	int ret = 0;

	mms = kvmalloc_array(cap, sizeof(*mms), GFP_KERNEL);
	if (!mms)
		return -ENOMEM;
	spin_lock(&sframe_mms_lock);
	hash_for_each(sframe_mms, bkt, m, node) {
		if (n == cap)
			break;
		refcount_inc(&m->ref);
		mms[n++] = m;
	}
	spin_unlock(&sframe_mms_lock);
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

/* ---- debugfs ---- */

long sframe_mms_tracked(void)
{
	return atomic_long_read(&sframe_nr_mms);
}

int sframe_cache_show_maps(struct seq_file *s)
{
	const struct sframe_object *obj;
	const struct sframe_map *map;
	const struct sframe_sec *sec, *fill;
	struct sframe_mm *m;
	unsigned int bkt, i;
	u64 bias;

	rcu_read_lock();
	hash_for_each_rcu(sframe_mms, bkt, m, node) {
		map = rcu_dereference(m->map);
		seq_printf(s, "pid %d\n", m->tgid);
		for (i = 0; map && i < map->nr; i++) {
			const struct sframe_range *r = &map->r[i];

			sec = sframe_file_sec(r->file, &fill, &obj);
			if (!obj || !sframe_object_bias(obj, r->start, r->pgoff,
							&bias))
				bias = 0;
			seq_printf(s, "  %llx-%llx bias %llx ", r->start,
				   r->end, bias);
			if (sec)
				seq_printf(s, "v%u %u FDEs%s%s %s\n",
					   sec->sec.version, sec->sec.num_fdes,
					   sec == obj->embedded ? "" :
					   " sidecar", fill ? " + fill" : "",
					   r->file->path);
			else
				seq_printf(s, "no SFrame %s\n", r->file->path);
		}
	}
	rcu_read_unlock();
	return 0;
}

/* ---- teardown ---- */

/*
 * After the hooks are gone and no walk can be running: drop every entry
 * and wait until everything freed after a grace period is freed.
 */
void sframe_maps_exit(void)
{
	struct hlist_node *tmp;
	struct sframe_mm *m;
	unsigned int bkt;

	spin_lock(&sframe_mms_lock);
	hash_for_each_safe(sframe_mms, bkt, tmp, m, node) {
		hash_del_rcu(&m->node);
		WRITE_ONCE(m->dead, true);
		atomic_long_dec(&sframe_nr_mms);
		sframe_mm_put(m);
	}
	spin_unlock(&sframe_mms_lock);
	do {
		rcu_barrier();
		flush_workqueue(sframe_wq);
	} while (atomic_read(&sframe_frees_pending));
}
