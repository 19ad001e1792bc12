// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/sframe_unwind: whoever opened it for writing (root, the sidecar
 * service by the device's group) loads and unloads sidecar sections,
 * SFrame made for files that carry none (sframectl gen) or for the vDSO,
 * and reads or asks which are loaded.  A sidecar is hostile input like
 * any .sframe: it is validated completely, then checked against the
 * file's code (or the vDSO's), before use.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/compat.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <sframe/ioctl.h>
#include "cache.h"
#include "vdso.h"

/* Log why @file's sidecar was refused, naming the file by its path. */
static void sframe_sidecar_reject(struct file *file,
				  const struct sframe_error *err)
{
	char *path = sframe_path_dup(file);

	pr_warn_ratelimited("%s: invalid sidecar: %s at offset 0x%x\n",
			    path ?: "?", sframe_reason_str(err->reason),
			    err->offset);
	kfree(path);
}

/* Is @a a request this module understands? */
static bool sframe_sidecar_args_ok(const struct sframe_sidecar_load *a)
{
	u32 known = SFRAME_SIDECAR_BUILD_ID | SFRAME_SIDECAR_VDSO |
		    SFRAME_SIDECAR_WHILE_MAPPED | SFRAME_SIDECAR_FILL;

	if ((a->flags & ~known) || a->reserved || !a->size)
		return false;
	/*
	 * The vDSO's section has no file (nor a mapping that ends), must
	 * name its build ID, and has no section of its own to fill.
	 */
	if (a->flags & SFRAME_SIDECAR_VDSO) {
		if (a->fd != -1 || !(a->flags & SFRAME_SIDECAR_BUILD_ID) ||
		    (a->flags & (SFRAME_SIDECAR_WHILE_MAPPED |
				 SFRAME_SIDECAR_FILL)))
			return false;
	}
	return !(a->flags & SFRAME_SIDECAR_BUILD_ID) ||
	       (a->build_id_size && a->build_id_size <= SFRAME_BUILD_ID_MAX);
}

/*
 * The section @a hands in, charged to @owner, validated and indexed; on
 * failure an ERR_PTR and, when validation refused it, *@err says why.
 */
static struct sframe_sec *sframe_sidecar_create(const struct sframe_sidecar_load *a,
						kuid_t owner,
						struct sframe_error *err)
{
	u64 max = (u64)READ_ONCE(sframe_max_section_mb) << 20;
	struct sframe_charge charge = { .uid = owner };
	u8 *data;
	int ret;

	err->reason = SFRAME_VALID;
	if (a->size > max || a->size > U32_MAX)
		return ERR_PTR(-EFBIG);
	ret = sframe_charge(&charge, a->size, GFP_KERNEL);
	if (ret)
		return ERR_PTR(ret);
	data = kvmalloc(a->size, GFP_KERNEL_ACCOUNT);
	if (!data || copy_from_user(data, u64_to_user_ptr(a->data), a->size)) {
		ret = data ? -EFAULT : -ENOMEM;
		kvfree(data);
		sframe_uncharge(&charge);
		return ERR_PTR(ret);
	}
	return sframe_sec_create(data, (u32)a->size, a->vaddr,
				 SFRAME_REQUIRE_SORTED, &charge, err);
}

/* The vDSO's section (vdso.c). */
static long sframe_sidecar_load_vdso(const struct sframe_sidecar_load *a)
{
	struct sframe_error err;
	struct sframe_sec *s;
	long ret;

	s = sframe_sidecar_create(a, GLOBAL_ROOT_UID, &err);
	if (IS_ERR(s)) {
		if (err.reason) {
			sframe_count(rejected[err.reason]);
			pr_warn_ratelimited("[vdso]: invalid sidecar: %s at offset 0x%x\n",
					    sframe_reason_str(err.reason),
					    err.offset);
		}
		return PTR_ERR(s);
	}
	ret = sframe_vdso_set(s, a->build_id, a->build_id_size);
	if (ret)
		sframe_sec_free(s);
	return ret;
}

/* A file's sidecar: bound to the file's real inode (bind.c). */
static long sframe_sidecar_load_file(const struct sframe_sidecar_load *a)
{
	kuid_t owner = GLOBAL_ROOT_UID;
	struct sframe_file *sf = NULL;
	struct sframe_error err;
	struct sframe_sec *s;
	struct file *file;
	long ret;

	file = fget(a->fd);
	if (!file)
		return -EBADF;
	ret = -EINVAL;
	if (!S_ISREG(file_inode(file)->i_mode))
		goto out;
	/*
	 * Root's explicit load is root's; the service's, made for whoever
	 * maps the file, is charged to a mapper, within max_user_mb, and
	 * bound to the very entry that mapper's read made.
	 */
	if (a->flags & SFRAME_SIDECAR_WHILE_MAPPED) {
		ret = -ENOENT;
		sf = sframe_cache_sidecar_entry(file, &owner);
		if (!sf)
			goto out;
	}
	s = sframe_sidecar_create(a, owner, &err);
	if (IS_ERR(s)) {
		ret = PTR_ERR(s);
		if (err.reason) {
			sframe_count(rejected[err.reason]);
			sframe_sidecar_reject(file, &err);
		}
		if (sf)
			sframe_file_put(sf);
		goto out;
	}
	s->fills_gaps = a->flags & SFRAME_SIDECAR_FILL;
	ret = sframe_cache_set_sidecar(file, sf, s,
				       a->flags & SFRAME_SIDECAR_BUILD_ID ?
				       a->build_id : NULL, a->build_id_size);
	if (ret)
		sframe_sec_free(s);
out:
	fput(file);
	return ret;
}

static long sframe_sidecar_load(const void __user *uarg)
{
	struct sframe_sidecar_load a;
	long ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (!sframe_sidecar_args_ok(&a))
		return -EINVAL;
	if (a.flags & SFRAME_SIDECAR_VDSO)
		ret = sframe_sidecar_load_vdso(&a);
	else
		ret = sframe_sidecar_load_file(&a);
	if (ret)
		sframe_count(sidecars_rejected);
	else
		sframe_count(sidecars_loaded);
	return ret;
}

static long sframe_sidecar_unload(const void __user *uarg)
{
	struct sframe_sidecar_unload a;
	struct file *file;
	long ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	if (a.flags == SFRAME_SIDECAR_VDSO && a.fd == -1) {
		ret = sframe_vdso_clear();
		if (!ret)
			sframe_count(sidecars_unloaded);
		return ret;
	}
	if (a.flags)
		return -EINVAL;
	file = fget(a.fd);
	if (!file)
		return -EBADF;
	ret = sframe_cache_clear_sidecar(file);
	if (!ret)
		sframe_count(sidecars_unloaded);
	fput(file);
	return ret;
}

/* Has the file at the descriptor @uarg points to a sidecar: 1 or 0. */
static long sframe_sidecar_query(const void __user *uarg)
{
	struct file *file;
	long ret;
	s32 fd;

	if (get_user(fd, (const s32 __user *)uarg))
		return -EFAULT;
	file = fget(fd);
	if (!file)
		return -EBADF;
	ret = sframe_cache_has_sidecar(file);
	fput(file);
	return ret;
}

static long sframe_dev_ioctl(struct file *file, unsigned int cmd,
			     unsigned long arg)
{
	/*
	 * The right to supply sidecars is write access to the device node,
	 * as its mode and group grant it (design.rst, "Privileges").
	 */
	if (!(file->f_mode & FMODE_WRITE))
		return -EPERM;
	switch (cmd) {
	case SFRAME_IOC_LOAD:
		return sframe_sidecar_load((const void __user *)arg);
	case SFRAME_IOC_UNLOAD:
		return sframe_sidecar_unload((const void __user *)arg);
	case SFRAME_IOC_WATCH:
		return sframe_events_watch(sframe_mms_sweep);
	case SFRAME_IOC_HAS_SIDECAR:
		return sframe_sidecar_query((const void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static int sframe_dev_show(struct seq_file *s, void *unused)
{
	sframe_vdso_show(s);
	return sframe_cache_show_sidecars(s);
}

static int sframe_dev_open(struct inode *inode, struct file *file)
{
	file->private_data = NULL;	/* misc_open() put the device there */
	return single_open(file, sframe_dev_show, NULL);
}

static const struct file_operations sframe_dev_fops = {
	.owner = THIS_MODULE,
	.open = sframe_dev_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.unlocked_ioctl = sframe_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/*
 * Root's, mode 0660: the packaged udev rule gives the group to the
 * sidecar service's user; no one else may open it.
 */
static struct miscdevice sframe_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "sframe_unwind",
	.fops = &sframe_dev_fops,
	.mode = 0660,
};

/**
 * sframe_sidecar_init() - register /dev/sframe_unwind
 *
 * The device through which sidecars are loaded and unloaded, the watcher
 * is made and sidecars are asked for.
 *
 * Return: 0, or misc_register()'s negative errno.
 */
int sframe_sidecar_init(void)
{
	return misc_register(&sframe_dev);
}

/**
 * sframe_sidecar_exit() - unregister /dev/sframe_unwind
 *
 * Then the vDSO's section, which only the device's ioctls set, is
 * dropped.
 */
void sframe_sidecar_exit(void)
{
	misc_deregister(&sframe_dev);
	sframe_vdso_exit();
}
