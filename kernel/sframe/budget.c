// SPDX-License-Identifier: GPL-2.0
/*
 * The cache's memory budget: every byte the cache holds is charged here
 * before it is allocated, to the module's total (max_cache_mb) and to the
 * user on whose behalf it is held (max_user_mb; root is bound by the total
 * only; a user's subordinate uids are his: sframe_charge_owner()).
 * Before refusing a charge it asks the reclaimer the cache
 * registers (files.c: idle file entries) for room; a refused charge is
 * the caller's to report.
 */
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>

#include "cache.h"

#define SFRAME_USER_HASH_BITS	6

unsigned int sframe_max_cache_mb = 256;
unsigned int sframe_max_user_mb = 64;

/* A user's charge; exists while it is not zero. */
struct sframe_user {
	struct hlist_node node;
	kuid_t uid;
	size_t bytes;
};

static DEFINE_HASHTABLE(sframe_users, SFRAME_USER_HASH_BITS);
static DEFINE_SPINLOCK(sframe_budget_lock);
static size_t sframe_total;

/*
 * What gives back memory for a refused charge, the charging user's (any
 * user's if invalid); whether anything went.  Called in process context
 * without sframe_budget_lock.  NULL before the cache's init and after its
 * exit.
 */
static bool (*sframe_budget_reclaim)(kuid_t uid);

static struct sframe_user *sframe_user_find(kuid_t uid)
{
	struct sframe_user *u;

	hash_for_each_possible(sframe_users, u, node, __kuid_val(uid)) {
		if (uid_eq(u->uid, uid))
			return u;
	}
	return NULL;
}

/*
 * Add @bytes to @c: 0, -ENOSPC past max_cache_mb, -EDQUOT past the user's
 * max_user_mb, -ENOMEM.  Nothing is added on failure.
 */
static int sframe_charge_once(struct sframe_charge *c, size_t bytes, gfp_t gfp)
{
	size_t max = (size_t)READ_ONCE(sframe_max_cache_mb) << 20;
	size_t user_max = (size_t)READ_ONCE(sframe_max_user_mb) << 20;
	bool exempt = uid_eq(c->uid, GLOBAL_ROOT_UID);
	struct sframe_user *u, *fresh = NULL;
	int ret = 0;

	if (!exempt)
		fresh = kzalloc(sizeof(*fresh), gfp);
	spin_lock(&sframe_budget_lock);
	if (sframe_total + bytes > max) {
		ret = -ENOSPC;
		goto out;
	}
	if (!exempt) {
		u = sframe_user_find(c->uid);
		if (!u && !fresh) {
			ret = -ENOMEM;
			goto out;
		}
		if (!u) {
			u = fresh;
			fresh = NULL;
			u->uid = c->uid;
			hash_add(sframe_users, &u->node, __kuid_val(c->uid));
		}
		if (u->bytes + bytes > user_max) {
			ret = -EDQUOT;
			if (!u->bytes) {
				hash_del(&u->node);
				fresh = u;
			}
			goto out;
		}
		u->bytes += bytes;
	}
	sframe_total += bytes;
	c->bytes += bytes;
out:
	spin_unlock(&sframe_budget_lock);
	kfree(fresh);
	return ret;
}

/**
 * sframe_task_charge_owner() - whom the cache charges for what a task maps
 * @task: the task
 *
 * sframe_charge_owner() of @task's credentials, read under RCU.
 *
 * Return: the uid charged for what @task maps.
 */
kuid_t sframe_task_charge_owner(struct task_struct *task)
{
	kuid_t owner;

	rcu_read_lock();
	owner = sframe_charge_owner(__task_cred(task));
	rcu_read_unlock();
	return owner;
}

/**
 * sframe_budget_set_reclaim() - set what sframe_charge() reclaims with
 * @reclaim: gives back memory for a refused charge of a uid (any user's if
 *	invalid), and says whether anything went; NULL to clear
 *
 * Set, or with NULL clear, what sframe_charge() reclaims with.
 */
void sframe_budget_set_reclaim(bool (*reclaim)(kuid_t uid))
{
	WRITE_ONCE(sframe_budget_reclaim, reclaim);
}

/**
 * sframe_charge() - charge bytes to the budget
 * @c: the charge, whose uid is the user charged
 * @bytes: how many bytes to add
 * @gfp: for the user's record, if this is the user's first charge
 *
 * Charge @bytes to @c, making room through the reclaimer (the user's own
 * when over max_user_mb, anyone's when over max_cache_mb) if need be.
 * Root is bound by max_cache_mb only.  Nothing is added on failure.
 *
 * Context: process context, no cache lock held.
 *
 * Return: 0; -ENOSPC past max_cache_mb, -EDQUOT past the user's
 * max_user_mb, when the reclaimer found nothing more to give back; -ENOMEM
 * if the user's record could not be allocated.
 */
int sframe_charge(struct sframe_charge *c, size_t bytes, gfp_t gfp)
{
	bool (*reclaim)(kuid_t uid) = READ_ONCE(sframe_budget_reclaim);
	int ret;

	for (;;) {
		ret = sframe_charge_once(c, bytes, gfp);
		if (!reclaim)
			return ret;
		if (ret == -EDQUOT && reclaim(c->uid))
			continue;
		if (ret == -ENOSPC && reclaim(INVALID_UID))
			continue;
		return ret;
	}
}

/**
 * sframe_uncharge_bytes() - give back part of a charge
 * @c: the charge
 * @bytes: how many of the bytes @c holds to give back (at most all of
 *	them: more warns, and gives back what @c holds)
 *
 * Give back @bytes of what @c holds.
 */
void sframe_uncharge_bytes(struct sframe_charge *c, size_t bytes)
{
	struct sframe_user *u = NULL;

	if (WARN_ON_ONCE(bytes > c->bytes))
		bytes = c->bytes;
	if (!bytes)
		return;
	spin_lock(&sframe_budget_lock);
	sframe_total -= bytes;
	if (!uid_eq(c->uid, GLOBAL_ROOT_UID)) {
		u = sframe_user_find(c->uid);
		if (!WARN_ON_ONCE(!u || u->bytes < bytes))
			u->bytes -= bytes;
		if (u && !u->bytes)
			hash_del(&u->node);
		else
			u = NULL;
	}
	spin_unlock(&sframe_budget_lock);
	kfree(u);
	c->bytes -= bytes;
}

/**
 * sframe_uncharge() - give back a whole charge
 * @c: the charge
 *
 * Give back everything @c holds.
 */
void sframe_uncharge(struct sframe_charge *c)
{
	sframe_uncharge_bytes(c, c->bytes);
}

/**
 * sframe_charged_total() - the bytes charged to the module's total
 *
 * Return: how many bytes the cache holds now, over all users, as charged
 * against max_cache_mb.
 */
size_t sframe_charged_total(void)
{
	return READ_ONCE(sframe_total);
}

/**
 * sframe_budget_exit() - check that nothing is charged any more
 *
 * Everything has been uncharged by now; say so if not.
 */
void sframe_budget_exit(void)
{
	WARN_ON_ONCE(sframe_total);
}
