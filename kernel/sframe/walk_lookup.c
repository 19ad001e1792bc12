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

/* The walked mm's map and windows, as one consistent snapshot.  Any context. */
static void sframe_cursor_init(struct sframe_cursor *cur)
{
	struct sframe_mm *m = NULL;
	unsigned int seq;

	cur->map_found = true;
	if (READ_ONCE(sframe_enabled) && cur->mm)
		m = sframe_mm_find(cur->mm);
	if (!m)
		return;
	/* No retry loop: the walk may have interrupted the writer. */
	seq = raw_read_seqcount(&m->seq);
	if (seq & 1)
		return;
	cur->map = rcu_dereference(m->map);
	cur->changed = m->changed;
	cur->scanning = m->scanning;
	if (read_seqcount_retry(&m->seq, seq))
		cur->map = NULL;
}

/*
 * The section covering @ip in the walked mm and its load bias.  Any
 * context; the caller holds rcu_read_lock() for the whole walk, which
 * keeps the map the cursor remembers, its files and their sections alive.
 * An address in a window not yet rescanned has no section: its old
 * object may be gone; the range answered for stops at such a window.
 * This is the walk's lookup callback.
 */
void sframe_user_lookup(void *ctx, u64 ip, struct sframe_where *where)
{
	struct sframe_cursor *cur = &((struct sframe_user_ctx *)ctx)->cur;
	const struct sframe_sec *sec, *fill;
	const struct sframe_object *obj;
	const struct sframe_range *r;
	u64 bias;
	int i;

	if (sframe_vdso_lookup(cur->mm, ip, where))
		return;
	if (!cur->map_found)
		sframe_cursor_init(cur);
	if (sframe_window_has(&cur->changed, ip) ||
	    sframe_window_has(&cur->scanning, ip)) {
		sframe_count(lookups_in_changed_range);
		return;
	}
	i = sframe_map_find(cur->map, ip);
	if (i < 0)
		return;
	r = &cur->map->r[i];
	where->start = r->start;
	where->end = r->end;
	sframe_window_clip(&cur->changed, ip, &where->start, &where->end);
	sframe_window_clip(&cur->scanning, ip, &where->start, &where->end);
	sec = sframe_file_sec(r->file, &fill, &obj);
	if (!sec || !obj || !sframe_object_bias(obj, r->start, r->pgoff, &bias))
		return;
	where->sec = &sec->sec;
	where->fill = fill ? &fill->sec : NULL;
	where->bias = bias;
}
