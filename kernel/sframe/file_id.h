/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which file a file entry (cache.h) stands for: the inode it was made
 * for, while that is still the same file.  Pure functions, tested by
 * KUnit (tests/file_id_kunit.c).
 */
#ifndef _SFRAME_FILE_ID_H
#define _SFRAME_FILE_ID_H

#include <linux/fs.h>
#include <linux/time64.h>

/*
 * @inode is compared, never followed: the entry holds no reference, and
 * another inode can have that address only once this one was freed.  The
 * rest tells such an inode apart, unless it agrees on every number, and
 * tells the same inode apart once its file has changed.  The numbers
 * alone do not name a file: btrfs's subvolumes share one super block,
 * each numbering its inodes from the same start, and one transaction
 * gives every file it creates the same generation, so two subvolumes'
 * files made in one transaction and clock tick, of one size, agree on
 * them all.
 */
struct sframe_file_id {
	const struct inode *inode;
	dev_t dev;
	unsigned long ino;
	u32 generation;
	loff_t size;
	struct timespec64 ctime;
};

static inline void sframe_file_id_set(struct sframe_file_id *id,
				      const struct inode *inode)
{
	*id = (struct sframe_file_id){
		.inode = inode,
		.dev = inode->i_sb->s_dev,
		.ino = inode->i_ino,
		.generation = inode->i_generation,
		.size = i_size_read(inode),
		.ctime = inode_get_ctime(inode),
	};
}

/*
 * Is @inode the file @id was taken from, unchanged since?  @by_numbers:
 * any inode agreeing on the numbers is, for an entry that must outlive
 * its inode (a sidecar loaded by hand stays while its file's inode is
 * evicted and read again).
 */
static inline bool sframe_file_id_is(const struct sframe_file_id *id,
				     const struct inode *inode,
				     bool by_numbers)
{
	struct timespec64 ctime = inode_get_ctime(inode);

	return (id->inode == inode || by_numbers) &&
	       id->dev == inode->i_sb->s_dev &&
	       id->ino == inode->i_ino &&
	       id->generation == inode->i_generation &&
	       id->size == i_size_read(inode) &&
	       timespec64_equal(&id->ctime, &ctime);
}

#endif /* _SFRAME_FILE_ID_H */
