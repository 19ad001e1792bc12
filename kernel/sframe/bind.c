// SPDX-License-Identifier: GPL-2.0
/*
 * A file entry's sidecar: checked against the code of the file it was
 * made for, bound to the file's entry (replacing the one it had once no
 * walk can be using that), withdrawn, asked for; for the sidecar ioctls
 * (sidecar.c), in the supplier's process context.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait_bit.h>

#include "cache.h"

/*
 * @sf's object: the one a queued load publishes (waited for, killably: a
 * load stuck on a device would otherwise make its supplier unkillable),
 * else read now in the caller's context.  For the sidecar ioctl: the
 * supplier's process, which may wait; a load never waits on a filesystem
 * a user controls.
 */
static const struct sframe_object *sframe_file_object(struct sframe_file *sf,
						      struct file *file,
						      int *err)
{
	struct sframe_load_result res;
	const struct sframe_object *obj;

	/* The read sframe_file_get() may have queued: not a second one. */
	if (wait_var_event_killable(&sf->loading, !READ_ONCE(sf->loading))) {
		*err = -EINTR;
		return NULL;
	}
	obj = rcu_access_pointer(sf->obj);
	if (obj)
		return obj;
	sframe_load_file(file, sf->path, READ_ONCE(sf->load_owner), &res);
	if (res.needs_sidecar)
		fput(res.needs_sidecar);	/* one is being loaded */
	if (!res.obj) {
		*err = -EAGAIN;
		return NULL;
	}
	spin_lock(&sframe_files_lock);
	if (!rcu_access_pointer(sf->obj)) {
		rcu_assign_pointer(sf->obj, res.obj);
		WRITE_ONCE(sf->status, res.status);
		res.obj = NULL;
	}
	obj = rcu_dereference_protected(sf->obj,
					lockdep_is_held(&sframe_files_lock));
	spin_unlock(&sframe_files_lock);
	sframe_object_free(res.obj);
	return obj;
}

/* Does every function of @s lie in an executable segment of @obj? */
static bool sframe_sec_fits(const struct sframe_object *obj,
			    const struct sframe_sec *s, u32 *bad)
{
	struct sframe_span code[SFRAME_MAX_LOADS];
	unsigned int i;

	for (i = 0; i < obj->nr_loads; i++)
		code[i] = (struct sframe_span){
			.start = obj->loads[i].vaddr,
			.size = obj->loads[i].filesz,
		};
	return !sframe_fdes_within(&s->sec, code, obj->nr_loads, bad);
}

static int sframe_sidecar_check(struct sframe_file *sf,
				const struct sframe_object *obj,
				const struct sframe_sec *s,
				const u8 *build_id, u32 build_id_size)
{
	u32 bad;

	if (!obj->nr_loads) {
		pr_warn_ratelimited("%s: sidecar rejected: not an ELF object of this machine with code\n",
				    sf->path);
		return -ENOEXEC;
	}
	if (build_id && (build_id_size != obj->build_id_size ||
			 memcmp(build_id, obj->build_id, build_id_size))) {
		pr_warn_ratelimited("%s: sidecar rejected: made for another build ID\n",
				    sf->path);
		return -ESTALE;
	}
	if (!sframe_sec_fits(obj, s, &bad)) {
		pr_warn_ratelimited("%s: sidecar rejected: FDE %u is outside the file's code\n",
				    sf->path, bad);
		return -EINVAL;
	}
	return 0;
}

/**
 * sframe_cache_set_sidecar() - bind a sidecar to a file's entry
 * @file: the ELF object @s was made for
 * @sf: the entry sframe_cache_sidecar_entry() gave, or NULL for a pinned
 *	sidecar (root's load)
 * @s: the sidecar's validated section
 * @build_id: the build ID @file must have, or NULL
 * @build_id_size: @build_id's length in bytes
 *
 * Make @s the sidecar of @file, which must be the ELF object it was made
 * for (and have the build ID @build_id, if given); the sidecar it
 * replaces is freed once no walk can be using it.  A pinned sidecar (@sf
 * NULL: root's load) holds a reference on its file's entry, made if need
 * be, so both stay until it is unloaded.  One loaded while mapped is
 * bound to @sf, the entry sframe_cache_sidecar_entry() gave (its
 * reference is put here), goes with it once no map uses the file (and
 * idle_seconds have passed), and cannot replace a pinned one (-EEXIST).
 * On success @s belongs to the cache, on failure it stays the caller's.
 *
 * Context: process context, the supplier's; may wait (killably) for a
 * queued read of @file, read it, and wait for an RCU grace period.
 *
 * Return: 0; -EINTR if a fatal signal ended the wait for a queued read;
 * -ENOMEM if a pinned sidecar's entry could not be made (no
 * memory, or over a limit); -EAGAIN if @file could not be read now (a
 * transient failure); -ENOEXEC if it is not an ELF object of this machine
 * with code; -ESTALE if its build ID is not @build_id; -EINVAL if a
 * function of @s lies outside the file's executable segments; -EEXIST if
 * @sf has a pinned sidecar that one loaded while mapped may not replace.
 */
int sframe_cache_set_sidecar(struct file *file, struct sframe_file *sf,
			     struct sframe_sec *s, const u8 *build_id,
			     u32 build_id_size)
{
	const struct sframe_object *obj;
	bool keep_ref, pinned = !sf;
	struct sframe_sec *old;
	int ret = 0;

	if (pinned)
		sf = sframe_file_get(file, GLOBAL_ROOT_UID, current->mm);
	if (!sf)
		return -ENOMEM;
	obj = sframe_file_object(sf, file, &ret);
	if (obj)
		ret = sframe_sidecar_check(sf, obj, s, build_id, build_id_size);
	if (!ret)
		sframe_sec_drop_bytes(s);
	spin_lock(&sframe_files_lock);
	if (!ret && !pinned && sf->sidecar_pinned)
		ret = -EEXIST;
	if (ret) {
		spin_unlock(&sframe_files_lock);
		sframe_file_put(sf);
		return ret;
	}
	old = rcu_replace_pointer(sf->sidecar, s,
				  lockdep_is_held(&sframe_files_lock));
	/* Ours becomes the sidecar's, unless the old one's already is. */
	keep_ref = pinned && !sf->sidecar_pinned;
	sf->sidecar_pinned = pinned;
	spin_unlock(&sframe_files_lock);
	if (old) {
		synchronize_rcu();
		sframe_sec_free(old);
	}
	if (!keep_ref)
		sframe_file_put(sf);
	return 0;
}

/**
 * sframe_cache_clear_sidecar() - withdraw a file's sidecar
 * @file: the file
 *
 * The sidecar is freed once no walk can be using it; a pinned one's
 * reference on the entry is put.
 *
 * Context: process context; waits for an RCU grace period.
 *
 * Return: 0, or -ENOENT if @file has no entry or its entry no sidecar.
 */
int sframe_cache_clear_sidecar(struct file *file)
{
	struct sframe_sec *old = NULL;
	struct sframe_file_id now;
	struct sframe_file *sf;
	bool ref = false;

	sframe_file_id_set(&now, sframe_real_inode(file));
	spin_lock(&sframe_files_lock);
	sf = sframe_file_find(&now);
	if (sf)
		old = sframe_file_take_sidecar(sf, &ref);
	spin_unlock(&sframe_files_lock);
	if (!old)
		return -ENOENT;
	synchronize_rcu();
	sframe_sec_free(old);
	if (ref)
		sframe_file_put(sf);
	return 0;
}

/**
 * sframe_cache_sidecar_entry() - the entry a mapped file's sidecar binds to
 * @file: the file the sidecar is for
 * @owner: set to whom the sidecar is charged, when there is an entry
 *
 * For a sidecar of @file loaded while mapped: a reference to the file's
 * entry as it is now, and in *@owner whom the sidecar is charged to, the
 * user the entry's last read was charged to (one who mapped it).  An idle
 * entry is taken off the idle list, whose reference becomes the caller's.
 *
 * Return: a reference to @file's entry, for sframe_cache_set_sidecar() to
 * put; NULL when @file has no entry (no longer mapped, or changed since it
 * was reported): such a load binds nothing, and never makes an entry, so
 * that it cannot be charged to root in its place.
 */
struct sframe_file *sframe_cache_sidecar_entry(struct file *file,
					       kuid_t *owner)
{
	struct sframe_file_id now;
	struct sframe_file *sf;

	sframe_file_id_set(&now, sframe_real_inode(file));
	spin_lock(&sframe_files_lock);
	sf = sframe_file_find(&now);
	if (sf) {
		/* An idle entry hands over the list's reference. */
		if (!sframe_file_unidle(sf))
			refcount_inc(&sf->ref);
		*owner = sf->load_owner;
	}
	spin_unlock(&sframe_files_lock);
	return sf;
}

/**
 * sframe_cache_has_sidecar() - whether a file has a sidecar now
 * @file: the file
 *
 * Return: true if @file's entry exists and has a sidecar, pinned or
 * loaded while mapped; false otherwise.
 */
bool sframe_cache_has_sidecar(struct file *file)
{
	struct sframe_file_id now;
	struct sframe_file *sf;
	bool has;

	sframe_file_id_set(&now, sframe_real_inode(file));
	spin_lock(&sframe_files_lock);
	sf = sframe_file_find(&now);
	has = sf && rcu_access_pointer(sf->sidecar);
	spin_unlock(&sframe_files_lock);
	return has;
}
