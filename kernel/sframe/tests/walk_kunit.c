// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the walker's step logic: the synthetic stacks of
 * walk_cases.h, in kernel memory, over an x86-64 and an AArch64 program's
 * .sframe, found by decoding and again through the flattened table, then
 * through a step cache, a step at a time and by one fill, as the module
 * walks.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <sframe/walk.h>
#include "flat_check.h"
#include "walk_cases.h"

static void walk_case_desc(const struct walk_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(walk_x86_64, walk_cases_x86_64, walk_case_desc);
KUNIT_ARRAY_PARAM(walk_aarch64, walk_cases_aarch64, walk_case_desc);

static void walk_expect(struct kunit *test, const struct walk_suite *suite,
			const struct walk_case *c,
			const struct sframe_section *sec, struct walk_env *env,
			u64 *got, const char *how)
{
	enum sframe_walk_stop stop = walk_case_run(suite, c, sec, env, got);
	unsigned int k;

	KUNIT_EXPECT_STREQ_MSG(test, sframe_walk_stop_str(stop),
			       sframe_walk_stop_str(c->want_stop), "%s", how);
	KUNIT_EXPECT_EQ_MSG(test, env->fp_fallback_steps, c->want_fallback,
			    "%s: frame-pointer steps where SFrame had none",
			    how);
	if (!env->batch)
		KUNIT_EXPECT_EQ_MSG(test, env->code_rereads, 0U,
				    "%s: a word of code read twice in a step",
				    how);
	KUNIT_EXPECT_LE_MSG(test, env->cached_steps, env->sframe_steps,
			    "%s: SFrame steps by the step cache, of all", how);
	KUNIT_EXPECT_EQ_MSG(test, env->record_cfa_steps, c->want_record_cfa,
			    "%s: SFrame steps with the CFA from a record", how);
	for (k = 0; k < WALK_MAX_FRAMES && (c->want[k] || got[k]); k++)
		KUNIT_EXPECT_EQ_MSG(test, got[k], c->want[k], "%s: frame %u",
				    how, k);
}

/* The current case of @suite, decoded and through the flattened table. */
static void walk_suite_case(struct kunit *test, const struct walk_suite *suite)
{
	const struct walk_case *c = test->param_value;
	struct sframe_section sec;
	struct sframe_flat flat;
	struct walk_env *env;
	unsigned int filling, filled;
	void *mem;
	u64 *got;
	int err;

	KUNIT_ASSERT_EQ(test, sframe_validate(&sec, suite->sframe, suite->size,
					      suite->vaddr,
					      SFRAME_REQUIRE_SORTED, NULL), 0);
	env = kunit_kzalloc(test, sizeof(*env), GFP_KERNEL);
	got = kunit_kcalloc(test, WALK_MAX_FRAMES, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env);
	KUNIT_ASSERT_NOT_NULL(test, got);

	walk_expect(test, suite, c, &sec, env, got, "decoded");
	mem = flat_check_build(&sec, &flat, &err);
	KUNIT_ASSERT_NOT_NULL_MSG(test, mem, "flattening: %d", err);
	walk_expect(test, suite, c, &sec, env, got, "flat table");

	/* The same answers through a step cache, which the first walk fills. */
	env->cache = kunit_kzalloc(test, sizeof(*env->cache), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, env->cache);
	sec.id = 1;
	walk_expect(test, suite, c, &sec, env, got, "step cache filling");
	filling = env->cached_steps;
	walk_expect(test, suite, c, &sec, env, got, "step cache filled");
	KUNIT_EXPECT_GE(test, env->cached_steps, filling);
	/* As the module walks: every frame by one fill. */
	filled = env->cached_steps;
	env->batch = true;
	walk_expect(test, suite, c, &sec, env, got,
		    "step cache filled, one batch");
	KUNIT_EXPECT_EQ(test, env->cached_steps, filled);
	sframe_free(mem);
}

static void sframe_walk_x86_64_reports_callers_and_stop_reason(struct kunit *test)
{
	walk_suite_case(test, &walk_suite_x86_64);
}

static void sframe_walk_aarch64_reports_callers_and_stop_reason(struct kunit *test)
{
	walk_suite_case(test, &walk_suite_aarch64);
}

static struct kunit_case sframe_walk_cases[] = {
	KUNIT_CASE_PARAM(sframe_walk_x86_64_reports_callers_and_stop_reason,
			 walk_x86_64_gen_params),
	KUNIT_CASE_PARAM(sframe_walk_aarch64_reports_callers_and_stop_reason,
			 walk_aarch64_gen_params),
	{}
};

static struct kunit_suite sframe_walk_suite = {
	.name = "sframe_walk",
	.test_cases = sframe_walk_cases,
};

kunit_test_suite(sframe_walk_suite);
