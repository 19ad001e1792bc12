// SPDX-License-Identifier: GPL-2.0
/*
 * The SFrame v3 encoder: frame rules in, section bytes out, always with
 * the smallest FRE address type and data word size that fit.
 */
#include <sframe/encode.h>

/* A flex control word: bit 0 register based, bit 1 dereference, regnum. */
static s64 flex_ctrl(const struct sframe_enc_loc *loc)
{
	s64 ctrl = (s64)loc->reg << 3 | 0x1;

	if (loc->kind == SFRAME_ENC_AT_REG)
		ctrl |= 0x2;
	return ctrl;
}

/*
 * A register-based flex pair for an RA or FP that is not in a register:
 * a CFA slot, rewritten relative to the CFA's own register, since a
 * control word of zero would read as padding.  Not possible when the CFA
 * itself is dereferenced.
 */
static bool flex_slot(const struct sframe_enc_rule *rule,
		      const struct sframe_enc_loc *loc, s64 *ctrl, s64 *off)
{
	struct sframe_enc_loc at = *loc;

	if (loc->kind == SFRAME_ENC_AT_CFA) {
		if (rule->cfa.kind != SFRAME_ENC_REG)
			return false;
		at.kind = SFRAME_ENC_AT_REG;
		at.reg = rule->cfa.reg;
		at.off = rule->cfa.off + loc->off;
	} else if (loc->kind != SFRAME_ENC_REG &&
		   loc->kind != SFRAME_ENC_AT_REG) {
		return false;
	}
	*ctrl = flex_ctrl(&at);
	*off = at.off;
	return true;
}

/**
 * sframe_enc_rule_words() - the FRE data words that encode a rule
 * @arch: the machine the section is for
 * @rule: the rule
 * @fde_type: the SFRAME_FDE_TYPE_* of the FDE the FRE belongs to
 * @words: filled with the data words
 * @is_ctrl: filled with which of them are flex control words
 * @nwords: where their number is stored
 *
 * Return: true, or false when an FDE of @fde_type cannot express @rule.
 */
bool sframe_enc_rule_words(const struct sframe_arch *arch,
			   const struct sframe_enc_rule *rule, u8 fde_type,
			   s64 *words, bool *is_ctrl, unsigned int *nwords)
{
	s64 fixed_ra = sframe_enc_fixed_ra(arch);
	bool ra_fixed = fixed_ra && rule->ra.kind == SFRAME_ENC_AT_CFA &&
			rule->ra.off == fixed_ra;
	/* Nothing to say about the RA: at the fixed slot, or still in LR. */
	bool ra_implicit = ra_fixed || (arch->ra_reg != SFRAME_ARCH_NO_REG &&
					rule->ra.kind == SFRAME_ENC_SAME);
	unsigned int n = 0, i;

	for (i = 0; i < SFRAME_FLEX_MAX_WORDS; i++)
		is_ctrl[i] = false;
	if (rule->ra.kind == SFRAME_ENC_UNDEFINED) {
		*nwords = 0;
		return true;
	}
	if (fde_type == SFRAME_FDE_TYPE_DEFAULT) {
		bool ra_word = !ra_fixed && rule->ra.kind == SFRAME_ENC_AT_CFA;

		if (rule->cfa.kind != SFRAME_ENC_REG ||
		    (rule->cfa.reg != arch->sp_reg &&
		     rule->cfa.reg != arch->fp_reg) ||
		    (!ra_implicit && !ra_word) ||
		    (ra_word && arch->ra_reg == SFRAME_ARCH_NO_REG))
			return false;
		words[n++] = rule->cfa.off;
		if (ra_word)
			words[n++] = rule->ra.off;
		if (rule->fp.kind == SFRAME_ENC_AT_CFA) {
			/* An RA word of 0 pads an FP saved without the RA. */
			if (!ra_fixed && !ra_word)
				words[n++] = 0;
			words[n++] = rule->fp.off;
		} else if (rule->fp.kind != SFRAME_ENC_SAME) {
			return false;
		}
		*nwords = n;
		return true;
	}

	is_ctrl[n] = true;
	words[n++] = flex_ctrl(&rule->cfa);
	words[n++] = rule->cfa.off;
	if (!ra_implicit) {
		is_ctrl[n] = true;
		if (!flex_slot(rule, &rule->ra, &words[n], &words[n + 1]))
			return false;
		n += 2;
	}
	if (rule->fp.kind != SFRAME_ENC_SAME) {
		if (ra_implicit) {
			is_ctrl[n] = true;
			words[n++] = 0;		/* RA padding: not tracked */
		}
		is_ctrl[n] = true;
		if (!flex_slot(rule, &rule->fp, &words[n], &words[n + 1]))
			return false;
		n += 2;
	}
	*nwords = n;
	return true;
}

/* Smallest word size code whose range holds every word. */
static unsigned int word_size_code(const s64 *words, const bool *is_ctrl,
				   unsigned int n)
{
	unsigned int code = SFRAME_WORD_1B, i;

	for (i = 0; i < n; i++) {
		s64 w = words[i];
		unsigned int need;

		if (is_ctrl[i])
			need = w <= 0xff ? SFRAME_WORD_1B :
			       w <= 0xffff ? SFRAME_WORD_2B : SFRAME_WORD_4B;
		else
			need = w >= -128 && w <= 127 ? SFRAME_WORD_1B :
			       w >= -32768 && w <= 32767 ? SFRAME_WORD_2B :
			       SFRAME_WORD_4B;
		if (need > code)
			code = need;
	}
	return code;
}

/* Smallest FRE address type for @fde: its FREs start below the limit. */
static u8 fre_addr_type(const struct sframe_enc_fde *fde)
{
	u32 limit = fde->pc_type == SFRAME_PC_TYPE_MASK ? fde->rep_size :
							  fde->size;

	if (limit <= 0x100)
		return SFRAME_FRE_TYPE_ADDR1;
	if (limit <= 0x10000)
		return SFRAME_FRE_TYPE_ADDR2;
	return SFRAME_FRE_TYPE_ADDR4;
}

/* Encode one FRE at @p (or only measure it when @p is NULL). */
static size_t encode_fre(const struct sframe_arch *arch, u8 *p,
			 const struct sframe_enc_fde *fde,
			 const struct sframe_enc_fre *fre, u8 fre_type)
{
	s64 words[SFRAME_FLEX_MAX_WORDS];
	bool is_ctrl[SFRAME_FLEX_MAX_WORDS];
	unsigned int n, code, i, addr = 1U << fre_type, wb;
	u8 info;

	if (!sframe_enc_rule_words(arch, &fre->rule, fde->fde_type, words,
				   is_ctrl, &n))
		n = 0;		/* callers only pass expressible rules */
	code = word_size_code(words, is_ctrl, n);
	wb = 1U << code;
	if (!p)
		return addr + 1 + n * wb;
	info = (u8)(n << 1 | code << 5);
	if (fre->rule.cfa.reg == arch->sp_reg)
		info |= SFRAME_BASE_REG_SP;
	if (fre->rule.ra_signed)
		info |= SFRAME_FRE_RA_MANGLED;
	sframe_put_le(p, fre->start, addr);
	p[addr] = info;
	for (i = 0; i < n; i++)
		sframe_put_le(p + addr + 1 + i * wb, (u64)words[i], wb);
	return addr + 1 + n * wb;
}

/* Bytes of the FRE sub-section: every FDE's attributes and FREs. */
static size_t fre_section_size(const struct sframe_arch *arch,
			       const struct sframe_enc_fde *fdes, u32 nfdes,
			       const struct sframe_enc_fre *fres)
{
	size_t len = 0;
	u32 i, j;

	for (i = 0; i < nfdes; i++) {
		u8 type = fre_addr_type(&fdes[i]);

		len += SFRAME_V3_ATTR_SIZE;
		for (j = 0; j < fdes[i].num; j++)
			len += encode_fre(arch, NULL, &fdes[i],
					  &fres[fdes[i].first + j], type);
	}
	return len;
}

/**
 * sframe_enc_size() - the size of the section sframe_encode() makes
 * @arch: the machine the section is for
 * @fdes: the functions
 * @nfdes: how many
 * @fres: their FREs, which each FDE indexes
 *
 * Return: the section's size in bytes, for the buffer sframe_encode()
 * fills.
 */
size_t sframe_enc_size(const struct sframe_arch *arch,
		       const struct sframe_enc_fde *fdes, u32 nfdes,
		       const struct sframe_enc_fre *fres)
{
	return SFRAME_HDR_SIZE + (size_t)nfdes * SFRAME_V3_FDE_SIZE +
	       fre_section_size(arch, fdes, nfdes, fres);
}

/**
 * sframe_encode() - encode functions and their rules as a v3 section
 * @arch: the machine the section is for
 * @fdes: the functions, sorted by start and not overlapping
 * @nfdes: how many
 * @fres: their FREs, which each FDE indexes
 * @vaddr: the address the section is assumed to be linked at
 * @buf: where the section is written; every byte of it is
 * @size: @buf's size, as sframe_enc_size() gave it
 */
void sframe_encode(const struct sframe_arch *arch,
		   const struct sframe_enc_fde *fdes, u32 nfdes,
		   const struct sframe_enc_fre *fres, u64 vaddr, u8 *buf,
		   size_t size)
{
	size_t fde_bytes = (size_t)nfdes * SFRAME_V3_FDE_SIZE;
	size_t fre_len = size - SFRAME_HDR_SIZE - fde_bytes, pos = 0;
	u8 *fre_base = buf + SFRAME_HDR_SIZE + fde_bytes;
	u32 i, j, num_fres = 0;

	for (i = 0; i < nfdes; i++)
		num_fres += fdes[i].num;
	sframe_put_le(buf + SFRAME_HDR_MAGIC, SFRAME_MAGIC, 2);
	buf[SFRAME_HDR_VERSION] = SFRAME_VERSION_3;
	buf[SFRAME_HDR_FLAGS] = SFRAME_F_FDE_SORTED |
				SFRAME_F_FDE_FUNC_START_PCREL;
	buf[SFRAME_HDR_ABI] = arch->abi;
	buf[SFRAME_HDR_FIXED_FP] = 0;
	buf[SFRAME_HDR_FIXED_RA] = (u8)sframe_enc_fixed_ra(arch);
	buf[SFRAME_HDR_AUXHDR_LEN] = 0;
	sframe_put_le(buf + SFRAME_HDR_NUM_FDES, nfdes, 4);
	sframe_put_le(buf + SFRAME_HDR_NUM_FRES, num_fres, 4);
	sframe_put_le(buf + SFRAME_HDR_FRE_LEN, fre_len, 4);
	sframe_put_le(buf + SFRAME_HDR_FDEOFF, 0, 4);
	sframe_put_le(buf + SFRAME_HDR_FREOFF, fde_bytes, 4);

	for (i = 0; i < nfdes; i++) {
		const struct sframe_enc_fde *fde = &fdes[i];
		size_t field = SFRAME_HDR_SIZE + (size_t)i * SFRAME_V3_FDE_SIZE;
		u8 type = fre_addr_type(fde), *attr = fre_base + pos;

		/* PCREL: the start counts from the start field itself. */
		sframe_put_le(buf + field + SFRAME_V3_FDE_START,
			      fde->start - (vaddr + field), 8);
		sframe_put_le(buf + field + SFRAME_V3_FDE_FUNC_SIZE, fde->size,
			      4);
		sframe_put_le(buf + field + SFRAME_V3_FDE_FRE_OFF, pos, 4);
		sframe_put_le(attr + SFRAME_V3_ATTR_NUM_FRES, fde->num, 2);
		attr[SFRAME_V3_ATTR_INFO] = (u8)(type | fde->pc_type << 4 |
						 (fde->signal ? 0x80 : 0));
		attr[SFRAME_V3_ATTR_INFO2] = fde->fde_type;
		attr[SFRAME_V3_ATTR_REP_SIZE] = fde->rep_size;
		pos += SFRAME_V3_ATTR_SIZE;
		for (j = 0; j < fde->num; j++)
			pos += encode_fre(arch, fre_base + pos, fde,
					  &fres[fde->first + j], type);
	}
}
