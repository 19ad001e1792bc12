/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64: what the module's walkers read of a user task's pt_regs, for
 * unwind.c and attach.c (the architecture's half of the glue; the walk's
 * own facts are in machine.c).
 */
#ifndef _SFRAME_ARCH_USER_REGS_H
#define _SFRAME_ARCH_USER_REGS_H

#include <linux/perf_event.h>
#include <linux/sched.h>
#include <asm/ptrace.h>

/* Whose stacks the SFrame walk knows: 64-bit tasks'. */
static inline bool sframe_regs_walkable(const struct pt_regs *regs)
{
	return user_64bit_mode((struct pt_regs *)regs);
}

/*
 * A sample taken while a vCPU thread ran its guest, or of virtual-8086
 * code: the stock walker records no user stack for it, nor do we.
 */
static inline bool sframe_regs_in_guest(const struct pt_regs *regs)
{
	return (current->flags & PF_VCPU) ||
	       (regs->flags & (X86_VM_MASK | PERF_EFLAGS_VM));
}

/* DWARF register @reg (0-15) of the interrupted frame. */
static inline bool sframe_regs_dwarf(const struct pt_regs *r,
				     unsigned int reg, u64 *val)
{
	const unsigned long dwarf_regs[] = {
		r->ax, r->dx, r->cx, r->bx, r->si, r->di, r->bp, r->sp,
		r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
	};

	if (reg >= ARRAY_SIZE(dwarf_regs))
		return false;
	*val = dwarf_regs[reg];
	return true;
}

/* Return addresses are never signed. */
static inline u64 sframe_regs_pac_bits(void)
{
	return 0;
}

#endif /* _SFRAME_ARCH_USER_REGS_H */
