/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframectl gen internals: the frame rules the generator derives from
 * DWARF CFI, and the SFrame v3 encoder that turns them into a section.
 */
#ifndef _SFRAMECTL_GEN_H
#define _SFRAMECTL_GEN_H

#include <stddef.h>
#include <sframe/sframe.h>

/* x86-64 DWARF register numbers and the ABI's fixed return address slot. */
#define GEN_REG_RBP		6
#define GEN_REG_RSP		7
#define GEN_REG_RIP		16
#define GEN_AMD64_FIXED_RA	(-8)
#define GEN_AMD64_PLT_ENTRY	16

/* Store the low @bytes bytes of @v at @p, little-endian. */
static inline void gen_put_le(u8 *p, u64 v, unsigned int bytes)
{
	while (bytes--) {
		*p++ = (u8)v;
		v >>= 8;
	}
}

/* Where a value is: the same kinds as struct sframe_loc, wider offsets. */
enum gen_loc_kind {
	GEN_LOC_SAME,			/* unchanged, or undefined for the FP */
	GEN_LOC_UNDEFINED,		/* RA only: the outermost frame */
	GEN_LOC_AT_CFA,			/* *(CFA + off) */
	GEN_LOC_REG,			/* reg + off */
	GEN_LOC_AT_REG,			/* *(reg + off) */
};

struct gen_loc {
	u8 kind;
	u8 reg;
	s64 off;
};

/* One CFI row as SFrame sees it.  The CFA is GEN_LOC_REG or _AT_REG. */
struct gen_rule {
	struct gen_loc cfa;
	struct gen_loc ra;
	struct gen_loc fp;
};

/* One frame row entry to encode: offset in the function (or PLT entry). */
struct gen_fre {
	u32 start;
	struct gen_rule rule;
};

/* One SFrame function to encode; its FREs are fres[first, first + num). */
struct gen_fde {
	u64 start;
	u32 size;
	u32 first;
	u32 num;
	u8 fde_type;			/* SFRAME_FDE_TYPE_* */
	u8 pc_type;			/* SFRAME_PC_TYPE_* */
	u8 rep_size;
	bool signal;
};

/*
 * Encode @nfdes functions, sorted by start and not overlapping, into a
 * v3 section that assumes it is linked at @vaddr.  Returns a malloc()ed
 * buffer and its size, or NULL when out of memory.
 */
u8 *gen_encode(const struct gen_fde *fdes, u32 nfdes,
	       const struct gen_fre *fres, u64 vaddr, size_t *size);

/* FRE data words of @rule in an FDE of @fde_type; false if inexpressible. */
bool gen_rule_words(const struct gen_rule *rule, u8 fde_type, s64 *words,
		    bool *is_ctrl, unsigned int *nwords);

#endif /* _SFRAMECTL_GEN_H */
