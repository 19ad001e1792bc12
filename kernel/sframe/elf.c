// SPDX-License-Identifier: GPL-2.0
/*
 * The ELF headers of a mapped file, read through a reader and trusted in
 * nothing: its executable segments (for load biases), its
 * NT_GNU_BUILD_ID note and where its PT_GNU_SFRAME segment lies.
 */
#include <linux/elf.h>
#include <linux/slab.h>

#include "cache.h"
#include "image.h"

#define SFRAME_MAX_PHDRS	64	/* more program headers: not a normal object */
#define SFRAME_MAX_NOTES	4096	/* bytes of a PT_NOTE segment searched */

static bool sframe_elf_header_ok(const struct elf64_hdr *e)
{
	return !memcmp(e->e_ident, ELFMAG, SELFMAG) &&
	       e->e_ident[EI_CLASS] == ELFCLASS64 &&
	       e->e_ident[EI_DATA] == ELFDATA2LSB &&
	       e->e_machine == sframe_arch_native.elf_machine &&
	       (e->e_type == ET_EXEC || e->e_type == ET_DYN) &&
	       e->e_phentsize == sizeof(struct elf64_phdr) &&
	       e->e_phnum && e->e_phnum <= SFRAME_MAX_PHDRS;
}

static int sframe_elf_notes(struct sframe_reader *rd, struct sframe_object *obj,
			    const struct elf64_phdr *ph)
{
	size_t len = min_t(u64, ph->p_filesz, SFRAME_MAX_NOTES);
	const u8 *id;
	u8 *buf;
	u32 size;
	int ret;

	if (obj->build_id_size || !len)
		return 0;
	buf = kmalloc(len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = rd->read(rd, buf, len, ph->p_offset);
	/* A malformed note just means no build ID: sidecars bound to one fail. */
	if (!ret && !sframe_note_build_id(buf, len, sframe_note_align(ph), &id,
					  &size)) {
		memcpy(obj->build_id, id, size);
		obj->build_id_size = size;
	}
	kfree(buf);
	return ret;
}

/**
 * sframe_elf_parse() - read the ELF headers of a file
 * @rd: reads the file
 * @elf: filled in: where the PT_GNU_SFRAME segment lies, and in elf->obj
 *	(the caller's) the executable PT_LOAD segments (SFRAME_MAX_LOADS at
 *	most) and the NT_GNU_BUILD_ID note
 *
 * Fill @elf from the file behind @rd.  A malformed note just means no
 * build ID.
 *
 * Return: 0; -ENOEXEC if the file is not a 64-bit ELF executable or
 * shared object of this machine; -ENOMEM; or the reader's error.
 */
int sframe_elf_parse(struct sframe_reader *rd, struct sframe_elf *elf)
{
	struct sframe_object *obj = elf->obj;
	struct elf64_phdr *phdrs;
	struct elf64_hdr ehdr;
	unsigned int i;
	int ret;

	ret = rd->read(rd, &ehdr, sizeof(ehdr), 0);
	if (ret)
		return ret;
	if (!sframe_elf_header_ok(&ehdr))
		return -ENOEXEC;
	phdrs = kmalloc_array(ehdr.e_phnum, sizeof(*phdrs), GFP_KERNEL);
	if (!phdrs)
		return -ENOMEM;
	ret = rd->read(rd, phdrs, ehdr.e_phnum * sizeof(*phdrs), ehdr.e_phoff);
	for (i = 0; !ret && i < ehdr.e_phnum; i++) {
		const struct elf64_phdr *ph = &phdrs[i];

		if (ph->p_type == SFRAME_PT_GNU_SFRAME) {
			elf->has_sframe = true;
			elf->sframe_offset = ph->p_offset;
			elf->sframe_vaddr = ph->p_vaddr;
			elf->sframe_size = ph->p_filesz;
		} else if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
			   obj->nr_loads < SFRAME_MAX_LOADS) {
			obj->loads[obj->nr_loads++] = (struct sframe_load_seg){
				.offset = ph->p_offset, .vaddr = ph->p_vaddr,
				.filesz = ph->p_filesz,
			};
		} else if (ph->p_type == PT_NOTE) {
			ret = sframe_elf_notes(rd, obj, ph);
		}
	}
	kfree(phdrs);
	return ret;
}

/**
 * sframe_object_bias() - the load bias of a mapping of an object
 * @obj: the object
 * @start: the mapping's start address
 * @pgoff: the file page the mapping starts at
 * @bias: set to the load bias, when there is one
 *
 * Return: true if the mapping starts inside an executable segment of
 * @obj, and *@bias is then set; false otherwise.
 */
bool sframe_object_bias(const struct sframe_object *obj, u64 start,
			u64 pgoff, u64 *bias)
{
	u64 off = pgoff << PAGE_SHIFT;
	unsigned int i;

	for (i = 0; i < obj->nr_loads; i++) {
		const struct sframe_load_seg *l = &obj->loads[i];

		if (off >= (l->offset & PAGE_MASK) &&
		    off < l->offset + l->filesz) {
			*bias = start - off - (l->vaddr - l->offset);
			return true;
		}
	}
	return false;
}
