// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the SFrame format core: real sections from three binutils
 * generations validate and yield the rules their objdump shows; damaged
 * ones are rejected with the expected reason.
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <sframe/sframe.h>
#include "core_kunit_data.h"
#include "flat_check.h"
#include "huge_sections.h"

#define AMD64_SP	7
#define AMD64_FP	6
#define AMD64_R10	10

static void sframe_load(struct kunit *test, struct sframe_section *sec,
			const u8 *data, u32 size, u64 vaddr)
{
	struct sframe_error err;

	KUNIT_ASSERT_EQ_MSG(test, sframe_validate(sec, data, size, vaddr,
						  SFRAME_REQUIRE_SORTED, &err),
			    0, "rejected: %s at 0x%x",
			    sframe_reason_str(err.reason), err.offset);
}

static void expect_loc(struct kunit *test, const struct sframe_loc *loc,
		       u8 kind, u8 reg, s32 offset)
{
	KUNIT_EXPECT_EQ(test, loc->kind, kind);
	if (kind == SFRAME_LOC_REG || kind == SFRAME_LOC_AT_REG)
		KUNIT_EXPECT_EQ(test, loc->reg, reg);
	if (kind != SFRAME_LOC_SAME && kind != SFRAME_LOC_UNDEFINED)
		KUNIT_EXPECT_EQ(test, loc->offset, offset);
}

static void find_rule(struct kunit *test, const struct sframe_section *sec,
		      u64 pc, struct sframe_rule *rule)
{
	KUNIT_ASSERT_EQ_MSG(test, sframe_find(sec, pc, rule), 0,
			    "no rule at 0x%llx", pc);
}

static void sframe_validate_accepts_v3_section(struct kunit *test)
{
	struct sframe_section sec;

	sframe_load(test, &sec, sid_prog, sizeof(sid_prog), PROG_SFRAME_VADDR);
	KUNIT_EXPECT_EQ(test, sec.version, SFRAME_VERSION_3);
	KUNIT_EXPECT_EQ(test, sec.num_fdes, 14);
	KUNIT_EXPECT_EQ(test, sec.num_fres, 50);
	KUNIT_EXPECT_EQ(test, sec.fixed_ra, -8);
	KUNIT_EXPECT_FALSE(test, sec.big_endian);
}

static void sframe_find_gives_sp_rule_at_entry(struct kunit *test)
{
	struct sframe_section sec;
	struct sframe_rule rule;

	sframe_load(test, &sec, sid_prog, sizeof(sid_prog), PROG_SFRAME_VADDR);
	find_rule(test, &sec, 0x1210, &rule);
	expect_loc(test, &rule.cfa, SFRAME_LOC_REG, AMD64_SP, 8);
	expect_loc(test, &rule.ra, SFRAME_LOC_AT_CFA, 0, -8);
	expect_loc(test, &rule.fp, SFRAME_LOC_SAME, 0, 0);
	KUNIT_EXPECT_EQ(test, rule.flags, 0);
}

/* The test program's section from each binutils generation (v3, v2, v1). */
static const struct {
	const u8 *data;
	u32 size;
} prog_sections[] = {
	{ sid_prog, sizeof(sid_prog) },
	{ trixie_prog, sizeof(trixie_prog) },
	{ bookworm_prog, sizeof(bookworm_prog) },
};

/* vla_user at 0x1210: after "mov %rsp,%rbp" the CFA is rbp + 16. */
static void sframe_find_gives_fp_rule_in_body_every_version(struct kunit *test)
{
	struct sframe_section sec;
	struct sframe_rule rule;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(prog_sections); i++) {
		sframe_load(test, &sec, prog_sections[i].data,
			    prog_sections[i].size,
			    PROG_SFRAME_VADDR);
		find_rule(test, &sec, 0x1214, &rule);
		expect_loc(test, &rule.cfa, SFRAME_LOC_REG, AMD64_FP, 16);
		expect_loc(test, &rule.fp, SFRAME_LOC_AT_CFA, 0, -16);
		expect_loc(test, &rule.ra, SFRAME_LOC_AT_CFA, 0, -8);
		/* The last byte of the function: "ret" after "leave". */
		find_rule(test, &sec, 0x1210 + 84 - 1, &rule);
		expect_loc(test, &rule.cfa, SFRAME_LOC_REG, AMD64_FP, 16);
	}
}

/* drap at 0x1310: CFA = r10, then *(rbp - 8); FP saved at *(rbp). */
static void sframe_find_decodes_flex_drap_rules(struct kunit *test)
{
	struct sframe_section sec;
	struct sframe_rule rule;

	sframe_load(test, &sec, sid_prog, sizeof(sid_prog), PROG_SFRAME_VADDR);
	find_rule(test, &sec, 0x1315, &rule);
	KUNIT_EXPECT_TRUE(test, rule.flags & SFRAME_RULE_FLEX);
	expect_loc(test, &rule.cfa, SFRAME_LOC_REG, AMD64_R10, 0);
	expect_loc(test, &rule.fp, SFRAME_LOC_SAME, 0, 0);

	find_rule(test, &sec, 0x1328, &rule);
	expect_loc(test, &rule.cfa, SFRAME_LOC_AT_REG, AMD64_FP, -8);
	expect_loc(test, &rule.fp, SFRAME_LOC_AT_REG, AMD64_FP, 0);
	expect_loc(test, &rule.ra, SFRAME_LOC_AT_CFA, 0, -8);
}

static void sframe_find_marks_outermost_and_signal_frames(struct kunit *test)
{
	struct sframe_section sec;
	struct sframe_rule rule;

	sframe_load(test, &sec, sid_prog, sizeof(sid_prog), PROG_SFRAME_VADDR);
	find_rule(test, &sec, 0x145c, &rule);
	KUNIT_EXPECT_TRUE(test, rule.flags & SFRAME_RULE_OUTERMOST);
	KUNIT_EXPECT_EQ(test, rule.ra.kind, SFRAME_LOC_UNDEFINED);

	find_rule(test, &sec, 0x1465, &rule);
	KUNIT_EXPECT_TRUE(test, rule.flags & SFRAME_RULE_SIGNAL);
	expect_loc(test, &rule.cfa, SFRAME_LOC_REG, AMD64_SP, 8);
}

/* .plt at 0x1030: 16-byte entries, "jmp *x(%rip); push $n; jmp .plt". */
static void sframe_find_masks_pc_in_plt_entries(struct kunit *test)
{
	struct sframe_section sec;
	struct sframe_rule rule;
	u64 entry;

	sframe_load(test, &sec, sid_prog, sizeof(sid_prog), PROG_SFRAME_VADDR);
	for (entry = 0x1030; entry < 0x1030 + 48; entry += 16) {
		find_rule(test, &sec, entry + 0x5, &rule);
		expect_loc(test, &rule.cfa, SFRAME_LOC_REG, AMD64_SP, 8);
		find_rule(test, &sec, entry + 0xb, &rule);
		expect_loc(test, &rule.cfa, SFRAME_LOC_REG, AMD64_SP, 16);
	}
}

static void sframe_find_misses_outside_functions(struct kunit *test)
{
	struct sframe_section sec;
	struct sframe_rule rule;

	sframe_load(test, &sec, sid_prog, sizeof(sid_prog), PROG_SFRAME_VADDR);
	KUNIT_EXPECT_EQ(test, sframe_find(&sec, 0x101f, &rule), -ENOENT);
	KUNIT_EXPECT_EQ(test, sframe_find(&sec, 0x146e + 15, &rule), -ENOENT);
	KUNIT_EXPECT_EQ(test, sframe_find(&sec, 0, &rule), -ENOENT);
	KUNIT_EXPECT_EQ(test, sframe_find(&sec, ~0ULL, &rule), -ENOENT);
}

static void sframe_index_agrees_with_binary_search(struct kunit *test)
{
	struct sframe_section plain, indexed;
	struct sframe_fde a, b;
	u32 *index;
	u64 pc;

	sframe_load(test, &plain, sid_prog, sizeof(sid_prog), PROG_SFRAME_VADDR);
	indexed = plain;
	index = kunit_kcalloc(test, sframe_index_entries(&indexed),
			      sizeof(*index), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, index);
	sframe_index_build(&indexed, index);
	KUNIT_ASSERT_EQ(test, indexed.index_entries,
			DIV_ROUND_UP(14, SFRAME_INDEX_STRIDE));
	for (pc = 0x1000; pc < 0x1490; pc++) {
		int ra = sframe_find_fde(&plain, pc, &a);
		int rb = sframe_find_fde(&indexed, pc, &b);

		KUNIT_ASSERT_EQ(test, ra, rb);
		if (!ra)
			KUNIT_ASSERT_EQ(test, a.index, b.index);
	}
}

/* The flattened table answers like the decoder at every PC, every version. */
static void sframe_flat_agrees_with_decoder(struct kunit *test)
{
	struct sframe_section sec;
	struct sframe_flat flat;
	const char *why = NULL;
	unsigned int i;
	u64 bad = 0;
	void *mem;
	int err;

	for (i = 0; i < ARRAY_SIZE(prog_sections); i++) {
		sframe_load(test, &sec, prog_sections[i].data,
			    prog_sections[i].size,
			    PROG_SFRAME_VADDR);
		mem = flat_check_build(&sec, &flat, &err);
		KUNIT_ASSERT_NOT_NULL_MSG(test, mem, "section %u: %d", i, err);
		KUNIT_EXPECT_LE(test, flat.nr_rows, 2 * sec.num_fdes +
						     sec.num_fres + 1);
		KUNIT_EXPECT_GT_MSG(test, flat_check_all(&sec, &flat, &bad, &why),
				    0, "section %u: at 0x%llx: %s", i, bad, why);
		sframe_free(mem);
	}
}

/* A relocatable object's unsorted section cannot be flattened. */
static void sframe_flat_refuses_unsorted(struct kunit *test)
{
	struct sframe_section sec;
	struct sframe_flat flat;
	int err = 0;

	KUNIT_ASSERT_EQ(test, sframe_validate(&sec, sid_hand_o,
					      sizeof(sid_hand_o), 0, 0, NULL),
			0);
	KUNIT_ASSERT_FALSE(test, sec.flags & SFRAME_F_FDE_SORTED);
	KUNIT_EXPECT_NULL(test, flat_check_build(&sec, &flat, &err));
	KUNIT_EXPECT_EQ(test, err, sframe_reason_errno(SFRAME_ERR_NOT_SORTED));
	KUNIT_EXPECT_NULL(test, sec.flat);
}

#define HUGE_VADDR	0x10000
#define HUGE_TEXT	0x400000

/* @h in test-managed memory, validated as the module does: the errno. */
static int huge_load(struct kunit *test, const struct huge_section *h,
		     struct sframe_section *sec, struct sframe_error *err)
{
	u32 size = huge_section_size(h);
	u8 *data;

	KUNIT_ASSERT_NE(test, size, 0);
	data = kunit_kmalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, data);
	huge_section_fill(h, data, HUGE_VADDR);
	return sframe_validate(sec, data, size, HUGE_VADDR,
			       SFRAME_REQUIRE_SORTED | SFRAME_SEGMENT_PADDING,
			       err);
}

/*
 * One function of 200000 FREs is flattened, and a lookup anywhere in it
 * searches a block's rows: at most as many steps as the row count has
 * bits, where decoding would read every FRE before the PC.
 */
static void sframe_flat_bounds_lookup_in_huge_function(struct kunit *test)
{
	const struct huge_section h = {
		.text = HUGE_TEXT, .nr_fdes = 1, .fres = 200000,
		.fre_step = 1, .nr_rules = 2, .tail = 64,
	};
	unsigned int bits = 0;
	struct sframe_section sec;
	struct sframe_error err;
	struct sframe_flat flat;
	const char *why;
	void *mem;
	u64 pc;
	u32 n;
	int ret;

	KUNIT_ASSERT_EQ(test, huge_load(test, &h, &sec, &err), 0);
	mem = flat_check_build(&sec, &flat, &ret);
	KUNIT_ASSERT_NOT_NULL_MSG(test, mem, "flattening: %d", ret);
	KUNIT_EXPECT_EQ(test, flat.nr_rules, 2);
	KUNIT_EXPECT_GE(test, flat.nr_rows, h.fres);
	for (n = flat.nr_rows; n; n >>= 1)
		bits++;
	KUNIT_EXPECT_LE(test, flat_check_max_steps(&flat), bits);
	KUNIT_EXPECT_LE(test, flat_check_max_steps(&flat),
			SFRAME_MAX_SEARCH_STEPS);
	for (pc = HUGE_TEXT - 1; pc < huge_tail(&h) + h.tail + 2;
	     pc += pc < huge_tail(&h) - 8 ? 4099 : 1) {
		why = flat_check_pc(&sec, &flat, pc);
		KUNIT_ASSERT_NULL_MSG(test, why, "at 0x%llx: %s", pc, why);
	}
	sframe_free(mem);
}

/* More distinct rules than a row word names: refused, with its reason. */
static void sframe_flat_refuses_too_many_rules(struct kunit *test)
{
	const struct huge_section h = {
		.text = HUGE_TEXT, .nr_fdes = 1,
		.fres = SFRAME_FLAT_MAX_RULES + 1, .fre_step = 1,
		.nr_rules = SFRAME_FLAT_MAX_RULES + 1,
	};
	struct sframe_flat_builder *b;
	struct sframe_section sec;
	struct sframe_error err;
	size_t bytes;

	KUNIT_ASSERT_EQ(test, huge_load(test, &h, &sec, &err), 0);
	b = kunit_kmalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, sframe_flat_size(&sec, b, &bytes),
			sframe_reason_errno(SFRAME_ERR_FLAT_RULES));
	KUNIT_EXPECT_EQ(test, b->error.reason, SFRAME_ERR_FLAT_RULES);
	KUNIT_EXPECT_EQ(test, b->error.fde, 0);
}

/* A PC-mask FDE (a PLT) decodes its FREs at each lookup: at most 16. */
static void sframe_validate_caps_pc_mask_fres(struct kunit *test)
{
	struct huge_section h = {
		.text = HUGE_TEXT, .nr_fdes = 1,
		.fres = SFRAME_MAX_MASK_FRES, .fre_step = 1,
		.nr_rules = SFRAME_MAX_MASK_FRES, .tail = 1024,
		.rep_size = 64,
	};
	struct sframe_section sec;
	struct sframe_error err;
	struct sframe_fde fde;
	struct sframe_fre fre;
	u32 fre_index;
	u64 pc;

	KUNIT_ASSERT_EQ(test, huge_load(test, &h, &sec, &err), 0);
	for (pc = HUGE_TEXT; pc < HUGE_TEXT + h.fres + h.tail; pc++) {
		KUNIT_ASSERT_EQ(test, sframe_find_fde(&sec, pc, &fde), 0);
		KUNIT_ASSERT_EQ(test, sframe_fde_find_fre(&sec, &fde, pc, &fre,
							  &fre_index), 0);
		KUNIT_ASSERT_LT(test, fre_index, SFRAME_MAX_MASK_FRES);
	}
	h.fres++;
	KUNIT_EXPECT_EQ(test, huge_load(test, &h, &sec, &err),
			sframe_reason_errno(SFRAME_ERR_MASK_FRES));
	KUNIT_EXPECT_EQ(test, err.reason, SFRAME_ERR_MASK_FRES);
}

static void sframe_validate_accepts_big_endian_s390x(struct kunit *test)
{
	struct sframe_section sec;
	struct sframe_rule rule;
	struct sframe_error err;

	KUNIT_ASSERT_EQ(test, sframe_validate(&sec, data_be_v3,
					      sizeof(data_be_v3), 0, 0, &err), 0);
	KUNIT_EXPECT_TRUE(test, sec.big_endian);
	KUNIT_EXPECT_EQ(test, sec.abi, SFRAME_ABI_S390X_ENDIAN_BIG);
	/* Unrelocated .o: the PC-relative start lands just below 0. */
	find_rule(test, &sec, (u64)-0x18, &rule);
	expect_loc(test, &rule.cfa, SFRAME_LOC_REG, 15, 160);
	expect_loc(test, &rule.ra, SFRAME_LOC_REG, 16, 0);
	expect_loc(test, &rule.fp, SFRAME_LOC_REG, 17, 0);
}

/* Damage to a copy of a valid section, and the reason it must give. */
struct sframe_damage {
	const char *name;
	int resize;			/* bytes added (or, negative, dropped) */
	int offset;			/* byte to overwrite, or -1 */
	u8 value;
	enum sframe_reason reason;
};

static const struct sframe_damage damages[] = {
	{ "truncated header", 27 - (int)sizeof(sid_prog), -1, 0,
	  SFRAME_ERR_HEADER_TRUNCATED },
	{ "bad magic", 0, 0, 0x00, SFRAME_ERR_MAGIC },
	{ "unknown version", 0, 2, 9, SFRAME_ERR_VERSION },
	{ "v3 frame-pointer flag", 0, 3, 0x7, SFRAME_ERR_FLAGS },
	{ "unknown ABI", 0, 4, 0x40, SFRAME_ERR_ABI },
	{ "no fixed RA on AMD64", 0, 6, 0, SFRAME_ERR_FIXED_OFFSET },
	{ "FDE count past the end", 0, 11, 0x10, SFRAME_ERR_FDE_TABLE },
	{ "last byte missing", -1, -1, 0, SFRAME_ERR_FRE_SECTION },
	{ "trailing byte", 1, -1, 0, SFRAME_ERR_TRAILING_BYTES },
};

static void sframe_damage_desc(const struct sframe_damage *d, char *desc)
{
	strscpy(desc, d->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sframe_damage, damages, sframe_damage_desc);

static void sframe_validate_rejects_damage(struct kunit *test)
{
	const struct sframe_damage *d = test->param_value;
	u32 len = sizeof(sid_prog) + d->resize;
	struct sframe_section sec;
	struct sframe_error err;
	u8 *copy;

	/* Exactly @len bytes, so KASAN sees any read past the end. */
	copy = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, copy);
	memcpy(copy, sid_prog, min_t(u32, len, sizeof(sid_prog)));
	if (d->offset >= 0)
		copy[d->offset] = d->value;
	KUNIT_EXPECT_EQ(test, sframe_validate(&sec, copy, len, 0, 0, &err),
			sframe_reason_errno(d->reason));
	KUNIT_EXPECT_EQ(test, err.reason, d->reason);
}

static void sframe_validate_requires_sorted_when_asked(struct kunit *test)
{
	struct sframe_section sec;
	struct sframe_error err;

	KUNIT_EXPECT_EQ(test, sframe_validate(&sec, sid_hand_o,
					      sizeof(sid_hand_o), 0, 0, &err), 0);
	KUNIT_EXPECT_EQ(test, sframe_validate(&sec, sid_hand_o,
					      sizeof(sid_hand_o), 0,
					      SFRAME_REQUIRE_SORTED, &err),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, err.reason, SFRAME_ERR_NOT_SORTED);
}

static struct kunit_case sframe_core_cases[] = {
	KUNIT_CASE(sframe_validate_accepts_v3_section),
	KUNIT_CASE(sframe_find_gives_sp_rule_at_entry),
	KUNIT_CASE(sframe_find_gives_fp_rule_in_body_every_version),
	KUNIT_CASE(sframe_find_decodes_flex_drap_rules),
	KUNIT_CASE(sframe_find_marks_outermost_and_signal_frames),
	KUNIT_CASE(sframe_find_masks_pc_in_plt_entries),
	KUNIT_CASE(sframe_find_misses_outside_functions),
	KUNIT_CASE(sframe_index_agrees_with_binary_search),
	KUNIT_CASE(sframe_flat_agrees_with_decoder),
	KUNIT_CASE(sframe_flat_refuses_unsorted),
	KUNIT_CASE(sframe_flat_bounds_lookup_in_huge_function),
	KUNIT_CASE(sframe_flat_refuses_too_many_rules),
	KUNIT_CASE(sframe_validate_caps_pc_mask_fres),
	KUNIT_CASE(sframe_validate_accepts_big_endian_s390x),
	KUNIT_CASE_PARAM(sframe_validate_rejects_damage,
			 sframe_damage_gen_params),
	KUNIT_CASE(sframe_validate_requires_sorted_when_asked),
	{}
};

static struct kunit_suite sframe_core_suite = {
	.name = "sframe_core",
	.test_cases = sframe_core_cases,
};

kunit_test_suite(sframe_core_suite);

MODULE_DESCRIPTION("KUnit tests for the SFrame format core");
MODULE_LICENSE("GPL");
