/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sframectl gen internals: what the steps from an ELF object's .eh_frame
 * to an SFrame section share (the object read, the functions found, the
 * rows and rules derived, the statistics), and how they call each other.
 */
#ifndef _SFRAMECTL_GEN_H
#define _SFRAMECTL_GEN_H

#include <stddef.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <sframe/encode.h>
#include <sframe/sframe.h>

#include "cfi_exec.h"
#include "sframectl.h"
#include "gen_util.h"

/*
 * What gen reads, executes and writes at most (Documentation/sframectl.rst,
 * "Limits"): far above the largest Debian library (libLLVM-15: .eh_frame
 * 5.2 MB, 98,256 FDEs, 929,880 FREs) and the CIEs toolchains write (a
 * dozen bytes of instructions), low enough that no file holds the service
 * for long or takes all its memory.  The section's limit is the module's
 * own default (max_section_mb).  gen_test.sh builds a copy with small
 * ones (-D) to see each refused.
 */
#ifndef GEN_MAX_EH_FRAME
#define GEN_MAX_EH_FRAME	(64U << 20)	/* bytes of .eh_frame */
#endif
#ifndef GEN_MAX_FDES
#define GEN_MAX_FDES		(1U << 20)	/* functions (FDEs) */
#endif
#ifndef GEN_MAX_FUNC_ROWS
#define GEN_MAX_FUNC_ROWS	(1U << 20)	/* rows in one function */
#endif
#ifndef GEN_MAX_FRES
#define GEN_MAX_FRES		(1U << 23)	/* FREs written */
#endif
#ifndef GEN_MAX_SFRAME
#define GEN_MAX_SFRAME		(64U << 20)	/* bytes of .sframe */
#endif
#ifndef GEN_MAX_CIE_PROGRAM
#define GEN_MAX_CIE_PROGRAM	4096U		/* a CIE's instruction bytes */
#endif
/*
 * CIEs in .eh_frame (ld merges equal ones: a linked object has a few),
 * each a row of the table its FDEs are found in, so that a .eh_frame of
 * tiny CIEs is refused, not run out of memory on.
 */
#ifndef GEN_MAX_CIES
#define GEN_MAX_CIES		(1U << 16)
#endif
/*
 * CFI instructions executed, CIEs' and FDEs' together: as many as
 * .eh_frame may have bytes, so that only FDEs executing their CIE's
 * instructions again (GEN_CIE_SLOTS, struct cfi_cie_state) reach it.
 */
#ifndef GEN_MAX_CFI_INSNS
#define GEN_MAX_CFI_INSNS	(64U << 20)
#endif

/* Most FREs a v3 FDE can carry: its attribute block counts them in a u16. */
#define GEN_MAX_FDE_FRES	0xffff

/* x86-64 DWARF register numbers and the size of a PLT entry. */
#define GEN_REG_RSP		7
#define GEN_REG_RIP		16
#define GEN_AMD64_PLT_ENTRY	16

/* What gen needs to know of an input's machine. */
struct gen_machine {
	u16 e_machine;
	const struct sframe_arch *arch;	/* registers, ABI, fixed RA */
	u8 ra_column;			/* DWARF return address column */
	bool plt_expression;		/* ld's PLT CFA expression (x86-64) */
	bool ra_signing;		/* DW_CFA_AARCH64_negate_ra_state */
};

/* Why a function (DWARF FDE) is left out of the section. */
enum gen_skip {
	GEN_SKIP_CFA_EXPR,
	GEN_SKIP_CFA_UNDEFINED,
	GEN_SKIP_RA,
	GEN_SKIP_FP,
	GEN_SKIP_RANGE,
	GEN_SKIP_ROWS,
	GEN_SKIP_CFI,
	GEN_SKIP_OVERLAP,
	GEN_NR_SKIPS
};

/* Why a PLT section is left out (plt.c). */
enum gen_plt_refusal {
	GEN_PLT_LAYOUT,			/* not executable code of whole entries */
	GEN_PLT_CODE,			/* an instruction no stub holds */
	GEN_PLT_JUMP,			/* a jump into it nothing explains */
	GEN_PLT_ROWS,			/* more CFA changes than an FDE holds */
	GEN_PLT_OVERLAP,		/* shares addresses with another one */
	GEN_PLT_NR_REFUSALS
};

/* Why a gap between FDEs is left out (crt.c). */
enum gen_crt_refusal {
	GEN_CRT_SIZE,			/* too large for startup code */
	GEN_CRT_CODE,			/* an instruction they do not hold */
	GEN_CRT_FLOW,			/* a jump or stack nothing explains */
	GEN_CRT_OVERLAP,		/* its section overlaps another's */
	GEN_CRT_NR_REFUSALS
};

/* How a row can be encoded. */
enum gen_row_class {
	GEN_ROW_DEFAULT,
	GEN_ROW_FLEX,			/* flex only */
	GEN_ROW_PLT,			/* the linker's PLT expression */
};

struct gen_row {
	u64 start;
	u64 end;
	struct sframe_enc_rule rule;
	u8 class;
	bool flex_ok;
	u8 plt_split;			/* PLT: entry offset where CFA grows */
};

/*
 * CIEs whose initial state gen keeps at once.  A file has a handful (ld
 * merges equal ones); with more in turn, an FDE whose CIE's slot another
 * took executes the CIE's instructions again, which GEN_MAX_CIE_PROGRAM
 * and GEN_MAX_CFI_INSNS bound.
 */
#define GEN_CIE_SLOTS		16

/* The initial state (cfi_exec_cie()) of the CIE of index @cie. */
struct gen_cie_slot {
	bool filled;
	u32 cie;
	struct cfi_cie_state state;
};

/*
 * A DWARF FDE's address range, its CFI instructions (the CIE's initial
 * ones first) and what executing them needs from its CIE.
 */
struct gen_func {
	u64 lo;
	u64 hi;
	s64 rel_lo;			/* lo - the section's address */
	bool overlaps;
	bool wraps;			/* rel_lo + its size overflows */
	bool signal;			/* the CIE's augmentation has 'S' */
	u32 cie;			/* its CIE, by index in .eh_frame */
	const u8 *cie_ins, *cie_ins_end;
	const u8 *ins, *ins_end;
	u64 code_align;
	s64 data_align;
};

struct gen_stats {
	u32 funcs;
	u32 covered;
	u64 covered_bytes;
	u32 skipped[GEN_NR_SKIPS];
	u64 skipped_bytes[GEN_NR_SKIPS];
	u32 empty;
	u32 own;			/* --fill: covered by the object's own */
	u32 flex_fdes;
	u32 mask_fdes;
	u32 signal_fdes;
	u32 plt_described;		/* PLT sections given an FDE (plt.c) */
	u32 plt_covered;		/* ... left to an FDE covering them */
	u32 plt_refused[GEN_PLT_NR_REFUSALS];
	u32 crt_described;		/* startup functions given an FDE */
	u32 crt_refused[GEN_CRT_NR_REFUSALS];	/* gaps, by reason */
};

struct gen {
	const char *path;
	const struct gen_machine *mach;
	unsigned char *image;
	size_t image_size;
	bool borrowed;			/* image is the caller's: copy to write */
	struct sframe_elf obj;		/* the image, relocated, for libdw */
	Elf_Data *eh_data;
	u64 eh_addr;
	u64 eh_size;
	const u8 *note;			/* the input's .note.gnu.build-id */
	size_t note_size;
	struct gen_func *funcs;
	u32 nfuncs;
	struct gen_cie_slot cies[GEN_CIE_SLOTS];	/* by CIE index */
	u64 cfi_insns;			/* executed, up to GEN_MAX_CFI_INSNS */
	struct gen_row *rows;
	u32 nrows, rows_cap;
	struct sframe_enc_fde *fdes;
	u32 nfdes, fdes_cap;
	struct sframe_enc_fre *fres;
	u32 nfres, fres_cap;
	struct gen_stats stats;
	/*
	 * --fill: only the functions the object's own .sframe does not
	 * cover, for a sidecar loaded behind it (SFRAME_SIDECAR_FILL).
	 */
	bool fill;
	bool has_own;			/* own_sec is valid */
	struct sframe_section own_sec;
	struct sframe_input own;	/* its bytes (file is g->image) */
	char err[SFRAME_MSG_MAX];
};

/* cfi.c: each reason as --stats prints it. */
extern const char * const gen_skip_names[GEN_NR_SKIPS];

/* gen_build.c: the steps in order. */
int gen_build(struct gen *g, u8 **bytes, size_t *size,
	      struct sframe_section *sec);
void gen_free(struct gen *g);

/* ehframe.c: the object and its .eh_frame's functions. */
int gen_read_eh_frame(struct gen *g);

/* cfi.c: one function's CFI rows as SFrame FDEs and FREs (cfi_exec.c). */
int gen_translate_func(struct gen *g, const struct gen_func *f);

/* crt.c: x86-64 startup-file code no FDE covers; each refusal's name. */
int gen_describe_crt(struct gen *g);
extern const char * const gen_crt_refusal_names[GEN_CRT_NR_REFUSALS];
/* plt.c: the x86-64 PLT sections no FDE covers; each refusal's name. */
int gen_describe_plt(struct gen *g, u32 first);
extern const char * const gen_plt_refusal_names[GEN_PLT_NR_REFUSALS];

/* compare.c: gen --compare. */
int gen_compare(const char *path, const struct sframe_section *mine,
		const char *at_path);

#endif /* _SFRAMECTL_GEN_H */
