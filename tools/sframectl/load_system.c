// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl load --system: find every executable and shared object of
 * this machine under the system's directories (objects.c) and load a
 * generated sidecar for each that has no SFrame of its own (load.c loads
 * each).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "load.h"
#include "objects.h"

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
	struct sframe_objects o;
	struct timespec a, b;
	size_t i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	if (sframe_objects_find(&o, ndirs, dirs, NULL)) {
		fprintf(stderr, "sframectl: out of memory\n");
		sframe_objects_free(&o);
		return EXIT_USAGE;
	}
	for (i = 0; i < o.nr; i++) {
		if (tty)
			progress(i, o.nr, o.path[i]);
		sframe_load_one(dev, o.path[i], NULL, 0, true, false, &t);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (tty) {
		progress(o.nr, o.nr, "");
		fputc('\n', stderr);
	}
	printf("%zu ELF objects: %u sidecars %s (%llu FDEs, %llu bytes), %u have their own SFrame, %u without usable .eh_frame, %u rejected, %u not loadable; %.1f s\n",
	       o.nr, t.loaded, dev < 0 ? "made, dry run" : "loaded",
	       t.fdes, t.bytes, t.own_sframe, t.failed,
	       t.rejected, t.not_elf,
	       (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	sframe_objects_free(&o);
	return t.loaded ? 0 : EXIT_INVALID;
}
