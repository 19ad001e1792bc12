/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64: which vDSO image an mm maps and where (for vdso.c).  The
 * kernel keeps one struct vdso_image per kind (64-bit, x32, 32-bit) and
 * points each mm at the one it mapped, so any context can tell.
 */
#ifndef _SFRAME_ARCH_VDSO_TEXT_H
#define _SFRAME_ARCH_VDSO_TEXT_H

#include <linux/mm_types.h>
#include <asm/vdso.h>

/*
 * The vDSO text @mm maps: @id names its image (the same for every mm
 * mapping it), [@base, @base + @size) its addresses.  @size is 0 where
 * only a loaded section can tell it.  Any context, NMI included.
 */
static inline bool sframe_vdso_text(struct mm_struct *mm, const void **id,
				    u64 *base, u64 *size)
{
	const struct vdso_image *image = READ_ONCE(mm->context.vdso_image);

	*base = (unsigned long)READ_ONCE(mm->context.vdso);
	if (!image || !*base)
		return false;
	*id = image;
	*size = image->size;
	return true;
}

/*
 * The bytes of the image the calling task maps, for a section's check:
 * the kernel's own copy here, so nothing to free (*@copy = NULL).
 */
static inline int sframe_vdso_image(const void **data, size_t *size,
				    void **copy)
{
	const struct vdso_image *image;

	image = current->mm ? current->mm->context.vdso_image : NULL;
	if (!image)
		return -ENOENT;
	*data = image->data;
	*size = image->size;
	*copy = NULL;
	return 0;
}

#endif /* _SFRAME_ARCH_VDSO_TEXT_H */
