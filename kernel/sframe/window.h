/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address windows [start, end) of the maps (maps.h): the changed and
 * scanning windows, their unions, and how a range a lookup answers for
 * stops at one.  Pure functions, tested by KUnit (tests/window_kunit.c).
 */
#ifndef _SFRAME_WINDOW_H
#define _SFRAME_WINDOW_H

#include <linux/minmax.h>

#include "sframe_unwind.h"

static inline bool sframe_window_empty(const struct sframe_window *w)
{
	return w->start >= w->end;
}

static inline bool sframe_window_has(const struct sframe_window *w, u64 addr)
{
	return addr >= w->start && addr < w->end;
}

static inline void sframe_window_add(struct sframe_window *w, u64 start,
				     u64 end)
{
	if (sframe_window_empty(w)) {
		w->start = start;
		w->end = end;
	} else {
		w->start = min(w->start, start);
		w->end = max(w->end, end);
	}
}

/*
 * Narrow [*start, *end), which holds @ip (outside @w), to the side of @w
 * that @ip is on: the walk reuses an answer for every PC in the range it
 * was given, and a window inside a range (a JIT page MAP_FIXED into a
 * library's text) has none of the range's rules.
 */
static inline void sframe_window_clip(const struct sframe_window *w,
				      u64 ip, u64 *start, u64 *end)
{
	if (sframe_window_empty(w) || w->end <= *start || w->start >= *end)
		return;
	if (ip < w->start)
		*end = w->start;
	else
		*start = w->end;
}

#endif /* _SFRAME_WINDOW_H */
