/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One pass over a function's DWARF CFI instructions: the rules for the
 * CFA, the return address and the frame pointer in each row, in address
 * order, handed to a callback as each row ends.
 */
#ifndef _SFRAMECTL_CFI_EXEC_H
#define _SFRAMECTL_CFI_EXEC_H

#include <stddef.h>
#include <elfutils/libdw.h>
#include <sframe/sframe.h>

/* Operations a rule's expression is read into: the PLT's 9, and 2 more. */
#define CFI_EXPR_MAX_OPS	12

/* A register's (or the CFA's) rule, as the instructions state it. */
enum cfi_how {
	CFI_SAME,
	CFI_UNDEFINED,
	CFI_OFFSET,		/* register: at CFA + off; CFA: reg + off */
	CFI_VAL_OFFSET,		/* CFA + off */
	CFI_REGISTER,		/* in register reg */
	CFI_EXPR,		/* at (CFA: is) the expression's value */
	CFI_VAL_EXPR,		/* the expression's value */
};

struct cfi_rule {
	u8 how;			/* enum cfi_how */
	u64 reg;
	s64 off;
	const u8 *expr;		/* CFI_EXPR, CFI_VAL_EXPR: the block */
	u64 expr_len;
};

/* What gen reads of a row. */
struct cfi_row {
	struct cfi_rule cfa;
	struct cfi_rule ra;
	struct cfi_rule fp;
	bool ra_signed;		/* AArch64: DW_CFA_AARCH64_negate_ra_state */
};

/* A function's instructions and what reading them needs. */
struct cfi_func {
	u64 lo, hi;
	const u8 *cie_ins, *cie_ins_end;
	const u8 *ins, *ins_end;
	u64 code_align;
	s64 data_align;
	unsigned int ra_column;
	unsigned int fp_column;
	bool ra_signing;	/* 0x2d is negate_ra_state, not invalid */
	/*
	 * Instructions executed so far, counted across a file's functions
	 * and CIEs, and the count at which execution stops: what bounds
	 * the work a file can ask for, whatever its shape.
	 */
	u64 *insns;
	u64 max_insns;
};

/*
 * What a CIE's initial instructions leave for each of its FDEs to start
 * from (cfi_exec_cie()), so that they are executed once, not once an FDE.
 */
struct cfi_cie_state {
	int status;		/* 0, or what cfi_exec() returns for each FDE */
	struct cfi_row row;
	/*
	 * DW_CFA_remember_state left rows for the FDEs to restore.  Those
	 * are not kept (up to 64 rows, 8 KiB a CIE): each FDE executes the
	 * CIE's instructions again instead, which no toolchain's CIE needs.
	 */
	bool remembered;
};

/*
 * Called for each row [@start, @end) in order, @end at most the
 * function's end; a nonzero return stops the walk and is returned.
 */
typedef int (*cfi_row_fn)(void *arg, u64 start, u64 end,
			  const struct cfi_row *row);

/*
 * cfi_exec()'s own results: an instruction cannot be executed, or the
 * file's instructions come to more than f->max_insns.
 */
#define CFI_DAMAGED	(-1)
#define CFI_OVER_BUDGET	(-2)

void cfi_exec_cie(const struct cfi_func *f, struct cfi_cie_state *cie);
int cfi_exec(const struct cfi_func *f, const struct cfi_cie_state *cie,
	     cfi_row_fn fn, void *arg);

/*
 * @rule as DWARF location operations, the CFA's pushed first for a
 * register's expression: what libdw's dwarf_frame_cfa() and
 * dwarf_frame_register() report.  An expression with an operation gen
 * has no use for, or more than fit, comes out as one operation no rule
 * matches.  @ops points into @mem (CFI_EXPR_MAX_OPS) or is NULL for
 * CFI_SAME, as libdw has it.
 */
void cfi_cfa_ops(const struct cfi_rule *rule, Dwarf_Op *mem, Dwarf_Op **ops,
		 size_t *n);
void cfi_reg_ops(const struct cfi_rule *rule, Dwarf_Op *mem, Dwarf_Op **ops,
		 size_t *n);

#endif /* _SFRAMECTL_CFI_EXEC_H */
