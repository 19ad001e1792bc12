#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernel/sframe/tests/walk_aarch64_data.h from walk-aarch64.s: the .sframe that
# binutils' AArch64 cross assembler and linker make of it, as C bytes.
#
#   walk_aarch64_data.sh            rewrite the header
#   walk_aarch64_data.sh --check    fail if the header is not what the
#                                   assembler makes today (make check)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
header=$here/../../../kernel/sframe/tests/walk_aarch64_data.h
for tool in aarch64-linux-gnu-as aarch64-linux-gnu-ld aarch64-linux-gnu-objcopy \
	    aarch64-linux-gnu-readelf; do
	command -v "$tool" >/dev/null ||
		{ echo "error: $tool not found (apt install binutils-aarch64-linux-gnu)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

aarch64-linux-gnu-as --gsframe -o "$tmp/walk.o" "$here/walk-aarch64.s"
aarch64-linux-gnu-ld -e _start -o "$tmp/walk" "$tmp/walk.o"
aarch64-linux-gnu-objcopy -O binary --only-section=.sframe "$tmp/walk" "$tmp/sframe.bin"
vaddr=$(aarch64-linux-gnu-readelf -SW "$tmp/walk" |
	awk '$2 == ".sframe" { print $4 } $3 == ".sframe" { print $5 }')
version=$(aarch64-linux-gnu-as --version | sed -n '1s/.* //p')
[ -n "$vaddr" ] || { echo "error: no .sframe in the linked program" >&2; exit 1; }

{
	cat <<HDR
/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The .sframe of tools/testing/sframe/walk-aarch64.s as GNU as and ld
 * $version for AArch64 make it (SFrame v1); written by
 * tools/testing/sframe/walk_aarch64_data.sh, do not edit.
 */
#ifndef _SFRAME_WALK_AARCH64_DATA_H
#define _SFRAME_WALK_AARCH64_DATA_H

#define WALK_AARCH64_SFRAME_VADDR	$(printf '0x%x' "$((16#$vaddr))")
static const u8 walk_aarch64_sframe[] = {
HDR
	od -An -v -tx1 -w8 "$tmp/sframe.bin" |
		sed -e 's/ \([0-9a-f][0-9a-f]\)/0x\1, /g' -e 's/, $/,/' -e 's/^/\t/'
	cat <<HDR
};

#endif /* _SFRAME_WALK_AARCH64_DATA_H */
HDR
} > "$tmp/header.h"

if [ "${1:-}" = --check ]; then
	if ! diff -u "$header" "$tmp/header.h"; then
		echo "not ok - walk_aarch64_data.h is what walk-aarch64.s assembles to"
		exit 1
	fi
	echo "ok - walk_aarch64_data.h is what walk-aarch64.s assembles to"
else
	cp "$tmp/header.h" "$header"
fi
