// SPDX-License-Identifier: GPL-2.0
/*
 * The walk's lookup callback: the section and load bias for an address of
 * the walked mm, from its map as one consistent snapshot, in any context,
 * NMI included, under the walk's rcu_read_lock().
 */
#include <linux/rcupdate.h>
#include <linux/seqlock.h>

#include "maps.h"
#include "vdso.h"
#include "window.h"

/* Reads of the mm's state a walk makes: one more if a writer came between. */
#define SFRAME_CURSOR_TRIES	2

/*
 * The walked mm's map and windows, as one consistent snapshot; none if a
 * writer is at work.  Any context.
 */
static void sframe_cursor_init(struct sframe_cursor *cur)
{
	struct sframe_mm *m = NULL;
	unsigned int seq, tries;

	cur->map_found = true;
	cur->m = NULL;
	if (READ_ONCE(sframe_enabled) && cur->mm)
		m = sframe_mm_find(cur->mm);
	for (tries = 0; m && tries < SFRAME_CURSOR_TRIES; tries++) {
		/*
		 * Never wait for an odd count: the walk may have interrupted
		 * the writer.  An even one that changed was a writer that
		 * finished meanwhile: read again, a bounded number of times.
		 */
		seq = raw_read_seqcount(&m->seq);
		if (seq & 1)
			break;
		cur->map = rcu_dereference(m->map);
		cur->changed = m->changed;
		cur->scanning = m->scanning;
		if (!read_seqcount_retry(&m->seq, seq)) {
			cur->m = m;
			cur->seq = seq;
			return;
		}
	}
	cur->map = NULL;
	cur->changed = cur->scanning = (struct sframe_window){};
}

/* Where sframe_cursor_range() found a range. */
enum { SFRAME_IN_MAP = 1, SFRAME_IN_FRESH };

/*
 * The range of the walked mm holding @ip in *@r: from its map
 * (SFRAME_IN_MAP), or inside a window not rescanned yet from a fresh range
 * (SFRAME_IN_FRESH, fresh.c); 0 if none; -EAGAIN if the mm changed since
 * the cursor read it.  The part of it answered for, in @where, stops at
 * either window.
 */
static int sframe_cursor_range(const struct sframe_cursor *cur, u64 ip,
			       struct sframe_range *r,
			       struct sframe_where *where)
{
	int i, ret;

	if (sframe_window_has(&cur->changed, ip) ||
	    sframe_window_has(&cur->scanning, ip)) {
		ret = cur->m ? sframe_fresh_find(cur->m, cur->seq, ip, r) : 0;
		if (ret <= 0)
			return ret;
		where->start = r->start;
		where->end = r->end;
		return SFRAME_IN_FRESH;
	}
	i = sframe_map_find(cur->map, ip);
	if (i < 0)
		return 0;
	*r = cur->map->r[i];
	where->start = r->start;
	where->end = r->end;
	sframe_window_clip(&cur->changed, ip, &where->start, &where->end);
	sframe_window_clip(&cur->scanning, ip, &where->start, &where->end);
	return SFRAME_IN_MAP;
}

/**
 * sframe_user_lookup() - the walk's lookup callback
 * @ctx: the walk's context, a struct sframe_user_ctx
 * @ip: the address
 * @where: filled in: the section covering @ip, the one filling its gaps,
 *	its load bias and the addresses the answer holds for; no section
 *	where none answers
 *
 * The section covering @ip in the walked mm and its load bias.  The
 * caller holds rcu_read_lock() for the whole walk, which keeps the map
 * the cursor remembers, its files and their sections alive.  An address
 * in a window not yet rescanned has no section unless a fresh range holds
 * it: its old object may be gone.  An address in the vDSO's text is
 * answered by sframe_vdso_lookup().
 *
 * Context: any context, NMI included, under the walk's rcu_read_lock().
 */
void sframe_user_lookup(void *ctx, u64 ip, struct sframe_where *where)
{
	struct sframe_cursor *cur = &((struct sframe_user_ctx *)ctx)->cur;
	const struct sframe_sec *sec, *fill;
	const struct sframe_object *obj;
	struct sframe_range r;
	u64 bias;
	int ret;

	if (sframe_vdso_lookup(cur->mm, ip, where))
		return;
	if (!cur->map_found)
		sframe_cursor_init(cur);
	ret = sframe_cursor_range(cur, ip, &r, where);
	if (ret == -EAGAIN) {
		/* The mm changed since the walk read it: read it again. */
		sframe_cursor_init(cur);
		ret = sframe_cursor_range(cur, ip, &r, where);
	}
	if (ret != SFRAME_IN_MAP && (sframe_window_has(&cur->changed, ip) ||
				     sframe_window_has(&cur->scanning, ip)))
		sframe_count(lookups_in_changed_range);
	if (ret == SFRAME_IN_FRESH)
		sframe_count(lookups_fresh);
	if (ret <= 0)
		return;
	sec = sframe_file_sec(r.file, &fill, &obj);
	if (!obj)
		sframe_count(lookups_unread);
	else if (!sec)
		sframe_count(lookups_without_section);
	if (!sec || !obj || !sframe_object_bias(obj, r.start, r.pgoff, &bias))
		return;
	where->sec = &sec->sec;
	where->fill = fill ? &fill->sec : NULL;
	where->bias = bias;
}
