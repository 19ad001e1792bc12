/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What keeps a fresh range (fresh.c) alive: the change that kills it and
 * the rescan that retires it.  Pure functions, tested by KUnit
 * (tests/fresh_kunit.c).
 */
#ifndef _SFRAME_FRESH_H
#define _SFRAME_FRESH_H

#include <linux/mm.h>

#include "maps.h"
#include "window.h"

static inline bool sframe_fresh_live(const struct sframe_fresh *f)
{
	return f->r.start < f->r.end;
}

/* Did @c happen over @f? */
static inline bool sframe_fresh_over(const struct sframe_fresh *f,
				     const struct sframe_change *c)
{
	return f->r.start < c->end && c->start < f->r.end;
}

/*
 * @c happened over @f: does @f live on?  A mapping over it kills it.  A
 * VMA over it that went away (@c->freed) leaves what the mm has now at
 * @f's start, @now: @f lives on as that if it is still its file's text at
 * its page offset, which @f then follows.  So the VMA that mmap took out
 * of the mm to put @f's in its place, freed only now (MAP_FIXED since
 * 6.12, after the new VMA's hook), leaves it as it was; a part split off
 * its VMA and freed (munmap, a mapping over the part, the loader mapping
 * a library's data over the rest of a first mapping that began with its
 * text) leaves it smaller; its own VMA's free, or the part at its start,
 * kills it.  A VMA with @f's file at its start can only come from a
 * mapping (whose hook kills @f) or a split of @f's own.  Under the
 * mmap_lock.
 */
static inline bool sframe_fresh_survives(struct sframe_fresh *f,
					 const struct sframe_change *c,
					 const struct vm_area_struct *now)
{
	if (!c->freed || !now || now == c->freed ||
	    now->vm_file != f->vm_file || now->vm_start != f->r.start ||
	    now->vm_pgoff != f->r.pgoff || !(now->vm_flags & VM_EXEC))
		return false;
	f->r.end = now->vm_end;
	return true;
}

/*
 * Does @f still answer for something the map does not, after a rescan
 * that took its snapshot after change @upto: it was published after the
 * snapshot, or it is inside @changed, where the map has no rules until
 * the next rescan (a change over the range that left it live, such as
 * the free of the VMA it replaced, made after the snapshot)?
 */
static inline bool sframe_fresh_needed(const struct sframe_fresh *f,
				       const struct sframe_window *changed,
				       unsigned int upto)
{
	if ((int)(f->change - upto) > 0)
		return true;
	return !sframe_window_empty(changed) && f->r.start < changed->end &&
	       changed->start < f->r.end;
}

#endif /* _SFRAME_FRESH_H */
