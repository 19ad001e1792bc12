/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The step loop: from return address to return address with the walk's
 * state in registers, each frame's rule from the step cache
 * (include/sframe/walk.h) or, at a miss, from the section's flattened
 * table, which the cache then keeps.  Its steps are sframe_step_*()'s
 * (step.h), the full step's own.  Included by walk.c alone.
 */
#ifndef _SFRAME_CORE_STEP_CACHE_H
#define _SFRAME_CORE_STEP_CACHE_H

#include <sframe/flat.h>
#include "step.h"

/* The step cache's slot for @rel (an address in the object) of section @id. */
static __always_inline struct sframe_step_entry *
sframe_step_slot(struct sframe_step_cache *cache, u64 id, u64 rel)
{
	u64 hash = (rel ^ id) * 0x9e3779b97f4a7c15ULL;

	return &cache->e[hash >> (64 - SFRAME_STEP_CACHE_BITS)];
}

/*
 * Keep @rule, which stepped the frame at return address @pc, in the step
 * cache if it has the loop's form (struct sframe_step_form).
 */
static void sframe_step_keep(struct sframe_walk *w, u64 pc,
			     const struct sframe_rule *rule)
{
	const struct sframe_arch *arch = w->arch;
	struct sframe_step_entry e = {
		.sec_id = w->where.sec->id, .rel = pc - w->where.bias,
	};

	if (!e.sec_id ||
	    !sframe_rule_step(rule, arch->sp_reg, arch->fp_reg, &e.step))
		return;
	*sframe_step_slot(w->cache, e.sec_id, e.rel) = e;
}

/*
 * A miss of the loop at @delta (the call's address less the table's
 * base, flat->base): in *@stepp, the step the flattened table @flat gives,
 * when the loop may take it: a rule of the loop's form, not at a
 * function's last byte (where a trampoline without an FDE may follow,
 * which the full step looks for).  Anything else (no rule, a signal
 * frame, a PLT's) is the full step's: false.  The table's forms were made
 * with its section's SP and FP, the walk's machine's: the walk uses no
 * section of another ABI (walk.c).
 */
static __always_inline bool
sframe_step_miss(const struct sframe_flat *flat, u64 delta,
		 const struct sframe_step_form **stepp)
{
	const struct sframe_step_form *step;
	struct sframe_flat_pos pos;
	u16 row;

	row = sframe_flat_row_at(flat, delta, &pos);
	/* The common row, a rule not ending a function, by one test. */
	if (unlikely((row & SFRAME_FLAT_KIND_END) !=
		     SFRAME_FLAT_RULE << SFRAME_FLAT_KIND_SHIFT) &&
	    (SFRAME_FLAT_KIND(row) != SFRAME_FLAT_RULE ||
	     sframe_flat_ends_at(flat, &pos, delta)))
		return false;
	step = &flat->forms[row & SFRAME_FLAT_INDEX_MASK];
	*stepp = step;
	return step->fp_at != SFRAME_STEP_NO_FORM;
}

/*
 * The loop may take the next frame: w->ip is a return address (not the
 * interrupted IP, not one a signal frame restored), whose answer is the
 * same every time.
 */
static __always_inline bool sframe_walk_at_return(const struct sframe_walk *w)
{
	return !w->first && !w->exact_ip;
}

/* The step cache may keep the answer for the next frame. */
static __always_inline bool sframe_walk_cacheable(const struct sframe_walk *w)
{
	return w->cache && sframe_walk_at_return(w);
}

/*
 * Step from return address to return address, storing each caller's IP
 * in @ips, @max at most, while the step succeeds and the answer comes
 * from the step cache (@misses false: its hits) or from the flattened
 * table of the object's own section (@misses true: what the cache, if
 * @cached, does not hold yet, which it then keeps): the number stored.
 * Two loops from one source, each with its state in registers: a warm
 * walk's frames are the first's, with nothing of the second in the way.
 * Where a loop stops, @w is as its last step left it, for the other loop
 * or the full step, which says why a step fails.
 */
static __always_inline unsigned int
sframe_walk_loop_by(struct sframe_walk *w, u64 *ips, unsigned int max,
		    sframe_read_fn read, bool cached, bool misses)
{
	const struct sframe_section *sec = w->where.sec;
	const struct sframe_flat *flat = sec ? sec->flat : NULL;
	struct sframe_step_cache *cache = w->cache;
	u64 id = sec ? sec->id : 0;
	u64 ip = w->ip, sp = w->sp, fp = w->fp, cfa, ra, saved[2];
	/* A return address's call is in the range: ip - 1 - start < size. */
	u64 start = w->where.start + 1, size = w->where.end - w->where.start;
	u64 bias = w->where.bias + 1, mask = w->ra_mask, origin = 0;
	const struct sframe_step_form *step;
	struct sframe_step_entry *e = NULL;
	u64 *out = ips, *end = ips + max;
	unsigned int n;
	bool hit;

	/*
	 * SP only bounded (after a frame record, AArch64): the full step
	 * takes the next frame, after which every SP is exact.  Only a
	 * section with an id has entries (walk.h).
	 */
	if (!sec || (cached && !id) || (misses && !flat) || !w->sp_exact)
		return 0;
	/*
	 * ip - origin: the call's offset from the table's base, the table's
	 * key, with the per-walk terms (bias, section, base) summed once.
	 */
	if (misses)
		origin = bias + sec->vaddr + (u64)flat->base;
	while (out < end) {
		/* ip - 1 in the object */
		u64 rel = ip - bias;

		if (ip - start >= size)
			break;
		if (cached) {
			e = sframe_step_slot(cache, id, rel);
			hit = e->rel == rel && e->sec_id == id;
			if (hit == misses)
				break;
		}
		if (misses) {
			if (!sframe_step_miss(flat, ip - origin, &step))
				break;
			/*
			 * The table's answer depends on nothing but rel:
			 * kept whether or not its step succeeds.
			 */
			if (cached)
				*e = (struct sframe_step_entry){
					.sec_id = id, .rel = rel, .step = *step,
				};
		} else {
			step = &e->step;
		}
		cfa = (step->from_fp ? fp : sp) + step->cfa_offset;
		if (sframe_step_check_cfa(cfa, sp, false))
			break;
		/* The rest of the form is read only where it is needed. */
		if (likely(step->fp_at == SFRAME_STEP_FP_BELOW_RA) ?
		    !sframe_step_read_record(read, w->ctx, cfa,
					     step->ra_offset, saved) :
		    !sframe_step_read_saved(read, w->ctx, cfa,
					    step->ra_offset, step->fp_offset,
					    step->fp_at, fp, saved))
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
		if (!misses)
			w->cached_steps += n;
	}
	return n;
}

/* The module's read is inlined, chosen once rather than at every read. */
static __always_inline unsigned int
sframe_walk_loop(struct sframe_walk *w, u64 *ips, unsigned int max,
		 bool cached, bool misses)
{
	if (w->ops->read == sframe_walk_native_read)
		return sframe_walk_loop_by(w, ips, max,
					   sframe_walk_native_read, cached,
					   misses);
	return sframe_walk_loop_by(w, ips, max, w->ops->read, cached, misses);
}

/*
 * The table's loop is a function of its own, with registers of its own;
 * the cache's, every warm frame's cost, is inline in the walk's.
 */
static noinline unsigned int sframe_walk_table(struct sframe_walk *w,
					       u64 *ips, unsigned int max)
{
	if (w->cache)
		return sframe_walk_loop(w, ips, max, true, true);
	return sframe_walk_loop(w, ips, max, false, true);
}

#endif /* _SFRAME_CORE_STEP_CACHE_H */
