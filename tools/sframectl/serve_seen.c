// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl serve: the files it has handled, by identity (device, inode,
 * size, modification and change times), so that one is supplied once a
 * run and one that needs nothing from it (SFrame of its own, a failure)
 * is not tried again.  A report looks its file up in constant time,
 * whatever a user maps: records are found through an open-addressing
 * index, and there are at most SERVE_SEEN_MAX of them (when the set is
 * full, serve_supply.c forgets all but those of the files in flight).
 */
#include <stdint.h>
#include <stdlib.h>

#include "serve_seen.h"

/*
 * Where a file's probe starts in an index of @size slots: by its whole
 * identity, so that the versions of one file a user keeps changing do
 * not make one long run.
 */
static size_t serve_seen_slot(dev_t dev, ino_t ino, off_t fsize,
			      const struct timespec *mtime, size_t size)
{
	uint64_t h = (uint64_t)dev * 0x9e3779b97f4a7c15ULL;

	h ^= (uint64_t)ino * 0xc2b2ae3d27d4eb4fULL;
	h ^= (uint64_t)fsize * 0x165667b19e3779f9ULL;
	h ^= ((uint64_t)mtime->tv_sec << 30 ^ (uint64_t)mtime->tv_nsec) *
	     0x27d4eb2f165667c5ULL;
	h ^= h >> 29;
	return h & (size - 1);
}

static bool serve_seen_same(const struct serve_seen *n, const struct stat *st)
{
	return n->dev == st->st_dev && n->ino == st->st_ino &&
	       n->size == st->st_size &&
	       n->mtime.tv_sec == st->st_mtim.tv_sec &&
	       n->mtime.tv_nsec == st->st_mtim.tv_nsec &&
	       n->ctime.tv_sec == st->st_ctim.tv_sec &&
	       n->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* Put record @i in the index (which has room). */
static void serve_seen_index(struct serve_seen_set *set, size_t i)
{
	size_t k = serve_seen_slot(set->rec[i].dev, set->rec[i].ino,
				   set->rec[i].size, &set->rec[i].mtime,
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
		k = serve_seen_slot(st->st_dev, st->st_ino, st->st_size,
				    &st->st_mtim, set->index_size);
		for (; set->index[k]; k = (k + 1) & (set->index_size - 1))
			if (serve_seen_same(&set->rec[set->index[k] - 1], st))
				return &set->rec[set->index[k] - 1];
	}
	if (serve_seen_grow(set))
		return NULL;
	n = &set->rec[set->nr];
	*n = (struct serve_seen){
		.dev = st->st_dev, .ino = st->st_ino, .size = st->st_size,
		.mtime = st->st_mtim, .ctime = st->st_ctim,
	};
	serve_seen_index(set, set->nr++);
	*first = true;
	return n;
}

/*
 * Forget every file but those whose records the @nr indices *@in_use[]
 * name (a file's records may be named more than once); those are
 * renumbered, in place.  0, or -1 without memory (nothing forgotten).
 */
int serve_seen_keep(struct serve_seen_set *set, size_t **in_use,
		    unsigned int nr)
{
	struct serve_seen *rec;
	size_t *moved, i, kept = 0;
	unsigned int j;

	rec = calloc(set->cap ? set->cap : 1, sizeof(*rec));
	moved = malloc((set->nr ? set->nr : 1) * sizeof(*moved));
	if (!rec || !moved) {
		free(rec);
		free(moved);
		return -1;
	}
	for (i = 0; i < set->nr; i++)
		moved[i] = SIZE_MAX;
	for (j = 0; j < nr; j++) {
		i = *in_use[j];
		if (moved[i] == SIZE_MAX) {
			moved[i] = kept;
			rec[kept++] = set->rec[i];
		}
		*in_use[j] = moved[i];
	}
	free(moved);
	free(set->rec);
	set->rec = rec;
	for (i = 0; i < set->index_size; i++)
		set->index[i] = 0;
	set->nr = kept;
	for (i = 0; i < kept; i++)
		serve_seen_index(set, i);
	return 0;
}

void serve_seen_free(struct serve_seen_set *set)
{
	free(set->rec);
	free(set->index);
	*set = (struct serve_seen_set){ 0 };
}
