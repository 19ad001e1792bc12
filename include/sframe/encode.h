/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SFrame v3 encoder's interface: frame rules in, section bytes out,
 * for x86-64 (the call pushes the return address) and AArch64 (it leaves
 * it in LR, which a function may save, and sign with PAC).
 * The caller sizes and owns the buffer; the encoder never allocates.
 */
#ifndef _SFRAME_ENCODE_H
#define _SFRAME_ENCODE_H

#include "arch.h"
#include "compat.h"
#include "format.h"

/**
 * sframe_put_le() - store the low bytes of a value, little-endian
 * @p: where
 * @v: the value
 * @bytes: how many of its low bytes
 */
static inline void sframe_put_le(u8 *p, u64 v, unsigned int bytes)
{
	while (bytes--) {
		*p++ = (u8)v;
		v >>= 8;
	}
}

/* Where a value is: the same kinds as struct sframe_loc, wider offsets. */
enum sframe_enc_loc_kind {
	SFRAME_ENC_SAME,		/* unchanged, or undefined for the FP */
	SFRAME_ENC_UNDEFINED,		/* RA only: the outermost frame */
	SFRAME_ENC_AT_CFA,		/* *(CFA + off) */
	SFRAME_ENC_REG,			/* reg + off */
	SFRAME_ENC_AT_REG,		/* *(reg + off) */
};

struct sframe_enc_loc {
	u8 kind;
	u8 reg;
	s64 off;
};

/*
 * One frame rule to encode.  The CFA is SFRAME_ENC_REG or _AT_REG.  On
 * AArch64 an RA that is SFRAME_ENC_SAME is still in LR, and @ra_signed
 * says the return address carries a pointer authentication code.
 */
struct sframe_enc_rule {
	struct sframe_enc_loc cfa;
	struct sframe_enc_loc ra;
	struct sframe_enc_loc fp;
	bool ra_signed;
};

/* One frame row entry: offset in the function (or PC-mask block). */
struct sframe_enc_fre {
	u32 start;
	struct sframe_enc_rule rule;
};

/* One function; its FREs are fres[first, first + num). */
struct sframe_enc_fde {
	u64 start;
	u32 size;
	u32 first;
	u32 num;
	u8 fde_type;			/* SFRAME_FDE_TYPE_* */
	u8 pc_type;			/* SFRAME_PC_TYPE_* */
	u8 rep_size;
	bool signal;
};

/**
 * sframe_enc_fixed_ra() - where a call leaves the return address
 * @arch: the machine
 *
 * Return: the RA's slot relative to the CFA when the call pushes it
 * (x86-64), 0 when it leaves it in a register (AArch64).
 */
static inline s64 sframe_enc_fixed_ra(const struct sframe_arch *arch)
{
	return arch->ra_reg == SFRAME_ARCH_NO_REG ? -SFRAME_ARCH_WORD : 0;
}

bool sframe_enc_rule_words(const struct sframe_arch *arch,
			   const struct sframe_enc_rule *rule, u8 fde_type,
			   s64 *words, bool *is_ctrl, unsigned int *nwords);
size_t sframe_enc_size(const struct sframe_arch *arch,
		       const struct sframe_enc_fde *fdes, u32 nfdes,
		       const struct sframe_enc_fre *fres);
void sframe_encode(const struct sframe_arch *arch,
		   const struct sframe_enc_fde *fdes, u32 nfdes,
		   const struct sframe_enc_fre *fres, u64 vaddr, u8 *buf,
		   size_t size);

#endif /* _SFRAME_ENCODE_H */
