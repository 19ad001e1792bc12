#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sframectl against the toolchains' own output: dumps byte-identical to
# binutils 2.47's `objdump --sframe` for v2 and v3, the same layout for v1
# (compared with 2.40's dump, less its two known layout differences), an
# AArch64 v1 dump identical to 2.40's cross objdump, the binutils test
# suite's expected dumps, the AArch64 fixtures of three binutils
# generations, and check's exit codes.
#
# usage: dump_test.sh SFRAMECTL

set -u
SFRAMECTL=$1
TT=$(cd "$(dirname "$0")/.." && pwd)
FX=$TT/sframe/fixtures/x86_64
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/tap.sh"

# objdump prints a blank line, "FILE: file format ...", a blank line first.
for dir in sid-2.47.50 trixie-2.44; do
	for f in prog prog-static prog.o prog-r.o hand.o; do
		ref=$FX/$dir/$f.objdump-sframe.by-2.47.50.txt
		[ "$dir/$f" = trixie-2.44/prog-r.o ] && continue
		"$SFRAMECTL" dump "$FX/$dir/$f" >"$TMP/out" 2>"$TMP/err"
		tail -n +4 "$ref" | cmp -s - "$TMP/out"
		ok $? "dump $dir/$f is byte-identical to objdump 2.47"
	done
done

# The raw section at its link address dumps as the ELF object does.
for dir in sid-2.47.50 trixie-2.44; do
	addr=$(readelf -SW "$FX/$dir/prog" | awk '$2 == ".sframe" { print "0x" $4 }')
	"$SFRAMECTL" dump --raw --vaddr "$addr" "$FX/$dir/prog.sframe.bin" >"$TMP/raw"
	"$SFRAMECTL" dump "$FX/$dir/prog" >"$TMP/elf"
	cmp -s "$TMP/raw" "$TMP/elf"
	ok $? "dump --raw --vaddr $addr of $dir/prog.sframe.bin matches the ELF dump"
done

# v1: binutils 2.40 printed no "CFA fixed RA offset" line and showed the
# fixed RA as "u"; 2.47's layout shows both.  2.40's objdump also left .o
# sections unrelocated, which is what --raw on the .sframe.bin shows.
v1_layout() {
	tail -n +4 "$1" | sed -e '/^    Flags: /a\    CFA fixed RA offset: -8' \
		-e 's/^\(    [0-9a-f]\{16\}  .\{20\}\)u   /\1f   /'
}
for f in prog prog-static; do
	"$SFRAMECTL" dump "$FX/bookworm-2.40/$f" >"$TMP/out"
	v1_layout "$FX/bookworm-2.40/$f.objdump-sframe.txt" | cmp -s - "$TMP/out"
	ok $? "dump bookworm-2.40/$f (v1) matches objdump 2.40 in 2.47's layout"
done
for f in prog.o hand.o; do
	"$SFRAMECTL" dump --raw "$FX/bookworm-2.40/$f.sframe.bin" >"$TMP/out"
	v1_layout "$FX/bookworm-2.40/$f.objdump-sframe.txt" | cmp -s - "$TMP/out"
	ok $? "dump --raw bookworm-2.40/$f.sframe.bin (v1) matches objdump 2.40"
done

# AArch64 (v1, signed return addresses shown as "[s]"): the walk cases'
# program as Debian 12's cross binutils 2.40 assembles and links it.
SRC=$(dirname "$0")/walk-aarch64.s
if aarch64-linux-gnu-as --gsframe -o "$TMP/a64.o" "$SRC" &&
   aarch64-linux-gnu-ld -e _start -o "$TMP/a64" "$TMP/a64.o"; then
	"$SFRAMECTL" dump "$TMP/a64" >"$TMP/out"
	aarch64-linux-gnu-objdump --sframe=.sframe "$TMP/a64" | tail -n +4 |
		cmp -s - "$TMP/out"
	ok $? "dump of an AArch64 v1 section is byte-identical to objdump 2.40"
	"$SFRAMECTL" check "$TMP/a64" >"$TMP/out"
	ok $? "check: the AArch64 section is valid (exit 0)"
else
	ok 1 "AArch64 cross binutils (binutils-aarch64-linux-gnu) assemble walk-aarch64.s"
fi

# The AArch64 fixtures (fixtures/aarch64, made by its regenerate script):
# v2 and v3 byte-identical to the newest objdump, v2's linked programs to
# 2.44's own objdump too, v1 to 2.40's (its .o unrelocated, as 2.40 showed
# them), and check accepts each of them and every arm64 workload.
A64=$(dirname "$0")/fixtures/aarch64
A64W=$(dirname "$0")/../workloads/aarch64
newest=$(basename "$A64"/sid-*)
for dir in "$newest" trixie-2.44; do
	for f in prog prog-pac prog.o prog-pac.o hand.o; do
		ref=$A64/$dir/$f.objdump-sframe.txt
		[ "$dir" = "$newest" ] || ref=$A64/$dir/$f.objdump-sframe.by-${newest#sid-}.txt
		"$SFRAMECTL" dump "$A64/$dir/$f" >"$TMP/out"
		tail -n +4 "$ref" | cmp -s - "$TMP/out"
		ok $? "dump aarch64 $dir/$f is byte-identical to objdump ${newest#sid-}"
	done
done
for f in prog prog-pac; do
	"$SFRAMECTL" dump "$A64/trixie-2.44/$f" >"$TMP/out"
	tail -n +4 "$A64/trixie-2.44/$f.objdump-sframe.txt" | cmp -s - "$TMP/out"
	ok $? "dump aarch64 trixie-2.44/$f (v2) is byte-identical to objdump 2.44"
	"$SFRAMECTL" dump "$A64/bookworm-2.40/$f" >"$TMP/out"
	tail -n +4 "$A64/bookworm-2.40/$f.objdump-sframe.txt" | cmp -s - "$TMP/out"
	ok $? "dump aarch64 bookworm-2.40/$f (v1) is byte-identical to objdump 2.40"
done
for f in prog.o prog-pac.o hand.o; do
	"$SFRAMECTL" dump --raw "$A64/bookworm-2.40/$f.sframe.bin" >"$TMP/out"
	tail -n +4 "$A64/bookworm-2.40/$f.objdump-sframe.txt" | cmp -s - "$TMP/out"
	ok $? "dump --raw aarch64 bookworm-2.40/$f.sframe.bin (v1) matches objdump 2.40"
done
grep -q 'c-24\[s\]' "$A64/$newest/hand.o.objdump-sframe.txt" &&
	grep -q 'RA undefined' "$A64/$newest/hand.o.objdump-sframe.txt" &&
	grep -q 'attr = "S"' "$A64/$newest/hand.o.objdump-sframe.txt"
ok $? "aarch64 $newest/hand.o has a signed RA, an outermost and a signal FDE"
a64_objects=$(ls "$A64"/*-*/prog "$A64"/*-*/prog-pac "$A64"/*-*/*.o \
	"$A64W"/*/deep* "$A64W"/*/*.so | grep -v /nosframe/ | grep -v /baseline/)
"$SFRAMECTL" check $a64_objects >"$TMP/out"
st=$?
[ "$(grep -c ': ok (v' "$TMP/out")" = "$(echo "$a64_objects" | wc -l)" ]
ok $((st || $?)) "check: every AArch64 fixture and arm64 workload with SFrame is valid (exit $st)"
for f in "$A64"/*-*/*.sframe.bin; do
	"$SFRAMECTL" check --raw "$f" >/dev/null || echo "# invalid: $f"
done >"$TMP/out"
[ ! -s "$TMP/out" ]
ok $? "check --raw: every AArch64 fixture's bare section is valid"
cat "$TMP/out"

# binutils' own expected dumps: one regular expression per line, "#..."
# skips lines.
match_d() {
	python3 - "$1" "$2" <<'EOF'
import re, sys
want = [l.rstrip("\n") for l in open(sys.argv[1]) if l.strip()]
got = [l.rstrip("\n") for l in open(sys.argv[2]) if l.strip()]
i = 0
for w in want:
    if w == "#...":
        continue
    while i < len(got) and not re.fullmatch(w, got[i]):
        i += 1
    if i == len(got):
        print("# no line matches: " + w)
        sys.exit(1)
    i += 1
EOF
}
for t in test-v2-ET_EXEC test-v2-ET_REL; do
	"$SFRAMECTL" dump "$FX/binutils-testsuite/$t.sframe" >"$TMP/out"
	match_d "$FX/binutils-testsuite/$t.sframe.dump" "$TMP/out"
	ok $? "dump $t matches binutils' expected dump"
done

# Without section headers the PT_GNU_SFRAME segment is used; ld makes it
# longer than .sframe in dynamic objects and pads it with zeros.
python3 - "$TT/workloads/x86_64/v3-binutils-2.47/deep" "$TMP/noshdr" <<'EOF'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[0x28:0x30] = bytes(8)                # e_shoff
d[0x3c:0x40] = bytes(4)                # e_shnum, e_shstrndx
open(sys.argv[2], "wb").write(d)
EOF
"$SFRAMECTL" dump "$TT/workloads/x86_64/v3-binutils-2.47/deep" >"$TMP/sec"
"$SFRAMECTL" dump "$TMP/noshdr" >"$TMP/seg"
cmp -s "$TMP/sec" "$TMP/seg"
ok $? "a stripped object's padded PT_GNU_SFRAME dumps as its .sframe section"

# check: exit status 0 valid, 1 invalid, 2 usage or I/O.
"$SFRAMECTL" check "$FX"/*/prog "$FX"/*/prog-static "$FX"/*/hand.o >"$TMP/out"
ok $? "check: every linked fixture and hand.o is valid (exit 0)"
grep -q "^$FX/sid-2.47.50/prog: ok (v3, 14 FDEs, 50 FREs)$" "$TMP/out"
ok $? "check reports version and counts"

"$SFRAMECTL" check "$FX/trixie-2.44/prog-r.o" >"$TMP/out"
st=$?
[ $st = 1 ] && grep -q "prog-r.o: invalid: relocation does not target an FDE start address at offset 0x13c" "$TMP/out"
ok $? "check trixie-2.44/prog-r.o: invalid, relocation into the FREs (exit $st)"

"$SFRAMECTL" check --raw "$FX/trixie-2.44/prog-r.o.sframe.bin" >"$TMP/out"
st=$?
[ $st = 1 ] && grep -q "invalid: trailing bytes after the FRE sub-section at offset 0x16d" "$TMP/out"
ok $? "check --raw trixie-2.44/prog-r.o.sframe.bin: trailing bytes (exit $st)"

"$SFRAMECTL" check "$FX/sid-2.47.50/prog" "$FX/trixie-2.44/prog-r.o" >"$TMP/out"
st=$?
[ $st = 1 ] && grep -q "sid-2.47.50/prog: ok" "$TMP/out"
ok $? "check with one bad file among good ones: exit 1, the good one still ok"

"$SFRAMECTL" check "$FX/sid-2.47.50/prog.c" >"$TMP/out"
st=$?
[ $st = 1 ] && grep -q "prog.c: invalid: not an ELF file" "$TMP/out"
ok $? "check on a non-ELF file: invalid (exit $st)"

# An ELF identification of another version: libelf reads none but 1.
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[6] = 0
open(sys.argv[2], "wb").write(d)' "$FX/sid-2.47.50/prog" "$TMP/version0"
"$SFRAMECTL" check "$TMP/version0" >"$TMP/out"
st=$?
[ $st = 1 ] && grep -q "version0: invalid: bad ELF version" "$TMP/out"
ok $? "check on an ELF file whose EI_VERSION is 0: invalid (exit $st)"

"$SFRAMECTL" check "$TMP/does-not-exist" >"$TMP/out" 2>"$TMP/err"
st=$?
[ $st = 2 ] && grep -q "does-not-exist: No such file" "$TMP/err"
ok $? "check on a missing file: exit 2 with the reason (exit $st)"

"$SFRAMECTL" frobnicate >"$TMP/out" 2>&1
ok $(($? != 2)) "unknown command: exit 2"

"$SFRAMECTL" dump "$FX/trixie-2.44/prog-r.o" >"$TMP/out" 2>"$TMP/err"
st=$?
[ $st = 1 ] && [ ! -s "$TMP/out" ] && grep -q "invalid" "$TMP/err"
ok $? "dump of an invalid file: nothing on stdout, reason on stderr, exit 1"

tap_done
