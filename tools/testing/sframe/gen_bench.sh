#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sframectl gen throughput: MB of .eh_frame translated per second (best of
# RUNS), the .sframe/.eh_frame size ratio and the functions covered and
# skipped, for big objects without .sframe.  A figure, not a test.
#
# usage: gen_bench.sh SFRAMECTL [OBJECT...]

set -u
SFRAMECTL=$1
shift
RUNS=${RUNS:-5}
[ $# -gt 0 ] || set -- /lib/x86_64-linux-gnu/libc.so.6 \
	/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/bin/python3.11
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

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
