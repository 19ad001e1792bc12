#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sframectl gen describes the x86-64 startup-file functions no .eh_frame
# FDE covers (crtstuff's, crti's _init and _fini), from their
# instructions, in a shared library and a program as GCC links them; and
# it leaves out, counted, a gap whose code it cannot follow: an
# instruction outside the set, jumps that bring different stacks, a
# return with something pushed, a jump between instructions, a call to
# the next instruction (its return address stays pushed).
#
# usage: crt_test.sh SFRAMECTL

set -u
SFRAMECTL=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/gen_rows.sh"

# sym FILE NAME: NAME's address, hex without 0x and leading zeros.
sym() {
	nm "$1" | awk -v n="$2" '$3 == n { print $1; exit }' | sed 's/^0*//'
}

# after FILE NAME REGEX: the offset in function NAME of the instruction
# after the first one objdump prints matching REGEX.
after() {
	local at

	at=$(objdump -d --no-show-raw-insn "$1" |
		awk -v f="<$2>:" -v re="$3" '
		index($0, f) { on = 1; next }
		on && /^$/ { exit }
		on && hit { sub(/:$/, "", $1); print $1; exit }
		on && $0 ~ re { hit = 1 }')
	[ -n "$at" ] && echo $((16#$at - 16#$(sym "$1" "$2")))
}

# startup FILE NAME WANT: gen gives function NAME of FILE an FDE whose
# FREs are WANT ("OFFSET CFA;..."), and check accepts the sidecar.
startup() {
	local at got

	at=$(sym "$1" "$2")
	"$SFRAMECTL" gen "$1" -o "$TMP/out" 2>"$TMP/err" &&
		"$SFRAMECTL" check "$TMP/out" >/dev/null 2>>"$TMP/err"
	st=$?
	got=$(rows "$TMP/out" "$at" | tr '\n' ';')
	echo "# $1 $2 at ${at:-none}: ${got:-no FDE}"
	[ $st = 0 ] && [ -n "$at" ] && [ "$got" = "$3" ]
	ok $? "$(basename "$1"): $2 described"
}

# refused NAME REASON ASM: a library of ASM (beside one function with
# CFI, so that it has an .eh_frame) gets no FDE for f, and gen --stats
# counts its gap under REASON.
refused() {
	local name=$1 reason=$2
	{
		printf '\t.text\n\t.globl g\ng:\n\t.cfi_startproc\n\tret\n'
		printf '\t.cfi_endproc\n\t.globl f\nf:\n%s\n' "$3"
	} >"$TMP/$name.s"
	gcc -shared -nostdlib -o "$TMP/$name.so" "$TMP/$name.s" &&
		"$SFRAMECTL" gen --stats "$TMP/$name.so" -o "$TMP/out" \
			2>"$TMP/stats" &&
		[ -z "$(rows "$TMP/out" "$(sym "$TMP/$name.so" f)")" ] &&
		grep -q "gaps refused, $reason: 1" "$TMP/stats"
	ok $? "$name: gap refused, $reason"
}

printf 'int f(int x)\n{\n\treturn x * 3;\n}\n' >"$TMP/lib.c"
printf 'int main(void)\n{\n\treturn 0;\n}\n' >"$TMP/prog.c"
gcc -O2 -shared -fPIC -o "$TMP/lib.so" "$TMP/lib.c"
gcc -O2 -o "$TMP/prog" "$TMP/prog.c"

for f in "$TMP/lib.so" "$TMP/prog"; do
	startup "$f" deregister_tm_clones "0 sp+8;"
	startup "$f" register_tm_clones "0 sp+8;"
	startup "$f" frame_dummy "0 sp+8;"
	push=$(after "$f" __do_global_dtors_aux 'push +%rbp')
	pop=$(after "$f" __do_global_dtors_aux 'pop +%rbp')
	startup "$f" __do_global_dtors_aux "0 sp+8;$push sp+16;$pop sp+8;"
	sub=$(after "$f" _init 'sub +.0x8,%rsp')
	add=$(after "$f" _init 'add +.0x8,%rsp')
	startup "$f" _init "0 sp+8;$sub sp+16;$add sp+8;"
	"$SFRAMECTL" gen --stats "$f" -o "$TMP/out" 2>"$TMP/stats"
	grep -q "code between FDEs: 6 startup functions described, 0 gaps refused" \
		"$TMP/stats"
	ok $? "$(basename "$f"): gen --stats counts 6 functions"
done

# A frame with leave, and a function whose jumps agree: described.
cat >"$TMP/frame.s" <<'EOF2'
	.text
	.globl g
g:
	.cfi_startproc
	ret
	.cfi_endproc
	.globl f
f:
	push %rbp
	mov %rsp, %rbp
	sub $16, %rsp
	test %edi, %edi
	je 1f
	call g
1:	leave
	ret
EOF2
gcc -shared -nostdlib -o "$TMP/frame.so" "$TMP/frame.s"
startup "$TMP/frame.so" f "0 sp+8;1 sp+16;8 sp+32;$(after "$TMP/frame.so" f leave) sp+8;"

refused unknown "an instruction the startup files do not hold" \
	$'\tpush %rbx\n\tcpuid\n\tpop %rbx\n\tret'
refused disagree "a jump, return or stack change that disagrees" \
	$'\tpush %rbx\n\ttest %eax, %eax\n\tje 1f\n\tpop %rbx\n1:\tret'
refused pushed "a jump, return or stack change that disagrees" \
	$'\tpush %rbx\n\tret'
refused between "a jump, return or stack change that disagrees" \
	$'\tjmp 1f + 1\n1:\tmov $1, %eax\n\tret'
refused thunk "a jump, return or stack change that disagrees" \
	$'\tpush %rbx\n\tpush %rbx\n\tcall 1f\n1:\tpop %rax\n\tpop %rbx\n\tpop %rbx\n\tret'
refused rsp "an instruction the startup files do not hold" \
	$'\tmov %rdi, %rsp\n\tret'

tap_done
