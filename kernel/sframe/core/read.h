/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Byte-order-aware reads of section fields, and the decoders shared by
 * validation and lookup.  Internal to the format core.
 */
#ifndef _SFRAME_CORE_READ_H
#define _SFRAME_CORE_READ_H

#include <sframe/sframe.h>

static inline u16 sframe_get16(const struct sframe_section *sec, u32 off)
{
	const u8 *p = sec->data + off;

	return sec->big_endian ? get_unaligned_be16(p) : get_unaligned_le16(p);
}

static inline u32 sframe_get32(const struct sframe_section *sec, u32 off)
{
	const u8 *p = sec->data + off;

	return sec->big_endian ? get_unaligned_be32(p) : get_unaligned_le32(p);
}

static inline u64 sframe_get64(const struct sframe_section *sec, u32 off)
{
	const u8 *p = sec->data + off;

	return sec->big_endian ? get_unaligned_be64(p) : get_unaligned_le64(p);
}

/* Section-relative start of FDE @index; the index must be in the table. */
static inline s64 sframe_fde_rel_start(const struct sframe_section *sec,
				       u32 index)
{
	u32 field = sec->fde_table + index * sec->fde_size;
	s64 start;

	if (sec->version == SFRAME_VERSION_3)
		start = (s64)sframe_get64(sec, field);
	else
		start = (s32)sframe_get32(sec, field);
	/* Wrap rather than overflow; validation bounds the result. */
	if (sec->flags & SFRAME_F_FDE_FUNC_START_PCREL)
		start = (s64)((u64)start + field);
	return start;
}

/*
 * Where the FRE at @offset starts (in its function) and where the next one
 * begins, without decoding its data words: the scan in lookups needs only
 * this.  Bounds are checked against the FRE sub-section.
 */
static inline enum sframe_reason sframe_fre_span(const struct sframe_section *sec,
						 const struct sframe_fde *fde,
						 u32 offset, u32 *start,
						 u32 *next)
{
	u32 end = sec->fre_section + sec->fre_len;
	u32 addr_bytes = 1U << fde->fre_type, words;
	u8 info;

	if (offset > end || end - offset < addr_bytes + 1)
		return SFRAME_ERR_FRE_TRUNCATED;
	if (fde->fre_type == SFRAME_FRE_TYPE_ADDR1)
		*start = sec->data[offset];
	else if (fde->fre_type == SFRAME_FRE_TYPE_ADDR2)
		*start = sframe_get16(sec, offset);
	else
		*start = sframe_get32(sec, offset);
	info = sec->data[offset + addr_bytes];
	if (SFRAME_FRE_INFO_WORD_SIZE(info) > SFRAME_WORD_4B)
		return SFRAME_ERR_FRE_WORD_SIZE;
	words = SFRAME_FRE_INFO_WORDS(info) << SFRAME_FRE_INFO_WORD_SIZE(info);
	if (end - offset - addr_bytes - 1 < words)
		return SFRAME_ERR_FRE_TRUNCATED;
	*next = offset + addr_bytes + 1 + words;
	return SFRAME_VALID;
}

enum sframe_reason sframe_decode_fde(const struct sframe_section *sec,
				     u32 index, struct sframe_fde *fde);
enum sframe_reason sframe_decode_fre(const struct sframe_section *sec,
				     const struct sframe_fde *fde, u32 offset,
				     struct sframe_fre *fre);
enum sframe_reason sframe_decode_rule(const struct sframe_section *sec,
				      const struct sframe_fde *fde,
				      const struct sframe_fre *fre,
				      struct sframe_rule *rule);

#endif /* _SFRAME_CORE_READ_H */
