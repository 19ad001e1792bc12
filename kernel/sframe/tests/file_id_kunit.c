// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sframe_file_id: a file entry answers for the inode it was
 * made for and no other (file_id.h), even one that agrees on every number
 * stat shows of it, as two btrfs subvolumes' files can: the entry of one
 * must never give its section or sidecar to the other.  Only an entry
 * that must outlive its inode goes by the numbers alone.
 */
#include <kunit/test.h>

#include "../file_id.h"

#define SUBVOL_FIRST_INO	257	/* each btrfs subvolume's first file */

static struct inode *file_id_inode(struct kunit *test, struct super_block *sb)
{
	struct inode *inode = kunit_kzalloc(test, sizeof(*inode), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, inode);
	inode->i_sb = sb;
	inode->i_ino = SUBVOL_FIRST_INO;
	inode->i_generation = 7;
	i_size_write(inode, 4096);
	return inode;
}

static void sframe_file_id_names_one_inode(struct kunit *test)
{
	struct super_block *sb = kunit_kzalloc(test, sizeof(*sb), GFP_KERNEL);
	struct inode *mine, *other;
	struct sframe_file_id id;

	KUNIT_ASSERT_NOT_NULL(test, sb);
	mine = file_id_inode(test, sb);
	other = file_id_inode(test, sb);
	sframe_file_id_set(&id, mine);
	KUNIT_EXPECT_TRUE_MSG(test, sframe_file_id_is(&id, mine, false),
			      "the inode it was taken from, unchanged");
	KUNIT_EXPECT_FALSE_MSG(test, sframe_file_id_is(&id, other, false),
			       "another inode with the same device, number, generation, size and ctime");
	KUNIT_EXPECT_TRUE_MSG(test, sframe_file_id_is(&id, other, true),
			      "by the numbers alone (a sidecar loaded by hand), that inode");
	i_size_write(mine, 8192);
	KUNIT_EXPECT_FALSE_MSG(test, sframe_file_id_is(&id, mine, false),
			       "the same inode, grown");
	KUNIT_EXPECT_FALSE_MSG(test, sframe_file_id_is(&id, mine, true),
			       "by the numbers alone, the same inode grown");
	i_size_write(mine, 4096);
	mine->i_generation = 8;
	KUNIT_EXPECT_FALSE_MSG(test, sframe_file_id_is(&id, mine, false),
			       "the same inode, another generation");
}

static struct kunit_case sframe_file_id_cases[] = {
	KUNIT_CASE(sframe_file_id_names_one_inode),
	{}
};

static struct kunit_suite sframe_file_id_suite = {
	.name = "sframe_file_id",
	.test_cases = sframe_file_id_cases,
};

kunit_test_suite(sframe_file_id_suite);
