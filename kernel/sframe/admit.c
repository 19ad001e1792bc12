// SPDX-License-Identifier: GPL-2.0
/*
 * File reads admitted per owner: at most SFRAME_LOADS_PER_OWNER of an
 * owner's loads run on the work queue at once; the rest wait in that
 * owner's queue, in order, and start as his running ones end.  A read may
 * wait for ever on storage its mapper controls (design.rst: a stacked
 * device over a loop device), so a user holds that many workers at most
 * and never delays another owner's reads behind his: a waiting load
 * another owner asks for becomes his.  The owners' records and queues
 * are under sframe_admit_lock, taken inside the caller's lock on the
 * entry (files.c), which keeps its loading state and load_owner.
 */
#include <linux/hashtable.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "cache.h"

#define SFRAME_LOAD_OWNER_BITS	6

/* An owner with loads running or waiting; exists while it has any. */
struct sframe_load_owner {
	struct hlist_node node;
	kuid_t uid;
	unsigned int running;
	struct list_head waiting;	/* struct sframe_file.load_wait */
};

static DEFINE_HASHTABLE(sframe_load_owners, SFRAME_LOAD_OWNER_BITS);
static DEFINE_SPINLOCK(sframe_admit_lock);

static struct sframe_load_owner *sframe_load_owner_find(kuid_t uid)
{
	struct sframe_load_owner *o;

	lockdep_assert_held(&sframe_admit_lock);
	hash_for_each_possible(sframe_load_owners, o, node, __kuid_val(uid)) {
		if (uid_eq(o->uid, uid))
			return o;
	}
	return NULL;
}

/* sframe_load_admit(), under sframe_admit_lock. */
static bool sframe_load_admit_locked(struct sframe_file *sf)
{
	struct sframe_load_owner *o;

	sf->load_admitted = false;
	o = sframe_load_owner_find(sf->load_owner);
	if (!o) {
		o = kzalloc(sizeof(*o), GFP_ATOMIC | __GFP_NOWARN);
		if (!o)
			return true;
		o->uid = sf->load_owner;
		INIT_LIST_HEAD(&o->waiting);
		hash_add(sframe_load_owners, &o->node, __kuid_val(o->uid));
	}
	sf->load_admitted = true;
	if (o->running < SFRAME_LOADS_PER_OWNER) {
		o->running++;
		return true;
	}
	list_add_tail(&sf->load_wait, &o->waiting);
	sframe_count(loads_waited);
	return false;
}

/**
 * sframe_load_admit() - may a file's load start now?
 * @sf: the entry, loading, with its load_owner set
 *
 * A load that cannot be counted (no memory for its owner's record) starts
 * at once, as every load did without admission.
 *
 * Context: under the caller's lock on @sf (files.c).
 *
 * Return: true if the caller queues @sf's load now; false if it waits in
 * its owner's queue, for sframe_load_done() to hand over.
 */
bool sframe_load_admit(struct sframe_file *sf)
{
	bool now;

	spin_lock(&sframe_admit_lock);
	now = sframe_load_admit_locked(sf);
	spin_unlock(&sframe_admit_lock);
	return now;
}

/**
 * sframe_load_claim() - let a mapping of @owner's take over a waiting load
 * @sf: the entry, loading
 * @owner: who maps its file now
 *
 * A load that waits in another owner's queue while @owner could run it
 * now becomes @owner's, charged to his budget (the memory cgroup stays
 * the first mapper's): a file that many users map waits behind no one
 * user's stalled reads.  Never into a queue that is full, so that no
 * owner pulls another's load behind his own.
 *
 * Context: under the caller's lock on @sf (files.c).
 *
 * Return: true if the caller queues @sf's load now.
 */
bool sframe_load_claim(struct sframe_file *sf, kuid_t owner)
{
	struct sframe_load_owner *o;
	bool now = false;

	spin_lock(&sframe_admit_lock);
	if (list_empty(&sf->load_wait) || uid_eq(sf->load_owner, owner))
		goto out;
	o = sframe_load_owner_find(owner);
	if (o && o->running >= SFRAME_LOADS_PER_OWNER)
		goto out;
	list_del_init(&sf->load_wait);
	sf->load_owner = owner;
	now = sframe_load_admit_locked(sf);
out:
	spin_unlock(&sframe_admit_lock);
	return now;
}

/**
 * sframe_load_done() - a file's load ended
 * @sf: the entry whose load ended, still loading, its load_owner the
 *	one sframe_load_admit() saw
 *
 * Context: under the caller's lock on @sf (files.c).
 *
 * Return: the next entry of the same owner, which now takes @sf's place
 * and which the caller queues; NULL if none waits.
 */
struct sframe_file *sframe_load_done(struct sframe_file *sf)
{
	struct sframe_load_owner *o;
	struct sframe_file *next = NULL;

	if (!sf->load_admitted)
		return NULL;
	sf->load_admitted = false;
	spin_lock(&sframe_admit_lock);
	o = sframe_load_owner_find(sf->load_owner);
	if (WARN_ON_ONCE(!o))
		goto out;
	next = list_first_entry_or_null(&o->waiting, struct sframe_file,
					load_wait);
	if (next) {
		list_del_init(&next->load_wait);
		goto out;
	}
	if (!--o->running) {
		hash_del(&o->node);
		kfree(o);
	}
out:
	spin_unlock(&sframe_admit_lock);
	return next;
}

/**
 * sframe_loads_idle() - whether no admitted load runs or waits
 *
 * For module exit, which flushes the work queue until it is so: a load
 * that ends queues its owner's next one.
 *
 * Return: true if no owner has a load running or waiting.
 */
bool sframe_loads_idle(void)
{
	bool idle;

	spin_lock(&sframe_admit_lock);
	idle = hash_empty(sframe_load_owners);
	spin_unlock(&sframe_admit_lock);
	return idle;
}
