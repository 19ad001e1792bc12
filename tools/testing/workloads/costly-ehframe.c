// SPDX-License-Identifier: GPL-2.0
/*
 * costly-ehframe write FILE N: write an x86-64 shared object of N tiny
 * functions whose .eh_frame (several rows each) lists them in reverse
 * address order: N = 100000 is 5 MB, costly for the sidecar service to
 * translate however its generator sorts (sframe-service-costly).
 * costly-ehframe map FILE SECONDS: map FILE executable for SECONDS, as
 * whoever runs it, so that the module reports it.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#define TEXT_OFF	0x1000		/* .text: page aligned */
#define FUNC_SIZE	16		/* ret, then nops */
#define ROWS		6		/* CFA rows per function */
#define CIE_SIZE	24
#define FDE_SIZE	36		/* 35 bytes, then a DW_CFA_nop */
#define EM_X86_64	62

static const char shstrtab[] = "\0.text\0.eh_frame\0.shstrtab";
#define NAME_TEXT	1
#define NAME_EH_FRAME	7
#define NAME_SHSTRTAB	17

static void put(uint8_t *p, uint64_t v, int size)
{
	int i;

	for (i = 0; i < size; i++)
		p[i] = v >> (8 * i);
}

static void put_shdr(uint8_t *p, uint32_t name, uint32_t type, uint64_t flags,
		     uint64_t addr, uint64_t off, uint64_t size, uint64_t align)
{
	put(p, name, 4);
	put(p + 4, type, 4);
	put(p + 8, flags, 8);
	put(p + 16, addr, 8);
	put(p + 24, off, 8);
	put(p + 32, size, 8);
	put(p + 48, align, 8);
}

/* The CIE gcc writes for x86-64: CFA rsp+8, RA at CFA-8, pcrel sdata4. */
static void put_cie(uint8_t *p)
{
	static const uint8_t cie[CIE_SIZE] = {
		20, 0, 0, 0,		/* length */
		0, 0, 0, 0,		/* CIE id */
		1, 'z', 'R', 0,		/* version, augmentation */
		1, 0x78, 16,		/* code align 1, data align -8, RA 16 */
		1, 0x1b,		/* augmentation data: pcrel | sdata4 */
		0x0c, 7, 8,		/* DW_CFA_def_cfa rsp, 8 */
		0x90, 1,		/* DW_CFA_offset rip, cfa-8 */
		0, 0,			/* DW_CFA_nop */
	};

	memcpy(p, cie, sizeof(cie));
}

/* An FDE at @p (address @at) for the function at @func, CIE at @cie. */
static void put_fde(uint8_t *p, uint64_t at, uint64_t func, uint64_t cie)
{
	int r;

	put(p, FDE_SIZE - 4, 4);
	put(p + 4, at + 4 - cie, 4);
	put(p + 8, func - (at + 8), 4);
	put(p + 12, FUNC_SIZE, 4);
	p[16] = 0;			/* no augmentation data */
	for (r = 0; r < ROWS; r++) {
		p[17 + 3 * r] = 0x40 | 1;	/* DW_CFA_advance_loc 1 */
		p[18 + 3 * r] = 0x0e;		/* DW_CFA_def_cfa_offset */
		p[19 + 3 * r] = 16 + 8 * r;
	}
}

static int write_object(const char *path, unsigned long n)
{
	uint64_t text_size = n * FUNC_SIZE;
	uint64_t eh = TEXT_OFF + text_size;
	uint64_t eh_size = CIE_SIZE + n * FDE_SIZE;
	uint64_t str = eh + eh_size;
	uint64_t shoff = (str + sizeof(shstrtab) + 7) & ~7ULL;
	uint64_t size = shoff + 4 * 64;
	unsigned long i;
	uint8_t *p;
	FILE *f;

	p = calloc(1, size);
	if (!p)
		return 1;
	memcpy(p, "\177ELF\2\1\1", 7);
	put(p + 16, 3, 2);			/* ET_DYN */
	put(p + 18, EM_X86_64, 2);
	put(p + 20, 1, 4);
	put(p + 32, 64, 8);			/* e_phoff */
	put(p + 40, shoff, 8);
	put(p + 52, 64, 2);
	put(p + 54, 56, 2);
	put(p + 56, 1, 2);			/* one PT_LOAD */
	put(p + 58, 64, 2);
	put(p + 60, 4, 2);
	put(p + 62, 3, 2);			/* .shstrtab */
	put(p + 64, 1, 4);			/* PT_LOAD */
	put(p + 68, 5, 4);			/* R X */
	put(p + 64 + 32, str, 8);		/* p_filesz */
	put(p + 64 + 40, str, 8);		/* p_memsz */
	put(p + 64 + 48, 0x1000, 8);
	for (i = 0; i < n; i++) {
		memset(p + TEXT_OFF + i * FUNC_SIZE, 0x90, FUNC_SIZE);
		p[TEXT_OFF + i * FUNC_SIZE] = 0xc3;
	}
	put_cie(p + eh);
	for (i = 0; i < n; i++)
		put_fde(p + eh + CIE_SIZE + i * FDE_SIZE,
			eh + CIE_SIZE + i * FDE_SIZE,
			TEXT_OFF + (n - 1 - i) * FUNC_SIZE, eh);
	memcpy(p + str, shstrtab, sizeof(shstrtab));
	put_shdr(p + shoff + 64, NAME_TEXT, 1, 6, TEXT_OFF, TEXT_OFF,
		 text_size, 16);
	put_shdr(p + shoff + 128, NAME_EH_FRAME, 1, 2, eh, eh, eh_size, 8);
	put_shdr(p + shoff + 192, NAME_SHSTRTAB, 3, 0, 0, str,
		 sizeof(shstrtab), 1);
	f = fopen(path, "w");
	if (!f || fwrite(p, 1, size, f) != size || fclose(f)) {
		perror(path);
		return 1;
	}
	free(p);
	return 0;
}

static int map_object(const char *path, unsigned int seconds)
{
	struct stat st;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) ||
	    mmap(NULL, st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
		 0) == MAP_FAILED) {
		perror(path);
		return 1;
	}
	printf("mapped\n");
	fflush(stdout);
	sleep(seconds);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "write"))
		return write_object(argv[2], strtoul(argv[3], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "map"))
		return map_object(argv[2], strtoul(argv[3], NULL, 10));
	fprintf(stderr, "usage: costly-ehframe write FILE N | map FILE SECONDS\n");
	return 2;
}
