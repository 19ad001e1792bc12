// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64's facts for the walk: the call pushes the return address, the
 * frame record is the push %rbp / mov %rsp,%rbp pair at the top of the
 * frame, a signal handler returns to a trampoline whose SP points at
 * the rt_sigframe's ucontext, CPython's perf trampolines end in a plain
 * epilogue, and a return address follows a near call: e8 with a 32-bit
 * displacement, or ff /2 with its ModRM, SIB and displacement, whatever
 * prefixes precede it, unless a runtime planted it.
 */
#include <sframe/arch.h>
#include <sframe/format.h>

/* struct ucontext: flags, link and stack_t precede uc_mcontext. */
#define X86_64_UC_MCONTEXT	40
/* struct sigcontext: r8-r15, rdi and rsi precede rbp. */
#define X86_64_SC_RBP		80

const struct sframe_arch sframe_arch_x86_64 = {
	.name = "x86-64",
	.abi = SFRAME_ABI_AMD64_ENDIAN_LITTLE,
	.elf_machine = 62,		/* EM_X86_64 */
	.sp_reg = 7,
	.fp_reg = 6,
	.ra_reg = SFRAME_ARCH_NO_REG,
	.record_sets_sp = true,
	.sigreturn = {
		/* glibc: mov $15, %rax; syscall */
		{
			.bytes = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00,
				   0x0f, 0x05 },
			.len = 9,
		},
		/* musl: mov $15, %eax; syscall */
		{
			.bytes = { 0xb8, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 },
			.len = 7,
		},
	},
	.nr_sigreturn = 2,
	/* sigcontext from rbp: rbp, rbx, rdx, rax, rcx, rsp, rip */
	.sigframe = {
		.offset = X86_64_UC_MCONTEXT + X86_64_SC_RBP,
		.words = 7, .fp = 0, .sp = 5, .ip = 6,
		.ra = SFRAME_ARCH_NO_REG,
	},
	.epilogue = {
		/* add $8, %rsp; ret: CPython 3.13's -X perf trampoline */
		{
			.code = {
				.bytes = { 0x48, 0x83, 0xc4, 0x08, 0xc3 },
				.len = 5,
			},
			.cfa_offset = 16,
		},
		/* ret: the same trampoline, interrupted after its add */
		{
			.code = { .bytes = { 0xc3 }, .len = 1 },
			.cfa_offset = 8,
			.interrupted_only = true,
		},
	},
	.nr_epilogue = 2,
	/*
	 * ff /2 by ModRM: mod 3 is a register; mod 0 with rm 5 is
	 * RIP-relative, with rm 4 a SIB byte follows, whose base 5 under
	 * mod 0 means a 32-bit displacement and no base; mod 1 adds a
	 * displacement of 8 bits, mod 2 of 32.
	 */
	.ra_forms = {
		{ .before = 5, .mask = 0xff, .bits = 0xe8 },	/* call rel32 */
		{ .before = 2, .mask = 0xf8ff, .bits = 0xd0ff },	/* call *%reg */
		/* call *(%reg): rm 0-3, 6-7 */
		{ .before = 2, .mask = 0xfcff, .bits = 0x10ff },
		{ .before = 2, .mask = 0xfeff, .bits = 0x16ff },
		/* call *disp32(%rip) */
		{ .before = 6, .mask = 0xffff, .bits = 0x15ff },
		/* call *(base,index,scale): SIB base 0-3, 4, 6-7 */
		{ .before = 3, .mask = 0x04ffff, .bits = 0x0014ff },
		{ .before = 3, .mask = 0x07ffff, .bits = 0x0414ff },
		{ .before = 3, .mask = 0x06ffff, .bits = 0x0614ff },
		/* call *disp32(,index,scale): SIB base 5 */
		{ .before = 7, .mask = 0x07ffff, .bits = 0x0514ff },
		/* call *disp8(%reg): rm 0-3, 5, 6-7 */
		{ .before = 3, .mask = 0xfcff, .bits = 0x50ff },
		{ .before = 3, .mask = 0xffff, .bits = 0x55ff },
		{ .before = 3, .mask = 0xfeff, .bits = 0x56ff },
		/* call *disp8(base,index,scale) */
		{ .before = 4, .mask = 0xffff, .bits = 0x54ff },
		/* call *disp32(%reg): rm 0-3, 5, 6-7 */
		{ .before = 6, .mask = 0xfcff, .bits = 0x90ff },
		{ .before = 6, .mask = 0xffff, .bits = 0x95ff },
		{ .before = 6, .mask = 0xfeff, .bits = 0x96ff },
		/* call *disp32(base,index,scale) */
		{ .before = 7, .mask = 0xffff, .bits = 0x94ff },
		/*
		 * Go's runtime.goexit: nop; call runtime.goexit1.  Every
		 * goroutine's first frame returns to the call, one byte in.
		 */
		{ .before = 1, .mask = 0xffff, .bits = 0xe890 },
		/*
		 * HotSpot's interpreter pushes the return entry of an invoke
		 * bytecode and jumps to the callee; each entry starts by
		 * restoring SP from the frame's last_sp: mov -0x10(%rbp),
		 * %rsp; movq $0,-0x10(%rbp) (JDK 17 and 21), or mov
		 * -0x10(%rbp),%rcx; lea 0(%rbp,%rcx,8),%rsp (JDK 25).
		 */
		{ .mask = ~0ULL, .bits = 0xf045c748f0658b48ULL },
		{ .mask = ~0ULL, .bits = 0xcd648d48f04d8b48ULL },
	},
	.nr_ra_forms = 20,
	.planted = {
		/*
		 * Go's runtime.asyncPreempt, after its call of
		 * asyncPreempt2: movups 0x160(%rsp), %xmm15 (Go 1.19 to
		 * 1.24).  The signal handler that preempts a goroutine
		 * pushed the interrupted IP as its return address.
		 */
		{
			.bytes = { 0x44, 0x0f, 0x10, 0xbc, 0x24, 0x60, 0x01,
				   0x00, 0x00 },
			.len = 9,
		},
	},
	.nr_planted = 1,
};
