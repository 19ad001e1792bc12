/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which file a file entry (cache.h) stands for: the inode it was made
 * for, while that is still the same file.  Pure functions but for the
 * filesystem's encode_fh, tested by KUnit (tests/file_id_kunit.c).
 */
#ifndef _SFRAME_FILE_ID_H
#define _SFRAME_FILE_ID_H

#include <linux/exportfs.h>
#include <linux/fs.h>
#include <linux/string.h>
#include <linux/time64.h>

/* The longest file handle kept: btrfs's is 5 words, NFS's may be more. */
#define SFRAME_FILE_FH_WORDS	8

/*
 * @inode is compared, never followed: the entry holds no reference, and
 * another inode can have that address only once this one was freed.  The
 * rest tells such an inode apart, unless it agrees on every number, and
 * tells the same inode apart once its file has changed.  The numbers
 * alone do not name a file: btrfs's subvolumes share one super block,
 * each numbering its inodes from the same start, and one transaction
 * gives every file it creates the same generation, so two subvolumes'
 * files made in one transaction and clock tick, of one size, agree on
 * them all.  The file handle does (@fh, @fh_type, @fh_len words): what a
 * filesystem gives NFS to find the file again after its inode was
 * evicted, which on btrfs names the subvolume.  None (@fh_len 0) where
 * the filesystem gives none, or one longer than @fh.
 */
struct sframe_file_id {
	const struct inode *inode;
	dev_t dev;
	unsigned long ino;
	u32 generation;
	loff_t size;
	struct timespec64 ctime;
	u8 fh_type;
	u8 fh_len;
	u32 fh[SFRAME_FILE_FH_WORDS];
};

/*
 * @inode's file handle into @id, without its parent, straight from its
 * filesystem's export operations: encode_fh only reads the in-memory
 * inode, which fanotify relies on too when it reports a filesystem's
 * errors from atomic context.  A filesystem without them has none.
 */
static inline void sframe_file_id_set_fh(struct sframe_file_id *id,
					 struct inode *inode)
{
	const struct export_operations *ops = inode->i_sb->s_export_op;
	int len = SFRAME_FILE_FH_WORDS, type;

	if (!ops || !ops->encode_fh)
		return;
	type = ops->encode_fh(inode, id->fh, &len, NULL);
	if (type <= 0 || type >= FILEID_INVALID || len <= 0 ||
	    len > SFRAME_FILE_FH_WORDS) {
		memset(id->fh, 0, sizeof(id->fh));
		return;
	}
	id->fh_type = type;
	id->fh_len = len;
}

/* The identity of @inode as it is now.  Process context; no I/O. */
static inline void sframe_file_id_set(struct sframe_file_id *id,
				      struct inode *inode)
{
	*id = (struct sframe_file_id){
		.inode = inode,
		.dev = inode->i_sb->s_dev,
		.ino = inode->i_ino,
		.generation = inode->i_generation,
		.size = i_size_read(inode),
		.ctime = inode_get_ctime(inode),
	};
	sframe_file_id_set_fh(id, inode);
}

/*
 * Is @now (sframe_file_id_set() of an inode) the file @id was taken
 * from, unchanged since?  @by_numbers: any inode agreeing on the numbers
 * and the file handle is, for an entry that must outlive its inode (a
 * sidecar loaded by hand stays while its file's inode is evicted and
 * read again).
 */
static inline bool sframe_file_id_is(const struct sframe_file_id *id,
				     const struct sframe_file_id *now,
				     bool by_numbers)
{
	if (id->inode != now->inode &&
	    (!by_numbers || id->fh_type != now->fh_type ||
	     id->fh_len != now->fh_len ||
	     memcmp(id->fh, now->fh, id->fh_len * sizeof(id->fh[0]))))
		return false;
	return id->dev == now->dev && id->ino == now->ino &&
	       id->generation == now->generation && id->size == now->size &&
	       timespec64_equal(&id->ctime, &now->ctime);
}

#endif /* _SFRAME_FILE_ID_H */
