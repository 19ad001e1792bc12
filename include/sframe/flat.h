/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flattened table of a validated section: its rules and rows built
 * once, so that a lookup is one bounded search with nothing to decode.
 * Part of the format core, built into the module and into sframectl.
 */
#ifndef _SFRAME_FLAT_H
#define _SFRAME_FLAT_H

#include "sframe.h"

/*
 * The flattened table: the rows of a sorted section (its FREs, and the
 * gaps between functions) in one sorted array of starts, each with a
 * 16-bit row word naming a decoded rule from a small table of distinct
 * ones.  A lookup is one binary search, with nothing to decode; a walk in
 * a perf sample wants exactly that.  The table answers every lookup by
 * itself: once it is built, the section's bytes are no longer needed.
 *
 * Row word: the rule's index (RULE rows) or the PC-mask function's
 * (MASK rows), the kind, and END on the last row of a function, whose
 * end is then the next row's start.  SIGNAL rows cover a whole signal
 * trampoline's FDE; MASK rows a PC-mask FDE (a PLT), whose rule depends
 * on the PC modulo its repeat size: struct sframe_flat_mask, at most
 * SFRAME_MAX_MASK_FRES rules.
 *
 * A block index narrows the search, as the kernel's ORC lookup table does:
 * for each 2^block_shift bytes of text, the row in force at its start.
 * Blocks are at least SFRAME_FLAT_MIN_BLOCK_SHIFT bytes and never more
 * than rows, so the index costs at most 4 bytes a row (and 4 for its
 * end, which spares the search a bound).  The rows a block
 * searches start at most 2^block_shift bytes after the block does, so
 * where blocks are at most 2^SFRAME_FLAT_COMPACT_SHIFT bytes (rows at
 * least that dense: every real section) a row's start is kept in 16 bits,
 * as its offset from the start of the block that searches it, which the
 * search compares as it is, and a row costs 4 bytes; sparser tables keep
 * 32-bit starts, 6 bytes a row.
 *
 * The work of one lookup is bounded whatever the section holds: one block
 * index read and a binary search over that block's rows, at most
 * SFRAME_MAX_SEARCH_STEPS steps, then for a MASK row a scan of at most
 * SFRAME_MAX_MASK_FRES bytes.  Every sorted section whose functions span
 * at most 4 GiB, that has at most SFRAME_FLAT_MAX_RULES distinct rules and
 * at most as many PC-mask FDEs has a table; sframe_flat_size() names the
 * reason for any other, so that a kernel refuses it rather than decode an
 * unbounded number of FREs per frame.
 */
#define SFRAME_FLAT_MIN_BLOCK_SHIFT	4
#define SFRAME_FLAT_COMPACT_SHIFT	15
#define SFRAME_FLAT_MAX_RULES	4096
#define SFRAME_FLAT_MAX_MASKS	4096
#define SFRAME_FLAT_INDEX_MASK	0x0fff
#define SFRAME_FLAT_KIND_SHIFT	12
#define SFRAME_FLAT_KIND(row)	(((row) >> SFRAME_FLAT_KIND_SHIFT) & 3)
#define SFRAME_FLAT_END		0x4000
/* The kind and END together: one test for the common row. */
#define SFRAME_FLAT_KIND_END	(3 << SFRAME_FLAT_KIND_SHIFT | SFRAME_FLAT_END)
/* Any binary search here: row and FDE counts are u32. */
#define SFRAME_MAX_SEARCH_STEPS	32

enum sframe_flat_kind {
	SFRAME_FLAT_NONE,		/* no rule: outside functions, or before the first FRE */
	SFRAME_FLAT_RULE,
	SFRAME_FLAT_SIGNAL,
	SFRAME_FLAT_MASK,
};

/* A PC-mask FDE: the rule at (PC - start) % rep_size. */
struct sframe_flat_mask {
	u32 start;			/* relative to the table's base */
	u8 rep_size;
	u8 nr;				/* FREs starting below rep_size */
	u8 starts[SFRAME_MAX_MASK_FRES];	/* increasing */
	u16 rules[SFRAME_MAX_MASK_FRES];
};

struct sframe_flat {
	const struct sframe_rule *rules;
	const struct sframe_step_form *forms;	/* each rule's, for the walk's loop */
	const struct sframe_flat_mask *masks;
	const u32 *blocks;		/* first row of each block, then nr_rows - 1 */
	const u32 *starts;		/* relative to base; NULL if compact */
	const u16 *low;			/* compact: starts within their blocks */
	const u16 *rows;
	u32 nr_rows;
	u32 nr_rules;
	u32 nr_masks;
	u32 nr_blocks;
	u32 block_mask;			/* 2^block_shift - 1 */
	u8 block_shift;
	s64 base;			/* section-relative address of FDE 0 */
};

/*
 * Scratch for building: the distinct rules met so far, hashed; and, when
 * sizing fails, why (a reason of sframe_reason_str(), the FDE).
 */
struct sframe_flat_builder {
	struct sframe_rule rules[SFRAME_FLAT_MAX_RULES];
	u16 hash[2 * SFRAME_FLAT_MAX_RULES];
	u32 nr_rules;
	u32 nr_masks;
	u32 nr_rows;
	u32 nr_blocks;
	u8 block_shift;
	struct sframe_error error;
};

int sframe_flat_size(const struct sframe_section *sec,
		     struct sframe_flat_builder *b, size_t *bytes);
void sframe_flat_build(const struct sframe_section *sec,
		       struct sframe_flat_builder *b, void *mem,
		       struct sframe_flat *flat);
u32 sframe_flat_row_start(const struct sframe_flat *flat, u32 row);

/**
 * sframe_flat_block_rows() - the rows a look-up in a block searches
 * @flat: the table
 * @block: the block
 * @lo: where the first row searched is stored
 * @hi: where one past the last is stored
 *
 * Those that start after the block's first row and no later than the
 * next block's first (the index's end for the last block: the last row).
 * Its binary search takes at most fls(*@hi - *@lo) steps.
 */
static inline void sframe_flat_block_rows(const struct sframe_flat *flat,
					  u32 block, u32 *lo, u32 *hi)
{
	*lo = flat->blocks[block] + 1;
	*hi = flat->blocks[block + 1] + 1;
}

/**
 * sframe_flat_start_in() - where a row searched from a block starts
 * @flat: the table
 * @block: the block whose search met the row
 * @row: the row: one @block searches (sframe_flat_block_rows())
 *
 * A compact row keeps its start less the block's.
 *
 * Return: the row's start, relative to the table's base.
 */
static __always_inline u32 sframe_flat_start_in(const struct sframe_flat *flat,
						u32 block, u32 row)
{
	if (flat->starts)
		return flat->starts[row];
	return (block << flat->block_shift) + flat->low[row];
}

/**
 * sframe_flat_in_force() - the row of a block in force at an offset
 * @flat: the table
 * @first: the block's first row, flat->blocks[block]
 * @last: the next block's first, flat->blocks[block + 1]
 * @key: the offset less the block's start, below 2^block_shift
 *
 * Searches the rows after @first up to @last (sframe_flat_block_rows())
 * by their starts, each indexed as the row before it, so that the search
 * ends on the row in force, the last one not starting above @key, with
 * no step to turn one into the other.
 *
 * Return: the index of the row in force, @first to @last.
 */
static __always_inline u32
sframe_flat_in_force(const struct sframe_flat *flat, u32 first, u32 last,
		     u32 key)
{
	const u16 *next = flat->low + 1;	/* each row's successor's start */

	return SFRAME_UPPER(next, first, last, key);
}

/* Where a look-up met its row: what sframe_flat_ends_at() needs. */
struct sframe_flat_pos {
	u32 block;
	u32 row;			/* the row in force */
	u32 last;			/* the last row the block searches */
};

/**
 * sframe_flat_row_at() - the row in force at an offset from the base
 * @flat: the table
 * @delta: the address less the table's base (flat->base, section-relative),
 *	modulo 2^64
 * @pos: where the row was met, for sframe_flat_ends_at()
 *
 * For a walk's loop, which folds the base into its own per-walk constant
 * and tests a row's kind and END at once.
 *
 * Return: the row word in force, SFRAME_FLAT_NONE past the last block
 * (and then @pos is not set).
 */
static __always_inline u16
sframe_flat_row_at(const struct sframe_flat *flat, u64 delta,
		   struct sframe_flat_pos *pos)
{
	u64 block = delta >> flat->block_shift;
	u32 first, last, row;

	/*
	 * Past the last block is past the last function.  So is an address
	 * below the base: starts are below 2^32 (sframe_flat_size()), so
	 * there are at most 2^(32 - block_shift) blocks, and a negative
	 * @delta, at least 2^63, is past them all.
	 */
	if (block >= flat->nr_blocks)
		return SFRAME_FLAT_NONE;
	/* The block's first row is in force at its start, so at or before delta. */
	first = flat->blocks[block];
	last = flat->blocks[block + 1];
	if (unlikely(flat->starts))
		row = sframe_u32_upper(flat->starts, first + 1, last + 1,
				       delta) - 1;
	else
		row = sframe_flat_in_force(flat, first, last,
					   (u32)delta & flat->block_mask);
	*pos = (struct sframe_flat_pos){
		.block = (u32)block, .row = row, .last = last,
	};
	return flat->rows[row];
}

/**
 * sframe_flat_ends_at() - whether a row with END ends at an offset
 * @flat: the table
 * @pos: where sframe_flat_row_at() met the row
 * @delta: the offset it looked up
 *
 * Only the last row of a function can end at @delta + 1, so the next
 * row's start is recovered only for such a row.  A function's end inside
 * the block is a row the block searched.
 *
 * Return: true if the next row starts at @delta + 1.
 */
static __always_inline bool
sframe_flat_ends_at(const struct sframe_flat *flat,
		    const struct sframe_flat_pos *pos, u64 delta)
{
	return pos->row < pos->last &&
	       sframe_flat_start_in(flat, pos->block, pos->row + 1) ==
	       delta + 1;
}

/**
 * sframe_flat_find_delta() - the row in force at an offset from the base
 * @flat: the table
 * @delta: as for sframe_flat_row_at()
 * @at_end: where to store whether @delta is the last byte of a function
 *	(the row has END and the next starts at @delta + 1)
 *
 * Return: as sframe_flat_find().
 */
static __always_inline u16
sframe_flat_find_delta(const struct sframe_flat *flat, u64 delta,
		       bool *at_end)
{
	struct sframe_flat_pos pos;
	u16 word = sframe_flat_row_at(flat, delta, &pos);

	*at_end = unlikely(word & SFRAME_FLAT_END) &&
		  sframe_flat_ends_at(flat, &pos, delta);
	return word;
}

/**
 * sframe_flat_find() - the row of a flattened table in force at an address
 * @flat: the table
 * @rel_pc: the address, relative to the section
 * @at_end: where to store whether @rel_pc is the last byte of a function
 *	(the row has END and the next starts at @rel_pc + 1)
 *
 * Inline: a walk does this once per frame.
 *
 * Return: the row word in force, of kind SFRAME_FLAT_NONE where there is
 * no rule (outside functions, before a function's first FRE).
 */
static __always_inline u16
sframe_flat_find(const struct sframe_flat *flat, s64 rel_pc, bool *at_end)
{
	return sframe_flat_find_delta(flat, (u64)rel_pc - (u64)flat->base,
				      at_end);
}

/**
 * sframe_flat_rule() - the frame rule a row word gives at an address
 * @flat: the table
 * @row: the row word, from sframe_flat_find()
 * @rel_pc: the address, relative to the section, which the row covers
 *
 * Return: the rule, or NULL for a row without one (NONE, SIGNAL, or a
 * PC-mask FDE with no FRE at that offset).
 */
static inline const struct sframe_rule *
sframe_flat_rule(const struct sframe_flat *flat, u16 row, s64 rel_pc)
{
	const struct sframe_flat_mask *m;
	u32 i, off;

	switch (SFRAME_FLAT_KIND(row)) {
	case SFRAME_FLAT_RULE:
		return &flat->rules[row & SFRAME_FLAT_INDEX_MASK];
	case SFRAME_FLAT_MASK:
		m = &flat->masks[row & SFRAME_FLAT_INDEX_MASK];
		off = (u32)((u64)rel_pc - (u64)flat->base - m->start) %
		      m->rep_size;
		for (i = m->nr; i; i--) {
			if (m->starts[i - 1] <= off)
				return &flat->rules[m->rules[i - 1]];
		}
		return NULL;
	}
	return NULL;
}

#endif /* _SFRAME_FLAT_H */
