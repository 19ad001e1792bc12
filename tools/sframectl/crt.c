// SPDX-License-Identifier: GPL-2.0
/*
 * sframectl gen's startup code: the x86-64 functions no .eh_frame FDE
 * describes because the toolchain's startup files put them in every
 * object without CFI (crtstuff's deregister_tm_clones, register_tm_clones,
 * __do_global_dtors_aux, frame_dummy and in some objects
 * __do_global_ctors_aux; crti's _init and _fini), described from their
 * own instructions.  Every process runs them as it starts and
 * exits, from pages it touches for the first time then; without a rule
 * there, a sample's walk ends in its first frame.
 *
 * What is read: the gaps FDEs leave in .text, .init and .fini, one at a
 * time.  What is understood: the instructions those files hold, nothing
 * more.  A function starts where code follows a return or a jump (or
 * padding after one) and no jump seen so far lands; it is entered by a
 * call, with nothing pushed.  Every jump must land on an instruction of
 * the gap with the same stack as where it lands, a call into the gap on a
 * function's start, and every return and tail jump must leave nothing
 * pushed.  An instruction outside the set, or any
 * of these that fails, leaves the whole gap out, counted.
 */
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* The largest gap read: a few times what the startup files leave. */
#define CRT_MAX_GAP		4096U
/* The deepest stack a function of the gap may build. */
#define CRT_MAX_HEIGHT		512
#define CRT_REG_RSP		4
#define CRT_REG_RBP		5

/* A gap described: beside enum gen_crt_refusal's reasons. */
#define CRT_OK			GEN_CRT_NR_REFUSALS

static const char * const crt_sections[] = { ".init", ".text", ".fini" };

const char * const gen_crt_refusal_names[GEN_CRT_NR_REFUSALS] = {
	[GEN_CRT_SIZE] = "larger than 4096 bytes",
	[GEN_CRT_CODE] = "an instruction the startup files do not hold",
	[GEN_CRT_FLOW] = "a jump, return or stack change that disagrees",
	[GEN_CRT_OVERLAP] = "addresses of another section's",
};

enum crt_kind {
	CRT_PAD,		/* nop, int3: between functions */
	CRT_PLAIN,		/* leaves SP and FP alone; a call returns */
	CRT_CALL,		/* call rel32: .target starts a function */
	CRT_PUSH,
	CRT_POP,
	CRT_SP_ADD,		/* add or sub an immediate to %rsp */
	CRT_FP_FROM_SP,		/* mov %rsp,%rbp */
	CRT_LEAVE,
	CRT_JCC,
	CRT_JMP,
	CRT_JMP_OUT,		/* jmp *r/m: a tail call */
	CRT_RET,
};

/* What the stack holds before an instruction: the state a jump brings. */
struct crt_state {
	s32 height;		/* bytes pushed since the call; < 0: none */
	s32 fp_saved;		/* height %rbp was pushed at, or -1 */
	s32 fp_frame;		/* height %rsp was copied to %rbp at, or -1 */
};

struct crt_insn {
	u32 off;		/* in the gap */
	u8 len;
	u8 kind;
	u8 reg;			/* CRT_PUSH, CRT_POP */
	bool start;		/* a function starts here */
	bool landed;		/* a jump seen before lands here */
	s32 delta;		/* CRT_SP_ADD: bytes taken (sub) or given */
	s64 target;		/* CRT_JCC, CRT_JMP, CRT_CALL: offset in gap */
	struct crt_state in;	/* height < 0: padding, not run */
	struct crt_state jump;	/* what the landing jumps bring */
};

/* Where an operand's ModRM form leaves the destination. */
enum crt_dest { CRT_DEST_NONE, CRT_DEST_REG, CRT_DEST_RM };

/* The ModRM instructions understood: what they write, immediate size. */
static const struct crt_modrm_op {
	u8 op;
	u8 dest;
	u8 imm;
} crt_modrm_ops[] = {
	{ 0x01, CRT_DEST_RM, 0 }, { 0x03, CRT_DEST_REG, 0 },	/* add */
	{ 0x09, CRT_DEST_RM, 0 }, { 0x0b, CRT_DEST_REG, 0 },	/* or */
	{ 0x21, CRT_DEST_RM, 0 }, { 0x23, CRT_DEST_REG, 0 },	/* and */
	{ 0x29, CRT_DEST_RM, 0 }, { 0x2b, CRT_DEST_REG, 0 },	/* sub */
	{ 0x31, CRT_DEST_RM, 0 }, { 0x33, CRT_DEST_REG, 0 },	/* xor */
	{ 0x38, CRT_DEST_NONE, 0 }, { 0x39, CRT_DEST_NONE, 0 },	/* cmp */
	{ 0x3a, CRT_DEST_NONE, 0 }, { 0x3b, CRT_DEST_NONE, 0 },
	{ 0x63, CRT_DEST_REG, 0 },				/* movsxd */
	{ 0x80, CRT_DEST_RM, 1 }, { 0x81, CRT_DEST_RM, 4 },	/* group 1 */
	{ 0x83, CRT_DEST_RM, 1 },
	{ 0x84, CRT_DEST_NONE, 0 }, { 0x85, CRT_DEST_NONE, 0 },	/* test */
	{ 0x88, CRT_DEST_RM, 0 }, { 0x89, CRT_DEST_RM, 0 },	/* mov */
	{ 0x8a, CRT_DEST_REG, 0 }, { 0x8b, CRT_DEST_REG, 0 },
	{ 0x8d, CRT_DEST_REG, 0 },				/* lea */
	{ 0xc1, CRT_DEST_RM, 1 }, { 0xd1, CRT_DEST_RM, 0 },	/* shifts */
	{ 0xc6, CRT_DEST_RM, 1 }, { 0xc7, CRT_DEST_RM, 4 },	/* mov imm */
	{ 0xf6, CRT_DEST_NONE, 1 }, { 0xf7, CRT_DEST_NONE, 4 },	/* test */
};

/* The bytes of a ModRM operand (ModRM, SIB, displacement), 0 if cut. */
static u32 crt_modrm_len(const u8 *p, u32 left)
{
	u8 mod = p[0] >> 6, rm = p[0] & 7;
	u32 n = 1;

	if (mod != 3 && rm == 4) {
		if (left < 2)
			return 0;
		n++;
		if (mod == 0 && (p[1] & 7) == 5)
			n += 4;
	}
	if (mod == 0 && rm == 5)
		n += 4;
	else if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return n <= left ? n : 0;
}

static s64 crt_rel(const u8 *p, u8 size)
{
	if (size == 1)
		return (s8)p[0];
	return (s32)((u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 |
		     (u32)p[3] << 24);
}

/*
 * A ModRM instruction: what it writes must not be %rsp or %rbp, but for
 * add/sub of an immediate to %rsp and mov %rsp,%rbp.  Without a REX
 * prefix 4 and 5 name %ah and %ch in byte forms: refused all the same.
 */
static bool crt_modrm_insn(const struct crt_modrm_op *m, const u8 *p,
			   u32 left, u8 rex, struct crt_insn *in)
{
	u32 n = left ? crt_modrm_len(p, left) : 0;
	u8 mod, reg, rm, dest;

	if (!n || n + m->imm > left)
		return false;
	mod = p[0] >> 6;
	reg = ((p[0] >> 3) & 7) | (rex & 4) << 1;
	rm = (p[0] & 7) | (rex & 1) << 3;
	in->len += n + m->imm;
	in->kind = CRT_PLAIN;
	if ((m->op == 0xc6 || m->op == 0xc7) && (reg & 7))
		return false;
	if (m->dest == CRT_DEST_NONE ||
	    (m->op >= 0x80 && m->op <= 0x83 && (reg & 7) == 7) ||
	    (m->dest == CRT_DEST_RM && mod != 3))
		return (m->op != 0xf6 && m->op != 0xf7) || (reg & 7) == 0;
	dest = m->dest == CRT_DEST_REG ? reg : rm;
	if (dest == CRT_REG_RSP && (m->op == 0x81 || m->op == 0x83) &&
	    (rex & 8) && ((reg & 7) == 0 || (reg & 7) == 5)) {
		in->kind = CRT_SP_ADD;
		in->delta = (s32)crt_rel(p + n, m->imm);
		if ((reg & 7) == 5)
			in->delta = -in->delta;
		return true;
	}
	if (dest == CRT_REG_RBP && m->op == 0x89 && reg == CRT_REG_RSP &&
	    (rex & 8)) {
		in->kind = CRT_FP_FROM_SP;
		return true;
	}
	return dest != CRT_REG_RSP && dest != CRT_REG_RBP;
}

/* The relative jumps and calls: jcc rel8/rel32, jmp rel8/rel32, call. */
static bool crt_branch(u8 op, const u8 *p, u32 left, struct crt_insn *in)
{
	u8 size = (op == 0xe8 || op == 0xe9 || op == 0x0f) ? 4 : 1;

	if (op == 0x0f) {
		if (!left || (p[0] & 0xf0) != 0x80)
			return false;
		p++;
		left--;
		in->len++;
	}
	if (left < size)
		return false;
	in->len += size;
	in->kind = op == 0xe8 ? CRT_CALL :
		   (op == 0xe9 || op == 0xeb) ? CRT_JMP : CRT_JCC;
	in->target = (s64)in->off + in->len + crt_rel(p, size);
	return true;
}

/* The two-byte opcodes: nopw/nopl, endbr64, jcc rel32. */
static bool crt_0f(const u8 *p, u32 left, bool rep, bool narrow,
		   struct crt_insn *in)
{
	u32 n;

	if (left && p[0] == 0x1f) {
		n = left > 1 ? crt_modrm_len(p + 1, left - 1) : 0;
		in->len += 1 + n;
		in->kind = CRT_PAD;
		return n;
	}
	if (narrow)
		return false;
	if (left >= 2 && rep && p[0] == 0x1e && p[1] == 0xfa) {
		in->len += 2;
		in->kind = CRT_PLAIN;
		return true;
	}
	return crt_branch(0x0f, p, left, in);
}

/* Decode the instruction at @p into @in: false if it is not understood. */
static bool crt_decode(const u8 *p, u32 left, struct crt_insn *in)
{
	bool rep = false, narrow = false;
	u8 rex = 0, op;
	size_t i;

	in->len = 0;
	while (in->len < left && in->len < 14 &&
	       (p[in->len] == 0x66 || p[in->len] == 0xf3 ||
		p[in->len] == 0x2e)) {
		rep |= p[in->len] == 0xf3;
		narrow |= p[in->len] == 0x66;
		in->len++;
	}
	if (in->len < left && (p[in->len] & 0xf0) == 0x40)
		rex = p[in->len++];
	if (in->len >= left)
		return false;
	op = p[in->len++];
	p += in->len;
	left -= in->len;
	if (op == 0x0f)
		return crt_0f(p, left, rep, narrow, in);
	if (op == 0x90 || op == 0xcc) {
		in->kind = CRT_PAD;
		return true;
	}
	if (narrow)		/* operand sizes change: none of the set's */
		return false;
	if (op >= 0x50 && op <= 0x5f) {
		in->kind = op < 0x58 ? CRT_PUSH : CRT_POP;
		in->reg = (op & 7) | (rex & 1) << 3;
		return in->reg != CRT_REG_RSP;
	}
	if ((op >= 0x70 && op <= 0x7f) || op == 0xe8 || op == 0xe9 ||
	    op == 0xeb)
		return crt_branch(op, p, left, in);
	if (op == 0xc3 || op == 0xc9) {
		in->kind = op == 0xc3 ? CRT_RET : CRT_LEAVE;
		return true;
	}
	if (op == 0xff) {	/* call *r/m (/2), jmp *r/m (/4) */
		u32 n = left ? crt_modrm_len(p, left) : 0;
		u8 reg = left ? (p[0] >> 3) & 7 : 0;

		in->len += n;
		in->kind = reg == 2 ? CRT_PLAIN : CRT_JMP_OUT;
		return n && (reg == 2 || reg == 4);
	}
	if (op >= 0xb8 && op <= 0xbf) {	/* mov $imm, %reg */
		u8 reg = (op & 7) | (rex & 1) << 3, imm = rex & 8 ? 8 : 4;

		in->len += imm;
		in->kind = CRT_PLAIN;
		return imm <= left && reg != CRT_REG_RSP && reg != CRT_REG_RBP;
	}
	if (op == 0x3c || op == 0x3d || op == 0xa8 || op == 0xa9) {
		u8 imm = op & 1 ? 4 : 1;	/* cmp, test $imm, %al/%eax */

		in->len += imm;
		in->kind = CRT_PLAIN;
		return imm <= left;
	}
	for (i = 0; i < ARRAY_SIZE(crt_modrm_ops); i++)
		if (crt_modrm_ops[i].op == op)
			return crt_modrm_insn(&crt_modrm_ops[i], p, left, rex,
					      in);
	return false;
}

static bool crt_same(const struct crt_state *a, const struct crt_state *b)
{
	return a->height == b->height && a->fp_saved == b->fp_saved &&
	       a->fp_frame == b->fp_frame;
}

/* Do @a and @b give the same rule (where %rbp points aside)? */
static bool crt_same_rule(const struct crt_state *a,
			  const struct crt_state *b)
{
	return a->height == b->height && a->fp_saved == b->fp_saved;
}

static struct crt_insn *crt_at(struct crt_insn *insns, u32 n, s64 off)
{
	u32 lo = 0, hi = n;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (insns[mid].off == off)
			return &insns[mid];
		if (insns[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The jump or call @from brings @st to its target in the gap: an
 * instruction behind must have run with the same state, one ahead gets
 * it (and any other jump there must bring the same).
 */
static bool crt_land(struct crt_insn *insns, u32 n,
		     const struct crt_insn *from, const struct crt_state *st)
{
	struct crt_insn *at = crt_at(insns, n, from->target);

	if (!at)
		return false;
	if (at <= from)
		return at->in.height >= 0 && crt_same(&at->in, st);
	if (at->landed)
		return crt_same(&at->jump, st);
	at->landed = true;
	at->jump = *st;
	return true;
}

/* What @in does to @st; false if the stack it leaves is not understood. */
static bool crt_apply(const struct crt_insn *in, struct crt_state *st)
{
	switch (in->kind) {
	case CRT_PUSH:
		if (in->reg == CRT_REG_RBP) {
			if (st->fp_saved >= 0)
				return false;
			st->fp_saved = st->height;
		}
		st->height += 8;
		break;
	case CRT_POP:
		st->height -= 8;
		if (in->reg == CRT_REG_RBP) {
			if (st->fp_saved != st->height)
				return false;
			st->fp_saved = -1;
			st->fp_frame = -1;
		}
		break;
	case CRT_SP_ADD:
		st->height -= in->delta;
		if (in->delta % 8)
			return false;
		break;
	case CRT_FP_FROM_SP:
		if (st->fp_saved < 0)
			return false;
		st->fp_frame = st->height;
		break;
	case CRT_LEAVE:
		if (st->fp_frame < 0 || st->fp_saved != st->fp_frame - 8)
			return false;
		st->height = st->fp_saved;
		st->fp_saved = -1;
		st->fp_frame = -1;
		break;
	default:
		break;
	}
	return st->height >= 0 && st->height <= CRT_MAX_HEIGHT &&
	       st->height > st->fp_saved;
}

/*
 * The state before each instruction, in order: what falls through, or
 * what a jump seen before brings, or a function's start after a return
 * or a jump.  A call into the gap brings a function's start (so that a
 * call to the next instruction, which leaves its return address pushed,
 * disagrees).  false if any jump, return or stack change disagrees.
 */
static bool crt_flow(struct crt_insn *insns, u32 n, u32 gap)
{
	const struct crt_state none = { -1, -1, -1 };
	const struct crt_state entry = { 0, -1, -1 };
	struct crt_state st = none;
	u32 i;

	for (i = 0; i < n; i++) {
		struct crt_insn *in = &insns[i];

		if (st.height < 0 && in->kind == CRT_PAD && !in->landed) {
			in->in = none;
			continue;
		}
		if (st.height < 0) {
			in->start = !in->landed;
			st = in->landed ? in->jump : entry;
		} else if (in->landed && !crt_same(&in->jump, &st)) {
			return false;
		}
		in->in = st;
		if (in->kind == CRT_JCC || in->kind == CRT_JMP ||
		    in->kind == CRT_CALL) {
			bool inside = in->target >= 0 && in->target < gap;
			const struct crt_state *brings =
				in->kind == CRT_CALL ? &entry : &st;

			if (inside && !crt_land(insns, n, in, brings))
				return false;
			if (!inside && (in->kind == CRT_JCC ||
					(in->kind == CRT_JMP && st.height)))
				return false;
		}
		if ((in->kind == CRT_JMP_OUT || in->kind == CRT_RET) &&
		    st.height)
			return false;
		if (in->kind == CRT_JMP || in->kind == CRT_JMP_OUT ||
		    in->kind == CRT_RET) {
			st = none;
			continue;
		}
		if (!crt_apply(in, &st))
			return false;
	}
	return st.height < 0;
}

/* The rule before an instruction run with @st. */
static struct sframe_enc_rule crt_rule(const struct gen *g,
				       const struct crt_state *st)
{
	struct sframe_enc_rule rule = {
		.cfa = {
			.kind = SFRAME_ENC_REG, .reg = GEN_REG_RSP,
			.off = 8 + st->height,
		},
		.ra = {
			.kind = SFRAME_ENC_AT_CFA,
			.off = sframe_enc_fixed_ra(g->mach->arch),
		},
		.fp = { .kind = SFRAME_ENC_SAME },
	};

	if (st->fp_saved >= 0) {
		rule.fp.kind = SFRAME_ENC_AT_CFA;
		rule.fp.off = -16 - st->fp_saved;
	}
	return rule;
}

/*
 * One FDE from insns[@first] up to its last instruction run before
 * insns[@last], at @addr in the gap: an FRE wherever the state changes.
 * CRT_OK, or -1 out of memory.
 */
static int crt_emit(struct gen *g, u64 addr, const struct crt_insn *insns,
		    u32 first, u32 last)
{
	struct sframe_enc_fde fde = {
		.start = addr + insns[first].off, .first = g->nfres,
		.fde_type = SFRAME_FDE_TYPE_DEFAULT,
		.pc_type = SFRAME_PC_TYPE_INC,
	};
	const struct crt_state *prev = NULL;
	struct sframe_enc_rule rule;
	u32 i, end = insns[first].off;

	for (i = first; i < last; i++) {
		if (insns[i].in.height < 0)
			continue;
		end = insns[i].off + insns[i].len;
		if (prev && crt_same_rule(prev, &insns[i].in))
			continue;
		prev = &insns[i].in;
		rule = crt_rule(g, prev);
		if (!gen_add_fre(g, insns[i].off - insns[first].off, &rule))
			return -1;
	}
	fde.size = end - insns[first].off;
	fde.num = g->nfres - fde.first;	/* < CRT_MAX_GAP < GEN_MAX_FDE_FRES */
	if (!gen_add_fde(g, &fde))
		return -1;
	g->stats.crt_described++;
	return CRT_OK;
}

/* Decode and follow one gap: CRT_OK or a refusal. */
static int crt_read_gap(const u8 *code, u32 size, struct crt_insn *insns,
			u32 *n)
{
	u32 off;

	for (off = 0, *n = 0; off < size; off += insns[(*n)++].len) {
		insns[*n] = (struct crt_insn){ .off = off };
		if (!crt_decode(code + off, size - off, &insns[*n]))
			return GEN_CRT_CODE;
	}
	return crt_flow(insns, *n, size) ? CRT_OK : GEN_CRT_FLOW;
}

/* Describe the functions of the gap [@lo, @hi) of section @sh. */
static int crt_gap(struct gen *g, const GElf_Shdr *sh, u64 lo, u64 hi,
		   struct crt_insn *insns)
{
	u32 n, i, first;
	int ret = GEN_CRT_SIZE;

	if (hi - lo <= CRT_MAX_GAP)
		ret = crt_read_gap(g->image + sh->sh_offset +
				   (lo - sh->sh_addr), (u32)(hi - lo), insns,
				   &n);
	for (first = 0; ret == CRT_OK && first < n; first = i) {
		for (i = first + 1; i < n && !insns[i].start; i++)
			;
		if (insns[first].start)
			ret = crt_emit(g, lo, insns, first, i);
	}
	if (ret >= 0 && ret != CRT_OK)
		g->stats.crt_refused[ret]++;
	return ret < 0 ? -1 : 0;
}

/* An FDE's addresses. */
struct crt_range {
	u64 lo;
	u64 hi;
};

static int crt_range_order(const void *a, const void *b)
{
	const struct crt_range *ra = a, *rb = b;

	return ra->lo < rb->lo ? -1 : ra->lo > rb->lo;
}

/* Is [@lo, @hi) covered by the object's own section (--fill)? */
static bool crt_own_covers(const struct gen *g, u64 lo, u64 hi)
{
	struct sframe_fde fde;

	return g->has_own && (!sframe_find_fde(&g->own_sec, lo, &fde) ||
			      !sframe_find_fde(&g->own_sec, hi - 1, &fde));
}

/*
 * Each gap of section @sh between the FDEs @funcs (sorted by lo); FDEs
 * described before, @first on, must not share its addresses (only a
 * damaged object's sections overlap).
 */
static int crt_section(struct gen *g, const GElf_Shdr *sh,
		       const struct crt_range *funcs, u32 nfuncs, u32 first,
		       struct crt_insn *insns)
{
	u64 at = sh->sh_addr, end = sh->sh_addr + sh->sh_size;
	u32 i = 0;

	if (sh->sh_type != SHT_PROGBITS || !(sh->sh_flags & SHF_EXECINSTR) ||
	    !sframe_elf_section_in(&g->obj, sh))
		return 0;
	if (gen_fdes_overlap(g, first, at, end)) {
		g->stats.crt_refused[GEN_CRT_OVERLAP]++;
		return 0;
	}
	while (at < end) {
		u64 next = end;

		while (i < nfuncs && funcs[i].hi <= at)
			i++;
		if (i < nfuncs && funcs[i].lo <= at) {
			at = funcs[i].hi;
			continue;
		}
		if (i < nfuncs && funcs[i].lo < end)
			next = funcs[i].lo;
		if (!crt_own_covers(g, at, next) &&
		    crt_gap(g, sh, at, next, insns))
			return -1;
		at = next;
	}
	return 0;
}

/*
 * Add an FDE for each startup-file function of an x86-64 object that no
 * FDE covers (the caller sorts them in).  0, or an exit status with
 * g->err saying why.
 */
int gen_describe_crt(struct gen *g)
{
	u32 first = g->nfdes, i;
	struct crt_range *funcs;
	struct crt_insn *insns;
	GElf_Shdr sh;
	int ret = -1;

	if (g->mach->e_machine != EM_X86_64)
		return 0;
	insns = calloc(CRT_MAX_GAP, sizeof(*insns));
	funcs = calloc(g->nfuncs + 1, sizeof(*funcs));
	if (insns && funcs) {
		for (i = 0; i < g->nfuncs; i++)
			funcs[i] = (struct crt_range){
				g->funcs[i].lo, g->funcs[i].hi,
			};
		qsort(funcs, g->nfuncs, sizeof(*funcs), crt_range_order);
		ret = 0;
	}
	for (i = 0; !ret && i < ARRAY_SIZE(crt_sections); i++)
		if (sframe_elf_section(g->obj.elf, crt_sections[i], 0, &sh))
			ret = crt_section(g, &sh, funcs, g->nfuncs, first,
					  insns);

	free(insns);
	free(funcs);
	return ret ? gen_fail(g, EXIT_USAGE, "out of memory") : 0;
}
