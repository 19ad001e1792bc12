// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl's ELF reader, through libelf, the one place that opens ELF:
 * an object's SFrame section (the .sframe section, or the PT_GNU_SFRAME
 * segment of a stripped object, with a relocatable object's .rela.sframe
 * applied the way objdump applies it), its executable segments, its build
 * ID, how far an image in memory reaches, and for gen a section by name
 * and a relocatable object's relocations of it.  The file may be anything:
 * every offset and size it gives is checked against the file before
 * libelf is asked to use it.
 */
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframectl.h"

static bool elf_in(const struct sframe_elf *e, u64 off, u64 len)
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

/*
 * How many section headers there are: e_shnum, or with more than it can
 * count (a relocatable object with a section per function), the first
 * header's sh_size, which libelf reads.
 */
static size_t elf_shnum(const struct sframe_elf *e)
{
	size_t n;

	return elf_getshdrnum(e->elf, &n) ? 0 : n;
}

static bool elf_shdr(const struct sframe_elf *e, size_t idx, GElf_Shdr *sh)
{
	Elf_Scn *scn;

	if (idx >= elf_shnum(e))
		return false;
	scn = elf_getscn(e->elf, idx);
	return scn && gelf_getshdr(scn, sh);
}

/* The program headers are in the file: gelf_getphdr() may read them. */
static bool elf_phdrs_in(const struct sframe_elf *e)
{
	return elf_in(e, e->ehdr.e_phoff,
		      (u64)e->ehdr.e_phnum * sizeof(Elf64_Phdr));
}

void sframe_elf_close(struct sframe_elf *e)
{
	if (e->elf)
		elf_end(e->elf);
	e->elf = NULL;
}

/* libelf's handle on @e's file and its header, once it is known to be ELF. */
static enum sframe_load_status elf_read_header(struct sframe_elf *e,
					       char *msg, size_t msg_size)
{
	elf_version(EV_CURRENT);
	e->elf = elf_memory((char *)e->d, e->size);
	if (!e->elf || !gelf_getehdr(e->elf, &e->ehdr))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "bad ELF header: %s", elf_errmsg(-1));
	e->be = e->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	return SFRAME_LOAD_OK;
}

/*
 * Open the ELF file at @d for a reader that checks its class, byte order
 * and machine itself (gen): only that it is ELF and that libelf reads its
 * header.  Close with sframe_elf_close(), whatever it returns.
 */
enum sframe_load_status sframe_elf_open(struct sframe_elf *e,
					const unsigned char *d, size_t size,
					char *msg, size_t msg_size)
{
	memset(e, 0, sizeof(*e));
	e->d = d;
	e->size = size;
	if (size < SELFMAG || memcmp(d, ELFMAG, SELFMAG))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "not an ELF file");
	return elf_read_header(e, msg, msg_size);
}

/*
 * Open the 64-bit ELF file at @d.  The identification bytes are checked
 * first, so that each kind of file that is not one gets its own reason
 * (libelf would take any of them for ELF_K_NONE); the section header
 * table before libelf reads it, since libelf would only find no sections.
 * Close with sframe_elf_close(), whatever it returns.
 */
static enum sframe_load_status elf_open(struct sframe_elf *e,
					const unsigned char *d, size_t size,
					char *msg, size_t msg_size)
{
	enum sframe_load_status st;

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
	st = elf_read_header(e, msg, msg_size);
	if (st != SFRAME_LOAD_OK)
		return st;
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

/* Are the bytes of section @sh in the file, and not SHT_NOBITS? */
bool sframe_elf_section_in(const struct sframe_elf *e, const GElf_Shdr *sh)
{
	return sh->sh_type != SHT_NOBITS &&
	       elf_in(e, sh->sh_offset, sh->sh_size);
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

/* Value of symbol @idx in @syms: st_value plus its section's address. */
static bool elf_symbol_value(const struct sframe_elf *e, Elf_Data *syms,
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
static bool elf_table(const struct sframe_elf *e, const GElf_Shdr *sh,
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

/*
 * The next SHT_RELA section after section *@i that relocates section
 * @target: its index in *@i, its header in *@rela.
 */
static bool elf_next_rela(const struct sframe_elf *e, size_t target,
			  size_t *i, GElf_Shdr *rela)
{
	while (++*i < elf_shnum(e)) {
		if (elf_shdr(e, *i, rela) && rela->sh_type == SHT_RELA &&
		    rela->sh_info == target)
			return true;
	}
	return false;
}

/* One SHT_RELA section's relocations and symbols, and where one failed. */
struct elf_rela {
	Elf_Data *rels, *syms;
	u64 count;
	u64 offset;			/* the failing one's r_offset */
	unsigned int type;		/* and type */
};

static bool elf_rela_read(const struct sframe_elf *e, const GElf_Shdr *rela,
			  struct elf_rela *r)
{
	GElf_Shdr symtab;

	r->count = rela->sh_size / sizeof(Elf64_Rela);
	return elf_table(e, rela, ELF_T_RELA, &r->rels) &&
	       elf_shdr(e, rela->sh_link, &symtab) &&
	       elf_table(e, &symtab, ELF_T_SYM, &r->syms);
}

/*
 * Apply @r to @buf, the @size bytes of the section at @addr, in the
 * file's byte order: each relocation inside the section, and, when
 * @allowed is given, only where it allows.
 */
static enum sframe_elf_reloc_error
elf_rela_apply(const struct sframe_elf *e, struct elf_rela *r, u64 addr,
	       unsigned char *buf, u64 size,
	       bool (*allowed)(const unsigned char *buf, u64 where,
			       unsigned int bytes))
{
	u64 i;

	for (i = 0; i < r->count; i++) {
		const struct reloc_kind *kind;
		u64 value;
		GElf_Rela rel;

		if (!gelf_getrela(r->rels, (int)i, &rel))
			return SFRAME_ELF_RELOC_ENTRY;
		r->offset = rel.r_offset;
		r->type = (unsigned int)GELF_R_TYPE(rel.r_info);
		kind = reloc_kind(e->ehdr.e_machine, r->type);
		if (!kind)
			return SFRAME_ELF_RELOC_TYPE;
		if (r->offset > size || kind->bytes > size - r->offset ||
		    (allowed && !allowed(buf, r->offset, kind->bytes)))
			return SFRAME_ELF_RELOC_TARGET;
		if (!elf_symbol_value(e, r->syms, GELF_R_SYM(rel.r_info),
				      &value))
			return SFRAME_ELF_RELOC_SYMBOL;
		value += (u64)rel.r_addend;
		if (kind->pcrel)
			value -= addr + r->offset;
		elf_put(buf + r->offset, value, kind->bytes, e->be);
	}
	return SFRAME_ELF_RELOC_OK;
}

/*
 * Apply to @buf, the bytes of section @scn (header @sh), which the caller
 * may write, the relocations every SHT_RELA section of the relocatable
 * object @e holds for it, placed as objdump places them: each symbol's
 * section at its sh_addr.
 */
enum sframe_elf_reloc_error sframe_elf_relocate(const struct sframe_elf *e,
						Elf_Scn *scn,
						const GElf_Shdr *sh,
						unsigned char *buf)
{
	enum sframe_elf_reloc_error err;
	struct elf_rela r;
	GElf_Shdr rela;
	size_t i = 0;

	while (elf_next_rela(e, elf_ndxscn(scn), &i, &rela)) {
		if (!elf_rela_read(e, &rela, &r))
			return SFRAME_ELF_RELOC_TABLE;
		err = elf_rela_apply(e, &r, sh->sh_addr, buf, sh->sh_size,
				     NULL);
		if (err)
			return err;
	}
	return SFRAME_ELF_RELOC_OK;
}

/* .rela.sframe, applied to a copy of the section, where FDEs start. */
static enum sframe_load_status elf_relocate(struct sframe_input *in,
					    const struct sframe_elf *e,
					    const GElf_Shdr *rela,
					    char *msg, size_t msg_size)
{
	struct elf_rela r;

	if (!elf_rela_read(e, rela, &r))
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

	switch (elf_rela_apply(e, &r, in->vaddr, in->copy, in->size,
			       reloc_hits_fde_start)) {
	case SFRAME_ELF_RELOC_OK:
		in->relocations = (unsigned int)r.count;
		return SFRAME_LOAD_OK;
	case SFRAME_ELF_RELOC_TYPE:
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "unsupported relocation type %u at offset 0x%llx",
			    r.type, (unsigned long long)r.offset);
	case SFRAME_ELF_RELOC_TARGET:
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "relocation does not target an FDE start address at offset 0x%llx",
			    (unsigned long long)r.offset);
	case SFRAME_ELF_RELOC_SYMBOL:
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "relocation symbol out of bounds at offset 0x%llx",
			    (unsigned long long)r.offset);
	default:
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    ".rela.sframe out of bounds");
	}
}

/* The PT_GNU_SFRAME segment, for objects without section headers. */
static enum sframe_load_status elf_from_segment(struct sframe_input *in,
						const struct sframe_elf *e,
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
					   const struct sframe_elf *e,
					   char *msg, size_t msg_size)
{
	GElf_Shdr found, rela;
	Elf_Scn *scn;
	size_t i = 0;

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

	/* The first: the assembler writes one. */
	if (elf_next_rela(e, elf_ndxscn(scn), &i, &rela))
		return elf_relocate(in, e, &rela, msg, msg_size);
	return SFRAME_LOAD_OK;
}

enum sframe_load_status sframe_elf_extract(struct sframe_input *in,
					   char *msg, size_t msg_size)
{
	enum sframe_load_status st;
	struct sframe_elf e;

	st = elf_open(&e, in->file, in->file_size, msg, msg_size);
	if (st == SFRAME_LOAD_OK)
		st = elf_extract(in, &e, msg, msg_size);
	sframe_elf_close(&e);
	return st;
}

static enum sframe_load_status elf_code(const struct sframe_elf *e,
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
	struct sframe_elf e;

	memset(code, 0, sizeof(*code));
	st = elf_open(&e, d, size, msg, msg_size);
	if (st == SFRAME_LOAD_OK)
		st = elf_code(&e, code, msg, msg_size);
	sframe_elf_close(&e);
	return st;
}

/*
 * How far the headers and loadable segments of @e reach: the end of its
 * program headers, of its PT_LOAD segments and of its section headers,
 * which libelf reads to find .eh_frame.
 */
static bool elf_reach(const struct sframe_elf *e, size_t *end)
{
	const GElf_Ehdr *eh = &e->ehdr;
	GElf_Phdr ph;
	unsigned int i;

	if (e->be || eh->e_machine != SFRAME_NATIVE_EM || !elf_phdrs_in(e))
		return false;
	*end = eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr);
	for (i = 0; i < eh->e_phnum; i++) {
		if (gelf_getphdr(e->elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    ph.p_offset + ph.p_filesz > *end)
			*end = ph.p_offset + ph.p_filesz;
	}
	if (eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize > *end)
		*end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	return true;
}

/*
 * The size in *@end of the native ELF image mapped at @d, which nothing
 * else tells (the vDSO every process maps).  libelf is told @max bytes
 * and reads only headers, so false unless its headers lie in them; its
 * segments may claim more, which is the caller's to refuse.
 */
bool sframe_elf_extent(const unsigned char *d, size_t max, size_t *end)
{
	char msg[SFRAME_MSG_MAX];
	struct sframe_elf e;
	bool found;

	found = elf_open(&e, d, max, msg, sizeof(msg)) == SFRAME_LOAD_OK &&
		elf_reach(&e, end);
	sframe_elf_close(&e);
	return found;
}

/*
 * An NT_GNU_BUILD_ID note among the notes at [@off, @off + @size) of @e:
 * *@id points into the file, which outlives libelf's handle.
 */
static bool elf_find_build_id(const struct sframe_elf *e, u64 off, u64 size,
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

static bool elf_build_id(const struct sframe_elf *e, const unsigned char **id,
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
	for (i = 1; i < elf_shnum(e); i++) {
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
	struct sframe_elf e;
	bool found;

	found = elf_open(&e, d, size, msg, sizeof(msg)) == SFRAME_LOAD_OK &&
		elf_build_id(&e, id, len);
	sframe_elf_close(&e);
	return found;
}
