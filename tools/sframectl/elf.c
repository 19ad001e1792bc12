// SPDX-License-Identifier: GPL-2.0
/*
 * Finding the SFrame section in an ELF file: the .sframe section, or the
 * PT_GNU_SFRAME segment of a stripped object.  Relocatable objects get
 * their .rela.sframe applied the way objdump applies them; a relocation
 * that does not land on an FDE start address is a broken object.
 * Every read of the file is bounds-checked: it may be anything.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframectl.h"

#define EI_CLASS	4
#define EI_DATA		5
#define ELFCLASS64	2
#define ELFDATA2LSB	1
#define ELFDATA2MSB	2
#define ET_REL		1
#define SHT_RELA	4
#define SHN_UNDEF	0
#define SHN_LORESERVE	0xff00
#define EHDR64_SIZE	64
#define SHDR64_SIZE	64
#define PHDR64_SIZE	56
#define SYM64_SIZE	24
#define RELA64_SIZE	24

#define EM_S390		22
#define EM_X86_64	62
#define EM_AARCH64	183

struct elf {
	const unsigned char *d;
	size_t size;
	bool be;
	unsigned int machine;
	unsigned int type;
	u64 shoff;
	unsigned int shnum;
	unsigned int shstrndx;
};

struct elf_shdr {
	u32 name;
	u32 type;
	u64 addr;
	u64 offset;
	u64 size;
	u32 link;
	u32 info;
	u64 entsize;
};

static bool elf_in(const struct elf *e, u64 off, u64 len)
{
	return off <= e->size && len <= e->size - off;
}

static u64 elf_get(const struct elf *e, u64 off, unsigned int bytes)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++) {
		unsigned int shift = e->be ? 8 * (bytes - 1 - i) : 8 * i;

		v |= (u64)e->d[off + i] << shift;
	}
	return v;
}

static void elf_put(unsigned char *p, u64 v, unsigned int bytes, bool be)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[be ? bytes - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static bool elf_shdr(const struct elf *e, unsigned int idx,
		     struct elf_shdr *sh)
{
	u64 off = e->shoff + (u64)idx * SHDR64_SIZE;

	if (idx >= e->shnum || !elf_in(e, off, SHDR64_SIZE))
		return false;
	sh->name = (u32)elf_get(e, off, 4);
	sh->type = (u32)elf_get(e, off + 4, 4);
	sh->addr = elf_get(e, off + 16, 8);
	sh->offset = elf_get(e, off + 24, 8);
	sh->size = elf_get(e, off + 32, 8);
	sh->link = (u32)elf_get(e, off + 40, 4);
	sh->info = (u32)elf_get(e, off + 44, 4);
	sh->entsize = elf_get(e, off + 56, 8);
	return true;
}

static bool elf_name_is(const struct elf *e, const struct elf_shdr *strtab,
			u32 name, const char *want)
{
	size_t len = strlen(want) + 1;

	if (name > strtab->size || len > strtab->size - name ||
	    !elf_in(e, strtab->offset + name, len))
		return false;
	return memcmp(e->d + strtab->offset + name, want, len) == 0;
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

static enum sframe_load_status elf_open(struct elf *e, const unsigned char *d,
					size_t size, char *msg,
					size_t msg_size)
{
	static const unsigned char magic[4] = { 0x7f, 'E', 'L', 'F' };

	e->d = d;
	e->size = size;
	if (size < EHDR64_SIZE || memcmp(d, magic, 4))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
		     "not an ELF file (use --raw for a bare section)");
	if (d[EI_CLASS] != ELFCLASS64)
		return fail(msg, msg_size, SFRAME_LOAD_INVALID, "only 64-bit ELF is supported");
	if (d[EI_DATA] != ELFDATA2LSB && d[EI_DATA] != ELFDATA2MSB)
		return fail(msg, msg_size, SFRAME_LOAD_INVALID, "bad ELF byte order");
	e->be = d[EI_DATA] == ELFDATA2MSB;
	e->type = (unsigned int)elf_get(e, 16, 2);
	e->machine = (unsigned int)elf_get(e, 18, 2);
	e->shoff = elf_get(e, 40, 8);
	e->shnum = (unsigned int)elf_get(e, 60, 2);
	e->shstrndx = (unsigned int)elf_get(e, 62, 2);
	if (e->shnum && !elf_in(e, e->shoff, (u64)e->shnum * SHDR64_SIZE))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID, "ELF section headers out of bounds");
	return SFRAME_LOAD_OK;
}

/* Where a relocation may write: the start field of some FDE. */
static bool reloc_hits_fde_start(const unsigned char *s, size_t size,
				 u64 where, unsigned int bytes)
{
	bool be = s[0] == (SFRAME_MAGIC >> 8);
	struct elf hdr = { .d = s, .size = size, .be = be };
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
		elf_get(&hdr, SFRAME_HDR_FDEOFF, 4);
	num = elf_get(&hdr, SFRAME_HDR_NUM_FDES, 4);
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
	{ EM_X86_64, 1, 8, false },	/* R_X86_64_64 */
	{ EM_X86_64, 2, 4, true },	/* R_X86_64_PC32 */
	{ EM_X86_64, 10, 4, false },	/* R_X86_64_32 */
	{ EM_X86_64, 24, 8, true },	/* R_X86_64_PC64 */
	{ EM_AARCH64, 257, 8, false },	/* R_AARCH64_ABS64 */
	{ EM_AARCH64, 258, 4, false },	/* R_AARCH64_ABS32 */
	{ EM_AARCH64, 260, 8, true },	/* R_AARCH64_PREL64 */
	{ EM_AARCH64, 261, 4, true },	/* R_AARCH64_PREL32 */
	{ EM_S390, 4, 4, false },	/* R_390_32 */
	{ EM_S390, 5, 4, true },	/* R_390_PC32 */
	{ EM_S390, 22, 8, false },	/* R_390_64 */
	{ EM_S390, 23, 8, true },	/* R_390_PC64 */
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

/* Value of symbol @idx: st_value plus its section's address. */
static bool elf_symbol_value(const struct elf *e, const struct elf_shdr *symtab,
			     u64 idx, u64 *value)
{
	struct elf_shdr target;
	u64 off = symtab->offset + idx * SYM64_SIZE;
	unsigned int shndx;

	if (idx >= symtab->size / SYM64_SIZE || !elf_in(e, off, SYM64_SIZE))
		return false;
	shndx = (unsigned int)elf_get(e, off + 6, 2);
	*value = elf_get(e, off + 8, 8);
	if (shndx != SHN_UNDEF && shndx < SHN_LORESERVE) {
		if (!elf_shdr(e, shndx, &target))
			return false;
		*value += target.addr;
	}
	return true;
}

static enum sframe_load_status elf_relocate(struct sframe_input *in,
					    const struct elf *e,
					    const struct elf_shdr *rela,
					    char *msg, size_t msg_size)
{
	struct elf_shdr symtab;
	u64 i, count;

	if (!elf_in(e, rela->offset, rela->size) ||
	    !elf_shdr(e, rela->link, &symtab) ||
	    !elf_in(e, symtab.offset, symtab.size))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID, ".rela.sframe out of bounds");
	if (in->size < SFRAME_HDR_SIZE)
		return fail(msg, msg_size, SFRAME_LOAD_INVALID, "%s", sframe_reason_str(
		     SFRAME_ERR_HEADER_TRUNCATED));

	in->copy = malloc(in->size);
	if (!in->copy)
		return fail(msg, msg_size, SFRAME_LOAD_IO, "out of memory");
	memcpy(in->copy, in->bytes, in->size);
	in->bytes = in->copy;

	count = rela->size / RELA64_SIZE;
	for (i = 0; i < count; i++) {
		u64 off = rela->offset + i * RELA64_SIZE;
		u64 where = elf_get(e, off, 8), info = elf_get(e, off + 8, 8);
		s64 addend = (s64)elf_get(e, off + 16, 8);
		const struct reloc_kind *kind;
		u64 sym, value;

		kind = reloc_kind(e->machine, (unsigned int)(info & 0xffffffff));
		if (!kind)
			return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			     "unsupported relocation type %u at offset 0x%llx",
			     (unsigned int)(info & 0xffffffff),
			     (unsigned long long)where);
		if (where > in->size || kind->bytes > in->size - where ||
		    !reloc_hits_fde_start(in->bytes, in->size, where,
					  kind->bytes))
			return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			     "relocation does not target an FDE start address at offset 0x%llx",
			     (unsigned long long)where);
		if (!elf_symbol_value(e, &symtab, info >> 32, &sym))
			return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			     "relocation symbol out of bounds at offset 0x%llx",
			     (unsigned long long)where);
		value = sym + (u64)addend;
		if (kind->pcrel)
			value -= in->vaddr + where;
		elf_put(in->copy + where, value, kind->bytes, e->be);
		in->relocations++;
	}
	return SFRAME_LOAD_OK;
}

/* The PT_GNU_SFRAME segment, for objects without section headers. */
static enum sframe_load_status elf_from_segment(struct sframe_input *in,
						const struct elf *e, char *msg,
						size_t msg_size)
{
	u64 phoff = elf_get(e, 32, 8);
	unsigned int phnum = (unsigned int)elf_get(e, 56, 2), i;

	if (!elf_in(e, phoff, (u64)phnum * PHDR64_SIZE))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID, "ELF program headers out of bounds");
	for (i = 0; i < phnum; i++) {
		u64 ph = phoff + (u64)i * PHDR64_SIZE;
		u64 off = elf_get(e, ph + 8, 8), len = elf_get(e, ph + 32, 8);

		if (elf_get(e, ph, 4) != SFRAME_PT_GNU_SFRAME)
			continue;
		if (!elf_in(e, off, len))
			return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			     "PT_GNU_SFRAME out of bounds");
		in->bytes = (unsigned char *)e->d + off;
		in->size = len;
		in->vaddr = elf_get(e, ph + 16, 8);
		in->name = ".sframe";
		in->options = SFRAME_SEGMENT_PADDING;
		return SFRAME_LOAD_OK;
	}
	return fail(msg, msg_size, SFRAME_LOAD_INVALID, "no .sframe section or PT_GNU_SFRAME segment");
}

enum sframe_load_status sframe_elf_extract(struct sframe_input *in,
					   char *msg, size_t msg_size)
{
	struct elf_shdr strtab, sh, found = { 0 };
	enum sframe_load_status st;
	unsigned int i, found_idx = 0;
	struct elf e;

	st = elf_open(&e, in->file, in->file_size, msg, msg_size);
	if (st != SFRAME_LOAD_OK)
		return st;
	if (!e.shnum || !elf_shdr(&e, e.shstrndx, &strtab) ||
	    !elf_in(&e, strtab.offset, strtab.size))
		return elf_from_segment(in, &e, msg, msg_size);

	for (i = 1; i < e.shnum && !found_idx; i++) {
		if (!elf_shdr(&e, i, &sh))
			return fail(msg, msg_size, SFRAME_LOAD_INVALID, "ELF section header %u out of bounds", i);
		if (sh.type == SFRAME_SHT_GNU_SFRAME ||
		    elf_name_is(&e, &strtab, sh.name, ".sframe")) {
			found = sh;
			found_idx = i;
		}
	}
	if (!found_idx)
		return elf_from_segment(in, &e, msg, msg_size);
	if (!elf_in(&e, found.offset, found.size))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID, ".sframe section out of bounds");
	in->bytes = in->file + found.offset;
	in->size = found.size;
	in->vaddr = found.addr;
	in->name = ".sframe";
	if (e.type != ET_REL)
		return SFRAME_LOAD_OK;

	for (i = 1; i < e.shnum; i++) {
		if (elf_shdr(&e, i, &sh) && sh.type == SHT_RELA &&
		    sh.info == found_idx)
			return elf_relocate(in, &e, &sh, msg, msg_size);
	}
	return SFRAME_LOAD_OK;
}

/*
 * The executable PT_LOAD segments of the x86-64 ELF object in @d, what the
 * kernel computes load biases from and checks a sidecar against; and
 * whether it has its own PT_GNU_SFRAME.
 */
enum sframe_load_status sframe_elf_code(const unsigned char *d, size_t size,
					struct sframe_code *code, char *msg,
					size_t msg_size)
{
	enum sframe_load_status st;
	unsigned int phnum, i;
	struct elf e;
	u64 phoff;

	memset(code, 0, sizeof(*code));
	st = elf_open(&e, d, size, msg, msg_size);
	if (st != SFRAME_LOAD_OK)
		return st;
	if (e.be || e.machine != EM_X86_64 || (e.type != 2 && e.type != 3))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "not an x86-64 executable or shared object");
	phoff = elf_get(&e, 32, 8);
	phnum = (unsigned int)elf_get(&e, 56, 2);
	if (!elf_in(&e, phoff, (u64)phnum * PHDR64_SIZE))
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "ELF program headers out of bounds");
	for (i = 0; i < phnum; i++) {
		u64 ph = phoff + (u64)i * PHDR64_SIZE;
		u32 type = (u32)elf_get(&e, ph, 4);

		if (type == SFRAME_PT_GNU_SFRAME)
			code->has_sframe = true;
		if (type != 1 || !(elf_get(&e, ph + 4, 4) & 1) ||
		    code->nr == SFRAME_CODE_MAX)
			continue;		/* not PT_LOAD with PF_X */
		code->seg[code->nr].start = elf_get(&e, ph + 16, 8);
		code->seg[code->nr].size = elf_get(&e, ph + 32, 8);
		code->nr++;
	}
	if (!code->nr)
		return fail(msg, msg_size, SFRAME_LOAD_INVALID,
			    "no executable segment");
	return SFRAME_LOAD_OK;
}

/* An NT_GNU_BUILD_ID note among the notes at [@off, @off + @size) of @e. */
static bool elf_find_build_id(const struct elf *e, u64 off, u64 size,
			      const unsigned char **id, size_t *len)
{
	u64 end;

	if (!elf_in(e, off, size))
		return false;
	for (end = off + size; off + 12 <= end;) {
		u64 namesz = elf_get(e, off, 4);
		u64 descsz = elf_get(e, off + 4, 4);
		u64 desc = off + 12 + ((namesz + 3) & ~3ULL);

		if (namesz > end - off - 12 || desc > end ||
		    descsz > end - desc)
			return false;
		if (elf_get(e, off + 8, 4) == 3 && namesz == 4 &&
		    !memcmp(e->d + off + 12, "GNU", 4)) {
			*id = e->d + desc;
			*len = descsz;
			return true;
		}
		off = desc + ((descsz + 3) & ~3ULL);
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
	struct elf_shdr sh;
	unsigned int i, phnum;
	struct elf e;
	u64 phoff;

	if (elf_open(&e, d, size, msg, sizeof(msg)) != SFRAME_LOAD_OK)
		return false;
	phoff = elf_get(&e, 32, 8);
	phnum = (unsigned int)elf_get(&e, 56, 2);
	if (e.type != ET_REL && elf_in(&e, phoff, (u64)phnum * PHDR64_SIZE)) {
		for (i = 0; i < phnum; i++) {
			u64 ph = phoff + (u64)i * PHDR64_SIZE;

			if (elf_get(&e, ph, 4) == 4 &&		/* PT_NOTE */
			    elf_find_build_id(&e, elf_get(&e, ph + 8, 8),
					      elf_get(&e, ph + 32, 8), id, len))
				return true;
		}
	}
	for (i = 1; i < e.shnum; i++) {
		if (elf_shdr(&e, i, &sh) && sh.type == 7 &&	/* SHT_NOTE */
		    elf_find_build_id(&e, sh.offset, sh.size, id, len))
			return true;
	}
	return false;
}
