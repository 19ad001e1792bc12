// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl load --system: find every executable and shared object of
 * this machine under the system's directories and load a generated
 * sidecar for each that has no SFrame of its own (load.c loads each).
 */
#define _GNU_SOURCE		/* nftw() */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "load.h"

static const char * const system_dirs[] = {
	"/usr/bin", "/usr/sbin", "/usr/lib", "/usr/libexec",
	"/usr/local/bin", "/usr/local/lib", "/bin", "/sbin", "/lib", "/lib64",
};

struct candidates {
	char **path;
	struct { dev_t dev; ino_t ino; } *id;
	size_t nr, cap;
};

static struct candidates cands;

/* Executable or shared ELF of this machine, by its first bytes. */
static bool looks_elf(const char *path)
{
	unsigned char h[20];
	bool ok;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return false;
	ok = pread(fd, h, sizeof(h), 0) == sizeof(h) &&
	     !memcmp(h, "\177ELF", 4) && h[4] == 2 && h[5] == 1 &&
	     (h[16] == 2 || h[16] == 3) && h[17] == 0 &&
	     h[18] == (SFRAME_NATIVE_EM & 0xff) && h[19] == SFRAME_NATIVE_EM >> 8;
	close(fd);
	return ok;
}

static int collect(const char *path, const struct stat *st, int type,
		   struct FTW *ftw)
{
	size_t i;

	(void)ftw;
	if (type != FTW_F || !S_ISREG(st->st_mode) || st->st_size < 64)
		return 0;
	for (i = 0; i < cands.nr; i++)
		if (cands.id[i].dev == st->st_dev &&
		    cands.id[i].ino == st->st_ino)
			return 0;
	if (!looks_elf(path))
		return 0;
	if (cands.nr == cands.cap) {
		size_t cap = cands.cap ? 2 * cands.cap : 256;
		void *p = realloc(cands.path, cap * sizeof(*cands.path));

		if (!p)
			return -1;
		cands.path = p;
		p = realloc(cands.id, cap * sizeof(*cands.id));
		if (!p)
			return -1;
		cands.id = p;
		cands.cap = cap;
	}
	cands.path[cands.nr] = strdup(path);
	if (!cands.path[cands.nr])
		return -1;
	cands.id[cands.nr].dev = st->st_dev;
	cands.id[cands.nr].ino = st->st_ino;
	cands.nr++;
	return 0;
}

static void progress(size_t done, size_t total, const char *path)
{
	const int width = 40;
	int fill = total ? (int)(done * width / total) : width;
	const char *base = strrchr(path, '/');

	fprintf(stderr, "\r[%-*.*s%*s] %zu/%zu %-30.30s", fill, fill,
		"========================================", width - fill, "",
		done, total, base ? base + 1 : path);
}

/*
 * sframectl load --system: a sidecar for every ELF object of this machine
 * under @dirs (@ndirs of them; none: system_dirs) without SFrame of its
 * own.  With @dev < 0 (--dry-run), made and checked, not loaded.
 */
int sframe_load_system(int dev, int ndirs, char **dirs)
{
	struct sframe_load_totals t = { 0 };
	bool tty = isatty(STDERR_FILENO);
	struct timespec a, b;
	size_t i;
	int k;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (k = 0; k < (ndirs ? ndirs : (int)(sizeof(system_dirs) /
					       sizeof(system_dirs[0]))); k++) {
		if (nftw(ndirs ? dirs[k] : system_dirs[k], collect, 16,
			 FTW_PHYS) < 0 && errno == ENOMEM) {
			fprintf(stderr, "sframectl: out of memory\n");
			return EXIT_USAGE;
		}
	}
	for (i = 0; i < cands.nr; i++) {
		if (tty)
			progress(i, cands.nr, cands.path[i]);
		sframe_load_one(dev, cands.path[i], NULL, 0, true, false, &t);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (tty) {
		progress(cands.nr, cands.nr, "");
		fputc('\n', stderr);
	}
	printf("%zu ELF objects: %u sidecars %s (%llu FDEs, %llu bytes), %u have their own SFrame, %u without usable .eh_frame, %u rejected, %u not loadable; %.1f s\n",
	       cands.nr, t.loaded, dev < 0 ? "made, dry run" : "loaded",
	       t.fdes, t.bytes, t.own_sframe, t.failed,
	       t.rejected, t.not_elf,
	       (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	for (i = 0; i < cands.nr; i++)
		free(cands.path[i]);
	free(cands.path);
	free(cands.id);
	return t.loaded ? 0 : EXIT_INVALID;
}
