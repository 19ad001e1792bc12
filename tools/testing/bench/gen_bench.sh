#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sframectl gen throughput: MB of .eh_frame translated per second (best of
# RUNS), the .sframe/.eh_frame size ratio and the functions covered and
# skipped, for big objects without .sframe.  A figure, not a test.
#
# usage: gen_bench.sh SFRAMECTL [OBJECT...]
#        gen_bench.sh --costly SFRAMECTL DIR
#
# --costly: the inputs that once made gen quadratic, as gen_inputs.sh
# writes them to DIR, each timed (best of RUNS) beside its twin with the
# same amount of CFI in an ordinary shape, and the ratio of the two.

set -u
costly=
if [ "$1" = --costly ]; then
	costly=$3
	shift
fi
SFRAMECTL=$1
shift
RUNS=${RUNS:-5}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# best_ms FILE: gen's best wall time on FILE over RUNS runs, milliseconds.
best_ms() {
	local best= t start
	for _ in $(seq "$RUNS"); do
		start=$(date +%s%N)
		"$SFRAMECTL" gen "$1" --raw -o "$TMP/out" || exit 1
		t=$((($(date +%s%N) - start) / 1000000))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then
			best=$t
		fi
	done
	echo "$best"
}

if [ -n "$costly" ]; then
	printf '%-18s %10s %8s   %-18s %8s %7s\n' input eh_frame ms twin ms \
		ratio
	for pair in fdes-reverse:fdes-forward rows-one:rows-many; do
		bad=$costly/${pair%:*}.so twin=$costly/${pair#*:}.so
		eh=$("$SFRAMECTL" gen "$bad" --raw --stats -o "$TMP/out" 2>&1 |
			sed -n 's/.*\.eh_frame \([0-9]*\) bytes.*/\1/p')
		t=$(best_ms "$bad")
		t2=$(best_ms "$twin")
		awk -v a="${pair%:*}" -v b="${pair#*:}" -v eh="$eh" -v t="$t" \
		    -v t2="$t2" 'BEGIN {
			printf "%-18s %10s %8d   %-18s %8d %7.2f\n", a, eh, t, b,
			       t2, t2 ? t / t2 : 0 }'
	done
	exit 0
fi
[ $# -gt 0 ] || set -- /lib/x86_64-linux-gnu/libc.so.6 \
	/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/bin/python3.11

printf '%-40s %10s %10s %8s %7s %9s %8s\n' object eh_frame sframe ratio \
	MB/s covered skipped
for f in "$@"; do
	[ -e "$f" ] || continue
	best=
	for _ in $(seq "$RUNS"); do
		start=$(date +%s%N)
		"$SFRAMECTL" gen "$f" --raw --stats -o "$TMP/out" 2>"$TMP/stats" ||
			{ cat "$TMP/stats"; exit 1; }
		t=$(($(date +%s%N) - start))
		if [ -z "$best" ] || [ "$t" -lt "$best" ]; then
			best=$t
		fi
	done
	awk -v f="$f" -v ns="$best" '
		/\.eh_frame [0-9]+ bytes/ { eh = $3; sf = $6 }
		/functions:/ { cov = $4; skip = $8 }
		END {
			printf "%-40s %10d %10d %8.3f %7.1f %9d %8d\n", f, eh, sf,
			       sf / eh, eh / 1e6 / (ns / 1e9), cov, skip
		}' "$TMP/stats"
	grep "skipped," "$TMP/stats" | sed 's/^/    /'
done
