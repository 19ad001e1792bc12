/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The workloads that move or replace a library's text (jitreuse,
 * mremaptext) find where it is mapped by reading /proc/self/maps.
 */
#ifndef _WORKLOADS_TEXTMAP_H
#define _WORKLOADS_TEXTMAP_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

/* The executable mapping of /proc/self/maps that holds addr. */
static inline int text_of(uintptr_t addr, uintptr_t *start, uintptr_t *end)
{
	char line[512], perms[8];
	FILE *maps = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!maps)
		return 0;
	while (!found && fgets(line, sizeof(line), maps))
		found = sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s", start, end, perms) == 3 &&
			*start <= addr && addr < *end && perms[2] == 'x';
	fclose(maps);
	return found;
}

#endif /* _WORKLOADS_TEXTMAP_H */
