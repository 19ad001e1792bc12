// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl gen: translate an x86-64 ELF object's .eh_frame (DWARF CFI,
 * read through elfutils' libdw) into an SFrame v3 section, and compare
 * the result with the assembler's own .sframe.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>

#include "gen.h"
#include "sframectl.h"

/* Most FREs a v3 FDE can carry: its attribute block counts them in a u16. */
#define GEN_MAX_FDE_FRES	0xffff
/* Operations in the linker's PLT CFA expression. */
#define GEN_PLT_EXPR_OPS	9

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

static const char * const gen_skip_names[GEN_NR_SKIPS] = {
	[GEN_SKIP_CFA_EXPR] = "CFA expression",
	[GEN_SKIP_CFA_UNDEFINED] = "CFA undefined",
	[GEN_SKIP_RA] = "RA not at CFA-8",
	[GEN_SKIP_FP] = "register rule for RBP not expressible",
	[GEN_SKIP_RANGE] = "offset out of range",
	[GEN_SKIP_ROWS] = "more than 65535 rows",
	[GEN_SKIP_CFI] = "damaged CFI",
	[GEN_SKIP_OVERLAP] = "overlaps another FDE",
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

/* A DWARF FDE's address range, and its place in .eh_frame. */
struct gen_func {
	u64 lo;
	u64 hi;
	bool overlaps;
};

struct gen_stats {
	u32 funcs;
	u32 covered;
	u64 covered_bytes;
	u32 skipped[GEN_NR_SKIPS];
	u64 skipped_bytes[GEN_NR_SKIPS];
	u32 empty;
	u32 flex_fdes;
	u32 mask_fdes;
	u32 signal_fdes;
};

struct gen {
	const char *path;
	unsigned char *image;
	size_t image_size;
	bool borrowed;			/* image is the caller's: copy to write */
	Elf *elf;
	Dwarf_CFI *cfi;
	Elf_Data *eh_data;
	u64 eh_addr;
	u64 eh_size;
	const u8 *note;			/* the input's .note.gnu.build-id */
	size_t note_size;
	struct gen_func *funcs;
	u32 nfuncs;
	struct gen_row *rows;
	u32 nrows, rows_cap;
	struct sframe_enc_fde *fdes;
	u32 nfdes, fdes_cap;
	struct sframe_enc_fre *fres;
	u32 nfres, fres_cap;
	struct gen_stats stats;
	char err[SFRAME_MSG_MAX];
};

static bool grow(void **arr, u32 *cap, u32 need, size_t elem)
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

static __printf(3, 4)
int gen_fail(struct gen *g, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(g->err, sizeof(g->err), fmt, ap);
	va_end(ap);
	return status;
}

/* The whole input file, read as every sframectl input is. */
static int read_whole(struct gen *g)
{
	char msg[SFRAME_MSG_MAX] = "";
	struct sframe_input in;

	if (sframe_input_load(&in, g->path, true, msg, sizeof(msg)) !=
	    SFRAME_LOAD_OK)
		return gen_fail(g, EXIT_USAGE, "%s", msg);
	g->image = in.file;
	g->image_size = in.file_size;
	return 0;
}

static Elf_Scn *find_section(Elf *elf, const char *want, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, out))
			return NULL;
		name = elf_strptr(elf, shstrndx, out->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/*
 * Relocatable objects carry .eh_frame's PC fields in .rela.eh_frame:
 * apply them to the image (sections at their sh_addr, normally 0), so that
 * libdw sees the object's functions where its .sframe puts them.
 */
static int apply_eh_relocations(struct gen *g, Elf *elf, size_t eh_index,
				const GElf_Shdr *eh)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, symsh, target;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *rel, *syms;
		Elf_Scn *symscn;
		int i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    sh.sh_info != eh_index)
			continue;
		rel = elf_getdata(scn, NULL);
		symscn = elf_getscn(elf, sh.sh_link);
		syms = symscn ? elf_getdata(symscn, NULL) : NULL;
		if (!rel || !syms || !gelf_getshdr(symscn, &symsh))
			return gen_fail(g, EXIT_INVALID, "%s",
					".rela.eh_frame unreadable");
		n = (int)(sh.sh_size / sizeof(GElf_Rela));
		for (i = 0; i < n; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			u64 s, p, v, where;
			unsigned int type, bytes;

			if (!gelf_getrela(rel, i, &r) ||
			    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym))
				return gen_fail(g, EXIT_INVALID, "%s",
						".rela.eh_frame entry unreadable");
			type = (unsigned int)GELF_R_TYPE(r.r_info);
			s = sym.st_value;
			if (sym.st_shndx != SHN_UNDEF &&
			    sym.st_shndx < SHN_LORESERVE &&
			    gelf_getshdr(elf_getscn(elf, sym.st_shndx), &target))
				s += target.sh_addr;
			p = eh->sh_addr + r.r_offset;
			v = s + (u64)r.r_addend;
			if (type == R_X86_64_PC32 || type == R_X86_64_PC64)
				v -= p;
			bytes = type == R_X86_64_PC32 || type == R_X86_64_32 ?
				4 : 8;
			if (type != R_X86_64_PC32 && type != R_X86_64_32 &&
			    type != R_X86_64_PC64 && type != R_X86_64_64)
				return gen_fail(g, EXIT_INVALID, "%s",
						"unsupported .rela.eh_frame relocation type");
			where = eh->sh_offset + r.r_offset;
			if (r.r_offset > eh->sh_size ||
			    bytes > eh->sh_size - r.r_offset ||
			    where + bytes > g->image_size)
				return gen_fail(g, EXIT_INVALID, "%s",
						".rela.eh_frame offset out of bounds");
			while (bytes--) {
				g->image[where++] = (u8)v;
				v >>= 8;
			}
		}
	}
	return 0;
}

static int open_elf(struct gen *g)
{
	GElf_Ehdr ehdr;
	GElf_Shdr eh;
	Elf_Scn *scn;
	Elf *elf;
	int ret;

	if (g->image_size < 4 || memcmp(g->image, ELFMAG, SELFMAG))
		return gen_fail(g, EXIT_INVALID, "%s", "not an ELF file");
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)g->image, g->image_size);
	if (!elf || !gelf_getehdr(elf, &ehdr)) {
		ret = gen_fail(g, EXIT_INVALID, "bad ELF header: %s",
			       elf_errmsg(-1));
		goto out;
	}
	ret = EXIT_INVALID;
	if (ehdr.e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr.e_ident[EI_DATA] != ELFDATA2LSB ||
	    ehdr.e_machine != EM_X86_64) {
		gen_fail(g, ret, "%s", "not an x86-64 ELF object");
		goto out;
	}
	scn = find_section(elf, ".eh_frame", &eh);
	if (!scn) {
		gen_fail(g, ret, "%s", ehdr.e_shnum ? "no .eh_frame section" :
			 "no section headers (stripped objects are not supported)");
		goto out;
	}
	if (eh.sh_type == SHT_NOBITS || eh.sh_offset > g->image_size ||
	    eh.sh_size > g->image_size - eh.sh_offset) {
		gen_fail(g, ret, "%s", ".eh_frame out of bounds");
		goto out;
	}
	ret = 0;
	if (ehdr.e_type == ET_REL && g->borrowed) {
		unsigned char *own = malloc(g->image_size);

		if (!own) {
			ret = gen_fail(g, EXIT_USAGE, "%s", "out of memory");
			goto out;
		}
		memcpy(own, g->image, g->image_size);
		g->image = own;
		g->borrowed = false;
		elf_end(elf);
		elf = elf_memory((char *)g->image, g->image_size);
		scn = elf ? find_section(elf, ".eh_frame", &eh) : NULL;
		if (!scn) {
			ret = gen_fail(g, EXIT_USAGE, "%s", "out of memory");
			goto out;
		}
	}
	if (ehdr.e_type == ET_REL)
		ret = apply_eh_relocations(g, elf, elf_ndxscn(scn), &eh);
out:
	if (elf)
		elf_end(elf);
	if (ret)
		return ret;

	/* A fresh handle, so that libdw reads the relocated bytes. */
	g->elf = elf_memory((char *)g->image, g->image_size);
	scn = g->elf ? find_section(g->elf, ".eh_frame", &eh) : NULL;
	g->eh_data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!g->eh_data)
		return gen_fail(g, EXIT_INVALID, ".eh_frame unreadable: %s",
				elf_errmsg(-1));
	g->eh_addr = eh.sh_addr;
	g->eh_size = eh.sh_size;
	scn = find_section(g->elf, ".note.gnu.build-id", &eh);
	if (scn && eh.sh_type == SHT_NOTE && eh.sh_offset <= g->image_size &&
	    eh.sh_size <= g->image_size - eh.sh_offset) {
		g->note = g->image + eh.sh_offset;
		g->note_size = eh.sh_size;
	}
	g->cfi = dwarf_getcfi_elf(g->elf);
	if (!g->cfi)
		return gen_fail(g, EXIT_INVALID, ".eh_frame unusable: %s",
				dwarf_errmsg(-1));
	return 0;
}

/* Read a DW_EH_PE-encoded value at *@p, below @end; false if malformed. */
static bool read_encoded(const u8 **p, const u8 *end, u8 enc, u64 field_addr,
			 u64 *val)
{
	const u8 *q = *p;
	unsigned int bytes, shift = 0, i;
	u64 v = 0;

	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		bytes = 8;
		break;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		bytes = 4;
		break;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		bytes = 2;
		break;
	case DW_EH_PE_uleb128:
		do {
			if (q >= end || shift > 63)
				return false;
			v |= (u64)(*q & 0x7f) << shift;
			shift += 7;
		} while (*q++ & 0x80);
		bytes = 0;
		break;
	default:
		return false;
	}
	if (bytes) {
		if (end - q < bytes)
			return false;
		for (i = 0; i < bytes; i++)
			v |= (u64)q[i] << (8 * i);
		if ((enc & 0x0f) == DW_EH_PE_sdata4)
			v = (u64)(s64)(s32)v;
		else if ((enc & 0x0f) == DW_EH_PE_sdata2)
			v = (u64)(s64)(s16)v;
		q += bytes;
	}
	if ((enc & 0x70) == DW_EH_PE_pcrel)
		v += field_addr;
	else if ((enc & 0x70) != DW_EH_PE_absptr)
		return false;
	*p = q;
	*val = v;
	return true;
}

/* The FDE pointer encoding a CIE's 'R' augmentation names. */
static bool cie_fde_encoding(const Dwarf_CIE *cie, u8 *enc)
{
	const u8 *p = cie->augmentation_data;
	const u8 *end = p + cie->augmentation_data_size;
	const char *a = cie->augmentation;
	u64 dummy;
	u8 penc;

	*enc = DW_EH_PE_absptr;
	if (a[0] != 'z')
		return a[0] == '\0';
	for (a++; *a; a++) {
		switch (*a) {
		case 'R':
			if (p >= end)
				return false;
			*enc = *p;
			return true;
		case 'L':
			if (p++ >= end)
				return false;
			break;
		case 'P':
			if (p >= end)
				return false;
			penc = *p++;
			/* Only its size matters: strip application bits. */
			if (!read_encoded(&p, end, penc & 0x0f, 0, &dummy))
				return false;
			break;
		case 'S':
		case 'B':
			break;
		default:
			return false;
		}
	}
	return true;
}

/* Every FDE's range, in address order; later duplicates are overlaps. */
static int collect_funcs(struct gen *g)
{
	const u8 *ident = (const u8 *)elf_getident(g->elf, NULL);
	const u8 *base = g->eh_data->d_buf;
	Dwarf_Off off = 0, next, cie_off = (Dwarf_Off)-1;
	u32 cap = 0, i;
	bool cie_ok = false;
	u64 max_hi = 0;
	u8 enc = 0;

	for (;;) {
		Dwarf_CFI_Entry e, cie;
		const u8 *p;
		u64 lo, len;
		int r;

		r = dwarf_next_cfi(ident, g->eh_data, true, off, &next, &e);
		if (r > 0)
			break;
		if (r < 0)
			return gen_fail(g, EXIT_INVALID,
					"malformed .eh_frame entry at offset 0x%llx: %s",
					(unsigned long long)off, dwarf_errmsg(-1));
		off = next;
		if (dwarf_cfi_cie_p(&e))
			continue;
		if (e.fde.CIE_pointer != cie_off) {
			Dwarf_Off cie_next;

			cie_off = e.fde.CIE_pointer;
			cie_ok = !dwarf_next_cfi(ident, g->eh_data, true, cie_off,
						 &cie_next, &cie) &&
				 dwarf_cfi_cie_p(&cie) &&
				 cie_fde_encoding(&cie.cie, &enc);
		}
		p = e.fde.start;
		if (!cie_ok ||
		    !read_encoded(&p, e.fde.end, enc,
				  g->eh_addr + (u64)(p - base), &lo) ||
		    !read_encoded(&p, e.fde.end, enc & 0x0f, 0, &len) ||
		    lo + len < lo)
			return gen_fail(g, EXIT_INVALID,
					"malformed .eh_frame FDE at offset 0x%llx: bad CIE or address range",
					(unsigned long long)(e.fde.start - base));
		if (!len) {
			g->stats.empty++;
			continue;
		}
		if (!grow((void **)&g->funcs, &cap, g->nfuncs + 1,
			  sizeof(*g->funcs)))
			return gen_fail(g, EXIT_USAGE, "out of memory");
		g->funcs[g->nfuncs++] = (struct gen_func){ lo, lo + len, false };
	}

	for (i = 1; i < g->nfuncs; i++) {
		struct gen_func f = g->funcs[i];
		u32 j = i;

		while (j && g->funcs[j - 1].lo > f.lo) {
			g->funcs[j] = g->funcs[j - 1];
			j--;
		}
		g->funcs[j] = f;
	}
	for (i = 0; i < g->nfuncs; i++) {
		if (i && g->funcs[i].lo < max_hi)
			g->funcs[i].overlaps = true;
		if (g->funcs[i].hi > max_hi)
			max_hi = g->funcs[i].hi;
	}
	return 0;
}

static bool op_breg(const Dwarf_Op *op, u8 *reg, s64 *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = (u8)(op->atom - DW_OP_breg0);
		*off = (s64)op->number;
		return true;
	}
	if (op->atom == DW_OP_bregx && op->number <= 0xff) {
		*reg = (u8)op->number;
		*off = (s64)op->number2;
		return true;
	}
	return false;
}

/*
 * The CFA expression ld writes for 16-byte PLT entries:
 * rsp + A + ((rip & 15) >= K) * 8, i.e. rsp+A before offset K of each
 * entry (its push) and rsp+A+8 from there on.
 */
static bool plt_expression(const Dwarf_Op *ops, size_t n, s64 *cfa_off,
			   u8 *split)
{
	u8 reg, rip;
	s64 rip_off;

	if (n != GEN_PLT_EXPR_OPS || !op_breg(&ops[0], &reg, cfa_off) ||
	    reg != GEN_REG_RSP || !op_breg(&ops[1], &rip, &rip_off) ||
	    rip != GEN_REG_RIP || rip_off ||
	    ops[2].atom != DW_OP_lit0 + GEN_AMD64_PLT_ENTRY - 1 ||
	    ops[3].atom != DW_OP_and || ops[4].atom <= DW_OP_lit0 ||
	    ops[4].atom >= DW_OP_lit0 + GEN_AMD64_PLT_ENTRY ||
	    ops[5].atom != DW_OP_ge || ops[6].atom != DW_OP_lit3 ||
	    ops[7].atom != DW_OP_shl || ops[8].atom != DW_OP_plus)
		return false;
	*split = (u8)(ops[4].atom - DW_OP_lit0);
	return true;
}

/* Where the caller's @regno is; false if CFI says something SFrame lacks. */
static bool reg_loc(Dwarf_Frame *frame, int regno, struct sframe_enc_loc *loc)
{
	Dwarf_Op mem[3], *ops;
	size_t n;
	u8 reg;
	s64 off;

	memset(loc, 0, sizeof(*loc));
	if (dwarf_frame_register(frame, regno, mem, &ops, &n))
		return false;
	if (!n) {
		loc->kind = ops ? SFRAME_ENC_UNDEFINED : SFRAME_ENC_SAME;
		return true;
	}
	/*
	 * DW_CFA_expression and _val_expression come with the CFA pushed
	 * first; an expression that starts with a register ignores it.
	 */
	if (n >= 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    op_breg(&ops[1], &reg, &off)) {
		ops++;
		n--;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		loc->kind = SFRAME_ENC_AT_CFA;
		if (n == 1)
			return true;
		loc->off = (s64)ops[1].number;
		return n == 2 && ops[1].atom == DW_OP_plus_uconst;
	}
	if (op_breg(&ops[0], &reg, &off)) {
		loc->reg = reg;
		loc->off = off;
		loc->kind = n == 1 ? SFRAME_ENC_AT_REG : SFRAME_ENC_REG;
		return n == 1 || (n == 2 && ops[1].atom == DW_OP_stack_value);
	}
	if (n == 1 && ops[0].atom == DW_OP_regx && ops[0].number <= 0xff) {
		loc->kind = SFRAME_ENC_REG;
		loc->reg = (u8)ops[0].number;
		return true;
	}
	return false;
}

/* The rule encodes in an FDE of @type, with every word in range. */
static bool rule_fits(const struct sframe_enc_rule *rule, u8 type, bool *in_range)
{
	s64 words[SFRAME_FLEX_MAX_WORDS];
	bool is_ctrl[SFRAME_FLEX_MAX_WORDS];
	unsigned int n, i;

	if (!sframe_enc_rule_words(&sframe_arch_x86_64, rule, type, words,
				   is_ctrl, &n))
		return false;
	for (i = 0; i < n; i++) {
		if (words[i] < S32_MIN || words[i] > S32_MAX) {
			*in_range = false;
			return false;
		}
	}
	return true;
}

/* Turn the CFI row in @frame into @row; GEN_NR_SKIPS when expressible. */
static enum gen_skip row_rule(Dwarf_Frame *frame, struct gen_row *row)
{
	struct sframe_enc_rule *r = &row->rule, probe;
	bool in_range = true;
	Dwarf_Op *ops;
	size_t n;

	memset(row, 0, sizeof(*row));
	if (dwarf_frame_cfa(frame, &ops, &n))
		return GEN_SKIP_CFI;
	if (!n)
		return GEN_SKIP_CFA_UNDEFINED;
	if (!reg_loc(frame, GEN_REG_RIP, &r->ra))
		return GEN_SKIP_RA;
	if (!reg_loc(frame, GEN_REG_RBP, &r->fp))
		return GEN_SKIP_FP;
	if (r->fp.kind == SFRAME_ENC_UNDEFINED)
		r->fp.kind = SFRAME_ENC_SAME;

	r->cfa.kind = SFRAME_ENC_REG;
	if (plt_expression(ops, n, &r->cfa.off, &row->plt_split)) {
		r->cfa.reg = GEN_REG_RSP;
		row->class = GEN_ROW_PLT;
		if (!rule_fits(r, SFRAME_FDE_TYPE_DEFAULT, &in_range))
			return in_range ? GEN_SKIP_CFA_EXPR : GEN_SKIP_RANGE;
		return GEN_NR_SKIPS;
	}
	if (!op_breg(&ops[0], &r->cfa.reg, &r->cfa.off) || n > 2 ||
	    (n == 2 && ops[1].atom != DW_OP_deref))
		return GEN_SKIP_CFA_EXPR;
	if (n == 2)
		r->cfa.kind = SFRAME_ENC_AT_REG;

	row->flex_ok = rule_fits(r, SFRAME_FDE_TYPE_FLEX, &in_range);
	if (rule_fits(r, SFRAME_FDE_TYPE_DEFAULT, &in_range)) {
		row->class = GEN_ROW_DEFAULT;
		return GEN_NR_SKIPS;
	}
	row->class = GEN_ROW_FLEX;
	if (row->flex_ok)
		return GEN_NR_SKIPS;
	if (!in_range)
		return GEN_SKIP_RANGE;
	/* Which of RA and FP SFrame cannot express. */
	probe = *r;
	probe.fp.kind = SFRAME_ENC_SAME;
	return rule_fits(&probe, SFRAME_FDE_TYPE_FLEX, &in_range) ?
	       GEN_SKIP_FP : GEN_SKIP_RA;
}

static bool add_fde(struct gen *g, const struct sframe_enc_fde *fde)
{
	if (!grow((void **)&g->fdes, &g->fdes_cap, g->nfdes + 1,
		  sizeof(*g->fdes)))
		return false;
	g->fdes[g->nfdes++] = *fde;
	return true;
}

static bool add_fre(struct gen *g, u32 start, const struct sframe_enc_rule *rule)
{
	if (!grow((void **)&g->fres, &g->fres_cap, g->nfres + 1,
		  sizeof(*g->fres)))
		return false;
	g->fres[g->nfres].start = start;
	g->fres[g->nfres].rule = *rule;
	g->nfres++;
	return true;
}

/*
 * Emit rows [i, j) as one SFrame FDE of @type, one FRE per change of rule.
 * Returns a skip reason, GEN_NR_SKIPS on success, or -1 out of memory.
 */
static int emit_segment(struct gen *g, u32 i, u32 j, u8 type, bool signal)
{
	const struct gen_row *first = &g->rows[i];
	struct sframe_enc_fde fde = {
		.start = first->start, .first = g->nfres,
		.fde_type = type, .signal = signal,
	};
	u32 k;

	if (g->rows[j - 1].end - first->start > U32_MAX)
		return GEN_SKIP_RANGE;
	fde.size = (u32)(g->rows[j - 1].end - first->start);
	if (first->class == GEN_ROW_PLT) {
		struct sframe_enc_rule grown = first->rule;

		grown.cfa.off += 8;
		fde.pc_type = SFRAME_PC_TYPE_MASK;
		fde.rep_size = GEN_AMD64_PLT_ENTRY;
		if (!add_fre(g, 0, &first->rule) ||
		    !add_fre(g, first->plt_split, &grown))
			return -1;
	} else {
		for (k = i; k < j; k++) {
			const struct sframe_enc_rule *r = &g->rows[k].rule;

			if (k > i && !memcmp(r, &g->fres[g->nfres - 1].rule,
					     sizeof(*r)))
				continue;
			if (!add_fre(g, (u32)(g->rows[k].start - first->start),
				     r))
				return -1;
		}
	}
	fde.num = g->nfres - fde.first;
	if (fde.num > GEN_MAX_FDE_FRES)
		return GEN_SKIP_ROWS;
	if (!add_fde(g, &fde))
		return -1;
	g->stats.flex_fdes += type == SFRAME_FDE_TYPE_FLEX;
	g->stats.mask_fdes += fde.pc_type == SFRAME_PC_TYPE_MASK;
	g->stats.signal_fdes += signal;
	return GEN_NR_SKIPS;
}

/*
 * One function.  Rows that only a flex FDE can express make the whole
 * function flex when every row can be; otherwise the function is split
 * into runs of default and flex rows, and a PLT row gets its own PC-mask
 * FDE.  Splitting is sound: each address keeps exactly its own rule.
 * A row SFrame cannot express drops the whole function, since an
 * unwinder given the rest would still trust the addresses around it.
 */
static int gen_func(struct gen *g, const struct gen_func *f)
{
	u32 nfdes = g->nfdes, nfres = g->nfres, flex_fdes = g->stats.flex_fdes;
	u32 mask_fdes = g->stats.mask_fdes, sig_fdes = g->stats.signal_fdes;
	bool signal = false, all_flex = true, any_flex = false;
	int reason = GEN_NR_SKIPS;
	u64 addr = f->lo;
	u32 i, j;

	g->nrows = 0;
	if (f->overlaps)
		reason = GEN_SKIP_OVERLAP;
	while (reason == GEN_NR_SKIPS && addr < f->hi) {
		Dwarf_Addr start, end;
		Dwarf_Frame *frame;
		struct gen_row *row;
		bool sig = false;

		if (!grow((void **)&g->rows, &g->rows_cap, g->nrows + 1,
			  sizeof(*g->rows)))
			return -1;
		row = &g->rows[g->nrows];
		if (dwarf_cfi_addrframe(g->cfi, addr, &frame)) {
			reason = GEN_SKIP_CFI;
			break;
		}
		reason = row_rule(frame, row);
		if (dwarf_frame_info(frame, &start, &end, &sig) < 0)
			reason = GEN_SKIP_CFI;
		free(frame);
		if (end <= addr || end > f->hi)
			end = f->hi;
		row->start = addr;
		row->end = end;
		signal |= sig;
		all_flex &= row->flex_ok;
		any_flex |= row->class == GEN_ROW_FLEX;
		all_flex &= row->class != GEN_ROW_PLT;
		g->nrows++;
		addr = end;
	}

	for (i = 0; reason == GEN_NR_SKIPS && i < g->nrows; i = j) {
		u8 class = g->rows[i].class;

		if (any_flex && all_flex)
			class = GEN_ROW_FLEX;
		j = i + 1;
		while (class != GEN_ROW_PLT && j < g->nrows &&
		       (g->rows[j].class == class ||
			(any_flex && all_flex)))
			j++;
		reason = emit_segment(g, i, j, class == GEN_ROW_FLEX ?
				      SFRAME_FDE_TYPE_FLEX :
				      SFRAME_FDE_TYPE_DEFAULT, signal);
		if (reason < 0)
			return -1;
	}

	g->stats.funcs++;
	if (reason == GEN_NR_SKIPS) {
		g->stats.covered++;
		g->stats.covered_bytes += f->hi - f->lo;
		return 0;
	}
	g->nfdes = nfdes;
	g->nfres = nfres;
	g->stats.flex_fdes = flex_fdes;
	g->stats.mask_fdes = mask_fdes;
	g->stats.signal_fdes = sig_fdes;
	g->stats.skipped[reason]++;
	g->stats.skipped_bytes[reason] += f->hi - f->lo;
	return 0;
}

static int write_output(const char *path, const char *out, const u8 *data,
			size_t size)
{
	FILE *f = out ? fopen(out, "wb") : stdout;

	if (!out && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "sframectl: %s: refusing to write binary output to a terminal (use -o)\n",
			path);
		return EXIT_USAGE;
	}
	if (!f || fwrite(data, 1, size, f) != size ||
	    (out ? fclose(f) : fflush(f))) {
		fprintf(stderr, "sframectl: %s: %s\n", out ? out : "stdout",
			strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
}

static void print_stats(FILE *out, const struct gen *g, size_t sframe_size)
{
	const struct gen_stats *s = &g->stats;
	u32 skipped = 0, i;
	u64 skipped_bytes = 0;

	for (i = 0; i < GEN_NR_SKIPS; i++) {
		skipped += s->skipped[i];
		skipped_bytes += s->skipped_bytes[i];
	}
	fprintf(out, "%s: .eh_frame %llu bytes, .sframe %zu bytes (ratio %.3f)\n",
		g->path, (unsigned long long)g->eh_size, sframe_size,
		g->eh_size ? (double)sframe_size / (double)g->eh_size : 0.0);
	fprintf(out, "  functions: %u, covered %u (%llu bytes), skipped %u (%llu bytes), empty FDEs %u\n",
		s->funcs, s->covered, (unsigned long long)s->covered_bytes,
		skipped, (unsigned long long)skipped_bytes, s->empty);
	fprintf(out, "  SFrame FDEs: %u (%u flex, %u pc-mask, %u signal), FREs %u\n",
		g->nfdes, s->flex_fdes, s->mask_fdes, s->signal_fdes,
		g->nfres);
	for (i = 0; i < GEN_NR_SKIPS; i++)
		if (s->skipped[i])
			fprintf(out, "  skipped, %s: %u functions, %llu bytes\n",
				gen_skip_names[i], s->skipped[i],
				(unsigned long long)s->skipped_bytes[i]);
}

/* Rules compare equal when they recover the same values the same way. */
static void normalize_loc(struct sframe_loc *loc, const struct sframe_loc *cfa)
{
	if ((loc->kind == SFRAME_LOC_AT_REG) && cfa->kind == SFRAME_LOC_REG &&
	    loc->reg == cfa->reg) {
		loc->kind = SFRAME_LOC_AT_CFA;
		loc->offset -= cfa->offset;
	}
	if (loc->kind == SFRAME_LOC_AT_CFA)
		loc->reg = 0;
	if (loc->kind == SFRAME_LOC_SAME || loc->kind == SFRAME_LOC_UNDEFINED) {
		loc->reg = 0;
		loc->offset = 0;
	}
}

static void normalize_rule(struct sframe_rule *r)
{
	r->flags &= SFRAME_RULE_OUTERMOST;
	if (r->flags) {
		memset(&r->cfa, 0, sizeof(r->cfa));
		memset(&r->fp, 0, sizeof(r->fp));
		return;
	}
	normalize_loc(&r->ra, &r->cfa);
	normalize_loc(&r->fp, &r->cfa);
}

static const char *fmt_loc(char *buf, size_t size, const struct sframe_loc *l)
{
	static const char * const names[] = { [6] = "fp", [7] = "sp" };
	const char *reg = l->reg < ARRAY_SIZE(names) && names[l->reg] ?
			  names[l->reg] : NULL;
	char r[8];

	if (!reg) {
		snprintf(r, sizeof(r), "r%u", l->reg);
		reg = r;
	}
	switch (l->kind) {
	case SFRAME_LOC_AT_CFA:
		snprintf(buf, size, "c%+d", l->offset);
		break;
	case SFRAME_LOC_REG:
		snprintf(buf, size, "%s%+d", reg, l->offset);
		break;
	case SFRAME_LOC_AT_REG:
		snprintf(buf, size, "(%s%+d)", reg, l->offset);
		break;
	default:
		snprintf(buf, size, "u");
	}
	return buf;
}

static void fmt_rule(char *buf, size_t size, const struct sframe_rule *r)
{
	char a[32], b[32], c[32];

	if (r->flags & SFRAME_RULE_OUTERMOST) {
		snprintf(buf, size, "RA undefined");
		return;
	}
	snprintf(buf, size, "CFA %s RA %s FP %s",
		 fmt_loc(a, sizeof(a), &r->cfa), fmt_loc(b, sizeof(b), &r->ra),
		 fmt_loc(c, sizeof(c), &r->fp));
}

struct gen_compare {
	const struct sframe_section *ref;
	const struct sframe_section *mine;
	u64 both;
	u64 agree;
	u64 ref_only;
	bool in_diff;			/* the last address compared differed */
	u64 start;			/* the current run of differences */
	u64 end;
	struct sframe_rule ref_rule;
	struct sframe_rule gen_rule;
};

static void flush_diff(struct gen_compare *c)
{
	char a[96], b[96];

	if (c->end == c->start)
		return;
	fmt_rule(a, sizeof(a), &c->ref_rule);
	fmt_rule(b, sizeof(b), &c->gen_rule);
	printf("  differ 0x%llx-0x%llx: .sframe %s | gen %s\n",
	       (unsigned long long)c->start, (unsigned long long)c->end, a, b);
	c->start = c->end;
}

static void compare_at(struct gen_compare *c, u64 pc)
{
	struct sframe_rule a, b;
	bool same;

	if (sframe_find(c->ref, pc, &a))
		return;
	if (sframe_find(c->mine, pc, &b)) {
		c->ref_only++;
		return;
	}
	c->both++;
	normalize_rule(&a);
	normalize_rule(&b);
	if (!memcmp(&a, &b, sizeof(a))) {
		c->agree++;
		c->in_diff = false;
		return;
	}
	same = !memcmp(&a, &c->ref_rule, sizeof(a)) &&
	       !memcmp(&b, &c->gen_rule, sizeof(b));
	if (!c->in_diff || !same) {
		flush_diff(c);
		c->start = pc;
		c->ref_rule = a;
		c->gen_rule = b;
	}
	c->end = pc + 1;
	c->in_diff = true;
}

/*
 * Compare the file's own .sframe with the generated section: at every
 * byte its FDEs cover, or only at the addresses listed in @at_path (one
 * hexadecimal address per line, e.g. instruction addresses from objdump).
 * Prints the agreement and the differing address ranges with both rules.
 */
static int gen_compare(struct gen *g, const struct sframe_section *mine,
		       const char *at_path)
{
	char msg[SFRAME_MSG_MAX] = "", line[64];
	struct gen_compare c = { .mine = mine };
	struct sframe_section ref;
	struct sframe_error err;
	struct sframe_input in;
	FILE *at = NULL;
	u32 i;

	if (at_path)
		at = fopen(at_path, "r");
	if (at_path && !at) {
		fprintf(stderr, "sframectl: %s: %s\n", at_path, strerror(errno));
		return EXIT_USAGE;
	}
	if (sframe_input_load(&in, g->path, false, msg, sizeof(msg))) {
		fprintf(stderr, "sframectl: %s: %s\n", g->path, msg);
		sframe_input_free(&in);
		if (at)
			fclose(at);
		return EXIT_INVALID;
	}
	if (in.size > U32_MAX ||
	    sframe_validate(&ref, in.bytes, (u32)in.size, in.vaddr,
			    in.options, &err)) {
		fprintf(stderr, "sframectl: %s: its .sframe is invalid\n",
			g->path);
		sframe_input_free(&in);
		if (at)
			fclose(at);
		return EXIT_INVALID;
	}
	c.ref = &ref;
	while (at && fgets(line, sizeof(line), at))
		compare_at(&c, strtoull(line, NULL, 16));
	for (i = 0; !at && i < ref.num_fdes; i++) {
		struct sframe_fde fde;
		u64 pc;

		if (sframe_get_fde(&ref, i, &fde))
			continue;
		for (pc = fde.start; pc < fde.start + fde.size; pc++)
			compare_at(&c, pc);
	}
	flush_diff(&c);
	printf("%s: agreement %.2f%% (%llu of %llu %s both cover agree; %llu only in .sframe)\n",
	       g->path, c.both ? 100.0 * (double)c.agree / (double)c.both : 0.0,
	       (unsigned long long)c.agree, (unsigned long long)c.both,
	       at ? "listed addresses" : "bytes",
	       (unsigned long long)c.ref_only);
	if (at)
		fclose(at);
	sframe_input_free(&in);
	return 0;
}

/* Read, translate, encode, validate: 0 and the section, or g->err says. */
static int gen_build(struct gen *g, u8 **bytes, size_t *size,
		     struct sframe_section *sec)
{
	struct sframe_error err;
	int ret;
	u32 i;

	*bytes = NULL;
	ret = g->image ? 0 : read_whole(g);
	if (!ret)
		ret = open_elf(g);
	if (!ret)
		ret = collect_funcs(g);
	for (i = 0; !ret && i < g->nfuncs; i++)
		if (gen_func(g, &g->funcs[i]))
			ret = gen_fail(g, EXIT_USAGE, "out of memory");
	if (ret)
		return ret;

	*size = sframe_enc_size(&sframe_arch_x86_64, g->fdes, g->nfdes,
				g->fres);
	*bytes = malloc(*size);
	if (!*bytes)
		return gen_fail(g, EXIT_USAGE, "out of memory");
	sframe_encode(&sframe_arch_x86_64, g->fdes, g->nfdes, g->fres,
		      g->eh_addr, *bytes, *size);
	if (*size > U32_MAX ||
	    sframe_validate(sec, *bytes, (u32)*size, g->eh_addr,
			    SFRAME_REQUIRE_SORTED, &err)) {
		ret = gen_fail(g, EXIT_INVALID,
			       "BUG: generated section is invalid: %s at offset 0x%x",
			       *size > U32_MAX ? "too large" :
			       sframe_reason_str(err.reason), err.offset);
		free(*bytes);
		*bytes = NULL;
	}
	return ret;
}

static int gen_run(struct gen *g, const char *out, bool raw, bool stats,
		   bool compare, const char *at)
{
	struct sframe_section sec;
	u8 *bytes, *file = NULL;
	size_t size = 0, file_size;
	int ret;

	ret = gen_build(g, &bytes, &size, &sec);
	if (ret) {
		fprintf(stderr, "sframectl: %s: %s\n", g->path, g->err);
		return ret;
	}
	if (stats)
		print_stats(stderr, g, size);
	if (compare) {
		ret = gen_compare(g, &sec, at);
	} else if (raw) {
		ret = write_output(g->path, out, bytes, size);
	} else {
		file = sframe_container(bytes, size, g->eh_addr, g->note,
				       g->note_size, &file_size);
		ret = file ? write_output(g->path, out, file, file_size) :
			     EXIT_USAGE;
	}
	free(file);
	free(bytes);
	return ret;
}

static void gen_free(struct gen *g)
{
	if (g->cfi)
		dwarf_cfi_end(g->cfi);
	if (g->elf)
		elf_end(g->elf);
	if (!g->borrowed)
		free(g->image);
	free(g->funcs);
	free(g->rows);
	free(g->fdes);
	free(g->fres);
}

/*
 * Build the section for @path, whose @file_size bytes the caller has read
 * to @file (not written to, and used only while @g lives), in memory.
 * 0, or an exit status with the reason in @msg; @g is the caller's to
 * gen_free() either way.
 */
static int gen_in_memory(struct gen *g, const char *path, const u8 *file,
			 size_t file_size, u8 **data, size_t *size, char *msg,
			 size_t msg_size)
{
	struct sframe_section sec;
	int ret;

	*g = (struct gen){
		.path = path, .image = (unsigned char *)file,
		.image_size = file_size, .borrowed = true,
	};
	ret = gen_build(g, data, size, &sec);
	if (ret)
		snprintf(msg, msg_size, "%s", g->err);
	return ret;
}

/*
 * For sframectl load: the section for @path (gen_in_memory()) and the
 * address it assumes.  0, or an exit status with the reason in @msg.
 */
int sframe_gen_memory(const char *path, const u8 *file, size_t file_size,
		      u8 **data, size_t *size, u64 *vaddr, char *msg,
		      size_t msg_size)
{
	struct gen g;
	int ret;

	ret = gen_in_memory(&g, path, file, file_size, data, size, msg,
			    msg_size);
	*vaddr = g.eh_addr;
	gen_free(&g);
	return ret;
}

/*
 * For sframectl serve: the sidecar file gen -o writes for @path
 * (gen_in_memory()), in a malloc()ed buffer.  0, or an exit status with
 * the reason in @msg.
 */
int sframe_gen_file(const char *path, const u8 *file, size_t file_size,
		    u8 **out, size_t *out_size, char *msg, size_t msg_size)
{
	struct gen g;
	size_t size;
	u8 *bytes;
	int ret;

	*out = NULL;
	ret = gen_in_memory(&g, path, file, file_size, &bytes, &size, msg,
			    msg_size);
	if (!ret) {
		*out = sframe_container(bytes, size, g.eh_addr, g.note,
					g.note_size, out_size);
		if (!*out) {
			snprintf(msg, msg_size, "out of memory");
			ret = EXIT_USAGE;
		}
		free(bytes);
	}
	gen_free(&g);
	return ret;
}

/* sframectl gen ELF [-o OUT] [--raw] [--stats] [--compare [--at FILE]] */
int sframe_gen_command(int argc, char **argv)
{
	bool raw = false, stats = false, compare = false;
	const char *out = NULL, *path = NULL, *at = NULL;
	struct gen g = { 0 };
	int i, ret;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--raw")) {
			raw = true;
		} else if (!strcmp(argv[i], "--stats")) {
			stats = true;
		} else if (!strcmp(argv[i], "--compare")) {
			compare = true;
		} else if (!strcmp(argv[i], "--at") && i + 1 < argc) {
			at = argv[++i];
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (argv[i][0] != '-' && !path) {
			path = argv[i];
		} else {
			fprintf(stderr, "sframectl: gen: unexpected argument '%s'\n",
				argv[i]);
			return EXIT_USAGE;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: sframectl gen ELF [-o OUT] [--raw] [--stats] [--compare [--at FILE]]\n");
		return EXIT_USAGE;
	}
	g.path = path;
	ret = gen_run(&g, out, raw, stats, compare, at);
	gen_free(&g);
	return ret;
}
