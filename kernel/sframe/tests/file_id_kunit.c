// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sframe_file_id: a file entry answers for the inode it was
 * made for and no other (file_id.h), even one that agrees on every number
 * stat shows of it, as two btrfs subvolumes' files can: the entry of one
 * must never give its section or sidecar to the other.  Only an entry
 * that must outlive its inode goes by the numbers, and then by the file
 * handle too, which names the subvolume.
 */
#include <kunit/test.h>

#include "../file_id.h"

#define SUBVOL_FIRST_INO	257	/* each btrfs subvolume's first file */

/*
 * A filesystem's file handle as btrfs makes one: the inode number, the
 * subvolume (here the inode's i_private) and the generation.
 */
static int file_id_encode_fh(struct inode *inode, __u32 *fh, int *max_len,
			     struct inode *parent)
{
	if (*max_len < 3) {
		*max_len = 3;
		return FILEID_INVALID;
	}
	fh[0] = inode->i_ino;
	fh[1] = (unsigned long)inode->i_private;
	fh[2] = inode->i_generation;
	*max_len = 3;
	return FILEID_INO32_GEN;
}

static const struct export_operations file_id_export_ops = {
	.encode_fh = file_id_encode_fh,
};

static struct super_block *file_id_sb(struct kunit *test, bool handles)
{
	struct super_block *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, sb);
	if (handles)
		sb->s_export_op = &file_id_export_ops;
	return sb;
}

/* The first file of subvolume @subvol, in @sb. */
static struct inode *file_id_inode(struct kunit *test, struct super_block *sb,
				   unsigned long subvol)
{
	struct inode *inode = kunit_kzalloc(test, sizeof(*inode), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, inode);
	inode->i_sb = sb;
	inode->i_ino = SUBVOL_FIRST_INO;
	inode->i_generation = 7;
	inode->i_private = (void *)subvol;
	i_size_write(inode, 4096);
	return inode;
}

/* Is @inode, as it is now, the file @id was taken from? */
static bool file_id_is(const struct sframe_file_id *id, struct inode *inode,
		       bool by_numbers)
{
	struct sframe_file_id now;

	sframe_file_id_set(&now, inode);
	return sframe_file_id_is(id, &now, by_numbers);
}

static void sframe_file_id_names_one_inode(struct kunit *test)
{
	struct super_block *sb = file_id_sb(test, false);
	struct inode *mine, *other;
	struct sframe_file_id id;

	mine = file_id_inode(test, sb, 5);
	other = file_id_inode(test, sb, 5);
	sframe_file_id_set(&id, mine);
	KUNIT_EXPECT_TRUE_MSG(test, file_id_is(&id, mine, false),
			      "the inode it was taken from, unchanged");
	KUNIT_EXPECT_FALSE_MSG(test, file_id_is(&id, other, false),
			       "another inode with the same device, number, generation, size and ctime");
	KUNIT_EXPECT_TRUE_MSG(test, file_id_is(&id, other, true),
			      "by the numbers alone (a sidecar loaded by hand, no file handles), that inode");
	i_size_write(mine, 8192);
	KUNIT_EXPECT_FALSE_MSG(test, file_id_is(&id, mine, false),
			       "the same inode, grown");
	KUNIT_EXPECT_FALSE_MSG(test, file_id_is(&id, mine, true),
			       "by the numbers alone, the same inode grown");
	i_size_write(mine, 4096);
	mine->i_generation = 8;
	KUNIT_EXPECT_FALSE_MSG(test, file_id_is(&id, mine, false),
			       "the same inode, another generation");
}

/*
 * An entry that outlives its inode (a pinned sidecar) matches the file
 * read again after its inode was evicted, never another subvolume's file
 * that agrees on every number.
 */
static void sframe_file_id_handle_names_subvolume(struct kunit *test)
{
	struct super_block *sb = file_id_sb(test, true);
	struct inode *mine = file_id_inode(test, sb, 5);
	struct inode *again = file_id_inode(test, sb, 5);
	struct inode *other_subvol = file_id_inode(test, sb, 6);
	struct sframe_file_id id;

	sframe_file_id_set(&id, mine);
	KUNIT_EXPECT_EQ_MSG(test, id.fh_len, 3, "the handle is kept");
	KUNIT_EXPECT_EQ(test, id.fh[1], 5U);
	KUNIT_EXPECT_TRUE_MSG(test, file_id_is(&id, again, true),
			      "by the numbers and the handle, the same file's inode read again");
	KUNIT_EXPECT_FALSE_MSG(test, file_id_is(&id, other_subvol, true),
			       "by the numbers, another subvolume's file agreeing on all of them");
	KUNIT_EXPECT_FALSE_MSG(test, file_id_is(&id, other_subvol, false),
			       "another subvolume's file, not by the numbers");
}

static struct kunit_case sframe_file_id_cases[] = {
	KUNIT_CASE(sframe_file_id_names_one_inode),
	KUNIT_CASE(sframe_file_id_handle_names_subvolume),
	{}
};

static struct kunit_suite sframe_file_id_suite = {
	.name = "sframe_file_id",
	.test_cases = sframe_file_id_cases,
};

kunit_test_suite(sframe_file_id_suite);
