// SPDX-License-Identifier: GPL-2.0
/*
 * What load and serve need of an object before they hand it a sidecar,
 * read without libelf, because they may be root and the object a user's:
 * its executable segments, whether it has a PT_GNU_SFRAME of its own, and
 * the build ID the module finds in its PT_NOTE segments.  Fixed-size
 * copies out of the file, each offset and size checked first, under the
 * module's limits (kernel/sframe/elf.c), so that the answers are the ones
 * the module computes when the file is mapped.
 */
#include <elf.h>
#include <string.h>

#include "elf_reader.h"

#define ELF_CODE_MAX_PHDRS	64	/* more: not a normal object */
#define ELF_CODE_MAX_NOTES	4096	/* bytes of a PT_NOTE searched */
#define ELF_NOTE_HDR		12	/* namesz, descsz, type */

/* Is [@off, @off + @len) inside a file of @size bytes? */
static bool elf_code_has(size_t size, u64 off, u64 len)
{
	return off <= size && len <= size - off;
}

static u64 elf_note_align(u64 x, u64 align)
{
	return (x + align - 1) & ~(align - 1);
}

/*
 * The NT_GNU_BUILD_ID descriptor among the @len bytes of notes at @buf,
 * each padded to @align (4 or 8), into @code.  A note that runs past the
 * end, or an empty or overlong descriptor, ends the search: the module
 * then finds no build ID either.
 */
static void elf_code_build_id(const u8 *buf, u64 len, u64 align,
			      struct sframe_code *code)
{
	u64 off = 0, name, desc, next;
	u32 hdr[3];

	while (len - off >= ELF_NOTE_HDR) {
		memcpy(hdr, buf + off, sizeof(hdr));
		name = off + ELF_NOTE_HDR;
		desc = elf_note_align(name + hdr[0], align);
		if (desc > len || hdr[1] > len - desc)
			return;
		if (hdr[2] == NT_GNU_BUILD_ID && hdr[0] == sizeof(ELF_NOTE_GNU) &&
		    !memcmp(buf + name, ELF_NOTE_GNU, sizeof(ELF_NOTE_GNU))) {
			if (hdr[1] && hdr[1] <= SFRAME_BUILD_ID_MAX) {
				memcpy(code->build_id, buf + desc, hdr[1]);
				code->build_id_size = hdr[1];
			}
			return;
		}
		next = elf_note_align(desc + hdr[1], align);
		if (next >= len)
			return;
		off = next;
	}
}

/*
 * The program header @ph of the file @d (@size bytes), into @code: false
 * if the module would refuse the file for it.  Until a build ID is found,
 * the module reads the first ELF_CODE_MAX_NOTES bytes of each PT_NOTE,
 * and a read past the end of the file fails the whole object.
 */
static bool elf_code_phdr(const u8 *d, size_t size, const Elf64_Phdr *ph,
			  struct sframe_code *code)
{
	u64 len = ph->p_filesz < ELF_CODE_MAX_NOTES ? ph->p_filesz :
						      ELF_CODE_MAX_NOTES;

	if (ph->p_type == SFRAME_PT_GNU_SFRAME) {
		code->has_sframe = true;
	} else if (ph->p_type == PT_NOTE && !code->build_id_size && len) {
		if (!elf_code_has(size, ph->p_offset, len))
			return false;
		elf_code_build_id(d + ph->p_offset, len,
				  ph->p_align == 8 ? 8 : 4, code);
	} else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
		   code->nr < SFRAME_CODE_MAX) {
		code->seg[code->nr].start = ph->p_vaddr;
		code->seg[code->nr].size = ph->p_filesz;
		code->nr++;
	}
	return true;
}

/*
 * The executable PT_LOAD segments of the native ELF object in @d, what
 * the module computes load biases from and checks a sidecar against;
 * whether it has its own PT_GNU_SFRAME; its build ID.
 */
enum sframe_load_status sframe_elf_code(const unsigned char *d, size_t size,
					struct sframe_code *code, char *msg,
					size_t msg_size)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned int i;

	memset(code, 0, sizeof(*code));
	if (size < sizeof(eh) || memcmp(d, ELFMAG, SELFMAG))
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "not an ELF file");
	memcpy(&eh, d, sizeof(eh));
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh.e_machine != SFRAME_NATIVE_EM ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN))
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "not an " SFRAME_NATIVE_NAME
				       " executable or shared object");
	if (eh.e_phentsize != sizeof(ph) || !eh.e_phnum ||
	    eh.e_phnum > ELF_CODE_MAX_PHDRS)
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "%u program headers of %u bytes: not what the module reads",
				       eh.e_phnum, eh.e_phentsize);
	if (!elf_code_has(size, eh.e_phoff, (u64)eh.e_phnum * sizeof(ph)))
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "ELF program headers out of bounds");
	for (i = 0; i < eh.e_phnum; i++) {
		memcpy(&ph, d + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (!elf_code_phdr(d, size, &ph, code))
			return sframe_elf_fail(msg, msg_size,
					       SFRAME_LOAD_INVALID,
					       "a PT_NOTE past the end of the file");
	}
	if (!code->nr)
		return sframe_elf_fail(msg, msg_size, SFRAME_LOAD_INVALID,
				       "no executable segment");
	return SFRAME_LOAD_OK;
}
