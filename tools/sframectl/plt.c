// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl gen's PLT stubs: the rules of the x86-64 PLT sections (.plt,
 * .plt.sec, .plt.got, .iplt) that no .eh_frame FDE describes, read from
 * the stubs' own instructions, one FDE per section.
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* The CFA a call leaves: the return address, just pushed. */
#define PLT_CFA_AT_CALL		8
/*
 * The largest PLT section described: 262,144 16-byte entries, far above
 * any program's, low enough that decoding it takes little memory.
 */
#define PLT_MAX_SIZE		(4U << 20)

static const char * const plt_names[] = {
	".plt", ".plt.sec", ".plt.got", ".iplt",
};

/* What an instruction of a stub does to the stack and the flow. */
enum plt_op {
	PLT_OP_NOP,		/* endbr64 and the linker's padding */
	PLT_OP_PUSH,		/* push imm32, push *disp32(%rip) */
	PLT_OP_JMP_MEM,		/* jmp *disp32(%rip): leaves the section */
	PLT_OP_JMP_REL,		/* jmp rel32: PLT0, or elsewhere */
};

/* The instructions ld and gold write in PLT stubs, and their size. */
static const struct plt_insn {
	u8 len;
	u8 op;
	u8 nbytes;		/* bytes to match; the rest is an operand */
	u8 bytes[8];
} plt_insns[] = {
	{ 4, PLT_OP_NOP, 4, { 0xf3, 0x0f, 0x1e, 0xfa } },	/* endbr64 */
	{ 1, PLT_OP_NOP, 1, { 0x90 } },
	{ 1, PLT_OP_NOP, 1, { 0xcc } },				/* int3 */
	{ 2, PLT_OP_NOP, 2, { 0x66, 0x90 } },
	{ 3, PLT_OP_NOP, 3, { 0x0f, 0x1f, 0x00 } },
	{ 4, PLT_OP_NOP, 4, { 0x0f, 0x1f, 0x40, 0x00 } },
	{ 5, PLT_OP_NOP, 5, { 0x0f, 0x1f, 0x44, 0x00, 0x00 } },
	{ 6, PLT_OP_NOP, 6, { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 } },
	{ 7, PLT_OP_NOP, 7, { 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 } },
	{ 8, PLT_OP_NOP, 8,
	  { 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 } },
	{ 5, PLT_OP_PUSH, 1, { 0x68 } },
	{ 6, PLT_OP_PUSH, 2, { 0xff, 0x35 } },
	{ 7, PLT_OP_PUSH, 3, { 0xf2, 0xff, 0x35 } },		/* bnd */
	{ 6, PLT_OP_JMP_MEM, 2, { 0xff, 0x25 } },
	{ 7, PLT_OP_JMP_MEM, 3, { 0xf2, 0xff, 0x25 } },		/* bnd */
	{ 5, PLT_OP_JMP_REL, 1, { 0xe9 } },
	{ 6, PLT_OP_JMP_REL, 2, { 0xf2, 0xe9 } },		/* bnd */
};

/* One decoded instruction, and the CFA (as SP + cfa) before it runs. */
struct plt_step {
	u32 off;
	u8 len;
	u8 op;
	s64 target;		/* PLT_OP_JMP_REL: offset in the section */
	u32 cfa;
};

/* A section described: beside enum gen_plt_refusal's reasons. */
#define PLT_OK			GEN_PLT_NR_REFUSALS

const char * const gen_plt_refusal_names[GEN_PLT_NR_REFUSALS] = {
	[GEN_PLT_LAYOUT] = "not whole 8- or 16-byte entries of code",
	[GEN_PLT_CODE] = "an instruction no stub holds",
	[GEN_PLT_JUMP] = "a jump between instructions or of two CFAs",
	[GEN_PLT_ROWS] = "more than 65535 FREs",
	[GEN_PLT_OVERLAP] = "addresses of another PLT section",
};

static const struct plt_insn *plt_match(const u8 *p, u64 left)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(plt_insns); i++)
		if (plt_insns[i].len <= left &&
		    !memcmp(p, plt_insns[i].bytes, plt_insns[i].nbytes))
			return &plt_insns[i];
	return NULL;
}

/* Decode all of @code into @steps: PLT_OK, or enum gen_plt_refusal's why. */
static int plt_decode(const u8 *code, u32 size, struct plt_step *steps,
		      u32 *nsteps)
{
	const struct plt_insn *in;
	const u8 *p;
	u32 off, n = 0;
	u64 rel;

	for (off = 0; off < size; off += in->len) {
		in = plt_match(code + off, size - off);
		if (!in)
			return GEN_PLT_CODE;
		steps[n] = (struct plt_step){
			.off = off, .len = in->len, .op = in->op,
		};
		p = code + off + in->len - 4;
		if (in->op == PLT_OP_JMP_REL &&
		    gen_read_le(&p, code + size, 4, &rel))
			steps[n].target = (s64)off + in->len + (s32)rel;
		n++;
	}
	*nsteps = n;
	return PLT_OK;
}

static struct plt_step *plt_find_step(struct plt_step *steps, u32 n,
				      s64 off)
{
	u32 lo = 0, hi = n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (steps[mid].off == off)
			return &steps[mid];
		if (steps[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The CFA before each instruction, in order: a stub is entered by a call
 * (SP + 8) or by a jump from another stub of the section, which brings
 * its CFA along (ld's lazy entries push the relocation index and jump to
 * PLT0: SP + 16 there, SP + 24 after PLT0's own push).  After a jump,
 * only such an entry can run.  @entry[i] is the CFA the jumps into step
 * i bring, 0 when none does.
 */
static void plt_flow(struct plt_step *steps, u32 n, const u32 *entry)
{
	u32 cfa = PLT_CFA_AT_CALL, i;

	for (i = 0; i < n; i++) {
		if (entry[i])
			cfa = entry[i];
		steps[i].cfa = cfa;
		if (steps[i].op == PLT_OP_PUSH)
			cfa += 8;
		else if (steps[i].op != PLT_OP_NOP)
			cfa = PLT_CFA_AT_CALL;
	}
}

/*
 * Where jumps inside the section land, and the CFA they bring: twice,
 * since a jump's own CFA may come from a jump.  A landing between two
 * instructions, two jumps that disagree, or a CFA still changing after
 * the second pass leave the section out.
 */
static int plt_jumps(struct plt_step *steps, u32 n, u32 *entry)
{
	unsigned int pass;
	bool changed = true;
	u32 i;

	memset(entry, 0, n * sizeof(*entry));
	for (pass = 0; pass < 2 && changed; pass++) {
		changed = false;
		plt_flow(steps, n, entry);
		for (i = 0; i < n; i++) {
			struct plt_step *to;

			if (steps[i].op != PLT_OP_JMP_REL)
				continue;
			to = plt_find_step(steps, n, steps[i].target);
			if (!to) {
				if (steps[i].target >= 0 &&
				    steps[i].target < steps[n - 1].off +
						      steps[n - 1].len)
					return GEN_PLT_JUMP;
				continue;
			}
			if (entry[to - steps] == steps[i].cfa)
				continue;
			if (pass && entry[to - steps])
				return GEN_PLT_JUMP;
			entry[to - steps] = steps[i].cfa;
			changed = true;
		}
	}
	if (changed)
		return GEN_PLT_JUMP;
	plt_flow(steps, n, entry);
	return PLT_OK;
}

/*
 * One FDE for the section at @addr: an FRE wherever the CFA changes.
 * PLT_OK, GEN_PLT_ROWS, or -1 out of memory.
 */
static int plt_emit(struct gen *g, u64 addr, u32 size,
		    const struct plt_step *steps, u32 n)
{
	struct sframe_enc_fde fde = {
		.start = addr, .size = size, .first = g->nfres,
		.fde_type = SFRAME_FDE_TYPE_DEFAULT,
		.pc_type = SFRAME_PC_TYPE_INC,
	};
	struct sframe_enc_rule rule = {
		.cfa = { .kind = SFRAME_ENC_REG, .reg = GEN_REG_RSP },
		.ra = {
			.kind = SFRAME_ENC_AT_CFA,
			.off = sframe_enc_fixed_ra(g->mach->arch),
		},
		.fp = { .kind = SFRAME_ENC_SAME },
	};
	u32 i;

	for (i = 0; i < n; i++) {
		if (i && steps[i].cfa == steps[i - 1].cfa)
			continue;
		rule.cfa.off = steps[i].cfa;
		if (!gen_add_fre(g, steps[i].off, &rule))
			return -1;
	}
	fde.num = g->nfres - fde.first;
	if (fde.num > GEN_MAX_FDE_FRES) {
		g->nfres = fde.first;
		return GEN_PLT_ROWS;
	}
	if (!gen_add_fde(g, &fde))
		return -1;
	return PLT_OK;
}

/* Does an .eh_frame FDE, or with --fill the object's own, cover it? */
static bool plt_covered(const struct gen *g, u64 lo, u64 hi)
{
	struct sframe_fde fde;
	u32 i;

	for (i = 0; i < g->nfuncs; i++)
		if (g->funcs[i].lo < hi && g->funcs[i].hi > lo)
			return true;
	return g->has_own && (!sframe_find_fde(&g->own_sec, lo, &fde) ||
			      !sframe_find_fde(&g->own_sec, hi - 1, &fde));
}

/* Code of whole 8- or 16-byte entries, in the file, not too large? */
static bool plt_layout(const struct gen *g, const GElf_Shdr *sh)
{
	u64 entsize = sh->sh_entsize ? sh->sh_entsize : 8;

	return sh->sh_type == SHT_PROGBITS &&
	       (sh->sh_flags & (SHF_ALLOC | SHF_EXECINSTR)) ==
	       (SHF_ALLOC | SHF_EXECINSTR) &&
	       (entsize == 8 || entsize == 16) && sh->sh_size &&
	       !(sh->sh_size % entsize) && sh->sh_size <= PLT_MAX_SIZE &&
	       sframe_elf_section_in(&g->obj, sh);
}

/*
 * One section: described, covered already, or refused (counted).  The
 * FDEs described from code, the PLT's among them, are @first on.
 */
static int plt_section(struct gen *g, const GElf_Shdr *sh, u32 first)
{
	struct plt_step *steps = NULL;
	u32 *entry = NULL, n = 0;
	int why = plt_layout(g, sh) ? PLT_OK : GEN_PLT_LAYOUT;

	if (why == PLT_OK &&
	    gen_fdes_overlap(g, first, sh->sh_addr,
				     sh->sh_addr + sh->sh_size))
		why = GEN_PLT_OVERLAP;
	if (why == PLT_OK) {
		if (plt_covered(g, sh->sh_addr, sh->sh_addr + sh->sh_size)) {
			g->stats.plt_covered++;
			return 0;
		}
		steps = calloc(sh->sh_size, sizeof(*steps));
		entry = calloc(sh->sh_size, sizeof(*entry));
		why = -1;
		if (!steps || !entry)
			goto out;
		why = plt_decode(g->image + sh->sh_offset, (u32)sh->sh_size,
				 steps, &n);
		if (why == PLT_OK)
			why = plt_jumps(steps, n, entry);
	}
	if (why == PLT_OK)
		why = plt_emit(g, sh->sh_addr, (u32)sh->sh_size, steps, n);
	if (why == PLT_OK)
		g->stats.plt_described++;
	else if (why >= 0)
		g->stats.plt_refused[why]++;
out:
	free(steps);
	free(entry);
	return why < 0 ? -1 : 0;
}

/*
 * Add an FDE for each x86-64 PLT section no FDE covers; FDEs described
 * from code before them are @first on.  0, or an exit status with g->err
 * saying why.
 */
int gen_describe_plt(struct gen *g, u32 first)
{
	GElf_Shdr sh;
	size_t i;

	if (g->mach->e_machine != EM_X86_64)
		return 0;
	for (i = 0; i < ARRAY_SIZE(plt_names); i++)
		if (sframe_elf_section(g->obj.elf, plt_names[i], 0, &sh) &&
		    plt_section(g, &sh, first))
			return gen_fail(g, EXIT_USAGE, "out of memory");
	return 0;
}
