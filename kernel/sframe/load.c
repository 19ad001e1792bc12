// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a mapped file into an object: through a file the module opens
 * itself, with I/O only where no unprivileged user can make the read hang,
 * every failure named, counted and classed as transient or not.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/magic.h>
#include <linux/major.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/slab.h>

#include "cache.h"

/* Not in the uapi headers of 5.10; fuse and fuseblk both set it. */
#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC	0x65735546
#endif

unsigned int sframe_max_section_mb = 64;

const char * const sframe_load_fail_names[SFRAME_NR_LOAD_FAILS] = {
	[SFRAME_LOAD_NOT_ELF] = "not an ELF object of this machine",
	[SFRAME_LOAD_READ] = "read error",
	[SFRAME_LOAD_TOO_BIG] = "section over max_section_mb",
	[SFRAME_LOAD_CACHE_FULL] = "cache over max_cache_mb",
	[SFRAME_LOAD_USER_FULL] = "over max_user_mb",
	[SFRAME_LOAD_NOT_CACHED] = "not in page cache",
	[SFRAME_LOAD_NOMEM] = "out of memory",
	[SFRAME_LOAD_ABI] = "SFrame for another ABI",
	[SFRAME_LOAD_NOT_REGULAR] = "not a regular file",
	[SFRAME_LOAD_SHORT] = "file shorter than its headers say",
};

static int sframe_read_io(struct sframe_reader *rd, void *buf, size_t len,
			  u64 pos)
{
	loff_t off = pos;
	ssize_t n = kernel_read(rd->file, buf, len, &off);

	if (n == (ssize_t)len)
		return 0;
	return n < 0 ? n : -ENODATA;
}

/*
 * Copy from pages already in the page cache; never starts any I/O.  Up
 * to max_section_mb in one call, from an unbound kworker: it yields.
 */
static int sframe_read_cached(struct sframe_reader *rd, void *buf,
			      size_t len, u64 pos)
{
	struct address_space *mapping = rd->mapping;
	u8 *to = buf;

	if (pos + len < pos || pos + len > i_size_read(mapping->host))
		return -ENODATA;
	while (len) {
		size_t off = offset_in_page(pos);
		size_t n = min_t(size_t, len, PAGE_SIZE - off);
		struct page *page = find_get_page(mapping, pos >> PAGE_SHIFT);

		if (!page)
			return -EAGAIN;
		if (!PageUptodate(page)) {
			put_page(page);
			return -EAGAIN;
		}
		memcpy_from_page(to, page, off, n);
		put_page(page);
		to += n;
		pos += n;
		len -= n;
		cond_resched();
	}
	return 0;
}

/*
 * Can a read from @sb's block device wait for ever on something a user
 * controls?  A loop device reads a file, which may be on the user's FUSE
 * mount (udisks sets loop devices up for users); a network block device
 * and a ublk device are served by a process.  A filesystem that names no
 * one device (btrfs) and a device-mapper or md device stacked over one of
 * these are not seen through.
 */
static bool sframe_bdev_may_hang(const struct super_block *sb)
{
	const struct gendisk *disk;

	if (!sb->s_bdev)
		return false;
	disk = sb->s_bdev->bd_disk;
	return disk->major == LOOP_MAJOR || disk->major == NBD_MAJOR ||
	       !strncmp(disk->disk_name, "ublkb", strlen("ublkb"));
}

/*
 * Can a read of this inode wait for ever on something a user controls (a
 * device, a FUSE server, a network peer)?  Only a regular file's read is
 * known: a device node's is its driver's, and devtmpfs reports tmpfs's
 * magic.  Filesystems on block devices are mounted by root only, except
 * fuseblk, which udisks mounts for users, and except where the device
 * itself reads from what a user serves (sframe_bdev_may_hang()); tmpfs
 * and ramfs (memfd too) read from memory.
 */
static bool sframe_inode_may_hang(const struct inode *inode)
{
	const struct super_block *sb = inode->i_sb;

	if (!S_ISREG(inode->i_mode) || sb->s_magic == FUSE_SUPER_MAGIC)
		return true;
	if (sb->s_type->fs_flags & FS_REQUIRES_DEV)
		return sframe_bdev_may_hang(sb);
	return sb->s_magic != TMPFS_MAGIC && sb->s_magic != RAMFS_MAGIC;
}

/*
 * A file of our own in *@own for what @file maps, opened with the
 * module's credentials, read-only, to read and to report: 0, with NULL
 * on a filesystem whose reads a user could make hang (FUSE, network, a
 * loop device: read only from the page cache, never reported), or the
 * open's errno.
 * An overlayfs path's data, and page cache, are its layer's.
 */
static int sframe_open_own(struct file *file, struct file **own)
{
	struct file *f;

	*own = NULL;
	if (sframe_inode_may_hang(d_real_inode(file->f_path.dentry)))
		return 0;
	f = dentry_open(&file->f_path, O_RDONLY | O_LARGEFILE | O_NONBLOCK,
			current_cred());
	if (IS_ERR(f))
		return PTR_ERR(f);
	*own = f;
	return 0;
}

/**
 * sframe_load_report_file() - a file of our own to report a file through
 * @file: the mapped file
 *
 * Opened with the module's credentials, read-only, as a read opens it.
 *
 * Return: a new file for what @file maps, for the caller to put; NULL
 * when there is none: on a filesystem whose reads a user could make hang
 * (FUSE, network, a loop device), or when the open failed.
 */
struct file *sframe_load_report_file(struct file *file)
{
	struct file *own;

	return sframe_open_own(file, &own) ? NULL : own;
}

/**
 * sframe_object_free() - free an object and its own section
 * @obj: the object, or NULL
 */
void sframe_object_free(struct sframe_object *obj)
{
	if (!obj)
		return;
	sframe_sec_free(obj->embedded);
	kfree(obj);
}

static void sframe_load_fail(struct sframe_load_result *res,
			     enum sframe_load_fail why, bool transient)
{
	sframe_count(load_failed[why]);
	res->status = sframe_load_fail_names[why];
	res->transient = transient;
}

/*
 * A failed read, charge or allocation, by its errno.  A file shorter than
 * its headers say stays so until it changes, which makes it another
 * entry: that is final.  The rest are transient.
 */
static void sframe_load_fail_errno(struct sframe_load_result *res, int err)
{
	switch (err) {
	case -ENODATA:
		sframe_load_fail(res, SFRAME_LOAD_SHORT, false);
		break;
	case -ENOSPC:
		sframe_load_fail(res, SFRAME_LOAD_CACHE_FULL, true);
		break;
	case -EDQUOT:
		sframe_load_fail(res, SFRAME_LOAD_USER_FULL, true);
		res->over_quota = true;
		break;
	case -EAGAIN:
		sframe_load_fail(res, SFRAME_LOAD_NOT_CACHED, true);
		break;
	case -ENOMEM:
		sframe_load_fail(res, SFRAME_LOAD_NOMEM, true);
		break;
	default:
		sframe_load_fail(res, SFRAME_LOAD_READ, true);
	}
}

/* Read, charge and validate the PT_GNU_SFRAME segment into @obj. */
static void sframe_load_section(struct sframe_reader *rd,
				const struct sframe_elf *elf, const char *path,
				kuid_t owner, struct sframe_load_result *res)
{
	u64 max = (u64)READ_ONCE(sframe_max_section_mb) << 20;
	struct sframe_charge charge = { .uid = owner };
	struct sframe_error err;
	struct sframe_sec *s;
	u8 *data;
	int ret;

	if (elf->sframe_size > max || elf->sframe_size > U32_MAX) {
		sframe_load_fail(res, SFRAME_LOAD_TOO_BIG, false);
		pr_warn_ratelimited("%s: .sframe not used: %s\n",
				    path, res->status);
		return;
	}
	ret = sframe_charge(&charge, elf->sframe_size, GFP_KERNEL);
	data = ret ? NULL : kvmalloc(elf->sframe_size, GFP_KERNEL_ACCOUNT);
	if (!ret && !data)
		ret = -ENOMEM;
	if (!ret)
		ret = rd->read(rd, data, elf->sframe_size, elf->sframe_offset);
	if (ret) {
		kvfree(data);
		sframe_uncharge(&charge);
		sframe_load_fail_errno(res, ret);
		return;
	}
	s = sframe_sec_create(data, (u32)elf->sframe_size, elf->sframe_vaddr,
			      SFRAME_REQUIRE_SORTED | SFRAME_SEGMENT_PADDING,
			      &charge, &err);
	if (IS_ERR(s) && err.reason) {
		sframe_count(rejected[err.reason]);
		res->status = sframe_reason_str(err.reason);
		pr_warn_ratelimited("%s: invalid .sframe: %s at offset 0x%x\n",
				    path, res->status, err.offset);
	} else if (PTR_ERR(s) == -EPROTONOSUPPORT) {
		sframe_load_fail(res, SFRAME_LOAD_ABI, false);
		pr_warn_ratelimited("%s: .sframe not used: %s\n",
				    path, res->status);
	} else if (IS_ERR(s)) {
		sframe_load_fail_errno(res, PTR_ERR(s));
	} else {
		sframe_sec_drop_bytes(s);
		res->obj->embedded = s;
		res->status = "ok";
		sframe_count(sections_loaded);
	}
}

/**
 * sframe_load_file() - read a mapped file into an object
 * @file: the mapped file
 * @path: its name, in messages
 * @owner: whom the section read is charged to
 * @res: filled in with the outcome
 *
 * Read @file (named @path in messages): its ELF headers and its own
 * section, charged to @owner.  Whatever the outcome, @res says it; an
 * object is returned unless the failure was transient.  An object with
 * code and no section comes with the file the module opened to read it
 * in res->needs_sidecar, for the caller to report and put (so does one
 * whose own section may leave code uncovered, with
 * SFRAME_EVENT_F_OWN_SFRAME); none comes from a filesystem whose reads a
 * user could make hang.  Anything but a regular file (a device node
 * mapped executable) is neither opened nor read: an empty object says so
 * for good.
 *
 * Context: process context; may do I/O, except on a filesystem whose
 * reads a user could make hang, which is read only from the page cache.
 */
void sframe_load_file(struct file *file, const char *path, kuid_t owner,
		      struct sframe_load_result *res)
{
	struct inode *real = d_real_inode(file->f_path.dentry);
	struct sframe_reader rd = {
		.read = sframe_read_cached, .mapping = real->i_mapping,
	};
	struct file *own;
	struct sframe_elf elf = {};
	int ret;

	*res = (struct sframe_load_result){};
	elf.obj = kzalloc(sizeof(*elf.obj), GFP_KERNEL_ACCOUNT);
	if (!elf.obj) {
		sframe_load_fail(res, SFRAME_LOAD_NOMEM, true);
		return;
	}
	res->obj = elf.obj;
	if (!S_ISREG(real->i_mode)) {
		sframe_load_fail(res, SFRAME_LOAD_NOT_REGULAR, false);
		return;
	}
	if (sframe_open_own(file, &own)) {
		sframe_load_fail(res, SFRAME_LOAD_READ, true);
		res->obj = NULL;
		kfree(elf.obj);
		return;
	}
	if (own)
		rd = (struct sframe_reader){ .read = sframe_read_io, .file = own };
	ret = sframe_elf_parse(&rd, &elf);
	if (ret == -ENOEXEC) {
		sframe_load_fail(res, SFRAME_LOAD_NOT_ELF, false);
	} else if (ret) {
		sframe_load_fail_errno(res, ret);
	} else if (!elf.has_sframe) {
		res->status = "no PT_GNU_SFRAME";
		sframe_count(files_without_sframe);
		if (own && elf.obj->nr_loads)
			res->needs_sidecar = get_file(own);
	} else {
		sframe_load_section(&rd, &elf, path, owner, res);
		/* Its own section may leave code (a static libc) uncovered. */
		if (own && !res->transient && elf.obj->embedded) {
			res->needs_sidecar = get_file(own);
			res->report_flags = SFRAME_EVENT_F_OWN_SFRAME;
		}
	}
	if (own)
		fput(own);
	if (res->transient) {
		sframe_object_free(res->obj);
		res->obj = NULL;
	}
}
