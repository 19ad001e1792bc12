// SPDX-License-Identifier: GPL-2.0
/*
 * Validation of an untrusted SFrame section: one pass over every byte that
 * a lookup could ever read, rejecting the section with a precise reason or
 * producing a handle whose lookups stay in bounds.  Work is linear in the
 * section size, whatever the counts claim; the work of a lookup is bounded
 * too (see SFRAME_MAX_MASK_FRES and the flattened table in flat.h).
 */
#include <sframe/sframe.h>
#include "read.h"

static const struct {
	const char *msg;
	int err;
} sframe_reasons[SFRAME_NR_REASONS] = {
	[SFRAME_VALID] = { "valid", 0 },
	[SFRAME_ERR_HEADER_TRUNCATED] = { "section shorter than its header", -EINVAL },
	[SFRAME_ERR_MAGIC] = { "bad magic", -EINVAL },
	[SFRAME_ERR_VERSION] = { "unsupported version", -EOPNOTSUPP },
	[SFRAME_ERR_FLAGS] = { "undefined flags for this version", -EINVAL },
	[SFRAME_ERR_ABI] = { "unknown ABI/arch", -EOPNOTSUPP },
	[SFRAME_ERR_ABI_BYTE_ORDER] = { "byte order does not match the ABI", -EINVAL },
	[SFRAME_ERR_FIXED_OFFSET] = { "fixed RA offset required by the ABI is missing", -EINVAL },
	[SFRAME_ERR_AUXHDR] = { "auxiliary header past the end", -EINVAL },
	[SFRAME_ERR_FDE_TABLE] = { "FDE table out of bounds", -EINVAL },
	[SFRAME_ERR_FRE_SECTION] = { "FRE sub-section out of bounds", -EINVAL },
	[SFRAME_ERR_SUBSECTION_OVERLAP] = { "FDE table overlaps the FRE sub-section", -EINVAL },
	[SFRAME_ERR_TRAILING_BYTES] = { "trailing bytes after the FRE sub-section", -EINVAL },
	[SFRAME_ERR_NOT_SORTED] = { "FDEs not marked sorted", -EINVAL },
	[SFRAME_ERR_FDE_INFO] = { "reserved FDE info bits set", -EINVAL },
	[SFRAME_ERR_FDE_TYPE] = { "unknown FDE type", -EOPNOTSUPP },
	[SFRAME_ERR_FRE_TYPE] = { "unknown FRE type", -EINVAL },
	[SFRAME_ERR_REP_SIZE] = { "PC-mask FDE without a block size", -EINVAL },
	[SFRAME_ERR_FUNC_RANGE] = { "function range overflows", -EINVAL },
	[SFRAME_ERR_FDE_ORDER] = { "FDEs out of order or overlapping", -EINVAL },
	[SFRAME_ERR_FDE_FRE_OFF] = { "function's FREs outside the FRE sub-section", -EINVAL },
	[SFRAME_ERR_FRE_TRUNCATED] = { "FRE runs past the FRE sub-section", -EINVAL },
	[SFRAME_ERR_FRE_WORD_SIZE] = { "bad FRE data word size", -EINVAL },
	[SFRAME_ERR_FRE_WORD_COUNT] = { "bad FRE data word count", -EINVAL },
	[SFRAME_ERR_FRE_ORDER] = { "FRE start addresses not increasing", -EINVAL },
	[SFRAME_ERR_FRE_START] = { "FRE start beyond the function", -EINVAL },
	[SFRAME_ERR_FRE_INFO] = { "FRE info bit not valid for the ABI", -EINVAL },
	[SFRAME_ERR_FLEX_CONTROL] = { "bad flex FDE control word", -EINVAL },
	[SFRAME_ERR_CFA_OFFSET] = { "CFA offset out of range", -EINVAL },
	[SFRAME_ERR_FRE_COUNT] = { "FRE count does not match the header", -EINVAL },
	[SFRAME_ERR_FRE_LEN] = { "FRE bytes do not match the header", -EINVAL },
	[SFRAME_ERR_MASK_FRES] = { "PC-mask FDE with too many FREs", -E2BIG },
	[SFRAME_ERR_FLAT_SPAN] = { "functions span more than 4 GiB", -ERANGE },
	[SFRAME_ERR_FLAT_RULES] = { "too many distinct rules for the lookup table", -E2BIG },
	[SFRAME_ERR_FLAT_MASKS] = { "too many PC-mask FDEs for the lookup table", -E2BIG },
};

/**
 * sframe_reason_str() - what a rejection reason means, for a log
 * @reason: an SFRAME_ERR_* (or SFRAME_VALID)
 *
 * Return: a constant string; "unknown reason" for a value out of range.
 */
const char *sframe_reason_str(enum sframe_reason reason)
{
	if ((unsigned int)reason >= SFRAME_NR_REASONS)
		return "unknown reason";
	return sframe_reasons[reason].msg;
}

/**
 * sframe_reason_errno() - the errno a rejection reason is returned as
 * @reason: an SFRAME_ERR_* (or SFRAME_VALID)
 *
 * Return: 0 for SFRAME_VALID, else a negative errno; -EINVAL for a value
 * out of range.
 */
int sframe_reason_errno(enum sframe_reason reason)
{
	if ((unsigned int)reason >= SFRAME_NR_REASONS)
		return -EINVAL;
	return sframe_reasons[reason].err;
}

static enum sframe_reason sframe_fail(struct sframe_error *err,
				      enum sframe_reason reason, u32 offset,
				      u32 fde)
{
	if (err) {
		err->reason = reason;
		err->offset = offset;
		err->fde = fde;
	}
	return reason;
}

static bool sframe_abi_setup(struct sframe_section *sec)
{
	switch (sec->abi) {
	case SFRAME_ABI_AMD64_ENDIAN_LITTLE:
		sec->sp_reg = 7;
		sec->fp_reg = 6;
		return !sec->big_endian;
	case SFRAME_ABI_AARCH64_ENDIAN_LITTLE:
		sec->sp_reg = 31;
		sec->fp_reg = 29;
		return !sec->big_endian;
	case SFRAME_ABI_AARCH64_ENDIAN_BIG:
		sec->sp_reg = 31;
		sec->fp_reg = 29;
		return sec->big_endian;
	default:	/* SFRAME_ABI_S390X_ENDIAN_BIG */
		sec->sp_reg = 15;
		sec->fp_reg = 11;
		return sec->big_endian;
	}
}

static const u8 sframe_version_flags[] = {
	[SFRAME_VERSION_1] = SFRAME_V1_FLAGS,
	[SFRAME_VERSION_2] = SFRAME_V2_FLAGS,
	[SFRAME_VERSION_3] = SFRAME_V3_FLAGS,
};

static const u8 sframe_version_fde_size[] = {
	[SFRAME_VERSION_1] = SFRAME_V1_FDE_SIZE,
	[SFRAME_VERSION_2] = SFRAME_V2_FDE_SIZE,
	[SFRAME_VERSION_3] = SFRAME_V3_FDE_SIZE,
};

/* Only zeros from @end on, and the caller accepts segment padding. */
static bool sframe_zero_padding(const struct sframe_section *sec, u32 end,
				unsigned int options)
{
	u32 i;

	if (!(options & SFRAME_SEGMENT_PADDING))
		return false;
	for (i = end; i < sec->size; i++)
		if (sec->data[i])
			return false;
	return true;
}

/* The preamble and header: versions, flags, ABI and the sub-section map. */
static enum sframe_reason sframe_check_header(struct sframe_section *sec,
					      unsigned int options,
					      struct sframe_error *err)
{
	const u8 *d = sec->data;
	u64 hdr, fde_end, fre_end;
	u32 fdeoff, freoff;

	if (sec->size < SFRAME_HDR_SIZE)
		return sframe_fail(err, SFRAME_ERR_HEADER_TRUNCATED, 0,
				   SFRAME_NO_FDE);
	if (d[0] == (SFRAME_MAGIC & 0xff) && d[1] == SFRAME_MAGIC >> 8)
		sec->big_endian = false;
	else if (d[0] == SFRAME_MAGIC >> 8 && d[1] == (SFRAME_MAGIC & 0xff))
		sec->big_endian = true;
	else
		return sframe_fail(err, SFRAME_ERR_MAGIC, SFRAME_HDR_MAGIC,
				   SFRAME_NO_FDE);

	sec->version = d[SFRAME_HDR_VERSION];
	if (sec->version < SFRAME_VERSION_1 || sec->version > SFRAME_VERSION_3)
		return sframe_fail(err, SFRAME_ERR_VERSION, SFRAME_HDR_VERSION,
				   SFRAME_NO_FDE);
	sec->flags = d[SFRAME_HDR_FLAGS];
	if (sec->flags & ~sframe_version_flags[sec->version])
		return sframe_fail(err, SFRAME_ERR_FLAGS, SFRAME_HDR_FLAGS,
				   SFRAME_NO_FDE);
	if ((options & SFRAME_REQUIRE_SORTED) &&
	    !(sec->flags & SFRAME_F_FDE_SORTED))
		return sframe_fail(err, SFRAME_ERR_NOT_SORTED, SFRAME_HDR_FLAGS,
				   SFRAME_NO_FDE);

	sec->abi = d[SFRAME_HDR_ABI];
	if (sec->abi < SFRAME_ABI_AARCH64_ENDIAN_BIG ||
	    sec->abi > SFRAME_ABI_S390X_ENDIAN_BIG)
		return sframe_fail(err, SFRAME_ERR_ABI, SFRAME_HDR_ABI,
				   SFRAME_NO_FDE);
	if (!sframe_abi_setup(sec))
		return sframe_fail(err, SFRAME_ERR_ABI_BYTE_ORDER,
				   SFRAME_HDR_ABI, SFRAME_NO_FDE);
	sec->fixed_fp = (s8)d[SFRAME_HDR_FIXED_FP];
	sec->fixed_ra = (s8)d[SFRAME_HDR_FIXED_RA];
	/* AMD64 FREs never carry the RA: without the fixed slot, no RA at all. */
	if (sec->abi == SFRAME_ABI_AMD64_ENDIAN_LITTLE && !sec->fixed_ra)
		return sframe_fail(err, SFRAME_ERR_FIXED_OFFSET,
				   SFRAME_HDR_FIXED_RA, SFRAME_NO_FDE);

	hdr = SFRAME_HDR_SIZE + (u64)d[SFRAME_HDR_AUXHDR_LEN];
	if (hdr > sec->size)
		return sframe_fail(err, SFRAME_ERR_AUXHDR, SFRAME_HDR_AUXHDR_LEN,
				   SFRAME_NO_FDE);

	sec->fde_size = sframe_version_fde_size[sec->version];
	sec->num_fdes = sframe_get32(sec, SFRAME_HDR_NUM_FDES);
	sec->num_fres = sframe_get32(sec, SFRAME_HDR_NUM_FRES);
	sec->fre_len = sframe_get32(sec, SFRAME_HDR_FRE_LEN);
	fdeoff = sframe_get32(sec, SFRAME_HDR_FDEOFF);
	freoff = sframe_get32(sec, SFRAME_HDR_FREOFF);

	fde_end = hdr + fdeoff + (u64)sec->num_fdes * sec->fde_size;
	if (fde_end > sec->size)
		return sframe_fail(err, SFRAME_ERR_FDE_TABLE, SFRAME_HDR_NUM_FDES,
				   SFRAME_NO_FDE);
	fre_end = hdr + freoff + (u64)sec->fre_len;
	if (fre_end > sec->size)
		return sframe_fail(err, SFRAME_ERR_FRE_SECTION,
				   SFRAME_HDR_FRE_LEN, SFRAME_NO_FDE);
	/* The FDE table comes first and ends where the FREs may begin. */
	if (fdeoff > freoff || fde_end > hdr + freoff)
		return sframe_fail(err, SFRAME_ERR_SUBSECTION_OVERLAP,
				   SFRAME_HDR_FREOFF, SFRAME_NO_FDE);
	if (fre_end != sec->size && !sframe_zero_padding(sec, (u32)fre_end,
							   options))
		return sframe_fail(err, SFRAME_ERR_TRAILING_BYTES, (u32)fre_end,
				   SFRAME_NO_FDE);
	sec->size = (u32)fre_end;

	sec->fde_table = (u32)(hdr + fdeoff);
	sec->fre_section = (u32)(hdr + freoff);
	return SFRAME_VALID;
}

/* Running totals across functions, checked against the header. */
struct sframe_totals {
	u64 fres;
	u64 bytes;
};

/* One function's FREs: in bounds, decodable, ordered, inside the function. */
static enum sframe_reason sframe_check_fres(const struct sframe_section *sec,
					    const struct sframe_fde *fde,
					    struct sframe_totals *totals,
					    struct sframe_error *err)
{
	u32 limit = fde->pc_type == SFRAME_PC_TYPE_MASK ? fde->rep_size :
							  fde->size;
	enum sframe_reason reason;
	struct sframe_rule rule;
	struct sframe_fre fre;
	u32 i, prev_start = 0, offset = fde->fres;

	/*
	 * FDEs may alias each other's FREs: bound the work by the header's
	 * totals, checked as we go, so it stays linear in the section size.
	 */
	totals->fres += fde->num_fres;
	if (totals->fres > sec->num_fres)
		return sframe_fail(err, SFRAME_ERR_FRE_COUNT, fde->fres,
				   fde->index);
	/* A lookup in a PC-mask FDE decodes its FREs: keep that short. */
	if (fde->pc_type == SFRAME_PC_TYPE_MASK &&
	    fde->num_fres > SFRAME_MAX_MASK_FRES)
		return sframe_fail(err, SFRAME_ERR_MASK_FRES, fde->fres,
				   fde->index);
	if (sec->version == SFRAME_VERSION_3)
		totals->bytes += SFRAME_V3_ATTR_SIZE;

	for (i = 0; i < fde->num_fres; i++) {
		reason = sframe_decode_fre(sec, fde, offset, &fre);
		if (!reason && totals->bytes + (fre.next - fde->fres) >
			       sec->fre_len)
			reason = SFRAME_ERR_FRE_LEN;
		if (!reason && i && fre.start <= prev_start)
			reason = SFRAME_ERR_FRE_ORDER;
		if (!reason && fre.start >= limit)
			reason = SFRAME_ERR_FRE_START;
		if (!reason)
			reason = sframe_decode_rule(sec, fde, &fre, &rule);
		if (reason)
			return sframe_fail(err, reason, offset, fde->index);
		prev_start = fre.start;
		offset = fre.next;
		sframe_yield(i);
	}
	totals->bytes += offset - fde->fres;
	return SFRAME_VALID;
}

/**
 * sframe_validate() - check a whole section and describe it in a handle
 * @sec: the handle to fill; it refers to @data, which must outlive it
 * @data: the section's bytes
 * @size: how many
 * @vaddr: the address the section is loaded at
 * @options: SFRAME_REQUIRE_SORTED, SFRAME_SEGMENT_PADDING
 * @err: where the first problem found is recorded, or NULL
 *
 * Every FDE and FRE is decoded once: the look-ups take only sections
 * validated so, and stay inside what was checked.
 *
 * Return: 0, or the errno of the reason in @err (sframe_reason_errno()).
 */
int sframe_validate(struct sframe_section *sec, const void *data, u32 size,
		    u64 vaddr, unsigned int options, struct sframe_error *err)
{
	struct sframe_totals totals = { 0, 0 };
	enum sframe_reason reason;
	struct sframe_fde fde;
	s64 prev_end = 0;
	u32 i;

	*sec = (struct sframe_section){ .data = data, .size = size,
					.vaddr = vaddr };
	reason = sframe_check_header(sec, options, err);
	if (reason)
		return sframe_reason_errno(reason);

	for (i = 0; i < sec->num_fdes; i++) {
		u32 field = sec->fde_table + i * sec->fde_size;
		s64 end;

		reason = sframe_decode_fde(sec, i, &fde);
		if (reason)
			goto fail;
		if (check_add_overflow(fde.rel_start, (s64)fde.size, &end)) {
			reason = SFRAME_ERR_FUNC_RANGE;
			goto fail;
		}
		if ((sec->flags & SFRAME_F_FDE_SORTED) && i &&
		    fde.rel_start < prev_end) {
			reason = SFRAME_ERR_FDE_ORDER;
			goto fail;
		}
		prev_end = end;
		reason = sframe_check_fres(sec, &fde, &totals, err);
		if (reason)
			return sframe_reason_errno(reason);
		sframe_yield(i);
		continue;
fail:
		sframe_fail(err, reason, field, i);
		return sframe_reason_errno(reason);
	}

	if (totals.fres != sec->num_fres)
		reason = SFRAME_ERR_FRE_COUNT;
	else if (totals.bytes != sec->fre_len)
		reason = SFRAME_ERR_FRE_LEN;
	if (reason) {
		sframe_fail(err, reason, reason == SFRAME_ERR_FRE_COUNT ?
			    SFRAME_HDR_NUM_FRES : SFRAME_HDR_FRE_LEN,
			    SFRAME_NO_FDE);
		return sframe_reason_errno(reason);
	}
	if (err)
		sframe_fail(err, SFRAME_VALID, 0, SFRAME_NO_FDE);
	return 0;
}
