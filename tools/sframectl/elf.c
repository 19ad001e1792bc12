// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl's ELF reader, through libelf, where it reads whole ELF files
 * (gen, which runs confined in the service; files root names; the vDSO):
 * opening a file, its sections by name or index, its build ID and how far
 * an image in memory reaches (its relocations: elf_reloc.c; its SFrame
 * section: elf_sframe.c).  An object's code and build ID, which root
 * reads of any user's file, are elf_code.c's, without libelf.  The file
 * may be anything: every offset and size it gives is checked against the
 * file before libelf is asked to use it.
 */
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_reader.h"

/* Say why in @msg (@msg_size bytes); @status. */
enum sframe_load_status sframe_elf_fail(char *msg, size_t msg_size,
				       enum sframe_load_status status,
				       const char *fmt, ...)
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
size_t sframe_elf_shnum(const struct sframe_elf *e)
{
	size_t n;

	return elf_getshdrnum(e->elf, &n) ? 0 : n;
}

bool sframe_elf_shdr(const struct sframe_elf *e, size_t idx, GElf_Shdr *sh)
{
	Elf_Scn *scn;

	if (idx >= sframe_elf_shnum(e))
		return false;
	scn = elf_getscn(e->elf, idx);
	return scn && gelf_getshdr(scn, sh);
}

/* The program headers are in the file: gelf_getphdr() may read them. */
bool sframe_elf_phdrs_in(const struct sframe_elf *e)
{
	return sframe_elf_in(e, e->ehdr.e_phoff,
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
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
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
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
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
enum sframe_load_status sframe_elf_open_64(struct sframe_elf *e,
					   const unsigned char *d, size_t size,
					   char *msg, size_t msg_size)
{
	enum sframe_load_status st;

	memset(e, 0, sizeof(*e));
	e->d = d;
	e->size = size;
	if (size < sizeof(Elf64_Ehdr) || memcmp(d, ELFMAG, SELFMAG))
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "not an ELF file (use --raw for a bare section)");
	if (d[EI_CLASS] != ELFCLASS64)
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "only 64-bit ELF is supported");
	if (d[EI_DATA] != ELFDATA2LSB && d[EI_DATA] != ELFDATA2MSB)
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "bad ELF byte order");
	/* libelf reads no other version: say so, not that libelf failed. */
	if (d[EI_VERSION] != EV_CURRENT)
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "bad ELF version");
	st = elf_read_header(e, msg, msg_size);
	if (st != SFRAME_LOAD_OK)
		return st;
	if (e->ehdr.e_shnum &&
	    !sframe_elf_in(e, e->ehdr.e_shoff,
			   (u64)e->ehdr.e_shnum * sizeof(Elf64_Shdr)))
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
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
	       sframe_elf_in(e, sh->sh_offset, sh->sh_size);
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

	if (e->be || eh->e_machine != SFRAME_NATIVE_EM ||
	    !sframe_elf_phdrs_in(e))
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

	found = sframe_elf_open_64(&e, d, max, msg, sizeof(msg)) ==
		SFRAME_LOAD_OK &&
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

	if (!sframe_elf_in(e, off, size) || !size)
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

	if (e->ehdr.e_type != ET_REL && sframe_elf_phdrs_in(e)) {
		for (i = 0; i < e->ehdr.e_phnum; i++) {
			if (gelf_getphdr(e->elf, (int)i, &ph) &&
			    ph.p_type == PT_NOTE &&
			    elf_find_build_id(e, ph.p_offset, ph.p_filesz, id,
					      len))
				return true;
		}
	}
	for (i = 1; i < sframe_elf_shnum(e); i++) {
		if (sframe_elf_shdr(e, i, &sh) && sh.sh_type == SHT_NOTE &&
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

	found = sframe_elf_open_64(&e, d, size, msg, sizeof(msg)) ==
		SFRAME_LOAD_OK &&
		elf_build_id(&e, id, len);
	sframe_elf_close(&e);
	return found;
}
