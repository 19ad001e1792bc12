// SPDX-License-Identifier: GPL-2.0
/*
 * Fresh ranges: an executable file mapping published to walks by its own
 * hook, in the mapping task under its mmap_lock, when the file has an
 * entry already, and kept while it is true (or until its slot is needed
 * and the mm's map has it).  A change's window has no rules until its
 * rescan (design.rst); a fresh range inside it does, so a process that
 * forks and dlopens, or execs, an object the module knows is unwound from
 * its first sample.
 */
#include <linux/rcupdate.h>
#include <linux/seqlock.h>

#include "fresh.h"

/**
 * sframe_fresh_slot() - a free fresh slot of an mm
 * @m: the mm's entry
 *
 * Context: under m->lock.
 *
 * Return: a free slot of @m, or NULL: every one is taken.
 */
struct sframe_fresh *sframe_fresh_slot(struct sframe_mm *m)
{
	unsigned int i;

	lockdep_assert_held(&m->lock);
	for (i = 0; i < SFRAME_MM_FRESH; i++) {
		if (!m->fresh[i].r.file)
			return &m->fresh[i];
	}
	return NULL;
}

/**
 * sframe_fresh_held() - whether an mm holds a fresh slot
 * @m: the mm's entry
 *
 * A hint, read without its lock: slots are filled under the caller's
 * mmap_lock, and one emptied meanwhile does not matter.
 *
 * Return: true if @m holds a slot, live or dead.
 */
bool sframe_fresh_held(const struct sframe_mm *m)
{
	unsigned int i;

	for (i = 0; i < SFRAME_MM_FRESH; i++) {
		/* Filled under the caller's mmap_lock; emptied: no matter. */
		if (data_race(m->fresh[i].r.file))
			return true;
	}
	return false;
}

/**
 * sframe_fresh_cut() - apply a change to an mm's fresh ranges
 * @m: the mm's entry
 * @c: the change
 *
 * @c happened to @m: every live fresh range over it dies, keeping its
 * file's reference for the rescan to drop, or follows the VMA now at its
 * start (fresh.h).
 *
 * Context: under m->lock, inside its write section, and under the mm's
 * mmap_lock, whose VMAs a freed one's hook may look up.
 */
void sframe_fresh_cut(struct sframe_mm *m, const struct sframe_change *c)
{
	unsigned int i;

	for (i = 0; i < SFRAME_MM_FRESH; i++) {
		struct sframe_fresh *f = &m->fresh[i];
		struct vm_area_struct *now = NULL;

		if (!sframe_fresh_live(f) || !sframe_fresh_over(f, c))
			continue;
		if (c->freed)
			now = find_vma(c->freed->vm_mm, f->r.start);
		if (!sframe_fresh_survives(f, c, now))
			f->r.start = f->r.end = 0;
	}
}

/*
 * The oldest live slot of @m that the map a rescan publishes answers for
 * (fresh.h), or NULL.
 */
static struct sframe_fresh *sframe_fresh_oldest(struct sframe_mm *m,
						unsigned int upto)
{
	struct sframe_fresh *old = NULL;
	unsigned int i;

	for (i = 0; i < SFRAME_MM_FRESH; i++) {
		struct sframe_fresh *f = &m->fresh[i];

		if (!f->r.file || sframe_fresh_needed(f, &m->changed, upto))
			continue;
		if (!old || (int)(f->change - old->change) < 0)
			old = f;
	}
	return old;
}

/**
 * sframe_fresh_retire() - empty the fresh slots a rescan is done with
 * @m: the mm's entry
 * @upto: the last change the rescan's snapshot was taken after
 * @gone: where the emptied slots' files go (SFRAME_MM_FRESH of them at
 *	most), for sframe_fresh_put()
 *
 * Empty the slots a rescan that took its snapshot after change @upto is
 * done with: the dead ones; and, while fewer than half the slots are
 * free, the oldest live one that the map it publishes answers for.  A
 * live slot is kept otherwise, though the map has its range: a later
 * change beside it may widen a rescan's window over it (a library's data
 * mapped over the rest of its first mapping).
 *
 * Context: under m->lock, inside its write section.
 *
 * Return: how many files were put in @gone.
 */
unsigned int sframe_fresh_retire(struct sframe_mm *m, unsigned int upto,
				 struct sframe_file **gone)
{
	unsigned int i, n = 0, nfree = 0;
	struct sframe_fresh *f;

	for (i = 0; i < SFRAME_MM_FRESH; i++) {
		f = &m->fresh[i];
		if (f->r.file && !sframe_fresh_live(f)) {
			gone[n++] = f->r.file;
			*f = (struct sframe_fresh){};
		}
		nfree += !f->r.file;
	}
	while (nfree < SFRAME_MM_FRESH / 2) {
		f = sframe_fresh_oldest(m, upto);
		if (!f)
			break;
		gone[n++] = f->r.file;
		*f = (struct sframe_fresh){};
		nfree++;
	}
	return n;
}

/**
 * sframe_fresh_put() - drop the references of retired fresh slots
 * @gone: the files sframe_fresh_retire() gave
 * @nr: how many
 *
 * Drop the references of retired slots once no walk can still use them:
 * after a grace period, as a map's are (through a map made to hold them,
 * or, without memory for one, after waiting for the grace period here).
 *
 * Context: process context.
 */
void sframe_fresh_put(struct sframe_file **gone, unsigned int nr)
{
	struct sframe_map *map;
	unsigned int i;

	if (!nr)
		return;
	map = sframe_map_alloc(nr, GFP_KERNEL);
	if (!map) {
		synchronize_rcu();
		for (i = 0; i < nr; i++)
			sframe_file_put(gone[i]);
		return;
	}
	for (i = 0; i < nr; i++)
		map->r[i].file = gone[i];
	sframe_map_put(map);
}

/**
 * sframe_fresh_copy() - give a forked child its parent's fresh ranges
 * @m: the child's entry, not published yet
 * @from: the parent's entry
 *
 * A child forked from @from's mm has its mappings, with the same files:
 * it gets its live fresh ranges too, as it gets its map, each with a
 * reference of its own on its file, and the parent's count of changes.
 *
 * Context: under from->lock.
 */
void sframe_fresh_copy(struct sframe_mm *m, const struct sframe_mm *from)
{
	unsigned int i, n = 0;

	lockdep_assert_held(&from->lock);
	m->changes = from->changes;
	for (i = 0; i < SFRAME_MM_FRESH; i++) {
		const struct sframe_fresh *f = &from->fresh[i];

		if (!f->r.file || !sframe_fresh_live(f))
			continue;
		sframe_file_hold(f->r.file);
		m->fresh[n++] = *f;
	}
}

/**
 * sframe_fresh_free() - drop the references of an mm's fresh slots
 * @m: the mm's entry, being freed after a grace period
 *
 * Context: process context.
 */
void sframe_fresh_free(struct sframe_mm *m)
{
	unsigned int i;

	for (i = 0; i < SFRAME_MM_FRESH; i++) {
		if (m->fresh[i].r.file)
			sframe_file_put(m->fresh[i].r.file);
	}
}

/**
 * sframe_fresh_find() - the live fresh range of an mm holding an address
 * @m: the mm's entry
 * @seq: the sequence count under which the walk read @m's windows
 * @ip: the address
 * @r: set to the range, as it was when the walk read @m's windows
 *
 * Context: any context, under the walk's rcu_read_lock(), which keeps the
 * file.
 *
 * Return: 1 if a live fresh range holds @ip (in *@r); 0 if none does;
 * -EAGAIN if @m changed since the walk read it under @seq.
 */
int sframe_fresh_find(const struct sframe_mm *m, unsigned int seq, u64 ip,
		      struct sframe_range *r)
{
	unsigned int i;

	for (i = 0; i < SFRAME_MM_FRESH; i++) {
		/* Checked against the sequence count below. */
		*r = data_race(m->fresh[i].r);
		if (r->file && ip >= r->start && ip < r->end)
			break;
	}
	if (read_seqcount_retry(&m->seq, seq))
		return -EAGAIN;
	return i < SFRAME_MM_FRESH;
}
