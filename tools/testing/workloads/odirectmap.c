// SPDX-License-Identifier: GPL-2.0
/*
 * odirectmap FILE SECONDS: open FILE with O_DIRECT, map it PROT_EXEC and
 * keep the mapping for SECONDS, so that whatever reads the file because
 * it was mapped executable gets this O_DIRECT file (sframe-odirect).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

int main(int argc, char **argv)
{
	struct stat st;
	void *map;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: odirectmap FILE SECONDS\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 1;
	}
	map = mmap(NULL, st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	printf("odirectmap: %s mapped executable through an O_DIRECT file\n", argv[1]);
	fflush(stdout);
	usleep(atof(argv[2]) * 1e6);
	munmap(map, st.st_size);
	close(fd);
	return 0;
}
