// SPDX-License-Identifier: GPL-2.0
/*
 * The vDSO's section: root hands in SFrame made from the running kernel's
 * vDSO (sframectl load --vdso), bound to that image by its build ID, and
 * the walk uses it for every process's vDSO text.  Which image an mm maps
 * and where is the architecture's to say (vdso_text.h).
 *
 * The vDSO has no file mapping, so no file range covers it: without this
 * a walk would step out of it by frame pointers, which x86-64's vDSO code
 * does not keep, and report whatever the caller's RBP points at.  A walk
 * in a vDSO whose extent is known therefore never guesses: it follows the
 * section's rules, or stops there when no section is loaded.  Where only
 * a section tells the extent (arm64, whose vDSO keeps frame records), a
 * walk without one steps by frame records, as the stock walker does.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include <sframe/ioctl.h>
#include "cache.h"
#include "image.h"
#include "vdso.h"
#include "vdso_text.h"

/* The loaded section and the vDSO image it was checked against. */
struct sframe_vdso {
	struct sframe_sec *sec;
	const void *id;			/* the image (vdso_text.h) */
	u64 size;			/* its text's size */
	u64 link_base;			/* where the image was linked */
	u32 build_id_size;
	u8 build_id[SFRAME_BUILD_ID_MAX];
};

static struct sframe_vdso __rcu *sframe_vdso;
static DEFINE_MUTEX(sframe_vdso_lock);	/* serialises set and clear */

static void sframe_vdso_free(struct sframe_vdso *v)
{
	sframe_sec_free(v->sec);
	kfree(v);
}

/*
 * Publish @v (or nothing) and free the one it replaces after a grace
 * period; true if there was one.
 */
static bool sframe_vdso_replace(struct sframe_vdso *v)
{
	struct sframe_vdso *old;

	mutex_lock(&sframe_vdso_lock);
	old = rcu_replace_pointer(sframe_vdso, v,
				  lockdep_is_held(&sframe_vdso_lock));
	mutex_unlock(&sframe_vdso_lock);
	if (!old)
		return false;
	synchronize_rcu();
	sframe_vdso_free(old);
	return true;
}

/*
 * Check @s against the vDSO image in @data, whose NT_GNU_BUILD_ID must be
 * @build_id (-ESTALE if not) and whose code must hold every function of
 * @s (-EINVAL), and fill @v from them.
 */
static int sframe_vdso_check(struct sframe_vdso *v, const struct sframe_sec *s,
			     const void *data, size_t data_size,
			     const u8 *build_id, u32 size)
{
	struct sframe_image img;
	u32 bad;
	int ret;

	ret = sframe_image_parse(data, data_size, &img);
	if (ret) {
		pr_warn_ratelimited("[vdso]: sidecar rejected: the vDSO image is not a 64-bit object with a build ID (%d)\n",
				    ret);
		return ret;
	}
	if (img.build_id_size != size || memcmp(img.build_id, build_id, size)) {
		pr_warn_ratelimited("[vdso]: sidecar rejected: made for another vDSO (build ID %*phN, the kernel's is %*phN)\n",
				    (int)size, build_id, (int)img.build_id_size,
				    img.build_id);
		return -ESTALE;
	}
	if (sframe_fdes_within(&s->sec, &img.code, 1, &bad)) {
		pr_warn_ratelimited("[vdso]: sidecar rejected: FDE %u is outside the vDSO's code\n",
				    bad);
		return -EINVAL;
	}
	v->size = data_size;
	v->link_base = img.link_base;
	v->build_id_size = size;
	memcpy(v->build_id, build_id, size);
	return 0;
}

/**
 * sframe_vdso_set() - load the section of the running kernel's vDSO
 * @s: the section, made from the vDSO image
 * @build_id: the NT_GNU_BUILD_ID the image must have
 * @size: @build_id's length
 *
 * Make @s the section of the running kernel's vDSO, the one the calling
 * task has mapped, whose NT_GNU_BUILD_ID must be @build_id and whose code
 * must hold every function of @s.  A section loaded before is freed once
 * no walk can be using it.  On success @s belongs to the vDSO, on failure
 * it stays the caller's.
 *
 * Context: process context, root's sidecar ioctl; may wait for an RCU
 * grace period.
 *
 * Return: 0; -EINVAL if @size is 0 or over SFRAME_BUILD_ID_MAX, or if a
 * function of @s lies outside the vDSO's code; -ESTALE if the image's
 * build ID is not @build_id; -ENOENT if the calling task maps no vDSO or
 * the image has no build ID; -ENOEXEC if the image is not one the module
 * can read; -ENOMEM; -EFAULT where the image is read from the task's
 * mapping (arm64) and that fails.
 */
int sframe_vdso_set(struct sframe_sec *s, const u8 *build_id, u32 size)
{
	const void *data, *id;
	struct sframe_vdso *v;
	u64 base, text_size;
	size_t data_size;
	void *copy;
	int ret;

	if (!size || size > SFRAME_BUILD_ID_MAX)
		return -EINVAL;
	if (!current->mm ||
	    !sframe_vdso_text(current->mm, &id, &base, &text_size))
		return -ENOENT;
	ret = sframe_vdso_image(&data, &data_size, &copy);
	if (ret)
		return ret;
	v = kzalloc(sizeof(*v), GFP_KERNEL_ACCOUNT);
	ret = v ? sframe_vdso_check(v, s, data, data_size, build_id, size) :
		  -ENOMEM;
	kvfree(copy);
	if (ret) {
		kfree(v);
		return ret;
	}
	sframe_sec_drop_bytes(s);
	v->sec = s;
	v->id = id;
	sframe_vdso_replace(v);
	return 0;
}

/**
 * sframe_vdso_clear() - withdraw the vDSO's section
 *
 * The section is freed once no walk can be using it.
 *
 * Context: process context; waits for an RCU grace period.
 *
 * Return: 0, or -ENOENT if none is loaded.
 */
int sframe_vdso_clear(void)
{
	return sframe_vdso_replace(NULL) ? 0 : -ENOENT;
}

/**
 * sframe_vdso_exit() - free the vDSO's section at module exit
 *
 * Free the section at module exit, once no ioctl can load another.
 */
void sframe_vdso_exit(void)
{
	sframe_vdso_replace(NULL);
}

/**
 * sframe_vdso_lookup() - the section of an address in an mm's vDSO
 * @mm: the walked task's mm, or NULL
 * @ip: the address
 * @where: filled in when @ip is in the vDSO's text
 *
 * Is @ip in @mm's vDSO text?  Then fill @where with the vDSO section when
 * one is loaded for the image @mm maps, else with no section (the walk
 * then steps by frame pointers, as the stock walker does).  Not while the
 * module is disabled (enable=0: frame pointers only, everywhere).
 *
 * Context: any context, NMI included; the caller holds rcu_read_lock().
 *
 * Return: true if @ip is in @mm's vDSO text and @where is filled in;
 * false otherwise, or while the module is disabled.
 */
bool sframe_vdso_lookup(struct mm_struct *mm, u64 ip,
			struct sframe_where *where)
{
	const struct sframe_vdso *v;
	u64 base, size;
	const void *id;

	if (!mm || !READ_ONCE(sframe_enabled) ||
	    !sframe_vdso_text(mm, &id, &base, &size))
		return false;
	v = rcu_dereference(sframe_vdso);
	if (v && v->id != id)
		v = NULL;
	if (v)
		size = v->size;
	if (ip < base || ip - base >= size)
		return false;
	where->sec = v ? &v->sec->sec : NULL;
	where->bias = v ? base - v->link_base : 0;
	where->start = base;
	where->end = base + size;
	return true;
}

/**
 * sframe_vdso_show() - show the vDSO's section
 * @m: the file being shown
 *
 * The vDSO's line of the sidecar list, if it has a section.
 */
void sframe_vdso_show(struct seq_file *m)
{
	const struct sframe_section *sec;
	const struct sframe_vdso *v;

	mutex_lock(&sframe_vdso_lock);
	v = rcu_dereference_protected(sframe_vdso,
				      lockdep_is_held(&sframe_vdso_lock));
	if (v) {
		sec = &v->sec->sec;
		seq_printf(m, "[vdso] build ID %*phN: v%u, %u FDEs, %u FREs, %zu bytes\n",
			   (int)v->build_id_size, v->build_id, sec->version,
			   sec->num_fdes, sec->num_fres,
			   v->sec->charge.bytes);
	}
	mutex_unlock(&sframe_vdso_lock);
}
