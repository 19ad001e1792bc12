/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64: what the module's walkers read of a user task's pt_regs, for
 * unwind.c and attach.c (the architecture's half of the glue; the walk's
 * own facts are in machine.c).
 */
#ifndef _SFRAME_ARCH_USER_REGS_H
#define _SFRAME_ARCH_USER_REGS_H

#include <linux/sched.h>
#include <asm/pointer_auth.h>
#include <asm/ptrace.h>

/* Whose stacks the SFrame walk knows: AArch64 tasks', not AArch32 ones. */
static inline bool sframe_regs_walkable(const struct pt_regs *regs)
{
	return !compat_user_mode(regs);
}

/*
 * What perf_guest_state() says, which a module cannot call (its static
 * call key is not exported): on arm64 KVM counts every sample taken while
 * a vCPU is loaded on this CPU as the guest's (kvm_arch_pmi_in_guest()),
 * and the stock walker records no user stack for it.  A vCPU is loaded
 * here exactly while its thread runs here between vcpu_load() and
 * vcpu_put(), which keep a preempt notifier registered on the thread:
 * KVM's, the only user of preempt notifiers.  kvm_get_running_vcpu(),
 * which tells the same, is not exported by every kernel (7.2 keeps it
 * to KVM).  Were another user to appear, its samples would go without
 * a user stack, never with a wrong one.
 */
static inline bool sframe_regs_in_guest(const struct pt_regs *regs)
{
#ifdef CONFIG_PREEMPT_NOTIFIERS
	return !hlist_empty(&current->preempt_notifiers);
#else
	return false;
#endif
}

/* DWARF register @reg of the interrupted frame: x0-x30, then SP. */
static inline bool sframe_regs_dwarf(const struct pt_regs *r,
				     unsigned int reg, u64 *val)
{
	if (reg < ARRAY_SIZE(r->regs))
		*val = r->regs[reg];
	else if (reg == 31)
		*val = r->sp;
	else
		return false;
	return true;
}

/*
 * The bits a pointer authentication code takes in a user return address:
 * the kernel's own mask, 54 down to the user address size, the bits the
 * stock walker clears (ptrauth_strip_insn_pac() in 6.1, XPACLRI in 6.12).
 * Unsigned addresses have them clear, so a task without keys loses
 * nothing.
 */
static inline u64 sframe_regs_pac_bits(void)
{
#ifdef CONFIG_ARM64_PTR_AUTH
	return ptrauth_user_pac_mask();
#else
	return 0;
#endif
}

#endif /* _SFRAME_ARCH_USER_REGS_H */
