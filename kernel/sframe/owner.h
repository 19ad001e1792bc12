/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whom the cache charges for what a task maps: one owner per user, and
 * per tenant of a container, however many uids they hold.
 */
#ifndef _SFRAME_OWNER_H
#define _SFRAME_OWNER_H

#include <linux/cred.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>

/*
 * The owner charged for what a task with @cred maps: its uid; inside user
 * namespaces, the uid that created the outermost of them (the one whose
 * parent is the initial namespace), so that the uids a user is given for
 * his containers (subordinate ids, newuidmap) are one user to the
 * budget, not 65536 users each with max_user_mb of its own, and nothing
 * inside can change it.  A namespace root created for a tenant (LXD,
 * Incus, systemd-nspawn -U) is charged to the uid its root maps to, the
 * tenant's base, not to root, whose share is the total; only where its
 * root maps to no uid is each uid its own owner.
 */
static inline kuid_t sframe_charge_owner(const struct cred *cred)
{
	struct user_namespace *ns = cred->user_ns;
	kuid_t root;

	if (ns == &init_user_ns)
		return cred->uid;
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	if (!uid_eq(ns->owner, GLOBAL_ROOT_UID))
		return ns->owner;
	root = make_kuid(ns, 0);
	return uid_valid(root) ? root : cred->uid;
}

#endif /* _SFRAME_OWNER_H */
