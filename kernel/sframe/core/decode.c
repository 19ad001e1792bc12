// SPDX-License-Identifier: GPL-2.0
/*
 * Decoders for FDEs, FREs and frame rules.  Validation runs every one of
 * them over the whole section, so after it they cannot fail; lookups and
 * iteration use the same code.
 */
#include <sframe/sframe.h>
#include "read.h"

/* binutils 2.40 (v1) had no rep_size; its only PCMASK FDEs were x86-64 PLTs. */
#define SFRAME_V1_AMD64_PLT_ENTRY_SIZE	16

static bool sframe_abi_is_aarch64(u8 abi)
{
	return abi == SFRAME_ABI_AARCH64_ENDIAN_BIG ||
	       abi == SFRAME_ABI_AARCH64_ENDIAN_LITTLE;
}

static enum sframe_reason sframe_decode_fde_v3(const struct sframe_section *sec,
					       u32 field,
					       struct sframe_fde *fde)
{
	u32 fre_off, attr;

	fde->size = sframe_get32(sec, field + SFRAME_V3_FDE_FUNC_SIZE);
	fre_off = sframe_get32(sec, field + SFRAME_V3_FDE_FRE_OFF);
	if (fre_off > sec->fre_len ||
	    sec->fre_len - fre_off < SFRAME_V3_ATTR_SIZE)
		return SFRAME_ERR_FDE_FRE_OFF;

	attr = sec->fre_section + fre_off;
	fde->num_fres = sframe_get16(sec, attr + SFRAME_V3_ATTR_NUM_FRES);
	fde->info = sec->data[attr + SFRAME_V3_ATTR_INFO];
	fde->info2 = sec->data[attr + SFRAME_V3_ATTR_INFO2];
	fde->rep_size = sec->data[attr + SFRAME_V3_ATTR_REP_SIZE];
	fde->fres = attr + SFRAME_V3_ATTR_SIZE;
	if ((fde->info & SFRAME_V3_FDE_INFO_UNUSED) ||
	    (fde->info2 & SFRAME_V3_FDE_INFO2_UNUSED))
		return SFRAME_ERR_FDE_INFO;
	fde->fde_type = SFRAME_FDE_INFO2_TYPE(fde->info2);
	fde->signal = SFRAME_FDE_INFO_SIGNAL(fde->info);
	return SFRAME_VALID;
}

static enum sframe_reason sframe_decode_fde_v12(const struct sframe_section *sec,
						u32 field,
						struct sframe_fde *fde)
{
	u32 fre_off;

	fde->size = sframe_get32(sec, field + SFRAME_V12_FDE_FUNC_SIZE);
	fre_off = sframe_get32(sec, field + SFRAME_V12_FDE_FRE_OFF);
	fde->num_fres = sframe_get32(sec, field + SFRAME_V12_FDE_NUM_FRES);
	fde->info = sec->data[field + SFRAME_V12_FDE_INFO];
	fde->info2 = 0;
	fde->rep_size = 0;
	if (sec->version == SFRAME_VERSION_2)
		fde->rep_size = sec->data[field + SFRAME_V2_FDE_REP_SIZE];
	if (fre_off > sec->fre_len)
		return SFRAME_ERR_FDE_FRE_OFF;
	fde->fres = sec->fre_section + fre_off;
	if (fde->info & SFRAME_V12_FDE_INFO_UNUSED)
		return SFRAME_ERR_FDE_INFO;
	fde->fde_type = SFRAME_FDE_TYPE_DEFAULT;
	fde->signal = false;
	return SFRAME_VALID;
}

/**
 * sframe_decode_fde() - decode one FDE and check its fields
 * @sec: the section
 * @index: the FDE's index; it must be in the table (not checked here)
 * @fde: filled in
 *
 * Shared by validation and lookup: after validation it cannot fail.
 *
 * Return: SFRAME_VALID; SFRAME_ERR_FDE_FRE_OFF if its FREs (or, in v3,
 * its attributes) start outside the FRE sub-section; SFRAME_ERR_FDE_INFO
 * for unused info bits set, or a pointer-authentication key outside
 * AArch64; SFRAME_ERR_FRE_TYPE or SFRAME_ERR_FDE_TYPE for an unknown FRE
 * or FDE type; SFRAME_ERR_REP_SIZE for a PC-mask FDE with no repetition
 * size.
 */
enum sframe_reason sframe_decode_fde(const struct sframe_section *sec,
				     u32 index, struct sframe_fde *fde)
{
	u32 field = sec->fde_table + index * sec->fde_size;
	enum sframe_reason reason;

	fde->index = index;
	fde->rel_start = sframe_fde_rel_start(sec, index);
	fde->start = sec->vaddr + (u64)fde->rel_start;
	if (sec->version == SFRAME_VERSION_3)
		reason = sframe_decode_fde_v3(sec, field, fde);
	else
		reason = sframe_decode_fde_v12(sec, field, fde);
	if (reason)
		return reason;

	fde->fre_type = SFRAME_FDE_INFO_FRE_TYPE(fde->info);
	fde->pc_type = SFRAME_FDE_INFO_PC_TYPE(fde->info);
	if (fde->fre_type > SFRAME_FRE_TYPE_ADDR4)
		return SFRAME_ERR_FRE_TYPE;
	if (fde->fde_type > SFRAME_FDE_TYPE_FLEX)
		return SFRAME_ERR_FDE_TYPE;
	if (SFRAME_FDE_INFO_PAUTH_KEY(fde->info) &&
	    !sframe_abi_is_aarch64(sec->abi))
		return SFRAME_ERR_FDE_INFO;
	if (fde->pc_type == SFRAME_PC_TYPE_MASK) {
		if (sec->version == SFRAME_VERSION_1 &&
		    sec->abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE)
			fde->rep_size = SFRAME_V1_AMD64_PLT_ENTRY_SIZE;
		if (!fde->rep_size)
			return SFRAME_ERR_REP_SIZE;
	}
	return SFRAME_VALID;
}

/**
 * sframe_decode_fre() - decode the FRE at a section offset
 * @sec: the section
 * @fde: the FDE the FRE belongs to
 * @offset: where it starts in the section
 * @fre: filled in, its data words raw
 *
 * Bounds are checked against the FRE sub-section.  Shared by validation
 * and lookup: after validation it cannot fail.
 *
 * Return: SFRAME_VALID; SFRAME_ERR_FRE_TRUNCATED if it runs past the FRE
 * sub-section; SFRAME_ERR_FRE_WORD_SIZE for an unknown word size;
 * SFRAME_ERR_FRE_WORD_COUNT for more words than its FDE's type allows;
 * SFRAME_ERR_FRE_INFO for a mangled RA outside AArch64.
 */
enum sframe_reason sframe_decode_fre(const struct sframe_section *sec,
				     const struct sframe_fde *fde, u32 offset,
				     struct sframe_fre *fre)
{
	unsigned int max_words, i;
	enum sframe_reason reason;
	u32 pos;

	reason = sframe_fre_span(sec, fde, offset, &fre->start, &fre->next);
	if (reason)
		return reason;
	fre->offset = offset;
	pos = offset + (1U << fde->fre_type);
	fre->info = sec->data[pos++];
	fre->word_bytes = 1U << SFRAME_FRE_INFO_WORD_SIZE(fre->info);
	fre->num_words = SFRAME_FRE_INFO_WORDS(fre->info);
	max_words = fde->fde_type == SFRAME_FDE_TYPE_FLEX ?
		    SFRAME_FLEX_MAX_WORDS : SFRAME_DEFAULT_MAX_WORDS;
	if (fre->num_words > max_words)
		return SFRAME_ERR_FRE_WORD_COUNT;
	if (SFRAME_FRE_INFO_RA_MANGLED(fre->info) &&
	    !sframe_abi_is_aarch64(sec->abi))
		return SFRAME_ERR_FRE_INFO;

	for (i = 0; i < fre->num_words; i++, pos += fre->word_bytes) {
		if (fre->word_bytes == 1)
			fre->words[i] = sec->data[pos];
		else if (fre->word_bytes == 2)
			fre->words[i] = sframe_get16(sec, pos);
		else
			fre->words[i] = sframe_get32(sec, pos);
	}
	return SFRAME_VALID;
}

/**
 * sframe_fre_word() - one of an FRE's data words, sign-extended
 * @fre: the FRE
 * @i: the word's index, below fre->num_words
 *
 * Return: the word as a signed value.
 */
s32 sframe_fre_word(const struct sframe_fre *fre, unsigned int i)
{
	u32 w = fre->words[i];

	if (fre->word_bytes == 1)
		return (s8)w;
	if (fre->word_bytes == 2)
		return (s16)w;
	return (s32)w;
}

/* The CFA offset a data word encodes; s390x scales and biases it. */
static enum sframe_reason sframe_cfa_offset(const struct sframe_section *sec,
					    s32 word, s32 *offset)
{
	s64 off = word;

	if (sec->abi == SFRAME_ABI_S390X_ENDIAN_BIG)
		off = off * SFRAME_S390X_CFA_OFFSET_ALIGN +
		      SFRAME_S390X_CFA_OFFSET_BIAS;
	if (off < S32_MIN || off > S32_MAX)
		return SFRAME_ERR_CFA_OFFSET;
	*offset = (s32)off;
	return SFRAME_VALID;
}

/* RA or FP from a default FDE's data word: a CFA slot, or an s390x v2 reg. */
static void sframe_default_loc(const struct sframe_section *sec, s32 word,
			       struct sframe_loc *loc)
{
	if (sec->abi == SFRAME_ABI_S390X_ENDIAN_BIG &&
	    sec->version == SFRAME_VERSION_2 && (word & 1)) {
		loc->kind = SFRAME_LOC_REG;
		loc->reg = (u8)(word >> 1);
		loc->offset = 0;
		return;
	}
	loc->kind = SFRAME_LOC_AT_CFA;
	loc->offset = word;
}

/* The location when the FRE does not track it: fixed slot, or unchanged. */
static void sframe_untracked_loc(s8 fixed, struct sframe_loc *loc)
{
	if (fixed) {
		loc->kind = SFRAME_LOC_AT_CFA;
		loc->offset = fixed;
	} else {
		loc->kind = SFRAME_LOC_SAME;
	}
}

static enum sframe_reason sframe_default_rule(const struct sframe_section *sec,
					      const struct sframe_fre *fre,
					      struct sframe_rule *rule)
{
	unsigned int i = 1;

	rule->cfa.kind = SFRAME_LOC_REG;
	rule->cfa.reg = SFRAME_FRE_INFO_BASE_REG(fre->info) ==
			SFRAME_BASE_REG_SP ? sec->sp_reg : sec->fp_reg;
	if (sframe_cfa_offset(sec, sframe_fre_word(fre, 0), &rule->cfa.offset))
		return SFRAME_ERR_CFA_OFFSET;

	if (sec->fixed_ra) {
		sframe_untracked_loc(sec->fixed_ra, &rule->ra);
	} else if (i < fre->num_words) {
		s32 word = sframe_fre_word(fre, i++);

		/* A zero RA word pads for an FP saved without the RA. */
		if (word)
			sframe_default_loc(sec, word, &rule->ra);
		else
			rule->ra.kind = SFRAME_LOC_SAME;
	} else {
		rule->ra.kind = SFRAME_LOC_SAME;
	}

	/* A fixed FP slot in the header means FREs do not carry the FP. */
	if (!sec->fixed_fp && i < fre->num_words)
		sframe_default_loc(sec, sframe_fre_word(fre, i++), &rule->fp);
	else
		sframe_untracked_loc(sec->fixed_fp, &rule->fp);

	return i == fre->num_words ? SFRAME_VALID : SFRAME_ERR_FRE_WORD_COUNT;
}

/* A flex {control, offset} pair for the RA or the FP. */
static enum sframe_reason sframe_flex_loc(u32 ctrl, s32 offset,
					  struct sframe_loc *loc)
{
	if (SFRAME_FLEX_CTRL_RESERVED(ctrl))
		return SFRAME_ERR_FLEX_CONTROL;
	loc->offset = offset;
	if (!SFRAME_FLEX_CTRL_REG_P(ctrl)) {
		/* CFA based: always a stack slot; "*(*(CFA + off))" is not a rule. */
		if (SFRAME_FLEX_CTRL_DEREF_P(ctrl))
			return SFRAME_ERR_FLEX_CONTROL;
		loc->kind = SFRAME_LOC_AT_CFA;
		return SFRAME_VALID;
	}
	if (SFRAME_FLEX_CTRL_REGNUM(ctrl) > 0xff)
		return SFRAME_ERR_FLEX_CONTROL;
	loc->reg = (u8)SFRAME_FLEX_CTRL_REGNUM(ctrl);
	loc->kind = SFRAME_FLEX_CTRL_DEREF_P(ctrl) ? SFRAME_LOC_AT_REG :
						     SFRAME_LOC_REG;
	return SFRAME_VALID;
}

static enum sframe_reason sframe_flex_rule(const struct sframe_section *sec,
					   const struct sframe_fre *fre,
					   struct sframe_rule *rule)
{
	unsigned int n = fre->num_words, i = 2;
	enum sframe_reason reason;
	u32 ctrl;

	rule->flags |= SFRAME_RULE_FLEX;
	if (n < 2)
		return SFRAME_ERR_FRE_WORD_COUNT;
	ctrl = fre->words[0];
	if (!SFRAME_FLEX_CTRL_REG_P(ctrl))
		return SFRAME_ERR_FLEX_CONTROL;
	reason = sframe_flex_loc(ctrl, sframe_fre_word(fre, 1), &rule->cfa);
	if (reason)
		return reason;
	if (sframe_cfa_offset(sec, rule->cfa.offset, &rule->cfa.offset))
		return SFRAME_ERR_CFA_OFFSET;

	if (i < n && fre->words[i] == 0) {
		sframe_untracked_loc(sec->fixed_ra, &rule->ra);
		i++;
	} else if (i < n) {
		if (i + 1 >= n)
			return SFRAME_ERR_FRE_WORD_COUNT;
		reason = sframe_flex_loc(fre->words[i],
					 sframe_fre_word(fre, i + 1), &rule->ra);
		if (reason)
			return reason;
		i += 2;
	} else {
		sframe_untracked_loc(sec->fixed_ra, &rule->ra);
	}

	if (i < n) {
		if (i + 1 >= n)
			return SFRAME_ERR_FRE_WORD_COUNT;
		if (fre->words[i] == 0)
			return SFRAME_ERR_FLEX_CONTROL;
		reason = sframe_flex_loc(fre->words[i],
					 sframe_fre_word(fre, i + 1), &rule->fp);
		if (reason)
			return reason;
		i += 2;
	} else {
		sframe_untracked_loc(sec->fixed_fp, &rule->fp);
	}

	return i == n ? SFRAME_VALID : SFRAME_ERR_FRE_WORD_COUNT;
}

/**
 * sframe_decode_rule() - the frame rule an FRE encodes
 * @sec: the section
 * @fde: the FDE of @fre
 * @fre: the FRE
 * @rule: filled in
 *
 * An FRE without data words marks the outermost frame: its RA is
 * undefined.  Shared by validation and lookup: after validation it cannot
 * fail.
 *
 * Return: SFRAME_VALID; SFRAME_ERR_CFA_OFFSET for a CFA offset out of
 * range; SFRAME_ERR_FRE_WORD_COUNT for a number of words the rule cannot
 * have; SFRAME_ERR_FLEX_CONTROL for a flex control word no rule allows.
 */
enum sframe_reason sframe_decode_rule(const struct sframe_section *sec,
				      const struct sframe_fde *fde,
				      const struct sframe_fre *fre,
				      struct sframe_rule *rule)
{
	*rule = (struct sframe_rule){ 0 };
	if (fde->signal)
		rule->flags |= SFRAME_RULE_SIGNAL;
	if (SFRAME_FRE_INFO_RA_MANGLED(fre->info))
		rule->flags |= SFRAME_RULE_RA_MANGLED;

	if (!fre->num_words) {
		rule->flags |= SFRAME_RULE_OUTERMOST;
		rule->ra.kind = SFRAME_LOC_UNDEFINED;
		return SFRAME_VALID;
	}
	if (fde->fde_type == SFRAME_FDE_TYPE_FLEX)
		return sframe_flex_rule(sec, fre, rule);
	return sframe_default_rule(sec, fre, rule);
}

static bool sframe_loc_equal(const struct sframe_loc *a,
			     const struct sframe_loc *b)
{
	return a->kind == b->kind && a->reg == b->reg && a->offset == b->offset;
}

/**
 * sframe_rule_equal() - whether two frame rules say the same
 * @a: one rule
 * @b: the other
 *
 * Field by field: struct padding is not part of a rule.
 *
 * Return: true if they are equal.
 */
bool sframe_rule_equal(const struct sframe_rule *a,
		       const struct sframe_rule *b)
{
	return a->flags == b->flags && sframe_loc_equal(&a->cfa, &b->cfa) &&
	       sframe_loc_equal(&a->ra, &b->ra) &&
	       sframe_loc_equal(&a->fp, &b->fp);
}

/**
 * sframe_get_fde() - decode one FDE of a validated section
 * @sec: the section
 * @index: the FDE's index
 * @fde: filled in
 *
 * Return: 0, or -EINVAL if @index is past the last FDE.
 */
int sframe_get_fde(const struct sframe_section *sec, u32 index,
		   struct sframe_fde *fde)
{
	if (index >= sec->num_fdes || sframe_decode_fde(sec, index, fde))
		return -EINVAL;
	return 0;
}

/**
 * sframe_read_fre() - decode the FRE at a section offset
 * @sec: the section
 * @fde: the FDE the FRE belongs to
 * @offset: where it starts in the section (fde->fres, or a previous
 *	FRE's next)
 * @fre: filled in
 *
 * Return: 0, or -EINVAL if the bytes there are not a valid FRE of @fde.
 */
int sframe_read_fre(const struct sframe_section *sec,
		    const struct sframe_fde *fde, u32 offset,
		    struct sframe_fre *fre)
{
	return sframe_decode_fre(sec, fde, offset, fre) ? -EINVAL : 0;
}

/**
 * sframe_fre_rule() - the frame rule an FRE encodes
 * @sec: the section
 * @fde: the FDE of @fre
 * @fre: the FRE
 * @rule: filled in
 *
 * Return: 0, or -EINVAL if the FRE's words are no rule the ABI allows.
 */
int sframe_fre_rule(const struct sframe_section *sec,
		    const struct sframe_fde *fde, const struct sframe_fre *fre,
		    struct sframe_rule *rule)
{
	return sframe_decode_rule(sec, fde, fre, rule) ? -EINVAL : 0;
}
