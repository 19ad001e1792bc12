// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl gen's helpers, which every step uses and which use no step:
 * growing an array, appending an FDE or an FRE, recording why gen failed,
 * reading the fields of .eh_frame and its CFI instructions.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "gen.h"

/* Make room for @need elements of @elem bytes in *@arr, of *@cap now. */
bool gen_grow(void **arr, u32 *cap, u32 need, size_t elem)
{
	u32 n = *cap ? *cap : 64;
	void *p;

	if (need <= *cap)
		return true;
	while (n < need)
		n *= 2;
	p = realloc(*arr, (size_t)n * elem);
	if (!p)
		return false;
	*arr = p;
	*cap = n;
	return true;
}

bool gen_add_fde(struct gen *g, const struct sframe_enc_fde *fde)
{
	if (!gen_grow((void **)&g->fdes, &g->fdes_cap, g->nfdes + 1,
		      sizeof(*g->fdes)))
		return false;
	g->fdes[g->nfdes++] = *fde;
	return true;
}

bool gen_add_fre(struct gen *g, u32 start, const struct sframe_enc_rule *rule)
{
	if (!gen_grow((void **)&g->fres, &g->fres_cap, g->nfres + 1,
		      sizeof(*g->fres)))
		return false;
	g->fres[g->nfres++] = (struct sframe_enc_fre){
		.start = start, .rule = *rule,
	};
	return true;
}

bool gen_fdes_overlap(const struct gen *g, u32 first, u64 lo, u64 hi)
{
	u32 i;

	for (i = first; i < g->nfdes; i++)
		if (g->fdes[i].start < hi &&
		    g->fdes[i].start + g->fdes[i].size > lo)
			return true;
	return false;
}

/* Say in g->err why gen stops, and return @status, the exit status. */
int gen_fail(struct gen *g, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->err, sizeof(g->err), fmt, ap);
	va_end(ap);
	return status;
}

/* Read a ULEB128 at *@p, below @end, and step past it. */
bool gen_read_uleb(const u8 **p, const u8 *end, u64 *val)
{
	const u8 *q = *p;
	unsigned int shift = 0;
	u64 v = 0;

	do {
		if (q >= end || shift > 63)
			return false;
		v |= (u64)(*q & 0x7f) << shift;
		shift += 7;
	} while (*q++ & 0x80);
	*p = q;
	*val = v;
	return true;
}

/* Read an SLEB128 at *@p, below @end, and step past it. */
bool gen_read_sleb(const u8 **p, const u8 *end, s64 *val)
{
	const u8 *q = *p;
	unsigned int shift = 0;
	u64 v = 0;
	u8 byte;

	do {
		if (q >= end || shift > 63)
			return false;
		byte = *q++;
		v |= (u64)(byte & 0x7f) << shift;
		shift += 7;
	} while (byte & 0x80);
	if (shift < 64 && (byte & 0x40))
		v |= ~(u64)0 << shift;
	*p = q;
	*val = (s64)v;
	return true;
}

/* Read @bytes little-endian bytes at *@p, below @end, and step past. */
bool gen_read_le(const u8 **p, const u8 *end, unsigned int bytes, u64 *val)
{
	unsigned int i;

	if (end - *p < bytes)
		return false;
	*val = 0;
	for (i = 0; i < bytes; i++)
		*val |= (u64)(*p)[i] << (8 * i);
	*p += bytes;
	return true;
}
