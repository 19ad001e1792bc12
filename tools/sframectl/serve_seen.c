// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl serve: the files it has handled, by identity (device, inode,
 * size, modification time), so that one is supplied once a run and one
 * that needs nothing from it (SFrame of its own, a failure) is not tried
 * again.  A report looks its file up in constant time, whatever a user
 * maps: records are found through an open-addressing index, and there
 * are at most SERVE_SEEN_MAX of them (serve.c forgets them all when the
 * set is full and nothing is in flight).
 */
#include <stdint.h>
#include <stdlib.h>

#include "serve.h"

/* Where @dev, @ino's probe starts in an index of @size slots. */
static size_t serve_seen_slot(dev_t dev, ino_t ino, size_t size)
{
	uint64_t h = (uint64_t)dev * 0x9e3779b97f4a7c15ULL;

	h ^= (uint64_t)ino * 0xc2b2ae3d27d4eb4fULL;
	h ^= h >> 29;
	return h & (size - 1);
}

static bool serve_seen_same(const struct serve_seen *n, const struct stat *st)
{
	return n->dev == st->st_dev && n->ino == st->st_ino &&
	       n->size == st->st_size &&
	       n->mtime.tv_sec == st->st_mtim.tv_sec &&
	       n->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* Put record @i in the index (which has room). */
static void serve_seen_index(struct serve_seen_set *set, size_t i)
{
	size_t k = serve_seen_slot(set->rec[i].dev, set->rec[i].ino,
				   set->index_size);

	while (set->index[k])
		k = (k + 1) & (set->index_size - 1);
	set->index[k] = i + 1;
}

/* Room for one record more: 0, or -1 (no memory, or full). */
static int serve_seen_grow(struct serve_seen_set *set)
{
	size_t cap = set->cap ? 2 * set->cap : 256, i, *index;
	struct serve_seen *rec;

	if (set->nr < set->cap)
		return 0;
	if (set->nr >= SERVE_SEEN_MAX)
		return -1;
	if (cap > SERVE_SEEN_MAX)
		cap = SERVE_SEEN_MAX;
	rec = reallocarray(set->rec, cap, sizeof(*rec));
	if (!rec)
		return -1;
	set->rec = rec;
	index = calloc(2 * cap, sizeof(*index));
	if (!index)
		return -1;
	free(set->index);
	set->index = index;
	set->index_size = 2 * cap;
	set->cap = cap;
	for (i = 0; i < set->nr; i++)
		serve_seen_index(set, i);
	return 0;
}

/*
 * What is known of this file: its record, new (*@first) if it was never
 * handled before.  NULL when there is no memory or room for a new one.
 */
struct serve_seen *serve_remember(struct serve_seen_set *set,
				  const struct stat *st, bool *first)
{
	struct serve_seen *n;
	size_t k;

	*first = false;
	if (set->index_size) {
		k = serve_seen_slot(st->st_dev, st->st_ino, set->index_size);
		for (; set->index[k]; k = (k + 1) & (set->index_size - 1))
			if (serve_seen_same(&set->rec[set->index[k] - 1], st))
				return &set->rec[set->index[k] - 1];
	}
	if (serve_seen_grow(set))
		return NULL;
	n = &set->rec[set->nr];
	*n = (struct serve_seen){
		.dev = st->st_dev, .ino = st->st_ino, .size = st->st_size,
		.mtime = st->st_mtim,
	};
	serve_seen_index(set, set->nr++);
	*first = true;
	return n;
}

/* Forget every file: no record may be in use (no child, none waiting). */
void serve_seen_clear(struct serve_seen_set *set)
{
	size_t i;

	for (i = 0; i < set->index_size; i++)
		set->index[i] = 0;
	set->nr = 0;
}

void serve_seen_free(struct serve_seen_set *set)
{
	free(set->rec);
	free(set->index);
	*set = (struct serve_seen_set){ 0 };
}
