// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sframe_fresh: a fresh range (fresh.h) dies with a mapping
 * over it, and through a free over it follows its file's text at its
 * start or dies; a rescan retires it only where the map it publishes
 * answers instead.
 */
#include <kunit/test.h>

#include "../fresh.h"

#define TEXT_START	0x11000
#define TEXT_END	0x12000

struct fresh_survives_case {
	const char *name;
	bool freed;		/* the change over the range is a free */
	bool now;		/* a VMA at the range's start now... */
	bool now_freed;		/* ...the one freed */
	bool other_file;	/* ...of another file */
	bool not_exec;
	u64 now_start;
	u64 now_end;
	u64 now_pgoff;		/* pages; the range's is 0 */
	u64 left_end;		/* where the range ends after; 0: it dies */
};

static const struct fresh_survives_case fresh_survives_cases[] = {
	{ "a mapping over the range kills it",
	  .now = true, .now_start = TEXT_START, .now_end = TEXT_END },
	{ "the free of the VMA it replaced leaves it (MAP_FIXED, 6.12)",
	  .freed = true, .now = true, .now_start = TEXT_START,
	  .now_end = TEXT_END, .left_end = TEXT_END },
	{ "the free of its own VMA kills it",
	  .freed = true, .now = true, .now_freed = true,
	  .now_start = TEXT_START, .now_end = TEXT_END },
	{ "nothing left at its start kills it",
	  .freed = true },
	{ "the free of a part split off its VMA leaves the rest",
	  .freed = true, .now = true, .now_start = TEXT_START,
	  .now_end = 0x11800, .left_end = 0x11800 },
	{ "another file at its start kills it",
	  .freed = true, .now = true, .other_file = true,
	  .now_start = TEXT_START, .now_end = TEXT_END },
	{ "its file, not executable, at its start kills it",
	  .freed = true, .now = true, .not_exec = true,
	  .now_start = TEXT_START, .now_end = TEXT_END },
	{ "its file at another offset kills it",
	  .freed = true, .now = true, .now_start = TEXT_START,
	  .now_end = TEXT_END, .now_pgoff = 1 },
	{ "a VMA starting past its start kills it",
	  .freed = true, .now = true, .now_start = 0x11800,
	  .now_end = TEXT_END },
};

static void fresh_survives_desc(const struct fresh_survives_case *c,
				char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fresh_survives, fresh_survives_cases, fresh_survives_desc);

static void sframe_fresh_follows_its_text_or_dies(struct kunit *test)
{
	const struct fresh_survives_case *c = test->param_value;
	struct vm_area_struct *now, *freed;
	struct file *file, *other;
	struct sframe_fresh f = {
		.r = { .start = TEXT_START, .end = TEXT_END },
	};
	struct sframe_change ch = { .start = TEXT_START, .end = TEXT_END };
	struct vm_area_struct vma = {
		/* an initializer: vm_flags is const from 6.3 on */
		.vm_flags = c->not_exec ? VM_READ : VM_READ | VM_EXEC,
		.vm_start = c->now_start,
		.vm_end = c->now_end,
		.vm_pgoff = c->now_pgoff,
	};

	now = kunit_kzalloc(test, sizeof(*now), GFP_KERNEL);
	freed = kunit_kzalloc(test, sizeof(*freed), GFP_KERNEL);
	file = kunit_kzalloc(test, sizeof(*file), GFP_KERNEL);
	other = kunit_kzalloc(test, sizeof(*other), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, now && freed && file && other);
	f.vm_file = file;
	memcpy(now, &vma, sizeof(vma));
	now->vm_file = c->other_file ? other : file;
	if (c->freed)
		ch.freed = c->now_freed ? now : freed;
	KUNIT_ASSERT_TRUE(test, sframe_fresh_over(&f, &ch));
	KUNIT_EXPECT_EQ(test, sframe_fresh_survives(&f, &ch,
						    c->now ? now : NULL),
			c->left_end != 0);
	if (c->left_end)
		KUNIT_EXPECT_EQ(test, f.r.end, c->left_end);
}

struct fresh_needed_case {
	const char *name;
	unsigned int change;	/* the range's */
	struct sframe_window changed;	/* left after the publish */
	bool needed;
};

/* The rescan took its snapshot after change 5. */
#define UPTO	5

static const struct fresh_needed_case fresh_needed_cases[] = {
	{ "published before the snapshot: the map has it",
	  4, { 0, 0 }, false },
	{ "published by the snapshot's own change: the map has it",
	  UPTO, { 0, 0 }, false },
	{ "published after the snapshot: kept",
	  6, { 0, 0 }, true },
	{ "inside the changed window left: kept",
	  4, { 0x10000, 0x20000 }, true },
	{ "beside the changed window left: the map has it",
	  4, { TEXT_END, 0x20000 }, false },
	{ "published after the snapshot, change count wrapped: kept",
	  UPTO + 0x80000000u - 1, { 0, 0 }, true },
};

static void fresh_needed_desc(const struct fresh_needed_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fresh_needed, fresh_needed_cases, fresh_needed_desc);

static void sframe_fresh_retired_where_the_map_answers(struct kunit *test)
{
	const struct fresh_needed_case *c = test->param_value;
	struct sframe_fresh f = {
		.r = { .start = TEXT_START, .end = TEXT_END },
		.change = c->change,
	};

	KUNIT_EXPECT_EQ(test, sframe_fresh_needed(&f, &c->changed, UPTO),
			c->needed);
}

static struct kunit_case sframe_fresh_cases[] = {
	KUNIT_CASE_PARAM(sframe_fresh_follows_its_text_or_dies,
			 fresh_survives_gen_params),
	KUNIT_CASE_PARAM(sframe_fresh_retired_where_the_map_answers,
			 fresh_needed_gen_params),
	{}
};

static struct kunit_suite sframe_fresh_suite = {
	.name = "sframe_fresh",
	.test_cases = sframe_fresh_cases,
};

kunit_test_suite(sframe_fresh_suite);
