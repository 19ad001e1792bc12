// SPDX-License-Identifier: GPL-2.0
/*
 * Write a file atomically: the bytes go to a new file in the same
 * directory, synced, then renamed over the file's name, so that a reader
 * (sframectl status, the service's cache after a crash) sees the old file
 * or the whole new one, never a part.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>

#include "atomic_write.h"
#include "sframectl.h"

/*
 * Make @path, in the directory @dir, the @n pieces @iov, readable by all:
 * 0, or -errno with @path as it was.
 */
int atomic_write(const char *dir, const char *path, struct iovec *iov, int n)
{
	char tmp[PATH_MAX];
	int fd, ret;

	if (snprintf(tmp, sizeof(tmp), "%s/" ATOMIC_WRITE_TMP "XXXXXX",
		     dir) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (ret = 0; !ret && n; n--, iov++)
		ret = sframe_write_all(fd, iov->iov_base, iov->iov_len);
	if (!ret && (fchmod(fd, 0644) || fsync(fd)))
		ret = -errno;
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, path))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}
