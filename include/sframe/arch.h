/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the generic walk needs to know of a machine, as data: register
 * numbers, where a call leaves the return address, how a frame record is
 * laid out, the rt_sigreturn trampolines and the signal frame, the plain
 * epilogues a frame without a table is walked by, the code a return
 * address follows.  One file per architecture
 * (kernel/sframe/arch/x86/machine.c, arm64/machine.c) fills a struct
 * sframe_arch; the walk holds a pointer to one, so the same core walks
 * x86-64 stacks in the x86-64 module and AArch64 stacks in the arm64 one,
 * and the tests walk both on any machine.
 */
#ifndef _SFRAME_ARCH_H
#define _SFRAME_ARCH_H

#include "compat.h"

/* A register the architecture does not have. */
#define SFRAME_ARCH_NO_REG	0xff

/*
 * Stack words are 8 bytes on both, and a frame record at FP is two of
 * them: the caller's FP, then the return address.
 */
#define SFRAME_ARCH_WORD	8

/*
 * Most bytes of a code sequence: one more than a word, so that from any
 * address it lies within two aligned words, which the walk reads.
 */
#define SFRAME_ARCH_MAX_CODE_LEN	(SFRAME_ARCH_WORD + 1)

/**
 * struct sframe_code_seq - machine code the walk recognises, byte for byte
 * @bytes: its bytes, exactly
 * @len: how many
 */
struct sframe_code_seq {
	u8 bytes[SFRAME_ARCH_MAX_CODE_LEN];
	u8 len;
};

/* Most sigreturn sequences an architecture lists. */
#define SFRAME_ARCH_MAX_SIGRETURN	2
/* Most words a walk reads from a signal frame. */
#define SFRAME_ARCH_MAX_SIGFRAME_WORDS	8

/* Most epilogues an architecture lists. */
#define SFRAME_ARCH_MAX_EPILOGUES	2

/**
 * struct sframe_epilogue - code that ends a frame, and what it leaves
 * @code: the code
 * @cfa_offset: once they ran, the function has returned: its CFA is SP
 *	plus this, the return address the word below the CFA; FP and the
 *	other registers are not changed
 * @interrupted_only: only at an interrupted IP, never at a return
 *	address: a call that does not return may end a function, and its
 *	return address then starts the next one, where these bytes may
 *	begin an unrelated function (a bare ret does)
 */
struct sframe_epilogue {
	struct sframe_code_seq code;
	u8 cfa_offset;
	bool interrupted_only;
};

/* Most return-address forms an architecture lists. */
#define SFRAME_ARCH_MAX_RA_FORMS	24

/* Most functions with a planted return address an architecture lists. */
#define SFRAME_ARCH_MAX_PLANTED	1

/**
 * struct sframe_ra_form - code a real return address has around it
 * @mask: the bits that identify it among the 8 bytes from @before bytes
 *	before the return address, taken as a little-endian word
 * @bits: their values
 * @before: where those bytes start
 *
 * Mostly a call, which ends at the return address it leaves, so @before
 * is its length.  A runtime that plants a return address where no call
 * put it is a form of its own: Go starts each goroutine returning to the
 * instruction after a nop (the bytes around it), HotSpot's interpreter
 * returns to entries it pushed or put in LR (@before 0: the code at it).
 */
struct sframe_ra_form {
	u64 mask;
	u64 bits;
	u8 before;
};

/**
 * struct sframe_arch - one architecture's facts for the walk
 * @name: as the tools print it
 * @abi: the SFRAME_ABI_* of its sections (little-endian)
 * @elf_machine: the e_machine of its ELF objects (EM_*)
 * @sp_reg: DWARF number of the stack pointer
 * @fp_reg: DWARF number of the frame pointer
 * @ra_reg: DWARF number of the register a call leaves the return address
 *	in (AArch64's LR), or SFRAME_ARCH_NO_REG when the call pushes it
 * @record_sets_sp: a frame record at FP ends the caller's frame, so the
 *	caller's SP is FP plus the record (x86-64's push/mov prologue); when
 *	false the record may lie anywhere in the frame (AArch64) and a step
 *	by frame records leaves the caller's SP unknown
 * @sigreturn: the rt_sigreturn sequences a signal handler returns to
 * @nr_sigreturn: how many
 * @sigframe: where the interrupted registers are when the trampoline
 *	runs: @sigframe.offset bytes above SP, @sigframe.words words, of
 *	which @sigframe.ip, .sp, .fp and .ra are the indexes (.ra:
 *	SFRAME_ARCH_NO_REG when @ra_reg is)
 * @epilogue: the epilogues a frame no table describes is walked by
 *	(Documentation/design.rst, "Frames at a plain epilogue")
 * @nr_epilogue: how many
 * @ra_forms: the code a frame-pointer step's return address must have
 *	around it to be reported (Documentation/design.rst, "Only frames
 *	that are real"); a handler's return to an rt_sigreturn trampoline
 *	is checked by @sigreturn
 * @nr_ra_forms: how many
 * @planted: the code at the return address into a function whose frame
 *	record holds an address its runtime planted, the IP it interrupted,
 *	which follows no call (Go's runtime.asyncPreempt: the code after its
 *	call of asyncPreempt2); a frame-pointer step from there reports it
 * @nr_planted: how many
 */
struct sframe_arch {
	const char *name;
	u8 abi;
	u16 elf_machine;
	u8 sp_reg;
	u8 fp_reg;
	u8 ra_reg;
	bool record_sets_sp;
	struct sframe_code_seq sigreturn[SFRAME_ARCH_MAX_SIGRETURN];
	unsigned int nr_sigreturn;
	struct {
		u16 offset;
		u8 words;
		u8 ip;
		u8 sp;
		u8 fp;
		u8 ra;
	} sigframe;
	struct sframe_epilogue epilogue[SFRAME_ARCH_MAX_EPILOGUES];
	unsigned int nr_epilogue;
	struct sframe_ra_form ra_forms[SFRAME_ARCH_MAX_RA_FORMS];
	unsigned int nr_ra_forms;
	struct sframe_code_seq planted[SFRAME_ARCH_MAX_PLANTED];
	unsigned int nr_planted;
};

extern const struct sframe_arch sframe_arch_x86_64;
extern const struct sframe_arch sframe_arch_aarch64;

/* The machine this code is built for: the module walks its stacks. */
#if defined(__x86_64__)
#define sframe_arch_native	sframe_arch_x86_64
#elif defined(__aarch64__) && defined(__AARCH64EL__)
#define sframe_arch_native	sframe_arch_aarch64
#endif

#endif /* _SFRAME_ARCH_H */
