// SPDX-License-Identifier: GPL-2.0
/*
 * Every executable and shared object of the machine sframectl is built
 * for under some directories (by default the system's), each file once,
 * symbolic links not followed.
 */
#define _GNU_SOURCE		/* nftw() */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "objects.h"
#include "sframectl.h"

static const char * const system_dirs[] = {
	"/usr/bin", "/usr/sbin", "/usr/lib", "/usr/libexec",
	"/usr/local/bin", "/usr/local/lib", "/bin", "/sbin", "/lib", "/lib64",
};

/* What the walk in progress fills (nftw() passes no argument along). */
static struct sframe_objects *found;
static const struct timespec *found_after;

/* Executable or shared ELF of this machine, by its first bytes. */
static bool looks_elf(const char *path)
{
	unsigned char h[20];
	bool ok;
	/* Checked regular by the walk; a FIFO put there since must not block. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0)
		return false;
	ok = pread(fd, h, sizeof(h), 0) == sizeof(h) &&
	     !memcmp(h, "\177ELF", 4) && h[4] == 2 && h[5] == 1 &&
	     (h[16] == 2 || h[16] == 3) && h[17] == 0 &&
	     h[18] == (SFRAME_NATIVE_EM & 0xff) && h[19] == SFRAME_NATIVE_EM >> 8;
	close(fd);
	return ok;
}

/*
 * Changed (its inode's change time) at @t or after?  At: a change in the
 * file system clock's tick @t was read in may have come after it.
 */
static bool changed_after(const struct stat *st, const struct timespec *t)
{
	return st->st_ctim.tv_sec > t->tv_sec ||
	       (st->st_ctim.tv_sec == t->tv_sec &&
		st->st_ctim.tv_nsec >= t->tv_nsec);
}

static int collect(const char *path, const struct stat *st, int type,
		   struct FTW *ftw)
{
	struct sframe_objects *o = found;
	size_t i;

	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode) || st->st_size < 64)
		return 0;
	if (found_after && !changed_after(st, found_after))
		return 0;
	/* The same file twice: only through a hard link. */
	for (i = 0; st->st_nlink > 1 && i < o->nr; i++)
		if (o->id[i].dev == st->st_dev && o->id[i].ino == st->st_ino)
			return 0;
	if (!looks_elf(path))
		return 0;
	if (o->nr == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 256;
		void *p = reallocarray(o->path, cap, sizeof(*o->path));

		if (!p)
			return -1;
		o->path = p;
		p = reallocarray(o->id, cap, sizeof(*o->id));
		if (!p)
			return -1;
		o->id = p;
		o->cap = cap;
	}
	o->path[o->nr] = strdup(path);
	if (!o->path[o->nr])
		return -1;
	o->id[o->nr].dev = st->st_dev;
	o->id[o->nr].ino = st->st_ino;
	o->nr++;
	return 0;
}

/*
 * Find the objects under @dirs (@ndirs of them; none: the system's) into
 * @o; with @after, only those whose inode changed after it (a package
 * that installs a file renames it into place, which sets its change time
 * whatever modification time the package gave it).  A directory that
 * cannot be walked is said and counted in o->unwalked (one of the
 * system's that does not exist is not).  0, or -ENOMEM.
 */
int sframe_objects_find(struct sframe_objects *o, int ndirs, char **dirs,
			const struct timespec *after)
{
	int k, n = ndirs ? ndirs : (int)ARRAY_SIZE(system_dirs);
	const char *dir;
	int ret = 0;

	*o = (struct sframe_objects){ 0 };
	found = o;
	found_after = after;
	for (k = 0; k < n && !ret; k++) {
		dir = ndirs ? dirs[k] : system_dirs[k];
		errno = 0;
		if (nftw(dir, collect, 16, FTW_PHYS) >= 0)
			continue;
		if (errno == ENOMEM) {
			ret = -ENOMEM;
		} else if (ndirs || errno != ENOENT) {
			fprintf(stderr, "sframectl: %s: %s\n", dir,
				strerror(errno));
			o->unwalked++;
		}
	}
	found = NULL;
	found_after = NULL;
	return ret;
}

void sframe_objects_free(struct sframe_objects *o)
{
	size_t i;

	for (i = 0; i < o->nr; i++)
		free(o->path[i]);
	free(o->path);
	free(o->id);
	*o = (struct sframe_objects){ 0 };
}
