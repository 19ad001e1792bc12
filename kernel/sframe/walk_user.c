// SPDX-License-Identifier: GPL-2.0
/*
 * The module's walk: the walk's template (core/walk_impl.h) built over
 * the current task's user stack, read without faulting, the interrupted
 * frame's registers, the cached look-up (walk_lookup.c) and the machine's
 * pointer authentication bits (a constant 0 on x86-64), each called
 * directly; and the per-CPU step caches walk_user.h uses.
 */
#include <linux/percpu.h>
#include <linux/uaccess.h>

#include "walk_user.h"

/*
 * A stack read, inline where the walk reads (a stack read per frame is
 * its main cost).  copy_from_user_nofault() never faults pages in, and
 * refuses when the sampled task's mm is not the loaded one
 * (nmi_uaccess_okay()).
 */
static __always_inline int sframe_user_read(u64 addr, u64 *val,
					    unsigned int n)
{
	if (copy_from_user_nofault(val, (const void __user *)addr,
				   n * sizeof(*val)))
		return -EFAULT;
	return 0;
}

/* The interrupted frame's registers, by DWARF number. */
static bool sframe_user_reg(void *ctx, unsigned int reg, u64 *val)
{
	return sframe_regs_dwarf(((struct sframe_user_ctx *)ctx)->regs, reg,
				 val);
}

#define SFRAME_WALK_READ(w, addr, val, n)	sframe_user_read(addr, val, n)
#define SFRAME_WALK_LOOKUP(w, ip, where)	sframe_user_lookup((w)->ctx, ip, where)
#define SFRAME_WALK_REG(w, reg, val)		sframe_user_reg((w)->ctx, reg, val)
#define SFRAME_WALK_RA_MASK(w)			(~sframe_regs_pac_bits())

#include "core/walk_impl.h"

/* The step caches (walk_user.h), allocated once the module loads. */
struct sframe_step_caches __percpu *sframe_step_caches;

/**
 * sframe_step_cache_init() - allocate the per-CPU step caches
 *
 * The step caches (walk_user.h), allocated once the module loads.
 *
 * Return: 0, or -ENOMEM.
 */
int sframe_step_cache_init(void)
{
	sframe_step_caches = alloc_percpu(struct sframe_step_caches);
	return sframe_step_caches ? 0 : -ENOMEM;
}

/**
 * sframe_step_cache_exit() - free the per-CPU step caches
 *
 * Once no walk can be running.
 */
void sframe_step_cache_exit(void)
{
	free_percpu(sframe_step_caches);
	sframe_step_caches = NULL;
}
