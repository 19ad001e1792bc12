/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every step by a rule does once it knows the CFA: the sanity rules
 * of the walk (the stack grows up, the CFA is aligned) and the reads of
 * the caller's RA and FP saved at the CFA.  The full step (walk.c) and the
 * step cache's loop (step_cache.h) both step through these, so that the
 * NMI path's rules stand in one place.
 */
#ifndef _SFRAME_CORE_STEP_H
#define _SFRAME_CORE_STEP_H

#include <sframe/walk.h>

typedef int (*sframe_read_fn)(void *ctx, u64 addr, u64 *val, unsigned int n);

/*
 * The CFA's checks.  @stays: the frame saved nothing (an AArch64 leaf:
 * CFA = SP, RA in LR), the one frame whose CFA may equal SP; it cannot
 * repeat, for that register is known only in the interrupted frame or
 * right after a signal frame.
 */
static __always_inline enum sframe_walk_stop
sframe_step_check_cfa(u64 cfa, u64 sp, bool stays)
{
	if (cfa < sp || (cfa == sp && !stays))
		return SFRAME_STOP_CFA_NOT_ABOVE_SP;
	if (cfa & (SFRAME_ARCH_WORD - 1))
		return SFRAME_STOP_MISALIGNED;
	return SFRAME_STOP_NONE;
}

/*
 * The common frame's saved registers (a frame record): the caller's FP
 * just below its RA at @cfa + @ra_offset, fetched by one read into
 * @saved[0] and @saved[1].  False if the read failed.
 */
static __always_inline bool sframe_step_read_record(sframe_read_fn read,
						    void *ctx, u64 cfa,
						    s32 ra_offset, u64 saved[2])
{
	return !sframe_walk_read(read, ctx, cfa + ra_offset - SFRAME_ARCH_WORD,
				 saved, 2);
}

/*
 * Read the caller's FP and RA saved at @cfa into @saved[0] and @saved[1]:
 * the RA at @ra_offset, the FP as @fp_at says (sframe_rule_saved_at_cfa():
 * at @fp_offset for SFRAME_STEP_FP_APART; @fp, the callee's, for
 * SFRAME_STEP_FP_SAME).  In the common frame the FP is just below the RA:
 * one read fetches both, on the straight path.  An array, not two
 * pointers, so that the loops keep their own state in registers.  False
 * if a read failed.
 */
static __always_inline bool sframe_step_read_saved(sframe_read_fn read, void *ctx,
						   u64 cfa, s32 ra_offset,
						   s32 fp_offset, u8 fp_at,
						   u64 fp, u64 saved[2])
{
	if (likely(fp_at == SFRAME_STEP_FP_BELOW_RA))
		return sframe_step_read_record(read, ctx, cfa, ra_offset,
					       saved);
	saved[0] = fp;
	return !sframe_walk_read(read, ctx, cfa + ra_offset, &saved[1], 1) &&
	       (fp_at != SFRAME_STEP_FP_APART ||
		!sframe_walk_read(read, ctx, cfa + fp_offset, &saved[0], 1));
}

#endif /* _SFRAME_CORE_STEP_H */
