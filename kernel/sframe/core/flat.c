// SPDX-License-Identifier: GPL-2.0
/*
 * The flattened lookup table of a validated, sorted section.  Building it
 * walks every FDE and FRE once, in address order, emitting one row per
 * place where the answer of a lookup changes; rules are decoded once and
 * shared.  Two passes over the same code, one to size the table and one to
 * fill it, so the caller allocates exactly once and the core not at all.
 */
#include <sframe/flat.h>
#include "read.h"

#define SFRAME_FLAT_HASH_SIZE	(2 * SFRAME_FLAT_MAX_RULES)

/* Where the rows go: nowhere when sizing (rows == NULL). */
struct sframe_flat_out {
	struct sframe_flat_builder *b;
	u32 *starts;			/* or, in a compact table, */
	u16 *low;			/* starts within their blocks */
	u16 *rows;
	struct sframe_flat_mask *masks;
	u32 *blocks;
	u32 nr;
	u32 nr_masks;
	u32 next_block;			/* the first block not yet given a row */
	u16 last;
	u32 last_start;
};

static u32 sframe_loc_hash(u32 h, const struct sframe_loc *loc)
{
	return (h ^ loc->kind ^ (u32)loc->reg << 8 ^ (u32)loc->offset << 16 ^
		(u32)loc->offset >> 16) * 0x9e3779b1U;
}

/* Why sizing failed, in @b, as validation would say it; its errno. */
static int sframe_flat_fail(struct sframe_flat_builder *b,
			    enum sframe_reason reason, u32 offset, u32 fde)
{
	b->error = (struct sframe_error){ .reason = reason, .offset = offset,
					  .fde = fde };
	return sframe_reason_errno(reason);
}

/*
 * The index of @rule in the builder's table, added if new; if the table
 * is full, the failure of @fde.
 */
static int sframe_flat_add_rule(struct sframe_flat_builder *b,
				const struct sframe_rule *rule,
				const struct sframe_fde *fde)
{
	u32 h = sframe_loc_hash(rule->flags, &rule->cfa);
	u32 slot;

	h = sframe_loc_hash(h, &rule->ra);
	h = sframe_loc_hash(h, &rule->fp);
	/* Linear probing; the table is never more than half full. */
	for (slot = h % SFRAME_FLAT_HASH_SIZE; b->hash[slot];
	     slot = (slot + 1) % SFRAME_FLAT_HASH_SIZE) {
		if (sframe_rule_equal(&b->rules[b->hash[slot] - 1], rule))
			return b->hash[slot] - 1;
	}
	if (b->nr_rules == SFRAME_FLAT_MAX_RULES)
		return sframe_flat_fail(b, SFRAME_ERR_FLAT_RULES, fde->fres,
					fde->index);
	b->rules[b->nr_rules] = *rule;
	b->nr_rules++;
	b->hash[slot] = (u16)b->nr_rules;	/* index + 1: 0 is empty */
	return b->nr_rules - 1;
}

/*
 * A compact row's start, less that of the one block that searches it
 * (the block holding @start - 1): 1 to 2^block_shift, at most 2^15.  The
 * first row, at 0, is never searched.
 */
static u16 sframe_flat_low(const struct sframe_flat_builder *b, u32 start)
{
	u32 from = (start - 1) >> b->block_shift << b->block_shift;

	return start ? (u16)(start - from) : 0;
}

/*
 * A row from @start on.  One that answers like the row before it adds
 * nothing, unless that one ends a function: its successor's start is
 * then the function's end, which lookups need.
 */
static void sframe_flat_emit(struct sframe_flat_out *o, u32 start, u16 row)
{
	if (o->nr && o->last == row && !(row & SFRAME_FLAT_END))
		return;
	/* Blocks starting before this row have the last one in force. */
	while (o->blocks && o->next_block < o->b->nr_blocks &&
	       (u64)o->next_block << o->b->block_shift < start)
		o->blocks[o->next_block++] = o->nr - 1;
	if (o->starts)
		o->starts[o->nr] = start;
	if (o->low)
		o->low[o->nr] = sframe_flat_low(o->b, start);
	if (o->rows)
		o->rows[o->nr] = row;
	o->nr++;
	o->last = row;
	o->last_start = start;
}

/* Mark the last row emitted as the end of the function before @end. */
static void sframe_flat_mark_end(struct sframe_flat_out *o)
{
	o->last |= SFRAME_FLAT_END;
	if (o->rows)
		o->rows[o->nr - 1] = o->last;
}

/*
 * A PC-mask FDE (a PLT) at @start: one MASK row and its rules by offset
 * in the repeated block.
 */
static int sframe_flat_mask_fde(const struct sframe_section *sec,
				const struct sframe_fde *fde, u32 start,
				struct sframe_flat_out *o)
{
	struct sframe_flat_mask m = { .start = start, .rep_size = fde->rep_size };
	struct sframe_rule rule;
	struct sframe_fre fre;
	u32 i, offset = fde->fres;
	int idx;

	if (o->nr_masks == SFRAME_FLAT_MAX_MASKS)
		return sframe_flat_fail(o->b, SFRAME_ERR_FLAT_MASKS, fde->fres,
					fde->index);
	/*
	 * Validation capped num_fres at SFRAME_MAX_MASK_FRES and FRE starts
	 * below rep_size, a byte.
	 */
	for (i = 0; i < fde->num_fres; i++, offset = fre.next) {
		if (sframe_read_fre(sec, fde, offset, &fre) ||
		    sframe_fre_rule(sec, fde, &fre, &rule))
			return -EINVAL;
		idx = sframe_flat_add_rule(o->b, &rule, fde);
		if (idx < 0)
			return idx;
		m.starts[m.nr] = (u8)fre.start;
		m.rules[m.nr] = (u16)idx;
		m.nr++;
	}
	if (o->masks)
		o->masks[o->nr_masks] = m;
	sframe_flat_emit(o, start, SFRAME_FLAT_MASK << SFRAME_FLAT_KIND_SHIFT |
				   o->nr_masks);
	o->nr_masks++;
	sframe_flat_mark_end(o);
	return 0;
}

/* The rows of one FDE, starting at @start (relative to the table's base). */
static int sframe_flat_fde(const struct sframe_section *sec,
			   const struct sframe_fde *fde, u32 start,
			   struct sframe_flat_out *o)
{
	struct sframe_rule rule;
	struct sframe_fre fre;
	u32 i, offset = fde->fres;
	bool covered = false;
	int idx;

	if (fde->signal) {
		sframe_flat_emit(o, start, SFRAME_FLAT_SIGNAL <<
					   SFRAME_FLAT_KIND_SHIFT);
		return 0;
	}
	if (fde->pc_type == SFRAME_PC_TYPE_MASK)
		return sframe_flat_mask_fde(sec, fde, start, o);
	for (i = 0; i < fde->num_fres; i++, offset = fre.next) {
		if (sframe_read_fre(sec, fde, offset, &fre) ||
		    sframe_fre_rule(sec, fde, &fre, &rule))
			return -EINVAL;
		if (fre.start >= fde->size)
			break;
		if (fre.start && !covered)
			sframe_flat_emit(o, start, SFRAME_FLAT_NONE);
		covered = true;
		idx = sframe_flat_add_rule(o->b, &rule, fde);
		if (idx < 0)
			return idx;
		sframe_flat_emit(o, start + fre.start,
				 SFRAME_FLAT_RULE << SFRAME_FLAT_KIND_SHIFT | idx);
		sframe_yield(i);
	}
	if (!covered)
		sframe_flat_emit(o, start, SFRAME_FLAT_NONE);
	sframe_flat_mark_end(o);
	return 0;
}

/* Where the table's starts count from: the first function, if any. */
static s64 sframe_flat_base(const struct sframe_section *sec)
{
	return sec->num_fdes ? sframe_fde_rel_start(sec, 0) : 0;
}

static int sframe_flat_pass(const struct sframe_section *sec,
			    struct sframe_flat_out *o)
{
	s64 base = sframe_flat_base(sec);
	struct sframe_fde fde;
	u64 start, end;
	u32 i;
	int ret;

	for (i = 0; i < sec->num_fdes; i++) {
		if (sframe_get_fde(sec, i, &fde))
			return -EINVAL;
		/* Sorted and not overlapping: validation checked both. */
		start = (u64)fde.rel_start - (u64)base;
		end = start + fde.size;
		if (end > U32_MAX)
			return sframe_flat_fail(o->b, SFRAME_ERR_FLAT_SPAN,
						sec->fde_table + i * sec->fde_size,
						i);
		if (fde.size) {
			ret = sframe_flat_fde(sec, &fde, (u32)start, o);
			if (ret)
				return ret;
		}
		if (i + 1 == sec->num_fdes ||
		    (u64)sframe_fde_rel_start(sec, i + 1) - (u64)base > end)
			sframe_flat_emit(o, (u32)end, SFRAME_FLAT_NONE);
		sframe_yield(i);
	}
	return 0;
}

/*
 * The table's bytes: rules and their loop forms, masks, the block index
 * and its end (one entry past the last block), starts, row words.
 */
static size_t sframe_flat_bytes(const struct sframe_flat_builder *b)
{
	bool compact = b->block_shift <= SFRAME_FLAT_COMPACT_SHIFT;

	return b->nr_rules * sizeof(struct sframe_rule) +
	       b->nr_rules * sizeof(struct sframe_step_form) +
	       b->nr_masks * sizeof(struct sframe_flat_mask) +
	       (b->nr_blocks + 1) * sizeof(u32) +
	       b->nr_rows * (compact ? sizeof(u16) : sizeof(u32)) +
	       b->nr_rows * sizeof(u16);
}

/**
 * sframe_flat_size() - size a section's flattened look-up table
 * @sec: a validated section
 * @b: collects the section's distinct rules, for sframe_flat_build()
 * @bytes: where the table's size is stored
 *
 * A section without functions has an empty table, which answers NONE.
 * On failure, b->error names the reason, as validation would.
 *
 * Return: 0, or the reason's errno: SFRAME_ERR_NOT_SORTED (-EINVAL) for
 * an unsorted section, SFRAME_ERR_FLAT_SPAN (-ERANGE) when its functions
 * span more than 4 GiB, SFRAME_ERR_FLAT_RULES (-E2BIG) when it has more
 * than SFRAME_FLAT_MAX_RULES distinct rules, SFRAME_ERR_FLAT_MASKS
 * (-E2BIG) when it has more than SFRAME_FLAT_MAX_MASKS PC-mask FDEs.
 * -EINVAL with SFRAME_VALID in b->error means @sec was not validated.
 */
int sframe_flat_size(const struct sframe_section *sec,
		     struct sframe_flat_builder *b, size_t *bytes)
{
	struct sframe_flat_out o = { .b = b };
	u32 i;
	int ret;

	b->error = (struct sframe_error){ .reason = SFRAME_VALID,
					  .fde = SFRAME_NO_FDE };
	if (!(sec->flags & SFRAME_F_FDE_SORTED))
		return sframe_flat_fail(b, SFRAME_ERR_NOT_SORTED,
					SFRAME_HDR_FLAGS, SFRAME_NO_FDE);
	b->nr_rules = 0;
	for (i = 0; i < SFRAME_FLAT_HASH_SIZE; i++)
		b->hash[i] = 0;
	ret = sframe_flat_pass(sec, &o);
	if (ret)
		return ret;
	b->nr_rows = o.nr;
	b->nr_masks = o.nr_masks;
	/* Blocks up to the last row's start: the end of the last function. */
	b->block_shift = SFRAME_FLAT_MIN_BLOCK_SHIFT;
	b->nr_blocks = 0;
	if (o.nr) {
		while (((u64)o.last_start >> b->block_shift) + 1 > o.nr)
			b->block_shift++;
		b->nr_blocks = (o.last_start >> b->block_shift) + 1;
	}
	*bytes = sframe_flat_bytes(b);
	return 0;
}

/**
 * sframe_flat_build() - build a section's flattened look-up table
 * @sec: the section sframe_flat_size() sized
 * @b: the builder sframe_flat_size() filled
 * @mem: as many bytes as sframe_flat_size() said, owned by the caller
 * @flat: describes the table in @mem; attach it with sec->flat = flat
 */
void sframe_flat_build(const struct sframe_section *sec,
		       struct sframe_flat_builder *b, void *mem,
		       struct sframe_flat *flat)
{
	struct sframe_rule *rules = mem;
	struct sframe_step_form *forms;
	struct sframe_flat_out o = { .b = b };
	u32 i;

	forms = (struct sframe_step_form *)(rules + b->nr_rules);
	for (i = 0; i < b->nr_rules; i++) {
		rules[i] = b->rules[i];
		/* Made once here, not at every frame a walk takes by it. */
		if (!sframe_rule_step(&rules[i], sec->sp_reg, sec->fp_reg,
				      &forms[i]))
			forms[i] = (struct sframe_step_form){
				.fp_at = SFRAME_STEP_NO_FORM,
			};
	}
	o.masks = (struct sframe_flat_mask *)(forms + b->nr_rules);
	o.blocks = (u32 *)(o.masks + b->nr_masks);
	if (b->block_shift <= SFRAME_FLAT_COMPACT_SHIFT) {
		o.low = (u16 *)(o.blocks + b->nr_blocks + 1);
		o.rows = o.low + b->nr_rows;
	} else {
		o.starts = o.blocks + b->nr_blocks + 1;
		o.rows = (u16 *)(o.starts + b->nr_rows);
	}
	/* Sizing succeeded, so this pass meets only rules @b already has. */
	sframe_flat_pass(sec, &o);
	/* Blocks at or past the last row's start: it is in force there. */
	while (o.next_block < b->nr_blocks)
		o.blocks[o.next_block++] = o.nr - 1;
	/* The end: the last block searches up to the last row. */
	o.blocks[b->nr_blocks] = o.nr - 1;

	*flat = (struct sframe_flat){
		.rules = rules, .forms = forms, .masks = o.masks,
		.blocks = o.blocks,
		.starts = o.starts, .low = o.low, .rows = o.rows,
		.nr_rows = o.nr, .nr_rules = b->nr_rules,
		.nr_masks = o.nr_masks, .nr_blocks = b->nr_blocks,
		.block_mask = (u32)((1ULL << b->block_shift) - 1),
		.block_shift = b->block_shift, .base = sframe_flat_base(sec),
	};
}

/**
 * sframe_flat_row_start() - where a row of a flattened table starts
 * @flat: the table
 * @row: the row's index, below flat->nr_rows
 *
 * Not for the walk, which finds starts through the block index: for
 * tests and tools.  A compact row after the first is searched by the one
 * block whose first row is before it and whose successor's is not, and
 * keeps its start less that block's.
 *
 * Return: the row's start, relative to the table's base.
 */
u32 sframe_flat_row_start(const struct sframe_flat *flat, u32 row)
{
	u32 block;

	if (flat->starts)
		return flat->starts[row];
	if (!row)
		return 0;
	block = sframe_u32_upper(flat->blocks, 0, flat->nr_blocks, row - 1) - 1;
	return sframe_flat_start_in(flat, block, row);
}
