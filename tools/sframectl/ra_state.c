// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl gen on AArch64: where a function's return address is signed
 * (PAC), from DW_CFA_AARCH64_negate_ra_state in its CFI instructions,
 * which libdw executes but does not report.
 */
#include <dwarf.h>

#include "gen.h"

/* How deep DW_CFA_remember_state may nest. */
#define RA_STATE_STACK			16

struct cfa_reader {
	const u8 *p;
	const u8 *end;
};

/* Step over @nleb LEB128 operands, then a block if @block. */
static bool skip_operands(struct cfa_reader *r, unsigned int nleb, bool block)
{
	u64 v;

	while (nleb--)
		if (!gen_read_uleb(&r->p, r->end, &v))
			return false;
	if (!block)
		return true;
	if (!gen_read_uleb(&r->p, r->end, &v) || v > (u64)(r->end - r->p))
		return false;
	r->p += v;
	return true;
}

struct ra_state {
	u64 loc;
	bool signed_ra;
	bool stack[RA_STATE_STACK];
	unsigned int depth;
};

/* Note that the state changes at the current location. */
static bool ra_state_flip(struct gen *g, struct ra_state *st)
{
	if (!gen_grow((void **)&g->signs, &g->signs_cap, g->nsigns + 1,
		      sizeof(*g->signs)))
		return false;
	g->signs[g->nsigns++] = st->loc;
	st->signed_ra = !st->signed_ra;
	return true;
}

/*
 * Run the instructions [@p, @end) for the RA signing state alone: every
 * operand is stepped over, locations advanced, the state remembered and
 * restored with the rest of the row.  False for an opcode gen does not
 * know (DW_CFA_set_loc among them), or a truncated operand.
 */
static bool ra_state_run(struct gen *g, struct ra_state *st, const u8 *p,
			 const u8 *end, u64 code_align)
{
	struct cfa_reader r = { p, end };
	u64 delta = 0;

	while (r.p < r.end) {
		u8 op = *r.p++;
		bool ok = true;

		switch (op & 0xc0) {
		case DW_CFA_advance_loc:
			st->loc += (u64)(op & 0x3f) * code_align;
			continue;
		case DW_CFA_offset:
			ok = skip_operands(&r, 1, false);
			break;
		case DW_CFA_restore:
			break;
		default:
			switch (op) {
			case DW_CFA_nop:
				break;
			case DW_CFA_advance_loc1:
			case DW_CFA_advance_loc2:
			case DW_CFA_advance_loc4:
				ok = gen_read_le(&r.p, r.end,
						 1U << (op - DW_CFA_advance_loc1),
						 &delta);
				st->loc += delta * code_align;
				break;
			case DW_CFA_restore_extended:
			case DW_CFA_undefined:
			case DW_CFA_same_value:
			case DW_CFA_def_cfa_register:
			case DW_CFA_def_cfa_offset:
			case DW_CFA_def_cfa_offset_sf:
			case DW_CFA_GNU_args_size:
				ok = skip_operands(&r, 1, false);
				break;
			case DW_CFA_offset_extended:
			case DW_CFA_register:
			case DW_CFA_def_cfa:
			case DW_CFA_offset_extended_sf:
			case DW_CFA_def_cfa_sf:
			case DW_CFA_val_offset:
			case DW_CFA_val_offset_sf:
			case DW_CFA_GNU_negative_offset_extended:
				ok = skip_operands(&r, 2, false);
				break;
			case DW_CFA_def_cfa_expression:
				ok = skip_operands(&r, 0, true);
				break;
			case DW_CFA_expression:
			case DW_CFA_val_expression:
				ok = skip_operands(&r, 1, true);
				break;
			case DW_CFA_remember_state:
				ok = st->depth < RA_STATE_STACK;
				if (ok)
					st->stack[st->depth++] = st->signed_ra;
				break;
			case DW_CFA_restore_state:
				ok = st->depth > 0;
				if (ok && st->stack[--st->depth] != st->signed_ra)
					ok = ra_state_flip(g, st);
				break;
			case DW_CFA_AARCH64_negate_ra_state:
				ok = ra_state_flip(g, st);
				break;
			default:
				ok = false;
			}
		}
		if (!ok)
			return false;
	}
	return true;
}

/*
 * g->signs: the addresses in @f at which its return address becomes
 * signed or unsigned again, in order.  False when its CFI cannot be read
 * for this (the function is then left out as damaged CFI); memory
 * failure is not told apart, gen reports it elsewhere.
 */
bool gen_ra_signing(struct gen *g, const struct gen_func *f)
{
	struct ra_state st = { .loc = f->lo };

	g->nsigns = 0;
	return ra_state_run(g, &st, f->cie_ins, f->cie_ins_end,
			    f->code_align) &&
	       ra_state_run(g, &st, f->ins, f->ins_end, f->code_align);
}
