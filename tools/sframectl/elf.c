// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl's ELF reader, through libelf: an object's SFrame section (the
 * .sframe section, or the PT_GNU_SFRAME segment of a stripped object,
 * with a relocatable object's .rela.sframe applied the way objdump
 * applies it), its executable segments, its build ID, and a section by
 * name for gen.  The file may be anything: every offset and size it
 * gives is checked against the file before libelf is asked to use it.
 */
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframectl.h"

/* An ELF file in memory, opened with libelf. */
struct elf_file {
	const unsigned char *d;
	size_t size;
	Elf *elf;
	GElf_Ehdr ehdr;
	bool be;
};

static bool elf_in(const struct elf_file *e, u64 off, u64 len)
{
	return off <= e->size && len <= e->size - off;
}

static void elf_put(unsigned char *p, u64 v, unsigned int bytes, bool be)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[be ? bytes - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static __printf(4, 5)
enum sframe_load_status fail(char *msg, size_t msg_size,
			     enum sframe_load_status status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, msg_size, fmt, ap);
	va_end(ap);
	return status;
}

static bool elf_shdr(const struct elf_file *e, size_t idx, GElf_Shdr *sh)
{
	Elf_Scn *scn;

	if (idx >= e->ehdr.e_shnum)
		return false;
	scn = elf_getscn(e->elf, idx);
	return scn && gelf_getshdr(scn, sh);
}

/* The program headers are in the file: gelf_getphdr() may read them. */
static bool elf_phdrs_in(const struct elf_file *e)
{
	return elf_in(e, e->ehdr.e_phoff,
		      (u64)e->ehdr.e_phnum * sizeof(Elf64_Phdr));
}

static void elf_close(struct elf_file *e)
{
	if (e->elf)
		elf_end(e->elf);
	e->elf = NULL;
}

/*
 * Open the 64-bit ELF file at @d.  The identification bytes are checked
 * first, so that each kind of file that is not one gets its own reason;
 * the section header table before libelf reads it, since libelf would
 * only find no sections.  Close with elf_close(), whatever it returns.
 */
static enum sframe_load_status elf_open(struct elf_file *e,
					const unsigned char *d, size_t size,
					char *msg, size_t msg_size)
{
	memset(e, 0, sizeof(*e));
	e->d = d;
	e->size = size;
	if (size < sizeof(Elf64_Ehdr) || memcmp(d, ELFMAG, SELFMAG))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "not an ELF file (use --raw for a bare section)");
	if (d[EI_CLASS] != ELFCLASS64)
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "only 64-bit ELF is supported");
	if (d[EI_DATA] != ELFDATA2LSB && d[EI_DATA] != ELFDATA2MSB)
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "bad ELF byte order");
	/* libelf reads no other version: say so, not that libelf failed. */
	if (d[EI_VERSION] != EV_CURRENT)
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "bad ELF version");
	e->be = d[EI_DATA] == ELFDATA2MSB;
	elf_version(EV_CURRENT);
	e->elf = elf_memory((char *)d, size);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF ||
	    !gelf_getehdr(e->elf, &e->ehdr))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "bad ELF header: %s", elf_errmsg(-1));
	if (e->ehdr.e_shnum &&
	    !elf_in(e, e->ehdr.e_shoff,
		    (u64)e->ehdr.e_shnum * sizeof(Elf64_Shdr)))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "ELF section headers out of bounds");
	return SFRAME_LOAD_OK;
}

/*
 * The first section named @want, or of type @type when it is not 0, and
 * its header in *@sh; NULL if there is none.
 */
Elf_Scn *sframe_elf_section(Elf *elf, const char *want, u32 type,
			    GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL, *strtab;
	size_t shstrndx;

	/*
	 * Without names there is no telling which section is which; and
	 * section 0 is never the table of them.
	 */
	if (elf_getshdrstrndx(elf, &shstrndx) || shstrndx == SHN_UNDEF)
		return NULL;
	strtab = elf_getscn(elf, shstrndx);
	if (!strtab || !elf_getdata(strtab, NULL))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, sh))
			return NULL;
		if (type && sh->sh_type == type)
			return scn;
		name = elf_strptr(elf, shstrndx, sh->sh_name);
		if (name && !strcmp(name, want))
			return scn;
	}
	return NULL;
}

/* Where a relocation may write: the start field of some FDE. */
static bool reloc_hits_fde_start(const unsigned char *s, u64 where,
				 unsigned int bytes)
{
	bool be = s[0] == (SFRAME_MAGIC >> 8);
	unsigned int fde_size, width;
	u64 table, num;

	switch (s[SFRAME_HDR_VERSION]) {
	case SFRAME_VERSION_1:
		fde_size = SFRAME_V1_FDE_SIZE;
		width = 4;
		break;
	case SFRAME_VERSION_2:
		fde_size = SFRAME_V2_FDE_SIZE;
		width = 4;
		break;
	default:
		fde_size = SFRAME_V3_FDE_SIZE;
		width = 8;
		break;
	}
	table = SFRAME_HDR_SIZE + (u64)s[SFRAME_HDR_AUXHDR_LEN] +
		(be ? get_unaligned_be32(s + SFRAME_HDR_FDEOFF) :
		      get_unaligned_le32(s + SFRAME_HDR_FDEOFF));
	num = be ? get_unaligned_be32(s + SFRAME_HDR_NUM_FDES) :
		   get_unaligned_le32(s + SFRAME_HDR_NUM_FDES);
	return bytes == width && where >= table &&
	       (where - table) % fde_size == 0 &&
	       (where - table) / fde_size < num;
}

struct reloc_kind {
	unsigned int machine;
	unsigned int type;
	unsigned int bytes;
	bool pcrel;
};

static const struct reloc_kind reloc_kinds[] = {
	{ EM_X86_64, R_X86_64_64, 8, false },
	{ EM_X86_64, R_X86_64_PC32, 4, true },
	{ EM_X86_64, R_X86_64_32, 4, false },
	{ EM_X86_64, R_X86_64_PC64, 8, true },
	{ EM_AARCH64, R_AARCH64_ABS64, 8, false },
	{ EM_AARCH64, R_AARCH64_ABS32, 4, false },
	{ EM_AARCH64, R_AARCH64_PREL64, 8, true },
	{ EM_AARCH64, R_AARCH64_PREL32, 4, true },
	{ EM_S390, R_390_32, 4, false },
	{ EM_S390, R_390_PC32, 4, true },
	{ EM_S390, R_390_64, 8, false },
	{ EM_S390, R_390_PC64, 8, true },
};

static const struct reloc_kind *reloc_kind(unsigned int machine,
					   unsigned int type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(reloc_kinds); i++)
		if (reloc_kinds[i].machine == machine &&
		    reloc_kinds[i].type == type)
			return &reloc_kinds[i];
	return NULL;
}

/*
 * The data relocation @type of @machine: how many bytes it writes and
 * whether it is PC-relative (S + A - P); false for any other type.
 */
bool sframe_elf_reloc(unsigned int machine, unsigned int type,
		      unsigned int *bytes, bool *pcrel)
{
	const struct reloc_kind *kind = reloc_kind(machine, type);

	if (!kind)
		return false;
	*bytes = kind->bytes;
	*pcrel = kind->pcrel;
	return true;
}

/* Value of symbol @idx in @syms: st_value plus its section's address. */
static bool elf_symbol_value(const struct elf_file *e, Elf_Data *syms,
			     u64 idx, u64 *value)
{
	GElf_Shdr target;
	GElf_Sym sym;

	if (idx > INT32_MAX || !gelf_getsym(syms, (int)idx, &sym))
		return false;
	*value = sym.st_value;
	if (sym.st_shndx != SHN_UNDEF && sym.st_shndx < SHN_LORESERVE) {
		if (!elf_shdr(e, sym.st_shndx, &target))
			return false;
		*value += target.sh_addr;
	}
	return true;
}

/*
 * Table @sh of the file in *@data, in the host's layout (libelf converts
 * the byte order), read whatever the section's type, at its offset, as
 * objdump does; NULL when empty.  False unless it is in the file.
 */
static bool elf_table(const struct elf_file *e, const GElf_Shdr *sh,
		      Elf_Type type, Elf_Data **data)
{
	*data = NULL;
	if (!elf_in(e, sh->sh_offset, sh->sh_size))
		return false;
	if (sh->sh_size)
		*data = elf_getdata_rawchunk(e->elf, (int64_t)sh->sh_offset,
					     sh->sh_size, type);
	return !sh->sh_size || *data;
}

static enum sframe_load_status elf_relocate(struct sframe_input *in,
					    const struct elf_file *e,
					    const GElf_Shdr *rela,
					    char *msg, size_t msg_size)
{
	Elf_Data *rels, *syms;
	GElf_Shdr symtab;
	u64 i, count;

	if (!elf_table(e, rela, ELF_T_RELA, &rels) ||
	    !elf_shdr(e, rela->sh_link, &symtab) ||
	    !elf_table(e, &symtab, ELF_T_SYM, &syms))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    ".rela.sframe out of bounds");
	if (in->size < SFRAME_HDR_SIZE)
		return fail(msg, msg_size, SFRAME_LOAD_INVALID, "%s",
			    sframe_reason_str(SFRAME_ERR_HEADER_TRUNCATED));

	in->copy = malloc(in->size);
	if (!in->copy)
		return fail(msg, msg_size, SFRAME_LOAD_IO, "out of memory");
	memcpy(in->copy, in->bytes, in->size);
	in->bytes = in->copy;

	count = rela->sh_size / sizeof(Elf64_Rela);
	for (i = 0; i < count; i++) {
		const struct reloc_kind *kind;
		unsigned int type;
		u64 where, value;
		GElf_Rela r;

		if (!gelf_getrela(rels, (int)i, &r))
			return fail(msg, msg_size, SFRAME_LOAD_INVALID,
				    ".rela.sframe out of bounds");
		where = r.r_offset;
		type = (unsigned int)GELF_R_TYPE(r.r_info);
		kind = reloc_kind(e->ehdr.e_machine, type);
		if (!kind)
			return fail(msg, msg_size, SFRAME_LOAD_INVALID,
				    "unsupported relocation type %u at offset 0x%llx",
				    type, (unsigned long long)where);
		if (where > in->size || kind->bytes > in->size - where ||
		    !reloc_hits_fde_start(in->bytes, where, kind->bytes))
			return fail(msg, msg_size, SFRAME_LOAD_INVALID,
				    "relocation does not target an FDE start address at offset 0x%llx",
				    (unsigned long long)where);
		if (!elf_symbol_value(e, syms, GELF_R_SYM(r.r_info), &value))
			return fail(msg, msg_size, SFRAME_LOAD_INVALID,
				    "relocation symbol out of bounds at offset 0x%llx",
				    (unsigned long long)where);
		value += (u64)r.r_addend;
		if (kind->pcrel)
			value -= in->vaddr + where;
		elf_put(in->copy + where, value, kind->bytes, e->be);
		in->relocations++;
	}
	return SFRAME_LOAD_OK;
}

/* The PT_GNU_SFRAME segment, for objects without section headers. */
static enum sframe_load_status elf_from_segment(struct sframe_input *in,
						const struct elf_file *e,
						char *msg, size_t msg_size)
{
	GElf_Phdr ph;
	unsigned int i;

	if (!elf_phdrs_in(e))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "ELF program headers out of bounds");
	for (i = 0; i < e->ehdr.e_phnum; i++) {
		if (!gelf_getphdr(e->elf, (int)i, &ph) ||
		    ph.p_type != SFRAME_PT_GNU_SFRAME)
			continue;
		if (!elf_in(e, ph.p_offset, ph.p_filesz))
			return fail(msg, msg_size, SFRAME_LOAD_INVALID,
				    "PT_GNU_SFRAME out of bounds");
		in->bytes = (unsigned char *)e->d + ph.p_offset;
		in->size = ph.p_filesz;
		in->vaddr = ph.p_vaddr;
		in->name = ".sframe";
		in->options = SFRAME_SEGMENT_PADDING;
		return SFRAME_LOAD_OK;
	}
	return fail(msg, msg_size, SFRAME_LOAD_INVALID,
		    "no .sframe section or PT_GNU_SFRAME segment");
}

static enum sframe_load_status elf_extract(struct sframe_input *in,
					   const struct elf_file *e,
					   char *msg, size_t msg_size)
{
	GElf_Shdr found, sh;
	Elf_Scn *scn;
	size_t i;

	scn = sframe_elf_section(e->elf, ".sframe", SFRAME_SHT_GNU_SFRAME,
				 &found);
	if (!scn)
		return elf_from_segment(in, e, msg, msg_size);
	if (!elf_in(e, found.sh_offset, found.sh_size))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    ".sframe section out of bounds");
	in->bytes = in->file + found.sh_offset;
	in->size = found.sh_size;
	in->vaddr = found.sh_addr;
	in->name = ".sframe";
	if (e->ehdr.e_type != ET_REL)
		return SFRAME_LOAD_OK;

	for (i = 1; i < e->ehdr.e_shnum; i++) {
		if (elf_shdr(e, i, &sh) && sh.sh_type == SHT_RELA &&
		    sh.sh_info == elf_ndxscn(scn))
			return elf_relocate(in, e, &sh, msg, msg_size);
	}
	return SFRAME_LOAD_OK;
}

enum sframe_load_status sframe_elf_extract(struct sframe_input *in,
					   char *msg, size_t msg_size)
{
	enum sframe_load_status st;
	struct elf_file e;

	st = elf_open(&e, in->file, in->file_size, msg, msg_size);
	if (st == SFRAME_LOAD_OK)
		st = elf_extract(in, &e, msg, msg_size);
	elf_close(&e);
	return st;
}

static enum sframe_load_status elf_code(const struct elf_file *e,
					struct sframe_code *code, char *msg,
					size_t msg_size)
{
	GElf_Phdr ph;
	unsigned int i;

	if (e->be || e->ehdr.e_machine != SFRAME_NATIVE_EM ||
	    (e->ehdr.e_type != ET_EXEC && e->ehdr.e_type != ET_DYN))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "not an " SFRAME_NATIVE_NAME
			    " executable or shared object");
	if (!elf_phdrs_in(e))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "ELF program headers out of bounds");
	for (i = 0; i < e->ehdr.e_phnum; i++) {
		if (!gelf_getphdr(e->elf, (int)i, &ph))
			continue;
		if (ph.p_type == SFRAME_PT_GNU_SFRAME)
			code->has_sframe = true;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) ||
		    code->nr == SFRAME_CODE_MAX)
			continue;
		code->seg[code->nr].start = ph.p_vaddr;
		code->seg[code->nr].size = ph.p_filesz;
		code->nr++;
	}
	if (!code->nr)
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "no executable segment");
	return SFRAME_LOAD_OK;
}

/*
 * The executable PT_LOAD segments of the native ELF object in @d, what the
 * kernel computes load biases from and checks a sidecar against; and
 * whether it has its own PT_GNU_SFRAME.
 */
enum sframe_load_status sframe_elf_code(const unsigned char *d, size_t size,
					struct sframe_code *code, char *msg,
					size_t msg_size)
{
	enum sframe_load_status st;
	struct elf_file e;

	memset(code, 0, sizeof(*code));
	st = elf_open(&e, d, size, msg, msg_size);
	if (st == SFRAME_LOAD_OK)
		st = elf_code(&e, code, msg, msg_size);
	elf_close(&e);
	return st;
}

/*
 * An NT_GNU_BUILD_ID note among the notes at [@off, @off + @size) of @e:
 * *@id points into the file, which outlives libelf's handle.
 */
static bool elf_find_build_id(const struct elf_file *e, u64 off, u64 size,
			      const unsigned char **id, size_t *len)
{
	size_t pos = 0, next, name, desc;
	Elf_Data *notes;
	GElf_Nhdr nh;

	if (!elf_in(e, off, size) || !size)
		return false;
	notes = elf_getdata_rawchunk(e->elf, (int64_t)off, size, ELF_T_NHDR);
	if (!notes)
		return false;
	while ((next = gelf_getnote(notes, pos, &nh, &name, &desc))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(e->d + off + name, ELF_NOTE_GNU, 4)) {
			*id = e->d + off + desc;
			*len = nh.n_descsz;
			return true;
		}
		pos = next;
	}
	return false;
}

static bool elf_build_id(const struct elf_file *e, const unsigned char **id,
			 size_t *len)
{
	GElf_Phdr ph;
	GElf_Shdr sh;
	unsigned int i;

	if (e->ehdr.e_type != ET_REL && elf_phdrs_in(e)) {
		for (i = 0; i < e->ehdr.e_phnum; i++) {
			if (gelf_getphdr(e->elf, (int)i, &ph) &&
			    ph.p_type == PT_NOTE &&
			    elf_find_build_id(e, ph.p_offset, ph.p_filesz, id,
					      len))
				return true;
		}
	}
	for (i = 1; i < e->ehdr.e_shnum; i++) {
		if (elf_shdr(e, i, &sh) && sh.sh_type == SHT_NOTE &&
		    elf_find_build_id(e, sh.sh_offset, sh.sh_size, id, len))
			return true;
	}
	return false;
}

/*
 * The NT_GNU_BUILD_ID of the ELF file in @d: from its PT_NOTE segments,
 * where the kernel finds it (an object without section headers still has
 * them), else from its SHT_NOTE sections (gen's sidecars, relocatable,
 * have no program headers).
 */
bool sframe_elf_build_id(const unsigned char *d, size_t size,
			 const unsigned char **id, size_t *len)
{
	char msg[SFRAME_MSG_MAX];
	struct elf_file e;
	bool found;

	found = elf_open(&e, d, size, msg, sizeof(msg)) == SFRAME_LOAD_OK &&
		elf_build_id(&e, id, len);
	elf_close(&e);
	return found;
}
