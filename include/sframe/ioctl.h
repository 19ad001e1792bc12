/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * The sidecar interface of sframe_unwind: /dev/sframe_unwind.  Whoever
 * opened it for writing (root, or the sidecar service through the
 * device's group: Documentation/design.rst, "Privileges") hands the
 * module an SFrame section for an ELF file that has none (or a better
 * one); the module validates it like an embedded section and uses it for
 * every mapping of that file, present and future, until it is unloaded or
 * the file changes.  Reading the device lists the sidecars loaded.  The
 * ioctls on a descriptor opened without write access get -EPERM.
 *
 * The module binds a sidecar to the file the descriptor names (the real
 * inode where the path is on an overlay), and with SFRAME_SIDECAR_BUILD_ID
 * only if the file's NT_GNU_BUILD_ID note is the one given (else -ESTALE):
 * read the ELF through the same descriptor that is handed in, and a file
 * replaced meanwhile cannot get a sidecar made for other code.
 * SFRAME_SIDECAR_VDSO hands in the section of the running kernel's vDSO
 * instead (fd is -1; the build ID, required, must be the vDSO's).
 *
 * A sidecar replaces the file's own .sframe, unless loaded with
 * SFRAME_SIDECAR_FILL: then it only fills the gaps of the file's own
 * section, where that has no rule (code its own section does not cover,
 * such as a static binary's libc), and is the whole answer only for a
 * file without a valid section of its own.
 *
 * A sidecar stays until it is unloaded (or the module is), whether or not
 * any process maps its file.  With SFRAME_SIDECAR_WHILE_MAPPED it stays
 * only while a process maps the file, and idle_seconds (module parameter)
 * after the last one unmaps it, or less if the module's memory budget
 * needs the room; loaded for a file no process maps, it has that grace
 * period from the load.  The next mapping of the file after it went is
 * reported to the watcher again (SFRAME_EVENT_NEED_SIDECAR), which loads
 * it again: the sidecar service's way, which keeps its sidecars on disk.
 * Such a load never replaces a sidecar loaded without the flag, which was
 * root's explicit choice (-EEXIST); a load without it replaces either.
 */
#ifndef _SFRAME_IOCTL_H
#define _SFRAME_IOCTL_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define SFRAME_DEVICE		"/dev/sframe_unwind"

#define SFRAME_SIDECAR_BUILD_ID	0x1	/* build_id must match the file's */
#define SFRAME_SIDECAR_VDSO	0x2	/* for the vDSO, not a file */
/* Kept while the file is mapped, then released (above). */
#define SFRAME_SIDECAR_WHILE_MAPPED	0x4
#define SFRAME_SIDECAR_FILL	0x8	/* fills the file's own section's gaps */
#define SFRAME_BUILD_ID_MAX	64

struct sframe_sidecar_load {
	__s32 fd;		/* the ELF file, open for reading */
	__u32 flags;		/* SFRAME_SIDECAR_* */
	__u64 vaddr;		/* link address the section assumes */
	__u64 data;		/* pointer to the section's bytes */
	__u64 size;		/* and their number */
	__u32 build_id_size;	/* bytes of build_id used, with BUILD_ID */
	__u32 reserved;		/* must be 0 */
	__u8 build_id[SFRAME_BUILD_ID_MAX];
};

struct sframe_sidecar_unload {
	__s32 fd;		/* the ELF file */
	__u32 flags;		/* must be 0, or SFRAME_SIDECAR_VDSO (fd -1) */
};

/*
 * SFRAME_IOC_WATCH returns a descriptor (close-on-exec) for the sidecar
 * service, one at a time (else -EBUSY).  read() on it returns whole
 * struct sframe_event records, blocking unless O_NONBLOCK; poll() says
 * when there are some.  SFRAME_EVENT_NEED_SIDECAR: an executable ELF
 * file of this machine's ABI was mapped and has no .sframe, or, with
 * SFRAME_EVENT_F_OWN_SFRAME, has a valid one of its own, which may leave
 * part of its code uncovered (a sidecar for that part is loaded with
 * SFRAME_SIDECAR_FILL); fd is a new read-only, close-on-exec descriptor
 * for it, which the reader closes; SFRAME_EVENT_F_SWEPT when a sweep
 * (SFRAME_IOC_REPORT_MAPPED) found it rather than a mapping made now.
 * SFRAME_EVENT_OVERFLOW: lost records were dropped (the queue is
 * bounded): ask for what is mapped instead (SFRAME_IOC_REPORT_MAPPED).
 * Files on filesystems whose reads a user could make hang (FUSE, network,
 * a loop device) are not reported.
 */
#define SFRAME_EVENT_NEED_SIDECAR	1
#define SFRAME_EVENT_OVERFLOW		2

#define SFRAME_EVENT_F_OWN_SFRAME	0x1	/* the file has its own .sframe */
#define SFRAME_EVENT_F_SWEPT		0x2	/* found by a sweep */

struct sframe_event {
	__u32 size;		/* of this record */
	__u32 type;		/* SFRAME_EVENT_* */
	__s32 fd;		/* NEED_SIDECAR: the file; else -1 */
	__u32 flags;		/* SFRAME_EVENT_F_* */
	union {
		__u64 lost;	/* OVERFLOW: records dropped */
		/*
		 * NEED_SIDECAR: the uid, in the initial user namespace,
		 * charged for the file's entry (the owner of the mapper's
		 * user namespace chain): whose share the service's work
		 * on it counts against
		 */
		__u32 owner;
	};
};

#define SFRAME_IOC_MAGIC	0xb5
#define SFRAME_IOC_LOAD		_IOW(SFRAME_IOC_MAGIC, 1, struct sframe_sidecar_load)
#define SFRAME_IOC_UNLOAD	_IOW(SFRAME_IOC_MAGIC, 2, struct sframe_sidecar_unload)
#define SFRAME_IOC_WATCH	_IO(SFRAME_IOC_MAGIC, 3)

/*
 * SFRAME_IOC_HAS_SIDECAR: 1 if the file open at the descriptor the
 * argument points to has a sidecar in the module now, else 0.  For the
 * service's scans, when reports were lost: a sidecar it loaded while
 * mapped may have been released since, and the report that would have
 * told it lost.
 */
#define SFRAME_IOC_HAS_SIDECAR	_IOW(SFRAME_IOC_MAGIC, 4, __s32)

/*
 * SFRAME_IOC_REPORT_MAPPED, on the watcher's descriptor: queue a
 * SFRAME_EVENT_NEED_SIDECAR record for every file that processes map
 * executable now and that such a record is for (no sidecar; no SFrame,
 * or its own), once per file and sweep.  The argument is 0 to start a
 * new sweep, SFRAME_REPORT_CONTINUE to go on with the last one.  Records
 * go only into the room the queue has, so a sweep never overflows it:
 * 0 when the sweep is done, 1 when the queue filled first (read what it
 * holds, then ask again with SFRAME_REPORT_CONTINUE).  How the service
 * learns what ran before it watched, or what an overflow lost, without
 * opening other processes' /proc/PID/map_files.
 */
#define SFRAME_REPORT_CONTINUE	0x1
#define SFRAME_IOC_REPORT_MAPPED	_IO(SFRAME_IOC_MAGIC, 5)

#endif /* _SFRAME_IOCTL_H */
