// SPDX-License-Identifier: GPL-2.0
/*
 * execmap: map files executable the ways an unprivileged user can, to press
 * on the kernel's per-file SFrame cache.
 *
 *   execmap memfd ELF N      N times: memfd_create, write ELF plus i extra
 *                            bytes (so every copy is a distinct file), mmap
 *                            it PROT_EXEC, close the descriptor, keep the map
 *   execmap append ELF N     N times: append one byte to one copy of ELF in
 *                            /tmp and map the whole file PROT_EXEC again,
 *                            keeping every map
 *   execmap cycle FILE SEC   open, mmap PROT_EXEC, munmap, close FILE in a
 *                            loop for SEC seconds
 *   execmap hold FILE        map FILE PROT_EXEC once (reading nothing);
 *                            one page of a device node (size 0)
 *
 * memfd, append and hold then print "execmap: holding N maps" and keep the
 * maps until killed; memfd and append stop early, saying why, when a call
 * fails (e.g. out of memory).  cycle prints "execmap: N cycles".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* MFD_EXEC (6.3+) says outright that the memfd is meant to be executed. */
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

static char *elf;
static size_t elf_size;

static int read_whole(const char *path)
{
	struct stat st;
	size_t done = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		return -1;
	}
	elf_size = st.st_size;
	elf = malloc(elf_size);
	while (elf && done < elf_size) {
		n = read(fd, elf + done, elf_size - done);
		if (n <= 0) {
			perror(path);
			return -1;
		}
		done += n;
	}
	close(fd);
	return elf ? 0 : -1;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static int map_exec(int fd, size_t len)
{
	return mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
	       MAP_FAILED ? -1 : 0;
}

/* One more distinct memfd copy of the ELF, mapped; 0 or -1 (errno). */
static int memfd_copy(unsigned long i)
{
	static const char zeros[4096];
	unsigned long extra = i;
	int fd, err = 0;

	fd = memfd_create("execmap", MFD_CLOEXEC | MFD_EXEC);
	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("execmap", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (write_all(fd, elf, elf_size))
		err = -1;
	while (!err && extra) {
		size_t n = extra < sizeof(zeros) ? extra : sizeof(zeros);

		err = write_all(fd, zeros, n);
		extra -= n;
	}
	if (!err)
		err = map_exec(fd, elf_size + i);
	close(fd);
	return err;
}

static unsigned long flood_memfd(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (memfd_copy(i)) {
			printf("execmap: stopped after %lu: %s\n", i,
			       strerror(errno));
			break;
		}
	}
	return i;
}

static unsigned long flood_append(unsigned long n)
{
	char path[64];
	unsigned long i;
	int fd;

	snprintf(path, sizeof(path), "/tmp/execmap.%d", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	if (fd < 0 || write_all(fd, elf, elf_size)) {
		perror(path);
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (write_all(fd, "", 1) || map_exec(fd, elf_size + i + 1)) {
			printf("execmap: stopped after %lu: %s\n", i,
			       strerror(errno));
			break;
		}
	}
	close(fd);
	return i;
}

static int cycle(const char *path, long seconds)
{
	time_t end = time(NULL) + seconds;
	unsigned long n = 0;
	struct stat st;
	void *p;
	int fd;

	while (time(NULL) < end) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st)) {
			perror(path);
			return 1;
		}
		p = mmap(NULL, st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE,
			 fd, 0);
		if (p == MAP_FAILED) {
			perror("execmap: mmap");
			return 1;
		}
		munmap(p, st.st_size);
		close(fd);
		n++;
	}
	printf("execmap: %lu cycles\n", n);
	return 0;
}

static int hold(const char *path)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) ||
	    map_exec(fd, st.st_size ? st.st_size : getpagesize())) {
		perror(path);
		return 1;
	}
	close(fd);
	return 0;
}

static void keep_maps(unsigned long n)
{
	printf("execmap: holding %lu maps\n", n);
	fflush(stdout);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	unsigned long n;

	if (argc == 3 && !strcmp(argv[1], "hold")) {
		if (hold(argv[2]))
			return 1;
		keep_maps(1);
	}
	if (argc != 4)
		goto usage;
	if (!strcmp(argv[1], "cycle"))
		return cycle(argv[2], atol(argv[3]));
	n = strtoul(argv[3], NULL, 10);
	if (read_whole(argv[2]))
		return 1;
	if (!strcmp(argv[1], "memfd"))
		keep_maps(flood_memfd(n));
	if (!strcmp(argv[1], "append"))
		keep_maps(flood_append(n));
usage:
	fprintf(stderr, "usage: execmap memfd|append ELF N | cycle FILE SECONDS | hold FILE\n");
	return 2;
}
