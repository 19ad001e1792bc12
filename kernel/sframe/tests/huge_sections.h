/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pathological but well-formed SFrame sections, built in memory: one
 * function with millions of FREs, more distinct rules than the flattened
 * table holds, an oversized PC-mask FDE.  Shared by the KUnit suite, the
 * user-space tests, the benchmark and the ELF generator of the VM scenario
 * (tools/testing/workloads/hostile-sframe.c), so all judge the same bytes.
 */
#ifndef _SFRAME_HUGE_SECTIONS_H
#define _SFRAME_HUGE_SECTIONS_H

#include <sframe/sframe.h>

/*
 * @nr_fdes functions back to back from @text, each with @fres FREs
 * @fre_step bytes apart; FRE i has CFA = SP + 8 * (1 + i % @nr_rules), so
 * the section has @nr_rules distinct rules.  With @rep_size, the functions are PC-mask FDEs of
 * that block size, and @fres * @fre_step must not exceed it.  The last
 * function is @tail bytes longer: code that calls itself may run there.
 */
struct huge_section {
	u64 text;
	u32 nr_fdes;
	u32 fres;
	u32 fre_step;
	u32 nr_rules;
	u32 tail;
	u8 rep_size;
};

/* v2, section-relative starts: a 20-byte FDE and 4 + 1 + 4 bytes an FRE. */
#define HUGE_FRE_SIZE		9

/* FREs per function: a PC-mask one has @fres, others one more at the end. */
static inline u32 huge_fde_fres(const struct huge_section *h)
{
	return h->rep_size ? h->fres : h->fres + 1;
}

/* Bytes from one function's start to the next one's. */
static inline u32 huge_fde_stride(const struct huge_section *h)
{
	return h->fres * h->fre_step + !h->rep_size;
}

/* Where the tail of the last function starts, in the object. */
static inline u64 huge_tail(const struct huge_section *h)
{
	return h->text + (u64)h->nr_fdes * huge_fde_stride(h) - !h->rep_size;
}

static inline void huge_put(u8 *p, u64 v, unsigned int bytes)
{
	while (bytes--) {
		*p++ = (u8)v;
		v >>= 8;
	}
}

/* The section's size in bytes, or 0 when it would not fit in a u32. */
static inline u32 huge_section_size(const struct huge_section *h)
{
	u64 fres = (u64)h->nr_fdes * huge_fde_fres(h);
	u64 size = SFRAME_HDR_SIZE + (u64)h->nr_fdes * SFRAME_V2_FDE_SIZE +
		   fres * HUGE_FRE_SIZE;

	return size > U32_MAX ? 0 : (u32)size;
}

/* One FRE: 4-byte start, SP-based CFA with one 4-byte data word. */
static inline u8 *huge_put_fre(u8 *p, u32 start, u32 cfa)
{
	huge_put(p, start, 4);
	p[4] = SFRAME_BASE_REG_SP | 1 << 1 | SFRAME_WORD_4B << 5;
	huge_put(p + 5, cfa, 4);
	return p + HUGE_FRE_SIZE;
}

/*
 * Write the section, huge_section_size() bytes, to @buf, which is linked
 * at @vaddr.  A function other than a PC-mask one has one more FRE, at
 * its last byte, so the last function's tail (huge_tail(), @tail + 1
 * bytes) has CFA = SP + 8.
 */
static inline void huge_section_fill(const struct huge_section *h, u8 *buf,
				     u64 vaddr)
{
	u32 nfres = h->nr_fdes * huge_fde_fres(h), i, j;
	u8 info = SFRAME_FRE_TYPE_ADDR4 |
		  (h->rep_size ? SFRAME_PC_TYPE_MASK << 4 : 0);
	u8 *fde = buf + SFRAME_HDR_SIZE;
	u8 *fre = fde + h->nr_fdes * SFRAME_V2_FDE_SIZE, *fres = fre;

	huge_put(buf + SFRAME_HDR_MAGIC, SFRAME_MAGIC, 2);
	buf[SFRAME_HDR_VERSION] = SFRAME_VERSION_2;
	buf[SFRAME_HDR_FLAGS] = SFRAME_F_FDE_SORTED;
	buf[SFRAME_HDR_ABI] = SFRAME_ABI_AMD64_ENDIAN_LITTLE;
	buf[SFRAME_HDR_FIXED_FP] = 0;
	buf[SFRAME_HDR_FIXED_RA] = (u8)-8;
	buf[SFRAME_HDR_AUXHDR_LEN] = 0;
	huge_put(buf + SFRAME_HDR_NUM_FDES, h->nr_fdes, 4);
	huge_put(buf + SFRAME_HDR_NUM_FRES, nfres, 4);
	huge_put(buf + SFRAME_HDR_FRE_LEN, (u64)nfres * HUGE_FRE_SIZE, 4);
	huge_put(buf + SFRAME_HDR_FDEOFF, 0, 4);
	huge_put(buf + SFRAME_HDR_FREOFF, h->nr_fdes * SFRAME_V2_FDE_SIZE, 4);

	for (i = 0; i < h->nr_fdes; i++, fde += SFRAME_V2_FDE_SIZE) {
		u64 start = h->text + (u64)i * huge_fde_stride(h);
		u32 size = huge_fde_stride(h);

		if (i + 1 == h->nr_fdes)
			size += h->tail;
		huge_put(fde + SFRAME_V12_FDE_START, start - vaddr, 4);
		huge_put(fde + SFRAME_V12_FDE_FUNC_SIZE, size, 4);
		huge_put(fde + SFRAME_V12_FDE_FRE_OFF, fre - fres, 4);
		huge_put(fde + SFRAME_V12_FDE_NUM_FRES, huge_fde_fres(h), 4);
		fde[SFRAME_V12_FDE_INFO] = info;
		huge_put(fde + SFRAME_V2_FDE_REP_SIZE, h->rep_size, 3);
		for (j = 0; j < h->fres; j++)
			fre = huge_put_fre(fre, j * h->fre_step,
					   8 * (1 + j % h->nr_rules));
		if (!h->rep_size)
			fre = huge_put_fre(fre, h->fres * h->fre_step, 8);
	}
}

#endif /* _SFRAME_HUGE_SECTIONS_H */
