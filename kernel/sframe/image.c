// SPDX-License-Identifier: GPL-2.0
/*
 * Read ELF data that lies in kernel memory: the build ID in a buffer of
 * notes (from a file or an image), and a whole image of this machine (the
 * vDSO): its build ID and its one executable segment.  Nothing in it is
 * trusted: every offset and size is checked against the buffer first.
 */
#include <linux/elf.h>
#include <linux/errno.h>
#include <linux/string.h>

#include <sframe/arch.h>
#include <sframe/ioctl.h>
#include "image.h"

#define SFRAME_NOTE_GNU		"GNU"
#define SFRAME_NT_GNU_BUILD_ID	3	/* not in every kernel's uapi elf.h */
#define SFRAME_NOTE_HDR		12	/* namesz, descsz, type */

/* Is [off, off + len) inside an image of @size bytes? */
static bool sframe_image_has(size_t size, u64 off, u64 len)
{
	return off <= size && len <= size - off;
}

/**
 * sframe_note_build_id() - find the build ID among notes
 * @buf: the notes
 * @len: their length in bytes
 * @align: what each note is padded to (4 or 8)
 * @id: set to the NT_GNU_BUILD_ID descriptor, pointing into @buf
 * @size: set to the descriptor's length
 *
 * The NT_GNU_BUILD_ID descriptor among the @len bytes of notes at @buf,
 * each padded to @align.
 *
 * Return: 0 with *@id pointing into @buf; -ENOENT if there is none;
 * -ENOEXEC if a note runs past the end or the descriptor is empty or
 * longer than SFRAME_BUILD_ID_MAX.
 */
int sframe_note_build_id(const u8 *buf, u64 len, u64 align, const u8 **id,
			 u32 *size)
{
	u64 off = 0;

	while (len - off >= SFRAME_NOTE_HDR) {
		u32 hdr[3];
		u64 name, desc, next;

		memcpy(hdr, buf + off, sizeof(hdr));
		name = off + SFRAME_NOTE_HDR;
		/*
		 * Name and descriptor each start aligned (@buf is, in a
		 * segment of that alignment): with 8, "GNU" pads to 16.
		 * u32 sizes in u64 arithmetic: no overflow here.
		 */
		desc = ALIGN(name + hdr[0], align);
		next = ALIGN(desc + hdr[1], align);
		if (desc > len || hdr[1] > len - desc)
			return -ENOEXEC;
		if (hdr[2] == SFRAME_NT_GNU_BUILD_ID &&
		    hdr[0] == sizeof(SFRAME_NOTE_GNU) &&
		    !memcmp(buf + name, SFRAME_NOTE_GNU,
			    sizeof(SFRAME_NOTE_GNU))) {
			if (!hdr[1] || hdr[1] > SFRAME_BUILD_ID_MAX)
				return -ENOEXEC;
			*id = buf + desc;
			*size = hdr[1];
			return 0;
		}
		if (next >= len)
			break;
		off = next;
	}
	return -ENOENT;
}

/* Check the ELF header; 0, or -ENOEXEC. */
static int sframe_image_ehdr(const void *data, size_t size,
			     struct elf64_hdr *eh)
{
	if (size < sizeof(*eh))
		return -ENOEXEC;
	memcpy(eh, data, sizeof(*eh));
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != sframe_arch_native.elf_machine || eh->e_type != ET_DYN ||
	    eh->e_phentsize != sizeof(struct elf64_phdr) ||
	    !eh->e_phnum || eh->e_phnum > SFRAME_IMAGE_MAX_PHDRS ||
	    !sframe_image_has(size, eh->e_phoff,
			      (u64)eh->e_phnum * sizeof(struct elf64_phdr)))
		return -ENOEXEC;
	return 0;
}

/**
 * sframe_image_parse() - read an ELF image held in kernel memory
 * @data: the image
 * @size: its length in bytes
 * @img: filled in; img->build_id points into @data
 *
 * Fill *@img from the @size bytes at @data, every offset and size checked
 * against them first.
 *
 * Return: 0; -ENOEXEC if they are not a 64-bit shared object of this
 * machine whose loadable segments all keep their image offsets (the vDSO
 * is mapped as one block) with exactly one executable segment, or if a
 * header or note lies outside them; -ENOENT if the image has no build ID.
 */
int sframe_image_parse(const void *data, size_t size, struct sframe_image *img)
{
	const u8 *d = data;
	struct elf64_hdr eh;
	bool have_base = false;
	unsigned int i, nr_code = 0;
	int ret, note = -ENOENT;

	memset(img, 0, sizeof(*img));
	ret = sframe_image_ehdr(data, size, &eh);
	if (ret)
		return ret;
	for (i = 0; i < eh.e_phnum; i++) {
		struct elf64_phdr ph;

		memcpy(&ph, d + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_LOAD && ph.p_type != PT_NOTE)
			continue;
		if (!sframe_image_has(size, ph.p_offset, ph.p_filesz))
			return -ENOEXEC;
		if (ph.p_type == PT_NOTE) {
			if (note)
				note = sframe_note_build_id(d + ph.p_offset,
							    ph.p_filesz,
							    sframe_note_align(&ph),
							    &img->build_id,
							    &img->build_id_size);
			if (note == -ENOEXEC)
				return note;
			continue;
		}
		if (have_base && ph.p_vaddr - ph.p_offset != img->link_base)
			return -ENOEXEC;
		img->link_base = ph.p_vaddr - ph.p_offset;
		have_base = true;
		if (ph.p_flags & PF_X) {
			img->code = (struct sframe_span){
				.start = ph.p_vaddr, .size = ph.p_filesz,
			};
			nr_code++;
		}
	}
	if (nr_code != 1)
		return -ENOEXEC;
	return note;
}
