// SPDX-License-Identifier: GPL-2.0
/*
 * The per-mm entries: one per mm that maps an executable file, found by
 * its mm under RCU, holding the mm's changed windows and its map, kept
 * equal to the mm's executable VMAs by a per-mm rescan (the map's only
 * writer), unhashed at exit_mmap and freed after a grace period.
 * Documentation/design.rst has the rules.
 */
#include <linux/delay.h>
#include <linux/hashtable.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "kcompat.h"
#include "maps.h"
#include "window.h"

#define SFRAME_MM_HASH_BITS	9
/* A rescan that finds the mm's mmap_lock taken tries again this often... */
#define SFRAME_RESCAN_RETRY_MS	100
/* ...this many times in a row, then waits for the mm's next change. */
#define SFRAME_RESCAN_RETRIES	50

static DEFINE_HASHTABLE(sframe_mms, SFRAME_MM_HASH_BITS);
static DEFINE_SPINLOCK(sframe_mms_lock);
static atomic_long_t sframe_nr_mms;

/**
 * sframe_mm_find() - look up an mm's entry
 * @mm: the mm
 *
 * No reference is taken: the entry stays while the caller's RCU read-side
 * section lasts.
 *
 * Context: under rcu_read_lock().
 *
 * Return: @mm's entry, or NULL if it has none (never had one, or was
 * unhashed at exit_mmap).
 */
struct sframe_mm *sframe_mm_find(struct mm_struct *mm)
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
	sframe_fresh_free(m);
	mmdrop(m->mm);
	kfree(m);
}

static void sframe_mm_free_work(struct work_struct *work)
{
	sframe_mm_free(container_of(to_rcu_work(work), struct sframe_mm,
				    free_work));
	atomic_dec(&sframe_works_pending);
}

/**
 * sframe_mm_put() - drop a reference to an mm's entry
 * @m: the entry
 *
 * Drop a reference; the last frees @m, with its map and its fresh slots'
 * references, after a grace period.
 *
 * Context: any context.
 */
void sframe_mm_put(struct sframe_mm *m)
{
	if (!refcount_dec_and_test(&m->ref))
		return;
	atomic_inc(&sframe_works_pending);
	queue_rcu_work(sframe_wq, &m->free_work);
}

static void sframe_mm_rescan(struct work_struct *work);

/**
 * sframe_mm_alloc() - allocate an entry for an mm
 * @mm: the mm, grabbed (mmgrab()) for as long as the entry lives
 * @tgid: the process the entry is shown as
 * @uid: whom the mm's files are charged to
 * @gfp: for the allocation, charged to the current memory cgroup
 *
 * The entry has no map, no windows and no fresh ranges; it is not
 * published (sframe_mm_publish()).
 *
 * Return: the entry, holding one reference, the caller's; NULL: no memory.
 */
struct sframe_mm *sframe_mm_alloc(struct mm_struct *mm, pid_t tgid,
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
	INIT_DELAYED_WORK(&m->rescan, sframe_mm_rescan);
	INIT_RCU_WORK(&m->free_work, sframe_mm_free_work);
	return m;
}

/**
 * sframe_mm_publish() - make an entry its mm's, unless the mm has one
 * @m: the entry, from sframe_mm_alloc()
 *
 * Publish @m as its mm's entry, unless the mm has one already.  @m's own
 * reference becomes the hash's; if the mm had an entry, @m, never seen by
 * anyone, is put instead.
 *
 * Return: a reference to the one published, @m or the mm's existing
 * entry, for the caller to put.
 */
struct sframe_mm *sframe_mm_publish(struct sframe_mm *m)
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
	/* Never seen by anyone; its files are put from process context. */
	sframe_mm_put(m);
	return old;
}

/**
 * sframe_mm_get() - a reference to an mm's entry
 * @mm: the mm
 * @gfp: for an entry made if @mm has none; 0: none is made
 * @tgid: the process a new entry is shown as
 * @uid: whom a new entry's files are charged to
 *
 * A reference to @mm's entry; with @gfp, created if it has none.
 *
 * Return: a reference to the entry, for sframe_mm_put(); NULL if @mm has
 * none and none was made (no @gfp, or no memory: counted).
 */
struct sframe_mm *sframe_mm_get(struct mm_struct *mm, gfp_t gfp,
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

/**
 * sframe_mm_queue_rescan() - queue a rescan of an entry's windows
 * @m: the entry
 *
 * The rescan holds a reference of its own on @m.  Nothing is queued for
 * an entry unhashed at exit_mmap, nor a second time for one already
 * queued.
 *
 * Context: process context, atomic allowed (the hooks).
 */
void sframe_mm_queue_rescan(struct sframe_mm *m)
{
	if (READ_ONCE(m->dead))
		return;
	refcount_inc(&m->ref);
	if (!queue_delayed_work(sframe_wq, &m->rescan, 0))
		sframe_mm_put(m);
}

/**
 * sframe_mm_covers() - whether a change concerns an mm's entry
 * @m: the entry
 * @start: the change's start
 * @end: its end
 *
 * Slots are filled under the mmap_lock for write, which the caller
 * holds for read at least, so a filled one is seen; one emptied
 * meanwhile no longer matters.  The windows are read as a hint: a stale
 * read costs a rescan, or one not needed.
 *
 * Context: under rcu_read_lock() and the mm's mmap_lock.
 *
 * Return: true if [@start, @end) may touch a range of @m's map, or @m has
 * a window to rescan or a fresh slot held; false otherwise.
 */
bool sframe_mm_covers(struct sframe_mm *m, u64 start, u64 end)
{
	struct sframe_window w = { start, end };
	/* A hint: a stale read costs a rescan, or one not needed. */
	struct sframe_window changed = data_race(m->changed);
	/* Likewise. */
	struct sframe_window scanning = data_race(m->scanning);

	return !sframe_window_empty(&changed) ||
	       !sframe_window_empty(&scanning) || sframe_fresh_held(m) ||
	       sframe_map_overlaps(rcu_dereference(m->map), &w);
}

/**
 * sframe_mm_change() - record a change of an mm's mappings
 * @mm: the mm
 * @c: the change
 *
 * [c->start, c->end) of @mm changed; with c->gfp, create @mm's entry if
 * it has none.  A change a task made (c->tgid not 0) makes c->uid, that
 * task's owner, the one the mm's files are charged to from now on: a
 * process that changes its uid without exec (a daemon giving up root)
 * maps as the user it became, not as the one that created its entry.  A
 * file VMA mapped there (c->mapped) is published at once as a fresh range
 * if its file has an entry already and a slot is free.  The change's
 * window is added to the entry's changed one, and its rescan queued.
 *
 * Context: from the hooks, under the mm's mmap_lock: no sleeping.
 */
void sframe_mm_change(struct mm_struct *mm, const struct sframe_change *c)
{
	struct sframe_mm *m = sframe_mm_get(mm, c->gfp, c->tgid, c->uid);
	struct vm_area_struct *vma = c->mapped;
	struct sframe_fresh *slot = NULL;
	struct sframe_file *sf = NULL;

	if (!m)
		return;
	spin_lock(&m->lock);
	if (c->tgid)
		WRITE_ONCE(m->uid, c->uid);
	if (vma && vma->vm_file) {
		slot = sframe_fresh_slot(m);
		sf = slot ? sframe_file_get_known(vma->vm_file) : NULL;
		if (!slot)
			sframe_count(fresh_slots_full);
	}
	write_seqcount_begin(&m->seq);
	m->changes++;
	sframe_fresh_cut(m, c);
	sframe_window_add(&m->changed, c->start, c->end);
	if (sf) {
		*slot = (struct sframe_fresh){
			.r = { .start = vma->vm_start, .end = vma->vm_end,
			       .pgoff = vma->vm_pgoff, .file = sf },
			.vm_file = vma->vm_file,
			.change = m->changes,
		};
		sframe_count(ranges_fresh);
	}
	write_seqcount_end(&m->seq);
	spin_unlock(&m->lock);
	sframe_mm_queue_rescan(m);
	sframe_mm_put(m);
}

/**
 * sframe_mm_exit() - unhash an mm's entry at exit_mmap
 * @mm: the mm being torn down
 *
 * @mm is being torn down: its entry goes before any of its VMAs.  The
 * hash's reference is dropped; a rescan queued or running finds the entry
 * dead.
 */
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
 * @m's mmap_lock stayed taken: give the windows back to *changed* (no
 * rules there meanwhile) and rescan again after SFRAME_RESCAN_RETRY_MS,
 * with the work's reference; after SFRAME_RESCAN_RETRIES such tries in a
 * row, counted, wait for the mm's next change instead.
 */
static void sframe_mm_rescan_later(struct sframe_mm *m,
				   const struct sframe_window *win)
{
	spin_lock(&m->lock);
	write_seqcount_begin(&m->seq);
	if (!sframe_window_empty(win))
		sframe_window_add(&m->changed, win->start, win->end);
	m->scanning = (struct sframe_window){};
	write_seqcount_end(&m->seq);
	spin_unlock(&m->lock);
	if (++m->rescan_tries > SFRAME_RESCAN_RETRIES) {
		sframe_count(rescan_mms_busy);
		m->rescan_tries = 0;
		sframe_mm_put(m);
		return;
	}
	sframe_count(rescans_retried);
	m->rescan_delayed = true;
	atomic_inc(&sframe_works_pending);
	if (queue_delayed_work(sframe_wq, &m->rescan,
			       msecs_to_jiffies(SFRAME_RESCAN_RETRY_MS)))
		return;
	/* A change queued it meanwhile, to run now. */
	m->rescan_delayed = false;
	atomic_dec(&sframe_works_pending);
	sframe_mm_put(m);
}

/*
 * The only writer of @m's map; a work item, so one at a time per mm, in
 * the order the changes came.
 */
static void sframe_mm_rescan(struct work_struct *work)
{
	struct sframe_mm *m = container_of(to_delayed_work(work),
					   struct sframe_mm, rescan);
	bool delayed = m->rescan_delayed;
	struct sframe_file *gone[SFRAME_MM_FRESH];
	struct sframe_map *old, *map;
	struct sframe_vma_snap *v = NULL;
	struct mem_cgroup *memcg, *prev;
	struct sframe_window win;
	unsigned int nv = 0, i, upto, ngone;
	int ret = 0;

	m->rescan_delayed = false;
	old = rcu_dereference_protected(m->map, true);
	spin_lock(&m->lock);
	write_seqcount_begin(&m->seq);
	win = m->changed;
	sframe_window_widen(&win, old);
	m->scanning = win;
	m->changed = (struct sframe_window){};
	upto = m->changes;
	write_seqcount_end(&m->seq);
	spin_unlock(&m->lock);

	map = old;
	if (!READ_ONCE(m->dead) && mmget_not_zero(m->mm)) {
		memcg = get_mem_cgroup_from_mm(m->mm);
		prev = sframe_set_active_memcg(memcg);
		ret = sframe_mm_snapshot(m->mm, &win, &v, &nv);
		if (ret == -ENOMEM) {
			sframe_count(map_alloc_failed);
			map = NULL;
		} else if (!ret && (nv || sframe_map_overlaps(old, &win))) {
			map = sframe_map_build(m, old, &win, v, nv);
		}
		sframe_set_active_memcg(prev);
		mem_cgroup_put(memcg);
		mmput(m->mm);
	}

	if (ret == -EBUSY) {
		sframe_mm_rescan_later(m, &win);
		goto out;
	}
	m->rescan_tries = 0;
	spin_lock(&m->lock);
	write_seqcount_begin(&m->seq);
	rcu_assign_pointer(m->map, map);
	m->scanning = (struct sframe_window){};
	ngone = sframe_fresh_retire(m, upto, gone);
	write_seqcount_end(&m->seq);
	spin_unlock(&m->lock);
	sframe_fresh_put(gone, ngone);
	if (map != old)
		sframe_map_put(old);
	for (i = 0; i < nv; i++)
		fput(v[i].file);
	kfree(v);
	sframe_mm_put(m);
out:
	/* After the put: the exit waits for what it queued. */
	if (delayed)
		atomic_dec(&sframe_works_pending);
}

/**
 * sframe_mms_hold_all() - a reference to every entry tracked now
 * @nr: set to how many entries the array holds
 *
 * Entries that come meanwhile are not in it.
 *
 * Return: a new array of *@nr references, for the caller to put and to
 * free with kvfree(); NULL: no memory.
 */
struct sframe_mm **sframe_mms_hold_all(unsigned int *nr)
{
	unsigned long cap = atomic_long_read(&sframe_nr_mms) + 16;
	struct sframe_mm **mms, *m;
	unsigned int bkt, n = 0;

	mms = kvmalloc_array(cap, sizeof(*mms), GFP_KERNEL);
	if (!mms)
		return NULL;
	spin_lock(&sframe_mms_lock);
	hash_for_each(sframe_mms, bkt, m, node) {
		if (n == cap)
			break;
		refcount_inc(&m->ref);
		mms[n++] = m;
	}
	spin_unlock(&sframe_mms_lock);
	*nr = n;
	return mms;
}

/* ---- debugfs ---- */

/**
 * sframe_mms_tracked() - how many mm entries there are
 *
 * Return: the number of entries in the hash.
 */
long sframe_mms_tracked(void)
{
	return atomic_long_read(&sframe_nr_mms);
}

/**
 * sframe_cache_show_maps() - show every mm's map
 * @s: the file being shown
 *
 * One line per entry, its process; then one per range of its map: its
 * addresses, its load bias, and the section a walk uses there (the file's
 * own or a sidecar, and whether one fills its gaps), or that it has none.
 *
 * Return: 0.
 */
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

/**
 * sframe_maps_exit() - drop every mm entry and wait for their frees
 *
 * After the hooks are gone and no walk can be running: drop every entry
 * and wait until everything freed after a grace period is freed, and
 * every rescan retried later has run (on a dead entry: nothing to do).
 *
 * Context: process context; sleeps.
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
	for (;;) {
		rcu_barrier();
		flush_workqueue(sframe_wq);
		if (!atomic_read(&sframe_works_pending))
			break;
		usleep_range(1000, 2000);	/* a rescan retried later */
	}
}
