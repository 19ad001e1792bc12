// SPDX-License-Identifier: GPL-2.0
/*
 * The module's walk callbacks (sframe_user_ops): the interrupted frame's
 * registers, user memory read without faulting, and the cached look-up
 * (walk_lookup.c); and the per-CPU step caches walk_user.h uses.
 */
#include <linux/percpu.h>

#include "walk_user.h"

/* The interrupted frame's registers, by DWARF number. */
static bool sframe_user_reg(void *ctx, unsigned int reg, u64 *val)
{
	return sframe_regs_dwarf(((struct sframe_user_ctx *)ctx)->regs, reg,
				 val);
}

/**
 * sframe_user_read() - the walk's read callback
 * @ctx: the walk's context (unused)
 * @addr: the user address to read from
 * @val: where the words go
 * @n: how many consecutive words to read
 *
 * The walk compares its read callback with this and then reads inline
 * (sframe_user_read_inline()), without faulting pages in.
 *
 * Context: any context, NMI included.
 *
 * Return: 0, or -EFAULT if any of the words cannot be read.
 */
int sframe_user_read(void *ctx, u64 addr, u64 *val, unsigned int n)
{
	return sframe_user_read_inline(addr, val, n);
}

const struct sframe_walk_ops sframe_user_ops = {
	.read = sframe_user_read,
	.lookup = sframe_user_lookup,
	.reg = sframe_user_reg,
};

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
