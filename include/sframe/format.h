/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SFrame on-disk format, versions 1, 2 (with errata 1) and 3, written
 * from the specification.  Nothing here is used to overlay structures on
 * section bytes: the format is unaligned and may be of foreign byte order,
 * so every field is read through the accessors in the core.
 */
#ifndef _SFRAME_FORMAT_H
#define _SFRAME_FORMAT_H

#define SFRAME_MAGIC			0xdee2

#define SFRAME_VERSION_1		1
#define SFRAME_VERSION_2		2
#define SFRAME_VERSION_3		3

/* Header flags. */
#define SFRAME_F_FDE_SORTED		0x1
#define SFRAME_F_FRAME_POINTER		0x2	/* v1, v2 only */
#define SFRAME_F_FDE_FUNC_START_PCREL	0x4	/* v2 errata 1, v3 */

#define SFRAME_V1_FLAGS		(SFRAME_F_FDE_SORTED | SFRAME_F_FRAME_POINTER)
#define SFRAME_V2_FLAGS		(SFRAME_V1_FLAGS | SFRAME_F_FDE_FUNC_START_PCREL)
#define SFRAME_V3_FLAGS		(SFRAME_F_FDE_SORTED | \
				 SFRAME_F_FDE_FUNC_START_PCREL)

/* ABI/arch identifiers; each implies a byte order. */
#define SFRAME_ABI_AARCH64_ENDIAN_BIG		1
#define SFRAME_ABI_AARCH64_ENDIAN_LITTLE	2
#define SFRAME_ABI_AMD64_ENDIAN_LITTLE		3
#define SFRAME_ABI_S390X_ENDIAN_BIG		4

/*
 * Header: preamble {u16 magic, u8 version, u8 flags}, u8 abi_arch,
 * s8 cfa_fixed_fp_offset, s8 cfa_fixed_ra_offset, u8 auxhdr_len,
 * u32 num_fdes, u32 num_fres, u32 fre_len, u32 fdeoff, u32 freoff.
 * fdeoff and freoff count from the end of the header and its auxiliary
 * part.
 */
#define SFRAME_HDR_MAGIC		0
#define SFRAME_HDR_VERSION		2
#define SFRAME_HDR_FLAGS		3
#define SFRAME_HDR_ABI			4
#define SFRAME_HDR_FIXED_FP		5
#define SFRAME_HDR_FIXED_RA		6
#define SFRAME_HDR_AUXHDR_LEN		7
#define SFRAME_HDR_NUM_FDES		8
#define SFRAME_HDR_NUM_FRES		12
#define SFRAME_HDR_FRE_LEN		16
#define SFRAME_HDR_FDEOFF		20
#define SFRAME_HDR_FREOFF		24
#define SFRAME_HDR_SIZE			28

/*
 * v1 FDE (17 bytes): s32 start, u32 size, u32 fre_off, u32 num_fres, u8 info.
 * v2 FDE (20 bytes): the same, then u8 rep_size, u16 padding.
 * The start is relative to the section start, or with
 * SFRAME_F_FDE_FUNC_START_PCREL to the start field itself.
 */
#define SFRAME_V1_FDE_SIZE		17
#define SFRAME_V2_FDE_SIZE		20
#define SFRAME_V12_FDE_START		0
#define SFRAME_V12_FDE_FUNC_SIZE	4
#define SFRAME_V12_FDE_FRE_OFF		8
#define SFRAME_V12_FDE_NUM_FRES		12
#define SFRAME_V12_FDE_INFO		16
#define SFRAME_V2_FDE_REP_SIZE		17

/*
 * v3 FDE index entry (16 bytes): s64 start, u32 size, u32 fre_off.
 * fre_off points into the FRE sub-section at a 5-byte attribute block
 * {u16 num_fres, u8 info, u8 info2, u8 rep_size} that precedes the
 * function's FREs.  fre_len counts these blocks too.
 */
#define SFRAME_V3_FDE_SIZE		16
#define SFRAME_V3_FDE_START		0
#define SFRAME_V3_FDE_FUNC_SIZE		8
#define SFRAME_V3_FDE_FRE_OFF		12
#define SFRAME_V3_ATTR_SIZE		5
#define SFRAME_V3_ATTR_NUM_FRES		0
#define SFRAME_V3_ATTR_INFO		2
#define SFRAME_V3_ATTR_INFO2		3
#define SFRAME_V3_ATTR_REP_SIZE		4

/*
 * FDE info byte: bits 0-3 FRE type, bit 4 PC type, bit 5 AArch64 pauth
 * key, bit 7 signal frame (v3 only).  Bit 6 (and bit 7 before v3) unused.
 */
#define SFRAME_FDE_INFO_FRE_TYPE(i)	((i) & 0xf)
#define SFRAME_FDE_INFO_PC_TYPE(i)	(((i) >> 4) & 0x1)
#define SFRAME_FDE_INFO_PAUTH_KEY(i)	(((i) >> 5) & 0x1)
#define SFRAME_FDE_INFO_SIGNAL(i)	(((i) >> 7) & 0x1)
#define SFRAME_V12_FDE_INFO_UNUSED	0xc0
#define SFRAME_V3_FDE_INFO_UNUSED	0x40

/* v3 info2 byte: bits 0-4 FDE type, bits 5-7 unused. */
#define SFRAME_FDE_INFO2_TYPE(i)	((i) & 0x1f)
#define SFRAME_V3_FDE_INFO2_UNUSED	0xe0

#define SFRAME_FRE_TYPE_ADDR1		0
#define SFRAME_FRE_TYPE_ADDR2		1
#define SFRAME_FRE_TYPE_ADDR4		2

#define SFRAME_PC_TYPE_INC		0
#define SFRAME_PC_TYPE_MASK		1

#define SFRAME_FDE_TYPE_DEFAULT		0
#define SFRAME_FDE_TYPE_FLEX		1

#define SFRAME_AARCH64_PAUTH_KEY_B	1

/*
 * FRE: start address (1, 2 or 4 bytes, by FRE type), an info byte, then
 * N data words of S bytes.  Info: bit 0 CFA base register (0 FP, 1 SP),
 * bits 1-4 N, bits 5-6 size code of S, bit 7 RA mangled (AArch64).
 * N == 0 means the RA is undefined: the outermost frame.
 */
#define SFRAME_FRE_INFO_BASE_REG(i)	((i) & 0x1)
#define SFRAME_FRE_INFO_WORDS(i)	(((i) >> 1) & 0xf)
#define SFRAME_FRE_INFO_WORD_SIZE(i)	(((i) >> 5) & 0x3)
#define SFRAME_FRE_INFO_RA_MANGLED(i)	(((i) >> 7) & 0x1)
#define SFRAME_FRE_RA_MANGLED		0x80

#define SFRAME_BASE_REG_FP		0
#define SFRAME_BASE_REG_SP		1

#define SFRAME_WORD_1B			0
#define SFRAME_WORD_2B			1
#define SFRAME_WORD_4B			2

/* Most data words an FRE carries: 3 for default FDEs, 6 for flex ones. */
#define SFRAME_DEFAULT_MAX_WORDS	3
#define SFRAME_FLEX_MAX_WORDS		6
#define SFRAME_MAX_WORDS		15

/*
 * Flex FDE data words come as {control, offset} pairs for CFA, RA and FP,
 * in that order; a single zero control word stands for an RA that is not
 * tracked.  Control: bit 0 register based, bit 1 dereference, bit 2
 * reserved, bits 3+ DWARF register number.
 */
#define SFRAME_FLEX_CTRL_REG_P(c)	((c) & 0x1)
#define SFRAME_FLEX_CTRL_DEREF_P(c)	(((c) >> 1) & 0x1)
#define SFRAME_FLEX_CTRL_RESERVED(c)	(((c) >> 2) & 0x1)
#define SFRAME_FLEX_CTRL_REGNUM(c)	((c) >> 3)

/* s390x stores CFA offsets scaled by 8 and biased by -160. */
#define SFRAME_S390X_CFA_OFFSET_ALIGN	8
#define SFRAME_S390X_CFA_OFFSET_BIAS	160

/* ELF pieces the core and sframectl look for. */
#define SFRAME_PT_GNU_SFRAME		0x6474e554
#define SFRAME_SHT_GNU_SFRAME		0x6ffffff4

#endif /* _SFRAME_FORMAT_H */
