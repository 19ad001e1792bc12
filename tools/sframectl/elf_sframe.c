// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl's ELF reader: an object's SFrame section, the .sframe
 * section or the PT_GNU_SFRAME segment of a stripped object, with a
 * relocatable object's .rela.sframe applied the way objdump applies it.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "elf_reader.h"

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

/* .rela.sframe, applied to a copy of the section, where FDEs start. */
static enum sframe_load_status elf_relocate(struct sframe_input *in,
					    const struct sframe_elf *e,
					    const GElf_Shdr *rela,
					    char *msg, size_t msg_size)
{
	struct sframe_elf_rela r;
	const char *why;

	if (!sframe_elf_rela_read(e, rela, &r))
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       ".rela.sframe out of bounds");
	if (in->size < SFRAME_HDR_SIZE) {
		why = sframe_reason_str(SFRAME_ERR_HEADER_TRUNCATED);
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "%s", why);
	}

	in->copy = malloc(in->size);
	if (!in->copy)
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_IO,
				       "out of memory");
	memcpy(in->copy, in->bytes, in->size);
	in->bytes = in->copy;

	switch (sframe_elf_rela_apply(e, &r, in->vaddr, in->copy, in->size,
				      reloc_hits_fde_start)) {
	case SFRAME_ELF_RELOC_OK:
		in->relocations = (unsigned int)r.count;
		return SFRAME_LOAD_OK;
	case SFRAME_ELF_RELOC_TYPE:
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "unsupported relocation type %u at offset 0x%llx",
				       r.type, (unsigned long long)r.offset);
	case SFRAME_ELF_RELOC_TARGET:
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "relocation does not target an FDE start address at offset 0x%llx",
				       (unsigned long long)r.offset);
	case SFRAME_ELF_RELOC_SYMBOL:
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "relocation symbol out of bounds at offset 0x%llx",
				       (unsigned long long)r.offset);
	default:
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
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

	if (!sframe_elf_phdrs_in(e))
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "ELF program headers out of bounds");
	for (i = 0; i < e->ehdr.e_phnum; i++) {
		if (!gelf_getphdr(e->elf, (int)i, &ph) ||
		    ph.p_type != SFRAME_PT_GNU_SFRAME)
			continue;
		if (!sframe_elf_in(e, ph.p_offset, ph.p_filesz))
			return sframe_elf_fail(msg, msg_size,
					       SFRAME_LOAD_INVALID,
					       "PT_GNU_SFRAME out of bounds");
		in->bytes = (unsigned char *)e->d + ph.p_offset;
		in->size = ph.p_filesz;
		in->vaddr = ph.p_vaddr;
		in->name = ".sframe";
		in->options = SFRAME_SEGMENT_PADDING;
		return SFRAME_LOAD_OK;
	}
	return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
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
	if (!sframe_elf_in(e, found.sh_offset, found.sh_size))
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       ".sframe section out of bounds");
	in->bytes = in->file + found.sh_offset;
	in->size = found.sh_size;
	in->vaddr = found.sh_addr;
	in->name = ".sframe";
	if (e->ehdr.e_type != ET_REL)
		return SFRAME_LOAD_OK;

	/* The first: the assembler writes one. */
	if (sframe_elf_next_rela(e, elf_ndxscn(scn), &i, &rela))
		return elf_relocate(in, e, &rela, msg, msg_size);
	return SFRAME_LOAD_OK;
}

enum sframe_load_status sframe_elf_extract(struct sframe_input *in,
					   char *msg, size_t msg_size)
{
	enum sframe_load_status st;
	struct sframe_elf e;

	st = sframe_elf_open_64(&e, in->file, in->file_size, msg, msg_size);
	if (st == SFRAME_LOAD_OK)
		st = elf_extract(in, &e, msg, msg_size);
	sframe_elf_close(&e);
	return st;
}
