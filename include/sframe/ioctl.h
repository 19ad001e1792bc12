/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The sidecar interface of sframe_unwind: /dev/sframe_unwind.  Root
 * (CAP_SYS_ADMIN) hands the module an SFrame section for an ELF file that
 * has none (or a better one); the module validates it like an embedded
 * section and uses it for every mapping of that file, present and future,
 * until it is unloaded or the file changes.  Reading the device lists the
 * sidecars loaded.  Others get -EPERM.
 */
#ifndef _SFRAME_IOCTL_H
#define _SFRAME_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SFRAME_DEVICE		"/dev/sframe_unwind"

struct sframe_sidecar_load {
	__s32 fd;		/* the ELF file, open for reading */
	__u32 flags;		/* must be 0 */
	__u64 vaddr;		/* link address the section assumes */
	__u64 data;		/* pointer to the section's bytes */
	__u64 size;		/* and their number */
};

struct sframe_sidecar_unload {
	__s32 fd;		/* the ELF file */
	__u32 flags;		/* must be 0 */
};

#define SFRAME_IOC_MAGIC	0xb5
#define SFRAME_IOC_LOAD		_IOW(SFRAME_IOC_MAGIC, 1, struct sframe_sidecar_load)
#define SFRAME_IOC_UNLOAD	_IOW(SFRAME_IOC_MAGIC, 2, struct sframe_sidecar_unload)

#endif /* _SFRAME_IOCTL_H */
