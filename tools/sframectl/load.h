/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframectl load, shared by its files (load.c: one object; load_system.c:
 * every object of the system): one object's sidecar loaded, counted in
 * the totals of a run.
 */
#ifndef _SFRAMECTL_LOAD_H
#define _SFRAMECTL_LOAD_H

#include "sframectl.h"

/* What loading many objects came to. */
struct sframe_load_totals {
	unsigned int loaded, own_sframe, failed, rejected, not_elf;
	unsigned long long fdes, bytes;
};

int sframe_load_one(int dev, const char *elf, const char *path, u32 flags,
		    bool quiet, bool force, struct sframe_load_totals *t);
int sframe_load_system(int dev, int ndirs, char **dirs);

#endif /* _SFRAMECTL_LOAD_H */
