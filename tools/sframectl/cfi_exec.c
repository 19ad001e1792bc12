// SPDX-License-Identifier: GPL-2.0
/*
 * One pass over a function's DWARF CFI instructions (the CIE's initial
 * ones, then the FDE's): the CFA, return address and frame pointer rules
 * of each row, handed on as each row ends, so that a function costs time
 * in proportion to its instructions however many rows it has.  A CIE's
 * instructions are executed once for all its FDEs (cfi_exec_cie()), so
 * that a long CIE shared by many FDEs costs its length once, not once
 * an FDE.
 */
#include <dwarf.h>
#include <string.h>

#include "cfi_exec.h"
#include "gen_util.h"

/* How deep DW_CFA_remember_state may nest. */
#define CFI_STATE_STACK		64

struct cfi_machine {
	const struct cfi_func *f;
	const u8 *p, *end;
	struct cfi_row row;
	struct cfi_row initial;		/* after the CIE's instructions */
	struct cfi_row stack[CFI_STATE_STACK];
	unsigned int depth;
	struct cfi_rule other;		/* any other register's, dropped */
	u64 loc;
	bool in_cie;
	bool past;			/* the location reached the end */
	cfi_row_fn fn;
	void *arg;
};

/* The rule gen keeps for @reg, or a scratch one for a register it drops. */
static struct cfi_rule *rule_of(struct cfi_machine *m, struct cfi_row *row,
				u64 reg)
{
	if (reg == m->f->ra_column)
		return &row->ra;
	if (reg == m->f->fp_column)
		return &row->fp;
	return &m->other;
}

static bool read_reg(struct cfi_machine *m, u64 *reg)
{
	return gen_read_uleb(&m->p, m->end, reg);
}

/* A block operand: its length, then its bytes. */
static bool read_block(struct cfi_machine *m, const u8 **expr, u64 *len)
{
	if (!gen_read_uleb(&m->p, m->end, len) ||
	    *len > (u64)(m->end - m->p))
		return false;
	*expr = m->p;
	m->p += *len;
	return true;
}

/* A factored offset: @v times the data alignment, wrapping as u64. */
static s64 factored(const struct cfi_machine *m, u64 v)
{
	return (s64)(v * (u64)m->f->data_align);
}

static bool set_rule(struct cfi_machine *m, u64 reg, u8 how, s64 off)
{
	*rule_of(m, &m->row, reg) = (struct cfi_rule){ .how = how, .off = off };
	return true;
}

/* Register @reg, rule @how with a factored offset, unsigned or signed. */
static bool set_offset(struct cfi_machine *m, u64 reg, u8 how, bool sf)
{
	u64 v;

	if (sf ? !gen_read_sleb(&m->p, m->end, (s64 *)&v) :
		 !gen_read_uleb(&m->p, m->end, &v))
		return false;
	return set_rule(m, reg, how, factored(m, v));
}

static bool set_expr(struct cfi_machine *m, u8 how)
{
	struct cfi_rule r = { .how = how };

	if (!read_reg(m, &r.reg) || !read_block(m, &r.expr, &r.expr_len))
		return false;
	*rule_of(m, &m->row, r.reg) = r;
	return true;
}

/* DW_CFA_restore: the register's rule as the CIE left it. */
static bool restore_rule(struct cfi_machine *m, u64 reg)
{
	if (m->in_cie)
		return false;
	*rule_of(m, &m->row, reg) = *rule_of(m, &m->initial, reg);
	return true;
}

/* The CFA: register + offset, or an expression. */
static bool def_cfa(struct cfi_machine *m, u8 op)
{
	struct cfi_rule *cfa = &m->row.cfa;
	u64 reg, off;

	switch (op) {
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
		if (!read_reg(m, &reg))
			return false;
		if (op == DW_CFA_def_cfa ?
		    !gen_read_uleb(&m->p, m->end, &off) :
		    !gen_read_sleb(&m->p, m->end, (s64 *)&off))
			return false;
		*cfa = (struct cfi_rule){
			.how = CFI_OFFSET, .reg = reg,
			.off = op == DW_CFA_def_cfa ? (s64)off :
						      factored(m, off),
		};
		return true;
	case DW_CFA_def_cfa_register:
		if (!read_reg(m, &reg) || cfa->how != CFI_OFFSET)
			return false;
		cfa->reg = reg;
		return true;
	case DW_CFA_def_cfa_offset:
		if (!gen_read_uleb(&m->p, m->end, &off) ||
		    cfa->how != CFI_OFFSET)
			return false;
		cfa->off = (s64)off;
		return true;
	case DW_CFA_def_cfa_offset_sf:
		if (!gen_read_sleb(&m->p, m->end, (s64 *)&off) ||
		    cfa->how != CFI_OFFSET)
			return false;
		cfa->off = factored(m, off);
		return true;
	default:	/* DW_CFA_def_cfa_expression */
		*cfa = (struct cfi_rule){ .how = CFI_EXPR };
		return read_block(m, &cfa->expr, &cfa->expr_len);
	}
}

/*
 * The location moves on by @delta code units: the row so far ends there.
 * Returns 0 or the callback's result; m->past once beyond the function.
 */
static int advance(struct cfi_machine *m, u64 delta)
{
	const struct cfi_func *f = m->f;
	u64 step, next;
	int ret;

	if (m->in_cie || __builtin_mul_overflow(delta, f->code_align, &step) ||
	    __builtin_add_overflow(m->loc, step, &next))
		return CFI_DAMAGED;
	if (next == m->loc)
		return 0;
	ret = m->fn(m->arg, m->loc, next < f->hi ? next : f->hi, &m->row);
	m->loc = next;
	m->past = next >= f->hi;
	return ret;
}

/* The opcodes with operands in their own bytes. */
static bool exec_extended(struct cfi_machine *m, u8 op)
{
	u64 reg, reg2;

	switch (op) {
	case DW_CFA_nop:
		return true;
	case DW_CFA_offset_extended:
		return read_reg(m, &reg) && set_offset(m, reg, CFI_OFFSET, false);
	case DW_CFA_offset_extended_sf:
		return read_reg(m, &reg) && set_offset(m, reg, CFI_OFFSET, true);
	case DW_CFA_val_offset:
		return read_reg(m, &reg) &&
		       set_offset(m, reg, CFI_VAL_OFFSET, false);
	case DW_CFA_val_offset_sf:
		return read_reg(m, &reg) &&
		       set_offset(m, reg, CFI_VAL_OFFSET, true);
	case DW_CFA_GNU_negative_offset_extended:
		/* Negated as u64: -S64_MIN would overflow. */
		return read_reg(m, &reg) && gen_read_uleb(&m->p, m->end, &reg2) &&
		       set_rule(m, reg, CFI_OFFSET, factored(m, 0 - reg2));
	case DW_CFA_restore_extended:
		return read_reg(m, &reg) && restore_rule(m, reg);
	case DW_CFA_undefined:
		return read_reg(m, &reg) && set_rule(m, reg, CFI_UNDEFINED, 0);
	case DW_CFA_same_value:
		return read_reg(m, &reg) && set_rule(m, reg, CFI_SAME, 0);
	case DW_CFA_register:
		if (!read_reg(m, &reg) || !read_reg(m, &reg2))
			return false;
		*rule_of(m, &m->row, reg) = (struct cfi_rule){
			.how = CFI_REGISTER, .reg = reg2,
		};
		return true;
	case DW_CFA_expression:
		return set_expr(m, CFI_EXPR);
	case DW_CFA_val_expression:
		return set_expr(m, CFI_VAL_EXPR);
	case DW_CFA_def_cfa:
	case DW_CFA_def_cfa_sf:
	case DW_CFA_def_cfa_register:
	case DW_CFA_def_cfa_offset:
	case DW_CFA_def_cfa_offset_sf:
	case DW_CFA_def_cfa_expression:
		return def_cfa(m, op);
	case DW_CFA_remember_state:
		if (m->depth == CFI_STATE_STACK)
			return false;
		m->stack[m->depth++] = m->row;
		return true;
	case DW_CFA_restore_state:
		if (!m->depth)
			return false;
		m->row = m->stack[--m->depth];
		return true;
	case DW_CFA_GNU_args_size:
		return gen_read_uleb(&m->p, m->end, &reg);
	case DW_CFA_AARCH64_negate_ra_state:
		m->row.ra_signed = !m->row.ra_signed;
		return m->f->ra_signing;
	default:	/* DW_CFA_set_loc among them */
		return false;
	}
}

/* Run [@p, @end) up to the function's end: 0, or why it stopped. */
static int exec_range(struct cfi_machine *m, const u8 *p, const u8 *end)
{
	u64 delta;
	u8 op;
	int ret;

	m->p = p;
	m->end = end;
	while (m->p < m->end && !m->past) {
		if (*m->f->insns == m->f->max_insns)
			return CFI_OVER_BUDGET;
		++*m->f->insns;
		op = *m->p++;
		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			ret = advance(m, op & 0x3f);
			break;
		case DW_CFA_offset:
			ret = set_offset(m, op & 0x3f, CFI_OFFSET, false) ?
			      0 : CFI_DAMAGED;
			break;
		case DW_CFA_restore:
			ret = restore_rule(m, op & 0x3f) ? 0 : CFI_DAMAGED;
			break;
		default:
			if (op >= DW_CFA_advance_loc1 &&
			    op <= DW_CFA_advance_loc4)
				ret = gen_read_le(&m->p, m->end,
						  1U << (op - DW_CFA_advance_loc1),
						  &delta) ?
				      advance(m, delta) : CFI_DAMAGED;
			else
				ret = exec_extended(m, op) ? 0 : CFI_DAMAGED;
		}
		if (ret)
			return ret;
	}
	return 0;
}

static void start_machine(struct cfi_machine *m, const struct cfi_func *f,
			  cfi_row_fn fn, void *arg)
{
	*m = (struct cfi_machine){
		.f = f, .loc = f->lo, .in_cie = true, .fn = fn, .arg = arg,
		.row = {
			.cfa.how = CFI_UNDEFINED,
			.ra.how = CFI_SAME, .fp.how = CFI_SAME,
		},
	};
}

/* The CIE's initial instructions: the row each of its FDEs starts from. */
static int exec_cie(struct cfi_machine *m)
{
	int ret = exec_range(m, m->f->cie_ins, m->f->cie_ins_end);

	m->initial = m->row;
	m->in_cie = false;
	return ret;
}

/*
 * Execute @f's CIE's initial instructions into @cie, for cfi_exec() to
 * start each of the CIE's FDEs from: the same for every one, since they
 * cannot advance the location (an FDE's range) nor restore a rule (the
 * CIE's own).
 */
void cfi_exec_cie(const struct cfi_func *f, struct cfi_cie_state *cie)
{
	struct cfi_machine m;

	start_machine(&m, f, NULL, NULL);
	cie->status = exec_cie(&m);
	cie->row = m.row;
	cie->remembered = m.depth > 0;
}

/*
 * Walk @f's rows once, from @cie (cfi_exec_cie() of @f's CIE), calling
 * @fn for each: 0 when every row was seen, CFI_DAMAGED if an instruction
 * could not be executed, CFI_OVER_BUDGET, or what @fn returned to stop.
 */
int cfi_exec(const struct cfi_func *f, const struct cfi_cie_state *cie,
	     cfi_row_fn fn, void *arg)
{
	struct cfi_machine m;
	int ret;

	if (cie->status)
		return cie->status;
	start_machine(&m, f, fn, arg);
	if (cie->remembered) {
		ret = exec_cie(&m);
		if (ret)
			return ret;
	} else {
		m.row = cie->row;
		m.initial = cie->row;
		m.in_cie = false;
	}
	ret = exec_range(&m, f->ins, f->ins_end);
	if (!ret && !m.past)
		ret = fn(arg, m.loc, f->hi, &m.row);
	return ret;
}

/*
 * Read the DWARF expression [@p, @p + @len) into @ops from *@n on, up
 * to @max: only the operations gen's rules are made of; any other, or
 * one too many, makes the whole a single operation no rule matches.
 */
static void expr_ops(const u8 *p, u64 len, Dwarf_Op *ops, size_t *n,
		     size_t max)
{
	const u8 *end = p + len;
	Dwarf_Op *op;
	u8 atom;
	bool ok;

	while (p < end) {
		if (*n == max)
			goto unknown;
		op = &ops[(*n)++];
		*op = (Dwarf_Op){ .atom = atom = *p++ };
		if (atom >= DW_OP_breg0 && atom <= DW_OP_breg31)
			ok = gen_read_sleb(&p, end, (s64 *)&op->number);
		else if (atom == DW_OP_bregx)
			ok = gen_read_uleb(&p, end, &op->number) &&
			     gen_read_sleb(&p, end, (s64 *)&op->number2);
		else if (atom == DW_OP_regx || atom == DW_OP_plus_uconst)
			ok = gen_read_uleb(&p, end, &op->number);
		else
			ok = (atom >= DW_OP_lit0 && atom <= DW_OP_lit31) ||
			     atom == DW_OP_deref || atom == DW_OP_and ||
			     atom == DW_OP_ge || atom == DW_OP_shl ||
			     atom == DW_OP_plus || atom == DW_OP_stack_value ||
			     atom == DW_OP_call_frame_cfa;
		if (!ok)
			goto unknown;
	}
	return;
unknown:
	ops[0] = (Dwarf_Op){ .atom = 0 };
	*n = 1;
}

void cfi_cfa_ops(const struct cfi_rule *rule, Dwarf_Op *mem, Dwarf_Op **ops,
		 size_t *n)
{
	*ops = mem;
	*n = 0;
	if (rule->how == CFI_OFFSET) {
		mem[0] = (Dwarf_Op){
			.atom = DW_OP_bregx, .number = rule->reg,
			.number2 = (u64)rule->off,
		};
		*n = 1;
	} else if (rule->how == CFI_EXPR) {
		expr_ops(rule->expr, rule->expr_len, mem, n,
			 CFI_EXPR_MAX_OPS);
	}
}

void cfi_reg_ops(const struct cfi_rule *rule, Dwarf_Op *mem, Dwarf_Op **ops,
		 size_t *n)
{
	*ops = rule->how == CFI_SAME ? NULL : mem;
	*n = 0;
	switch (rule->how) {
	case CFI_OFFSET:
	case CFI_VAL_OFFSET:
		mem[(*n)++] = (Dwarf_Op){ .atom = DW_OP_call_frame_cfa };
		if (rule->off)
			mem[(*n)++] = (Dwarf_Op){
				.atom = DW_OP_plus_uconst,
				.number = (u64)rule->off,
			};
		break;
	case CFI_REGISTER:
		mem[(*n)++] = (Dwarf_Op){
			.atom = DW_OP_regx, .number = rule->reg,
		};
		break;
	case CFI_EXPR:
	case CFI_VAL_EXPR:
		mem[(*n)++] = (Dwarf_Op){ .atom = DW_OP_call_frame_cfa };
		/* Room for the DW_OP_stack_value of a value. */
		expr_ops(rule->expr, rule->expr_len, mem, n,
			 CFI_EXPR_MAX_OPS - 1);
		break;
	}
	if (rule->how == CFI_VAL_OFFSET || rule->how == CFI_VAL_EXPR)
		mem[(*n)++] = (Dwarf_Op){ .atom = DW_OP_stack_value };
}
