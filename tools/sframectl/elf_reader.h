/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of sframectl's ELF reader share among themselves
 * (elf.c, elf_reloc.c, elf_sframe.c); its users see sframectl.h.
 */
#ifndef _SFRAMECTL_ELF_READER_H
#define _SFRAMECTL_ELF_READER_H

#include "sframectl.h"

/* Are [@off, @off + @len) within @e's file? */
static inline bool sframe_elf_in(const struct sframe_elf *e, u64 off, u64 len)
{
	return off <= e->size && len <= e->size - off;
}

__printf(4, 5)
enum sframe_load_status sframe_elf_fail(char *msg, size_t msg_size,
				       enum sframe_load_status status,
				       const char *fmt, ...);
enum sframe_load_status sframe_elf_open_64(struct sframe_elf *e,
					   const unsigned char *d, size_t size,
					   char *msg, size_t msg_size);
size_t sframe_elf_shnum(const struct sframe_elf *e);
bool sframe_elf_shdr(const struct sframe_elf *e, size_t idx, GElf_Shdr *sh);
bool sframe_elf_phdrs_in(const struct sframe_elf *e);

/* One SHT_RELA section's relocations and symbols, and where one failed. */
struct sframe_elf_rela {
	Elf_Data *rels, *syms;
	u64 count;
	u64 offset;			/* the failing one's r_offset */
	unsigned int type;		/* and type */
};

bool sframe_elf_next_rela(const struct sframe_elf *e, size_t target,
			  size_t *i, GElf_Shdr *rela);
bool sframe_elf_rela_read(const struct sframe_elf *e, const GElf_Shdr *rela,
			  struct sframe_elf_rela *r);
enum sframe_elf_reloc_error
sframe_elf_rela_apply(const struct sframe_elf *e, struct sframe_elf_rela *r,
		      u64 addr, unsigned char *buf, u64 size,
		      bool (*allowed)(const unsigned char *buf, u64 where,
				      unsigned int bytes));

#endif /* _SFRAMECTL_ELF_READER_H */
