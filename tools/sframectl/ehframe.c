// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl gen's input: an x86-64 or AArch64 ELF object's .eh_frame,
 * opened and relocated (when the object is) by elf.c and read by libdw,
 * and the address range and CFI of each of its functions (DWARF FDEs),
 * sorted, overlaps marked: in n log n time for n FDEs, and refused beyond
 * GEN_MAX_EH_FRAME bytes, GEN_MAX_FDES functions or a CIE of more than
 * GEN_MAX_CIE_PROGRAM bytes of instructions.
 */
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define GEN_REG_AARCH64_LR	30

static const struct gen_machine gen_machines[] = {
	{
		.e_machine = EM_X86_64, .arch = &sframe_arch_x86_64,
		.ra_column = GEN_REG_RIP, .plt_expression = true,
	},
	{
		.e_machine = EM_AARCH64, .arch = &sframe_arch_aarch64,
		.ra_column = GEN_REG_AARCH64_LR, .ra_signing = true,
	},
};

/* The machine of @ehdr, if gen reads its objects: NULL if not. */
static const struct gen_machine *gen_machine(const GElf_Ehdr *ehdr)
{
	size_t i;

	if (ehdr->e_ident[EI_CLASS] != ELFCLASS64 ||
	    ehdr->e_ident[EI_DATA] != ELFDATA2LSB)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(gen_machines); i++)
		if (gen_machines[i].e_machine == ehdr->e_machine)
			return &gen_machines[i];
	return NULL;
}

/* The object's machine and its .eh_frame, in the file: @scn, @eh. */
static int find_eh_frame(struct gen *g, const struct sframe_elf *e,
			 Elf_Scn **scn, GElf_Shdr *eh)
{
	g->mach = gen_machine(&e->ehdr);
	if (!g->mach)
		return gen_fail(g, EXIT_INVALID, "%s",
				"not a little-endian x86-64 or AArch64 ELF object");
	*scn = sframe_elf_section(e->elf, ".eh_frame", 0, eh);
	if (!*scn)
		return gen_fail(g, EXIT_INVALID, "%s", e->ehdr.e_shnum ?
				"no .eh_frame section" :
				"no section headers (stripped objects are not supported)");
	if (!sframe_elf_section_in(e, eh))
		return gen_fail(g, EXIT_INVALID, "%s", ".eh_frame out of bounds");
	if (!eh->sh_size || eh->sh_type == SHT_NOBITS)
		return gen_fail(g, EXIT_INVALID, "%s", "empty .eh_frame");
	if (eh->sh_size > GEN_MAX_EH_FRAME)
		return gen_fail(g, EXIT_INVALID,
				".eh_frame of %llu bytes, more than the %u allowed",
				(unsigned long long)eh->sh_size,
				GEN_MAX_EH_FRAME);
	return 0;
}

/*
 * Relocatable objects carry .eh_frame's PC fields in .rela.eh_frame:
 * apply them to the image (sections at their sh_addr, normally 0), so that
 * libdw sees the object's functions where its .sframe puts them.  A
 * borrowed image is copied first: it is the caller's, not to be written.
 */
static int relocate_eh_frame(struct gen *g, const struct sframe_elf *e,
			     Elf_Scn *scn, const GElf_Shdr *eh)
{
	static const char * const why[] = {
		[SFRAME_ELF_RELOC_TABLE] = ".rela.eh_frame unreadable",
		[SFRAME_ELF_RELOC_ENTRY] = ".rela.eh_frame entry unreadable",
		[SFRAME_ELF_RELOC_TYPE] =
			"unsupported .rela.eh_frame relocation type",
		[SFRAME_ELF_RELOC_TARGET] =
			".rela.eh_frame offset out of bounds",
		[SFRAME_ELF_RELOC_SYMBOL] = ".rela.eh_frame entry unreadable",
	};
	enum sframe_elf_reloc_error err;

	if (g->borrowed) {
		unsigned char *own = malloc(g->image_size);

		if (!own)
			return gen_fail(g, EXIT_USAGE, "%s", "out of memory");
		memcpy(own, g->image, g->image_size);
		g->image = own;
		g->borrowed = false;
	}
	err = sframe_elf_relocate(e, scn, eh, g->image + eh->sh_offset);
	return err ? gen_fail(g, EXIT_INVALID, "%s", why[err]) : 0;
}

static int open_elf(struct gen *g)
{
	struct sframe_elf e;
	Elf_Scn *scn = NULL;
	GElf_Shdr eh;
	int ret;

	ret = sframe_elf_open(&e, g->image, g->image_size, g->err,
			      sizeof(g->err)) ? EXIT_INVALID : 0;
	if (!ret)
		ret = find_eh_frame(g, &e, &scn, &eh);
	if (!ret && e.ehdr.e_type == ET_REL)
		ret = relocate_eh_frame(g, &e, scn, &eh);
	sframe_elf_close(&e);
	if (ret)
		return ret;

	/* A fresh handle, so that libdw reads the relocated bytes. */
	scn = NULL;
	if (!sframe_elf_open(&g->obj, g->image, g->image_size, g->err,
			     sizeof(g->err)))
		scn = sframe_elf_section(g->obj.elf, ".eh_frame", 0, &eh);
	g->eh_data = scn ? elf_getdata(scn, NULL) : NULL;
	if (!g->eh_data)
		return gen_fail(g, EXIT_INVALID, ".eh_frame unreadable: %s",
				elf_errmsg(-1));
	g->eh_addr = eh.sh_addr;
	g->eh_size = eh.sh_size;
	scn = sframe_elf_section(g->obj.elf, ".note.gnu.build-id", 0, &eh);
	if (scn && eh.sh_type == SHT_NOTE &&
	    sframe_elf_section_in(&g->obj, &eh)) {
		g->note = g->image + eh.sh_offset;
		g->note_size = eh.sh_size;
	}
	return 0;
}

/* Read a DW_EH_PE-encoded value at *@p, below @end; false if malformed. */
static bool read_encoded(const u8 **p, const u8 *end, u8 enc, u64 field_addr,
			 u64 *val)
{
	const u8 *q = *p;
	unsigned int bytes;
	u64 v;

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
		bytes = 0;
		break;
	default:
		return false;
	}
	if (!bytes) {
		if (!gen_read_uleb(&q, end, &v))
			return false;
	} else {
		if (!gen_read_le(&q, end, bytes, &v))
			return false;
		if ((enc & 0x0f) == DW_EH_PE_sdata4)
			v = (u64)(s64)(s32)v;
		else if ((enc & 0x0f) == DW_EH_PE_sdata2)
			v = (u64)(s64)(s16)v;
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

/*
 * The order of SFrame's FDEs: by start, as a signed distance from the
 * section; at the same start, .eh_frame's order (that of the
 * instructions), so that the later of two FDEs is the one that overlaps.
 */
static int func_order(const void *a, const void *b)
{
	const struct gen_func *fa = a, *fb = b;

	if (fa->rel_lo != fb->rel_lo)
		return fa->rel_lo < fb->rel_lo ? -1 : 1;
	return fa->ins < fb->ins ? -1 : fa->ins > fb->ins;
}

/*
 * Sort @g's functions and mark each that starts inside one before it,
 * or whose end a signed distance from the section cannot hold.
 */
static void sort_funcs(struct gen *g)
{
	struct gen_func *f;
	s64 rel_hi, max_hi = 0;
	bool any = false;
	u32 i;

	for (i = 0; i < g->nfuncs; i++)
		g->funcs[i].rel_lo = (s64)(g->funcs[i].lo - g->eh_addr);
	if (g->nfuncs)
		qsort(g->funcs, g->nfuncs, sizeof(*g->funcs), func_order);
	for (i = 0; i < g->nfuncs; i++) {
		f = &g->funcs[i];
		f->wraps = (s64)(f->hi - f->lo) < 0 ||
			   __builtin_add_overflow(f->rel_lo,
						  (s64)(f->hi - f->lo), &rel_hi);
		if (f->wraps)
			continue;
		f->overlaps = any && f->rel_lo < max_hi;
		if (!any || rel_hi > max_hi)
			max_hi = rel_hi;
		any = true;
	}
}

/*
 * A CIE of .eh_frame as its FDEs need it, read once where .eh_frame holds
 * it: a CIE named by FDEs in turn with others is not read again for each.
 */
struct eh_cie {
	Dwarf_Off off;
	const u8 *ins, *ins_end;	/* initial instructions */
	u64 code_align;
	s64 data_align;
	u8 fde_enc;			/* FDE address encoding ('R') */
	bool readable;			/* an augmentation gen understands */
	bool sized;			/* 'z': FDEs have augmentation data */
	bool signal;			/* 'z' and 'S': a signal frame */
};

/* The CIEs met so far, in .eh_frame's order, which is by offset. */
struct eh_cies {
	struct eh_cie *arr;
	u32 n, cap;
};

static bool add_cie(struct eh_cies *cies, Dwarf_Off off, const Dwarf_CIE *cie)
{
	struct eh_cie *c;

	if (!gen_grow((void **)&cies->arr, &cies->cap, cies->n + 1,
		      sizeof(*cies->arr)))
		return false;
	c = &cies->arr[cies->n++];
	*c = (struct eh_cie){
		.off = off,
		.ins = cie->initial_instructions,
		.ins_end = cie->initial_instructions_end,
		.code_align = cie->code_alignment_factor,
		.data_align = cie->data_alignment_factor,
		.sized = cie->augmentation[0] == 'z',
	};
	c->readable = cie_fde_encoding(cie, &c->fde_enc);
	c->signal = c->sized && strchr(cie->augmentation, 'S');
	return true;
}

/*
 * The CIE at @off, or NULL if none starts there: an FDE's CIE pointer
 * points back, so .eh_frame's CIEs before the FDE are all it can name.
 */
static const struct eh_cie *find_cie(const struct eh_cies *cies,
				     Dwarf_Off off)
{
	u32 lo = 0, hi = cies->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cies->arr[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < cies->n && cies->arr[lo].off == off ? &cies->arr[lo] :
							  NULL;
}

/* collect_funcs() with the CIEs met so far in @cies. */
static int read_entries(struct gen *g, struct eh_cies *cies)
{
	const u8 *ident = (const u8 *)elf_getident(g->obj.elf, NULL);
	const u8 *base = g->eh_data->d_buf;
	Dwarf_Off off = 0, next;
	u32 cap = 0, over = 0;

	for (;;) {
		const struct eh_cie *cie;
		Dwarf_CFI_Entry e;
		const u8 *p;
		u64 lo, len, aug = 0;
		int r;

		r = dwarf_next_cfi(ident, g->eh_data, true, off, &next, &e);
		if (r > 0)
			break;
		if (r < 0)
			return gen_fail(g, EXIT_INVALID,
					"malformed .eh_frame entry at offset 0x%llx: %s",
					(unsigned long long)off, dwarf_errmsg(-1));
		if (dwarf_cfi_cie_p(&e)) {
			if (cies->n == GEN_MAX_CIES)
				return gen_fail(g, EXIT_INVALID,
						"more than the %u CIEs allowed",
						GEN_MAX_CIES);
			if (!add_cie(cies, off, &e.cie))
				return gen_fail(g, EXIT_USAGE, "out of memory");
			off = next;
			continue;
		}
		off = next;
		cie = find_cie(cies, e.fde.CIE_pointer);
		p = e.fde.start;
		if (!cie || !cie->readable ||
		    !read_encoded(&p, e.fde.end, cie->fde_enc,
				  g->eh_addr + (u64)(p - base), &lo) ||
		    !read_encoded(&p, e.fde.end, cie->fde_enc & 0x0f, 0,
				  &len) ||
		    lo + len < lo ||
		    (cie->sized &&
		     (!read_encoded(&p, e.fde.end, DW_EH_PE_uleb128, 0, &aug) ||
		      aug > (u64)(e.fde.end - p))))
			return gen_fail(g, EXIT_INVALID,
					"malformed .eh_frame FDE at offset 0x%llx: bad CIE or address range",
					(unsigned long long)(e.fde.start - base));
		if (!len) {
			g->stats.empty++;
			continue;
		}
		if (g->nfuncs == GEN_MAX_FDES) {
			over++;
			continue;
		}
		if (cie->ins_end - cie->ins > GEN_MAX_CIE_PROGRAM)
			return gen_fail(g, EXIT_INVALID,
					"CIE at offset 0x%llx: initial instructions of %llu bytes, more than the %u allowed",
					(unsigned long long)cie->off,
					(unsigned long long)(cie->ins_end -
							     cie->ins),
					GEN_MAX_CIE_PROGRAM);
		if (!gen_grow((void **)&g->funcs, &cap, g->nfuncs + 1,
			  sizeof(*g->funcs)))
			return gen_fail(g, EXIT_USAGE, "out of memory");
		g->funcs[g->nfuncs++] = (struct gen_func){
			.lo = lo, .hi = lo + len,
			.cie = (u32)(cie - cies->arr),
			.cie_ins = cie->ins, .cie_ins_end = cie->ins_end,
			.ins = p + aug, .ins_end = e.fde.end,
			.code_align = cie->code_align,
			.data_align = cie->data_align,
			.signal = cie->signal,
		};
	}
	if (over)
		return gen_fail(g, EXIT_INVALID,
				"%llu FDEs, more than the %u allowed",
				(unsigned long long)g->nfuncs + over,
				GEN_MAX_FDES);
	return 0;
}

/*
 * Every FDE's range and instructions, at most GEN_MAX_FDES of them, each
 * of its CIE's at most GEN_MAX_CIE_PROGRAM bytes, of at most GEN_MAX_CIES
 * CIEs.
 */
static int collect_funcs(struct gen *g)
{
	struct eh_cies cies = { 0 };
	int ret = read_entries(g, &cies);

	free(cies.arr);
	return ret;
}

/* Open @g's image and list its functions; 0 or g->err says why not. */
int gen_read_eh_frame(struct gen *g)
{
	int ret = open_elf(g);

	if (!ret)
		ret = collect_funcs(g);
	if (!ret)
		sort_funcs(g);
	return ret;
}
