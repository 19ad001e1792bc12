// SPDX-License-Identifier: GPL-2.0
/*
 * The cache's shrinker: under memory pressure the idle file entries (read
 * and kept only so that the next exec of a program finds them) go before
 * their idle_seconds are up, oldest first.  An entry a process maps is
 * never touched: its section is what that process's samples walk.
 */
#include <linux/mm.h>		/* struct shrinker, self-contained from 6.7 */

#include "cache.h"
#include "kcompat.h"

static struct shrinker *sframe_shrinker;

static unsigned long sframe_shrink_count(struct shrinker *shrinker,
					 struct shrink_control *sc)
{
	long idle = sframe_files_idle();

	return idle > 0 ? idle : SHRINK_EMPTY;
}

static unsigned long sframe_shrink_scan(struct shrinker *shrinker,
					struct shrink_control *sc)
{
	unsigned long freed = sframe_files_reclaim_oldest(sc->nr_to_scan);

	sframe_count_add(files_shrunk, freed);
	return freed ?: SHRINK_STOP;
}

/**
 * sframe_shrinker_init() - register the cache's shrinker
 *
 * Under memory pressure it frees idle file entries, oldest first.
 *
 * Return: 0, or -ENOMEM if the shrinker could not be registered.
 */
int sframe_shrinker_init(void)
{
	sframe_shrinker = sframe_shrinker_register(sframe_shrink_count,
						   sframe_shrink_scan,
						   "sframe_unwind-files");
	return sframe_shrinker ? 0 : -ENOMEM;
}

/**
 * sframe_shrinker_exit() - unregister the cache's shrinker
 */
void sframe_shrinker_exit(void)
{
	sframe_shrinker_unregister(sframe_shrinker);
}
