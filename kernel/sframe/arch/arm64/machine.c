// SPDX-License-Identifier: GPL-2.0
/*
 * AArch64's facts for the walk: the call leaves the return address in
 * LR (x30), a frame record {FP, LR} may sit anywhere in its frame, and a
 * signal handler returns to the vDSO's __kernel_rt_sigreturn with SP at
 * the rt_sigframe: siginfo, then the ucontext, and a return address
 * follows a bl, a blr or one of pointer authentication's blra*, unless
 * a runtime planted it.
 */
#include <sframe/arch.h>
#include <sframe/format.h>

#define AARCH64_SIGINFO		128	/* sizeof(siginfo_t) */
#define AARCH64_UC_MCONTEXT	176	/* in struct ucontext, 16-aligned */
#define AARCH64_SC_X29		240	/* fault_address, x0-x28 */

const struct sframe_arch sframe_arch_aarch64 = {
	.name = "aarch64",
	.abi = SFRAME_ABI_AARCH64_ENDIAN_LITTLE,
	.elf_machine = 183,		/* EM_AARCH64 */
	.sp_reg = 31,
	.fp_reg = 29,
	.ra_reg = 30,
	.record_sets_sp = false,
	.sigreturn = {
		/* mov x8, #__NR_rt_sigreturn (139); svc #0 */
		{
			.bytes = { 0x68, 0x11, 0x80, 0xd2,
				   0x01, 0x00, 0x00, 0xd4 },
			.len = 8,
		},
	},
	.nr_sigreturn = 1,
	/* sigcontext from x29: x29, x30, sp, pc */
	.sigframe = {
		.offset = AARCH64_SIGINFO + AARCH64_UC_MCONTEXT +
			  AARCH64_SC_X29,
		.words = 4, .fp = 0, .ra = 1, .sp = 2, .ip = 3,
	},
	.ra_forms = {
		{ .before = 4, .mask = 0xfc000000, .bits = 0x94000000 }, /* bl */
		{ .before = 4, .mask = 0xfffffc1f, .bits = 0xd63f0000 }, /* blr */
		/* blraa, blrab, blraaz, blrabz */
		{ .before = 4, .mask = 0xfefff800, .bits = 0xd63f0800 },
		/*
		 * Go's runtime.goexit: mov x0, x0 (its nop); bl
		 * runtime.goexit1.  Every goroutine's first frame returns
		 * to the bl.
		 */
		{
			.before = 4,
			.mask = 0xfc000000ffffffffULL,
			.bits = 0x94000000aa0003e0ULL,
		},
		/*
		 * HotSpot's interpreter: an invoke bytecode's return entry,
		 * put in LR before it branches to the callee, starts by
		 * restoring its SP (x20) from the frame's last_sp: ldur x20,
		 * [x29, #-16]; stur xzr, [x29, #-16] (JDK 17).
		 */
		{ .mask = ~0ULL, .bits = 0xf81f03bff85f03b4ULL },
	},
	.nr_ra_forms = 5,
	.planted = {
		/*
		 * Go's runtime.asyncPreempt, after its call of
		 * asyncPreempt2: ldp d30, d31, [sp, #472]; ldp d28, d29,
		 * [sp, #456] (Go 1.24).  The signal handler that
		 * preempts a goroutine put the interrupted PC in LR, which
		 * asyncPreempt's frame record keeps.
		 */
		{
			.bytes = { 0xfe, 0xff, 0x5d, 0x6d,
				   0xfc, 0xf7, 0x5c, 0x6d },
			.len = 8,
		},
	},
	.nr_planted = 1,
};
