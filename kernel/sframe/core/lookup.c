// SPDX-License-Identifier: GPL-2.0
/*
 * PC to frame rule on a validated section: binary search of the FDE index,
 * then a scan of the function's FREs.  No allocation, no locks; every read
 * stays inside what validation checked.
 */
#include <sframe/sframe.h>
#include "read.h"

/**
 * sframe_index_entries() - the size of a section's look-up index
 * @sec: a validated section
 *
 * Return: the entries its index needs; 0 when it cannot have one
 * (unsorted, or functions spread over more than 4 GiB).
 */
u32 sframe_index_entries(const struct sframe_section *sec)
{
	s64 first, last;

	if (!(sec->flags & SFRAME_F_FDE_SORTED) || !sec->num_fdes)
		return 0;
	first = sframe_fde_rel_start(sec, 0);
	last = sframe_fde_rel_start(sec, sec->num_fdes - 1);
	if ((u64)last - (u64)first > U32_MAX)
		return 0;
	return (sec->num_fdes + SFRAME_INDEX_STRIDE - 1) / SFRAME_INDEX_STRIDE;
}

/**
 * sframe_index_build() - build a section's look-up index
 * @sec: a validated section, which the index is attached to
 * @index: sframe_index_entries() entries, owned by the caller and kept
 *	as long as @sec
 */
void sframe_index_build(struct sframe_section *sec, u32 *index)
{
	u32 i, n = sframe_index_entries(sec);

	if (!n)
		return;
	sec->index_base = sframe_fde_rel_start(sec, 0);
	for (i = 0; i < n; i++)
		index[i] = (u32)(sframe_fde_rel_start(sec, i * SFRAME_INDEX_STRIDE) -
				 sec->index_base);
	sec->index = index;
	sec->index_entries = n;
}

/* Narrow [*lo, *hi) to the stride of FDEs that may hold @rel_pc. */
static void sframe_index_narrow(const struct sframe_section *sec, s64 rel_pc,
				u32 *lo, u32 *hi)
{
	u64 delta = (u64)rel_pc - (u64)sec->index_base;
	u32 l;

	if (rel_pc < sec->index_base) {
		*hi = 0;
		return;
	}
	l = sframe_u32_upper(sec->index, 0, sec->index_entries, delta);
	/* l >= 1: index[0] is 0 and delta >= 0. */
	*lo = (l - 1) * SFRAME_INDEX_STRIDE;
	if (l < sec->index_entries)
		*hi = l * SFRAME_INDEX_STRIDE;
}

/**
 * sframe_find_fde() - the function that covers an address
 * @sec: a validated section
 * @pc: the address, in the section's address space
 * @fde: filled in
 *
 * Sorted sections are searched in O(log n); an unsorted one (only
 * relocatable objects have those) is scanned.
 *
 * Return: 0, or -ENOENT if no FDE covers @pc.
 */
int sframe_find_fde(const struct sframe_section *sec, u64 pc,
		    struct sframe_fde *fde)
{
	s64 rel_pc = (s64)(pc - sec->vaddr);
	u32 lo = 0, hi = sec->num_fdes, i;

	if (!(sec->flags & SFRAME_F_FDE_SORTED)) {
		for (i = 0; i < sec->num_fdes; i++) {
			s64 start = sframe_fde_rel_start(sec, i);

			if (start <= rel_pc && sframe_get_fde(sec, i, fde) == 0 &&
			    (u64)rel_pc - (u64)start < fde->size)
				return 0;
		}
		return -ENOENT;
	}

	if (sec->index)
		sframe_index_narrow(sec, rel_pc, &lo, &hi);
	/* The last FDE starting at or below the PC. */
	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (sframe_fde_rel_start(sec, mid) <= rel_pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || sframe_get_fde(sec, lo - 1, fde))
		return -ENOENT;
	if ((u64)rel_pc - (u64)fde->rel_start >= fde->size)
		return -ENOENT;
	return 0;
}

/**
 * sframe_fde_find_fre() - the FRE of a function in force at an address
 * @sec: a validated section
 * @fde: an FDE of @sec
 * @pc: the address, in the section's address space
 * @fre: filled in
 * @fre_index: where to store the FRE's index in @fde, or NULL
 *
 * FRE starts strictly increase, so the scan stops at the first one past
 * @pc and only the FRE found has its data words decoded.
 *
 * Return: 0; -ENOENT if @fde does not cover @pc or has no FRE at or
 * below it; -EINVAL if an FRE cannot be decoded.
 */
int sframe_fde_find_fre(const struct sframe_section *sec,
			const struct sframe_fde *fde, u64 pc,
			struct sframe_fre *fre, u32 *fre_index)
{
	u32 pc_off = (u32)(pc - fde->start);
	u32 i, start, next, offset = fde->fres, found = 0;
	bool any = false;

	if (pc - fde->start >= fde->size)
		return -ENOENT;
	if (fde->pc_type == SFRAME_PC_TYPE_MASK)
		pc_off %= fde->rep_size;

	for (i = 0; i < fde->num_fres; i++, offset = next) {
		if (sframe_fre_span(sec, fde, offset, &start, &next))
			return -EINVAL;
		if (start > pc_off)
			break;
		found = offset;
		any = true;
	}
	if (!any)
		return -ENOENT;
	if (fre_index)
		*fre_index = i - 1;
	return sframe_read_fre(sec, fde, found, fre);
}

/**
 * sframe_find() - the frame rule at an address, by FDE and FRE
 * @sec: a validated section
 * @pc: the address, in the section's address space
 * @rule: filled in
 *
 * Return: 0, or the first error of sframe_find_fde(),
 * sframe_fde_find_fre() or sframe_fre_rule().
 */
int sframe_find(const struct sframe_section *sec, u64 pc,
		struct sframe_rule *rule)
{
	struct sframe_fde fde;
	struct sframe_fre fre;
	int ret;

	ret = sframe_find_fde(sec, pc, &fde);
	if (!ret)
		ret = sframe_fde_find_fre(sec, &fde, pc, &fre, NULL);
	if (!ret)
		ret = sframe_fre_rule(sec, &fde, &fre, rule);
	return ret;
}

/**
 * sframe_fdes_within() - whether every function lies inside given ranges
 * @sec: a validated section
 * @spans: the ranges, e.g. a file's executable segments
 * @nr: how many
 * @bad: where the index of the first FDE outside all of them is stored
 *
 * A section made for another file (a sidecar) fails here before it can
 * describe code it does not know.
 *
 * Return: 0 if each FDE lies wholly inside one of @spans, else -ERANGE.
 */
int sframe_fdes_within(const struct sframe_section *sec,
		       const struct sframe_span *spans, unsigned int nr,
		       u32 *bad)
{
	struct sframe_fde fde;
	unsigned int j;
	u32 i;

	for (i = 0; i < sec->num_fdes; i++) {
		if (sframe_get_fde(sec, i, &fde))
			break;
		for (j = 0; j < nr; j++) {
			if (fde.start >= spans[j].start &&
			    fde.size <= spans[j].size &&
			    fde.start - spans[j].start <= spans[j].size - fde.size)
				break;
		}
		if (j == nr)
			break;
	}
	if (i == sec->num_fdes)
		return 0;
	*bad = i;
	return -ERANGE;
}
