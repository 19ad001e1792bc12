/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flattened table against the decoder, shared by the KUnit suite and
 * the user-space test.  At every PC both must give a walk the same answer:
 * the same kind of step, the same rule (and the walk loop's form of it),
 * and the same verdict on whether a return address just past the PC is
 * the end of its function (where a signal trampoline without an FDE may
 * start).
 */
#ifndef _SFRAME_FLAT_CHECK_H
#define _SFRAME_FLAT_CHECK_H

#include <sframe/flat.h>


/*
 * Flatten @sec into @flat and attach it; the table's memory, to free with
 * sframe_free(), or NULL with the error in *@err.
 */
static inline void *flat_check_build(struct sframe_section *sec,
				     struct sframe_flat *flat, int *err)
{
	struct sframe_flat_builder *b = sframe_alloc(sizeof(*b));
	size_t bytes = 0;
	void *mem = NULL;

	*err = -ENOMEM;
	if (!b)
		return NULL;
	*err = sframe_flat_size(sec, b, &bytes);
	if (!*err) {
		mem = sframe_alloc(bytes);
		if (mem) {
			sframe_flat_build(sec, b, mem, flat);
			sec->flat = flat;
		} else {
			*err = -ENOMEM;
		}
	}
	sframe_free(b);
	return mem;
}

/* What a walk gets at a PC: a signal frame, a rule or nothing. */
struct flat_answer {
	unsigned int kind;		/* NONE, RULE or SIGNAL */
	bool end;			/* pc + 1 ends the function holding pc */
	struct sframe_rule rule;	/* for SFRAME_FLAT_RULE */
};

/* What decoding the FDE and FRE says at @pc (section address space). */
static inline void flat_check_decoded(const struct sframe_section *sec, u64 pc,
				      struct flat_answer *a)
{
	struct sframe_fde fde;
	struct sframe_fre fre;

	a->kind = SFRAME_FLAT_NONE;
	a->end = false;
	if (sframe_find_fde(sec, pc, &fde))
		return;
	a->end = pc + 1 == fde.start + fde.size;
	if (fde.signal)
		a->kind = SFRAME_FLAT_SIGNAL;
	else if (!sframe_fde_find_fre(sec, &fde, pc, &fre, NULL) &&
		 !sframe_fre_rule(sec, &fde, &fre, &a->rule))
		a->kind = SFRAME_FLAT_RULE;
}

/* What the table says at @pc, without the section's bytes. */
static inline void flat_check_table(const struct sframe_section *sec,
				    const struct sframe_flat *flat, u64 pc,
				    struct flat_answer *a)
{
	s64 rel_pc = (s64)(pc - sec->vaddr);
	u16 row = sframe_flat_find(flat, rel_pc, &a->end);
	const struct sframe_rule *rule = sframe_flat_rule(flat, row, rel_pc);

	a->kind = SFRAME_FLAT_NONE;
	if (SFRAME_FLAT_KIND(row) == SFRAME_FLAT_SIGNAL) {
		a->kind = SFRAME_FLAT_SIGNAL;
	} else if (rule) {
		a->kind = SFRAME_FLAT_RULE;
		a->rule = *rule;
	}
}

/*
 * NULL when the walk loop's form of @rule, the rule in force at @pc, is
 * there if and only if the rule has one and steps as the rule does: the
 * same CFA, the same places for the saved RA and FP.
 */
static inline const char *flat_check_form(const struct sframe_section *sec,
					  const struct sframe_flat *flat,
					  u64 pc, const struct sframe_rule *rule)
{
	const struct sframe_step_form *f;
	struct sframe_step_form want;
	s32 fp_offset;
	bool end;
	u16 row;

	row = sframe_flat_find(flat, (s64)(pc - sec->vaddr), &end);
	if (SFRAME_FLAT_KIND(row) != SFRAME_FLAT_RULE)
		return NULL;
	f = &flat->forms[row & SFRAME_FLAT_INDEX_MASK];
	if (!sframe_rule_step(rule, sec->sp_reg, sec->fp_reg, &want))
		return f->fp_at == SFRAME_STEP_NO_FORM ? NULL :
		       "loop form of a rule without one";
	if (f->fp_at == SFRAME_STEP_NO_FORM)
		return "no loop form for a rule with one";
	if (rule->cfa.reg != (f->from_fp ? sec->fp_reg : sec->sp_reg) ||
	    rule->cfa.offset != f->cfa_offset ||
	    rule->ra.offset != f->ra_offset)
		return "loop form's CFA or RA";
	fp_offset = f->fp_at == SFRAME_STEP_FP_BELOW_RA ?
		    f->ra_offset - SFRAME_ARCH_WORD : f->fp_offset;
	if (f->fp_at == SFRAME_STEP_FP_SAME ?
	    rule->fp.kind != SFRAME_LOC_SAME : rule->fp.offset != fp_offset)
		return "loop form's FP";
	return NULL;
}

/* NULL when the table and the decoder agree at @pc, else what differs. */
static inline const char *flat_check_pc(const struct sframe_section *sec,
					const struct sframe_flat *flat, u64 pc)
{
	struct flat_answer d, t;

	flat_check_decoded(sec, pc, &d);
	flat_check_table(sec, flat, pc, &t);
	if (d.kind != t.kind)
		return "kind of step";
	/* A walk takes a signal frame without looking further. */
	if (d.kind == SFRAME_FLAT_SIGNAL)
		return NULL;
	if (d.end != t.end)
		return "end of function";
	if (d.kind != SFRAME_FLAT_RULE)
		return NULL;
	if (!sframe_rule_equal(&d.rule, &t.rule))
		return "rule";
	return flat_check_form(sec, flat, pc, &d.rule);
}

/*
 * Check every PC from a little before the first function to a little
 * after the last; the number of PCs checked, or 0 with the first PC that
 * disagrees in *@bad and why in *@why.
 */
static inline u64 flat_check_all(const struct sframe_section *sec,
				 const struct sframe_flat *flat, u64 *bad,
				 const char **why)
{
	struct sframe_fde first, last;
	u64 pc, from, to;

	if (sframe_get_fde(sec, 0, &first) ||
	    sframe_get_fde(sec, sec->num_fdes - 1, &last)) {
		*bad = 0;
		*why = "no FDE";
		return 0;
	}
	from = first.start - 2;
	to = last.start + last.size + 2;
	for (pc = from; pc != to; pc++) {
		*why = flat_check_pc(sec, flat, pc);
		if (*why) {
			*bad = pc;
			return 0;
		}
	}
	return to - from;
}

/*
 * The most steps the binary search of any lookup in @flat takes: a search
 * of n rows takes at most as many steps as n has bits.  By construction,
 * whatever PC is looked up.
 */
static inline unsigned int flat_check_max_steps(const struct sframe_flat *flat)
{
	unsigned int steps, most = 0;
	u32 block, lo, hi, n;

	for (block = 0; block < flat->nr_blocks; block++) {
		sframe_flat_block_rows(flat, block, &lo, &hi);
		for (steps = 0, n = hi - lo; n; n >>= 1)
			steps++;
		if (steps > most)
			most = steps;
	}
	return most;
}

#endif /* _SFRAME_FLAT_CHECK_H */
