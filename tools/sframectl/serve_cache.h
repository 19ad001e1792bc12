/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sidecar service's disk cache (serve_cache.c): entries named by a
 * digest of what a sidecar is made from, verified on every load, bounded
 * in size.
 */
#ifndef _SFRAMECTL_SERVE_CACHE_H
#define _SFRAMECTL_SERVE_CACHE_H

#include <limits.h>
#include "sframectl.h"

#define SERVE_CACHE_DIGEST	32	/* bytes of SHA-256 */
#define SERVE_CACHE_MAX_MB	256	/* default size cap (--cache-max-mb) */

/* What an entry is made from, digested: its name. */
struct serve_cache_key {
	u8 digest[SERVE_CACHE_DIGEST];
	char path[PATH_MAX];		/* the entry's file */
};

struct serve_cache {
	const char *dir;
	unsigned long long max_bytes;
	unsigned long long bytes;	/* what the entries take on disk */
	bool peek;			/* a get is no use: times kept (warm) */
	struct sframe_serve_cache_state *st;
};

int serve_cache_open(struct serve_cache *c, const char *dir,
		     unsigned int max_mb, struct sframe_serve_cache_state *st);
int serve_cache_join(struct serve_cache *c, const char *dir,
		     unsigned int max_mb, struct sframe_serve_cache_state *st);
bool serve_cache_full(const struct serve_cache *c, size_t size);
const char *serve_cache_version(void);
int serve_cache_file_digest(const u8 *file, size_t size,
			    u8 digest[SERVE_CACHE_DIGEST]);
int serve_cache_key(const struct serve_cache *c,
		    const u8 file[SERVE_CACHE_DIGEST], bool fill,
		    struct serve_cache_key *key);
int serve_cache_get(struct serve_cache *c, const struct serve_cache_key *key,
		    u8 **data, size_t *size);
int serve_cache_put(struct serve_cache *c, const struct serve_cache_key *key,
		    const u8 *data, size_t size);
void serve_cache_drop(struct serve_cache *c,
		      const struct serve_cache_key *key);

#endif /* _SFRAMECTL_SERVE_CACHE_H */
