/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64: which vDSO an mm maps and where (for vdso.c).  The kernel keeps
 * its vDSO images to itself (vdso_info[] is static) and records only
 * where an mm mapped one (mm->context.vdso); every AArch64 task maps the
 * same image, and AArch32 tasks, which map another, are never walked.
 */
#ifndef _SFRAME_ARCH_VDSO_TEXT_H
#define _SFRAME_ARCH_VDSO_TEXT_H

#include <linux/compat.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

/* The largest vDSO text read for a check (6.12's is two pages). */
#define SFRAME_VDSO_MAX_SIZE	(64 * 1024)

/*
 * The vDSO text @mm maps: @id names its image, the one AArch64 image for
 * every mm (NULL); @base is where it starts; its size only a loaded
 * section can tell (0).  Any context, NMI included.
 */
static inline bool sframe_vdso_text(struct mm_struct *mm, const void **id,
				    u64 *base, u64 *size)
{
	*base = (unsigned long)READ_ONCE(mm->context.vdso);
	*id = NULL;
	*size = 0;
	return *base;
}

/*
 * The bytes of the image the calling task maps, for a section's check: a
 * copy of its vDSO text as the task sees it (the mapping that starts at
 * mm->context.vdso), which the caller frees with kvfree(*@copy).  The
 * caller is root checking a section against a build ID it names; a task
 * that mapped something else there only gets its own stacks wrong.
 */
static inline int sframe_vdso_image(const void **data, size_t *size,
				    void **copy)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long base;
	size_t len = 0;
	void *buf;

	if (!mm || is_compat_task())
		return -ENOENT;
	base = (unsigned long)mm->context.vdso;
	mmap_read_lock(mm);
	vma = base ? find_vma(mm, base) : NULL;
	if (vma && vma->vm_start == base && !vma->vm_file)
		len = vma->vm_end - vma->vm_start;
	mmap_read_unlock(mm);
	if (!len || len > SFRAME_VDSO_MAX_SIZE)
		return -ENOENT;
	buf = kvmalloc(len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_user(buf, (const void __user *)base, len)) {
		kvfree(buf);
		return -EFAULT;
	}
	*data = buf;
	*size = len;
	*copy = buf;
	return 0;
}

#endif /* _SFRAME_ARCH_VDSO_TEXT_H */
