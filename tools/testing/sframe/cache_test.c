// SPDX-License-Identifier: GPL-2.0
/*
 * The sidecar service's disk cache (tools/sframectl/serve_cache.c): an
 * entry is named by the bytes it is made from, not by anything they
 * claim; a truncated, damaged or foreign entry is refused, counted and
 * removed, and the next store makes it again; the cache stays under its
 * cap by evicting what was used least recently; what earlier versions
 * left is removed when the cache is opened.
 *
 * usage: cache_test
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

#include "../../sframectl/serve_cache.h"
#include "tap.h"

#define PAYLOAD		(400 << 10)	/* three of them pass a 1 MiB cap */

static char dir[PATH_MAX];
static u8 file_a[4096], file_b[4096], payload[2 * PAYLOAD];

static void write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "w");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		printf("Bail out! %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void remove_dir(void)
{
	struct dirent *d;
	DIR *dp = opendir(dir);

	while (dp && (d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
			unlinkat(dirfd(dp), d->d_name, 0);
	if (dp)
		closedir(dp);
	rmdir(dir);
}

static bool exists(const char *path)
{
	return !access(path, F_OK);
}

/* Set @path's last use to @sec seconds after the epoch. */
static void set_used(const char *path, time_t sec)
{
	struct timespec t[2] = { { sec, 0 }, { sec, 0 } };

	utimensat(AT_FDCWD, path, t, 0);
}

/* @key names the entry for @file (@size bytes), as serve names it. */
static void key_of(struct serve_cache *c, const u8 *file, size_t size,
		   bool fill, struct serve_cache_key *key)
{
	u8 digest[SERVE_CACHE_DIGEST];

	if (serve_cache_file_digest(file, size, digest) ||
	    serve_cache_key(c, digest, fill, key)) {
		printf("Bail out! cannot name an entry\n");
		exit(1);
	}
}

/* Does the cache give back for @key what was stored, and is it counted? */
static bool gives(struct serve_cache *c, const struct serve_cache_key *key,
		  const u8 *want, size_t want_size)
{
	size_t size = 0;
	u8 *data = NULL;
	bool ok;

	ok = !serve_cache_get(c, key, &data, &size) && size == want_size &&
	     !memcmp(data, want, size);
	free(data);
	return ok;
}

static int refusal(struct serve_cache *c, const struct serve_cache_key *key)
{
	size_t size;
	u8 *data = NULL;
	int ret;

	ret = serve_cache_get(c, key, &data, &size);
	free(data);
	return ret;
}

static void test_naming(struct serve_cache *c)
{
	struct serve_cache_key a, a2, b, fill;
	const char *base;

	key_of(c, file_a, sizeof(file_a), false, &a);
	key_of(c, file_a, sizeof(file_a), false, &a2);
	key_of(c, file_b, sizeof(file_b), false, &b);
	key_of(c, file_a, sizeof(file_a), true, &fill);
	base = strrchr(a.path, '/') + 1;
	tap_ok(!strncmp(a.path, dir, strlen(dir)) && strlen(base) == 64 + 8 &&
	       strspn(base, "0123456789abcdef") == 64 &&
	       !strcmp(base + 64, ".sidecar"),
	       "an entry is named by 64 hex digits of SHA-256: %s", base);
	tap_ok(!strcmp(a.path, a2.path), "the same bytes: the same name");
	tap_ok(strcmp(a.path, b.path),
	       "one byte else (the build ID note untouched): another name");
	tap_ok(strcmp(a.path, fill.path), "gaps filled or not: another name");
}

static void test_store_and_verify(struct serve_cache *c)
{
	struct serve_cache_key a, b;
	struct stat st;
	u8 byte;
	int fd;

	key_of(c, file_a, sizeof(file_a), false, &a);
	key_of(c, file_b, sizeof(file_b), false, &b);
	tap_ok(refusal(c, &a) == -ENOENT, "nothing stored: a miss");
	tap_ok(!serve_cache_put(c, &a, payload, 1000) && gives(c, &a, payload, 1000),
	       "stored, then given back byte for byte");
	tap_ok(c->st->entries == 1 && !stat(a.path, &st) && st.st_size > 1000 &&
	       st.st_size < 1200, "one entry counted, a small header before the sidecar (%lld bytes)",
	       (long long)st.st_size);

	truncate(a.path, st.st_size - 1);
	tap_ok(refusal(c, &a) == -EBADMSG && c->st->refused == 1 &&
	       !exists(a.path) && c->st->entries == 0,
	       "truncated by a byte: refused, counted, removed");
	tap_ok(!serve_cache_put(c, &a, payload, 1000) && gives(c, &a, payload, 1000),
	       "made again and stored: given back");

	fd = open(a.path, O_RDWR);
	pread(fd, &byte, 1, st.st_size - 10);
	byte ^= 0x20;
	pwrite(fd, &byte, 1, st.st_size - 10);
	close(fd);
	tap_ok(refusal(c, &a) == -EBADMSG && c->st->refused == 2 &&
	       !exists(a.path), "one payload bit flipped: refused, counted, removed");

	write_file(b.path, "", 0);
	tap_ok(refusal(c, &b) == -EBADMSG && c->st->refused == 3,
	       "an empty entry: refused");

	/* Another file's good entry, put under this file's name. */
	serve_cache_put(c, &a, payload, 1000);
	rename(a.path, b.path);
	tap_ok(refusal(c, &b) == -EBADMSG && c->st->refused == 4 &&
	       !exists(b.path), "another file's entry under this name: refused");
	tap_ok(!serve_cache_put(c, &b, payload + 1, 999) &&
	       !serve_cache_put(c, &a, payload, 1000) &&
	       gives(c, &b, payload + 1, 999) && gives(c, &a, payload, 1000),
	       "two files, two entries, each given its own");
	serve_cache_drop(c, &a);
	serve_cache_drop(c, &b);
	/* Less the byte cut off behind the cache's back: its count drifts. */
	tap_ok(!exists(a.path) && !exists(b.path) && c->st->entries == 0 &&
	       c->st->kib <= 1, "dropped: gone, and no longer counted");
}

static void test_eviction(struct serve_cache *c)
{
	struct serve_cache_key k[4];
	unsigned int i;

	for (i = 0; i < 4; i++) {
		file_a[0] = i;
		key_of(c, file_a, sizeof(file_a), false, &k[i]);
	}
	for (i = 0; i < 2; i++) {
		serve_cache_put(c, &k[i], payload, PAYLOAD);
		set_used(k[i].path, 1000 + i);
	}
	/* k[0] used again: k[1] is now the one used least recently. */
	gives(c, &k[0], payload, PAYLOAD);
	tap_ok(c->st->entries == 2 && c->st->evicted == 0 &&
	       c->st->kib > 800 && c->st->kib < 820,
	       "two entries under a 1 MiB cap: %u KiB, none evicted", c->st->kib);
	serve_cache_put(c, &k[2], payload, PAYLOAD);
	tap_ok(c->st->evicted == 1 && !exists(k[1].path) && exists(k[0].path) &&
	       exists(k[2].path) && c->st->entries == 2,
	       "a third passes the cap: the least recently used one evicted, counted");
	tap_ok(c->bytes <= c->max_bytes / 100 * 90,
	       "evicted to under 90 %% of the cap (%llu bytes)", c->bytes);
}

static void test_open(struct serve_cache *c, struct sframe_serve_cache_state *st)
{
	char path[PATH_MAX + 32];
	struct serve_cache_key k;
	u8 old[128] = "SFRCACHE";
	int ret;

	/* An entry of format 0, a build-ID name, an unfinished write. */
	file_a[0] = 9;
	key_of(c, file_a, sizeof(file_a), false, &k);
	write_file(k.path, old, sizeof(old));
	snprintf(path, sizeof(path), "%s/0123abcd.fill.sframe", dir);
	write_file(path, old, sizeof(old));
	snprintf(path, sizeof(path), "%s/.new-Xy12ab", dir);
	write_file(path, old, sizeof(old));
	snprintf(path, sizeof(path), "%s/notes", dir);
	write_file(path, old, sizeof(old));
	memset(st, 0, sizeof(*st));
	ret = serve_cache_open(c, dir, 1, st);
	tap_ok(!ret && st->stale == 3 && !exists(k.path) && exists(path) &&
	       st->entries == 2 && st->max_mib == 1,
	       "open: three files of earlier versions removed, a foreign name left, two entries counted");
	memset(st, 0, sizeof(*st));
	file_a[0] = 5;
	key_of(c, file_a, sizeof(file_a), false, &k);
	serve_cache_put(c, &k, payload, 2 * PAYLOAD);
	tap_ok(st->evicted == 2 && st->entries == 1 && exists(k.path),
	       "a store of twice the size: the two older entries evicted");
}

int main(void)
{
	struct sframe_serve_cache_state st = { 0 };
	struct serve_cache c;
	unsigned int i;

	snprintf(dir, sizeof(dir), "/tmp/cache_test.XXXXXX");
	if (!mkdtemp(dir)) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < sizeof(file_a); i++)
		file_a[i] = file_b[i] = i * 7;
	file_b[sizeof(file_b) - 1] ^= 1;
	for (i = 0; i < sizeof(payload); i++)
		payload[i] = i * 13 + (i >> 8);
	if (serve_cache_open(&c, dir, 1, &st)) {
		printf("Bail out! cannot open the cache in %s\n", dir);
		return 1;
	}
	test_naming(&c);
	test_store_and_verify(&c);
	test_eviction(&c);
	test_open(&c, &st);
	if (tap_failed)
		tap_diag("left for a look: %s", dir);
	else
		remove_dir();
	return tap_done();
}
