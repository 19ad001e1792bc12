# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# What the gen tests read of an object and of the sidecar gen made for
# it, sourced after SFRAMECTL is set.

# section FILE NAME: "ADDR SIZE" of section NAME, hex without 0x.
section() {
	readelf -SW "$1" | awk -v n="$2" '
		{ sub(/^ *\[ *[0-9]+\]/, "") }
		$1 == n { print $3, $5; exit }' | sed 's/^0*//'
}

# rows SIDECAR ADDR [SIZE]: "OFFSET CFA" for each FRE of the FDE that
# starts at 0xADDR (and is 0xSIZE bytes long); nothing if there is none.
rows() {
	local start cfa

	"$SFRAMECTL" dump "$1" | awk -v pc="0x$2" -v size="$((16#${3:-0}))" '
		/func idx/ { on = ($6 == pc "," && (!size || $9 == size)); next }
		on && /^ *[0-9a-f]+ / { print $1, $2 }
		on && /^$/ { on = 0 }' |
	while read -r start cfa; do
		echo "$((16#$start - 16#$2)) $cfa"
	done
}
