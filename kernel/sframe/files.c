// SPDX-License-Identifier: GPL-2.0
/*
 * The file entries: one per file (its real inode), holding what a read of
 * it found and the sidecar supplied for it, shared by every mapping of it,
 * alive while a map, a pinned sidecar or a load holds it, then idle for
 * idle_seconds (so that the next exec of a program finds its section
 * read) unless the budget needs the memory first; a sidecar loaded only
 * while the file is mapped goes with its entry.  Loads run on the
 * cache's work queue, never under a lock.  reports.c reports entries to
 * the sidecar service, bind.c binds their sidecars.
 */
#include <linux/dcache.h>
#include <linux/hashtable.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>
#include <linux/wait_bit.h>

#include "cache.h"
#include "kcompat.h"

#define SFRAME_FILE_HASH_BITS	8

static DEFINE_HASHTABLE(sframe_files, SFRAME_FILE_HASH_BITS);
DEFINE_SPINLOCK(sframe_files_lock);
/*
 * An age no idle entry reaches, for time_before() (ULONG_MAX would wrap
 * and make every entry old).
 */
#define SFRAME_IDLE_NEVER_OLD	MAX_JIFFY_OFFSET

static LIST_HEAD(sframe_idle);		/* oldest first; holds a reference */
static bool sframe_files_closing;	/* module exit: nothing goes idle */
static atomic_long_t sframe_nr_files;
static atomic_long_t sframe_nr_idle;
unsigned int sframe_idle_seconds = 30;
struct workqueue_struct *sframe_wq;

static void sframe_files_reap(struct work_struct *work);
static DECLARE_DELAYED_WORK(sframe_reap_work, sframe_files_reap);

/**
 * sframe_real_inode() - the inode a file's data lives in
 * @file: the file
 *
 * The inode a file's data lives in: an overlayfs path's layer inode.
 *
 * Return: the inode, by which @file's entry is keyed.
 */
struct inode *sframe_real_inode(struct file *file)
{
	return d_real_inode(file->f_path.dentry);
}

static unsigned long sframe_file_key(const struct sframe_file_id *id)
{
	return id->ino ^ id->dev;
}

/**
 * sframe_file_find() - look up the entry of an inode
 * @now: the identity of the file's real inode (sframe_real_inode()) as it
 *	is now, taken by sframe_file_id_set() before the lock
 *
 * An entry matches only the inode it was made for, while that is the
 * same file it was read from: same device, inode number and generation,
 * size and ctime (file_id.h).  One with a sidecar loaded by hand, which
 * stays until it is unloaded, matches any inode with those numbers and
 * the same file handle: its file's inode may be evicted meanwhile, and
 * read again.  No reference is taken.
 *
 * Context: under sframe_files_lock.
 *
 * Return: the entry, or NULL if the inode of @now has none.
 */
struct sframe_file *sframe_file_find(const struct sframe_file_id *now)
{
	struct sframe_file *sf;

	lockdep_assert_held(&sframe_files_lock);
	hash_for_each_possible(sframe_files, sf, node, sframe_file_key(now)) {
		if (sframe_file_id_is(&sf->id, now, sf->sidecar_pinned))
			return sf;
	}
	return NULL;
}

static void sframe_file_free(struct sframe_file *sf)
{
	sframe_sec_free(rcu_dereference_protected(sf->sidecar, true));
	sframe_object_free(rcu_dereference_protected(sf->obj, true));
	kfree(sf->path);
	sframe_uncharge(&sf->charge);
	kfree(sf);
}

/**
 * sframe_file_unidle() - take an entry off the idle list
 * @sf: the entry
 *
 * Take @sf off the idle list, if it is there.
 *
 * Context: under sframe_files_lock.
 *
 * Return: whether it was (the list's reference is then the caller's).
 */
bool sframe_file_unidle(struct sframe_file *sf)
{
	lockdep_assert_held(&sframe_files_lock);
	if (list_empty(&sf->idle))
		return false;
	list_del_init(&sf->idle);
	atomic_long_dec(&sframe_nr_idle);
	return true;
}

/* Take @sf out of the hash and the idle list.  Under sframe_files_lock. */
static void sframe_file_unhash(struct sframe_file *sf)
{
	hash_del(&sf->node);
	sframe_file_unidle(sf);
}

/*
 * Free an entry no one can find or use any more, with its sidecar if it
 * has one: only a sidecar loaded while mapped can still be there.
 */
static void sframe_file_reclaim(struct sframe_file *sf)
{
	atomic_long_dec(&sframe_nr_files);
	sframe_count(files_reclaimed);
	if (rcu_access_pointer(sf->sidecar))
		sframe_count(sidecars_released);
	sframe_file_free(sf);
}

/*
 * Is @sf worth keeping once unused: a read that completed (a transient
 * failure is read again anyway)?  Under sframe_files_lock.
 */
static bool sframe_file_keeps(const struct sframe_file *sf)
{
	return READ_ONCE(sframe_idle_seconds) && !sframe_files_closing &&
	       !sf->loading && rcu_access_pointer(sf->obj);
}

/**
 * sframe_file_put() - drop a reference to a file entry
 * @sf: the entry
 *
 * Drop a reference.  The last one puts the entry on the idle list, which
 * takes it over, or reclaims it.  Whoever held the last reference was a
 * map freed after a grace period, a load, the sidecar ioctl or a pinned
 * sidecar already withdrawn after one: no walk can still see the entry,
 * nor the sidecar it may still have.
 *
 * Context: process context.
 */
void sframe_file_put(struct sframe_file *sf)
{
	if (!refcount_dec_and_lock(&sf->ref, &sframe_files_lock))
		return;
	if (sframe_file_keeps(sf)) {
		refcount_set(&sf->ref, 1);
		sf->idle_since = jiffies;
		list_add_tail(&sf->idle, &sframe_idle);
		atomic_long_inc(&sframe_nr_idle);
		spin_unlock(&sframe_files_lock);
		queue_delayed_work(sframe_wq, &sframe_reap_work,
				   READ_ONCE(sframe_idle_seconds) * HZ);
		return;
	}
	sframe_file_unhash(sf);
	spin_unlock(&sframe_files_lock);
	sframe_file_reclaim(sf);
}

/*
 * Reclaim idle entries: those idle for @age jiffies or more, and of the
 * rest the oldest @count charged to @uid (any user if invalid); an @age
 * of SFRAME_IDLE_NEVER_OLD makes every one "the rest".  Returns how many
 * went.  Process context.
 */
static unsigned long sframe_files_reclaim_idle(unsigned long age,
					       kuid_t uid,
					       unsigned long count)
{
	struct sframe_file *sf, *next;
	unsigned long n = 0;
	LIST_HEAD(dead);

	spin_lock(&sframe_files_lock);
	list_for_each_entry_safe(sf, next, &sframe_idle, idle) {
		if (time_before(jiffies, sf->idle_since + age)) {
			if (!count)
				break;
			if (uid_valid(uid) && !uid_eq(sf->load_owner, uid))
				continue;
			count--;
		}
		sframe_file_unhash(sf);
		list_add(&sf->idle, &dead);
	}
	spin_unlock(&sframe_files_lock);
	list_for_each_entry_safe(sf, next, &dead, idle) {
		sframe_file_reclaim(sf);
		n++;
	}
	return n;
}

static void sframe_files_reap(struct work_struct *work)
{
	unsigned long age = READ_ONCE(sframe_idle_seconds) * HZ;

	sframe_files_reclaim_idle(age, INVALID_UID, 0);
	if (atomic_long_read(&sframe_nr_idle))
		queue_delayed_work(sframe_wq, &sframe_reap_work, age / 2 + 1);
}

/*
 * The budget's reclaimer (budget.c): a charge for @uid (any user if
 * invalid) was refused, give back its oldest idle entry.  Whether there
 * was one.
 */
static bool sframe_files_shrink(kuid_t uid)
{
	return sframe_files_reclaim_idle(SFRAME_IDLE_NEVER_OLD, uid, 1);
}

/**
 * sframe_files_reclaim_oldest() - give back the oldest idle entries
 * @count: how many at most
 *
 * The shrinker's (shrink.c): give back the oldest @count idle entries.
 *
 * Context: process context.
 *
 * Return: how many were freed.
 */
unsigned long sframe_files_reclaim_oldest(unsigned long count)
{
	return sframe_files_reclaim_idle(SFRAME_IDLE_NEVER_OLD, INVALID_UID,
					 count);
}

/**
 * sframe_file_hold() - take another reference to a file entry
 * @sf: the entry, on which the caller already holds a reference
 */
void sframe_file_hold(struct sframe_file *sf)
{
	refcount_inc(&sf->ref);
}

static void sframe_file_load_work(struct work_struct *work)
{
	struct sframe_file *sf = container_of(work, struct sframe_file,
					      load_work);
	struct sframe_load_result res;
	struct sframe_file *next;
	struct mem_cgroup *memcg;
	unsigned int gen;
	kuid_t owner;

	memcg = sframe_set_active_memcg(sf->load_memcg);
	sframe_load_file(sf->load_file, sf->path, sf->load_owner, &res);
	sframe_set_active_memcg(memcg);
	fput(sf->load_file);
	mem_cgroup_put(sf->load_memcg);

	spin_lock(&sframe_files_lock);
	if (res.obj && !rcu_access_pointer(sf->obj))
		rcu_assign_pointer(sf->obj, res.obj);
	else
		sframe_object_free(res.obj);
	WRITE_ONCE(sf->status, res.status);
	if (res.transient)
		sf->retry_at = jiffies + SFRAME_RETRY_SECONDS * HZ;
	sf->refused_owner = res.over_quota ? sf->load_owner : INVALID_UID;
	owner = sf->load_owner;	/* the next load's may differ */
	next = sframe_load_done(sf);
	if (next)
		queue_work(sframe_wq, &next->load_work);
	sf->load_file = NULL;
	sf->loading = false;
	sf->reportable = res.needs_sidecar != NULL;
	sf->report_flags = res.report_flags;
	spin_unlock(&sframe_files_lock);
	/* loading's store before wake_up_var() looks for waiters (bind.c) */
	smp_mb();
	wake_up_var(&sf->loading);
	if (res.needs_sidecar) {
		gen = 0;
		if (!rcu_access_pointer(sf->sidecar))
			gen = sframe_events_need_sidecar(res.needs_sidecar,
							 res.report_flags,
							 owner);
		fput(res.needs_sidecar);
		spin_lock(&sframe_files_lock);
		sf->reported_gen = gen;
		spin_unlock(&sframe_files_lock);
	}
	sframe_file_put(sf);
}

/*
 * Queue a read of @sf through @file, charged to @owner and to @mm's
 * memory cgroup; or, when @owner has as many running as admit.c lets
 * him, put it in his queue, from which his next load to end queues it.
 */
static void sframe_file_queue_load(struct sframe_file *sf, struct file *file,
				   struct mm_struct *mm, kuid_t owner)
{
	lockdep_assert_held(&sframe_files_lock);
	sf->loading = true;
	sf->load_owner = owner;
	sf->load_file = get_file(file);
	sf->load_memcg = get_mem_cgroup_from_mm(mm);
	refcount_inc(&sf->ref);
	if (sframe_load_admit(sf))
		queue_work(sframe_wq, &sf->load_work);
}

/*
 * Does @sf want a (new) read for @owner's mapping: never read, a transient
 * failure aged, or refused by another user's quota (not @owner's to bear)?
 */
static bool sframe_file_wants_load(const struct sframe_file *sf, kuid_t owner)
{
	if (sf->loading || rcu_access_pointer(sf->obj))
		return false;
	return time_after_eq(jiffies, sf->retry_at) ||
	       (uid_valid(sf->refused_owner) &&
		!uid_eq(sf->refused_owner, owner));
}

static struct sframe_file *sframe_file_new(struct file *file,
					   const struct sframe_file_id *id,
					   kuid_t owner)
{
	struct sframe_file *sf;
	char *path;

	path = sframe_path_dup(file);
	if (!path)
		return NULL;
	sf = kzalloc(sizeof(*sf), GFP_KERNEL_ACCOUNT);
	if (!sf) {
		kfree(path);
		return NULL;
	}
	sf->charge.uid = owner;
	sf->load_owner = owner;
	sf->refused_owner = INVALID_UID;
	if (sframe_charge(&sf->charge, sizeof(*sf) + strlen(path) + 1 +
			  sizeof(struct sframe_object), GFP_KERNEL)) {
		kfree(path);
		kfree(sf);
		return NULL;
	}
	sf->path = path;
	refcount_set(&sf->ref, 1);
	sf->id = *id;
	sf->status = "loading";
	sf->retry_at = jiffies;
	INIT_LIST_HEAD(&sf->idle);
	INIT_LIST_HEAD(&sf->load_wait);
	INIT_WORK(&sf->load_work, sframe_file_load_work);
	return sf;
}

/**
 * sframe_file_get() - a reference to a file's entry, made if need be
 * @file: the mapped file
 * @owner: whom a new entry, and a read, is charged to
 * @mm: whose memory cgroup a read is charged to
 *
 * A reference to @file's entry, created (and its read queued) on first
 * sight and charged to @owner.  An existing entry is read again if it
 * wants to be (never read, a transient failure aged, or refused by
 * another user's quota); an idle one hands over the idle list's
 * reference.
 *
 * Context: process context; does no I/O.
 *
 * Return: a reference to the entry, for sframe_file_put(); NULL when it
 * cannot be made (no memory, over a limit: counted).
 */
struct sframe_file *sframe_file_get(struct file *file, kuid_t owner,
				    struct mm_struct *mm)
{
	struct sframe_file *sf, *fresh = NULL;
	struct sframe_file_id now;

	sframe_file_id_set(&now, sframe_real_inode(file));
	for (;;) {
		spin_lock(&sframe_files_lock);
		sf = sframe_file_find(&now);
		if (sf) {
			/* An idle entry hands over the list's reference. */
			if (!sframe_file_unidle(sf))
				refcount_inc(&sf->ref);
			if (sframe_file_wants_load(sf, owner))
				sframe_file_queue_load(sf, file, mm, owner);
			else if (sf->loading && sframe_load_claim(sf, owner))
				queue_work(sframe_wq, &sf->load_work);
		} else if (fresh) {
			sf = fresh;
			fresh = NULL;
			hash_add(sframe_files, &sf->node, sframe_file_key(&now));
			atomic_long_inc(&sframe_nr_files);
			sframe_file_queue_load(sf, file, mm, owner);
		}
		spin_unlock(&sframe_files_lock);
		if (sf)
			break;
		fresh = sframe_file_new(file, &now, owner);
		if (!fresh) {
			sframe_count(files_refused);
			return NULL;
		}
	}
	if (fresh)
		sframe_file_free(fresh);
	return sf;
}

/**
 * sframe_file_get_known() - a reference to a file's entry, if it has one
 * @file: the mapped file
 *
 * A reference to @file's entry if it has one already; never creates one,
 * reads or charges.  For the mapping hooks.  A stacking filesystem's
 * d_real() may sleep, so its files are left to the rescan (a mapping of
 * one is its layer's file anyway).
 *
 * Context: process context, atomic allowed.
 *
 * Return: a reference to the entry, for sframe_file_put(); NULL if @file
 * has no entry or is on a stacking filesystem.
 */
struct sframe_file *sframe_file_get_known(struct file *file)
{
	struct dentry *dentry = file->f_path.dentry;
	struct sframe_file_id now;
	struct sframe_file *sf;

	if (dentry->d_flags & DCACHE_OP_REAL)
		return NULL;
	sframe_file_id_set(&now, d_inode(dentry));
	spin_lock(&sframe_files_lock);
	sf = sframe_file_find(&now);
	/* An idle entry hands over the list's reference. */
	if (sf && !sframe_file_unidle(sf))
		refcount_inc(&sf->ref);
	spin_unlock(&sframe_files_lock);
	return sf;
}

/**
 * sframe_file_sec() - the section a walk uses for a file
 * @sf: the file's entry
 * @fill: set to the section filling the gaps of the returned one, or NULL
 * @obj: set to the object the sections are in, or NULL if none was read
 *
 * A sidecar replaces the file's own section, unless it only fills its
 * gaps: then the file's own is used, and the sidecar in *@fill.
 *
 * Context: under rcu_read_lock(); the sections stay while it is held.
 *
 * Return: the section, or NULL if @sf has none (not read yet, or no
 * usable section and no sidecar).
 */
const struct sframe_sec *sframe_file_sec(const struct sframe_file *sf,
					 const struct sframe_sec **fill,
					 const struct sframe_object **obj)
{
	const struct sframe_sec *s = rcu_dereference(sf->sidecar);
	const struct sframe_sec *own;

	*obj = rcu_dereference(sf->obj);
	own = *obj ? (*obj)->embedded : NULL;
	*fill = NULL;
	if (s && s->fills_gaps && own) {
		*fill = s;
		return own;
	}
	return s ?: own;
}

/**
 * sframe_file_take_sidecar() - take an entry's sidecar out of it
 * @sf: the entry
 * @ref: set to whether the sidecar's reference on the entry is now the
 *	caller's to put (it was pinned)
 *
 * After the unlock an unpinned sidecar's entry may go at any time.
 *
 * Context: under sframe_files_lock.
 *
 * Return: the sidecar, NULL if @sf had none; the caller frees it once no
 * walk can be using it.
 */
struct sframe_sec *sframe_file_take_sidecar(struct sframe_file *sf,
					    bool *ref)
{
	lockdep_assert_held(&sframe_files_lock);
	*ref = sf->sidecar_pinned;
	sf->sidecar_pinned = false;
	return rcu_replace_pointer(sf->sidecar, NULL,
				   lockdep_is_held(&sframe_files_lock));
}

/* ---- debugfs and /dev views ---- */

/**
 * sframe_files_cached() - how many file entries there are
 *
 * Return: the number of entries, idle ones included.
 */
long sframe_files_cached(void)
{
	return atomic_long_read(&sframe_nr_files);
}

/**
 * sframe_files_idle() - how many file entries are idle
 *
 * Return: the number of entries on the idle list.
 */
long sframe_files_idle(void)
{
	return atomic_long_read(&sframe_nr_idle);
}

static const struct sframe_sec *sframe_file_sidecar(struct sframe_file *sf)
{
	return rcu_dereference_protected(sf->sidecar,
					 lockdep_is_held(&sframe_files_lock));
}

/* How long @sf's sidecar stays, for the views.  Under sframe_files_lock. */
static const char *sframe_file_sidecar_lasts(const struct sframe_file *sf)
{
	return sf->sidecar_pinned ? "" : ", while mapped";
}

/**
 * sframe_cache_show_files() - show every file entry
 * @s: the file being shown
 *
 * One line per entry: its path, the status of its last read and the bytes
 * it holds; its sidecar, if it has one; how long it has been idle, if it
 * is.
 *
 * Return: 0.
 */
int sframe_cache_show_files(struct seq_file *s)
{
	const struct sframe_object *obj;
	const struct sframe_sec *side;
	struct sframe_file *sf;
	unsigned int bkt;

	spin_lock(&sframe_files_lock);
	hash_for_each(sframe_files, bkt, sf, node) {
		side = sframe_file_sidecar(sf);
		obj = rcu_dereference_protected(sf->obj, true);
		seq_printf(s, "%s: %s, %zu bytes", sf->path,
			   READ_ONCE(sf->status), sf->charge.bytes +
			   (obj && obj->embedded ? obj->embedded->charge.bytes : 0));
		if (side)
			seq_printf(s, "; sidecar%s v%u, %u FDEs, %zu bytes%s, uid %u",
				   side->fills_gaps ? " filling gaps" : "",
				   side->sec.version, side->sec.num_fdes,
				   side->charge.bytes,
				   sframe_file_sidecar_lasts(sf),
				   from_kuid(&init_user_ns, side->charge.uid));
		if (!list_empty(&sf->idle))
			seq_printf(s, "; idle %lu s",
				   (jiffies - sf->idle_since) / HZ);
		seq_putc(s, '\n');
	}
	spin_unlock(&sframe_files_lock);
	return 0;
}

/**
 * sframe_cache_show_sidecars() - show every sidecar
 * @s: the file being shown
 *
 * One line per sidecar, then the total.
 *
 * Return: 0.
 */
int sframe_cache_show_sidecars(struct seq_file *s)
{
	const struct sframe_sec *side;
	struct sframe_file *sf;
	unsigned int bkt, n = 0;
	size_t total = 0;

	spin_lock(&sframe_files_lock);
	hash_for_each(sframe_files, bkt, sf, node) {
		side = sframe_file_sidecar(sf);
		if (!side)
			continue;
		seq_printf(s, "%s: v%u, %u FDEs, %u FREs, %zu bytes%s\n",
			   sf->path, side->sec.version, side->sec.num_fdes,
			   side->sec.num_fres, side->charge.bytes,
			   sframe_file_sidecar_lasts(sf));
		n++;
		total += side->charge.bytes;
	}
	spin_unlock(&sframe_files_lock);
	seq_printf(s, "total: %u sidecars, %zu bytes\n", n, total);
	return 0;
}

/* ---- setup and teardown ---- */

/**
 * sframe_files_init() - set up the file entries
 *
 * Make the cache's work queue, on which loads run, and register the idle
 * entries as what the budget reclaims.
 *
 * Return: 0, or -ENOMEM if the work queue could not be made.
 */
int sframe_files_init(void)
{
	sframe_wq = alloc_workqueue("sframe_unwind", WQ_UNBOUND, 0);
	if (!sframe_wq)
		return -ENOMEM;
	sframe_budget_set_reclaim(sframe_files_shrink);
	return 0;
}

/* Withdraw one sidecar, if any is left; whether it did. */
static bool sframe_files_drop_one_sidecar(void)
{
	struct sframe_sec *side = NULL;
	struct sframe_file *sf;
	unsigned int bkt;
	bool ref = false;

	spin_lock(&sframe_files_lock);
	hash_for_each(sframe_files, bkt, sf, node) {
		side = sframe_file_take_sidecar(sf, &ref);
		if (side)
			break;
	}
	spin_unlock(&sframe_files_lock);
	if (!side)
		return false;
	sframe_sec_free(side);
	if (ref)
		sframe_file_put(sf);
	return true;
}

/**
 * sframe_files_exit() - tear down the file entries
 *
 * After the maps are gone and no walk can be running: withdraw the
 * sidecars, let the loads in flight finish, and the entries go with
 * their last references, the idle list's included.
 */
void sframe_files_exit(void)
{
	bool idle;

	spin_lock(&sframe_files_lock);
	sframe_files_closing = true;
	spin_unlock(&sframe_files_lock);
	while (sframe_files_drop_one_sidecar())
		;
	/*
	 * A load that ends queues its owner's next: flush until none was
	 * left before a flush (one handed over during a flush may still run
	 * after it).
	 */
	do {
		idle = sframe_loads_idle();
		flush_workqueue(sframe_wq);
	} while (!idle);
	cancel_delayed_work_sync(&sframe_reap_work);
	sframe_files_reclaim_idle(0, INVALID_UID, 0);
	WARN_ON_ONCE(atomic_long_read(&sframe_nr_files));
	destroy_workqueue(sframe_wq);
	sframe_budget_set_reclaim(NULL);
}
