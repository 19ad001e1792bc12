#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sframectl gen: its SFrame sections agree with the assembler's own on the
# x86-64 and AArch64 fixtures, `check` accepts them for every fixture and
# this machine's big libraries, the bytes it writes for some fixtures are
# pinned, bad input gets a reason, never a crash, the inputs that once
# made it quadratic take time in proportion to their size, and each limit
# refuses with its reason.
#
# usage: gen_test.sh SFRAMECTL [SFRAMECTL_CAPS]
#
# SFRAMECTL may be an ASan/UBSan build; any sanitizer report fails a test.
# SFRAMECTL_CAPS is sframectl built with small limits (the Makefile's
# CAPS_CPPFLAGS), to see each refused.

set -u
SFRAMECTL=$1
CAPS=${2:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
MIN_AGREEMENT=99
# The fixtures and deep workloads of both machines, in this tree.
TT=$(cd "$(dirname "$0")/.." && pwd)
FX=$TT/sframe/fixtures/x86_64
FXW=$TT/workloads/x86_64
A64=$TT/sframe/fixtures/aarch64
A64W=$TT/workloads/aarch64
. "$(dirname "$0")/tap.sh"

# fixture PATH: PATH as a test names it, FX/x as x, FXW/x as workloads/x.
fixture() {
	case $1 in
	"$FX"/*) echo "${1#"$FX"/}" ;;
	"$FXW"/*) echo "workloads/${1#"$FXW"/}" ;;
	*) echo "$1" ;;
	esac
}

# gen_fails STATUS TEXT NAME ARGS...: gen ARGS must exit STATUS saying TEXT.
gen_fails() {
	want=$1 text=$2 name=$3
	shift 3
	"$SFRAMECTL" gen "$@" -o "$TMP/out" 2>"$TMP/err"
	st=$?
	[ $st = "$want" ] && grep -q -- "$text" "$TMP/err"
	ok $? "$name (exit $st)"
}

# Instruction addresses objdump sees in FILE, leaving out two places where
# the toolchain's .sframe is known to disagree with its own .eh_frame:
# ld's .plt.got FDE (CFA sp+16, where the code and .eh_frame say sp+8),
# and, before binutils 2.47, hand.s's outermost function (.cfi_undefined
# rip was not encoded, so .sframe says sp+8 where CFI says RA undefined).
insn_addrs() {
	objdump -d -w --no-show-raw-insn "$1" | awk -v old="$2" '
		/^Disassembly of section / { sec = $4; next }
		/^[0-9a-f]+ <.*>:$/ { fn = $2; next }
		sec == ".plt.got:" { next }
		old && fn == "<outermost>:" { next }
		/^ *[0-9a-f]+:\t/ { sub(":", "", $1); print $1 }'
}

# 1. Agreement with the toolchain's .sframe, per object.  Relocatable
# objects are compared only for v3 (PC-relative starts): v1/v2 .o start
# fields are relocated in a way sframectl's reader does not place.
agree_files=$(ls "$FX"/*-*/prog "$FX"/*-*/prog-static \
	"$FX"/sid-2.47.50/*.o "$FXW"/v*/*)
for f in $agree_files; do
	old=0
	case $f in *bookworm-2.40/* | *trixie-2.44/*) old=1 ;; esac
	insn_addrs "$f" "$old" >"$TMP/at"
	"$SFRAMECTL" gen --compare --at "$TMP/at" "$f" >"$TMP/cmp" 2>"$TMP/err"
	st=$?
	"$SFRAMECTL" gen --compare "$f" >"$TMP/bytes" 2>>"$TMP/err"
	pct=$(sed -n 's/.*: agreement \([0-9.]*\)%.*/\1/p' "$TMP/cmp")
	raw=$(sed -n 's/.*: agreement \([0-9.]*\)%.*/\1/p' "$TMP/bytes")
	sed -n 's/^  differ/# differ/p' "$TMP/bytes"
	echo "# $(fixture "$f"): $pct% of instructions, $raw% of bytes (all)"
	[ $st = 0 ] && [ ! -s "$TMP/err" ] && [ -n "$pct" ] &&
		awk -v p="$pct" -v m=$MIN_AGREEMENT 'BEGIN { exit !(p >= m) }'
	ok $? "gen agrees with $(fixture "$f")'s .sframe at >= $MIN_AGREEMENT% of instructions ($pct%)"
done

# The DRAP function comes out as binutils 2.47 encodes it: one flex FDE.
"$SFRAMECTL" gen "$FX/sid-2.47.50/prog" -o "$TMP/prog.sframe.o"
"$SFRAMECTL" dump "$TMP/prog.sframe.o" >"$TMP/dump"
"$SFRAMECTL" dump "$FX/sid-2.47.50/prog" >"$TMP/ref"
drap() {
	sed -n '/pc = 0x1310, size = 289 bytes, attr = "F"/,/^$/p' "$1" |
		sed 's/func idx \[[0-9]*\]/func/'
}
[ -n "$(drap "$TMP/ref")" ] && diff <(drap "$TMP/ref") <(drap "$TMP/dump") >&2
ok $? "gen sid-2.47.50/prog: DRAP function is the same flex FDE as ld's"
grep -q 'pc = 0x1030, size = 48 bytes$' "$TMP/dump" &&
	grep -A2 'pc = 0x1030, size = 48 bytes$' "$TMP/dump" | grep -q 'STARTPC\[m\]'
ok $? "gen sid-2.47.50/prog: .plt entries become a PC-mask FDE"
grep -q 'pc = 0x1465, size = 9 bytes, attr = "S"' "$TMP/dump"
ok $? "gen sid-2.47.50/prog: the signal frame FDE has the signal flag"

# 2. check accepts every output, and --raw gives the same section bytes.
libs="/lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2
      /lib/x86_64-linux-gnu/libstdc++.so.6 /usr/bin/python3.11"
all=$(ls "$FX"/*-*/prog "$FX"/*-*/prog-static \
	"$FX"/*-*/*.o "$FXW"/*/deep* "$FXW"/*/*.so |
	grep -vF "$FXW/src/")
for f in $all $libs; do
	if [ ! -e "$f" ]; then
		ok 1 "gen $f: not on this machine (install-deps.sh installs it)"
		continue
	fi
	"$SFRAMECTL" gen "$f" -o "$TMP/out" 2>"$TMP/err" &&
		"$SFRAMECTL" check "$TMP/out" >/dev/null &&
		"$SFRAMECTL" dump "$TMP/out" >/dev/null &&
		"$SFRAMECTL" gen --raw "$f" -o "$TMP/raw" 2>>"$TMP/err" &&
		"$SFRAMECTL" check --raw "$TMP/raw" >/dev/null && [ ! -s "$TMP/err" ]
	ok $? "gen $(fixture "$f"): check accepts the output, ELF and --raw"
done

"$SFRAMECTL" gen /lib/x86_64-linux-gnu/libc.so.6 --stats -o "$TMP/libc" \
	2>"$TMP/stats"
grep -q "signal" "$TMP/stats" && grep -qE "covered [1-9][0-9]{3,}" "$TMP/stats"
ok $? "gen --stats libc.so.6: thousands of functions covered, signal FDEs counted"
sed 's/^/# /' "$TMP/stats"

# The bytes gen writes are pinned, raw and in the sidecar file, for
# objects with flex, PC-mask and signal FDEs, a relocated .eh_frame, a
# static program and AArch64 ones with signed return addresses: the
# encoder's choices (address and word sizes, one FRE per change of rule)
# and the container's layout change only on purpose.
while read -r want form name; do
	args=
	[ "$form" = raw ] && args=--raw
	path=$FX/$name
	case $name in
	aarch64/*) path=$A64/${name#aarch64/} ;;
	workloads/*) path=$FXW/${name#workloads/} ;;
	esac
	"$SFRAMECTL" gen $args "$path" -o "$TMP/pinned" 2>"$TMP/err"
	got=$(sha256sum <"$TMP/pinned" | cut -d' ' -f1)
	[ "$got" = "$want" ] && [ ! -s "$TMP/err" ]
	ok $? "gen ${args:+--raw }$name: the bytes pinned (sha256 ${got:0:12})"
done <<'SUMS'
235a298faeb8ce49be0cea9942516c144771474e760a6afe6e2202cb53806031 elf sid-2.47.50/prog
910e117bb4f35965d51f9f58243788ba6aae4c668c8f3eaea2fa42705a760c1b raw sid-2.47.50/prog
5bd53e7c15e2d2decca1b74b48b647ff18dee2e49f7ebad1c4a055b7464a536e elf sid-2.47.50/prog.o
744f27df1accb45149c226d40fe87a21506a55ead8f05751d7df752ac1f72c9d raw sid-2.47.50/prog.o
80abbeefc17302f52fc49a549c2687f5ebb3ea93b28a0e06a401a1b45a0f07cd elf trixie-2.44/prog-static
6e0e018b39d6b4e13dc67771f8f14c67589d00fa676b8908fc896b6e0b177974 raw trixie-2.44/prog-static
b9bf7bec5832eea556e57bcd8223624f2a77547e62ca74a3034fb0794993137d elf workloads/nosframe/libdeepso.so
5cdd23f12b037977da89288fe6f119f47fe68fbf6b2e610b4e6323d2de7373a7 raw workloads/nosframe/libdeepso.so
2713af0019e58f099470ff050abdb75b01e0e73759ef08a34a6b7d2a43f94f1c elf aarch64/sid-2.47.50/prog-pac
ef6827c713ef3a098ff0e8c238c0778fc52a21bd0bbf7720ce357de90a5e1241 raw aarch64/sid-2.47.50/hand.o
da21cc6da3eb400d431082973a9dd8c5e3f4ad58cbdbfcd4b7cec729970d27ef elf sid-2.47.50/hand.o
263d293a2c83e873cf50bf67aa66134b42230a20c08da22712c2da4b73c4243a elf bookworm-2.40/prog-r.o
e9a6967210d5fb51fc7520bb9ee89623b8a232cb3a41e317ae40d8e01fd4b02a elf sid-2.47.50/prog-static
54da3cd672c3032c301978729449e002a197989de4d301250da5a15fce3a9eda elf workloads/nosframe/deep
3fd7a5183090443e88df983f8420f5306f576009a83cd1181c33ea7282a842dd elf aarch64/trixie-2.44/prog
592744e7955574473b6bef44721b67d1f9f4cde3f28aabb140317829ac08001f elf aarch64/bookworm-2.40/prog-pac.o
SUMS

# The inputs that once made gen quadratic (gen_inputs.sh) translate into
# sections `check` accepts, in time in proportion to their size: each
# within 3 times its twin's (the same amount of CFI, ordinary shape) and
# 300 ms, best of two, wide enough for a loaded machine and a sanitizer
# build; before, 3.8 and 63 times.
"$(dirname "$0")/gen_inputs.sh" "$TMP/costly" >/dev/null
best_ms() {
	local best= t start
	for _ in 1 2; do
		start=$(date +%s%N)
		"$SFRAMECTL" gen "$1" -o "$TMP/costly/out" 2>>"$TMP/costly/err" ||
			return 1
		t=$((($(date +%s%N) - start) / 1000000))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then
			best=$t
		fi
	done
	echo "$best"
}
for pair in fdes-reverse:fdes-forward rows-one:rows-many; do
	bad=${pair%:*} twin=${pair#*:}
	t=$(best_ms "$TMP/costly/$bad.so") &&
		"$SFRAMECTL" check "$TMP/costly/out" >"$TMP/check" 2>&1 &&
		t2=$(best_ms "$TMP/costly/$twin.so") &&
		[ ! -s "$TMP/costly/err" ] && [ "$t" -le $((3 * t2 + 300)) ]
	ok $? "gen $bad.so: valid, $t ms, its twin $twin.so ${t2:-?} ms ($(cat "$TMP/check"))"
done

# A CIE's initial instructions are executed once for all its FDEs, not
# once an FDE: gen_inputs.sh's CIE of 4095 bytes (just under the limit)
# shared by 81,920 FDEs costs within 300 ms of CPU of the usual 7-byte
# one (a second more before); its CIE of 400 KB is refused within a
# second (translated in 25 s before); a CIE whose FDEs must each execute
# it again runs into the limit on instructions executed.
#
# cpu_ms FILE: gen FILE's CPU time (user and system) in ms, the better of
# two runs; its exit status in $TMP/cpu.st, what it says in $TMP/cpu.err.
cpu_ms() {
	local TIMEFORMAT='%3U %3S' best= t
	for _ in 1 2; do
		{ time "$SFRAMECTL" gen "$1" -o "$TMP/costly/out" \
			2>"$TMP/cpu.err"; } 2>"$TMP/cpu.time"
		echo $? >"$TMP/cpu.st"
		t=$(awk '{ printf "%d", ($1 + $2) * 1000 }' "$TMP/cpu.time")
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then
			best=$t
		fi
	done
	echo "$best"
}
t=$(cpu_ms "$TMP/costly/cie-long.so") usual=
[ "$(cat "$TMP/cpu.st")" = 0 ] && [ ! -s "$TMP/cpu.err" ] &&
	"$SFRAMECTL" check "$TMP/costly/out" >"$TMP/check" 2>&1 &&
	usual=$(cpu_ms "$TMP/costly/cie-short.so") &&
	[ "$(cat "$TMP/cpu.st")" = 0 ] && [ "$t" -le $((usual + 300)) ]
ok $? "gen cie-long.so: valid, $t ms of CPU, with the usual CIE ${usual:-?} ms ($(cat "$TMP/check"))"
t=$(cpu_ms "$TMP/costly/cie-huge.so")
[ "$(cat "$TMP/cpu.st")" = 1 ] && [ "$t" -lt 1000 ] &&
	grep -q "cie-huge.so: CIE at offset 0x0: initial instructions of 409599 bytes, more than the 4096 allowed$" "$TMP/cpu.err"
ok $? "gen cie-huge.so: refused in $t ms of CPU: $(cat "$TMP/cpu.err")"
gen_fails 1 "cie-remember.so: more than the 67108864 CFI instructions allowed$" \
	"gen cie-remember.so: refused, each FDE executing its CIE again" \
	"$TMP/costly/cie-remember.so"
# A .eh_frame of many small CIEs (each a row of the table FDEs find
# theirs in; 64 MiB of them would be 268 MB) is refused past GEN_MAX_CIES,
# as invalid, not as out of memory.
gen_fails 1 "cies-many.so: more than the 65536 CIEs allowed$" \
	"gen cies-many.so: 65,537 CIEs refused" "$TMP/costly/cies-many.so"

# gen-cases/: inputs gen once made invalid sections for (README).
"$SFRAMECTL" gen "$(dirname "$0")/gen-cases/fde-below-section.o" \
	-o "$TMP/out" 2>"$TMP/err" && "$SFRAMECTL" check "$TMP/out" >"$TMP/check"
ok $? "gen fde-below-section.o: an FDE below the section, sorted as SFrame orders it ($(cat "$TMP/check" "$TMP/err"))"
"$SFRAMECTL" gen --stats "$(dirname "$0")/gen-cases/plt-overlap.elf" \
	-o "$TMP/out" >"$TMP/stats" 2>&1 && "$SFRAMECTL" check "$TMP/out" >"$TMP/check" &&
	grep -q "addresses of another PLT section: 1" "$TMP/stats"
ok $? "gen plt-overlap.elf: a .plt running into .plt.got, the second refused ($(cat "$TMP/check"))"

# Each limit refuses (exit 1) with the figure and the limit, or leaves
# the function out (rows), in a build with small ones: small copies of
# the costly inputs cross exactly one limit each.
if [ -n "$CAPS" ]; then
	FDES=512 ROWS=8192 CIES=16 "$(dirname "$0")/gen_inputs.sh" "$TMP/caps1" >/dev/null
	FDES=1024 ROWS=900 CIES=16 "$(dirname "$0")/gen_inputs.sh" "$TMP/caps2" >/dev/null
	while IFS='|' read -r input text; do
		"$CAPS" gen "$TMP/$input" -o "$TMP/out" 2>"$TMP/err"
		st=$?
		[ $st = 1 ] && grep -q "^sframectl: $TMP/$input: $text$" "$TMP/err"
		ok $? "limits: $input refused (exit $st): $(cat "$TMP/err")"
	done <<'LIMITS'
caps2/fdes-forward.so|.eh_frame of 98328 bytes, more than the 60000 allowed
caps1/fdes-reverse.so|512 FDEs, more than the 300 allowed
caps1/rows-many.so|more than the 5000 FREs allowed
caps2/rows-one.so|SFrame section of 4103 bytes, more than the 2048 allowed
LIMITS
	"$CAPS" gen "$TMP/caps1/rows-one.so" --stats -o "$TMP/out" 2>"$TMP/err"
	st=$?
	[ $st = 0 ] && grep -q "^  skipped, too many rows: 1 functions" "$TMP/err"
	ok $? "limits: the function of rows-one.so left out, too many rows (exit $st)"
fi

# AArch64: gen's section against the cross assemblers' own, from the
# fixtures (fixtures/aarch64) and the arm64 workloads, at instruction
# addresses: CFA from SP or x29, x29 and x30 saved at the CFA or not, and
# the signed-RA bit where DW_CFA_AARCH64_negate_ra_state says.  Objects
# whose .sframe is unrelocated for sframectl (v1 and v2 .o) are left out.
a64_insns() {
	aarch64-linux-gnu-objdump -d -w --no-show-raw-insn "$1" |
		awk '/^ *[0-9a-f]+:\t/ { sub(":", "", $1); print $1 }'
}
for f in "$A64"/*-*/prog "$A64"/*-*/prog-pac "$A64"/sid-*/*.o "$A64W"/v*/*; do
	a64_insns "$f" >"$TMP/at"
	"$SFRAMECTL" gen --compare --at "$TMP/at" "$f" >"$TMP/cmp" 2>"$TMP/err"
	st=$?
	pct=$(sed -n 's/.*: agreement \([0-9.]*\)%.*/\1/p' "$TMP/cmp")
	sed -n 's/^  differ/# differ/p' "$TMP/cmp"
	[ $st = 0 ] && [ ! -s "$TMP/err" ] && [ -s "$TMP/at" ] &&
		[ "$pct" = 100.00 ]
	ok $? "gen agrees with aarch64 ${f#"$TT"/}'s .sframe at every instruction ($pct%)"
done

# The functions ld describes come out of gen as the same dump lines, their
# signed-RA marks included; hand.o's outermost and signal functions too
# (the newest assembler encodes .cfi_undefined x30).
fde_blocks() {
	"$SFRAMECTL" dump "$1" | awk '/func idx/ { sub(/func idx \[[0-9]+\]/, "func") }
		/^$/ { if (b != "") print b; b = ""; next }
		b != "" || /func/ { b = b $0 "|" } END { if (b != "") print b }' |
		grep '^    func' | sort
}
for f in "$A64"/*-*/prog "$A64"/*-*/prog-pac "$A64"/sid-*/hand.o; do
	"$SFRAMECTL" gen -o "$TMP/a64.sframe.o" "$f" 2>"$TMP/err"
	fde_blocks "$f" >"$TMP/want"
	fde_blocks "$TMP/a64.sframe.o" >"$TMP/got"
	[ -s "$TMP/want" ] && [ ! -s "$TMP/err" ] &&
		[ -z "$(comm -23 "$TMP/want" "$TMP/got")" ]
	ok $? "gen aarch64 ${f#"$A64"/}: every FDE of its own section, FRE for FRE ($(wc -l <"$TMP/want") FDEs)"
	comm -23 "$TMP/want" "$TMP/got" | tr '|' '\n' | sed 's/^/# missing: /'
done
"$SFRAMECTL" gen -o "$TMP/a64.sframe.o" "$A64"/sid-*/hand.o
"$SFRAMECTL" dump "$TMP/a64.sframe.o" >"$TMP/dump"
grep -q 'sp+32     c-32      c-24\[s\]' "$TMP/dump" &&
	grep -q 'RA undefined' "$TMP/dump" && grep -q 'attr = "S"' "$TMP/dump" &&
	readelf -h "$TMP/a64.sframe.o" | grep -q 'Machine: *AArch64'
ok $? "gen aarch64 hand.o: signed RA, outermost and signal FDEs, an AArch64 container"

# check accepts what gen makes of every arm64 object, Debian 12's arm64
# libc (libc6-arm64-cross, from install-deps.sh) and ld.so among them.
a64_libs="/usr/aarch64-linux-gnu/lib/libc.so.6
	  /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1"
for f in "$A64"/*-*/prog "$A64"/*-*/prog-pac "$A64"/*-*/*.o "$A64W"/*/* \
	 $a64_libs; do
	[ -e "$f" ] &&
		"$SFRAMECTL" gen "$f" -o "$TMP/out" 2>"$TMP/err" &&
		"$SFRAMECTL" check "$TMP/out" >/dev/null && [ ! -s "$TMP/err" ]
	ok $? "gen ${f#"$TT"/}: check accepts the AArch64 output"
done

# 3. Bad input.  A CIE whose length points past the end of .eh_frame:
damage() {
	python3 - "$1" "$2" "$3" <<'PY'
import struct, subprocess, sys
src, dst, how = sys.argv[1:]
d = bytearray(open(src, "rb").read())
out = subprocess.run(["readelf", "-SW", src], capture_output=True,
                     text=True).stdout
for line in out.splitlines():
    f = line.replace("[ ", "[").split()
    if len(f) > 5 and f[1] == ".eh_frame":
        off = int(f[4], 16)
        size = int(f[5], 16)
if how == "length":
    d[off:off + 4] = struct.pack("<I", 0x7ffffff0)
else:
    # The first FDE's instructions: an undefined CFA opcode.
    cie_len = struct.unpack("<I", d[off:off + 4])[0]
    fde = off + 4 + cie_len
    fde_len = struct.unpack("<I", d[fde:fde + 4])[0]
    # length, CIE pointer, pc begin, pc range, augmentation length
    ins = fde + 4 + 4 + 4 + 4 + 1
    d[ins:fde + 4 + fde_len] = b"\x3f" * (fde + 4 + fde_len - ins)
open(dst, "wb").write(d)
PY
}
base=$FX/sid-2.47.50/prog
damage "$base" "$TMP/badlen" length
"$SFRAMECTL" gen "$TMP/badlen" -o "$TMP/out" 2>"$TMP/err"
st=$?
cat "$TMP/err" | sed 's/^/# /'
[ $st = 1 ] && grep -q "badlen: malformed .eh_frame entry at offset 0x0" "$TMP/err"
ok $? "gen: CIE length past the end: file and reason, exit 1 (exit $st)"

damage "$base" "$TMP/badop" opcode
"$SFRAMECTL" gen "$TMP/badop" --stats -o "$TMP/out" 2>"$TMP/err"
st=$?
cat "$TMP/err" | sed 's/^/# /'
[ $st = 0 ] && grep -q "skipped, damaged CFI: 1 functions" "$TMP/err" &&
	"$SFRAMECTL" check "$TMP/out" >/dev/null
ok $? "gen: an invalid CFA opcode skips that function and counts it (exit $st)"

gen_fails 1 "prog.sframe.bin: not an ELF file" \
	"gen on a non-ELF file: reason, exit 1" \
	"$FX/sid-2.47.50/prog.sframe.bin"

gen_fails 1 "prog.sframe.o: no .eh_frame section" \
	"gen on an ELF file without .eh_frame: reason, exit 1" \
	"$TMP/prog.sframe.o"

python3 - "$base" "$TMP/noshdr" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[0x28:0x30] = bytes(8)
d[0x3c:0x40] = bytes(4)
open(sys.argv[2], "wb").write(d)
PY
gen_fails 1 "noshdr: no section headers" \
	"gen on a stripped object: reason, exit 1" "$TMP/noshdr"

gen_fails 2 "does-not-exist: No such file" "gen on a missing file: exit 2" \
	"$TMP/does-not-exist"

"$SFRAMECTL" gen >/dev/null 2>&1
ok $(($? != 2)) "gen without a file: usage, exit 2"

# --fill: a static binary whose program has SFrame and whose libc has
# not.  The sidecar leaves the functions its own section covers to it,
# describes every other, and overlaps none of its own; an object without
# SFrame gets the same sidecar as without --fill.
ST=$FXW/v3-binutils-2.47/deep-static
"$SFRAMECTL" gen --fill --stats -o "$TMP/fill" "$ST" 2>"$TMP/fillstats"
st=$?
"$SFRAMECTL" gen -o "$TMP/full" "$ST"
own=$(sed -n 's/^  left to its own .sframe: \([0-9]*\) functions$/\1/p' "$TMP/fillstats")
fdes() { "$SFRAMECTL" dump "$1" | sed -n 's/^    Num FDEs: //p'; }
nfill=$(fdes "$TMP/fill")
nfull=$(fdes "$TMP/full")
[ "$st" = 0 ] && [ "${own:-0}" -gt 0 ] && [ "$((nfill + own))" = "$nfull" ]
ok $? "gen --fill deep-static: $nfill FDEs, $own left to its own section, $nfull without --fill"
"$SFRAMECTL" dump "$ST" >"$TMP/own.dump"
"$SFRAMECTL" dump "$TMP/fill" >"$TMP/fill.dump"
python3 - "$TMP/own.dump" "$TMP/fill.dump" <<'PY'
import re
import sys
def ranges(path):
    pat = re.compile(r"func idx \[\d+\]: pc = (0x[0-9a-f]+), size = (\d+) bytes")
    return [(int(m.group(1), 16), int(m.group(1), 16) + int(m.group(2)))
            for m in pat.finditer(open(path).read())]
own, fill = ranges(sys.argv[1]), ranges(sys.argv[2])
bad = [(a, b) for a, b in fill for c, d in own if a < d and c < b]
print(f"# own {len(own)} functions, fill {len(fill)}, overlapping {len(bad)}")
sys.exit(1 if bad or not own or not fill else 0)
PY
ok $? "gen --fill deep-static: no function of the sidecar in the object's own section"
"$SFRAMECTL" gen --fill -o "$TMP/nofill" "$FXW/nosframe/deep" &&
	"$SFRAMECTL" gen -o "$TMP/plain" "$FXW/nosframe/deep" &&
	cmp -s "$TMP/nofill" "$TMP/plain"
ok $? "gen --fill on an object without SFrame: the same sidecar as without"

tap_done
