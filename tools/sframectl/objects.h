/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ELF objects of this machine under some directories (objects.c):
 * what load --system loads and warm caches.
 */
#ifndef _SFRAMECTL_OBJECTS_H
#define _SFRAMECTL_OBJECTS_H

#include <stddef.h>
#include <time.h>
#include <sys/types.h>

struct sframe_objects {
	char **path;
	struct { dev_t dev; ino_t ino; } *id;
	size_t nr, cap;
	unsigned int unwalked;		/* directories that could not be walked */
};

int sframe_objects_find(struct sframe_objects *o, int ndirs, char **dirs,
			const struct timespec *after);
void sframe_objects_free(struct sframe_objects *o);

#endif /* _SFRAMECTL_OBJECTS_H */
