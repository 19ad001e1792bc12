// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl's ELF reader: apply a relocatable object's SHT_RELA
 * relocations to a copy of one of its sections, as objdump places them
 * (each symbol's section at its sh_addr), for the data relocations of
 * x86-64, AArch64 and s390x.
 */
#include <gelf.h>
#include <string.h>

#include "elf_reader.h"

static void elf_put(unsigned char *p, u64 v, unsigned int bytes, bool be)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		p[be ? bytes - 1 - i : i] = (unsigned char)(v >> (8 * i));
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
		if (!sframe_elf_shdr(e, sym.st_shndx, &target))
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
	if (!sframe_elf_in(e, sh->sh_offset, sh->sh_size))
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
bool sframe_elf_next_rela(const struct sframe_elf *e, size_t target,
			  size_t *i, GElf_Shdr *rela)
{
	while (++*i < sframe_elf_shnum(e)) {
		if (sframe_elf_shdr(e, *i, rela) && rela->sh_type == SHT_RELA &&
		    rela->sh_info == target)
			return true;
	}
	return false;
}

bool sframe_elf_rela_read(const struct sframe_elf *e, const GElf_Shdr *rela,
			  struct sframe_elf_rela *r)
{
	GElf_Shdr symtab;

	r->count = rela->sh_size / sizeof(Elf64_Rela);
	return elf_table(e, rela, ELF_T_RELA, &r->rels) &&
	       sframe_elf_shdr(e, rela->sh_link, &symtab) &&
	       elf_table(e, &symtab, ELF_T_SYM, &r->syms);
}

/*
 * Apply @r to @buf, the @size bytes of the section at @addr, in the
 * file's byte order: each relocation inside the section, and, when
 * @allowed is given, only where it allows.
 */
enum sframe_elf_reloc_error
sframe_elf_rela_apply(const struct sframe_elf *e, struct sframe_elf_rela *r,
		      u64 addr, unsigned char *buf, u64 size,
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
	struct sframe_elf_rela r;
	GElf_Shdr rela;
	size_t i = 0;

	while (sframe_elf_next_rela(e, elf_ndxscn(scn), &i, &rela)) {
		if (!sframe_elf_rela_read(e, &rela, &r))
			return SFRAME_ELF_RELOC_TABLE;
		err = sframe_elf_rela_apply(e, &r, sh->sh_addr, buf,
					    sh->sh_size, NULL);
		if (err)
			return err;
	}
	return SFRAME_ELF_RELOC_OK;
}
