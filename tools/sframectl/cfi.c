// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl gen's translation: one function's DWARF CFI rows, as
 * cfi_exec.c hands them over, into SFrame FDEs and FREs, or the reason it
 * is left out.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "cfi_exec.h"
#include "gen.h"

/* Operations in the linker's PLT CFA expression. */
#define GEN_PLT_EXPR_OPS	9

const char * const gen_skip_names[GEN_NR_SKIPS] = {
	[GEN_SKIP_CFA_EXPR] = "CFA expression",
	[GEN_SKIP_CFA_UNDEFINED] = "CFA undefined",
	[GEN_SKIP_RA] = "RA not at CFA-8",
	[GEN_SKIP_FP] = "register rule for RBP not expressible",
	[GEN_SKIP_RANGE] = "offset out of range",
	[GEN_SKIP_ROWS] = "too many rows",
	[GEN_SKIP_CFI] = "damaged CFI",
	[GEN_SKIP_OVERLAP] = "overlaps another FDE",
};

static bool op_breg(const Dwarf_Op *op, u8 *reg, s64 *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = (u8)(op->atom - DW_OP_breg0);
		*off = (s64)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx && op->number <= 0xff) {
		*reg = (u8)op->number;
		*off = (s64)op->number2;
		return true;
	}
	return false;
}

/*
 * The CFA expression ld writes for 16-byte PLT entries:
 * rsp + A + ((rip & 15) >= K) * 8, i.e. rsp+A before offset K of each
 * entry (its push) and rsp+A+8 from there on.
 */
static bool plt_expression(const Dwarf_Op *ops, size_t n, s64 *cfa_off,
			   u8 *split)
{
	u8 reg, rip;
	s64 rip_off;

	if (n != GEN_PLT_EXPR_OPS || !op_breg(&ops[0], &reg, cfa_off) ||
	    reg != GEN_REG_RSP || !op_breg(&ops[1], &rip, &rip_off) ||
	    rip != GEN_REG_RIP || rip_off ||
	    ops[2].atom != DW_OP_lit0 + GEN_AMD64_PLT_ENTRY - 1 ||
	    ops[3].atom != DW_OP_and || ops[4].atom <= DW_OP_lit0 ||
	    ops[4].atom >= DW_OP_lit0 + GEN_AMD64_PLT_ENTRY ||
	    ops[5].atom != DW_OP_ge || ops[6].atom != DW_OP_lit3 ||
	    ops[7].atom != DW_OP_shl || ops[8].atom != DW_OP_plus)
		return false;
	*split = (u8)(ops[4].atom - DW_OP_lit0);
	return true;
}

/* Where the caller's register is; false if CFI says something SFrame lacks. */
static bool reg_loc(const struct cfi_rule *rule, struct sframe_enc_loc *loc)
{
	Dwarf_Op mem[CFI_EXPR_MAX_OPS], *ops;
	size_t n;
	u8 reg;
	s64 off;

	memset(loc, 0, sizeof(*loc));
	cfi_reg_ops(rule, mem, &ops, &n);
	if (!n) {
		loc->kind = ops ? SFRAME_ENC_UNDEFINED : SFRAME_ENC_SAME;
		return true;
	}
	/*
	 * DW_CFA_expression and _val_expression come with the CFA pushed
	 * first; an expression that starts with a register ignores it.
	 */
	if (n >= 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    op_breg(&ops[1], &reg, &off)) {
		ops++;
		n--;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		loc->kind = SFRAME_ENC_AT_CFA;
		if (n == 1)
			return true;
		loc->off = (s64)ops[1].number;
		return n == 2 && ops[1].atom == DW_OP_plus_uconst;
	}
	if (op_breg(&ops[0], &reg, &off)) {
		loc->reg = reg;
		loc->off = off;
		loc->kind = n == 1 ? SFRAME_ENC_AT_REG : SFRAME_ENC_REG;
		return n == 1 || (n == 2 && ops[1].atom == DW_OP_stack_value);
	}
	if (n == 1 && ops[0].atom == DW_OP_regx && ops[0].number <= 0xff) {
		loc->kind = SFRAME_ENC_REG;
		loc->reg = (u8)ops[0].number;
		return true;
	}
	return false;
}

/* The rule encodes in an FDE of @type, with every word in range. */
static bool rule_fits(const struct sframe_arch *arch,
		      const struct sframe_enc_rule *rule, u8 type,
		      bool *in_range)
{
	s64 words[SFRAME_FLEX_MAX_WORDS];
	bool is_ctrl[SFRAME_FLEX_MAX_WORDS];
	unsigned int n, i;

	if (!sframe_enc_rule_words(arch, rule, type, words, is_ctrl, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (words[i] < S32_MIN || words[i] > S32_MAX) {
			*in_range = false;
			return false;
		}
	}
	return true;
}

/* Turn the CFI row @cfi into @row; GEN_NR_SKIPS when expressible. */
static enum gen_skip row_rule(const struct gen_machine *mach,
			      const struct cfi_row *cfi, struct gen_row *row)
{
	const struct sframe_arch *arch = mach->arch;
	struct sframe_enc_rule *r = &row->rule, probe;
	Dwarf_Op mem[CFI_EXPR_MAX_OPS], *ops;
	bool in_range = true;
	size_t n;

	memset(row, 0, sizeof(*row));
	cfi_cfa_ops(&cfi->cfa, mem, &ops, &n);
	if (!n)
		return GEN_SKIP_CFA_UNDEFINED;
	if (!reg_loc(&cfi->ra, &r->ra))
		return GEN_SKIP_RA;
	if (!reg_loc(&cfi->fp, &r->fp))
		return GEN_SKIP_FP;
	if (r->fp.kind == SFRAME_ENC_UNDEFINED)
		r->fp.kind = SFRAME_ENC_SAME;

	r->cfa.kind = SFRAME_ENC_REG;
	if (mach->plt_expression &&
	    plt_expression(ops, n, &r->cfa.off, &row->plt_split)) {
		r->cfa.reg = GEN_REG_RSP;
		row->class = GEN_ROW_PLT;
		if (!rule_fits(arch, r, SFRAME_FDE_TYPE_DEFAULT, &in_range))
			return in_range ? GEN_SKIP_CFA_EXPR : GEN_SKIP_RANGE;
		return GEN_NR_SKIPS;
	}
	if (!op_breg(&ops[0], &r->cfa.reg, &r->cfa.off) || n > 2 ||
	    (n == 2 && ops[1].atom != DW_OP_deref))
		return GEN_SKIP_CFA_EXPR;
	if (n == 2)
		r->cfa.kind = SFRAME_ENC_AT_REG;

	row->flex_ok = rule_fits(arch, r, SFRAME_FDE_TYPE_FLEX, &in_range);
	if (rule_fits(arch, r, SFRAME_FDE_TYPE_DEFAULT, &in_range)) {
		row->class = GEN_ROW_DEFAULT;
		return GEN_NR_SKIPS;
	}
	row->class = GEN_ROW_FLEX;
	if (row->flex_ok)
		return GEN_NR_SKIPS;
	if (!in_range)
		return GEN_SKIP_RANGE;
	/* Which of RA and FP SFrame cannot express. */
	probe = *r;
	probe.fp.kind = SFRAME_ENC_SAME;
	return rule_fits(arch, &probe, SFRAME_FDE_TYPE_FLEX, &in_range) ?
	       GEN_SKIP_FP : GEN_SKIP_RA;
}

/*
 * Emit rows [i, j) as one SFrame FDE of @type, one FRE per change of rule.
 * Returns a skip reason, GEN_NR_SKIPS on success, or -1 out of memory.
 */
static int emit_segment(struct gen *g, u32 i, u32 j, u8 type, bool signal)
{
	const struct gen_row *first = &g->rows[i];
	struct sframe_enc_fde fde = {
		.start = first->start, .first = g->nfres,
		.fde_type = type, .signal = signal,
	};
	u32 k;

	if (g->rows[j - 1].end - first->start > U32_MAX)
		return GEN_SKIP_RANGE;
	fde.size = (u32)(g->rows[j - 1].end - first->start);
	if (first->class == GEN_ROW_PLT) {
		struct sframe_enc_rule grown = first->rule;

		grown.cfa.off += 8;
		fde.pc_type = SFRAME_PC_TYPE_MASK;
		fde.rep_size = GEN_AMD64_PLT_ENTRY;
		if (!gen_add_fre(g, 0, &first->rule) ||
		    !gen_add_fre(g, first->plt_split, &grown))
			return -1;
	} else {
		for (k = i; k < j; k++) {
			const struct sframe_enc_rule *r = &g->rows[k].rule;

			if (k > i && !memcmp(r, &g->fres[g->nfres - 1].rule,
					     sizeof(*r)))
				continue;
			if (!gen_add_fre(g, (u32)(g->rows[k].start - first->start),
				     r))
				return -1;
		}
	}
	fde.num = g->nfres - fde.first;
	if (fde.num > GEN_MAX_FDE_FRES)
		return GEN_SKIP_ROWS;
	if (!gen_add_fde(g, &fde))
		return -1;
	g->stats.flex_fdes += type == SFRAME_FDE_TYPE_FLEX;
	g->stats.mask_fdes += fde.pc_type == SFRAME_PC_TYPE_MASK;
	g->stats.signal_fdes += signal;
	return GEN_NR_SKIPS;
}

/* What a function's rows add up to, as cfi_exec() hands them over. */
struct func_rows {
	struct gen *g;
	enum gen_skip reason;		/* GEN_NR_SKIPS while expressible */
	bool out_of_memory;
	bool all_flex, any_flex;
};

/*
 * cfi_exec()'s callback: the row [@start, @end) into g->rows, joined to
 * the one before when it changes nothing that emit_segment() writes (a
 * PLT row keeps its own FDE).  Nonzero stops the walk: the function is
 * left out, or memory ran out.
 */
static int add_row(void *arg, u64 start, u64 end, const struct cfi_row *cfi)
{
	struct func_rows *fr = arg;
	struct gen *g = fr->g;
	struct gen_row *row, *prev;

	if (!gen_grow((void **)&g->rows, &g->rows_cap, g->nrows + 1,
		      sizeof(*g->rows))) {
		fr->out_of_memory = true;
		return 1;
	}
	row = &g->rows[g->nrows];
	fr->reason = row_rule(g->mach, cfi, row);
	if (fr->reason != GEN_NR_SKIPS)
		return 1;
	row->start = start;
	row->end = end;
	row->rule.ra_signed = cfi->ra_signed &&
			      row->rule.ra.kind != SFRAME_ENC_UNDEFINED;
	prev = g->nrows ? &g->rows[g->nrows - 1] : NULL;
	if (prev && row->class != GEN_ROW_PLT && prev->class == row->class &&
	    prev->flex_ok == row->flex_ok &&
	    !memcmp(&prev->rule, &row->rule, sizeof(row->rule))) {
		prev->end = end;
		return 0;
	}
	if (g->nrows == GEN_MAX_FUNC_ROWS) {
		fr->reason = GEN_SKIP_ROWS;
		return 1;
	}
	fr->all_flex &= row->flex_ok && row->class != GEN_ROW_PLT;
	fr->any_flex |= row->class == GEN_ROW_FLEX;
	g->nrows++;
	return 0;
}

/*
 * The state @f's CIE leaves (cfi_exec_cie()), from its slot in g->cies
 * when an FDE of the same CIE filled it, else executed into it.
 */
static const struct cfi_cie_state *cie_state(struct gen *g,
					     const struct gen_func *f,
					     const struct cfi_func *cf)
{
	struct gen_cie_slot *slot = &g->cies[f->cie % GEN_CIE_SLOTS];

	if (!slot->filled || slot->cie != f->cie) {
		cfi_exec_cie(cf, &slot->state);
		slot->filled = true;
		slot->cie = f->cie;
	}
	return &slot->state;
}

/*
 * Walk @f's CFI once into g->rows: GEN_NR_SKIPS, a reason, -1, or
 * CFI_OVER_BUDGET when the file's instructions come to more than
 * GEN_MAX_CFI_INSNS.
 */
static int func_rows(struct gen *g, const struct gen_func *f, bool *all_flex,
		     bool *any_flex)
{
	struct cfi_func cf = {
		.lo = f->lo, .hi = f->hi,
		.cie_ins = f->cie_ins, .cie_ins_end = f->cie_ins_end,
		.ins = f->ins, .ins_end = f->ins_end,
		.code_align = f->code_align, .data_align = f->data_align,
		.ra_column = g->mach->ra_column,
		.fp_column = g->mach->arch->fp_reg,
		.ra_signing = g->mach->ra_signing,
		.insns = &g->cfi_insns, .max_insns = GEN_MAX_CFI_INSNS,
	};
	struct func_rows fr = {
		.g = g, .reason = GEN_NR_SKIPS, .all_flex = true,
	};
	int ret;

	g->nrows = 0;
	ret = cfi_exec(&cf, cie_state(g, f, &cf), add_row, &fr);
	if (ret == CFI_DAMAGED)
		return GEN_SKIP_CFI;
	if (ret == CFI_OVER_BUDGET)
		return CFI_OVER_BUDGET;
	if (fr.out_of_memory)
		return -1;
	*all_flex = fr.all_flex;
	*any_flex = fr.any_flex;
	return fr.reason;
}

/*
 * One function.  Rows that only a flex FDE can express make the whole
 * function flex when every row can be; otherwise the function is split
 * into runs of default and flex rows, and a PLT row gets its own PC-mask
 * FDE.  Splitting is sound: each address keeps exactly its own rule.
 * A row SFrame cannot express drops the whole function, since an
 * unwinder given the rest would still trust the addresses around it.
 * 0, or an exit status with g->err saying why gen stops.
 */
int gen_translate_func(struct gen *g, const struct gen_func *f)
{
	u32 nfdes = g->nfdes, nfres = g->nfres, flex_fdes = g->stats.flex_fdes;
	u32 mask_fdes = g->stats.mask_fdes, sig_fdes = g->stats.signal_fdes;
	bool all_flex = false, any_flex = false;
	int reason = GEN_SKIP_OVERLAP;
	u32 i, j;

	if (f->wraps)
		reason = GEN_SKIP_RANGE;
	else if (!f->overlaps)
		reason = func_rows(g, f, &all_flex, &any_flex);
	for (i = 0; reason == GEN_NR_SKIPS && i < g->nrows; i = j) {
		u8 class = g->rows[i].class;

		if (any_flex && all_flex)
			class = GEN_ROW_FLEX;
		j = i + 1;
		while (class != GEN_ROW_PLT && j < g->nrows &&
		       (g->rows[j].class == class ||
			(any_flex && all_flex)))
			j++;
		reason = emit_segment(g, i, j, class == GEN_ROW_FLEX ?
				      SFRAME_FDE_TYPE_FLEX :
				      SFRAME_FDE_TYPE_DEFAULT, f->signal);
	}
	if (reason == CFI_OVER_BUDGET)
		return gen_fail(g, EXIT_INVALID,
				"more than the %u CFI instructions allowed",
				GEN_MAX_CFI_INSNS);
	if (reason < 0)
		return gen_fail(g, EXIT_USAGE, "out of memory");
	if (g->nfres > GEN_MAX_FRES)
		return gen_fail(g, EXIT_INVALID,
				"more than the %u FREs allowed",
				GEN_MAX_FRES);

	g->stats.funcs++;
	if (reason == GEN_NR_SKIPS) {
		g->stats.covered++;
		g->stats.covered_bytes += f->hi - f->lo;
		return 0;
	}
	g->nfdes = nfdes;
	g->nfres = nfres;
	g->stats.flex_fdes = flex_fdes;
	g->stats.mask_fdes = mask_fdes;
	g->stats.signal_fdes = sig_fdes;
	g->stats.skipped[reason]++;
	g->stats.skipped_bytes[reason] += f->hi - f->lo;
	return 0;
}
