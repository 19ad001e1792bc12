// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sframe_window: the range a map lookup answers for stops at
 * a changed or scanning window inside it (window.h), so that a walk never
 * reuses a library's answer for a JIT page mapped into its text.
 */
#include <kunit/test.h>

#include "../window.h"

#define LIB_START	0x10000
#define LIB_END		0x20000
#define JIT_START	0x14000
#define JIT_END		0x15000

struct window_clip_case {
	const char *name;
	struct sframe_window w;
	u64 ip;
	u64 start;	/* the range answered for */
	u64 end;
};

static const struct window_clip_case window_clip_cases[] = {
	{ "below a window inside the range ends at the window",
	  { JIT_START, JIT_END }, 0x12000, LIB_START, JIT_START },
	{ "above a window inside the range starts after it",
	  { JIT_START, JIT_END }, 0x18000, JIT_END, LIB_END },
	{ "a window over the range's start is cut off",
	  { 0x8000, JIT_START }, 0x18000, JIT_START, LIB_END },
	{ "a window over the range's end is cut off",
	  { JIT_START, 0x30000 }, 0x12000, LIB_START, JIT_START },
	{ "a window outside the range leaves it whole",
	  { 0x30000, 0x31000 }, 0x12000, LIB_START, LIB_END },
	{ "a window ending at the range's start leaves it whole",
	  { 0x8000, LIB_START }, 0x12000, LIB_START, LIB_END },
	{ "an empty window leaves the range whole",
	  { 0, 0 }, 0x12000, LIB_START, LIB_END },
};

static void window_clip_desc(const struct window_clip_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(window_clip, window_clip_cases, window_clip_desc);

static void sframe_window_clip_keeps_lookup_answers_out_of_windows(struct kunit *test)
{
	const struct window_clip_case *c = test->param_value;
	u64 start = LIB_START, end = LIB_END;

	sframe_window_clip(&c->w, c->ip, &start, &end);
	KUNIT_EXPECT_EQ(test, start, c->start);
	KUNIT_EXPECT_EQ(test, end, c->end);
	KUNIT_EXPECT_TRUE(test, c->ip >= start && c->ip < end);
	KUNIT_EXPECT_FALSE(test, sframe_window_has(&c->w, start));
}

static struct kunit_case sframe_window_cases[] = {
	KUNIT_CASE_PARAM(sframe_window_clip_keeps_lookup_answers_out_of_windows,
			 window_clip_gen_params),
	{}
};

static struct kunit_suite sframe_window_suite = {
	.name = "sframe_window",
	.test_cases = sframe_window_cases,
};

kunit_test_suite(sframe_window_suite);
