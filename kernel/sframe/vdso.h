/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vDSO's section (vdso.c), and what it uses of the section cache.
 */
#ifndef _SFRAME_VDSO_H
#define _SFRAME_VDSO_H

#include <linux/mm_types.h>
#include <linux/seq_file.h>
#include <sframe/walk.h>

struct sframe_sec;

int sframe_vdso_set(struct sframe_sec *s, const u8 *build_id, u32 size);
int sframe_vdso_clear(void);
void sframe_vdso_exit(void);
bool sframe_vdso_lookup(struct mm_struct *mm, u64 ip,
			struct sframe_where *where);
void sframe_vdso_show(struct seq_file *m);

#endif /* _SFRAME_VDSO_H */
