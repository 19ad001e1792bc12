// SPDX-License-Identifier: GPL-2.0
/*
 * Text dump of a validated section, in the layout of binutils 2.47's
 * `objdump --sframe` (v1 sections too, which 2.47 no longer reads).
 * Columns are formatted from the raw data words, as objdump does, so that
 * padding and fixed offsets show the way the producer wrote them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sframectl.h"

#define COL_BUF	64

static const char * const sframe_version_names[] = {
	"NULL", "SFRAME_VERSION_1", "SFRAME_VERSION_2", "SFRAME_VERSION_3",
};

static void dump_flags(FILE *out, const struct sframe_section *sec)
{
	static const struct {
		unsigned int flag;
		const char *name;
	} names[] = {
		{ SFRAME_F_FDE_SORTED, "SFRAME_F_FDE_SORTED" },
		{ SFRAME_F_FRAME_POINTER, "SFRAME_F_FRAME_POINTER" },
		{ SFRAME_F_FDE_FUNC_START_PCREL, "SFRAME_F_FDE_FUNC_START_PCREL" },
	};
	const char *prefix = "Flags: ";
	unsigned int flags = sec->flags, i;

	if (!flags) {
		fprintf(out, "%11sNONE\n", prefix);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		if (!(flags & names[i].flag))
			continue;
		flags &= ~names[i].flag;
		fprintf(out, "%11s%s%s\n", prefix, names[i].name,
			flags ? "," : "");
		prefix = " ";
	}
}

static void dump_header(FILE *out, const struct sframe_section *sec)
{
	fprintf(out, "\n  Header :\n\n");
	fprintf(out, "    Version: %s\n", sframe_version_names[sec->version]);
	dump_flags(out, sec);
	if (sec->fixed_fp)
		fprintf(out, "    CFA fixed FP offset: %d\n", sec->fixed_fp);
	if (sec->fixed_ra)
		fprintf(out, "    CFA fixed RA offset: %d\n", sec->fixed_ra);
	fprintf(out, "    Num FDEs: %u\n", sec->num_fdes);
	fprintf(out, "    Num FREs: %u\n", sec->num_fres);
}

static const char *reg_name(const struct sframe_section *sec,
			    unsigned int reg, char *buf, size_t size)
{
	if (reg == sec->sp_reg)
		return "sp";
	if (reg == sec->fp_reg)
		return "fp";
	snprintf(buf, size, "r%u", reg);
	return buf;
}

/* s390x v2 marks "saved in register N" by an odd data word 2N + 1. */
static void fmt_slot(char *buf, const struct sframe_section *sec, s32 word)
{
	if (sec->abi == SFRAME_ABI_S390X_ENDIAN_BIG &&
	    sec->version == SFRAME_VERSION_2 && (word & 1))
		snprintf(buf, COL_BUF, "r%d", word >> 1);
	else
		snprintf(buf, COL_BUF, "c%+d", word);
}

static void dump_default_fre(FILE *out, const struct sframe_section *sec,
			     const struct sframe_fre *fre,
			     const struct sframe_rule *rule, char *ra)
{
	unsigned int fp_idx = sec->fixed_ra ? 1 : 2;
	char cfa[COL_BUF], fp[COL_BUF];

	snprintf(cfa, sizeof(cfa), "%s+%d",
		 SFRAME_FRE_INFO_BASE_REG(fre->info) ? "sp" : "fp",
		 rule->cfa.offset);

	if (sec->fixed_fp)
		snprintf(fp, sizeof(fp), "c%+d", sec->fixed_fp);
	else if (fre->num_words > fp_idx)
		fmt_slot(fp, sec, sframe_fre_word(fre, fp_idx));
	else
		strcpy(fp, "u");

	if (sec->fixed_ra)
		strcpy(ra, "f");
	else if (fre->num_words > 1 && sframe_fre_word(fre, 1) == 0)
		strcpy(ra, "U");
	else if (fre->num_words > 1)
		fmt_slot(ra, sec, sframe_fre_word(fre, 1));
	else
		strcpy(ra, "u");

	fprintf(out, "  %-10s%-10s", cfa, fp);
}

/* A flex {control, offset} pair as "base+off" or "(base+off)". */
static void fmt_flex(char *buf, const struct sframe_section *sec, u32 ctrl,
		     s32 offset)
{
	char name[16];
	const char *base = "c";

	if (SFRAME_FLEX_CTRL_REG_P(ctrl))
		base = reg_name(sec, SFRAME_FLEX_CTRL_REGNUM(ctrl), name,
				sizeof(name));
	if (SFRAME_FLEX_CTRL_DEREF_P(ctrl))
		snprintf(buf, COL_BUF, "(%s%+d)", base, offset);
	else
		snprintf(buf, COL_BUF, "%s%+d", base, offset);
}

static void dump_flex_fre(FILE *out, const struct sframe_section *sec,
			  const struct sframe_fre *fre,
			  const struct sframe_rule *rule, char *ra)
{
	unsigned int n = fre->num_words, fp_idx = 4;
	char cfa[COL_BUF], fp[COL_BUF];

	fmt_flex(cfa, sec, fre->words[0], rule->cfa.offset);

	if (n <= 2) {
		strcpy(ra, sec->fixed_ra ? "f" : "u");
	} else if (fre->words[2] == 0) {
		strcpy(ra, "U");
		fp_idx = 3;
	} else {
		fmt_flex(ra, sec, fre->words[2], sframe_fre_word(fre, 3));
	}

	if (n > fp_idx + 1)
		fmt_flex(fp, sec, fre->words[fp_idx],
			 sframe_fre_word(fre, fp_idx + 1));
	else
		strcpy(fp, "u");

	fprintf(out, "  %-10s%-10s", cfa, fp);
}

static void dump_function(FILE *out, const struct sframe_section *sec,
			  const struct sframe_fde *fde)
{
	bool mask = fde->pc_type == SFRAME_PC_TYPE_MASK;
	struct sframe_rule rule;
	struct sframe_fre fre;
	u32 i, offset = fde->fres;

	fprintf(out, "\n    func idx [%u]: pc = 0x%" PRIx64 ", size = %u bytes",
		fde->index, fde->start, fde->size);
	if (fde->signal || fde->fde_type == SFRAME_FDE_TYPE_FLEX)
		fprintf(out, ", attr = \"%s%s\"", fde->signal ? "S" : "",
			fde->fde_type == SFRAME_FDE_TYPE_FLEX ? "F" : "");
	if ((sec->abi == SFRAME_ABI_AARCH64_ENDIAN_BIG ||
	     sec->abi == SFRAME_ABI_AARCH64_ENDIAN_LITTLE) &&
	    SFRAME_FDE_INFO_PAUTH_KEY(fde->info) == SFRAME_AARCH64_PAUTH_KEY_B)
		fprintf(out, ", pauth = B key");
	fprintf(out, "\n    %-7s%-8s %-10s%-10s%-13s", "STARTPC",
		mask ? "[m]" : "   ", "CFA", "FP", "RA");

	for (i = 0; i < fde->num_fres; i++, offset = fre.next) {
		char ra[COL_BUF + 4];

		if (sframe_read_fre(sec, fde, offset, &fre) ||
		    sframe_fre_rule(sec, fde, &fre, &rule))
			return;
		fprintf(out, "\n    %016" PRIx64,
			mask ? (u64)fre.start : fde->start + fre.start);
		if (!fre.num_words) {
			fprintf(out, "  RA undefined");
			continue;
		}
		if (fde->fde_type == SFRAME_FDE_TYPE_FLEX)
			dump_flex_fre(out, sec, &fre, &rule, ra);
		else
			dump_default_fre(out, sec, &fre, &rule, ra);
		strcat(ra, SFRAME_FRE_INFO_RA_MANGLED(fre.info) ? "[s]" : "   ");
		fprintf(out, "%-13s", ra);
	}
}

void sframe_dump(FILE *out, const struct sframe_section *sec,
		 const char *name)
{
	struct sframe_fde fde;
	u32 i;

	fprintf(out, "Contents of the SFrame section %s:", name);
	dump_header(out, sec);
	fprintf(out, "\n  Function Index :\n");
	for (i = 0; i < sec->num_fdes; i++) {
		if (sframe_get_fde(sec, i, &fde))
			return;
		dump_function(out, sec, &fde);
		fprintf(out, "\n");
	}
}
