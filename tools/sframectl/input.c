// SPDX-License-Identifier: GPL-2.0
/*
 * Reading an input file whole, through one descriptor: into memory, to
 * take its SFrame section out of it (a bare section with --raw, otherwise
 * an ELF object), or into a sealed memory file, a generator child's
 * input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "sframectl.h"

/* Largest input read whole; bigger files are refused, not truncated. */
#define SFRAMECTL_MAX_FILE	(1ULL << 32)

/*
 * Read what @fd gives whole, from its file position (a fresh descriptor:
 * the start), so that every check and the hand-over to the module see
 * one file, whatever happens to its path meanwhile; never more than @max
 * bytes (nor SFRAMECTL_MAX_FILE): a file that has more is refused,
 * whatever its size said before.
 */
static enum sframe_load_status read_fd(struct sframe_input *in, int fd,
				       unsigned long long max, char *msg,
				       size_t msg_size)
{
	size_t cap = 1 << 16, len = 0;
	unsigned char *buf = NULL, *grown;
	ssize_t n;

	if (max > SFRAMECTL_MAX_FILE)
		max = SFRAMECTL_MAX_FILE;
	/*
	 * Never room for more than one byte past @max, which tells a file
	 * that has more; a file of @max bytes takes no more than that.
	 */
	if (cap > max + 1)
		cap = max + 1;
	do {
		if (len == cap || !buf) {
			if (buf)
				cap = cap > (max + 1) / 2 ? max + 1 : cap * 2;
			grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				snprintf(msg, msg_size, "%s", strerror(ENOMEM));
				return SFRAME_LOAD_IO;
			}
			buf = grown;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			free(buf);
			snprintf(msg, msg_size, "%s", strerror(errno));
			return SFRAME_LOAD_IO;
		}
		len += (size_t)n;
	} while (n && len <= max);
	if (len > max) {
		free(buf);
		snprintf(msg, msg_size, "more than %llu bytes", max);
		return SFRAME_LOAD_IO;
	}
	in->file = buf;
	in->file_size = len;
	return SFRAME_LOAD_OK;
}

/*
 * Read the file open at @fd (@path, for messages) whole, and take its
 * SFrame section out of it (@raw: it is one).
 */
enum sframe_load_status sframe_input_load_fd(struct sframe_input *in, int fd,
					     const char *path, bool raw,
					     char *msg, size_t msg_size)
{
	enum sframe_load_status st;

	memset(in, 0, sizeof(*in));
	in->path = path;
	st = read_fd(in, fd, SFRAMECTL_MAX_FILE, msg, msg_size);
	if (st != SFRAME_LOAD_OK || !raw)
		return st == SFRAME_LOAD_OK ? sframe_elf_extract(in, msg, msg_size)
					    : st;
	in->bytes = in->file;
	in->size = in->file_size;
	in->name = ".sframe";
	return SFRAME_LOAD_OK;
}

#define INPUT_SEALS	(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)

/*
 * Read what @fd gives, at most @max bytes, into the memory file @mfd: its
 * length, or -1 with @msg saying why.  It is mapped shared, one byte past
 * @max, so the bytes are written once, and only pages read are used.
 */
static long long input_read_memfd(int mfd, int fd, unsigned long long max,
				  char *msg, size_t msg_size)
{
	size_t cap = max + 1, len = 0;
	unsigned char *buf;
	ssize_t n = 0;

	if (ftruncate(mfd, cap)) {
		snprintf(msg, msg_size, "%s", strerror(errno));
		return -1;
	}
	buf = mmap(NULL, cap, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (buf == MAP_FAILED) {
		snprintf(msg, msg_size, "%s", strerror(errno));
		return -1;
	}
	while (len < cap) {
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (n < 0)
		snprintf(msg, msg_size, "%s", strerror(errno));
	munmap(buf, cap);
	if (len > max) {
		snprintf(msg, msg_size, "more than %llu bytes", max);
		return -1;
	}
	return n < 0 ? -1 : (long long)len;
}

/*
 * Read the file open at @fd (@path, for messages) whole, at most @max
 * bytes, into a memory file sealed against any change, which @in then
 * maps read-only: the bytes are held once, and the memory file is what a
 * generator child receives as its input.  Its descriptor (close-on-exec;
 * the caller's to close), or -1 with @msg saying why.
 */
int sframe_input_load_sealed(struct sframe_input *in, int fd, const char *path,
			     unsigned long long max, char *msg,
			     size_t msg_size)
{
	long long len = -1;
	void *map = NULL;
	int mfd;

	memset(in, 0, sizeof(*in));
	in->path = path;
	if (max > SFRAMECTL_MAX_FILE)
		max = SFRAMECTL_MAX_FILE;
	mfd = memfd_create("sframectl-input", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0)
		snprintf(msg, msg_size, "%s", strerror(errno));
	else
		len = input_read_memfd(mfd, fd, max, msg, msg_size);
	if (len >= 0 && (ftruncate(mfd, len) ||
			 fcntl(mfd, F_ADD_SEALS, INPUT_SEALS))) {
		snprintf(msg, msg_size, "cannot seal its bytes: %s",
			 strerror(errno));
		len = -1;
	}
	/* Private: a shared mapping of a write-sealed file needs Linux 6.7. */
	if (len > 0) {
		map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, mfd, 0);
		if (map == MAP_FAILED) {
			snprintf(msg, msg_size, "%s", strerror(errno));
			len = -1;
		}
	}
	if (len < 0) {
		if (mfd >= 0)
			close(mfd);
		return -1;
	}
	in->file = map;
	in->file_size = len;
	in->sealed = true;
	in->bytes = in->file;
	in->size = in->file_size;
	in->name = ".sframe";
	return mfd;
}

enum sframe_load_status sframe_input_load(struct sframe_input *in,
					  const char *path, bool raw,
					  char *msg, size_t msg_size)
{
	enum sframe_load_status st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		memset(in, 0, sizeof(*in));
		snprintf(msg, msg_size, "%s", strerror(errno));
		return SFRAME_LOAD_IO;
	}
	st = sframe_input_load_fd(in, fd, path, raw, msg, msg_size);
	close(fd);
	return st;
}

/*
 * Open the object @path for sframectl load: the one descriptor it reads
 * the ELF through and hands to the module.  Only a regular file: a FIFO or device put at the path must not block
 * or feed us (O_NONBLOCK does nothing to a regular file's reads).
 */
int sframe_open(const char *path, char *msg, size_t msg_size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		snprintf(msg, msg_size, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		snprintf(msg, msg_size, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(msg, msg_size, "%s", S_ISDIR(st.st_mode) ?
			 "is a directory" : "not a regular file");
		close(fd);
		return -1;
	}
	return fd;
}

void sframe_input_free(struct sframe_input *in)
{
	free(in->copy);
	if (!in->sealed)
		free(in->file);
	else if (in->file_size)
		munmap(in->file, in->file_size);
	memset(in, 0, sizeof(*in));
}

