// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-sframe KIND OUT: write an x86-64 ELF executable whose
 * PT_GNU_SFRAME is pathological but well-formed (huge_sections.h), and
 * whose code runs where a lookup costs the most: it calls itself DEPTH
 * times at the end of the pathological function, then spins until killed,
 * so each sampled user stack is DEPTH frames all looked up there.
 *
 *   huge-function  one function of 2 million FREs, two rules: the module
 *                  must flatten it and each lookup is a bounded search
 *   many-rules     the same with 2 million distinct rules: the module must
 *                  refuse it ("too many distinct rules for the lookup table")
 *   big-plt        a PC-mask FDE of 255 FREs: refused by validation
 *                  ("PC-mask FDE with too many FREs")
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../../kernel/sframe/tests/huge_sections.h"

#define BASE		0x400000ULL	/* link address of the file's byte 0 */
#define TEXT_OFFSET	0x1000U
#define PAGE		0x1000U
#define DEPTH		120		/* frames below the spin; perf keeps 127 */
#define NR_PHDRS	3
#define EHDR_SIZE	64
#define PHDR_SIZE	56

#define PT_LOAD		1
#define PT_GNU_STACK	0x6474e551U
#define PF_X		1
#define PF_W		2
#define PF_R		4

/*
 * The code at the pathological function's tail, where every PC has the
 * rule CFA = SP + 8, RA at CFA - 8, which holds throughout: no pushes.
 *
 *	entry:	mov	$DEPTH, %ecx
 *		call	self
 *	self:	dec	%ecx
 *		jz	spin
 *		call	self
 *		ret
 *	spin:	jmp	spin
 */
static const u8 code[] = {
	0xb9, DEPTH, 0, 0, 0,		/* mov $DEPTH, %ecx */
	0xe8, 0, 0, 0, 0,		/* call self (next instruction) */
	0xff, 0xc9,			/* self: dec %ecx */
	0x74, 0x06,			/* jz spin */
	0xe8, 0xf7, 0xff, 0xff, 0xff,	/* call self */
	0xc3,				/* ret */
	0xeb, 0xfe,			/* spin: jmp spin */
};

static void phdr(u8 *p, u32 type, u32 flags, u64 offset, u64 size,
		 u64 align)
{
	huge_put(p, type, 4);
	huge_put(p + 4, flags, 4);
	huge_put(p + 8, offset, 8);
	huge_put(p + 16, BASE + offset, 8);		/* p_vaddr */
	huge_put(p + 24, BASE + offset, 8);		/* p_paddr */
	huge_put(p + 32, size, 8);			/* p_filesz */
	huge_put(p + 40, size, 8);			/* p_memsz */
	huge_put(p + 48, align, 8);
}

static int pick(const char *kind, struct huge_section *h)
{
	*h = (struct huge_section){
		.text = BASE + TEXT_OFFSET, .nr_fdes = 1, .fres = 2000000,
		.fre_step = 1, .nr_rules = 2, .tail = sizeof(code),
	};
	if (!strcmp(kind, "huge-function"))
		return 0;
	if (!strcmp(kind, "many-rules")) {
		h->nr_rules = h->fres;
		return 0;
	}
	if (!strcmp(kind, "big-plt")) {
		h->fres = 255;
		h->nr_rules = 1;
		h->rep_size = 255;
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct huge_section h;
	u64 entry, text_end, sframe_off, file_size;
	u32 sframe_size;
	FILE *out;
	u8 *file;

	if (argc != 3 || pick(argv[1], &h)) {
		fprintf(stderr, "usage: hostile-sframe huge-function|many-rules|big-plt OUT\n");
		return 2;
	}
	entry = huge_tail(&h);
	text_end = entry + sizeof(code) - BASE;
	sframe_off = (text_end + PAGE - 1) & ~(u64)(PAGE - 1);
	sframe_size = huge_section_size(&h);
	file_size = sframe_off + sframe_size;
	file = calloc(1, file_size);
	if (!file || !sframe_size) {
		perror("hostile-sframe");
		return 1;
	}

	/* ELF header: ELFCLASS64, little-endian, ET_EXEC, EM_X86_64. */
	memcpy(file, "\x7f\x45\x4c\x46\x02\x01\x01", 7);
	huge_put(file + 16, 2, 2);
	huge_put(file + 18, 62, 2);
	huge_put(file + 20, 1, 4);
	huge_put(file + 24, entry, 8);
	huge_put(file + 32, EHDR_SIZE, 8);		/* e_phoff */
	huge_put(file + 52, EHDR_SIZE, 2);
	huge_put(file + 54, PHDR_SIZE, 2);
	huge_put(file + 56, NR_PHDRS, 2);

	/* One read-execute segment holds it all; the stack is not executable. */
	phdr(file + EHDR_SIZE, PT_LOAD, PF_R | PF_X, 0, file_size, PAGE);
	phdr(file + EHDR_SIZE + PHDR_SIZE, SFRAME_PT_GNU_SFRAME, PF_R,
	     sframe_off, sframe_size, 8);
	phdr(file + EHDR_SIZE + 2 * PHDR_SIZE, PT_GNU_STACK, PF_R | PF_W, 0, 0,
	     16);

	/* The function body before the tail is never run: int3 throughout. */
	memset(file + TEXT_OFFSET, 0xcc, entry - BASE - TEXT_OFFSET);
	memcpy(file + (entry - BASE), code, sizeof(code));
	huge_section_fill(&h, file + sframe_off, BASE + sframe_off);

	out = fopen(argv[2], "wb");
	if (!out || fwrite(file, 1, file_size, out) != file_size ||
	    fclose(out) || chmod(argv[2], 0755)) {
		perror(argv[2]);
		return 1;
	}
	free(file);
	return 0;
}
