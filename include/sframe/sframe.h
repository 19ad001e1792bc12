/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SFrame format core: validate an untrusted section once, completely,
 * into a handle; then look up the frame rule for a PC, or iterate over the
 * section's functions (FDEs) and rows (FREs).  Pure C, no allocation; the
 * same code is built into the kernel module and into sframectl.
 */
#ifndef _SFRAME_SFRAME_H
#define _SFRAME_SFRAME_H

#include "arch.h"
#include "compat.h"
#include "format.h"

/*
 * Why a section was rejected.  Each reason has one errno and one message;
 * the kernel counts rejections by reason.
 */
enum sframe_reason {
	SFRAME_VALID = 0,
	SFRAME_ERR_HEADER_TRUNCATED,
	SFRAME_ERR_MAGIC,
	SFRAME_ERR_VERSION,
	SFRAME_ERR_FLAGS,
	SFRAME_ERR_ABI,
	SFRAME_ERR_ABI_BYTE_ORDER,
	SFRAME_ERR_FIXED_OFFSET,
	SFRAME_ERR_AUXHDR,
	SFRAME_ERR_FDE_TABLE,
	SFRAME_ERR_FRE_SECTION,
	SFRAME_ERR_SUBSECTION_OVERLAP,
	SFRAME_ERR_TRAILING_BYTES,
	SFRAME_ERR_NOT_SORTED,
	SFRAME_ERR_FDE_INFO,
	SFRAME_ERR_FDE_TYPE,
	SFRAME_ERR_FRE_TYPE,
	SFRAME_ERR_REP_SIZE,
	SFRAME_ERR_FUNC_RANGE,
	SFRAME_ERR_FDE_ORDER,
	SFRAME_ERR_FDE_FRE_OFF,
	SFRAME_ERR_FRE_TRUNCATED,
	SFRAME_ERR_FRE_WORD_SIZE,
	SFRAME_ERR_FRE_WORD_COUNT,
	SFRAME_ERR_FRE_ORDER,
	SFRAME_ERR_FRE_START,
	SFRAME_ERR_FRE_INFO,
	SFRAME_ERR_FLEX_CONTROL,
	SFRAME_ERR_CFA_OFFSET,
	SFRAME_ERR_FRE_COUNT,
	SFRAME_ERR_FRE_LEN,
	SFRAME_ERR_MASK_FRES,
	SFRAME_ERR_FLAT_SPAN,
	SFRAME_ERR_FLAT_RULES,
	SFRAME_ERR_FLAT_MASKS,
	SFRAME_NR_REASONS
};

/* Where validation stopped: the reason, the byte offset, the FDE index. */
struct sframe_error {
	enum sframe_reason reason;
	u32 offset;
	u32 fde;			/* SFRAME_NO_FDE when not per function */
};

#define SFRAME_NO_FDE		0xffffffffU

/* Validation options. */
#define SFRAME_REQUIRE_SORTED	0x1	/* reject sections without FDE_SORTED */
/*
 * Accept zero bytes after the FRE sub-section: ld makes PT_GNU_SFRAME
 * longer than .sframe in dynamic objects (binutils 2.40 to 2.47), and pads
 * with zeros.  The handle's size is then the section's own.
 */
#define SFRAME_SEGMENT_PADDING	0x2

/*
 * A validated section.  It points at the caller's bytes, which must stay
 * unchanged for the handle's lifetime.  vaddr is the address the section's
 * first byte is linked at, so that FDE start addresses come out in the
 * object's address space (0 for relocatable objects and raw sections).
 */
struct sframe_section {
	const u8 *data;
	u32 size;
	u64 vaddr;
	u8 version;
	u8 flags;
	u8 abi;
	bool big_endian;
	s8 fixed_fp;
	s8 fixed_ra;
	u8 fde_size;
	u8 sp_reg;			/* DWARF numbers of SP and FP */
	u8 fp_reg;
	u32 num_fdes;
	u32 num_fres;
	u32 fde_table;			/* section offset of the FDE table */
	u32 fre_section;		/* section offset of the FRE sub-section */
	u32 fre_len;
	const u32 *index;		/* optional, see sframe_index_build() */
	u32 index_entries;
	s64 index_base;
	const struct sframe_flat *flat;	/* optional, see sframe_flat_build() */
	/*
	 * Set by the owner after validation, never reused: the key of the
	 * walk's step cache (walk.h); 0, the default, keeps it out.
	 */
	u64 id;
};

/*
 * The optional lookup index samples every SFRAME_INDEX_STRIDE-th FDE start
 * into a small u32 array, so that the binary search touches a few cache
 * lines instead of the whole FDE table.
 */
#define SFRAME_INDEX_STRIDE	8

/*
 * Most FREs a PC-mask FDE (a PLT) may have.  A lookup there decodes them
 * one by one, in a perf sample, so validation refuses more.  Real PLTs
 * have one or two (binutils 2.40 to 2.47: one FRE before the push of the
 * lazy-binding stub and one after); 16 leaves room for other PLT layouts.
 */
#define SFRAME_MAX_MASK_FRES	16

/* One function, decoded. */
struct sframe_fde {
	u32 index;
	s64 rel_start;			/* start, relative to the section start */
	u64 start;			/* vaddr + rel_start */
	u32 size;
	u32 num_fres;
	u32 fres;			/* section offset of the first FRE */
	u8 info;
	u8 info2;
	u8 rep_size;
	u8 fre_type;
	u8 pc_type;
	u8 fde_type;
	bool signal;
};

/* One frame row entry, decoded; words are raw (unsigned) data words. */
struct sframe_fre {
	u32 offset;			/* section offset of this FRE */
	u32 next;			/* section offset just past it */
	u32 start;			/* offset in the function (or block) */
	u8 info;
	u8 num_words;
	u8 word_bytes;
	u32 words[SFRAME_MAX_WORDS];
};

/* How to recover a value: the CFA, the RA or the FP of the caller. */
enum sframe_loc_kind {
	SFRAME_LOC_SAME,		/* not saved: unchanged in its register */
	SFRAME_LOC_AT_CFA,		/* *(CFA + offset) */
	SFRAME_LOC_REG,			/* reg + offset */
	SFRAME_LOC_AT_REG,		/* *(reg + offset) */
	SFRAME_LOC_UNDEFINED,		/* no value: RA of the outermost frame */
};

struct sframe_loc {
	u8 kind;
	u8 reg;				/* DWARF register number */
	s32 offset;
};

#define SFRAME_RULE_OUTERMOST	0x1
#define SFRAME_RULE_SIGNAL	0x2
#define SFRAME_RULE_RA_MANGLED	0x4
#define SFRAME_RULE_FLEX	0x8

/* The frame rule in force at a PC. */
struct sframe_rule {
	struct sframe_loc cfa;
	struct sframe_loc ra;
	struct sframe_loc fp;
	u8 flags;
};

/*
 * A rule in the form the walk's loop steps by (core/walk_impl.h): the
 * CFA is SP or FP plus an offset, the caller's RA is saved at the CFA and
 * its FP at the CFA or not at all, at offsets that fit 16 bits.  fp_at
 * says where the FP is, or SFRAME_STEP_NO_FORM for any other rule, which
 * only the walk's full step takes.
 */
enum {
	SFRAME_STEP_FP_SAME,		/* not saved: the FP is unchanged */
	SFRAME_STEP_FP_BELOW_RA,	/* saved just below the RA: one read */
	SFRAME_STEP_FP_APART,		/* saved at fp_offset */
	SFRAME_STEP_NO_FORM,
};

struct sframe_step_form {
	s32 cfa_offset;
	s16 ra_offset;			/* from the CFA */
	s16 fp_offset;			/* from the CFA, for FP_APART */
	u8 from_fp;			/* CFA based on FP, else SP */
	u8 fp_at;			/* SFRAME_STEP_FP_*, or NO_FORM */
};

/*
 * Does @rule save the caller's RA at the CFA, and the FP at the CFA or
 * not at all?  Then *@fp_at says where the FP is (SFRAME_STEP_FP_*).
 */
static __always_inline bool sframe_rule_saved_at_cfa(const struct sframe_rule *rule,
						     u8 *fp_at)
{
	if (rule->ra.kind != SFRAME_LOC_AT_CFA)
		return false;
	if (rule->fp.kind == SFRAME_LOC_SAME)
		*fp_at = SFRAME_STEP_FP_SAME;
	else if (rule->fp.kind != SFRAME_LOC_AT_CFA)
		return false;
	else if (rule->fp.offset == rule->ra.offset - SFRAME_ARCH_WORD)
		*fp_at = SFRAME_STEP_FP_BELOW_RA;
	else
		*fp_at = SFRAME_STEP_FP_APART;
	return true;
}

static inline bool sframe_fits_s16(s32 v)
{
	return v == (s16)v;
}

/**
 * sframe_rule_step() - a rule in the walk loop's form
 * @rule: the rule
 * @sp_reg: DWARF number of its machine's SP
 * @fp_reg: and of its FP
 * @step: where the form is stored
 *
 * Return: true if @rule has the form (see struct sframe_step_form); the loop
 * steps by *@step exactly as the full step steps by @rule.
 */
static inline bool sframe_rule_step(const struct sframe_rule *rule,
				    u8 sp_reg, u8 fp_reg,
				    struct sframe_step_form *step)
{
	u8 fp_at;

	if ((rule->flags & SFRAME_RULE_OUTERMOST) ||
	    rule->cfa.kind != SFRAME_LOC_REG ||
	    (rule->cfa.reg != sp_reg && rule->cfa.reg != fp_reg) ||
	    !sframe_rule_saved_at_cfa(rule, &fp_at) ||
	    !sframe_fits_s16(rule->ra.offset) ||
	    (fp_at == SFRAME_STEP_FP_APART && !sframe_fits_s16(rule->fp.offset)))
		return false;
	*step = (struct sframe_step_form){
		.cfa_offset = rule->cfa.offset,
		.ra_offset = (s16)rule->ra.offset,
		.fp_offset = fp_at == SFRAME_STEP_FP_APART ?
			     (s16)rule->fp.offset : 0,
		.from_fp = rule->cfa.reg == fp_reg, .fp_at = fp_at,
	};
	return true;
}

int sframe_validate(struct sframe_section *sec, const void *data, u32 size,
		    u64 vaddr, unsigned int options, struct sframe_error *err);

const char *sframe_reason_str(enum sframe_reason reason);
int sframe_reason_errno(enum sframe_reason reason);

int sframe_get_fde(const struct sframe_section *sec, u32 index,
		   struct sframe_fde *fde);
int sframe_read_fre(const struct sframe_section *sec,
		    const struct sframe_fde *fde, u32 offset,
		    struct sframe_fre *fre);
s32 sframe_fre_word(const struct sframe_fre *fre, unsigned int i);
int sframe_fre_rule(const struct sframe_section *sec,
		    const struct sframe_fde *fde, const struct sframe_fre *fre,
		    struct sframe_rule *rule);
bool sframe_rule_equal(const struct sframe_rule *a,
		       const struct sframe_rule *b);

u32 sframe_index_entries(const struct sframe_section *sec);
void sframe_index_build(struct sframe_section *sec, u32 *index);

int sframe_find_fde(const struct sframe_section *sec, u64 pc,
		    struct sframe_fde *fde);
int sframe_fde_find_fre(const struct sframe_section *sec,
			const struct sframe_fde *fde, u64 pc,
			struct sframe_fre *fre, u32 *fre_index);
int sframe_find(const struct sframe_section *sec, u64 pc,
		struct sframe_rule *rule);

/* An address range [start, start + size), e.g. an executable segment. */
struct sframe_span {
	u64 start;
	u64 size;
};

/*
 * SFRAME_UPPER() - binary search of @a[@lo..@hi), sorted, for the first
 * entry above @key: its index, or @hi.  A macro, for arrays of any
 * unsigned type; @lo and @hi are u32 and evaluated once.
 */
#define SFRAME_UPPER(a, lo, hi, key) ({					\
	u32 __lo = (lo), __hi = (hi);					\
									\
	while (__lo < __hi) {						\
		u32 __mid = __lo + (__hi - __lo) / 2;			\
									\
		if ((a)[__mid] <= (key))				\
			__lo = __mid + 1;				\
		else							\
			__hi = __mid;					\
	}								\
	__lo;								\
})

/**
 * sframe_u32_upper() - binary search for the first entry above a key
 * @a: sorted entries
 * @lo: the first entry searched
 * @hi: one past the last
 * @key: the key
 *
 * Return: the index of the first of @a[@lo..@hi) above @key, or @hi.
 */
static inline u32 sframe_u32_upper(const u32 *a, u32 lo, u32 hi, u64 key)
{
	return SFRAME_UPPER(a, lo, hi, key);
}

int sframe_fdes_within(const struct sframe_section *sec,
		       const struct sframe_span *spans, unsigned int nr,
		       u32 *bad);

#endif /* _SFRAME_SFRAME_H */
