/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The step cache (include/sframe/walk.h): keeping a rule that stepped a
 * frame, and the loop that steps from cached return address to cached
 * return address with the walk's state in registers.  Its steps are
 * sframe_step_*()'s (step.h), the full step's own.  Included by walk.c
 * alone.
 */
#ifndef _SFRAME_CORE_STEP_CACHE_H
#define _SFRAME_CORE_STEP_CACHE_H

#include "step.h"

/* The step cache's slot for @rel (an address in the object) of section @id. */
static __always_inline struct sframe_step_entry *
sframe_step_slot(struct sframe_step_cache *cache, u64 id, u64 rel)
{
	u64 hash = (rel ^ id) * 0x9e3779b97f4a7c15ULL;

	return &cache->e[hash >> (64 - SFRAME_STEP_CACHE_BITS)];
}

static inline bool sframe_fits_s16(s32 v)
{
	return v == (s16)v;
}

/*
 * Keep @rule, which stepped the frame at return address @pc, in the step
 * cache if it has the common form (walk.h).  An entry steps exactly as
 * sframe_walk_rule() steps by its rule.
 */
static void sframe_step_keep(struct sframe_walk *w, u64 pc,
			     const struct sframe_rule *rule)
{
	const struct sframe_arch *arch = w->arch;
	u64 id = w->where.sec->id;
	struct sframe_step_entry *e;
	u8 fp_at;

	if (!id || rule->cfa.kind != SFRAME_LOC_REG ||
	    (rule->cfa.reg != arch->sp_reg && rule->cfa.reg != arch->fp_reg) ||
	    !sframe_step_saved_at_cfa(rule, &fp_at) ||
	    !sframe_fits_s16(rule->ra.offset) ||
	    (fp_at == SFRAME_STEP_FP_APART && !sframe_fits_s16(rule->fp.offset)))
		return;
	e = sframe_step_slot(w->cache, id, pc - w->where.bias);
	*e = (struct sframe_step_entry){
		.sec_id = id, .rel = pc - w->where.bias,
		.cfa_offset = rule->cfa.offset,
		.ra_offset = (s16)rule->ra.offset,
		.fp_offset = fp_at == SFRAME_STEP_FP_APART ?
			     (s16)rule->fp.offset : 0,
		.from_fp = rule->cfa.reg == arch->fp_reg, .fp_at = fp_at,
	};
}

/*
 * The step cache may answer for the next frame: the walk has one, and
 * w->ip is a return address (not the interrupted IP, not one a signal
 * frame restored), whose answer is the same every time.
 */
static __always_inline bool sframe_walk_cacheable(const struct sframe_walk *w)
{
	return w->cache && !w->first && !w->exact_ip;
}

/*
 * Step from return address to return address by the step cache, storing
 * each caller's IP in @ips, while it has the answer and the step
 * succeeds, @max at most: the number stored.  Where it stops, @w is as
 * the last step left it, for the full step, which says why a step fails.
 * The loop keeps the walk's state in registers: it is every cached
 * frame's cost, with the stack read.
 */
static __always_inline unsigned int
sframe_walk_cached_by(struct sframe_walk *w, u64 *ips, unsigned int max,
		      sframe_read_fn read)
{
	struct sframe_step_cache *cache = w->cache;
	u64 id = w->where.sec ? w->where.sec->id : 0;
	u64 ip = w->ip, sp = w->sp, fp = w->fp, cfa, ra, saved[2];
	/* A return address's call is in the range: ip - 1 - start < size. */
	u64 start = w->where.start + 1, size = w->where.end - w->where.start;
	u64 bias = w->where.bias + 1, mask = w->ra_mask;
	const struct sframe_step_entry *e;
	u64 *out = ips, *end = ips + max;
	unsigned int n;

	/*
	 * SP only bounded (after a frame record, AArch64): the full step
	 * takes the next frame, after which every SP is exact.
	 */
	if (!id || !w->sp_exact)
		return 0;
	while (out < end) {
		/* ip - 1 in the object */
		u64 rel = ip - bias;

		if (ip - start >= size)
			break;
		e = sframe_step_slot(cache, id, rel);
		if (e->rel != rel || e->sec_id != id)
			break;
		cfa = (e->from_fp ? fp : sp) + e->cfa_offset;
		if (sframe_step_check_cfa(cfa, sp, false) ||
		    !sframe_step_read_saved(read, w->ctx, cfa, e->ra_offset,
					    e->fp_offset, e->fp_at, fp, saved))
			break;
		ra = saved[1] & mask;
		if (!ra)
			break;
		ip = ra;
		sp = cfa;
		fp = saved[0];
		*out++ = ip;
	}
	n = out - ips;
	if (n) {
		w->ip = ip;
		w->sp = sp;
		w->fp = fp;
		w->sp_exact = true;
		w->ra_known = false;
		w->sframe_steps += n;
		w->cached_steps += n;
	}
	return n;
}

/* The module's read is inlined, chosen once rather than at every read. */
static __always_inline unsigned int
sframe_walk_cached(struct sframe_walk *w, u64 *ips, unsigned int max)
{
	if (w->ops->read == sframe_walk_native_read)
		return sframe_walk_cached_by(w, ips, max,
					     sframe_walk_native_read);
	return sframe_walk_cached_by(w, ips, max, w->ops->read);
}

#endif /* _SFRAME_CORE_STEP_CACHE_H */
