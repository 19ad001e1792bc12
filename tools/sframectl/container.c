// SPDX-License-Identifier: GPL-2.0
/*
 * The sidecar file sframectl gen writes and sframectl serve keeps in its
 * cache: a minimal ELF object around a section, with the build ID note
 * of the object it was made for.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sframe/encode.h>

#include "sframectl.h"

/* ELF64 constants of the container gen writes. */
#define GEN_EHDR_SIZE		64
#define GEN_SHDR_SIZE		64
#define GEN_SFRAME_ALIGN	8
static const char gen_shstrtab[] = "\0.sframe\0.shstrtab\0.note.gnu.build-id";
#define GEN_NAME_SFRAME		1
#define GEN_NAME_SHSTRTAB	9
#define GEN_NAME_BUILD_ID	19

static void put_shdr(u8 *p, u32 name, u32 type, u64 flags, u64 addr,
		     u64 offset, u64 size, u64 align)
{
	sframe_put_le(p, name, 4);
	sframe_put_le(p + 4, type, 4);
	sframe_put_le(p + 8, flags, 8);
	sframe_put_le(p + 16, addr, 8);
	sframe_put_le(p + 24, offset, 8);
	sframe_put_le(p + 32, size, 8);
	sframe_put_le(p + 48, align, 8);
}

/*
 * The output file, a minimal relocatable ELF64 object of @machine (x86-64
 * or AArch64, little-endian as the section is): @sec as its
 * .sframe section at address @vaddr (where its PC-relative starts assume
 * it is), the input's build ID note, by which sframectl load tells
 * whether a sidecar is for the file it is given, and the .shstrtab
 * naming them.
 */
u8 *sframe_container(const u8 *sec, size_t size, u16 machine, u64 vaddr,
		     const u8 *note, size_t note_size, size_t *out_size)
{
	size_t note_off = (GEN_EHDR_SIZE + size + 3) & ~(size_t)3;
	size_t strtab = note_off + note_size;
	size_t shoff = (strtab + sizeof(gen_shstrtab) + 7) & ~(size_t)7;
	unsigned int nsec = note_size ? 4 : 3;
	u8 *p;

	*out_size = shoff + nsec * GEN_SHDR_SIZE;
	p = calloc(1, *out_size);
	if (!p)
		return NULL;
	memcpy(p, ELFMAG, SELFMAG);
	p[EI_CLASS] = ELFCLASS64;
	p[EI_DATA] = ELFDATA2LSB;
	p[EI_VERSION] = EV_CURRENT;
	sframe_put_le(p + 16, ET_REL, 2);
	sframe_put_le(p + 18, machine, 2);
	sframe_put_le(p + 20, EV_CURRENT, 4);
	sframe_put_le(p + 40, shoff, 8);
	sframe_put_le(p + 52, GEN_EHDR_SIZE, 2);
	sframe_put_le(p + 58, GEN_SHDR_SIZE, 2);
	sframe_put_le(p + 60, nsec, 2);
	sframe_put_le(p + 62, 2, 2);
	memcpy(p + GEN_EHDR_SIZE, sec, size);
	if (note_size)
		memcpy(p + note_off, note, note_size);
	memcpy(p + strtab, gen_shstrtab, sizeof(gen_shstrtab));
	put_shdr(p + shoff + GEN_SHDR_SIZE, GEN_NAME_SFRAME,
		 SFRAME_SHT_GNU_SFRAME, SHF_ALLOC, vaddr, GEN_EHDR_SIZE, size,
		 GEN_SFRAME_ALIGN);
	put_shdr(p + shoff + 2 * GEN_SHDR_SIZE, GEN_NAME_SHSTRTAB, SHT_STRTAB,
		 0, 0, strtab, sizeof(gen_shstrtab), 1);
	if (note_size)
		put_shdr(p + shoff + 3 * GEN_SHDR_SIZE, GEN_NAME_BUILD_ID,
			 SHT_NOTE, SHF_ALLOC, 0, note_off, note_size, 4);
	return p;
}
