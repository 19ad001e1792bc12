// SPDX-License-Identifier: GPL-2.0
/*
 * What every walk shares, whichever callbacks it was built with
 * (walk_impl.h): its start from an interrupted frame, and the names of
 * the ways it ends.
 */
#include <sframe/walk.h>

static const char * const sframe_stop_names[SFRAME_NR_STOPS] = {
	[SFRAME_STOP_NONE] = "none",
	[SFRAME_STOP_OUTERMOST] = "outermost frame",
	[SFRAME_STOP_IP_ZERO] = "return address 0",
	[SFRAME_STOP_READ] = "stack read failed",
	[SFRAME_STOP_CFA_NOT_ABOVE_SP] = "CFA not above SP",
	[SFRAME_STOP_MISALIGNED] = "misaligned CFA or FP",
	[SFRAME_STOP_REGISTER] = "rule needs an unknown register",
	[SFRAME_STOP_FP_CHAIN] = "frame pointer below SP",
	[SFRAME_STOP_NOT_CALL] = "return address not after a call",
	[SFRAME_STOP_CODE_UNREADABLE] = "code before return address unreadable",
};

/**
 * sframe_walk_stop_str() - why a walk stopped, for a log or statistics
 * @stop: an SFRAME_STOP_*
 *
 * Return: a constant string; "unknown" for a value out of range.
 */
const char *sframe_walk_stop_str(enum sframe_walk_stop stop)
{
	if ((unsigned int)stop >= SFRAME_NR_STOPS)
		return "unknown";
	return sframe_stop_names[stop];
}

/**
 * sframe_walk_start() - begin a walk from an interrupted frame
 * @w: the walk
 * @arch: the machine the stack belongs to
 * @ip: interrupted instruction pointer
 * @sp: interrupted stack pointer
 * @fp: interrupted frame pointer
 * @ops: how to read memory, find sections and read other registers, for
 *	the walk built through them (walk_ops.c); NULL for a walk built
 *	with callbacks of its own (walk_user.c)
 * @ctx: passed to the callbacks
 *
 * Return addresses are used as read.  On a machine that signs them
 * (AArch64 pointer authentication), sframe_walk_strip_ra() says which
 * bits to clear, for the walk built through @ops; a walk with callbacks
 * of its own names them itself (SFRAME_WALK_RA_MASK()).
 */
void sframe_walk_start(struct sframe_walk *w, const struct sframe_arch *arch,
		       u64 ip, u64 sp, u64 fp,
		       const struct sframe_walk_ops *ops, void *ctx)
{
	*w = (struct sframe_walk){
		.arch = arch, .ip = ip, .sp = sp, .fp = fp,
		.ra_mask = ~0ULL, .first = true, .sp_exact = true,
		.stop = SFRAME_STOP_NONE, .ops = ops, .ctx = ctx,
	};
}
