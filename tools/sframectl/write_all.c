// SPDX-License-Identifier: GPL-2.0
/*
 * Write a whole buffer to a descriptor, however the kernel splits it: a
 * generator child's result to its pipe, a cache entry or the service's
 * state into a new file.
 */
#include <errno.h>
#include <unistd.h>

#include "sframectl.h"

/* Write the @size bytes at @data to @fd: 0, or -errno. */
int sframe_write_all(int fd, const void *data, size_t size)
{
	const unsigned char *p = data;
	ssize_t n;

	while (size) {
		n = write(fd, p, size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		size -= (size_t)n;
	}
	return 0;
}
