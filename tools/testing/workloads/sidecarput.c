// SPDX-License-Identifier: GPL-2.0
/*
 * sidecarput ELF COPY: hand the module COPY's .sframe as the sidecar of
 * ELF (SFRAME_IOC_LOAD, as root's sframectl load does), reading nothing
 * of ELF itself: so the only read of ELF is the module's.  COPY is an
 * ELF64 file of this machine holding the same code (a copy of ELF made
 * elsewhere).  Prints "loaded" and exits 0, or prints the errno the
 * module returned and exits 1; 2 on any other failure.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sframe/ioctl.h>

/* @copy's .sframe: its bytes in *@data (in @map), its address in *@addr. */
static int find_sframe(const uint8_t *map, size_t size, const uint8_t **data,
		       uint64_t *len, uint64_t *addr)
{
	const Elf64_Ehdr *eh = (const void *)map;
	const Elf64_Shdr *sh, *str;
	unsigned int i;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(*sh) || eh->e_shstrndx >= eh->e_shnum ||
	    eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(*sh) < eh->e_shnum)
		return -1;
	sh = (const void *)(map + eh->e_shoff);
	str = &sh[eh->e_shstrndx];
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_name >= str->sh_size || str->sh_offset > size ||
		    str->sh_size > size - str->sh_offset ||
		    strncmp((const char *)map + str->sh_offset + sh[i].sh_name,
			    ".sframe", str->sh_size - sh[i].sh_name))
			continue;
		if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)
			return -1;
		*data = map + sh[i].sh_offset;
		*len = sh[i].sh_size;
		*addr = sh[i].sh_addr;
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct sframe_sidecar_load arg = { 0 };
	const uint8_t *map, *data;
	uint64_t len, addr;
	struct stat st;
	int copy, elf, dev;

	if (argc != 3) {
		fprintf(stderr, "usage: sidecarput ELF COPY\n");
		return 2;
	}
	copy = open(argv[2], O_RDONLY);
	if (copy < 0 || fstat(copy, &st)) {
		perror(argv[2]);
		return 2;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, copy, 0);
	if (map == MAP_FAILED ||
	    find_sframe(map, st.st_size, &data, &len, &addr)) {
		fprintf(stderr, "sidecarput: %s: no .sframe section\n", argv[2]);
		return 2;
	}
	elf = open(argv[1], O_RDONLY);
	dev = open(SFRAME_DEVICE, O_RDWR);
	if (elf < 0 || dev < 0) {
		perror(elf < 0 ? argv[1] : SFRAME_DEVICE);
		return 2;
	}
	arg.fd = elf;
	arg.vaddr = addr;
	arg.data = (uintptr_t)data;
	arg.size = len;
	if (ioctl(dev, SFRAME_IOC_LOAD, &arg)) {
		printf("sidecarput: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("loaded\n");
	return 0;
}
