/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lookups around and inside every function of a validated section: the
 * tests and the fuzzer use them to show lookups stay in bounds on any
 * section that validation accepted.
 */
#ifndef _SFRAME_PROBE_H
#define _SFRAME_PROBE_H

#include <sframe/sframe.h>

/* PCs per function: start - 1, the first 64 bytes, the middle, the end. */
#define PROBE_PCS	70

static inline u64 probe_pc(const struct sframe_fde *fde, u32 k)
{
	if (k < 65)
		return fde->start - 1 + k;
	if (k < 67)
		return fde->start + fde->size / 2 + (k - 65);
	return fde->start + fde->size - 2 + (k - 67);
}

static inline unsigned long probe_lookups(const struct sframe_section *sec)
{
	unsigned long hits = 0;
	struct sframe_rule rule;
	struct sframe_fre fre;
	struct sframe_fde fde;
	u32 i, k;

	for (i = 0; i < sec->num_fdes; i++) {
		if (sframe_get_fde(sec, i, &fde))
			continue;
		for (k = 0; k < PROBE_PCS; k++) {
			u64 pc = probe_pc(&fde, k);

			hits += sframe_find(sec, pc, &rule) == 0;
			if (!sframe_fde_find_fre(sec, &fde, pc, &fre, NULL))
				hits += sframe_fre_rule(sec, &fde, &fre, &rule) == 0;
		}
	}
	return hits;
}

#endif /* _SFRAME_PROBE_H */
