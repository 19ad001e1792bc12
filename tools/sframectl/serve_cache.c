// SPDX-License-Identifier: GPL-2.0
/*
 * The sidecar service's disk cache: name, look up, verify, store and
 * evict the sidecars serve generates.
 *
 * An entry is named by the SHA-256 of everything its sidecar is made
 * from: the whole object file's bytes (by their own SHA-256, which serve
 * computes once a run per file), the generator's output version and
 * whether only the gaps of the object's own section were filled.
 * Nothing the object claims (its build ID) takes part: two files with
 * one build ID but different bytes get two entries, so a doctored copy
 * mapped first cannot put its sidecar in place of the real file's.  An
 * entry starts with a header (magic, format, the name's digest, the
 * payload's size and digest) that is checked on every load; one that
 * does not match is refused, counted and removed, never loaded.  A store
 * writes only under the name of the bytes it was made from, so it never
 * replaces the entry of another file.
 *
 * The cache is bounded (--cache-max-mb): when a store takes it over the
 * cap, the entries used least recently (each load touches its mtime) go
 * until it is back under the low-water mark.  Entries of another format
 * or generator version, and the build-ID-named files of earlier
 * versions, are removed when the service starts.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <openssl/evp.h>

#include "atomic_write.h"
#include "serve_cache.h"

#define SERVE_CACHE_MAGIC	"SFRCACHE"
#define SERVE_CACHE_FORMAT	3	/* 3: a generator result, no ELF */
#define SERVE_CACHE_SUFFIX	".sidecar"
#define SERVE_CACHE_OLD_SUFFIX	".sframe"	/* build-ID names, before */
/* Eviction frees down to this share of the cap, so it is seldom run. */
#define SERVE_CACHE_LOW_WATER_PCT	90
/* Largest payload loaded: the module takes no larger section. */
#define SERVE_CACHE_PAYLOAD_MAX	(64ULL << 20)

/* At the start of every entry; host byte order: the cache is local. */
struct serve_cache_header {
	char magic[8];			/* SERVE_CACHE_MAGIC, no NUL */
	u32 format;			/* SERVE_CACHE_FORMAT */
	u32 gen_version;		/* SFRAME_GEN_VERSION */
	u8 key[SERVE_CACHE_DIGEST];	/* the entry's name */
	u8 payload_digest[SERVE_CACHE_DIGEST];
	u64 payload_size;		/* the bytes after the header */
};

/* Why an entry was refused. */
static const char * const serve_cache_refusals[] = {
	"truncated", "too large", "not an entry of this format",
	"made from another file", "payload damaged", "unreadable",
};

enum serve_cache_refusal {
	SERVE_CACHE_TRUNCATED,
	SERVE_CACHE_TOO_LARGE,
	SERVE_CACHE_FOREIGN,
	SERVE_CACHE_OTHER_FILE,
	SERVE_CACHE_DAMAGED,
	SERVE_CACHE_UNREADABLE,
};

/* An entry on disk, for eviction. */
struct serve_cache_entry {
	struct timespec used;
	off_t size;
	char name[2 * SERVE_CACHE_DIGEST + sizeof(SERVE_CACHE_SUFFIX)];
};

/* SHA-256 of the @n pieces @iov into @out; 0 or -ENOMEM. */
static int serve_cache_digest(const struct iovec *iov, unsigned int n,
			      u8 out[SERVE_CACHE_DIGEST])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int i, len = 0;
	int ok;

	ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	for (i = 0; ok && i < n; i++)
		ok = EVP_DigestUpdate(ctx, iov[i].iov_base, iov[i].iov_len);
	ok = ok && EVP_DigestFinal_ex(ctx, out, &len) &&
	     len == SERVE_CACHE_DIGEST;
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : -ENOMEM;
}

/* Is @name the name of an entry of ours (any format)? */
static bool serve_cache_is_entry(const char *name)
{
	size_t hex = strspn(name, "0123456789abcdef");

	return hex == 2 * SERVE_CACHE_DIGEST &&
	       !strcmp(name + hex, SERVE_CACHE_SUFFIX);
}

static bool serve_cache_ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), m = strlen(suffix);

	return n >= m && !strcmp(name + n - m, suffix);
}

/* The digest of an object's @size bytes at @file: 0, or -ENOMEM. */
int serve_cache_file_digest(const u8 *file, size_t size,
			    u8 digest[SERVE_CACHE_DIGEST])
{
	struct iovec iov = { (void *)file, size };

	return serve_cache_digest(&iov, 1, digest);
}

/*
 * Name the entry for the object whose bytes' digest is @file
 * (serve_cache_file_digest()), its sidecar generated with @fill: 0, or
 * -ENOMEM.
 */
int serve_cache_key(const struct serve_cache *c,
		    const u8 file[SERVE_CACHE_DIGEST], bool fill,
		    struct serve_cache_key *key)
{
	u32 made[3] = { SERVE_CACHE_FORMAT, SFRAME_GEN_VERSION, fill };
	struct iovec iov[] = {
		{ (void *)SERVE_CACHE_MAGIC, sizeof(SERVE_CACHE_MAGIC) },
		{ made, sizeof(made) },
		{ (void *)file, SERVE_CACHE_DIGEST },
	};
	size_t i, n;
	int ret;

	ret = serve_cache_digest(iov, ARRAY_SIZE(iov), key->digest);
	if (ret)
		return ret;
	n = snprintf(key->path, sizeof(key->path), "%s/", c->dir);
	for (i = 0; i < SERVE_CACHE_DIGEST && n < sizeof(key->path); i++)
		n += snprintf(key->path + n, sizeof(key->path) - n, "%02x",
			      key->digest[i]);
	if (n < sizeof(key->path))
		snprintf(key->path + n, sizeof(key->path) - n,
			 SERVE_CACHE_SUFFIX);
	return 0;
}

static void serve_cache_count_size(struct serve_cache *c)
{
	c->st->kib = (c->bytes + 1023) >> 10;
}

/* An entry of @size bytes is no longer in the cache's count. */
static void serve_cache_uncount(struct serve_cache *c, off_t size)
{
	c->bytes -= (unsigned long long)size < c->bytes ? size : c->bytes;
	if (c->st->entries)
		c->st->entries--;
	serve_cache_count_size(c);
}

/*
 * Remove the entry @name of @size bytes (-1: not counted in the cache's
 * size), counting it in @counter, if any.
 */
static void serve_cache_remove(struct serve_cache *c, int dir,
			       const char *name, off_t size,
			       unsigned int *counter)
{
	if (unlinkat(dir, name, 0) && errno != ENOENT)
		return;
	if (counter)
		(*counter)++;
	if (size >= 0)
		serve_cache_uncount(c, size);
}

static int serve_cache_by_use(const void *a, const void *b)
{
	const struct serve_cache_entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	if (x->used.tv_nsec != y->used.tv_nsec)
		return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * The entries in @dir with their sizes and last use, in *@list: their
 * number, or -errno.  Their sizes add up to c->bytes afterwards.
 */
static ssize_t serve_cache_list(struct serve_cache *c, DIR *dir,
				struct serve_cache_entry **list)
{
	struct serve_cache_entry *e = NULL, *grown;
	size_t n = 0, cap = 0;
	struct dirent *d;
	struct stat st;

	c->bytes = 0;
	while ((d = readdir(dir))) {
		if (!serve_cache_is_entry(d->d_name) ||
		    fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			grown = reallocarray(e, cap, sizeof(*e));
			if (!grown) {
				free(e);
				return -ENOMEM;
			}
			e = grown;
		}
		e[n].used = st.st_mtim;
		e[n].size = st.st_size;
		/* serve_cache_is_entry(): the name's length is the field's. */
		memcpy(e[n].name, d->d_name, sizeof(e[n].name));
		c->bytes += st.st_size;
		n++;
	}
	*list = e;
	return n;
}

/*
 * Count the entries on disk; over the cap, remove those used least
 * recently until the cache is under the low-water mark (not for one
 * that only peeks).  O(n log n) in the entries.
 */
static void serve_cache_evict(struct serve_cache *c)
{
	unsigned long long low = c->max_bytes / 100 * SERVE_CACHE_LOW_WATER_PCT;
	struct serve_cache_entry *e;
	ssize_t n, i;
	DIR *dir;

	dir = opendir(c->dir);
	if (!dir)
		return;
	n = serve_cache_list(c, dir, &e);
	if (n < 0) {
		closedir(dir);
		return;
	}
	c->st->entries = n;
	serve_cache_count_size(c);
	/* One beside the service counts: see serve_cache_full(). */
	if (!c->peek && c->bytes > c->max_bytes) {
		qsort(e, n, sizeof(*e), serve_cache_by_use);
		for (i = 0; i < n && c->bytes > low; i++)
			serve_cache_remove(c, dirfd(dir), e[i].name, e[i].size,
					   &c->st->evicted);
	}
	free(e);
	closedir(dir);
}

/*
 * Is the entry @name in @dir one this version writes?  Only its header is
 * read: the payload is checked when it is loaded.
 */
static bool serve_cache_current(int dir, const char *name)
{
	struct serve_cache_header h;
	bool ok;
	int fd;

	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = read(fd, &h, sizeof(h)) == sizeof(h) &&
	     !memcmp(h.magic, SERVE_CACHE_MAGIC, sizeof(h.magic)) &&
	     h.format == SERVE_CACHE_FORMAT &&
	     h.gen_version == SFRAME_GEN_VERSION;
	close(fd);
	return ok;
}

/* Use the cache directory @dir, capped at @max_mb MiB, counting in @st. */
static void serve_cache_init(struct serve_cache *c, const char *dir,
			     unsigned int max_mb,
			     struct sframe_serve_cache_state *st)
{
	*c = (struct serve_cache){
		.dir = dir, .max_bytes = (unsigned long long)max_mb << 20,
		.st = st,
	};
	st->max_mib = max_mb;
}

/*
 * The service's cache directory @dir, capped at @max_mb MiB, counting in
 * @st: remove what earlier versions left (other formats, build-ID names,
 * unfinished writes) and evict down to the cap.  Only the one service
 * may: what looks unfinished may be a write of its own in progress.
 * 0, or -errno.
 */
int serve_cache_open(struct serve_cache *c, const char *dir,
		     unsigned int max_mb, struct sframe_serve_cache_state *st)
{
	struct dirent *d;
	DIR *dp;

	serve_cache_init(c, dir, max_mb, st);
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while ((d = readdir(dp))) {
		const char *name = d->d_name;

		if (serve_cache_is_entry(name) ?
		    serve_cache_current(dirfd(dp), name) :
		    strncmp(name, ATOMIC_WRITE_TMP, strlen(ATOMIC_WRITE_TMP)) &&
		    !serve_cache_ends_with(name, SERVE_CACHE_OLD_SUFFIX))
			continue;
		serve_cache_remove(c, dirfd(dp), name, -1, &st->stale);
	}
	closedir(dp);
	/* Counts what is left, and evicts if the cap was lowered. */
	serve_cache_evict(c);
	return 0;
}

/*
 * Add to the cache @dir beside the service (sframectl warm): entries are
 * written whole and renamed into place, so two writers may share it;
 * nothing is tidied away or evicted.  Finding an entry is not a use: its
 * time, which eviction goes by, stays.  0, or -errno.
 */
int serve_cache_join(struct serve_cache *c, const char *dir,
		     unsigned int max_mb, struct sframe_serve_cache_state *st)
{
	serve_cache_init(c, dir, max_mb, st);
	c->peek = true;
	if (access(dir, R_OK | W_OK | X_OK))
		return -errno;
	serve_cache_evict(c);
	return 0;
}

/*
 * Would an entry of @size bytes take the cache over its cap?  One who
 * adds to it beside the service (warm) stores nothing then, rather than
 * evict entries the service uses for ones no process has asked for.
 */
bool serve_cache_full(const struct serve_cache *c, size_t size)
{
	return c->bytes + sizeof(struct serve_cache_header) + size >
	       c->max_bytes;
}

/* The format and generator version of the entries this build writes. */
const char *serve_cache_version(void)
{
	static char v[48];

	snprintf(v, sizeof(v), "cache format %u, generator %u",
		 SERVE_CACHE_FORMAT, SFRAME_GEN_VERSION);
	return v;
}

/* Refuse the entry of @key for @why: said, counted, removed. */
static int serve_cache_refuse(struct serve_cache *c,
			      const struct serve_cache_key *key, off_t size,
			      enum serve_cache_refusal why)
{
	fprintf(stderr, "sframectl: serve: %s: cache entry refused: %s; made again\n",
		key->path, serve_cache_refusals[why]);
	serve_cache_remove(c, AT_FDCWD, key->path, size, &c->st->refused);
	return -EBADMSG;
}

/* Check the entry @h (its file @size bytes) against @key. */
static int serve_cache_verify(const struct serve_cache_header *h,
			      off_t size, const struct serve_cache_key *key,
			      const u8 *payload)
{
	struct iovec iov = { (void *)payload, h->payload_size };
	u8 digest[SERVE_CACHE_DIGEST];

	if (memcmp(h->magic, SERVE_CACHE_MAGIC, sizeof(h->magic)) ||
	    h->format != SERVE_CACHE_FORMAT ||
	    h->gen_version != SFRAME_GEN_VERSION)
		return SERVE_CACHE_FOREIGN;
	if (memcmp(h->key, key->digest, SERVE_CACHE_DIGEST))
		return SERVE_CACHE_OTHER_FILE;
	if (h->payload_size != (u64)size - sizeof(*h))
		return h->payload_size > (u64)size - sizeof(*h) ?
		       SERVE_CACHE_TRUNCATED : SERVE_CACHE_FOREIGN;
	if (serve_cache_digest(&iov, 1, digest) ||
	    memcmp(digest, h->payload_digest, SERVE_CACHE_DIGEST))
		return SERVE_CACHE_DAMAGED;
	return -1;
}

/*
 * The sidecar cached for @key, verified, in *@data (the caller frees it)
 * and *@size; its last use is now (unless @c only peeks).  0; -ENOENT when there is none;
 * -EBADMSG when the entry was refused (said, counted and removed); -errno.
 */
int serve_cache_get(struct serve_cache *c, const struct serve_cache_key *key,
		    u8 **data, size_t *size)
{
	char msg[SFRAME_MSG_MAX] = "";
	struct serve_cache_header *h;
	struct stat st = { 0 };
	struct sframe_input in;
	int fd, why;

	fd = open(key->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		why = SERVE_CACHE_UNREADABLE;
	else if (st.st_size < (off_t)sizeof(*h))
		why = SERVE_CACHE_TRUNCATED;
	else if (st.st_size > (off_t)(sizeof(*h) + SERVE_CACHE_PAYLOAD_MAX))
		why = SERVE_CACHE_TOO_LARGE;
	else if (sframe_input_load_fd(&in, fd, key->path, true, msg,
				      sizeof(msg)) != SFRAME_LOAD_OK)
		why = SERVE_CACHE_UNREADABLE;
	else
		why = -1;
	if (why < 0) {
		h = (struct serve_cache_header *)in.file;
		why = in.file_size != (size_t)st.st_size ?
		      SERVE_CACHE_TRUNCATED :
		      serve_cache_verify(h, st.st_size, key,
					 in.file + sizeof(*h));
		if (why >= 0)
			sframe_input_free(&in);
		else if (!c->peek)
			futimens(fd, NULL);	/* used now: evicted last */
	}
	close(fd);
	if (why >= 0)
		return serve_cache_refuse(c, key, S_ISREG(st.st_mode) ?
					  st.st_size : -1, why);
	*size = h->payload_size;
	memmove(in.file, in.file + sizeof(*h), *size);
	*data = in.file;
	return 0;
}

/*
 * Store @data (@size bytes), the sidecar made from what @key names,
 * under @key's name, atomically (a new file, renamed), then evict what
 * the cap asks.  0, or -errno.
 */
int serve_cache_put(struct serve_cache *c, const struct serve_cache_key *key,
		    const u8 *data, size_t size)
{
	struct serve_cache_header h = {
		.format = SERVE_CACHE_FORMAT,
		.gen_version = SFRAME_GEN_VERSION,
		.payload_size = size,
	};
	struct iovec iov[] = { { &h, sizeof(h) }, { (void *)data, size } };
	struct stat old;
	bool replaced;
	int ret;

	memcpy(h.magic, SERVE_CACHE_MAGIC, sizeof(h.magic));
	memcpy(h.key, key->digest, SERVE_CACHE_DIGEST);
	ret = serve_cache_digest(&iov[1], 1, h.payload_digest);
	if (ret)
		return ret;
	/* The same bytes' entry, if one is there, is replaced. */
	replaced = !stat(key->path, &old) && S_ISREG(old.st_mode);
	ret = atomic_write(c->dir, key->path, iov, ARRAY_SIZE(iov));
	if (ret)
		return ret;
	if (replaced)
		serve_cache_uncount(c, old.st_size);
	c->bytes += sizeof(h) + size;
	c->st->entries++;
	serve_cache_count_size(c);
	if (c->bytes > c->max_bytes)
		serve_cache_evict(c);
	return 0;
}

/* Remove @key's entry: the module or sframectl refused its sidecar. */
void serve_cache_drop(struct serve_cache *c, const struct serve_cache_key *key)
{
	struct stat st;

	if (!stat(key->path, &st))
		serve_cache_remove(c, AT_FDCWD, key->path, st.st_size,
				   &c->st->refused);
}
