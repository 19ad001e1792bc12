/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Write a file atomically (atomic_write.c): a reader sees the old file or
 * the whole new one, never a part.
 */
#ifndef _SFRAMECTL_ATOMIC_WRITE_H
#define _SFRAMECTL_ATOMIC_WRITE_H

#include <sys/uio.h>

/* The name a write has until it is complete, for cleaners to know. */
#define ATOMIC_WRITE_TMP	".new-"

int atomic_write(const char *dir, const char *path, struct iovec *iov,
		 int n);

#endif /* _SFRAMECTL_ATOMIC_WRITE_H */
