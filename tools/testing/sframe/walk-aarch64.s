/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AArch64 program whose .sframe the walk cases of
 * kernel/sframe/tests/walk_cases.h unwind: a frame record (main), a function
 * signing its return address (signed_fn), one saving LR without a frame
 * record (lr_only) and a leaf that saves nothing.  walk_aarch64_data.sh
 * assembles it with --gsframe and writes kernel/sframe/tests/walk_aarch64_data.h.
 */
	.text
	.globl	_start
	.type	_start, %function
_start:
	.cfi_startproc
	.cfi_undefined x30
	mov	x29, #0
	mov	x30, #0
	bl	main
	b	.
	.cfi_endproc

	.type	main, %function
main:
	.cfi_startproc
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	.cfi_def_cfa_register 29
	bl	signed_fn
	bl	lr_only
	ldp	x29, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa 31, 0
	ret
	.cfi_endproc

	.type	signed_fn, %function
signed_fn:
	.cfi_startproc
	paciasp
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	bl	leaf
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	autiasp
	.cfi_negate_ra_state
	ret
	.cfi_endproc

	.type	lr_only, %function
lr_only:
	.cfi_startproc
	str	x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 30, -16
	bl	leaf
	ldr	x30, [sp], #16
	.cfi_restore 30
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc

	.type	leaf, %function
leaf:
	.cfi_startproc
	add	x0, x0, #1
	nop
	ret
	.cfi_endproc
