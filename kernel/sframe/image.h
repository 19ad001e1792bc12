/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the module needs to know of ELF data held in kernel memory: the
 * build ID among notes, and of an image (the vDSO's) its build ID and its
 * code, read with every field checked.
 */
#ifndef _SFRAME_IMAGE_H
#define _SFRAME_IMAGE_H

#include <linux/elf.h>
#include <linux/types.h>
#include <sframe/sframe.h>

/* More program headers than this: not an image the kernel built. */
#define SFRAME_IMAGE_MAX_PHDRS	16

struct sframe_image {
	const u8 *build_id;		/* NT_GNU_BUILD_ID descriptor, in the image */
	u32 build_id_size;
	u64 link_base;			/* link address of the image's first byte */
	struct sframe_span code;	/* its executable segment, link addresses */
};

/* Notes are padded to 8 bytes where their segment says so, else to 4. */
static inline u64 sframe_note_align(const struct elf64_phdr *ph)
{
	return ph->p_align == 8 ? 8 : 4;
}

int sframe_note_build_id(const u8 *buf, u64 len, u64 align, const u8 **id,
			 u32 *size);
int sframe_image_parse(const void *data, size_t size, struct sframe_image *img);

#endif /* _SFRAME_IMAGE_H */
