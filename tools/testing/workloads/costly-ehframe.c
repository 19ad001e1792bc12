// SPDX-License-Identifier: GPL-2.0
/*
 * costly-ehframe write FILE N: write an x86-64 shared object of N tiny
 * functions whose .eh_frame (several rows each) lists them in reverse
 * address order: N = 100000 is 5 MB, costly for the sidecar service to
 * translate however its generator sorts (sframe-service-costly).
 * costly-ehframe map FILE SECONDS: map FILE executable for SECONDS, as
 * whoever runs it, so that the module reports it.  (This machine's
 * <elf.h> layout: written on x86-64 for x86-64 guests.)
 */
#include <elf.h>
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
	uint64_t size = shoff + 4 * sizeof(Elf64_Shdr);
	Elf64_Ehdr *eh_hdr;
	Elf64_Phdr *ph;
	Elf64_Shdr *sh;
	unsigned long i;
	uint8_t *p;
	FILE *f;

	p = calloc(1, size);
	if (!p)
		return 1;
	eh_hdr = (Elf64_Ehdr *)p;
	memcpy(eh_hdr->e_ident, ELFMAG, SELFMAG);
	eh_hdr->e_ident[EI_CLASS] = ELFCLASS64;
	eh_hdr->e_ident[EI_DATA] = ELFDATA2LSB;
	eh_hdr->e_ident[EI_VERSION] = EV_CURRENT;
	eh_hdr->e_type = ET_DYN;
	eh_hdr->e_machine = EM_X86_64;
	eh_hdr->e_version = EV_CURRENT;
	eh_hdr->e_phoff = sizeof(*eh_hdr);
	eh_hdr->e_shoff = shoff;
	eh_hdr->e_ehsize = sizeof(*eh_hdr);
	eh_hdr->e_phentsize = sizeof(*ph);
	eh_hdr->e_phnum = 1;
	eh_hdr->e_shentsize = sizeof(*sh);
	eh_hdr->e_shnum = 4;
	eh_hdr->e_shstrndx = 3;
	ph = (Elf64_Phdr *)(p + sizeof(*eh_hdr));
	*ph = (Elf64_Phdr){
		.p_type = PT_LOAD, .p_flags = PF_R | PF_X,
		.p_filesz = str, .p_memsz = str, .p_align = 0x1000,
	};
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
	sh = (Elf64_Shdr *)(p + shoff);
	sh[1] = (Elf64_Shdr){
		.sh_name = NAME_TEXT, .sh_type = SHT_PROGBITS,
		.sh_flags = SHF_ALLOC | SHF_EXECINSTR, .sh_addr = TEXT_OFF,
		.sh_offset = TEXT_OFF, .sh_size = text_size, .sh_addralign = 16,
	};
	sh[2] = (Elf64_Shdr){
		.sh_name = NAME_EH_FRAME, .sh_type = SHT_PROGBITS,
		.sh_flags = SHF_ALLOC, .sh_addr = eh, .sh_offset = eh,
		.sh_size = eh_size, .sh_addralign = 8,
	};
	sh[3] = (Elf64_Shdr){
		.sh_name = NAME_SHSTRTAB, .sh_type = SHT_STRTAB,
		.sh_offset = str, .sh_size = sizeof(shstrtab),
		.sh_addralign = 1,
	};
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
