#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sframectl gen describes the x86-64 PLT sections no .eh_frame FDE covers,
# from their instructions: a static binary's IFUNC stubs (gen and
# gen --fill), a lazy dynamic binary's .plt (PLT0 and entries) and
# .plt.got, the IBT layout's .plt and .plt.sec; it leaves to .eh_frame
# what ld describes there, and refuses stubs it cannot read, counted.
#
# usage: plt_test.sh SFRAMECTL

set -u
SFRAMECTL=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/tap.sh"
. "$(dirname "$0")/gen_rows.sh"

# The program: IFUNC'd strlen and memcpy in a loop (static: through the
# IPLT stubs in .plt; dynamic: through lazy .plt entries).
cat >"$TMP/prog.c" <<'EOF'
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char buf[64];
	size_t n = 0;
	int i;

	for (i = 0; i < 1000; i++) {
		memcpy(buf, argv[0], 16);
		buf[16] = 0;
		n += strlen(buf + i % 4);
	}
	printf("%zu\n", n);
	return argc > 1;
}
EOF

# described NAME FILE SECTION WANT [GEN ARGS...]: gen ARGS FILE gives
# SECTION an FDE whose FREs are WANT ("OFFSET CFA;..."), and check
# accepts the sidecar.
described() {
	local name=$1 file=$2 sec=$3 want=$4 at got
	shift 4
	at=$(section "$file" "$sec")
	"$SFRAMECTL" gen "$@" "$file" -o "$TMP/out" 2>"$TMP/err" &&
		"$SFRAMECTL" check "$TMP/out" >/dev/null 2>>"$TMP/err"
	st=$?
	got=$(rows "$TMP/out" $at | tr '\n' ';')
	echo "# $name: $sec at ${at:-none}: ${got:-no FDE}"
	[ $st = 0 ] && [ -n "$at" ] && [ "$got" = "$want" ]
	ok $? "$name: $sec described"
}

# stat_line FILE TEXT [GEN ARGS...]: gen --stats names TEXT.
stat_line() {
	local file=$1 text=$2
	shift 2
	"$SFRAMECTL" gen --stats "$@" "$file" -o "$TMP/out" 2>"$TMP/stats" &&
		grep -q -- "$text" "$TMP/stats"
}

# lazy_rows FILE PUSHED JUMPED: the FREs of FILE's lazy .plt, whose
# PLT0 pushes at 0 and jumps at 6, and whose entries have pushed by
# offset PUSHED and jumped to PLT0 by offset JUMPED (padding or the next
# entry after).
lazy_rows() {
	local size k want="0 sp+16;6 sp+24;12 sp+8;"

	size=$(section "$1" .plt)
	for ((k = 1; k < 16#${size#* } / 16; k++)); do
		want+="$((16 * k + $2)) sp+16;"
		((16 * k + $3 < 16#${size#* })) && want+="$((16 * k + $3)) sp+8;"
	done
	echo "$want"
}

# 1. Static: ld puts the IFUNC stubs (input .iplt) in .plt, 8 bytes
# each, `jmp *GOT(%rip)` and padding; no .eh_frame FDE covers them.
gcc -O2 -static -o "$TMP/static" "$TMP/prog.c"
objdump -d -j .plt "$TMP/static" | grep -q 'jmp  *\*'
ok $? "static: .plt holds jmp * stubs"
described static "$TMP/static" .plt "0 sp+8;"
stat_line "$TMP/static" "PLT sections: 1 described, 0 left"
ok $? "static: gen --stats counts the section"

# 2. Static with its own .sframe for its code: --fill adds the stubs,
# which the linker's .sframe leaves out.
gcc -O2 -static -Wa,--gsframe -o "$TMP/static-sf" "$TMP/prog.c"
described "static --fill" "$TMP/static-sf" .plt "0 sp+8;" --fill

# 3. Lazy dynamic without ld's .eh_frame for the PLT: PLT0 is reached
# by an entry's jump after its push (sp+16) and pushes again (sp+24);
# an entry pushes its index at offset 6 (sp+16 from offset 11).
gcc -O2 -Wl,-z,lazy -Wl,--no-ld-generated-unwind-info \
	-o "$TMP/lazy" "$TMP/prog.c"
described lazy "$TMP/lazy" .plt "$(lazy_rows "$TMP/lazy" 11 16)"
described lazy "$TMP/lazy" .plt.got "0 sp+8;"

# 4. The IBT layout: endbr64, push at 4 (sp+16 from 9), jmp, padding
# from 14; .plt.sec holds the calls' stubs.
gcc -O2 -fcf-protection -Wl,-z,ibtplt -Wl,-z,lazy \
	-Wl,--no-ld-generated-unwind-info -o "$TMP/ibt" "$TMP/prog.c"
described ibt "$TMP/ibt" .plt "$(lazy_rows "$TMP/ibt" 9 14)"
described ibt "$TMP/ibt" .plt.sec "0 sp+8;"

# 5. ld's own .eh_frame for .plt and .plt.got is used as it is.
gcc -O2 -Wl,-z,lazy -o "$TMP/lazy-eh" "$TMP/prog.c"
stat_line "$TMP/lazy-eh" "PLT sections: 0 described, 2 left"
ok $? "lazy with ld's .eh_frame: PLT sections left to it"

# 6. Stubs gen cannot read (ud2) are refused and counted, not guessed.
at=$(section "$TMP/static" .plt)
head -c $((16#${at#* })) /dev/zero | tr '\0' '\013' >"$TMP/ud2"
objcopy --update-section .plt="$TMP/ud2" "$TMP/static" "$TMP/bad" 2>/dev/null
stat_line "$TMP/bad" "PLT sections: 0 described, 0 left.*, 1 refused" &&
	grep -q "refused, an instruction no stub holds: 1" "$TMP/stats"
st=$?
[ $st = 0 ] && [ -z "$(rows "$TMP/out" $at)" ]
ok $? "unknown stub instructions: section refused, counted"

# 7. A jump into the middle of a stub: refused too.
printf '\xe9\x01\x00\x00\x00\xff\x25\x00\x00\x00\x00\x90\x90\x90\x90\x90' \
	>"$TMP/mid"
head -c $((16#${at#* } - 16)) /dev/zero | tr '\0' '\220' >>"$TMP/mid"
objcopy --update-section .plt="$TMP/mid" "$TMP/static" "$TMP/bad" 2>/dev/null
stat_line "$TMP/bad" "refused, a jump between instructions"
ok $? "jump between two instructions: section refused"

# 8. Without SHF_EXECINSTR a .plt is not code: left alone.
objcopy --set-section-flags .plt=alloc,load,readonly,data "$TMP/static" \
	"$TMP/noexec" 2>/dev/null
stat_line "$TMP/noexec" "0 described, 0 left.*, 1 refused" &&
	grep -q "refused, not whole 8- or 16-byte entries of code: 1" "$TMP/stats"
ok $? "non-executable .plt: refused"

tap_done
