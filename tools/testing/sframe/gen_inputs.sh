#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The inputs that once made sframectl gen quadratic, and a twin of each
# with the same amount of CFI in an ordinary shape, written as assembly
# and linked into shared objects with gcc:
#
#   fdes-reverse.so   FDES functions, .eh_frame's FDEs in reverse address
#                     order (about 8 MB of .eh_frame)
#   fdes-forward.so   the same FDEs in address order
#   rows-one.so       one function whose CFA changes ROWS times
#   rows-many.so      the same rows over ROWS / 32 functions
#   cie-long.so       FDES functions whose FDEs name one CIE of 4095 bytes
#                     of initial instructions, mostly DW_CFA_nop (just
#                     under GEN_MAX_CIE_PROGRAM)
#   cie-short.so      the same FDEs naming the usual CIE (7 bytes)
#   cie-huge.so       CIE_FDES functions naming one CIE of 409,599 bytes
#   cie-remember.so   CIE_FDES functions naming one CIE of 4095 bytes that
#                     leaves a DW_CFA_remember_state row, which each FDE
#                     then executes again
#   cies-many.so      CIES functions, each FDE naming a CIE of its own
#                     (each CIE's initial CFA offset differs, so that ld
#                     merges none)
#
# usage: gen_inputs.sh OUTDIR     (FDES=81920 ROWS=32768 CIE_FDES=FDES/4
#                                  CIES=65537 by default)

set -eu
OUT=$1
FDES=${FDES:-81920}
ROWS=${ROWS:-32768}
CIE_FDES=${CIE_FDES:-$((FDES / 4))}
CIES=${CIES:-65537}
mkdir -p "$OUT"

# The usual x86-64 CIE up to its initial instructions (CFA rsp+8 follows
# in each input, RA at CFA-8, PC-relative FDE addresses), for awk.
CIE_START='function cie_start() {
	print "\t.section .eh_frame,\"a\",@progbits"
	print "\t.balign 8"
	print ".Lcie:\t.long .Lcie_end - .Lcie_id"
	print ".Lcie_id:\t.long 0"
	print "\t.byte 1\n\t.string \"zR\""
	print "\t.uleb128 1\n\t.sleb128 -8\n\t.uleb128 16"
	print "\t.uleb128 1\n\t.byte 0x1b"
}'

# fdes ORDER: FDES functions of 32 bytes, each FDE with 26 rows written
# by hand (DW_CFA_advance_loc 1, DW_CFA_def_cfa_offset 16 or 8) and a
# DW_CFA_nop to make 96 bytes, in .eh_frame in ORDER (forward or
# reverse); the CIE is the usual x86-64 one (CFA rsp+8, RA at CFA-8,
# PC-relative FDE addresses).  Fixed sizes, no alignment: the assembler
# then needs no relaxation pass over 80,000 fragments.
fdes() {
	awk -v n="$FDES" -v order="$1" "$CIE_START"'
	BEGIN {
		print "\t.text"
		for (i = 0; i < n; i++)
			printf "f%d:\n\t.skip 32, 0x90\n", i
		cie_start()
		print "\t.byte 0x0c, 7, 8, 0x90, 1"
		print "\t.balign 8\n.Lcie_end:"
		for (k = 0; k < n; k++) {
			i = order == "reverse" ? n - 1 - k : k
			printf "\t.long 92\n"
			printf ".Lf%d:\t.long .Lf%d - .Lcie\n", i, i
			printf "\t.long f%d - .\n\t.long 32\n\t.byte 0\n", i
			for (r = 0; r < 26; r++)
				printf "\t.byte 0x41, 0x0e, %d\n", r % 2 ? 8 : 16
			print "\t.byte 0"
		}
		print "\t.long 0"
	}' >"$OUT/fdes-$1.s"
	gcc -shared -nostdlib -Wl,--eh-frame-hdr -o "$OUT/fdes-$1.so" \
		"$OUT/fdes-$1.s"
}

# rows NAME PER: ROWS rows in functions of PER rows each, through the
# assembler's .cfi directives: a push-like row (CFA rsp+16, RBP saved at
# CFA-16) and a pop-like one (CFA rsp+8, RBP restored), one instruction
# byte each.
rows() {
	awk -v n="$ROWS" -v per="$2" 'BEGIN {
		print "\t.text"
		for (i = 0; i < n; i++) {
			if (i % per == 0)
				printf "\t.globl g%d\ng%d:\n\t.cfi_startproc\n",
				       i, i
			print "\tnop"
			if (i % 2 == 0)
				print "\t.cfi_def_cfa_offset 16\n\t.cfi_offset %rbp, -16"
			else
				print "\t.cfi_def_cfa_offset 8\n\t.cfi_restore %rbp"
			if (i % per == per - 1 || i == n - 1)
				print "\tret\n\t.cfi_endproc"
		}
	}' >"$OUT/rows-$1.s"
	gcc -shared -nostdlib -Wl,--eh-frame-hdr -o "$OUT/rows-$1.so" \
		"$OUT/rows-$1.s"
}

# cie NAME FUNCS LENGTH [remember]: FUNCS functions of 16 bytes, each FDE
# with two rows (DW_CFA_advance_loc 1, DW_CFA_def_cfa_offset 16), all
# naming one CIE: the usual x86-64 one, its initial instructions LENGTH
# bytes long with DW_CFA_nop before them (ld drops trailing ones), after
# a DW_CFA_remember_state with `remember`.  LENGTH + 17 (the CIE's other
# fields) is to be a multiple of 8, the alignment of .eh_frame's entries.
cie() {
	awk -v n="$2" -v len="$3" -v rem="${4:+1}" "$CIE_START"'
	BEGIN {
		print "\t.text"
		for (i = 0; i < n; i++)
			printf "c%d:\n\t.skip 16, 0x90\n", i
		cie_start()
		if (rem)
			print "\t.byte 0x0a"
		printf "\t.skip %d, 0\n", len - 5 - rem
		print "\t.byte 0x0c, 7, 8, 0x90, 1"
		print ".Lcie_end:"
		for (i = 0; i < n; i++) {
			printf "\t.long 16\n"
			printf ".Lc%d:\t.long .Lc%d - .Lcie\n", i, i
			printf "\t.long c%d - .\n\t.long 16\n\t.byte 0\n", i
			print "\t.byte 0x41, 0x0e, 16"
		}
		print "\t.long 0"
	}' >"$OUT/cie-$1.s"
	gcc -shared -nostdlib -Wl,--eh-frame-hdr -o "$OUT/cie-$1.so" \
		"$OUT/cie-$1.s"
}

# cies: CIES functions of 16 bytes, each FDE (no rows) naming a CIE of
# its own, the usual one but for its initial CFA offset, 8 + 8 * i, all
# CIEs before the FDEs.
cies() {
	awk -v n="$CIES" "$CIE_START"'
	BEGIN {
		print "\t.text"
		for (i = 0; i < n; i++)
			printf "m%d:\n\t.skip 16, 0x90\n", i
		print "\t.section .eh_frame,\"a\",@progbits"
		for (i = 0; i < n; i++) {
			printf "\t.balign 8\n.Lm%d:\t.long .Lme%d - .Lmi%d\n", i, i, i
			printf ".Lmi%d:\t.long 0\n", i
			print "\t.byte 1\n\t.string \"zR\""
			print "\t.uleb128 1\n\t.sleb128 -8\n\t.uleb128 16"
			print "\t.uleb128 1\n\t.byte 0x1b"
			printf "\t.byte 0x0c, 7\n\t.uleb128 %d\n\t.byte 0x90, 1\n", 8 + 8 * i
			printf "\t.balign 8, 0\n.Lme%d:\n", i
		}
		for (i = 0; i < n; i++) {
			printf "\t.long 16\n"
			printf ".Lmf%d:\t.long .Lmf%d - .Lm%d\n", i, i, i
			printf "\t.long m%d - .\n\t.long 16\n\t.byte 0, 0, 0, 0\n", i
		}
		print "\t.long 0"
	}' >"$OUT/cies-many.s"
	gcc -shared -nostdlib -Wl,--eh-frame-hdr -o "$OUT/cies-many.so" \
		"$OUT/cies-many.s"
}

fdes reverse
fdes forward
rows one "$ROWS"
rows many 32
cie long "$FDES" 4095
cie short "$FDES" 7
cie huge "$CIE_FDES" 409599
cie remember "$CIE_FDES" 4095 remember
cies
