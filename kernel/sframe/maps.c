// SPDX-License-Identifier: GPL-2.0
/*
 * The range arrays of the per-mm maps: an executable file VMA's text
 * range and its file entry, sorted by address; built by a rescan, never
 * changed once published, shared after fork, searched by walks under RCU
 * in any context, NMI included, and freed after a grace period.
 */
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "maps.h"
#include "window.h"

/*
 * Work the module's exit waits for, queued and not run: the maps' and the
 * entries' frees after a grace period, rescans retried later (mms.c).
 */
atomic_t sframe_works_pending;

static void sframe_map_free_work(struct work_struct *work)
{
	struct sframe_map *map = container_of(to_rcu_work(work),
					      struct sframe_map, free_work);
	unsigned int i;

	for (i = 0; i < map->nr; i++)
		sframe_file_put(map->r[i].file);
	kvfree(map);
	atomic_dec(&sframe_works_pending);
}

/**
 * sframe_map_alloc() - allocate a map to fill
 * @nr: how many ranges it has
 * @gfp: for the allocation
 *
 * Return: a map of @nr ranges, not yet filled, holding one reference;
 * NULL: no memory.
 */
struct sframe_map *sframe_map_alloc(unsigned int nr, gfp_t gfp)
{
	struct sframe_map *map = kvmalloc(struct_size(map, r, nr), gfp);

	if (!map)
		return NULL;
	refcount_set(&map->ref, 1);
	INIT_RCU_WORK(&map->free_work, sframe_map_free_work);
	map->nr = nr;
	return map;
}

/**
 * sframe_map_put() - drop a reference to a map
 * @map: the map, or NULL
 *
 * Drop a reference; the last frees the map, and puts its ranges' files,
 * after a grace period.
 */
void sframe_map_put(struct sframe_map *map)
{
	if (!map || !refcount_dec_and_test(&map->ref))
		return;
	atomic_inc(&sframe_works_pending);
	queue_rcu_work(sframe_wq, &map->free_work);
}

/**
 * sframe_map_find() - the range of a map covering an address
 * @map: the map, or NULL
 * @addr: the address
 *
 * Context: any context, NMI included; under RCU while @map is published.
 *
 * Return: the index of the range covering @addr in @map, or -1.
 */
int sframe_map_find(const struct sframe_map *map, u64 addr)
{
	unsigned int lo = 0, hi = map ? map->nr : 0;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (map->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < map->r[lo - 1].end ? lo - 1 : -1;
}

static bool sframe_range_in(const struct sframe_range *r,
			    const struct sframe_window *w)
{
	return r->start < w->end && w->start < r->end;
}

/**
 * sframe_map_overlaps() - whether a map has a range in a window
 * @map: the map, or NULL
 * @w: the window
 *
 * Return: true if any range of @map overlaps @w; false otherwise, and for
 * a NULL @map.
 */
bool sframe_map_overlaps(const struct sframe_map *map,
			 const struct sframe_window *w)
{
	unsigned int i;

	for (i = 0; map && i < map->nr; i++) {
		if (sframe_range_in(&map->r[i], w))
			return true;
	}
	return false;
}

/**
 * sframe_window_widen() - widen a window over whole ranges
 * @w: the window, left as it is if empty
 * @map: the map, or NULL
 *
 * Widen @w to the whole of every range of @map it overlaps.
 */
void sframe_window_widen(struct sframe_window *w,
			 const struct sframe_map *map)
{
	unsigned int i;

	for (i = 0; map && !sframe_window_empty(w) && i < map->nr; i++) {
		if (sframe_range_in(&map->r[i], w))
			sframe_window_add(w, map->r[i].start, map->r[i].end);
	}
}

/**
 * sframe_map_build() - the map after a rescan
 * @m: the mm's entry
 * @old: the map published now, or NULL
 * @win: the window rescanned
 * @v: the executable file VMAs the rescan saw in @win, sorted by address
 * @nv: how many
 *
 * The map after a rescan of @win: @old's ranges outside it, and @v's,
 * whose files are charged to the mm's owner as it is now.  A VMA whose
 * file's entry cannot be made is left out (sframe_file_get() counts it).
 *
 * Context: process context.
 *
 * Return: the new map, holding one reference, each of its ranges one on
 * its file; NULL when that is empty or cannot be had (counted): no range
 * is better than a stale one.
 */
struct sframe_map *sframe_map_build(struct sframe_mm *m,
				    const struct sframe_map *old,
				    const struct sframe_window *win,
				    const struct sframe_vma_snap *v,
				    unsigned int nv)
{
	kuid_t owner = READ_ONCE(m->uid);
	unsigned int i = 0, j = 0, n = 0, total = nv;
	struct sframe_map *map;

	for (i = 0; old && i < old->nr; i++) {
		if (sframe_range_in(&old->r[i], win))
			sframe_count(ranges_removed);
		else
			total++;
	}
	if (!total)
		return NULL;
	map = sframe_map_alloc(total, GFP_KERNEL_ACCOUNT);
	if (!map) {
		sframe_count(map_alloc_failed);
		return NULL;
	}
	for (i = 0; (old && i < old->nr) || j < nv;) {
		const struct sframe_range *r = old && i < old->nr ?
					       &old->r[i] : NULL;
		struct sframe_file *sf;

		if (r && sframe_range_in(r, win)) {
			i++;
		} else if (r && (j == nv || r->start < v[j].start)) {
			sframe_file_hold(r->file);
			map->r[n++] = *r;
			i++;
		} else {
			sf = sframe_file_get(v[j].file, owner, m->mm);
			if (sf) {
				sframe_file_mapped(sf, v[j].file, owner);
				map->r[n++] = (struct sframe_range){
					.start = v[j].start, .end = v[j].end,
					.pgoff = v[j].pgoff, .file = sf,
				};
				sframe_count(ranges_added);
			}
			j++;
		}
	}
	map->nr = n;
	return map;
}
