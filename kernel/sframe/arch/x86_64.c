// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64's facts for the walk: the call pushes the return address, the
 * frame record is the push %rbp / mov %rsp,%rbp pair at the top of the
 * frame, a signal handler returns to a trampoline whose SP points at
 * the rt_sigframe's ucontext, and CPython's perf trampolines end in a
 * plain epilogue.
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
};
