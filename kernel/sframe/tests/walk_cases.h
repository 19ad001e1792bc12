/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Synthetic stacks for the walker, shared by the KUnit suite and the
 * user-space test: frames of a real program laid out in memory the way
 * its prologues leave them, for each machine the walk knows.  x86-64: the
 * sid-2.47.50 test program (its .sframe is in core_kunit_data.h);
 * AArch64: tools/testing/sframe/walk-aarch64.s (walk_aarch64_data.h).
 * Each case runs the real walker over a fake memory and lists the return
 * addresses it must report and why it must stop.
 *
 * Addresses in the cases are symbolic: TEXT(x) is link address x of the
 * program, loaded at WALK_BIAS; STACK(x) is byte x of the fake stack.
 * The program's text reads as calls wherever a case does not give its
 * code (struct walk_suite: text_fill), so that every return address
 * follows one unless the case says otherwise.
 */
#ifndef _SFRAME_WALK_CASES_H
#define _SFRAME_WALK_CASES_H

#include <sframe/walk.h>
#include "core_kunit_data.h"
#include "walk_aarch64_data.h"

#define WALK_BIAS		0x555555554000ULL
#define WALK_STACK		0x7ffffffde000ULL
#define WALK_STACK_WORDS	128
#define WALK_MAX_FRAMES		16

#define TEXT(x)			(WALK_BIAS + (x))
#define WALK_TEXT_SPAN		0x1000000ULL	/* the programs' text, at most */
#define STACK(x)		(WALK_STACK + (x))

/* A word of the fake stack: byte offset and value. */
struct walk_word {
	u32 off;
	u64 val;
};

struct walk_case {
	const char *name;
	u64 ip, sp, fp;
	struct {
		u8 num;			/* DWARF number */
		u64 val;		/* 0: not available */
	} reg;				/* one more register of the first frame */
	u64 pac_bits;			/* signed return addresses carry these */
	bool fill;			/* the section only fills another's gaps */
	u64 no_sframe_below;		/* text below this has no SFrame (0: none) */
	u64 tramp;			/* an rt_sigreturn trampoline here (0: none) */
	u8 sigreturn;			/* which of the arch's sequences it is */
	u64 tramp_xor;			/* XORed into its first 8 bytes */
	u64 code_at;			/* two words of code here (0: none) */
	u64 code[2];
	u64 text_end;			/* code from here on unreadable (0: none) */
	u64 text_start;			/* and code below this (0: none) */
	struct walk_word words[12];
	u64 want[WALK_MAX_FRAMES];	/* callers' IPs, 0-terminated */
	enum sframe_walk_stop want_stop;
	/* frames stepped by frame pointers where SFrame had no answer */
	unsigned int want_fallback;
	/* SFrame steps whose CFA came from a frame record */
	unsigned int want_record_cfa;
};

/*
 * CPython 3.13's x86-64 perf trampoline as two words of code, copied at
 * 0x800: f3 0f 1e fa (endbr64) 48 83 ec 08 (sub $8,%rsp) ff d1 (call
 * *%rcx) 48 83 c4 08 (add $8,%rsp) c3 (ret), then the next copy's first
 * byte; and as built without CET (no endbr64).
 */
#define WALK_TRAMP_CET_0	0x08ec8348fa1e0ff3ULL
#define WALK_TRAMP_CET_8	0xf3c308c48348d1ffULL
#define WALK_TRAMP_0		0x8348d1ff08ec8348ULL
#define WALK_TRAMP_8		0xff08ec8348c308c4ULL

static const struct walk_case walk_cases_x86_64[] = {
	{
		/*
		 * leaf <- recurse <- main <- outermost: SP-based rules with
		 * the FP saved at CFA - 24 in recurse and main.  main's return
		 * address 0x10c8 starts a new row (sp+24): the caller's rule
		 * is the one at 0x10c7, the call (sp+32).
		 */
		.name = "sp-based frames down to the outermost frame",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.words = {
			{ 0x100, TEXT(0x11e0) },	/* leaf's RA, in recurse */
			{ 0x110, STACK(0x1e0) },	/* recurse saved FP */
			{ 0x120, TEXT(0x10c8) },	/* recurse's RA, in main */
			{ 0x130, STACK(0x1d0) },	/* main saved FP */
			{ 0x140, TEXT(0x1460) },	/* main's RA, in outermost */
		},
		.want = { TEXT(0x11e0), TEXT(0x10c8), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/*
		 * The same stack, where the object's own section has no
		 * function at all: every rule comes from the one filling
		 * its gaps.
		 */
		.name = "rules from the section filling the object's gaps",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.fill = true,
		.words = {
			{ 0x100, TEXT(0x11e0) },
			{ 0x110, STACK(0x1e0) },
			{ 0x120, TEXT(0x10c8) },
			{ 0x130, STACK(0x1d0) },
			{ 0x140, TEXT(0x1460) },
		},
		.want = { TEXT(0x11e0), TEXT(0x10c8), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/* vla_user: CFA = FP + 16 while the VLA moves SP. */
		.name = "fp-based CFA in a function with a VLA",
		.ip = TEXT(0x1230), .sp = STACK(0x40), .fp = STACK(0x100),
		.words = {
			{ 0x100, STACK(0x130) },	/* saved FP */
			{ 0x108, TEXT(0x10a0) },	/* RA, in main */
			{ 0x118, STACK(0x1d0) },	/* main saved FP, CFA - 24 */
			{ 0x128, TEXT(0x1460) },	/* main's RA */
		},
		.want = { TEXT(0x10a0), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/* drap body: CFA = *(FP - 8), FP = *(FP), RA at CFA - 8. */
		.name = "flex DRAP rule: CFA through a dereference",
		.ip = TEXT(0x1330), .sp = STACK(0x20), .fp = STACK(0x80),
		.words = {
			{ 0x78, STACK(0x100) },		/* *(FP - 8): the CFA */
			{ 0x80, STACK(0x1f0) },		/* *(FP): caller's FP */
			{ 0xf8, TEXT(0x1458) },		/* RA, in call_drap */
			{ 0x118, TEXT(0x1460) },	/* call_drap's RA (CFA sp+32) */
		},
		.want = { TEXT(0x1458), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/* drap entry: CFA = r10, known from the interrupted registers. */
		.name = "flex rule on r10 in the interrupted frame",
		.ip = TEXT(0x1318), .sp = STACK(0x20), .fp = STACK(0x1f0),
		.reg = { 10, STACK(0x100) },
		.words = {
			{ 0xf8, TEXT(0x1458) },
			{ 0x118, TEXT(0x1460) },
		},
		.want = { TEXT(0x1458), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/*
		 * A rule the walk cannot use here is no answer: frame
		 * pointers lead on, as the stock walker, to a rule again.
		 */
		.name = "flex rule on r10 without the register: frame pointers",
		.ip = TEXT(0x1318), .sp = STACK(0x20), .fp = STACK(0x1f0),
		.words = {
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x1460) },
		},
		.want = { TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
		.want_fallback = 1,
	},
	{
		/* Neither: the rule's reason ends the walk. */
		.name = "flex rule on r10 without the register, FP below SP",
		.ip = TEXT(0x1318), .sp = STACK(0x20), .fp = STACK(0x10),
		.want_stop = SFRAME_STOP_REGISTER,
	},
	{
		/* Text below 0x1000 has no SFrame: follow the FP chain there. */
		.name = "frame pointers where there is no SFrame",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000,
		.words = {
			{ 0x100, TEXT(0x0800) },	/* leaf's RA, no SFrame */
			{ 0x1f0, STACK(0x200) },	/* saved FP: end of chain */
			{ 0x1f8, TEXT(0x0900) },
			{ 0x208, 0 },			/* RA 0 ends the walk */
		},
		.want = { TEXT(0x0800), TEXT(0x0900) },
		.want_stop = SFRAME_STOP_IP_ZERO,
	},
	{
		/*
		 * A PC without a rule in an object with SFrame (code without
		 * CFI): frame pointers, as the stock walker, whatever the
		 * section's flags say; then the caller's rule again.
		 */
		.name = "no rule in an SFrame object: frame pointers",
		.ip = TEXT(0x1000), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.words = {
			{ 0x1f0, STACK(0x1f8) },
			{ 0x1f8, TEXT(0x1460) },
		},
		.want = { TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
		.want_fallback = 1,
	},
	{
		.name = "RA slot outside the readable stack",
		.ip = TEXT(0x11c2), .sp = STACK(WALK_STACK_WORDS * 8),
		.fp = STACK(0x1f0),
		.want_stop = SFRAME_STOP_READ,
	},
	{
		/* FP below SP makes CFA = FP + 16 land at or below SP. */
		.name = "CFA not above SP",
		.ip = TEXT(0x1230), .sp = STACK(0x100), .fp = STACK(0x80),
		.want_stop = SFRAME_STOP_CFA_NOT_ABOVE_SP,
	},
	{
		.name = "misaligned CFA",
		.ip = TEXT(0x1230), .sp = STACK(0x40), .fp = STACK(0x104),
		.want_stop = SFRAME_STOP_MISALIGNED,
	},
	{
		/*
		 * The chain leads below SP once, to the stack before a switch
		 * (Go's cgo: C on the system stack, its caller's record on the
		 * goroutine's); below SP a second time it ends.
		 */
		.name = "frame pointer below SP in the chain, twice",
		.ip = TEXT(0x0800), .sp = STACK(0x100), .fp = STACK(0x80),
		.no_sframe_below = 0x1000,
		.words = {
			{ 0x80, STACK(0x40) },
			{ 0x88, TEXT(0x0900) },
		},
		.want = { TEXT(0x0900) },
		.want_stop = SFRAME_STOP_FP_CHAIN,
	},
	{
		/*
		 * leaf was a signal handler: it returns to glibc's trampoline
		 * (no SFrame), where SP is the rt_sigframe's ucontext, whose
		 * sigcontext at +40 holds BP, SP and IP of leaf, interrupted
		 * at 0x11c2 and looked up there, not one byte before.
		 */
		.name = "signal handler, glibc trampoline, interrupted frame",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .tramp = 0x700,
		.words = {
			{ 0x100, TEXT(0x700) },		/* handler's RA */
			{ 0x180, STACK(0x3f0) },	/* sigcontext bp */
			{ 0x1a8, STACK(0x1c0) },	/* sigcontext sp */
			{ 0x1b0, TEXT(0x11c2) },	/* sigcontext ip */
			{ 0x1c0, TEXT(0x1460) },	/* leaf's RA */
		},
		.want = { TEXT(0x700), TEXT(0x11c2), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/* A sample in musl's trampoline itself. */
		.name = "sample in a musl signal trampoline",
		.ip = TEXT(0x700), .sp = STACK(0x108), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .tramp = 0x700,
		.sigreturn = 1,			/* musl's */
		.words = {
			{ 0x180, STACK(0x3f0) },
			{ 0x1a8, STACK(0x1c0) },
			{ 0x1b0, TEXT(0x11c2) },
			{ 0x1c0, TEXT(0x1460) },
		},
		.want = { TEXT(0x11c2), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/* Not a trampoline: one byte differs, frame pointers as usual. */
		.name = "almost a trampoline",
		.ip = TEXT(0x701), .sp = STACK(0x108), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .tramp = 0x700,
		.words = {
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0900) },
			{ 0x208, 0 },
		},
		.want = { TEXT(0x0900) },
		.want_stop = SFRAME_STOP_IP_ZERO,
	},
	{
		/* mov $14, %rax; syscall: not rt_sigreturn, frame pointers. */
		.name = "almost glibc's trampoline: another syscall",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .tramp = 0x700,
		.tramp_xor = 0x01000000,
		.words = {
			{ 0x100, TEXT(0x700) },		/* handler's RA */
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0900) },
			{ 0x208, 0 },
		},
		.want = { TEXT(0x700), TEXT(0x0900) },
		.want_stop = SFRAME_STOP_IP_ZERO,
	},
	{
		/*
		 * musl's 7 bytes end a page, the next is not there: an
		 * 8-byte read at the IP would fail, aligned words do not.
		 * Interrupted in outermost, which ends the walk.
		 */
		.name = "musl signal trampoline at the end of a page",
		.ip = TEXT(0xff9), .sp = STACK(0x108), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .tramp = 0xff9, .text_end = 0x1000,
		.sigreturn = 1,
		.words = {
			{ 0x1a8, STACK(0x1c0) },	/* sigcontext sp */
			{ 0x1b0, TEXT(0x1460) },	/* sigcontext ip */
		},
		.want = { TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/*
		 * glibc's 9 bytes end a page, across two words: a read of
		 * the one after the IP's 8 bytes would fail.
		 */
		.name = "glibc signal trampoline at the end of a page",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .tramp = 0xff7, .text_end = 0x1000,
		.words = {
			{ 0x100, TEXT(0xff7) },		/* handler's RA */
			{ 0x1a8, STACK(0x1c0) },
			{ 0x1b0, TEXT(0x1460) },
		},
		.want = { TEXT(0xff7), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/*
		 * Interrupted at leaf's ret, its last byte: an exact IP is
		 * inside its function, stepped by leaf's rule as anywhere.
		 */
		.name = "interrupted at a function's last byte",
		.ip = TEXT(0x11c4), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.words = {
			{ 0x100, TEXT(0x11e0) },
			{ 0x110, STACK(0x1e0) },
			{ 0x120, TEXT(0x10c8) },
			{ 0x130, STACK(0x1d0) },
			{ 0x140, TEXT(0x1460) },
		},
		.want = { TEXT(0x11e0), TEXT(0x10c8), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/*
		 * leaf was a signal handler whose return address, 0x11c5, is
		 * just past its end, where glibc's trampoline starts without
		 * an FDE: looked up at 0x11c4 like the exact IP above, but
		 * the signal frame, which only the code there tells.  An
		 * answer kept for the IP above must not serve here.
		 */
		.name = "return address past a function's end, at a trampoline",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.tramp = 0x11c5,
		.words = {
			{ 0x100, TEXT(0x11c5) },	/* handler's RA */
			{ 0x180, STACK(0x3f0) },	/* sigcontext bp */
			{ 0x1a8, STACK(0x1c0) },	/* sigcontext sp */
			{ 0x1b0, TEXT(0x11c2) },	/* sigcontext ip */
			{ 0x1c0, TEXT(0x1460) },	/* leaf's RA */
		},
		.want = { TEXT(0x11c5), TEXT(0x11c2), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/*
		 * leaf returns into a copy of CPython 3.13's perf trampoline
		 * at 0x800 (no table: endbr64; sub $8,%rsp; call *%rcx; add
		 * $8,%rsp; ret), called by main: its RA 0x80a is at the add,
		 * so RA at SP + 8, CFA SP + 16, and main's rule goes on.
		 */
		.name = "no table, RA at add $8,%rsp; ret: the epilogue",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { WALK_TRAMP_CET_0, WALK_TRAMP_CET_8 },
		.words = {
			{ 0x100, TEXT(0x080a) },	/* leaf's RA */
			{ 0x110, TEXT(0x10c8) },	/* the trampoline's */
			{ 0x120, STACK(0x1d0) },	/* main saved FP */
			{ 0x130, TEXT(0x1460) },	/* main's RA */
		},
		.want = { TEXT(0x080a), TEXT(0x10c8), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/* Without endbr64: the add at 0x806, its ret in the next word. */
		.name = "no table, add $8,%rsp; ret across two words",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { WALK_TRAMP_0, WALK_TRAMP_8 },
		.words = {
			{ 0x100, TEXT(0x0806) },
			{ 0x110, TEXT(0x10c8) },
			{ 0x120, STACK(0x1d0) },
			{ 0x130, TEXT(0x1460) },
		},
		.want = { TEXT(0x0806), TEXT(0x10c8), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/* A sample at the trampoline's ret, after its add. */
		.name = "no table, interrupted at a bare ret: RA at SP",
		.ip = TEXT(0x080e), .sp = STACK(0x110), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { WALK_TRAMP_CET_0, WALK_TRAMP_CET_8 },
		.words = {
			{ 0x110, TEXT(0x10c8) },
			{ 0x120, STACK(0x1d0) },
			{ 0x130, TEXT(0x1460) },
		},
		.want = { TEXT(0x10c8), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/*
		 * A return address at a bare ret may start another function
		 * after a call that never returns: frame pointers, as before.
		 */
		.name = "no table, RA at a bare ret: frame pointers",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { WALK_TRAMP_CET_0, WALK_TRAMP_CET_8 },
		.words = {
			{ 0x100, TEXT(0x080e) },
			{ 0x110, TEXT(0x10c8) },
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0900) },
			{ 0x208, 0 },
		},
		.want = { TEXT(0x080e), TEXT(0x0900) },
		.want_stop = SFRAME_STOP_IP_ZERO,
	},
	{
		/* sub $8,%rsp; ret (ModRM ec, not c4): frame pointers. */
		.name = "no table, almost an epilogue: frame pointers",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { WALK_TRAMP_CET_0, WALK_TRAMP_CET_8 ^ 0x2800000000ULL },
		.words = {
			{ 0x100, TEXT(0x080a) },
			{ 0x110, TEXT(0x10c8) },
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0900) },
			{ 0x208, 0 },
		},
		.want = { TEXT(0x080a), TEXT(0x0900) },
		.want_stop = SFRAME_STOP_IP_ZERO,
	},
	{
		/* The epilogue's RA slot past the stack: the walk stops. */
		.name = "no table, epilogue's RA slot unreadable",
		.ip = TEXT(0x080a), .sp = STACK(WALK_STACK_WORDS * 8 - 8),
		.fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { WALK_TRAMP_CET_0, WALK_TRAMP_CET_8 },
		.words = {
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0900) },
		},
		.want_stop = SFRAME_STOP_READ,
	},
	{
		/*
		 * The chain reaches a word that is a function's first byte,
		 * after padding (nopl 0(%rax,%rax); endbr64; push %rbp):
		 * FP was no frame pointer, and no call returns there.  The
		 * stock walker reports it as a caller.
		 */
		.name = "frame record whose RA starts a function: refused",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { 0x0000000000841f0fULL, 0xe5894855fa1e0ff3ULL },
		.words = {
			{ 0x100, TEXT(0x0900) },	/* leaf's RA, no SFrame */
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0808) },	/* the endbr64 */
		},
		.want = { TEXT(0x0900) },
		.want_stop = SFRAME_STOP_NOT_CALL,
	},
	{
		/* mov %rax,%rdi; jmp *%rax: a jump is no call. */
		.name = "frame record whose RA follows an indirect jump: refused",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { 0xcccccce0ffc78948ULL, 0xccccccccccccccccULL },
		.words = {
			{ 0x100, TEXT(0x0900) },
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0805) },
		},
		.want = { TEXT(0x0900) },
		.want_stop = SFRAME_STOP_NOT_CALL,
	},
	{
		/*
		 * call *0x44332211(%rip); call *%r11 (REX.B); call
		 * *8(%rsp): each return address follows its call.
		 */
		.name = "frame records after RIP-relative, register and SIB calls",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { 0xff414433221115ffULL, 0x909090082454ffd3ULL },
		.words = {
			{ 0x100, TEXT(0x0900) },
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0806) },
			{ 0x200, STACK(0x210) },
			{ 0x208, TEXT(0x0809) },
			{ 0x210, STACK(0x220) },
			{ 0x218, TEXT(0x080d) },
			{ 0x228, 0 },
		},
		.want = { TEXT(0x0900), TEXT(0x0806), TEXT(0x0809),
			  TEXT(0x080d) },
		.want_stop = SFRAME_STOP_IP_ZERO,
	},
	{
		/*
		 * call *0x1000(,%rax,8) (SIB, no base); call *(%rax); call
		 * *0x80(%rsp) (SIB, 32-bit displacement).
		 */
		.name = "frame records after 7-byte and 2-byte indirect calls",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { 0xff00001000c514ffULL, 0x000000802494ff10ULL },
		.words = {
			{ 0x100, TEXT(0x0900) },
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0807) },
			{ 0x200, STACK(0x210) },
			{ 0x208, TEXT(0x0809) },
			{ 0x210, STACK(0x220) },
			{ 0x218, TEXT(0x0810) },
			{ 0x228, 0 },
		},
		.want = { TEXT(0x0900), TEXT(0x0807), TEXT(0x0809),
			  TEXT(0x0810) },
		.want_stop = SFRAME_STOP_IP_ZERO,
	},
	{
		/*
		 * A goroutine's first frame returns to runtime.goexit + 1:
		 * nop; call runtime.goexit1, one byte past the nop, where no
		 * call ends; its saved FP, 0, ends the chain.
		 */
		.name = "frame record returning to Go's goexit + 1",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { 0x00247ae890ccccccULL, 0xcccccccccccc9000ULL },
		.words = {
			{ 0x100, TEXT(0x0900) },
			{ 0x1f0, 0 },
			{ 0x1f8, TEXT(0x0804) },
		},
		.want = { TEXT(0x0900), TEXT(0x0804) },
		.want_stop = SFRAME_STOP_FP_CHAIN,
	},
	{
		/*
		 * Go's runtime.asyncPreempt: call asyncPreempt2; movups
		 * 0x160(%rsp),%xmm15.  Its frame record holds the IP the
		 * preempting signal interrupted, in padding here, where no
		 * call ends: reported, and stepped from as an exact IP.
		 */
		.name = "frame record of Go's asyncPreempt, its planted IP",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { 0x100f4400000e05e8ULL, 0x0f440000016024bcULL },
		.words = {
			{ 0x100, TEXT(0x0805) },
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0814) },
			{ 0x200, 0 },
			{ 0x208, TEXT(0x0900) },
		},
		.want = { TEXT(0x0805), TEXT(0x0814), TEXT(0x0900) },
		.want_stop = SFRAME_STOP_FP_CHAIN,
	},
	{
		/* The same record after other code: 0x150, not 0x160. */
		.name = "frame record after code one byte off asyncPreempt's",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { 0x100f4400000e05e8ULL, 0x0f440000015024bcULL },
		.words = {
			{ 0x100, TEXT(0x0805) },
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0814) },
			{ 0x200, 0 },
			{ 0x208, TEXT(0x0900) },
		},
		.want = { TEXT(0x0805) },
		.want_stop = SFRAME_STOP_NOT_CALL,
	},
	{
		/*
		 * A handler without SFrame returns to glibc's trampoline,
		 * after padding: a frame record's RA no call put there, and
		 * reported; then the signal frame.
		 */
		.name = "frame record returning to a signal trampoline",
		.ip = TEXT(0x0900), .sp = STACK(0xf0), .fp = STACK(0xf8),
		.no_sframe_below = 0x1000, .tramp = 0x705,
		.words = {
			{ 0xf8, STACK(0x1f0) },		/* handler's record */
			{ 0x100, TEXT(0x705) },
			{ 0x180, STACK(0x3f0) },	/* sigcontext bp */
			{ 0x1a8, STACK(0x1c0) },	/* sigcontext sp */
			{ 0x1b0, TEXT(0x11c2) },	/* sigcontext ip */
			{ 0x1c0, TEXT(0x1460) },	/* leaf's RA */
		},
		.want = { TEXT(0x705), TEXT(0x11c2), TEXT(0x1460) },
		.want_stop = SFRAME_STOP_OUTERMOST,
	},
	{
		/*
		 * HotSpot's interpreter returns to its invoke return entry,
		 * which it pushed: mov -0x10(%rbp),%rsp; movq $0,-0x10(%rbp)
		 * (JDK 17), after the previous entry's jmp *(%r10,%rbx,8).
		 */
		.name = "frame record returning to HotSpot's return entry",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { 0xf0658b48da24ff41ULL, 0x0000f045c748ULL },
		.words = {
			{ 0x100, TEXT(0x0900) },
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0804) },
			{ 0x208, 0 },
		},
		.want = { TEXT(0x0900), TEXT(0x0804) },
		.want_stop = SFRAME_STOP_IP_ZERO,
	},
	{
		/* JDK 25's: mov -0x10(%rbp),%rcx; lea 0(%rbp,%rcx,8),%rsp. */
		.name = "frame record returning to JDK 25's return entry",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { 0xf04d8b48da24ff41ULL, 0x00cd648d48ULL },
		.words = {
			{ 0x100, TEXT(0x0900) },
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0804) },
			{ 0x208, 0 },
		},
		.want = { TEXT(0x0900), TEXT(0x0804) },
		.want_stop = SFRAME_STOP_IP_ZERO,
	},
	{
		/* A differing byte (mov -0x18(%rbp),%rsp): refused. */
		.name = "almost HotSpot's return entry: refused",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .code_at = 0x800,
		.code = { 0xe8658b48da24ff41ULL, 0x0000f045c748ULL },
		.words = {
			{ 0x100, TEXT(0x0900) },
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0804) },
		},
		.want = { TEXT(0x0900) },
		.want_stop = SFRAME_STOP_NOT_CALL,
	},
	{
		/* The code before the return address is not readable. */
		.name = "frame record whose RA's code cannot be read: refused",
		.ip = TEXT(0x11c2), .sp = STACK(0x100), .fp = STACK(0x1f0),
		.no_sframe_below = 0x1000, .text_start = 0x1000,
		.words = {
			{ 0x100, TEXT(0x0900) },
			{ 0x1f0, STACK(0x200) },
			{ 0x1f8, TEXT(0x0904) },
		},
		.want = { TEXT(0x0900) },
		.want_stop = SFRAME_STOP_CODE_UNREADABLE,
	},
};

/*
 * walk-aarch64.s: _start 0x4000b0 calls main (returns to 0x4000bc); main
 * 0x4000c0, frame record at SP after its stp, CFA = FP + 32 from 0x4000c8,
 * calls signed_fn (0x4000cc) and lr_only (0x4000d0); signed_fn 0x4000d8
 * signs LR (paciasp) and keeps a record, CFA = SP + 16 from 0x4000e0,
 * calls leaf (0x4000e8); lr_only 0x4000f4 saves LR alone at CFA - 16 from
 * 0x4000f8, calls leaf (0x4000fc); leaf 0x400104 saves nothing.  gas 2.40
 * marks no outermost frame: _start's RA is "in LR", which a caller's
 * frame no longer knows, so walks end there with a register stop.
 */
#define WALK_AARCH64_PAC	0x003f000000000000ULL
#define WALK_AARCH64_SIGNED(x)	(TEXT(x) | 0x002a000000000000ULL)
/*
 * The mask the arm64 module gives, the kernel's ptrauth_user_pac_mask()
 * with 48-bit user addresses: bits 54 to 48, bit 54 included.
 */
#define WALK_AARCH64_PAC_VA48	0x007f000000000000ULL
#define WALK_AARCH64_SIGNED_54(x) (TEXT(x) | 0x0045000000000000ULL)

static const struct walk_case walk_cases_aarch64[] = {
	{
		/*
		 * leaf: CFA = SP, RA in LR; signed_fn's record holds a signed
		 * RA, reported without its code; main's CFA from FP.
		 */
		.name = "leaf with RA in LR, signed RA, CFA from FP",
		.ip = TEXT(0x400108), .sp = STACK(0x100), .fp = STACK(0x100),
		.reg = { 30, TEXT(0x4000e8) },
		.pac_bits = WALK_AARCH64_PAC,
		.words = {
			{ 0x100, STACK(0x110) },	/* signed_fn's record */
			{ 0x108, WALK_AARCH64_SIGNED(0x4000cc) },
			{ 0x110, 0 },			/* main's record */
			{ 0x118, TEXT(0x4000bc) },
		},
		.want = { TEXT(0x4000e8), TEXT(0x4000cc), TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
	},
	{
		.name = "signed RA without the task's PAC mask: as read",
		.ip = TEXT(0x400108), .sp = STACK(0x100), .fp = STACK(0x100),
		.reg = { 30, TEXT(0x4000e8) },
		.words = {
			{ 0x100, STACK(0x110) },
			{ 0x108, WALK_AARCH64_SIGNED(0x4000cc) },
			{ 0x110, 0 },			/* main's record */
			{ 0x118, TEXT(0x4000bc) },
		},
		/* no rule at the signed address: frame records lead on */
		.want = { TEXT(0x4000e8), WALK_AARCH64_SIGNED(0x4000cc),
			  TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
		.want_fallback = 1,
	},
	{
		/* At lr_only's first instruction, before it saves LR. */
		.name = "sample at a function's entry: RA in LR",
		.ip = TEXT(0x4000f4), .sp = STACK(0x100), .fp = STACK(0x110),
		.reg = { 30, TEXT(0x4000d0) },
		.words = {
			{ 0x110, 0 },
			{ 0x118, TEXT(0x4000bc) },
		},
		.want = { TEXT(0x4000d0), TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
	},
	{
		/* lr_only: RA at CFA - 16, FP not saved and still main's. */
		.name = "LR saved without a frame record",
		.ip = TEXT(0x400104), .sp = STACK(0x100), .fp = STACK(0x110),
		.reg = { 30, TEXT(0x4000fc) },
		.words = {
			{ 0x100, TEXT(0x4000d0) },	/* lr_only's saved LR */
			{ 0x110, 0 },
			{ 0x118, TEXT(0x4000bc) },
		},
		.want = { TEXT(0x4000fc), TEXT(0x4000d0), TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
	},
	{
		/* LR unknown: the frame records lead on, as in stock. */
		.name = "RA in LR, LR not available: frame records",
		.ip = TEXT(0x400104), .sp = STACK(0x100), .fp = STACK(0x110),
		.words = {
			{ 0x110, 0 },			/* main's record */
			{ 0x118, TEXT(0x4000bc) },
		},
		.want = { TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
		.want_fallback = 1,
	},
	{
		/* Frame records below 0x400000, then main's FP-based rule. */
		.name = "frame records where there is no SFrame",
		.ip = TEXT(0x300000), .sp = STACK(0x100), .fp = STACK(0x100),
		.no_sframe_below = 0x400000,
		.words = {
			{ 0x100, STACK(0x110) },
			{ 0x108, TEXT(0x4000d0) },	/* into main */
			{ 0x110, 0 },
			{ 0x118, TEXT(0x4000bc) },
		},
		.want = { TEXT(0x4000d0), TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
	},
	{
		/*
		 * Past the last FDE of an object with SFrame, whatever its
		 * flags say: [FP] = caller's FP, [FP + 8] = LR, signed with
		 * bit 54 set, then main's FP-based rule.
		 */
		.name = "frame record past the FDEs, signed RA",
		.ip = TEXT(0x400200), .sp = STACK(0x100), .fp = STACK(0x100),
		.pac_bits = WALK_AARCH64_PAC_VA48,
		.words = {
			{ 0x100, STACK(0x110) },
			{ 0x108, WALK_AARCH64_SIGNED_54(0x4000cc) },
			{ 0x110, 0 },			/* main's record */
			{ 0x118, TEXT(0x4000bc) },
		},
		.want = { TEXT(0x4000cc), TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
		.want_fallback = 1,
	},
	{
		/*
		 * A frame record says nothing of where its frame ends: an
		 * SP-based rule after it has no SP to start from, and the
		 * next frame record leads on instead.
		 */
		.name = "frame record, then an SP-based rule: SP unknown",
		.ip = TEXT(0x300000), .sp = STACK(0x100), .fp = STACK(0x100),
		.no_sframe_below = 0x400000,
		.words = {
			{ 0x100, STACK(0x110) },
			{ 0x108, TEXT(0x4000fc) },	/* into lr_only */
			{ 0x110, 0 },			/* main's record */
			{ 0x118, TEXT(0x4000bc) },
		},
		.want = { TEXT(0x4000fc), TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
		.want_fallback = 1,
	},
	{
		/*
		 * JIT code's record leads into signed_fn (F: SP-based CFA,
		 * its record at CFA - 16, x29 at it); F's CFA is then x29 +
		 * 16, and its caller lr_only (G: SP-based, RA on its stack,
		 * no record) steps by its rule to main (H), which the next
		 * record would skip.  The stack as the prologues leave it;
		 * the walk checks no call graph.
		 */
		.name = "frame record, then a record at an SP-based CFA: exact SP",
		.ip = TEXT(0x300000), .sp = STACK(0x100), .fp = STACK(0x100),
		.no_sframe_below = 0x400000,
		.pac_bits = WALK_AARCH64_PAC,
		.words = {
			{ 0x100, STACK(0x120) },	/* JIT's record */
			{ 0x108, TEXT(0x4000e8) },	/* into signed_fn */
			{ 0x120, STACK(0x160) },	/* signed_fn's record */
			{ 0x128, WALK_AARCH64_SIGNED(0x4000fc) },
			{ 0x130, TEXT(0x4000d0) },	/* lr_only's LR */
			{ 0x160, 0 },			/* main's record */
			{ 0x168, TEXT(0x4000bc) },
		},
		.want = { TEXT(0x4000e8), TEXT(0x4000fc), TEXT(0x4000d0),
			  TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
		.want_record_cfa = 1,
	},
	{
		/*
		 * The shape the CFA from a record takes on trust: signed_fn
		 * saving x29 and x30 as a pair with x29 still main's (it is
		 * lr_only's, which saves none).  The step reads the record
		 * x29 points to, as the stock walker would, and lr_only's
		 * frame is missed as it is without the module.
		 */
		.name = "record pair saved, x29 not at it: the record x29 is at",
		.ip = TEXT(0x300000), .sp = STACK(0x100), .fp = STACK(0x100),
		.no_sframe_below = 0x400000,
		.words = {
			{ 0x100, STACK(0x160) },	/* JIT's record */
			{ 0x108, TEXT(0x4000e8) },	/* into signed_fn */
			{ 0x120, STACK(0x160) },	/* signed_fn's pair */
			{ 0x128, TEXT(0x4000fc) },
			{ 0x130, TEXT(0x4000d0) },	/* lr_only's LR */
			{ 0x160, 0 },			/* main's record */
			{ 0x168, TEXT(0x4000bc) },
		},
		.want = { TEXT(0x4000e8), TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
		.want_record_cfa = 1,
	},
	{
		/*
		 * x29 8 bytes below the bound the JIT record left: the CFA
		 * (0x118) is above it, signed_fn's SP at its call (0x108)
		 * is not.  Refused; the frame-pointer step fails too.
		 */
		.name = "CFA from a record, SP at the call below the bound: refused",
		.ip = TEXT(0x300000), .sp = STACK(0x100), .fp = STACK(0x100),
		.no_sframe_below = 0x400000,
		.words = {
			{ 0x100, STACK(0x108) },	/* JIT's record */
			{ 0x108, TEXT(0x4000e8) },	/* into signed_fn */
			{ 0x110, TEXT(0x4000fc) },
		},
		.want = { TEXT(0x4000e8) },
		.want_stop = SFRAME_STOP_REGISTER,
	},
	{
		/* x29 so low that the CFA is below the bound: refused. */
		.name = "CFA from a record below the bound: refused",
		.ip = TEXT(0x300000), .sp = STACK(0x100), .fp = STACK(0x100),
		.no_sframe_below = 0x400000,
		.words = {
			{ 0x100, STACK(0xf0) },		/* JIT's record */
			{ 0x108, TEXT(0x4000e8) },	/* into signed_fn */
			{ 0xf0, STACK(0x160) },
			{ 0xf8, TEXT(0x4000fc) },
		},
		.want = { TEXT(0x4000e8) },
		.want_stop = SFRAME_STOP_REGISTER,
	},
	{
		/*
		 * leaf was a signal handler returning to the vDSO's
		 * __kernel_rt_sigreturn (in LR), SP at the rt_sigframe whose
		 * sigcontext at +544 holds x29, x30, SP and PC of leaf,
		 * interrupted at 0x400108: its RA is the saved x30.
		 */
		.name = "signal handler, __kernel_rt_sigreturn, LR from the sigcontext",
		.ip = TEXT(0x400104), .sp = STACK(0x100), .fp = STACK(0x3f0),
		.reg = { 30, TEXT(0x2000) },
		.no_sframe_below = 0x400000, .tramp = 0x2000,
		.words = {
			{ 0x320, STACK(0x380) },	/* sigcontext x29 */
			{ 0x328, TEXT(0x4000e8) },	/* x30 */
			{ 0x330, STACK(0x380) },	/* sp */
			{ 0x338, TEXT(0x400108) },	/* pc */
			{ 0x380, STACK(0x3a0) },	/* signed_fn's record */
			{ 0x388, TEXT(0x4000cc) },
			{ 0x3a0, 0 },			/* main's record */
			{ 0x3a8, TEXT(0x4000bc) },
		},
		.want = { TEXT(0x2000), TEXT(0x400108), TEXT(0x4000e8),
			  TEXT(0x4000cc), TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
	},
	{
		/*
		 * A handler with frame records returns to the trampoline: SP
		 * is unknown there, so the rt_sigframe is too; the kernel's
		 * record above it (interrupted x29 and x30) leads on through
		 * the interrupted code's records to main.
		 */
		.name = "frame records into __kernel_rt_sigreturn: the kernel's record",
		.ip = TEXT(0x300000), .sp = STACK(0x100), .fp = STACK(0x100),
		.no_sframe_below = 0x400000, .tramp = 0x2000,
		.words = {
			{ 0x100, STACK(0x200) },	/* handler's record */
			{ 0x108, TEXT(0x2000) },
			{ 0x200, STACK(0x380) },	/* the kernel's record */
			{ 0x208, TEXT(0x300100) },	/* interrupted x30 */
			{ 0x380, STACK(0x3a0) },	/* interrupted's record */
			{ 0x388, TEXT(0x4000cc) },
			{ 0x3a0, 0 },			/* main's record */
			{ 0x3a8, TEXT(0x4000bc) },
		},
		.want = { TEXT(0x2000), TEXT(0x300100), TEXT(0x4000cc),
			  TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
	},
	{
		/* A sample at __kernel_rt_sigreturn at 0x2004: two words. */
		.name = "sample in __kernel_rt_sigreturn across two words",
		.ip = TEXT(0x2004), .sp = STACK(0x100), .fp = STACK(0x3f0),
		.no_sframe_below = 0x400000, .tramp = 0x2004,
		.words = {
			{ 0x328, TEXT(0x4000bc) },	/* sigcontext x30 */
			{ 0x330, STACK(0x380) },	/* sp */
			{ 0x338, TEXT(0x4000c0) },	/* pc: main's entry */
		},
		.want = { TEXT(0x4000c0), TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
	},
	{
		/* mov x8, #131; svc #0: not rt_sigreturn, frame records. */
		.name = "almost __kernel_rt_sigreturn: another syscall",
		.ip = TEXT(0x2000), .sp = STACK(0x100), .fp = STACK(0x300),
		.no_sframe_below = 0x400000, .tramp = 0x2000,
		.tramp_xor = 0x100,
		.words = {
			{ 0x300, 0 },
			{ 0x308, TEXT(0x4000bc) },
		},
		.want = { TEXT(0x4000bc) },
		.want_stop = SFRAME_STOP_REGISTER,
	},
	{
		/*
		 * blr x8; blraa x8, x9; blraaz x3: each return address
		 * follows its call; mov x0, x1 is none, and its frame is
		 * refused.
		 */
		.name = "frame records after blr and blra*, then after a mov",
		.ip = TEXT(0x300000), .sp = STACK(0x100), .fp = STACK(0x100),
		.no_sframe_below = 0x400000, .code_at = 0x300100,
		.code = { 0xd73f0909d63f0100ULL, 0xaa0103e0d63f087fULL },
		.words = {
			{ 0x100, STACK(0x110) },
			{ 0x108, TEXT(0x300104) },
			{ 0x110, STACK(0x120) },
			{ 0x118, TEXT(0x300108) },
			{ 0x120, STACK(0x130) },
			{ 0x128, TEXT(0x30010c) },
			{ 0x130, STACK(0x140) },
			{ 0x138, TEXT(0x300110) },
		},
		.want = { TEXT(0x300104), TEXT(0x300108), TEXT(0x30010c) },
		.want_stop = SFRAME_STOP_NOT_CALL,
	},
	{
		/* Go's runtime.goexit: mov x0, x0; bl, returned to at the bl. */
		.name = "frame record returning to Go's goexit + 4",
		.ip = TEXT(0x300000), .sp = STACK(0x100), .fp = STACK(0x100),
		.no_sframe_below = 0x400000, .code_at = 0x300100,
		.code = { 0x94000613aa0003e0ULL, 0xd503201fd503201fULL },
		.words = {
			{ 0x100, 0 },
			{ 0x108, TEXT(0x300104) },
		},
		.want = { TEXT(0x300104) },
		.want_stop = SFRAME_STOP_FP_CHAIN,
	},
	{
		/*
		 * Go's runtime.asyncPreempt: bl asyncPreempt2; ldp d30,
		 * d31, [sp, #472]; ldp d28, d29, [sp, #456].  Its frame
		 * record holds the PC the preempting signal interrupted, in
		 * padding here, after no bl: reported, stepped from as is.
		 */
		.name = "frame record of Go's asyncPreempt, its planted PC",
		.ip = TEXT(0x300000), .sp = STACK(0x100), .fp = STACK(0x100),
		.no_sframe_below = 0x400000, .code_at = 0x300100,
		.code = { 0x6d5dfffe94000613ULL, 0x6d5beffa6d5cf7fcULL },
		.words = {
			{ 0x100, STACK(0x110) },
			{ 0x108, TEXT(0x300104) },
			{ 0x110, STACK(0x120) },
			{ 0x118, TEXT(0x300114) },
			{ 0x120, 0 },
			{ 0x128, TEXT(0x300200) },
		},
		.want = { TEXT(0x300104), TEXT(0x300114), TEXT(0x300200) },
		.want_stop = SFRAME_STOP_FP_CHAIN,
	},
	{
		/* The same record after other code: #464, not #456. */
		.name = "frame record after code one bit off asyncPreempt's",
		.ip = TEXT(0x300000), .sp = STACK(0x100), .fp = STACK(0x100),
		.no_sframe_below = 0x400000, .code_at = 0x300100,
		.code = { 0x6d5dfffe94000613ULL, 0x6d5beffa6d5d77fcULL },
		.words = {
			{ 0x100, STACK(0x110) },
			{ 0x108, TEXT(0x300104) },
			{ 0x110, STACK(0x120) },
			{ 0x118, TEXT(0x300114) },
			{ 0x120, 0 },
			{ 0x128, TEXT(0x300200) },
		},
		.want = { TEXT(0x300104) },
		.want_stop = SFRAME_STOP_NOT_CALL,
	},
	{
		/*
		 * HotSpot's interpreter puts its invoke return entry in LR:
		 * ldur x20, [x29, #-16]; stur xzr, [x29, #-16], after the
		 * previous entry's br.
		 */
		.name = "frame record returning to HotSpot's return entry",
		.ip = TEXT(0x300000), .sp = STACK(0x100), .fp = STACK(0x100),
		.no_sframe_below = 0x400000, .code_at = 0x300100,
		.code = { 0xf85f03b4d61f0100ULL, 0xd503201ff81f03bfULL },
		.words = {
			{ 0x100, 0 },
			{ 0x108, TEXT(0x300104) },
		},
		.want = { TEXT(0x300104) },
		.want_stop = SFRAME_STOP_FP_CHAIN,
	},
};

/*
 * A machine, a program's .sframe and the cases walked over it; text a
 * case does not give reads as @text_fill, a word of calls: x86-64's e8
 * (any return address has one 5 bytes before it), AArch64's bl; but the
 * words just around a case's code read as @text_pad, which no form of a
 * return address matches (x86-64's int3, AArch64's udf), so that only
 * the case's code decides for a return address in it.
 */
struct walk_suite {
	const char *name;
	const struct sframe_arch *arch;
	const u8 *sframe;
	u32 size;
	u64 vaddr;
	const struct walk_case *cases;
	unsigned int nr_cases;
	u64 text_fill;
	u64 text_pad;
};

static const struct walk_suite walk_suite_x86_64 = {
	"x86-64", &sframe_arch_x86_64, sid_prog, sizeof(sid_prog),
	PROG_SFRAME_VADDR, walk_cases_x86_64, ARRAY_SIZE(walk_cases_x86_64),
	0xe8e8e8e8e8e8e8e8ULL, 0xccccccccccccccccULL,
};

static const struct walk_suite walk_suite_aarch64 = {
	"aarch64", &sframe_arch_aarch64, walk_aarch64_sframe,
	sizeof(walk_aarch64_sframe), WALK_AARCH64_SFRAME_VADDR,
	walk_cases_aarch64, ARRAY_SIZE(walk_cases_aarch64),
	0x97ffffff97ffffffULL, 0,
};

/* The fake process a case runs in. */
struct walk_env {
	const struct walk_suite *suite;
	const struct walk_case *c;
	const struct sframe_section *sec;
	/*
	 * For fill cases, the object's own section: hand.o's, whose
	 * functions (at 0 to 0x100) leave the whole program a gap.
	 */
	struct sframe_section gapped;
	unsigned int lookups;		/* calls of the lookup callback */
	struct sframe_step_cache *cache;	/* optional, for the walk */
	/*
	 * Walk by one sframe_walk_fill() of every frame, as the module's
	 * hooks do, rather than a step at a time (the code read is then
	 * not told apart by step: code_rereads counts across steps).
	 */
	bool batch;
	unsigned int sframe_steps;	/* the last walk's */
	unsigned int cached_steps;	/* the last walk's, of sframe_steps */
	unsigned int fp_fallback_steps;	/* the last walk's */
	unsigned int record_cfa_steps;	/* the last walk's */
	/*
	 * Words of code read in the current step, and how many times in
	 * the last walk a step read one it had read already (the walk
	 * reads each word at most once a step: struct sframe_code).
	 */
	u64 code_read[4];
	unsigned int nr_code_read;
	unsigned int code_rereads;
	/*
	 * The program loaded this much above WALK_BIAS (another process's
	 * address space): the case's text addresses move with it.
	 */
	u64 delta;
	u64 stack[WALK_STACK_WORDS];
};

/* @v moved by @delta if it is a text address (under @pac_bits). */
static u64 walk_move(u64 v, u64 pac_bits, u64 delta)
{
	u64 addr = v & ~pac_bits;

	return addr >= WALK_BIAS && addr < WALK_BIAS + WALK_TEXT_SPAN ?
	       v + delta : v;
}

/*
 * The case's code: 16 bytes from the aligned word holding its trampoline
 * (the bytes the sequence leaves open filled with nops, 0x90, the x86-64
 * one; any filler would do), or its two words at code_at.  Returns where
 * they start, 0 for none.
 */
static u64 walk_env_code(const struct walk_env *env, u8 *bytes)
{
	const struct walk_case *c = env->c;
	const struct sframe_code_seq *seq;
	unsigned int i, skip;

	if (c->code_at) {
		for (i = 0; i < 16; i++)
			bytes[i] = c->code[i / 8] >> (8 * (i % 8));
		return TEXT(c->code_at) + env->delta;
	}
	if (!c->tramp)
		return 0;
	seq = &env->suite->arch->sigreturn[c->sigreturn];
	skip = c->tramp & 7;
	memset(bytes, 0x90, 16);
	memcpy(bytes + skip, seq->bytes, seq->len);
	for (i = 0; i < 8; i++)
		bytes[skip + i] ^= c->tramp_xor >> (8 * i);
	return TEXT(c->tramp - skip) + env->delta;
}

/* Note a read of the code at @addr; count it if this step read it already. */
static void walk_env_code_read(struct walk_env *env, u64 addr)
{
	unsigned int i;

	for (i = 0; i < env->nr_code_read; i++)
		if (env->code_read[i] == addr)
			env->code_rereads++;
	if (env->nr_code_read < ARRAY_SIZE(env->code_read))
		env->code_read[env->nr_code_read++] = addr;
}

/*
 * Any 8 bytes within the case's code can be read, at any alignment, the
 * rest of the text by aligned words, as long as they lie between
 * text_start and text_end; the stack by aligned words.
 */
static int walk_env_read_word(void *ctx, u64 addr, u64 *val)
{
	struct walk_env *env = ctx;
	const struct walk_case *c = env->c;
	u64 bias = WALK_BIAS + env->delta, start;
	bool text = addr >= bias && addr < bias + WALK_TEXT_SPAN;
	u8 bytes[16];
	unsigned int i;

	if (text && ((c->text_end && addr + 8 > bias + c->text_end) ||
		     addr < bias + c->text_start))
		return -EFAULT;
	start = walk_env_code(env, bytes);
	if (start && addr >= start && addr < start + 16)
		walk_env_code_read(env, addr);
	if (start && addr >= start && addr + 8 <= start + 16) {
		*val = 0;
		for (i = 0; i < 8; i++)
			*val |= (u64)bytes[addr - start + i] << (8 * i);
		return 0;
	}
	if (text && !(addr & 7)) {
		*val = start && addr + 8 >= start && addr <= start + 16 ?
		       env->suite->text_pad : env->suite->text_fill;
		return 0;
	}
	if (addr < WALK_STACK || addr >= STACK(WALK_STACK_WORDS * 8) ||
	    (addr & 7))
		return -EFAULT;
	*val = env->stack[(addr - WALK_STACK) / 8];
	return 0;
}

static int walk_env_read(void *ctx, u64 addr, u64 *val, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (walk_env_read_word(ctx, addr + 8 * i, &val[i]))
			return -EFAULT;
	return 0;
}

/* Text below no_sframe_below has no section; the rest has env->sec. */
static void walk_env_lookup(void *ctx, u64 ip, struct sframe_where *where)
{
	struct walk_env *env = ctx;
	u64 bias = WALK_BIAS + env->delta;
	u64 split = bias + env->c->no_sframe_below;

	env->lookups++;
	if (ip < bias)
		return;
	where->bias = bias;
	if (ip < split) {
		where->start = bias;
		where->end = split;
		return;
	}
	where->start = split;
	where->end = ~0ULL;
	where->sec = env->sec;
	if (env->c->fill) {
		where->sec = &env->gapped;
		where->fill = env->sec;
	}
}

static bool walk_env_reg(void *ctx, unsigned int reg, u64 *val)
{
	struct walk_env *env = ctx;

	if (reg != env->c->reg.num || !env->c->reg.val)
		return false;
	*val = walk_move(env->c->reg.val, env->c->pac_bits, env->delta);
	return true;
}

static const struct sframe_walk_ops walk_env_ops = {
	.read = walk_env_read,
	.lookup = walk_env_lookup,
	.reg = walk_env_reg,
};

/*
 * Run case @c of @suite over @sec (its program's section), with the
 * program env->delta above its usual place; fills @got (0-terminated,
 * moved back by the delta) and returns the stop reason.
 */
static enum sframe_walk_stop walk_case_run(const struct walk_suite *suite,
					   const struct walk_case *c,
					   const struct sframe_section *sec,
					   struct walk_env *env, u64 *got)
{
	struct sframe_walk w;
	unsigned int i, n = 0;

	env->suite = suite;
	env->c = c;
	env->sec = sec;
	env->lookups = 0;
	env->code_rereads = 0;
	if (c->fill && sframe_validate(&env->gapped, sid_hand_o,
				       sizeof(sid_hand_o), 0, 0, NULL))
		return SFRAME_STOP_NONE;	/* no frame: the case fails */
	for (i = 0; i < WALK_STACK_WORDS; i++)
		env->stack[i] = 0xdeadbeefdeadbeefULL;
	for (i = 0; i < ARRAY_SIZE(c->words); i++)
		if (c->words[i].off || c->words[i].val)
			env->stack[c->words[i].off / 8] =
				walk_move(c->words[i].val, c->pac_bits,
					  env->delta);

	sframe_walk_start(&w, suite->arch, walk_move(c->ip, 0, env->delta),
			  c->sp, walk_move(c->fp, 0, env->delta),
			  &walk_env_ops, env);
	if (c->pac_bits)
		sframe_walk_strip_ra(&w, c->pac_bits);
	if (env->cache)
		sframe_walk_cache(&w, env->cache);
	if (env->batch) {
		env->nr_code_read = 0;
		n = sframe_walk_fill(&w, got, WALK_MAX_FRAMES - 1);
		for (i = 0; i < n; i++)
			got[i] = walk_move(got[i], 0, -env->delta);
	} else {
		for (;;) {
			env->nr_code_read = 0;
			if (n == WALK_MAX_FRAMES - 1 || !sframe_walk_next(&w))
				break;
			got[n++] = walk_move(w.ip, 0, -env->delta);
		}
	}
	got[n] = 0;
	env->sframe_steps = w.sframe_steps;
	env->cached_steps = w.cached_steps;
	env->fp_fallback_steps = w.fp_fallback_steps;
	env->record_cfa_steps = w.record_cfa_steps;
	return w.stop;
}

#endif /* _SFRAME_WALK_CASES_H */
