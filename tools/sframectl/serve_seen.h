/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframectl serve's record of the files it handled, by identity
 * (serve_seen.c).  The identity says only whether to supply a file
 * again; what is supplied is always named by a digest of the bytes read
 * for it then (serve_supply.c).
 */
#ifndef _SFRAMECTL_SERVE_SEEN_H
#define _SFRAMECTL_SERVE_SEEN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Files remembered at most: a user's flood of new files must not grow the
 * service's memory without bound.
 */
#define SERVE_SEEN_MAX		65536

struct serve_seen {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct timespec ctime;		/* which no user can set back */
	bool no_sidecar;		/* none from us: own SFrame, failed */
};

/*
 * The files handled: records by identity, found through an open-addressing
 * index (0 empty, else a record's index + 1); at most SERVE_SEEN_MAX.
 */
struct serve_seen_set {
	struct serve_seen *rec;
	size_t nr, cap;
	size_t *index;
	size_t index_size;		/* a power of two, >= 2 * cap */
};

struct serve_seen *serve_remember(struct serve_seen_set *set,
				  const struct stat *st, bool *first);
int serve_seen_keep(struct serve_seen_set *set, size_t **in_use,
		    unsigned int nr);
void serve_seen_free(struct serve_seen_set *set);

#endif /* _SFRAMECTL_SERVE_SEEN_H */
